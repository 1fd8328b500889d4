import pytest

from sitewise.metrics import shingle_counts, shingle_prf, word_prf


def test_word_prf_counts_multisets():
    score = word_prf("the cat the dog", "The cat sat")
    assert score.precision == pytest.approx(2 / 4)
    assert score.recall == pytest.approx(2 / 3)
    assert score.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))


def test_empty_truth_rewards_only_empty_output():
    assert word_prf("", "").f1 == 1.0
    assert word_prf("something", "").f1 == 0.0
    assert word_prf("", "truth here").f1 == 0.0


def test_shingles_keep_case_and_normalise():
    tp, fp, fn = shingle_counts("a b c d e", "a b c d x")
    # prediction shingles: (a b c d), (b c d e); truth: (a b c d), (b c d x)
    assert (tp, fp, fn) == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert shingle_counts("A b c d", "a b c d") == (0.0, 0.5, 0.5)


def test_shingle_prf_averages_over_pages_with_support():
    score = shingle_prf([(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)])
    # precision: only page 1 has tp+fp > 0 → 1.0; recall: both pages → (1 + 0) / 2
    assert score.precision == 1.0 and score.recall == 0.5
    assert score.f1 == pytest.approx(2 / 3)
