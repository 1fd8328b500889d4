"""HTML → the token sequence MSS scores: tags, words and symbols (Pasternack & Roth, section 5.2).

The page is parsed with lxml and walked in document order. Every element gives an opening tag token and
a closing tag token (void elements such as ``<br>`` only an opening one); its text gives word and symbol
tokens. Everything inside ``<script>``/``<style>`` is dropped, tags outside :data:`COMMON_TAGS` become
``<UNKNOWN>``, words are lower-cased and Porter-stemmed and every number becomes ``1``.

Besides the normalised token (the classifier's feature), each token keeps what the extractor needs to
give text back: the word as written, the output line it belongs to, the index of its element's partner
tag, and its most-recent-unclosed tag (the parent element's tag); the pieces of text the words came from
give the page's own spacing back ("5th", "don’t", not "5 th", "don’ t").
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from lxml import etree

from ..elements import MATHML_ANNOTATIONS, SHADOW_ROOT_ATTRIBUTE, SHADOW_ROOT_MODES, UNRENDERED
from ..errors import InputError

#: Tags kept by name; anything else (custom elements, typos, namespaced tags) becomes <UNKNOWN>, as in
#: the paper, so one site's private markup does not become a feature nobody else shares.
COMMON_TAGS = frozenset(
    """a abbr address article aside audio b bdi bdo big blockquote body br button canvas caption center
    cite code col colgroup dd del details dfn dialog div dl dt em embed fieldset figcaption figure font
    footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd
    label legend li link main map mark menu meta meter nav noscript object ol optgroup option output p
    param picture pre progress q s samp section select small source span strike strong sub summary sup
    svg table tbody td template textarea tfoot th thead time title tr tt u ul var video wbr""".split()
)
UNKNOWN_TAG = "UNKNOWN"

#: Elements whose contents are never article text: the unrendered ones (the paper drops script and
#: style), and the head with its title. ``<noscript>`` is not among them: forum software (Discourse) and
#: other script-built pages serve their whole content there for readers without scripts. A formula's
#: annotations are still read: they change two of the shipped model's training pages, and the trees
#: retrained without them lost 0.009 on dragnet's test (a draw of the trees, not the fix: docs/mss.md),
#: so the fallback drops them when its model is next retrained for a change of its own.
DROPPED_CONTENT = (UNRENDERED - MATHML_ANNOTATIONS) | {"head", "title"}

#: Elements that start a new output line: one block of the page becomes one line of text.
BLOCK_TAGS = frozenset(
    """address article aside blockquote body br caption dd details dialog div dl dt fieldset figcaption
    figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr li main nav ol p pre section summary table
    tbody td tfoot th thead tr ul center frame""".split()
)

#: Tag tokens whose element has no closing token.
VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"})

#: One token: a number (digits with inner separators), one ideograph/kana/Thai character (these
#: scripts write words without spaces, so a character is the closest thing to a word), a word, or a
#: single symbol.
_TOKEN = re.compile(
    r"\d+(?:[.,:]\d+)*"
    r"|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]"
    r"|[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]+"  # word characters but those
    r"|[^\w\s]"
)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")

#: Token kinds.
WORD, OPEN, CLOSE = 0, 1, 2


def tag_token(tag: str, closing: bool = False) -> str:
    """The normalised token of a tag: ``<p>``, ``</p>``, ``<UNKNOWN>``."""
    name = tag if tag in COMMON_TAGS else UNKNOWN_TAG
    return f"</{name}>" if closing else f"<{name}>"


def surface_token(word: str) -> str:
    """A word as the model looks it up at run time: lower-cased, numbers → ``1``, not stemmed (a trained
    model maps every form it saw to its stem's id, so extraction never runs the stemmer)."""
    return "1" if _NUMBER.fullmatch(word) else word.lower()


@functools.lru_cache(maxsize=300_000)
def word_token(word: str) -> str:
    """The normalised token of a word or symbol (the paper's): numbers → ``1``, words lower-cased and
    Porter-stemmed. Cached: stemming costs ~15 µs a word and pages repeat their words."""
    surface = surface_token(word)
    return surface if len(surface) == 1 or surface == "1" else _porter_stemmer().stem(surface)


@functools.lru_cache(maxsize=1)
def _porter_stemmer():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


@dataclass
class TokenSequence:
    """The tokens of one page, as parallel lists/arrays indexed by token position."""

    #: WORD, OPEN or CLOSE per token.
    kinds: np.ndarray
    #: The tag name for tag tokens ("" for words): the raw lower-case name, not normalised.
    tags: list[str]
    #: The word or symbol as written ("" for tags).
    words: list[str]
    #: Output line of each token (a new line starts at every block tag).
    lines: np.ndarray
    #: For an OPEN token, the index of its CLOSE token (itself for void elements); -1 otherwise.
    closes: np.ndarray
    #: True for tokens inside an ``<a>`` element (the ``<a>`` tags included).
    links: np.ndarray
    #: The OPEN token index of each token's scope: the element it is the tag of, or the element a word
    #: is directly in (-1 at the root) ...
    scopes: list[int] = field(default_factory=list, repr=False)
    #: ... and per OPEN token, its parent's OPEN token index (-1 at the root) and its element, in
    #: document order: what :attr:`parents` and :attr:`contexts` are read from when first asked for.
    opened: dict[int, tuple[int, "etree._Element"]] = field(default_factory=dict, repr=False)
    #: The page's language as its ``<html lang>`` says ("" when it does not).
    lang: str = ""
    #: Index of the OPEN token of the element given to :func:`tokenize` as ``anchor`` (the heading that
    #: repeats the page title), or -1.
    anchor: int = -1
    #: Per output line that holds words: the OPEN token indices of the block elements it sits in,
    #: outermost first (the last one owns the line; empty at the root), and the owning element itself.
    #: The block model judges a line by these containers.
    line_blocks: dict[int, tuple[int, ...]] = field(default_factory=dict, repr=False)
    line_owners: dict[int, "etree._Element | None"] = field(default_factory=dict, repr=False)
    #: The pieces of text the words came from (an element's text or tail), in document order; the index of
    #: each piece's first word token and the index after its last; and per piece, whether the page has white
    #: space between it and the piece before (its own leading white space aside): what gives text back with
    #: the page's own spacing.
    pieces: list[str] = field(default_factory=list, repr=False)
    piece_starts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    piece_ends: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64), repr=False)
    piece_spaced: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False)
    #: Values derived from the tokens, computed once (e.g. the line scorer's line classes).
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    _features: list[str] | None = field(default=None, repr=False)
    _surfaces: list[str] | None = field(default=None, repr=False)
    _parents: list[str] | None = field(default=None, repr=False)
    _contexts: list[str] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.words)

    # The token model's features alone read parents and contexts: computed on first use, the block
    # model never pays for them (an id/class lookup per element).

    @property
    def parents(self) -> list[str]:
        """The most-recent-unclosed tag of each token: its parent element's tag name ("" at the root)."""
        if self._parents is None:
            tags, opened = self.tags, self.opened
            parent_tag = {-1: "", **{index: tags[parent] if parent >= 0 else "" for index, (parent, _) in opened.items()}}
            self._parents = [
                (tags[scope] if scope >= 0 else "") if kind == WORD else parent_tag[scope]
                for kind, scope in zip(self.kinds.tolist(), self.scopes)
            ]
        return self._parents

    @property
    def contexts(self) -> list[str]:
        """The context word of the nearest ancestor whose id/class names one (see CONTEXT_WORDS), or ""."""
        if self._contexts is None:
            context_of = {-1: ""}
            for index, (parent, element) in self.opened.items():  # a parent comes before its children
                context_of[index] = element_context(element) or context_of[parent]
            self._contexts = [context_of[scope] for scope in self.scopes]
        return self._contexts

    @property
    def is_tag(self) -> np.ndarray:
        return self.kinds != WORD

    @property
    def features(self) -> list[str]:
        """The normalised tokens (computed on first use: the baseline scorer never needs them)."""
        if self._features is None:
            self._features = self._normalised(word_token)
        return self._features

    @property
    def surfaces(self) -> list[str]:
        """Words as :func:`surface_token` gives them, tags as their normalised tokens."""
        if self._surfaces is None:
            self._surfaces = self._normalised(surface_token)
        return self._surfaces

    def _normalised(self, word_function: Callable[[str], str]) -> list[str]:
        return [
            word_function(w) if k == WORD else tag_token(t, k == CLOSE)
            for k, t, w in zip(self.kinds.tolist(), self.tags, self.words)
        ]

    def text(self, start: int = 0, end: int | None = None, keep: np.ndarray | None = None) -> str:
        """The words of tokens ``start``..``end`` (exclusive), one output line per block, spaced as the page
        spaces them ("5th", "don’t", "K<span>eep</span>"; white space runs become one space); ``keep`` is an
        optional boolean mask over all tokens (False drops a word, and a space stands where it was)."""
        end = len(self) if end is None else end
        chosen = self.kinds[start:end] == WORD
        if keep is not None:
            chosen &= np.asarray(keep[start:end], dtype=bool)
        index = np.flatnonzero(chosen) + start
        if not index.size:
            return ""
        # Text is given back piece by piece (an element's text or tail holds one line's words): a piece
        # whose words are all chosen is its own text with white space runs made single spaces, which is
        # what most pieces of an extraction are; the others are rebuilt word by word.
        piece_of = np.searchsorted(self.piece_starts, index, "right") - 1
        pieces, first, counts = np.unique(piece_of, return_index=True, return_counts=True)
        starts, ends = self.piece_starts[pieces], self.piece_ends[pieces]
        whole = counts == ends - starts
        # a piece follows the one before without a space when the page has none between them and the
        # words on both sides of the seam are chosen
        last = np.append(first[1:], index.size) - 1
        seamless = np.zeros(pieces.size, dtype=bool)
        seamless[1:] = ((pieces[1:] == pieces[:-1] + 1) & ~self.piece_spaced[pieces[1:]]
                        & (index[first[1:]] == starts[1:]) & (index[last[:-1]] == ends[:-1] - 1))
        line_of = self.lines[starts]
        new_line = np.zeros(pieces.size, dtype=bool)
        new_line[1:] = line_of[1:] != line_of[:-1]
        out: list[str] = []
        texts, words = self.pieces, self.words
        for i, piece in enumerate(pieces.tolist()):
            text = texts[piece]
            if i:
                out.append("\n" if new_line[i] else "" if seamless[i] and not text[0].isspace() else " ")
            if whole[i]:
                out.append(" ".join(text.split()))
            else:
                chosen = index[first[i] : first[i] + counts[i]]
                out.append(_some_words(text, [words[j] for j in chosen.tolist()], (chosen - starts[i]).tolist()))
        return "".join(out)

    def html(self, start: int, end: int) -> str:
        """The tokens ``start``..``end`` as an HTML fragment (tags normalised, words as written)."""
        parts = []
        for i in range(start, end):
            kind = self.kinds[i]
            if kind == WORD:
                parts.append(_escape(self.words[i]))
            else:
                parts.append(f"</{self.tags[i]}>" if kind == CLOSE else f"<{self.tags[i]}>")
        return " ".join(parts)


#: The white space before each token of a piece of text (one match per token, as :data:`_TOKEN` finds them).
_GAPS = re.compile(r"(\s*)(?:" + _TOKEN.pattern + ")").findall


def _some_words(piece: str, words: list[str], positions: list[int]) -> str:
    """Some of a piece's words (``positions``: their ascending places among its tokens) spaced as the
    piece spaces them, with one space where words between them were left out."""
    gaps = _GAPS(piece)
    out = [words[0]]
    for previous, position, word in zip(positions, positions[1:], words[1:]):
        out.append(word if position == previous + 1 and not gaps[position] else " " + word)
    return "".join(out)


def _escape(word: str) -> str:
    return word.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


#: An XML declaration opening the page. As browsers read HTML, ``<?`` opens a bogus comment that the first
#: ``>`` closes: a declaration written ``<?xml ... />``, or with an encoding lxml cannot name, goes too.
_XML_DECLARATION = re.compile(r"^\s*<\?xml\b[^>]*>")
_TITLE_OPEN = re.compile(r"<title\b[^>]*>", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title\s*>", re.IGNORECASE)
#: An ``</html>`` end tag. libxml2 ends the page at the first; an HTML5 parser (a browser's) ignores them
#: and reads on. Some themes close ``</body></html>`` after their header, write the article, and close them
#: again at the end: every ``</html>`` but the page's last is removed (one pass, ~2 ms a MB). What follows
#: the last one stays unread, as before: reading it too (as browsers do) changed three pages of the
#: evaluation sets, two for the worse (servers and scripts append a stray footer, trackers or hidden links
#: there). An early ``</body>`` loses nothing: libxml2 reads on, beside the body.
_HTML_END_TAG = re.compile(r"</html\b[^>]*>", re.IGNORECASE)
#: The name a declarative shadow root's template is given for the moment before it is unwrapped.
_UNWRAPPED = "sitewise-shadow-root"


def parse_html(html: str | bytes) -> etree._Element | None:
    """The page's root element, or None when there is nothing to parse."""
    if isinstance(html, str):
        # lxml refuses str input that declares an encoding; strip the XML declaration.
        html = _XML_DECLARATION.sub("", html, count=1)
        # An unclosed <title> swallows the rest of the page as its text; drop the opening tag instead.
        if _TITLE_OPEN.search(html) and not _TITLE_CLOSE.search(html):
            html = _TITLE_OPEN.sub("", html, count=1)
        html = _without_early_html_end_tags(html)
    if not html or (isinstance(html, (str, bytes)) and html.isspace()):
        return None
    root = _libxml2_tree(html)
    if root is None or not _has_text_outside_head(root):
        reread = _parsed_as_browsers_read(html)
        root = reread if reread is not None else root
    if root is not None and _may_declare_shadow_roots(html):
        _render_shadow_roots(root)
    return root


def _without_early_html_end_tags(html: str) -> str:
    """``html`` without its ``</html>`` end tags but the last (:data:`_HTML_END_TAG`)."""
    ends = [found.start() for found in _HTML_END_TAG.finditer(html)]
    if len(ends) < 2:
        return html
    return _HTML_END_TAG.sub("", html[: ends[-1]]) + html[ends[-1] :]


def _may_declare_shadow_roots(html: str | bytes) -> bool:
    """Whether the page names :data:`SHADOW_ROOT_ATTRIBUTE`: a substring test (~0.4 ms a MB) that spares
    the pages without one (nearly all) a walk over their tree."""
    return (SHADOW_ROOT_ATTRIBUTE if isinstance(html, str) else SHADOW_ROOT_ATTRIBUTE.encode()) in html


def _render_shadow_roots(root: etree._Element) -> None:
    """Each declarative shadow root (a ``<template shadowrootmode="open|closed">``, its host's first) read
    as a browser renders it: its content in its host, not an unrendered template. The host's own children
    stay beside it (a browser shows those a ``<slot>`` takes in, which is what hosts mostly hold)."""
    hosts = set()
    for template in root.iter("template"):
        host = template.getparent()
        if template.get(SHADOW_ROOT_ATTRIBUTE, "").strip().lower() in SHADOW_ROOT_MODES and host not in hosts:
            hosts.add(host)
            template.tag = _UNWRAPPED
    if hosts:
        etree.strip_tags(root, _UNWRAPPED)


def _has_text_outside_head(root: etree._Element) -> bool:
    """Whether the tree holds some text outside its ``<head>`` (most pages: the first text node says so)."""
    return any(not text.isspace() for child in root if child.tag != "head" for text in child.itertext())


def _parsed_as_browsers_read(html: str | bytes) -> etree._Element | None:
    """The page as an HTML5 parser (lexbor's, as a browser's) reads it, handed to lxml; None when that
    holds no text either. libxml2 is no HTML5 parser, and on some broken pages its tree loses the page:
    an unknown element in the head keeps the whole page in the head (which is never text), an ``<html>``
    tag broken by a stray quote leaves an empty tree. Only for such a tree: it costs a second parse."""
    from selectolax.lexbor import LexborHTMLParser

    serialised = LexborHTMLParser(html).html
    root = _libxml2_tree(serialised) if serialised else None
    return root if root is not None and _has_text_outside_head(root) else None


def _libxml2_tree(html: str | bytes) -> etree._Element | None:
    """libxml2's tree of the page, or None when lxml refuses it. :class:`InputError` when libxml2 stopped
    reading part way (an element nested more than :data:`LIBXML2_MAX_DEPTH` deep): the rest of the page
    would be silently lost."""
    utf8 = _utf8_input(html) if isinstance(html, str) else None
    # a parser of its own per page: its error log is then this page's (a shared parser's is whichever
    # thread parsed last), at no measurable cost
    parser = etree.HTMLParser(**_PARSER_OPTIONS, **({"encoding": "utf-8"} if utf8 is not None else {}))
    try:
        root = etree.fromstring(utf8 if utf8 is not None else html, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    if parser.error_log.filter_types([etree.ErrorTypes.ERR_RESOURCE_LIMIT]):
        raise InputError(f"the page nests elements more than {LIBXML2_MAX_DEPTH:,} deep, deeper than the fallback's "
                         "parser (libxml2) reads: it would lose the rest of the page")
    return root


def _utf8_input(html: str) -> bytes | None:
    """A str page's UTF-8 bytes, which libxml2 reads as they are: lxml hands it most pages' text as
    UTF-16 or UTF-32, which it converts first (the same tree, 15% slower). None for text it cannot
    encode (lone surrogates) and text still starting with an XML declaration (one no ``>`` ends: lxml
    refuses a str that declares an encoding, and the page is then read as browsers read it): those are
    handed over as str, as before."""
    if html.startswith("<?xml"):
        return None
    try:
        return html.encode("utf-8")
    except UnicodeEncodeError:
        return None


#: How deep libxml2 nests elements (``<html>`` counting as 1) when told to read huge documents
#: (``huge_tree``, XML_PARSE_HUGE; 256 without). Deeper, it stops reading the page (a fatal
#: ERR_RESOURCE_LIMIT error) and keeps only what it read.
LIBXML2_MAX_DEPTH = 2048
#: libxml2's forgiving HTML parser, reading huge documents (as deep as above, text nodes past 10 MB),
#: producing plain elements (lxml.html's element classes cost a Python call per element) and no comments
#: or processing instructions (never article text); no table of id attributes (nothing here looks
#: elements up by id).
_PARSER_OPTIONS = {"huge_tree": True, "remove_comments": True, "remove_pis": True, "no_network": True,
                   "default_doctype": False, "collect_ids": False}


def tokenize(root: etree._Element | str | None, anchor: etree._Element | None = None) -> TokenSequence:
    """Tokens of a parsed page (or of HTML text) in document order; ``anchor``, an element of the page,
    has its opening token's index recorded as ``TokenSequence.anchor``."""
    if isinstance(root, (str, bytes)):
        root = parse_html(root)
    builder = _Builder(anchor)
    if root is not None:
        builder.walk(root)
    sequence = builder.sequence()
    if root is not None:
        sequence.lang = page_language(root)
    return sequence


def page_language(element: etree._Element) -> str:
    """The language the page's root element declares (``lang`` or ``xml:lang``), lower-cased, or ""."""
    root = element.getroottree().getroot()
    lang = root.get("lang") or root.get("{http://www.w3.org/XML/1998/namespace}lang") or root.get("xml:lang") or ""
    return lang.strip().lower()


class _Builder:
    """Accumulates the parallel token lists during one walk over the tree."""

    def __init__(self, anchor: etree._Element | None = None) -> None:
        self.anchor_element = anchor
        self.anchor = -1
        self.kinds: list[int] = []
        self.tags: list[str] = []
        self.words: list[str] = []
        self.lines: list[int] = []
        self.closes: list[int] = []
        self.links: list[bool] = []
        self.scopes: list[int] = []
        self.opened: dict[int, tuple[int, etree._Element]] = {}
        self.line_blocks: dict[int, tuple[int, ...]] = {}
        self.line_owners: dict[int, etree._Element | None] = {}
        self.pieces: list[str] = []
        self.piece_starts: list[int] = []
        self.piece_ends: list[int] = []
        self.piece_spaced: list[bool] = []

    def walk(self, root: etree._Element) -> None:
        """Append the tokens of ``root`` and everything in it, in document order.

        Every element of every page passes here twice, so this is extraction's hottest loop: the state
        lives in local variables and each token's fields are appended inline (helper calls per
        token cost twice as much)."""
        kinds, tags, words, scopes = self.kinds, self.tags, self.words, self.scopes
        lines, closes, links, opened = self.lines, self.closes, self.links, self.opened
        line_blocks, line_owners = self.line_blocks, self.line_owners
        pieces, piece_starts, piece_ends, piece_spaced = self.pieces, self.piece_starts, self.piece_ends, self.piece_spaced
        spaced = False  # white space in the page since the last piece of text
        anchor_element = self.anchor_element
        find_tokens = _TOKEN.findall
        line = 0
        # open elements: (tag, index of the OPEN token, inside a link, element)
        stack: list[tuple[str, int, bool, etree._Element | None]] = [("", -1, False, None)]
        # the OPEN token indices of the open block elements (their elements are in ``opened``)
        blocks: list[int] = []
        walker = etree.iterwalk(root, events=("start", "end"))
        dropped = False  # True from the start of an element whose contents are dropped to its end
        for event, element in walker:
            if event == "start":
                tag = element.tag
                if not isinstance(tag, str):  # comments and processing instructions: only their tail counts
                    continue
                tag = _local_name(tag)
                if tag in DROPPED_CONTENT:
                    walker.skip_subtree()  # its contents are never walked: its end is the next event
                    dropped = True
                    continue
                # the OPEN token
                is_block = tag in BLOCK_TAGS
                if is_block:
                    line += 1
                _, parent, in_link, _ = stack[-1]
                in_link = in_link or tag == "a"
                index = len(kinds)
                if element is anchor_element:
                    self.anchor = index
                kinds.append(OPEN)
                tags.append(tag)
                words.append("")
                lines.append(line)
                closes.append(index)
                links.append(in_link)
                scopes.append(index)
                opened[index] = (parent, element)
                if tag in VOID_TAGS:
                    continue
                stack.append((tag, index, in_link, element))
                if is_block:
                    blocks.append(index)
                text = element.text
            elif dropped:
                dropped = False
                text = element.tail  # the dropped element's own tail is page text again
            else:
                # an element on the stack closes (void elements, comments and processing instructions
                # were never put there: only their tail follows)
                if element is stack[-1][3]:
                    tag, index, in_link, _ = stack.pop()
                    is_block = bool(blocks) and blocks[-1] == index  # what was opened last closes first
                    if is_block:
                        blocks.pop()
                    closes[index] = len(kinds)
                    kinds.append(CLOSE)
                    tags.append(tag)
                    words.append("")
                    lines.append(line)
                    closes.append(-1)
                    links.append(in_link)
                    scopes.append(index)
                    if is_block:
                        line += 1
                text = element.tail
            # the WORD tokens of the text just entered (an element's text or tail)
            if not text:
                continue
            if text.isspace():  # the most common text by far: indentation between tags
                spaced = True
                continue
            found = find_tokens(text)
            n = len(found)
            pieces.append(text)
            piece_starts.append(len(kinds))
            piece_ends.append(len(kinds) + n)
            piece_spaced.append(spaced)
            spaced = text[-1].isspace()
            if line not in line_blocks:
                line_blocks[line] = tuple(blocks)
                line_owners[line] = opened[blocks[-1]][1] if blocks else None
            _, scope, in_link, _ = stack[-1]
            kinds.extend([WORD] * n)
            tags.extend([""] * n)
            words.extend(found)
            lines.extend([line] * n)
            closes.extend([-1] * n)
            links.extend([in_link] * n)
            scopes.extend([scope] * n)

    def sequence(self) -> TokenSequence:
        return TokenSequence(
            kinds=np.asarray(self.kinds, dtype=np.int8),
            tags=self.tags,
            words=self.words,
            lines=np.asarray(self.lines, dtype=np.int32),
            closes=np.asarray(self.closes, dtype=np.int32),
            links=np.asarray(self.links, dtype=bool),
            scopes=self.scopes,
            opened=self.opened,
            anchor=self.anchor,
            line_blocks=self.line_blocks,
            line_owners=self.line_owners,
            pieces=self.pieces,
            piece_starts=np.asarray(self.piece_starts, dtype=np.int64),
            piece_ends=np.asarray(self.piece_ends, dtype=np.int64),
            piece_spaced=np.asarray(self.piece_spaced, dtype=bool),
        )


#: Words in id/class names that say what a part of the page is; a token's context is the first of
#: these found on its nearest ancestor that has one ("" when none has).
CONTEXT_WORDS = (
    "comment", "footer", "header", "sidebar", "nav", "menu", "share", "social", "related", "widget",
    "breadcrumb", "advert", "sponsor", "promo", "caption", "byline", "author", "date", "title", "headline",
    "tag", "meta", "article", "story", "entry", "post", "content", "body", "text", "main",
)
_CONTEXT = re.compile("|".join(CONTEXT_WORDS), re.IGNORECASE)


def element_context(element: etree._Element) -> str:
    """The context word an element's id/class names, or ""."""
    get = element.get
    names = get("class")
    ident = get("id")
    if ident:
        names = f"{names} {ident}" if names else ident
    return _context_of(names) if names else ""


@functools.lru_cache(maxsize=50_000)
def _context_of(names: str) -> str:
    found = _CONTEXT.search(names)
    return found.group(0).lower() if found else ""


@functools.lru_cache(maxsize=4096)
def _local_name(tag: str) -> str:
    """``{ns}name`` and ``prefix:name`` → ``name``, lower-cased (cached: pages repeat a few dozen tags)."""
    if "}" in tag:
        tag = tag.rsplit("}", 1)[1]
    return tag.rsplit(":", 1)[-1].lower()
