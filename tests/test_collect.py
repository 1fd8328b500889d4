"""The collector (bookmarklet/collect.js) in real Chromium, through sitewise.collect, on fixture pages
served as stored pages with the network blocked."""
from __future__ import annotations

import json
import os
import re
import select
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import jsonschema
import pytest
from bookmarklet_support import serve_app
from flask import Flask, Response, request

import sitewise

from sitewise.collect import (
    CHROMIUM,
    CHROMIUM_ARGS,
    FULL_CHROMIUM,
    HEADLESS_SHELL,
    MAX_DOCUMENTS,
    CollectError,
    Collector,
    StoredPage,
    collect_js_source,
    content_type_for,
    expand_style_table,
)
from sitewise.page import MAX_BLOCKS, MAX_DEPTH, STYLE_PROPERTIES, Page, PageError

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).parent / "fixtures" / "collect"
SCHEMA = json.loads((Path(__file__).parents[1] / "sitewise" / "schema" / "page.schema.json").read_text())
BASE = "http://fixture.test/dir/"


@pytest.fixture(scope="module")
def collector():
    with Collector(workers=2, timeout_s=15) as running:
        yield running


def stored(name: str, url: str | None = None) -> StoredPage:
    return StoredPage(url or BASE + name, (FIXTURES / name).read_bytes())


def collect(collector: Collector, name: str, url: str | None = None) -> Page:
    item = stored(name, url)
    return collector.collect_stored(item.url, item.body)


def texts(page: Page) -> list[str]:
    return [block.text for block in page.blocks]


def block_with(page: Page, text: str):
    matches = [block for block in page.blocks if block.text == text]
    assert len(matches) == 1, f"{text!r} in {texts(page)}"
    return matches[0]


# -- blocks ----------------------------------------------------------------------------------------


def test_inline_elements_merge_into_their_paragraph(collector):
    page = collect(collector, "inline.html")
    assert texts(page) == [
        "The quick brown fox jumps over the lazy dog, says Example Org.",
        "First line second line third line",
        "An anchor without href is not a link.",
        "Tags: alpha beta",
        "Left column text",
        "Right column text",
    ]
    paragraph = page.blocks[0]
    assert paragraph.tag == "p" and paragraph.selector == "body > p#para"
    assert paragraph.link_chars == len("quick") + len("Example Org")
    assert block_with(page, "An anchor without href is not a link.").link_chars == 0
    # inline-block divs laid out as columns are blocks of their own
    assert block_with(page, "Left column text").selector == "body > div#columns > div.col"


def test_hidden_text_is_skipped_and_visible_text_kept(collector):
    page = collect(collector, "hidden.html")
    assert not [text for text in texts(page) if "HIDDEN" in text]
    assert texts(page) == [
        "Visible paragraph one.",
        "but this child is shown",
        "shown at 16px",
        "Summary shown",
        "Open summary",
        "Open details body shown",
        "Aria hidden but visible",
        "Faded in later by a script",
        "Overflowing a zero-height box is still visible",
        "Visible paragraph two.",
    ]
    assert block_with(page, "Aria hidden but visible").extra["attrs"] == {"aria-hidden": "true"}


def test_nested_blocks_keep_their_own_text(collector):
    page = collect(collector, "nested.html")
    assert [(block.text, block.selector) for block in page.blocks] == [
        ("Intro text outro text", "body > div#outer"),
        ("Inner paragraph", "body > div#outer > p#inner"),
        ("First item", "body > ul#list > li"),
        ("Second item", "body > ul#list > li"),
        ("Caption text", "body > table#table > caption"),
        ("Cell one", "body > table#table > tbody > tr > td"),
        ("Cell two", "body > table#table > tbody > tr > td"),
        ("Contents text joins the section", "body > section#section"),
        ("Flex item one", "body > div#flex.flex > span"),
        ("Flex item two", "body > div#flex.flex > span"),
        ("Floated span is a block", "body > span#floated"),
        ("Deep paragraph", "body > article#deep > div > div > div > p"),
    ]
    deep = block_with(page, "Deep paragraph")
    assert deep.path == ["html", "body", "article", "div", "div", "div", "p"]
    assert block_with(page, "Second item").link_chars == len("item")
    outer, inner = block_with(page, "Intro text outro text"), block_with(page, "Inner paragraph")
    assert outer.box.top <= inner.box.top and inner.box.bottom <= outer.box.bottom


def test_selectors_escape_identifiers(collector):
    page = collect(collector, "selectors.html")
    assert [block.selector for block in page.blocks] == [
        r"body > div#main.wrap.container > article.story.md\:w-1\/2 > p.body.\32 col",
        r"body > div#main.wrap.container > article.story.md\:w-1\/2 > p#\31 st.body",
        "body > main > p",
    ]


def test_style_is_the_documented_properties_normalised(collector):
    page = collect(collector, "styles.html")
    styled = block_with(page, "Styled paragraph")
    assert tuple(styled.style) == STYLE_PROPERTIES
    assert styled.style == {
        "display": "block", "position": "static", "float": "none",
        "font-family": "helvetica neue", "font-size": "18px", "font-weight": "700", "font-style": "italic",
        "line-height": "26px", "color": "rgb(255, 0, 0)", "background-color": "rgba(0, 0, 255, 0.5)",
        "text-align": "center", "text-decoration-line": "underline", "text-transform": "uppercase",
        "letter-spacing": "1px", "white-space": "pre-wrap", "list-style-type": "disc",
        "margin-top": "2px", "margin-right": "2px", "margin-bottom": "3px", "margin-left": "0px",
        "padding-top": "5px", "padding-right": "5px", "padding-bottom": "5px", "padding-left": "5px",
        "border-top-style": "dashed", "border-bottom-style": "none", "border-left-style": "none",
        "border-right-style": "none",
    }
    item = block_with(page, "Square item")
    assert item.style["display"] == "list-item" and item.style["list-style-type"] == "square"
    assert item.style["line-height"] == "normal" and item.style["letter-spacing"] == "normal"
    floated = block_with(page, "Right and relative")
    assert (floated.style["float"], floated.style["position"]) == ("right", "relative")


def test_boxes_are_in_page_coordinates(collector):
    page = collect(collector, "styles.html")
    boxes = [block.box for block in page.blocks]
    assert all(box.width > 0 and box.height > 0 for box in boxes)
    assert boxes[0].top < boxes[1].top  # document order, top to bottom
    assert page.viewport == {"width": 1280, "height": 900}


# -- metadata --------------------------------------------------------------------------------------


def test_metadata_titles_descriptions_canonical_lang(collector):
    page = collect(collector, "metadata.html")
    assert page.titles == ["Document title", "Open Graph title", "Twitter title"]
    assert page.descriptions == ["Meta description", "Open Graph description"]
    assert page.canonical_url == "http://fixture.test/articles/42?ref=home"  # rel=canonical wins over og:url
    assert page.lang == "de-AT"
    assert page.collector == "playwright" and page.collected_at
    assert page.key == page.canonical_url and page.site == "fixture.test"


def test_og_url_is_the_canonical_url_when_there_is_no_link(collector):
    page = collect(collector, "og-url.html")
    assert page.canonical_url == "http://fixture.test/canonical/path"
    assert page.lang == "fr"  # from Content-Language when <html> has no lang


def test_page_without_metadata(collector):
    page = collect(collector, "selectors.html")
    assert page.canonical_url is None and page.descriptions == [] and page.titles == ["Selectors"]


def test_output_follows_the_schema_and_page_model(collector):
    page = collect(collector, "nested.html")
    data = page.to_dict()
    jsonschema.validate(data, SCHEMA)
    assert Page.from_dict(json.loads(json.dumps(data))) == page


# -- odd pages ------------------------------------------------------------------------------------


def test_open_shadow_roots_and_slots_are_read(collector):
    page = collect(collector, "shadow.html")
    assert not [text for text in texts(page) if "HIDDEN" in text]
    title = block_with(page, "Slotted title")
    assert title.selector == "body > story-card#card > h2.title" and title.style["color"] == "rgb(0, 128, 0)"
    assert block_with(page, "Shadow paragraph with a link").link_chars == len("a link")
    assert texts(page).index("Light paragraph before") < texts(page).index("Slotted title")
    assert "Default slot text" in texts(page) and "Fallback content shown" in texts(page)
    assert texts(page)[-1] == "Light paragraph after"


def test_odd_markup_does_not_stop_the_collector(collector):
    page = collect(collector, "odd.html")
    assert not [text for text in texts(page) if "HIDDEN" in text]
    assert "Math: x=2" in texts(page)  # a formula is inline text
    assert "😀 emoji and & entities <tags>" in texts(page)
    assert "Last misnested tags" in texts(page)
    assert "Text directly in body Stray text in a row Custom element text Old font tag" in texts(page)


def test_elements_named_like_document_properties_do_not_stop_the_collector(collector):
    # <img name="title"> makes document.title that image (named elements override the document's own
    # properties): cleaneval/final/441, an archived film review site, failed with "text.replace is not a
    # function".
    page = collect(collector, "named-title.html")
    assert page.titles == ["The real title"]
    assert "Search the archive" in texts(page)
    assert any(text.startswith("An old page whose navigation image") for text in texts(page))


def test_unlabelled_latin1_bytes_are_decoded(collector):
    page = collect(collector, "latin1.html")
    assert texts(page) == ["Café crème brûlée"]
    assert content_type_for((FIXTURES / "latin1.html").read_bytes()) == "text/html; charset=windows-1252"
    assert content_type_for("<p>é</p>".encode()) == "text/html; charset=utf-8"
    assert content_type_for(b'<meta charset="koi8-r"><p>x</p>') == "text/html"  # the page says it itself
    # a <meta> in a comment, or naming no charset, says nothing: the bytes are labelled as decode_html reads them
    assert content_type_for(b'<!-- <meta charset="koi8-r"> --><p>caf\xc3\xa9</p>') == "text/html; charset=utf-8"
    assert content_type_for(b'<meta charset="unicode_escape"><p>caf\xe9</p>') == "text/html; charset=windows-1252"


def test_large_page(collector):
    paragraphs = "".join(
        f'<div class="row"><p>Paragraph {i} with <a href="/p{i}">a link</a> and <b>bold</b> text.</p></div>'
        for i in range(3000)
    )
    body = f"<!DOCTYPE html><title>Large</title><body>{paragraphs}</body>".encode()
    outcome = collector.run_many([StoredPage("http://large.test/", body)], progress=False)[0]
    assert outcome.page is not None, outcome.error
    assert len(outcome.page.blocks) == 3000
    assert outcome.page.blocks[-1].text == "Paragraph 2999 with a link and bold text."
    print(f"collect.js on 3000 blocks / 15000 elements: {outcome.collect_ms:.0f} ms")


def test_a_page_nested_as_deep_as_the_parser_goes_is_collected(collector):
    nesting = 5000  # unclosed <div>s: the parser stops nesting them at its depth limit
    page = collector.collect_stored("http://deep.test/", b"<p>Intro</p>" + b"<div>" * nesting + b"Deep text")
    assert texts(page) == ["Intro", "Deep text"]
    assert len(page.blocks[1].path) == MAX_DEPTH


# -- stored pages and batches ----------------------------------------------------------------------


def test_stored_page_is_served_at_its_url_with_the_network_blocked(collector):
    page = collect(collector, "stored.html", "https://news.example.com/2024/story.html")
    notes = texts(page)
    assert "location https://news.example.com/2024/story.html" in notes
    assert "resolved https://news.example.com/other/page.html" in notes
    for resource in ("stylesheet", "script", "image", "fetch"):
        assert f"{resource} blocked" in notes
    assert not [note for note in notes if "LOADED" in note]
    assert page.url == "https://news.example.com/2024/story.html" and page.site == "example.com"


def test_pages_that_navigate_away_or_open_dialogs_stay(collector):
    page = collect(collector, "redirect.html")
    assert page.url == BASE + "redirect.html"
    assert texts(page) == ["The stored article stays."]


def test_pages_that_never_finish_loading_are_collected_after_their_scripts_stop(collector):
    outcome = collector.run_many([stored("error-loop.html")], timeout_s=10, progress=False)[0]
    assert outcome.page is not None, outcome.error
    assert texts(outcome.page) == ["The article text is here.", "Written by a script before the loop took over."]
    # the next page in the same tab runs its scripts again
    assert "location http://fixture.test/dir/stored.html" in texts(collect(collector, "stored.html"))


def _recording_app() -> tuple[Flask, list[str]]:
    """A live site that answers every path with a page, and the paths it was asked for."""
    requested: list[str] = []
    app = Flask(__name__)

    @app.get("/<path:name>")
    def answer(name: str) -> str:
        requested.append(request.path)
        return "<p>Fetched from the network.</p>"

    return app, requested


@pytest.mark.parametrize("executable", [path for path in (HEADLESS_SHELL, FULL_CHROMIUM) if os.path.exists(path)])
def test_popups_of_stored_pages_fetch_nothing(executable):
    app, requested = _recording_app()
    with serve_app(app) as base, Collector(workers=1, timeout_s=15, executable_path=executable) as collector:
        opener = StoredPage("http://popup.test/open", f"<p>Opener</p><script>window.open('{base}/opened')</script>".encode())
        clicker = StoredPage(
            "http://popup.test/click",
            f"<p><a id=away href='{base}/clicked' target=_blank>Clicker</a></p><script>away.click()</script>".encode(),
        )
        pages = collector.collect_many([opener, clicker], progress=False)
        assert [texts(page) for page in pages] == [["Opener"], ["Clicker"]]
        time.sleep(1)  # a popup loads beside its opener, after it was collected
        assert requested == []
        # the same browser still loads live pages
        assert texts(collector.collect_url(base + "/live")) == ["Fetched from the network."]


#: Waited after collection for a prefetch or prerender the page asked for.
SPECULATION_GRACE_S = 0.5


@pytest.mark.parametrize("executable", [path for path in (HEADLESS_SHELL, FULL_CHROMIUM) if os.path.exists(path)])
def test_speculation_rules_of_stored_pages_fetch_nothing(executable):
    app, requested = _recording_app()
    with serve_app(app) as base, Collector(workers=1, timeout_s=15, executable_path=executable) as collector:
        rules = {"prefetch": [{"source": "list", "urls": [f"{base}/prefetched"]}],
                 "prerender": [{"source": "list", "urls": [f"{base}/prerendered"]}]}
        body = f"<p>Article</p><script type=speculationrules>{json.dumps(rules)}</script>"
        assert texts(collector.collect_stored("http://speculation.test/", body.encode())) == ["Article"]
        time.sleep(SPECULATION_GRACE_S)
    assert requested == []


#: How long the WebRTC page below holds its load event: ICE gathering sends its first STUN packet and
#: opens its TURN connection within milliseconds, well before the collector reads the page.
RTC_HOLD_MS = 500
#: Waited after collection for packets sent late.
RTC_GRACE_S = 0.5


@pytest.mark.parametrize("executable", [path for path in (HEADLESS_SHELL, FULL_CHROMIUM) if os.path.exists(path)])
def test_webrtc_of_stored_pages_reaches_nothing(executable):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as stun, socket.socket() as turn:
        stun.bind(("127.0.0.1", 0))
        turn.bind(("127.0.0.1", 0))
        turn.listen()
        servers = json.dumps({"iceServers": [
            {"urls": f"stun:127.0.0.1:{stun.getsockname()[1]}"},
            {"urls": f"turn:127.0.0.1:{turn.getsockname()[1]}?transport=tcp", "username": "u", "credential": "p"},
        ]})
        # A peer connection in the page, in an iframe made by script (a fresh realm's constructor) and
        # in a srcdoc iframe; the open iframe document holds the page's load while ICE gathers.
        connect = f"function connect(realm) {{ const pc = new realm.RTCPeerConnection({servers}); " \
                  "pc.createDataChannel('x'); pc.setLocalDescription(); }"
        body = f"""<p>Article</p><iframe id=hold></iframe>
            <iframe srcdoc="<script>{connect.replace('"', '&quot;')}; connect(window)</script>"></iframe>
            <script>
            hold.contentDocument.open();
            setTimeout(() => hold.contentDocument.close(), {RTC_HOLD_MS});
            {connect}
            const fresh = document.createElement("iframe");
            document.body.append(fresh);
            for (const realm of [window, fresh.contentWindow]) try {{ connect(realm); }} catch (error) {{}}
            </script>"""
        with Collector(workers=1, timeout_s=15, executable_path=executable) as collector:
            page = collector.collect_stored("http://webrtc.test/", body.encode())
            reached, _, _ = select.select([stun, turn], [], [], RTC_GRACE_S)
    assert texts(page) == ["Article"]
    assert reached == []


def test_file_urls_are_served_too(collector):
    path = FIXTURES / "inline.html"
    page = collector.collect_stored(path.resolve().as_uri(), path.read_bytes())
    assert page.site == "local" and page.blocks[0].text.startswith("The quick brown fox")


def closed_port_url() -> str:
    """A loopback URL nobody listens on (a port just released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/unreachable"


def test_failing_pages_are_reported_while_the_rest_go_on(collector):
    items = [stored("inline.html"), stored("hang.html"), closed_port_url(), stored("nested.html")]
    results = collector.collect_many(items, timeout_s=4, progress=False)
    assert isinstance(results[0], Page) and results[0].blocks[0].selector == "body > p#para"
    assert isinstance(results[1], CollectError) and results[1].message == "timed out after 4s"
    assert results[1].url == BASE + "hang.html"
    assert isinstance(results[2], CollectError) and "ERR_CONNECTION_REFUSED" in results[2].message
    assert isinstance(results[3], Page) and results[3].blocks[0].text == "Intro text outro text"
    with pytest.raises(CollectError, match="timed out"):
        collector.collect_stored(BASE + "hang.html", (FIXTURES / "hang.html").read_bytes())
    # the collector is still fine after a hung page
    assert collect(collector, "styles.html").blocks


def test_a_page_that_hangs_as_it_leaves_does_not_take_the_next_one_down(collector):
    """A page's scripts run on as it leaves, after it was collected: one that hung in its pagehide (or
    unload) handler kept the next page in its tab from showing, and one that hung in beforeunload kept
    the next from even starting; either timed out."""
    next_page = StoredPage("http://leaving.test/next", b"<p>The next page.</p>")
    on_pagehide = StoredPage("http://leaving.test/a", b"<p>Hiding</p><script>onpagehide = () => { while (true) {} }</script>")
    on_beforeunload = StoredPage(
        "http://leaving.test/b", b"<p>Unloading</p><script>addEventListener('beforeunload', () => { while (true) {} })</script>"
    )
    items = [on_pagehide, next_page, on_beforeunload, next_page]
    results = collector.collect_many(items, workers=1, timeout_s=5, progress=False)  # one worker, one tab
    assert [texts(page) for page in results] == [["Hiding"], ["The next page."], ["Unloading"], ["The next page."]]


@pytest.mark.parametrize("timeout_s", [0, -1, float("nan")])
def test_a_timeout_that_is_not_a_positive_number_is_refused(timeout_s):
    with pytest.raises(ValueError, match="timeout_s must be positive"):
        Collector(timeout_s=timeout_s)


def test_same_url_twice_in_one_tab_renders_both(collector):
    first = StoredPage("http://same.test/a#one", b"<p>first version</p>")
    second = StoredPage("http://same.test/a#two", b"<p>second version</p>")
    results = collector.collect_many([first, second], workers=1, progress=False)  # one worker, one tab
    assert [texts(page)[0] for page in results] == ["first version", "second version"]


def test_disk_cache_reuses_rendered_pages(tmp_path):
    item = stored("inline.html")
    changed = StoredPage(item.url, item.body.replace(b"quick", b"slow"))
    with Collector(workers=1, cache_dir=tmp_path) as cached:
        first = cached.run_many([item], progress=False)[0]
        again, other = cached.run_many([item, changed], progress=False)
    assert not first.cached and again.cached and not other.cached
    assert again.page == first.page
    assert other.page.blocks[0].text.startswith("The slow brown fox")
    assert len(list(tmp_path.rglob("*.json.gz"))) == 2


def test_a_cache_that_cannot_be_written_does_not_stop_the_batch(tmp_path):
    (tmp_path / "file").write_text("in the way")
    with Collector(workers=1, cache_dir=tmp_path / "file" / "cache") as collector:
        outcomes = collector.run_many([stored("inline.html"), stored("nested.html")], progress=False)
    assert [texts(outcome.page)[0][:9] for outcome in outcomes] == ["The quick", "Intro tex"]


def test_serialized_dom_on_request():
    with Collector(workers=1, include_html=True) as collector:
        page = collector.collect_stored(BASE + "inline.html", (FIXTURES / "inline.html").read_bytes())
    assert page.html and page.html.startswith("<html") and 'id="para"' in page.html


#: A page whose article is in an open shadow root (attached by a script; outerHTML holds none of it),
#: with a nested one, a slotted headline and a closed one (no script can read that).
SHADOW_ARTICLE = b"""<!DOCTYPE html><html lang="en"><head><title>Harbor strike ends</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a></nav><article-body id="story"><h1 slot="headline">Harbor strike ends</h1>
</article-body><closed-box>Closed host text</closed-box><footer><p>Harbor News</p></footer>
<script>
  var story = document.getElementById("story").attachShadow({mode: "open"});
  story.innerHTML = '<slot name="headline"></slot>' +
    '<p>The harbor workers voted on Tuesday to end the strike that had closed the port for weeks.</p>' +
    '<quote-box></quote-box><p>The union and the shipping companies agreed on wages &amp; shifts.</p>';
  story.querySelector("quote-box").attachShadow({mode: "open"}).innerHTML = "<blockquote>We won, said the union.</blockquote>";
  document.querySelector("closed-box").attachShadow({mode: "closed"}).innerHTML = "<p>HIDDEN closed</p>";
</script></body></html>"""


def test_serialized_dom_holds_open_shadow_roots_as_declarative_ones():
    # outerHTML never holds shadow trees: the fallback read a page without its article
    with Collector(workers=1, include_html=True) as collector:
        page = collector.collect_stored(BASE + "shadow-article.html", SHADOW_ARTICLE)
        plain = collector.collect_stored(BASE + "inline.html", (FIXTURES / "inline.html").read_bytes())
    html = page.html
    assert html.startswith('<html lang="en">') and html.count('<template shadowrootmode="open">') == 2
    story = html.index('<article-body id="story"><template shadowrootmode="open"><slot name="headline"></slot>')
    assert story < html.index("voted on Tuesday") < html.index("<quote-box><template shadowrootmode=\"open\"><blockquote>")
    assert html.index("</template><h1 slot=\"headline\">") > story  # the host's own children follow
    assert "<closed-box>Closed host text</closed-box>" in html  # a closed shadow root stays unread
    text = sitewise.extract(html, url=page.url)
    assert "voted on Tuesday" in text and "wages & shifts" in text
    # a page without shadow roots is its outerHTML, as before
    assert "<template" not in plain.html and plain.html.startswith("<html") and 'id="para"' in plain.html


# -- pages that patch built-ins ----------------------------------------------------------------------

#: A page with what the collector reads: metadata, links, classes, a quoted font, bold text, a clipped
#: box, an inline-block column.
HOSTILE_BODY = """<link rel="canonical" href="/story/1"><meta property="og:title" content="Harbor strike ends">
<meta name="description" content="  The strike is over.  "><style>h1 { font: bold 2em "Times New Roman", serif; }
.sr { position: absolute; clip: rect(0 0 0 0); overflow: hidden; } .col { display: inline-block; }</style>
</head><body><article class="story  main"><h1 id="head">Harbor strike ends</h1>
<p>The harbor workers <a href="/union">voted</a> to end the strike   after nine days.</p>
<p class="sr">Skip to content</p><div class="col">Left</div><div class="col">Right</div></article></body></html>"""

#: Scripts of real pages that patch what the collector uses: Prototype.js 1.6's toJSON family (JSON.stringify
#: then writes arrays as strings), broken polyfills, overridden globals and DOM methods.
BUILT_IN_PATCHES = {
    "prototype-1.6-toJSON": "Array.prototype.toJSON = function () { var r = []; for (var i = 0; i < this.length; i++) {"
                            " var v = JSON.stringify(this[i]); if (v !== undefined) r.push(v); } return '[' + r.join(', ') + ']'; };"
                            " String.prototype.toJSON = function () { return 'X'; }; Number.prototype.toJSON = String.prototype.toJSON;"
                            " Object.defineProperty(Object.prototype, 'toJSON', {value: function () { return 'X'; }});",
    "no-op-push": "Array.prototype.push = function () { return 0; };",
    "array-methods": "['pop', 'map', 'filter', 'join', 'concat', 'slice', 'some', 'indexOf', 'forEach'].forEach(function (name) {"
                     " Array.prototype[name] = function () { throw new Error(name); }; });",
    "string-methods": "['trim', 'replace', 'split', 'toLowerCase', 'indexOf', 'slice'].forEach(function (name) {"
                      " String.prototype[name] = function () { return 'X'; }; });",
    "regexp-methods": "RegExp.prototype.exec = function () { return null; }; RegExp.prototype.test = function () { return false; };",
    "function-methods": "Function.prototype.call = Function.prototype.apply = Function.prototype.bind = function () { throw new Error('f'); };",
    "globals": "window.Map = function () {}; window.JSON = {stringify: function () { return '{}'; }}; window.parseFloat = function () { return 0; };"
               " window.CSS = {escape: function () { return 'X'; }}; Math.round = Math.max = Math.min = function () { throw new Error('m'); };"
               " window.Date = function () {}; window.URL = function () { throw new Error('u'); };",
    "computed-style": "window.getComputedStyle = function () { return {display: 'none', getPropertyValue: function () { return 'none'; }}; };"
                      " CSSStyleDeclaration.prototype.getPropertyValue = function () { return 'none'; };",
    "dom-methods": "document.querySelectorAll = document.querySelector = function () { throw new Error('q'); };"
                   " Document.prototype.querySelectorAll = Element.prototype.querySelectorAll = document.querySelectorAll;"
                   " document.createElement = function () { return null; };"
                   " Element.prototype.getAttribute = function () { return null; };"
                   " Element.prototype.getBoundingClientRect = function () { return {left: 0, top: 0, width: 0, height: 0}; };",
    "clock-and-layout": "performance.now = function () { throw new Error('p'); }; Number.prototype.toFixed = function () { return {}; };"
                        " Element.prototype.getBoundingClientRect = function () { throw new Error('b'); };",
}


def hostile_page(patch: str) -> bytes:
    return f"<!DOCTYPE html><html lang=en><head><title>Harbor</title><script>{patch}</script>{HOSTILE_BODY}".encode()


def test_pages_that_patch_built_ins_are_collected_as_clean_ones(collector):
    url = "http://fixture.test/story/1?x"
    expected = collector.collect_stored(url, hostile_page("")).to_dict()
    expected.pop("collected_at")
    assert expected["titles"] == ["Harbor", "Harbor strike ends"] and expected["lang"] == "en"
    assert [b["text"] for b in expected["blocks"]][:2] == ["Harbor strike ends", "The harbor workers voted to end the strike after nine days."]
    for name, patch in BUILT_IN_PATCHES.items():
        collected = collector.collect_stored(url, hostile_page(patch)).to_dict()
        collected.pop("collected_at")
        assert collected == expected, name


# -- collect.js as a bookmarklet script ----------------------------------------------------------


def test_collect_js_as_a_plain_script_adds_three_globals_and_changes_nothing():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.set_content((FIXTURES / "nested.html").read_text())
            page.evaluate(
                """() => { window.__mutations = [];
                new MutationObserver(r => r.forEach(m => window.__mutations.push(m.type + ' ' +
                    [...m.addedNodes].map(n => '+' + n.nodeName).concat([...m.removedNodes].map(n => '-' + n.nodeName)).join())))
                  .observe(document, {subtree: true, childList: true, attributes: true, characterData: true}); }"""
            )
            before = page.evaluate("() => [Object.keys(window), document.documentElement.outerHTML]")
            page.evaluate(collect_js_source())  # run as a script, the way the bookmarklet loads it
            collected = json.loads(page.evaluate("() => window.sitewiseCollectJSON({})"))
            tabled = json.loads(page.evaluate("() => window.sitewiseCollectJSON({styleTable: true})"))
            after = page.evaluate("() => [Object.keys(window), document.documentElement.outerHTML]")
            mutations = page.evaluate("() => new Promise(done => setTimeout(() => done(window.__mutations), 50))")
        finally:
            browser.close()
    assert set(after[0]) - set(before[0]) == {"sitewiseCollect", "sitewiseCollectJSON", "sitewiseBuiltins"}
    # the only change, undone at once: the empty frame whose window lends the pristine built-ins
    assert after[1] == before[1] and mutations == ["childList +IFRAME", "childList -IFRAME"]
    assert collected["collector"] == "bookmarklet"
    assert Page.from_dict({**collected, "url": "http://fixture.test/"}).blocks[0].text == "Intro text outro text"
    # sitewise.collect asks for each distinct style once; expanded, it is the plain format again
    assert len(tabled["styles"]) < len(tabled["blocks"]) and all(isinstance(b["style"], int) for b in tabled["blocks"])
    assert expand_style_table(tabled)["blocks"] == collected["blocks"] and "styles" not in tabled


def test_a_broken_style_table_is_an_invalid_page():
    row = ["x"] * len(STYLE_PROPERTIES)
    with pytest.raises(PageError, match=r"blocks\[1\]\.style"):
        expand_style_table({"styles": [row], "blocks": [{"style": 0}, {"style": 1}]})
    with pytest.raises(PageError, match="styles"):
        expand_style_table({"styles": [row[1:]], "blocks": [{"style": 0}]})
    with pytest.raises(PageError, match=r"blocks\[0\]\.style"):
        expand_style_table({"styles": [row, row], "blocks": [{"style": True}]})
    # the block count is checked before any block is expanded (the server expands uploads)
    with pytest.raises(PageError, match=f"at most {MAX_BLOCKS}"):
        expand_style_table({"styles": [row], "blocks": [{"style": 0}] * (MAX_BLOCKS + 1)})


def test_noscript_content_shows_only_when_scripts_are_off(collector):
    body = b"<p>always</p><noscript><p>enable JavaScript</p></noscript>"
    assert texts(collector.collect_stored("http://ns.test/", body)) == ["always"]
    with Collector(workers=1, javascript=False) as unscripted:
        assert texts(unscripted.collect_stored("http://ns.test/", body)) == ["always", "enable JavaScript"]


# -- the block cap ---------------------------------------------------------------------------------

#: What collect.js says of a page past sitewise.page.MAX_BLOCKS.
TOO_MANY_BLOCKS = "the page has more than 20,000 text blocks; sitewise accepts at most 20,000"


def thread_of(comments: int) -> bytes:
    """A page of ``comments`` one-line blocks (a long comment thread)."""
    return ("<!DOCTYPE html><title>Thread</title>" + "".join(f"<p>Comment {i}</p>" for i in range(comments))).encode()


@pytest.mark.parametrize("name", ["MAX_BLOCKS", "MAX_HTML_CHARS"])
def test_collect_js_knows_the_page_formats_limits(name):
    mirrored = re.search(rf"var {name} = (\d+);", collect_js_source())
    assert mirrored and int(mirrored.group(1)) == getattr(sitewise.page, name)


def test_a_page_of_more_blocks_than_accepted_is_refused_and_the_others_go_on(collector):
    over, small, full = collector.run_many([
        StoredPage("http://over.test/", thread_of(MAX_BLOCKS + 1)),
        StoredPage("http://small.test/", b"<p>Short</p>"),
        StoredPage("http://full.test/", thread_of(MAX_BLOCKS)),
    ], progress=False)
    assert over.page is None and over.error.message == TOO_MANY_BLOCKS
    assert texts(small.page) == ["Short"]
    assert full.error is None and len(full.page.blocks) == MAX_BLOCKS
    print(f"{MAX_BLOCKS + 1} blocks refused in {over.seconds:.2f} s; {MAX_BLOCKS} collected in {full.seconds:.2f} s")


def test_collect_js_stops_walking_at_the_first_block_past_the_cap():
    from playwright.sync_api import sync_playwright

    # Past the cap, a block notes when the walk reads it (collect.js reads nodes' own properties as the page has them).
    after = "<p id=after>After</p><script>Object.defineProperty(after, 'shadowRoot', {get() { window.walked = true; }})</script>"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page()
            page.set_content(thread_of(MAX_BLOCKS + 1).decode() + after)
            page.evaluate(collect_js_source())
            refusal = page.evaluate("""() => { try { window.sitewiseCollect({}); } catch (error) {
                return [error.name, error.message, window.walked || false]; } }""")
        finally:
            browser.close()
    assert refusal == ["PageRefused", TOO_MANY_BLOCKS, False]


# -- live pages ------------------------------------------------------------------------------------


def live_site() -> Flask:
    """Live pages that redirect by script or misbehave as documents: each path is a case."""
    app = Flask(__name__)
    pages = {
        "story": "<p>The story itself.</p>",
        "replaces": "<script>location.replace('/story')</script><p>Moving</p>",
        "assigns": "<p>Moving on</p><script>location.href = '/story'</script>",
        "leaves-late": "<p>Leaving after load</p><script>onload = () => setTimeout(() => location.href = '/story')</script>",
        "ping": "<script>location.replace('/pong')</script>",
        "pong": "<script>location.replace('/ping')</script>",
    }

    @app.get("/<name>")
    def page(name: str) -> tuple[str, int]:
        return pages[name], 200

    return app


#: Loads of a page that leaves just after load: enough that one leaves while it is collected.
LEAVING_TRIES = 6


def test_live_pages_that_move_on_by_script_are_collected_where_they_end_up():
    with serve_app(live_site()) as base, Collector(workers=1, timeout_s=5) as collector:
        pages = collector.collect_many([f"{base}/replaces", f"{base}/assigns"], progress=False)
        assert [(page.url, texts(page)) for page in pages] == [(f"{base}/story", ["The story itself."])] * 2
        # Leaving just after load: collected before it leaves, or where it went if that tore the
        # document from under the collector (it did about every other time).
        for page in collector.collect_many([f"{base}/leaves-late"] * LEAVING_TRIES, progress=False):
            assert isinstance(page, Page), page
            assert (page.url, texts(page)) in [(f"{base}/leaves-late", ["Leaving after load"]), (f"{base}/story", ["The story itself."])]
        with pytest.raises(CollectError, match=f"the page kept navigating: more than {MAX_DOCUMENTS} documents"):
            collector.collect_url(f"{base}/ping")


def test_live_error_pages_downloads_and_other_documents_are_errors_of_their_own():
    app = Flask(__name__)

    @app.get("/story")
    def story() -> str:
        return "<p>The story itself.</p>"

    @app.get("/missing")
    def missing() -> tuple[str, int]:
        return "<h1>Not Found</h1><p>Nothing is here.</p>", 404

    @app.get("/broken")
    def broken() -> tuple[str, int]:
        return "<h1>Internal Server Error</h1>", 500

    @app.get("/data")
    def data() -> dict:
        return {"text": "not a page"}

    @app.get("/file")
    def file() -> tuple[str, int, dict]:
        return "<p>An attachment</p>", 200, {"Content-Disposition": "attachment; filename=story.html"}

    with serve_app(app) as base, Collector(workers=2, timeout_s=5) as collector:
        names = ["missing", "broken", "data", "file", "story"]
        results = dict(zip(names, collector.collect_many([f"{base}/{name}" for name in names], progress=False)))
    assert [str(results[name]) for name in names[:4]] == [
        f"{base}/missing: HTTP 404: the server answered with an error page",
        f"{base}/broken: HTTP 500: the server answered with an error page",
        f"{base}/data: not a web page but application/json",
        f"{base}/file: a download, not a page",
    ]
    assert texts(results["story"]) == ["The story itself."]


#: Longest a stalling test server holds its answer (released at the end of the test).
STALL_S = 10


def test_a_live_page_still_loading_at_half_its_time_is_stopped_and_collected():
    """A server that stalls the body, or a script the parser waits for that never comes, held the
    page until it timed out with nothing collected."""
    release = threading.Event()
    app = Flask(__name__)

    @app.get("/stalls")
    def stalls() -> Response:
        def body() -> Iterator[str]:
            yield "<p>Sent before the stall.</p>"
            release.wait(STALL_S)
            yield "<p>Sent after it.</p>"

        return Response(body(), mimetype="text/html")

    @app.get("/never.js")
    def never() -> str:
        release.wait(STALL_S)
        return ""

    @app.get("/waits")
    def waits() -> str:
        return "<script src=/never.js></script><p>Behind the script.</p>"

    with serve_app(app) as base, Collector(workers=2, timeout_s=3) as collector:
        started = time.perf_counter()
        stalled, waiting = collector.collect_many([f"{base}/stalls", f"{base}/waits"], progress=False)
        took = time.perf_counter() - started
        release.set()
    assert texts(stalled) == ["Sent before the stall."]
    assert str(waiting) == f"{base}/waits: still loading after 1.5s, with nothing shown"
    assert took < 3
