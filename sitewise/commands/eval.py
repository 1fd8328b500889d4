"""``sitewise eval``: score an extractor on a manifest of pages with truth text."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..extractors import PART_AWARE, PARTS, REGISTRY


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="score an extractor against a manifest's truth text",
        description="Render or load each page of a manifest (../shared/data format), run the extractor and "
        "score it: bag-of-words P/R/F1 per page, mean and median per site and overall, shingle P/R/F1. "
        "Per-site learners (rules, sitewise) learn each site from its split=train pages and score split=test.",
    )
    parser.add_argument("--manifest", required=True, help="manifest.jsonl, or the folder that holds it")
    parser.add_argument("--extractor", required=True, help=", ".join(REGISTRY) + " (the peers: the bench extra)")
    parser.add_argument("--out", required=True, type=Path, help="folder for predictions.jsonl and report.md")
    parser.add_argument("--only-split", choices=("train", "test"), help="score only pages of this per-site split")
    parser.add_argument(
        "--where", action="append", default=[], metavar="FIELD=VALUE",
        help="score only pages whose manifest field has this value, e.g. official_split=train, subset=dev or "
        "truth_mismatch=true (values other than text as JSON writes them; repeatable: all must hold)",
    )
    parser.add_argument(
        "--part", choices=PARTS, default="article",
        help="rules, sitewise: what of the article to score -- all of it (default), or the body without its "
        "heading (headline, byline, date line) and media captions, as Diffbot's text field (the spider set's "
        "truth) defines it",
    )
    parser.add_argument(
        "--group-by", default="registrable", metavar="registrable|host|FIELD",
        help="rules, sitewise: what one site is -- pages of one registrable domain (default, as the server "
        "keys sites: news.bbc.co.uk and www.bbc.co.uk are one), of one host (the manifest's site), or "
        "with one value of a manifest FIELD",
    )
    parser.add_argument("--limit", type=int, help="score at most N pages (whole sites for per-site learners)")
    parser.add_argument("--workers", type=int, default=2, help="parallel pages while rendering (default 2)")
    parser.add_argument("--no-cache", action="store_true", help="re-render pages instead of using the render cache")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluate import DEFAULT_RENDER_CACHE, evaluate, write_outputs
    from .output import output_folder

    if args.part != "article" and args.extractor not in PART_AWARE:
        raise ValueError(f"--part {args.part}: only {', '.join(sorted(PART_AWARE))} tell the heading from the body")
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    if args.workers < 1:
        raise ValueError("--workers must be at least 1")
    where = {}
    for condition in args.where:
        name, equals, value = condition.partition("=")
        if not equals or not name:
            raise ValueError(f"--where takes FIELD=VALUE, not {condition!r}")
        where[name] = value
    output_folder(args.out)  # a file given for the folder is refused before the pages are scored
    result = evaluate(
        args.manifest,
        args.extractor,
        only_split=args.only_split,
        where=where,
        limit=args.limit,
        workers=args.workers,
        cache_dir=None if args.no_cache else DEFAULT_RENDER_CACHE,
        progress=not args.quiet,
        options={"part": args.part} if args.part != "article" else None,
        group_by=args.group_by,
    )
    report = write_outputs(result, args.out)
    summary = result.summary()
    median_ms, p95_ms = result.milliseconds()
    print(
        f"{args.extractor}: {summary.pages} pages, P {summary.precision:.3f} R {summary.recall:.3f} "
        f"F1 {summary.f1:.3f} (median {summary.median_f1:.3f}), empty {summary.empty}, "
        f"{median_ms:.1f} ms/page median, {p95_ms:.1f} p95 → {report}"
    )
    return 0
