"""CORS for the bookmarklet: it runs inside any site's page, so the API answers every origin.

No credentials are ever allowed (no ``Access-Control-Allow-Credentials``): the bookmarklet sends
``credentials: "omit"``, and a browser refuses a credentialed request against ``*`` anyway, so no
site can make a reader's browser act on the server with cookies.
"""
from __future__ import annotations

from flask import Flask, Response, request

#: Paths the bookmarklet calls from other origins.
CORS_PREFIXES = ("/api/", "/rules/", "/bookmarklet/")
ALLOWED_METHODS = "GET, POST, OPTIONS"
ALLOWED_HEADERS = "Content-Type, Content-Encoding, If-None-Match"
EXPOSED_HEADERS = "ETag, Retry-After"
#: Browsers cache a preflight answer this long (Chromium caps it at 2 hours).
PREFLIGHT_MAX_AGE_S = 7200


def _is_cross_origin_path() -> bool:
    return request.path.startswith(CORS_PREFIXES)


def register_cors(app: Flask) -> None:
    @app.before_request
    def answer_preflight() -> Response | None:
        if request.method == "OPTIONS" and _is_cross_origin_path() and "Access-Control-Request-Method" in request.headers:
            response = app.response_class(status=204)
            response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
            response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_S)
            # Chromium's Private Network Access: a public page may call a server on localhost/LAN
            # only when the server says so in the preflight.
            if request.headers.get("Access-Control-Request-Private-Network") == "true":
                response.headers["Access-Control-Allow-Private-Network"] = "true"
            return response
        return None

    @app.after_request
    def allow_any_origin(response: Response) -> Response:
        if _is_cross_origin_path():
            response.headers["Access-Control-Allow-Origin"] = "*"
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response
