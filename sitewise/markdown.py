"""An article's text as Markdown: its headings, list items, block quotes and code kept.

Whichever method found the article (rules or the fallback), its text comes one block per line. Each line
is looked up among the page's own lines (:func:`sitewise.learn.rules.page_lines`), and the element it
came from says what it is: an ``<h2>`` line becomes ``## …``, a line in an ``<ol>``'s item ``1. …``, a
line in a ``<blockquote>`` ``> …`` (the paragraphs of one quote parted by a ``>`` line), a line in a
``<pre>`` the element's code in a fence, with the line breaks and indentation the page gives it (the text
output, one block per line, has them collapsed). Lines one element gives, split by a ``<br>`` (a poem's,
an address's), stay one paragraph, list item or quote, with a hard line break (a backslash at a line's
end) between them. A line the page does not have word for word (spacing aside) is a plain paragraph.
Inline markup (emphasis, links) is not kept, and the characters Markdown would read as markup are
escaped.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

from .mojibake import repair_mojibake

#: Heading elements and their Markdown level.
HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}
#: Markdown reads a paragraph starting like this as markup (a heading, a quote, a list item, a fence, a
#: thematic break): such a line gets a backslash before its first character ...
_MARKUP_START = re.compile(r"^(?:#|>|[-*+](?:\s|$)|`{3}|~{3}|([-_*])(?:\s*\1){2,}\s*$)")
#: ... or, starting like an ordered list's item ("1. ", "2) "), before its delimiter: a backslash before
#: a digit is no escape, and Markdown would show it.
_ORDERED_START = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
#: Characters Markdown reads as inline markup anywhere in a line: a backslash, code spans, emphasis,
#: links, and HTML tags; an underscore only at a word's edge (``snake_case`` is no emphasis); an ampersand
#: only where it starts an entity or numeric character reference (``&copy;``, ``&#169;``, ``&#xA9;``,
#: which Markdown shows as the character; "AT&T" or "&" alone it shows as they are). Any name before a
#: ";" counts, not only HTML's entity names: ``\&`` is a valid escape wherever it stands.
_INLINE_MARKUP = re.compile(
    r"[\\`*\[\]<]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|&(?=[A-Za-z][A-Za-z0-9]*;|#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};)"
)
#: A heading ending in a run of "#" after a space would lose it (Markdown reads it as the heading's close).
_HEADING_CLOSE = re.compile(r"(?<=\s)(#+)\s*$")
#: A line after a hard line break that is a run of "=" or "-" would make the lines above it a heading.
_SETEXT_UNDERLINE = re.compile(r"^(?:=+|-+)\s*$")
#: CommonMark's hard line break: a backslash at a line's end (trailing spaces would be invisible).
HARD_BREAK = "\\\n"
_SPACES = re.compile(r"\s+")
#: A nested list item is indented this many spaces per level: the width of "1. ", the wider marker, as
#: CommonMark nests an item only at or past its parent item's text (two spaces under "1. " start a new
#: item of the outer list); fewer than four, which would make an item with no parent line above it code.
LIST_INDENT = 3
#: A code fence is at least this many backticks, and longer than any run of them in the code.
MIN_FENCE = 3
_BACKTICKS = re.compile(r"`+")


class LineKind(NamedTuple):
    """What a line of the page is."""

    #: ``heading``, ``list-ul``/``list-ol`` or ``""`` (a paragraph).
    kind: str = ""
    #: A heading's level, a list item's depth.
    level: int = 0
    #: The block quotes that hold it (their elements), the outermost first.
    quoted_in: tuple[int, ...] = ()
    #: In a ``<pre>``: the element's text as the page lays it out, and the element (its lines are one
    #: code block, given once).
    code: str | None = None
    code_element: int | None = None


PARAGRAPH = LineKind()


class Layout(NamedTuple):
    """What the page's lines are, each by :func:`_key`."""

    kinds: dict[str, LineKind]
    #: (line, next line) where the page gives both in one element, split by a ``<br>``.
    breaks: set[tuple[str, str]]


def to_markdown(text: str, html: str) -> str:
    """``text`` (an article's lines, from ``html``) as Markdown."""
    layout = page_layout(html)
    lines_of: list[tuple[LineKind, list[str]]] = []  # each Markdown block's kind and lines
    previous, previous_key = PARAGRAPH, ""
    for line in text.splitlines():
        if not line.strip():
            continue
        key = _key(line)
        kind = layout.kinds.get(key, PARAGRAPH)
        if kind.code_element is not None and kind.code_element == previous.code_element:
            pass  # the code block is given once, whole
        elif (previous_key, key) in layout.breaks and _breaks_lines(lines_of[-1][0]):
            lines_of[-1][1].append(line.strip())
        else:
            lines_of.append((kind, [line.strip()]))
        previous, previous_key = kind, key
    out: list[str] = []
    open_items: list[int] = []  # the page depths of the list items the current item is nested in, and its own
    for index, (kind, lines) in enumerate(lines_of):
        if index:
            before = lines_of[index - 1][0]
            if not _continues_list(before, kind):
                open_items = []  # the list ended: the next item starts one
            out.append(_separator(before, kind))
        if kind.kind.startswith("list"):
            kind = kind._replace(level=_nested_level(open_items, kind.level))
        out.append(_markdown_block(kind, lines))
    return "".join(out)


def _nested_level(open_items: list[int], depth: int) -> int:
    """The Markdown level of a list item at ``depth`` in the page, among the items before it in its list
    (``open_items``, updated): one deeper than the nearest shallower item, the first at 1. The article
    keeps some of a page's items only (a menu's "Sport > Soccer" without the levels between), and an item
    indented past its parent's text by four spaces or more is code to CommonMark, not a list item."""
    while open_items and open_items[-1] >= depth:
        open_items.pop()
    open_items.append(depth)
    return len(open_items)


def _continues_list(before: LineKind, after: LineKind) -> bool:
    """Whether ``after`` is an item of the list ``before`` is an item of: list items in the same quotes, of
    either kind (an item of one may hold a list of the other)."""
    return before.quoted_in == after.quoted_in and before.kind.startswith("list") and after.kind.startswith("list")


def _separator(before: LineKind, after: LineKind) -> str:
    """What goes between two blocks: the items of one list (:func:`_continues_list`) follow each other;
    everything else is parted by a blank line, inside the quotes that hold both (a quote's paragraphs are
    one quote, two quotes side by side stay two)."""
    if _continues_list(before, after):
        return "\n"
    shared = 0
    for quote, next_quote in zip(before.quoted_in, after.quoted_in):
        if quote != next_quote:
            break
        shared += 1
    return "\n" + ("> " * shared).rstrip() + "\n"


def page_layout(html: str) -> Layout:
    """What each line of the page is, and which lines a ``<br>`` splits."""
    from .learn.rules import page_lines

    layout = Layout({}, set())
    previous_key = ""
    for line, block, after_break in page_lines(html):
        key = _key(line)
        if key not in layout.kinds:
            layout.kinds[key] = _kind_of(block)
        if after_break:
            layout.breaks.add((previous_key, key))
        previous_key = key
    return layout


def _breaks_lines(kind: LineKind) -> bool:
    """Whether a block of this kind takes a hard line break: a heading is one line, and code has its own."""
    return kind.kind != "heading" and kind.code is None


def _kind_of(block: Any) -> LineKind:
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
            code, code_element = _laid_out(node), node.mem_id
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


def _markdown_block(kind: LineKind, lines: list[str]) -> str:
    line = lines[0]
    if kind.code is not None:
        code = kind.code or line
        fence = "`" * max(MIN_FENCE, 1 + max((len(run) for run in _BACKTICKS.findall(code)), default=0))
        markdown = f"{fence}\n{code}\n{fence}"
    elif kind.kind == "heading":
        markdown = "#" * kind.level + " " + _HEADING_CLOSE.sub(r"\\\1", _escaped(line))
    else:
        # (an item's text that starts like a list item would make a list inside it)
        marker = ""
        if kind.kind.startswith("list"):
            marker = " " * LIST_INDENT * (kind.level - 1) + ("1. " if kind.kind == "list-ol" else "- ")
        # the lines after a break are indented to the item's text, which they continue
        broken = [_escaped_start(_escaped(line))] + [_escaped_after_break(_escaped(more)) for more in lines[1:]]
        markdown = marker + (HARD_BREAK + " " * len(marker)).join(broken)
    if kind.quoted_in:
        markdown = "\n".join("> " * len(kind.quoted_in) + part for part in markdown.split("\n"))
    return markdown


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


def _key(line: str) -> str:
    """A line as it is looked up: spacing and case aside (the fallback joins words its own way), its
    mojibake put right as the article's lines are."""
    return _SPACES.sub("", repair_mojibake(line)).casefold()
