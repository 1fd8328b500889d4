"""``GET /rules/<site>``: a site's current rule set, cacheable, for the bookmarklet (and anyone).

A rule version is never rewritten (see ``sitewise.store``), so the ETag is the version plus a digest of
its body: a client that has it gets ``304 Not Modified`` and re-uses its copy.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict

from flask import Blueprint, Response, current_app, request

from .api import checked_site
from .errors import ApiError
from .services import services

blueprint = Blueprint("rules", __name__, url_prefix="/rules")

#: Browsers and proxies may re-use a rule set this long before asking again (cheaply, with the ETag):
#: a new version reaches readers within a minute.
RULES_MAX_AGE_S = 60
#: Sites whose serialized current rules a web process keeps (least recently read dropped first).
MEMORY_CACHE_SITES = 1024


class RecentRules:
    """Serialized current rule sets by site, with the store's stamp (version, time stored) they are of.

    A read asks the store only for the stamp (one round trip) and re-uses the body while the stamp is
    the same: a rule version is never rewritten, and a deleted and re-learned site gets a new time.
    """

    def __init__(self, size: int = MEMORY_CACHE_SITES) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[tuple[int, str], bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, site: str, stamp: tuple[int, str]) -> tuple[bytes, str] | None:
        with self._lock:
            entry = self._entries.get(site)
            if entry is None or entry[0] != stamp:
                return None
            self._entries.move_to_end(site)
            return entry[1], entry[2]

    def put(self, site: str, stamp: tuple[int, str], body: bytes, etag: str) -> None:
        with self._lock:
            self._entries[site] = (stamp, body, etag)
            self._entries.move_to_end(site)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


def recent_rules() -> RecentRules:
    """This app's cache (one per app, so apps on different stores never share entries)."""
    return current_app.extensions.setdefault("sitewise_recent_rules", RecentRules())


def etag_of(site: str, version: int, body: bytes) -> str:
    digest = hashlib.sha256(site.encode() + b"\0" + body).hexdigest()[:20]
    return f'"{version}-{digest}"'


@blueprint.get("/<site>")
def site_rules(site: str) -> Response:
    site = checked_site(site)
    body, etag = _current(site)
    headers = {
        "ETag": etag,
        "Cache-Control": f"public, max-age={RULES_MAX_AGE_S}",
        "Vary": "Accept-Encoding",
    }
    wanted = _etags(request.headers.get("If-None-Match", ""))
    if etag in wanted or "*" in wanted:
        return Response(status=304, headers=headers)
    return Response(body, status=200, mimetype="application/json", headers=headers)


def _current(site: str) -> tuple[bytes, str]:
    """The site's current rules, serialized, with their ETag; 404 when it is not learned."""
    store = services().store
    stamp = store.rules_stamp(site)
    cached = recent_rules().get(site, stamp) if stamp is not None else None
    if cached is not None:
        return cached
    rules = store.rules(site, stamp[0]) if stamp is not None else None
    if rules is None:
        pages = store.page_count(site)
        raise ApiError(
            404,
            "not_learned",
            f"{site} is not learned yet ({pages} pages stored, "
            f"{services().settings.min_pages_to_learn} needed); fall back to /api/extract",
            site=site,
            pages=pages,
            min_pages_to_learn=services().settings.min_pages_to_learn,
        )
    body = json.dumps(rules, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    etag = etag_of(site, int(rules.get("version", 0)), body)
    recent_rules().put(site, stamp, body, etag)
    return body, etag


def _etags(header: str) -> set[str]:
    """The entity tags an If-None-Match header lists (weak ones compared weakly, as RFC 9110 says)."""
    tags = (tag.strip() for tag in header.split(","))
    return {tag[2:] if tag.startswith("W/") else tag for tag in tags if tag}
