"""Training the block model from (html, truth text, url) pages: label each block by aligning the truth
to the page's lines (the same alignment as the token scorer's, :func:`.train.label_tokens`), weight each
page equally, fit.

Pages whose labelled blocks cover too little of the truth are skipped (the truth is not really on the
page, or the page did not parse the same way); a page whose truth is empty is kept with every block
out, so the model learns to answer "no article" where annotators found none.
"""
from __future__ import annotations

import logging
from typing import Iterable

import numpy as np

from .. import metrics
from .blockmodel import BlockModel, PageBlocks, page_blocks
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


def training_table(
    pages: Iterable[tuple[str | bytes, str, str | None]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, TrainingReport]:
    """Block rows, labels and sample weights of the usable pages among (html, truth, url) triples.

    Weights: each page weighs the same in all (the benchmark's score is a mean over pages), shared among
    its blocks by their words (a long paragraph matters more than a date line), scaled by the number of
    pages so that regularisation sees the magnitudes the settings were tuned with.
    """
    report = TrainingReport()
    rows, labels, shares = [], [], []
    for html, truth, url in pages:
        report.pages += 1
        blocks = page_blocks(html, url)
        if not blocks.lines.size:
            report.skip("no text")
            continue
        if metrics.words(truth):
            label, coverage = block_labels(blocks, truth)
            if coverage < MIN_TRUTH_COVERAGE:
                report.skip("truth not found in page")
                continue
        else:
            label = np.zeros(blocks.lines.size, dtype=bool)
        words = np.maximum(blocks.words, 1)
        rows.append(blocks.features)
        labels.append(label)
        shares.append(words / words.sum())
        report.used += 1
        report.tokens_in += int(words[label].sum())
        report.tokens_out += int(words[~label].sum())
    if not rows:
        raise ValueError(f"no usable training pages among {report.pages} ({report.skipped})")
    weights = np.concatenate(shares) * report.used
    return np.concatenate(rows), np.concatenate(labels), weights, report


def train_block_model(
    pages: Iterable[tuple[str | bytes, str, str | None]], **options
) -> tuple[BlockModel, TrainingReport]:
    """A block model fitted on (html, truth, url) triples; ``options`` go to :class:`BlockModel`."""
    X, y, weights, report = training_table(pages)
    model = BlockModel(**options).fit(X, y, sample_weight=weights)
    model.info_.update(report.as_dict())
    log.info("block model: %s", report.as_dict())
    return model, report
