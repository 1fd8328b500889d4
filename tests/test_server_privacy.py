"""Private by default and bounded: URLs without query strings, page keys, text and marks for the admin
token only, CORS on the bookmarklet's routes only; per-client daily budgets (429), the global storage
budget (507), trimmed marks and a bounded dashboard."""
from __future__ import annotations

import base64
import logging
import time

import pytest

from sitewise.server import create_app
from sitewise.server.validation import MAX_STORED_URL_CHARS
from server_support import block, page_dict, settings_for
from sitewise import store as store_module
from sitewise.page import Page
from sitewise.urls import parse_url_params, private_url

ADMIN = {"Authorization": "Bearer s3cret"}
ORIGIN = {"Origin": "https://news.example"}


def app_client(store, tmp_path, **overrides):
    app = create_app(settings_for(tmp_path, **overrides), store)
    app.testing = True
    return app.test_client()


@pytest.fixture
def client(store, tmp_path):
    return app_client(store, tmp_path)


# -- URLs ------------------------------------------------------------------------------------------------


def test_private_urls_drop_query_fragment_and_credentials():
    assert private_url("https://user:pw@news.example/a?email=me@x.org&utm=1#c") == "https://news.example/a"
    allowed = parse_url_params("forum.example=id,page; other.example=p")
    assert private_url("https://forum.example/t?id=7&sid=secret&page=2#x", allowed) == "https://forum.example/t?id=7&page=2"
    assert private_url("https://news.example/a?id=7", allowed) == "https://news.example/a"
    with pytest.raises(ValueError, match="not site=param"):
        parse_url_params("forum.example")


def test_uploads_and_marks_are_stored_without_query_strings(client, store):
    data = page_dict("https://news.example/a/1?session=abc#top", canonical_url="https://news.example/a/1?ref=mail")
    answer = client.post("/api/pages", json=data).get_json()
    assert answer["key"] == "https://news.example/a/1"
    stored = store.get_page("news.example", "https://news.example/a/1")
    assert stored.url == stored.canonical_url == "https://news.example/a/1"
    client.post("/api/feedback", json={"url": "https://news.example/a/1?token=t", "kind": "missing", "selector": "main > p"})
    assert store.feedback("news.example")[0]["url"] == "https://news.example/a/1"


#: An address over the cap on stored URLs only for its query string, and one still over it without.
LONG_QUERY = "https://news.example/a/1?q=" + "x" * MAX_STORED_URL_CHARS
LONG_PATH = "https://news.example/" + "p" * MAX_STORED_URL_CHARS


def test_marks_and_uploads_cap_the_url_they_store_not_the_one_sent(client, store):
    mark = {"url": LONG_QUERY, "kind": "missing", "selector": "main > p"}
    assert client.post("/api/pages", json=page_dict(LONG_QUERY)).get_json()["key"] == "https://news.example/a/1"
    assert client.post("/api/feedback", json=mark).status_code == 201
    assert store.feedback("news.example")[0]["url"] == "https://news.example/a/1"


@pytest.mark.parametrize("route, body, field", [
    ("/api/pages", page_dict(LONG_PATH), "url"),
    ("/api/pages", page_dict(canonical_url=LONG_PATH + "?ref=1"), "canonical_url"),
    ("/api/feedback", {"url": LONG_PATH + "?ref=1", "kind": "missing", "selector": "main > p"}, "url"),
])
def test_a_url_too_long_to_store_is_refused_and_nothing_is_stored(client, store, route, body, field):
    store.put_page(Page.from_dict(page_dict("https://news.example/a/0")))  # a mark needs a known site
    response = client.post(route, json=body)
    assert response.status_code == 400 and response.get_json()["field"] == field
    assert f"at most {MAX_STORED_URL_CHARS}" in response.get_json()["reason"]
    assert store.page_keys("news.example") == ["https://news.example/a/0"] and store.feedback("news.example") == []


@pytest.mark.parametrize("url", ["file:///home/alice/notes/story.html", "ftp://news.example/a/1"])
@pytest.mark.parametrize("headers", [{}, ADMIN], ids=["reader", "operator"])
def test_a_page_not_on_the_web_is_not_stored(client, store, url, headers):
    response = client.post("/api/pages", json=page_dict(url), headers=headers)
    assert response.status_code == 400
    assert response.get_json()["field"] == "url" and "private" in response.get_json()["reason"]
    assert store.sites() == []


def test_a_mark_on_a_local_file_is_not_stored(client, store):
    store.put_page(Page.from_dict(page_dict("file:///home/alice/notes/story.html")))  # stored before uploads were refused
    mark = {"url": "file:///home/alice/notes/story.html", "kind": "missing", "selector": "main > p"}
    response = client.post("/api/feedback", json=mark)
    assert response.status_code == 400 and response.get_json()["field"] == "url"
    assert store.feedback("local") == []


def test_allow_listed_parameters_are_kept(store, tmp_path):
    client = app_client(store, tmp_path, url_params="news.example=id")
    answer = client.post("/api/pages", json=page_dict("https://news.example/article?id=12&session=abc")).get_json()
    assert answer["key"] == "https://news.example/article?id=12"


def test_a_canonical_url_of_another_site_is_not_believed(client, store):
    data = page_dict("https://news.example/a/1", canonical_url="https://elsewhere.example/x")
    assert client.post("/api/pages", json=data).get_json()["key"] == "https://news.example/a/1"
    assert store.sites() == ["news.example"]


def test_page_keys_text_and_marks_need_the_admin_token(client, store):
    client.post("/api/pages", json=page_dict("https://news.example/secret-path"))
    client.post("/api/feedback", json={"url": "https://news.example/secret-path", "kind": "missing",
                                       "selector": "main > p", "text": "marked words"})
    public = client.get("/api/sites/news.example")
    assert public.status_code == 200 and "page_keys" not in public.get_json()
    assert "secret-path" not in client.get("/api/sites").get_data(as_text=True)
    assert client.get("/api/sites/news.example", headers={"Authorization": "Bearer wrong"}).status_code == 401
    html = client.get("/sites/news.example").get_data(as_text=True)
    assert "secret-path" not in html and "Paragraph 0" not in html and "marked words" not in html
    assert "sign in" in html
    # The browser's sign-in: Basic, with the token as the password.
    challenge = client.get("/sites/news.example?signin=1")
    assert challenge.status_code == 401 and challenge.headers["WWW-Authenticate"].startswith("Basic")
    basic = {"Authorization": "Basic " + base64.b64encode(b"admin:s3cret").decode()}
    for headers in (ADMIN, basic):
        html = client.get("/sites/news.example", headers=headers).get_data(as_text=True)
        assert "secret-path" in html and "Paragraph 0" in html and "marked words" in html
    wrong = {"Authorization": "Basic " + base64.b64encode(b"admin:nope").decode()}
    assert "secret-path" not in client.get("/sites/news.example", headers=wrong).get_data(as_text=True)


# -- CORS ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method, path, allowed", [
    ("GET", "/rules/news.example", True),
    ("GET", "/bookmarklet/sitewise.js", True),
    ("POST", "/api/pages", True),
    ("POST", "/api/feedback", True),
    ("POST", "/api/extract", True),  # the bookmarklet's fallback on a site not learned yet
    ("GET", "/api/sites", False),
    ("GET", "/api/sites/news.example", False),
    ("GET", "/sites/news.example", False),
    ("DELETE", "/api/admin/sites/news.example", False),
    ("GET", "/healthz", False),
])
def test_only_the_bookmarklets_routes_answer_other_origins(client, method, path, allowed):
    client.post("/api/pages", json=page_dict())
    response = client.open(path, method=method, headers=ORIGIN, json={} if method == "POST" else None)
    assert ("Access-Control-Allow-Origin" in response.headers) is allowed, response.headers
    preflight = client.options(path, headers={**ORIGIN, "Access-Control-Request-Method": method})
    assert (preflight.headers.get("Access-Control-Allow-Origin") == "*") is allowed
    assert "Access-Control-Allow-Private-Network" not in preflight.headers


# -- bounds ----------------------------------------------------------------------------------------------


def test_a_full_store_answers_507_and_stores_nothing(store, tmp_path):
    client = app_client(store, tmp_path, storage_budget_bytes=1)
    response = client.post("/api/pages", json=page_dict())
    assert response.status_code == 507 and response.get_json()["error"] == "storage_full"
    assert "Retry-After" in response.headers and store.sites() == []
    mark = {"url": "https://news.example/a/1", "kind": "missing", "selector": "main > p"}
    assert client.post("/api/feedback", json=mark).status_code == 507


def test_a_client_over_its_daily_pages_or_bytes_gets_429(store, tmp_path):
    client = app_client(store, tmp_path, client_pages_per_day=3)
    codes = [client.post("/api/pages", json=page_dict(f"https://s{n}.example/a")).status_code for n in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    other = client.post("/api/pages", json=page_dict("https://s9.example/a"), environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert other.status_code == 201  # another client has its own budget
    client = app_client(store, tmp_path, client_bytes_per_day=1)  # the first page uses it up
    codes = [client.post("/api/pages", json=page_dict(f"https://b{n}.example/a"), environ_base={"REMOTE_ADDR": "192.0.2.7"}).status_code
             for n in range(2)]
    assert codes == [201, 429]
    assert "bytes stored today" in client.post("/api/pages", json=page_dict("https://b.example/a"),
                                               environ_base={"REMOTE_ADDR": "192.0.2.7"}).get_json()["message"]


@pytest.mark.parametrize("address", ["198.51.100.23", "2001:db8:77:1::23"])
def test_no_client_address_is_stored_or_logged(store, tmp_path, caplog, address):
    """Limits, contributor tags and the request log name a client by a salted hash, never its address."""
    client = app_client(store, tmp_path, dashboard_views_per_minute=10)
    reader = {"REMOTE_ADDR": address}
    url = "https://clinic.example/conditions/hiv-testing"
    with caplog.at_level(logging.DEBUG):
        assert client.post("/api/pages", json=page_dict(url), environ_base=reader).status_code == 201
        mark = {"url": url, "kind": "missing", "selector": "main > p", "text": "x"}
        assert client.post("/api/feedback", json=mark, environ_base=reader).status_code == 201
        assert client.post("/api/extract", json={"html": "<p>Some text</p>"}, environ_base=reader).status_code == 200
        assert client.get("/sites", environ_base=reader).status_code == 200
    stored = []
    for key in store.redis.scan_iter():
        stored.append(key)
        kind = store.redis.type(key)
        if kind == b"string":
            stored.append(store.redis.get(key))
        elif kind == b"hash":
            stored.extend(part for item in store.redis.hgetall(key).items() for part in item)
        elif kind == b"list":
            stored.extend(store.redis.lrange(key, 0, -1))
        elif kind == b"zset":
            stored.extend(store.redis.zrange(key, 0, -1))
    limits = [key for key in stored if key.startswith(b"sw:limit:")]
    assert len(limits) >= 5 and b"clinic.example" in b" ".join(limits)
    written = b"\0".join(stored) + caplog.text.encode()
    assert b"198.51.100" not in written and b"2001:db8:77" not in written and b"::23" not in written
    assert "pages" in caplog.text  # the request log still names the request, by the caller's pseudonym


def test_gunicorns_access_log_leaves_out_the_client():
    from sitewise import gunicorn_config

    # address, request line with query string, query string, referer, user agent
    for atom in ("%(h)s", "%(r)s", "%(q)s", "%(f)s", "%(a)s"):
        assert atom not in gunicorn_config.access_log_format


def test_marks_are_trimmed_to_the_newest(client, store, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_FEEDBACK_PER_SITE", 5)
    for n in range(8):
        store.add_feedback("news.example", {"n": n})
    assert [m["n"] for m in store.feedback("news.example")] == [3, 4, 5, 6, 7]


def test_dashboard_views_are_rate_limited(store, tmp_path):
    client = app_client(store, tmp_path, dashboard_views_per_minute=3)
    assert [client.get("/sites").status_code for _ in range(4)] == [200, 200, 200, 429]


def test_site_listings_share_the_dashboards_allowance(store, tmp_path):
    """GET /api/sites reads every listed site's status, as the dashboard's /sites does: it is limited alike."""
    client = app_client(store, tmp_path, dashboard_views_per_minute=3)
    assert [client.get("/api/sites").status_code for _ in range(2)] == [200, 200]
    assert client.get("/sites").status_code == 200
    refused = client.get("/api/sites?limit=200")
    assert refused.status_code == 429 and refused.get_json()["error"] == "rate_limited" and "Retry-After" in refused.headers
    assert client.get("/api/sites", environ_base={"REMOTE_ADDR": "192.0.2.99"}).status_code == 200  # another client


def test_a_20000_block_page_gives_a_bounded_cached_view(client, store):
    blocks = [block(f"Block {i} " + "word " * 40, f"body > main > p:nth-of-type({i + 1})", top=20.0 * i)
              for i in range(20_000)]  # the largest page accepted: MAX_BLOCKS
    store.put_page(Page.from_dict(page_dict("https://news.example/huge", blocks=0) | {"blocks": blocks}))
    timings, sizes = [], []
    for _ in range(3):
        started = time.perf_counter()
        response = client.get("/sites/news.example", headers=ADMIN)
        timings.append(time.perf_counter() - started)
        sizes.append(len(response.get_data()))
    html = response.get_data(as_text=True)
    assert "of 20000 blocks (the first 1000 shown)" in html
    print(f"20,000-block page: views of {sizes[0] / 1e6:.2f} MB in {', '.join(f'{t:.2f}' for t in timings)} s")
    assert max(sizes) < 1_500_000
    assert min(timings[1:]) < timings[0]  # the preview is cached
