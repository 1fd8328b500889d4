"""Self-training: the fallback learns from the sites sitewise has already learned.

Once a site is learned and its rules corroborated by several readers, its rules say which text of each
of its pages is the article; those (html, article text, url) pages label blocks exactly as a hand-made
truth would. The worker collects such pages across learned sites and calls :func:`self_train`:

1. the learned sites are split: every :data:`HOLD_OUT_EVERY`-th site is held back (the fallback serves
   sites it has not seen, so it is judged on sites it was not trained on);
2. a block model is trained on the other sites' pages and joined to the shipped model (their log-odds
   are averaged, each model weighted by the pages it learned from: what the shipped model learned from
   thousands of pages of every kind stays, the learned sites' layouts are added);
3. the candidate replaces the model in use only when its mean word F1 on the held-back pages beats the
   current model's by :data:`MIN_GAIN`; otherwise nothing is written.
"""
from __future__ import annotations

import logging
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence, TypeVar

from .. import metrics
from ..page import site_of
from .blockmodel import BlockModel
from .blocktrain import train_block_model
from .model import SHIPPED_MODEL, ModelError, configured_model_path, load_model
from .scorers import Scorer
from .train import TrainingReport

log = logging.getLogger(__name__)

#: Fewer pages than this teach a model nothing it can be trusted with: keep what is there instead.
MIN_SELF_TRAINING_PAGES = 30
#: Every n-th learned site is held back to judge the candidate (by site: the fallback meets new sites).
HOLD_OUT_EVERY = 4
#: ... by page instead when there are fewer sites than this (one held-back site says too little).
MIN_SITES_TO_HOLD_OUT = 5
#: A candidate must beat the current model by this much mean F1 on the held-back pages (a smaller
#: difference is noise on a few dozen pages, and every rewrite reloads the model in every process).
MIN_GAIN = 0.002
#: The ``source`` a self-trained model's info records: the configured file is replaced only when it holds one.
SELF_TRAINING_SOURCE = "self-training"

#: (html, article text, url) of one page.
LabelledPage = tuple[str, str, str | None]
T = TypeVar("T")


@dataclass(frozen=True)
class SelfTrainingResult:
    #: Where the model was written, or None when nothing was (too few pages, or no gain).
    path: Path | None
    report: TrainingReport
    #: Mean word F1 on the held-back pages of the model in use and of the candidate (None: not judged).
    current_f1: float | None = None
    candidate_f1: float | None = None
    held_back_pages: int = 0


def self_train(
    pages: Iterable[LabelledPage],
    path: str | Path | None = None,
    min_pages: int = MIN_SELF_TRAINING_PAGES,
    current: "BlockModel | Scorer | None" = None,
    base: BlockModel | None | str = "shipped",
    **options: Any,
) -> SelfTrainingResult:
    """Train on rule-labelled pages of learned sites and write the model to ``path`` (default: the
    configured model path) if it beats ``current`` (default: the model in use) on held-back sites.
    ``base``: the model the new one is joined to ("shipped", or None: the new one alone); ``options``
    go to :class:`BlockModel`."""
    pages = list(pages)
    target = Path(path) if path else configured_model_path()
    if not path and _operators_own(target):
        log.info("self-training skipped: %s is a model the operator chose, not one self-training wrote", target)
        return SelfTrainingResult(None, TrainingReport(pages=len(pages)))
    if len(pages) < min_pages:
        log.info("self-training skipped: %d pages, need %d", len(pages), min_pages)
        return SelfTrainingResult(None, TrainingReport(pages=len(pages)))
    training, held_back = split_held_back(pages)
    try:
        candidate, report = candidate_model(training, base, **options)
    except ValueError as exc:  # no page aligned with its text, or one label only
        log.warning("self-training failed: %s", exc)
        return SelfTrainingResult(None, TrainingReport(pages=len(pages)))
    if report.used < min_pages * (HOLD_OUT_EVERY - 1) // HOLD_OUT_EVERY:
        log.info("self-training skipped: %d of %d pages usable", report.used, report.pages)
        return SelfTrainingResult(None, report)
    current_f1 = mean_f1(current if current is not None else _in_use(), held_back)
    candidate_f1 = mean_f1(candidate, held_back)
    judged = SelfTrainingResult(None, report, current_f1, candidate_f1, len(held_back))
    if candidate_f1 < current_f1 + MIN_GAIN:
        log.info("self-trained model kept out: F1 %.4f on %d held-back pages, the model in use %.4f",
                 candidate_f1, len(held_back), current_f1)
        return judged
    candidate.info_.update({"source": SELF_TRAINING_SOURCE, "held_back_f1": round(candidate_f1, 4),
                            "replaced_f1": round(current_f1, 4), **report.as_dict()})
    candidate.save(target)
    log.info("self-trained MSS model on %d pages → %s (held-back F1 %.4f, was %.4f)",
             report.used, target, candidate_f1, current_f1)
    return SelfTrainingResult(target, report, current_f1, candidate_f1, len(held_back))


def candidate_model(
    pages: Iterable[LabelledPage], base: BlockModel | None | str = "shipped", **options: Any
) -> tuple[BlockModel, TrainingReport]:
    """A block model trained on rule-labelled pages, joined to ``base`` ("shipped", a model, or None:
    the new one alone); ``options`` go to :class:`BlockModel`. ValueError when no page can teach it."""
    learned, report = train_block_model(pages, **options)
    base = _shipped() if base == "shipped" else base
    return (base.joined(learned) if base is not None else learned), report


def split_held_back(pages: Sequence[T], sites: Sequence[str] | None = None) -> tuple[list[T], list[T]]:
    """(training pages, held-back pages): every :data:`HOLD_OUT_EVERY`-th site held back, in the order
    sites first appear; every n-th page when there are too few sites. ``sites``: each page's site
    (default: the site of its URL, the pages being :data:`LabelledPage` triples)."""
    page_sites = list(sites) if sites is not None else [site_of(url) if url else "" for _, _, url in pages]
    distinct = list(dict.fromkeys(page_sites))
    if len(distinct) >= MIN_SITES_TO_HOLD_OUT:
        held = {site for i, site in enumerate(distinct) if i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1}
        is_held = [site in held for site in page_sites]
    else:
        is_held = [i % HOLD_OUT_EVERY == HOLD_OUT_EVERY - 1 for i in range(len(pages))]
    return ([p for p, h in zip(pages, is_held) if not h], [p for p, h in zip(pages, is_held) if h])


def mean_f1(model: "BlockModel | Scorer", pages: Sequence[LabelledPage]) -> float:
    """Mean word F1 of the fallback with ``model`` over (html, text, url) pages."""
    from .extractor import fallback_pipeline

    pipeline = fallback_pipeline(model)
    scores = [metrics.word_prf(pipeline.extract(html, url).text, text).f1 for html, text, url in pages]
    return statistics.fmean(scores) if scores else 0.0


def _operators_own(path: Path) -> bool:
    """Whether the configured model file holds a model self-training did not write (one the operator
    trained and named in ``SITEWISE_MSS_MODEL``): it is joined to the shipped model, never to the
    operator's, so replacing the file would lose the operator's model."""
    if not path.is_file():
        return False
    try:
        model = load_model(path)
    except ModelError:
        return False  # unreadable: the fallback already uses the shipped model in its place
    return getattr(model, "info_", {}).get("source") != SELF_TRAINING_SOURCE


def _shipped() -> BlockModel | None:
    model = load_model(SHIPPED_MODEL) if SHIPPED_MODEL.is_file() else None
    return model if isinstance(model, BlockModel) else None


def _in_use() -> "BlockModel | Scorer":
    from .extractor import load_scorer

    return load_scorer()
