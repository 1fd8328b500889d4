"""What each line of an article is — heading, list item, quote, code, table cell — for the outputs that
keep it (Markdown: :mod:`sitewise.markdown`; HTML: :mod:`sitewise.article_html`).

Whichever method found the article (rules or the fallback), its text comes one block per line. Each line
is looked up among the page's own lines (:func:`sitewise.learn.rules.page_lines`), and the element it
came from says what it is: a line of an ``<h2>`` is a heading of level 2, a line in an ``<ol>``'s item an
item of an ordered list, a line in a ``<blockquote>`` quoted, a line in a ``<pre>`` the element's code,
with the line breaks and indentation the page gives it (the text output, one block per line, has them
collapsed). Lines one element gives, split by a ``<br>`` (a poem's, an address's), stay one block. The
lines of a data table's cells, one after another in the answer, are one table: each cell at its row and
column as the page lays the table out; a layout table's lines are paragraphs (:func:`_data_table_grid`).
A line the page does not have word for word (spacing aside) is a plain paragraph.
"""
from __future__ import annotations

import re
import urllib.parse
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, Iterator, NamedTuple, Sequence

from .mojibake import repair_mojibake

#: Heading elements and their level.
HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}
_SPACES = re.compile(r"\s+")
#: A table's cells.
CELL_TAGS = ("td", "th")
#: A data table has at least this many columns: a table of one is a stack of blocks, laid out.
MIN_TABLE_COLUMNS = 2
#: ... and at least this many rows: a header and one row of data; a table of one row is a strip of boxes
#: laid side by side (a logo and a menu, a photo and its caption).
MIN_TABLE_ROWS = 2
#: ... and at most this many columns: a grid wider is a layout grid (spacer cells spanning it) or a
#: ``colspan`` bomb, not a table to read (a results or specifications table has a handful).
MAX_TABLE_COLUMNS = 50
#: A cell of a data table holds a value, a name, a note or an address: a cell of more words is a column
#: of the page's layout, holding its running text.
MAX_CELL_WORDS = 100
#: A table holding one of these is a layout: a table cell holds no block structure (a data table's cells
#: are inline text, and so are a Markdown table's), and a table in a table is a layout's grid.
LAYOUT_CONTENT = "table, h1, h2, h3, h4, h5, h6, ul, ol, dl, pre, blockquote"
#: A ``colspan``'s or ``rowspan``'s number, as HTML reads it (leading digits).
_SPAN = re.compile(r"\s*(\d{1,9})")


class LineKind(NamedTuple):
    """What a line of the page is."""

    #: ``heading``, ``list-ul``/``list-ol``, ``table`` or ``""`` (a paragraph).
    kind: str = ""
    #: A heading's level, a list item's depth (in an article's block: its nesting level among the items
    #: kept, :func:`_nested_level`).
    level: int = 0
    #: The block quotes that hold it (their elements), the outermost first.
    quoted_in: tuple[int, ...] = ()
    #: In a ``<pre>``: the element's text as the page lays it out, and the element (its lines are one
    #: code block, given once).
    code: str | None = None
    code_element: int | None = None


PARAGRAPH = LineKind()
#: An image of the article: a block of its own, with no lines.
IMAGE = LineKind("image")
#: An image between two lines of the article belongs to it when the page gives at most this many lines
#: between them, which the article leaves out: a figure's caption and its credit.
MAX_FIGURE_LINES = 2


class Cell(NamedTuple):
    """Where a line of a data table's cell stands in its table."""

    #: The table (its element).
    table: int
    row: int
    #: The first column it spans, and how many (``colspan``).
    column: int
    span: int
    #: The quotes that hold the table, as :attr:`LineKind.quoted_in`.
    quoted_in: tuple[int, ...]


class Link(NamedTuple):
    """A link in a line of the page: its text, where it leads (:func:`resolved_address`), and the end of the
    text before it in its block (as :class:`Marked`'s)."""

    text: str
    href: str
    before: str = ""


class Marked(NamedTuple):
    """Text of a line the page marks inline (:data:`MARK_OF_TAG`): its words, the mark, and the end of
    the text before it in its block (:data:`MARK_CONTEXT_CHARS`), which tells it from the same words
    unmarked earlier in the line ("the ``a`` key", a word emphasised on its second use)."""

    text: str
    mark: str
    before: str = ""


class Piece(NamedTuple):
    """A stretch of a line with one address and one set of marks (:func:`line_pieces`)."""

    text: str
    #: The address it links to ("" for none) ...
    href: str = ""
    #: ... and which of its line's links that is (two links side by side to one address stay two).
    link: int = -1
    marks: frozenset[str] = frozenset()


class Image(NamedTuple):
    """An image of the page: where its file is (:func:`_image`) and its alternative text."""

    src: str
    alt: str


class PlacedImage(NamedTuple):
    """An image where the page shows it among its lines: in the line it is placed at, or before it."""

    image: Image
    in_line: bool


class Layout(NamedTuple):
    """What the page's lines are, each by :func:`key`."""

    kinds: dict[str, LineKind]
    #: (line, next line) where the page gives both in one element, split by a ``<br>``.
    breaks: set[tuple[str, str]]
    #: Where each line stands among the page's lines (its indexes, ascending) ...
    places: dict[str, list[int]]
    #: ... and the data table cell of each index that is one.
    cells: dict[int, Cell]
    #: The links of each line, in the order the line gives them (read only when asked).
    links: dict[str, tuple[Link, ...]]
    #: The images at each index (read only when asked): in that line, or between it and the one before.
    images: dict[int, list[PlacedImage]]
    #: The inline marks of each line, in the order the line gives them (read only when asked).
    marks: dict[str, tuple[Marked, ...]]


#: A table's rows, each a tuple of its cells, each cell its lines (none for an empty cell).
TableRows = tuple[tuple[tuple[str, ...], ...], ...]


class Block(NamedTuple):
    """One block of an article: a heading, a paragraph, a list item, a quote's paragraph, code or a table."""

    kind: LineKind
    #: Its lines (more than one where the page splits them by a ``<br>``); a table's are in ``rows``.
    lines: tuple[str, ...]
    #: A table's rows, the header first (the first row the article holds), each as wide as the widest.
    rows: TableRows = ()
    #: The links of each of ``lines`` (when asked for: :func:`article_blocks`).
    links: tuple[tuple[Link, ...], ...] = ()
    #: An image block's image (its kind :data:`IMAGE`; no lines).
    image: Image | None = None
    #: The inline marks of each of ``lines`` (when asked for: :func:`article_blocks`).
    marks: tuple[tuple[Marked, ...], ...] = ()

    def pieces(self, index: int) -> list[Piece]:
        """Its line ``index`` as pieces, each with its address and marks (:func:`line_pieces`)."""
        return line_pieces(self.lines[index], self.links[index] if index < len(self.links) else (),
                           self.marks[index] if index < len(self.marks) else ())


@dataclass
class _Gathered:
    """A block as the article's lines are read into it."""

    kind: LineKind
    lines: list[str]
    #: A table's cells and their lines, in the order the article gives them.
    cells: dict[Cell, list[str]] = field(default_factory=dict)
    #: The links and the marks of each of ``lines``.
    links: list[tuple[Link, ...]] = field(default_factory=list)
    marks: list[tuple[Marked, ...]] = field(default_factory=list)
    image: Image | None = None


def article_blocks(
    text: str, html: str, links: bool = False, base_url: str | None = None, *, images: bool = False,
    marks: bool = False,
) -> list[Block]:
    """``text`` (an article's lines, from ``html``) as blocks, what each is read from the page; with
    ``links``, each line's links (:func:`_line_links`; relative ones resolved against ``base_url``); with
    ``images``, the article's images as blocks of their own (:func:`_images_before`); with ``marks``, each
    line's inline marks (:func:`_line_marks`)."""
    layout = page_layout(html, links, base_url, images=images, marks=marks)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    keys = [key(line) for line in lines]
    places = list(_places(keys, layout))
    cells = _table_runs([None if place is None else layout.cells.get(place) for place in places])
    gathered: list[_Gathered] = []
    shown: set[str] = set()  # the images given, by address: a page may show one twice (a lazy copy)
    previous, previous_key, previous_table, previous_place = PARAGRAPH, "", None, None
    for line, line_key, place, cell in zip(lines, keys, places, cells):
        kind = layout.kinds.get(line_key, PARAGRAPH)
        if cell is not None and cell.table == previous_table:
            gathered[-1].cells.setdefault(cell, []).append(line)
        elif cell is None and kind.code_element is not None and kind.code_element == previous.code_element:
            pass  # the code block is given once, whole
        elif cell is None and (previous_key, line_key) in layout.breaks and _breaks_lines(gathered[-1].kind):
            gathered[-1].lines.append(line)
            gathered[-1].links.append(layout.links.get(line_key, ()))
            gathered[-1].marks.append(layout.marks.get(line_key, ()))
        else:
            gathered += _images_before(layout, place, previous_place, shown)
            if cell is not None:  # the first line the article gives of a table
                kind = LineKind("table", quoted_in=cell.quoted_in)
                gathered.append(_Gathered(kind, [], cells={cell: [line]}))
            else:
                gathered.append(_Gathered(kind, [line], links=[layout.links.get(line_key, ())],
                                          marks=[layout.marks.get(line_key, ())]))
        previous, previous_key = gathered[-1].kind, line_key
        previous_table, previous_place = None if cell is None else cell.table, place
    return _blocks(gathered)


def _places(keys: list[str], layout: Layout) -> Iterator[int | None]:
    """Where each line (by key) stands among the page's lines, or None where the page has no such line.
    A line is the page's first line of its text after the page line of the line before it (else its
    first): the same text ("Yes", "0") stands in many table cells, each in its own row and column."""
    place = -1
    for line_key in keys:
        places = layout.places.get(line_key)
        if not places:
            yield None
            continue
        later = bisect_right(places, place)
        place = places[later] if later < len(places) else places[0]
        yield place


def _images_before(layout: Layout, place: int | None, previous_place: int | None, shown: set[str]) -> list[_Gathered]:
    """The article's images to give before its line at page line ``place`` (the article's line before it
    at ``previous_place``), each once: those in that line, and those between the two lines when the page
    gives at most :data:`MAX_FIGURE_LINES` other lines between them (a figure's caption and credit, which
    the article may leave out). An image at the article's edge, or beside more of what the article leaves
    out, is the page's (a logo, an advertisement, a teaser's picture), as those lines are."""
    if place is None:
        return []
    between = previous_place is not None and 0 < place - previous_place <= MAX_FIGURE_LINES + 1
    out = []
    for index in range(previous_place + 1, place + 1) if between else (place,):  # type: ignore[operator]
        for placed in layout.images.get(index, ()):
            if (between or placed.in_line) and placed.image.src not in shown:
                shown.add(placed.image.src)
                out.append(_Gathered(IMAGE, [], image=placed.image))
    return out


def _table_runs(cells: list[Cell | None]) -> list[Cell | None]:
    """The lines' cells, without those of a run of one table's lines (the part of it the article holds)
    that is too small to be a table: a row or a column only (:data:`MIN_TABLE_ROWS`,
    :data:`MIN_TABLE_COLUMNS`), such as a layout table's one cell of text. Its lines are paragraphs."""
    kept: list[Cell | None] = []
    for table, run in groupby(cells, key=lambda cell: None if cell is None else cell.table):
        part = list(run)
        too_small = table is None or (len({cell.row for cell in part}) < MIN_TABLE_ROWS
                                      or len({cell.column for cell in part}) < MIN_TABLE_COLUMNS)
        kept.extend([None] * len(part) if too_small else part)
    return kept


def _blocks(gathered: list[_Gathered]) -> list[Block]:
    """The gathered blocks, each list item at its nesting level, each table's rows laid out."""
    blocks: list[Block] = []
    open_items: list[int] = []  # the page depths of the list items the current item is nested in, and its own
    for index, block in enumerate(gathered):
        kind = block.kind
        if index and not continues_list(gathered[index - 1].kind, kind):
            open_items = []  # the list ended: the next item starts one
        if kind.kind.startswith("list"):
            kind = kind._replace(level=_nested_level(open_items, kind.level))
        blocks.append(Block(kind, tuple(block.lines), _table_rows(block.cells), tuple(block.links), block.image,
                            tuple(block.marks)))
    return blocks


def _nested_level(open_items: list[int], depth: int) -> int:
    """The nesting level of a list item at ``depth`` in the page, among the items before it in its list
    (``open_items``, updated): one deeper than the nearest shallower item, the first at 1. The article
    keeps some of a page's items only (a menu's "Sport > Soccer" without the levels between), and an item
    indented past its parent's text by four spaces or more is code to CommonMark, not a list item."""
    while open_items and open_items[-1] >= depth:
        open_items.pop()
    open_items.append(depth)
    return len(open_items)


def continues_list(before: LineKind, after: LineKind) -> bool:
    """Whether ``after`` is an item of the list ``before`` is an item of: list items in the same quotes, of
    either kind (an item of one may hold a list of the other)."""
    return before.quoted_in == after.quoted_in and before.kind.startswith("list") and after.kind.startswith("list")


def _table_rows(cells: dict[Cell, list[str]]) -> TableRows:
    """A table's rows from the cells the article holds of it (rows it holds none of left out), each cell
    at its column, the cells a ``colspan`` covers and the ones the article lacks empty, every row as wide
    as the widest."""
    if not cells:
        return ()
    width = max(cell.column + cell.span for cell in cells)
    rows: dict[int, list[tuple[str, ...]]] = {}
    for cell, lines in cells.items():
        row = rows.setdefault(cell.row, [()] * width)
        row[cell.column] = row[cell.column] + tuple(lines)
    return tuple(tuple(rows[number]) for number in sorted(rows))


def page_layout(
    html: str, links: bool = False, base_url: str | None = None, *, images: bool = False, marks: bool = False
) -> Layout:
    """What each line of the page is, which lines a ``<br>`` splits, and the data table cells; with
    ``links``, the links of each line (:func:`_line_links`); with ``images``, where its images are; with
    ``marks``, the inline marks of each line (:func:`_line_marks`)."""
    from .learn.rules import page_lines

    layout = Layout({}, set(), {}, {}, {}, {}, {})
    previous_key = ""
    cell_elements: dict[int, Any] = {}  # page line index → the table cell element it is in
    code_of: dict[int, str] = {}
    tags = frozenset().union(*(wanted for asked, wanted in ((links, LINK_TAGS), (images, IMAGE_TAGS), (marks, MARK_OF_TAG))
                               if asked))
    found: list[tuple[int, int, Any]] | None = [] if tags else None
    lines = page_lines(html, tags, found)
    at_line: dict[int, list[Any]] = {}  # page line index → the links and marks in it, in document order
    for index, _, element in found or ():
        at_line.setdefault(index, []).append(element)
    for index, (line, block, after_break) in enumerate(lines):
        line_key = key(line)
        if line_key not in layout.kinds:
            layout.kinds[line_key] = _kind_of(block, code_of)
            if links:
                layout.links[line_key] = _line_links(line, block, at_line.get(index, ()), base_url)
            if marks:
                layout.marks[line_key] = _line_marks(line, block, at_line.get(index, ()))
        layout.places.setdefault(line_key, []).append(index)
        if after_break:
            layout.breaks.add((previous_key, line_key))
        previous_key = line_key
        cell = _cell_element(block)
        if cell is not None:
            cell_elements[index] = cell
    layout.cells.update(_data_table_cells(cell_elements, code_of))
    for index, block_id, element in found if images else ():  # type: ignore[union-attr]
        image = _image(element, base_url) if element.tag in IMAGE_TAGS else None
        if image is not None:
            in_line = index < len(lines) and lines[index][1].mem_id == block_id
            layout.images.setdefault(index, []).append(PlacedImage(image, in_line))
    return layout


def _line_links(line: str, block: Any, elements: Sequence[Any], base_url: str | None) -> tuple[Link, ...]:
    """The links (``<a href>`` with text) among the ``elements`` in a line (:func:`page_layout`; ``block``,
    its block-level node) whose text the line holds, in the order the line gives them, each to where it
    leads (:func:`resolved_address`) and with its context (:class:`Link`), which places it among the line's
    words: "here" linked after "Read more" is not the "here" before it."""
    found: dict[int, Link] = {}
    for anchor in elements:
        href = anchor.attributes.get("href") if anchor.tag in LINK_TAGS else None  # (a dict made per call)
        if href is None:
            continue
        text = _element_text(anchor)
        target = resolved_address(href, base_url)
        if text and target:
            before = _text_before(anchor, block)
            place = _place_in_line(line, text, before, 0)
            if place >= 0:
                found.setdefault(place, Link(text, target, before))
    return tuple(found[place] for place in sorted(found))


def _place_in_line(line: str, text: str, before: str, start: int) -> int:
    """Where ``text`` stands in ``line`` from ``start`` on: after its context ``before`` where the line
    holds both (the fallback may space words its own way), else its first place; -1 for none."""
    place = line.find(before + text, max(0, start - len(before))) if before else -1
    return place + len(before) if place >= 0 else line.find(text, start)


#: The schemes of the links an article keeps: the web's and e-mail's (never ``javascript:`` or ``data:``,
#: which run or hold something instead of leading somewhere).
LINK_SCHEMES = frozenset({"http", "https", "mailto"})


def resolved_address(href: str, base_url: str | None, schemes: frozenset[str] = LINK_SCHEMES) -> str:
    """Where a link leads: resolved against the page's address when it is relative and the address is
    known, percent-encoded where Markdown and HTML would read a character otherwise (spaces, brackets,
    quotes); "" for a link that leads nowhere an article's reader can follow (a scheme not of ``schemes``,
    only a place on the page itself, which the article is not, or an address no URL parser reads)."""
    href = href.strip()
    if not href or href.startswith("#"):
        return ""
    try:
        target = urllib.parse.urljoin(base_url, href) if base_url else href
        scheme = urllib.parse.urlsplit(target).scheme.lower()
    except ValueError:  # (a broken IPv6 host: "http://[::1/x")
        return ""
    if scheme and scheme not in schemes:
        return ""
    return urllib.parse.quote(target, safe=_URL_SAFE)


#: The elements of links and of images, as :func:`page_layout` finds them.
LINK_TAGS = frozenset({"a"})
IMAGE_TAGS = frozenset({"img"})
#: Where an image's file may be: the web's schemes (a ``data:`` address is a lazy page's placeholder, or
#: the picture itself, too long for a reader's text: the next attribute is read).
IMAGE_SCHEMES = frozenset({"http", "https"})
#: The attributes that may hold an image's address, in the order they are read: ``src``, and those of
#: the lazy-loading scripts that leave ``src`` empty or a placeholder until the image is scrolled to.
IMAGE_SOURCE_ATTRIBUTES = ("src", "data-src", "data-lazy-src", "data-original", "data-url")
#: ... and, failing those, the first address of a ``srcset``, the image's or its ``<picture>``'s sources'.
IMAGE_SET_ATTRIBUTES = ("srcset", "data-srcset")
#: The ARIA roles that declare an image decorative: a screen reader skips it, and so does the article.
DECORATIVE_ROLES = frozenset({"presentation", "none"})
#: An image the page declares narrower or lower than this (``width``/``height``, in pixels) is an icon,
#: a spacer or a tracking pixel, not the article's picture.
MIN_IMAGE_SIDE = 50
_PIXELS = re.compile(r"\s*(\d{1,6})\s*(?:px)?\s*$")


def _image(element: Any, base_url: str | None) -> Image | None:
    """An ``<img>`` as the article's image: its address (:data:`IMAGE_SOURCE_ATTRIBUTES`, resolved as a
    link's) and its alternative text; None for an image the page declares decorative (hidden from
    assistive technology, or of a :data:`DECORATIVE_ROLES` role), too small to be a picture, or with no
    address."""
    attributes = element.attributes
    if (attributes.get("aria-hidden") or "").strip().lower() == "true" or \
            (attributes.get("role") or "").strip().lower() in DECORATIVE_ROLES:
        return None
    for side in ("width", "height"):
        pixels = _PIXELS.match(attributes.get(side) or "")
        if pixels and int(pixels.group(1)) < MIN_IMAGE_SIDE:
            return None
    sources = [attributes.get(name) or "" for name in IMAGE_SOURCE_ATTRIBUTES]
    sources += [_first_candidate(attributes.get(name)) for name in IMAGE_SET_ATTRIBUTES]
    picture = element.parent
    if picture is not None and picture.tag == "picture":  # its <source>s offer the file the <img> may not name
        sources += [_first_candidate(source.attributes.get(name)) for source in picture.iter()
                    if source.tag == "source" for name in IMAGE_SET_ATTRIBUTES]
    for source in sources:
        src = resolved_address(source, base_url, IMAGE_SCHEMES)
        if src:
            return Image(src, " ".join((attributes.get("alt") or "").split()))
    return None


def _first_candidate(srcset: str | None) -> str:
    """The address of a ``srcset``'s first candidate: it ends at a space, and a comma there ends the
    candidate, not the address."""
    return ((srcset or "").split() or [""])[0].rstrip(",")


#: The characters a link's address keeps as they are (the reserved ones, ``%`` of those already
#: encoded, and ``~``): what :func:`urllib.parse.quote` leaves, less ``()`` and ``'``, which would end a
#: Markdown link or an attribute.
_URL_SAFE = ";/?:@&=+$,%#~!*[]"


#: Inline elements whose text the formatted outputs mark, and the mark: strong importance, emphasis,
#: deletion and code (a ``<code>`` in a ``<pre>`` is the code block's, which is given whole).
MARK_OF_TAG = {"strong": "strong", "b": "strong", "em": "em", "i": "em", "del": "del", "s": "del",
               "strike": "del", "code": "code", "kbd": "code", "samp": "code", "tt": "code"}
#: The marks that wrap a stretch of a line, the outermost first (code is the innermost, around the words).
NESTED_MARKS = ("strong", "em", "del")


#: A mark is looked up in its line with at most this much of the text before it (its context).
MARK_CONTEXT_CHARS = 24


def _line_marks(line: str, block: Any, elements: Sequence[Any]) -> tuple[Marked, ...]:
    """The inline marks (:data:`MARK_OF_TAG`) among the ``elements`` in a line (:func:`page_layout`;
    ``block``, its block-level node) whose text the line holds, in the order the page gives them, each
    with its context (:class:`Marked`)."""
    found = []
    for element in elements:
        if element.tag not in MARK_OF_TAG:
            continue
        text = _element_text(element)
        if text and text in line:
            found.append(Marked(text, MARK_OF_TAG[element.tag], _text_before(element, block)))
    return tuple(found)


def _element_text(element: Any) -> str:
    """An inline element's text, its spacing collapsed as a line's is."""
    return " ".join(element.text(deep=True).split())


def _text_before(element: Any, block: Any) -> str:
    """The last :data:`MARK_CONTEXT_CHARS` characters of ``block``'s text before ``element``, its spacing
    collapsed as a line's is (a space at its end kept: the element's text follows it)."""
    parts: list[str] = []
    length, node = 0, element
    while length < MARK_CONTEXT_CHARS and node is not None and node.mem_id != block.mem_id:
        if node.prev is not None:
            node = node.prev
            part = node.text(deep=True) if node.is_element_node else (node.text_content or "")
            parts.append(part)
            length += len(part)
        else:
            node = node.parent
    raw = "".join(reversed(parts))
    collapsed = " ".join(raw.split())
    if collapsed and raw[-1:].isspace():
        collapsed += " "
    return collapsed[-MARK_CONTEXT_CHARS:]


def line_pieces(line: str, links: tuple[Link, ...] = (), marks: tuple[Marked, ...] = ()) -> list[Piece]:
    """A line as pieces, each with the address it links to and its marks, from its links and marks (each
    found after the one before it of its kind); a link or mark whose text the line no longer holds as the
    page wrote it (the fallback spaces words its own way) leaves its words plain."""
    spans: list[tuple[int, int, int, str]] = []  # (start, end, the link's number or -1 for a mark, href or mark)
    position = 0
    for number, link in enumerate(links):
        start = _place_in_line(line, link.text, link.before, position)
        if start >= 0:
            position = start + len(link.text)
            spans.append((start, position, number, link.href))
    after: dict[str, int] = {}
    for marked in marks:
        start = _place_in_line(line, marked.text, marked.before, after.get(marked.mark, 0))
        if start >= 0:
            after[marked.mark] = start + len(marked.text)
            spans.append((start, start + len(marked.text), -1, marked.mark))
    starting: dict[int, list[tuple[int, int, int, str]]] = {}
    ending: dict[int, list[tuple[int, int, int, str]]] = {}
    for span in spans:
        starting.setdefault(span[0], []).append(span)
        ending.setdefault(span[1], []).append(span)
    cuts = sorted({0, len(line), *starting, *ending})
    links_open: dict[int, str] = {}  # the links over the stretch: number → href (the first number wins)
    marks_open: Counter[str] = Counter()  # the marks over it (one mark may cover it twice: <b><b>)
    pieces: list[Piece] = []
    for start, end in zip(cuts, cuts[1:]):  # a sweep: each span opened and closed once
        for _, _, number, value in ending.get(start, ()):
            if number >= 0:
                del links_open[number]
            else:
                marks_open[value] -= 1
        for _, _, number, value in starting.get(start, ()):
            if number >= 0:
                links_open[number] = value
            else:
                marks_open[value] += 1
        number = min(links_open, default=-1)
        piece = Piece(line[start:end], links_open.get(number, ""), number, frozenset(+marks_open))
        if pieces and pieces[-1][1:] == piece[1:]:
            pieces[-1] = piece._replace(text=pieces[-1].text + piece.text)
        else:
            pieces.append(piece)
    return pieces or [Piece(line)]


def inline_events(pieces: list[Piece]) -> list[tuple[str, Any]]:
    """Pieces as the events an output writes inline: ``("open", mark)`` and ``("close", mark)`` for the
    nested marks (:data:`NESTED_MARKS`, each stretch's outermost first, closed innermost first), and
    ``("piece", piece)``. Whitespace at a mark's edge is moved outside it: Markdown reads ``** x**`` as no
    emphasis."""
    events: list[tuple[str, Any]] = []
    open_marks: list[str] = []
    for piece in pieces:
        wanted = [mark for mark in NESTED_MARKS if mark in piece.marks]
        kept = 0
        while kept < min(len(open_marks), len(wanted)) and open_marks[kept] == wanted[kept]:
            kept += 1
        closing = [("close", mark) for mark in reversed(open_marks[kept:])]
        opening = [("open", mark) for mark in wanted[kept:]]
        text = piece.text
        if closing and events and events[-1][0] == "piece":  # the space before a close goes after it
            before = events[-1][1]
            stripped = before.text.rstrip()
            if stripped != before.text:
                events[-1] = ("piece", before._replace(text=stripped))
                text = before.text[len(stripped):] + text
        events += closing
        if opening:  # the space after an open goes before it
            lead = text[: len(text) - len(text.lstrip())]
            if lead:
                events.append(("piece", Piece(lead)))
                text = text[len(lead):]
        events += opening
        if text:
            events.append(("piece", piece._replace(text=text)))
        open_marks = wanted
    events += [("close", mark) for mark in reversed(open_marks)]
    out: list[tuple[str, Any]] = []
    for event in events:
        if event[0] == "piece" and not event[1].text:
            continue
        if event[0] == "close" and out and out[-1] == ("open", event[1]):
            out.pop()  # a mark around nothing (its words were all spaces, now outside it)
            continue
        out.append(event)
    return out


def _cell_element(block: Any) -> Any:
    """The table cell a block is in (itself or an ancestor, in the nearest table), or None."""
    node = block
    while node is not None and node.tag != "table":
        if node.tag in CELL_TAGS:
            return node
        node = node.parent
    return None


def _data_table_cells(cell_elements: dict[int, Any], code_of: dict[int, str]) -> dict[int, Cell]:
    """Of the page lines in table cells (index → cell element), those of data tables, each with its cell
    (``code_of`` as :func:`_kind_of` takes it)."""
    grids: dict[int, dict[int, tuple[int, int, int]] | None] = {}  # table → its cells' places; None: a layout
    cells: dict[int, Cell] = {}
    for index, element in cell_elements.items():
        table = _ancestor(element, "table")
        if table is None:
            continue
        if table.mem_id not in grids:
            grids[table.mem_id] = _data_table_grid(table)
        place = (grids[table.mem_id] or {}).get(element.mem_id)
        if place is not None:
            cells[index] = Cell(table.mem_id, *place, _kind_of(element, code_of).quoted_in)
    return cells


def _ancestor(node: Any, tag: str) -> Any:
    """The nearest ancestor of ``node`` of ``tag``, or None."""
    node = node.parent
    while node is not None and node.tag != tag:
        node = node.parent
    return node


def _data_table_grid(table: Any) -> dict[int, tuple[int, int, int]] | None:
    """A data table's cells (by element) and their places (row, first column, columns spanned); None for
    a table its shape says is a layout: one holding block structure, a row or a column only, wider than
    :data:`MAX_TABLE_COLUMNS`, a cell of running text."""
    if any(node.mem_id != table.mem_id for node in table.css(LAYOUT_CONTENT)):  # (lexbor matches the table too)
        return None
    rows = [[cell for cell in row.iter() if cell.tag in CELL_TAGS] for row in table.css("tr")]
    grid = _grid(rows)
    if grid is None or len(rows) < MIN_TABLE_ROWS or max((column + span for _, column, span in grid.values()),
                                                         default=0) < MIN_TABLE_COLUMNS:
        return None
    if any(len((cell.text(deep=True) or "").split()) > MAX_CELL_WORDS for row in rows for cell in row):
        return None
    return grid


def _grid(rows: list[list[Any]]) -> dict[int, tuple[int, int, int]] | None:
    """Each cell's place (row, first column, columns spanned), as HTML lays a table out: a cell takes the
    first column no ``rowspan`` from a row above holds. None when a row is wider than
    :data:`MAX_TABLE_COLUMNS`."""
    places: dict[int, tuple[int, int, int]] = {}
    held: dict[int, int] = {}  # column → the rows a rowspan still holds it for, this one included
    for number, row in enumerate(rows):
        column = 0
        for cell in row:
            while held.get(column, 0) > 0:
                column += 1
            span = _span(cell, "colspan")
            if column + span > MAX_TABLE_COLUMNS:
                return None
            places[cell.mem_id] = (number, column, span)
            for spanned in range(column, column + span):
                held[spanned] = _span(cell, "rowspan")
            column += span
        held = {column: rows_left - 1 for column, rows_left in held.items() if rows_left > 1}
    return places


def _span(cell: Any, attribute: str) -> int:
    """A cell's ``colspan`` or ``rowspan``: 1 when it has none, or none HTML reads (0, "wide")."""
    match = _SPAN.match(cell.attributes.get(attribute) or "")
    return max(1, int(match.group(1))) if match else 1


def _breaks_lines(kind: LineKind) -> bool:
    """Whether a block of this kind takes a line break: a heading is one line, code has its own, and a
    table's cells are gathered apart."""
    return kind.kind not in ("heading", "table") and kind.code is None


def _kind_of(block: Any, code_of: dict[int, str]) -> LineKind:
    """What a line of ``block`` is; ``code_of``: each ``<pre>``'s laid-out text by element, as read so far
    (every line of a ``<pre>`` is of its code: read once, not once a line)."""
    kind, level, quotes, code, code_element = "", 0, [], None, None
    node = block
    while node is not None:
        tag = node.tag
        if tag in HEADING_LEVELS and not kind:
            kind, level = "heading", HEADING_LEVELS[tag]
        elif tag == "li":
            if not kind:
                parent = node.parent
                kind = "list-ol" if parent is not None and parent.tag == "ol" else "list-ul"
            if kind.startswith("list"):
                level += 1
        elif tag == "blockquote":
            quotes.append(node.mem_id)
        elif tag == "pre" and code is None:
            code_element = node.mem_id
            code = code_of.get(code_element)
            if code is None:
                code = code_of[code_element] = _laid_out(node)
        node = node.parent
    return LineKind(kind, level, tuple(reversed(quotes)), code, code_element)


def _laid_out(element: Any) -> str:
    """An element's text with the line breaks and indentation the page gives it (``<br>`` a line break),
    its mojibake put right, blank lines at its ends left out."""
    parts = []
    for node in element.traverse(include_text=True):
        if node.tag == "-text":
            parts.append(node.text_content or "")
        elif node.tag == "br":
            parts.append("\n")
    return repair_mojibake("".join(parts)).strip("\n").rstrip()


def key(line: str) -> str:
    """A line as it is looked up: spacing and case aside (the fallback joins words its own way), its
    mojibake put right as the article's lines are."""
    return _SPACES.sub("", repair_mojibake(line)).casefold()
