"""Self-training: the fallback learns from the sites sitewise has already learned.

Once a site is learned, its rules say which text of each of its pages is the article; those
(html, article text) pairs label the MSS tokens exactly as a hand-made truth would. The worker collects
such pairs across learned sites and calls :func:`self_train`, which trains a fresh scorer and writes it
where :func:`sitewise.mss.extractor.extract_mss` looks first, so the fallback for sites not learned yet
improves as more sites are learned.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .model import configured_model_path, save_model
from .train import TrainingReport, train

log = logging.getLogger(__name__)

#: Fewer usable pages than this make a model worse than the untrained baseline (too many trigrams
#: unseen, tag statistics of one or two layouts): keep what is there instead.
MIN_SELF_TRAINING_PAGES = 30


@dataclass(frozen=True)
class SelfTrainingResult:
    #: Where the model was written, or None when there were too few usable pages.
    path: Path | None
    report: TrainingReport


def self_train(
    pairs: Iterable[tuple[str | bytes, str]],
    path: str | Path | None = None,
    min_pages: int = MIN_SELF_TRAINING_PAGES,
) -> SelfTrainingResult:
    """Train the MSS scorer on (html, article text) pairs from learned sites and write the model to
    ``path`` (default: the configured model path). Nothing is written when fewer than ``min_pages``
    pages align with their article text; the model in place, if any, stays."""
    pairs = list(pairs)
    target = Path(path) if path else configured_model_path()
    if len(pairs) < min_pages:
        log.info("self-training skipped: %d pages, need %d", len(pairs), min_pages)
        return SelfTrainingResult(None, TrainingReport(pages=len(pairs)))
    try:
        scorer, report = train(pairs)
    except ValueError as exc:  # no page aligned with its text
        log.warning("self-training failed: %s", exc)
        return SelfTrainingResult(None, TrainingReport(pages=len(pairs)))
    if report.used < min_pages:
        log.info("self-training skipped: %d of %d pages usable, need %d", report.used, report.pages, min_pages)
        return SelfTrainingResult(None, report)
    save_model(scorer, target, {"source": "self-training", **report.as_dict()})
    log.info("self-trained MSS model on %d pages → %s", report.used, target)
    return SelfTrainingResult(target, report)
