"""``sitewise learn``: learn sites' rules from their stored pages (now, or as a queued worker job), or
learn from page files into a rule set file."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .options import refuse_unused


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "learn",
        help="learn a site's rules from its stored pages (or from page files)",
        description="Learn each SITE from the pages and reader feedback in the store and store the new rule "
        "version, unless it is less consistent than the current one on the site's pages (--force stores it "
        "anyway). With --queue, hand the work to the RQ worker instead (at most one pending job per site; the worker "
        "learns a site that has rules again only when pages came since, or with --force). "
        "With --files, learn from page JSON files (sitewise or spider format) and print the rule set (or "
        "write it to --out); SITE, --all, --queue, --force and --min-pages are for stored sites, --out and "
        "--site for --files, and are refused with the other.",
    )
    parser.add_argument("sites", nargs="*", metavar="SITE", help="sites to learn (e.g. example.com)")
    parser.add_argument("--all", action="store_true", help="learn every site in the store")
    parser.add_argument("--force", action="store_true", help="store the new rules even if less consistent")
    parser.add_argument("--queue", action="store_true", help="enqueue worker jobs instead of learning here")
    parser.add_argument("--min-pages", type=int, help="pages a site needs (default: SITEWISE_MIN_PAGES_TO_LEARN)")
    parser.add_argument("--files", nargs="+", type=Path, metavar="PATH", help="learn from page files or folders")
    parser.add_argument("--out", type=Path, help="with --files only: write the rule set here instead of stdout")
    parser.add_argument(
        "--site", metavar="NAME",
        help="with --files only: learn all the pages as this one site, whatever their hosts (default: their "
        "registrable domain, which must be one); the rule set applies to pages of every site they came from",
    )
    parser.set_defaults(handler=run, store_hint="without the store: --files PATH")


def run(args: argparse.Namespace) -> int:
    _refuse_unused(args)
    if args.files:
        return _learn_files(args)
    if not (args.all or args.sites):  # before the store is opened (the embedded Redis started)
        raise ValueError("name at least one SITE (or --all, or --files)")
    from ..config import Settings
    from ..store import open_store

    settings = Settings.from_env()
    store = open_store(settings)
    sites = store.sites() if args.all else [store.site_key(site) for site in args.sites]
    if not sites:
        raise ValueError("the store has no sites to learn (add pages: sitewise collect, or learn --files)")
    if args.queue:
        from sitewise.worker.queue import enqueue_learn

        for site in sites:
            job = enqueue_learn(site, connection=store.redis, force=args.force)
            forced = " forced" if job.kwargs.get("force") else ""
            print(f"{site}:{forced} learn job {job.id} ({job.get_status()})")
        return 0
    from ..learn.site import learn_stored_site
    from ..trust import AgreementPolicy

    min_pages = args.min_pages if args.min_pages is not None else settings.min_pages_to_learn
    failed = 0
    for site in sites:
        outcome = learn_stored_site(store, site, min_pages=min_pages, force=args.force,
                                    policy=AgreementPolicy.from_settings(settings))
        failed += not outcome.stored
        consistency = (
            f", consistency {outcome.consistency_new}" + (f" (was {outcome.consistency_old})" if outcome.consistency_old is not None else "")
            if outcome.consistency_new is not None else ""
        )
        print(
            f"{site}: {outcome.reason}; {outcome.pages} pages, {outcome.templates} templates, "
            f"version {outcome.version}{consistency}, {outcome.seconds:.2f} s"
        )
    return 1 if failed == len(sites) else 0


def _refuse_unused(args: argparse.Namespace) -> None:
    """Refuse the options the chosen way of learning would not read (before the store is opened): stored
    sites' with --files, --files' without it."""
    if args.files:
        refuse_unused({"SITE": bool(args.sites), "--all": args.all, "--queue": args.queue, "--force": args.force,
                       "--min-pages": args.min_pages is not None},
                      "for learning stored sites, not with --files (--site NAME names the pages' site)")
    else:
        refuse_unused({"--out": args.out is not None, "--site": args.site is not None},
                      "only with --files (stored sites are named by SITE, their rules stored: sitewise rules SITE prints them)")


def _learn_files(args: argparse.Namespace) -> int:
    from ..api import site_name
    from ..learn.learner import SiteLearner
    from ..page import PageError
    from ..spider_import import read_page_file
    from .output import check_output_file, write_whole

    missing = [str(path) for path in args.files if not path.exists()]
    if missing:
        raise FileNotFoundError(f"no such file or folder: {', '.join(missing)}")
    if args.out:
        check_output_file(args.out)  # before the learning, not after
    name = site_name(args.site) if args.site is not None else None
    pages = []
    for path in args.files:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if not file.name.endswith((".json", ".json.gz")):
                continue
            try:
                pages.append(read_page_file(file))
            except (PageError, OSError) as exc:
                print(f"{file}: {exc}", file=sys.stderr)
    sites = sorted({page.site for page in pages})
    if len(sites) > 1 and not name:
        raise ValueError(f"--files hold pages of {len(sites)} sites ({', '.join(sites)}): name them one site with --site NAME")
    learner = SiteLearner().fit(pages, site=name)
    text = json.dumps(learner.rules_, indent=2, ensure_ascii=False)
    if args.out:
        write_whole(args.out, text + "\n")
        report = learner.report_
        print(f"{report.site}: {report.pages} pages, {len(report.templates)} templates, "
              f"confidence {learner.rules_['confidence']}, {report.seconds:.2f} s → {args.out}")
    else:
        print(text)
    return 0

