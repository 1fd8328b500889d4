"""``GET /rules/<site>``: a site's current rule set, cacheable, for the bookmarklet (and anyone).

A rule version is never rewritten (see ``sitewise.store``), so the ETag is the version plus a digest of
its body: a client that has it gets ``304 Not Modified`` and re-uses its copy.
"""
from __future__ import annotations

import hashlib
import json

from flask import Blueprint, Response, request

from .api import checked_site
from .app import services
from .errors import ApiError

blueprint = Blueprint("rules", __name__, url_prefix="/rules")

#: Browsers and proxies may re-use a rule set this long before asking again (cheaply, with the ETag):
#: a new version reaches readers within a minute.
RULES_MAX_AGE_S = 60


def etag_of(site: str, version: int, body: bytes) -> str:
    digest = hashlib.sha256(site.encode() + b"\0" + body).hexdigest()[:20]
    return f'"{version}-{digest}"'


@blueprint.get("/<site>")
def site_rules(site: str) -> Response:
    site = checked_site(site)
    store = services().store
    rules = store.rules(site)
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
    headers = {
        "ETag": etag,
        "Cache-Control": f"public, max-age={RULES_MAX_AGE_S}",
        "Vary": "Accept-Encoding",
    }
    wanted = _etags(request.headers.get("If-None-Match", ""))
    if etag in wanted or "*" in wanted:
        return Response(status=304, headers=headers)
    return Response(body, status=200, mimetype="application/json", headers=headers)


def _etags(header: str) -> set[str]:
    """The entity tags an If-None-Match header lists (weak ones compared weakly, as RFC 9110 says)."""
    tags = (tag.strip() for tag in header.split(","))
    return {tag[2:] if tag.startswith("W/") else tag for tag in tags if tag}
