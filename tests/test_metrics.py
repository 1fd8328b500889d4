import unicodedata

import pytest

from sitewise.metrics import Score, shingle_counts, shingle_prf, word_prf, words


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


def test_a_set_whose_every_truth_and_answer_is_empty_scores_1_in_shingles_too():
    # each page is right (word_prf scores it 1); no page has a shingle to average, which the benchmark
    # leaves undefined: such a set is perfect, as its pages are
    assert word_prf("", "").f1 == 1.0
    assert shingle_prf([shingle_counts("", ""), shingle_counts("…", " ")]) == Score(1.0, 1.0, 1.0)
    assert shingle_prf([]) == Score(0.0, 0.0, 0.0)
    # an answer where the truth is empty still costs precision, and no answer at all scores 0
    assert shingle_prf([shingle_counts("", ""), shingle_counts("junk", "")]).f1 == 0.0
    assert shingle_prf([shingle_counts("", "the truth")]).f1 == 0.0


#: Texts an extraction may have to match code point for code point: decomposed accents, a soft hyphen, a
#: zero-width space, a no-break space, a curly apostrophe, a ligature, full-width letters, scripts without
#: spaces, Devanagari vowel signs, fewer words than a shingle, punctuation alone, nothing.
AWKWARD_TRUTHS = [
    unicodedata.normalize("NFD", "Crème brûlée au café, déjà vu"), "extra\u00adordinary news today", "foo\u200bbar baz",
    "one\u00a0two three four", "don’t stop", "ﬁne ﬂowers", "ＡＢＣ １２３", "我们今天去北京。天气很好。",
    "ภาษาไทยไม่มีการเว้นวรรค", "हिन्दी भाषा", "two words", "— … ·", "",
]


@pytest.mark.parametrize("truth", AWKWARD_TRUTHS)
def test_an_answer_equal_to_its_truth_scores_1_in_both_metrics(truth):
    assert word_prf(truth, truth) == Score(1.0, 1.0, 1.0)
    assert shingle_prf([shingle_counts(truth, truth)]) == Score(1.0, 1.0, 1.0)


def test_tokens_are_the_benchmarks_unnormalised_w_runs():
    # WCXB's and Scrapinghub's evaluate.py: re's \w+ (WCXB lower-cases first), nothing normalised, so
    # scores stay comparable with their published figures: a run of a script without spaces is one token
    # (sitewise.text.words makes each character one), Devanagari splits at its vowel signs, a decomposed
    # accent or a soft hyphen splits a word, and a ligature or a full-width letter is another word
    assert words("我们今天去北京。天气很好。") == ["我们今天去北京", "天气很好"]
    assert words("हिन्दी") == ["ह", "न", "द"]
    assert words(unicodedata.normalize("NFD", "café")) == ["cafe"]
    assert words("extra\u00adordinary") == ["extra", "ordinary"]
    assert words("Don’t ﬁne ＡＢＣ") == ["don", "t", "ﬁne", "ａｂｃ"]
    assert word_prf(unicodedata.normalize("NFD", "café au lait"), "café au lait").f1 == pytest.approx(2 / 3)
