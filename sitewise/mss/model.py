"""The fallback's models on disk, and where they are found at run time.

Two kinds, both gzip-compressed JSON (never pickle: a model file may come from elsewhere and must not be
able to run code), told apart by their ``format``: the block model (:mod:`.blockmodel`, the one that
ships) and the paper's Naive Bayes token scorer, whose trigram table is stored as base64 of
little-endian int64 keys and float32 weights.

Look-up order (:func:`resolve_model_path`): an explicit path, else ``SITEWISE_MSS_MODEL``, else
``<data_dir>/mss-model.json.gz`` (where self-training writes), else the block model shipped in
``sitewise/models/``, else none (the extractor falls back to the hand-set line scorer).
"""
from __future__ import annotations

import base64
import gzip
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from .blockmodel import FORMAT as BLOCK_FORMAT
from .blockmodel import BlockModel, write_model_file
from .scorers import NaiveBayesScorer

log = logging.getLogger(__name__)

FORMAT = "sitewise-mss-naive-bayes"
VERSION = 1
MODEL_FILENAME = "mss-model.json.gz"
#: The block model shipped with the package (``sitewise train-mss`` rebuilds it; docs/bench-mss.md).
SHIPPED_MODEL = Path(__file__).resolve().parent.parent / "models" / "block-model.json.gz"


class ModelError(ValueError):
    """A model file is missing, unreadable or not a sitewise MSS model."""


def save_model(scorer: NaiveBayesScorer, path: str | Path, info: dict[str, Any] | None = None) -> Path:
    """Write a trained scorer atomically (a reader never sees half a file)."""
    path = Path(path)
    document = {
        "format": FORMAT,
        "version": VERSION,
        "features": list(scorer.features),
        "bias": scorer.bias,
        "line_weight": scorer.line_weight,
        "min_count": scorer.min_count,
        "smoothing": scorer.smoothing,
        "prior": scorer.prior_,
        "feature_weights": [float(w) for w in scorer.feature_weights_],
        "intercept": float(scorer.intercept_),
        "lookup": {"tokens": list(scorer.lookup_), "ids": _encode(np.fromiter(scorer.lookup_.values(), "<i4"))},
        "tables": {
            name: {"codes": _encode(codes.astype("<i8")), "weights": _encode(weights.astype("<f4"))}
            for name, (codes, weights) in scorer.tables_.items()
        },
        "info": info or {},
    }
    return write_model_file(path, document)


def load_model(path: str | Path) -> NaiveBayesScorer | BlockModel:
    """Read a model written by :func:`save_model` or :meth:`BlockModel.save`; a clear
    :class:`ModelError` otherwise."""
    path = Path(path)
    try:
        document = json.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        raise ModelError(f"no MSS model at {path}") from None
    except (OSError, EOFError, ValueError) as exc:
        raise ModelError(f"{path} is not a gzip-compressed JSON MSS model: {exc}") from None
    if isinstance(document, dict) and document.get("format") == BLOCK_FORMAT:
        try:
            return BlockModel.from_dict(document)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ModelError(f"{path}: malformed block model ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ModelError(f"{path} is not a sitewise MSS model (format {document.get('format')!r})"
                         if isinstance(document, dict) else f"{path} is not a sitewise MSS model")
    if document.get("version") != VERSION:
        raise ModelError(f"{path}: model version {document.get('version')} is not supported (need {VERSION})")
    try:
        scorer = NaiveBayesScorer(
            features=tuple(document["features"]),
            bias=float(document["bias"]),
            line_weight=float(document.get("line_weight", 0.0)),  # models from before it existed: none
            min_count={str(k): int(v) for k, v in document["min_count"].items()},
            smoothing=float(document["smoothing"]),
        )
        scorer.prior_ = float(document["prior"])
        scorer.feature_weights_ = np.array([float(w) for w in document["feature_weights"]])
        scorer.intercept_ = float(document["intercept"])
        if len(scorer.feature_weights_) != len(scorer.features):
            raise ValueError(f"{len(scorer.feature_weights_)} feature weights for {len(scorer.features)} features")
        tokens, ids = document["lookup"]["tokens"], _decode(document["lookup"]["ids"], "<i4").tolist()
        if len(tokens) != len(ids):
            raise ValueError(f"{len(tokens)} look-up tokens but {len(ids)} ids")
        scorer.lookup_ = dict(zip(tokens, ids))
        scorer.tables_ = {}
        for name in scorer.features:
            table = document["tables"][name]
            codes = _decode(table["codes"], "<i8").astype(np.int64)
            weights = _decode(table["weights"], "<f4").astype(np.float32)
            if len(codes) != len(weights) or np.any(codes[1:] < codes[:-1]):
                raise ValueError(f"table {name!r} is not a sorted code → weight table")
            scorer.tables_[name] = (codes, weights)
        scorer.info_ = dict(document.get("info") or {})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{path}: malformed MSS model ({exc})") from None
    return scorer


def _encode(array: np.ndarray) -> str:
    return base64.b64encode(array.tobytes()).decode("ascii")


def _decode(text: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype=dtype)


def configured_model_path() -> Path:
    """Where models are written by default: ``SITEWISE_MSS_MODEL``, else ``<data_dir>/mss-model.json.gz``.
    Reads those two settings alone: the library must not fail on a bad value of the server's settings."""
    from ..config import setting_from_env

    chosen = str(setting_from_env("mss_model"))
    return Path(chosen) if chosen else Path(str(setting_from_env("data_dir"))) / MODEL_FILENAME


def resolve_model_path(path: str | Path | None = None) -> Path | None:
    """The model file to use: ``path`` if given (it must exist), else the configured one if it exists,
    else the shipped one if any, else None (use the line scorer)."""
    if path:
        path = Path(path)
        if not path.is_file():
            raise ModelError(f"no MSS model at {path}")
        return path
    for candidate in (configured_model_path(), SHIPPED_MODEL):
        if candidate.is_file():
            return candidate
    return None
