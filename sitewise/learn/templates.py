"""Templates: a site serves several layouts (articles, galleries, live blogs, an old and a new design).

Grouping is by covering: the best body cluster over all pages (:func:`.scoring.score_clusters`) defines
the first template, made of the pages where that cluster carries a body; the best body cluster of the pages left
defines the next, and so on while the best body cluster left still looks like an article body
(:data:`MIN_SEED_SCORE_SHARE`), up to :data:`MAX_TEMPLATES`. One page is enough for a layout: a gallery or
video page seen once while learning is far better served by its own template than by none (its pages
would all fall back), and a wrong one-page template is caught like any other by the words-range check.
Pages left over (index or error pages without an article body) match no template and fall back to MSS.

A template is recognised on a new page by its ``match`` selectors (a page takes the first template
whose match selectors are all present). :func:`choose_match` picks, from the ancestors of a template's
article, a selector present on every one of its training pages and on as few pages as possible of the
templates tried after it; the learner (``sitewise.learn.learner``) orders templates rarest first and
gives the last, most common one its article container as match.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .consolidate import PathIndex, step_selectors
from .features import BlockRecord
from .scoring import ClusterStats, SiteText, score_clusters
from .selectors import Step

#: An article body is text, not a heading: heading clusters never seed a template.
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Pages a layout needs before it is learned as a template of its own. One: measured on dragnet's
#: sites, every one-page template either matched only its own layout on the test pages (abcnews
#: slideshows 0.00 -> 0.93) or no test page at all.
MIN_TEMPLATE_PAGES = 1
#: At most this many templates per site: rarer layouts than the eighth fall back to MSS (and each
#: template costs a match test on every page the rules are applied to).
MAX_TEMPLATES = 8
#: A body cluster scoring below this share of the first template's seed score on its pages is not an
#: article body (index pages, error pages): its pages stay unlearned.
MIN_SEED_SCORE_SHARE = 0.1
#: A page belongs to a seed's template only if the seed scores at least this share of its median page
#: score there: a body cluster that reaches a page through one stray paragraph of the same style (a
#: sidebar's newsletter line on a gallery) must not pull that page into the article template.
MIN_PAGE_SCORE_SHARE = 0.05


@dataclass
class TemplateGroup:
    seed: int
    pages: list[int]
    stats: dict[int, ClusterStats]


def group_templates(
    records: Sequence[BlockRecord], labels: np.ndarray, site: SiteText, page_count: int, min_pages: int
) -> tuple[list[TemplateGroup], list[int]]:
    """Templates (seed cluster, pages) by covering, and the pages no template covers."""
    remaining = set(range(page_count))
    groups: list[TemplateGroup] = []
    reference = None
    while len(remaining) >= min_pages and len(groups) < MAX_TEMPLATES:
        stats = score_clusters(records, labels, site, remaining)
        eligible = [
            s for s in stats.values()
            if len(s.pages) >= min_pages and s.score > 0 and records[s.pages[min(s.pages)][0]].steps[-1].tag not in HEADINGS
        ]
        if not eligible:
            break
        seed = max(eligible, key=lambda s: (s.score, s.chars))
        per_page = seed.score / len(seed.pages)
        if reference is None:
            reference = per_page
        elif per_page < MIN_SEED_SCORE_SHARE * reference:
            break
        pages = _pages_with_body(seed)
        groups.append(TemplateGroup(seed.label, pages, stats))
        remaining -= set(pages)
    return groups, sorted(remaining)


def _pages_with_body(seed: ClusterStats) -> list[int]:
    """The pages where the seed cluster carries an article body (see :data:`MIN_PAGE_SCORE_SHARE`)."""
    # The median of the pages where it scores at all (a seed scores somewhere: group_templates takes only
    # clusters that do): where the seed's style also sets a boilerplate line (a copyright notice, scoring 0)
    # on most pages, the median of all would be 0 and admit every page.
    scores = seed.page_scores
    median = float(np.median([score for score in scores.values() if score > 0]))
    return sorted(p for p in seed.pages if scores.get(p, 0.0) > 0 and scores[p] >= MIN_PAGE_SCORE_SHARE * median)


def page_presence(index: PathIndex, path_pages: Sequence[set[int]], selector_key: str) -> set[int]:
    """Pages on which a single-compound selector selects at least one block."""
    pages: set[int] = set()
    for number in index.single(selector_key):
        pages |= path_pages[number]
    return pages


def choose_match(
    index: PathIndex,
    path_pages: Sequence[set[int]],
    own_pages: set[int],
    other_pages: set[int],
    region_paths: Sequence[tuple[Step, ...]],
    fallback: str,
) -> tuple[list[str], int]:
    """Match selectors for a template and how many foreign pages they still match.

    Candidates are the named steps of the template's article regions (the container and its ancestors);
    the best is present on all own pages and on the fewest foreign ones, then the simplest."""
    options: dict[str, tuple[int, int, float]] = {}
    for region in region_paths:
        for depth, step in enumerate(region):
            if depth == 0:
                continue
            for key, cost in step_selectors(step):
                if key in options:
                    continue
                present = page_presence(index, path_pages, key)
                if own_pages <= present:
                    # Deeper (closer to the article) is more specific: a small bonus.
                    options[key] = (len(present & other_pages), -depth, cost)
    if not options:
        return [fallback], len(_fallback_presence(index, path_pages, fallback, other_pages) & other_pages)
    best = min(options, key=lambda k: (options[k], len(k)))
    return [best], options[best][0]


def _fallback_presence(
    index: PathIndex, path_pages: Sequence[set[int]], selector: str, other_pages: set[int]
) -> set[int]:
    """Pages where a fallback match (the template's first include) is present: a single compound or a
    tag chain is looked up; anything else is assumed present everywhere, so the template is tried last."""
    if " " not in selector:
        return page_presence(index, path_pages, selector)
    tags = tuple(part for part in selector.split(" ") if part != ">")
    if selector == " > ".join(tags) and all(tag.isalnum() for tag in tags):
        pages: set[int] = set()
        for number in index.chain(tags):
            pages |= path_pages[number]
        return pages
    return set(other_pages)
