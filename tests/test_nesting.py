"""The nesting estimate that keeps pathologically deep pages away from the HTML5 parser."""
import time

from sitewise.nesting import MAX_NESTING_DEPTH, nesting_depth, too_deep


def test_depth_counts_elements_that_hold_others():
    assert nesting_depth("<html><body><div><section><div>x</div></section></div></body></html>") == 3
    assert nesting_depth("<div></div><div><span>a</span></div>") == 2
    assert nesting_depth("") == 0


def test_void_self_closing_and_implied_end_tags_do_not_nest():
    # a browser closes each <p>, <li> and <td> when the next starts, and <br>, <img> hold nothing
    html = "<div>" + "<p>para <br> text <img src=x>" * 50 + "<ul>" + "<li>item" * 50 + "</ul>" + "<svg/>" * 9 + "</div>"
    assert nesting_depth(html) == 2


def test_script_style_and_comment_contents_are_not_markup():
    html = "<div><script>var s = '" + "<div>" * 500 + "';</script><!-- " + "<b>" * 500 + " --><style>a{}</style></div>"
    assert nesting_depth(html) == 1
    # an unterminated script swallows the rest of the page, as a parser would
    assert nesting_depth("<div><script>" + "<div>" * 50) == 1


def test_stray_end_tags_never_go_below_zero():
    assert nesting_depth("</div></div><div><div>x</div></div>") == 2


def test_scanning_stops_at_the_asked_depth():
    assert nesting_depth("<b>" * 1_000, stop_at=10) == 10


def test_only_pages_nested_past_the_limit_are_too_deep():
    assert too_deep("<div>" * (MAX_NESTING_DEPTH + 1) + "x")
    assert not too_deep("<div>" * MAX_NESTING_DEPTH + "x")
    flat = "<div><p>words</p></div>" * MAX_NESTING_DEPTH  # more tags than the limit, but shallow
    assert not too_deep(flat)


def test_tags_that_never_close_are_scanned_in_linear_time():
    # each "<a " without a ">" once made the scan read (and backtrack over) the rest of the page:
    # 42 s for 80,000 of them; a second is room enough for a slow machine, minutes were the failure
    started = time.perf_counter()
    assert not too_deep("<a " * 400_000)
    assert too_deep("<" + "a" * 1_000_000 + " " + "<b>" * (MAX_NESTING_DEPTH + 1))
    assert time.perf_counter() - started < 1.0
