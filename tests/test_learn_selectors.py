"""Selector paths: escaping, parsing, and matching that agrees with a real CSS engine (lxml/cssselect)."""
from __future__ import annotations

import html
import random

import lxml.html
import pytest
from selectolax.lexbor import LexborHTMLParser

from sitewise.learn.selectors import (
    SelectorError, Step, check_lexbor_reads, css_escape, css_unescape, lexbor_selector, matches_path, parse_path,
    parse_selector, path_string, selects_path,
)


@pytest.mark.parametrize(
    "ident, escaped",
    [("main", "main"), ("col-md:6", r"col-md\:6"), ("2col", r"\32 col"), ("-2x", r"-\32 x"), ("-", r"\-"),
     ("a b", r"a\ b"), ("über", "über"), ("a.b", r"a\.b"), ("x\x01", r"x\1 ")],
)
def test_css_escape_like_the_browser(ident, escaped):
    assert css_escape(ident) == escaped
    assert css_unescape(escaped) == ident


def test_parse_and_print_round_trip():
    for text in ["body > div#main.wrap > article.story > p.body", "div.a p", "#x > .y", "article", "*.only-class",
                 r"div.col-md\:6 > p.\32 col"]:
        (complex_,) = parse_selector(text)
        assert parse_selector(complex_.css()) == parse_selector(text)
    assert [c.css() for c in parse_selector("h1.title , div.body p")] == ["h1.title", "div.body p"]
    assert parse_selector("div.b.a")[0].compounds[0] == Step("div", "", frozenset({"a", "b"}))


@pytest.mark.parametrize("bad", ["", "a >", "> a", "a,,b", "div[x]", "a:hover", "p#a#b", "p::before", "a + b", "a ~ b", "div.a\\"])
def test_unsupported_or_malformed_selectors_are_refused(bad):
    with pytest.raises(SelectorError):
        parse_selector(bad)


def test_only_css_whitespace_is_whitespace():
    # U+00A0, U+2003 and U+3000 are name characters in CSS (Python's str.strip and \\s take them as spaces)
    assert parse_selector("p.a\u00a0")[0].compounds[0].classes == frozenset({"a\u00a0"})
    assert parse_selector("div >\u3000x")[0].compounds[1].tag == "\u3000x"
    assert parse_path("body > p.x\u2003")[1].classes == frozenset({"x\u2003"})
    # an escaped space ends a name; a hex escape ends at one whitespace of any kind
    assert parse_selector("div#main\\ ")[0].compounds[0].id == "main "
    assert parse_selector("p.\\31\ta")[0].compounds[0].classes == frozenset({"1a"})


#: Code points per lexbor page in the test below: each selector of a list is tried on each element.
CHUNK = 256


def test_lexbor_and_the_path_matcher_agree_on_every_character_of_a_name():
    # Lexbor's parser refuses 9,297 characters of U+0080-U+FFFF written as they are (U+2014, ©, a soft
    # hyphen...), which CSS.escape and the learner write so: lexbor_selector spells them as it reads them.
    code_points = [c for c in range(0x80, 0x10000) if not 0xD800 <= c <= 0xDFFF] + [0x1F600, 0x10FFFF]
    for start in range(0, len(code_points), CHUNK):
        names = [f"{chr(c)}a{chr(c)}" for c in code_points[start:start + CHUNK]]
        page = LexborHTMLParser("<body><i class=a>decoy</i>" + "".join(
            f'<i class="{html.escape(n)}" id="{html.escape(n)}">t</i>' for n in names) + "</body>")
        for steps in ([Step("i", "", frozenset([n])) for n in names], [Step("i", n) for n in names]):
            learned = ", ".join(step.css() for step in steps)  # as the learner writes them (CSS.escape)
            check_lexbor_reads(learned)
            assert [node.attributes["id"] for node in page.css(lexbor_selector(learned))] == names
            # the matcher reads the same names in the selectors, and in the collector's paths
            assert [selector.compounds[0] for selector in parse_selector(learned)] == steps
            path = [Step("i", n, frozenset([n])) for n in names]
            assert parse_path(path_string(path)) == tuple(path)


def test_parse_path_fast_and_slow_agree():
    plain = "body > div#main.wrap.x > article.story > p"
    assert parse_path(plain) == parse_selector(plain)[0].compounds
    escaped = r"body > div.col-md\:6 > p.\32 col"
    assert parse_path(escaped)[1].classes == frozenset({"col-md:6"})
    assert path_string(parse_path(escaped)) == escaped
    with pytest.raises(SelectorError):
        parse_path("body div p")  # descendant combinators are not a path


def test_container_semantics():
    path = parse_path("body > div#main.wrap > article.story > div.body > p")
    assert selects_path("article.story", path)
    assert selects_path("div.wrap p", path)
    assert selects_path("#main > article", path)
    assert not selects_path("div.wrap > p", path)
    assert not selects_path("aside", path)
    assert matches_path("article > div p", path)
    assert not matches_path("article > p", path)


TAGS = ["div", "p", "section", "span", "ul", "li"]
CLASSES = ["a", "b", "c"]
IDS = ["x", "y", ""]


def _random_tree(rng: random.Random, depth: int = 0) -> str:
    tag = rng.choice(TAGS)
    classes = " ".join(rng.sample(CLASSES, rng.randint(0, 2)))
    ident = rng.choice(IDS) if depth else ""
    attrs = (f' class="{classes}"' if classes else "") + (f' id="{ident}"' if ident else "")
    children = "".join(_random_tree(rng, depth + 1) for _ in range(rng.randint(0, 3 if depth < 4 else 0)))
    return f"<{tag}{attrs}>t{children}</{tag}>"


def _random_selector(rng: random.Random) -> str:
    parts = []
    for number in range(rng.randint(1, 3)):
        compound = rng.choice(["", *TAGS]) + (f"#{rng.choice(IDS[:2])}" if rng.random() < 0.2 else "")
        compound += "".join(f".{c}" for c in rng.sample(CLASSES, rng.randint(0, 2)))
        parts.append(compound or "*")
        if number < 2:
            parts.append(rng.choice([" ", " > "]))
    return "".join(parts).strip().rstrip(">").strip()


def test_matching_agrees_with_lxml_cssselect():
    rng = random.Random(3)
    for _ in range(40):
        doc = lxml.html.document_fromstring(f"<html><body>{_random_tree(rng)}{_random_tree(rng)}</body></html>")
        elements = [e for e in doc.find("body").iter() if e.tag != "body"]
        paths = {}
        for element in elements:
            steps = [Step("body")]
            for node in list(element.iterancestors())[::-1][2:] + [element]:
                steps.append(Step(node.tag, node.get("id") or "", frozenset((node.get("class") or "").split())))
            paths[element] = tuple(steps)
        for _ in range(15):
            selector = _random_selector(rng)
            expected = set(doc.cssselect(selector))
            for element, path in paths.items():
                assert matches_path(selector, path) == (element in expected), (selector, path_string(path))
