"""Training the block model from (html, truth text, url) pages: label each block by aligning the truth
to the page's lines (the same alignment as the token scorer's, :func:`.train.label_tokens`), weight each
page equally, fit.

Pages whose labelled blocks cover too little of the truth are skipped (the truth is not really on the
page, or the page did not parse the same way); a page whose truth is empty is kept with every block
out, so the model learns to answer "no article" where annotators found none.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from .. import metrics
from ..page import site_of
from .blockmodel import BlockModel, PageBlocks, page_blocks
from .confidence import FOLDS, AnswerConfidence
from .extractor import BlockMSS
from .train import MIN_TRUTH_COVERAGE, TrainingReport, label_tokens
from .tokenize import WORD

log = logging.getLogger(__name__)


def block_labels(blocks: PageBlocks, truth: str) -> tuple[np.ndarray, float]:
    """(article label per block, share of the truth's words the labelled blocks cover)."""
    labels, coverage = label_tokens(blocks.tokens, truth)
    tokens = blocks.tokens
    index = np.flatnonzero(tokens.kinds == WORD)
    if not index.size:
        return np.zeros(0, dtype=bool), coverage
    first = index[np.r_[0, np.flatnonzero(np.diff(tokens.lines[index])) + 1]]
    return labels[first].astype(bool), coverage


#: The sets the shipped model is trained on (folders of ``../shared/data``): their licences let a model
#: trained on them ship (wcxb-dev CC-BY-4.0, readability-testpages Apache-2.0). spider (MIT) has no HTML,
#: only rendered blocks, so it cannot teach an HTML model.
TRAINING_SETS = ("wcxb-dev", "readability-testpages")


@dataclass
class LabelledPage:
    """One training page as block rows: features, labels, and each block's share of the page's words."""

    features: np.ndarray
    labels: np.ndarray
    shares: np.ndarray


def labelled_page(html: str | bytes, truth: str, url: str | None = None) -> LabelledPage | str:
    """The page's labelled blocks, or why it cannot be used (a short reason)."""
    blocks = page_blocks(html, url)
    if not blocks.lines.size:
        return "no text"
    if metrics.words(truth):
        labels, coverage = block_labels(blocks, truth)
        if coverage < MIN_TRUTH_COVERAGE:
            return "truth not found in page"
    else:
        labels = np.zeros(blocks.lines.size, dtype=bool)
    words = np.maximum(blocks.words, 1)
    return LabelledPage(blocks.features, labels, words / words.sum())


def training_table(pages: Sequence[LabelledPage]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Block rows, labels and sample weights of labelled pages.

    Weights: each page weighs the same in all (the benchmark's score is a mean over pages), shared among
    its blocks by their words (a long paragraph matters more than a date line), scaled by the number of
    pages so that regularisation sees the magnitudes the settings were tuned with.
    """
    if not pages:
        raise ValueError("no usable training pages")
    X = np.concatenate([page.features for page in pages])
    y = np.concatenate([page.labels for page in pages])
    weights = np.concatenate([page.shares for page in pages]) * len(pages)
    return X, y, weights


#: The libraries whose versions decide a model's trees: the boosting (scikit-learn, numpy) and the parse
#: that makes the blocks (lxml and its libxml2). constraints.txt pins them.
TREE_LIBRARIES = ("scikit-learn", "numpy", "lxml")


def trained_with() -> dict[str, str]:
    """The versions of :data:`TREE_LIBRARIES` (and libxml2) a model is being trained with: the same
    pages give the same trees only under the same versions."""
    from importlib.metadata import version

    from lxml import etree

    return {**{name: version(name) for name in TREE_LIBRARIES}, "libxml2": ".".join(map(str, etree.LIBXML_VERSION))}


def train_block_model(
    pages: Iterable[tuple[str | bytes, str, str | None]], *, confidence: bool = False, **options: Any
) -> tuple[BlockModel, TrainingReport]:
    """A block model fitted on (html, truth, url) triples; ``options`` go to :class:`BlockModel`. With
    ``confidence``, the model also gets its answers' confidence estimate (:func:`fit_answer_confidence`:
    :data:`~sitewise.mss.confidence.FOLDS` more fits, on fewer pages each), unless the pages are of too
    few sites for it (a warning says so)."""
    report = TrainingReport()
    usable, readable = [], []
    for html, truth, url in pages:
        report.pages += 1
        page = labelled_page(html, truth, url)
        if isinstance(page, str):
            report.skip(page)
            continue
        report.used += 1
        # the report's token counts are blocks here: the block model's units
        report.tokens_in += int(page.labels.sum())
        report.tokens_out += int((~page.labels).sum())
        usable.append(page)
        readable.append((html, truth, url))
    if not usable:
        raise ValueError(f"no usable training pages among {report.pages} ({report.skipped})")
    model = _fitted(usable, options)
    model.info_.update(report.as_dict(), trained_with=trained_with())
    log.info("block model: %s", report.as_dict())
    if confidence:
        try:
            model.confidence_ = fit_answer_confidence(readable, usable, **options)
        except ValueError as exc:  # too few sites to hold any out: the model is still a model
            log.warning("no confidence estimate: %s", exc)
    return model, report


def fit_answer_confidence(
    pages: Sequence[tuple[str | bytes, str, str | None]], labelled: Sequence[LabelledPage], **options: Any
) -> AnswerConfidence:
    """The confidence estimate of a model trained on ``labelled`` (the labelled ``pages``: html, truth,
    url), fitted on out-of-fold readings: the pages split into :data:`~sitewise.mss.confidence.FOLDS`
    folds by host, each fold's pages read by a model (``options``) fitted on the other folds' pages, each
    answer scored against its truth (word F1). A reading of a page whose site the trees saw would look
    surer than the readings of the pages users bring."""
    from sklearn.model_selection import GroupKFold

    # a page without an address is a site of its own
    groups = [(site_of(url) if url else "") or f"page {number}" for number, (_, _, url) in enumerate(pages)]
    if len(set(groups)) < FOLDS:
        raise ValueError(f"the confidence estimate needs pages of at least {FOLDS} sites; these have {len(set(groups))}")
    facts, scores = [], []
    for number, (trained, held_out) in enumerate(GroupKFold(n_splits=FOLDS).split(pages, groups=groups), 1):
        reader = BlockMSS(_fitted([labelled[i] for i in trained], options))
        for i in held_out:
            html, truth, url = pages[i]
            result = reader.extract(html, url)
            if result.facts is not None:
                facts.append(result.facts)
                scores.append(metrics.word_prf(result.text, truth).f1)
        log.info("confidence: fold %d of %d read, %d answers so far", number, FOLDS, len(scores))
    return AnswerConfidence().fit(np.array(facts), np.array(scores))


def _fitted(pages: Sequence[LabelledPage], options: dict[str, Any]) -> BlockModel:
    X, y, weights = training_table(pages)
    return BlockModel(**options).fit(X, y, sample_weight=weights)
