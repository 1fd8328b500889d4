"""The bookmarklet end to end in real Chromium: a generated site on loopback, the app on a real server
thread, the loader run as a reader's click; uploads land in the store, the article is highlighted by MSS
before the site is learned and by its rules after, feedback is stored, CSP blocks are reported."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from bookmarklet_support import (
    body_of, chromium, click_bookmarklet, highlighted, loader_code, loopback_only, normal, panel_text,
    serve_app, serve_html,
)
from sitewise.server import create_app
from server_support import settings_for
from sitewise.learn.rules import apply_rules, count_words
from sitewise.page import MAX_BLOCKS, STYLE_PROPERTIES
from sitewise.sample_site import SampleSite
from sitewise.store import Store

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture
def tab(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.route("**/*", loopback_only)
    yield page
    context.close()


@pytest.fixture
def server(store: Store, tmp_path, monkeypatch):
    # Learn from 3 pages (the default is 5): the web app's settings, and the worker's, read from the environment.
    monkeypatch.setenv("SITEWISE_MIN_PAGES_TO_LEARN", "3")
    app = create_app(settings_for(tmp_path, min_pages_to_learn=3), store)
    with serve_app(app) as url:
        yield url


def article_paths(site: SampleSite, template: str = "story") -> list[str]:
    return [p for p in site.article_paths if site.pages[p].template == template]


def test_fallback_highlights_the_article_by_mss_and_uploads_the_page(tab, server, store, sample_site, sample_site_url):
    path = article_paths(sample_site)[0]
    tab.goto(sample_site_url + path)
    state = click_bookmarklet(tab, server)
    assert state["error"] is None, state
    assert state["method"] == "mss" and state["upload"] == "stored"
    # The upload is in the store, under the page's canonical URL.
    assert store.page_count("127.0.0.1") == 1
    stored = next(store.pages("127.0.0.1"))
    assert stored.collector == "bookmarklet" and stored.html is None
    # MSS found the article (it may take a caption next to it): most highlighted blocks are article
    # text, and most of the article is highlighted.
    truth = {normal(line) for line in sample_site.pages[path].article}
    shown = highlighted(tab)
    assert sum(text in truth for text in shown) >= 0.75 * len(shown), shown
    assert sum(line in shown for line in truth) >= 0.75 * len(truth), shown
    assert "Not learned yet: 1 page of 127.0.0.1 stored" in panel_text(tab)


def test_close_removes_everything_it_added(tab, server, sample_site, sample_site_url):
    tab.goto(sample_site_url + article_paths(sample_site)[1])
    before = tab.evaluate("() => document.documentElement.outerHTML")
    click_bookmarklet(tab, server)
    assert tab.evaluate("() => document.querySelector('sitewise-panel') !== null")
    tab.evaluate("() => window.sitewise.close()")
    after = tab.evaluate("() => document.documentElement.outerHTML")
    assert after == before
    assert tab.evaluate("() => [typeof window.sitewise, typeof window.sitewiseCollect].join()") == "undefined,undefined"


def test_a_second_click_closes(tab, server, sample_site, sample_site_url):
    tab.goto(sample_site_url + article_paths(sample_site)[2])
    click_bookmarklet(tab, server)
    tab.evaluate(loader_code(server))
    assert tab.evaluate("() => document.querySelector('sitewise-panel') === null && !window.sitewise")


def test_feedback_marks_a_highlighted_block_as_not_article(tab, server, store, sample_site, sample_site_url):
    tab.goto(sample_site_url + article_paths(sample_site)[3])
    state = click_bookmarklet(tab, server)
    before = highlighted(tab)
    shadow = tab.locator("sitewise-panel")
    shadow.get_by_role("button", name="Report a block").click()
    assert "Click a highlighted block" in panel_text(tab)
    first = tab.evaluate("() => { const e = window.sitewise.highlightedElements()[0]; const r = e.getBoundingClientRect();"
                         " return JSON.stringify([r.left + 5, r.top + 5]); }")
    x, y = json.loads(first)
    tab.mouse.click(x, y)
    tab.wait_for_function("() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('Thanks')")
    marks = store.feedback("127.0.0.1")
    assert len(marks) == 1
    assert marks[0]["kind"] == "not_article" and marks[0]["method"] == state["method"]
    assert normal(marks[0]["text"]) == before[0] or before[0].startswith(normal(marks[0]["text"])[:30])
    assert highlighted(tab) == before[1:]


LOCKED_ARTICLE = ("<!DOCTYPE html><html><head><title>Locked down</title></head><body><article>"
                  + "<p>This page only talks to itself, as its content security policy says, and nothing else.</p>" * 5
                  + "</article></body></html>")


@pytest.fixture(scope="module")
def strict_pages():
    """Pages with a Content-Security-Policy, on a real loopback server (a page fulfilled by Playwright has
    no address, and Chromium's local-network checks would block the loopback server before CSP could)."""
    with serve_html({
        "/locked": ("connect-src 'self'", LOCKED_ARTICLE),
        "/strict": ("script-src 'self'", "<!DOCTYPE html><title>Strict</title><p>Strict page.</p>"),
    }) as base_url:
        yield base_url


def test_csp_that_blocks_the_server_is_reported_in_the_panel(tab, server, strict_pages):
    tab.goto(strict_pages + "/locked")
    state = click_bookmarklet(tab, server)
    assert "Content-Security-Policy" in state["error"]
    assert "Content-Security-Policy" in panel_text(tab)


def test_csp_that_blocks_the_script_is_said_in_an_alert(tab, server, strict_pages):
    tab.goto(strict_pages + "/strict")
    messages = []
    tab.on("dialog", lambda dialog: (messages.append(dialog.message), dialog.dismiss()))
    tab.evaluate(loader_code(server))
    tab.wait_for_function("() => !document.querySelector('script[src*=\"/bookmarklet/\"]')")
    tab.wait_for_timeout(200)
    assert messages and "Content-Security-Policy" in messages[0]


def screenshot_dir(tmp_path: Path) -> Path:
    """Where screenshots go: $SITEWISE_SCREENSHOTS when set (to look at them), else the test's tmp dir."""
    import os

    folder = Path(os.environ.get("SITEWISE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_install_page_panel_and_dashboard_render(tab, server, store, sample_site, sample_site_url, tmp_path):
    shots = screenshot_dir(tmp_path)
    tab.goto(server + "/")
    link = tab.locator("a.bookmarklet")
    assert link.is_visible() and link.get_attribute("href").startswith("javascript:")
    tab.screenshot(path=str(shots / "install.png"), full_page=True)

    tab.goto(sample_site_url + article_paths(sample_site)[4])
    click_bookmarklet(tab, server)
    panel = tab.locator("sitewise-panel").get_by_role("dialog")
    assert panel.is_visible()
    box = panel.bounding_box()
    assert box["width"] > 200 and box["x"] + box["width"] <= 1280
    tab.screenshot(path=str(shots / "panel.png"))

    tab.set_extra_http_headers({"Authorization": "Bearer s3cret"})  # pages and text: the administrator's view
    tab.goto(server + "/sites/127.0.0.1")
    assert tab.locator("svg.wireframe rect.art").count() > 3
    assert tab.locator("ol.blocks li.art").count() > 3
    tab.screenshot(path=str(shots / "dashboard.png"), full_page=True)
    for name in ("install.png", "panel.png", "dashboard.png"):
        assert (shots / name).stat().st_size > 10_000


XHTML_ARTICLE = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><title>Strict markup</title></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><article>
""" + "".join(f"<p>Paragraph {i} of a strictly served page: the river rose, the bridge held and the town council met at dawn to count the damage.</p>\n" for i in range(6)) + """
</article><footer>Footer text of the strict page.</footer></body></html>"""


@pytest.fixture(scope="module")
def xhtml_pages():
    """An XHTML page (application/xhtml+xml) whose CSP forbids inline styles and style elements."""
    with serve_html({"/strict.xhtml": ("style-src 'self'; connect-src *", XHTML_ARTICLE)},
                    content_type="application/xhtml+xml") as base_url:
        yield base_url


def test_strict_xhtml_page_with_a_style_src_policy(tab, server, xhtml_pages):
    tab.goto(xhtml_pages + "/strict.xhtml")
    assert tab.evaluate("() => document.contentType") == "application/xhtml+xml"
    state = click_bookmarklet(tab, server)
    assert state["error"] is None and state["method"] == "mss"
    shown = highlighted(tab)
    assert len(shown) == 6 and all(text.startswith("Paragraph") for text in shown)
    # The panel is styled (constructed style sheets are not subject to style-src).
    background = tab.evaluate("() => getComputedStyle(document.querySelector('sitewise-panel').shadowRoot.querySelector('.panel')).backgroundColor")
    assert background == "rgb(29, 35, 48)"
    before_close = tab.evaluate("() => document.querySelectorAll('[style]').length")
    assert before_close >= 6
    tab.evaluate("() => window.sitewise.close()")
    assert tab.evaluate("() => document.querySelectorAll('[style]').length") == 0


def test_toggle_copy_and_report_missing(browser, server, store, sample_site, sample_site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=sample_site_url)
    tab = context.new_page()
    tab.route("**/*", loopback_only)
    try:
        tab.goto(sample_site_url + article_paths(sample_site)[5])
        click_bookmarklet(tab, server)
        shown = highlighted(tab)
        panel = tab.locator("sitewise-panel")
        panel.get_by_role("button", name="Highlight on").click()
        assert highlighted(tab) == []
        panel.get_by_role("button", name="Highlight off").click()
        assert highlighted(tab) == shown

        panel.get_by_role("button", name="Copy text").click()
        tab.wait_for_function("() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('Copied')")
        copied = tab.evaluate("() => navigator.clipboard.readText()")
        assert [normal(p) for p in copied.split("\n\n")] == shown

        # A block left out (the site's navigation) reported as missing article text.
        panel.get_by_role("button", name="Report a block").click()
        tab.locator("nav.primary-nav").click(position={"x": 5, "y": 5})
        tab.wait_for_function("() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('Thanks')")
        marks = store.feedback("127.0.0.1")
        assert [m["kind"] for m in marks] == ["missing"]
        assert marks[0]["selector"].endswith("nav.primary-nav")
        assert tab.url.startswith(sample_site_url + "/")  # the click on a link did not navigate
        assert len(highlighted(tab)) == len(shown) + 1
    finally:
        context.close()


def run_learning_jobs(store: Store) -> int:
    """Run the queued learning jobs with a real RQ worker (in this process, until the queue is empty)."""
    from rq import SimpleWorker

    from sitewise.worker.queue import JOB_SERIALIZER, learn_queue

    queue = learn_queue(store.redis)
    jobs = len(queue)
    SimpleWorker([queue], connection=store.redis, serializer=JOB_SERIALIZER).work(burst=True)
    return jobs


def test_learned_site_highlights_exactly_the_article_blocks(tab, server, store, sample_site, sample_site_url):
    paths = article_paths(sample_site)
    for path in paths[:5]:
        tab.goto(sample_site_url + path)
        assert click_bookmarklet(tab, server)["upload"] == "stored"
        tab.evaluate("() => window.sitewise.close()")
    assert store.page_count("127.0.0.1") == 5
    # The third upload queued learning; the two after it found that job pending.
    assert run_learning_jobs(store) == 1
    rules = store.rules("127.0.0.1")
    assert rules is not None and rules["pages_learned"] == 5

    new = paths[6]
    tab.goto(sample_site_url + new)
    state = click_bookmarklet(tab, server)
    assert state["method"] == "rules" and state["ruleVersion"] == rules["version"], state
    assert state["pagesLearnedFrom"] == 5
    truth = [normal(line) for line in sample_site.pages[new].article]
    assert highlighted(tab) == truth
    assert "rules" in panel_text(tab) and "from 5 pages" in panel_text(tab)

def test_a_readers_mark_wins_on_the_next_learn(tab, server, store, sample_site, sample_site_url, monkeypatch):
    # One browser is one contributor: let one reader's mark count (the default asks three to agree,
    # tests/test_trust.py), as the worker reads it from the environment.
    monkeypatch.setenv("SITEWISE_AGREEMENT_CONTRIBUTORS", "1")
    paths = article_paths(sample_site)
    for path in paths[:4]:
        tab.goto(sample_site_url + path)
        click_bookmarklet(tab, server)
        tab.evaluate("() => window.sitewise.close()")
    run_learning_jobs(store)
    assert store.rules("127.0.0.1")["version"] == 1

    # On a new page the rules highlight the headline too; the reader says it is not article text.
    tab.goto(sample_site_url + paths[4])
    assert click_bookmarklet(tab, server)["method"] == "rules"
    headline = normal(sample_site.pages[paths[4]].article[0])
    assert highlighted(tab)[0] == headline
    tab.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
    tab.locator("main h1").click()
    tab.wait_for_function("() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('Thanks')")
    assert [m["kind"] for m in store.feedback("127.0.0.1")] == ["not_article"]

    # An admin re-learns the site now; the mark wins: the next page's headline stays dim.
    answer = tab.request.post(server + "/api/admin/sites/127.0.0.1/learn", headers={"Authorization": "Bearer s3cret"})
    assert answer.status == 202
    run_learning_jobs(store)
    assert store.rules("127.0.0.1")["version"] == 2
    tab.goto(sample_site_url + paths[5])
    state = click_bookmarklet(tab, server)
    assert state["method"] == "rules" and state["ruleVersion"] == 2
    shown = highlighted(tab)
    assert normal(sample_site.pages[paths[5]].article[0]) not in shown
    assert shown == [normal(line) for line in sample_site.pages[paths[5]].article[1:]]


def test_an_unreachable_api_is_said_in_the_panel(tab, server, store, sample_site, sample_site_url):
    tab.route(server + "/api/**", lambda route: route.abort())
    tab.route(server + "/rules/**", lambda route: route.abort())
    tab.goto(sample_site_url + article_paths(sample_site)[0])
    state = click_bookmarklet(tab, server)
    assert "could not be reached" in state["error"] and "Content-Security-Policy" not in state["error"]
    assert "could not be reached" in panel_text(tab)
    assert store.sites() == []


TEASER = "The cranes are back in the harbour after the winter repairs, and the first ship docks on Monday."
CAPTION = "Photo courtesy of the harbour museum"
#: A paywalled page's hidden teaser copy (shown: this page has no CSS to hide it) above the full text,
#: the same caption under two pictures (in other case and spacing) and a short line said twice.
REPEATS_PAGE = f"""<!DOCTYPE html><html lang="en"><head><title>Cranes return to the harbour</title></head><body>
<nav><a href="/">Home</a> <a href="/port">Port</a></nav>
<main><h1>Cranes return to the harbour</h1>
<div class="teaser"><p>{TEASER}</p></div>
<div class="story"><p>{TEASER.upper()}</p>
<p>Dock workers cheered.</p><p>Dock workers cheered.</p>
<figure><figcaption>{CAPTION}</figcaption></figure>
<p>The harbour master said the two cranes were overhauled in the dry dock and will lift until the autumn storms.</p>
<figure><figcaption>{CAPTION.replace(" the ", "  THE ")}</figcaption></figure>
<p>Traders hope the spring season makes up for a winter of ships turned away to the next port.</p></div></main>
<footer>Harbour Gazette, all rights reserved.</footer></body></html>"""
#: What the highlight shows: each passage of four or more words once, where it first appears.
REPEATS_SHOWN = [
    "Cranes return to the harbour", TEASER, "Dock workers cheered.", "Dock workers cheered.", CAPTION,
    "The harbour master said the two cranes were overhauled in the dry dock and will lift until the autumn storms.",
    "Traders hope the spring season makes up for a winter of ships turned away to the next port.",
]


@pytest.fixture(scope="module")
def repeats_pages():
    with serve_html({"/cranes": ("", REPEATS_PAGE)}) as base_url:
        yield base_url


@pytest.mark.parametrize("words_range", ["wide", "exactly the article"])
def test_rules_highlight_a_repeated_passage_once_as_apply_rules_does(tab, server, store, repeats_pages, words_range):
    """The bookmarklet's highlight (and word count) is apply_rules' text for the same page and rules:
    a passage repeated word for word (>= 4 words) is given once. With a range that fits only the text
    without repeats, counting them would have sent the page to the server to decide."""
    words = count_words("\n".join(REPEATS_SHOWN))
    store.put_rules("127.0.0.1", {
        "format": 1, "site": "127.0.0.1", "pages_learned": 3, "confidence": 0.9,
        "templates": [{"name": "story", "match": ["div.story"], "include": ["main"], "exclude": [],
                       "words": [1, 1000] if words_range == "wide" else [words, words]}],
    })
    asked = []
    tab.on("request", lambda request: asked.append(request.url))
    tab.goto(repeats_pages + "/cranes")
    state = click_bookmarklet(tab, server)
    assert state["method"] == "rules" and state["template"] == "story", state
    assert not any("/api/extract" in url for url in asked), "the bookmarklet did not apply the rules itself"

    found = apply_rules(store.rules("127.0.0.1"), page=next(store.pages("127.0.0.1")))
    assert found.confident and found.words == words
    assert found.text.splitlines() == REPEATS_SHOWN
    assert highlighted(tab) == found.text.splitlines()
    assert f"{words} words in {len(REPEATS_SHOWN)} blocks highlighted" in panel_text(tab)


#: A heading outside the body's container (the headline) and inside an element the body excludes (the date line).
HEADING_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Harbour cranes return</title></head><body>
<nav><a href="/">Home</a> <a href="/port">Port</a></nav>
<h1>Harbour cranes return</h1>
<article class="story"><header class="meta"><p class="kicker">City</p><p class="dateline">14 August 2026, 09:30</p></header>
<p>The harbour cranes came back on Monday after the long winter repairs were finished at last.</p>
<div class="share">Share this story</div>
<p>Dock workers cheered as the cranes turned over the water for the first time since autumn.</p></article>
<footer>Harbour Gazette, all rights reserved.</footer></body></html>"""


@pytest.fixture(scope="module")
def heading_pages():
    with serve_html({"/heading": ("", HEADING_PAGE)}) as base_url:
        yield base_url


@pytest.mark.parametrize("include, method", [("footer", "mss"), ("article.story", "rules")])
def test_a_template_of_few_pages_is_left_to_the_server_which_checks_it(tab, server, store, heading_pages, include, method):
    """The reader's browser has no fallback to check a template learned from fewer pages than
    sitewise.pipeline.MIN_TRUSTED_TEMPLATE_PAGES with: the server answers, by the rules where the fallback
    roughly agrees, else by the fallback."""
    store.put_rules("127.0.0.1", {
        "format": 1, "site": "127.0.0.1", "pages_learned": 5, "confidence": 0.9,
        "templates": [{"name": "story", "match": ["article.story"], "include": [include], "exclude": [],
                       "words": [1, 1000], "pages": 1}],
    })
    asked = []
    tab.on("request", lambda request: asked.append(request.url))
    tab.goto(heading_pages + "/heading")
    state = click_bookmarklet(tab, server)
    assert any("/api/extract" in url for url in asked), "the bookmarklet applied a template of one page itself"
    assert state["method"] == method, state
    shown = "\n".join(highlighted(tab))
    assert "Dock workers cheered" in shown and "all rights reserved" not in shown


def _highlighted_by_story_rules(tab, server, store, url, template):
    """Run the bookmarklet on ``url`` with a learned rule set of one template ("story", matched by
    ``article.story``: ``template`` gives its other fields); the rules and what apply_rules gives for the
    page it uploaded."""
    store.put_rules("127.0.0.1", {
        "format": 1, "site": "127.0.0.1", "pages_learned": 5, "confidence": 0.9,
        "templates": [{"name": "story", "match": ["article.story"], "exclude": [], "words": [1, 1000], **template}],
    })
    tab.goto(url)
    state = click_bookmarklet(tab, server)
    assert state["method"] == "rules" and state["template"] == "story", state
    rules = store.rules("127.0.0.1")
    return rules, apply_rules(rules, page=next(store.pages("127.0.0.1")))


def test_rules_highlight_the_heading_even_inside_a_body_exclude_as_apply_rules_does(tab, server, store, heading_pages):
    rules, found = _highlighted_by_story_rules(tab, server, store, heading_pages + "/heading", {
        "include": ["article.story"], "exclude": ["header.meta", "div.share"], "heading": ["h1", "header.meta p.dateline"],
    })
    assert found.text.splitlines() == [
        "Harbour cranes return", "14 August 2026, 09:30",
        "The harbour cranes came back on Monday after the long winter repairs were finished at last.",
        "Dock workers cheered as the cranes turned over the water for the first time since autumn.",
    ]
    assert found.body.splitlines() == found.text.splitlines()[2:]
    assert highlighted(tab) == found.text.splitlines()
    assert apply_rules(rules, html=HEADING_PAGE).text == found.text


#: A share link among the article's paragraphs (no selector tells it apart), a section head of the same
#: words, and a headline the rule set lists as recurring too.
RECURRING_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Harbour cranes return</title></head><body>
<article class="story"><h1>Harbour cranes return</h1>
<p>The harbour cranes came back on Monday after the long winter repairs were finished at last.</p>
<p><a href="/share">Share  THIS</a></p><h3>Share this</h3>
<p>Dock workers cheered as the cranes turned over the water for the first time since autumn.</p></article>
</body></html>"""


def test_rules_leave_a_templates_recurring_lines_out_of_the_highlight_as_apply_rules_does(tab, server, store):
    with serve_html({"/recurring": ("", RECURRING_PAGE)}) as base_url:
        rules, found = _highlighted_by_story_rules(tab, server, store, base_url + "/recurring", {
            "include": ["article.story"], "heading": ["h1"], "recurring": ["share this", "harbour cranes return"],
        })
    assert found.text.splitlines() == [
        "Harbour cranes return",
        "The harbour cranes came back on Monday after the long winter repairs were finished at last.",
        "Share this",
        "Dock workers cheered as the cranes turned over the water for the first time since autumn.",
    ]
    assert highlighted(tab) == found.text.splitlines()
    assert apply_rules(rules, html=RECURRING_PAGE).text == found.text


#: What pages patch that the reader script and the collector use (tests/test_collect.py checks more on the
#: collector alone): Prototype.js 1.6's Array.prototype.toJSON (the upload was refused, "blocks: must be a
#: list"), a no-op push polyfill (no blocks), String.prototype.trim (every text "X"), Math.round.
READER_PATCHES = (
    "Array.prototype.toJSON = function () { var r = []; for (var i = 0; i < this.length; i++) {"
    " var v = JSON.stringify(this[i]); if (v !== undefined) r.push(v); } return '[' + r.join(', ') + ']'; };"
    " Array.prototype.push = function () { return 0; }; String.prototype.trim = function () { return 'X'; };"
    " Math.round = function () { throw new Error('round'); }; window.getComputedStyle = function () { return null; };"
)


def test_a_page_that_patches_built_ins_is_read_and_uploaded_as_a_clean_one(browser, server, store):
    article = "<article><h1>Harbor strike ends</h1>" + "".join(
        f"<p>Paragraph {i}: the harbor workers voted to end the strike after nine days of talks.</p>" for i in range(6)
    ) + "</article><footer><a href='/about'>About us</a></footer>"
    page = lambda script: f"<!DOCTYPE html><html><head><title>Harbor</title><script>{script}</script></head><body>{article}</body></html>"
    runs = {}
    with serve_html({"/clean": ("", page("")), "/patched": ("", page(READER_PATCHES))}) as site:
        for path in ("/clean", "/patched"):
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            tab = context.new_page()
            tab.route("**/*", loopback_only)
            tab.goto(site + path)
            state = click_bookmarklet(tab, server)
            runs[path] = {key: state[key] for key in ("error", "method", "upload", "blocks", "article")}
            context.close()
    assert runs["/clean"]["error"] is None and runs["/clean"]["upload"] == "stored" and runs["/clean"]["blocks"] == 8
    assert runs["/patched"] == runs["/clean"]
    clean, patched = sorted(store.pages("127.0.0.1"), key=lambda stored: stored.url)
    assert [block.to_dict() for block in patched.blocks] == [block.to_dict() for block in clean.blocks]


def test_a_page_of_the_most_blocks_accepted_is_uploaded_and_extracted(tab, server, store):
    # 20,000 blocks (sitewise.page.MAX_BLOCKS) of table cells and paragraphs: ~19 MB as plain JSON, over
    # the 8 MB body limit (a 9,000-block table was refused); ~6 MB in the style-table form.
    rows = "".join(f"<tr><td>Row {i} name</td><td>{i * 7} units</td><td>Note for row {i}</td></tr>" for i in range(3333))
    paragraphs = "".join(f"<p>Paragraph {i}: the harbor workers voted to end the strike after nine days of talks.</p>"
                         for i in range(10_000))
    html = (f"<!DOCTYPE html><html><head><title>Harbors</title></head><body><h1>List of harbors</h1>"
            f"<table>{rows}</table><article>{paragraphs}</article></body></html>")
    with serve_html({"/harbors": ("", html)}) as site:
        tab.goto(site + "/harbors")
        state = click_bookmarklet(tab, server)
    assert state["error"] is None and state["blocks"] == 20_000, state
    assert state["upload"] == "stored" and state["method"] == "mss" and state["article"]
    stored = next(store.pages("127.0.0.1"))
    assert len(stored.blocks) == 20_000 and stored.blocks[-1].style == stored.blocks[-2].style
    assert stored.blocks[-1].style["display"] == "block" and len(stored.blocks[-1].style) == len(STYLE_PROPERTIES)


def test_a_page_of_more_blocks_than_accepted_is_refused_in_the_panel_and_not_sent(tab, server, store):
    comments = "".join(f"<p>Comment {i}</p>" for i in range(MAX_BLOCKS + 1))
    html = f"<!DOCTYPE html><html><head><title>Thread</title></head><body>{comments}</body></html>"
    posted = []
    tab.on("request", lambda request: request.method == "POST" and posted.append(request.url))
    with serve_html({"/thread": ("", html)}) as site:
        tab.goto(site + "/thread")
        state = click_bookmarklet(tab, server)
    refusal = ("sitewise stopped: the page has more than 20,000 text blocks; sitewise accepts at most 20,000. "
               "Nothing was sent or highlighted.")
    assert state["error"] == refusal and state["upload"] is None and state["blocks"] == 0, state
    assert refusal in panel_text(tab)
    assert posted == [] and store.page_count("127.0.0.1") == 0


def test_an_extract_request_over_the_body_limit_is_sent_again_without_the_html(tab, store, tmp_path):
    # A hidden part makes the page's HTML large (it is in the HTML, not in the blocks): page and HTML
    # together pass the server's limit, the page alone does not.
    article = "".join(f"<p>Paragraph {i}: the harbor workers voted to end the strike after nine days.</p>" for i in range(8))
    html = (f"<!DOCTYPE html><html><head><title>Harbor</title></head><body><article><h1>Harbor strike ends</h1>{article}"
            f"</article><div hidden>{'<span>archived words</span> ' * 8000}</div></body></html>")
    app = create_app(settings_for(tmp_path, max_page_bytes=100_000), store)
    extracts = []
    tab.on("response", lambda response: "/api/extract" in response.url and extracts.append(response.status))
    with serve_app(app) as server, serve_html({"/story": ("", html)}) as site:
        tab.goto(site + "/story")
        state = click_bookmarklet(tab, server)
    assert state["error"] is None and state["method"] == "mss" and state["upload"] == "stored", state
    assert extracts == [413, 200]
    assert sum(text.startswith("Paragraph") for text in highlighted(tab)) == 8  # read from the blocks


def test_an_article_in_an_open_shadow_root_reaches_the_server_in_the_html(tab, server):
    # The HTML sent is a cleaned copy of the DOM, and a copy (cloneNode, outerHTML) holds no shadow tree:
    # the server's fallback, which prefers the HTML to the blocks, found nothing. Now each open shadow root
    # is sent as its host's declarative <template shadowrootmode>, cleaned as the rest.
    paragraphs = "".join(f"<p>Paragraph {i}: the harbor workers voted to end the strike after nine days of talks.</p>"
                         for i in range(6))
    html = ("<!DOCTYPE html><html><head><title>Harbor strike ends</title></head><body><nav><a href='/'>Home</a> "
            "<a href='/news'>News</a></nav><article-body></article-body><footer><p>Harbor News</p></footer><script>"
            "var root = document.querySelector('article-body').attachShadow({mode: 'open'});"
            f"root.innerHTML = '<h1>Harbor strike ends</h1>{paragraphs}<input name=q value=typed><script>var secret;<\\/script>';"
            "</script></body></html>")
    sent = []
    tab.on("request", lambda request: "/api/extract" in request.url and request.method == "POST"
           and sent.append(json.loads(body_of(request.post_data_buffer))))
    with serve_html({"/story": ("", html)}) as site:
        tab.goto(site + "/story")
        state = click_bookmarklet(tab, server)
    assert state["error"] is None and state["method"] == "mss", state
    assert len(state["article"]) >= 6  # the six paragraphs (before: none, "no block scored as article")
    sent_html = sent[0]["page"]["html"]
    assert '<article-body><template shadowrootmode="open"><h1>Harbor strike ends</h1><p>Paragraph 0' in sent_html
    assert "secret" not in sent_html and "typed" not in sent_html and "<script" not in sent_html


#: Blocks whose text is not their element's textContent — a <br> with no space beside it, a hidden aside
#: inside a sentence, a short text split by a nested block — and a paragraph in a shadow root, inside the
#: rules' container. Each article element says so (data-article) for the test.
SPLIT_TEXT_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Harbour cranes return</title></head><body>
<nav><a href="/">Home</a></nav>
<article class="story"><h1 data-article>Harbour cranes return</h1>
<p data-article>Dock workers<br>cheered as the cranes turned over the water for the first time.</p>
<p data-article>The harbour<span style="display:none"> (advertisement) </span> master said the cranes were overhauled.</p>
<div data-article>Short intro <p data-article>A nested paragraph about the cranes and the ships they lift.</p> and its tail.</div>
<harbour-box></harbour-box></article>
<footer>Harbour Gazette</footer>
<script>document.querySelector("harbour-box").attachShadow({mode: "open"}).innerHTML =
  "<p data-article>A paragraph in a shadow root about the traders and the spring season at the port.</p>";</script>
</body></html>"""


@pytest.fixture(scope="module")
def split_text_pages():
    with serve_html({"/split": ("", SPLIT_TEXT_PAGE)}) as base_url:
        yield base_url


def test_rules_highlight_every_block_they_select_whatever_its_text_or_tree(tab, server, store, split_text_pages):
    """Blocks were found again by their selector and the start of their text in the element's
    textContent: these four were never highlighted (nor counted, nor copied), though apply_rules takes them."""
    store.put_rules("127.0.0.1", {
        "format": 1, "site": "127.0.0.1", "pages_learned": 3, "confidence": 0.9,
        "templates": [{"name": "story", "match": ["article.story"], "include": ["article.story"], "exclude": [],
                       "words": [1, 1000]}],
    })
    tab.goto(split_text_pages + "/split")
    state = click_bookmarklet(tab, server)
    assert state["method"] == "rules" and state["template"] == "story", state
    found = apply_rules(store.rules("127.0.0.1"), page=next(store.pages("127.0.0.1")))
    assert found.confident and len(found.text.splitlines()) == 6
    assert tab.evaluate("() => window.sitewise.articleText()").split("\n\n") == found.text.splitlines()
    assert tab.evaluate("() => window.sitewise.highlightedElements().map(e => e.hasAttribute('data-article'))") == [True] * 6
    assert f"{found.words} words in 6 blocks highlighted" in panel_text(tab)


def test_a_block_in_a_shadow_root_is_reported_as_itself(tab, server, store, split_text_pages):
    """A click reaches the document's listener with the shadow host as its target: the mark went to the
    host's block (or none)."""
    tab.goto(split_text_pages + "/split")
    click_bookmarklet(tab, server)
    tab.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
    tab.locator("harbour-box p").click()
    tab.wait_for_function("() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('Thanks')")
    [mark] = store.feedback("127.0.0.1")
    assert mark["text"] == "A paragraph in a shadow root about the traders and the spring season at the port."
    assert mark["selector"] == "body > article.story > harbour-box > p"


def test_a_learned_site_whose_rules_do_not_fit_the_page_is_not_called_unlearned(tab, server, store, split_text_pages):
    store.put_rules("127.0.0.1", {
        "format": 1, "site": "127.0.0.1", "pages_learned": 5, "confidence": 0.9,
        "templates": [{"name": "gallery", "match": ["div.gallery"], "include": ["div.gallery"], "exclude": [],
                       "words": [1, 1000]}],
    })
    tab.goto(split_text_pages + "/split")
    state = click_bookmarklet(tab, server)
    assert "Not learned yet" not in panel_text(tab)
    assert "Learned rules v1 do not fit this page" in panel_text(tab)
    assert state["method"] == "mss" and state["learnedVersion"] == 1, state


@pytest.fixture(scope="module")
def trusted_types_pages():
    with serve_html({
        "/required": ("require-trusted-types-for 'script'", LOCKED_ARTICLE),
        "/no-policies": ("require-trusted-types-for 'script'; trusted-types 'none'", LOCKED_ARTICLE),
    }) as base_url:
        yield base_url


def test_a_page_that_requires_trusted_types_runs_the_bookmarklet(tab, server, trusted_types_pages):
    """The loader set the script's src as a string, which such a page refuses with a TypeError: the click
    did nothing at all (Google's sites, among others, require Trusted Types)."""
    tab.goto(trusted_types_pages + "/required")
    state = click_bookmarklet(tab, server)
    assert state["error"] is None and state["upload"] == "stored", state
    assert len(highlighted(tab)) == 5


def test_a_page_that_allows_no_trusted_types_policy_is_said_in_an_alert(tab, server, trusted_types_pages):
    tab.goto(trusted_types_pages + "/no-policies")
    messages = []
    tab.on("dialog", lambda dialog: (messages.append(dialog.message), dialog.dismiss()))
    tab.evaluate(loader_code(server))
    assert messages and "Trusted Types" in messages[0]


def test_a_refused_mark_says_why(tab, store, tmp_path, split_text_pages):
    """The panel said only "The server did not take the mark (429)."."""
    app = create_app(settings_for(tmp_path, client_marks_per_site_per_day=1), store)
    with serve_app(app) as server:
        tab.goto(split_text_pages + "/split")
        click_bookmarklet(tab, server)
        tab.locator("sitewise-panel").get_by_role("button", name="Report a block").click()
        for paragraph, answer in (("p:has-text('Dock workers')", "Thanks"), ("p:has-text('The harbour')", "did not take")):
            tab.locator(paragraph).click()
            tab.wait_for_function(f"() => document.querySelector('sitewise-panel').shadowRoot.textContent.includes('{answer}')")
    assert "The server did not take the mark: too many marks on 127.0.0.1 today" in panel_text(tab)
