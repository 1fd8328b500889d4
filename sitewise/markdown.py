"""An article's text as Markdown: its headings, list items, block quotes and code kept.

Whichever method found the article (rules or the fallback), its text comes one block per line. Each line
is looked up among the page's own lines (:func:`sitewise.learn.rules.page_lines`), and the element it
came from says what it is: an ``<h2>`` line becomes ``## …``, a line in an ``<ol>``'s item ``1. …``, a
line in a ``<blockquote>`` ``> …``. A line the page does not have word for word (spacing aside) is a
plain paragraph. Inline markup (emphasis, links) is not kept.
"""
from __future__ import annotations

import re
from typing import Any

from .mojibake import repair_mojibake

#: Heading elements and their Markdown level.
HEADING_LEVELS = {f"h{level}": level for level in range(1, 7)}
#: Markdown reads a paragraph starting like this as markup: such a line gets a backslash first.
_MARKUP_START = re.compile(r"^(#|>|[-*+]\s|\d+[.)]\s|```)")
_SPACES = re.compile(r"\s+")


def to_markdown(text: str, html: str) -> str:
    """``text`` (an article's lines, from ``html``) as Markdown."""
    kinds = line_kinds(html)
    blocks: list[tuple[str, str]] = []  # (kind, markdown line)
    for line in text.splitlines():
        if line.strip():
            blocks.append(_markdown_line(line.strip(), kinds.get(_key(line), ("", 0, 0, False))))
    out: list[str] = []
    for index, (kind, markdown) in enumerate(blocks):
        if index:
            # list items of one list follow each other; everything else is a paragraph of its own
            out.append("\n" if kind == blocks[index - 1][0] and kind.startswith("list") else "\n\n")
        out.append(markdown)
    return "".join(out)


def line_kinds(html: str) -> dict[str, tuple[str, int, int, bool]]:
    """What each line of the page is, by :func:`_key`: (kind, heading level or list depth, quote depth,
    preformatted), kind being ``heading``, ``list-ul``/``list-ol`` or ``""`` (a paragraph)."""
    from .learn.rules import page_lines

    kinds: dict[str, tuple[str, int, int, bool]] = {}
    for line, block in page_lines(html):
        kinds.setdefault(_key(line), _kind_of(block))
    return kinds


def _kind_of(block: Any) -> tuple[str, int, int, bool]:
    kind, level, quotes, preformatted = "", 0, 0, False
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
        elif tag == "pre":
            preformatted = True
        node = node.parent
    return kind, level, quotes, preformatted


def _markdown_line(line: str, kind: tuple[str, int, int, bool]) -> tuple[str, str]:
    name, level, quotes, preformatted = kind
    if preformatted:
        markdown = f"```\n{line}\n```"
    elif name == "heading":
        markdown = "#" * level + " " + line
    elif name.startswith("list"):
        markdown = "  " * (level - 1) + ("1. " if name == "list-ol" else "- ") + line
    else:
        markdown = "\\" + line if _MARKUP_START.match(line) else line
    if quotes:
        markdown = "\n".join("> " * quotes + part for part in markdown.split("\n"))
    return f"{name}:{quotes}", markdown


def _key(line: str) -> str:
    """A line as it is looked up: spacing and case aside (the fallback joins words its own way), its
    mojibake put right as the article's lines are."""
    return _SPACES.sub("", repair_mojibake(line)).casefold()
