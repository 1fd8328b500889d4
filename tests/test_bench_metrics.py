"""The shingle metric the benchmark reports, against values computed by hand and against the Scrapinghub
article-extraction-benchmark's own way of counting (string shingles in dicts)."""
from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from sitewise.metrics import shingle_counts, shingle_prf


def test_extra_word_costs_one_shingle():
    # prediction: (The cat sat on) (cat sat on the) (sat on the mat) (on the mat today); truth: the first three
    assert shingle_counts("The cat sat on the mat today", "The cat sat on the mat") == pytest.approx((0.75, 0.25, 0.0))


def test_repeated_shingles_count_as_a_multiset():
    # "a b c d a b c d": 5 shingles, (a b c d) twice; truth "a b c d": 1 shingle → tp 1, fp 4
    assert shingle_counts("a b c d a b c d", "a b c d") == pytest.approx((0.2, 0.8, 0.0))


def test_short_texts_are_one_shingle_and_empty_texts_none():
    assert shingle_counts("Hello, world!", "Hello world") == (1.0, 0.0, 0.0)
    assert shingle_counts("", "") == (0.0, 0.0, 0.0)
    assert shingle_counts("", "one two three four five") == (0.0, 0.0, 1.0)


def test_corpus_means_skip_pages_without_support():
    pages = [(0.75, 0.25, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0)]
    score = shingle_prf(pages)
    assert score.precision == pytest.approx(0.75)  # only page 1 predicted anything
    assert score.recall == pytest.approx(0.5)  # pages 1 and 2 have truth: (1.0 + 0.0) / 2
    assert score.f1 == pytest.approx(2 * 0.75 * 0.5 / 1.25)


def _reference_counts(true: str, pred: str, n: int = 4) -> tuple[float, float, float]:
    """The Scrapinghub benchmark's string_shingle_matching, restated."""

    def shingles(text: str) -> Counter:
        tokens = re.findall(r"\w+", text or "")
        joined = [" ".join(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1))]
        return Counter(s for s in joined if s)

    true_shingles, pred_shingles = shingles(true), shingles(pred)
    tp = fp = fn = 0.0
    for key in set(true_shingles) | set(pred_shingles):
        t, p = true_shingles.get(key, 0), pred_shingles.get(key, 0)
        tp += min(t, p)
        fp += max(0, p - t)
        fn += max(0, t - p)
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def test_matches_the_reference_on_random_texts():
    rng = random.Random(3)
    vocabulary = ["The", "the", "cat", "sat", "on", "mat", "Ünïcode", "x2", "dog", "ran"]
    for _ in range(200):
        truth = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 12)))
        predicted = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 12)))
        assert shingle_counts(predicted, truth) == pytest.approx(_reference_counts(truth, predicted))
