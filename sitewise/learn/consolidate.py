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
   Paths with no usable name at all (old table layouts: ``td > font > p``) get *tag chains* instead:
   the block's last few tags joined by ``>`` (``font > p``, ``td > font > p``, …), costlier than any
   named candidate, so names win whenever they exist.
4. Greedy cover: add the include selector that most improves the weighted F1 of selected against
   positive text, until nothing improves it; then add ``exclude`` selectors (read off the negative paths
   that the includes select) the same way. Ties go to the simplest selector: fewest compounds, fewest
   names, shortest text — the shortest selector that selects the same blocks.
"""
from __future__ import annotations

import functools
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Sequence, TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from scipy import sparse

from .features import is_generated_name
from .selectors import Step

#: Tags that name a region by themselves (HTML5 sectioning and landmarks): usable as containers.
SEMANTIC_TAGS = frozenset({"article", "main", "aside", "nav", "footer", "header", "figure", "form", "blockquote"})
#: Tags that may be excluded by name alone (``aside`` inside an article is never article text; a bare
#: ``p`` or ``a`` would be far too broad on pages not seen yet).
EXCLUDABLE_TAGS = frozenset({"aside", "nav", "footer", "form", "button", "figure", "figcaption", "iframe", "select", "small"})
#: At most this many include / exclude selectors per template: a site's article needs a few, more
#: would memorise the training pages.
MAX_INCLUDE = 6
MAX_EXCLUDE = 8
#: A selector must improve F1 by at least this much (0.1 point) to be added: below it, it fits one
#: page's oddity (a category class, a stray link) rather than the site's article.
MIN_GAIN = 0.001
#: The first include may be a container instead of the best candidate when it covers this share of
#: what the best covers, scores at most CONTAINER_SLACK less before excludes, and as well after them
#: (at most LOOKAHEAD such containers are tried).
CONTAINER_COVERAGE = 0.98
CONTAINER_SLACK = 0.05
LOOKAHEAD = 5
#: ... and when it needs at most this many excludes: a container that must be carved up further is a
#: layout column, not the article.
CONTAINER_EXCLUDES = 2
#: Pairs are formed with the last few steps of a path only (the block and its near ancestors).
PAIR_DEPTH = 3
#: Tag chains of unnamed paths are 2..this many steps long: long enough to tell the article's
#: ``td > font > p`` from a sidebar's ``td > p``, short enough to survive a wrapper added elsewhere.
MAX_CHAIN = 4
#: A chain costs this plus CHAIN_STEP_COST per tag: more than a named container or pair, so that a
#: name is used whenever one selects as well.
CHAIN_BASE_COST = 2.0
CHAIN_STEP_COST = 0.3
_PLAIN_TAG = re.compile(r"[a-z][a-z0-9]*")


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


@functools.lru_cache(maxsize=65536)
def step_selectors(step: Step, *, for_exclude: bool = False) -> tuple[tuple[str, float], ...]:
    """Compound selectors describing one step, with their cost."""
    out: list[tuple[str, float]] = []
    if step.id and not is_generated_name(step.id):
        out.append((Step(step.tag, step.id).css(), 1.0))
    for name in sorted(step.classes):
        if not is_generated_name(name):
            out.append((Step(step.tag, "", frozenset([name])).css(), 1.1))
    if step.tag in SEMANTIC_TAGS or (for_exclude and step.tag in EXCLUDABLE_TAGS):
        out.append((step.tag, 1.3))
    return tuple(out)


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
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray] | None] = {}
        self._windows: dict[int, dict[tuple[str, ...], list[int]]] = {}

    @staticmethod
    @functools.lru_cache(maxsize=65536)
    def _all_keys(step: Step) -> frozenset[str]:
        keys = {step.tag}
        if step.id:
            keys.add(Step(step.tag, step.id).css())
        keys.update(Step(step.tag, "", frozenset([c])).css() for c in step.classes)
        return frozenset(keys)

    def chain(self, tags: tuple[str, ...]) -> np.ndarray:
        """Paths where the tags occur as a run of parent → child steps (at any depth: container
        semantics), found through a window index built once per chain length."""
        windows = self._windows.get(len(tags))
        if windows is None:
            windows = defaultdict(list)
            for number, steps in enumerate(self.paths):
                seen = set()
                for end in range(len(tags), len(steps) + 1):
                    window = tuple(step.tag for step in steps[end - len(tags): end])
                    if window not in seen:
                        seen.add(window)
                        windows[window].append(number)
            self._windows[len(tags)] = windows
        return np.asarray(windows.get(tags, ()), dtype=int)

    def arrays(self, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The paths where the step key occurs (ids, ascending) with its shallowest and deepest depth in
        each; None where it does not. Made on first asking: most keys of a site are never candidates."""
        if key in self._arrays:
            return self._arrays[key]
        per_path = self.depths.get(key)
        entry = None
        if per_path is not None:
            # the paths were read in id order, so each key's ids come ascending
            count = len(per_path)
            entry = (np.fromiter(per_path.keys(), dtype=int, count=count),
                     np.fromiter(map(min, per_path.values()), dtype=int, count=count),
                     np.fromiter(map(max, per_path.values()), dtype=int, count=count))
        self._arrays[key] = entry
        return entry

    def single(self, key: str) -> np.ndarray:
        entry = self.arrays(key)
        return entry[0] if entry is not None else np.zeros(0, dtype=int)

    def pair(self, anchor: str, child: str, direct: bool) -> np.ndarray:
        a, c = self.arrays(anchor), self.arrays(child)
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
        if not named:
            _add_chains(index, steps, seen)
        for depth, key, cost in named:
            for later in range(max(depth + 1, last - PAIR_DEPTH + 1), last + 1):
                step = steps[later]
                for child, child_cost in [(step.tag, 0.8), *step_selectors(step)]:
                    for direct in (later == depth + 1, False) if later == depth + 1 else (False,):
                        selector = f"{key} {'> ' if direct else ''}{child}"
                        if selector not in seen:
                            seen[selector] = Candidate(
                                selector, index.pair(key, child, direct), cost + child_cost + 0.5 + 0.1 * direct
                            )
    return [c for c in seen.values() if len(c.paths)]


def _add_chains(index: PathIndex, steps: tuple[Step, ...], seen: dict[str, Candidate]) -> None:
    """Tag-chain candidates for a path without any usable name (see :data:`MAX_CHAIN`)."""
    for length in range(2, min(MAX_CHAIN, len(steps) - 1) + 1):
        tags = tuple(step.tag for step in steps[-length:])
        if not all(_PLAIN_TAG.fullmatch(tag) for tag in tags):
            break
        selector = " > ".join(tags)
        if selector not in seen:
            seen[selector] = Candidate(selector, index.chain(tags), CHAIN_BASE_COST + CHAIN_STEP_COST * length)


def _tie_key(candidate: Candidate) -> tuple[float, int]:
    return (candidate.cost, len(candidate.selector))


def _membership(candidates: Sequence[Candidate], paths: int) -> "sparse.csr_matrix":
    """Candidates × paths, 1 where the candidate selects the path: one product scores all candidates."""
    from scipy import sparse

    rows = np.repeat(np.arange(len(candidates)), [len(c.paths) for c in candidates])
    columns = np.concatenate([c.paths for c in candidates]) if candidates else np.zeros(0, dtype=int)
    return sparse.csr_matrix((np.ones(len(columns)), (rows, columns)), shape=(len(candidates), paths))


def _pick(f1: np.ndarray, candidates: Sequence[Candidate], current: float) -> int | None:
    """The candidate with the best F1 — the simplest among those within ``MIN_GAIN`` of it — if it
    improves on ``current`` by more than ``MIN_GAIN``."""
    if not len(f1):
        return None
    top = float(f1.max())
    if top <= current + MIN_GAIN:
        return None
    near = np.nonzero(f1 >= top - MIN_GAIN)[0]
    return int(min(near, key=lambda i: _tie_key(candidates[i])))


def _equivalents(chosen: Candidate, candidates: Sequence[Candidate]) -> list[str]:
    """Other single compounds that select exactly the same paths (``div.entry-content`` and
    ``div.article-body`` on one element): listed with the chosen one, the rule still holds when a
    redesign or another layout of the site keeps only one of the names."""
    if " " in chosen.selector:
        return []
    same = [
        c.selector for c in candidates
        if c is not chosen and " " not in c.selector and c.selector not in SEMANTIC_TAGS
        and len(c.paths) == len(chosen.paths) and np.array_equal(c.paths, chosen.paths)
    ]
    return sorted(same)


def _f1(tp: float, fp: float, positives: float) -> float:
    denominator = 2 * tp + fp + (positives - tp)
    return 2 * tp / denominator if denominator > 0 else 0.0


def _exclusions(
    index: PathIndex, selected: np.ndarray, positive: np.ndarray, negative: np.ndarray, total: float,
    tp: float, fp: float,
) -> tuple[list[str], np.ndarray, float, float, float]:
    """Greedy excludes for a selection: (excludes, selection after them, tp, fp, F1)."""
    selected = selected.copy()
    current = _f1(tp, fp, total)
    exclude: list[str] = []
    exclusions = _candidates(index, np.nonzero(selected & (negative > 0))[0], for_exclude=True)
    if not exclusions:
        return exclude, selected, tp, fp, current
    membership = _membership(exclusions, len(selected))
    alive = np.ones(len(exclusions), dtype=bool)
    while len(exclude) < MAX_EXCLUDE and alive.any():
        loss_tp = membership @ (positive * selected)
        loss_fp = membership @ (negative * selected)
        new_tp = tp - loss_tp
        f1 = 2 * new_tp / np.maximum(2 * new_tp + (fp - loss_fp) + (total - new_tp), 1e-12)
        f1[~alive | (loss_tp + loss_fp <= 0)] = -1.0
        best = _pick(f1, exclusions, current)
        if best is None:
            break
        chosen = exclusions[best]
        exclude.append(chosen.selector)
        selected[chosen.paths] = False
        tp, fp, current = float(new_tp[best]), fp - float(loss_fp[best]), float(f1[best])
        alive[best] = False
    return exclude, selected, tp, fp, current


def induce(
    paths: "Sequence[tuple[Step, ...]] | PathIndex",
    positive: np.ndarray,
    negative: np.ndarray,
    *,
    equivalents: bool = True,
    max_include: int = MAX_INCLUDE,
) -> Induction:
    """Include and exclude selectors that select the positive weight of the paths and little else.

    ``paths`` may be a :class:`PathIndex` already built over the same paths (learning builds one per
    site). The first include — the article's main container — is chosen by looking ahead: each of the
    :data:`LOOKAHEAD` best candidates is scored with the excludes it would get, so a container plus an
    exclude for its share bar beats "its paragraphs only" (which would miss the lists, quotes and
    sub-headings of articles not seen yet); containers win ties. With ``equivalents``, each include
    lists the single compounds equivalent to it on the training pages (see :func:`_equivalents`)."""
    index = paths if isinstance(paths, PathIndex) else PathIndex(paths)
    count = len(index.paths)
    total = float(positive.sum())
    selected = np.zeros(count, dtype=bool)
    if total <= 0:
        return Induction([], [], 0.0, selected)
    include: list[str] = []
    tp = fp = current = 0.0
    candidates = _candidates(index, np.nonzero(positive > 0)[0], for_exclude=False)
    membership = _membership(candidates, count)
    alive = np.ones(len(candidates), dtype=bool)
    while len(include) < max_include and alive.any():
        free = ~selected
        gain_tp = membership @ (positive * free)
        gain_fp = membership @ (negative * free)
        new_tp = tp + gain_tp
        f1 = 2 * new_tp / np.maximum(2 * new_tp + fp + gain_fp + (total - new_tp), 1e-12)
        f1[~alive] = -1.0
        if include:
            best = _pick(f1, candidates, current)
        else:
            best = _look_ahead(f1, candidates, index, positive, negative, total, gain_tp, gain_fp)
        if best is None:
            break
        chosen = candidates[best]
        include.append(", ".join([chosen.selector] + (_equivalents(chosen, candidates) if equivalents else [])))
        selected[chosen.paths] = True
        tp, fp, current = float(new_tp[best]), fp + float(gain_fp[best]), float(f1[best])
        alive[best] = False
    exclude, selected, tp, fp, current = _exclusions(index, selected, positive, negative, total, tp, fp)
    return Induction(include, exclude, current, selected)


def _look_ahead(
    f1: np.ndarray, candidates: Sequence[Candidate], index: PathIndex, positive: np.ndarray, negative: np.ndarray,
    total: float, gain_tp: np.ndarray, gain_fp: np.ndarray,
) -> int | None:
    """The first include: the best candidate, or a container that covers (nearly) as much article text
    and does as well once it has its excludes; containers first among near-equals, then the simplest."""
    best = _pick(f1, candidates, 0.0)
    if best is None:
        return None
    containers = [
        i for i in np.nonzero((gain_tp >= CONTAINER_COVERAGE * gain_tp[best]) & (f1 >= f1[best] - CONTAINER_SLACK))[0]
        if " " not in candidates[i].selector and i != best
    ]
    distinct: dict[bytes, int] = {}
    for i in sorted(containers, key=lambda i: (-f1[i], _tie_key(candidates[i]))):
        distinct.setdefault(candidates[i].paths.tobytes(), int(i))
    options = [best] + list(distinct.values())[:LOOKAHEAD]
    scored = []
    for i in options:
        selected = np.zeros(len(positive), dtype=bool)
        selected[candidates[i].paths] = True
        exclude, _, _, _, final = _exclusions(index, selected, positive, negative, total, float(gain_tp[i]), float(gain_fp[i]))
        if i == best or len(exclude) <= CONTAINER_EXCLUDES:
            scored.append((final, i))
    top = max(final for final, _ in scored)
    near = [i for final, i in scored if final >= top - MIN_GAIN]
    return min(near, key=lambda i: (" " in candidates[i].selector, _tie_key(candidates[i])))
