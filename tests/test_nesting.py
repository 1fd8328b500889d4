"""The nesting estimate that keeps pathologically deep or misnested pages away from the HTML5 parser."""
import time

import pytest

from sitewise.nesting import (
    MAX_ATTRIBUTES, MAX_NESTING_DEPTH, MAX_REBUILT_ELEMENTS, nesting_estimate, too_costly_to_parse,
)

#: Repetitions of a construct: enough to tell a depth that grows with them from one that does not.
REPEATS = 1_000


def test_depth_counts_elements_that_hold_others():
    assert nesting_estimate("<html><body><div><section><div>x</div></section></div></body></html>").depth == 3
    assert nesting_estimate("<div></div><div><span>a</span></div>").depth == 2
    assert nesting_estimate("").depth == 0


def test_void_self_closing_and_implied_end_tags_do_not_nest():
    # a browser closes each <p>, <li> and <td> when the next starts, <br> and <img> hold nothing, and
    # <svg/> closes itself: the deepest is an item in the list in the div
    html = "<div>" + "<p>para <br> text <img src=x>" * 50 + "<ul>" + "<li>item" * 50 + "</ul>" + "<svg/>" * 9 + "</div>"
    assert nesting_estimate(html).depth == 3
    assert nesting_estimate("<ul>" + "<li>item" * 50).depth == 2
    assert nesting_estimate("<table>" + "<tr><td>cell" * 50).depth == 1


@pytest.mark.parametrize(
    "html",
    [
        "<div/>" * REPEATS,  # "/>" closes nothing in HTML: each <div/> opens a div
        "<svg>" + "<div/>" * REPEATS,  # a <div> closes SVG, and opens as HTML
        "<svg><foreignObject>" + "<x/>" * REPEATS,  # so does any element in SVG's HTML islands
        "<svg></p>" + "<x/>" * REPEATS,  # </p> closes SVG too
        "<svg>" + "<g a=b/>" * REPEATS,  # the "/" is part of an unquoted value
        "<svg>" + "<link>" * REPEATS,  # no element is void in SVG
    ],
)
def test_self_closing_html_elements_nest(html):
    assert nesting_estimate(html).depth >= REPEATS
    assert nesting_estimate("<svg>" + "<g/>" * REPEATS + "<path d='M0 0'/>" * REPEATS).depth == 1


@pytest.mark.parametrize(
    "unit, per_unit",
    [
        ("<div></span>", 1),  # no open span: the parser ignores </span>
        ("<span><div></span>", 2),  # a <div> stands between: </span> is ignored
        ("<b><div></b>", 2),
        ("<li><ul></li>", 2),  # a list stands between the item and its end tag
        ("<form><div></form>", 2),  # </form> takes the form off the parser's stack, not the div
    ],
)
def test_end_tags_close_only_what_the_parser_closes(unit, per_unit):
    assert nesting_estimate(unit * REPEATS).depth >= per_unit * REPEATS
    assert nesting_estimate("<div><span><b>x</div>" * REPEATS).depth >= REPEATS  # each <b> is reopened further on


def test_stray_end_tags_never_go_below_zero():
    assert nesting_estimate("</div></div><div><div>x</div></div>").depth == 2


@pytest.mark.parametrize(
    "html",
    [
        "<!-->" + "<div>" * REPEATS + "-->",  # "<!-->" is a whole (empty) comment
        "<!x <!-- >" + "<div>" * REPEATS + "-->",  # "<!x ... >" is a bogus comment, the "<!--" in it nothing
        "<div title='><!--'>" * REPEATS + "-->",  # a quoted value holds ">"
        "<div a=<>" * REPEATS,  # an unquoted one "<"
        "<div<x></div>" * REPEATS,  # the element is named "div<x", which </div> does not close
        "<xÄ></xä>" * REPEATS,  # only ASCII letters are folded
        "<script></script x>" + "<div>" * REPEATS,  # an end tag may hold attributes
        "<xmp><textarea></xmp>" + "<div>" * REPEATS,  # an xmp's contents are text, the <textarea> in it too
        "<template>" + "<div>" * REPEATS,  # a template's contents are markup
        "<svg><style>" + "<g>" * REPEATS,  # in SVG, so are a style's
        "<li><dd>" * REPEATS,  # list items nest in another kind of item
        "<rt>" * REPEATS,  # ruby parts outside a ruby
        "<optgroup>" * REPEATS,  # option groups outside a select
    ],
)
def test_markup_a_naive_scan_misreads_is_read_as_the_parser_reads_it(html):
    assert nesting_estimate(html).depth >= REPEATS


def test_elements_a_new_one_closes_do_not_nest():
    assert nesting_estimate("<a href=/x>link " * REPEATS).depth == 1
    assert nesting_estimate("<h2>heading " * REPEATS).depth == 1
    assert nesting_estimate("<select>" + "<option>choice " * REPEATS).depth == 2


def test_script_and_style_contents_are_not_markup():
    html = "<div><script>var s = '" + "<div>" * 500 + "';</script><!-- " + "<b>" * 500 + " --><style>a{}</style></div>"
    assert nesting_estimate(html).depth == 1
    # an unterminated script swallows the rest of the page, as a parser would
    assert nesting_estimate("<div><script>" + "<div>" * 50).depth == 1


def test_scanning_stops_past_the_asked_limits():
    assert nesting_estimate("<b>" * 1_000, depth_limit=10).depth == 11
    distinct = "".join(f"<b id={i}>" for i in range(1_000))
    assert nesting_estimate("<div>" + distinct + "</div>" + "<p>x" * 1_000, rebuilt_limit=10).rebuilt == 1_000


def test_only_pages_nested_past_the_limit_are_refused():
    assert too_costly_to_parse("<div>" * (MAX_NESTING_DEPTH + 1) + "x")
    assert not too_costly_to_parse("<div>" * MAX_NESTING_DEPTH + "x")
    flat = "<div><p>words</p></div>" * MAX_NESTING_DEPTH  # more tags than the limit, but shallow
    assert not too_costly_to_parse(flat)


def test_pages_that_looked_shallow_to_the_old_count_are_refused():
    # QA's pages: 100,000 <div/> held sitewise.extract for 33 s, 50,000 "<div></span>" for 10 s
    paragraph = "<p>" + "The harbor workers voted to end the strike. " * 10 + "</p>"
    assert too_costly_to_parse("<div/>" * 100_000 + paragraph)
    assert too_costly_to_parse("<div></span>" * 50_000 + paragraph)


def distinct_bold(count: int) -> list[str]:
    """``count`` <b> start tags the parser tells apart (identical ones it keeps three of)."""
    return [f"<b id=b{i}>" for i in range(count)]


@pytest.mark.parametrize(
    "html, rebuilt",
    [
        # each </div> closes the <b> in it: the parser rebuilds every one before it at the next <b>
        ("".join(f"<div>{b}</div>" for b in distinct_bold(REPEATS)), REPEATS * (REPEATS - 1) // 2),
        # all closed at once, then rebuilt for each paragraph's text, or for an inline element in a block
        ("<div>" + "".join(distinct_bold(REPEATS)) + "</div>" + "<p>x" * 10, REPEATS * 10),
        ("<div>" + "".join(distinct_bold(REPEATS)) + "</div>" + "<div><span></span></div>" * 10, REPEATS * 10),
        ("<div>" + "".join(distinct_bold(REPEATS)) + "</div>" + "<li>\n" * 10, REPEATS * 10),  # spaces are text
        # still open since the last time: not rebuilt again
        ("<div>" + "".join(distinct_bold(REPEATS)) + "</div>" + "<span>x" * 10, REPEATS),
        # identical ones: the parser keeps three
        ("<div>" + "<font color=red>" * REPEATS + "</div>" + "<p>x" * 10, 3 * 10),
        # their own end tags: nothing left to rebuild
        ("<div>" + "".join(distinct_bold(REPEATS)) + "</div>" + "</b>" * REPEATS + "<p>x" * 10, 0),
    ],
)
def test_formatting_elements_the_parser_rebuilds_are_counted(html, rebuilt):
    assert nesting_estimate(html).rebuilt == rebuilt


def test_pages_whose_misnested_formatting_would_blow_up_the_parser_are_refused():
    # QA's page: lexbor rebuilt n²/2 elements, 1.6 s and 766 MB for n = 2,000 (43 KB), more than 4 GB for 10,000
    for count in (2_000, 10_000):
        assert "rebuild more than" in too_costly_to_parse("".join(f"<div>{b}</div>" for b in distinct_bold(count)))
    paragraph = "<p>" + "The harbor workers voted to end the strike. " * 10 + "</p>"
    # as many tags, each with its own end tag (and identical ones misnested): nothing to refuse
    assert too_costly_to_parse("".join(f"<div><p>{b}x</b></div>" for b in distinct_bold(5_000)) + paragraph) is None
    assert too_costly_to_parse("<div><b><i><font face=serif>x</div>" * 3_000 + paragraph) is None
    # fewer tags than can rebuild that many are not scanned at all
    small = "<div>" + "".join(distinct_bold(999)) + "</div>" + "<p>x" * 999
    assert nesting_estimate(small).rebuilt == 999 * 999 <= MAX_REBUILT_ELEMENTS
    assert too_costly_to_parse(small) is None


def attributes(count: int) -> str:
    """``count`` attributes of distinct names (those the parsers compare with each other)."""
    return " ".join(f"data-a{i}=x" for i in range(count))


def test_elements_with_too_many_attributes_are_refused():
    # QA's page: one <p> of 50,000 attributes (440 KB) held sitewise.extract for 4.8 s in libxml2 alone,
    # whose time grows with the square of them
    paragraph = "<p>" + "The harbor workers voted to end the strike. " * 10 + "</p>"
    assert "more than 1,000 attributes" in too_costly_to_parse(f"<p {attributes(MAX_ATTRIBUTES + 1)}>x</p>" + paragraph)
    assert "more than 1,000 attributes" in too_costly_to_parse(f"<script {attributes(MAX_ATTRIBUTES + 1)}></script>")
    assert too_costly_to_parse(f"<p {attributes(MAX_ATTRIBUTES)}>x</p>" + paragraph) is None
    # what a script's text looks like to a tag reader is no element's attributes
    assert too_costly_to_parse(f"<script>if (i <n {attributes(MAX_ATTRIBUTES + 1)}) {{}}</script>" + paragraph) is None


def test_tags_that_never_close_are_scanned_in_linear_time():
    # each "<a " without a ">" once made the scan read (and backtrack over) the rest of the page:
    # 42 s for 80,000 of them; a second is room enough for a slow machine, minutes were the failure
    started = time.perf_counter()
    assert not too_costly_to_parse("<a " * 400_000)
    assert too_costly_to_parse("<" + "a" * 1_000_000 + " " + "<b>" * (MAX_NESTING_DEPTH + 1))
    assert not too_costly_to_parse("<svg><g a='" + "x" * 1_000_000 + "<div>" * (MAX_NESTING_DEPTH + 1))
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("tag", [
    "<p " + " ".join(f'a{i}=">"' for i in range(2_000)) + ">",  # a quoted ">" does not end the tag
    "<p a\" " + " ".join(f"x{i}" for i in range(2_000)) + " \"b>",  # a quote in a name starts no value
], ids=["quoted >", "stray quote"])
def test_a_tag_cannot_hide_its_attributes_from_the_check(tag):
    assert "attributes" in (too_costly_to_parse(f"<html><body>{tag}words</p></body></html>") or "")
