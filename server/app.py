"""The Flask app factory: configuration, the store, limits, CORS, JSON errors and the blueprints. It
builds the :class:`~sitewise.server.services.Services` the blueprints share and registers the blueprints; nothing
imports it but the app's users (gunicorn, tests, ``sitewise up``)."""
from __future__ import annotations

import logging
import time

from flask import Flask, Response, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from sitewise import __version__
from sitewise.config import Settings
from sitewise.store import Store, open_store
from sitewise.urls import parse_url_params

from . import api, bookmarklet, health, pages, rules
from .budget import StorageBudget
from .cors import register_cors
from .errors import register_error_handlers
from .learning import Learning
from .ratelimit import FixedWindowLimiter
from .services import Services, known_client_key

log = logging.getLogger("server")

#: Upload limits count per minute (``Settings.uploads_per_minute``) ...
MINUTE_S = 60
#: ... and per-client page quotas per site per day (``Settings.client_pages_per_site_per_day``).
DAY_S = 86_400
#: Extraction requests cost CPU (MSS over a whole page); allow this many per upload allowance.
EXTRACTS_PER_UPLOAD = 2


def create_app(settings: Settings | None = None, store: Store | None = None) -> Flask:
    """Build the app. ``settings`` default to the environment; ``store`` to the one they name."""
    settings = settings or Settings.from_env()
    store = store or open_store(settings)
    url_params = parse_url_params(settings.url_params)  # a bad setting stops the start, not an upload
    app = Flask(__name__)
    app.config.update(
        # Werkzeug refuses larger raw bodies before reading them; decoded gzip is capped in sitewise.server.body.
        MAX_CONTENT_LENGTH=settings.max_page_bytes,
        JSON_SORT_KEYS=False,
        SITEWISE_VERSION=__version__,
    )
    if settings.trusted_proxies > 0:
        # Limits and contributor tags key on (a hash of) the client's address, which a proxy hides behind its own.
        hops = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)  # type: ignore[method-assign]
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    app.extensions["sitewise"] = Services(
        settings=settings,
        store=store,
        learning=Learning(store.redis),
        uploads=FixedWindowLimiter(store.redis, "uploads", settings.uploads_per_minute, MINUTE_S),
        extracts=FixedWindowLimiter(store.redis, "extracts", settings.uploads_per_minute * EXTRACTS_PER_UPLOAD, MINUTE_S),
        site_quota=FixedWindowLimiter(store.redis, "site-pages", settings.client_pages_per_site_per_day, DAY_S),
        client_pages=FixedWindowLimiter(store.redis, "pages", settings.client_pages_per_day, DAY_S),
        client_bytes=FixedWindowLimiter(store.redis, "bytes", settings.client_bytes_per_day, DAY_S),
        site_marks=FixedWindowLimiter(store.redis, "site-marks", settings.client_marks_per_site_per_day, DAY_S),
        views=FixedWindowLimiter(store.redis, "views", settings.dashboard_views_per_minute, MINUTE_S),
        storage=StorageBudget(store, settings.storage_budget_bytes),
        url_params=url_params,
    )
    app.register_blueprint(api.blueprint)
    app.register_blueprint(rules.blueprint)
    app.register_blueprint(bookmarklet.blueprint)
    app.register_blueprint(pages.blueprint)
    app.register_blueprint(health.blueprint)
    register_cors(app, allow_private_network=bool(settings.allow_private_network))
    register_error_handlers(app)
    _register_access_log(app)
    _register_response_headers(app)
    return app


def _register_response_headers(app: Flask) -> None:
    @app.after_request
    def nosniff(response: Response) -> Response:
        """No answer is ever to be taken for another type (JSON or a page for script, style sheet or HTML),
        whatever a browser would guess from its content."""
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.after_request
    def private_to_the_caller(response: Response) -> Response:
        """An answer to a request with credentials (the admin token: page keys, page text, marks) is kept by
        no cache, the administrator's browser's included."""
        if "Authorization" in request.headers:
            response.headers["Cache-Control"] = "no-store"
        return response


def _register_access_log(app: Flask) -> None:
    @app.before_request
    def start_timer() -> None:
        g.started = time.perf_counter()

    @app.after_request
    def log_request(response: Response) -> Response:
        elapsed_ms = (time.perf_counter() - g.get("started", time.perf_counter())) * 1000
        if response.status_code >= 500:
            level = logging.WARNING
        elif request.method in ("GET", "HEAD", "OPTIONS"):
            level = logging.DEBUG  # rule reads come by the thousand per second; writes are worth a line
        else:
            level = logging.INFO
        # The caller by its pseudonym (never its address), when the request counted against a limit.
        caller = known_client_key() or "-"
        log.log(level, "%s %s %s %d %.1f ms", caller, request.method, request.path, response.status_code, elapsed_ms)
        return response
