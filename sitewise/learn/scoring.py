"""Scoring blocks and clusters: tf-idf similarity to each page's titles and descriptions, and cross-page
redundancy (text that recurs on many of a site's pages is boilerplate).

* **tf-idf** as the spider project had it — pages are the documents, terms are stemmed words without stop
  words (:func:`sitewise.text.terms`, language from the page) — with a smoothed idf, ln((N + 1) / df),
  so a term on every page weighs almost nothing (1/N) yet one page alone still has usable weights.
* **repeat**: the share of the *other* pages that carry the same text (digits ignored, so "Posted 2 hours
  ago" and "Posted 5 hours ago" are the same text). Navigation, share bars and footers score near 1.
* **entropy** (InfoDiscoverer, Lin & Ho 2002): each term's entropy of its distribution over the pages,
  normalised to 0..1 (log base N); a block's entropy is the mean over its terms. Terms spread evenly over
  all pages (boilerplate) score 1, terms of one page 0. It needs no meta description at all.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from ..page import Page
from ..text import terms
from .features import BlockRecord

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")

#: Relevance floor: a cluster with no term in common with the titles and descriptions (or a page that
#: has none) still ranks by its amount of unique, unlinked text.
RELEVANCE_FLOOR = 0.05


def text_key(text: str) -> str:
    """The form under which two blocks' texts count as "the same" across pages."""
    return _SPACES.sub(" ", _DIGITS.sub("0", text.lower())).strip()


@dataclass
class SiteText:
    """Term statistics of a site's pages and of each block on them."""

    pages: int
    idf: dict[str, float]
    block_terms: list[Counter]
    repeat: list[float]
    entropy: list[float]
    queries: list[Counter]
    #: The query vectors' norms (tf-idf), per page.
    query_norms: list[float] = field(default_factory=list)

    def weight(self, term: str) -> float:
        return self.idf.get(term, math.log(self.pages + 1))


def analyse_text(pages: Sequence[Page], records: Sequence[BlockRecord]) -> SiteText:
    """Term statistics for the records (blocks) of the pages."""
    count = len(pages)
    block_terms = [Counter(terms(r.text, pages[r.page].lang)) for r in records]
    document_frequency: Counter = Counter()
    term_page_counts: dict[str, Counter] = defaultdict(Counter)
    page_texts: dict[str, set[int]] = defaultdict(set)
    for record, bag in zip(records, block_terms):
        page_texts[text_key(record.text)].add(record.page)
        for term, tf in bag.items():
            term_page_counts[term][record.page] += tf
    for term, per_page in term_page_counts.items():
        document_frequency[term] = len(per_page)
    idf = {t: math.log((count + 1) / df) for t, df in document_frequency.items()}
    term_entropy = {t: _entropy(per_page.values(), count) for t, per_page in term_page_counts.items()}
    repeat = [
        (len(page_texts[text_key(r.text)]) - 1) / (count - 1) if count > 1 else 0.0 for r in records
    ]
    entropy = [
        sum(term_entropy[t] * tf for t, tf in bag.items()) / sum(bag.values()) if bag else 1.0
        for bag in block_terms
    ]
    queries = [Counter(terms(" ".join(p.titles + p.descriptions), p.lang)) for p in pages]
    site = SiteText(count, idf, block_terms, repeat, entropy, queries)
    site.query_norms = [_norm(q, site) for q in queries]
    return site


def _entropy(counts: Sequence[int] | object, pages: int) -> float:
    values = list(counts)  # type: ignore[arg-type]
    if pages < 2:
        return 0.0
    total = float(sum(values))
    return -sum((v / total) * math.log(v / total, pages) for v in values if v)


def _norm(bag: Counter, site: SiteText) -> float:
    return math.sqrt(sum((tf * site.weight(t)) ** 2 for t, tf in bag.items()))


def cosine(bag: Counter, page: int, site: SiteText) -> float:
    """tf-idf cosine similarity of a bag of terms to a page's titles and descriptions."""
    query, query_norm = site.queries[page], site.query_norms[page]
    if not bag or not query_norm:
        return 0.0
    dot = sum(tf * site.weight(t) * query[t] * site.weight(t) for t, tf in bag.items() if t in query)
    norm = _norm(bag, site)
    return dot / (norm * query_norm) if norm else 0.0


@dataclass
class ClusterStats:
    """What a cluster holds over the pages it appears on."""

    label: int
    pages: dict[int, list[int]]  # page → indices of its records (in ``records``)
    chars: int
    link_density: float
    repeat: float
    entropy: float
    relevance: float  # mean tf-idf cosine to the pages' titles and descriptions
    score: float  # how much it looks like the article body (see :func:`score_clusters`)


def score_clusters(
    records: Sequence[BlockRecord], labels: Sequence[int], site: SiteText, page_subset: set[int] | None = None
) -> dict[int, ClusterStats]:
    """Statistics and the body score of every cluster, on all pages or on ``page_subset``.

    body score = Σ over pages of (relevance floor + cosine to the page's titles and descriptions)
    × (1 − link density) × (1 − repeat) × (1 − entropy / 2) × √words: article bodies are long,
    unlinked, unique to their page, on topic, and present on most pages. (√ rather than ln: a headline
    is as on-topic as it gets, and must not outweigh a body of fifty times its words.)
    """
    members: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for number, (record, label) in enumerate(zip(records, labels)):
        if page_subset is None or record.page in page_subset:
            members[int(label)][record.page].append(number)
    stats = {}
    for label, pages in members.items():
        total_chars = link_chars = 0
        repeat_mass = entropy_mass = relevance_sum = score = 0.0
        for page, numbers in pages.items():
            bag: Counter = Counter()
            chars = links = 0
            page_repeat = page_entropy = 0.0
            for n in numbers:
                bag.update(site.block_terms[n])
                chars += records[n].chars
                links += min(records[n].block.link_chars, records[n].chars)
                page_repeat += site.repeat[n] * records[n].chars
                page_entropy += site.entropy[n] * records[n].chars
            chars = max(chars, 1)
            similarity = cosine(bag, page, site)
            words = sum(len(records[n].text.split()) for n in numbers)
            page_links, page_repeat, page_entropy = links / chars, page_repeat / chars, page_entropy / chars
            score += (
                (RELEVANCE_FLOOR + similarity) * (1 - page_links) * (1 - page_repeat) * (1 - page_entropy / 2)
                * math.sqrt(words)
            )
            total_chars += chars
            link_chars += links
            repeat_mass += page_repeat * chars
            entropy_mass += page_entropy * chars
            relevance_sum += similarity
        stats[label] = ClusterStats(
            label=label,
            pages={p: list(ns) for p, ns in pages.items()},
            chars=total_chars,
            link_density=link_chars / max(total_chars, 1),
            repeat=repeat_mass / max(total_chars, 1),
            entropy=entropy_mass / max(total_chars, 1),
            relevance=relevance_sum / len(pages),
            score=score,
        )
    return stats
