"""An article's text as Markdown: its headings, list items, block quotes, code and tables kept.

What each line of the article is comes from the page (:func:`sitewise.structure.article_blocks`): an
``<h2>`` line becomes ``## …``, a line in an ``<ol>``'s item ``1. …``, a line in a ``<blockquote>``
``> …`` (the paragraphs of one quote parted by a ``>`` line), a line in a ``<pre>`` the element's code in
a fence, with the line breaks and indentation the page gives it, the cells of a data table a GitHub
table (its first row the header; a cell's lines joined by a space, its ``|`` escaped). Lines one element
gives, split by a ``<br>`` (a poem's, an address's), stay one paragraph, list item or quote, with a hard
line break (a backslash at a line's end) between them. Inline markup (bold, italic, struck-through and
code words), links and images only when asked (``[text](address)``, ``![alt](address)``: :func:`sitewise.structure.article_blocks`
says which images are the article's), and the characters Markdown would read as markup are escaped.
"""
from __future__ import annotations

import re
import unicodedata

from .structure import Block, LineKind, Piece, TableRows, article_blocks, continues_list, inline_events

#: Markdown reads a paragraph starting like this as markup (a heading, a quote, a list item, a fence, a
#: thematic break): such a line gets a backslash before its first character ...
_MARKUP_START = re.compile(r"^(?:#|>|[-*+](?:\s|$)|`{3}|~{3}|([-_*])(?:\s*\1){2,}\s*$)")
#: ... or, starting like an ordered list's item ("1. ", "2) "), before its delimiter: a backslash before
#: a digit is no escape, and Markdown would show it.
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
#: Characters Markdown reads as inline markup anywhere in a line: a backslash, code spans, emphasis,
#: links, HTML tags and tildes (GitHub's strikethrough, of one or two); an underscore only at a word's
#: edge (``snake_case`` is no emphasis); an ampersand only where it starts an entity or numeric character
#: reference (``&copy;``, ``&#169;``, ``&#xA9;``, which Markdown shows as the character; "AT&T" or "&"
#: alone it shows as they are). Any name before a ";" counts, not only HTML's entity names: ``\&`` is a
#: valid escape wherever it stands.
_INLINE_MARKUP = re.compile(
    r"[\\`*\[\]<~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|&(?=[A-Za-z][A-Za-z0-9]*;|#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};)"
)
#: A heading ending in a run of "#" after a space, or that is one, would lose it (Markdown reads it as the
#: heading's close).
_HEADING_CLOSE = re.compile(r"(?:(?<=\s)|^)(#+)\s*$")
#: A line after a hard line break that is a run of "=" or "-" would make the lines above it a heading.
_SETEXT_UNDERLINE = re.compile(r"^(?:=+|-+)\s*$")
#: CommonMark's hard line break: a backslash at a line's end (trailing spaces would be invisible).
HARD_BREAK = "\\\n"
#: A nested list item is indented this many spaces per level: the width of "1. ", the wider marker, as
#: CommonMark nests an item only at or past its parent item's text (two spaces under "1. " start a new
#: item of the outer list); fewer than four, which would make an item with no parent line above it code.
LIST_INDENT = 3
#: How Markdown marks the nested marks (:data:`sitewise.structure.NESTED_MARKS`): ``~~`` is GitHub's.
MARKERS = {"strong": "**", "em": "*", "del": "~~"}
#: A code fence is at least this many backticks, and longer than any run of them in the code.
MIN_FENCE = 3
_BACKTICKS = re.compile(r"`+")


def to_markdown(
    text: str, html: str, links: bool = False, base_url: str | None = None, *, images: bool = False,
    marks: bool = False,
) -> str:
    """``text`` (an article's lines, from ``html``) as Markdown; with ``links``, the links of its
    paragraphs, headings, list items and quotes, with ``images`` its images, each ``![alt](address)``
    (relative addresses resolved against ``base_url``), and with ``marks`` their bold, italic,
    struck-through and code words (``**``, ``*``, ``~~``, backticks)."""
    blocks = article_blocks(text, html, links, base_url, images=images, marks=marks)
    out: list[str] = []
    for index, block in enumerate(blocks):
        if index:
            out.append(_separator(blocks[index - 1].kind, block.kind))
        out.append(_markdown_block(block))
    return "".join(out)


def _separator(before: LineKind, after: LineKind) -> str:
    """What goes between two blocks: the items of one list (:func:`~sitewise.structure.continues_list`)
    follow each other; everything else is parted by a blank line, inside the quotes that hold both (a
    quote's paragraphs are one quote, two quotes side by side stay two)."""
    if continues_list(before, after):
        return "\n"
    shared = 0
    for quote, next_quote in zip(before.quoted_in, after.quoted_in):
        if quote != next_quote:
            break
        shared += 1
    return "\n" + ("> " * shared).rstrip() + "\n"


def _markdown_block(block: Block) -> str:
    kind = block.kind
    if block.image is not None:
        markdown = f"![{_escaped(block.image.alt)}]({block.image.src})"
    elif kind.code is not None:
        code = kind.code or block.lines[0]
        fence = _fence(code, MIN_FENCE)
        markdown = f"{fence}\n{code}\n{fence}"
    elif kind.kind == "heading":
        markdown = "#" * kind.level + " " + _HEADING_CLOSE.sub(r"\\\1", _inline(block, 0))
    elif kind.kind == "table":
        markdown = _markdown_table(block.rows)
    else:
        # (an item's text that starts like a list item would make a list inside it)
        marker = ""
        if kind.kind.startswith("list"):
            marker = " " * LIST_INDENT * (kind.level - 1) + ("1. " if kind.kind == "list-ol" else "- ")
        # the lines after a break are indented to the item's text, which they continue
        broken = [_escaped_start(_inline(block, 0))] + [_escaped_after_break(_inline(block, index))
                                                       for index in range(1, len(block.lines))]
        markdown = marker + (HARD_BREAK + " " * len(marker)).join(broken)
    if kind.quoted_in:
        markdown = "\n".join("> " * len(kind.quoted_in) + part for part in markdown.split("\n"))
    return markdown


def _markdown_table(rows: TableRows) -> str:
    """A GitHub table: the first row its header, each cell's lines joined by a space (a cell is one line)."""
    lines = ["| " + " | ".join(_escaped(" ".join(cell)).replace("|", "\\|") for cell in row) + " |" for row in rows]
    lines.insert(1, "|" + " --- |" * len(rows[0]))
    return "\n".join(lines)


def _inline(block: Block, index: int) -> str:
    """A block's line escaped (:func:`_escaped`), with its links (:attr:`Block.links`) as Markdown links and
    its marks (:attr:`Block.marks`) as emphasis, strikethrough (GitHub's) and code spans, each mark whose
    delimiters Markdown would read (:func:`_drop_unreadable_marks`)."""
    parts, markers = [], []  # the output's parts; the open/close parts of each mark
    opened: list[int] = []
    for event, value in inline_events(block.pieces(index)):
        if event == "piece":
            parts.append(_markdown_piece(value))
            continue
        parts.append(MARKERS[value])
        if event == "open":
            opened.append(len(parts) - 1)
        else:
            markers.append((opened.pop(), len(parts) - 1))
    _drop_unreadable_marks(parts, markers)
    return "".join(parts)


def _drop_unreadable_marks(parts: list[str], markers: list[tuple[int, int]]) -> None:
    """Empty the parts of the marks (their open and close parts) Markdown would show as asterisks or
    tildes: an opening delimiter run must be left-flanking and a closing one right-flanking (CommonMark
    6.2), which a mark starting or ending on punctuation inside a word is not ("**Gallery’**s"). Dropping
    one changes its neighbours' runs: judged again till none is."""
    remaining = markers
    while remaining:
        flanking = _Flanking(parts)
        unreadable = {(o, c) for o, c in remaining if not flanking.left(o) or not flanking.right(c)}
        for open_part, close_part in unreadable:
            parts[open_part] = parts[close_part] = ""
        remaining = [pair for pair in remaining if pair not in unreadable] if unreadable else []


class _Flanking:
    """Whether the delimiter run holding a part (the delimiters of one character side by side) is left- or
    right-flanking, from the characters on either side of the run (each part's neighbours read once: a
    line may hold thousands of marks)."""

    def __init__(self, parts: list[str]) -> None:
        self.parts = parts
        self.before = [" "] * len(parts)  # the character before each part (a line's edge reads as a space)
        self.after = [" "] * len(parts)
        last = " "
        for index, part in enumerate(parts):
            self.before[index] = last
            last = part[-1] if part else last
        first = " "
        for index in range(len(parts) - 1, -1, -1):
            self.after[index] = first
            first = parts[index][0] if parts[index] else first

    def left(self, index: int) -> bool:
        before, after = self._around_run(index)
        return not after.isspace() and (not _punctuation(after) or before.isspace() or _punctuation(before))

    def right(self, index: int) -> bool:
        before, after = self._around_run(index)
        return not before.isspace() and (not _punctuation(before) or after.isspace() or _punctuation(after))

    def _around_run(self, index: int) -> tuple[str, str]:
        parts, char = self.parts, self.parts[index][:1]
        start, end = index, index
        while start > 0 and _same_delimiters(parts[start - 1], char):
            start -= 1
        while end + 1 < len(parts) and _same_delimiters(parts[end + 1], char):
            end += 1
        return self.before[start], self.after[end]


def _same_delimiters(part: str, char: str) -> bool:
    """Whether a part is nothing (a dropped marker) or delimiters of ``char`` alone."""
    return not part or (part[0] == char and not part.strip(char))


def _punctuation(char: str) -> bool:
    """CommonMark's punctuation: Unicode's punctuation and symbol characters."""
    return unicodedata.category(char)[0] in "PS"


def _markdown_piece(piece: Piece) -> str:
    text = _code_span(piece.text) if "code" in piece.marks else _escaped(piece.text)
    return f"[{text}]({piece.href})" if piece.href else text


def _code_span(text: str) -> str:
    """Text as a code span: its characters as they are, between more backticks than any run of them it
    holds, and a space inside each end where it starts or ends with a backtick or has a space at both
    (CommonMark strips one space a side then, and reads a backtick there as part of the fence)."""
    fence = _fence(text, 1)
    spaced = text[:1] == " " and text[-1:] == " " and text.strip(" ")
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(code: str, minimum: int) -> str:
    """Backticks around ``code``: at least ``minimum``, and more than any run of them it holds."""
    return "`" * max(minimum, 1 + max((len(run) for run in _BACKTICKS.findall(code)), default=0))


def _escaped(line: str) -> str:
    """The line with the characters Markdown reads as inline markup escaped."""
    return _INLINE_MARKUP.sub(lambda match: "\\" + match.group(0), line)


def _escaped_start(line: str) -> str:
    """A paragraph's line whose start Markdown would read as block markup, escaped."""
    if _ORDERED_START.match(line):
        return _ORDERED_START.sub(lambda match: match.group(1) + "\\" + match.group(2), line, count=1)
    return "\\" + line if _MARKUP_START.match(line) else line


def _escaped_after_break(line: str) -> str:
    """A line after a hard line break, escaped where its start would end the paragraph: block markup, or
    a heading's underline."""
    return "\\" + line if _SETEXT_UNDERLINE.match(line) else _escaped_start(line)
