"""CSS selector paths: escaping, parsing and matching the selector subset sitewise generates.

A collected block names its element by a *selector path* from ``body`` down, one step per element:
``tag#id.class.class`` steps joined by `` > `` with identifiers escaped as ``CSS.escape`` does
(``body > div#main.wrap > article.story > p.body``). Learned rules use a subset of standard CSS that
every browser's ``querySelectorAll``, lxml/cssselect and selectolax understand, and that can also be
matched against such a path without a DOM:

* compound selectors: an optional type (``p``, ``*``), at most one ``#id``, any number of ``.class``;
* combinators: descendant (whitespace) and child (``>``);
* selector lists: ``a, b``.

Matching a rule against a block uses *container semantics*: a block is selected when its own element or
any of its ancestors matches the selector, exactly as selecting that element in the DOM and taking all
of its text would include the block's text.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence


class SelectorError(ValueError):
    """A selector outside the supported subset (or malformed)."""


class Step(NamedTuple):
    """One element of a selector path, or one compound selector: tag, id and classes.

    As a compound selector, an empty ``tag`` (or ``*``) matches any element and ``id``/``classes`` are
    requirements; as a path step they are what the element has. (A named tuple: steps are hashed and
    compared a great deal while learning, and tuples do that in C.)
    """

    tag: str
    id: str = ""
    classes: frozenset[str] = frozenset()

    def matches(self, element: "Step") -> bool:
        """True when this compound selector matches the element described by ``element``."""
        if self.tag and self.tag != "*" and self.tag != element.tag:
            return False
        if self.id and self.id != element.id:
            return False
        return self.classes <= element.classes

    def css(self, class_order: Sequence[str] | None = None, escape: Callable[[str], str] | None = None) -> str:
        """The compound as CSS text; classes sorted (or in ``class_order``) for a stable spelling, names
        escaped by ``escape`` (:func:`css_escape` by default)."""
        escape = escape or css_escape
        classes = class_order if class_order is not None else sorted(self.classes)
        out = escape(self.tag) if self.tag and self.tag != "*" else ""
        if self.id:
            out += "#" + escape(self.id)
        out += "".join("." + escape(c) for c in classes)
        return out or "*"


#: A complex selector: compounds left to right, and the combinator *before* each compound
#: (``""`` for the first, ``" "`` descendant, ``">"`` child).
@dataclass(frozen=True)
class Complex:
    compounds: tuple[Step, ...]
    combinators: tuple[str, ...]

    def css(self, escape: Callable[[str], str] | None = None) -> str:
        """The selector as CSS text, names escaped by ``escape`` (:func:`css_escape` by default)."""
        # Joined by spaces, never stripped: str.strip would take a name's own last U+00A0 or U+3000 too.
        return " ".join(
            ("> " if combinator == ">" else "") + compound.css(escape=escape)
            for combinator, compound in zip(self.combinators, self.compounds)
        )

    def matches_at(self, path: Sequence[Step], index: int) -> bool:
        """True when the element ``path[index]`` (with ancestors ``path[:index]``) matches."""
        return _match(self.compounds, self.combinators, len(self.compounds) - 1, path, index)


def _match(compounds: tuple[Step, ...], combinators: tuple[str, ...], k: int, path: Sequence[Step], i: int) -> bool:
    # Right to left, as browsers do: the rightmost compound must match the element itself, then each
    # combinator walks up (child: exactly one level, descendant: any level, with backtracking).
    if not compounds[k].matches(path[i]):
        return False
    if k == 0:
        return True
    if combinators[k] == ">":
        return i > 0 and _match(compounds, combinators, k - 1, path, i - 1)
    return any(_match(compounds, combinators, k - 1, path, j) for j in range(i - 1, -1, -1))


# -- escaping ------------------------------------------------------------------------------------


_PLAIN_IDENT = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")


def css_escape(ident: str) -> str:
    """Escape an identifier as ``CSS.escape`` does (CSSOM §2.1.1), so the result is valid CSS."""
    if _PLAIN_IDENT.fullmatch(ident):
        return ident  # the common case, nothing to escape
    out = []
    for index, char in enumerate(ident):
        code = ord(char)
        if code == 0:
            out.append("\ufffd")
        elif 0x01 <= code <= 0x1F or code == 0x7F:
            out.append(f"\\{code:x} ")
        elif index == 0 and "0" <= char <= "9":
            out.append(f"\\{code:x} ")
        elif index == 1 and "0" <= char <= "9" and ident[0] == "-":
            out.append(f"\\{code:x} ")
        elif index == 0 and char == "-" and len(ident) == 1:
            out.append("\\-")
        elif code >= 0x80 or char in "-_" or char.isascii() and char.isalnum():
            out.append(char)
        else:
            out.append("\\" + char)
    return "".join(out)


#: Whitespace as CSS reads it (a selector's combinators, the space that ends a hex escape): ASCII only.
#: U+00A0, U+2003 or U+3000 are name characters in CSS, not whitespace as Python's ``\s`` or
#: ``str.strip`` take them.
_CSS_WHITESPACE = " \t\n\r\f"
_SPACE = f"[{_CSS_WHITESPACE}]"
#: A hex escape swallows one whitespace after it (CR LF counting as one).
_ESCAPE_END = rf"(?:\r\n|{_SPACE})?"
_HEX_ESCAPE = re.compile(rf"\\([0-9a-fA-F]{{1,6}}){_ESCAPE_END}|\\(.)", re.DOTALL)


def css_unescape(text: str) -> str:
    """Inverse of :func:`css_escape` (and of any valid CSS escape)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1):
            code = int(match.group(1), 16)
            return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        return match.group(2)

    return _HEX_ESCAPE.sub(replace, text)


#: Lexbor (selectolax's parser, which applies rules to HTML) reads names by the "ident code points" of
#: CSS Syntax Level 3's current draft, which leave out 9,297 characters of U+0080-U+FFFF that
#: ``CSS.escape``, browsers and this module keep as they are: U+0080-U+00B6 (the soft hyphen, ©, ¶),
#: U+00B8-U+00BF, ×, ÷, U+037E, U+2000-U+200B (spaces, the zero-width space), U+200E-U+203E (dashes,
#: quotes, ‰), U+2041-U+206F, U+2190-U+2BFF (arrows, maths, symbols), U+2FF0-U+3000, the private use
#: area U+E000-U+F8FF, U+FDD0-U+FDEF and U+FFFE-U+FFFF (none above: a probe of every code point). Its
#: selector parser fails on one written as it is, but reads a hex escape of any code point as the
#: character, so every non-ASCII character reaches lexbor escaped: no table to keep in step with it.
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def lexbor_escape(ident: str) -> str:
    """:func:`css_escape`, with every non-ASCII character written as a hex escape (see :data:`_NON_ASCII`)."""
    return _NON_ASCII.sub(lambda match: f"\\{ord(match.group()):x} ", css_escape(ident))


# -- parsing -------------------------------------------------------------------------------------

# An identifier: name characters or escapes (a hex escape may swallow one whitespace after it).
_IDENT = rf"(?:[\w\-\u0080-\U0010ffff]|\\[0-9a-fA-F]{{1,6}}{_ESCAPE_END}|\\[^0-9a-fA-F\n])+"
_TOKEN = re.compile(
    rf"(?P<comma>{_SPACE}*,{_SPACE}*)|(?P<child>{_SPACE}*>{_SPACE}*)|(?P<space>{_SPACE}+)"
    rf"|(?P<tag>{_IDENT}|\*)|#(?P<id>{_IDENT})|\.(?P<cls>{_IDENT})"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            raise SelectorError(f"unsupported selector syntax at {text[position:position + 20]!r} in {text!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


@functools.lru_cache(maxsize=4096)
def parse_selector(text: str) -> tuple[Complex, ...]:
    """Parse a selector list of the supported subset; raises :class:`SelectorError` otherwise."""
    # (Whitespace at the ends is left to the tokens: the last may be an escaped space, part of a name.)
    if not text.strip(_CSS_WHITESPACE):
        raise SelectorError("empty selector")
    selectors: list[Complex] = []
    compounds: list[Step] = []
    combinators: list[str] = []
    pending = ""  # the combinator seen since the last compound
    current: dict | None = None  # the compound being read: tag, id, classes

    def close_compound() -> None:
        nonlocal current, pending
        if current is not None:
            combinators.append(pending if compounds else "")
            tag = current["tag"].lower()
            compounds.append(Step("" if tag == "*" else tag, current["id"], frozenset(current["classes"])))
            current, pending = None, ""

    def close_complex() -> None:
        nonlocal compounds, combinators, pending
        close_compound()
        if not compounds or pending == ">":
            raise SelectorError(f"incomplete selector in {text!r}")
        selectors.append(Complex(tuple(compounds), tuple(combinators)))
        compounds, combinators, pending = [], [], ""

    for kind, value in _tokens(text):
        if kind == "comma":
            close_complex()
        elif kind in ("child", "space"):
            close_compound()
            if kind == "child":
                if not compounds or pending == ">":
                    raise SelectorError(f"dangling '>' in {text!r}")
                pending = ">"
            elif compounds and not pending:
                pending = " "
        else:
            if current is None:
                current = {"tag": "", "id": "", "classes": []}
            elif kind == "tag":
                raise SelectorError(f"type selector must come first in a compound: {text!r}")
            if kind == "tag":
                current["tag"] = css_unescape(value)
            elif kind == "id":
                if current["id"]:
                    raise SelectorError(f"two ids in one compound: {text!r}")
                current["id"] = css_unescape(value)
            else:
                current["classes"].append(css_unescape(value))
    close_complex()
    return tuple(selectors)


@functools.lru_cache(maxsize=4096)
def lexbor_selector(text: str) -> str:
    """A selector list of the supported subset spelled so that selectolax's lexbor parser reads what
    :func:`parse_selector` (and a browser) reads in it: every learned selector reaches lexbor through
    this. Raises :class:`SelectorError` when the selector is outside the subset."""
    return ", ".join(selector.css(escape=lexbor_escape) for selector in parse_selector(text))


@functools.lru_cache(maxsize=4096)
def check_lexbor_reads(text: str) -> None:
    """Raise :class:`SelectorError` unless the selector is in the supported subset and lexbor parses its
    :func:`lexbor_selector` spelling: a rule set is refused when it is loaded, not on every page."""
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    spelled = lexbor_selector(text)
    try:
        # An empty page of its own: a parser's selector engine is not to be shared between threads.
        LexborHTMLParser("").css(spelled)
    except SelectolaxError as exc:
        raise SelectorError(f"selectolax (lexbor) cannot parse {text!r} (spelled {spelled!r} for it): {exc}") from None


_PLAIN_STEP = re.compile(r"([A-Za-z][A-Za-z0-9-]*)(?:#([A-Za-z0-9_-]+))?((?:\.[A-Za-z0-9_-]+)*)")


@functools.lru_cache(maxsize=65536)
def parse_path(selector_path: str) -> tuple[Step, ...]:
    """Parse a block's selector path (child combinators only) into its steps, ``body`` first."""
    if "\\" not in selector_path:
        # Fast path for the usual unescaped path; anything unusual goes through the full parser.
        steps = []
        for part in selector_path.strip(_CSS_WHITESPACE).split(" > "):
            match = _PLAIN_STEP.fullmatch(part)
            if match is None:
                break
            classes = match.group(3)
            steps.append(Step(match.group(1).lower(), match.group(2) or "", frozenset(classes[1:].split(".")) if classes else frozenset()))
        else:
            return tuple(steps)
    parsed = parse_selector(selector_path)
    if len(parsed) != 1 or any(c == " " for c in parsed[0].combinators):
        raise SelectorError(f"not a selector path (steps joined by ' > '): {selector_path!r}")
    return parsed[0].compounds


def path_string(steps: Sequence[Step]) -> str:
    """A selector path's text, steps joined by `` > ``."""
    return " > ".join(step.css() for step in steps)


# -- matching ------------------------------------------------------------------------------------


def matches_path(selector: str, path: Sequence[Step], index: int | None = None) -> bool:
    """True when ``path[index]`` (the last step by default) matches any selector of the list."""
    i = len(path) - 1 if index is None else index
    return i >= 0 and any(c.matches_at(path, i) for c in parse_selector(selector))


def selects_path(selector: str, path: Sequence[Step]) -> bool:
    """Container semantics: the element of ``path`` or any of its ancestors matches ``selector``."""
    return any(matches_path(selector, path, i) for i in range(len(path)))
