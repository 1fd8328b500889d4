"""Rule sets: the JSON a site's learning produces, and applying it to a page's HTML or collected blocks.

A rule set (format described exactly in ``docs/rules.md``) holds one or more *templates*; each has
``match`` selectors that must all be present for the template to apply, ``include`` selectors whose
elements hold the article, ``exclude`` selectors for things inside them that are not article, and the
range of article words its pages had. :func:`apply_rules` is the one way every part of sitewise (server,
worker, eval, and — via the same JSON — the bookmarklet) turns rules into article text:

1. choose the template: the first whose ``match`` selectors all select something with text;
2. select: every element matched by an ``include`` selector, minus those inside an ``exclude`` match,
   taking each element's whole text once (an element inside another selected one adds nothing) and
   each repeated passage once (:func:`drop_repeats`) — the article's *body*; and, when the template
   has ``heading`` selectors, the article's heading (headline, byline, date line, standfirst) wherever
   it sits, even inside a body exclude. The text is both, in document order; :attr:`Extraction.body`
   is the body alone, without its media captions and credits (:func:`is_caption`);
3. check: the result is *confident* only when it has text and its word count is inside the template's
   ``words`` range; otherwise the caller falls back (MSS) and may queue the page as a new template.
"""
from __future__ import annotations

import datetime as _dt
import functools
import itertools
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Container, Iterable, Sequence, TypeVar

from ..elements import SHADOW_ROOT_ATTRIBUTE, SHADOW_ROOT_MODES, UNRENDERED
from ..mojibake import repair_mojibake
from ..page import Block, Page
from .selectors import Complex, SelectorError, Step, check_lexbor_reads, lexbor_selector, parse_path, parse_selector

#: Bumped whenever a field of the rule set JSON changes meaning.
RULES_FORMAT = 1

#: Elements whose text is never article text (and is invisible in a rendered page): the elements the
#: collector skips, so rules learned from rendered blocks meet the same text in raw HTML. Beside the
#: unrendered ones, ``<noscript>`` (a rendered page runs its scripts), frames and plugin embeds.
_NEVER_TEXT_TAGS = frozenset(UNRENDERED | {"noscript", "frame", "frameset", "object", "embed"})
#: ... of which lexbor numbers these page by page (it knows no MathML ``<annotation>``).
_NEVER_TEXT_UNNUMBERED = frozenset({"annotation"})
#: ... and the others, numbered once for all.
_NEVER_TEXT_NUMBERED = _NEVER_TEXT_TAGS - _NEVER_TEXT_UNNUMBERED
#: ... and any element with this attribute (which a browser does not render).
_HIDDEN = "hidden"
#: Both as one CSS query.
_NEVER_TEXT = ", ".join(sorted(_NEVER_TEXT_TAGS)) + f", [{_HIDDEN}]"
#: Elements that start a new line of output text: block-level by default in every browser.
_BLOCK_TAGS = frozenset(
    "address article aside blockquote body dd details dialog div dl dt fieldset figcaption figure footer "
    "form h1 h2 h3 h4 h5 h6 header hgroup hr li main nav ol p pre section summary table tbody thead tfoot "
    "td th tr ul caption center".split()
)
#: The element that breaks a line (and, twice in a row, makes a gap as between blocks).
_LINE_BREAK = frozenset({"br"})
_WORD = re.compile(r"\w+")
#: A selected text repeated word for word is given once when it has at least this many words (shorter
#: repeats, "Q:" or "* * *", are the article's own rhythm).
MIN_REPEAT_WORDS = 4
#: Media captions and photo credits belong to the article but not to its body: Diffbot's text (spider's
#: truth) gives them with the images, and so does human-corrected truth (spider's chaos pages). Found as
#: parts of class and id names ("wp-caption-text", "captionwrap", "image-credit") and as <figcaption>.
CAPTION_NAME_PARTS = ("caption", "credit")
_CAPTION_NAME = re.compile("|".join(map(re.escape, CAPTION_NAME_PARTS)))
#: The elements :func:`is_caption` calls captions, as one CSS query (``i``: names in any case).
_CAPTION_CSS = ", ".join(
    ["figcaption"] + [f"[{attribute}*={part} i]" for part in CAPTION_NAME_PARTS for attribute in ("class", "id")]
)
#: ... on a line's block and its nearest ancestors: a caption wraps a paragraph or two, not the article.
CAPTION_DEPTH = 3
#: What each line of an article is; the body is its BODY lines, and its CAPTION lines too when these hold
#: more words than the rest: then the name means something else (a "credit-card-review" container).
HEADING, CAPTION, BODY = "heading", "caption", "body"
#: A line of one of these elements is a section head of the article ("Ingredients", "Key points"): kept
#: even when it recurs on every page of a site (a template's ``recurring`` lines never hold one).
SECTION_HEAD_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
T = TypeVar("T")


class RulesError(ValueError):
    """A rule set breaks the format. ``field`` is a dotted path to the bad value."""

    def __init__(self, field_path: str, reason: str) -> None:
        super().__init__(f"{field_path}: {reason}")
        self.field = field_path
        self.reason = reason


@dataclass
class Extraction:
    """What applying rules to one page gave.

    ``confident`` is False when no template matched, nothing was selected, or the word count is outside
    the template's usual range (``reason`` says which): callers then fall back to MSS.
    """

    text: str
    template: str | None
    confident: bool
    reason: str
    #: The body alone: ``text`` without the heading's lines and without media captions and credits.
    body: str = ""
    #: Selected blocks, in document order (when applied to a collected page).
    blocks: list[Block] = field(default_factory=list)
    #: Selected top-level elements (selectolax nodes, when applied to HTML), in document order.
    elements: list[Any] = field(default_factory=list)

    @property
    def words(self) -> int:
        return count_words(self.text)


def line_key(text: str) -> str:
    """A line as a template's ``recurring`` list holds it: lower-cased, whitespace runs made one space,
    trimmed (digits kept: a date line or a comment count differs from page to page)."""
    return " ".join(text.lower().split())


def count_words(text: str) -> int:
    """Words as the ``words`` ranges of rule sets count them: ``\\w+`` tokens."""
    return len(_WORD.findall(text))


def _has_words(text: str, count: int) -> bool:
    """Whether ``text`` has at least ``count`` words (looking at no more of it than that takes)."""
    return sum(1 for _ in itertools.islice(_WORD.finditer(text), count)) == count


# -- the format ------------------------------------------------------------------------------------


def validate_rules(data: Any) -> dict[str, Any]:
    """Check a rule set (e.g. from JSON) and return it; raises :class:`RulesError` naming the bad field."""
    if not isinstance(data, dict):
        raise RulesError("(rules)", "must be a JSON object")
    rules_format = data.get("format", RULES_FORMAT)
    if not _is_count(rules_format) or rules_format != RULES_FORMAT:
        raise RulesError("format", f"unsupported rules format {rules_format!r}")
    if not isinstance(data.get("site"), str) or not data["site"]:
        raise RulesError("site", "must be a non-empty string")
    learned_from = data.get("sites_learned", [])
    if not isinstance(learned_from, list) or not all(isinstance(site, str) and site for site in learned_from):
        raise RulesError("sites_learned", "must be a list of non-empty strings")
    for key in ("include", "exclude"):
        _selector_list(data.get(key, []), key, allow_empty=True)
    templates = data.get("templates")
    if not isinstance(templates, list):
        raise RulesError("templates", "must be a list")
    names: set[str] = set()  # an extraction reports its template by name: two of one name are one to the reader
    for index, template in enumerate(templates):
        where = f"templates[{index}]"
        if not isinstance(template, dict):
            raise RulesError(where, "must be an object")
        if not isinstance(template.get("name"), str) or not template["name"]:
            raise RulesError(f"{where}.name", "must be a non-empty string")
        if template["name"] in names:
            raise RulesError(f"{where}.name", f"{template['name']!r} names an earlier template too")
        names.add(template["name"])
        _selector_list(template.get("match"), f"{where}.match", allow_empty=True)
        _selector_list(template.get("include"), f"{where}.include", allow_empty=False)
        _selector_list(template.get("exclude", []), f"{where}.exclude", allow_empty=True)
        _selector_list(template.get("heading", []), f"{where}.heading", allow_empty=True)
        words = template.get("words")
        if not (
            isinstance(words, list) and len(words) == 2 and all(map(_is_count, words)) and words[0] <= words[1]
        ):
            raise RulesError(f"{where}.words", "must be [min, max] whole numbers, min <= max")
        if not _is_count(template.get("pages", 0)):
            raise RulesError(f"{where}.pages", "must be a non-negative integer")
        recurring = template.get("recurring", [])
        if not isinstance(recurring, list) or not all(isinstance(line, str) and line for line in recurring):
            raise RulesError(f"{where}.recurring", "must be a list of non-empty strings")
    for key in ("pages_learned", "unlearned_pages"):
        if not _is_count(data.get(key, 0)):
            raise RulesError(key, "must be a non-negative integer")
    version = data.get("version", 1)
    if not _is_count(version) or version < 1:
        raise RulesError("version", "must be a positive integer")
    confidence = data.get("confidence", 0.0)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        raise RulesError("confidence", "must be a number from 0 to 1")
    return data


def _is_count(value: Any) -> bool:
    """Whether a field's value is a whole number from 0 up, as JSON writes one: not a bool (which Python
    counts as an int: ``"words": [true, 100]`` would be the range 1-100) nor a float."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _selector_list(value: Any, where: str, *, allow_empty: bool) -> None:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise RulesError(where, "must be a list of CSS selectors")
    if not value and not allow_empty:
        raise RulesError(where, "must not be empty")
    for index, selector in enumerate(value):
        try:
            check_lexbor_reads(selector)  # parses it, and sees that lexbor (which applies it to HTML) does too
        except SelectorError as exc:
            raise RulesError(f"{where}[{index}]", str(exc)) from None


def now_iso() -> str:
    """The time stamp format of ``learned_at``: UTC, seconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


# -- applying --------------------------------------------------------------------------------------


def apply_rules(rules: dict[str, Any], *, html: str | None = None, page: Page | None = None) -> Extraction:
    """The article of one page by a site's rules: from its collected blocks when ``page`` has them
    (what the reader saw), else from ``html`` (or ``page.html``)."""
    templates = rules.get("templates") or []
    if page is not None and page.blocks:
        return _apply_to_blocks(templates, page.blocks)
    source = html if html is not None else (page.html if page is not None else None)
    if source is None:
        raise ValueError("apply_rules needs html or a page")
    return _apply_to_html(templates, source)


def read_rules(rules: dict[str, Any], page: Page) -> Extraction:
    """:func:`apply_rules` on a page, as a :data:`RuleReader`."""
    return apply_rules(rules, page=page)


#: How a check applies a rule set to a page: :func:`read_rules`, or a :class:`RuleReadings`, which remembers.
RuleReader = Callable[[dict[str, Any], Page], Extraction]


class RuleReadings:
    """What rule sets extract from pages' blocks (:func:`apply_rules`), each rule set read on each page
    once: a learn compares the current and the new rules on the same pages in three checks (consistency,
    the change's judge, whose pages they fit): two readings a page where there were five. The rule sets and pages
    are kept with their readings, so that one given again is known by identity."""

    def __init__(self) -> None:
        self._readings: dict[tuple[int, int], tuple[dict[str, Any], Page, Extraction]] = {}
        # Each rule set's template matchers, kept across its pages (a site's pages share their paths).
        self._matchers: dict[int, tuple[dict[str, Any], list[TemplateMatcher]]] = {}

    def __call__(self, rules: dict[str, Any], page: Page) -> Extraction:
        key = (id(rules), id(page))
        known = self._readings.get(key)
        if known is None:
            found = (_apply_to_blocks(rules.get("templates") or [], page.blocks, self._matchers_of(rules))
                     if page.blocks else read_rules(rules, page))
            known = self._readings[key] = (rules, page, found)
        return known[2]

    def _matchers_of(self, rules: dict[str, Any]) -> list[TemplateMatcher]:
        known = self._matchers.get(id(rules))
        if known is None:
            known = self._matchers[id(rules)] = (rules, [TemplateMatcher(t) for t in rules.get("templates") or []])
        return known[1]


def drop_repeats(items: Sequence[T], text_of: Callable[[T], str], *, collapsed: bool = False) -> list[T]:
    """The items without those whose text repeats an earlier item's word for word (case and spacing
    aside) and has at least :data:`MIN_REPEAT_WORDS` words: a page that carries its article twice (a
    hidden teaser copy, a print version) or the same caption under every picture gives it once.
    ``collapsed``: the texts' whitespace is already single spaces, trimmed (lines read from HTML)."""
    if collapsed:
        keys = [text_of(item).lower() for item in items]
    else:
        keys = [" ".join(text_of(item).split()).lower() for item in items]  # str.split's whitespace is re's \s
    # Only a text that occurs twice can be a repeat: the others' words need no counting.
    repeated = {key for key, times in Counter(keys).items() if times > 1 and _has_words(key, MIN_REPEAT_WORDS)}
    seen: set[str] = set()
    out = []
    for item, key in zip(items, keys):
        if key in repeated:
            if key in seen:
                continue
            seen.add(key)
        out.append(item)
    return out


def _conclude(template: dict[str, Any], parts: Sequence[tuple[str, str]], **found: Any) -> Extraction:
    """The extraction of an article's (kind, line) parts: its text, its body (both with their mojibake
    put right) and the verdict; the lines' words are counted only when captions are to be weighed
    against the rest of the body, and the rest's only as far as the captions' count."""
    text = repair_mojibake("\n".join(line for _, line in parts))
    confident, reason = _judge(template, text, any(kind != HEADING for kind, _ in parts))
    kinds: tuple[str, ...] = (BODY,)
    if any(kind == CAPTION for kind, _ in parts):
        # (A word never spans lines: the lines' words are those of their text joined by newlines.)
        caption_words = count_words("\n".join(line for kind, line in parts if kind == CAPTION))
        if not _has_words("\n".join(line for kind, line in parts if kind == BODY), caption_words):
            kinds = (BODY, CAPTION)
    body = repair_mojibake("\n".join(line for kind, line in parts if kind in kinds))
    return Extraction(text, template["name"], confident, reason, body=body, **found)


def _judge(template: dict[str, Any], text: str, has_body: bool) -> tuple[bool, str]:
    if not text.strip():
        return False, "nothing selected"
    if not has_body:
        # A headline and byline found where the body is not: the page is of a layout these rules do
        # not know (a video or gallery page that shares the site's heading), not an article to return.
        return False, "no body selected (only the heading)"
    low, high = template["words"]
    # Inside the range, the first `low` words and the text's length settle it (a word and the character
    # after it take two): counting every word is needed only to say how far outside a page is.
    if _has_words(text, low) and (len(text) + 1) // 2 <= high:
        return True, "ok"
    words = count_words(text)
    if words < low:
        return False, f"too short ({words} words, expected {low}-{high})"
    if words > high:
        return False, f"too long ({words} words, expected {low}-{high})"
    return True, "ok"


# -- on collected blocks ----------------------------------------------------------------------------


class BlockMatcher:
    """Container-semantics matching of selector lists against block selector paths, memoised per
    ancestor path so a page's blocks (which share most of their ancestors) are matched quickly."""

    def __init__(self, selectors: Sequence[str]) -> None:
        self.complexes: tuple[Complex, ...] = tuple(c for s in selectors for c in parse_selector(s))
        self._memo: dict[tuple[Step, ...], bool] = {}
        # The verdict per selector path string, whose hash is cached where a tuple of steps is hashed anew.
        self._by_selector: dict[str, bool] = {}

    def selects(self, steps: tuple[Step, ...]) -> bool:
        """True when the element of ``steps`` or one of its ancestors matches."""
        if not self.complexes or not steps:
            return False
        known = self._memo.get(steps)
        if known is None:
            index = len(steps) - 1
            known = self.selects(steps[:-1]) or any(c.matches_at(steps, index) for c in self.complexes)
            self._memo[steps] = known
        return known

    def selects_block(self, block: Block) -> bool:
        known = self._by_selector.get(block.selector)
        if known is None:
            known = self._by_selector[block.selector] = self.selects(block_steps(block))
        return known


#: The document's root element, the parent of ``body``, where a block's selector path starts.
_ROOT_STEP = Step("html")


def block_steps(block: Block) -> tuple[Step, ...]:
    """A block's parsed selector path, from the document's root: the path the collector gives starts at
    ``body``, and a selector naming ``html`` (``html body div.story``) selects on the page and in the
    browser. A malformed path matches nothing (it is the page's word, not ours)."""
    try:
        steps = parse_path(block.selector)
    except SelectorError:
        return ()
    return (_ROOT_STEP, *steps) if steps and steps[0].tag == "body" else steps


class RuleMatcher:
    """An include/exclude pair, reusable across the pages of a site (its memo grows with the paths)."""

    def __init__(self, include: Sequence[str], exclude: Sequence[str]) -> None:
        self.included, self.excluded = BlockMatcher(include), BlockMatcher(exclude)
        # The verdict per selector path string: a site's blocks share a few hundred paths, and a
        # string's hash is cached where a tuple of steps is hashed anew on every look-up.
        self._verdicts: dict[str, bool] = {}

    def select(self, blocks: Sequence[Block]) -> list[int]:
        """Indices of the blocks selected, in document order."""
        verdicts = self._verdicts
        out = []
        for index, block in enumerate(blocks):
            selected = verdicts.get(block.selector)
            if selected is None:
                steps = block_steps(block)
                selected = verdicts[block.selector] = self.included.selects(steps) and not self.excluded.selects(steps)
            if selected:
                out.append(index)
        return out


def select_blocks(blocks: Sequence[Block], include: Sequence[str], exclude: Sequence[str]) -> list[int]:
    """Indices of the blocks an include/exclude pair selects, in document order."""
    return RuleMatcher(include, exclude).select(blocks)


def is_caption(tag: str, names: Iterable[str]) -> bool:
    """Whether an element with this tag and these class/id names holds a media caption or credit."""
    return tag == "figcaption" or _CAPTION_NAME.search("\0".join(names).lower()) is not None


def _is_caption_path(steps: Sequence[Step]) -> bool:
    return any(is_caption(step.tag, [step.id, *step.classes]) for step in steps[-CAPTION_DEPTH:])


class TemplateMatcher:
    """A template's body and heading rules, reusable across the pages of a site."""

    def __init__(self, template: dict[str, Any]) -> None:
        self.template = template
        self.match = tuple(BlockMatcher([selector]) for selector in template.get("match", []))
        self.included = BlockMatcher(template["include"])
        self.excluded = BlockMatcher(template.get("exclude", []))
        self.heading = BlockMatcher(template.get("heading") or [])
        self.recurring = frozenset(template.get("recurring") or ())
        # HEADING, CAPTION, BODY or None (not article) per selector path string: one look at each.
        self._verdicts: dict[str, str | None] = {}

    def fits(self, blocks: Sequence[Block]) -> bool:
        """Whether the template is the page's: each of its match selectors selects at least one block."""
        return all(any(map(matcher.selects_block, blocks)) for matcher in self.match)

    def select(self, blocks: Sequence[Block]) -> list[tuple[int, str]]:
        """The article's blocks in document order: (index, HEADING, CAPTION or BODY), less the body's
        lines the template knows as recurring (:func:`is_recurring`)."""
        recurring = self.recurring
        return [(index, kind) for index, kind in self._by_selectors(blocks)
                if not (recurring and is_recurring(kind, blocks[index].tag, blocks[index].text, recurring))]

    def _by_selectors(self, blocks: Sequence[Block]) -> list[tuple[int, str]]:
        """:meth:`select` with the recurring lines too: what the include, exclude and heading rules select."""
        verdicts, included, excluded, heading = self._verdicts, self.included, self.excluded, self.heading
        chosen: list[tuple[int, str]] = []
        for index, block in enumerate(blocks):
            if block.selector in verdicts:
                kind = verdicts[block.selector]
            else:
                steps = block_steps(block)
                if heading.selects(steps):
                    kind = HEADING
                elif included.selects(steps) and not excluded.selects(steps):
                    kind = CAPTION if _is_caption_path(steps) else BODY
                else:
                    kind = None
                verdicts[block.selector] = kind
            if kind is not None:
                chosen.append((index, kind))
        return chosen


def is_recurring(kind: str, tag: str, text: str, recurring: Container[str]) -> bool:
    """Whether a line the rules select is one of the site's recurring lines (a template's ``recurring``,
    by :func:`line_key`), which leaves the article: a share bar's "Tweet", an "Enlarge Photo" link under
    every picture. Never a line of the heading (a byline on every page is the article's) nor a section
    head (:data:`SECTION_HEAD_TAGS`)."""
    return may_recur(kind, tag) and line_key(text) in recurring


def may_recur(kind: str, tag: str) -> bool:
    """Whether a selected line of this kind and element may be a recurring line (:func:`is_recurring`)."""
    return kind != HEADING and tag not in SECTION_HEAD_TAGS


def _apply_to_blocks(
    templates: Sequence[dict[str, Any]], blocks: Sequence[Block], matchers: Iterable[TemplateMatcher] | None = None
) -> Extraction:
    """The article by the first template that fits the page, through ``matchers`` of the templates when
    given (kept across pages, they answer each selector path once for all of them), else new ones."""
    candidates = matchers if matchers is not None else map(TemplateMatcher, templates)
    matcher = next((candidate for candidate in candidates if candidate.fits(blocks)), None)
    if matcher is None:
        return Extraction("", None, False, "no template matched")
    chosen = drop_repeats(matcher.select(blocks), lambda part: blocks[part[0]].text)
    parts = [(kind, blocks[i].text) for i, kind in chosen]
    return _conclude(matcher.template, parts, blocks=[blocks[i] for i, _ in chosen])


# -- on HTML ----------------------------------------------------------------------------------------


def _apply_to_html(templates: Sequence[dict[str, Any]], html: str) -> Extraction:
    page = _RenderedQueries(_parsed(html))
    template = next((t for t in templates if all(_present(page, m) for m in t.get("match", []))), None)
    if template is None:
        return Extraction("", None, False, "no template matched")
    elements, parts = _article_lines(page, template)
    return _conclude(template, drop_repeats(parts, lambda part: part[1], collapsed=True), elements=elements)


def _parsed(html: str) -> Any:
    """The page parsed (selectolax's lexbor), its declarative shadow roots in their hosts."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    if SHADOW_ROOT_ATTRIBUTE in html:  # a substring test spares nearly every page a query
        _render_shadow_roots(tree.root)
    return tree


def _rendered_tree(html: str) -> Any:
    """The page parsed as a browser renders it (:func:`_parsed`), without the elements whose text never
    counts (:data:`_NEVER_TEXT`)."""
    tree = _parsed(html)
    _remove(tree.css(_NEVER_TEXT))
    return tree


def _render_shadow_roots(node: Any) -> None:
    """Put each declarative shadow root's content (:data:`sitewise.elements.SHADOW_ROOT_ATTRIBUTE`) in its
    host in place of its ``<template>``, the host's own children staying beside it (as
    :mod:`sitewise.mss.tokenize` does): the collector gives the blocks of a shadow tree paths with its host
    as their parent, so rules learned from them select it there. A template's content is a fragment of its
    own, out of the tree's reach; shadow roots nested in it are rendered first (a moved template loses its
    content)."""
    hosts: set[int] = set()
    for template in node.css(f"template[{SHADOW_ROOT_ATTRIBUTE}]"):
        host = template.parent
        mode = (template.attributes.get(SHADOW_ROOT_ATTRIBUTE) or "").strip().lower()
        if mode not in SHADOW_ROOT_MODES or host is None or host.mem_id in hosts:
            continue
        hosts.add(host.mem_id)
        for content in template.template_fragments()[:1]:
            _render_shadow_roots(content)
            for child in list(content.iter(include_text=True)):
                template.insert_before(child)
        template.decompose()


def _article_lines(page: _RenderedQueries, template: dict[str, Any]) -> tuple[list[Any], list[tuple[str, str]]]:
    """The body's elements, and the article's lines in document order, each with its kind (HEADING,
    CAPTION or BODY), less the body's lines the template knows as recurring (:func:`is_recurring`). The
    heading is read before the body's excludes change the tree: a date line may sit inside an element the
    body excludes."""
    include, exclude, heading = template["include"], template.get("exclude", []), template.get("heading", [])
    excluded_nodes = page.select(exclude) if exclude else []
    excluded = {node.mem_id for node in excluded_nodes}
    included_nodes = page.select(include)
    elements = _outermost(included_nodes, excluded)  # found before the excludes leave the tree
    pending: list[tuple[Any, int | None, list[str]]] = []  # heading elements the body will not give
    heading_ids: set[int] = set()
    if heading:
        included = {node.mem_id for node in included_nodes}
        for element in _outermost(page.select(heading)):
            heading_ids.add(element.mem_id)
            chain = _ancestor_ids(element)
            enclosing = next((i for i in chain if i in included), None)
            if enclosing is not None and excluded.isdisjoint(chain):
                continue  # inside the body, which gives its lines (marked as the heading's below)
            pending.append((element, enclosing, element_lines(element, page.never_text)))
    # Where pending heading lines go among the body's: by document position, read before the excludes
    # leave (and only when there are such lines: most pages' heading is inside the body).
    order = {node.mem_id: i for i, node in enumerate(page.select(include + heading))} if pending else {}
    page.remove(excluded_nodes)
    skipped: list[Any] = []  # never-text in the body, removed once read: the elements are given as rendered
    body_lines = [
        (element, line, block)
        for element in elements
        for line, block, _ in _lines_and_blocks(element, page.never_text, skipped)
    ]
    _remove(skipped)
    kinds = _LineKinds(elements, heading_ids)
    recurring = frozenset(template.get("recurring") or ())
    read = []  # (element, kind, line): each line's kind looked up once
    for element, line, block in body_lines:
        kind = kinds.of(block, element)
        if not (recurring and is_recurring(kind, block.tag, line, recurring)):
            read.append((element, kind, line))
    if not pending:
        return elements, [(kind, line) for _, kind, line in read]
    placed = [(order[element.mem_id], kind, line) for element, kind, line in read]
    for element, enclosing, lines in pending:
        # Removed with a body exclude: given just before the body element it was in.
        position = order[enclosing] - 0.5 if enclosing is not None else order[element.mem_id]
        placed += [(position, HEADING, line) for line in lines]
    placed.sort(key=lambda part: part[0])  # stable: an element's lines keep their order
    return elements, [(kind, line) for _, kind, line in placed]


class _LineKinds:
    """The kind of a body line by its block: HEADING inside a heading element, CAPTION when the block or
    one of its nearest ancestors (:data:`CAPTION_DEPTH`, not beyond the body element) is a caption
    (:func:`is_caption`), else BODY. The body elements' captions are found by one query each (the same
    names, as CSS; a node's query includes the node), and each block is judged once."""

    def __init__(self, elements: Sequence[Any], heading_ids: set[int]) -> None:
        self.heading_ids = heading_ids
        self.captions = {node.mem_id for element in elements for node in element.css(_CAPTION_CSS)}
        self._kinds: dict[int, str] = {}

    def of(self, block: Any, element: Any) -> str:
        kind = self._kinds.get(block.mem_id)
        if kind is None:
            if not self.heading_ids and not self.captions:
                kind = BODY
            else:
                chain = _ancestor_ids(block, stop=element, limit=None if self.heading_ids else CAPTION_DEPTH)
                if not self.heading_ids.isdisjoint(chain):
                    kind = HEADING
                else:
                    kind = BODY if self.captions.isdisjoint(chain[:CAPTION_DEPTH]) else CAPTION
            self._kinds[block.mem_id] = kind
        return kind


def _ancestor_ids(node: Any, stop: Any = None, limit: int | None = None) -> list[int]:
    """The node's id and its ancestors' ids, nearest first, up to ``stop`` (included) or the root, and
    at most ``limit`` of them."""
    ids = []
    while node is not None and (limit is None or len(ids) < limit):
        ids.append(node.mem_id)
        if stop is not None and node.mem_id == stop.mem_id:
            break
        node = node.parent
    return ids


class _RenderedQueries:
    """Queries of a parsed page (:func:`_parsed`) answered as on the page without its never-text elements
    (:data:`_NEVER_TEXT`), which are left in it: a query's nodes inside one are left out of its answer
    (each node's verdict kept: a page's matches share their ancestors), and the lines of an element skip
    them (:func:`_lines_and_blocks`). The rules' selectors (:mod:`.selectors`: tags, ids, classes,
    descendant and child combinators) select the same other nodes either way. Each query is made once
    (a template's match and include selectors are often the same) till nodes are removed (:meth:`remove`)."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree
        self.never_text = _NeverText(tree)
        self._answers: dict[str, list[Any]] = {}
        self._rendered: dict[int, bool] = {}

    def select(self, selectors: Sequence[str]) -> list[Any]:
        """The rendered nodes a list of learned selectors selects, in document order: each spelled as
        lexbor reads it (:func:`lexbor_selector`; some names' characters, written as they are, make its
        parser fail)."""
        query = ", ".join(map(lexbor_selector, selectors))
        nodes = self._answers.get(query)
        if nodes is None:
            nodes = self._answers[query] = [node for node in self.tree.css(query) if self.rendered(node)]
        return nodes

    def rendered(self, node: Any) -> bool:
        """Whether an element is rendered: neither it nor an ancestor is never-text."""
        verdict = True
        unknown: list[int] = []  # the node and its ancestors up to the first whose verdict is known
        while node is not None and node.is_element_node:  # (the root element's parent is the document)
            known = self._rendered.get(node.mem_id)
            if known is not None:
                verdict = known
                break
            unknown.append(node.mem_id)
            if self.never_text.holds(node):
                verdict = False
                break
            node = node.parent
        for mem_id in unknown:
            self._rendered[mem_id] = verdict
        return verdict

    def remove(self, nodes: list[Any]) -> None:
        """Remove nodes from the tree (:func:`_remove`), forgetting the answers that may hold them."""
        _remove(nodes)
        self._answers.clear()
        self._rendered.clear()


class _NeverText:
    """A parsed page's never-text elements (:data:`_NEVER_TEXT`), told one at a time: by lexbor's number
    for the tag, and one query for the ``hidden`` attribute (the query of every never-text element, with
    its many tag names, takes a third of the parse's time; this one a twentieth, and each name more makes
    the query another pass over the page's elements). The tags lexbor numbers page by page are told by
    this page's numbers, which a node made in it for the purpose takes. Removing nodes leaves the answers
    right: those nodes are made before any is removed, and none after, so no node takes a removed one's
    place (and id)."""

    def __init__(self, tree: Any) -> None:
        self._tags = _tag_ids(_NEVER_TEXT_NUMBERED) | {tree.create_node(tag).tag_id for tag in _NEVER_TEXT_UNNUMBERED}
        self._queried = {node.mem_id for node in tree.css(f"[{_HIDDEN}]")}

    def holds(self, element: Any) -> bool:
        return element.tag_id in self._tags or element.mem_id in self._queried


def _present(page: _RenderedQueries, selector: str) -> bool:
    return any(_has_text(node, page) for node in page.select([selector]))


def _has_text(element: Any, page: _RenderedQueries) -> bool:
    """Whether a rendered element of the page shows text: more than whitespace outside never-text elements."""
    return any(
        node.is_text_node and (node.text_content or "").strip() and page.rendered(node.parent)
        for node in element.traverse(include_text=True)
    )


def _outermost(nodes: list[Any], excluded: Container[int] = frozenset()) -> list[Any]:
    """Nodes (in document order) not inside another node of the list, nor ``excluded`` nor inside one."""
    chosen: set[int] = set()
    out = []
    for node in nodes:
        if node.mem_id in excluded:
            continue
        parent = node.parent
        inside = False
        while parent is not None:
            if parent.mem_id in chosen or parent.mem_id in excluded:
                inside = True
                break
            parent = parent.parent
        if not inside:
            chosen.add(node.mem_id)
            out.append(node)
    return out


def _remove(nodes: list[Any]) -> None:
    """Remove a query's matches from the tree. Last first: a match inside another (later in document
    order) goes before its ancestor, so no node is touched after a removal freed it, without walking
    each match's ancestors to find the outermost."""
    for node in reversed(nodes):
        node.decompose()


def page_lines(
    html: str, tags: frozenset[str] = frozenset(), found_elements: list[tuple[int, int, Any]] | None = None
) -> list[tuple[str, Any, bool]]:
    """Every line of a page's visible text as :func:`element_lines` groups an element's, each with the
    block-level node it belongs to (which tells a heading, a list item, a quote or a table cell:
    ``sitewise.structure``) and whether it goes on that node's previous line after one ``<br>`` (a line
    break, not a new block). Given ``found_elements``, the page's visible elements of ``tags`` (HTML tags lexbor
    numbers once for all: images, links, inline marks) are added to it in document order, each as (the
    index of the line it is in or comes before, the id of its block-level node, the element)."""
    tree = _rendered_tree(html)
    root = tree.body or tree.root
    return _lines_and_blocks(root, found_elements=found_elements, found_tags=tags) if root is not None else []


def element_lines(element: Any, never_text: _NeverText | None = None) -> list[str]:
    """An element's text as the collector would group it: one line per nearest block-level ancestor,
    inline elements merged into their line, whitespace collapsed; without its never-text elements when
    ``never_text`` tells them (else they are to be gone from the tree: :func:`_rendered_tree`)."""
    return [line for line, _, _ in _lines_and_blocks(element, never_text)]


def _lines_and_blocks(
    element: Any,
    never_text: _NeverText | None = None,
    skipped: list[Any] | None = None,
    found_elements: list[tuple[int, int, Any]] | None = None,
    found_tags: frozenset[str] = frozenset(),
) -> list[tuple[str, Any, bool]]:
    """:func:`element_lines`, each line with the block-level node it belongs to and whether it goes on
    the previous line of that node after a single ``<br>`` (two in a row are a gap, as between blocks).
    Given ``never_text``, the element's never-text elements are skipped and added to ``skipped``; given
    ``found_elements``, its elements of ``found_tags`` are added to it as :func:`page_lines` gives them."""
    lines: list[tuple[str, Any, bool]] = []
    current: list[str] = []
    current_block = current_id = last_id = None  # last_id: the block of the last line given
    breaks = 0  # <br>s since the last line given
    continues = False  # whether the line being read goes on the last one given
    stop_id = element.mem_id
    # A text's parent → its nearest block-level node and that node's id: texts share parents.
    block_of: dict[int, tuple[Any, int]] = {}
    line_break, block_tags = _tag_ids(_LINE_BREAK), _tag_ids(_BLOCK_TAGS)
    wanted = _tag_ids(found_tags) if found_elements is not None else frozenset()

    def end_line() -> None:
        nonlocal current, last_id, breaks
        line = _collapsed(current)
        if line:
            lines.append((line, current_block, continues))
            last_id, breaks = current_id, 0
        current = []

    resume_id: int | None = None  # inside a never-text element: the node after it (None: none in ``element``)
    skipping = False
    for node in element.traverse(include_text=True):
        if skipping:
            if node.mem_id != resume_id:
                continue
            skipping = False
        if node.is_text_node:
            parent = node.parent
            found = block_of.get(parent.mem_id)
            if found is None:
                block = _nearest_block(parent, stop_id, element, block_tags)
                found = block_of[parent.mem_id] = (block, block.mem_id)
            block, block_id = found
            if current and block_id != current_id:
                end_line()
            if not current:
                continues = breaks == 1 and block_id == last_id
                current_block, current_id = block, block_id
            current.append(node.text_content or "")
        elif never_text is not None and node.is_element_node and never_text.holds(node):
            if skipped is not None:
                skipped.append(node)
            resume_id, skipping = _following_id(node, stop_id), True
        elif node.tag_id in line_break:
            if current:
                end_line()
            breaks += 1
        elif node.tag_id in wanted:
            block_id = _nearest_block(node.parent, stop_id, element, block_tags).mem_id
            # in the line being read when it is of the same block, else after it (when it has words)
            later = 1 if block_id != current_id and _collapsed(current) else 0
            found_elements.append((len(lines) + later, block_id, node))  # type: ignore[union-attr]
    if current:
        end_line()
    return lines


def _following_id(node: Any, stop_id: int) -> int | None:
    """The id of the node after ``node`` and all it holds in document order, within the node of id
    ``stop_id`` (None: there is none)."""
    while node is not None and node.mem_id != stop_id:
        following = node.next
        if following is not None:
            return following.mem_id
        node = node.parent
    return None


def _collapsed(texts: list[str]) -> str:
    """The texts joined, whitespace runs made one space, trimmed (str.split's whitespace is re's \\s)."""
    return " ".join("".join(texts).split())


def _nearest_block(parent: Any, stop_id: int, stop: Any, block_tags: frozenset[int]) -> Any:
    """The nearest block-level node (``block_tags``: :data:`_BLOCK_TAGS` by lexbor's numbers) from ``parent``
    up (itself included), ``stop`` (id ``stop_id``) at most."""
    while parent is not None and parent.mem_id != stop_id and parent.tag_id not in block_tags:
        parent = parent.parent
    return parent if parent is not None else stop


@functools.cache
def _tag_ids(tags: frozenset[str]) -> frozenset[int]:
    """Lexbor's numbers for tag names, which it tells faster than names: those of the HTML tags it knows
    are the same in every page. A tag it does not know is numbered per page (a custom element's number
    could be another page's ``<my-widget>``): ValueError, before any page is read wrong."""
    from selectolax.lexbor import LexborHTMLParser

    parser, other = LexborHTMLParser(""), LexborHTMLParser("")
    numbers = {tag: parser.create_node(tag).tag_id for tag in tags}
    unknown = sorted(tag for tag, number in numbers.items() if other.create_node(tag).tag_id != number)
    if unknown:
        raise ValueError(f"lexbor numbers these tags page by page, not once for all: {', '.join(unknown)}")
    return frozenset(numbers.values())
