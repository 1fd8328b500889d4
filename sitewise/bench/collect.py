"""Collection throughput: stored pages rendered offline in one Chromium, pages/s and ms/page.

``sitewise bench collect --manifest ../shared/data/dragnet [--limit N] [--workers 1,2,4]`` renders each
page's stored HTML with the network blocked (no disk cache: every page is really rendered), once per
worker count, and reports for each run: pages/s over the batch, ms/page (median and p95 of each page's
own wall time), the time collect.js itself took in the page, and the CPU seconds the whole process tree
(Python, Playwright's driver, Chromium's processes) spent per page, which, unlike wall time, does not
grow when other programs share the cores. CPU is read from ``/proc`` for every descendant process:
``getrusage(RUSAGE_CHILDREN)`` misses Chromium's renderers (reaped by its zygote, not by us), which made
earlier reports undercount by half. It also scores every collected page's text against the truth (bag-of-words
recall of all blocks: how much of the article the collector keeps). Writes ``docs/bench-collect.md``.
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

#: Where the report goes, relative to the working directory (the repository when run by hand).
DEFAULT_REPORT = Path("docs") / "bench-collect.md"
#: The issue's throughput target, pages per second with one browser on 2 cores.
TARGET_PAGES_PER_S = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from sitewise.collect import DEFAULT_WORKERS

    parser.add_argument("--manifest", required=True, metavar="M", help="manifest of stored pages (file or set folder)")
    parser.add_argument("--limit", type=int, metavar="N", help="use the first N pages")
    parser.add_argument("--workers", default=str(DEFAULT_WORKERS), metavar="N[,N...]",
                        help=f"pages rendered at once; a comma list runs once per value (default {DEFAULT_WORKERS})")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S", help="seconds per page (default 30)")
    parser.add_argument("--report", default=str(DEFAULT_REPORT), metavar="FILE",
                        help=f"markdown report to write (default {DEFAULT_REPORT})")


#: Seconds between two readings of the process tree's CPU times (a process that exits between two
#: readings loses at most this much; renderers live for a tab's hundred pages).
CPU_SAMPLE_INTERVAL_S = 0.5
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: Kinds of process shown in the report's CPU breakdown, in this order (the rest are "other").
CPU_KINDS = ("renderer", "browser", "python", "driver", "gpu", "utility")


class ProcessTreeCPU:
    """CPU seconds spent by this process (less the sampler's own thread) and all its descendants
    while it runs, by kind of process (:data:`CPU_KINDS`, ``zygote``, ``other``).

    Descendants are found and read from ``/proc`` every :data:`CPU_SAMPLE_INTERVAL_S` and once more
    at :meth:`stop`; a process keeps its last reading after it exits."""

    def __init__(self) -> None:
        self._first: dict[int, float] = {}
        self._last: dict[int, tuple[str, float]] = {}
        self._sampler_seconds = 0.0
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)

    def start(self) -> "ProcessTreeCPU":
        self._last = self._read()
        self._first = {pid: seconds for pid, (_, seconds) in self._last.items()}
        self._thread.start()
        return self

    def stop(self) -> dict[str, float]:
        """CPU seconds by kind since :meth:`start`."""
        self._stopping.set()
        self._thread.join()
        self._last.update(self._read())
        by_kind: dict[str, float] = {}
        for pid, (kind, seconds) in self._last.items():
            by_kind[kind] = by_kind.get(kind, 0.0) + seconds - self._first.get(pid, 0.0)
        by_kind["python"] = by_kind.get("python", 0.0) - self._sampler_seconds
        return by_kind

    def _run(self) -> None:
        while not self._stopping.wait(CPU_SAMPLE_INTERVAL_S):
            self._last.update(self._read())
        self._sampler_seconds = time.thread_time()

    def _read(self) -> dict[int, tuple[str, float]]:
        children: dict[int, list[int]] = {}
        times: dict[int, float] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                    fields = stat.read().rpartition(")")[2].split()
            except OSError:
                continue  # exited meanwhile
            children.setdefault(int(fields[1]), []).append(int(name))
            times[int(name)] = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        readings: dict[int, tuple[str, float]] = {}
        waiting = [os.getpid()]
        while waiting:
            pid = waiting.pop()
            waiting.extend(children.get(pid, ()))
            if pid in times:
                known = self._last.get(pid, ("other", 0.0))[0]
                # A process just forked, or exiting, has no command line of its own yet (or any more).
                kind = known if known != "other" else _process_kind(pid)
                readings[pid] = (kind, times[pid])
        return readings


def _process_kind(pid: int) -> str:
    if pid == os.getpid():
        return "python"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read().replace(b"\0", b" ")  # Chromium's children rewrite it as one string
    except OSError:
        return "other"
    program = command.split(b" ", 1)[0]
    if program.endswith(b"/node"):
        return "driver"
    process_type = _CHROMIUM_TYPE.search(command)
    if process_type:
        kind = process_type.group(1).decode("ascii")
        return "gpu" if kind == "gpu-process" else kind
    return "browser" if b"chromium" in program else "other"


_CHROMIUM_TYPE = re.compile(rb"--type=([\w-]+)")


@dataclass
class Run:
    """One pass over the pages with one worker count."""

    workers: int
    pages: int
    seconds: float
    launch_seconds: float
    cpu_seconds: float
    #: CPU seconds by kind of process (see :class:`ProcessTreeCPU`).
    cpu_by_kind: dict[str, float] = field(default_factory=dict)
    page_ms: list[float] = field(default_factory=list)
    collect_ms: list[float] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    recalls: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds if self.seconds else float("nan")

    @property
    def cpu_ms_per_page(self) -> float:
        return 1000 * self.cpu_seconds / self.pages if self.pages else float("nan")


def run(args: argparse.Namespace) -> int:
    from sitewise.collect import StoredPage, stored_url
    from sitewise.commands.output import check_output_file, write_whole
    from sitewise.manifest import read_manifest

    report = Path(args.report)
    report.parent.mkdir(parents=True, exist_ok=True)
    check_output_file(report, "--report")  # (before the pages are rendered, not after)

    try:
        worker_counts = [int(value) for value in str(args.workers).split(",") if value.strip()]
    except ValueError:
        raise ValueError(f"--workers must be numbers separated by commas, not {args.workers!r}") from None
    if not worker_counts or min(worker_counts) < 1:
        raise ValueError("--workers needs at least one count of 1 or more")
    entries = [entry for entry in read_manifest(args.manifest) if entry.raw.get("html")]
    if args.limit is not None:
        entries = entries[: args.limit]
    if not entries:
        raise ValueError(f"no pages with stored HTML in {args.manifest}")
    items = [StoredPage(stored_url(e.url, e.site, e.id), e.html_bytes() or b"") for e in entries]
    truths = [None if entry.mismatch else entry.truth() for entry in entries]
    load_before = os.getloadavg()
    runs = [_measure(items, truths, [entry.id for entry in entries], workers, args.timeout) for workers in worker_counts]
    load_after = os.getloadavg()
    for result in runs:
        print(_summary_line(result))
    write_whole(report, _report(args, runs, load_before, load_after))
    print(f"report: {report}")
    return 0


def _measure(
    items: Sequence[Any], truths: Sequence[str | None], ids: Sequence[str], workers: int, timeout_s: float
) -> Run:
    """Render every item with a fresh collector; CPU is measured from the first page to the last
    (browser start and close left out, as for pages/s)."""
    from sitewise.collect import Collector
    from sitewise.metrics import word_prf

    started = time.perf_counter()
    page_ms: list[float] = [0.0] * len(items)
    blocks, collect_ms, recalls, failures = [], [], [], []
    with Collector(workers=workers, timeout_s=timeout_s) as collector:
        launched = time.perf_counter()
        cpu = ProcessTreeCPU().start()
        # Pages are scored as they finish and let go: a thousand collected pages would hold a GB.
        for index, outcome in collector.iter_many(items, progress=sys.stderr.isatty()):
            page_ms[index] = 1000 * outcome.seconds
            if outcome.page is None:
                failures.append(f"{ids[index]}: {outcome.error.message if outcome.error else '?'}")
                continue
            blocks.append(len(outcome.page.blocks))
            if outcome.collect_ms is not None:
                collect_ms.append(outcome.collect_ms)
            truth = truths[index]
            if truth is not None and truth.strip():
                recalls.append(word_prf(outcome.page.text, truth).recall)
        finished = time.perf_counter()
        cpu_by_kind = cpu.stop()  # before the browser closes: its processes are all still there
    return Run(
        workers=workers,
        pages=len(items),
        seconds=finished - launched,
        launch_seconds=launched - started,
        cpu_seconds=sum(cpu_by_kind.values()),
        cpu_by_kind=cpu_by_kind,
        page_ms=page_ms,
        collect_ms=collect_ms,
        blocks=blocks,
        recalls=recalls,
        failures=failures,
    )


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank quantile (``share`` in 0..1); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = min(len(ordered), max(1, math.ceil(share * len(ordered))))
    return ordered[rank - 1]


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _summary_line(result: Run) -> str:
    return (
        f"workers={result.workers}: {result.pages} pages in {result.seconds:.1f}s = {result.pages_per_s:.2f} pages/s; "
        f"ms/page median {_median(result.page_ms):.0f}, p95 {percentile(result.page_ms, 0.95):.0f}; "
        f"collect.js median {_median(result.collect_ms):.1f} ms, p95 {percentile(result.collect_ms, 0.95):.1f} ms; "
        f"CPU {result.cpu_ms_per_page:.0f} ms/page; {len(result.failures)} failed; "
        f"all-text recall mean {_mean(result.recalls):.4f}"
    )


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def _report(args: argparse.Namespace, runs: Sequence[Run], load_before: tuple, load_after: tuple) -> str:
    command = "sitewise bench collect " + " ".join(
        shlex.quote(part)
        for part in (
            ["--manifest", str(args.manifest)]
            + (["--limit", str(args.limit)] if args.limit is not None else [])
            + ["--workers", str(args.workers), "--timeout", f"{args.timeout:g}"]
        )
    )
    lines = [
        "# Collection throughput",
        "",
        f"`{command}` — {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        "",
        "Stored pages rendered offline in one headless Chromium (Debian's), every request but the page "
        "itself refused, laid out but not drawn, collected with `bookmarklet/collect.js` and validated as sitewise pages; no render "
        "cache. *pages/s* is the batch's pages over its wall time (browser start excluded); *ms/page* is each "
        "page's own wall time (tab, navigation, load, collection, validation; several run at once); "
        "*collect.js* is the collector's own time inside the page; *CPU ms/page* is the CPU time of the whole "
        "process tree per page (this Python process, Playwright's driver and every Chromium process, read "
        "from /proc; browser start excluded). *Projected* = "
        f"{os.cpu_count()} cores / CPU per page: the rate an otherwise idle machine could reach.",
        "",
        f"Machine: {os.cpu_count()} cores, {platform.platform()}, {_chromium_version()}. Load average "
        f"(1/5/15 min) {_load(load_before)} before, {_load(load_after)} after.",
        "",
        *_contention_note(load_before, load_after),
        "| workers | pages | pages/s | ms/page median | ms/page p95 | collect.js median | collect.js p95 "
        "| CPU ms/page | projected pages/s | blocks/page median | browser start | failed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for result in runs:
        projected = (os.cpu_count() or 1) * 1000 / result.cpu_ms_per_page
        lines.append(
            f"| {result.workers} | {result.pages} | {result.pages_per_s:.2f} | {_median(result.page_ms):.0f} "
            f"| {percentile(result.page_ms, 0.95):.0f} | {_median(result.collect_ms):.1f} ms "
            f"| {percentile(result.collect_ms, 0.95):.1f} ms | {result.cpu_ms_per_page:.0f} | {projected:.1f} "
            f"| {_median(result.blocks):.0f} | {result.launch_seconds:.1f} s | {len(result.failures)} |"
        )
    best = max(runs, key=lambda r: r.pages_per_s)
    best_projected = min(runs, key=lambda r: r.cpu_ms_per_page)
    lines += [
        "",
        f"Target: {TARGET_PAGES_PER_S:g} pages/s. Best measured: {best.pages_per_s:.2f} pages/s "
        f"({best.workers} workers); best projected for idle cores: "
        f"{(os.cpu_count() or 1) * 1000 / best_projected.cpu_ms_per_page:.1f} pages/s ({best_projected.workers} workers).",
        "",
        "CPU ms/page by process: *renderer* parses, styles and lays out the page and runs its scripts and collect.js, "
        "*browser* is Chromium's main process (navigation, DevTools), *python* this process (the collector's "
        "event loop, JSON, validation, scoring), *driver* Playwright's node process, *gpu* Chromium's "
        "compositor process.",
        "",
        "| workers | " + " | ".join(CPU_KINDS) + " | other |",
        "|---|" + "---|" * (len(CPU_KINDS) + 1),
    ]
    for result in runs:
        shares = [result.cpu_by_kind.get(kind, 0.0) for kind in CPU_KINDS]
        other = result.cpu_seconds - sum(shares)
        lines.append(
            f"| {result.workers} | "
            + " | ".join(f"{1000 * value / result.pages:.0f}" for value in shares + [other])
            + " |"
        )
    lines += [
        "",
        "## Does the collector keep the article?",
        "",
        "Bag-of-words recall of all collected text against the truth (pages whose truth does not match "
        "the page left out):",
        "",
        "| workers | pages scored | mean recall | median | pages below 0.9 |",
        "|---|---|---|---|---|",
    ]
    for result in runs:
        below = sum(1 for recall in result.recalls if recall < 0.9)
        lines.append(
            f"| {result.workers} | {len(result.recalls)} | {_mean(result.recalls):.4f} "
            f"| {_median(result.recalls):.4f} | {below} |"
        )
    failures = sorted({failure for result in runs for failure in result.failures})
    if failures:
        lines += ["", "## Failed pages", ""] + [f"- {failure}" for failure in failures]
    return "\n".join(lines) + "\n"


def _contention_note(load_before: tuple, load_after: tuple) -> list[str]:
    cores = os.cpu_count() or 1
    if max(load_before[0], load_after[0]) <= cores:
        return []
    return [
        "**Other programs were using the CPU while this ran** (load above the core count): wall times "
        "and pages/s are inflated by the sharing; CPU ms/page and the projection are the steadier figures.",
        "",
    ]


def _load(values: tuple) -> str:
    return " / ".join(f"{value:.1f}" for value in values)


def _chromium_version() -> str:
    from sitewise.collect import CHROMIUM

    try:
        return subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "chromium (version unknown)"
