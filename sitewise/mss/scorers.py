"""Local token scorers: a score per token, positive for "looks like article text".

:class:`BaselineScorer` is the paper's untrained rule (every tag −3.25, every word or symbol +1).
:class:`NaiveBayesScorer` is its supervised scorer: Naive Bayes over per-token features; a feature value
never seen in training is equally likely in and out (it adds nothing to the log-odds), and the score is
``P(in) − 0.5`` (plus an optional bias). The paper's two features are the token's trigram (it and the
next two tokens) and its most-recent-unclosed tag; sitewise adds three that carry across sites (see
:data:`FEATURES`): how long the token's line is, how much of that line is link text, and what the
nearest id/class name says the region is.

Every feature is an int64 code per token, computed with numpy; a model holds, per feature, a sorted
array of codes and their log-likelihood ratios, so scoring a page is one ``searchsorted`` per feature.
"""
from __future__ import annotations

import math
import zlib
from operator import itemgetter
from dataclasses import dataclass
from typing import Iterable, Protocol, Sequence

import numpy as np

from ..text import stop_words
from .tokenize import WORD, TokenSequence, tag_token

#: The paper's tag score: tuned on its news evaluation set; F1 stayed above 90% from −4.99 to −2.14.
BASELINE_TAG_SCORE = -3.25
BASELINE_WORD_SCORE = 1.0

#: The paper's features.
PAPER_FEATURES = ("trigram", "mrut")
#: All features sitewise knows: the paper's, plus line length, link density and region name.
FEATURES = ("trigram", "mrut", "line_length", "link_density", "context", "line_class")

#: Laplace smoothing of the Naive Bayes counts.
SMOOTHING = 1.0
#: A feature value seen fewer times than this in training is left out of the model (treated as
#: unseen): a trigram seen once says little and makes up most of the table; a tag or class name seen a
#: handful of times on one site would otherwise get an extreme weight on every other site.
MIN_COUNT = {"trigram": 2, "mrut": 50, "line_length": 50, "link_density": 50, "context": 50, "line_class": 50}
#: Vocabulary ids are packed three to an int64 key, so the vocabulary must stay below 2**21.
MAX_VOCABULARY = 2**21 - 2
#: Stands for "past the end of the page" in the last two trigrams.
END_TOKEN = "<END>"
END_ID = 0
#: Line lengths are bucketed by powers of two up to this bucket (2**8 = 256 words and longer).
MAX_LENGTH_BUCKET = 8
#: Link-density buckets: no link text, up to a third, up to two thirds, more, all of it.
LINK_DENSITY_EDGES = (0.01, 0.34, 0.67, 0.99)


class Scorer(Protocol):
    def score(self, tokens: TokenSequence) -> np.ndarray:
        """One float per token."""


@dataclass(frozen=True)
class BaselineScorer:
    """Every tag scores ``tag_score``, every word or symbol ``word_score``."""

    tag_score: float = BASELINE_TAG_SCORE
    word_score: float = BASELINE_WORD_SCORE

    def score(self, tokens: TokenSequence) -> np.ndarray:
        return np.where(tokens.is_tag, self.tag_score, self.word_score).astype(np.float64)


class LineScorer:
    """The default scorer when no model is trained: hand-set scores from what each token's line (block)
    looks like, in the manner of jusText (Pomikálek 2011), plus cheap inline tags.

    A line is *prose* when enough of its words are stop words (function words: sentences have them,
    menus and headline lists do not), *short* when it is too short to judge and has no link (a heading,
    a byline, a date: kept when prose surrounds them), and *boilerplate* otherwise — or whenever most of
    its text is link text or it carries a copyright notice. Words score by their line's class; tags cost
    a little, inline tags (links and emphasis inside a sentence) less than block tags, so a run of
    paragraphs survives the markup between them but a run of boilerplate lines does not.

    Every constant was set on dragnet's official *train* pages and CleanEval's dev pages (mean word F1
    of the whole MSS pipeline; docs/mss.md), never on the pages the benchmarks score.
    """

    #: A word of a prose line: the paper's +1.
    PROSE_WORD = 1.0
    #: A word of a short line without links (heading, byline, date): nearly as good as prose; it is the
    #: neighbouring lines that decide whether it is in.
    SHORT_WORD = 0.75
    #: A word of a boilerplate line: negative, but mild — a lone link-heavy line inside an article
    #: ("Read more: ...") should not split it.
    BOILERPLATE_WORD = -0.5
    #: A block tag (p, div, li, td, ...): the paper's −3.25 broke articles at every paragraph of markup;
    #: line classes now carry the prose/boilerplate distinction, so tags only need to break long runs of
    #: empty structure.
    BLOCK_TAG = -0.7
    #: An inline tag (a, em, span, ...) sits inside a sentence: cheaper than a block tag.
    INLINE_TAG = -0.5
    #: Lines shorter than this (characters, jusText's length_low) are too short to judge by stop words.
    SHORT_LINE_CHARS = 70
    #: A line with at least this share of stop words is prose (jusText's stopwords_low).
    MIN_STOP_WORD_SHARE = 0.30
    #: A line of at least this many characters (jusText's length_high) is prose with fewer stop words:
    #: a long unlinked block is rarely boilerplate (terse, noun-heavy prose; lists of names) ...
    LONG_LINE_CHARS = 200
    #: ... down to this share.
    MIN_STOP_WORD_SHARE_LONG = 0.15
    #: A line with more than this share of its characters in link text is boilerplate (a menu, a list of
    #: related links), whatever its words.
    MAX_LINK_SHARE = 0.5
    #: When the declared language's stop words make up less than this share of the page's words, the list
    #: does not fit the page (wrong or missing ``lang``, a language without a list): lines are then judged
    #: by length and links only.
    MIN_PAGE_STOP_WORD_SHARE = 0.1

    def score(self, tokens: TokenSequence) -> np.ndarray:
        if not len(tokens):
            return np.zeros(0)
        word_scores = np.array([self.BOILERPLATE_WORD, self.SHORT_WORD, self.PROSE_WORD])
        inline = np.fromiter(map(INLINE_TAGS.__contains__, tokens.tags), bool, len(tokens))
        return np.where(tokens.kinds == WORD, word_scores[self.line_classes(tokens)[tokens.lines]],
                        np.where(inline, self.INLINE_TAG, self.BLOCK_TAG))

    def line_classes(self, tokens: TokenSequence) -> np.ndarray:
        """:data:`BOILERPLATE`, :data:`SHORT` or :data:`PROSE` per line (index: line number); computed
        once per token sequence (the supervised scorer asks twice: as a feature and for its score)."""
        key = ("line_classes", self.SHORT_LINE_CHARS, self.MIN_STOP_WORD_SHARE, self.MAX_LINK_SHARE,
               self.MIN_PAGE_STOP_WORD_SHARE, self.LONG_LINE_CHARS, self.MIN_STOP_WORD_SHARE_LONG)
        found = tokens.memo.get(key)
        if found is None:
            found = tokens.memo[key] = self._line_classes(tokens)
        return found

    def _line_classes(self, tokens: TokenSequence) -> np.ndarray:
        lines = tokens.lines
        line_count = int(lines.max()) + 1 if len(tokens) else 1
        facts = word_facts(tokens)
        word_index, stop = facts.index, facts.stop
        word_lines = lines[word_index]
        chars = facts.chars + 1  # with the space after it
        line_chars = np.bincount(word_lines, weights=chars, minlength=line_count)
        in_link = tokens.links[word_index]
        link_share = np.bincount(word_lines[in_link], weights=chars[in_link], minlength=line_count) / np.maximum(line_chars, 1)
        alphabetic = facts.alnum
        line_words = np.bincount(word_lines[alphabetic], minlength=line_count)
        if facts.stop_list and stop.sum() >= self.MIN_PAGE_STOP_WORD_SHARE * max(alphabetic.sum(), 1):
            stop_share = np.bincount(word_lines[stop], minlength=line_count) / np.maximum(line_words, 1)
            prose = (stop_share >= self.MIN_STOP_WORD_SHARE) | (
                (line_chars >= self.LONG_LINE_CHARS) & (stop_share >= self.MIN_STOP_WORD_SHARE_LONG))
        else:  # no list for the language, or not the page's language: judge by length and links
            prose = np.ones(line_count, dtype=bool)
        short = line_chars < self.SHORT_LINE_CHARS
        # a © anywhere, or the word "copyright" in a short line: the page's legal footer
        copyright_lines = (np.bincount(word_lines[facts.copyright_sign], minlength=line_count) > 0) | (
            short & (np.bincount(word_lines[facts.copyright_word], minlength=line_count) > 0))
        classes = np.where(prose, PROSE, BOILERPLATE)
        classes[short] = np.where(link_share[short] > 0, BOILERPLATE, SHORT)
        classes[(link_share > self.MAX_LINK_SHARE) | copyright_lines] = BOILERPLATE
        if tokens.anchor >= 0:
            # the heading that repeats the page title is the story's own, even when it is a link
            classes[lines[tokens.anchor : int(tokens.closes[tokens.anchor]) + 1]] = PROSE
        return classes


@dataclass(frozen=True)
class WordFacts:
    """What the line scorer and the block features both read of a page's word tokens (in document
    order), computed once per token sequence (:func:`word_facts`). The arrays are read-only."""

    #: Token index of each word.
    index: np.ndarray
    words: list[str]
    lowered: list[str]
    #: Characters per word.
    chars: np.ndarray
    #: Whether the word starts with a letter or digit.
    alnum: np.ndarray
    #: The stop words of the page's language (English when it declares none) ...
    stop_list: frozenset[str]
    #: ... and whether each word is one.
    stop: np.ndarray
    #: Whether the word is "©", and whether it is "copyright" (any case): a legal footer's.
    copyright_sign: np.ndarray
    copyright_word: np.ndarray

    def symbols_in(self, members: frozenset[str]) -> np.ndarray:
        """Per word: whether it is one of ``members``, punctuation characters."""
        return _symbols_in(self.words, self.alnum, members)


def word_facts(tokens: TokenSequence) -> WordFacts:
    """The :class:`WordFacts` of ``tokens`` (memoised in ``tokens.memo``)."""
    found = tokens.memo.get("word_facts")
    if found is None:
        index = np.flatnonzero(tokens.kinds == WORD)
        words = list(filter(None, tokens.words))  # tag tokens are the empty ones (a word token never is)
        lowered = list(map(str.lower, words))
        stop_list = stop_words(tokens.lang or None)
        # C-level maps over the words: this runs on every page
        alnum = np.fromiter(map(str.isalnum, map(itemgetter(0), words)), bool, len(words))
        found = WordFacts(
            index=index, words=words, lowered=lowered, chars=np.fromiter(map(len, words), np.float64, len(words)),
            alnum=alnum, stop_list=stop_list, stop=np.fromiter(map(stop_list.__contains__, lowered), bool, len(words)),
            copyright_sign=_symbols_in(words, alnum, _COPYRIGHT_SIGN),
            copyright_word=_where_equal(lowered, "copyright"))
        for array in (found.index, found.chars, found.alnum, found.stop, found.copyright_sign, found.copyright_word):
            array.flags.writeable = False
        tokens.memo["word_facts"] = found
    return found


_COPYRIGHT_SIGN = frozenset({"©"})


def _where_equal(values: list[str], wanted: str) -> np.ndarray:
    """Per value: whether it is ``wanted``, a rare word: found with ``list.index`` (a scan in C) rather
    than compared one by one."""
    flags = np.zeros(len(values), dtype=bool)
    found = -1
    try:
        while True:
            found = values.index(wanted, found + 1)
            flags[found] = True
    except ValueError:  # no more of them
        return flags


def _symbols_in(words: list[str], alnum: np.ndarray, members: frozenset[str]) -> np.ndarray:
    """Per word: whether it is one of ``members``, punctuation characters; only the words that do not
    start with a letter or digit (``~alnum``) are looked at."""
    flags = np.zeros(len(words), dtype=bool)
    index = np.flatnonzero(~alnum)
    flags[index] = np.fromiter(map(members.__contains__, map(words.__getitem__, index.tolist())), bool, index.size)
    return flags


#: Line classes of :meth:`LineScorer.line_classes`.
BOILERPLATE, SHORT, PROSE = 0, 1, 2

#: Tags that sit inside a line of text rather than making one.
INLINE_TAGS = frozenset(
    "a abbr b bdi bdo big cite code del dfn em font i ins kbd label mark q s samp small span strike "
    "strong sub sup time tt u var".split()
)


# -- features ---------------------------------------------------------------------------------------


def mrut_token(parent: str) -> str:
    """The most-recent-unclosed-tag feature value, normalised like tag tokens (``<p>``, ``<UNKNOWN>``)."""
    return tag_token(parent) if parent else "<ROOT>"


def _string_codes(values: Sequence[str]) -> np.ndarray:
    """A stable int64 code per string (CRC-32; the same on every run, unlike ``hash``)."""
    table = {v: zlib.crc32(v.encode("utf-8")) for v in set(values)}
    return np.fromiter((table[v] for v in values), dtype=np.int64, count=len(values))


def token_ids(tokens: TokenSequence, lookup: dict[str, int]) -> np.ndarray:
    """Vocabulary id per token by its surface form (see ``NaiveBayesScorer.lookup_``), -1 if unknown."""
    get = lookup.get
    return np.fromiter((get(f, -1) for f in tokens.surfaces), dtype=np.int64, count=len(tokens))


def feature_codes(tokens: TokenSequence, ids: np.ndarray, features: Sequence[str]) -> dict[str, np.ndarray]:
    """An int64 code per token for each named feature (-1 where the feature cannot be known)."""
    n = len(tokens)
    codes: dict[str, np.ndarray] = {}
    kinds = tokens.kinds.astype(np.int64)
    if "trigram" in features:
        padded = np.concatenate((ids, [END_ID, END_ID]))
        first, second, third = padded[:-2], padded[1:-1], padded[2:]
        known = (first >= 0) & (second >= 0) & (third >= 0)
        codes["trigram"] = np.where(known, pack(first, second, third), -1)
    if "mrut" in features:
        codes["mrut"] = _string_codes([mrut_token(p) for p in tokens.parents]) if n else np.zeros(0, np.int64)
    if "line_length" in features or "link_density" in features:
        is_word = tokens.kinds == WORD
        lines = tokens.lines
        line_count = int(lines.max()) + 1 if n else 1
        words_per_line = np.bincount(lines[is_word], minlength=line_count)[lines]
        if "line_length" in features:
            bucket = np.minimum(np.log2(np.maximum(words_per_line, 1)).astype(np.int64), MAX_LENGTH_BUCKET)
            codes["line_length"] = kinds * 16 + bucket
        if "link_density" in features:
            link_words = np.bincount(lines[is_word & tokens.links], minlength=line_count)[lines]
            density = link_words / np.maximum(words_per_line, 1)
            bucket = np.digitize(density, LINK_DENSITY_EDGES).astype(np.int64)
            codes["link_density"] = kinds * 64 + tokens.links.astype(np.int64) * 8 + bucket
    if "line_class" in features:
        classes = LineScorer().line_classes(tokens)[tokens.lines] if n else np.zeros(0, np.int64)
        codes["line_class"] = kinds * 4 + classes
    if "context" in features:
        codes["context"] = kinds * 2**32 + _string_codes(tokens.contexts) if n else np.zeros(0, np.int64)
    return codes


def pack(first, second, third):
    """Three vocabulary ids (ints or int64 arrays, each < 2**21) as one int64 key."""
    return (first << 42) | (second << 21) | third


def unpack(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mask = (1 << 21) - 1
    return keys >> 42, (keys >> 21) & mask, keys & mask


# -- the classifier ---------------------------------------------------------------------------------


class NaiveBayesScorer:
    """Naive Bayes in/out token classifier; the MSS score is ``P(in) − 0.5 + bias``, plus
    ``line_weight`` times the :class:`LineScorer` score.

    Learned attributes: ``prior_`` (log-odds of "in"), ``lookup_`` (every surface form seen in
    training whose stem the trigram table uses, and every tag token → the stem's id: scoring needs no
    stemmer),
    ``tables_`` (feature name → (sorted int64 codes, float32 log-likelihood ratios in/out)),
    ``feature_weights_`` and ``intercept_`` (all ones and the prior, until :meth:`calibrate`).
    """

    def __init__(
        self,
        features: Sequence[str] = FEATURES,
        bias: float = 0.0,
        line_weight: float = 0.0,
        min_count: dict[str, int] | None = None,
        smoothing: float = SMOOTHING,
    ):
        unknown = set(features) - set(FEATURES)
        if unknown or not features:
            raise ValueError(f"features must be a non-empty subset of {FEATURES}, not {tuple(features)}")
        self.features = tuple(features)
        self.bias = bias
        self.line_weight = line_weight
        self.min_count = {**MIN_COUNT, **(min_count or {})}
        self.smoothing = smoothing

    # -- training -----------------------------------------------------------------------------------

    def fit(self, sequences: Iterable[TokenSequence], labels: Iterable[np.ndarray]) -> "NaiveBayesScorer":
        """Count features per label over labelled pages (``labels``: one bool array per page, True = in)."""
        counter = FeatureCounter(self.features)
        for tokens, label in zip(sequences, labels):
            counter.add(tokens, label)
        return self.fit_counts(counter)

    def fit_counts(self, counter: "FeatureCounter") -> "NaiveBayesScorer":
        """Turn accumulated counts into log-likelihood-ratio tables."""
        missing = set(self.features) - set(counter.features)
        if missing:
            raise ValueError(f"the counter did not count {sorted(missing)}")
        totals = counter.totals
        if totals[0] == 0 or totals[1] == 0:
            raise ValueError("training needs tokens labelled both in and out")
        self.prior_ = math.log(totals[1] / totals[0])
        # plain Naive Bayes until calibrated: every feature counts fully, the intercept is the prior
        self.feature_weights_ = np.ones(len(self.features))
        self.intercept_ = self.prior_
        self.tables_ = {}
        self.lookup_ = {END_TOKEN: END_ID}
        for name in self.features:
            codes, counts_out, counts_in = counter.counts(name)
            distinct = len(codes)
            kept = counts_out + counts_in >= self.min_count[name]
            codes, counts_out, counts_in = codes[kept], counts_out[kept], counts_in[kept]
            if name == "trigram":
                codes = self._compact_trigrams(codes, counter)
            order = np.argsort(codes)
            weights = self._ratios(counts_in[order], counts_out[order], totals, distinct)
            self.tables_[name] = (codes[order], weights.astype(np.float32))
        return self

    def _compact_trigrams(self, codes: np.ndarray, counter: "FeatureCounter") -> np.ndarray:
        """Re-number the tokens the kept trigrams use, so the look-up holds nothing else."""
        ids = np.stack(unpack(codes)) if codes.size else np.zeros((3, 0), dtype=np.int64)
        used, compact = np.unique(ids, return_inverse=True)
        compact = compact.reshape(ids.shape)
        if used.size == 0 or used[0] != END_ID:
            used, compact = np.concatenate(([END_ID], used)), compact + 1
        vocabulary = {counter.names[int(i)]: new for new, i in enumerate(used)}
        self.lookup_ = {**vocabulary, **{
            surface: vocabulary[stem] for surface, stem in counter.surface_stems.items() if stem in vocabulary
        }}
        return pack(compact[0], compact[1], compact[2])

    def _ratios(self, counts_in: np.ndarray, counts_out: np.ndarray, totals: Sequence[int], distinct: int) -> np.ndarray:
        """log P(value | in) − log P(value | out), Laplace-smoothed over ``distinct`` values."""
        a = self.smoothing
        return np.log((counts_in + a) / (totals[1] + a * distinct)) - np.log((counts_out + a) / (totals[0] + a * distinct))

    # -- scoring ------------------------------------------------------------------------------------

    def contributions(self, tokens: TokenSequence) -> np.ndarray:
        """Each feature's log-likelihood ratio per token: shape (tokens, features); 0 where unseen."""
        ids = token_ids(tokens, self.lookup_) if "trigram" in self.features else np.zeros(0, np.int64)
        codes = feature_codes(tokens, ids, self.features)
        columns = np.zeros((len(tokens), len(self.features)))
        for column, name in enumerate(self.features):
            keys, weights = self.tables_[name]
            if not keys.size:
                continue
            position = np.minimum(np.searchsorted(keys, codes[name]), keys.size - 1)
            columns[:, column] = np.where(keys[position] == codes[name], weights[position], 0.0)
        return columns

    def calibrate(self, contributions: np.ndarray, labels: np.ndarray) -> "NaiveBayesScorer":
        """Fit one weight per feature and an intercept by logistic regression on held-out tokens.

        Plain Naive Bayes adds up correlated features as if independent (a tag that is both rare and
        in an unnamed region counts twice) and its tables are optimistic on the pages they were counted
        on; weighting each feature's log-likelihood ratio, fitted on pages the tables did not see,
        corrects both ("weighted Naive Bayes").
        """
        self.feature_weights_, self.intercept_ = fit_logistic(contributions, labels)
        return self

    def log_odds(self, tokens: TokenSequence) -> np.ndarray:
        """log P(in | features) − log P(out | features) per token."""
        if not len(tokens):
            return np.zeros(0)
        return self.contributions(tokens) @ self.feature_weights_ + self.intercept_

    def score(self, tokens: TokenSequence) -> np.ndarray:
        """``P(in) − 0.5 + bias`` (+ ``line_weight`` × the line scorer's score) per token."""
        scores = 1.0 / (1.0 + np.exp(-self.log_odds(tokens))) - 0.5 + self.bias
        if self.line_weight:
            scores += self.line_weight * LineScorer().score(tokens)
        return scores


#: L2 penalty of the calibration regression (per token; the weights are few and the tokens many).
CALIBRATION_L2 = 1e-6
CALIBRATION_ITERATIONS = 25


def fit_logistic(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float]:
    """(weights, intercept) of an L2-regularised logistic regression, by Newton's method: the problem
    has a handful of columns, so each step is a tiny linear solve."""
    x = np.hstack((features, np.ones((len(features), 1))))
    y = np.asarray(labels, dtype=np.float64)
    if not len(y) or y.min() == y.max():
        raise ValueError("calibration needs held-out tokens labelled both in and out")
    beta = np.zeros(x.shape[1])
    penalty = CALIBRATION_L2 * len(y) * np.eye(x.shape[1])
    penalty[-1, -1] = 0.0  # the intercept is not shrunk
    for _ in range(CALIBRATION_ITERATIONS):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = x.T @ (p - y) + penalty @ beta
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta[:-1], float(beta[-1])


class FeatureCounter:
    """Per-label counts of feature values, accumulated page by page.

    Codes are kept as one array per page and feature, so counting millions of tokens is one numpy
    ``unique`` at the end rather than a Python dict update per token. Trigram codes use the counter's
    own growing vocabulary (``names``).
    """

    def __init__(self, features: Sequence[str] = FEATURES) -> None:
        self.features = tuple(features)
        self.names: list[str] = [END_TOKEN]
        self._ids: dict[str, int] = {END_TOKEN: END_ID}
        self._codes: dict[str, list[np.ndarray]] = {name: [] for name in self.features}
        self._labels: list[np.ndarray] = []
        #: every word form seen (as ``surface_token`` gives it) → its stem
        self.surface_stems: dict[str, str] = {}
        self.totals = [0, 0]
        self.pages = 0

    def add(self, tokens: TokenSequence, labels: Sequence[bool] | np.ndarray) -> None:
        labels = np.asarray(labels, dtype=bool)
        if len(labels) != len(tokens):
            raise ValueError(f"{len(labels)} labels for {len(tokens)} tokens")
        ids = np.fromiter((self._id(f) for f in tokens.features), dtype=np.int64, count=len(tokens))
        self.surface_stems.update(zip(tokens.surfaces, tokens.features))
        if len(self.names) > MAX_VOCABULARY:
            raise ValueError(f"training vocabulary exceeds {MAX_VOCABULARY} tokens")
        for name, codes in feature_codes(tokens, ids, self.features).items():
            self._codes[name].append(codes)
        self._labels.append(labels)
        inside = int(labels.sum())
        self.totals[1] += inside
        self.totals[0] += len(labels) - inside
        self.pages += 1

    def _id(self, token: str) -> int:
        found = self._ids.get(token)
        if found is None:
            found = self._ids[token] = len(self.names)
            self.names.append(token)
        return found

    def counts(self, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(distinct codes of feature ``name``, count out, count in)."""
        if not self._labels:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        codes = np.concatenate(self._codes[name])
        labels = np.concatenate(self._labels)
        distinct, inverse = np.unique(codes, return_inverse=True)
        counts_in = np.bincount(inverse, weights=labels, minlength=len(distinct)).astype(np.int64)
        counts_all = np.bincount(inverse, minlength=len(distinct))
        return distinct, counts_all - counts_in, counts_in
