"""SiteLearner end to end on pages without a browser: the spider fixture and the generated sample site."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from statistics import fmean

import numpy as np
import pytest

from learn_support import sample_pages, static_page
from sitewise.learn.features import describe_blocks
from sitewise.learn.learner import LearnError, SiteLearner, distinct_pages
from sitewise.learn.rules import apply_rules, validate_rules
from sitewise.learn.scoring import ClusterStats, analyse_text, score_clusters
from sitewise.learn.templates import group_templates
from sitewise.metrics import word_prf
from sitewise.sample_site import generate_site
from sitewise.spider_import import read_spider_file, spider_files

FIXTURE = Path(__file__).parent / "fixtures" / "spider"


@pytest.fixture(scope="module")
def gazette():
    """(training pages, held-out (page, sample) pairs) of the generated sample site."""
    pages = sample_pages(generate_site(seed=7))
    articles = [(p, s) for p, s in pages.values() if s.template != "index"]
    train = articles[:7]
    test = [item for item in pages.values() if item not in train]
    return [p for p, _ in train], test


@pytest.fixture(scope="module")
def gazette_learner(gazette):
    return SiteLearner().fit(gazette[0])


def test_spider_fixture_rules_give_the_article():
    pages = [read_spider_file(f) for f in spider_files(FIXTURE)]
    learner = SiteLearner().fit(pages)
    rules = validate_rules(json.loads(json.dumps(learner.rules_)))  # plain JSON, valid
    assert rules["site"] == "harbourtimes.test" and rules["pages_learned"] == 3
    for number, page in enumerate(pages):
        found = learner.predict(page)
        truth = (FIXTURE / f"{number:03d}.txt").read_text()
        assert found.confident
        assert word_prf(found.text, truth).f1 == 1.0, found.text
    template = rules["templates"][0]
    # The share bar inside the article is excluded; comments, related links, footer never included; the
    # headline and byline are the heading.
    assert template["heading"]
    assert any("share-bar" in s for s in template["exclude"])
    assert all("comment" not in s for s in template["include"])


def test_two_templates_are_learned_and_recognised(gazette, gazette_learner):
    train, test = gazette
    rules = gazette_learner.rules_
    assert len(rules["templates"]) == 2
    assert {t["pages"] for t in rules["templates"]} == {4, 3}
    scores = []
    for page, sample in test:
        found = gazette_learner.predict(page)
        if sample.template == "index":
            assert not found.confident  # no article: the caller falls back
            continue
        assert found.confident, (sample.template, found.reason)
        scores.append(word_prf(found.text, sample.truth).f1)
    assert fmean(scores) >= 0.95
    report = gazette_learner.report_
    assert report.pages == 7 and not report.unlearned_pages
    assert sorted(len(t.pages) for t in report.templates) == [3, 4]


def test_rules_work_on_raw_html_too(gazette, gazette_learner):
    _, test = gazette
    page, sample = next((p, s) for p, s in test if s.template == "story")
    from_html = apply_rules(gazette_learner.rules_, html=page.html)
    assert from_html.confident
    assert word_prf(from_html.text, sample.truth).f1 >= 0.95


def test_boilerplate_never_selected(gazette, gazette_learner):
    _, test = gazette
    for page, sample in test:
        text = gazette_learner.predict(page).text
        assert "Advertisement" not in text and "Most read" not in text and "All rights reserved" not in text


def test_feedback_wins_on_the_next_learn(gazette, gazette_learner):
    train, test = gazette
    story = next(p for p in train if "/story/" in p.url)
    byline = next(b for b in story.blocks if "byline" in b.selector)
    caption = next(b for b in story.blocks if b.tag == "figcaption")
    quote = next(b for b in story.blocks if b.tag == "blockquote")
    before = gazette_learner.predict(story).text
    assert byline.text in before and quote.text in before and caption.text not in before
    marks = [
        {"url": story.url, "selector": caption.selector, "text": caption.text, "kind": "missing"},
        {"url": story.url, "selector": quote.selector, "text": quote.text, "kind": "not_article"},
        # The byline is the heading's, learned apart from the body: a mark reaches those rules too.
        {"url": story.url, "selector": byline.selector, "text": byline.text, "kind": "not_article"},
    ]
    relearned = SiteLearner().fit(train, feedback=marks)
    text = relearned.predict(story).text
    assert caption.text in text and quote.text not in text and byline.text not in text
    # The marks generalise to the template's other pages.
    other_page, _ = next((p, s) for p, s in test if s.template == "story")
    other_text = relearned.predict(other_page).text
    other_caption = next(b for b in other_page.blocks if b.tag == "figcaption")
    other_byline = next(b for b in other_page.blocks if "byline" in b.selector)
    assert other_caption.text in other_text and other_byline.text not in other_text


def test_consistency_compares_rule_versions(gazette_learner):
    assert gazette_learner.consistency(gazette_learner.rules_) >= 0.95
    broken = json.loads(json.dumps(gazette_learner.rules_))
    for template in broken["templates"]:
        template["include"] = ["aside.rail"]
    assert gazette_learner.consistency(broken) < 0.2
    assert gazette_learner.consistency(None) == 0.0


def test_learning_from_one_page_works():
    page = read_spider_file(FIXTURE / "001.json")
    learner = SiteLearner().fit([page])
    assert learner.predict(page).confident
    assert "Record crowds came to the river festival" in learner.predict(page).text


def test_bad_input_is_refused():
    with pytest.raises(LearnError):
        SiteLearner().fit([])


def test_a_page_of_another_layout_never_fails_the_site():
    pages = [read_spider_file(f) for f in spider_files(FIXTURE)]
    odd = read_spider_file(FIXTURE / "000.json")
    odd.url = "http://elsewhere.test/x"
    for block in odd.blocks:  # a redesign: other containers, other names
        block.selector = block.selector.replace("article.story", "div.entry").replace("h1.headline", "h2.title")
    learner = SiteLearner().fit(pages + [odd])
    assert learner.rules_["site"] == "harbourtimes.test"
    assert all(learner.predict(page).confident for page in pages)
    assert not learner.predict(odd).confident  # no template fits: the caller falls back


def test_copies_of_a_page_are_learned_as_one_page(gazette):
    """Text on many pages is boilerplate to the learner: copies of one page (a file given twice, an article
    under print, AMP or tracking-parameter addresses) made its article look like it, and learning failed."""
    train = gazette[0][:5]
    copied = train[0]
    copies = [dataclasses.replace(copied, url=f"{copied.url}?utm_source={n}") for n in range(3)]  # same text
    copies += [dataclasses.replace(copied, url=f"{copied.url}#top", blocks=copied.blocks[1:])] * 3  # same address
    alone, with_copies = SiteLearner().fit(train), SiteLearner().fit(train + copies)
    assert with_copies.rules_["pages_learned"] == len(train)
    assert ({k: v for k, v in with_copies.rules_.items() if k != "learned_at"}
            == {k: v for k, v in alone.rules_.items() if k != "learned_at"})
    assert all(with_copies.predict(page).confident for page in train)
    # a copy on another site (a mirror) is learned once, and the rules are that site's too
    mirrored = SiteLearner().fit(train + [dataclasses.replace(copied, url="https://mirror.example/a")]).rules_
    assert mirrored["pages_learned"] == len(train) and "mirror.example" in mirrored["sites_learned"]


def test_distinct_pages_keeps_the_first_of_each_address_and_text(gazette):
    first, second = gazette[0][:2]
    same_text = dataclasses.replace(first, url="https://print.example/a")
    same_address = dataclasses.replace(first, url=first.url + "#comments", blocks=first.blocks[:1])
    digits_only = dataclasses.replace(second, url="https://elsewhere.example/b", blocks=[
        dataclasses.replace(block, text=block.text.replace("1", "2")) for block in second.blocks])
    assert distinct_pages([first, same_text, second, same_address, digits_only]) == [first, second]
    # a canonical URL does not make pages one: a site may name its home page on every page
    homed = [dataclasses.replace(page, canonical_url="https://gazette.test/") for page in (first, second)]
    assert distinct_pages(homed) == homed


# -- a cluster is judged by the text that is its page's own ---------------------------------------------

BLOG_POSTS = [
    ("Ancient tides", "In point of fact their growth is strictly allotted at the appropriate hour.",
     ["Seneca says the moon attracts the tides in his essay on providence, long before Newton."]),
    ("Wrong regression", "In almost all cases scientists fit a straight line wrongly.",
     ["David Hogg on linear regression and its abuses in astronomy."]),
    ("Eighty twenty software", "Often eighty percent of results come from twenty percent of effort.",
     ["The eighty twenty rule applied to software features says remove features.",
      "Removing features is almost impossible once customers depend on them."]),
]
COMMENT_FORM = ["Leave a Comment", "Name", "E-mail", "Website", "Notify me of followup comments via e-mail",
                "You can use these HTML tags and attributes in your comment below"]


def _blog_post(number, title, quote, paragraphs):
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    form = "".join(f"<p>{line}</p>" for line in COMMENT_FORM)
    return static_page(f"https://blog.test/{number}", f"<html><head><title>{title}</title></head><body>"
                       f"<h1>{title}</h1><blockquote>{quote}</blockquote>{body}<form>{form}</form></body></html>",
                       titles=[title])


def test_boilerplate_set_like_the_paragraphs_does_not_drag_their_cluster_below_a_quote():
    # dragnet's johndcook.com learnt from 4 pages: the comment form's lines, set like the paragraphs, were
    # a quarter of their cluster's text; it scored below the posts' block quotes, which became the article.
    pages = [_blog_post(number, *post) for number, post in enumerate(BLOG_POSTS)]
    records = describe_blocks(pages)
    site = analyse_text(pages, records)
    quote = np.asarray([r.steps[-1].tag == "blockquote" for r in records])
    paragraph = np.asarray([r.steps[-1].tag == "p" for r in records])
    in_form = np.asarray([r.steps[-2].tag == "form" for r in records])
    together = np.where(quote, 1, np.where(paragraph, 0, 2))  # as DBSCAN clusters them: the form's lines with the paragraphs
    apart = np.where(in_form, 3, together)
    with_form, without_form = score_clusters(records, together, site), score_clusters(records, apart, site)
    assert with_form[0].score >= 0.9 * without_form[0].score
    assert with_form[0].score > with_form[1].score


def test_a_template_takes_only_pages_where_its_seed_carries_text_of_their_own(monkeypatch):
    # dragnet's wsj.com: the body paragraphs' style also set the copyright line of paywalled pages. Scoring
    # 0 there on three pages of five, the median page score was 0 and every page joined the template.
    seed = ClusterStats(label=0, pages={page: [page] for page in range(5)}, chars=5000, link_density=0.0,
                        repeat=0.2, entropy=0.2, relevance=0.3, score=22.0,
                        page_scores={0: 0.0, 1: 7.0, 2: 0.0, 3: 0.0, 4: 15.0})
    answers = iter([{0: seed}])  # then no cluster left
    monkeypatch.setattr("sitewise.learn.templates.score_clusters", lambda *_, **__: next(answers, {}))
    records = [dataclasses.replace(describe_blocks([_blog_post(0, *BLOG_POSTS[0])])[2], page=page) for page in range(5)]
    groups, _ = group_templates(records, np.zeros(5, dtype=int), None, 5, 1)
    assert groups[0].pages == [1, 4]


# -- the site's furniture inside the article's container ------------------------------------------------

HARBOUR_STORIES = [
    ("Harbour strike ends", "The harbour workers voted to end the strike after nine days of talks at the port.",
     "Ships queued outside the breakwater all week while the union and the owners argued about pay."),
    ("Council approves bridge", "The council approved the new footbridge over the river on Tuesday evening.",
     "Work starts in spring and the crossing should open to walkers by the autumn."),
    ("Library opens late", "The central library will open until ten in the evening from next month.",
     "Students asked for the change during the exam season, the librarian said."),
    ("Ferry timetable changes", "The island ferry will sail every forty minutes instead of every hour.",
     "Two new crew members were hired to keep the extra sailings running."),
]


def _story_with_share_link(number, title, first, second):
    """A story whose share link is a paragraph among the article's own (no selector can tell it apart),
    with a section head and a credit line on every page too."""
    html = (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
            f"<article><h1>{title}</h1><div class=entry><p>{first}</p><p><a href='/share/{number}'>Share on Twitter</a></p>"
            f"<h3>Key points</h3><p>{second}</p><p>Reporting by the Gazette staff.</p></div></article>"
            f"<footer>Gazette</footer></body></html>")
    return f"https://gazette.test/{number}", html


def test_a_link_line_on_every_page_of_the_body_is_learned_as_recurring_and_left_out():
    stories = [_story_with_share_link(number, *story) for number, story in enumerate(HARBOUR_STORIES)]
    learner = SiteLearner().fit([static_page(url, html, titles=[title]) for (url, html), (title, *_) in zip(stories[:3], HARBOUR_STORIES)])
    assert [template.get("recurring") for template in learner.rules_["templates"]] == [["share on twitter"]]
    url, html = stories[3]  # a page the site's learning never saw, as collected and as raw HTML
    for found in (learner.predict(static_page(url, html)), apply_rules(learner.rules_, html=html)):
        assert found.confident and "Share on Twitter" not in found.text
        # recurring too, but a section head and a line of plain text: the article's, as far as a site can tell
        assert "Key points" in found.text.split("\n") and "Reporting by the Gazette staff." in found.text



def _recipe(number, title, first, second):
    """A recipe whose section heads recur on every page and link to themselves (as documentation's do),
    inside the article's container with a list of related recipes under a head of its own."""
    html = (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> <a href='/recipes'>Recipes</a></nav>"
            f"<article><h1>{title}</h1><div class=entry><p>{first}</p>"
            f"<h2 id=method><a href='#method'>Method</a></h2><p>{second}</p>"
            f"<h2 id=serving><a href='#serving'>Serving</a></h2><p>Serve the {title.lower()} special warm, with bread.</p>"
            f"<h2 class=more>More recipes</h2><ul><li><a href='/r/{number + 1}'>Another dish</a></li><li><a href='/r/{number + 2}'>"
            f"A third dish</a></li></ul></div></article><footer>Gazette kitchen</footer></body></html>")
    return f"https://gazette.test/recipes/{number}", html


def test_section_heads_that_recur_and_head_the_article_text_are_the_articles():
    """Issue 14: "section heads that legitimately recur stay", judged by what they head: one over the
    article's own text joins it whatever its links, one over a list of links stays out with it (its
    class names it apart from the article's heads: a selector can leave it out)."""
    recipes = [_recipe(number, *story) for number, story in enumerate(HARBOUR_STORIES)]
    pages = [static_page(url, html, titles=[title]) for (url, html), (title, *_) in zip(recipes[:3], HARBOUR_STORIES)]
    learner = SiteLearner().fit(pages)
    url, html = recipes[3]
    for found in (learner.predict(static_page(url, html)), apply_rules(learner.rules_, html=html)):
        lines = found.text.split("\n")
        assert found.confident and "Method" in lines and "Serving" in lines, lines
        assert "More recipes" not in lines and "Another dish" not in found.text, lines
