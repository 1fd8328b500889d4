"""``docs/benchmarks.md`` from a :class:`~sitewise.bench.comparison.Comparison`: the headline, targets, where
sitewise loses, every set's numbers, the learning curve, speed, and how it was all measured."""
from __future__ import annotations

import logging
import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..commands.output import write_whole
from .comparison import (
    BASELINES, SITEWISE_SYSTEMS, Comparison, SetRun, SystemRun, best_peer, f1, ordered_systems, peers_of, primary,
)
from .peers import PEERS

log = logging.getLogger(__name__)

#: What each of sitewise's systems is, for readers who have not read the code.
SYSTEM_DESCRIPTIONS = {
    "rules": "learned per-site CSS rules (learns each site from its `split: train` pages; rendered pages)",
    "sitewise": "the whole pipeline: a site's learned rules when they match the page, else the MSS fallback",
    "mss": "the MSS fallback alone (the shipped block model, gradient-boosted trees over each block, + maximum subsequence; raw HTML)",
    "mss-baseline": "MSS with the paper's fixed scores (tags −3.25, words +1; raw HTML)",
    "all-text": "every rendered block's text: the recall ceiling of the collector, not an extractor",
}
#: The issue's targets: learned rules beat every peer on these per-site sets…
RULES_TARGET_SETS = ("spider sites", "dragnet sites")
#: …and the fallback beats every peer but trafilatura on these (and trafilatura where it can).
FALLBACK_TARGET_SETS = ("cleaneval", "l3s-gn1", "dragnet official test")
#: The peer the fallback target exempts.
STRONGEST_PEER = "trafilatura"
#: Sites listed under "where sitewise loses", per set (the widest gaps; the set's table has all).
WORST_SITES = 10
#: Pages listed under "where sitewise loses", per set.
WORST_PAGES = 8
#: Error messages are quoted this long in the report.
ERROR_CHARS_SHOWN = 120
#: A per-site gap smaller than this is a tie, not a loss (one word on a short page).
TIE = 0.005


def write_report(comparison: Comparison, docs_dir: Path) -> Path:
    """Write ``benchmarks.md`` and its plots into ``docs_dir``; returns the report's path."""
    from .compare_plots import draw_all

    try:
        images = draw_all(comparison, docs_dir / "img")
    except ImportError as exc:  # matplotlib comes with the bench extra; the numbers do not need it
        log.warning("plots skipped (%s): pip install 'sitewise[bench]'", exc)
        images = []
    path = docs_dir / "benchmarks.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, render(comparison, [p.relative_to(docs_dir).as_posix() for p in images]))
    return path


def render(comparison: Comparison, images: Sequence[str] = ()) -> str:
    sections = [
        _title(comparison),
        _overview(comparison),
        _targets(comparison),
        _losses(comparison),
        *(_set_section(run) for run in comparison.sets.values()),
        _learning(comparison, images),
        _speed(comparison, images),
        _images(images, exclude=("learning-curve", "ms-per-page")),
        _method(comparison),
    ]
    return "\n".join(s for s in sections if s).rstrip() + "\n"


# -- sections --------------------------------------------------------------------------------------------


def _title(comparison: Comparison) -> str:
    return "\n".join([
        "# Benchmarks: sitewise side by side with the extractors people use",
        "",
        headline(comparison),
        "",
        _provenance(comparison) + " "
        "Pages whose truth is not in the page (`truth_mismatch`) are left out of every figure.",
        "",
    ])


def _provenance(comparison: Comparison) -> str:
    runs = len(comparison.runs)
    if runs <= 1:
        return (
            "Every number below comes from one command, `sitewise bench compare` (see [How this was measured]"
            "(#how-this-was-measured)): the same pages, the same metric, every system in the same process."
        )
    return (
        f"The numbers below come from {runs} runs of `sitewise bench compare` (commands and why under [How this was "
        "measured](#how-this-was-measured)); in every run the systems it ran saw the same pages in the same process, "
        "and a set whose rows come from different runs says which in its *run* column."
    )


def headline(comparison: Comparison) -> str:
    """One paragraph a README can quote: the per-site result against the best peer, then the fallback."""
    parts: list[str] = []
    for run in comparison.sets.values():
        if not run.spec.per_site:
            continue
        own, peer = primary(run), best_peer(run)
        if own is None or own.system != "rules":
            continue
        where = f"the {run.pages} test pages of {run.spec.label.replace(' sites', '')}'s {run.sites} sites with ≥ 10 pages"
        pipeline = run.systems.get("sitewise")
        with_fallback = (
            f" ({f1(pipeline):.3f} with the MSS fallback on pages the rules do not fit)"
            if pipeline is not None and abs(f1(pipeline) - f1(own)) >= TIE else ""
        )
        against = f"against {f1(peer):.3f} for the best peer ({peer.system})" if peer else "(no peer can run there)"
        parts.append(f"On {where}, sitewise's learned rules score mean word F1 {f1(own):.3f}{with_fallback} {against}.")
    fallback = [
        (run, primary(run), run.systems.get(STRONGEST_PEER))
        for run in comparison.sets.values() if not run.spec.per_site
    ]
    fallback = [(run, own, peer) for run, own, peer in fallback if own is not None]
    if fallback:
        sets = ", ".join(run.spec.label for run, _, _ in fallback)
        own_scores = " / ".join(f"{f1(own):.3f}" for _, own, _ in fallback)
        sentence = f"On pages of sites it has not learned ({sets}) its fallback scores {own_scores}"
        if all(peer is not None for _, _, peer in fallback):
            sentence += f" against trafilatura's {' / '.join(f'{f1(peer):.3f}' for _, _, peer in fallback)}"
        parts.append(sentence + ".")
    if not parts:
        peer_lines = [
            f"{best.system} {f1(best):.3f} on {run.spec.label}"
            for run in comparison.sets.values() if (best := best_peer(run)) is not None
        ]
        parts.append(
            "sitewise's own extractors were not measured in this run (see Skipped); best peers by mean word F1: "
            + ("; ".join(peer_lines) if peer_lines else "none") + "."
        )
    return " ".join(parts)


def _overview(comparison: Comparison) -> str:
    runs = list(comparison.sets.values())
    best = {r.spec.label: max((f1(s) for n, s in r.systems.items() if n not in BASELINES), default=None) for r in runs}

    def cell(run: SetRun, system: SystemRun) -> str:
        value = f"{f1(system):.3f}"
        return f"**{value}**" if system.system not in BASELINES and f1(system) == best[run.spec.label] else value

    lines = [
        "## Mean word F1 per set",
        "",
        "Bag-of-words F1 per page (lower-cased `\\w+` tokens, multiset overlap), averaged over the pages; "
        "**bold**: the best system on the set (all-text excluded). `–`: the system did not run (reason under "
        "the set).",
        "",
    ]
    return "\n".join(lines + _system_by_set(runs, cell, pages=True) + [""])


def _targets(comparison: Comparison) -> str:
    lines = ["## Targets", "", "The targets set in the issue, checked against these results:", ""]
    for label in RULES_TARGET_SETS:
        run = comparison.sets.get(label)
        lines.append(f"- **Learned rules beat every peer on {label}**: {_rules_verdict(run)}")
    for label in FALLBACK_TARGET_SETS:
        run = comparison.sets.get(label)
        lines.append(f"- **Fallback beats every peer but trafilatura on {label}, and trafilatura where it can**: "
                     f"{_fallback_verdict(run)}")
    return "\n".join(lines + [""])


def _rules_verdict(run: SetRun | None) -> str:
    if run is None:
        return "not measured (set not in this run)."
    rules = run.systems.get("rules")
    if rules is None:
        return f"not measured (rules: {_first_reason(run, ('rules',))})."
    peer = best_peer(run)
    if peer is None:
        return f"no peer can run on this set (peers: {_first_reason(run, PEERS)}); rules score {f1(rules):.3f}."
    gap = f1(rules) - f1(peer)
    verdict = "met" if gap > 0 else "**missed**"
    return f"{verdict}: rules {f1(rules):.3f}, best peer {peer.system} {f1(peer):.3f} ({gap:+.3f})."


def _fallback_verdict(run: SetRun | None) -> str:
    if run is None:
        return "not measured (set not in this run)."
    own = primary(run)
    if own is None:
        return f"not measured (sitewise and mss: {_first_reason(run, ('sitewise', 'mss'))})."
    others = best_peer(run, exclude=(STRONGEST_PEER,))
    strongest = run.systems.get(STRONGEST_PEER)
    parts = []
    if others is not None:
        gap = f1(own) - f1(others)
        parts.append(f"{'met' if gap > 0 else '**missed**'}: {own.system} {f1(own):.3f}, best other peer "
                     f"{others.system} {f1(others):.3f} ({gap:+.3f})")
    if strongest is not None:
        gap = f1(own) - f1(strongest)
        parts.append(f"trafilatura {f1(strongest):.3f} ({'beaten' if gap > 0 else 'not beaten'}, {gap:+.3f})")
    return "; ".join(parts) + "." if parts else f"{own.system} {f1(own):.3f}; no peer ran."


def _first_reason(run: SetRun, names: Iterable[str]) -> str:
    return next((run.skipped[n] for n in names if n in run.skipped), "not part of this run")


def _losses(comparison: Comparison) -> str:
    lines = ["## Where sitewise loses", ""]
    any_loss = False
    for run in comparison.sets.values():
        own = primary(run)
        if own is None:
            continue
        ahead = [s for s in ordered_systems(run) if s.system in PEERS and f1(s) > f1(own)]
        if ahead:
            any_loss = True
            lines.append(
                f"- **{run.spec.label}**: {own.system} ({f1(own):.3f}) trails "
                + ", ".join(f"{s.system} ({f1(s):.3f})" for s in ahead) + "."
            )
        site_losses = _site_losses(run, own) if run.spec.per_site else []
        if site_losses:
            any_loss = True
            shown = site_losses[:WORST_SITES]
            more = len(site_losses) - len(shown)
            lines.append(
                f"- **{run.spec.label}, per site**: {own.system} is behind the best peer on {len(site_losses)} of "
                f"{run.sites} sites: "
                + "; ".join(f"{site} {mine:.3f} vs {peer} {theirs:.3f}" for site, mine, peer, theirs in shown)
                + (f"; and {more} more within {shown[-1][3] - shown[-1][1]:.3f} (table under the set)" if more else "")
                + "."
            )
        worst = _worst_pages(run, own)
        if worst:
            lines.append(
                f"- **{run.spec.label}, pages where some peer beats {own.system} by the widest margin**: "
                + "; ".join(f"`{pid}` {mine:.2f} vs {peer} {theirs:.2f}" for pid, mine, peer, theirs in worst)
                + "."
            )
    if not any_loss:
        measured = [r for r in comparison.sets.values() if primary(r) is not None]
        lines.append(
            "No peer beats sitewise on the mean of any set measured here."
            if measured else "Not measured: none of sitewise's own systems ran in this run."
        )
    return "\n".join(lines + [""])


def _site_losses(run: SetRun, own: SystemRun) -> list[tuple[str, float, str, float]]:
    mine = own.result.by_group()
    losses = []
    for site, summary in mine.items():
        best = max(
            ((s.system, s.result.by_group().get(site)) for s in peers_of(run)),
            key=lambda item: item[1].f1 if item[1] else -1.0,
            default=(None, None),
        )
        if best[1] is not None and best[1].f1 - summary.f1 > TIE:
            losses.append((site, summary.f1, best[0], best[1].f1))
    return sorted(losses, key=lambda item: item[1] - item[3])


def _worst_pages(run: SetRun, own: SystemRun) -> list[tuple[str, float, str, float]]:
    """The pages where the best peer on that page beats sitewise's system by the widest margin."""
    peers = peers_of(run)
    if not peers:
        return []
    by_peer = {s.system: {p.id: p for p in s.result.headline} for s in peers}
    gaps = []
    for page in own.result.headline:
        theirs = [(name, pages[page.id].score.f1) for name, pages in by_peer.items() if page.id in pages]
        if not theirs:
            continue
        name, best = max(theirs, key=lambda item: item[1])
        if best - page.score.f1 > TIE:
            gaps.append((page.id, page.score.f1, name, best))
    return sorted(gaps, key=lambda item: item[1] - item[3])[:WORST_PAGES]


def _set_section(run: SetRun) -> str:
    lines = [
        f"## {run.spec.label}",
        "",
        f"`{run.spec.manifest}`, {run.spec.describe()}: {run.pages} pages scored from {run.sites} sites"
        f"{f'; {run.left_out} left out (truth_mismatch)' if run.left_out else ''}.",
        "",
    ]
    lines += _score_table(run) if run.systems else ["No system ran on this set.", ""]
    for name, reason in run.skipped.items():
        lines.append(f"- *{name} skipped*: {reason}")
    for system in ordered_systems(run):
        errors = Counter(p.error for p in system.result.pages if p.error)
        if errors:
            lines.append(
                f"- *{system.system} failed on {sum(errors.values())} page(s)* (scored 0): "
                + "; ".join(f"{count}× `{message[:ERROR_CHARS_SHOWN]}`" for message, count in errors.most_common(3))
            )
    if lines[-1] != "":
        lines.append("")
    for system in ordered_systems(run):
        methods = system.result.info_counts("method")
        if methods:
            lines += [f"Path taken per page by {system.system}: "
                      + ", ".join(f"{k} {v}" for k, v in methods.most_common()) + ".", ""]
    if run.spec.per_site and run.sites > 1:
        lines += _site_table(run)
    return "\n".join(lines)


def _score_table(run: SetRun) -> list[str]:
    """P/R/F1, shingles, empty outputs, errors and speed per system; a *run* column when the set's systems
    come from more than one run (their timings were taken under different loads)."""
    mixed = len({s.run for s in run.systems.values()}) > 1
    lines = [
        "| system | P | R | F1 | median F1 | shingle P | shingle R | shingle F1 | empty | errors | ms/page median | ms/page p95 |"
        + (" run |" if mixed else ""),
        "|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if mixed else ""),
    ]
    for system in ordered_systems(run):
        result = system.result
        summary, shingles = result.summary(), result.shingle_summary()
        median_ms, p95_ms = result.milliseconds()
        errors = sum(1 for p in result.pages if p.error)
        lines.append(
            f"| {system.system} | {summary.precision:.3f} | {summary.recall:.3f} | {summary.f1:.3f} | "
            f"{summary.median_f1:.3f} | {shingles.precision:.3f} | {shingles.recall:.3f} | {shingles.f1:.3f} | "
            f"{summary.empty} | {errors} | {median_ms:.1f} | {p95_ms:.1f} |" + (f" {system.run + 1} |" if mixed else "")
        )
    return lines + [""]


def _site_table(run: SetRun) -> list[str]:
    own = [run.systems[n] for n in SITEWISE_SYSTEMS if n in run.systems and run.systems[n].system != "mss-baseline"]
    peer = best_peer(run)
    shown = own + ([peer] if peer else [])
    if not shown:
        return []
    groups = {s.system: s.result.by_group() for s in shown}
    peer_groups = {s.system: s.result.by_group() for s in peers_of(run)}
    sites = sorted({site for g in groups.values() for site in g})
    header = " | ".join(s.system + (" (best peer overall)" if s is peer else "") for s in shown)
    lines = [
        "Mean F1 per site:",
        "",
        f"| site | test pages | {header} | best peer on the site |",
        "|---|---|" + "---|" * len(shown) + "---|",
    ]
    for site in sites:
        pages = next((g[site].pages for g in groups.values() if site in g), 0)
        cells = [f"{groups[s.system][site].f1:.3f}" if site in groups[s.system] else "–" for s in shown]
        site_best = max(
            ((name, g[site].f1) for name, g in peer_groups.items() if site in g), key=lambda i: i[1], default=None
        )
        best_cell = f"{site_best[0]} {site_best[1]:.3f}" if site_best else "–"
        lines.append(f"| {site} | {pages} | " + " | ".join(cells) + f" | {best_cell} |")
    return lines + [""]


def _learning(comparison: Comparison, images: Sequence[str]) -> str:
    curves = [(run, s) for run in comparison.sets.values() for s in run.systems.values() if s.curve]
    lines = ["## Learning curve", ""]
    if not curves:
        lines += [
            "Not measured: no per-site learner (rules, sitewise) ran on a per-site set in this run.",
            "",
        ]
        return "\n".join(lines)
    lines += [
        "Mean word F1 on a set's test pages when every site learns from its first *k* `split: train` pages "
        "(manifest order). A site with fewer than *k* training pages learns from all it has, so the last points "
        "flatten where most sites have 5 training pages.",
        "",
    ]
    sizes = curves[0][1].curve.sizes
    lines += [
        "| set | system | " + " | ".join(f"k={k}" for k in sizes) + " | best peer | training pages per site |",
        "|---|---|" + "---|" * len(sizes) + "---|---|",
    ]
    for run, system in curves:
        curve = system.curve
        peer = best_peer(run)
        counts = list(curve.train_pages.values())
        lines.append(
            f"| {run.spec.label} | {system.system} | "
            + " | ".join(f"{curve.overall[k]:.3f}" if k in curve.overall else "–" for k in sizes)
            + f" | {f'{peer.system} {f1(peer):.3f}' if peer else '–'} | "
            + (f"{min(counts)}–{max(counts)}" if counts else "–") + " |"
        )
    lines += ["", "Learning time per site (fit on all of a site's training pages; rendered pages given):", ""]
    for run, system in curves:
        seconds = system.curve.fit_seconds
        if seconds:
            slowest = max(seconds, key=seconds.get)
            lines.append(
                f"- {run.spec.label}, {system.system}: median {1000 * statistics.median(seconds.values()):.0f} ms, "
                f"slowest {slowest} {1000 * seconds[slowest]:.0f} ms ({system.curve.train_pages.get(slowest, 0)} pages)."
            )
    lines.append("")
    lines += [f"![{Path(p).stem}]({p})" for p in images if "learning-curve" in p]
    return "\n".join(lines + [""])


def _speed(comparison: Comparison, images: Sequence[str]) -> str:
    def cell(run: SetRun, system: SystemRun) -> str:
        median_ms, p95_ms = system.result.milliseconds()
        return f"{median_ms:.1f} / {p95_ms:.1f}"

    lines = [
        "## Speed",
        "",
        "Extraction time per page (ms, median / p95), measured around each `extract` call on the same pages in "
        "the same process, one page at a time; rendering and fitting are not included (learning time is under "
        "Learning curve). The machine was shared with other engineers' jobs while this ran: treat differences "
        "under ~20% as noise.",
        "",
        *_system_by_set(list(comparison.sets.values()), cell),
        "",
    ]
    if comparison.render:
        render = comparison.render
        lines += [
            f"Rendering (headless Chromium through `sitewise.collect`, cache bypassed, {render.pages} pages, "
            "Chromium start-up included): "
            f"{render.pages_per_second:.2f} pages/s ({render.seconds:.1f} s"
            f"{f', {render.failures} failed' if render.failures else ''}). rules, sitewise and all-text read the "
            "rendered page: in the product the reader's browser has already rendered it and the bookmarklet only "
            "collects it, but a user extracting from stored HTML pays this rendering first"
            + (f" — about {1000 / render.pages_per_second:.0f} ms of wall time per page here, more than any peer's "
               "extraction." if render.pages_per_second else "."),
            "",
        ]
    lines += [f"![{Path(p).stem}]({p})" for p in images if "ms-per-page" in p]
    return "\n".join(lines + [""])


def _images(images: Sequence[str], exclude: Sequence[str]) -> str:
    rest = [p for p in images if not any(key in p for key in exclude)]
    if not rest:
        return ""
    lines = ["## F1 per site", "", "sitewise's systems against the best peer of the set, site by site.", ""]
    return "\n".join(lines + [f"![{Path(p).stem}]({p})" for p in rest] + [""])


def _method(comparison: Comparison) -> str:
    lines = ["## How this was measured", ""]
    for number, run in enumerate(comparison.runs):
        machine = run.get("machine", {})
        lines += [
            f"**Run {number + 1}** ({run.get('started', '?')} → {run.get('finished', '?')}):",
            "",
            "```",
            run.get("command", ""),
            "```",
            "",
            *([run["note"], ""] if run.get("note") else []),
            f"- Machine: {machine.get('cpu')}, {machine.get('cores')} cores, {machine.get('memory_gb')} GB RAM, "
            f"{machine.get('os')}; shared with other engineers working at the same time (load average "
            f"{_load(machine.get('load_average_start'))} at the start, {_load(run.get('load_average_end'))} at the end), "
            "so timings are noisy.",
            f"- Python {run.get('python')}, sitewise {run.get('sitewise')}"
            + (f"; settings: {', '.join(f'`{k}={v}`' for k, v in run['settings'].items())}." if run.get("settings") else "."),
            "",
        ]
    lines += ["Systems, versions and how each is called (sets: where this version and these options ran):", ""]
    lines += ["| system | version | call | sets |", "|---|---|---|---|"]
    variants: dict[tuple[str, str, str], list[str]] = {}
    for run in comparison.sets.values():
        for name, system in run.systems.items():
            options = ", ".join(f"{k}={v}" for k, v in system.options.items())
            variants.setdefault((name, system.version, options), []).append(
                run.spec.label + (f" (run {system.run + 1})" if len(comparison.runs) > 1 else "")
            )
    order = _all_systems(list(comparison.sets.values()))
    for (name, version, options), labels in sorted(variants.items(), key=lambda item: order.index(item[0][0])):
        system = next(s for r in comparison.sets.values() for n, s in r.systems.items() if n == name)
        call = f"`{system.call}`" if system.call else SYSTEM_DESCRIPTIONS.get(name, "")
        if options:
            call += f"; options `{options}`"
        lines.append(f"| {name} | {version} | {call} | {', '.join(labels)} |")
    lines += [
        "",
        "To reproduce: `pip install -e '.[bench]'` then the command(s) above, in order, from the repository root, with the "
        "evaluation sets in `../shared/data`. `sitewise bench compare --report-only` re-draws this page from "
        "`bench-out/compare/` (per-page predictions and scores are kept there, gzipped JSONL per set and system).",
        "",
        "Notes on the data and the protocol:",
        "",
        "- **Per-site sets** (`split=test`): for every site with ≥ 10 pages, the first half of its pages "
        "(`split: train`, by id) is what a per-site learner learns from; every system is scored on the other half. "
        "Single-page systems ignore the training pages.",
        "- **Sets without a per-site split**: no site is learned; the `sitewise` pipeline therefore shows its "
        "fallback, and `rules` does not run.",
        "- **spider** ships pre-rendered page JSON only (no HTML): the peers and the MSS systems, which read HTML, "
        "cannot run on it. Its truth for npr, techcrunch, theverge and usatoday is Diffbot's output, not human.",
        "- **Shingle metric**: the Scrapinghub article-extraction-benchmark's: case-kept `\\w+` tokens, 4-token "
        "shingles as multisets, per page tp/fp/fn normalised to sum 1; precision = mean over pages with tp+fp > 0, "
        "recall = mean over pages with tp+fn > 0, F1 = harmonic mean of the two means.",
        "- **Tokens** are the benchmarks' (Python's `\\w+`, nothing normalised): a decomposed accent, a soft hyphen "
        "or a zero-width space splits a word, a ligature or a full-width letter makes another word, a run of "
        "Chinese, Japanese or Thai between punctuation is one token. The truth files keep the page's characters, "
        "as the extractors do.",
        "- **Empty truth** (7 CleanEval pages): in word F1 an output without words scores 1, anything else 0; "
        "in the shingle metric the page is in neither mean when the output is empty too, and adds a precision "
        "of 0 otherwise.",
        "- Every peer's output is normalised the same way (one block per line, spaces collapsed); the metrics "
        "ignore line breaks anyway. A peer that raises on a page scores 0 on it (column *errors*).",
        "- sitewise's version is the commit its modules were imported from when the run started; "
        "\"uncommitted changes\" are the edits other engineers had in progress in the shared working tree then.",
        "- dragnet's truth has user comments removed: extractors that keep comments (jusText, resiliparse) lose "
        "precision on blogs with long comment threads.",
        "",
    ]
    return "\n".join(lines)


def _system_by_set(runs: Sequence[SetRun], cell: Callable[[SetRun, SystemRun], str], pages: bool = False) -> list[str]:
    """A table with a row per system and a column per set; `–` where the system did not run."""
    heads = [f"{r.spec.label} ({r.pages})" if pages else r.spec.label for r in runs]
    lines = ["| system | " + " | ".join(heads) + " |", "|---|" + "---|" * len(runs)]
    for name in _all_systems(runs):
        cells = [cell(r, r.systems[name]) if name in r.systems else "–" for r in runs]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _all_systems(runs: Sequence[SetRun]) -> list[str]:
    seen: list[str] = []
    for run in runs:
        for system in ordered_systems(run):
            if system.system not in seen:
                seen.append(system.system)
    order = {name: i for i, name in enumerate([*SITEWISE_SYSTEMS, *PEERS, *BASELINES])}
    return sorted(seen, key=lambda n: order.get(n, len(order)))


def _load(values: Any) -> str:
    return " / ".join(f"{v:.2f}" for v in values) if values else "?"
