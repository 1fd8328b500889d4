"""``sitewise import-spider``: convert the original spider project's collected pages into sitewise pages."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import-spider",
        help="import pages collected by the original spider bookmarklet (JSON with texts[])",
        description="Convert spider page files (*.json or *.json.gz, searched recursively) into sitewise pages "
        "and store them (the store of REDIS_URL / SITEWISE_DATA_DIR), or write them as page JSON files with "
        "--out. A file that cannot be converted is reported on one line and the others go on; a folder that "
        "holds no such files is an error (exit 2), before anything is imported.",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="spider page files or folders")
    parser.add_argument("--out", type=Path, help="write page JSON files into this folder instead of the store")
    parser.add_argument("--limit", type=int, help="import at most N pages")
    parser.set_defaults(handler=run, store_hint="without the store: --out DIR")


def run(args: argparse.Namespace) -> int:
    from ..page import PageError
    from ..spider_import import PAGE_FILE_SUFFIXES, read_spider_file, spider_files
    from .output import output_folder, write_whole

    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    found = [(path, list(spider_files(path))) for path in args.paths]
    empty = [str(path) for path, files in found if not files]
    if empty:  # before the store is opened or --out made
        patterns = " or ".join(f"*{suffix}" for suffix in PAGE_FILE_SUFFIXES)
        raise ValueError(f"no spider page files ({patterns}, searched recursively) in {', '.join(empty)}")
    files = [file for _, path_files in found for file in path_files][: args.limit]
    store = None
    if args.out is None:
        from ..store import open_store

        store = open_store()
    else:
        output_folder(args.out)
    imported, failed, sites = 0, 0, set()
    for number, file in enumerate(files):
        try:
            page = read_spider_file(file)
        except (PageError, OSError) as exc:
            failed += 1
            print(f"{file}: {exc}", file=sys.stderr)
            continue
        if store is not None:
            store.put_page(page)
        else:
            name = f"{number:05d}-{file.name.split('.')[0]}.json"
            write_whole(args.out / name, json.dumps(page.to_dict(), ensure_ascii=False))
        imported += 1
        sites.add(page.site)
    where = f"into {args.out}" if args.out else "into the store"
    print(f"imported {imported} pages of {len(sites)} sites {where}; {failed} failed")
    return 1 if failed and not imported else 0
