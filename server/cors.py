"""CORS for the bookmarklet: it runs inside any site's page, so the few routes it calls answer every
origin — and only those: status, page keys and the dashboard are not readable from other web pages.

The bookmarklet's routes (:data:`CROSS_ORIGIN_ROUTES`): ``GET /rules/<site>``, the scripts under
``/bookmarklet/``, and ``POST`` to ``/api/pages``, ``/api/feedback`` and ``/api/extract`` (the fallback for
a site not learned yet). No credentials are ever allowed (no ``Access-Control-Allow-Credentials``): the
bookmarklet sends ``credentials: "omit"``, and a browser refuses a credentialed request against ``*``
anyway, so no site can make a reader's browser act on the server with cookies.

Chromium's Private Network Access lets a public page call a server on a private address (localhost, the
LAN) only when the server opts in; sitewise opts in only when configured
(``SITEWISE_ALLOW_PRIVATE_NETWORK=1``, for a reader running their own server on their machine).
"""
from __future__ import annotations

from flask import Flask, Response, request

#: (method, path or path prefix ending in "/") pairs other origins may call.
CROSS_ORIGIN_ROUTES = (
    ("GET", "/rules/"),
    ("GET", "/bookmarklet/"),
    ("POST", "/api/pages"),
    ("POST", "/api/feedback"),
    ("POST", "/api/extract"),
)
ALLOWED_HEADERS = "Content-Type, Content-Encoding, If-None-Match"
EXPOSED_HEADERS = "ETag, Retry-After"
#: Browsers cache a preflight answer this long (Chromium caps it at 2 hours).
PREFLIGHT_MAX_AGE_S = 7200


def cross_origin_methods(path: str) -> list[str]:
    """The methods other origins may use on ``path`` (none for most routes)."""
    return [method for method, route in CROSS_ORIGIN_ROUTES
            if path == route or (route.endswith("/") and path.startswith(route))]


def register_cors(app: Flask, allow_private_network: bool = False) -> None:
    @app.before_request
    def answer_preflight() -> Response | None:
        wanted = request.headers.get("Access-Control-Request-Method")
        if request.method != "OPTIONS" or wanted is None:
            return None
        methods = cross_origin_methods(request.path)
        if wanted.upper() not in methods:
            return app.response_class(status=204)  # no CORS headers: the browser refuses the request
        response = app.response_class(status=204)
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Allow-Methods"] = ", ".join([*methods, "OPTIONS"])
        response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
        response.headers["Access-Control-Max-Age"] = str(PREFLIGHT_MAX_AGE_S)
        if allow_private_network and request.headers.get("Access-Control-Request-Private-Network") == "true":
            response.headers["Access-Control-Allow-Private-Network"] = "true"
        return response

    @app.after_request
    def allow_any_origin(response: Response) -> Response:
        if request.method in cross_origin_methods(request.path) or (
            request.method == "HEAD" and "GET" in cross_origin_methods(request.path)
        ):
            response.headers["Access-Control-Allow-Origin"] = "*"
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response
