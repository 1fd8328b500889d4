"""The article's heading (headline, byline, date line, standfirst): learned apart from the body, applied
the same way to HTML and to collected blocks, and told apart from the body in every extraction."""
from __future__ import annotations

import pytest

from sitewise.extractors import Document, check_part
from sitewise.learn.extractor import RulesExtractor
from sitewise.learn.learner import SiteLearner
from sitewise.learn.rules import RulesError, apply_rules, validate_rules

from learn_support import static_page

PARAGRAPHS = [
    ["The harbour cranes came back on Monday after the long winter repairs were finished at last.",
     "Dock workers said the new cranes lift twice as much cargo as the old ones ever could manage.",
     "The port authority expects the first container ships to berth here before the end of the month."],
    ["The river bridge reopened to cyclists after engineers replaced the rusted railings this spring.",
     "Commuters had crossed by ferry for six weeks, and the council paid for the extra sailings.",
     "A second phase will widen the footpath on the east side before the autumn term begins."],
    ["The old library will stay open late on Thursdays, the council decided after a long debate.",
     "Readers had signed a petition asking for evening hours so that workers could borrow books.",
     "Volunteers will staff the reading room, and the archive will open one evening a month."],
    ["Farmers in the valley started the wheat harvest early because of the dry and warm summer.",
     "Prices at the market fell for the first time in three years as the grain came in quickly.",
     "The mill on the river will run two shifts until the last of the harvest is brought in."],
]
TITLES = ["Harbour cranes return after winter", "River bridge reopens to cyclists",
          "Library stays open late on Thursdays", "Valley harvest starts early"]
AUTHORS = ["Ada Brook", "Lena Ortiz", "Sam Okafor", "Mira Castell"]


def story(number: int, author: str | None = None, player: bool = False) -> tuple[str, str]:
    """A story page: the headline and byline in a header *outside* the body's container, a share bar
    (and, with ``player``, an audio player) and a photo with its caption between them and the body,
    and comments after the article."""
    author = author or AUTHORS[number]
    audio = f"<div class='audio-player'><p>Listen: {TITLES[number]}</p></div>" if player else ""
    paragraphs = "".join(f"<p>{p}</p>" for p in PARAGRAPHS[number])
    html = (
        f"<html><head><title>{TITLES[number]} | Gazette</title></head><body>"
        "<ul class='menu'><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li></ul>"
        f"<div class='page'><header class='story-head'><h1>{TITLES[number]}</h1>"
        f"<p class='byline'>By {author}, {number + 3} March 2026</p>"
        f"<p class='tools'>Share this story with your friends</p>{audio}"
        f"<figure><figcaption class='caption'>Photo {number}: the scene on the day</figcaption></figure></header>"
        f"<div class='story-body'>{paragraphs}</div>"
        "<div class='comments'><p>Great news, we waited so long for this to happen.</p></div></div>"
        "</body></html>"
    )
    return f"http://gazette.test/news/{number}", html


@pytest.fixture(scope="module")
def learner() -> SiteLearner:
    return SiteLearner().fit([static_page(*story(n)) for n in range(3)])


def test_the_byline_is_heading_and_recurring_tools_and_captions_are_not(learner):
    template = learner.rules_["templates"][0]
    assert template["heading"], template
    found = learner.predict(static_page(*story(3)))
    assert found.confident
    lines = found.text.splitlines()
    assert lines[:2] == [TITLES[3], "By Mira Castell, 6 March 2026"]
    assert lines[2:] == PARAGRAPHS[3]
    assert found.body.splitlines() == PARAGRAPHS[3]
    # The body's rules stay on the body's container: the header is reached by the heading's own rules.
    assert all("header" not in selector for selector in template["include"])


def test_a_headline_set_in_a_styled_div_is_heading_when_it_repeats_the_title():
    """Older layouts set the headline in a ``div``: it is the headline when it nearly repeats the title."""
    def old_layout(number: int) -> tuple[str, str]:
        url, html = story(number)
        return url, html.replace(f"<h1>{TITLES[number]}</h1>", f"<div class='sh'>{TITLES[number]}</div>")

    learner = SiteLearner().fit([static_page(*old_layout(n)) for n in range(3)])
    assert learner.rules_["templates"][0]["heading"]
    lines = learner.predict(static_page(*old_layout(3))).text.splitlines()
    assert lines[:2] == [TITLES[3], "By Mira Castell, 6 March 2026"] and lines[2:] == PARAGRAPHS[3]


def test_a_one_author_blogs_date_line_is_heading_though_its_words_recur():
    """Digits aside, "By Ada Brook, 3 March 2026" reads the same on every page of a one-author blog:
    recurring text, yet each page's own date line (its year says so)."""
    learner = SiteLearner().fit([static_page(*story(n, "Ada Brook")) for n in range(3)])
    found = learner.predict(static_page(*story(3, "Ada Brook")))
    assert found.text.splitlines()[:2] == [TITLES[3], "By Ada Brook, 6 March 2026"]


def test_a_media_player_between_headline_and_body_is_not_heading():
    """A player's label (here unique per page, so no repeat filter catches it) is not a byline or a
    standfirst: its element is named like a player."""
    learner = SiteLearner().fit([static_page(*story(n, player=True)) for n in range(3)])
    found = learner.predict(static_page(*story(3, player=True)))
    body = set(found.body.splitlines())
    assert [line for line in found.text.splitlines() if line not in body] == [TITLES[3], "By Mira Castell, 6 March 2026"]


def test_html_and_blocks_give_the_same_article(learner):
    url, html = story(3)
    from_blocks = learner.predict(static_page(url, html))
    from_html = apply_rules(learner.rules_, html=html)
    assert (from_html.text, from_html.body) == (from_blocks.text, from_blocks.body)


RULES = {
    "site": "gazette.test",
    "templates": [{"name": "t1", "match": ["article.story"], "include": ["article.story"],
                   "exclude": ["header.meta", "div.share"], "heading": ["header.meta p.dateline", "h1"],
                   "words": [1, 1000]}],
}
PAGE = (
    "<html><body><h1>Harbour cranes return</h1><p>Elsewhere on the site</p>"
    "<article class='story'><header class='meta'><p class='kicker'>City</p>"
    "<p class='dateline'>14 August 2026, 09:30</p></header>"
    "<p>The harbour cranes came back on Monday.</p><div class='share'>Share</div>"
    "<p>Dock workers cheered as the cranes turned.</p></article></body></html>"
)


def test_a_heading_element_inside_a_body_exclude_is_given_in_place():
    found = apply_rules(validate_rules(RULES), html=PAGE)
    assert found.text.splitlines() == [
        "Harbour cranes return", "14 August 2026, 09:30",
        "The harbour cranes came back on Monday.", "Dock workers cheered as the cranes turned.",
    ]
    assert found.body.splitlines() == found.text.splitlines()[2:]


def test_a_template_without_heading_has_the_body_as_its_text():
    rules = {**RULES, "templates": [{**RULES["templates"][0], "heading": []}]}
    found = apply_rules(rules, html=PAGE)
    assert found.text == found.body
    assert found.text.splitlines() == ["The harbour cranes came back on Monday.", "Dock workers cheered as the cranes turned."]


def test_heading_selectors_are_validated():
    bad = {**RULES, "templates": [{**RULES["templates"][0], "heading": "h1"}]}
    with pytest.raises(RulesError) as error:
        validate_rules(bad)
    assert error.value.field == "templates[0].heading"
    broken = {**RULES, "templates": [{**RULES["templates"][0], "heading": ["h1 >"]}]}
    with pytest.raises(RulesError, match=r"templates\[0\]\.heading\[0\]"):
        validate_rules(broken)


def test_the_rules_extractor_scores_the_body_alone_on_request():
    documents = [Document(id=str(n), url=story(n)[0], html=story(n)[1], page=static_page(*story(n))) for n in range(4)]
    article = RulesExtractor().fit(documents[:3]).extract(documents[3])
    body = RulesExtractor(part="body").fit(documents[:3]).extract(documents[3])
    assert article.splitlines()[:2] == [TITLES[3], "By Mira Castell, 6 March 2026"]
    assert body.splitlines() == PARAGRAPHS[3]
    with pytest.raises(ValueError, match="part must be one of article, body"):
        check_part("headline")


CAPTIONED = (
    "<html><body><article class='story'><h1>Harbour cranes return</h1>"
    "<p>The harbour cranes came back on Monday.</p>"
    "<figure><img src='cranes.jpg'><figcaption>The new cranes at dawn</figcaption></figure>"
    "<div class='image'><div class='captionwrap'><p>Dock workers at the gate</p></div>"
    "<p class='image-credit'>Ada Brook/Gazette</p></div>"
    "<p>Dock workers cheered as the cranes turned.</p></article></body></html>"
)


@pytest.mark.parametrize("heading", [[], ["h1"]])
def test_media_captions_and_credits_are_article_text_but_not_body(heading):
    rules = validate_rules({"site": "gazette.test", "templates": [
        {"name": "t1", "match": ["article.story"], "include": ["article.story"], "heading": heading, "words": [1, 1000]},
    ]})
    from_html = apply_rules(rules, html=CAPTIONED)
    from_blocks = apply_rules(rules, page=static_page("http://gazette.test/news/9", CAPTIONED))
    assert from_html.text.splitlines() == [
        "Harbour cranes return", "The harbour cranes came back on Monday.", "The new cranes at dawn",
        "Dock workers at the gate", "Ada Brook/Gazette", "Dock workers cheered as the cranes turned.",
    ]
    body = ["The harbour cranes came back on Monday.", "Dock workers cheered as the cranes turned."]
    assert from_html.body.splitlines() == (body if heading else ["Harbour cranes return", *body])
    assert (from_blocks.text, from_blocks.body) == (from_html.text, from_html.body)


def test_a_body_named_like_a_caption_is_still_the_body():
    """Captions are a small part of a body: a container whose name only contains the word is not one."""
    page = ("<html><body><article class='credit-card-review'><h1>Cards compared</h1>"
            "<p>Three cards give cash back on groceries this year.</p>"
            "<p>The second one has no annual fee at all.</p></article></body></html>")
    rules = validate_rules({"site": "cards.test", "templates": [
        {"name": "t1", "match": [], "include": ["article"], "words": [1, 1000]},
    ]})
    for found in (apply_rules(rules, html=page), apply_rules(rules, page=static_page("http://cards.test/1", page))):
        assert found.body == found.text and len(found.text.splitlines()) == 3
