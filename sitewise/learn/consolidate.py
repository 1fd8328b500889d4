"""Consolidating the chosen blocks' selector paths into a few robust CSS selectors.

The spider project merged selectors pairwise (O(n²) over all chosen blocks): two paths of equal length
became one by intersecting ids and classes step by step. Here rules are *induced* instead, in time linear
in the number of distinct selector paths:

1. Blocks are merged by selector path (a rule cannot tell two blocks with the same path apart), each
   path carrying the weight of its article (positive) and non-article (negative) text.
2. Candidate selectors are read off the positive paths: every named step (``tag.class`` or ``tag#id``,
   generated names dropped — see :func:`.features.is_generated_name`) as a container (``div.entry``:
   everything inside it), and pairs of a named step with a later step (``div.entry p``,
   ``div.entry > blockquote``). Semantic containers (``article``, ``main``) count as named.
3. An inverted index maps each step key to the paths that contain it, so a candidate's selected paths
   are found by set operations, not by matching it against every block.
4. Greedy cover: add the include selector that most improves the weighted F1 of selected against
   positive text, until nothing improves it; then add ``exclude`` selectors (read off the negative paths
   that the includes select) the same way. Ties go to the simplest selector: fewest compounds, fewest
   names, shortest text — the shortest selector that selects the same blocks.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .features import is_generated_name
from .selectors import Step

#: Tags that name a region by themselves (HTML5 sectioning and landmarks): usable as containers.
SEMANTIC_TAGS = frozenset({"article", "main", "aside", "nav", "footer", "header", "figure", "form", "blockquote"})
#: Tags too common to be a selector on their own or to anchor one.
GENERIC_TAGS = frozenset({"html", "body", "div", "span"})
#: At most this many include / exclude selectors per template: a site's article needs a few, more
#: would memorise the training pages.
MAX_INCLUDE = 6
MAX_EXCLUDE = 8
#: A selector must improve F1 by at least this much to be added (below it, it is fitting noise).
MIN_GAIN = 1e-4
#: Pairs are formed with the last few steps of a path only (the block and its near ancestors).
PAIR_DEPTH = 3


@dataclass
class Candidate:
    selector: str
    paths: np.ndarray  # indices of the distinct paths it selects (container semantics)
    cost: float  # simplicity: lower is simpler


@dataclass
class Induction:
    """The induced rules and how well they fit the weights they were induced from."""

    include: list[str]
    exclude: list[str]
    f1: float
    selected: np.ndarray  # boolean per distinct path


def step_selectors(step: Step, *, for_exclude: bool = False) -> list[tuple[str, float]]:
    """Compound selectors describing one step, with their cost."""
    out: list[tuple[str, float]] = []
    if step.id and not is_generated_name(step.id):
        out.append((Step(step.tag, step.id).css(), 1.0))
    for name in sorted(step.classes):
        if not is_generated_name(name):
            out.append((Step(step.tag, "", frozenset([name])).css(), 1.1))
    if step.tag in SEMANTIC_TAGS or (for_exclude and step.tag not in GENERIC_TAGS | {"p"}):
        out.append((step.tag, 1.3))
    return out


class PathIndex:
    """Distinct selector paths and, for every step key, the paths where it occurs (sorted ids) with the
    shallowest and deepest depth of the occurrence in each."""

    def __init__(self, paths: Sequence[tuple[Step, ...]]) -> None:
        self.paths = list(paths)
        depths: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for number, steps in enumerate(self.paths):
            for depth, step in enumerate(steps):
                if depth == 0 and step.tag == "body":
                    continue
                for key in self._all_keys(step):
                    depths[key][number].append(depth)
        self.depths = depths
        self.arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for key, per_path in depths.items():
            ids = np.fromiter(per_path.keys(), dtype=int, count=len(per_path))
            order = np.argsort(ids)
            shallow = np.fromiter((min(v) for v in per_path.values()), dtype=int, count=len(per_path))
            deep = np.fromiter((max(v) for v in per_path.values()), dtype=int, count=len(per_path))
            self.arrays[key] = (ids[order], shallow[order], deep[order])

    @staticmethod
    def _all_keys(step: Step) -> set[str]:
        keys = {step.tag}
        if step.id:
            keys.add(Step(step.tag, step.id).css())
        keys.update(Step(step.tag, "", frozenset([c])).css() for c in step.classes)
        return keys

    def single(self, key: str) -> np.ndarray:
        entry = self.arrays.get(key)
        return entry[0] if entry is not None else np.zeros(0, dtype=int)

    def pair(self, anchor: str, child: str, direct: bool) -> np.ndarray:
        a, c = self.arrays.get(anchor), self.arrays.get(child)
        if a is None or c is None:
            return np.zeros(0, dtype=int)
        common, ia, ic = np.intersect1d(a[0], c[0], assume_unique=True, return_indices=True)
        if direct:
            anchors, children = self.depths[anchor], self.depths[child]
            keep = [n for n in common if any(d + 1 in children[n] for d in anchors[n])]
            return np.asarray(keep, dtype=int)
        return common[a[1][ia] < c[2][ic]]


def _candidates(index: PathIndex, sources: np.ndarray, *, for_exclude: bool) -> list[Candidate]:
    seen: dict[str, Candidate] = {}
    for number in sources:
        steps = index.paths[number]
        last = len(steps) - 1
        named = [(depth, key, cost) for depth, step in enumerate(steps) if depth > 0
                 for key, cost in step_selectors(step, for_exclude=for_exclude)]
        for depth, key, cost in named:
            if key not in seen:
                seen[key] = Candidate(key, index.single(key), cost)
        if for_exclude:
            continue
        for depth, key, cost in named:
            for later in range(max(depth + 1, last - PAIR_DEPTH + 1), last + 1):
                step = steps[later]
                for child, child_cost in [(step.tag, 0.8)] + step_selectors(step):
                    for direct in (later == depth + 1, False) if later == depth + 1 else (False,):
                        selector = f"{key} {'> ' if direct else ''}{child}"
                        if selector not in seen:
                            seen[selector] = Candidate(
                                selector, index.pair(key, child, direct), cost + child_cost + 0.5 + 0.1 * direct
                            )
    return [c for c in seen.values() if len(c.paths)]


def _f1(tp: float, fp: float, positives: float) -> float:
    denominator = 2 * tp + fp + (positives - tp)
    return 2 * tp / denominator if denominator > 0 else 0.0


def _tie_key(candidate: Candidate) -> tuple[float, int]:
    return (candidate.cost, len(candidate.selector))


def _best(scored: list[tuple[float, Candidate, tuple[float, float]]], current: float):
    """The candidate with the best F1 (the simplest among those within ``MIN_GAIN`` of it), if it
    improves on ``current``."""
    if not scored:
        return None
    top = max(f1 for f1, _, _ in scored)
    if top <= current + MIN_GAIN:
        return None
    return min((item for item in scored if item[0] >= top - MIN_GAIN), key=lambda item: _tie_key(item[1]))


def induce(
    paths: Sequence[tuple[Step, ...]], positive: np.ndarray, negative: np.ndarray
) -> Induction:
    """Include and exclude selectors that select the positive weight of the paths and little else."""
    index = PathIndex(paths)
    total = float(positive.sum())
    selected = np.zeros(len(paths), dtype=bool)
    if total <= 0:
        return Induction([], [], 0.0, selected)
    include: list[str] = []
    tp = fp = current = 0.0
    candidates = _candidates(index, np.nonzero(positive > 0)[0], for_exclude=False)
    while len(include) < MAX_INCLUDE:
        scored = []
        for candidate in candidates:
            new = candidate.paths[~selected[candidate.paths]]
            gain = (float(positive[new].sum()), float(negative[new].sum()))
            scored.append((_f1(tp + gain[0], fp + gain[1], total), candidate, gain))
        chosen = _best(scored, current)
        if chosen is None:
            break
        current, best, gain = chosen
        include.append(best.selector)
        selected[best.paths] = True
        tp, fp = tp + gain[0], fp + gain[1]
        candidates = [c for c in candidates if c is not best]

    exclude: list[str] = []
    exclusions = _candidates(index, np.nonzero(selected & (negative > 0))[0], for_exclude=True)
    while len(exclude) < MAX_EXCLUDE:
        scored = []
        for candidate in exclusions:
            gone = candidate.paths[selected[candidate.paths]]
            if len(gone):
                loss = (float(positive[gone].sum()), float(negative[gone].sum()))
                scored.append((_f1(tp - loss[0], fp - loss[1], total), candidate, loss))
        chosen = _best(scored, current)
        if chosen is None:
            break
        current, best, loss = chosen
        exclude.append(best.selector)
        selected[best.paths] = False
        tp, fp = tp - loss[0], fp - loss[1]
        exclusions = [c for c in exclusions if c is not best]
    return Induction(include, exclude, current, selected)
