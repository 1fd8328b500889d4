"""CORS for the bookmarklet: it runs inside any site's page, so the few routes it calls answer every
origin — and only those: status, page keys and the dashboard are not readable from other web pages.

The bookmarklet's routes (:data:`CROSS_ORIGIN_ROUTES`): ``GET /rules/<site>``, the scripts under
``/bookmarklet/``, and ``POST`` to ``/api/pages``, ``/api/feedback`` and ``/api/extract`` (the fallback for
a site not learned yet). No credentials are ever allowed (no ``Access-Control-Allow-Credentials``): the
bookmarklet sends ``credentials: "omit"``, and a browser refuses a credentialed request against ``*``
anyway, so no site can make a reader's browser act on the server with cookies.

The dashboard and the admin API are the other way round: the administrator's browser holds the dashboard's
Basic sign-in and sends it along with any request to the server, another site's ``<img>`` or
``<link rel=prefetch>`` included, and such a request can tell a stored page key (200) from an unknown one
(404) by its load or error event. A request a browser marks with Fetch Metadata as cross-site and not a
page's own navigation (:func:`refused_cross_site`) is refused there with 403. Requests without those headers
(curl, scripts, older browsers) are answered as before.

Chromium's Private Network Access lets a public page call a server on a private address (localhost, the
LAN) only when the server opts in; sitewise opts in only when configured
(``SITEWISE_ALLOW_PRIVATE_NETWORK=1``, for a reader running their own server on their machine).
"""
from __future__ import annotations

from flask import Flask, Response, abort, request
from werkzeug.datastructures import Headers

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


#: Paths (or path prefixes ending in "/") of the dashboard and the admin API, which no other site's page may
#: load as a resource: the dashboard's HTML and ``/api/admin/``.
SAME_SITE_ROUTES = ("/sites", "/sites/", "/api/admin/")


def _route_matches(path: str, route: str) -> bool:
    return path == route or (route.endswith("/") and path.startswith(route))


def cross_origin_methods(path: str) -> list[str]:
    """The methods other origins may use on ``path`` (none for most routes)."""
    return [method for method, route in CROSS_ORIGIN_ROUTES if _route_matches(path, route)]


def refused_cross_site(path: str, headers: Headers) -> bool:
    """True for a request to a :data:`SAME_SITE_ROUTES` path that the browser says (Fetch Metadata) comes
    from another site and is not a top-level navigation: an image, a prefetch, a script, a fetch(), a frame.
    A link followed from another site (``navigate`` to a ``document``) still opens the dashboard."""
    if headers.get("Sec-Fetch-Site") != "cross-site":
        return False  # same-origin, same-site, a bookmark or typed address ("none"), or no Fetch Metadata
    if headers.get("Sec-Fetch-Mode") == "navigate" and headers.get("Sec-Fetch-Dest") == "document":
        return False
    return any(_route_matches(path, route) for route in SAME_SITE_ROUTES)


def register_cors(app: Flask, allow_private_network: bool = False) -> None:
    @app.before_request
    def refuse_cross_site_loads() -> None:
        if refused_cross_site(request.path, request.headers):
            abort(403, description="The dashboard and the admin API are not loaded from other sites' pages.")

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
