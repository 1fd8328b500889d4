"""Selecting the article: which blocks of a template's pages are article text.

Phases, in order:

1. **seed**: the cluster that best looks like the article body (:func:`.scoring.score_clusters`).
2. **region**: on each page, the deepest element that holds nearly all of the seed's text (the article
   container), and the seed's bounding box.
3. **grow**: other clusters join when their blocks sit inside the region on the pages where they occur
   and carry article-like text: sub-headings, block quotes, lists, captions, a paragraph in another
   style. Clusters of linked text (related links, tag lists), of text that recurs across pages
   (share bars, "Advertisement"), of blocks named like comments, share bars, ads or navigation, and
   clusters that mostly live outside the region are rejected even when they score. A section head
   just before the article's text joins it however often its text recurs (:data:`SECTION_HEADS`).
4. **heading**: the page's main heading (an ``h1``/``h2``/``h3`` before the body whose text is most like
   the page's title) and what sits between it and the body in their common container — byline,
   date line, standfirst — are the article's *heading*. They are labelled apart from the body
   (:attr:`Selection.heading`) and get rules of their own, so the body's rules never widen to reach a
   date line outside the body's container (a container that, on a layout not seen yet, holds the
   comments too), and consumers can tell the two apart (Diffbot-style "text" is the body alone). The
   headline stays with the body as well: the container holding both is the article's.
   Captions, photo credits and category lists there are left to the body's own phases, and text that
   recurs across pages ("Share this post", "About the author") is not heading.
5. **feedback**: readers' marks override all of the above (a block marked "not article" is not, one
   marked "missing" is), and are weighted up when the rules are induced.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..metrics import words
from ..page import Page
from ..text import terms
from .features import BlockRecord, names_any, non_article_name
from .rules import SECTION_HEAD_TAGS
from .scoring import ClusterStats, SiteText, similarity
from .selectors import Step

#: The region is the deepest element holding at least this share of the seed's text on the page
#: (not all: one stray paragraph of the same style elsewhere must not lift it to <body>).
REGION_SHARE = 0.85
#: A cluster joins the article only if at least this share of its text lies inside the regions.
MIN_INSIDE_SHARE = 0.6
#: Clusters (and blocks) with more linked text than this are link lists, not article text.
MAX_LINK_DENSITY = 0.5
#: Clusters whose text recurs on more than this share of the other pages are boilerplate.
MAX_REPEAT = 0.3
#: A heading is the headline when its tf-idf cosine to the page's titles is at least this.
MIN_HEADLINE_SIMILARITY = 0.5
#: Headline tags: blogs often title a post with an ``h3`` (the ``h1``/``h2`` being the blog's name).
HEADLINE_TAGS = frozenset({"h1", "h2", "h3"})
#: A block of another tag is the headline only when it nearly repeats the title (cosine at least this)
#: and is as short as a headline (at most this many words): older layouts and note pages set the
#: headline in a styled ``div`` or ``td`` (dragnet's facebook.com notes: 0.960 → 0.986; 0.7 and 0.9
#: chose the same headlines there).
MIN_UNTAGGED_HEADLINE_SIMILARITY = 0.8
MAX_HEADLINE_WORDS = 25
#: Heading blocks may carry more linked text than body text: a byline links the author's name.
MAX_HEADING_LINK_DENSITY = 0.7
#: Class/id words of figure parts, media players and category lists: between the headline and the body
#: these belong to a picture, a player's controls or navigation, not to the heading (the grow phase
#: judges captions by their cluster).
NOT_HEADING_WORDS = frozenset(
    "caption captions credit credits photo photos image images slideshow gallery category categories "
    "audio video player media".split()
)
#: A year in a block's text: a date line recurs on a one-author blog ("by John on July 7, 2012" reads
#: "by John on July , " with its digits ignored) yet is each page's own.
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
#: How much more a block marked by a reader weighs than an ordinary block of the same length.
FEEDBACK_WEIGHT = 20.0
#: Section heads: a heading of these tags inside the region that heads article text is the article's,
#: however often its text recurs on the site's pages ("Ingredients", "Method", a reference's "Syntax" and
#: "Specifications"): redundancy alone calls it furniture. Its text may be a link (documentation links
#: each head to itself: MDN's are all links). One that heads what is not article ("Related stories",
#: "Comments", "Share this") stays out with what it heads. (The rules' section heads but ``h1``, which is the
#: headline's, judged by the heading phase.)
SECTION_HEADS = SECTION_HEAD_TAGS - {"h1"}


@dataclass
class Selection:
    """Article labels of one template's pages."""

    seed: int
    pages: list[int]
    article: np.ndarray  # bool per record: the article's body
    heading: np.ndarray  # bool per record: the article's heading (headline, byline, date line, standfirst)
    weight: np.ndarray  # per record: how much its label counts when rules are induced
    regions: dict[int, tuple[Step, ...]] = field(default_factory=dict)
    accepted_clusters: set[int] = field(default_factory=set)


def find_region(seed_records: Sequence[BlockRecord]) -> tuple[Step, ...]:
    """The deepest ancestor path holding at least :data:`REGION_SHARE` of the records' text."""
    total = sum(r.chars for r in seed_records)
    under: Counter = Counter()
    for record in seed_records:
        for depth in range(1, len(record.steps) + 1):
            under[record.steps[:depth]] += record.chars
    best: tuple[Step, ...] = ()
    for prefix, chars in under.items():
        if chars >= REGION_SHARE * total and len(prefix) > len(best):
            best = prefix
    # The region is a container: if the seed is a single block, its parent.
    if best and any(r.steps == best for r in seed_records) and len(best) > 1:
        best = best[:-1]
    return best


def _inside(record: BlockRecord, region: tuple[Step, ...]) -> bool:
    return bool(region) and record.steps[: len(region)] == region


def _named_non_article(record: BlockRecord, region: tuple[Step, ...]) -> bool:
    return any(non_article_name(step) for step in record.steps[len(region):])


def select_article(
    pages: Sequence[Page],
    records: Sequence[BlockRecord],
    labels: np.ndarray,
    site: SiteText,
    stats: dict[int, ClusterStats],
    seed: int,
    template_pages: Sequence[int],
    *,
    headline: bool = True,
) -> Selection:
    """Label the records of ``template_pages``: True where the block is article text."""
    members = set(template_pages)
    article = np.zeros(len(records), dtype=bool)
    heading = np.zeros(len(records), dtype=bool)
    headlines: list[int] = []
    weight = np.zeros(len(records))
    by_page: dict[int, list[int]] = defaultdict(list)
    for number, record in enumerate(records):
        if record.page in members:
            by_page[record.page].append(number)
    # Python numbers, not numpy scalars, in the per-block loops below (same values, a fraction of the cost).
    label_of, repeat_of = labels.tolist(), site.repeat.tolist()

    regions = {}
    for page in template_pages:
        seed_records = [records[n] for n in by_page[page] if label_of[n] == seed]
        regions[page] = find_region(seed_records) if seed_records else ()

    # The template's blocks: whether each lies inside its page's region, and their characters summed by
    # cluster as whole arrays (this sees every block of the pages; sums of whole numbers are exact).
    numbers = [n for page in template_pages for n in by_page[page]]
    inside = np.fromiter((_inside(records[n], regions[records[n].page]) for n in numbers), dtype=bool, count=len(numbers))
    inside_of = dict(zip(numbers, inside.tolist()))  # read again per block when the labels are set
    chars = np.fromiter((records[n].chars for n in numbers), dtype=float, count=len(numbers))
    weight[numbers] = chars
    label_array = labels[numbers]
    all_chars = np.bincount(label_array, weights=chars)
    inside_chars = np.bincount(label_array[inside], weights=chars[inside], minlength=len(all_chars))
    accepted = {seed}
    for label in np.unique(label_array[inside]).tolist():
        cluster = stats.get(label)
        if cluster is None or label == seed:
            continue
        if (
            inside_chars[label] >= MIN_INSIDE_SHARE * all_chars[label]
            and cluster.link_density <= MAX_LINK_DENSITY
            and cluster.repeat <= MAX_REPEAT
        ):
            accepted.add(label)

    for page in template_pages:
        region = regions[page]
        for n in by_page[page]:
            record = records[n]
            article[n] = (
                label_of[n] in accepted
                and inside_of[n]
                and not _named_non_article(record, region)
                and (label_of[n] == seed or record.block.link_density <= MAX_LINK_DENSITY)
                and repeat_of[n] <= MAX_REPEAT
            )
        _join_section_heads(records, by_page[page], article, inside_of, region)
        if headline:
            # The body's first block: its seed-cluster blocks, not those left out (a recurring byline
            # set like the paragraphs is the seed's, yet not the body's).
            first_body = next((n for n in by_page[page] if label_of[n] == seed and article[n]), None)
            top = _find_headline(pages[page], records, by_page[page], first_body, site)
            if top is not None:
                _mark_heading(records, by_page[page], top, first_body, region, repeat_of, heading)
                headlines.append(top)
    # The headline is both: the body's rules are induced with it (the container that holds headline and
    # body is the article's, and recognises its template on pages not seen yet), the heading's pick it out.
    article &= ~heading
    article[headlines] = heading[headlines] = True
    return Selection(seed, list(template_pages), article, heading, weight, regions, accepted)


def _join_section_heads(
    records: Sequence[BlockRecord], numbers: list[int], article: np.ndarray, inside_of: dict[int, bool],
    region: tuple[Step, ...],
) -> None:
    """Mark as article the section heads (:data:`SECTION_HEADS`) of a page's blocks ``numbers`` (in
    document order) that come just before article text, inside the region and not named like a
    non-article part; a head just before another that joins joins too (``h2`` then ``h3``)."""
    heads_article = False  # whether the block after the one being judged is article
    for n in reversed(numbers):
        record = records[n]
        if (
            heads_article and not article[n] and record.steps[-1].tag in SECTION_HEADS and inside_of[n]
            and not _named_non_article(record, region)
        ):
            article[n] = True
        heads_article = bool(article[n])


def _find_headline(
    page: Page, records: Sequence[BlockRecord], numbers: list[int], first_body: int | None, site: SiteText
) -> int | None:
    """The page's headline: the heading before the body's first block that is most like the page's
    title (or a short block of another tag that nearly repeats it). Before the *body* (not before the
    region): on a page whose region is drawn wider (around the headline too) the headline is inside it,
    yet it is still the article's."""
    if not page.titles or first_body is None:
        return None
    title_terms = Counter(terms(page.titles[0], page.lang))
    title_words = set(words(page.titles[0]))
    best, best_similarity = None, MIN_HEADLINE_SIMILARITY
    for n in numbers:
        if n >= first_body:
            break
        record = records[n]
        if not record.steps:
            continue
        if record.steps[-1].tag in HEADLINE_TAGS:
            least = best_similarity
        elif _may_repeat(record.text, title_words):
            least = max(best_similarity, MIN_UNTAGGED_HEADLINE_SIMILARITY)
        else:
            continue
        score = similarity(site.bag(n), title_terms, site)
        if score >= least:
            best, best_similarity = n, score
    return best


def _may_repeat(text: str, title_words: set[str]) -> bool:
    """Whether a block of another tag could repeat the title: headline-short, and holding at least half
    the title's words (a cheap test before the tf-idf cosine, which every short line of a page would
    otherwise cost: menus, labels, dates)."""
    found = words(text)
    return len(found) <= MAX_HEADLINE_WORDS and 2 * len(title_words.intersection(found)) >= len(title_words)


def _mark_heading(
    records: Sequence[BlockRecord],
    numbers: list[int],
    headline: int,
    first_body: int,
    region: tuple[Step, ...],
    repeat_of: list[float],
    heading: np.ndarray,
) -> None:
    """Mark the blocks between the headline and the body's first block that share their container
    (the deepest common ancestor of the headline and the region): byline, date line, standfirst."""
    top = records[headline].steps
    depth = 0
    while depth < min(len(top), len(region)) and top[depth] == region[depth]:
        depth += 1
    container = top[:depth] if region else top[:-1]
    for n in numbers:
        if n <= headline:
            continue
        if n >= first_body:
            break
        record = records[n]
        heading[n] = (
            record.steps[: len(container)] == container
            and record.block.link_density <= MAX_HEADING_LINK_DENSITY
            and (repeat_of[n] <= MAX_REPEAT or _YEAR.search(record.text) is not None)
            and not _named_non_article(record, container)
            and not any(names_any(step, NOT_HEADING_WORDS) for step in record.steps[len(container):])
        )


def apply_feedback(
    pages: Sequence[Page], records: Sequence[BlockRecord], selection: Selection, marks: Sequence[dict[str, Any]]
) -> int:
    """Override labels with readers' marks (on the marked page, or on any page when the marked page is
    not among those learned from) and weight them up; returns how many blocks a mark touched."""
    touched = 0
    members = set(selection.pages)
    urls = {pages[p].url for p in members} | {pages[p].key for p in members}
    for mark in marks:
        kind = mark.get("kind")
        if kind not in ("not_article", "missing"):
            continue
        selector, text = mark.get("selector") or "", (mark.get("text") or "").strip()
        on_page = mark.get("url") in urls
        for n, record in enumerate(records):
            if record.page not in members:
                continue
            page = pages[record.page]
            if on_page and mark.get("url") not in (page.url, page.key):
                continue
            if (selector and record.block.selector == selector) and (not text or not on_page or text in record.text) or (
                not selector and text and text == record.text
            ):
                selection.article[n] = kind == "missing"
                selection.heading[n] = False
                selection.weight[n] = max(record.chars, 1) * FEEDBACK_WEIGHT
                touched += 1
    return touched
