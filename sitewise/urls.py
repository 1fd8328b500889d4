"""Page addresses as sitewise keeps them: private by default, and a canonical URL that cannot reach
across sites.

A reader's URL may carry personal data in its query string (a session, a search, an e-mail address in
a newsletter link) or fragment, so uploads are stored without either, unless the operator allow-lists
a site's parameters (``SITEWISE_URL_PARAMS``, e.g. ``forum.example=id,page;shop.example=item``: sites
whose articles are told apart by a parameter).

A page's ``canonical_url`` is its key in the store (two addresses of one article are one page). It is
page-supplied, so it is believed only when it names the same site as the page's own URL; otherwise it
is dropped and the page keyed by its URL. It can never be used to overwrite another contributor's copy
(the store owns pages per contributor: ``Store.put_page``).
"""
from __future__ import annotations

import dataclasses
import logging
from typing import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .page import Page, PageError, site_of

log = logging.getLogger(__name__)

#: What ``SITEWISE_URL_PARAMS`` parses to: site → query parameters kept for it.
UrlParams = Mapping[str, frozenset[str]]
#: Where a stored page with no address of its own is served on its site while it is rendered
#: (``http://<site>/_sitewise/<id>``, :func:`sitewise.collect.stored_url`): the address names the page's
#: site, and nothing else about it.
STAND_IN_PATH = "/_sitewise/"


def is_stand_in(url: str | None) -> bool:
    """Whether ``url`` is a stand-in address (:data:`STAND_IN_PATH`), not a page's own (a string that is
    no URL is not one either)."""
    if not url:
        return False
    try:
        return urlsplit(url).path.startswith(STAND_IN_PATH)
    except ValueError:  # "http://[x": a malformed address is the caller's to report, not a stand-in
        return False


def parse_url_params(spec: str) -> dict[str, frozenset[str]]:
    """``"forum.example=id,page;shop.example=item"`` → ``{"forum.example": {"id", "page"}, ...}``.
    Raises ValueError naming the bad entry."""
    allowed: dict[str, frozenset[str]] = {}
    for entry in filter(None, (part.strip() for part in spec.split(";"))):
        site, sep, names = entry.partition("=")
        params = frozenset(name.strip() for name in names.split(",") if name.strip())
        if not sep or not site.strip() or not params:
            raise ValueError(f"SITEWISE_URL_PARAMS entry {entry!r} is not site=param[,param…]")
        allowed[site.strip().lower()] = params
    return allowed


def private_url(url: str, url_params: UrlParams | None = None) -> str:
    """``url`` without its fragment, user name and password, and without query parameters its site does not
    allow-list."""
    try:
        parts = urlsplit(url)
        site = site_of(url)
    except (ValueError, PageError):
        return url  # not a URL with a host: validation reports it; nothing private to strip
    kept = (url_params or {}).get(site, frozenset())
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k in kept]) if kept else ""
    host = parts.netloc.rpartition("@")[2]  # user:password@ is a secret too
    return urlunsplit((parts.scheme, host, parts.path, query, ""))


#: Schemes of a page's address on the web (a ``file:`` URL is a path on someone's own machine).
WEB_SCHEMES = ("http", "https")


def is_web_url(url: str) -> bool:
    """True for an address on the web (:data:`WEB_SCHEMES`), whatever its host."""
    try:
        return urlsplit(url).scheme.lower() in WEB_SCHEMES
    except ValueError:  # "http://[x": a malformed address is the caller's to report
        return False


def page_address(url: str | None) -> str:
    """``url`` when it says where a page stands in its site, else "": the fallback reads a page's address
    as a signal (its depth, a slug, an id). A malformed address ("http://[x") says nothing of the page,
    nor does a saved file's (``file:///home/me/saved/page.html``, which ``sitewise extract FILE`` passes:
    its folders are no site's sections, its file name no slug), nor a stand-in (:func:`is_stand_in`)."""
    return url if url and is_web_url(url) and not is_stand_in(url) else ""


def believable_canonical(url: str, canonical: str) -> bool:
    """True when ``canonical`` is a web address of the same site as ``url`` (``sitewise.page.site_of``)."""
    try:
        return is_web_url(canonical) and site_of(url) == site_of(canonical)
    except (ValueError, PageError):
        return False


def private_page(page: Page, url_params: UrlParams | None = None) -> Page:
    """The page as it is stored: private URLs, and its canonical URL only when it names the same site."""
    url = private_url(page.url, url_params)
    canonical = page.canonical_url
    if canonical is not None and not believable_canonical(url, canonical):
        log.info("canonical URL of a page of %s is not of that site; the page is keyed by its URL", page.site)
        canonical = None
    canonical = private_url(canonical, url_params) if canonical else None
    if url == page.url and canonical == page.canonical_url:
        return page
    return dataclasses.replace(page, url=url, canonical_url=canonical)
