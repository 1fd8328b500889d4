"""The report of ``sitewise bench mss`` (:mod:`sitewise.bench.mss`): what each system scored on each page,
summed up into one table with every set as a row and every system as a column, then the details
(shingle F1, precision and recall, wcxb-dev by page type, speed), where sitewise still loses, and the
worst pages by id.

Only page ids and numbers are written: the evaluation data may not be copied into the repository, so
no page text, truth or extraction ever reaches the report.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .. import metrics
from ..metrics import Score

#: The block model's column (the fallback as it ships).
SYSTEM = "mss"
#: sitewise's fallbacks before the block model, for reference (registry names): the hand-set line scorer
#: (the previous default) and the paper's scorer.
OLDER_FALLBACKS = ("mss-line", "mss-baseline")
#: The peer every speed ratio is taken against (the issue's target: at least 2× faster than it).
SPEED_REFERENCE = "trafilatura"
#: Pages listed per set under "worst pages".
WORST_PAGES = 10
#: A peer ahead by less than this is a tie, not a loss (a few pages' noise on the smallest rows).
TIE = 0.0005
#: The issue's targets (mean word F1), shown beside the table: row label → target.
TARGETS = {
    "wcxb-dev": 0.88, "wcxb-dev article": 0.95, "cleaneval": 0.902, "l3s-gn1": 0.928, "dragnet-test": 0.895,
}
#: The bands of the fallback's confidence the report counts its answers in, [low, high).
CONFIDENCE_BANDS = ((0.9, math.inf), (0.7, 0.9), (0.5, 0.7), (-math.inf, 0.5))


@dataclass(frozen=True)
class Outcome:
    """One system's answer on one page, scored and timed."""

    #: Bag-of-words precision, recall and F1 (:func:`sitewise.metrics.word_prf`).
    score: Score
    #: Normalised (tp, fp, fn) over 4-token shingles (:func:`sitewise.metrics.shingle_counts`).
    shingles: tuple[float, float, float]
    cpu_ms: float
    wall_ms: float
    empty: bool
    #: The system raised on this page (it then scores as an empty answer).
    failed: bool = False
    #: The answer's own confidence, where the system gives one (the fallback: its estimated word F1).
    confidence: float | None = None


@dataclass
class PageResult:
    """Every system's outcome on one page."""

    id: str
    set: str
    page_type: str | None
    outcomes: dict[str, Outcome]


@dataclass(frozen=True)
class Summary:
    """One system on a group of pages: word scores (means), shingle F1, failures and time per page."""

    words: metrics.Summary
    shingle_f1: float
    failed: int
    cpu_ms: float
    median_cpu_ms: float
    wall_ms: float
    median_wall_ms: float

    @classmethod
    def of(cls, outcomes: Sequence[Outcome]) -> "Summary":
        cpu, wall = [o.cpu_ms for o in outcomes] or [math.nan], [o.wall_ms for o in outcomes] or [math.nan]
        return cls(
            words=metrics.Summary.of([o.score for o in outcomes], empty=sum(o.empty for o in outcomes)),
            shingle_f1=metrics.shingle_prf(o.shingles for o in outcomes).f1, failed=sum(o.failed for o in outcomes),
            cpu_ms=statistics.fmean(cpu), median_cpu_ms=statistics.median(cpu),
            wall_ms=statistics.fmean(wall), median_wall_ms=statistics.median(wall),
        )

    @property
    def f1(self) -> float:
        return self.words.f1


@dataclass
class Run:
    """Everything the report shows besides the pages: how the run was made and what was trained."""

    command: str
    environment: dict[str, Any]
    systems: list[str]
    #: Systems asked for that could not run (name → why).
    skipped: dict[str, str]
    #: How each peer is called.
    calls: dict[str, str]
    #: Which sets were scored out of fold (the model trains on them) and which stay untouched.
    out_of_fold: list[str]
    untouched: list[str]
    folds: int
    #: Training facts: labelled pages per set, fold sizes and times, the model the untouched sets saw.
    training: dict[str, Any] = field(default_factory=dict)
    minutes: float = 0.0
    finished: str = ""
    load_average_end: list[float] | None = None


# -- grouping ---------------------------------------------------------------------------------------------


def rows(results: Sequence[PageResult], sets: Sequence[str]) -> list[tuple[str, list[PageResult]]]:
    """(label, pages) per set, in ``sets`` order."""
    return [(name, [r for r in results if r.set == name]) for name in sets if any(r.set == name for r in results)]


def page_type_rows(results: Sequence[PageResult], sets: Sequence[str]) -> list[tuple[str, list[PageResult]]]:
    """(``set type``, pages) for every page type of every set whose pages have one (wcxb-dev)."""
    out = []
    for name, pages in rows(results, sets):
        for page_type in sorted({r.page_type for r in pages if r.page_type}):
            out.append((f"{name} {page_type}", [r for r in pages if r.page_type == page_type]))
    return out


def summary(pages: Sequence[PageResult], system: str) -> Summary:
    return Summary.of([p.outcomes[system] for p in pages if system in p.outcomes])


def cpu_ratio(pages: Sequence[PageResult], system: str) -> float | None:
    """The system's CPU time over :data:`SPEED_REFERENCE`'s on the same pages (None without it)."""
    both = [p for p in pages if system in p.outcomes and SPEED_REFERENCE in p.outcomes]
    reference = sum(p.outcomes[SPEED_REFERENCE].cpu_ms for p in both)
    if not both or reference <= 0:
        return None
    return sum(p.outcomes[system].cpu_ms for p in both) / reference


# -- the report ---------------------------------------------------------------------------------------------


def render(run: Run, results: Sequence[PageResult]) -> str:
    sets = [*run.out_of_fold, *run.untouched]
    set_rows = [(_label(name, run), pages) for name, pages in rows(results, sets)]
    by_type = page_type_rows(results, run.out_of_fold)
    sections = [
        _title(run),
        _table("## One table: mean word F1", set_rows, run.systems, lambda s: s.f1, targets=True),
        _table("## Shingle F1 (Scrapinghub article-extraction-benchmark metric)", set_rows, run.systems,
               lambda s: s.shingle_f1),
        _table("## wcxb-dev by page type (out of fold): mean word F1", by_type, run.systems, lambda s: s.f1,
               targets=True) if by_type else "",
        _precision_recall(set_rows + by_type, run.systems),
        _speed(results, set_rows, run.systems),
        _confidence(set_rows + by_type),
        _losses(set_rows, by_type, run),
        _worst(results, sets, run.systems),
        _method(run),
    ]
    return "\n".join(section for section in sections if section)


def summary_text(run: Run, results: Sequence[PageResult]) -> str:
    """What the command prints: the one table, the speed ratios and where sitewise loses, as plain text."""
    sets = [*run.out_of_fold, *run.untouched]
    set_rows = [(_label(name, run), pages) for name, pages in rows(results, sets)]
    by_type = page_type_rows(results, run.out_of_fold)
    width = max((len(label) for label, _ in set_rows + by_type), default=len("mean word F1"))
    lines = [f"{'mean word F1':{width}s} {'pages':>5s}" + "".join(f"{name[:12]:>13}" for name in run.systems)]
    for label, pages in set_rows + by_type:
        cells = "".join(f"{summary(pages, name).f1:13.3f}" for name in run.systems)
        lines.append(f"{label:{width}s} {len(pages):5d}{cells}")
    everything = [page for _, pages in set_rows for page in pages]
    ratios = ", ".join(f"{name} {ratio:.2f}" for name in run.systems
                       if (ratio := cpu_ratio(everything, name)) is not None)
    lines.append(f"CPU time ÷ {SPEED_REFERENCE}'s, all pages: {ratios or f'{SPEED_REFERENCE} did not run'}")
    lines += [line.removeprefix("- ") for line in _loss_lines(set_rows, by_type, run)]
    return "\n".join(lines)


def _label(name: str, run: Run) -> str:
    return f"{name} (out of fold)" if name in run.out_of_fold else name


def _title(run: Run) -> str:
    env = run.environment
    machine = env.get("machine", {})
    load = " / ".join(f"{x:.2f}" for x in machine.get("load_average_start") or []) or "?"
    load_end = " / ".join(f"{x:.2f}" for x in run.load_average_end or []) or "?"
    lines = [
        "# MSS fallback benchmark: the block model beside the extractors people use",
        "",
        "Written by `sitewise bench mss` (`sitewise/bench/mss.py`); every number below comes from this one run:",
        "",
        "```",
        run.command,
        "```",
        "",
        f"- Run: {env.get('started', '?')} → {run.finished or '?'} ({run.minutes:.1f} min).",
        f"- Machine: {machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gb')} GB RAM, "
        f"{machine.get('os')}; shared with other engineers' jobs (load average {load} at the start, {load_end} "
        "at the end), so absolute times are noisy; every system runs on a page before the next page is read, "
        "so their ratios are fair.",
        f"- Python {env.get('python')}, sitewise {env.get('sitewise')}"
        + "".join(f"; {name} {version}" for name, version in env.get("peers", {}).items()
                  if version and name in run.systems) + ".",
    ]
    if run.skipped:
        lines.append("- Not run: " + "; ".join(f"{name} ({why})" for name, why in run.skipped.items()) + ".")
    lines += [
        "",
        f"Columns: `{SYSTEM}` is the block model (the fallback as it ships: `BlockMSS`); `mss-line` the hand-set "
        "line scorer (the default before a model shipped) and `mss-baseline` the paper's scorer, both for "
        "reference; the rest are the peers. Rows marked *out of fold* are sets the shipped model trains on: "
        f"each page there is scored by a model trained without its host ({run.folds}-fold, grouped by host). "
        "The other rows are sets no sitewise model trains on, scored with the model trained on all the "
        "training sets. Pages whose truth is not in the page (`truth_mismatch`) are left out everywhere (WCXB's "
        "own `evaluate.py`, behind its published figures, scores every page).",
        "",
    ]
    return "\n".join(lines)


def _table(title: str, table_rows: Sequence[tuple[str, list[PageResult]]], systems: Sequence[str],
           value: Callable[[Summary], float], targets: bool = False) -> str:
    """Rows × systems; the best value of each row in bold."""
    head = "| set | pages | " + " | ".join(systems) + (" | target |" if targets else " |")
    lines = [title, "", head, "|---|---|" + "---|" * (len(systems) + targets)]
    for label, pages in table_rows:
        values = [value(summary(pages, name)) for name in systems]
        best = max(values)
        cells = [f"**{v:.3f}**" if v == best else f"{v:.3f}" for v in values]
        target = TARGETS.get(label.removesuffix(" (out of fold)"))
        extra = [f"≥ {target}" if target else ""] if targets else []
        lines.append(f"| {label} | {len(pages)} | " + " | ".join(cells + extra) + " |")
    return "\n".join(lines + [""])


def _precision_recall(table_rows: Sequence[tuple[str, list[PageResult]]], systems: Sequence[str]) -> str:
    lines = ["## Precision / recall (mean word P / R) and empty answers", "",
             "| set | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
    for label, pages in table_rows:
        cells = []
        for name in systems:
            s = summary(pages, name)
            cells.append(f"{s.words.precision:.3f} / {s.words.recall:.3f} ({s.words.empty} empty"
                         + (f", {s.failed} failed)" if s.failed else ")"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines + [""])


def _speed(results: Sequence[PageResult], set_rows: Sequence[tuple[str, list[PageResult]]],
           systems: Sequence[str]) -> str:
    everything = [page for _, pages in set_rows for page in pages]
    lines = [
        "## Speed", "",
        f"Milliseconds per page of this process, all {len(everything)} scored pages. CPU time "
        "(`time.process_time`) is the fair measure on a shared machine; wall time is shown beside it. "
        f"*÷ {SPEED_REFERENCE}*: the system's CPU time over {SPEED_REFERENCE}'s on the same pages (the "
        "issue's target for the fallback: ≤ 0.5). For the out-of-fold sets the block model is timed on the "
        "held-out extraction (parse, features, trees, decoding), never on training.",
        "",
        f"| system | CPU mean | CPU median | wall mean | wall median | ÷ {SPEED_REFERENCE} |",
        "|---|---|---|---|---|---|",
    ]
    for name in systems:
        s = summary(everything, name)
        ratio = cpu_ratio(everything, name)
        lines.append(f"| {name} | {s.cpu_ms:.1f} | {s.median_cpu_ms:.1f} | {s.wall_ms:.1f} | {s.median_wall_ms:.1f} "
                     f"| {_ratio(ratio)} |")
    lines += ["", f"CPU ms per page by set (mean, and ÷ {SPEED_REFERENCE}):", "",
              "| set | " + " | ".join(systems) + " |", "|---|" + "---|" * len(systems)]
    for label, pages in set_rows:
        cells = [f"{summary(pages, name).cpu_ms:.1f} ({_ratio(cpu_ratio(pages, name))})" for name in systems]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines + [""])


def _confidence(table_rows: Sequence[tuple[str, list[PageResult]]]) -> str:
    """How well the fallback's confidence tells its good answers from its bad ones, set by set."""
    rated = [(label, [page.outcomes[SYSTEM] for page in pages if page.outcomes[SYSTEM].confidence is not None])
             for label, pages in table_rows]
    if not any(outcomes for _, outcomes in rated):
        return ""
    head = "| set | answers | mean confidence | mean F1 | Spearman ρ | " + " | ".join(
        f"confidence {band}" for band in _band_names()) + " |"
    lines = [
        "## How far to trust an answer: the fallback's confidence", "",
        "Each answer of the fallback carries its estimated word F1 (`confidence` in `sitewise.extract`'s JSON; "
        "`sitewise/mss/confidence.py`), fitted when the model is trained on the out-of-fold answers of its "
        "training pages. Rows of sets scored out of fold above use it with this run's fold models, on the "
        "pages it was fitted on; the untouched sets are its test. *ρ*: rank correlation of confidence and F1 "
        "(1: ranked alike). Each band: the answers given that confidence, and their mean word F1.", "",
        head, "|---|" + "---|" * (head.count("|") - 2),
    ]
    for label, outcomes in rated:
        if len(outcomes) < 2:
            continue
        given = [o.confidence for o in outcomes]
        f1 = [o.score.f1 for o in outcomes]
        cells = [f"{len(outcomes)}", f"{statistics.fmean(given):.3f}", f"{statistics.fmean(f1):.3f}",
                 f"{_rank_correlation(given, f1):.2f}"]
        for low, high in CONFIDENCE_BANDS:
            band = [score for confidence, score in zip(given, f1) if low <= confidence < high]
            cells.append(f"{len(band)}: {statistics.fmean(band):.3f}" if band else "0")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _band_names() -> list[str]:
    return [f"≥ {low}" if high == math.inf else f"< {high}" if low == -math.inf else f"{low}–{high}"
            for low, high in CONFIDENCE_BANDS]


def _rank_correlation(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's ρ (ties given their mean rank); 0 where either side is constant."""
    from scipy.stats import spearmanr

    if len(set(a)) < 2 or len(set(b)) < 2:
        return 0.0
    return float(spearmanr(a, b).statistic)


def _ratio(ratio: float | None) -> str:
    return "–" if ratio is None else f"{ratio:.2f}"


def _losses(set_rows: Sequence[tuple[str, list[PageResult]]], by_type: Sequence[tuple[str, list[PageResult]]],
            run: Run) -> str:
    lines = ["## Where sitewise still loses", ""]
    found = _loss_lines(set_rows, by_type, run)
    lines += found or [f"- Nowhere: `{SYSTEM}` has the best mean word F1 on every row above."]
    return "\n".join(lines + [""])


def _loss_lines(set_rows: Sequence[tuple[str, list[PageResult]]], by_type: Sequence[tuple[str, list[PageResult]]],
                run: Run) -> list[str]:
    """One line per row where a peer or an older sitewise fallback beats the block model, and one for
    speed when the block model misses the 2× target."""
    lines = []
    if SYSTEM not in run.systems:
        return lines
    for label, pages in [*set_rows, *by_type]:
        own = summary(pages, SYSTEM)
        others = [(name, summary(pages, name)) for name in run.systems if name != SYSTEM]
        ahead = sorted(((n, s) for n, s in others if s.f1 > own.f1 + TIE), key=lambda item: -item[1].f1)
        peers = [f"{name} {s.f1:.3f} (+{s.f1 - own.f1:.3f})" for name, s in ahead if name not in OLDER_FALLBACKS]
        older = [f"{name} {s.f1:.3f} (+{s.f1 - own.f1:.3f})" for name, s in ahead if name in OLDER_FALLBACKS]
        if ahead:
            lines.append(f"- {label} ({len(pages)} {'page' if len(pages) == 1 else 'pages'}): {SYSTEM} {own.f1:.3f}; "
                         + "; ".join(part for part in (
                             f"peers ahead: {', '.join(peers)}" if peers else "",
                             f"older sitewise fallbacks ahead: {', '.join(older)}" if older else "") if part) + ".")
    everything = [page for _, pages in set_rows for page in pages]
    ratio = cpu_ratio(everything, SYSTEM)
    if ratio is not None and ratio > 0.5:
        lines.append(f"- Speed: {SYSTEM} takes {ratio:.2f}× {SPEED_REFERENCE}'s CPU time (target ≤ 0.5).")
    return lines


def _worst(results: Sequence[PageResult], sets: Sequence[str], systems: Sequence[str]) -> str:
    if SYSTEM not in systems:
        return ""
    peers = [name for name in systems if name != SYSTEM]
    lines = [
        f"## The {WORST_PAGES} worst pages per set", "",
        f"`{SYSTEM}`'s lowest word F1 per set, with the best other system on the same page (ids only: the "
        "data may not be copied here; read the page in `../shared/data`).", "",
    ]
    for name, pages in rows(results, sets):
        worst = sorted(pages, key=lambda p: (p.outcomes[SYSTEM].score.f1, p.id))[:WORST_PAGES]
        lines += [f"**{name}**", "", "| page | type | F1 | P | R | empty | best other (F1) |", "|---|---|---|---|---|---|---|"]
        for page in worst:
            own = page.outcomes[SYSTEM]
            best = max(peers, key=lambda n: page.outcomes[n].score.f1) if peers else None
            other = f"{best} {page.outcomes[best].score.f1:.3f}" if best else "–"
            lines.append(f"| {page.id} | {page.page_type or ''} | {own.score.f1:.3f} | {own.score.precision:.3f} | "
                         f"{own.score.recall:.3f} | {'yes' if own.empty else ''} | {other} |")
        lines.append("")
    return "\n".join(lines)


def _method(run: Run) -> str:
    training = run.training
    lines = ["## How this was measured", ""]
    lines += [
        "- **Metrics**: mean over pages of bag-of-words precision, recall and F1 over lower-cased `\\w+` tokens "
        "(`sitewise.metrics.word_prf`), and the Scrapinghub shingle F1 (case-kept 4-token shingles, per page "
        "tp/fp/fn normalised, precision and recall averaged over pages, then F1; `metrics.shingle_prf`). A page "
        "whose truth is empty (no main content) scores word F1 1 for an answer without words, 0 otherwise; in "
        "the shingle metric it is in neither mean when the answer is empty too, and adds a precision of 0 "
        "otherwise. A system that raises on a page scores it as an empty answer (*failed*). Both are computed "
        "as WCXB's and Scrapinghub's `evaluate.py` compute them, on their tokens (Python's `\\w+`, nothing "
        "normalised: a decomposed accent or a soft hyphen splits a word, a run of Chinese, Japanese or Thai "
        "between punctuation is one token).",
        f"- **Out of fold** ({', '.join(run.out_of_fold) or 'none this run'}): the training sets' pages are "
        f"split into {run.folds} folds by host (scikit-learn `GroupKFold`; pages without a host are their own "
        "group), so a host's pages are all held out together; each fold is scored by a block model fitted on "
        "the other folds with the settings in the code (`BlockModel`, `blocktrain.training_table`). Every "
        "page is labelled once (`blocktrain.labelled_page`); pages it cannot label are left out of training "
        "but still scored.",
        f"- **Untouched** ({', '.join(run.untouched) or 'none this run'}): scored with "
        + (f"the model file `{training['model_file']}`." if training.get("model_file") else
           "one model fitted on every labelled page of the training sets (the model as shipped)."),
        "- **Same pages, same run**: for every page, every system extracts it before the next page is read, "
        "starting with a different system on each page (so no system is always first on a cold cache); each "
        "system extracts one tiny page first, untimed, so lazy loading is not counted.",
    ]
    if run.calls:
        lines.append("- **Peers**: " + "; ".join(f"{name}: `{call}`" for name, call in run.calls.items()) + ".")
    labelled = training.get("labelled", {})
    if labelled:
        lines += ["", "Training pages (labelled once, before the folds):", "",
                  "| set | pages | labelled | not labelled (why) |", "|---|---|---|---|"]
        for name, facts in labelled.items():
            why = ", ".join(f"{reason}: {count}" for reason, count in facts["skipped"].items()) or "–"
            lines.append(f"| {name} | {facts['pages']} | {facts['used']} | {why} |")
    folds = training.get("folds", [])
    if folds:
        lines += ["", "| fold | held-out pages | training pages | training blocks | fit s |", "|---|---|---|---|---|"]
        for fold in folds:
            lines.append(f"| {fold['fold']} | {fold['held_out']} | {fold['pages']} | {fold['blocks']} | {fold['seconds']:.0f} |")
    shipped = training.get("shipped")
    if shipped:
        lines += ["", f"Model for the untouched sets: {shipped['pages']} training pages, {shipped['blocks']} blocks, "
                      f"fitted in {shipped['seconds']:.0f} s."]
    if training.get("settings"):
        lines += ["", "Block model settings given on the command line: "
                  + ", ".join(f"`{k}={v}`" for k, v in training["settings"].items()) + "."]
    lines += [
        "",
        "Before the block model (the token pipeline's report, in git history): the hand-set line scorer scored "
        "0.902 / 0.928 / 0.895 on cleaneval / l3s-gn1 / dragnet official test, a Naive Bayes token model trained "
        "on dragnet's train split 0.893 / 0.931 / 0.916, trafilatura 0.879 / 0.901 / 0.895.",
        "",
    ]
    return "\n".join(lines)
