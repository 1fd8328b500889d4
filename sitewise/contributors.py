"""Who contributed a site's pages, and learning that no single contributor can outvote.

Anyone's browser may upload pages, so one client could flood a site with pages in its layout whose
article text has been moved elsewhere (a decoy) and so steer the learner. Each uploaded page therefore
records a pseudonymous contributor tag, and before learning every contributor's share is capped at what
a typical contributor gave (:func:`balance_contributors`). Pages the operator stored (the command line,
or an upload carrying the admin token) carry no tag and are always learned from.

This does not stop a client that controls many addresses; the per-client quotas and the site's page
cap bound what such a client costs (docs/reliability.md, "Poisoning").
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from typing import Sequence

from .page import Page

#: Hex digits of the tag kept: 64 bits tell contributors apart without being an address.
TAG_HEX_DIGITS = 16
#: Every contributor may count with at least this many pages: a reader who sent a few pages of a small
#: site is never cut, and 3 is what learning needs to start (the learning curve in docs/bench-learn.md).
MIN_PAGES_PER_CONTRIBUTOR = 3


def contributor_tag(client: str, salt: str) -> str:
    """A stable pseudonym for a client (e.g. its address): the store never holds the address itself."""
    return hashlib.sha256(f"{salt}\0{client}".encode("utf-8")).hexdigest()[:TAG_HEX_DIGITS]


def contributor_cap(counts: Sequence[int]) -> int | None:
    """Most pages any one contributor may count with, given each contributor's page count; None when
    there is nobody to outvote (fewer than two contributors).

    The cap is the lower median of the counts (a typical contributor's share), at least
    :data:`MIN_PAGES_PER_CONTRIBUTOR`: eight readers with a page each and one client with twenty pages
    learn from 8 + 3 pages, so the readers' layout decides.
    """
    if len(counts) < 2:
        return None
    ordered = sorted(counts)
    return max(MIN_PAGES_PER_CONTRIBUTOR, ordered[(len(ordered) - 1) // 2])


def balance_contributors(pages: Sequence[Page], contributors: dict[str, str]) -> list[Page]:
    """The pages to learn from: each contributor's newest pages up to :func:`contributor_cap`, and every
    operator page. ``pages`` are oldest first (as the store yields them); their order is kept."""
    by_contributor: dict[str, list[int]] = defaultdict(list)
    for index, page in enumerate(pages):
        tag = contributors.get(page.key)
        if tag is not None:
            by_contributor[tag].append(index)
    cap = contributor_cap([len(indexes) for indexes in by_contributor.values()])
    if cap is None:
        return list(pages)
    dropped = {index for indexes in by_contributor.values() for index in indexes[:-cap]}
    return [page for index, page in enumerate(pages) if index not in dropped]
