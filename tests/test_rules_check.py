"""A template learned from few pages answers only where the fallback roughly agrees (sitewise.pipeline's
MIN_TRUSTED_TEMPLATE_PAGES): a page kind seen once or twice may get a template that fits other kinds'
markup and selects the wrong region. Raw HTML only: the rules run on it with selectolax, the fallback with
the shipped block model."""
import json
import re
from pathlib import Path

import pytest

import sitewise
from sitewise.pipeline import (
    MIN_TRUSTED_TEMPLATE_PAGES,
    RULES_OVERRULED,
    SitewiseExtractor,
    find_article,
    rule_label,
    template_pages,
)

URL = "http://gazette.test/news/north-pier-rebuilt"
PARAGRAPHS = [
    "The harbour board voted on Tuesday to rebuild the old north pier, which storms damaged twice in the last "
    "decade, and to open it again to fishing boats by the end of next summer.",
    "Engineers told the board that the new pier would stand on steel piles driven into the rock, not on the "
    "timber cribs that rotted under the old one, and that it should last for sixty years.",
    "Fishermen who crowded the meeting said the closure had cost them a long drive to the southern harbour every "
    "morning, and several asked whether the work could start before the winter.",
    "The board's chair said the money, most of it from a regional grant, was already set aside, and that the "
    "first contracts would be signed within weeks once the last permits arrive.",
]
HTML = (
    "<html><head><title>Harbour board votes to rebuild north pier</title></head><body>"
    "<nav><ul><li><a href='/'>Home</a></li><li><a href='/news'>News</a></li><li><a href='/sport'>Sport</a></li></ul></nav>"
    "<article><h1>Harbour board votes to rebuild north pier</h1>"
    + "".join(f"<p>{paragraph}</p>" for paragraph in PARAGRAPHS)
    + "</article><footer><p>Contact the newsroom: tips at gazette dot test, or call the desk any day of the week "
    "between nine and five.</p><ul><li><a href='/about'>About us</a></li><li><a href='/jobs'>Jobs</a></li>"
    "<li><a href='/privacy'>Privacy policy and cookie settings</a></li></ul></footer></body></html>"
)


def rule_set(selector: str, pages: int | None) -> dict:
    """Rules of gazette.test with one template selecting ``selector``, learned from ``pages`` pages (None:
    written by hand, no count)."""
    template = {"name": "t1", "match": [selector], "include": [selector], "exclude": [], "words": [1, 5000],
                "confidence": 1.0}
    if pages is not None:
        template["pages"] = pages
    return {"format": 1, "site": "gazette.test", "pages_learned": 5, "confidence": 1.0, "include": [selector],
            "exclude": [], "templates": [template]}


@pytest.mark.parametrize("pages", range(1, MIN_TRUSTED_TEMPLATE_PAGES))
def test_a_template_of_few_pages_that_reads_another_region_is_overruled(pages):
    article = find_article(None, HTML, rule_set("footer", pages), url=URL)
    assert article.method == "mss"
    assert article.fallback_reason.startswith(RULES_OVERRULED)
    assert f"learned from {pages} page" in article.fallback_reason
    assert PARAGRAPHS[1] in article.text and "newsroom" not in article.text


def test_a_template_of_enough_pages_stands_where_the_fallback_disagrees():
    article = find_article(None, HTML, rule_set("footer", MIN_TRUSTED_TEMPLATE_PAGES), url=URL)
    assert article.method == "rules" and "newsroom" in article.text


def test_a_template_of_few_pages_that_agrees_with_the_fallback_answers():
    article = find_article(None, HTML, rule_set("article", 1), url=URL)
    assert article.method == "rules" and article.template == "t1"
    assert all(paragraph in article.text for paragraph in PARAGRAPHS)


def test_a_hand_written_template_without_a_page_count_is_trusted():
    rules = rule_set("footer", None)
    assert template_pages(rules, "t1") is None
    assert find_article(None, HTML, rules, url=URL).method == "rules"


@pytest.mark.parametrize("pages", [True, 1.0, "1"])
def test_a_page_count_that_is_no_integer_counts_as_none(pages):
    rules = rule_set("footer", 1)
    rules["templates"][0]["pages"] = pages
    assert template_pages(rules, "t1") is None
    assert template_pages(rules, "t9") is None  # no such template


def test_the_library_and_the_extractor_answer_alike():
    answer = json.loads(sitewise.extract(HTML, URL, rules=rule_set("footer", 1), output="json"))
    assert answer["method"] == "mss" and answer["fallback_reason"].startswith(RULES_OVERRULED)
    document = type("Document", (), {"html": HTML, "page": None, "url": URL, "id": "pier"})()
    text, info = SitewiseExtractor.from_rules(rule_set("footer", 1)).extract_detailed(document)
    assert info["method"] == "mss" and info["why"].startswith(RULES_OVERRULED) and PARAGRAPHS[0] in text


def test_self_training_learns_only_from_templates_trusted_on_their_own():
    """A template of few pages is trusted only where the fallback agrees: its labels would teach the
    fallback what it reads already, or what it is right to doubt."""
    assert rule_label(rule_set("article", 1), None, HTML) is None
    assert PARAGRAPHS[2] in rule_label(rule_set("article", MIN_TRUSTED_TEMPLATE_PAGES), None, HTML)
    assert PARAGRAPHS[2] in rule_label(rule_set("article", None), None, HTML)


def test_the_bookmarklet_trusts_templates_from_as_many_pages():
    """The reader's browser has no fallback to check a template with: it leaves one of fewer pages to the
    server (tests/test_bookmarklet_e2e.py), by the same count."""
    script = (Path(__file__).resolve().parent.parent / "bookmarklet" / "sitewise.js").read_text(encoding="utf-8")
    assert re.search(r"var MIN_TRUSTED_TEMPLATE_PAGES = (\d+);", script).group(1) == str(MIN_TRUSTED_TEMPLATE_PAGES)
