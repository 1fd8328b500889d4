"""Block features: what a block looks like (computed CSS), where it sits (tag path, ancestors' classes,
geometry) and what it holds (text length, link density), for every block of a site's pages.

Features come in two kinds, and the split is what makes the clustering in :mod:`.cluster` meaningful:

* **defining** features (:data:`DEFINING`): the block's tag and its typography. Two blocks that differ
  in any of them are different kinds of block (a paragraph and a heading; body text and a caption in a
  smaller grey font), however alike the rest is.
* **soft** features (:data:`SOFT_WEIGHTS`, :data:`TOKEN_WEIGHTS`, :data:`NUMERIC_WEIGHTS`): spacing,
  alignment, the parent and grandparent tags, the classes of the block and its nearest ancestors, its
  horizontal position and width, its length and link density. Blocks of one kind differ a little in
  these (the first paragraph's margin, a longer paragraph, an extra wrapper class on one page), so each
  costs only part of the clustering radius.
"""
from __future__ import annotations

import functools
import math
import operator
import re
from dataclasses import dataclass
from typing import Sequence

from ..page import Block, Page
from .selectors import Step, SelectorError, parse_path

#: Tag and typography: blocks that differ in one of these are never the same kind of block.
DEFINING = (
    "tag", "display", "font-family", "font-size", "font-weight", "font-style", "color", "text-transform",
)

#: Categorical soft features and what a different value costs (the clustering radius is
#: ``cluster.EPS`` = 0.1): a different parent tag alone keeps two blocks together, a different parent
#: *and* grandparent does not; spacing differences (a first paragraph's margin) cost little.
SOFT_WEIGHTS = {
    "parent": 0.06,
    "grandparent": 0.05,
    "background-color": 0.04,
    "line-height": 0.03,
    "text-align": 0.03,
    "position": 0.03,
    "float": 0.03,
    "letter-spacing": 0.02,
    "text-decoration-line": 0.02,
    "white-space": 0.02,
    "list-style-type": 0.02,
    **{f"{box}-{side}": 0.01 for box in ("margin", "padding") for side in ("top", "right", "bottom", "left")},
    **{f"border-{side}-style": 0.01 for side in ("top", "bottom", "left", "right")},
}

#: Sets of class/id names, compared as sets (all different costs the whole weight): the nearest
#: ancestors' names tell article paragraphs from comment paragraphs in the same font; the block's own
#: names tell a byline from a paragraph.
TOKEN_WEIGHTS = {"ancestors": 0.15, "own": 0.06}

#: Numeric features: weight per unit of difference. Positions and widths are fractions of the page
#: width (a column 10% of the page to the side costs 0.03); length is ln(1 + characters), capped, so
#: a one-line paragraph and a long one of the same kind stay together; link density is 0..1.
NUMERIC_WEIGHTS = {"left": 0.3, "width": 0.3, "length": 0.01, "links": 0.05}

#: ln(1 + chars) is capped here (about 1,100 characters): longer blocks are simply "long".
MAX_LOG_LENGTH = 7.0
#: How many of the nearest ancestors' class and id names describe a block's surroundings.
ANCESTOR_STEPS = 4
#: Numeric features are rounded to these steps before identical rows are merged (see :mod:`.cluster`).
QUANTUM = {"left": 0.01, "width": 0.01, "length": 0.25, "links": 0.1}

_DIGITS = re.compile(r"\d")
_HEXISH = re.compile(r"^[a-z]*[-_]?[0-9a-f]{6,}$", re.IGNORECASE)
_MIXED_CASE_HASH = re.compile(r"^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)[A-Za-z0-9_-]{5,}$")
#: Names longer than this are generated, not written by a person.
MAX_NAME_LENGTH = 40


@functools.lru_cache(maxsize=65536)
def is_generated_name(name: str) -> bool:
    """True for ids and classes a program made up (they change from page to page or build to build):
    digit-heavy (``li_ui_li_gen_1384574767187_0``, ``post-8812``), hashed (``css-1x9zkq``, ``a3f9c2e1b7``,
    ``sc-bdVaJa``-like mixed case with digits), or very long."""
    if not name or len(name) > MAX_NAME_LENGTH:
        return True
    digits = len(_DIGITS.findall(name))
    if digits >= 3 or (digits and digits / len(name) > 0.25):
        return True
    return bool(_HEXISH.match(name) and digits) or bool(_MIXED_CASE_HASH.match(name))


@functools.lru_cache(maxsize=65536)
def stable_names(step: Step) -> tuple[str, ...]:
    """A step's id (as ``#id``) and classes (as ``.class``) that are not generated."""
    names = [f"#{step.id}"] if step.id and not is_generated_name(step.id) else []
    names += [f".{c}" for c in sorted(step.classes) if not is_generated_name(c)]
    return tuple(names)


#: Soft features in :data:`SOFT_WEIGHTS` order; the first two come from the path, the rest from style.
SOFT_NAMES = tuple(SOFT_WEIGHTS)
_SOFT_STYLE = tuple(n for n in SOFT_NAMES if n not in ("parent", "grandparent"))
_DEFINING_STYLE = DEFINING[1:]
TOKEN_NAMES = tuple(TOKEN_WEIGHTS)
NUMERIC_NAMES = tuple(NUMERIC_WEIGHTS)
_QUANTA = tuple(QUANTUM[n] for n in NUMERIC_NAMES)


#: Words in class/id names of non-article parts (whole words of a name split at -, _ and case changes);
#: "bio" and "profile" name the author's box (a portrait and a biography), not the article.
NON_ARTICLE_WORDS = frozenset(
    "comment comments share sharing social related recommended recommendations promo promos promoted advert "
    "advertisement advertising ad ads sponsor sponsored newsletter subscribe subscription signup popular "
    "trending outbrain taboola disqus breadcrumb breadcrumbs toolbar pagination pager tags tagcloud widget "
    "sidebar footer nav navigation menu masthead livefyre respond reply replies trackback trackbacks "
    "bio profile".split()
)
_NAME_PARTS = re.compile(r"[-_\s]+|(?<=[a-z])(?=[A-Z])")
#: How many steps (the block and its nearest ancestors) are looked at for non-article names.
NAMED_STEPS = 5


@functools.lru_cache(maxsize=65536)
def non_article_name(step: Step) -> bool:
    """True when the element's id or a class names a non-article part (comments, share bar, ad, …)."""
    return names_any(step, NON_ARTICLE_WORDS)


def names_any(step: Step, words: frozenset[str]) -> bool:
    """True when a whole word of the element's id or of one of its classes is one of ``words``."""
    for name in ([step.id] if step.id else []) + sorted(step.classes):
        if not words.isdisjoint(part.lower() for part in _NAME_PARTS.split(name) if part):
            return True
    return False


@dataclass(slots=True)
class BlockRecord:
    """One block of a site's pages, with everything learning needs about it. Feature tuples follow
    :data:`DEFINING`, :data:`SOFT_NAMES`, :data:`TOKEN_NAMES` and :data:`NUMERIC_NAMES`."""

    page: int
    index: int
    block: Block
    steps: tuple[Step, ...]
    defining: tuple[str, ...]
    soft: tuple[str, ...]
    tokens: tuple[frozenset[str], ...]
    numeric: tuple[float, ...]
    chars: int
    #: The block or one of its nearest ancestors is named like a non-article part.
    named: bool
    #: Records of one :func:`describe_blocks` call have equal kinds exactly when their defining, soft and
    #: token features are equal (numbered by first occurrence).
    kind: int

    @property
    def text(self) -> str:
        return self.block.text

    def row_key(self) -> tuple:
        """The record's features with numbers rounded to :data:`QUANTUM`: equal keys are merged before
        clustering (see :mod:`.cluster`)."""
        return (self.defining, self.soft, self.tokens, tuple(round(v / q) for v, q in zip(self.numeric, _QUANTA)))


def page_width(page: Page) -> float:
    """The width the page was laid out in: the viewport's, else the right edge of its widest block."""
    if page.viewport and page.viewport.get("width"):
        return float(page.viewport["width"])
    right = max((b.box.left + b.box.width for b in page.blocks), default=0.0)  # (Box.right, without the call)
    return right if right > 0 else 1.0


@dataclass(frozen=True, slots=True)
class _PathFacts:
    """What a block's selector path says about it (shared by every block with the same path)."""

    steps: tuple[Step, ...]
    #: The starts of the defining and soft feature tuples: (tag,) and (parent tag, grandparent tag).
    defining: tuple[str]
    soft: tuple[str, str]
    tokens: tuple[frozenset[str], frozenset[str]]
    named: bool


def _path_facts(steps: tuple[Step, ...]) -> _PathFacts:
    """Parent and grandparent tag, the (ancestors', own) stable names of a (non-empty) path, and whether
    it is named like a non-article part."""
    ancestors: set[str] = set()
    for step in steps[-1 - ANCESTOR_STEPS : -1]:
        ancestors.update(stable_names(step))
    own = frozenset(stable_names(steps[-1]))
    parent = steps[-2].tag if len(steps) > 1 else ""
    grandparent = steps[-3].tag if len(steps) > 2 else ""
    named = any(non_article_name(step) for step in steps[-NAMED_STEPS:])
    return _PathFacts(steps, (steps[-1].tag,), (parent, grandparent), (frozenset(ancestors), own), named)


def _block_path_facts(block: Block, known: dict[str, _PathFacts]) -> _PathFacts:
    """The facts of the block's selector path, from ``known`` when another block had the same path."""
    facts = known.get(block.selector)
    if facts is None:
        try:
            steps = parse_path(block.selector)
        except SelectorError:
            # The page's own malformed path: its tag path stands in (per block, so never remembered).
            return _path_facts(tuple(Step(tag) for tag in block.path[1:]) or (Step(block.tag),))
        facts = known[block.selector] = _path_facts(steps)
    return facts


#: The style properties :func:`describe_blocks` reads: the defining ones, then the soft ones.
_STYLE_NAMES = _DEFINING_STYLE + _SOFT_STYLE
_STYLE_VALUES = operator.itemgetter(*_STYLE_NAMES)


def _style_values(style: dict[str, str]) -> tuple[str, ...]:
    """The style's values of :data:`_STYLE_NAMES` (a missing property reads as ""): collected pages carry
    every property, so the C-level getter nearly always does it."""
    try:
        return _STYLE_VALUES(style)
    except KeyError:
        return tuple(style.get(name, "") for name in _STYLE_NAMES)


@dataclass(frozen=True, slots=True)
class _Kind:
    """The categorical features records share (one object per distinct combination)."""

    defining: tuple[str, ...]
    soft: tuple[str, ...]
    number: int


def describe_blocks(pages: Sequence[Page]) -> list[BlockRecord]:
    """A record for every block of the pages, in page then document order.

    This runs on every block of a site (a thousand pages are a quarter of a million blocks), so what
    depends only on the selector path is worked out once per distinct path, the style's values once per
    style dict (a page's blocks of one style share it: :meth:`~sitewise.page.Page.from_dict`), and the
    feature tuples once per distinct path facts and style (shared by the records, numbered as their
    :attr:`~BlockRecord.kind`)."""
    records = []
    append = records.append
    known: dict[str, _PathFacts] = {}
    # By the style dict's id: the pages hold every dict until the call returns, so no id is reused.
    style_values: dict[int, tuple[str, ...]] = {}
    kinds: dict[tuple, _Kind] = {}
    for page_number, page in enumerate(pages):
        width = page_width(page)
        for index, block in enumerate(page.blocks):
            facts = _block_path_facts(block, known)
            values = style_values.get(id(block.style))
            if values is None:
                values = style_values[id(block.style)] = _style_values(block.style)
            append(_record(page_number, index, block, width, facts, _block_kind(facts, values, kinds)))
    return records


def _block_kind(facts: _PathFacts, values: tuple[str, ...], kinds: dict[tuple, _Kind]) -> _Kind:
    """The kind of a block with these path facts and style values (:func:`_style_values`), from ``kinds``
    when another block had it."""
    key = (facts.defining, facts.soft, facts.tokens, values)
    kind = kinds.get(key)
    if kind is None:
        split = len(_DEFINING_STYLE)
        kind = kinds[key] = _Kind(facts.defining + values[:split], facts.soft + values[split:], len(kinds))
    return kind


def _record(page_number: int, index: int, block: Block, width: float, facts: _PathFacts, kind: _Kind) -> BlockRecord:
    chars = len(block.text)
    left, box_width, log_length, links = block.box.left, block.box.width, math.log1p(chars), block.link_chars / (chars or 1)
    # Conditionals rather than max()/min() calls: this runs for every block of the site.
    numeric = (
        (left if left > 0.0 else 0.0) / width,
        (box_width if box_width > 0.0 else 0.0) / width,
        log_length if log_length < MAX_LOG_LENGTH else MAX_LOG_LENGTH,
        links if links < 1.0 else 1.0,
    )
    return BlockRecord(
        page_number, index, block, facts.steps, kind.defining, kind.soft, facts.tokens, numeric, chars, facts.named,
        kind.number,
    )
