"""``sitewise extract FILE|URL``: the article text of one page, by the site's rules when it is learned,
else by MSS; says on stderr which it used."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "extract",
        help="print a page's article text (rules when its site is learned, else MSS)",
        description="Extract the article of a saved HTML file or a live URL. A URL is rendered in headless "
        "Chromium; a file is read as HTML (give --url so its site's rules can apply, or --render to "
        "render it offline first). The method used goes to stderr; the text to stdout.",
    )
    parser.add_argument("source", help="an http(s) URL, or a saved HTML file")
    parser.add_argument("--url", help="the URL a saved file came from (decides its site)")
    parser.add_argument("--render", action="store_true", help="render a saved file in Chromium (network blocked)")
    parser.add_argument("--rules", type=Path, help="a rule set JSON file to use instead of the store's")
    parser.add_argument("--no-store", action="store_true", help="do not look up the site's rules in the store")
    parser.add_argument("--mss-model", help="MSS model file (default: configured or shipped, else the baseline)")
    parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..manifest import decode_html
    from ..page import site_of
    from ..pipeline import find_article

    page, html, url = None, None, args.url
    if args.source.startswith(("http://", "https://")):
        page = _render(args.source, None)
        html, url = page.html, page.url
    else:
        path = Path(args.source)
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        body = path.read_bytes()
        url = url or path.resolve().as_uri()
        if args.render:
            page = _render(url, body)
        html = decode_html(body)
    site = site_of(url)
    rules = _rules(args, site)
    article = find_article(page, html, rules, mss_model=args.mss_model)
    if args.json:
        print(json.dumps(article.to_json(), ensure_ascii=False, indent=2))
    else:
        print(article.text)
    how = (
        f"rules (site {site}, version {article.rule_version}, template {article.template})"
        if article.method == "rules"
        else f"mss ({article.fallback_reason})"
    )
    print(f"sitewise extract: {how}; {len(article.text.split())} words", file=sys.stderr)
    return 0 if article.text else 1


def _render(url: str, body: bytes | None):
    from ..collect import Collector

    with Collector(workers=1, include_html=True) as collector:
        return collector.collect_url(url) if body is None else collector.collect_stored(url, body)


def _rules(args: argparse.Namespace, site: str):
    if args.rules:
        from ..learn.rules import validate_rules

        return validate_rules(json.loads(args.rules.read_text(encoding="utf-8")))
    if args.no_store or site == "local":
        return None
    from ..store import open_store

    store = open_store()
    return store.rules(store.site_key(site))  # the site an administrator joined this domain to, if any
