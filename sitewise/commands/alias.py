"""``sitewise alias``: join a sister domain to a site (an administrator's decision, made in the store)."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "alias",
        help="join a sister domain to a site (foxbusiness.com to foxnews.com), list or part joins",
        description="A site is a registrable domain with all its hosts (news.bbc.co.uk and www.bbc.co.uk are "
        "bbc.co.uk). `sitewise alias HOST SITE` joins HOST's registrable domain to SITE as well: its stored "
        "pages move there and the site's rules serve both (GET /rules/HOST). Learn the site again afterwards "
        "(sitewise learn SITE). With no arguments, list the joins; --remove HOST parts one (pages stay). "
        "The server's admin API does the same: PUT /api/admin/aliases/HOST.",
    )
    parser.add_argument("host", metavar="HOST", nargs="?", help="a host of the sister domain (foxbusiness.com)")
    parser.add_argument("site", metavar="SITE", nargs="?", help="a host of the site to join it to (foxnews.com)")
    parser.add_argument("--remove", action="store_true", help="part HOST's domain from the site it was joined to")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..page import host_named, joinable_host
    from ..store import open_store

    store = open_store()
    if args.remove:
        if not args.host or args.site:
            raise ValueError("--remove takes one HOST")
        if not store.delete_alias(host_named(args.host)):
            raise KeyError(f"{args.host} is not joined to another site")
        print(f"{args.host}: parted")
        return 0
    if args.host is None:
        for domain, site in sorted(store.aliases().items()):
            print(f"{domain} -> {site}")
        return 0
    if args.site is None:
        raise ValueError("name the SITE to join HOST to (or --remove HOST)")
    # (a name that is no host, or a public suffix, is refused as the admin API refuses it)
    domain, site, moved = store.put_alias(joinable_host(args.host), joinable_host(args.site))
    print(f"{domain} -> {site}: {moved} pages moved; learn it again with: sitewise learn {site}")
    return 0
