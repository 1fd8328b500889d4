"""An article as clean, safe HTML: what a reader view shows.

The blocks are those Markdown writes (:func:`sitewise.structure.article_blocks`), as an ``<article>``
fragment: headings ``<h1>``–``<h6>``, paragraphs ``<p>``, list items in ``<ul>``/``<ol>`` nested as
Markdown nests them, ``<blockquote>``, code in ``<pre><code>`` with the page's line breaks and
indentation, data tables as ``<table>`` (the first row the article holds of one in ``<thead>``), and
``<br>`` between the lines one element splits by a ``<br>``. Every text is escaped; nothing of the page's
markup (attributes, scripts, styles) is kept, nor its links, images and inline marks (bold, italic,
struck-through, code) unless asked for: then ``<a href>``
with the address alone (the web's and e-mail's: :data:`sitewise.structure.LINK_SCHEMES`), and each image
as a ``<figure>`` holding an ``<img>`` with its address (the web's) and alternative text alone, and the
marks as ``<strong>``, ``<em>``, ``<del>`` and ``<code>``.
"""
from __future__ import annotations

from html import escape

from .structure import Block, LineKind, TableRows, article_blocks, continues_list, inline_events

#: Between the lines of one block (where Markdown gives a hard line break) and of one table cell.
LINE_BREAK = "<br>"


def to_html(
    text: str, html: str, links: bool = False, base_url: str | None = None, *, images: bool = False,
    marks: bool = False,
) -> str:
    """``text`` (an article's lines, from ``html``) as an ``<article>`` fragment; "" for no article. With
    ``links``, the links of its paragraphs, headings, list items and quotes, with ``images`` its images
    (relative addresses resolved against ``base_url``), and with ``marks`` their bold, italic,
    struck-through and code words."""
    blocks = article_blocks(text, html, links, base_url, images=images, marks=marks)
    if not blocks:
        return ""
    out = ["<article>\n"]
    quotes: list[int] = []  # the quotes open (their elements), the outermost first
    lists: list[str] = []  # the lists open ("ul", "ol"), the outermost first, each with an item open
    previous: LineKind | None = None
    for block in blocks:
        kind = block.kind
        _close_lists(out, lists, kind.level if previous is not None and continues_list(previous, kind) else 0)
        _enter_quotes(out, quotes, kind.quoted_in)
        if kind.kind.startswith("list"):
            _open_item(out, lists, kind)
        out.append(_html_block(block))
        previous = kind
    _close_lists(out, lists, 0)
    _enter_quotes(out, quotes, ())
    out.append("</article>")
    return "".join(out)


def _close_lists(out: list[str], lists: list[str], keep: int) -> None:
    """Close the lists open past the ``keep`` outermost, and their items."""
    while len(lists) > keep:
        out.append(f"</li>\n</{lists.pop()}>\n")


def _enter_quotes(out: list[str], quotes: list[int], quoted_in: tuple[int, ...]) -> None:
    """Close the quotes open that do not hold the next block, open the ones that do."""
    shared = 0
    for quote, next_quote in zip(quotes, quoted_in):
        if quote != next_quote:
            break
        shared += 1
    while len(quotes) > shared:
        quotes.pop()
        out.append("</blockquote>\n")
    for quote in quoted_in[shared:]:
        quotes.append(quote)
        out.append("<blockquote>\n")


def _open_item(out: list[str], lists: list[str], kind: LineKind) -> None:
    """Make room for a list item at its level (the lists deeper than it closed): close the item before it
    at that level, or the list there when it is of the other kind (as Markdown starts a new list where
    the marker changes); open a list one level deeper, in the item before it."""
    tag = "ol" if kind.kind == "list-ol" else "ul"
    if len(lists) == kind.level and lists[-1] == tag:
        out.append("</li>\n")
        return
    if len(lists) == kind.level:
        _close_lists(out, lists, kind.level - 1)
    elif lists:
        out.append("\n")  # a nested list, inside the item before it
    lists.append(tag)
    out.append(f"<{tag}>\n")


def _html_block(block: Block) -> str:
    """A block's element (a list item's opened only: a nested list may follow in it)."""
    kind = block.kind
    if block.image is not None:
        return f'<figure><img src="{escape(block.image.src)}" alt="{escape(block.image.alt)}"></figure>\n'
    if kind.code is not None:
        return f"<pre><code>{_escaped(kind.code or block.lines[0])}</code></pre>\n"
    if kind.kind == "table":
        return _html_table(block.rows)
    text = LINE_BREAK.join(_inline(block, index) for index in range(len(block.lines)))
    if kind.kind == "heading":
        return f"<h{kind.level}>{text}</h{kind.level}>\n"
    if kind.kind.startswith("list"):
        return f"<li>{text}"
    return f"<p>{text}</p>\n"


def _html_table(rows: TableRows) -> str:
    """A table: its first row the header, each cell's lines parted by a line break."""
    header, *body = rows
    parts = ["<table>\n<thead>\n", _html_row(header, "th"), "</thead>\n"]
    if body:
        parts += ["<tbody>\n", *(_html_row(row, "td") for row in body), "</tbody>\n"]
    return "".join(parts) + "</table>\n"


def _html_row(row: tuple[tuple[str, ...], ...], cell_tag: str) -> str:
    cells = "".join(f"<{cell_tag}>{LINE_BREAK.join(map(_escaped, cell))}</{cell_tag}>" for cell in row)
    return f"<tr>{cells}</tr>\n"


def _inline(block: Block, index: int) -> str:
    """A block's line escaped, with its links (:attr:`Block.links`) as ``<a href>`` and its marks
    (:attr:`Block.marks`) as ``<strong>``, ``<em>``, ``<del>`` and ``<code>``."""
    out = []
    for event, value in inline_events(block.pieces(index)):
        if event == "open":
            out.append(f"<{value}>")
        elif event == "close":
            out.append(f"</{value}>")
        else:
            text = f"<code>{_escaped(value.text)}</code>" if "code" in value.marks else _escaped(value.text)
            out.append(f'<a href="{escape(value.href)}">{text}</a>' if value.href else text)
    return "".join(out)


def _escaped(text: str) -> str:
    """Text as HTML shows it: its ``&``, ``<`` and ``>`` escaped (quotes need none outside attributes)."""
    return escape(text, quote=False)
