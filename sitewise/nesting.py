"""How deeply a page's HTML nests its elements, read from the raw text before a parser sees it.

An HTML5 parser walks its stack of open elements on every tag, so its time grows with the square of
the nesting: lexbor (which reads pages for learned rules and metadata) took 0.5 s on 25,000 nested
``<div>`` elements, 2.4 s on 50,000 and 10 s on 100,000; a 5 MB page could nest a million deep and hold
a worker for a quarter of an hour. Real pages nest a few hundred deep at most, so a page nested thousands deep is
refused as bad input. (libxml2, the fallback's parser, reads 2,048 levels and refuses a deeper page itself:
``sitewise.mss.tokenize``.)

The depth is estimated by counting start and end tags: elements that never hold others (void elements)
and those whose end tag browsers imply (``p``, ``li``, ``td`` …) do not count, and script, style and
comment contents are skipped, so a page whose markup a browser would read shallowly is not refused.
"""
from __future__ import annotations

import re

#: Deeper than this, a page is refused: lexbor reads 10,000 nested elements in about 0.1 s, and no
#: page of the evaluation sets comes near it (the deepest of 4,229 nests 178 deep).
MAX_NESTING_DEPTH = 10_000

#: Elements that hold no others, or whose end tag the parser implies when the next one starts.
_NOT_NESTING = frozenset(
    "area base br col embed hr img input link meta param source track wbr keygen "
    "p li dt dd option optgroup tr td th thead tbody tfoot colgroup caption rb rt rtc rp "
    "html head body".split()
)
#: A tag, or a stretch whose content is not markup (comments, scripts, styles) to step over whole. A
#: tag's name and attributes are matched possessively and never past the next "<": a page of "<a "
#: without any ">" would otherwise have every attempt scan (and backtrack over) the rest of the page,
#: 42 s for 240 KB.
_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)|<(script|style|textarea|title|template)\b.*?(?:</\1\s*>|\Z)"
    r"|<(/?)([a-zA-Z][a-zA-Z0-9-]*+)([^<>]*+)>",
    re.DOTALL | re.IGNORECASE,
)


def nesting_depth(html: str, stop_at: int | None = None) -> int:
    """The deepest nesting of elements in ``html`` (counted as described above); scanning stops once
    the depth reaches ``stop_at``."""
    depth = deepest = 0
    for match in _TOKEN.finditer(html):
        closing, name, rest = match.group(2, 3, 4)
        if name is None or name.lower() in _NOT_NESTING:
            continue
        if closing:
            depth = max(depth - 1, 0)
        elif not rest.rstrip().endswith("/"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_at is not None and deepest >= stop_at:
                    break
    return deepest


def too_deep(html: str) -> bool:
    """Whether the page nests elements deeper than :data:`MAX_NESTING_DEPTH`. A page with fewer tags
    than that cannot, and counting ``<`` is a hundred times cheaper than the scan (1 ms per 50 KB, more
    than applying rules to a median page), so only pages of many tags are scanned (35 of 4,099 pages of
    wcxb-dev, dragnet, l3s-gn1 and CleanEval)."""
    return html.count("<") > MAX_NESTING_DEPTH and nesting_depth(html, stop_at=MAX_NESTING_DEPTH + 1) > MAX_NESTING_DEPTH
