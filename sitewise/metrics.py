"""Scores of extracted text against truth text.

Two metrics, both as used by ``../shared/data`` and computed as the benchmarks whose published figures we
compare with compute them: bag-of-words precision/recall/F1 over lower-cased ``\\w+`` tokens (multiset
overlap, per page, then averaged over pages: WCXB's ``evaluate.py`` ``word_f1``), and the Scrapinghub
article-extraction-benchmark shingle metric (its ``evaluate.py``). Tokens are theirs too, Python's ``\\w+``
with nothing normalised: a decomposed accent, a soft hyphen or a zero-width space splits a word, a ligature
or a full-width letter makes another word, a run of Chinese, Japanese or Thai between punctuation is one
token (:func:`sitewise.text.words` makes each character one) and Devanagari splits at its vowel signs.
"""
from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

_WORD = re.compile(r"\w+")

#: Shingle length of the Scrapinghub benchmark.
SHINGLE_SIZE = 4


def words(text: str, lower: bool = True) -> list[str]:
    """The ``\\w+`` tokens of a text (lower-cased unless told otherwise)."""
    return _WORD.findall(text.lower() if lower else text)


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    f1: float


_SAME = Score(1.0, 1.0, 1.0)


def word_prf(predicted: str, truth: str) -> Score:
    """Bag-of-words P/R/F1 of one page. Empty truth scores 1 only for an empty prediction."""
    if predicted == truth:  # a learn's checks compare rule sets that mostly read a page alike: no words to count
        return _SAME
    pred, gold = Counter(words(predicted)), Counter(words(truth))
    return overlap_prf(sum((pred & gold).values()), sum(pred.values()), sum(gold.values()))


def overlap_prf(overlap: int, predicted: int, truth: int) -> Score:
    """:func:`word_prf` from its counts: the words both texts hold (as multisets), and each text's words."""
    if not truth:
        return Score(1.0, 1.0, 1.0) if not predicted else Score(0.0, 0.0, 0.0)
    if not predicted:
        return Score(0.0, 0.0, 0.0)
    precision = overlap / predicted
    recall = overlap / truth
    f1 = 2 * precision * recall / (precision + recall) if overlap else 0.0
    return Score(precision, recall, f1)


def shingle_counts(predicted: str, truth: str) -> tuple[float, float, float]:
    """Normalised (tp, fp, fn) of one page over case-kept 4-token shingles (they sum to 1, or all 0)."""
    pred, gold = _shingles(predicted), _shingles(truth)
    tp = sum((pred & gold).values())
    fp = sum((pred - gold).values())
    fn = sum((gold - pred).values())
    total = tp + fp + fn
    if not total:
        return 0.0, 0.0, 0.0
    return tp / total, fp / total, fn / total


def shingle_prf(pages: Iterable[tuple[float, float, float]]) -> Score:
    """Corpus-level shingle P/R/F1 from per-page normalised counts (the benchmark's averaging). Pages where
    neither truth nor answer has a word are in neither mean; a set of only such pages, which the benchmark
    leaves undefined, scores 1, as :func:`word_prf` scores each of them."""
    pages = list(pages)
    if pages and not any(any(page) for page in pages):
        return Score(1.0, 1.0, 1.0)
    precisions, recalls = [], []
    for tp, fp, fn in pages:
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
    p = statistics.fmean(precisions) if precisions else 0.0
    r = statistics.fmean(recalls) if recalls else 0.0
    return Score(p, r, 2 * p * r / (p + r) if p + r else 0.0)


def _shingles(text: str) -> Counter:
    tokens = words(text, lower=False)
    if 0 < len(tokens) < SHINGLE_SIZE:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + SHINGLE_SIZE]) for i in range(len(tokens) - SHINGLE_SIZE + 1))


@dataclass(frozen=True)
class Summary:
    """Mean and median of per-page scores."""

    pages: int
    precision: float
    recall: float
    f1: float
    median_f1: float
    empty: int

    @classmethod
    def of(cls, scores: Sequence[Score], empty: int = 0) -> "Summary":
        if not scores:
            return cls(0, 0.0, 0.0, 0.0, 0.0, empty)
        return cls(
            pages=len(scores),
            precision=statistics.fmean(s.precision for s in scores),
            recall=statistics.fmean(s.recall for s in scores),
            f1=statistics.fmean(s.f1 for s in scores),
            median_f1=statistics.median(s.f1 for s in scores),
            empty=empty,
        )
