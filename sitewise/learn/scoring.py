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

Term counts are kept as sparse matrices (blocks × terms, pages × terms), so that scoring every cluster
on every page is a few matrix products, not a loop over terms.
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Sequence, TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

from ..page import Page
from ..text import terms
from .features import BlockRecord

_DIGITS = re.compile(r"\d+")
_PAGE, _CHARS, _NAMED = operator.attrgetter("page"), operator.attrgetter("chars"), operator.attrgetter("named")
_LINK_CHARS = operator.attrgetter("block.link_chars")
_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)

#: A cluster whose text sits in elements named like comments, share bars, ads or navigation keeps only
#: 1 − this of its body score (a hint, not a verdict: names can mislead, e.g. ``has-comments`` on <body>).
NAMED_PENALTY = 0.8
#: Relevance floor: a cluster with no term in common with the titles and descriptions (or a page that
#: has none) still ranks by its amount of unique, unlinked text.
RELEVANCE_FLOOR = 0.05


@functools.lru_cache(maxsize=100_000)
def text_key(text: str) -> str:
    """The form under which two blocks' texts count as "the same" across pages (remembered: a site's
    pages repeat their boilerplate's texts, and learning asks for each block's key more than once)."""
    # str.split() splits at the same (Unicode) whitespace as \s+ and drops the ends, in a third less time.
    return " ".join(_DIGITS.sub("0", text.lower()).split())


@functools.lru_cache(maxsize=100_000)
def _term_counts(text: str, lang: str | None) -> tuple[tuple[str, int], ...]:
    # Boilerplate text recurs on every page: its terms are computed once.
    return tuple(Counter(terms(text, lang)).items())


@dataclass
class SiteText:
    """Term statistics of a site's pages and of each block on them."""

    pages: int
    vocabulary: dict[str, int]
    idf: np.ndarray  # per term
    block_terms: "sparse.csr_matrix"  # blocks × terms, counts
    query_terms: "sparse.csr_matrix"  # pages × terms, counts of titles + descriptions
    repeat: np.ndarray  # per block
    entropy: np.ndarray  # per block
    words: np.ndarray  # per block

    def weight(self, term: str) -> float:
        index = self.vocabulary.get(term)
        return float(self.idf[index]) if index is not None else math.log(self.pages + 1)

    def bag(self, record_number: int) -> Counter:
        """The term counts of one block."""
        # The row's stored entries, in their order (what ``getrow`` copies, at a fraction of its cost).
        start, end = self.block_terms.indptr[record_number : record_number + 2].tolist()
        names = self._names()
        columns, counts = self.block_terms.indices[start:end].tolist(), self.block_terms.data[start:end].tolist()
        return Counter({names[i]: int(c) for i, c in zip(columns, counts)})

    @functools.cached_property
    def _names_list(self) -> list[str]:
        names = [""] * len(self.vocabulary)
        for term, index in self.vocabulary.items():
            names[index] = term
        return names

    def _names(self) -> list[str]:
        return self._names_list


def analyse_text(pages: Sequence[Page], records: Sequence[BlockRecord]) -> SiteText:
    """Term statistics for the records (blocks) of the pages."""
    from scipy import sparse

    count = len(pages)
    # Boilerplate recurs on every page: each distinct text (in its page's language) is analysed once,
    # and the blocks' rows are the rows of their texts. (Whole-list operations: this sees every block.)
    page_of = np.fromiter(map(_PAGE, records), dtype=int, count=len(records))
    langs = [page.lang for page in pages]
    one_language = len(set(langs)) == 1
    keys: list = [r.block.text for r in records] if one_language else [(r.block.text, langs[r.page]) for r in records]
    distinct = list(dict.fromkeys(keys))
    text_of = np.fromiter(map(dict(zip(distinct, range(len(distinct)))).__getitem__, keys), dtype=np.int64, count=len(keys))
    texts = [(text, langs[0]) for text in distinct] if one_language else distinct
    counted = [_term_counts(text, lang) for text, lang in texts]
    pairs = list(itertools.chain.from_iterable(counted))  # (term, count) of every distinct text
    term_list = list(map(_FIRST, pairs))
    vocabulary = dict(zip(dict.fromkeys(term_list), itertools.count()))
    rows = np.repeat(np.arange(len(texts)), np.fromiter(map(len, counted), dtype=np.int64, count=len(counted)))
    columns = np.fromiter(map(vocabulary.__getitem__, term_list), dtype=np.int64, count=len(term_list))
    values = np.fromiter(map(_SECOND, pairs), dtype=float, count=len(pairs))
    query_rows, query_columns, query_values = [], [], []
    for number, page in enumerate(pages):
        for term, tf in _term_counts(" ".join(page.titles + page.descriptions), page.lang):
            query_rows.append(number)
            query_columns.append(vocabulary.setdefault(term, len(vocabulary)))
            query_values.append(tf)
    size = len(vocabulary)
    text_terms = sparse.csr_matrix((values, (rows, columns)), shape=(len(texts), size), dtype=float)
    block_terms = text_terms[text_of]
    query_terms = sparse.csr_matrix((query_values, (query_rows, query_columns)), shape=(count, size), dtype=float)

    by_page = sparse.csr_matrix((np.ones(len(records)), (page_of, np.arange(len(records)))), shape=(count, len(records)))
    term_pages = (by_page @ block_terms).tocsc()  # pages × terms
    document_frequency = np.diff(term_pages.indptr)
    idf = np.log((count + 1) / np.maximum(document_frequency, 1))
    entropy_of_term = _term_entropy(term_pages, count)
    block_totals = np.asarray(block_terms.sum(axis=1)).ravel()
    entropy = np.where(block_totals > 0, (block_terms @ entropy_of_term) / np.maximum(block_totals, 1), 1.0)

    key_numbers: dict[str, int] = {}
    key_of = np.asarray([key_numbers.setdefault(text_key(text), len(key_numbers)) for text, _ in texts], dtype=np.int64)[text_of]
    key_pages = np.unique(key_of * count + page_of)  # distinct (text key, page) pairs
    pages_with_key = np.bincount(key_pages // count, minlength=len(key_numbers))
    repeat = (pages_with_key[key_of] - 1) / (count - 1) if count > 1 else np.zeros(len(records))
    words = np.asarray([len(text.split()) for text, _ in texts], dtype=float)[text_of]
    return SiteText(count, vocabulary, idf, block_terms, query_terms, repeat, entropy, words)


def _term_entropy(term_pages: "sparse.csc_matrix", pages: int) -> np.ndarray:
    """Each term's entropy over the pages, log base N (0 for N < 2)."""
    if pages < 2:
        return np.zeros(term_pages.shape[1])
    data = term_pages.data
    totals = np.asarray(term_pages.sum(axis=0)).ravel()
    column_of = np.repeat(np.arange(term_pages.shape[1]), np.diff(term_pages.indptr))
    share = data / totals[column_of]
    contributions = -share * np.log(share) / math.log(pages)
    return np.bincount(column_of, weights=contributions, minlength=term_pages.shape[1])


def similarity(bag: Counter, query: Counter, site: SiteText) -> float:
    """tf-idf cosine of two bags of terms."""
    dot = sum(tf * query[t] * site.weight(t) ** 2 for t, tf in bag.items() if t in query)
    norm_a = math.sqrt(sum((tf * site.weight(t)) ** 2 for t, tf in bag.items()))
    norm_b = math.sqrt(sum((tf * site.weight(t)) ** 2 for t, tf in query.items()))
    return dot / (norm_a * norm_b) if norm_a and norm_b else 0.0


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
    page_scores: dict[int, float] = field(default_factory=dict)  # the score's share from each page


def score_clusters(
    records: Sequence[BlockRecord], labels: Sequence[int], site: SiteText, page_subset: set[int] | None = None
) -> dict[int, ClusterStats]:
    """Statistics and the body score of every cluster, on all pages or on ``page_subset``.

    body score = Σ over pages of (relevance floor + cosine to the page's titles and descriptions)
    × (1 − link density) × (1 − entropy / 2) × (1 − 0.8 × share named like comments, ads, …)
    × √(own words): article bodies are long, unlinked, unique to their page, on topic, not in an
    element called "comments", and present on most pages. (√ rather than ln: a headline
    is as on-topic as it gets, and must not outweigh a body of fifty times its words.)

    A block's *own* text is its text × (1 − repeat): a block found on every other page adds no words, and
    the link density, entropy and naming are the means over the own text. So boilerplate that shares the
    article's style (a comment form's labels, a copyright line set like the paragraphs) no longer drags
    the article's cluster down with it: on dragnet's johndcook.com, learnt from 4 pages, the comment form
    in the paragraphs' cluster (a quarter of its text) made a block quote the article (test F1 0.30 →
    0.88), and a cluster of boilerplate alone still scores 0.
    """
    from scipy import sparse

    # Per-record values as whole arrays (attribute getters mapped in C): this sees every block.
    all_pages = np.fromiter(map(_PAGE, records), dtype=int, count=len(records))
    if page_subset is None:
        index = np.arange(len(records))
    else:
        index = np.flatnonzero(np.isin(all_pages, np.fromiter(page_subset, dtype=int, count=len(page_subset))))
    numbers = index.tolist()
    if not numbers:
        return {}
    label_of = np.asarray(labels)[index].astype(int)
    page_of = all_pages[index]
    pairs, row_of = np.unique(np.stack([label_of, page_of], axis=1), axis=0, return_inverse=True)
    row_of = row_of.ravel()
    rows = len(pairs)
    chosen = [records[n] for n in numbers] if page_subset is not None else records
    chars = np.fromiter(map(_CHARS, chosen), dtype=float, count=len(numbers))
    links = np.minimum(np.fromiter(map(_LINK_CHARS, chosen), dtype=float, count=len(numbers)), chars)

    def per_row(values: np.ndarray) -> np.ndarray:
        return np.bincount(row_of, weights=values, minlength=rows)

    row_chars = np.maximum(per_row(chars), 1.0)
    repeat = site.repeat[index]
    row_repeat = per_row(repeat * chars) / row_chars
    own_chars = chars * (1 - repeat)
    row_own_chars = np.maximum(per_row(own_chars), 1.0)
    row_links = per_row(links * (1 - repeat)) / row_own_chars
    row_entropy = per_row(site.entropy[index] * own_chars) / row_own_chars
    row_words = per_row(site.words[index] * (1 - repeat))
    named = np.fromiter(map(_NAMED, chosen), dtype=float, count=len(numbers))
    row_named = per_row(named * own_chars) / row_own_chars

    gather = sparse.csr_matrix((np.ones(len(numbers)), (row_of, np.arange(len(numbers)))), shape=(rows, len(numbers)))
    weighted = (gather @ site.block_terms[index]).multiply(site.idf).tocsr()
    query = site.query_terms.multiply(site.idf).tocsr()
    query_norm = np.sqrt(np.asarray(query.multiply(query).sum(axis=1)).ravel())
    row_norm = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    dots = np.asarray(weighted.multiply(query[pairs[:, 1]]).sum(axis=1)).ravel()
    denominator = row_norm * query_norm[pairs[:, 1]]
    cosine = np.divide(dots, denominator, out=np.zeros(rows), where=denominator > 0)
    row_score = (
        (RELEVANCE_FLOOR + cosine) * (1 - row_links) * (1 - row_entropy / 2)
        * (1 - NAMED_PENALTY * row_named) * np.sqrt(row_words)
    )

    members: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for n, label, page in zip(numbers, label_of.tolist(), page_of.tolist()):
        members[label][page].append(n)
    cluster_of_row = pairs[:, 0]
    size = int(cluster_of_row.max()) + 1

    def per_cluster(values: np.ndarray) -> np.ndarray:
        return np.bincount(cluster_of_row, weights=values, minlength=size)

    cluster_chars = per_cluster(row_chars)
    cluster_links = per_cluster(row_links * row_chars)
    cluster_repeat = per_cluster(row_repeat * row_chars)
    cluster_entropy = per_cluster(row_entropy * row_chars)
    cluster_cosine = per_cluster(cosine) / np.maximum(np.bincount(cluster_of_row, minlength=size), 1)
    cluster_score = per_cluster(row_score)
    stats = {}
    page_scores: dict[int, dict[int, float]] = defaultdict(dict)
    for (label, page), value in zip(pairs.tolist(), row_score.tolist()):
        page_scores[label][page] = value
    for label, pages in members.items():
        total = float(cluster_chars[label])
        stats[label] = ClusterStats(
            label=label,
            pages={p: list(ns) for p, ns in pages.items()},
            chars=int(total),
            link_density=float(cluster_links[label] / total),
            repeat=float(cluster_repeat[label] / total),
            entropy=float(cluster_entropy[label] / total),
            relevance=float(cluster_cosine[label]),
            score=float(cluster_score[label]),
            page_scores=page_scores[label],
        )
    return stats
