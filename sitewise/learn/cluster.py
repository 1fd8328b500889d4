"""DBSCAN over a site's blocks: blocks that look alike, with small differences, form one cluster.

Why this distance and this radius
---------------------------------
The original spider project one-hot encoded every CSS value and the tag path, standardised the columns
and ran DBSCAN with eps 0.5. Standardising divides each one-hot column by its standard deviation, so a
rare value (one page's different margin) becomes a coordinate of several units: *any* difference put two
blocks further apart than 0.5, and every "cluster" was a set of blocks with identical style and path.
Paragraphs whose first line had another margin, or that sat in an extra wrapper on one page, were split
off, and the clusters carried no more information than exact equality.

Here the distance between two blocks is a weighted Manhattan distance in which every feature's weight is
what a difference in it *costs* (see :mod:`.features`): a one-hot column is scaled by half its weight so
that two different values cost exactly the weight, a set of class names costs its weight times how much
the sets differ, numeric features cost their weight per unit. The radius :data:`EPS` = 0.1 then reads
as a budget: two blocks are neighbours when their differences add up to at most 0.1, e.g. another
margin and padding (0.01 each), another parent tag (0.06), a column shifted by 5% of the page (0.015),
a different length (at most 0.07); but not another tag or font (the *defining* features cost more than
the budget), nor entirely different surrounding classes (0.15).

Because a defining difference alone exceeds the radius, blocks with different defining features can
never be neighbours; DBSCAN is therefore exact when run on each group of equal defining features
separately, which keeps the pairwise distances small. Identical rows (after rounding positions to 1% of
the page width, lengths and link densities to coarse steps) are merged and weighted by their count, so
a site with a thousand pages costs little more than one with a hundred: the number of *kinds* of block
grows slowly with the number of pages.

``min_samples`` = 2: a kind of block must occur at least twice (on one page or across pages) to be a
cluster; a one-off block is noise and becomes a cluster of its own, judged on its own evidence.
"""
from __future__ import annotations

import itertools
import operator
from collections import defaultdict
from typing import Sequence

import numpy as np

from .features import NUMERIC_NAMES, NUMERIC_WEIGHTS, QUANTUM, SOFT_NAMES, SOFT_WEIGHTS, TOKEN_NAMES, TOKEN_WEIGHTS, BlockRecord

#: The neighbourhood radius, in units of the feature weights (see the module docstring).
EPS = 0.1
#: Occurrences (merged rows count by their multiplicity) that make a block kind a cluster.
MIN_SAMPLES = 2
#: Rows of a group whose distances to the whole group are computed at once (bounds the memory: a slice
#: of a 20,000-row group is 160 MB of float64, the whole of it would be 3.2 GB).
DISTANCE_SLICE = 1000
_KIND = operator.attrgetter("kind")
#: Stand-in for "no class names", so a named and an unnamed block differ by the full token weight.
_NO_NAMES = "\0none"


def _encode(rows: list[tuple]) -> np.ndarray:
    """Rows of one defining group as vectors whose Manhattan distance is the weighted difference."""
    columns: list[np.ndarray] = []
    for position, name in enumerate(SOFT_NAMES):
        values = [row[1][position] for row in rows]
        vocabulary = sorted(set(values))
        if len(vocabulary) < 2:
            continue
        index = {value: i for i, value in enumerate(vocabulary)}
        block = np.zeros((len(rows), len(vocabulary)))
        block[np.arange(len(rows)), [index[v] for v in values]] = SOFT_WEIGHTS[name] / 2
        columns.append(block)
    for position, name in enumerate(TOKEN_NAMES):
        sets = [row[2][position] or frozenset([_NO_NAMES]) for row in rows]
        vocabulary = sorted(set().union(*sets))
        if len(vocabulary) < 2:
            continue
        index = {token: i for i, token in enumerate(vocabulary)}
        block = np.zeros((len(rows), len(vocabulary)))
        for r, names in enumerate(sets):
            block[r, [index[t] for t in names]] = TOKEN_WEIGHTS[name] / (2 * len(names))
        columns.append(block)
    numeric = np.array([[q * QUANTUM[n] * NUMERIC_WEIGHTS[n] for q, n in zip(row[3], NUMERIC_NAMES)] for row in rows])
    columns.append(numeric)
    return np.hstack(columns)


def distinct_rows(records: Sequence[BlockRecord]) -> tuple[list[tuple], np.ndarray]:
    """The distinct feature rows of the records (:meth:`BlockRecord.row_key`, in order of first
    occurrence) and each record's row number.

    The same as numbering the records' ``row_key()``s, without building a quarter of a million key
    tuples for a thousand-page site: the categorical part is the records' :attr:`~.BlockRecord.kind`,
    the numeric part is rounded in one array operation (``np.rint`` rounds half to even, as Python's
    ``round`` does)."""
    kind_of = np.fromiter(map(_KIND, records), dtype=np.int64, count=len(records))
    width = len(NUMERIC_NAMES)
    numeric = np.fromiter(itertools.chain.from_iterable(r.numeric for r in records), dtype=float, count=width * len(records))
    quanta = np.array([QUANTUM[name] for name in NUMERIC_NAMES])
    steps = np.rint(numeric.reshape(len(records), width) / quanta).astype(np.int64)
    table = np.ascontiguousarray(np.column_stack([kind_of, steps]))
    # Each row as one opaque value (its bytes): np.unique over those is a third of the time of its row-wise
    # form, and equal bytes are equal rows. (Their order differs; rows are numbered by first occurrence below.)
    as_values = table.view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()
    _, first, inverse = np.unique(as_values, return_index=True, return_inverse=True)
    order = np.argsort(first)
    number_of = np.empty(len(order), dtype=np.int64)
    number_of[order] = np.arange(len(order))
    rows = [
        (records[n].defining, records[n].soft, records[n].tokens, tuple(steps[n].tolist())) for n in first[order].tolist()
    ]
    return rows, number_of[inverse.ravel()]


def cluster_blocks(records: Sequence[BlockRecord], eps: float = EPS, min_samples: int = MIN_SAMPLES) -> np.ndarray:
    """A cluster label for every record (noise blocks get labels of their own, never -1)."""
    from scipy import sparse
    from scipy.spatial.distance import cdist
    from sklearn.cluster import DBSCAN

    if not records:
        return np.zeros(0, dtype=int)
    rows, row_of = distinct_rows(records)
    counts = np.bincount(row_of, minlength=len(rows)).astype(float)

    groups: dict[tuple, list[int]] = defaultdict(list)
    for number, row in enumerate(rows):
        groups[row[0]].append(number)
    pairs_i, pairs_j, distances = [], [], []
    for members in groups.values():
        if len(members) < 2:
            continue
        vectors = _encode([rows[m] for m in members])
        ids = np.asarray(members)
        # In slices of rows, so that a large group never needs its whole distance matrix at once.
        for start in range(0, len(members), DISTANCE_SLICE):
            within = cdist(vectors[start : start + DISTANCE_SLICE], vectors, metric="cityblock")
            a, b = np.nonzero(within <= eps)
            keep = a + start != b
            pairs_i.append(ids[a[keep] + start])
            pairs_j.append(ids[b[keep]])
            # Stored entries are the neighbours; a distance of exactly 0 must still be stored.
            distances.append(np.maximum(within[a[keep], b[keep]], 1e-9))
    n = len(rows)
    if pairs_i:
        graph = sparse.csr_matrix(
            (np.concatenate(distances), (np.concatenate(pairs_i), np.concatenate(pairs_j))), shape=(n, n)
        )
    else:
        graph = sparse.csr_matrix((n, n))
    labels = DBSCAN(eps=eps, min_samples=min_samples, metric="precomputed").fit(graph, sample_weight=counts).labels_
    # Noise rows become clusters of their own: they are judged on their own evidence later.
    next_label = labels.max() + 1 if len(labels) else 0
    for number in np.nonzero(labels < 0)[0]:
        labels[number] = next_label
        next_label += 1
    return labels[row_of]
