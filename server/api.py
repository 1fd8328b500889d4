"""``/api``: uploads, site status, extraction, reader feedback and admin actions (JSON in, JSON out)."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hmac
import logging
from functools import wraps
from typing import Any, Callable

from flask import Blueprint, Response, jsonify, request

from sitewise.page import Page, PageError, joinable_host, site_of
from sitewise.urls import WEB_SCHEMES, UrlParams, is_web_url, private_page, private_url

from .body import read_json
from .errors import ApiError
from .learning import learning_due
from .services import client_key, services
from .validation import check_stored_url, check_stored_urls, named_host, validate_page

log = logging.getLogger(__name__)
blueprint = Blueprint("api", __name__, url_prefix="/api")

#: Feedback is a mark, not a page: a few kB is plenty (a block's text is cut to this many characters).
MAX_FEEDBACK_BYTES = 64_000
MAX_FEEDBACK_TEXT_CHARS = 10_000
MAX_SELECTOR_CHARS = 4_000
#: The learner's vocabulary (docs/rules.md): a highlighted block that is not article, article left out.
FEEDBACK_KINDS = ("not_article", "missing")
#: An alias is one host name: a kB is plenty.
MAX_ALIAS_BYTES = 1_000
#: Site listings are paged. A site's status takes ~6 Redis reads, so a listing of the most costs ~1,200
#: (1,000 sites took 0.55 s and 6,001 commands); more are a few requests away with ``offset``.
DEFAULT_SITES_LIMIT = 100
MAX_SITES_LIMIT = 200
#: How many page keys /api/sites/<site> lists (newest first).
PAGE_KEYS_SHOWN = 200


def _status(info: dict[str, Any]) -> dict[str, Any]:
    settings = services().settings
    return {
        **info,
        "learning_due": learning_due(info, settings),
        "min_pages_to_learn": settings.min_pages_to_learn,
    }


def checked_site(site: str) -> str:
    """The site key of a host named in a request path (any of the site's hosts, with a port or not, or an
    alias), or 400."""
    return services().store.site_key(named_host(site, "site"))


def known_site(site: str) -> dict[str, Any]:
    """The status of a site the store knows, or 404."""
    site = checked_site(site)
    info = services().store.site_info(site)
    if not info["pages"] and not info["learned"] and not info["feedback"]:
        raise ApiError(404, "unknown_site", f"no pages of {site} have been uploaded", site=site, pages=0)
    return info


# -- uploads ---------------------------------------------------------------------------------------


@blueprint.post("/pages")
def upload_page() -> tuple[Response, int]:
    """Store one collected page; answer with the site's status (and queue learning when due).

    A reader's upload counts against per-client limits and is tagged with its contributor, who owns the
    stored copy: an upload of a page another contributor stored keeps theirs (200, ``stored: false``). Its
    ``html`` is not kept. An upload with the admin token (``sitewise collect --server`` run by the operator)
    is neither limited nor tagged, and keeps its HTML. URLs are stored without query string and fragment
    (``SITEWISE_URL_PARAMS`` keeps some)."""
    svc = services()
    operator = "Authorization" in request.headers
    if operator:
        check_admin_token()  # the operator's own crawler: trusted, no quotas; a wrong token is refused
    else:
        svc.uploads.check(client_key(), "uploads")
    svc.storage.check()
    page = validate_page(read_json(request, svc.settings.max_page_bytes))
    check_web_url(page.url, code="invalid_page")
    page = private_page(page, svc.url_params)
    check_stored_urls(page)
    contributor = None
    if not operator:
        contributor = client_key()
        if page.html is not None:
            # Self-training teaches every site's fallback from stored HTML (sitewise.pipeline.rule_labelled_pages):
            # a reader's could be made up to steer it, and may hold what the reader saw signed in.
            page = dataclasses.replace(page, html=None)
        site = svc.store.site_key(page.url)  # the site it is stored under: joined domains share one quota
        svc.site_quota.check(f"{contributor}:{site}", f"pages for {site} today")
        svc.client_bytes.check_room(contributor, "bytes stored today")
        svc.client_pages.check(contributor, "pages today")
    stored = svc.store.put_page(page, contributor)
    if contributor is not None:
        svc.client_bytes.hit(contributor, amount=stored.bytes)
    info = svc.store.site_info(stored.site)
    if not stored.stored:
        log.info("page %s of %s kept: another contributor's copy is stored", stored.key, stored.site)
        body = {**_status(info), "key": stored.key, "created": False, "stored": False, "learning": "not_due",
                "reason": "another contributor's copy of this page is stored; it is kept"}
        return jsonify(body), 200
    learning = "not_due"
    if learning_due(info, svc.settings):
        learning = "queued" if _request_learning(stored.site, "upload") else "failed"
    elif info["learned"]:
        learning = _note_if_unmatched(stored.site, stored.key, page)
    log.info("page %s stored for %s (%s; %d pages)", stored.key, stored.site, "new" if stored.created else "replaced", stored.pages)
    body = {**_status(info), "key": stored.key, "created": stored.created, "stored": True, "learning": learning}
    return jsonify(body), 201 if stored.created else 200


def check_web_url(url: str, code: str = "invalid_input") -> None:
    """400 on ``url`` unless it is on the web: a local file's path (``file:///home/alice/…``) is private to
    the reader, and names no site whose pages could be learned from together."""
    if not is_web_url(url):
        raise ApiError.bad_field("url", f"must be an {' or '.join(WEB_SCHEMES)} address: a local file's path is "
                                 "private and names no site", code=code)


def _request_learning(site: str, reason: str) -> bool:
    """Ask the worker to learn; a failure to enqueue never loses the stored page."""
    try:
        services().learning.request(site, reason)
        return True
    except Exception:  # the page is stored; the next upload asks again
        log.exception("could not enqueue learning for %s", site)
        return False


def _note_if_unmatched(site: str, key: str, page: Page) -> str:
    """A page the site's rules do not fit may be a new layout: ``sitewise.worker.queue.note_unmatched`` queues a
    re-learn once enough such pages accumulate ("queued"); otherwise "not_due"."""
    from sitewise.pipeline import unmatched_reason
    from sitewise.worker.queue import note_unmatched

    reason = unmatched_reason(services().store.rules(site), page)
    if reason is None:
        return "not_due"
    try:
        job = note_unmatched(site, key, connection=services().learning.connection)
    except Exception:  # the page is stored; the next unmatched upload asks again
        log.exception("could not record unmatched page %s of %s", key, site)
        return "failed"
    log.info("page %s of %s fits none of its templates (%s)", key, site, reason)
    return "queued" if job is not None else "not_due"


# -- sites -----------------------------------------------------------------------------------------


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError.bad_field(name, "must be an integer") from None
    if not low <= value <= high:
        raise ApiError.bad_field(name, f"must be between {low} and {high}")
    return value


@blueprint.get("/sites")
def list_sites() -> Response:
    """Known sites, most recently updated first, with their status (paged by ``offset``/``limit``). Each
    listing counts as a dashboard view: it costs the same reads."""
    svc = services()
    svc.views.check(client_key(), "site listings")
    store = svc.store
    offset = _int_arg("offset", 0, 0, 10**9)
    limit = _int_arg("limit", DEFAULT_SITES_LIMIT, 1, MAX_SITES_LIMIT)
    sites = store.sites()
    return jsonify({
        "total": len(sites),
        "offset": offset,
        "limit": limit,
        "sites": [_status(store.site_info(site)) for site in sites[offset : offset + limit]],
    })


@blueprint.get("/sites/<site>")
def site_status(site: str) -> Response:
    """One site: status and rule versions; with the admin token, its newest page keys (URLs are private)."""
    info = known_site(site)
    if not is_admin():
        return jsonify(_status(info))
    keys = services().store.page_keys(info["site"])
    return jsonify({**_status(info), "page_keys": keys[::-1][:PAGE_KEYS_SHOWN]})


# -- extraction ------------------------------------------------------------------------------------


@blueprint.post("/extract")
def extract() -> Response:
    """Article text of a posted page (collected page JSON, or HTML); never fetches a URL."""
    from .extraction import extract_request

    svc = services()
    svc.extracts.check(client_key(), "extraction requests")
    return jsonify(extract_request(read_json(request, svc.settings.max_page_bytes)))


# -- feedback --------------------------------------------------------------------------------------


def _feedback_str(data: dict[str, Any], name: str, limit: int, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise ApiError.bad_field(name, "must be a non-empty string" if required else "must be a string")
    if len(value) > limit:
        raise ApiError.bad_field(name, f"must be at most {limit} characters")
    return value


def validate_feedback(data: Any, url_params: UrlParams) -> tuple[str, dict[str, Any]]:
    """The site and the record to store for a feedback body (its URL as stored: :func:`private_url`), or 400
    naming the field."""
    if not isinstance(data, dict):
        raise ApiError.bad_field("(feedback)", "must be a JSON object")
    # The body's cap bounds the URL as sent; the cap on URLs is on what is stored, as for uploads.
    url = private_url(_feedback_str(data, "url", MAX_FEEDBACK_BYTES), url_params)
    check_web_url(url)
    check_stored_url(url, "url")
    try:
        site = site_of(url)
    except PageError as exc:
        raise ApiError.bad_field("url", exc.reason) from None
    kind = data.get("kind")
    if kind not in FEEDBACK_KINDS:
        raise ApiError.bad_field("kind", f"must be one of {', '.join(FEEDBACK_KINDS)}")
    rule_version = data.get("rule_version")
    if rule_version is not None and (not isinstance(rule_version, int) or isinstance(rule_version, bool) or rule_version < 1):
        raise ApiError.bad_field("rule_version", "must be a positive integer or null")
    method = data.get("method")
    if method is not None and method not in ("rules", "mss"):
        raise ApiError.bad_field("method", "must be rules, mss or null")
    record = {
        "url": url,
        "kind": kind,
        "selector": _feedback_str(data, "selector", MAX_SELECTOR_CHARS),
        "text": _feedback_str(data, "text", MAX_FEEDBACK_TEXT_CHARS, required=False) or "",
        "method": method,
        "rule_version": rule_version,
        "received_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    return site, record


@blueprint.post("/feedback")
def feedback() -> tuple[Response, int]:
    """A reader's mark: a highlighted block that is not article (``not_article``) or article left out (``missing``)."""
    svc = services()
    svc.uploads.check(client_key(), "uploads")
    svc.storage.check()
    site, record = validate_feedback(read_json(request, MAX_FEEDBACK_BYTES), svc.url_params)
    site = known_site(site)["site"]
    svc.site_marks.check(f"{client_key()}:{site}", f"marks on {site} today")
    # Marks count by distinct contributor (sitewise.trust.agreed_marks): one client is one voice.
    record["contributor"] = client_key()
    count = svc.store.add_feedback(site, record)
    log.info("feedback on %s: %s %s", site, record["kind"], record["selector"])
    return jsonify({"site": site, "stored": True, "feedback": count}), 201


# -- description -----------------------------------------------------------------------------------


@blueprint.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 description of this API, page schema included."""
    from .openapi import openapi_document

    return jsonify(openapi_document())


# -- admin -----------------------------------------------------------------------------------------


def check_admin_token() -> None:
    """Require ``Authorization: Bearer <Settings.admin_token>``; without a configured token, refuse all."""
    token = services().settings.admin_token
    if not token:
        raise ApiError(403, "admin_disabled", "admin actions are disabled: no admin token is configured")
    scheme, _, given = (request.headers.get("Authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
        raise ApiError(401, "unauthorized", "admin actions need 'Authorization: Bearer <admin token>'",
                       headers={"WWW-Authenticate": 'Bearer realm="sitewise admin"'})


def is_admin() -> bool:
    """True for a request carrying the admin token; False for one with no ``Authorization`` header; 401
    for a wrong token (never silently the public answer: the caller meant to be the administrator)."""
    if "Authorization" not in request.headers:
        return False
    check_admin_token()
    return True


def admin_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """A view only the admin token opens (see :func:`check_admin_token`)."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check_admin_token()
        return view(*args, **kwargs)

    return guarded


@blueprint.post("/admin/sites/<site>/learn")
@admin_only
def admin_relearn(site: str) -> tuple[Response, int]:
    info = known_site(site)
    if not info["pages"]:
        raise ApiError(409, "no_pages", f"{info['site']} has no pages to learn from")
    job = services().learning.request(info["site"], "admin", force=True)
    return jsonify({"site": info["site"], "learning": "queued", "job": job}), 202


@blueprint.delete("/admin/sites/<site>")
@admin_only
def admin_delete_site(site: str) -> Response:
    info = known_site(site)
    services().learning.cancel(info["site"])  # before the store's delete, which drops the job's mark
    services().store.delete_site(info["site"])
    log.warning("admin deleted site %s (%d pages)", info["site"], info["pages"])
    return jsonify({"site": info["site"], "deleted": True})


@blueprint.delete("/admin/sites/<site>/pages")
@admin_only
def admin_delete_page(site: str) -> Response:
    info = known_site(site)
    key = request.args.get("key", "")
    if not key:
        raise ApiError.bad_field("key", "give the page key (its canonical URL, else URL) as ?key=")
    if not services().store.delete_page(info["site"], key):
        raise ApiError(404, "unknown_page", f"{info['site']} has no page {key}", site=info["site"], key=key)
    log.warning("admin deleted page %s of %s", key, info["site"])
    return jsonify({"site": info["site"], "key": key, "deleted": True})


def _nothing_held(site: str) -> ApiError:
    return ApiError(404, "nothing_held", f"{site} has no rule version held for review", site=site)


@blueprint.get("/admin/sites/<site>/held")
@admin_only
def admin_held(site: str) -> Response:
    """The rule version held for review (``sitewise.trust``): its rules, why it was held, whose pages it fits."""
    info = known_site(site)
    held = services().store.held_rules(info["site"])
    if held is None:
        raise _nothing_held(info["site"])
    return jsonify({"site": info["site"], "current_version": info["rule_version"], **held})


@blueprint.post("/admin/sites/<site>/held/accept")
@admin_only
def admin_accept_held(site: str) -> Response:
    """Serve the held rule version: it becomes the site's new current version."""
    info = known_site(site)
    version = services().store.accept_held(info["site"])
    if version is None:
        raise _nothing_held(info["site"])
    log.warning("admin accepted the held rules of %s as version %d", info["site"], version)
    return jsonify({"site": info["site"], "accepted": True, "rule_version": version})


@blueprint.delete("/admin/sites/<site>/held")
@admin_only
def admin_reject_held(site: str) -> Response:
    """Drop the held rule version; the served rules stay."""
    info = known_site(site)
    if not services().store.reject_held(info["site"]):
        raise _nothing_held(info["site"])
    log.warning("admin rejected the held rules of %s", info["site"])
    return jsonify({"site": info["site"], "rejected": True, "rule_version": info["rule_version"]})

@blueprint.get("/admin/aliases")
@admin_only
def admin_aliases() -> Response:
    """Sister domains joined to a site: registrable domain → site."""
    return jsonify({"aliases": services().store.aliases()})


@blueprint.put("/admin/aliases/<host>")
@admin_only
def admin_put_alias(host: str) -> Response:
    """Join ``host``'s registrable domain to the site named by ``{"site": ...}`` (``foxbusiness.com`` to
    ``foxnews.com``): its pages move there, and the site is re-learned from them all. Only the admin
    token can do this: a reader's upload never decides which site a page is part of."""
    data = read_json(request, MAX_ALIAS_BYTES)
    site = data.get("site") if isinstance(data, dict) else None
    if not isinstance(site, str):
        raise ApiError.bad_field("site", "must be the host name of the site to join")
    site = _joinable(site, "site")
    host = _joinable(host, "host")
    svc = services()
    try:
        domain, joined, moved = svc.store.put_alias(host, site)
    except ValueError as exc:
        raise ApiError(409, "same_site", str(exc)) from None
    learning = "not_due"
    if moved and learning_due(svc.store.site_info(joined), svc.settings):
        learning = "queued" if _request_learning(joined, "alias") else "failed"
    log.warning("admin joined %s to %s (%d pages moved)", domain, joined, moved)
    return jsonify({"domain": domain, "site": joined, "pages_moved": moved, "learning": learning})


def _joinable(name: str, field: str) -> str:
    """The host named on one side of a join (``sitewise.page.joinable_host``), or 400 on ``field``."""
    try:
        return joinable_host(name)
    except PageError as exc:
        raise ApiError.bad_field(field, exc.reason) from None


@blueprint.delete("/admin/aliases/<host>")
@admin_only
def admin_delete_alias(host: str) -> Response:
    """Part ``host``'s domain from the site it was joined to (its pages stay with that site)."""
    host = named_host(host, "host")
    if not services().store.delete_alias(host):
        raise ApiError(404, "unknown_alias", f"{host} is not joined to another site", host=host)
    return jsonify({"host": host, "deleted": True})
