"""Clean-up around MSS: DOM pruning before tokenizing, and the paper's pruning of the extracted block.

Before (the NewsFeed re-implementation's pre-processing): keep only an ``itemprop="articleBody"`` element
when the page marks one, drop hidden elements, drop ``<aside>``/``<nav>``/``<figure>``, drop elements whose
id or class says navigation, sidebar, social, comments. After (Pasternack & Roth, section 4.2): within
the extracted block, drop the contents of ``<iframe>``/``<table>`` and of any ``<div>`` holding a link,
iframe, table, image, embed, applet or object. Every rule can be switched on its own
(:class:`CleanOptions`) because each was measured separately (docs/bench-mss.md); the defaults are the
rules that helped.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

import numpy as np
from lxml import etree

from ..elements import COMMENT_NAME
from .tokenize import OPEN, TokenSequence


@dataclass(frozen=True)
class CleanOptions:
    """Which clean-up rules run. Defaults: the rules that raised mean word F1 on the benchmark sets."""

    #: Tokenize only the ``itemprop="articleBody"`` element (and the page's first ``<h1>``) when present.
    article_body: bool = False
    #: Drop elements hidden by the ``hidden`` attribute, ``aria-hidden`` or inline display/visibility.
    hidden: bool = True
    #: Drop ``<aside>``, ``<nav>`` and ``<footer>`` elements (a short unlinked footer line otherwise joins
    #: the article under the line scorer).
    aside_nav: bool = True
    #: Drop ``<figure>`` elements (captions and credits).
    figure: bool = False
    #: Drop ``<form>`` and ``<button>`` page furniture found by tag (off: ASP.NET pages wrap the whole page
    #: in a form; l3s-gn1 lost 0.010).
    furniture: bool = False
    #: Drop elements whose id/class names navigation, sidebars, sharing, comments, ...
    suspicious_names: bool = True
    #: ... comment sections among them, even where they hold prose (a thread reads like prose; off: the
    #: caller asked for comments, and comment-named elements are scored like any other text).
    comment_threads: bool = True
    #: After extraction: drop the words inside ``<iframe>`` and ``<table>`` in the block.
    post_tables: bool = False
    #: After extraction: drop ``<div>``s in the block that hold a link, iframe, table, image or embed.
    post_divs: bool = False

    def with_changes(self, **changes: bool) -> "CleanOptions":
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ValueError(f"unknown clean-up option(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)


#: id/class words of page furniture (whole words or word parts of hyphen/underscore names).
SUSPICIOUS_NAME = re.compile(
    r"(?:^|[-_\s])(?:nav|navbar|navigation|menu|sidebar|side-bar|social|share|sharing|sharetools|"
    r"comment|comments|disqus|related|recommended|breadcrumbs?|footer|masthead|banner|sponsor|"
    r"promo|advert|ads|ad|popup|modal|cookie|newsletter|subscribe|signup|login|tags|pagination|pager)"
    r"(?:$|[-_\s\d])",
    re.IGNORECASE,
)
#: ... unless the same names also say this is the content (a "comment" inside "article-content" etc.).
CONTENT_NAME = re.compile(r"article|body|content|entry|main|post|story|text", re.IGNORECASE)

#: Inline styles that hide an element.
HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)

#: Elements never removed by name: removing them would remove the page.
PROTECTED_TAGS = frozenset({"html", "body", "article", "main"})

#: Tags the post-clean-up treats as signs that a div is not prose (the paper's list).
NON_PROSE_TAGS = frozenset({"a", "iframe", "table", "img", "embed", "applet", "object"})

#: An element named like furniture that holds more than this share of the page's text is a wrapper
#: (``<div class="share_wrapper">`` around the story, a ``sidebar-right`` layout class on the page
#: body), not furniture: it stays.
MAX_FURNITURE_SHARE = 0.5
#: ... and one that holds a run of text this long is prose, not a menu or share bar (comment sections
#: are the exception: they are prose and still not the article).
PROSE_WORDS = 40

#: An articleBody element with fewer words than this is a teaser, not the article.
MIN_ARTICLE_BODY_WORDS = 50

_FURNITURE_TAGS = ("form", "button")


def clean_dom(root: etree._Element, options: CleanOptions = CleanOptions()) -> etree._Element:
    """Prune ``root`` in place by the enabled rules; returns the element to tokenize (the articleBody
    element's stand-in when the page marks one, else ``root``)."""
    if options.article_body:
        body = _article_body(root)
        if body is not None:
            root = body
    doomed: list[etree._Element] = []
    if options.hidden:
        doomed += _hidden(root)
    if options.aside_nav:
        doomed += root.iter("aside", "nav", "footer")
    if options.figure:
        doomed += root.iter("figure")
    if options.furniture:
        doomed += root.iter(*_FURNITURE_TAGS)
    if options.suspicious_names:
        doomed += _suspicious(root, options.comment_threads)
    if doomed:
        page_text = _text_length(root)
        doomed = [e for e in doomed if _text_length(e) <= MAX_FURNITURE_SHARE * page_text]
    for element in doomed:
        _drop(element)
    return root


def _article_body(root: etree._Element) -> etree._Element | None:
    """A fresh ``<div>`` holding the page's first ``<h1>`` and its articleBody, when it has a long one."""
    bodies = root.xpath('//*[translate(@itemprop, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")'
                        '="articlebody"]')
    if not bodies:
        return None
    body = max(bodies, key=_text_length)
    if len(" ".join(body.itertext()).split()) < MIN_ARTICLE_BODY_WORDS:
        return None
    holder = etree.Element("div")
    headings = [h for h in root.iter("h1") if body not in h.iterancestors()]
    if headings:
        holder.append(_detached_copy(headings[0]))
    holder.append(_detached_copy(body))
    return holder


def _text_length(element: etree._Element) -> int:
    return sum(len(text) for text in element.itertext())


def _detached_copy(element: etree._Element) -> etree._Element:
    from copy import deepcopy

    copy = deepcopy(element)
    copy.tail = None
    return copy


_HIDDEN_CANDIDATES = etree.XPath("//*[@hidden or @aria-hidden or @style]")
_NAMED = etree.XPath("//*[@id or @class]")


def _hidden(root: etree._Element) -> list[etree._Element]:
    found = []
    for element in _HIDDEN_CANDIDATES(root):
        if element.tag in PROTECTED_TAGS:
            continue
        if is_hidden(element.attrib):
            found.append(element)
    return found


def is_hidden(attributes: Mapping[str, str]) -> bool:
    """Whether an element's own ``attributes`` (a dict of them, or its ``attrib``) hide it."""
    get = attributes.get
    if get("hidden") is not None or (get("aria-hidden") or "").lower() == "true":
        return True
    style = get("style")
    return bool(style) and HIDDEN_STYLE.search(style) is not None


def _suspicious(root: etree._Element, comment_threads: bool) -> list[etree._Element]:
    found = []
    verdicts: dict[str, bool] = {}  # pages repeat the same class names many times
    for element in _NAMED(root):
        if element.tag in PROTECTED_TAGS:
            continue
        names = f"{element.get('id', '')} {element.get('class', '')}"
        verdict = verdicts.get(names)
        if verdict is None:
            verdict = verdicts[names] = bool(SUSPICIOUS_NAME.search(names)) and not CONTENT_NAME.search(names)
        if not verdict:
            continue
        if COMMENT_NAME.search(names):
            if comment_threads:
                found.append(element)
        elif not _holds_prose(element):
            found.append(element)
    return found


def _holds_prose(element: etree._Element) -> bool:
    return any(len(text.split()) >= PROSE_WORDS for text in element.itertext())


def _drop(element: etree._Element) -> None:
    """Remove an element and its contents but keep its tail text (it belongs to the parent)."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def prune_block(tokens: TokenSequence, start: int, end: int, options: CleanOptions) -> np.ndarray:
    """The paper's clean-up of an extracted block: a mask over all tokens, False for dropped words
    inside ``start``..``end``."""
    keep = np.ones(len(tokens), dtype=bool)
    if not (options.post_tables or options.post_divs):
        return keep
    kinds, closes, tags = tokens.kinds, tokens.closes, tokens.tags
    non_prose = np.fromiter((k == OPEN and t in NON_PROSE_TAGS for k, t in zip(kinds, tags)), bool, len(tokens))
    before = np.concatenate(([0], np.cumsum(non_prose)))  # before[i] = non-prose tags among tokens < i
    for i in range(start, end):
        if kinds[i] != OPEN:
            continue
        tag, close = tags[i], int(closes[i])
        if close <= i:
            continue
        if options.post_tables and tag in ("table", "iframe"):
            keep[i:close] = False
        elif options.post_divs and tag == "div" and before[close] - before[i + 1] > 0:
            keep[i:close] = False
    return keep
