"""Rule sets: validation, and apply_rules on collected blocks and on HTML (the same answer both ways)."""
from __future__ import annotations

import copy

import pytest

from learn_support import static_page
from sitewise.learn import selectors
from sitewise.learn.rules import RulesError, apply_rules, count_words, select_blocks, validate_rules
from sitewise.learn.selectors import Step

HTML = """<!DOCTYPE html><html><head><title>Cranes return</title>
<style>.hidden { display: none }</style></head><body>
<header class="top"><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>
<div id="page"><article class="story">
  <h1 class="headline">Cranes return to the harbour</h1>
  <div class="body">
    <p>The three cranes of the old harbour lifted their first containers on Monday.</p>
    <div class="ad">Advertisement: buy a boat</div>
    <p>Dock workers cheered<br>as the cranes turned.</p>
    <blockquote><p>We waited a long time for this day.</p></blockquote>
    <script>var tracking = "not text";</script>
    <ul><li>First item of a list</li><li>Second item</li></ul>
  </div>
</article>
<aside class="related"><p>Ferry timetable changes this winter</p></aside></div>
<footer><p>Copyright the Harbour Times</p></footer></body></html>"""

RULES = {
    "format": 1,
    "site": "harbour.test",
    "include": ["div.body", "h1.headline"],
    "exclude": ["div.ad"],
    "templates": [
        {"name": "gallery", "match": ["div.gallery"], "include": ["div.gallery"], "exclude": [], "words": [1, 100]},
        {"name": "story", "match": ["article.story"], "include": ["div.body", "h1.headline"], "exclude": ["div.ad"],
         "words": [10, 200]},
    ],
}


@pytest.fixture
def page():
    return static_page("http://harbour.test/a", HTML)


def test_validate_accepts_a_good_rule_set_and_names_bad_fields():
    assert validate_rules(copy.deepcopy(RULES))["site"] == "harbour.test"
    cases = [
        (lambda r: r.update(format=9), "format"),
        (lambda r: r.pop("site"), "site"),
        (lambda r: r.update(templates={}), "templates"),
        (lambda r: r["templates"][1].update(include=[]), "templates[1].include"),
        (lambda r: r["templates"][1].update(include=["div:hover"]), "templates[1].include[0]"),
        (lambda r: r["templates"][0].update(words=[5, 1]), "templates[0].words"),
        (lambda r: r["templates"][0].pop("name"), "templates[0].name"),
        (lambda r: r["templates"][1].update(name="gallery"), "templates[1].name"),
        (lambda r: r.update(confidence=2), "confidence"),
        (lambda r: r.update(exclude="div.ad"), "exclude"),
        # JSON's true and 1.0 are no whole numbers (Python counts a bool as an int)
        (lambda r: r["templates"][0].update(words=[True, 100]), "templates[0].words"),
        (lambda r: r["templates"][0].update(words=[1.0, 100]), "templates[0].words"),
        (lambda r: r.update(format=True), "format"),
        (lambda r: r.update(format=1.0), "format"),
        (lambda r: r.update(confidence=True), "confidence"),
        (lambda r: r.update(pages_learned=True), "pages_learned"),
        (lambda r: r.update(unlearned_pages="2"), "unlearned_pages"),
        (lambda r: r.update(version="3"), "version"),
        (lambda r: r.update(version=0), "version"),
        (lambda r: r["templates"][1].update(pages=-1), "templates[1].pages"),
        (lambda r: r["templates"][1].update(recurring="tweet"), "templates[1].recurring"),
        (lambda r: r["templates"][1].update(recurring=["tweet", ""]), "templates[1].recurring"),
        (lambda r: r["templates"][1].update(recurring=[3]), "templates[1].recurring"),
    ]
    for change, field in cases:
        rules = copy.deepcopy(RULES)
        change(rules)
        with pytest.raises(RulesError) as error:
            validate_rules(rules)
        assert error.value.field == field


@pytest.fixture
def spelling_as_written(monkeypatch):
    """Names handed to lexbor as they are written (as before every non-ASCII character was escaped)."""
    monkeypatch.setattr(selectors, "lexbor_escape", selectors.css_escape)
    selectors.lexbor_selector.cache_clear()
    selectors.check_lexbor_reads.cache_clear()
    yield
    selectors.lexbor_selector.cache_clear()
    selectors.check_lexbor_reads.cache_clear()


def test_validate_refuses_a_selector_lexbor_cannot_parse(spelling_as_written):
    rules = copy.deepcopy(RULES)
    rules["templates"][1]["include"] = ["div.body", "div.story\u2014body"]
    with pytest.raises(RulesError, match="cannot parse") as error:
        validate_rules(rules)
    assert error.value.field == "templates[1].include[1]"


#: Class and id names with characters lexbor's selector parser refuses written as they are (an em dash, ©,
#: ¶, a soft hyphen, a zero-width space, no-break and em spaces, one at a name's end, private use), and
#: others it reads (ö, 日本, an emoji); "main " ends in an (escaped) space.
ODD_NAMES = ["story\u2014body", "\u00a9notice", "para\u00b6", "soft\u00adhyphen", "zero\u200bwidth", "no\u00a0break",
             "em\u2003", "\ue000private", "schön", "日本", "story\U0001f600"]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_names_with_any_character_select_the_same_on_html_and_blocks(name):
    html = (f'<html><head><title>Cranes</title></head><body><article id="main "><h1 class="{name}">Cranes return</h1>'
            f'<div class="{name} body"><p>The three cranes of the old harbour lifted their first containers on Monday.</p>'
            f'<p id="{name}">Advertisement: buy a boat</p><p>Dock workers cheered as the cranes turned.</p></div>'
            '</article><footer><p>Copyright the Harbour Times</p></footer></body></html>')
    rules = {"format": 1, "site": "harbour.test", "templates": [{
        "name": "story",
        "match": [Step("article", "main ").css()],  # as the learner writes them: css_escape
        "include": [Step("div", "", frozenset([name])).css()],
        "exclude": [Step("p", name).css()],
        "heading": [f"article > {Step('h1', '', frozenset([name])).css()}"],
        "words": [5, 100],
    }]}
    validate_rules(rules)
    from_html = apply_rules(rules, html=html)
    from_blocks = apply_rules(rules, page=static_page("http://harbour.test/a", html))
    for found in (from_html, from_blocks):
        assert found.confident and found.template == "story"
        assert found.text.splitlines() == [
            "Cranes return",
            "The three cranes of the old harbour lifted their first containers on Monday.",
            "Dock workers cheered as the cranes turned.",
        ]


def test_apply_to_blocks_picks_the_matching_template_and_selects_in_order(page):
    found = apply_rules(RULES, page=page)
    assert found.template == "story" and found.confident and found.reason == "ok"
    assert found.text.splitlines() == [
        "Cranes return to the harbour",
        "The three cranes of the old harbour lifted their first containers on Monday.",
        "Dock workers cheered as the cranes turned.",
        "We waited a long time for this day.",
        "First item of a list",
        "Second item",
    ]
    assert [b.tag for b in found.blocks] == ["h1", "p", "p", "p", "li", "li"]


def test_apply_to_html_gives_the_same_words(page):
    from_blocks = apply_rules(RULES, page=page)
    from_html = apply_rules(RULES, html=HTML)
    assert from_html.template == "story" and from_html.confident
    assert count_words(from_html.text) == count_words(from_blocks.text)
    assert "tracking" not in from_html.text and "Advertisement" not in from_html.text
    # <br> starts a new line; the two included elements come out in document order.
    assert from_html.text.splitlines()[:4] == [
        "Cranes return to the harbour",
        "The three cranes of the old harbour lifted their first containers on Monday.",
        "Dock workers cheered",
        "as the cranes turned.",
    ]
    assert [e.tag for e in from_html.elements] == ["h1", "div"]


def test_an_article_in_a_declarative_shadow_root_is_read_as_rendered(page):
    # The collector writes an open shadow root as its host's <template shadowrootmode>, and gives its blocks
    # paths with the host as their parent: the HTML path reads the template's content in the host too.
    host = '<div id="page"><template shadowrootmode="open">'
    shadowed = HTML.replace('<div id="page">', host).replace("</aside></div>", "</aside></template></div>")
    assert host in shadowed and "</template></div>" in shadowed
    found = apply_rules(RULES, html=shadowed)
    assert found.confident and found.text == apply_rules(RULES, html=HTML).text
    assert count_words(found.text) == count_words(apply_rules(RULES, page=page).text)


@pytest.mark.parametrize("selector", ["html article.story", "html > body > div#page > article.story"])
def test_a_selector_from_the_root_element_selects_on_blocks_as_on_html(page, selector):
    # A block's path starts at body; html is its parent on the page and in the browser.
    rules = copy.deepcopy(RULES)
    rules["templates"][1].update(match=[selector], include=[selector])
    from_blocks, from_html = apply_rules(rules, page=page), apply_rules(rules, html=HTML)
    assert from_blocks.template == from_html.template == "story" and from_blocks.confident
    assert count_words(from_blocks.text) == count_words(from_html.text)


def test_nested_includes_count_text_once(page):
    rules = copy.deepcopy(RULES)
    rules["templates"][1]["include"] = ["article.story", "div.body p", "blockquote"]
    for found in (apply_rules(rules, page=page), apply_rules(rules, html=HTML)):
        assert found.text.count("We waited a long time") == 1


def test_not_confident_when_no_template_matches_or_length_is_unusual(page):
    rules = copy.deepcopy(RULES)
    rules["templates"] = [rules["templates"][0]]
    found = apply_rules(rules, page=page)
    assert not found.confident and found.reason == "no template matched" and found.text == ""
    rules = copy.deepcopy(RULES)
    rules["templates"][1]["words"] = [500, 1000]
    found = apply_rules(rules, page=page)
    assert not found.confident and found.reason.startswith("too short") and found.text
    rules["templates"][1]["words"] = [1, 5]
    assert apply_rules(rules, html=HTML).reason.startswith("too long")
    rules["templates"][1]["include"] = ["div.nothing-here"]
    rules["templates"][1]["words"] = [1, 500]
    assert apply_rules(rules, page=page).reason == "nothing selected"


def test_exclude_wins_over_include_at_any_depth(page):
    chosen = select_blocks(page.blocks, ["div#page"], ["aside", "div.ad", "blockquote"])
    texts = [page.blocks[i].text for i in chosen]
    assert "Ferry timetable changes this winter" not in texts
    assert "We waited a long time for this day." not in texts
    assert "Cranes return to the harbour" in texts


def test_apply_needs_something_to_apply_to():
    with pytest.raises(ValueError):
        apply_rules(RULES)


def test_a_malformed_block_selector_matches_nothing(page):
    page.blocks[3].selector = "body div[["
    found = apply_rules(RULES, page=page)
    assert found.template == "story"


# -- the HTML path, line by line ---------------------------------------------------------------------------

#: One page with every case the HTML path handles: text that never counts (script, style, noscript,
#: template, an iframe's raw text, a video's fallback, a select's options, noembed's and noframes' raw text,
#: hidden and hidden inside hidden), inline elements merged into their line, <br> lines,
#: whitespace, excludes, a heading inside an exclude, captions by tag and by class or id in any case
#: (and one too deep to be one), repeats short and long, tables, lists, a second include element.
EVERY_CASE_HTML = """<!DOCTYPE html><html><head><title>T</title><style>p{}</style><script>var a=1;</script></head><body>
<div id="top"><h1 class="Headline">The river festival returns</h1><p class="byline">By Ada Brook<br>May 4, 2013</p></div>
<article class="story">
 <noscript><p>Enable scripts to read this story in full.</p></noscript>
 <div hidden><p>The hidden teaser copy of the story, never shown.</p><div hidden><p>nested hidden</p></div></div>
 <template><p>template text never counts</p></template>
 <iframe src="/ad"><script>document.write('<SCR' + 'IPT src=/ad.js>')</script></iframe>
 <video src="v.mp4"><p>Your browser does not support the video tag.</p></video>
 <select><option>Choose a section</option></select>
 <noembed><p>Your browser cannot show this <i>embed</i>.</p></noembed><noframes><p>No frames.</p></noframes>
 <p>Record crowds came to the <a href="/x">river festival</a> on Saturday, <b>despite</b> the rain.</p>
 <div class="share-bar"><a>Facebook</a> <a>Twitter</a><p class="byline">Updated May 5, 2013</p></div>
 <figure><img src="a.jpg"><figcaption>Boats on the river at dawn. <span>Photo: Ada Brook</span></figcaption></figure>
 <div class="PhotoCREDIT"><span>Credit line in capitals</span></div>
 <div id="main-Caption-wrap"><div><p>A caption two levels down.</p></div></div>
 <div><div><div class="caption"><div><div><p>Too deep to be a caption here.</p></div></div></div></div></div>
 <p>Organisers said   the
 festival drew more than ten thousand people.<br>A second line after a break.<br><br></p>
 <ul><li>First item of a list</li><li>Second <i>item</i> of a list</li></ul>
 <p>Record crowds came to the river festival on Saturday, despite the rain.</p>
 <p>Q:</p><p>Q:</p>
 <script>document.write("no")</script><style>.x{}</style>
 <div class="ad">Advertisement <div>Buy things now please today</div></div>
 <table><tr><td>cell one</td><td>cell <em>two</em></td></tr></table>
 <p>The end of the story, told in one last long line of text.</p>
</article>
<aside class="story"><p>Second include element: a related story teaser with words.</p></aside>
</body></html>"""
EVERY_CASE_TEMPLATES = [
    {"name": "none", "match": ["div.nowhere"], "include": ["div.nowhere"], "words": [1, 1000]},
    {"name": "t1", "match": ["article.story"], "include": [".story"], "exclude": ["div.share-bar", "div.ad"],
     "heading": ["h1", "p.byline"], "words": [1, 1000]},
]


def test_the_html_path_gives_exactly_the_lines_of_the_definition():
    # The expected values are what the implementation before the fast path gave (e715af9): making it
    # faster must not change a character.
    found = apply_rules({"templates": EVERY_CASE_TEMPLATES}, html=EVERY_CASE_HTML)
    assert (found.template, found.confident, found.reason, len(found.elements)) == ("t1", True, "ok", 2)
    assert found.text.split("\n") == [
        "The river festival returns",
        "By Ada Brook",
        "May 4, 2013",
        "Updated May 5, 2013",
        "Record crowds came to the river festival on Saturday, despite the rain.",
        "Boats on the river at dawn. Photo: Ada Brook",
        "Credit line in capitals",
        "A caption two levels down.",
        "Too deep to be a caption here.",
        "Organisers said the festival drew more than ten thousand people.",
        "A second line after a break.",
        "First item of a list",
        "Second item of a list",
        "Q:",
        "Q:",
        "cell one",
        "cell two",
        "The end of the story, told in one last long line of text.",
        "Second include element: a related story teaser with words.",
    ]
    # The body: without the heading's four lines and the three captions (a figcaption, a credit, and a
    # caption two levels up; the one five levels up is too far to count).
    assert found.body.split("\n") == found.text.split("\n")[4:5] + found.text.split("\n")[8:]
    plain = apply_rules({"templates": [dict(EVERY_CASE_TEMPLATES[1], heading=[], words=[1, 5])]}, html=EVERY_CASE_HTML)
    assert (plain.confident, plain.reason) == (False, "too long (91 words, expected 1-5)")
    assert plain.text.split("\n") == found.text.split("\n")[4:]  # the same body, without the heading


def test_a_heading_without_a_body_is_not_an_article():
    # A video page of the site: its headline is where the rules look for one, its body is not.
    html = "<body><article class='story'><h1>The river festival returns</h1><div class='player'>Play</div></article></body>"
    template = {"name": "t1", "match": ["article.story"], "include": ["div.story-body"], "heading": ["h1"], "words": [1, 100]}
    found = apply_rules({"templates": [template]}, html=html)
    assert found.text == "The river festival returns"
    assert (found.confident, found.reason) == (False, "no body selected (only the heading)")


@pytest.mark.parametrize(
    "text, words, verdict",
    [
        ("one two three", [3, 3], (True, "ok")),
        ("one two", [3, 9], (False, "too short (2 words, expected 3-9)")),
        ("a-b-c-d", [1, 4], (True, "ok")),  # 7 characters could be more words than 4: counted, and they are not
        ("a-b-c-d-e", [1, 4], (False, "too long (5 words, expected 1-4)")),
        ("supercalifragilistic", [1, 1], (True, "ok")),
    ],
)
def test_the_words_range_is_judged_by_exact_counts(text, words, verdict):
    template = {"name": "t1", "match": ["main"], "include": ["main"], "words": words}
    found = apply_rules({"templates": [template]}, html=f"<body><main><p>{text}</p></main></body>")
    assert (found.confident, found.reason) == verdict


#: Never-text elements where the rules' selectors meet them: a match selector whose only text is a script's,
#: another's element inside a <noscript>; include, exclude and heading selectors that select never-text
#: elements or elements inside one; never-text inside the body (nested, between a block's texts, last in
#: it, holding a <br>) and inside a heading outside the body.
NEVER_TEXT_HTML = """<!DOCTYPE html><html><head><script>var a = "head";</script></head><body>
<div class="promo"><script>var promo = "only a script's text";</script></div>
<noscript><div class="teaser"><p>Teaser inside noscript.</p></div></noscript>
<div id="top"><h1>The lock gates reopen <span hidden>(draft)</span></h1><p class="dateline" hidden>Hidden date</p></div>
<article class="story">
 <p>Boats passed the <b>lock</b> <span hidden>secret <i>nested</i><br><span hidden>deeper</span></span>again today.</p>
 <aside class="story" hidden><p>A hidden include element.</p></aside>
 <div hidden><div class="story"><p>An include element inside a hidden one.</p></div><p class="note">Hidden note.</p></div>
 <p class="note">A visible note to exclude.</p>
 <p>First line<br><noscript>not a break</noscript>second line<script>var last = 1;</script></p>
</article>
<video class="story"><p>No video support.</p></video>
</body></html>"""


@pytest.mark.parametrize("match, expected", [
    (["div.promo"], None),  # its only text is a script's
    (["div.teaser"], None),  # inside a <noscript>
    (["article.story", "div.promo"], None),
    (["article.story"], "t1"),
])
def test_a_match_selector_needs_text_outside_never_text_elements(match, expected):
    template = {"name": "t1", "match": match, "include": [".story"], "words": [1, 1000]}
    assert apply_rules({"templates": [template]}, html=NEVER_TEXT_HTML).template == expected


def test_never_text_elements_give_no_text_wherever_the_selectors_meet_them():
    template = {"name": "t1", "match": ["article.story"], "include": [".story", "div.teaser"],
                "exclude": ["p.note", "script"], "heading": ["h1", "p.dateline"], "words": [1, 1000]}
    found = apply_rules({"templates": [template]}, html=NEVER_TEXT_HTML)
    assert found.text.split("\n") == [
        "The lock gates reopen",
        "Boats passed the lock again today.",
        "First line",
        "second line",
    ]
    assert found.body == "\n".join(found.text.split("\n")[1:])
    # The elements are given as rendered: without their never-text elements (nor their excludes).
    assert [element.tag for element in found.elements] == ["article"]
    assert "hidden" not in found.elements[0].html and "<script" not in found.elements[0].html
    assert "note" not in found.elements[0].html


def test_a_formulas_annotations_give_no_text():
    html = ("<html><body><article class='story'><p>Euler wrote <math><semantics><mi>e</mi>"
            "<annotation encoding='application/x-tex'>{\\displaystyle e}</annotation></semantics></math> first.</p>"
            "</article></body></html>")
    template = {"name": "t1", "match": ["article.story"], "include": [".story"], "words": [1, 1000]}
    assert apply_rules({"templates": [template]}, html=html).text == "Euler wrote e first."


def test_tags_told_by_number_are_tags_lexbor_numbers_once_for_all():
    # a custom element's number is made per page: another page's <my-widget> could carry it
    from sitewise.learn.rules import _tag_ids

    assert _tag_ids(frozenset({"div", "br"}))
    with pytest.raises(ValueError, match="my-widget"):
        _tag_ids(frozenset({"div", "my-widget"}))


def test_a_templates_recurring_lines_leave_the_body_but_not_its_heading_or_section_heads(page):
    html = HTML.replace("<p>Dock workers", "<p><a href='/share'>Share  this</a></p><h3>Share this</h3><p>Dock workers")
    rules = copy.deepcopy(RULES)
    story = rules["templates"][1]
    story.update(heading=["h1.headline"], recurring=["share this", "cranes return to the harbour"])
    for found in (apply_rules(validate_rules(rules), html=html), apply_rules(rules, page=static_page("http://harbour.test/a", html))):
        lines = found.text.split("\n")
        # the link line left (case and spacing aside, it is a recurring one); the section head of its words stayed
        assert lines.count("Share this") == 1 and lines[lines.index("Share this") + 1].startswith("Dock workers")
        assert lines[0] == "Cranes return to the harbour"  # a heading line stays whatever it repeats
        assert found.confident and "Dock workers cheered" in found.body

