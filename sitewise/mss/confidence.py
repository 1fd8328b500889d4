"""How far to trust the fallback's answer on one page: an estimate of its word F1, learned out of fold.

The block model gives every block a probability; how the kept blocks' probabilities look tells how sure
the reading was. A page whose kept words the model was sure of, with nothing plausible left out, is
usually read right; one whose reading hangs on blocks near the threshold, or that left out much of what
it found plausible, often is not. :func:`reading_facts` states that in a few explainable numbers
(:data:`READING_FACTS`), and :class:`AnswerConfidence` maps them to the word F1 such readings had on
pages the block model had not seen: a least-squares score over the standardised facts, made calibrated
by isotonic regression (a page given 0.6 is, among pages given about 0.6, about 0.6 right on average).
It is fitted when the model is trained (:func:`sitewise.mss.blocktrain.train_block_model`), on the
out-of-fold readings of the training pages (host folds: a page is read by trees that never saw its
site), and ships in the model file; predicting needs numpy only.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The facts of a reading, in column order (:func:`reading_facts`).
READING_FACTS = (
    "kept_probability",  # word-weighted mean P(article) of the kept blocks
    "kept_unsure_share",  # share of the kept words in blocks of an unsure probability (UNSURE_BAND)
    "left_plausible_share",  # share of the page's plausible words (P ≥ 0.5) left out of the answer
    "page_unsure_share",  # share of the page's words in blocks of an unsure probability
    "kept_words_log",  # log(1 + kept words): a short answer is more often wrong
    "kept_page_share",  # the kept words' share of the page's words
    "kept_runs_log",  # log(1 + the kept runs): an answer pieced together from many runs is less sure
    "section",  # the page reads as a section (a listing or collection), not one item
    "titled",  # the page has a heading that repeats its title
)
#: A block's probability is unsure between these: where one model of the bag says article and another
#: may not (the cascade's unsure log-odds ±1 span 0.27-0.73).
UNSURE_BAND = (0.3, 0.7)
#: A block is plausible article text from this probability (the decoding's threshold).
PLAUSIBLE = 0.5
#: Folds of the out-of-fold readings the estimate is fitted on (as ``sitewise bench mss``).
FOLDS = 5

FORMAT = "sitewise-answer-confidence"
VERSION = 1


def reading_facts(probabilities: np.ndarray, words: np.ndarray, keep: np.ndarray, *, section: bool,
                  titled: bool) -> np.ndarray:
    """The :data:`READING_FACTS` of one page's reading: each block's P(article), words and whether it
    was kept."""
    words = np.asarray(words, dtype=np.float64)
    kept_words = float(words[keep].sum())
    page_words = float(words.sum()) or 1.0
    unsure = (probabilities > UNSURE_BAND[0]) & (probabilities < UNSURE_BAND[1])
    plausible = probabilities >= PLAUSIBLE
    starts = np.count_nonzero(np.diff(keep.astype(np.int8), prepend=0) == 1)
    return np.array([
        float((probabilities[keep] * words[keep]).sum() / kept_words) if kept_words else 0.0,
        float(words[keep & unsure].sum() / kept_words) if kept_words else 0.0,
        float(words[plausible & ~keep].sum() / (words[plausible].sum() or 1.0)),
        float(words[unsure].sum() / page_words),
        math.log1p(kept_words),
        kept_words / page_words,
        math.log1p(starts),
        float(section),
        float(titled),
    ])


class AnswerConfidence:
    """Estimated word F1 of an answer from its :func:`reading_facts` (scikit-learn's estimator style).

    Learned attributes: ``mean_`` and ``scale_`` (the facts' standardisation), ``coef_`` and
    ``intercept_`` (the least-squares score: each fact's weight says how it moves the estimate),
    ``calibration_x_`` and ``calibration_y_`` (the isotonic map from score to F1, interpolated),
    ``info_`` (what it was fitted on).
    """

    def fit(self, X: np.ndarray, f1: np.ndarray) -> "AnswerConfidence":
        """Fit on readings' facts ``X`` (columns :data:`READING_FACTS`) and their answers' word F1."""
        from sklearn.isotonic import IsotonicRegression
        from sklearn.linear_model import LinearRegression

        X, f1 = np.asarray(X, dtype=np.float64), np.asarray(f1, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(READING_FACTS) or len(X) != len(f1):
            raise ValueError(f"expected rows of {len(READING_FACTS)} facts, one F1 per row; got {X.shape}, {f1.shape}")
        if len(X) < 2 or np.ptp(f1) == 0:
            raise ValueError("fitting needs at least two readings whose F1 differ")
        spread = X.std(axis=0)
        self.mean_ = X.mean(axis=0)
        self.scale_ = np.where(spread > 0, spread, 1.0)  # a fact constant over the readings is left as it is
        linear = LinearRegression().fit((X - self.mean_) / self.scale_, f1)
        self.coef_, self.intercept_ = linear.coef_, float(linear.intercept_)
        isotonic = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(self._score(X), f1)
        self.calibration_x_ = np.asarray(isotonic.X_thresholds_, dtype=np.float64)
        self.calibration_y_ = np.asarray(isotonic.y_thresholds_, dtype=np.float64)
        self.info_: dict[str, Any] = {"readings": int(len(X)), "mean_f1": round(float(f1.mean()), 4)}
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The estimated word F1 of each reading (0 to 1)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        return np.interp(self._score(X), self.calibration_x_, self.calibration_y_)

    def _score(self, X: np.ndarray) -> np.ndarray:
        return ((X - self.mean_) / self.scale_) @ self.coef_ + self.intercept_

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "version": VERSION, "facts": list(READING_FACTS),
            "mean": self.mean_.tolist(), "scale": self.scale_.tolist(), "coef": self.coef_.tolist(),
            "intercept": self.intercept_, "calibration_x": self.calibration_x_.tolist(),
            "calibration_y": self.calibration_y_.tolist(), "info": self.info_,
        }

    @classmethod
    def from_dict(cls, document: dict[str, Any]) -> "AnswerConfidence":
        if document.get("format") != FORMAT or document.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} document of version {VERSION}")
        if tuple(document.get("facts", ())) != READING_FACTS:
            raise ValueError("the confidence was fitted on other reading facts than this sitewise computes")
        estimate = cls()
        arrays = {name: np.asarray(document[name], dtype=np.float64)
                  for name in ("mean", "scale", "coef", "calibration_x", "calibration_y")}
        if any(arrays[name].shape != (len(READING_FACTS),) for name in ("mean", "scale", "coef")):
            raise ValueError("mean, scale and coef need one number per fact")
        if arrays["calibration_x"].shape != arrays["calibration_y"].shape or not arrays["calibration_x"].size:
            raise ValueError("calibration_x and calibration_y must be as long as each other, and not empty")
        estimate.mean_, estimate.scale_, estimate.coef_ = arrays["mean"], arrays["scale"], arrays["coef"]
        estimate.intercept_ = float(document["intercept"])
        estimate.calibration_x_, estimate.calibration_y_ = arrays["calibration_x"], arrays["calibration_y"]
        estimate.info_ = dict(document.get("info") or {})
        return estimate
