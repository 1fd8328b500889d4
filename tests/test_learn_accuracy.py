"""Learning accuracy on layouts that broke earlier versions: each test names the general failure it
guards against (see docs/rules.md, "How a rule set is learned")."""
from __future__ import annotations

import numpy as np

from learn_support import static_page
from sitewise.learn.consolidate import induce
from sitewise.learn.learner import SiteLearner
from sitewise.learn.rules import apply_rules
from sitewise.learn.selectors import parse_path
from sitewise.metrics import word_prf

STORIES = [
    ("Harbour cranes return after a long winter", [
        "The harbour cranes came back on Monday after the long winter repairs were finished at last.",
        "Dock workers said the new cranes lift twice as much cargo as the old ones ever could manage.",
        "The port authority expects the first container ships to berth here before the end of the month.",
    ]),
    ("Ferry timetable changes for the island routes", [
        "Island ferries will sail every forty minutes from next week, the operator announced on Tuesday.",
        "Passengers asked for later evening sailings, and the operator has added two of them on Fridays.",
        "Tickets bought before the change stay valid on every crossing until the end of the season.",
    ]),
    ("Lighthouse keeper retires after forty years", [
        "The last keeper of the north lighthouse retired this week after forty years of nights on the rock.",
        "She kept a diary of every storm, and the town museum will show the notebooks from the spring.",
        "The light itself has run automatically since last year and needs a visit only once a month.",
    ]),
    ("Fish market moves to the old railway shed", [
        "The fish market moves into the old railway shed next month, closer to the quay and the car park.",
        "Traders welcomed the larger hall, though some worry that the rent will rise after the first year.",
        "The council says the move frees the square for the summer festival and its evening concerts.",
    ]),
]


def table_page(number: int) -> tuple[str, str, list[str]]:
    """An old table layout without a single id or class: nav cell, story cell (``td > font > p``),
    sidebar cell with plain paragraphs."""
    title, paragraphs = STORIES[number]
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    html = (
        f"<html><head><title>{title}</title></head><body><table><tr>"
        "<td><p><a href='/'>Home</a></p><p><a href='/news'>News</a></p><p><a href='/sport'>Sport</a></p></td>"
        f"<td><h2>{title}</h2><font>{body}</font></td>"
        "<td><p>Most read this week on the site</p><p>Sign up for the daily newsletter</p></td>"
        "</tr></table></body></html>"
    )
    return f"http://oldnews.test/story/{number}", html, paragraphs


def test_unnamed_article_paths_get_tag_chains():
    """A path without any id or class (old table layouts) could only be reached by names elsewhere on
    the page, so the rules picked captions and missed the body: tag chains reach it."""
    paths = [parse_path(p) for p in (
        "body > table > tbody > tr > td > font > p",
        "body > table > tbody > tr > td > p",
        "body > div.caption",
    )]
    induction = induce(paths, positive=np.array([1.0, 0.0, 0.0]), negative=np.array([0.0, 1.0, 0.3]))
    assert induction.include == ["font > p"]
    assert induction.f1 == 1.0


def test_site_without_names_is_learned_and_applied():
    pages = [static_page(url, html) for url, html, _ in map(table_page, range(3))]
    learner = SiteLearner().fit(pages)
    assert learner.rules_["confidence"] > 0.9
    url, html, paragraphs = table_page(3)
    page = static_page(url, html)
    for found in (learner.predict(page), apply_rules(learner.rules_, html=html)):
        assert found.confident
        assert word_prf(found.text, "\n".join(paragraphs)).recall == 1.0
        assert "newsletter" not in found.text and "Home" not in found.text
