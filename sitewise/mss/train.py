"""Training the supervised scorer: align each page's truth text to its tokens, count features, fit.

Alignment (:func:`label_tokens`): the page's output lines (one per block) are matched against the truth
by word trigrams (shingles): a line is article text when most of its shingles occur in the truth (lines
of one or two words: when their words occur together in the truth). Word tokens of matching lines are
"in"; a tag is "in" when the nearest words on both sides are. Pages whose matched lines cover too little
of the truth are skipped (the truth is not really on the page, or the page did not parse the same way).
"""
from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from .. import metrics
from .extractor import MSS
from .scorers import FEATURES, FeatureCounter, NaiveBayesScorer
from .tokenize import WORD, TokenSequence

log = logging.getLogger(__name__)


#: A line with at least this share of its word shingles in the truth is article text.
MIN_LINE_MATCH = 0.5
#: Shingle length for matching lines to the truth (long enough that common phrases rarely match).
SHINGLE = 3
#: A page is used for training only when its "in" words cover at least this share of the truth words.
MIN_TRUTH_COVERAGE = 0.6
#: ... and when the truth has at least this many words (shorter truths are captions, not articles).
MIN_TRUTH_WORDS = 20


def _shingles(words: list[str], size: int) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def label_tokens(tokens: TokenSequence, truth: str) -> tuple[np.ndarray, float]:
    """(in/out label per token, share of the truth's words covered by "in" words)."""
    truth_words = metrics.words(truth)
    labels = np.zeros(len(tokens), dtype=bool)
    if not truth_words or not len(tokens):
        return labels, 0.0
    truth_shingles = _shingles(truth_words, SHINGLE)
    truth_pairs = _shingles(truth_words, 2)
    truth_vocabulary = set(truth_words)
    word_positions = np.flatnonzero(tokens.kinds == WORD)
    if not word_positions.size:
        return labels, 0.0
    line_of = tokens.lines[word_positions]
    # split the word tokens into runs of one output line
    boundaries = np.flatnonzero(np.diff(line_of)) + 1
    matched_words: Counter = Counter()
    for run in np.split(word_positions, boundaries):
        words = [w for i in run.tolist() for w in metrics.words(tokens.words[i])]
        if not words:
            continue
        if len(words) >= SHINGLE:
            grams = [tuple(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)]
            matched = sum(g in truth_shingles for g in grams) / len(grams) >= MIN_LINE_MATCH
        elif len(words) == 2:
            matched = tuple(words) in truth_pairs
        else:
            matched = words[0] in truth_vocabulary
        if matched:
            labels[run] = True
            matched_words.update(words)
    coverage = sum((matched_words & Counter(truth_words)).values()) / len(truth_words)
    _label_tags_between(tokens, labels, word_positions)
    return labels, coverage


def _label_tags_between(tokens: TokenSequence, labels: np.ndarray, word_positions: np.ndarray) -> None:
    """A tag token is "in" when the nearest word before it and the nearest word after it are both in."""
    tag_positions = np.flatnonzero(tokens.kinds != WORD)
    if not tag_positions.size:
        return
    word_in = labels[word_positions]
    after = np.searchsorted(word_positions, tag_positions)  # index of the next word
    has_before, has_after = after > 0, after < word_positions.size
    before_in = np.zeros(tag_positions.size, dtype=bool)
    after_in = np.zeros(tag_positions.size, dtype=bool)
    before_in[has_before] = word_in[after[has_before] - 1]
    after_in[has_after] = word_in[after[has_after]]
    labels[tag_positions] = before_in & after_in


@dataclass
class TrainingReport:
    """What a training run used and skipped."""

    pages: int = 0
    used: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    calibration_pages: int = 0

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def as_dict(self) -> dict:
        return {"pages": self.pages, "used": self.used, "skipped": dict(self.skipped),
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                "calibration_pages": self.calibration_pages}


#: Every n-th usable page is held out to fit the feature weights (on pages the tables did not count).
CALIBRATION_EVERY = 4
#: Score bias added to P(in) − 0.5, favouring longer extractions (the paper added 0.14 for CleanEval).
#: Tuned on pages no benchmark scores as test: mean F1 of CleanEval's dev pages and the last 100 dragnet
#: training pages is flat from 0.12 to 0.16 (docs/bench-mss.md); higher trades news precision for
#: recall on pages whose content is broken up by markup.
DEFAULT_BIAS = 0.14
#: Weight of the hand-set line scorer added to the model's score: the model learns the layouts of its
#: training sites; the line scorer's prose/boilerplate judgement carries to any site. On held-out pages
#: (the last 265 of dragnet's official train, model trained on the first 700; CleanEval dev) 0.25 left
#: dragnet flat (0.935 → 0.934) and raised CleanEval dev from 0.856 to 0.891; 1.0 cost dragnet 0.013.
DEFAULT_LINE_WEIGHT = 0.25


def train(
    pairs: Iterable[tuple[str | bytes, str]],
    pipeline: MSS | None = None,
    features: Sequence[str] = FEATURES,
    bias: float = DEFAULT_BIAS,
    line_weight: float = DEFAULT_LINE_WEIGHT,
    calibrate: bool = True,
) -> tuple[NaiveBayesScorer, TrainingReport]:
    """A Naive Bayes scorer trained on (html, article text) pairs.

    Each pair is tokenized exactly as extraction will (same clean-up), labelled by aligning the text to
    the tokens, and counted. With ``calibrate``, every :data:`CALIBRATION_EVERY`-th page is first held
    out to fit the feature weights, then counted too.
    """
    pipeline = pipeline or MSS()
    counter = FeatureCounter(features)
    held_out: list[tuple[TokenSequence, np.ndarray]] = []
    report = TrainingReport()
    for html, truth in pairs:
        report.pages += 1
        if len(metrics.words(truth)) < MIN_TRUTH_WORDS:
            report.skip("truth too short")
            continue
        tokens = pipeline.tokens(html)
        labels, coverage = label_tokens(tokens, truth)
        if coverage < MIN_TRUTH_COVERAGE:
            report.skip("truth not found in page")
            continue
        report.used += 1
        if calibrate and report.used % CALIBRATION_EVERY == 0:
            held_out.append((tokens, labels))
        else:
            counter.add(tokens, labels)
    if report.used == 0:
        raise ValueError(f"no usable training pages among {report.pages} ({report.skipped})")
    weights = None
    if calibrate and held_out and counter.pages:
        partial = NaiveBayesScorer(features).fit_counts(counter)
        contributions = np.concatenate([partial.contributions(tokens) for tokens, _ in held_out])
        labels = np.concatenate([labels for _, labels in held_out])
        partial.calibrate(contributions, labels)
        weights = (partial.feature_weights_, partial.intercept_)
        report.calibration_pages = len(held_out)
    for tokens, labels in held_out:
        counter.add(tokens, labels)
    scorer = NaiveBayesScorer(features, bias=bias, line_weight=line_weight).fit_counts(counter)
    if weights is not None:
        # the weights were fitted with tables from 3/4 of the pages; the intercept moves with the prior
        scorer.feature_weights_ = weights[0]
        scorer.intercept_ = weights[1] + scorer.prior_ - partial.prior_
    report.tokens_out, report.tokens_in = counter.totals
    log.info("MSS training: %s", report.as_dict())
    return scorer, report
