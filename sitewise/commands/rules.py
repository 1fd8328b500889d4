"""``sitewise rules``: show a site's rules (current or any version), list versions, apply them to a page."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from .options import refuse_unused


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules",
        help="show a site's learned rules, their versions, or apply them to a page",
        description="Print the current rule set of SITE as JSON (or --version N). --versions lists every stored "
        "version. --apply FILE applies the rules to a page (sitewise page JSON, spider JSON or HTML) and prints "
        "the article text and how it was chosen. --rules FILE uses a rule set file instead of the store (SITE, "
        "--version and --versions, which name what the store holds, are refused with it; --versions is refused "
        "with --version and --apply).",
    )
    parser.add_argument("site", metavar="SITE", nargs="?", help="the site (e.g. example.com)")
    parser.add_argument("--version", type=int, help="a stored version instead of the current one (not with --rules)")
    parser.add_argument("--versions", action="store_true", help="list the stored versions (not with --rules)")
    parser.add_argument("--apply", type=Path, metavar="FILE", help="apply the rules to this page file")
    parser.add_argument("--rules", type=Path, metavar="FILE", help="a rule set file (instead of the store)")
    parser.set_defaults(handler=run, store_hint="without the store: --rules FILE")


def run(args: argparse.Namespace) -> int:
    from ..api import load_rules

    _refuse_unused(args)
    if args.rules:
        rules = load_rules(args.rules)
    else:
        if not args.site:
            raise ValueError("name a SITE (or give --rules FILE)")
        from ..store import open_store

        store = open_store()
        args.site = store.site_key(args.site)
        if args.versions:
            return _list_versions(store, args.site)
        rules = store.rules(args.site, args.version)
        if rules is None:
            what = f"version {args.version}" if args.version else "rules"
            raise KeyError(f"{args.site} has no {what} (learned sites: sitewise learn SITE)")
    if args.apply:
        return _apply(rules, args.apply)
    print(json.dumps(rules, indent=2, ensure_ascii=False))
    return 0


def _refuse_unused(args: argparse.Namespace) -> None:
    """Refuse the options this use would not read (before the store is opened): a rule set file has no
    site nor stored versions; a list of versions is no rule set to print or apply."""
    if args.rules:
        refuse_unused({"SITE": args.site is not None, "--version": args.version is not None, "--versions": args.versions},
                      "for a stored site's rules, not with --rules FILE")
    elif args.versions:
        refuse_unused({"--version": args.version is not None, "--apply": args.apply is not None},
                      "not with --versions (which lists the versions: show one with --version N)")


def _list_versions(store, site: str) -> int:
    versions = store.rule_versions(site)
    if not versions:
        raise KeyError(f"{site} has no rules")
    current = store.site_info(site)["rule_version"]
    for version in versions:
        rules = store.rules(site, version) or {}
        mark = "*" if version == current else " "
        print(
            f"{mark} v{version}  learned {rules.get('learned_at')}  from {rules.get('pages_learned')} pages  "
            f"{len(rules.get('templates', []))} templates  confidence {rules.get('confidence')}"
        )
    return 0


def _apply(rules: dict, file: Path) -> int:
    from ..learn.rules import apply_rules

    if file.name.endswith((".json", ".json.gz")):
        from ..page import PageError
        from ..spider_import import read_page_file

        try:
            page = read_page_file(file)
        except PageError as exc:
            raise PageError(str(file), str(exc)) from None
        found = apply_rules(rules, page=page)
    else:
        from ..api import InputError, readable_html
        from ..manifest import read_bytes

        try:
            html = readable_html(read_bytes(file))  # empty or binary: no page to apply the rules to
        except InputError as exc:
            raise InputError(f"{file}: {exc}") from None
        found = apply_rules(rules, html=html)
    print(found.text)
    print(f"-- template {found.template}, {found.words} words, "
          f"{'confident' if found.confident else 'not confident: ' + found.reason}")
    return 0 if found.confident else 1
