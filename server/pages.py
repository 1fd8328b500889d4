"""HTML pages: the install page (``/``) and the dashboard (``/sites``, ``/sites/<site>``).

Everything that came from an uploaded page is rendered through Jinja's autoescaping — never ``|safe`` —
and the preview of a stored page shows its text blocks, not its HTML, so no page script can run here.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Response, abort, render_template, request, url_for

from .api import checked_site
from .app import services
from .bookmarklet import bookmarklet_href, public_base_url
from .errors import ApiError

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


@blueprint.after_app_request
def protect_html(response: Response) -> Response:
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", PAGE_CSP)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


@blueprint.app_template_filter("url_path")
def url_path(url: str) -> str:
    """A page key as the dashboard lists it: path and query (the site is already on the page)."""
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "") if parts.netloc else url


@blueprint.get("/")
def install() -> str:
    return render_template(
        "install.html",
        href=bookmarklet_href(public_base_url()),
        server=public_base_url(),
        site_count=len(services().store.sites()),
    )


@blueprint.get("/sites")
def sites() -> str:
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
def site(site: str) -> str:
    from .extraction import preview

    store = services().store
    try:
        site = checked_site(site)
    except ApiError:
        abort(404)
    info = store.site_info(site)
    if not info["pages"] and not info["learned"]:
        abort(404, description=f"No pages of {site} have been uploaded.")
    keys = store.page_keys(site)[::-1]
    chosen = request.args.get("page") or (keys[0] if keys else None)
    page = store.get_page(site, chosen) if chosen else None
    if chosen and page is None:
        abort(404, description="That page is not stored (any more).")
    rules = store.rules(site)
    return render_template(
        "site.html",
        info=info,
        rules=rules,
        keys=keys[:PAGES_LISTED],
        chosen=chosen,
        page=page,
        preview=preview(page, site) if page else None,
        feedback=store.feedback(site)[-20:][::-1],
        page_url=lambda key: url_for("pages.site", site=site, page=key),
    )

