"""The page format: what the collector records of a rendered page, and the rule that names its site.

A page is a versioned JSON object (see ``schema/page.schema.json``); this module turns it into typed
objects and back, and refuses bad input with a :class:`PageError` that names the field and the reason.
"""
from __future__ import annotations

import copy
import datetime as _dt
import functools
import ipaddress
import re
import string
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import idna

from .nesting import too_costly_to_parse

#: Bumped whenever a field changes meaning; readers accept every version up to this one.
FORMAT_VERSION = 1

#: Where a page came from.
COLLECTORS = ("bookmarklet", "playwright", "import")

#: Serialized DOM larger than this is dropped rather than stored: rules need blocks, not markup,
#: and a page of several MB would crowd the store.
MAX_HTML_CHARS = 2_000_000

#: A block nested deeper than this did not come from a parsed page: Chromium's HTML parser nests at most
#: 513 elements, html included (past 512 open elements it adds each new one beside the deepest, so
#: thousands of unclosed <div>s give a 513-step path); refusing it keeps selector matching, which recurses
#: once per step, within Python's stack (a 1,000-step selector made learning, and extraction for the
#: site, fail with RecursionError).
MAX_DEPTH = 513
#: Blocks a page may have: the largest of ~3,000 rendered real pages (news, blogs, forums) has about
#: 2,000; ten times that is generous, and refusing more early keeps a hostile upload cheap to reject.
MAX_BLOCKS = 20_000

#: The computed CSS properties recorded for every block, in this order. They are the properties that
#: tell article text from navigation, captions and footers (see ``bookmarklet/collect.js`` for the
#: normalisation of each value).
STYLE_PROPERTIES = (
    "display",
    "position",
    "float",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "line-height",
    "color",
    "background-color",
    "text-align",
    "text-decoration-line",
    "text-transform",
    "letter-spacing",
    "white-space",
    "list-style-type",
    "margin-top",
    "margin-right",
    "margin-bottom",
    "margin-left",
    "padding-top",
    "padding-right",
    "padding-bottom",
    "padding-left",
    "border-top-style",
    "border-bottom-style",
    "border-left-style",
    "border-right-style",
)


class PageError(ValueError):
    """A page (or one of its blocks) breaks the format. ``field`` is a dotted path to the bad value."""

    def __init__(self, field_path: str, reason: str) -> None:
        super().__init__(f"{field_path}: {reason}")
        self.field = field_path
        self.reason = reason


def host_of(url: str) -> str:
    """A URL's host, without port, in the form :func:`canonical_host` gives.

    ``https://WWW.Example.co.uk:8080/a`` → ``example.co.uk``, ``https://bücher.de/`` → ``xn--bcher-kva.de``.
    A local file has the host ``local``. Raises :class:`PageError` for a URL with no host, or with one
    IDNA refuses.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        raise PageError("url", f"not a URL: {exc}") from None
    if parts.scheme == "file":
        return "local"
    try:
        host = canonical_host(parts.hostname or "")
    except PageError as exc:
        raise PageError("url", exc.reason) from None
    if not host:
        raise PageError("url", f"no host in {url!r}")
    return host


def canonical_host(host: str) -> str:
    """A host name in the one form sitewise names it by, the ASCII form browsers send (and so the
    bookmarklet and the collector upload): lower-cased, an internationalized label in punycode
    (``Bücher.DE`` → ``xn--bcher-kva.de``), without a trailing dot and one leading "www.". Every host
    that enters sitewise (page URLs, request paths, aliases, rule sets' names) passes here, so the two
    spellings of one name are one site.

    A name with other than ASCII characters is mapped as browsers map it (UTS #46, non-transitional, as
    the WHATWG URL standard does): case folded, full-width forms and the ideographic full stop ``。``
    made ASCII, ``ß`` kept (``faß.de`` is ``xn--fa-hia.de``; Python's own "idna" codec, IDNA 2003, would
    make it ``fass.de``, another domain). ASCII labels are kept as they are but lower-cased: browsers take
    underscores in them. Raises :class:`PageError` for a label IDNA 2008 refuses (``☃``, a leading
    combining mark)."""
    host = host.strip()
    if not host.isascii():
        host = _punycode(host)
    host = host.rstrip(".").lower()
    return host[4:] if host.startswith("www.") and len(host) > 4 else host


def _punycode(host: str) -> str:
    """``host`` mapped by UTS #46 with each non-ASCII label in its ASCII (``xn--``) form."""
    try:
        mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
        return ".".join(label if label.isascii() else idna.alabel(label).decode("ascii") for label in mapped.split("."))
    except idna.IDNAError as exc:
        raise PageError("host", f"{host[:QUOTED_NAME_CHARS]!r} is not a valid internationalized host name ({exc})") from None


def site_of(url: str) -> str:
    """The site a URL belongs to: the registrable domain of its host (:func:`site_of_host`).

    ``http://news.bbc.co.uk/x`` and ``https://www.bbc.co.uk/`` → ``bbc.co.uk``; ``money.cnn.com`` →
    ``cnn.com``. Sister domains (``foxnews.com``, ``foxbusiness.com``) stay apart here; an administrator
    joins them with an alias (``sitewise.store.Store.site_key``). Raises :class:`PageError` for a URL
    with no host.
    """
    return site_of_host(host_of(url))


@functools.lru_cache(maxsize=1)
def _public_suffixes() -> Any:
    # The snapshot the publicsuffixlist package bundles: nothing is fetched, ever.
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


@functools.lru_cache(maxsize=65_536)
def site_of_host(host: str) -> str:
    """The site of a host: its registrable domain by the Public Suffix List (private suffixes included,
    so ``a.blogspot.com`` and ``b.blogspot.com`` are two sites, as their owners are two people), in the
    form :func:`canonical_host` gives: the list's internationalized suffixes match in punycode too
    (``a.сайт.рф`` is ``xn--80aswg.xn--p1ai``). An IP address, a single label (``localhost``) and a public
    suffix itself are their own site.

    A reader means the whole of ``bbc.co.uk`` by "the BBC's site": its subdomains (``news.``, ``www.``)
    share its layouts, and the learner keeps a template per layout wherever the pages came from.
    """
    host = canonical_host(host)
    if _is_ip_address(host):
        return host
    return _public_suffixes().privatesuffix(host) or host


#: A host name as :func:`canonical_host` gives one: ASCII labels of letters, digits, hyphens and the
#: underscores browsers take, parted by dots.
_HOST_NAME = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")


def is_host_name(host: str) -> bool:
    """Whether ``host`` (in :func:`canonical_host`'s form) is a host name or an IP address: not a URL, a
    path or a phrase."""
    return _HOST_NAME.fullmatch(host) is not None or _is_ip_address(host)


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


#: A host name is at most 253 characters (RFC 1035) ...
MAX_HOST_CHARS = 253
#: ... in dot-separated labels of at most 63.
MAX_LABEL_CHARS = 63
#: A label holds ASCII letters and digits (an internationalized one is in punycode: :func:`canonical_host`),
#: hyphens, and the underscores some real subdomains carry though DNS names should not.
LABEL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_")
#: A refused name is quoted this far in the error: enough to recognize it, not a 250-character line.
QUOTED_NAME_CHARS = 60


def is_host_name(host: str) -> bool:
    """True for a host as :func:`host_of` gives it: an IP address, or dot-separated labels of ASCII
    letters, digits, hyphens and underscores (``例え.jp`` is given as ``xn--r8jz45g.jp``)."""
    if _is_ip_address(host):
        return True
    return 0 < len(host) <= MAX_HOST_CHARS and all(_is_label(label) for label in host.removesuffix(".").split("."))


def _is_label(label: str) -> bool:
    return 0 < len(label) <= MAX_LABEL_CHARS and all(c in LABEL_CHARACTERS for c in label)


def host_named(name: str) -> str:
    """The host a name stands for where one host is asked for (a request path, a command's argument):
    ``News.Example.org``, ``example.org:8080`` (a port names the same host, and so the same site),
    ``[::1]:8000``, ``bücher.de``; in the form :func:`canonical_host` gives (``xn--bcher-kva.de``), as
    :func:`host_of` gives. Raises :class:`PageError` for a name that is no host (``[x``, ``a..b``, ``a/b``,
    ``me@host``, ``☃.net``)."""
    if _is_ip_address(name):  # an IPv6 address has colons, and no port
        return canonical_host(name.strip("[]"))
    refused = PageError("host", f"{name[:QUOTED_NAME_CHARS]!r} is not a host name (news.example.org, optionally with :port)")
    try:
        parts = urlsplit("//" + name)
        parts.port  # reading the port checks it: ValueError for one that is no number from 0 to 65535
    except ValueError:
        raise refused from None
    host = canonical_host(parts.hostname or "")
    if parts.netloc != name or parts.username is not None or not is_host_name(host):
        raise refused  # a path, a query, user@, or characters no host has
    return host


def joinable_host(name: str) -> str:
    """The host named on one side of a join of sister domains (:func:`host_named`), or
    :class:`PageError`: a public suffix (``co.uk``, ``com``) is where many sites register their domains,
    no one's site, so nothing joins to or from it."""
    host = host_named(name)
    if is_public_suffix(host):
        raise PageError("host", f"{host} is a public suffix (sites register their domains under it), not a site")
    return host


def is_public_suffix(host: str) -> bool:
    """True for a name the Public Suffix List has as a suffix under which others register their domains
    (``com``, ``co.uk``, ``blogspot.com``): no one's site. Names the list does not know (``localhost``)
    are not."""
    return not _is_ip_address(host) and _public_suffixes().is_public(canonical_host(host), accept_unknown=False)


@dataclass
class Box:
    """A block's border box in page coordinates (CSS pixels, scroll offset included)."""

    left: float
    top: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def bottom(self) -> float:
        return self.top + self.height


@dataclass
class Block:
    """One block-level element's visible text, with what it looks like and where it sits."""

    text: str
    tag: str
    path: list[str]
    selector: str
    box: Box
    #: Computed CSS by property name. The blocks of a page with the same style share one dict (as
    #: :meth:`Page.from_dict` makes them): give a block a new dict rather than change its own.
    style: dict[str, str] = field(default_factory=dict)
    link_chars: int = 0
    #: Optional extras the collector adds (e.g. ``attrs`` of the element: role, itemprop).
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def link_density(self) -> float:
        return self.link_chars / max(1, len(self.text))

    def to_dict(self) -> dict[str, Any]:
        # Spelled out: dataclasses.asdict deep-copies recursively and was 10x the cost of the rest of
        # storing an upload (200 ms of 270 ms for a 300-block page).
        box = self.box
        data: dict[str, Any] = {
            "text": self.text,
            "tag": self.tag,
            "path": list(self.path),
            "selector": self.selector,
            "box": {"left": box.left, "top": box.top, "width": box.width, "height": box.height},
            "style": dict(self.style),
            "link_chars": self.link_chars,
        }
        data.update(copy.deepcopy(self.extra))
        return data


@dataclass
class Page:
    """A collected page: metadata plus its blocks in document order."""

    url: str
    blocks: list[Block]
    canonical_url: str | None = None
    titles: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    lang: str | None = None
    viewport: dict[str, int] | None = None
    collected_at: str | None = None
    collector: str = "import"
    html: str | None = None
    format: int = FORMAT_VERSION

    @property
    def site(self) -> str:
        return site_of(self.url)

    @property
    def key(self) -> str:
        """The identity used for de-duplication: the canonical URL when the page names one."""
        return self.canonical_url or self.url

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)

    def to_dict(self, *, style_table: bool = False) -> dict[str, Any]:
        """The page as JSON-ready data. ``style_table``: in the style-table form (see
        :func:`expand_style_table`, which reads it back) when every block's style holds exactly the
        :data:`STYLE_PROPERTIES`, as collected pages' do; about half the JSON, parsed in half the time."""
        data = {
            "format": self.format,
            "url": self.url,
            "canonical_url": self.canonical_url,
            "titles": list(self.titles),
            "descriptions": list(self.descriptions),
            "lang": self.lang,
            "viewport": self.viewport,
            "collected_at": self.collected_at,
            "collector": self.collector,
            "blocks": [block.to_dict() for block in self.blocks],
        }
        rows = _style_rows(self.blocks) if style_table else None
        if rows is not None:
            data["styles"], row_of = rows
            for block_data, number in zip(data["blocks"], row_of):
                block_data["style"] = number
        if self.html is not None:
            data["html"] = self.html
        return data

    @classmethod
    def from_dict(cls, data: Any) -> "Page":
        """Validate and convert a decoded JSON page; raises :class:`PageError` naming the bad field."""
        if not isinstance(data, dict):
            raise PageError("(page)", "must be a JSON object")
        version = data.get("format", FORMAT_VERSION)
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT_VERSION:
            raise PageError("format", f"unsupported format version {version!r}")
        url = _required_str(data, "url")
        site_of(url)  # raises for a URL without a host
        canonical = _optional_str(data, "canonical_url")
        collector = data.get("collector", "import")
        if collector not in COLLECTORS:
            raise PageError("collector", f"must be one of {', '.join(COLLECTORS)}")
        html = _optional_str(data, "html")
        if html is not None and (len(html) > MAX_HTML_CHARS or too_costly_to_parse(html)):
            html = None  # too costly to parse: the blocks carry what learning needs
        blocks_data = data.get("blocks")
        if not isinstance(blocks_data, list):
            raise PageError("blocks", "must be a list")
        _check_block_count(blocks_data)
        viewport = data.get("viewport")
        if viewport is not None and not (
            isinstance(viewport, dict) and all(_is_number(v) for v in viewport.values())
        ):
            raise PageError("viewport", "must be an object of numbers")
        return cls(
            url=url,
            canonical_url=canonical or None,
            titles=_str_list(data, "titles"),
            descriptions=_str_list(data, "descriptions"),
            lang=_optional_str(data, "lang") or None,
            viewport=viewport,
            collected_at=_optional_str(data, "collected_at") or _now(),
            collector=collector,
            html=html,
            blocks=_blocks_from_dicts(blocks_data),
            format=version,
        )


_BLOCK_FIELDS = {"text", "tag", "path", "selector", "box", "style", "link_chars"}
#: ``isinstance(value, str)`` as one callable, for ``map`` (every block's path is checked: half the time).
_IS_STR = str.__instancecheck__
_STYLE_PROPERTY_SET = frozenset(STYLE_PROPERTIES)


def _style_rows(blocks: list[Block]) -> tuple[list[list[str]], list[int]] | None:
    """The distinct styles of the blocks as rows of :data:`STYLE_PROPERTIES` values, and each block's row
    number; None when a style holds other properties or lacks some (the plain form keeps it as it is)."""
    rows: list[list[str]] = []
    by_values: dict[tuple[str, ...], int] = {}
    by_dict: dict[int, int] = {}  # the blocks of one style share its dict: each dict is read once
    row_of = []
    for block in blocks:
        number = by_dict.get(id(block.style))
        if number is None:
            if block.style.keys() != _STYLE_PROPERTY_SET:
                return None
            values = tuple(map(block.style.__getitem__, STYLE_PROPERTIES))
            number = by_values.get(values)
            if number is None:
                number = by_values[values] = len(rows)
                rows.append(list(values))
            by_dict[id(block.style)] = number
        row_of.append(number)
    return rows, row_of


def expand_style_table(data: Any) -> Any:
    """A page in the style-table form in the plain format; anything else as it is. Raises PageError.

    The form is what collect.js writes with its ``styleTable`` option, and what the bookmarklet uploads:
    each distinct style once, in ``styles``, as its values in ``STYLE_PROPERTIES`` order, and each block's
    ``style`` its index there (a block's JSON shrinks from ~930 to ~270 bytes). ``styles`` is dropped and
    each index replaced by its row as a dict, one dict per row (``from_dict`` copies each distinct style
    once, for the blocks that have it to share). The block count is checked first: a body of small
    indices must stay cheap to refuse.
    """
    if not isinstance(data, dict) or "styles" not in data:
        return data
    rows = data.pop("styles")
    if not isinstance(rows, list) or not all(isinstance(row, list) and len(row) == len(STYLE_PROPERTIES) for row in rows):
        raise PageError("styles", f"must be a list of {len(STYLE_PROPERTIES)}-value lists")
    blocks = data.get("blocks")
    if not isinstance(blocks, list):
        return data  # from_dict says what is wrong
    _check_block_count(blocks)
    if len(rows) > MAX_BLOCKS:  # a page has at most a style per block
        raise PageError("styles", f"has {len(rows)} rows; at most {MAX_BLOCKS} are accepted")
    styles = [dict(zip(STYLE_PROPERTIES, row)) for row in rows]
    for number, block in enumerate(blocks):
        index = block.get("style") if isinstance(block, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(styles):
            raise PageError(f"blocks[{number}].style", "must be an index into styles")
        block["style"] = styles[index]
    return data


def _check_block_count(blocks: list) -> None:
    if len(blocks) > MAX_BLOCKS:
        raise PageError("blocks", f"has {len(blocks)} blocks; at most {MAX_BLOCKS} are accepted")


def _blocks_from_dicts(blocks_data: list) -> list[Block]:
    """The page's blocks; those of the same style share one style dict (a page repeats a few dozen styles
    over hundreds of blocks: learning reads each shared dict's values once)."""
    styles: dict[tuple, dict[str, str]] = {}
    # The style-table form gives the blocks of a style one dict: it is checked and matched once. (By id:
    # ``blocks_data`` holds every dict until the call returns, so no id is reused meanwhile.)
    seen: dict[int, dict[str, str]] = {}
    return [_block_from_dict(b, f"blocks[{i}]", styles, seen) for i, b in enumerate(blocks_data)]


def _block_from_dict(
    data: Any, where: str, styles: dict[tuple, dict[str, str]], seen: dict[int, dict[str, str]]
) -> Block:
    """One block; its style is the one in ``styles`` equal to it (added there if none is), found through
    ``seen`` when its dict was another block's."""
    if not isinstance(data, dict):
        raise PageError(where, "must be an object")
    text = _required_str(data, "text", where)
    tag = _required_str(data, "tag", where).lower()
    path = data.get("path")
    if not isinstance(path, list) or not all(map(_IS_STR, path)):
        raise PageError(f"{where}.path", "must be a list of tag names")
    selector = _required_str(data, "selector", where)
    if len(path) > MAX_DEPTH or selector.count(">") > MAX_DEPTH:
        field_name = "path" if len(path) > MAX_DEPTH else "selector"
        raise PageError(f"{where}.{field_name}", f"nests deeper than {MAX_DEPTH} elements")
    box_data = data.get("box")
    if not isinstance(box_data, dict):
        raise PageError(f"{where}.box", "must be an object with left, top, width, height")
    try:
        box = Box(float(box_data["left"]), float(box_data["top"]), float(box_data["width"]), float(box_data["height"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise PageError(f"{where}.box", f"needs numeric left, top, width, height ({exc})") from None
    style = data.get("style", {})
    shared = seen.get(id(style))
    if shared is None:
        shared = seen[id(style)] = _shared_style(style, f"{where}.style", styles)
    link_chars = data.get("link_chars", 0)
    if not isinstance(link_chars, int) or isinstance(link_chars, bool) or link_chars < 0:
        raise PageError(f"{where}.link_chars", "must be a non-negative integer")
    # (most blocks have no extras: the keys' set comparison is C code, the comprehension is not)
    extra = {} if data.keys() <= _BLOCK_FIELDS else {k: v for k, v in data.items() if k not in _BLOCK_FIELDS}
    return Block(text, tag, list(map(str.lower, path)), selector, box, shared, link_chars, extra)


def _shared_style(style: Any, where: str, styles: dict[tuple, dict[str, str]]) -> dict[str, str]:
    """The dict in ``styles`` equal to ``style`` (a copy of it, added, if none is)."""
    if not isinstance(style, dict) or not all(map(_IS_STR, style.values())):
        raise PageError(where, "must map property names to strings")
    # Names and values as two flat tuples (a tuple of name-value pairs takes twice as long to build and hash).
    key = (tuple(style), tuple(style.values()))
    shared = styles.get(key)
    if shared is None:
        shared = styles[key] = dict(style)
    return shared


def _required_str(data: dict, key: str, where: str = "") -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise PageError(_join(where, key), "must be a non-empty string")
    return value


def _optional_str(data: dict, key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise PageError(key, "must be a string or null")
    return value


def _str_list(data: dict, key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PageError(key, "must be a list of strings")
    return [v for v in value if v.strip()]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
