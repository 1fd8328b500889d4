"""Validating uploads: the page JSON Schema (types, exact shapes) and ``Page.from_dict`` (meaning).

Both run before anything is stored. The first problem found is reported with a dotted field path in
the style of :class:`sitewise.page.PageError` (``blocks[3].box.left``) and a reason.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema_rs

from sitewise.page import Page, PageError, expand_style_table, host_named, is_host_name

from .errors import ApiError
from .threadpool import run_cpu_bound

def named_host(name: str, field: str) -> str:
    """The host a request names (``sitewise.page.host_named``: a port names the same host), or 400 on
    ``field``."""
    try:
        return host_named(name)
    except PageError as exc:
        raise ApiError.bad_field(field, exc.reason) from None


#: A stored address (a page's URL and canonical URL, a mark's URL) is part of Redis keys, records and dashboard
#: lines: the cap marks always had, far beyond an article's address once its query string is dropped.
MAX_STORED_URL_CHARS = 4_000


def check_stored_url(url: str, field: str, code: str = "invalid_input") -> None:
    """400 on ``field`` when ``url``, as it is stored (:func:`sitewise.urls.private_url`: no query string or
    fragment unless allow-listed), is longer than :data:`MAX_STORED_URL_CHARS`. The cap is on what is kept,
    so an address long only for its query string is taken, from a reader's mark as from an upload."""
    if len(url) > MAX_STORED_URL_CHARS:
        raise ApiError.bad_field(field, f"is {len(url)} characters as stored (without query string and fragment); "
                                 f"at most {MAX_STORED_URL_CHARS} are stored", code=code)


def check_stored_urls(page: Page) -> None:
    """:func:`check_stored_url` on a page's addresses as stored (its URL, its canonical URL)."""
    for field in ("url", "canonical_url"):
        check_stored_url(getattr(page, field) or "", field, code="invalid_page")


#: jsonschema's message quotes the offending value first, which may be megabytes; keep this much.
MAX_REASON_CHARS = 200


@lru_cache(maxsize=1)
def page_validator() -> Any:
    """The page schema compiled by jsonschema-rs: about 1,000 times faster than pure-Python jsonschema on
    a 300-block page (0.5 ms against 430 ms), which is what lets one core take 100+ uploads a second."""
    schema = json.loads(resources.files("sitewise").joinpath("schema/page.schema.json").read_text("utf-8"))
    return jsonschema_rs.validator_for(schema)


def field_path(path: Any, prefix: str = "") -> str:
    """``["blocks", 3, "box"]`` → ``blocks[3].box`` (``(page)`` for the whole object)."""
    text = prefix
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(page)"


def _reason(message: str) -> str:
    return message if len(message) <= MAX_REASON_CHARS else message[:MAX_REASON_CHARS] + "…"


def validate_page(data: Any, prefix: str = "") -> Page:
    """A valid :class:`Page` from decoded JSON, or an :class:`ApiError` (400) naming the field. (Off the
    event loop: a page of 20,000 blocks takes a second to check.)"""
    return run_cpu_bound(_validate_page, data, prefix)


def _validate_page(data: Any, prefix: str) -> Page:
    try:
        data = expand_style_table(data)  # the bookmarklet's compact form; the schema describes the plain one
        page = Page.from_dict(data)
    except PageError as exc:
        field = exc.field if not prefix else f"{prefix}.{exc.field}"
        raise ApiError.bad_field(field, exc.reason, code="invalid_page") from None
    validator = page_validator()
    try:
        error = None if validator.is_valid(data) else next(iter(validator.iter_errors(data)))
    except ValueError as exc:  # jsonschema-rs refuses values nested deeper than it recurses
        raise ApiError.bad_field(field_path([], prefix), f"nests too deeply: {exc}", code="invalid_page") from None
    if error is not None:
        raise ApiError.bad_field(field_path(error.instance_path, prefix), _reason(error.message), code="invalid_page")
    if not is_host_name(page.site):
        raise ApiError.bad_field(field_path(["url"], prefix), f"has no valid host name ({page.site[:60]!r})", code="invalid_page")
    return page
