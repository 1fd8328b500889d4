"""Side by side: sitewise's extractors and the peers on the same pages, with the same metrics, in one run.

``sitewise bench compare`` runs the comparison (:mod:`sitewise.bench.comparison`), saves it, and writes
``docs/benchmarks.md`` with PNG plots under ``docs/img/`` (:mod:`sitewise.bench.compare_report`).
"""
from __future__ import annotations

import argparse
import logging
import shlex
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from ..commands.output import output_folder
from .comparison import (
    BASELINES,
    CHATTY_LOGGERS,
    DEFAULT_RENDER_SAMPLE,
    SITEWISE_SYSTEMS,
    Comparison,
    SetSpec,
    compare,
    standard_suite,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Run sitewise's extractors and the peers (trafilatura, readability-lxml, jusText, boilerpy3, "
        "resiliparse, goose3, newspaper4k) on the same pages in one run; write docs/benchmarks.md and plots. "
        "Without --set: the standard suite of ../shared/data (spider, dragnet and l3s-gn1 per-site test pages; "
        "dragnet official test; cleaneval; l3s-gn1)."
    )
    parser.add_argument(
        "--set", dest="sets", action="append", metavar="PATH[:FIELD=VALUE]",
        help="a manifest (file or folder) and optionally the pages to score, e.g. ../shared/data/dragnet:split=test "
        "(split=test: the per-site protocol). Repeatable.",
    )
    parser.add_argument("--data", type=Path, default=Path("../shared/data"), help="folder of the standard suite")
    parser.add_argument("--systems", help="comma-separated systems (default: all of sitewise's, the peers, all-text)")
    parser.add_argument(
        "--option", dest="options", action="append", metavar="SYSTEM.KEY=VALUE",
        help="an option for one system's constructor, e.g. mss.model=PATH or sitewise.mss_model=PATH. Repeatable.",
    )
    parser.add_argument("--limit", type=int, help="score at most N pages per set (whole sites on per-site sets)")
    parser.add_argument(
        "--curve", default="1,2,3,5,8,all", help="training pages per site for the learning curve (default 1,2,3,5,8,all)"
    )
    parser.add_argument("--workers", type=int, default=2, help="parallel pages while rendering (default 2)")
    parser.add_argument("--no-cache", action="store_true", help="re-render pages instead of using the render cache")
    parser.add_argument(
        "--render-sample", type=int, default=DEFAULT_RENDER_SAMPLE,
        help=f"pages rendered without cache to measure rendering speed (default {DEFAULT_RENDER_SAMPLE}; 0: skip)",
    )
    parser.add_argument(
        "--results", type=Path, default=Path("bench-out/compare"), help="folder for results (default bench-out/compare)"
    )
    parser.add_argument(
        "--keep", action="store_true",
        help="merge into the existing results (systems not run now keep their earlier numbers, marked as such)",
    )
    parser.add_argument("--report-only", action="store_true", help="re-draw the report from the saved results")
    parser.add_argument("--docs", type=Path, default=Path("docs"), help="where benchmarks.md and img/ go (default docs)")
    parser.add_argument(
        "--note", help="a line the report prints under this run's command, e.g. how a model given by --option was made"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    from ..evaluate import DEFAULT_RENDER_CACHE

    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    # everything that can be wrong with the arguments is found before the first page is read
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")  # 0 scored no page and wrote that report over docs/
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    output_folder(args.docs, "--docs")
    if not args.report_only:
        output_folder(args.results, "--results")
    if args.report_only:
        comparison = Comparison.load(args.results)
    else:
        specs = [SetSpec.parse(s) for s in args.sets] if args.sets else standard_suite(args.data)
        systems = parse_systems(args.systems)
        comparison = compare(
            specs, systems, command=command_line(args), options=parse_options(args.options, systems),
            limit=args.limit, curve_sizes=parse_curve(args.curve), workers=args.workers,
            cache_dir=None if args.no_cache else DEFAULT_RENDER_CACHE, render_sample=args.render_sample,
            progress=not args.quiet,
        )
        if args.note:
            comparison.runs[0]["note"] = args.note
        if args.keep and (args.results / "results.json").is_file():
            merged = Comparison.load(args.results)
            merged.merge(comparison)
            comparison = merged
        print(f"results: {comparison.save(args.results)}")
    from .compare_report import write_report  # here: every sitewise command imports this module to build its parser

    report = write_report(comparison, args.docs)
    print_summary(comparison)
    print(f"report: {report}")
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run's numbers (options left at their defaults are not repeated)."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    words = ["sitewise", "bench", "compare"]
    for spec in args.sets or []:
        words += ["--set", spec]
    for option in args.options or []:
        words += ["--option", option]
    for name, default in vars(parser.parse_args([])).items():
        value = getattr(args, name)
        if name in ("sets", "options", "note", "report_only", "quiet") or value == default or (name == "data" and args.sets):
            continue  # --data only names the standard suite, which --set replaces
        option = "--" + name.replace("_", "-")
        words += [option] if value is True else [option, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def parse_systems(text: str | None) -> list[str]:
    from ..extractors import REGISTRY
    from .peers import PEERS

    if not text:
        return [*SITEWISE_SYSTEMS, *PEERS, *BASELINES]
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown system(s) {', '.join(unknown)}; known: {', '.join(sorted(REGISTRY))}")
    return names


def parse_options(texts: Sequence[str] | None, systems: Sequence[str]) -> dict[str, dict[str, str]]:
    """``SYSTEM.KEY=VALUE`` options → {system: {key: value}}; the system must be one of those run."""
    options: dict[str, dict[str, str]] = defaultdict(dict)
    for text in texts or []:
        target, equals, value = text.partition("=")
        system, dot, key = target.rpartition(".")
        if not (equals and dot and system and key):
            raise ValueError(f"bad --option {text!r}: expected SYSTEM.KEY=VALUE, e.g. mss.model=PATH")
        if system not in systems:
            raise ValueError(f"--option {text!r}: {system!r} is not one of the systems run ({', '.join(systems)})")
        options[system][key] = value
    return dict(options)


def parse_curve(text: str) -> tuple[int | None, ...]:
    sizes: list[int | None] = []
    for part in text.split(","):
        part = part.strip()
        if part == "all":
            sizes.append(None)
        elif part.isdigit() and int(part) > 0:
            sizes.append(int(part))
        elif part:
            raise ValueError(f"bad --curve entry {part!r}: expected positive numbers and 'all'")
    return tuple(sizes)


def print_summary(comparison: Comparison) -> None:
    for run in comparison.sets.values():
        print(f"\n{run.spec.label}: {run.pages} pages scored ({run.left_out} left out), {run.sites} sites")
        ranked = sorted(run.systems.values(), key=lambda s: -s.result.summary().f1)
        for system in ranked:
            summary = system.result.summary()
            median_ms, p95_ms = system.result.milliseconds()
            print(
                f"  {system.system:17s} F1 {summary.f1:.3f} (median {summary.median_f1:.3f}) "
                f"P {summary.precision:.3f} R {summary.recall:.3f}  {median_ms:7.1f} ms/page (p95 {p95_ms:.1f})"
            )
        for name, reason in run.skipped.items():
            print(f"  {name:17s} skipped: {reason}")
