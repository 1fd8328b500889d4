"""The benchmark's PNG plots (matplotlib, Agg backend): the learning curve overall and per site, F1 per
site for sitewise against the best peer, and ms/page for every system."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from .comparison import SITEWISE_SYSTEMS, Comparison, SetRun, best_peer, f1, ordered_systems, peers_of

#: Plot resolution: sharp on screens, small files.
DPI = 110
#: One colour per system, stable across plots (sitewise's systems in warm colours, peers in cool ones).
COLOURS = {
    "rules": "#d62728", "sitewise": "#ff7f0e", "mss": "#bcbd22", "mss-baseline": "#8c564b",
    "trafilatura": "#1f77b4", "readability-lxml": "#17becf", "justext": "#9467bd", "boilerpy3": "#7f7f7f",
    "resiliparse": "#2ca02c", "goose3": "#e377c2", "newspaper4k": "#393b79", "all-text": "#c7c7c7",
}
#: Per-site small multiples per row.
SITES_PER_ROW = 6


def draw_all(comparison: Comparison, img_dir: Path) -> list[Path]:
    """Draw every plot the results allow; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    img_dir.mkdir(parents=True, exist_ok=True)
    paths = [learning_curve_overall(comparison, img_dir)]
    for run in comparison.sets.values():
        paths.append(learning_curve_sites(run, img_dir))
    for run in comparison.sets.values():
        if run.spec.per_site:
            paths.append(f1_per_site(run, img_dir))
    paths.append(speed(comparison, img_dir))
    return [p for p in paths if p is not None]


def _colour(name: str) -> str:
    return COLOURS.get(name, "#000000")


def _save(figure: Any, path: Path, rect: tuple[float, float, float, float] = (0, 0, 1, 1)) -> Path:
    figure.tight_layout(rect=rect)
    figure.savefig(path, dpi=DPI)
    import matplotlib.pyplot as plt

    plt.close(figure)
    return path


def learning_curve_overall(comparison: Comparison, img_dir: Path) -> Path | None:
    """F1 against training pages per site, one line per (set, learner), the set's best peer dashed."""
    import matplotlib.pyplot as plt

    curves = [(run, s) for run in comparison.sets.values() for s in run.systems.values() if s.curve]
    if not curves:
        return None
    figure, axes = plt.subplots(figsize=(7.5, 4.5))
    markers = "osD^v<>p"
    set_labels = list(dict.fromkeys(run.spec.label for run, _ in curves))
    for run, system in curves:
        curve = system.curve
        marker = markers[set_labels.index(run.spec.label) % len(markers)]
        xs = range(len(curve.sizes))
        axes.plot(xs, [curve.overall[k] for k in curve.sizes], marker=marker, color=_colour(system.system),
                  label=f"{system.system} — {run.spec.label}")
        peer = best_peer(run)
        if peer:
            axes.axhline(f1(peer), linestyle="--", linewidth=1, color=_colour(peer.system), alpha=0.7)
            axes.annotate(f"{peer.system} ({run.spec.label})", (len(curve.sizes) - 1, f1(peer)), fontsize=7,
                          ha="right", va="bottom", color=_colour(peer.system))
    axes.set_xticks(range(len(curves[0][1].curve.sizes)), curves[0][1].curve.sizes)
    axes.set_xlabel("training pages per site")
    axes.set_ylabel("mean word F1 on test pages")
    axes.set_title("Learning curve (dashed: the set's best peer)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    return _save(figure, img_dir / "bench-learning-curve.png")


def learning_curve_sites(run: SetRun, img_dir: Path) -> Path | None:
    """One small plot per site: each learner's F1 against training pages, the best peer on the site dashed."""
    import matplotlib.pyplot as plt

    learners = [s for s in run.systems.values() if s.curve]
    if not learners:
        return None
    sites = sorted(learners[0].curve.train_pages)
    columns = min(SITES_PER_ROW, len(sites))
    rows = math.ceil(len(sites) / columns)
    figure, grid = plt.subplots(
        rows, columns, figsize=(max(6.0, 2.3 * columns), 1.2 + 1.9 * rows), sharey=True, squeeze=False
    )
    peer_groups = {s.system: s.result.by_group() for s in peers_of(run)}
    for index, site in enumerate(sites):
        axes = grid[index // columns][index % columns]
        for system in learners:
            curve = system.curve
            ys = [curve.by_site[k].get(site, math.nan) for k in curve.sizes]
            axes.plot(range(len(ys)), ys, marker="o", markersize=3, color=_colour(system.system), label=system.system)
        best = max(((n, g[site].f1) for n, g in peer_groups.items() if site in g), key=lambda i: i[1], default=None)
        if best:
            axes.axhline(best[1], linestyle="--", linewidth=1, color=_colour(best[0]))
        axes.set_title(f"{site} ({learners[0].curve.train_pages[site]} train)", fontsize=7)
        axes.set_xticks(range(len(learners[0].curve.sizes)), learners[0].curve.sizes, fontsize=6)
        axes.tick_params(axis="y", labelsize=6)
        axes.set_ylim(0, 1.02)
        axes.grid(alpha=0.3)
    for index in range(len(sites), rows * columns):
        grid[index // columns][index % columns].axis("off")
    handles, labels = grid[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=7)
    figure.suptitle(f"Learning curve per site — {run.spec.label} (dashed: best peer on the site)", fontsize=9)
    bottom = 0.5 / figure.get_figheight()  # room for the legend
    return _save(figure, img_dir / f"bench-learning-curve-{run.spec.slug}.png", rect=(0, bottom, 1, 1))


def f1_per_site(run: SetRun, img_dir: Path) -> Path | None:
    """Horizontal bars per site: sitewise's systems and the set's best peer, sorted by sitewise's lead."""
    import matplotlib.pyplot as plt

    own = [run.systems[n] for n in SITEWISE_SYSTEMS if n in run.systems and n != "mss-baseline"]
    peer = best_peer(run)
    shown = own + ([peer] if peer else [])
    if not shown or run.sites < 2:
        return None
    groups = {s.system: s.result.by_group() for s in shown}
    sites = sorted({site for g in groups.values() for site in g})
    if own and peer:
        def lead(site: str) -> float:
            mine, theirs = groups[own[0].system].get(site), groups[peer.system].get(site)
            return (mine.f1 if mine else 0.0) - (theirs.f1 if theirs else 0.0)

        sites.sort(key=lead)
    height = 0.8 / len(shown)
    figure, axes = plt.subplots(figsize=(8.5, max(2.4, 0.9 + 0.12 * len(sites) * len(shown))))
    for offset, system in enumerate(shown):
        ys = [i + (len(shown) - 1 - offset) * height for i in range(len(sites))]  # first system on top
        values = [groups[system.system][s].f1 if s in groups[system.system] else 0.0 for s in sites]
        label = system.system + (" (best peer)" if system is peer else "")
        axes.barh(ys, values, height=height, color=_colour(system.system), label=label)
    axes.set_yticks([i + height * (len(shown) - 1) / 2 for i in range(len(sites))], sites, fontsize=7)
    axes.set_xlim(0, 1)
    axes.set_ylim(-0.5, len(sites) - 0.5 + height * len(shown))
    axes.set_xlabel("mean word F1 on the site's test pages")
    axes.set_title(f"F1 per site — {run.spec.label}")
    axes.grid(axis="x", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(figure, img_dir / f"bench-f1-per-site-{run.spec.slug}.png")


def speed(comparison: Comparison, img_dir: Path) -> Path | None:
    """ms/page (median bar, p95 tick) per system, one panel per set, log scale."""
    import matplotlib.pyplot as plt

    runs = [run for run in comparison.sets.values() if run.systems]
    if not runs:
        return None
    figure, grid = plt.subplots(
        len(runs), 1, figsize=(7.5, 0.8 + sum(0.7 + 0.22 * len(r.systems) for r in runs)), squeeze=False,
        gridspec_kw={"height_ratios": [len(r.systems) for r in runs]},
    )
    for axes, run in zip((row[0] for row in grid), runs):
        systems = sorted(ordered_systems(run), key=lambda s: s.result.milliseconds()[0])
        medians = [max(s.result.milliseconds()[0], 0.01) for s in systems]
        p95s = [max(s.result.milliseconds()[1], 0.01) for s in systems]
        ys = range(len(systems))
        axes.barh(ys, medians, color=[_colour(s.system) for s in systems])
        axes.scatter(p95s, ys, marker="|", s=120, color="black", label="p95", zorder=3)
        axes.set_yticks(list(ys), [s.system for s in systems], fontsize=7)
        axes.set_xscale("log")
        axes.set_title(f"{run.spec.label} ({run.pages} pages)", fontsize=8)
        axes.grid(axis="x", alpha=0.3, which="both")
        axes.tick_params(axis="x", labelsize=7)
    grid[-1][0].set_xlabel("ms per page (bar: median, tick: p95; log scale)")
    grid[0][0].legend(fontsize=7, loc="lower right")
    return _save(figure, img_dir / "bench-ms-per-page.png")

