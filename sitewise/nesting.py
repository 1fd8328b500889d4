"""How deeply a page's HTML nests its elements, and how many a parser would rebuild, read from the raw
text before a parser sees it.

An HTML5 parser walks its stack of open elements on every tag, so its time grows with the square of
the nesting: lexbor (which reads pages for learned rules and metadata) took 0.5 s on 25,000 nested
``<div>`` elements, 2.4 s on 50,000 and 10 s on 100,000; a 5 MB page could nest a million deep and hold
a worker for a quarter of an hour. Real pages nest a few hundred deep at most, so a page nested thousands deep is
refused as bad input. (libxml2, the fallback's parser, reads 2,048 levels and refuses a deeper page itself:
``sitewise.mss.tokenize``.)

The depth is estimated with a stack of open elements kept by the HTML5 parser's rules, simplified
where that errs towards deeper, so that a page written to look shallow does not slip through. An end tag
closes the innermost open element of its name and every element opened after it, unless an element the
parser does not close that way stands between (a ``<div>`` for ``</span>``, a ``<table>`` for
``</div>``); an end tag naming no open element is ignored, as the parser ignores it. ``<div/>`` opens a
``<div>``: ``/>`` closes an element only in SVG and MathML (which ``<div>`` and other HTML elements
leave). Void elements (``<br>``, ``<img>``) hold nothing; ``<p>`` and table parts close one another and
are not counted (a table, which is, bounds the parser's walks); a new ``<li>``, ``<dd>``, heading,
``<option>`` or ``<a>`` closes the open one where the parser does; ``</form>`` takes the form alone off
the stack. Comments, and the contents of script, style, textarea, title, xmp, iframe, noembed and
noframes in HTML (and everything after a plaintext), are not markup. A formatting element (``<b>``,
``<font>`` …) closed by another element's end tag is reopened by the parser further on, so it keeps
counting until its own end tag. Compared with lexbor's own trees (the 4,229 pages of the evaluation
sets, and random tag soup of the rules above), no estimate was found under a quarter of their depth (a
table's four levels count one); on the pages the median estimate is their depth.

A reopened formatting element is rebuilt, as a new element, at the next text or inline start tag, and
again after each element that closes it; and each distinct one closed by a ``</div>`` is one more to
rebuild every time, so ``<div><b id=1></div><div><b id=2></div>…`` makes the parser build n²/2
elements (the HTML standard keeps only three identical ones, which this count follows; lexbor has no
other bound). The count assumes the rebuilt elements close again at any end tag or block, so it errs
towards more; on crafted pages it matched lexbor's extra elements to within 1 %, and on the 4,229 pages
it is at most 12,720 (cleaneval/final/104, whose whole tree in lexbor holds 2,602 elements).
"""
from __future__ import annotations

import math
import re
import string
from typing import NamedTuple

#: Deeper than this, a page is refused: lexbor reads 10,000 nested elements in about 0.1 s, and no
#: page of the evaluation sets comes near it (the deepest of the 4,229 is estimated 119 deep; lexbor's
#: trees of them are at most 56 deep).
MAX_NESTING_DEPTH = 10_000
#: More elements than this rebuilt by the parser, a page is refused: lexbor takes about 0.6 s and 330 MB
#: to rebuild a million (10,000 distinct <b> closed by a </div> each, 200 KB, took more than 4 GB), and
#: no page of the evaluation sets is estimated to rebuild 13,000.
MAX_REBUILT_ELEMENTS = 1_000_000
#: More attributes than this on one element, a page is refused: both parsers check each attribute's
#: name against those before it, so their time grows with the square of an element's attributes (one
#: <p> of 50,000 distinct ones: libxml2 8.8 s; 20,000: libxml2 0.6 s and lexbor 0.9 s), and 5 MB of
#: markup could hold one of a million. At this bound a page of 5 MB of such elements costs both 3.5 s,
#: as much as 5 MB of other markup; no element of the 4,229 pages of the evaluation sets has 25.
MAX_ATTRIBUTES = 1_000

#: The parser keeps at most this many identical formatting elements (same name and attributes) to
#: reopen (the HTML standard's "Noah's Ark" clause): only distinct ones pile up.
_IDENTICAL_REOPENED = 3
#: Start tags that do not make the parser rebuild the reopened formatting elements (text and other
#: start tags do): blocks and list items (which open outside them), headings, tables and their parts,
#: and what belongs in a head.
_NOT_REBUILDING = frozenset(
    "html head base basefont bgsound link meta noframes script style template title body frameset address "
    "article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header "
    "hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form li dd dt "
    "plaintext table hr param source track textarea iframe noembed noscript caption col colgroup frame "
    "tbody td tfoot th thead tr rb rtc rp rt".split()
)

#: Elements that never hold others (void elements), those the parser opens once (html, head, body),
#: and those that close one another and only nest through other elements (``p`` closes at the next
#: block; table parts outside a table are dropped and inside one close each other, and the table,
#: which counts, bounds the parser's walks).
_NOT_NESTING = frozenset(
    "area base basefont bgsound br col embed frame hr image img input keygen link meta param source track wbr "
    "p tr td th thead tbody tfoot colgroup caption html head body".split()
)
#: Elements whose contents are text, not markup, for an HTML5 parser (in HTML, not in SVG or MathML);
#: everything after a <plaintext> is.
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())
#: Where each of those ends: at its end tag, whose name is followed by a space, "/" or ">".
_RAW_TEXT_END = {
    name: re.compile(rf"</{name}[\t\n\f\r />]" if name != "plaintext" else "(?!)", re.IGNORECASE | re.ASCII)
    for name in _RAW_TEXT
}

#: The HTML5 parser's "special" elements (of those that nest here): an end tag of another name is
#: ignored when one of these stands between it and its element.
_SPECIAL = frozenset(
    "address applet article aside blockquote button center dd details dialog dir div dl dt fieldset "
    "figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup iframe li listing main marquee "
    "menu nav noembed noframes noscript object ol plaintext pre search section select summary table template "
    "ul xmp".split()
)
#: Elements that bound the parser's "in scope" searches: a special element's end tag does not close
#: its element across one of these (a select too, for lexbor).
_SCOPE = frozenset("applet marquee object select table template".split())
#: SVG and MathML elements whose contents are HTML (integration points; a MathML annotation-xml too
#: when its encoding says HTML): special and scope bounds too.
_SVG_INTEGRATION_POINTS = frozenset("foreignobject desc title".split())
_MATHML_INTEGRATION_POINTS = frozenset("mi mo mn ms mtext".split())
#: Special elements whose end tag closes them across any element but a scope bound: all but those whose
#: end tag has rules of its own (form, li, template) and those whose end tag stops at any special
#: element, as every other end tag does.
_CLOSED_IN_SCOPE = _SPECIAL - frozenset("form li template frameset iframe noembed noframes noscript plaintext xmp".split())
#: Formatting elements: closed by another element's end tag, the parser reopens them further on.
_FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_RUBY_PARTS = frozenset("rb rp rt rtc".split())
#: Elements the parser closes when it "generates implied end tags" (of those that nest here).
_IMPLIED_END = _RUBY_PARTS | frozenset("dd dt li optgroup option".split())
#: Elements that, met in SVG or MathML, close it and are HTML again (``<font>`` only with a color,
#: face or size).
_BREAKING_OUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed font h1 h2 h3 h4 h5 h6 head hr i img li "
    "listing menu meta nobr ol p pre ruby s small span strike strong sub sup table tt u ul var".split()
)
_FONT_ATTRIBUTES_BREAKING_OUT = frozenset(("color", "face", "size"))
#: The end tags that, met in SVG or MathML, close it.
_ENDS_BREAKING_OUT = frozenset(("p", "br"))

# What an open element is, as bits: it bounds end tags of other names (special); it bounds "in scope"
# searches; it bounds the search for an open </li> (the scope bounds, and lists); it bounds a new list
# item's search for the open one (special, but for address and div); it is reopened when closed by
# another's end tag; it is an SVG or MathML element; what it holds is SVG or MathML (it is no
# integration point); what it holds is MathML.
_SPECIAL_BIT, _SCOPE_BIT, _LIST_SCOPE_BIT, _ITEM_BOUND_BIT = 1, 2, 4, 8
_FORMATTING_BIT, _FOREIGN_BIT, _HOLDS_FOREIGN_BIT, _HOLDS_MATHML_BIT = 16, 32, 64, 128
_BOUND_BITS = _SPECIAL_BIT | _SCOPE_BIT | _LIST_SCOPE_BIT | _ITEM_BOUND_BIT


def _html_kind(name: str) -> int:
    """An HTML element's bits."""
    kind = _FORMATTING_BIT if name in _FORMATTING else 0
    if name in _SPECIAL:
        kind |= _SPECIAL_BIT if name in ("address", "div") else _SPECIAL_BIT | _ITEM_BOUND_BIT
    if name in _SCOPE:
        kind |= _SCOPE_BIT | _LIST_SCOPE_BIT
    if name in ("ol", "ul"):
        kind |= _LIST_SCOPE_BIT
    return kind


#: Each HTML element's bits (none for most).
_HTML_KINDS = {name: _html_kind(name) for name in _SPECIAL | _SCOPE | _FORMATTING | {"ol", "ul"}}
#: Where an SVG or MathML element is filed: apart from HTML elements, which HTML end tags alone close.
_FOREIGN_KEY = "{} (svg/mathml)"
_ANNOTATION_XML = _FOREIGN_KEY.format("annotation-xml")
# An open element in the stack: its key (its name, or _FOREIGN_KEY of it), bits, where the next open
# element of its key is (-1: none), and where the innermost bound of each kind above and HTML element
# at or below it are (-1: none).
_KEY, _KIND, _OUTER_NAMESAKE, _SPECIAL_AT, _SCOPE_AT, _LIST_SCOPE_AT, _ITEM_BOUND_AT, _HTML_AT = range(8)
_NO_ELEMENT = ("", 0, -1, -1, -1, -1, -1, -1)
#: Which bound stops an HTML end tag: the scope bounds for special elements closed in scope, the
#: list-scope ones for </li>, none for </template>, any special element for the rest.
_END_TAG_BOUNDS: dict[str, int | None] = {
    **{name: _SCOPE_AT for name in _CLOSED_IN_SCOPE}, "li": _LIST_SCOPE_AT, "template": None
}
#: HTML start tags that do more than open an element (or less).
_STARTS_WITH_RULES = _NOT_NESTING | _HEADINGS | _RUBY_PARTS | frozenset(
    "svg math form select a nobr button li dd dt option optgroup".split()
)

# A tag's attributes as an HTML5 tokenizer reads them: a quoted value may hold ">" (quotes count only
# after "="), an unquoted one "/" (``<g a=b/>`` does not close). Possessive, so a tag no ">" ends costs
# one pass over the rest of the page, not one per "<" in it.
_SPACES_AND_SLASHES = r"[\t\n\f\r /]"
_ATTRIBUTE_NAME = r"[^\t\n\f\r />][^\t\n\f\r />=]*+"
_EQUALS = r"[\t\n\f\r ]*+=[\t\n\f\r ]*+"
_ATTRIBUTE_VALUE = r"\"[^\"]*+\"?|'[^']*+'?|[^\t\n\f\r >]*+"
#: A comment (``<!-->`` is an empty one), a bogus comment (``<!DOCTYPE …>``, ``<?xml …>``, ``</ …>``),
#: or a tag: end-tag slash, name, attributes, the last attribute (or run of spaces and slashes), and
#: the ">" (none when the page ends inside the tag, which a parser then drops).
_TOKEN = re.compile(
    r"<!--(?:-?>|.*?(?:--!?>|\Z))|<[!?][^>]*+>?|</(?![a-zA-Z])[^>]*+>?"
    rf"|<(?P<end>/?)(?P<name>[a-zA-Z][^\t\n\f\r />]*+)"
    rf"(?P<attributes>(?P<last>{_SPACES_AND_SLASHES}++|{_ATTRIBUTE_NAME}(?:{_EQUALS}(?:{_ATTRIBUTE_VALUE}))?+)*+)"
    r"(?P<closed>>)?",
    re.DOTALL,
)
#: A start tag holding at least :data:`MAX_ATTRIBUTES` runs of separators or attributes (as :data:`_TOKEN`
#: reads them: a quote starts a value only after "="), which one of more attributes than that does (each
#: has a name and a separator before it): one search in C, 0.3 ms on a median page where reading every
#: tag's attributes in Python took 1.2.
_MANY_ATTRIBUTES = re.compile(
    rf"<[a-zA-Z][^\t\n\f\r />]*+(?=(?:{_SPACES_AND_SLASHES}++|{_ATTRIBUTE_NAME}(?:{_EQUALS}(?:{_ATTRIBUTE_VALUE}))?+)"
    rf"{{{MAX_ATTRIBUTES}}})"
)
#: One attribute of a tag's attributes: its name and value (quoted as written).
_NAMED_ATTRIBUTE = re.compile(rf"{_SPACES_AND_SLASHES}*+({_ATTRIBUTE_NAME})(?:{_EQUALS}({_ATTRIBUTE_VALUE}))?+")
#: The encodings that make a MathML annotation-xml element hold HTML.
_HTML_ENCODINGS = ("text/html", "application/xhtml+xml")
_ASCII_LOWERCASE = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

#: How many formatting elements the parser may keep to rebuild whatever their number in the page:
#: three identical ones of each name (those without attributes are identical), and one <a> (a new
#: one closes the last).
_MOST_IDENTICAL_REBUILT = _IDENTICAL_REOPENED * (len(_FORMATTING) - 1) + 1
#: A formatting start tag with attributes (or a "/"), of which each may be one more element to rebuild.
_FORMATTING_TAG_WITH_ATTRIBUTES = re.compile(
    rf"<(?:{'|'.join(sorted(_FORMATTING - {'a'}, key=len, reverse=True))})[\t\n\f\r /]", re.IGNORECASE | re.ASCII
)
#: A page with no more tags than this cannot make the parser rebuild more than
#: :data:`MAX_REBUILT_ELEMENTS`: each tag either opens a formatting element or makes the parser rebuild
#: those it keeps, so at most a quarter of the square of their number.
_FEWEST_TAGS_TO_REBUILD_TOO_MANY = 2 * math.isqrt(MAX_REBUILT_ELEMENTS)


class _OpenElements:
    """The stack of open elements, as an HTML5 parser keeps it as far as its depth goes."""

    __slots__ = (
        "stack", "innermost", "formatting_attributes", "reopened", "reopened_count", "identical_reopened",
        "to_rebuild", "rebuilt_open", "rebuilt", "form_open", "deepest",
    )

    def __init__(self) -> None:
        self.stack: list[tuple[str, int, int, int, int, int, int]] = []
        #: Key → where the innermost open element of that key is.
        self.innermost: dict[str, int] = {}
        #: Where an open formatting element is → its attributes (which tell identical ones apart).
        self.formatting_attributes: dict[int, str] = {}
        #: Formatting elements closed by another element's end tag, which the parser reopens: by name,
        #: each as its name and attributes, in the order they were closed.
        self.reopened: dict[str, list[tuple[str, tuple[tuple[str, str], ...]]]] = {}
        self.reopened_count = 0
        #: How many of the reopened elements have each name and attributes.
        self.identical_reopened: dict[tuple[str, tuple[tuple[str, str], ...]], int] = {}
        #: How many elements the parser rebuilds each time it reopens them (of identical ones, three).
        self.to_rebuild = 0
        #: Whether they may still be open since they were last rebuilt (no tag that closes elements since).
        self.rebuilt_open = False
        #: How many elements the parser has rebuilt so far.
        self.rebuilt = 0
        #: Whether a form was opened and no </form> met since (the parser drops a form start tag then).
        self.form_open = False
        self.deepest = 0

    def in_foreign_content(self) -> bool:
        """Whether a start tag now opens an SVG or MathML element (or, for some, closes them)."""
        return bool(self.stack) and bool(self.stack[-1][_KIND] & _HOLDS_FOREIGN_BIT)

    def start_tag(self, name: str, attributes: str, last_attribute: str | None) -> None:
        """``last_attribute``: the tag's last attribute, or run of spaces and slashes (``/>``)."""
        if self.stack and self.stack[-1][_KIND] & _HOLDS_FOREIGN_BIT:
            if not _breaks_out(name, attributes):
                if not _self_closing(last_attribute):
                    self._push(_FOREIGN_KEY.format(name), self._foreign_kind(name, attributes))
                return
            self._close_foreign_content()
        if name in _NOT_REBUILDING:
            self.rebuilt_open = False  # it may close the elements rebuilt before it (a <p> closes the open one)
        else:
            self.rebuild_reopened()
        if name in _STARTS_WITH_RULES:
            self._start_with_rules(name, attributes, last_attribute)
        else:
            self._push(name, _HTML_KINDS.get(name, 0), attributes)

    def end_tag(self, name: str) -> None:
        """Close the innermost open element named ``name`` unless an element that bounds its end tag
        stands between (or, for a formatting element the parser reopens, stop reopening it)."""
        self.rebuilt_open = False
        if self.stack and self.stack[-1][_KIND] & _FOREIGN_BIT and self._end_foreign_tag(name):
            return
        if name == "form":
            self._end_form()
        elif not self._close_innermost(name) and self.reopened.get(name):
            self._stop_reopening(name)

    def rebuild_reopened(self) -> None:
        """Text, or a start tag that is not a block's: the parser rebuilds the reopened formatting
        elements, unless they may still be open since it last did."""
        if self.to_rebuild and not self.rebuilt_open:
            self.rebuilt += self.to_rebuild
            self.rebuilt_open = True

    def _reopen_later(self, name: str, attributes: str) -> None:
        """A formatting element closed by another element's end tag: the parser reopens it further on."""
        identity = (name, _attribute_items(attributes))
        self.reopened.setdefault(name, []).append(identity)
        self.reopened_count += 1
        identical = self.identical_reopened.get(identity, 0)
        self.identical_reopened[identity] = identical + 1
        if identical < _IDENTICAL_REOPENED:
            self.to_rebuild += 1
        self.rebuilt_open = False

    def _stop_reopening(self, name: str) -> None:
        """The end tag of a reopened formatting element: the parser no longer reopens the last one."""
        identity = self.reopened[name].pop()
        self.reopened_count -= 1
        identical = self.identical_reopened.pop(identity) - 1
        if identical:
            self.identical_reopened[identity] = identical
        if identical < _IDENTICAL_REOPENED:
            self.to_rebuild -= 1

    def _close_innermost(self, name: str) -> bool:
        """Close the innermost open HTML element named ``name`` (of any heading's name, for a heading)
        unless an element that bounds its end tag stands between; whether one is open."""
        position = self._innermost_of(_HEADINGS) if name in _HEADINGS else self.innermost.get(name, -1)
        if position < 0:
            return False
        bound = _END_TAG_BOUNDS.get(name, _SPECIAL_AT)
        if bound is None or self.stack[-1][bound] <= position:
            self._close_from(position)
        return True

    def _end_foreign_tag(self, name: str) -> bool:
        """An end tag met in SVG or MathML: it closes the innermost SVG or MathML element of its name
        opened inside the innermost HTML element (``</p>`` and ``</br>`` close all of those); False
        when it is left to the HTML rules."""
        if name in _ENDS_BREAKING_OUT:
            self._close_foreign_content()
            return False
        position = self.innermost.get(_FOREIGN_KEY.format(name))
        if position is None or position < self.stack[-1][_HTML_AT]:
            return False
        self._close_from(position)
        return True

    def _end_form(self) -> None:
        """</form> takes the form alone off the stack, not what was opened inside it: it is left there
        as a nameless element (an element more than the parser's stack holds)."""
        self.form_open = False
        if not self._in_scope("form"):
            return
        position = self.innermost["form"]
        if position == len(self.stack) - 1:
            self._close_from(position)
            return
        _, _, outer_namesake, *bounds = self.stack[position]
        self.stack[position] = ("", 0, -1, *bounds)
        if outer_namesake < 0:
            del self.innermost["form"]
        else:
            self.innermost["form"] = outer_namesake

    def _foreign_kind(self, name: str, attributes: str) -> int:
        """The bits of an element opened in SVG or MathML (that of the current element, but an <svg> in
        a MathML annotation-xml is SVG)."""
        current_key, current_kind = self.stack[-1][_KEY], self.stack[-1][_KIND]
        mathml = bool(current_kind & _HOLDS_MATHML_BIT) and not (name == "svg" and current_key == _ANNOTATION_XML)
        bounds = _BOUND_BITS
        if name in (_MATHML_INTEGRATION_POINTS if mathml else _SVG_INTEGRATION_POINTS):
            return _FOREIGN_BIT | bounds  # holds HTML
        if mathml and name == "annotation-xml":
            holds_html = _attribute_value(attributes, "encoding") in _HTML_ENCODINGS
            return _FOREIGN_BIT | bounds | (0 if holds_html else _HOLDS_FOREIGN_BIT | _HOLDS_MATHML_BIT)
        return _FOREIGN_BIT | _HOLDS_FOREIGN_BIT | (_HOLDS_MATHML_BIT if mathml else 0)

    def _start_with_rules(self, name: str, attributes: str, last_attribute: str | None) -> None:
        """An HTML start tag that does more than open an element (or less)."""
        if name in _NOT_NESTING:
            return
        if name in ("svg", "math"):
            if not _self_closing(last_attribute):
                kind = _FOREIGN_BIT | _HOLDS_FOREIGN_BIT | (_HOLDS_MATHML_BIT if name == "math" else 0)
                self._push(_FOREIGN_KEY.format(name), kind)
            return
        if name == "form":
            if self.form_open:
                return  # a form inside a form is dropped
            self.form_open = True
        if name == "select" and self._in_scope("select"):
            self.end_tag("select")  # a select inside a select closes it, and is dropped
            return
        self._close_before(name)
        self._push(name, _HTML_KINDS.get(name, 0), attributes)

    def _close_before(self, name: str) -> None:
        """What an HTML start tag closes before its element opens."""
        if name == "a":
            self.end_tag(name)  # an open or reopened one closes first
        elif name in ("nobr", "button"):
            self._close_innermost(name)  # an open one closes first (a reopened nobr is reopened first)
        elif name in _HEADINGS:
            self._close_top_if(_HEADINGS)
        elif name == "li":
            self._close_list_item(("li",))
        elif name in ("dd", "dt"):
            self._close_list_item(("dd", "dt"))
        elif name in ("option", "optgroup"):
            self._close_top_if(("option",))
            if name == "optgroup" and "select" in self.innermost:
                self._close_top_if(("optgroup",))
        elif name in _RUBY_PARTS and self._in_scope("ruby"):
            # elements with implied end tags close (but an <rtc>, for <rt> and <rp>, which it holds)
            closing = _IMPLIED_END if name in ("rb", "rtc") else _IMPLIED_END - {"rtc"}
            while self.stack[-1][_KEY] in closing:
                self._close_from(len(self.stack) - 1)

    def _in_scope(self, name: str) -> bool:
        """Whether an element named ``name`` is open with no scope bound after it."""
        position = self.innermost.get(name)
        return position is not None and self.stack[-1][_SCOPE_AT] <= position

    def _push(self, key: str, kind: int, attributes: str = "") -> None:
        """Open an element inside the current one (``attributes``: a formatting element's)."""
        stack = self.stack
        position = len(stack)
        _, _, _, special_at, scope_at, list_scope_at, item_bound_at, html_at = stack[-1] if stack else _NO_ELEMENT
        if kind & _BOUND_BITS:
            special_at = position if kind & _SPECIAL_BIT else special_at
            scope_at = position if kind & _SCOPE_BIT else scope_at
            list_scope_at = position if kind & _LIST_SCOPE_BIT else list_scope_at
            item_bound_at = position if kind & _ITEM_BOUND_BIT else item_bound_at
        if not kind & _FOREIGN_BIT:
            html_at = position
        outer_namesake = self.innermost.get(key, -1)
        stack.append((key, kind, outer_namesake, special_at, scope_at, list_scope_at, item_bound_at, html_at))
        self.innermost[key] = position
        if kind & _FORMATTING_BIT:
            self.formatting_attributes[position] = attributes
        if position + 1 + self.reopened_count > self.deepest:
            self.deepest = position + 1 + self.reopened_count

    def _close_list_item(self, names: tuple[str, ...]) -> None:
        """A new list item closes the open one of ``names`` unless it is nested in another list."""
        position = self._innermost_of(names)
        if position >= 0 and self.stack[-1][_ITEM_BOUND_AT] <= position:
            self._close_from(position)

    def _innermost_of(self, keys: frozenset[str] | tuple[str, ...]) -> int:
        """Where the innermost open element of any of ``keys`` is (-1: none)."""
        return max(self.innermost.get(key, -1) for key in keys)

    def _close_top_if(self, keys: frozenset[str] | tuple[str, ...]) -> None:
        """Close the current element if it is one of ``keys``."""
        if self.stack and self.stack[-1][_KEY] in keys:
            self._close_from(len(self.stack) - 1)

    def _close_foreign_content(self) -> None:
        """Close the SVG or MathML elements open around the current point, back to HTML."""
        while self.in_foreign_content():
            self._close_from(len(self.stack) - 1)

    def _close_from(self, position: int) -> None:
        """Close the element at ``position`` and every element opened after it; formatting elements
        among those after it are reopened."""
        stack, innermost = self.stack, self.innermost
        self.rebuilt_open = False  # the elements rebuilt last may be among those closed
        while len(stack) > position:
            key, kind, outer_namesake, _, _, _, _, _ = stack.pop()
            if not key:
                pass  # a form that </form> took off the stack
            elif outer_namesake < 0:
                del innermost[key]
            else:
                innermost[key] = outer_namesake
            if kind & _FORMATTING_BIT and len(stack) > position:
                self._reopen_later(key, self.formatting_attributes[len(stack)])


def _breaks_out(name: str, attributes: str) -> bool:
    """Whether a start tag met in SVG or MathML closes it and opens an HTML element."""
    if name == "font":
        names = (_ascii_lower(match[1]) for match in _NAMED_ATTRIBUTE.finditer(attributes))
        return not _FONT_ATTRIBUTES_BREAKING_OUT.isdisjoint(names)
    return name in _BREAKING_OUT


def _self_closing(last_attribute: str | None) -> bool:
    """Whether a tag ends in "/>" (in SVG and MathML, that closes the element): the "/" ends a run of
    spaces and slashes, not an attribute's unquoted value."""
    return last_attribute is not None and last_attribute[0] in "\t\n\f\r /" and last_attribute[-1] == "/"


def _attribute_value(attributes: str, name: str) -> str | None:
    """The value of a tag's attribute named ``name``, ASCII letters folded; None without one."""
    value = dict(_attribute_items(attributes)).get(name)
    return None if value is None else _ascii_lower(value)


def _attribute_items(attributes: str) -> tuple[tuple[str, str], ...]:
    """A tag's attributes as the parser keeps them, in name order: names folded, values unquoted, the
    first of each name."""
    items: dict[str, str] = {}
    for match in _NAMED_ATTRIBUTE.finditer(attributes):
        value = match[2] or ""
        quote = value[:1]
        items.setdefault(_ascii_lower(match[1]), value[1:].removesuffix(quote) if quote in ("\"", "'") else value)
    return tuple(sorted(items.items()))


def _ascii_lower(name: str) -> str:
    """A tag or attribute name as the parser compares it: only ASCII letters are folded (``<xÄ>`` is
    not ``</xä>``)."""
    return name.lower() if name.isascii() else name.translate(_ASCII_LOWERCASE)


class NestingEstimate(NamedTuple):
    """What parsing a page would build, estimated as described above."""

    #: The deepest nesting of elements.
    depth: int
    #: How many reopened formatting elements the parser rebuilds.
    rebuilt: int
    #: The most attributes one start tag gives its element, of the tags written long enough to pass the
    #: limit on them (0 when none is).
    attributes: int


def nesting_estimate(
    html: str, depth_limit: int | None = None, rebuilt_limit: int | None = None, attributes_limit: int | None = None,
) -> NestingEstimate:
    """How deeply ``html`` nests its elements, how many the parser rebuilds and the most attributes on
    one; scanning stops once any passes its limit."""
    elements = _OpenElements()
    start_tag, end_tag, rebuild_reopened = elements.start_tag, elements.end_tag, elements.rebuild_reopened
    depth_limit = depth_limit if depth_limit is not None else len(html)
    rebuilt_limit = rebuilt_limit if rebuilt_limit is not None else len(html) ** 2
    attributes_limit = attributes_limit if attributes_limit is not None else len(html)
    most_attributes = 0
    start = 0
    while True:
        text_ends = start  # where the last token ended: text between two tokens makes the parser rebuild
        for match in _TOKEN.finditer(html, start):
            if elements.to_rebuild and match.start() != text_ends:
                rebuild_reopened()
            text_ends = match.end()
            closing, name, attributes, last_attribute, closed = match.group(1, 2, 3, 4, 5)  # (by number: faster)
            if name is None or closed is None:
                continue  # a comment, or a tag the page ends in
            name = _ascii_lower(name)
            # (an attribute takes a character at least: only a tag written longer can pass the limit)
            if not closing and len(attributes) > attributes_limit:
                most_attributes = max(most_attributes, len(_NAMED_ATTRIBUTE.findall(attributes)))
                if most_attributes > attributes_limit:
                    return NestingEstimate(elements.deepest, elements.rebuilt, most_attributes)
            if closing:
                end_tag(name)
            elif name in _RAW_TEXT and not elements.in_foreign_content():
                if name == "xmp":
                    rebuild_reopened()
                end = _RAW_TEXT_END[name].search(html, match.end())
                if end is None:
                    return NestingEstimate(elements.deepest, elements.rebuilt, most_attributes)
                start = end.start()
                break
            else:
                start_tag(name, attributes, last_attribute)
                if elements.deepest > depth_limit or elements.rebuilt > rebuilt_limit:
                    return NestingEstimate(elements.deepest, elements.rebuilt, most_attributes)
        else:
            if elements.to_rebuild and text_ends < len(html):
                rebuild_reopened()
            return NestingEstimate(elements.deepest, elements.rebuilt, most_attributes)


def too_costly_to_parse(html: str) -> str | None:
    """Why parsing the page would take a parser too long or too much memory (it nests elements deeper
    than :data:`MAX_NESTING_DEPTH`, makes the parser rebuild more than :data:`MAX_REBUILT_ELEMENTS`, or
    gives an element more than :data:`MAX_ATTRIBUTES`), or None. The scan costs 4 ms on a median page,
    more than applying rules to it, so it runs only on pages that could fail it (:func:`_may_cost_too_much`)."""
    if not _may_cost_too_much(html):
        return None
    estimate = nesting_estimate(
        html, depth_limit=MAX_NESTING_DEPTH, rebuilt_limit=MAX_REBUILT_ELEMENTS, attributes_limit=MAX_ATTRIBUTES
    )
    if estimate.depth > MAX_NESTING_DEPTH:
        return f"the page nests elements more than {MAX_NESTING_DEPTH:,} deep (no real page does; parsing it would take minutes)"
    if estimate.rebuilt > MAX_REBUILT_ELEMENTS:
        return (f"the page's misnested formatting elements (<b>, <font> …) would make the parser rebuild more than "
                f"{MAX_REBUILT_ELEMENTS:,} elements (no real page does; parsing it would take gigabytes)")
    if estimate.attributes > MAX_ATTRIBUTES:
        return (f"an element of the page has more than {MAX_ATTRIBUTES:,} attributes (no real page's has 25; "
                "parsing it would take minutes)")
    return None


def _may_cost_too_much(html: str) -> bool:
    """Whether the page could fail :func:`too_costly_to_parse`'s scan: with more tags than the depth limit
    (each opens one element at most), with enough tags and formatting elements to rebuild too many (each
    time the parser rebuilds them it rebuilds at most the identical ones it keeps and one per formatting
    tag with attributes, and each tag makes it rebuild them once at most), or with a start tag that holds
    as many separators and attributes as the attribute limit (:data:`_MANY_ATTRIBUTES`, scripts and
    all). Counting tags and those formatting tags costs 0.1 and 0.4 ms on pages of
    1,000 to 10,000 tags; 77 of the 4,229 pages of the evaluation sets are scanned."""
    tags = html.count("<")
    if tags > MAX_NESTING_DEPTH:
        return True
    if tags > _FEWEST_TAGS_TO_REBUILD_TOO_MANY:
        most_rebuilt = (_MOST_IDENTICAL_REBUILT + len(_FORMATTING_TAG_WITH_ATTRIBUTES.findall(html))) * tags
        if most_rebuilt > MAX_REBUILT_ELEMENTS:
            return True
    return _MANY_ATTRIBUTES.search(html) is not None
