"""HTML pages: the install page (``/``) and the dashboard (``/sites``, ``/sites/<site>``).

Everything that came from an uploaded page is rendered through Jinja's autoescaping — never ``|safe`` —
and the preview of a stored page shows its text blocks, not its HTML, so no page script can run here.

Private by default: page addresses, page text and readers' marks are shown only to the administrator
(the admin token, as ``Authorization: Bearer`` or as a browser's Basic sign-in password; ``?signin=1``
asks the browser for it). Everyone sees the sites' status and rules. Views are rate-limited per client,
and a page's preview is bounded in size and cached per page and rule version (a 20,000-block page made
each view 6 MB and 2 s).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Callable
from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, current_app, render_template, request, url_for

from sitewise.store import decode_page

from .api import checked_site
from .bookmarklet import bookmarklet_href, public_base_url
from .errors import ApiError
from .services import client_key, services

if TYPE_CHECKING:
    from .extraction import Preview

blueprint = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")

#: Our own pages load nothing from elsewhere and run no inline script: a strict policy costs nothing
#: and turns any escaping slip into a blocked script rather than an attack.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
#: Page keys listed on a site's dashboard (newest first).
PAGES_LISTED = 100
#: Sites listed per dashboard page (each costs a few Redis reads).
SITES_PER_PAGE = 100
#: Previews a web process keeps (least recently shown dropped first).
PREVIEW_CACHE_SIZE = 64
DASHBOARD_REALM = 'Basic realm="sitewise dashboard", charset="UTF-8"'


class PreviewCache:
    """Previews by (site, page key, rule stamp): a stored page and a rule version never change, so an
    entry is right for as long as both are current."""

    def __init__(self, size: int = PREVIEW_CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[tuple, "Preview"] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_make(self, key: tuple, make: Callable[[], "Preview"]) -> "Preview":
        """The entry for ``key``, made (outside the lock: it may take seconds) when missing."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = make()
        with self._lock:
            self._entries[key] = value
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value


def preview_cache() -> PreviewCache:
    return current_app.extensions.setdefault("sitewise_previews", PreviewCache())


def dashboard_admin() -> bool:
    """True when the request carries the admin token, as a Bearer token or a Basic sign-in's password."""
    token = services().settings.admin_token
    scheme, _, given = (request.headers.get("Authorization") or "").partition(" ")
    if not token or scheme.lower() not in ("bearer", "basic"):
        return False
    if scheme.lower() == "basic":
        try:
            given = base64.b64decode(given.strip(), validate=True).decode("utf-8").partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def _limit_views() -> None:
    services().views.check(client_key(), "dashboard views")


@blueprint.after_app_request
def protect_html(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        # frame-ancestors for the browsers that know only the older header: no page of ours is framed.
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


@blueprint.app_template_filter("url_path")
def url_path(url: str) -> str:
    """A page key as the dashboard lists it: path and query (the site is already on the page)."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "") if parts.netloc else url


@blueprint.get("/")
def install() -> str:
    base = public_base_url()
    return render_template(
        "install.html",
        href=bookmarklet_href(base),
        server=base,
        site_count=len(services().store.sites()),
    )


@blueprint.get("/sites")
def sites() -> str:
    _limit_views()
    store = services().store
    names = store.sites()
    try:
        offset = max(0, int(request.args.get("offset", 0)))
    except ValueError:
        offset = 0
    shown = names[offset : offset + SITES_PER_PAGE]
    return render_template(
        "sites.html",
        sites=[store.site_info(site) for site in shown],
        total=len(names),
        offset=offset,
        per_page=SITES_PER_PAGE,
    )


@blueprint.get("/sites/<site>")
def site(site: str) -> str | Response:
    _limit_views()
    store = services().store
    try:
        site = checked_site(site)
    except ApiError:
        abort(404)
    admin = dashboard_admin()
    if request.args.get("signin") and not admin:
        if not services().settings.admin_token:
            abort(403, description="No admin token is configured (SITEWISE_ADMIN_TOKEN).")
        return Response("Sign in with the admin token as the password.", 401, {"WWW-Authenticate": DASHBOARD_REALM})
    info = store.site_info(site)
    if not info["pages"] and not info["learned"]:
        abort(404, description=f"No pages of {site} have been uploaded.")
    keys = store.page_keys(site)[::-1] if admin else []
    chosen = (request.args.get("page") or (keys[0] if keys else None)) if admin else None
    shown = _preview(site, chosen) if chosen else None
    rules = store.rules(site)
    return render_template(
        "site.html",
        info=info,
        admin=admin,
        rules=rules,
        held=store.held_rules(site),
        keys=keys[:PAGES_LISTED],
        chosen=chosen,
        preview=shown,
        feedback=store.feedback(site)[-20:][::-1] if admin else [],
        page_url=lambda key: url_for("pages.site", site=site, page=key),
    )


def _preview(site: str, key: str) -> "Preview":
    """The preview of a stored page (404 when it is not stored), from the cache when the page and the
    rules are the ones it was made of: decoding a 20,000-block page alone takes 0.4 s."""
    from .extraction import preview

    store = services().store
    record = store.page_record(site, key)
    if record is None:
        abort(404, description="That page is not stored (any more).")
    identity = (site, key, hashlib.sha256(record).hexdigest(), store.rules_stamp(site))
    return preview_cache().get_or_make(identity, lambda: preview(decode_page(record), site))

