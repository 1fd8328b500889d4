"""Gradient-boosted tree ensembles as plain arrays: exported from scikit-learn once, evaluated with numpy;
and bags of them fitted with different seeds.

Training uses scikit-learn's ``HistGradientBoostingClassifier``; extraction does not import it (importing
scikit-learn costs more than extracting a page) and never unpickles anything: the trees are stored as
arrays in the model's JSON and walked here, all rows and all trees at once, one tree level per step.
"""
from __future__ import annotations

import base64
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Rows walked through the trees at once. The walk holds a node index per row and tree (1.6 KB a row for
#: 200 trees), and past a few hundred rows those arrays outgrow the processor's caches: one ensemble
#: walked 40,000 rows in 0.72 s at once and in 0.20 s in parts of 256, and 1,000 rows in 5.9 and 4.6 ms
#: (random rows, an idle machine). Over every fourth page of the five evaluation sets the trees took
#: 2.29 ms a page in one walk, 2.20 in parts of 1,024 and 2.03 in parts of 256; parts of 128 were no
#: cheaper than 256 on 100 to 1,000 rows.
ROWS_PER_WALK = 256


@dataclass(frozen=True)
class TreeEnsemble:
    """Binary-classification trees in flat arrays (node ``i`` of every tree in one index space).

    A split node sends a row left when ``x[feature] <= threshold`` (a missing value goes where
    ``missing_left`` says); a leaf points to itself on both sides, so walking a fixed number of
    levels leaves every row on its leaf. The raw score is ``baseline`` plus the sum of leaf values.
    """

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int
    baseline: float
    n_features: int

    @classmethod
    def from_sklearn(cls, model: Any) -> "TreeEnsemble":
        """The trees of a fitted binary ``HistGradientBoostingClassifier`` (numeric features only)."""
        if getattr(model, "n_trees_per_iteration_", 1) != 1:
            raise ValueError("only binary classifiers can be exported")
        parts = {name: [] for name in ("feature", "threshold", "missing_left", "left", "right", "value")}
        roots, offset, depth = [], 0, 0
        for (predictor,) in model._predictors:  # scikit-learn's fitted trees: one per boosting round
            nodes = predictor.nodes
            if nodes["is_categorical"].any():
                raise ValueError("categorical splits are not supported")
            leaf = nodes["is_leaf"].astype(bool)
            index = np.arange(len(nodes)) + offset
            parts["feature"].append(np.where(leaf, 0, nodes["feature_idx"]).astype(np.int32))
            parts["threshold"].append(np.where(leaf, np.inf, nodes["num_threshold"]).astype(np.float64))
            parts["missing_left"].append(nodes["missing_go_to_left"].astype(bool))
            parts["left"].append(np.where(leaf, index, nodes["left"].astype(np.int64) + offset).astype(np.int32))
            parts["right"].append(np.where(leaf, index, nodes["right"].astype(np.int64) + offset).astype(np.int32))
            parts["value"].append(np.where(leaf, nodes["value"], 0.0).astype(np.float64))
            roots.append(offset)
            depth = max(depth, int(nodes["depth"].max()))
            offset += len(nodes)
        return cls(
            **{name: np.concatenate(arrays) for name, arrays in parts.items()},
            roots=np.asarray(roots, dtype=np.int32),
            depth=depth,
            baseline=float(np.ravel(model._baseline_prediction)[0]),
            n_features=int(model.n_features_in_),
        )

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Raw scores (log-odds of the positive class), one per row."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise ValueError(f"expected rows of {self.n_features} features, got shape {X.shape}")
        if not len(X):
            return np.zeros(0)
        return np.concatenate([self._walk(X[start:start + ROWS_PER_WALK]) for start in range(0, len(X), ROWS_PER_WALK)])

    def _walk(self, X: np.ndarray) -> np.ndarray:
        """:meth:`decision_function` of rows already checked, in one walk of all the trees."""
        # One gather per array and level (``take`` on flat arrays of platform integers is the fastest
        # numpy gather, called as the array's method: ``np.take`` adds a Python call to each; ``mode="clip"``
        # skips the bounds check, which :meth:`check` made once at load):
        # the value a node tests is the flat matrix's ``row * n_features + feature``. Nodes are walked by
        # doubled ids: node ``i`` is ``2i`` and ``2i + 1`` in the walk's arrays, so its next node is
        # ``children[node + goes_right]``, itself a doubled id.
        feature, threshold, missing_left, children, value, roots = self._walk_arrays
        values = np.ascontiguousarray(X).ravel()
        row_starts = (np.arange(len(X)) * self.n_features)[:, None]
        has_missing = bool(np.isnan(values).any())  # most pages have none: skip the missing-value branch
        node = np.broadcast_to(roots, (len(X), roots.size)).copy()
        for _ in range(self.depth):
            x = values.take(feature.take(node, mode="clip") + row_starts, mode="clip")
            goes_right = x > threshold.take(node, mode="clip")
            if has_missing:
                goes_right = np.where(np.isnan(x), ~missing_left.take(node, mode="clip"), goes_right)
            node += goes_right
            node = children.take(node, mode="clip")
        return self.baseline + value.take(node, mode="clip").sum(axis=1)

    @functools.cached_property
    def _walk_arrays(self) -> tuple[np.ndarray, ...]:
        """(feature, threshold, missing_left, children, value, roots) indexed by doubled node ids: each
        node's entry twice, ``children`` interleaving the doubled ids of its left and right child."""
        twice = functools.partial(np.repeat, repeats=2)
        children = 2 * np.column_stack([self.left, self.right]).ravel().astype(np.intp)
        return (twice(self.feature.astype(np.intp)), twice(self.threshold), twice(self.missing_left), children,
                twice(self.value), 2 * self.roots.astype(np.intp))

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """P(positive) per row."""
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    def to_dict(self) -> dict[str, Any]:
        arrays = {name: _encode(getattr(self, name), dtype) for name, dtype in _ARRAYS.items()}
        return {**arrays, "depth": self.depth, "baseline": self.baseline, "n_features": self.n_features}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TreeEnsemble":
        arrays = {name: _decode(data[name], dtype) for name, dtype in _ARRAYS.items()}
        ensemble = cls(**arrays, depth=int(data["depth"]), baseline=float(data["baseline"]),
                       n_features=int(data["n_features"]))
        ensemble.check()
        return ensemble

    def check(self) -> None:
        """A clear ValueError when the arrays do not form trees this class can walk."""
        size = self.feature.size
        if not all(getattr(self, name).size == size for name in ("threshold", "missing_left", "left", "right", "value")):
            raise ValueError("tree arrays differ in length")
        for name in ("left", "right", "roots"):
            array = getattr(self, name)
            if array.size and (array.min() < 0 or array.max() >= size):
                raise ValueError(f"tree {name} index out of range")
        if self.feature.size and (self.feature.min() < 0 or self.feature.max() >= self.n_features):
            raise ValueError("tree feature index out of range")


#: Where the first ensemble of a bag gives a row log-odds beyond ±1 (P under 0.27 or over 0.73), its
#: verdict stands and the other seeds are not walked: most of a page's blocks are navigation, links and
#: footers the first model is that sure of, so the others walk about a sixth of the rows. Out of fold,
#: consulting them from ±1 to ±3 gave every set's F1 within 0.0007 of averaging every row, and ±1 did
#: not lose to the wider bands on any set (docs/mss.md).
UNSURE_LOG_ODDS = 1.0


@dataclass(frozen=True)
class TreeBag:
    """Ensembles fitted alike but for their random seed (each split choosing among a random share of the
    features), their log-odds averaged: one boosted model's choices depend on its seed, and the average
    is steadier than any one of them.

    The first ensemble scores every row; the others only the rows it is unsure of
    (:data:`UNSURE_LOG_ODDS`), so a bag of three costs far less than three ensembles.
    """

    ensembles: tuple[TreeEnsemble, ...]

    def __post_init__(self) -> None:
        if not self.ensembles:
            raise ValueError("a bag needs at least one ensemble")
        if len({ensemble.n_features for ensemble in self.ensembles}) != 1:
            raise ValueError("the ensembles of a bag read different numbers of features")

    @property
    def n_features(self) -> int:
        return self.ensembles[0].n_features

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Raw scores (log-odds of the positive class), one per row."""
        first, *others = self.ensembles
        scores = first.decision_function(X)
        unsure = np.flatnonzero(np.abs(scores) < UNSURE_LOG_ODDS)
        if others and unsure.size:
            rows = np.asarray(X, dtype=np.float64)[unsure]
            total = scores[unsure] + sum(ensemble.decision_function(rows) for ensemble in others)
            scores[unsure] = total / len(self.ensembles)
        return scores

    def to_dict(self) -> list[dict[str, Any]]:
        return [ensemble.to_dict() for ensemble in self.ensembles]

    @classmethod
    def from_dict(cls, data: list[dict[str, Any]]) -> "TreeBag":
        if not isinstance(data, list):
            raise ValueError("a bag is a list of tree ensembles")
        return cls(tuple(TreeEnsemble.from_dict(item) for item in data))


#: Stored arrays and their little-endian dtypes.
_ARRAYS = {"feature": "<i4", "threshold": "<f8", "missing_left": "|b1", "left": "<i4", "right": "<i4",
           "value": "<f8", "roots": "<i4"}


def _encode(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def _decode(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).astype(np.dtype(dtype).newbyteorder("="))
