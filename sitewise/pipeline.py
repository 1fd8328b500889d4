"""What sitewise does with one page: the site's learned rules when they apply confidently, otherwise
Maximum Subsequence Segmentation — the single decision the server, ``sitewise extract`` and
``sitewise eval --extractor sitewise`` all share.

Input is what the caller already has: a collected page and/or its HTML (never a URL to fetch here).
For a collected page the answer also names the article's blocks (indices into ``page.blocks``), which
is what the bookmarklet highlights.
"""
from __future__ import annotations

import html as html_lib
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .errors import InputError
from .extractors import Document, check_part
from .metrics import word_prf
from .mojibake import repair_mojibake
from .page import Block, Page
from .text import word_count

if TYPE_CHECKING:
    from .mss.blockmodel import Favor
    from .store import Store
    from .trust import AgreementPolicy

#: Tags kept when HTML is rebuilt from collected blocks (for MSS, when a page comes without HTML).
_REBUILT_TAGS = frozenset("p h1 h2 h3 h4 h5 h6 li blockquote pre td th dt dd figcaption caption".split())
#: A block shorter than this cannot anchor the alignment of MSS text to blocks (a "Share" button's
#: word occurs in any article).
_MIN_ANCHOR_CHARS = 25
_SPACES = re.compile(r"\s+")
#: A template learned from fewer of the site's pages than this has its answer checked by the fallback: on
#: a site whose pages are of several kinds (products, guides, listings), a kind seen once or twice gets a
#: template that fits the markup of other kinds and selects the wrong region. Leave-one-out on wcxb-dev's
#: 44 sites of 3 or more pages (docs/bench-learn.md), rules answered 133 pages at a mean word F1 of 0.734
#: where the fallback had 0.799; the answers of templates of 1 or 2 pages were most of the loss.
MIN_TRUSTED_TEMPLATE_PAGES = 3
#: ... and the fallback's answer stands when the two answers share less than this word F1: they read
#: different regions of the page, and the rules' evidence is one or two pages. (Where they roughly agree
#: the rules' answer stands: it is the site's own convention.) Checking answers of templates of up to 2
#: pages: wcxb-dev +7.8 summed F1 (16 answers changed, 2 for the worse); dragnet and l3s-gn1 unchanged
#: learning from all training pages, dragnet −0.3, +0.2, +0.6 and 0 learning from 1, 2, 3 and 4.
#: At 0.3: wcxb-dev +7.1; at 0.7 dragnet lost 1.9–2.2 learning from 1 or 2 pages.
MIN_RULES_FALLBACK_AGREEMENT = 0.5
#: How the fallback's reason begins when it overruled a template of few pages (:data:`MIN_TRUSTED_TEMPLATE_PAGES`).
RULES_OVERRULED = "rules disagreed with the fallback"


@dataclass
class Article:
    """What was found: the method (``rules`` or ``mss``), the text, and where it is."""

    method: str
    text: str
    #: The text without the article's heading (headline, byline, date line) and media captions when
    #: the rules tell them apart; the whole text otherwise.
    body: str = ""
    site: str | None = None
    blocks: list[int] | None = None
    rule_version: int | None = None
    template: str | None = None
    selectors: dict[str, list[str]] | None = None
    pages_learned_from: int | None = None
    span: list[int] | None = None
    reason: str = ""
    fallback_reason: str = ""
    #: The fallback's estimated word F1 of its answer (None for rules, and where it has no estimate).
    confidence: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        body = {k: v for k, v in asdict(self).items() if k != "extra"}
        body["words"] = word_count(self.text)
        return body

    def heading_and_body(self, title: str | None) -> tuple[str, str]:
        """The article's heading and body. Rules tell them apart (the heading is what the text has before
        the body's first line and the body has not); the fallback's text is one, whose first line is the
        heading when it repeats the page's ``title``."""
        lines = self.text.splitlines()
        if self.method == "rules":
            body_lines = set(self.body.splitlines())
            heading = []
            for line in lines:
                if line in body_lines:
                    break
                heading.append(line)
            return "\n".join(heading), self.body
        if lines and title and _word_set(lines[0]) and _word_set(lines[0]) <= _word_set(title):
            return lines[0], "\n".join(lines[1:])
        return "", self.text


def _word_set(text: str) -> set[str]:
    return set(text.casefold().split())


def find_article(
    page: Page | None, html: str | None, rules: dict[str, Any] | None, *, mss_model: Any = None,
    url: str | None = None, include_comments: bool = False, favor: Favor = None,
) -> Article:
    """The article of a page: by ``rules`` (the site's current rule set) when given and confident,
    otherwise by MSS on the HTML (rebuilt from the blocks when only a collected page is at hand).
    ``url``: the page's address when only its HTML is at hand (one of the fallback's signals).
    ``include_comments``: MSS judges an article's comment thread like any other text instead of leaving
    it out; ``favor``: MSS reads favouring "precision" or "recall" (rules select what they learned).
    The answer of a template learned from few pages stands only where the fallback roughly agrees
    (:data:`MIN_TRUSTED_TEMPLATE_PAGES`)."""
    fallback_reason = "site not learned"
    page_url = url or (page.url if page is not None else None)
    if rules is not None:
        by_rules = _by_rules(rules, page, html)
        if by_rules.reason == "ok":
            return _checked(by_rules, rules, lambda: _by_mss(page, html, mss_model, page_url, include_comments, favor))
        fallback_reason = f"rules did not apply: {by_rules.reason}"
    article = _by_mss(page, html, mss_model, page_url, include_comments, favor)
    article.fallback_reason = fallback_reason
    return article


def _checked(by_rules: Article, rules: dict[str, Any], by_mss: Callable[[], Article]) -> Article:
    """The rules' confident answer, or the fallback's (``by_mss``) where the template was learned from
    fewer than :data:`MIN_TRUSTED_TEMPLATE_PAGES` pages and the two disagree."""
    if trusted_alone(rules, by_rules.template):
        return by_rules
    try:
        article = by_mss()
    except InputError:
        return by_rules  # a page the fallback refuses to read: nothing to check the rules against
    agreement = word_prf(by_rules.text, article.text).f1
    if agreement >= MIN_RULES_FALLBACK_AGREEMENT:
        return by_rules
    learned_from = template_pages(rules, by_rules.template)
    article.fallback_reason = (f"{RULES_OVERRULED} (word F1 {agreement:.2f}): template "
                               f"{by_rules.template}, learned from {learned_from} page{'s' if learned_from != 1 else ''}")
    return article


def trusted_alone(rules: dict[str, Any], name: str | None) -> bool:
    """Whether the answers of the rule set's template ``name`` stand without the fallback's check: it was
    learned from :data:`MIN_TRUSTED_TEMPLATE_PAGES` pages or more, or the rule set does not say."""
    learned_from = template_pages(rules, name)
    return learned_from is None or learned_from >= MIN_TRUSTED_TEMPLATE_PAGES


def template_pages(rules: dict[str, Any], name: str | None) -> int | None:
    """How many of the site's pages the rule set's template ``name`` was learned from (its ``pages``), or
    None when the rule set does not say (written by hand: its author vouches for it)."""
    template = _template_named(rules, name)
    pages = template.get("pages") if template is not None else None
    return pages if isinstance(pages, int) and not isinstance(pages, bool) else None


def _template_named(rules: dict[str, Any], name: str | None) -> dict[str, Any] | None:
    return next((t for t in rules.get("templates", []) if t.get("name") == name), None)


def unmatched_reason(rules: dict[str, Any] | None, page: Page) -> str | None:
    """Why a site's rules do not fit a collected page -- no template matched, nothing selected, an
    unusual length: a possible new template (``sitewise.worker.queue.note_unmatched``) -- or None when they fit
    (or there are no rules, or the page has no blocks to judge by)."""
    from .learn.rules import apply_rules

    if not rules or not page.blocks:
        return None
    found = apply_rules(rules, page=page)
    return None if found.confident else found.reason


def _by_rules(rules: dict[str, Any], page: Page | None, html: str | None) -> Article:
    from .learn.rules import apply_rules

    found = apply_rules(rules, html=html, page=page)
    template = _template_named(rules, found.template)
    article = Article(
        method="rules",
        text=found.text,
        body=found.body,
        site=rules.get("site"),
        rule_version=rules.get("version"),
        template=found.template,
        pages_learned_from=rules.get("pages_learned"),
        reason="ok" if found.confident else found.reason,
    )
    if template is not None:
        article.selectors = {key: list(template.get(key, [])) for key in ("include", "exclude", "heading")}
    if page is not None and page.blocks:
        chosen = {id(block) for block in found.blocks}
        article.blocks = [i for i, block in enumerate(page.blocks) if id(block) in chosen]
    return article


def _by_mss(page: Page | None, html: str | None, model: Any, url: str | None, include_comments: bool,
            favor: Favor) -> Article:
    from .mss import extract_mss

    source = html or (page.html if page is not None else None) or rebuild_html(page)
    try:
        result = extract_mss(source, model, url, include_comments, favor)
    except InputError:
        if html or page is None:
            raise  # the caller's own page: refused, never read in part
        # a stored page nested deeper than the fallback's parser reads: its blocks, as for one stored without HTML
        result = extract_mss(rebuild_html(page), model, url, include_comments, favor)
    article = Article(method="mss", text=result.text, body=result.text, span=list(result.span) if result.span else None,
                      reason=result.reason, confidence=result.confidence)
    if page is not None:
        article.site = page.site
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
    """A text as it is aligned: spacing aside, its mojibake put right as the article's text is."""
    return _SPACES.sub(" ", repair_mojibake(text)).strip()


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


def rule_labelled_pages(
    store: "Store", policy: "AgreementPolicy | None" = None
) -> Iterator[tuple[str, str, str]]:
    """(HTML, article text, URL) of every stored page of every learned site whose rules apply to it
    confidently: training data for the fallback, labelled by what sitewise has learned. With ``policy``,
    only sites whose rules are corroborated under it (:func:`sitewise.trust.rules_corroborated`): one
    client's pages must not teach every unlearned site.

    Only pages that carry their serialized DOM count (the HTML MSS sees at run time); text rebuilt
    from blocks would teach it a markup no real page has. And only the operator's pages (no contributor
    tag): a reader's HTML is whatever the reader chose to send, and what it teaches reaches every site's
    fallback (the server keeps no reader's HTML; this also leaves out what older servers kept).
    """
    from .trust import rules_corroborated

    for site in store.sites():
        rules = store.rules(site)
        if rules is None or (policy is not None and not rules_corroborated(store, site, policy)):
            continue
        readers_pages = store.contributors(site)
        for page in store.pages(site):
            if not page.html or page.key in readers_pages:
                continue
            text = rule_label(rules, page, page.html)
            if text:
                yield page.html, text, page.url


def rule_label(rules: dict[str, Any], page: Page | None, html: str) -> str | None:
    """The article text a learned site's rules give one of its pages (from its collected blocks when it
    has them, else from ``html``), when they apply to it confidently by a template trusted on its own (one
    learned from fewer than :data:`MIN_TRUSTED_TEMPLATE_PAGES` pages answers only where the fallback agrees,
    and a label the fallback must agree with would teach it nothing): what self-training learns from."""
    from .learn.rules import apply_rules

    found = apply_rules(rules, page=page, html=html)
    return found.text if found.confident and found.text and trusted_alone(rules, found.template) else None


class SitewiseExtractor:
    """``sitewise eval --extractor sitewise``: what the server does. Learn each site from its training
    pages, then answer every test page through :func:`find_article` (rules, else MSS)."""

    name = "sitewise"
    needs_page = True
    per_site = True
    #: A page that could not be rendered is answered from its HTML, as a caller with HTML alone is.
    answers_without_page = True

    def __init__(self, mss_model: str | None = None, part: str = "article") -> None:
        self.mss_model = mss_model
        #: "article", or "body": the rules' body without heading and captions; the fallback's text without
        #: its first line when that repeats the page's title (as ``sitewise.extract``'s JSON body).
        self.part = check_part(part)
        self.rules_: dict[str, Any] | None = None

    @classmethod
    def from_rules(cls, rules: dict[str, Any] | None, mss_model: str | None = None, part: str = "article") -> "SitewiseExtractor":
        """An extractor that answers by rules learnt already (None: the fallback alone), as if fitted."""
        extractor = cls(mss_model, part)
        extractor.rules_ = rules
        return extractor

    def fit(self, documents: Sequence[Document]) -> "SitewiseExtractor":
        from .learn.extractor import RulesExtractor

        learner = RulesExtractor().fit(documents).learner_
        self.rules_ = learner.rules_ if learner is not None else None
        return self

    def extract_detailed(self, document: Document) -> tuple[str, dict[str, Any]]:
        article = find_article(document.page, document.html, self.rules_, mss_model=self.mss_model, url=document.url)
        info = {"method": article.method}
        if article.fallback_reason and article.method == "mss":
            info["why"] = article.fallback_reason
        if self.part == "article":
            return article.text, info
        # The body as sitewise.extract's JSON gives it: the fallback's headline line leaves it too.
        return article.heading_and_body(_page_title(document) if article.method == "mss" else None)[1], info

    def extract(self, document: Document) -> str:
        return self.extract_detailed(document)[0]


def _page_title(document: Document) -> str | None:
    """The page's title as its metadata gives it (what sitewise.extract reads), else the collector's."""
    if document.html:
        from .metadata import read_metadata

        return read_metadata(document.html).title
    return document.page.titles[0] if document.page is not None and document.page.titles else None
