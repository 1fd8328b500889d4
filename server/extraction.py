"""Finding the article of a posted or stored page for ``POST /api/extract`` and the dashboard preview.

The site's rules when it is learned and they apply confidently, else Maximum Subsequence Segmentation.
Input is what the client already has — a collected page and/or its HTML — never a URL to fetch.
For a collected page the answer also names the article's blocks (indices into ``page.blocks``), which is
what the bookmarklet highlights.
"""
from __future__ import annotations

import html as html_lib
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from sitewise.page import Block, Page, PageError, site_of

from .app import services
from .errors import ApiError
from .validation import validate_page

#: Tags kept when HTML is rebuilt from collected blocks (for MSS, when a page comes without HTML).
_REBUILT_TAGS = frozenset("p h1 h2 h3 h4 h5 h6 li blockquote pre td th dt dd figcaption caption".split())
#: A block shorter than this cannot anchor the alignment of MSS text to blocks (a "Share" button's
#: word occurs in any article).
_MIN_ANCHOR_CHARS = 25
#: The preview's wireframe is this many pixels wide (the page is scaled to fit).
WIREFRAME_WIDTH = 240
#: ... and at most this tall (very long pages are cut).
WIREFRAME_MAX_HEIGHT = 900
_SPACES = re.compile(r"\s+")


@dataclass
class Article:
    """What was found: the method, the text, and where it is."""

    method: str
    text: str
    site: str | None = None
    blocks: list[int] | None = None
    rule_version: int | None = None
    template: str | None = None
    selectors: dict[str, list[str]] | None = None
    pages_learned_from: int | None = None
    span: list[int] | None = None
    reason: str = ""
    fallback_reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body = {k: v for k, v in asdict(self).items() if k != "extra"}
        body["words"] = len(self.text.split())
        return body


def find_article(page: Page | None, html: str | None, site: str | None) -> Article:
    """Rules when ``site`` is learned and they apply confidently; otherwise MSS on the HTML."""
    fallback_reason = "site not learned"
    rules = services().store.rules(site) if site else None
    if rules is not None:
        by_rules = _by_rules(rules, page, html)
        if by_rules.reason == "ok":
            by_rules.site = site
            return by_rules
        fallback_reason = f"rules did not apply: {by_rules.reason}"
    article = _by_mss(page, html)
    article.site = site
    article.fallback_reason = fallback_reason
    return article


def _by_rules(rules: dict[str, Any], page: Page | None, html: str | None) -> Article:
    from sitewise.learn.rules import apply_rules

    found = apply_rules(rules, html=html, page=page)
    template = next((t for t in rules.get("templates", []) if t.get("name") == found.template), None)
    article = Article(
        method="rules",
        text=found.text,
        rule_version=rules.get("version"),
        template=found.template,
        pages_learned_from=rules.get("pages_learned"),
        reason="ok" if found.confident else found.reason,
    )
    if template is not None:
        article.selectors = {"include": list(template.get("include", [])), "exclude": list(template.get("exclude", []))}
    if page is not None and page.blocks:
        chosen = {id(block) for block in found.blocks}
        article.blocks = [i for i, block in enumerate(page.blocks) if id(block) in chosen]
    return article


def _by_mss(page: Page | None, html: str | None) -> Article:
    from sitewise.mss import extract_mss

    source = html or (page.html if page is not None else None) or rebuild_html(page)
    result = extract_mss(source)
    article = Article(method="mss", text=result.text, span=list(result.span) if result.span else None, reason=result.reason)
    if page is not None:
        article.blocks = blocks_in_text(page.blocks, result.text)
    return article


def rebuild_html(page: Page | None) -> str:
    """Plain HTML from collected blocks (title, then one element per block), for MSS."""
    if page is None:
        return ""
    title = html_lib.escape(page.titles[0]) if page.titles else ""
    parts = [f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"]
    for block in page.blocks:
        tag = block.tag if block.tag in _REBUILT_TAGS else "div"
        parts.append(f"<{tag}>{html_lib.escape(block.text)}</{tag}>")
    parts.append("</body></html>")
    return "".join(parts)


def _normal(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def blocks_in_text(blocks: Sequence[Block], text: str) -> list[int]:
    """Indices of the blocks whose text makes up ``text`` (MSS output), aligned in document order.

    MSS returns one contiguous run of the page, so its blocks follow each other: each block is looked for
    after the previous match; the first match must be long enough not to be a coincidence.
    """
    haystack = _normal(text)
    chosen: list[int] = []
    cursor = 0
    for index, block in enumerate(blocks):
        needle = _normal(block.text)
        if not needle or (not chosen and len(needle) < _MIN_ANCHOR_CHARS):
            continue
        at = haystack.find(needle, cursor)
        if at >= 0:
            chosen.append(index)
            cursor = at + len(needle)
    return chosen


# -- POST /api/extract ---------------------------------------------------------------------------------


def extract_request(data: Any) -> dict[str, Any]:
    """Answer an extraction request: ``{"page": {...}}`` and/or ``{"html": "...", "url": "..."}``."""
    if not isinstance(data, dict):
        raise ApiError.bad_field("(request)", "must be a JSON object with page or html")
    page = validate_page(data["page"], prefix="page") if data.get("page") is not None else None
    html = data.get("html")
    if html is not None and not isinstance(html, str):
        raise ApiError.bad_field("html", "must be a string")
    url = data.get("url")
    if url is not None and not isinstance(url, str):
        raise ApiError.bad_field("url", "must be a string")
    if page is None and not html:
        raise ApiError.bad_field("(request)", "give page (a collected page) or html")
    site = None
    if page is not None:
        site = page.site
    elif url:
        try:
            site = site_of(url)
        except PageError as exc:
            raise ApiError.bad_field("url", exc.reason) from None
    return find_article(page, html, site).to_json()


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
            text=block.text,
            article=i in chosen,
            x=round(max(0.0, block.box.left) * scale),
            y=round(max(0.0, block.box.top) * scale),
            w=max(1, round(block.box.width * scale)),
            h=max(1, round(block.box.height * scale)),
        )
        for i, block in enumerate(page.blocks)
    ]
    height = min(WIREFRAME_MAX_HEIGHT, max(1, round(page_height * scale)))
    return Preview(article.method, article.rule_version, article.template, len(chosen), WIREFRAME_WIDTH, height, blocks)
