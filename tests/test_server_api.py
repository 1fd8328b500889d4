"""The /api endpoints through Flask's test client, on the real store in a real (embedded) Redis:
every error path answers JSON that names the problem and stores nothing."""
from __future__ import annotations

import gzip
import json

import pytest

import sitewise
from sitewise.api import InputError
from sitewise.page import Page
from sitewise.pipeline import rebuild_html
from sitewise.server import create_app
from comments_support import COMMENTS, URL as BLOG_URL, blog_page
from server_support import as_gzip, as_json, block, page_dict, settings_for, with_change
from sitewise.store import Store


@pytest.fixture
def make_client(store: Store, tmp_path):
    def make(**overrides):
        app = create_app(settings_for(tmp_path, **overrides), store)
        app.testing = True
        return app.test_client()

    return make


@pytest.fixture
def client(make_client):
    return make_client()


def post_page(client, data, **headers):
    body = data if isinstance(data, bytes) else as_json(data)
    return client.post("/api/pages", data=body, headers={"Content-Type": "application/json", **headers})


def assert_nothing_stored(store: Store) -> None:
    assert store.sites() == []
    assert store.redis.keys("sw:site:*") == []


# -- uploads -----------------------------------------------------------------------------------------


def test_upload_stores_the_page_and_answers_the_site_status(client, store):
    response = post_page(client, page_dict())
    assert response.status_code == 201
    body = response.get_json()
    assert body["site"] == "news.example"
    assert body["pages"] == 1 and body["created"] is True
    assert body["learned"] is False and body["rule_version"] is None
    assert body["learning"] == "not_due"
    assert store.get_page("news.example", "https://news.example/a/1").blocks[0].text.startswith("Paragraph 0")


def test_upload_of_the_same_canonical_url_replaces_the_page(client, store):
    first = page_dict("https://www.news.example/a/1?utm=x", canonical_url="https://news.example/a/1")
    second = page_dict("https://news.example/a/1#top", canonical_url="https://news.example/a/1", blocks=5)
    assert post_page(client, first).status_code == 201
    response = post_page(client, second)
    assert response.status_code == 200
    assert response.get_json()["created"] is False and response.get_json()["pages"] == 1
    assert len(store.get_page("news.example", "https://news.example/a/1").blocks) == 5


def test_gzip_upload_is_accepted_with_or_without_the_header(client, store):
    assert post_page(client, as_gzip(page_dict("https://news.example/1")), **{"Content-Encoding": "gzip"}).status_code == 201
    assert post_page(client, as_gzip(page_dict("https://news.example/2"))).status_code == 201
    assert store.page_count("news.example") == 2


@pytest.mark.parametrize(
    "body, error",
    [
        (b"{not json", "bad_json"),
        (b"", "bad_json"),
        (b'{"url": NaN}', "bad_json"),
        (b"\xff\xfe{}", "bad_json"),
        (b"[" * 100_000 + b"]" * 100_000, "bad_json"),
        (b"[1, 2]", "invalid_page"),
    ],
)
def test_malformed_bodies_are_refused(client, store, body, error):
    response = post_page(client, body)
    assert response.status_code == 400
    assert response.is_json and response.get_json()["error"] == error
    assert_nothing_stored(store)


@pytest.mark.parametrize(
    "path, value, field",
    [
        ("url", 42, "url"),
        ("url", "not a url", "url"),
        ("url", "https://a..news.example/1", "url"),
        ("blocks", {"0": 1}, "blocks"),
        ("blocks.1", "text", "blocks[1]"),
        ("blocks.1.text", "", "blocks[1].text"),
        ("blocks.2.box", {"left": 1}, "blocks[2].box"),
        ("blocks.2.box.left", "12", "blocks[2].box.left"),
        ("blocks.0.path", "html body p", "blocks[0].path"),
        ("blocks.0.style", {"color": 3}, "blocks[0].style"),
        ("blocks.0.link_chars", -1, "blocks[0].link_chars"),
        ("blocks.0.attrs", {"role": 5}, "blocks[0].attrs.role"),
        ("titles", "one title", "titles"),
        ("viewport", {"width": "wide"}, "viewport"),
        ("collector", "robot", "collector"),
        ("format", 2, "format"),
    ],
)
def test_a_bad_field_is_named_with_its_reason_and_nothing_is_stored(client, store, path, value, field):
    response = post_page(client, with_change(page_dict(blocks=3), path, value))
    assert response.status_code == 400, response.get_json()
    body = response.get_json()
    assert body["error"] == "invalid_page"
    assert body["field"] == field
    assert body["reason"]
    assert_nothing_stored(store)


def test_a_page_over_the_size_cap_is_refused_with_413(make_client, store):
    client = make_client(max_page_bytes=20_000)
    big = page_dict(blocks=1)
    big["blocks"][0]["text"] = "word " * 10_000
    response = post_page(client, big)
    assert response.status_code == 413
    assert response.get_json()["error"] == "too_large"
    assert_nothing_stored(store)


def test_a_gzip_bomb_is_refused_once_the_decoded_size_passes_the_cap(make_client, store):
    client = make_client(max_page_bytes=100_000)
    bomb = gzip.compress(b" " * 50_000_000)  # ~50 kB on the wire, 50 MB decoded
    assert len(bomb) < 100_000
    response = post_page(client, bomb, **{"Content-Encoding": "gzip"})
    assert response.status_code == 413
    assert_nothing_stored(store)


@pytest.mark.parametrize("body", [b"\x1f\x8b\x08\x00garbage", gzip.compress(as_json(page_dict()))[:-12]])
def test_bad_gzip_is_refused(client, store, body):
    response = post_page(client, body, **{"Content-Encoding": "gzip"})
    assert response.status_code == 400
    assert response.get_json()["error"] == "bad_gzip"
    assert_nothing_stored(store)


def test_unknown_content_encoding_is_refused(client, store):
    response = post_page(client, as_json(page_dict()), **{"Content-Encoding": "br"})
    assert response.status_code == 415
    assert_nothing_stored(store)


def test_uploads_are_rate_limited_per_client(make_client, store):
    client = make_client(uploads_per_minute=3)
    statuses = [post_page(client, page_dict(f"https://news.example/{i}")).status_code for i in range(4)]
    assert statuses == [201, 201, 201, 429]
    response = post_page(client, page_dict("https://news.example/9"))
    assert response.status_code == 429
    assert int(response.headers["Retry-After"]) >= 1
    assert response.get_json()["error"] == "rate_limited"
    assert store.page_count("news.example") == 3
    # Another client has its own allowance.
    other = client.post("/api/pages", data=as_json(page_dict("https://news.example/10")),
                        content_type="application/json", environ_base={"REMOTE_ADDR": "10.1.2.3"})
    assert other.status_code == 201


def test_one_client_cannot_flood_one_site(make_client, store):
    client = make_client(client_pages_per_site_per_day=2)
    statuses = [post_page(client, page_dict(f"https://news.example/{i}")).status_code for i in range(3)]
    assert statuses == [201, 201, 429]
    assert post_page(client, page_dict("https://other.example/1")).status_code == 201


def test_wrong_method_and_unknown_path_answer_json(client):
    response = client.get("/api/pages")
    assert response.status_code == 405 and response.is_json
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and response.is_json


# -- CORS ----------------------------------------------------------------------------------------------


PREFLIGHT = {
    "Origin": "https://news.example",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type, content-encoding",
    "Access-Control-Request-Private-Network": "true",
}


def test_preflight_allows_any_origin_without_credentials(client):
    response = client.options("/api/pages", headers=PREFLIGHT)
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    assert "Content-Encoding" in response.headers["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Private-Network" not in response.headers  # only when configured
    assert "Access-Control-Allow-Credentials" not in response.headers


def test_private_network_access_is_opt_in(store, tmp_path):
    client = create_app(settings_for(tmp_path, allow_private_network=1), store).test_client()
    response = client.options("/api/pages", headers=PREFLIGHT)
    assert response.headers["Access-Control-Allow-Private-Network"] == "true"


def test_errors_carry_cors_headers_too(client):
    response = post_page(client, b"{", Origin="https://news.example")
    assert response.status_code == 400
    assert response.headers["Access-Control-Allow-Origin"] == "*"


# -- sites -----------------------------------------------------------------------------------------------


def test_sites_list_and_site_status(client):
    for i in range(2):
        post_page(client, page_dict(f"https://news.example/{i}"))
    post_page(client, page_dict("https://blog.example/x"))
    listing = client.get("/api/sites").get_json()
    assert listing["total"] == 2
    assert {s["site"]: s["pages"] for s in listing["sites"]} == {"news.example": 2, "blog.example": 1}
    status = client.get("/api/sites/news.example").get_json()
    assert status["pages"] == 2 and status["learned"] is False
    assert "page_keys" not in status  # page URLs are the administrator's to see
    status = client.get("/api/sites/news.example", headers={"Authorization": "Bearer s3cret"}).get_json()
    assert status["page_keys"] == ["https://news.example/1", "https://news.example/0"]


def test_unknown_site_is_404_json(client):
    response = client.get("/api/sites/nowhere.example")
    assert response.status_code == 404
    assert response.get_json() == {"error": "unknown_site", "message": "no pages of nowhere.example have been uploaded",
                                   "site": "nowhere.example", "pages": 0}


@pytest.mark.parametrize("query", ["limit=0", "limit=abc", "offset=-1", "limit=201", "limit=100000"])
def test_bad_paging_is_refused(client, query):
    response = client.get(f"/api/sites?{query}")
    assert response.status_code == 400 and response.get_json()["field"] in ("limit", "offset")


# -- feedback --------------------------------------------------------------------------------------------


def feedback(**fields):
    data = {"url": "https://news.example/a/1", "kind": "not_article", "selector": "body > aside.ad > p",
            "text": "Buy now", "method": "rules", "rule_version": 1}
    data.update(fields)
    return data


def test_feedback_is_stored(client, store):
    post_page(client, page_dict())
    response = client.post("/api/feedback", json=feedback())
    assert response.status_code == 201
    assert response.get_json()["feedback"] == 1
    stored = store.feedback("news.example")
    assert stored[0]["kind"] == "not_article" and stored[0]["selector"] == "body > aside.ad > p"
    assert stored[0]["received_at"]


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"kind": "meh"}, "kind"),
        ({"url": 5}, "url"),
        ({"url": "nohost"}, "url"),
        ({"selector": ""}, "selector"),
        ({"selector": "x" * 5000}, "selector"),
        ({"text": ["a"]}, "text"),
        ({"rule_version": "1"}, "rule_version"),
        ({"method": "magic"}, "method"),
    ],
)
def test_bad_feedback_is_refused(client, store, fields, field):
    post_page(client, page_dict())
    response = client.post("/api/feedback", json=feedback(**fields))
    assert response.status_code == 400
    assert response.get_json()["field"] == field
    assert store.feedback("news.example") == []


def test_feedback_on_an_unknown_site_is_404(client, store):
    response = client.post("/api/feedback", json=feedback(url="https://nowhere.example/x"))
    assert response.status_code == 404
    assert store.redis.keys("sw:site:*") == []


# -- admin -----------------------------------------------------------------------------------------------


def test_admin_needs_the_token(client, store):
    post_page(client, page_dict())
    assert client.delete("/api/admin/sites/news.example").status_code == 401
    wrong = client.delete("/api/admin/sites/news.example", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["WWW-Authenticate"].startswith("Bearer")
    assert store.page_count("news.example") == 1


def test_admin_is_off_without_a_configured_token(make_client, store):
    client = make_client(admin_token="")
    post_page(client, page_dict())
    response = client.delete("/api/admin/sites/news.example", headers={"Authorization": "Bearer "})
    assert response.status_code == 403
    assert store.page_count("news.example") == 1


def test_admin_deletes_a_page_and_a_site(client, store):
    auth = {"Authorization": "Bearer s3cret"}
    for i in range(2):
        post_page(client, page_dict(f"https://news.example/{i}"))
    response = client.delete("/api/admin/sites/news.example/pages?key=https://news.example/0", headers=auth)
    assert response.status_code == 200
    assert store.page_keys("news.example") == ["https://news.example/1"]
    assert client.delete("/api/admin/sites/news.example/pages?key=https://news.example/0", headers=auth).status_code == 404
    assert client.delete("/api/admin/sites/news.example/pages", headers=auth).status_code == 400
    assert client.delete("/api/admin/sites/news.example", headers=auth).status_code == 200
    assert store.sites() == [] and store.page_count("news.example") == 0
    assert client.delete("/api/admin/sites/news.example", headers=auth).status_code == 404


# -- rules -------------------------------------------------------------------------------------------------


def test_rules_of_an_unlearned_site_are_404_with_the_page_count(client):
    post_page(client, page_dict())
    response = client.get("/rules/news.example")
    assert response.status_code == 404
    body = response.get_json()
    assert body["error"] == "not_learned" and body["pages"] == 1 and body["min_pages_to_learn"] == 5
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_rules_are_served_with_etag_and_revalidated(client, store):
    rules = {"templates": [{"name": "story", "match": "article.story", "include": ["article.story"], "exclude": []}],
             "confidence": 0.9}
    store.put_rules("news.example", rules)
    response = client.get("/rules/news.example")
    assert response.status_code == 200
    assert response.get_json()["version"] == 1
    assert response.get_json()["templates"][0]["include"] == ["article.story"]
    etag = response.headers["ETag"]
    assert "max-age" in response.headers["Cache-Control"]
    assert client.get("/rules/news.example", headers={"If-None-Match": etag}).status_code == 304
    assert client.get("/rules/news.example", headers={"If-None-Match": f'"x", W/{etag}'}).status_code == 304
    store.put_rules("news.example", dict(rules, confidence=0.95))
    fresh = client.get("/rules/news.example", headers={"If-None-Match": etag})
    assert fresh.status_code == 200 and fresh.headers["ETag"] != etag and fresh.get_json()["version"] == 2


# -- health ------------------------------------------------------------------------------------------------


def test_healthz_reports_redis(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True and body["redis"]["ok"] is True
    assert isinstance(body["queue"]["learn"], int)


# -- extraction ----------------------------------------------------------------------------------------


ARTICLE_HTML = """<!DOCTYPE html><html><head><title>Harbor strike ends</title></head><body>
<nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a></nav>
<article><h1>Harbor strike ends</h1>
<p>The harbor workers voted on Tuesday to accept the new contract, ending a strike that kept cargo ships
waiting outside the port for three weeks and left shelves half empty across the city.</p>
<p>Union leaders said the agreement raises wages by six percent over two years and limits night shifts,
two demands the port authority had rejected in the spring when talks first broke down.</p>
<p>Shipping companies expect the backlog of containers to clear by the end of the month, though some
warned that delays could last longer for perishable goods held at the docks.</p></article>
<footer>Copyright 2024 The Gazette. <a href="/privacy">Privacy</a></footer></body></html>"""


def story_page(url: str = "https://news.example/a/1") -> dict:
    data = page_dict(url, blocks=0)
    data["blocks"] = [
        block("Home News Sport", "body > nav > ul > li", "li", top=10),
        block("Harbor strike ends", "body > main > article.story > h1", "h1", top=80),
        *[block(f"The harbor workers voted to accept the new contract, paragraph {i}, and ships came in "
                "again for the first time since the long strike began in the cold spring.",
                "body > main > article.story > p", top=140 + 60 * i) for i in range(4)],
        block("Copyright 2024 The Gazette.", "body > footer", "footer", top=600),
    ]
    return data


def test_extract_finds_the_article_in_html_by_mss(client):
    response = client.post("/api/extract", json={"html": ARTICLE_HTML, "url": "https://news.example/x"})
    assert response.status_code == 200
    body = response.get_json()
    assert body["method"] == "mss" and body["site"] == "news.example"
    assert "new contract" in body["text"] and "Privacy" not in body["text"]
    assert body["span"][0] < body["span"][1]
    assert body["fallback_reason"] == "site not learned"


def test_extract_answers_carry_no_control_characters(client):
    # a page's &#27;[2J spells a terminal's escape sequence: no answer of sitewise's carries it
    html = ARTICLE_HTML.replace("new contract", "new &#27;[2Jcontract&#7;")
    body = client.post("/api/extract", json={"html": html, "url": "https://news.example/x"}).get_json()
    assert "new [2Jcontract" in body["text"] and "new [2Jcontract" in body["body"]


def test_extract_keeps_an_articles_comment_thread_only_when_asked(client):
    request = {"html": blog_page(), "url": BLOG_URL}
    default = client.post("/api/extract", json=request).get_json()
    assert default["method"] == "mss" and COMMENTS[0][1] not in default["text"]
    asked = client.post("/api/extract", json={**request, "include_comments": True}).get_json()
    assert all(text in asked["text"] for _, text in COMMENTS)


def test_extract_reads_favouring_precision_or_recall_when_asked(client, monkeypatch):
    from sitewise.mss.blockmodel import BlockModel

    asked = []
    favoring = BlockModel.favoring
    monkeypatch.setattr(BlockModel, "favoring", lambda self, wanted: asked.append(wanted) or favoring(self, wanted))
    for flag in ("favor_precision", "favor_recall"):
        response = client.post("/api/extract", json={"html": blog_page(), "url": BLOG_URL, flag: True})
        assert response.status_code == 200 and response.get_json()["method"] == "mss"
    assert asked == ["precision", "recall"]


def test_extract_gives_the_article_as_markdown_or_html_when_asked(client):
    from sitewise.api import extract

    request = {"html": blog_page(), "url": BLOG_URL}
    assert "markdown" not in client.post("/api/extract", json=request).get_json()
    for output in ("markdown", "html"):
        for links, images, metadata, marks in ((False,) * 4, (True, False, False, True), (False, True, True, False)):
            asked = {"output": output, "include_links": links, "include_images": images, "with_metadata": metadata,
                     "include_formatting": marks}
            body = client.post("/api/extract", json={**request, **asked}).get_json()
            assert body[output] == extract(blog_page(), url=BLOG_URL, output=output, include_links=links,
                                           include_images=images, with_metadata=metadata, include_formatting=marks)
            assert body[output] and body["text"]
    # a collected page without its HTML: the article in the format, read from its blocks
    page = client.post("/api/extract", json={"page": story_page(), "output": "markdown"}).get_json()
    assert page["markdown"] and page["text"].split("\n")[-1] in page["markdown"]


def test_extract_names_the_article_blocks_of_a_collected_page(client):
    response = client.post("/api/extract", json={"page": story_page()})
    body = response.get_json()
    assert response.status_code == 200 and body["method"] == "mss"
    assert body["blocks"] and set(body["blocks"]) <= {1, 2, 3, 4, 5}


def test_extract_reads_a_collected_page_too_deep_for_the_fallback_from_its_blocks(client):
    deep = "<html><body>" + "<div>" * 2_100 + "<p>Deep words</p>" + "</div>" * 2_100 + "</body></html>"
    response = client.post("/api/extract", json={"page": {**story_page(), "html": deep}})
    body = response.get_json()
    assert response.status_code == 200 and body["method"] == "mss" and "new contract" in body["text"]


def test_extract_uses_the_rules_of_a_learned_site(client, store):
    store.put_rules("news.example", {
        "templates": [{"name": "story", "match": ["article.story"], "include": ["article.story"],
                       "exclude": ["h1"], "words": [5, 500]}],
        "pages_learned": 4, "confidence": 0.9})
    body = client.post("/api/extract", json={"page": story_page()}).get_json()
    assert body["method"] == "rules" and body["rule_version"] == 1 and body["template"] == "story"
    assert body["blocks"] == [2, 3, 4, 5]
    assert body["selectors"] == {"include": ["article.story"], "exclude": ["h1"], "heading": []}
    assert body["pages_learned_from"] == 4


def test_extract_falls_back_to_mss_when_no_template_matches(client, store):
    store.put_rules("news.example", {
        "templates": [{"name": "gallery", "match": ["div.gallery"], "include": ["div.gallery"],
                       "exclude": [], "words": [5, 500]}], "pages_learned": 4})
    body = client.post("/api/extract", json={"page": story_page()}).get_json()
    assert body["method"] == "mss"
    assert body["fallback_reason"] == "rules did not apply: no template matched"


#: What sitewise.extract's JSON and POST /api/extract both answer, field for field.
SHARED_FIELDS = ("title", "author", "date", "heading", "body", "text", "method", "confidence", "reason")
#: A headline long enough for the fallback to take it in with the article.
STORY_HEADLINE = "Harbor strike ends after three weeks as workers accept the new contract"
#: A story page whose metadata names its author and date, the headline repeating its title.
STORY_HTML = ARTICLE_HTML.replace(
    "<title>Harbor strike ends</title>",
    '<title>Harbor strike ends</title><meta name="author" content="Ada Brook">'
    '<meta property="article:published_time" content="2024-03-03">',
).replace("Harbor strike ends", STORY_HEADLINE).replace("<article>", '<article class="story">')
#: The rules a learned news.example has for it: the story's paragraphs, its headline as the heading.
STORY_RULES = {"templates": [{"name": "story", "match": ["article.story"], "include": ["article.story"],
                              "exclude": [], "heading": ["article.story h1"], "words": [5, 500]}],
               "pages_learned": 4, "confidence": 0.9}


def shared(answer: dict) -> dict:
    return {name: answer[name] for name in SHARED_FIELDS}


def library_answer(html: str, url: str, **options) -> dict:
    return json.loads(sitewise.extract(html, url, output="json", **options))


def test_extract_answers_the_librarys_json_for_a_fallback_answer(client):
    url = "https://news.example/x"
    body = client.post("/api/extract", json={"html": STORY_HTML, "url": url}).get_json()
    assert shared(body) == shared(library_answer(STORY_HTML, url))
    # the fallback's first line repeats the title: it is the heading, and the body goes without it
    assert body["title"] == body["heading"] == STORY_HEADLINE and not body["body"].startswith("Harbor")
    assert body["author"] == "Ada Brook" and body["date"] == "2024-03-03" and body["reason"] == ""



def test_extract_reads_the_date_in_the_pages_url_as_the_library_does(client):
    url = "https://gazette.test/news/2024/05/07/harbour"  # the page itself gives no date
    body = client.post("/api/extract", json={"html": blog_page(), "url": url}).get_json()
    assert shared(body) == shared(library_answer(blog_page(), url)) and body["date"] == "2024-05-07"

def test_extract_answers_the_librarys_json_for_a_rules_answer(client, store):
    store.put_rules("news.example", STORY_RULES)
    url = "https://news.example/x"
    body = client.post("/api/extract", json={"html": STORY_HTML, "url": url}).get_json()
    assert shared(body) == shared(library_answer(STORY_HTML, url, rules=store))
    assert body["method"] == "rules" and body["confidence"] == 0.9 and body["heading"] == STORY_HEADLINE
    assert body["reason"] == "" and body["rule_version"] == 1 and body["template"] == "story"


def test_extract_of_a_page_with_html_answers_the_librarys_json_for_it(client):
    page = {**story_page(), "html": STORY_HTML}
    body = client.post("/api/extract", json={"page": page}).get_json()
    assert shared(body) == shared(library_answer(STORY_HTML, page["url"]))
    assert body["url"] == page["url"] and body["author"] == "Ada Brook"


def test_extract_of_a_page_without_html_reads_its_metadata_from_the_page(client):
    # a reader's upload may carry no HTML: the fallback reads its blocks (as HTML rebuilt from them), and
    # the page's collected title, description and language are its metadata
    page = with_change(with_change(story_page(), "blocks.1.text", STORY_HEADLINE), "titles", [STORY_HEADLINE, "og"])
    body = client.post("/api/extract", json={"page": page}).get_json()
    assert shared(body) == shared(library_answer(rebuild_html(Page.from_dict(page)), page["url"]))
    assert body["heading"] == body["title"] == STORY_HEADLINE and body["blocks"] == [1, 2, 3, 4, 5]
    assert body["description"] == page["descriptions"][0] and body["language"] == "en"
    assert body["author"] is None and body["date"] is None and body["site_name"] is None


@pytest.mark.parametrize(
    "payload, field",
    [
        ([1, 2], "(request)"),
        ({}, "(request)"),
        ({"url": "https://news.example/a"}, "(request)"),  # never fetched
        ({"html": 5}, "html"),
        ({"html": "<p>x</p>", "url": 7}, "url"),
        ({"html": "<p>x</p>", "url": "nohost"}, "url"),
        ({"page": story_page(), "url": "nohost"}, "url"),  # refused as the library refuses it
        ({"html": "<p>x</p>", "include_comments": "yes"}, "include_comments"),
        ({"html": "<p>x</p>", "favor_recall": 1}, "favor_recall"),
        ({"html": "<p>x</p>", "output": "xml"}, "output"),
        ({"html": "<p>x</p>", "include_links": "yes"}, "include_links"),
        ({"html": "<p>x</p>", "include_images": 1}, "include_images"),
        ({"html": "<p>x</p>", "with_metadata": "true"}, "with_metadata"),
        ({"html": "<p>x</p>", "include_formatting": None}, "include_formatting"),
        ({"html": "<p>x</p>", "favor_precision": True, "favor_recall": True}, "(request)"),
        ({"page": with_change(story_page(), "blocks.0.text", "")}, "page.blocks[0].text"),
        ({"page": with_change(story_page(), "blocks.1.box.top", "x")}, "page.blocks[1].box"),
        ({"html": "<div>" * 20_000 + "words" + "</div>" * 20_000}, "html"),
        ({"html": "<div>" * 2_100 + "words" + "</div>" * 2_100}, "html"),  # deeper than the fallback reads
    ],
)
def test_bad_extract_requests_are_refused(client, payload, field):
    response = client.post("/api/extract", json=payload)
    assert response.status_code == 400
    assert response.get_json()["field"] == field


@pytest.mark.parametrize("html", ["<p>A story\0 about ships and the harbor</p>", " \n\t ", ""],
                         ids=["NUL", "whitespace", "empty"])
def test_extract_refuses_html_the_library_refuses_with_its_reason(client, html):
    with pytest.raises(InputError) as refused:
        sitewise.extract(html)
    response = client.post("/api/extract", json={"html": html})
    assert response.status_code == 400
    reason = str(refused.value)
    assert response.get_json() == {"error": "invalid_input", "message": f"html: {reason}", "field": "html", "reason": reason}


def test_extract_is_size_capped(make_client):
    client = make_client(max_page_bytes=1000)
    response = client.post("/api/extract", json={"html": "<p>" + "word " * 1000 + "</p>"})
    assert response.status_code == 413


@pytest.mark.parametrize(
    "body, field",
    [
        ('{"url": "https://news.example/\\ud800", "blocks": []}', "url"),
        ('{"url": "https://news.example/", "blocks": [], "titles": ["ok", "\\udfff"]}', "titles[1]"),
        ('{"url": "https://news.example/", "blocks": [], "lang": "\\ud83d\\ude00"}', None),  # a pair is fine
        ('{"url": "https://news.example/", "blocks": [], "viewport": {"width": 1e400}}', "(body)"),
        ('{"url": "https://news.example/", "blocks": [], "viewport": {"width": 123456789012345678901234567890}}', "(body)"),
        ('{"url": "http://[::1/", "blocks": []}', "url"),
        ('{"url": "http://exa mple.example/", "blocks": []}', "url"),
    ],
)
def test_values_no_store_can_hold_are_refused(client, store, body, field):
    response = post_page(client, body.encode("ascii"))
    if field is None:
        assert response.status_code == 201
        return
    assert response.status_code == 400, response.get_json()
    assert response.get_json().get("field", "(body)") == field
    assert_nothing_stored(store)


def test_feedback_with_an_unpaired_surrogate_is_refused(client, store):
    post_page(client, page_dict())
    body = json.dumps(feedback(text="\ud800")).encode("utf-8", "surrogatepass")
    response = client.post("/api/feedback", data=body, content_type="application/json")
    assert response.status_code == 400 and response.get_json()["field"] == "text"
    assert store.feedback("news.example") == []


# -- learning --------------------------------------------------------------------------------------------


def test_the_fifth_upload_queues_learning_once(client, store):
    from sitewise.worker.queue import learn_queue

    answers = [post_page(client, page_dict(f"https://news.example/{i}")).get_json()["learning"] for i in range(7)]
    assert answers == ["not_due"] * 4 + ["queued"] * 3
    assert len(learn_queue(store.redis)) == 1  # at most one pending job per site


def test_admin_relearn_queues_a_forced_job(client, store):
    from sitewise.worker.queue import learn_queue

    post_page(client, page_dict())
    response = client.post("/api/admin/sites/news.example/learn", headers={"Authorization": "Bearer s3cret"})
    assert response.status_code == 202
    job = learn_queue(store.redis).jobs[0]
    assert job.id == response.get_json()["job"]
    assert job.args == ["news.example"] and job.kwargs == {"force": True}
    assert client.get("/healthz").get_json()["queue"]["learn"] == 1


def test_rules_read_from_memory_follow_the_store(client, store):
    def rules(name):
        return {"templates": [{"name": name, "match": [], "include": ["main"], "exclude": [], "words": [1, 9]}]}

    store.put_rules("news.example", rules("first"))
    assert client.get("/rules/news.example").get_json()["templates"][0]["name"] == "first"
    assert client.get("/rules/news.example").get_json()["templates"][0]["name"] == "first"  # from memory
    store.delete_site("news.example")
    assert client.get("/rules/news.example").status_code == 404
    store.put_rules("news.example", rules("again"))  # version 1 once more, other rules
    body = client.get("/rules/news.example").get_json()
    assert body["version"] == 1 and body["templates"][0]["name"] == "again"


def test_an_extra_field_nested_past_the_validators_depth_is_refused(client, store):
    nested = "x"
    for _ in range(900):
        nested = {"a": nested}
    response = post_page(client, with_change(page_dict(), "blocks.0.attrs", nested))
    assert response.status_code == 400 and response.get_json()["error"] == "invalid_page"
    assert_nothing_stored(store)
