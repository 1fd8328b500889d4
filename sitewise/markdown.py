"""An article's text as Markdown: its headings, list items, block quotes and code kept.

Whichever method found the article (rules or the fallback), its text comes one block per line. Each line
is looked up among the page's own lines (:func:`sitewise.learn.rules.page_lines`), and the element it
came from says what it is: an ``<h2>`` line becomes ``## …``, a line in an ``<ol>``'s item ``1. …``, a
line in a ``<blockquote>`` ``> …``, a line in a ``<pre>`` the element's code in a fence, with the line
breaks and indentation the page gives it (the text output, one block per line, has them collapsed). A
line the page does not have word for word (spacing aside) is a plain paragraph. Inline markup (emphasis,
links) is not kept, and the characters Markdown would read as markup are escaped.
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
    #: How many block quotes hold it.
    quotes: int = 0
    #: In a ``<pre>``: the element's text as the page lays it out, and the element (its lines are one
    #: code block, given once).
    code: str | None = None
    code_element: int | None = None


PARAGRAPH = LineKind()


def to_markdown(text: str, html: str) -> str:
    """``text`` (an article's lines, from ``html``) as Markdown."""
    kinds = line_kinds(html)
    blocks: list[tuple[str, str]] = []  # (kind, markdown line)
    previous = PARAGRAPH
    for line in text.splitlines():
        if not line.strip():
            continue
        kind = kinds.get(_key(line), PARAGRAPH)
        if kind.code_element is None or kind.code_element != previous.code_element:
            blocks.append(_markdown_line(line.strip(), kind))
        previous = kind
    out: list[str] = []
    for index, (kind_name, markdown) in enumerate(blocks):
        if index:
            # list items follow each other, of either kind (an item of one may hold a list of the other);
            # everything else is a paragraph of its own
            out.append("\n" if kind_name == blocks[index - 1][0] and kind_name.startswith("list") else "\n\n")
        out.append(markdown)
    return "".join(out)


def line_kinds(html: str) -> dict[str, LineKind]:
    """What each line of the page is, by :func:`_key`."""
    from .learn.rules import page_lines

    kinds: dict[str, LineKind] = {}
    for line, block in page_lines(html):
        key = _key(line)
        if key not in kinds:
            kinds[key] = _kind_of(block)
    return kinds


def _kind_of(block: Any) -> LineKind:
    kind, level, quotes, code, code_element = "", 0, 0, None, None
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
            quotes += 1
        elif tag == "pre" and code is None:
            code, code_element = _laid_out(node), node.mem_id
        node = node.parent
    return LineKind(kind, level, quotes, code, code_element)


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


def _markdown_line(line: str, kind: LineKind) -> tuple[str, str]:
    if kind.code is not None:
        code = kind.code or line
        fence = "`" * max(MIN_FENCE, 1 + max((len(run) for run in _BACKTICKS.findall(code)), default=0))
        markdown = f"{fence}\n{code}\n{fence}"
    elif kind.kind == "heading":
        markdown = "#" * kind.level + " " + _HEADING_CLOSE.sub(r"\\\1", _escaped(line))
    elif kind.kind.startswith("list"):
        # (an item's text that starts like a list item would make a list inside it)
        markdown = " " * LIST_INDENT * (kind.level - 1) + ("1. " if kind.kind == "list-ol" else "- ") + _escaped_start(_escaped(line))
    else:
        markdown = _escaped_start(_escaped(line))
    if kind.quotes:
        markdown = "\n".join("> " * kind.quotes + part for part in markdown.split("\n"))
    return f"{'list' if kind.kind.startswith('list') else kind.kind}:{kind.quotes}", markdown


def _escaped(line: str) -> str:
    """The line with the characters Markdown reads as inline markup escaped."""
    return _INLINE_MARKUP.sub(lambda match: "\\" + match.group(0), line)


def _escaped_start(line: str) -> str:
    """A paragraph's line whose start Markdown would read as block markup, escaped."""
    if _ORDERED_START.match(line):
        return _ORDERED_START.sub(lambda match: match.group(1) + "\\" + match.group(2), line, count=1)
    return "\\" + line if _MARKUP_START.match(line) else line


def _key(line: str) -> str:
    """A line as it is looked up: spacing and case aside (the fallback joins words its own way), its
    mojibake put right as the article's lines are."""
    return _SPACES.sub("", repair_mojibake(line)).casefold()
