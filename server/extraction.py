"""Finding the article of a posted or stored page, for ``POST /api/extract`` (``sitewise.api.extract_article``,
the library's JSON answer) and the dashboard preview (``sitewise.pipeline.find_article``): the site's rules
when they apply confidently, else MSS, on what the client sent — a collected page and/or its HTML, never a
URL to fetch.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from sitewise.api import OUTPUTS, Formatting, extract_article, favor_of, formatted, markup_chars, readable_html
from sitewise.errors import InputError
from sitewise.page import Page, PageError, host_of
from sitewise.pipeline import Article
from sitewise.pipeline import find_article as pipeline_find_article
from sitewise.pipeline import rebuild_html

from .errors import ApiError
from .services import services

from .threadpool import run_cpu_bound
from .validation import validate_page

#: The preview's wireframe is this many pixels wide (the page is scaled to fit).
WIREFRAME_WIDTH = 240
#: ... and at most this tall (very long pages are cut).
WIREFRAME_MAX_HEIGHT = 900
#: The preview lists at most this many blocks (real pages have up to ~2,000; the rest are counted) ...
PREVIEW_MAX_BLOCKS = 1000
#: ... each cut to this many characters: a view stays under ~1 MB whatever was uploaded.
PREVIEW_TEXT_CHARS = 400
#: Posted HTML is refused (413) past either bound, which keep a request under ~3 CPU-seconds: MSS's time
#: grows with the elements and words outside the page's scripts and styles, not with scripts (0.3 s for
#: 19 MB of them). At most this many characters outside scripts and styles (a 2 MB paragraph: 0.5 s), so
#: the recent pages that inline megabytes of scripts are read (19 of the 3,490 pages of the evaluation
#: sets pass 2,000,000 characters in all, 2 pass it outside their scripts and styles) ...
MAX_EXTRACT_MARKUP_CHARS = 2_000_000
#: ... and at most this many tags (``<``, scripts' included: counting them is one pass in C): 50,000
#: ``<p>`` elements take 2.5-3.7 s, 2 MB of ``<p>x</p>`` 14 s; no page of the evaluation sets has 16,000.
MAX_EXTRACT_TAGS = 50_000
#: The outputs an extraction request may ask for beside the JSON answer, each under its name.
_FORMATTED_OUTPUTS = ("markdown", "html")


def find_article(page: Page | None, html: str | None, site: str | None, url: str | None = None,
                 include_comments: bool = False) -> Article:
    """The pipeline's answer, with the site's current rules."""
    svc = services()
    rules = svc.store.rules(site) if site else None
    article = run_cpu_bound(pipeline_find_article, page, html, rules, mss_model=svc.settings.mss_model or None,
                            url=url, include_comments=include_comments)
    article.site = site
    return article


# -- POST /api/extract ---------------------------------------------------------------------------------


def extract_request(data: Any) -> dict[str, Any]:
    """Answer an extraction request: ``{"page": {...}}`` and/or ``{"html": "...", "url": "..."}``, and
    ``"include_comments": true`` to keep an article's comment thread where it scores as content, and
    ``"favor_precision": true`` or ``"favor_recall": true`` for the fallback's reading that favours it,
    ``"output": "markdown"`` or ``"html"`` for the article in that format too (under its name; with
    ``"include_links": true`` keeping its links, ``"include_images": true`` its images,
    ``"with_metadata": true`` the page's metadata, ``"include_formatting": true`` its bold, italic,
    struck-through and code words), as ``sitewise.extract`` gives it.

    The answer is ``sitewise.extract(..., output="json")``'s for the same page (``sitewise.api.extract_article``,
    with the site's rules from the store), under the store's name of the site (an administrator may have
    joined its domain to another), with where the article is on the page (:func:`_where_found`)."""
    if not isinstance(data, dict):
        raise ApiError.bad_field("(request)", "must be a JSON object with page or html")
    page = validate_page(data["page"], prefix="page") if data.get("page") is not None else None
    html = data.get("html")
    if html is not None and not isinstance(html, str):
        raise ApiError.bad_field("html", "must be a string")
    if html is not None:
        _check_extraction_cost(html)
        html = _readable(html)
    url = data.get("url")
    if url is not None and not isinstance(url, str):
        raise ApiError.bad_field("url", "must be a string")
    include_comments, favor_precision, favor_recall = (
        _flag(data, name) for name in ("include_comments", "favor_precision", "favor_recall"))
    formatting = Formatting(**{option.name: _flag(data, option.name) for option in fields(Formatting)})
    output = data.get("output", "json")
    if output not in OUTPUTS:
        raise ApiError.bad_field("output", f"must be one of {', '.join(OUTPUTS)}")
    try:
        favor = favor_of(favor_precision, favor_recall)
    except InputError as exc:
        raise ApiError.bad_field("(request)", str(exc)) from None
    if page is None and html is None:
        raise ApiError.bad_field("(request)", "give page (a collected page) or html")
    host = _host(url) if url else None  # (an empty url names no page, as none)
    site = _site_key(page, host)
    svc = services()
    rules = svc.store.rules(site) if site else None
    url = url or (page.url if page is not None else None)
    try:
        found = run_cpu_bound(extract_article, html, url, rules=rules, site_rules=True, page=page,
                              mss_model=svc.settings.mss_model or None, include_comments=include_comments, favor=favor)
    except InputError as exc:  # the fallback's parser reads the page only in part (sitewise.mss.tokenize)
        raise ApiError.bad_field("html", str(exc)) from None
    answer = {**found.to_json(), "site": site, **_where_found(found.article)}
    if output in _FORMATTED_OUTPUTS:
        source = html or (page.html if page is not None else None) or rebuild_html(page)
        answer[output] = run_cpu_bound(formatted, found, source, output, formatting)
    return answer


def _flag(data: dict[str, Any], name: str) -> bool:
    """A request's true-or-false field (false when absent), or 400 on it."""
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise ApiError.bad_field(name, "must be true or false")
    return value


def _check_extraction_cost(html: str) -> None:
    """413 on ``html`` past :data:`MAX_EXTRACT_MARKUP_CHARS` or :data:`MAX_EXTRACT_TAGS`."""
    tags = html.count("<")
    if tags > MAX_EXTRACT_TAGS:
        raise ApiError(413, "too_large", f"html has {tags:,} tags; at most {MAX_EXTRACT_TAGS:,} are extracted",
                       field="html")
    if len(html) <= MAX_EXTRACT_MARKUP_CHARS:  # (counting costs a copy of the page: only where it could pass)
        return
    size = markup_chars(html)
    if size > MAX_EXTRACT_MARKUP_CHARS:
        raise ApiError(413, "too_large", f"html has {size:,} characters outside its scripts and styles; at most "
                       f"{MAX_EXTRACT_MARKUP_CHARS:,} are extracted", field="html")


def _host(url: str) -> str:
    """The host of a request's url, or 400 on ``url``: a URL that names no site (as the library refuses it)."""
    try:
        return host_of(url)
    except PageError as exc:
        raise ApiError.bad_field("url", exc.reason) from None


def _site_key(page: Page | None, host: str | None) -> str | None:
    """The store's name of the site a request is of: the collected page's, else the url's (None without)."""
    if page is not None:
        return services().store.site_key(page.url)
    return services().store.site_key(host) if host else None


def _where_found(article: Article) -> dict[str, Any]:
    """What the server's answer adds to the library's: where the article is on the page. ``blocks``:
    indices into the posted page's blocks (what the bookmarklet highlights); the rules' ``selectors`` and
    how many pages they were learned from; the fallback's token ``span``."""
    return {"blocks": article.blocks, "selectors": article.selectors,
            "pages_learned_from": article.pages_learned_from, "span": article.span}


def _readable(html: str) -> str:
    """Posted HTML as ``sitewise.extract`` reads it, or 400 with the library's reason: the server refuses
    what the library refuses (binary data, an empty page, nesting the parser would take minutes over)."""
    try:
        return readable_html(html)
    except InputError as exc:
        raise ApiError.bad_field("html", str(exc)) from None


# -- the dashboard's preview -----------------------------------------------------------------------------


@dataclass
class PreviewBlock:
    index: int
    tag: str
    text: str
    article: bool
    x: int
    y: int
    w: int
    h: int


@dataclass
class Preview:
    method: str
    rule_version: int | None
    template: str | None
    article_count: int
    width: int
    height: int
    blocks: list[PreviewBlock]
    #: The page's first title, else its URL.
    title: str = ""
    #: Blocks of the page in all (``blocks`` holds the first PREVIEW_MAX_BLOCKS).
    total_blocks: int = 0


def preview(page: Page, site: str) -> Preview:
    """A stored page's blocks, the article ones marked, with boxes scaled for a wireframe."""
    article = find_article(page, None, site)
    chosen = set(article.blocks or [])
    page_width = max([b.box.right for b in page.blocks] + [float((page.viewport or {}).get("width", 0)), 1.0])
    scale = WIREFRAME_WIDTH / page_width
    page_height = max([b.box.bottom for b in page.blocks] + [1.0])
    blocks = [
        PreviewBlock(
            index=i,
            tag=block.tag,
            text=block.text[:PREVIEW_TEXT_CHARS] + ("…" if len(block.text) > PREVIEW_TEXT_CHARS else ""),
            article=i in chosen,
            x=round(max(0.0, block.box.left) * scale),
            y=round(max(0.0, block.box.top) * scale),
            w=max(1, round(block.box.width * scale)),
            h=max(1, round(block.box.height * scale)),
        )
        for i, block in enumerate(page.blocks[:PREVIEW_MAX_BLOCKS])
    ]
    height = min(WIREFRAME_MAX_HEIGHT, max(1, round(page_height * scale)))
    return Preview(article.method, article.rule_version, article.template, len(chosen), WIREFRAME_WIDTH, height, blocks,
                   page.titles[0] if page.titles else page.url, len(page.blocks))
