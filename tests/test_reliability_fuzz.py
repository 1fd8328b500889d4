"""Hostile input against POST /api/pages, /api/extract and /api/feedback: never a 500, never a stored
half-page.

Property tests (hypothesis) throw well-formed-but-wrong pages, mutated pages, arbitrary JSON and
arbitrary bytes at the endpoints, on the real app and a real Redis; named cases add the extremes a
fuzzer does not reach: gigantic text, deep nesting, 100,000 blocks, invalid UTF-8 and lone surrogates,
huge selectors and numbers, gzip bombs.
"""
from __future__ import annotations

import gzip
import json
import time
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sitewise.server import create_app
from sitewise.config import Settings
from sitewise.page import COLLECTORS, MAX_BLOCKS, MAX_DEPTH, STYLE_PROPERTIES, Page
from sitewise.server.extraction import MAX_EXTRACT_MARKUP_CHARS, MAX_EXTRACT_TAGS
from sitewise.redis_conn import connect
from sitewise.store import Store
from sitewise.urls import private_page

from learn_support import sample_pages
from reliability_support import page_dict
from sitewise.learn.site import learn_stored_site
from sitewise.sample_site import generate_site

#: Examples per property: enough to hit every validator branch, few enough for a fast suite.
EXAMPLES = 120
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KNOWN_SITE = "fuzz.example"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    return Store(connect(data_dir=tmp_path_factory.mktemp("redis")), max_pages_per_site=100_000)


def make_client(store: Store, tmp_path, **overrides: Any):
    # Limits off: the fuzzer sends thousands of requests from one address.
    values = {"data_dir": str(tmp_path), "uploads_per_minute": 0, "client_pages_per_site_per_day": 0, **overrides}
    app = create_app(Settings(**values), store)
    return app.test_client()


@pytest.fixture(scope="module")
def client(store, tmp_path_factory):
    client = make_client(store, tmp_path_factory.mktemp("data"))
    assert client.post("/api/pages", json=page_dict(f"https://{KNOWN_SITE}/seed")).status_code == 201
    return client


# -- what must hold after every request ------------------------------------------------------------


def snapshot(store: Store) -> dict[str, set[str]]:
    return {site: set(store.page_keys(site)) for site in store.sites()}


def check_answer(response, path: str) -> None:
    assert response.status_code < 500, f"{path} answered {response.status_code}: {response.get_data()[:500]!r}"
    assert response.is_json, f"{path} answered {response.mimetype}"
    body = response.get_json()
    if response.status_code >= 400:
        assert body["error"] and body["message"]


def check_upload(store: Store, client, body: bytes, headers: dict[str, str] | None = None) -> None:
    """POST the body; a refused upload changes no page, an accepted one is stored whole."""
    before = snapshot(store)
    response = client.post("/api/pages", data=body, headers={"Content-Type": "application/json", **(headers or {})})
    check_answer(response, "/api/pages")
    if response.status_code >= 400:
        assert snapshot(store) == before
        return
    answer = response.get_json()
    if answer["stored"] is False:  # another contributor's copy of the key is kept
        assert snapshot(store) == before
        return
    stored = store.get_page(answer["site"], answer["key"])
    # As stored: the URLs without query string and fragment, a canonical URL of another site dropped, and
    # no HTML (these uploads are a reader's, and only an operator's HTML is kept: it teaches the fallback).
    sent = private_page(Page.from_dict(json.loads(zlib.decompress(body, 16 + zlib.MAX_WBITS) if body[:2] == b"\x1f\x8b" else body)))
    assert stored is not None
    assert stored.to_dict()["blocks"] == sent.to_dict()["blocks"]
    assert (stored.url, stored.titles, stored.html) == (sent.url, sent.titles, None)
    assert answer["key"] in store.page_keys(answer["site"])  # listed as well as stored: one transaction


def check_all_pages_whole(store: Store) -> None:
    for site in store.sites():
        keys = store.page_keys(site)
        assert sorted(keys) == sorted(k.decode() for k in store.redis.hkeys(f"sw:site:{site}:pages"))
        assert sum(1 for _ in store.pages(site)) == len(keys)  # every stored page decodes


# -- strategies ------------------------------------------------------------------------------------

json_scalars = (
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
hosts = st.sampled_from(["fuzz.example", "www.Fuzz.Example", "news.example:8080", "", "[::1]", "[::1", "xn--bcher-kva.example",
                         "a b.example", "exa\tmple.com", "例え.jp", "..", "127.0.0.1"])
urls = st.builds(
    lambda scheme, host, path: f"{scheme}{host}/{path}",
    st.sampled_from(["https://", "http://", "file://", "javascript:", "ftp://", "", "//", "https:///"]),
    hosts,
    st.text(max_size=20),
)
numbers = st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.integers(-(10**400), 10**400)
boxes = st.fixed_dictionaries({k: numbers for k in ("left", "top", "width", "height")})
blocks = st.fixed_dictionaries(
    {
        "text": st.text(min_size=1, max_size=60),
        "tag": st.sampled_from(["p", "div", "H1", "li", "script"]) | st.text(max_size=8),
        "path": st.lists(st.sampled_from(["html", "body", "main", "p"]) | st.text(max_size=6), max_size=6),
        "selector": st.sampled_from(["body > main > p", "p.x:nth-of-type(2)"]) | st.text(max_size=60),
        "box": boxes,
    },
    optional={
        "style": st.dictionaries(st.sampled_from(STYLE_PROPERTIES) | st.text(max_size=8), st.text(max_size=12), max_size=5),
        "link_chars": st.integers(-3, 10**9),
        "attrs": st.dictionaries(st.sampled_from(["role", "itemprop"]), st.text(max_size=10), max_size=2),
    },
)
pages = st.fixed_dictionaries(
    {"url": urls, "blocks": st.lists(blocks, max_size=6)},
    optional={
        "format": st.sampled_from([1, 0, 2, True, "1"]),
        "canonical_url": st.none() | urls,
        "titles": st.lists(st.text(max_size=30), max_size=3),
        "descriptions": st.lists(st.text(max_size=30), max_size=2),
        "lang": st.none() | st.sampled_from(["en", "de-DE", "zh"]) | st.text(max_size=6),
        "viewport": st.none() | st.dictionaries(st.sampled_from(["width", "height"]), numbers, max_size=2),
        "collector": st.sampled_from(COLLECTORS) | st.text(max_size=6),
        "html": st.none() | st.text(max_size=200),
        "collected_at": st.none() | st.text(max_size=25),
    },
)


@st.composite
def mutated_pages(draw) -> Any:
    """A page with one value somewhere inside replaced by arbitrary JSON (or removed)."""
    page = draw(pages)
    target: Any = page
    while True:
        keys = list(target.keys()) if isinstance(target, dict) else list(range(len(target)))
        if not keys:
            return page
        key = draw(st.sampled_from(keys))
        child = target[key]
        if isinstance(child, (dict, list)) and child and draw(st.booleans()):
            target = child
            continue
        if isinstance(target, dict) and draw(st.booleans()):
            del target[key]
        else:
            target[key] = draw(json_values)
        return page


def encode(data: Any, gzipped: bool) -> bytes:
    body = json.dumps(data).encode()
    return gzip.compress(body) if gzipped else body


# -- property tests --------------------------------------------------------------------------------


@FUZZ
@given(page=pages, gzipped=st.booleans())
def test_generated_pages_are_stored_whole_or_refused(client, store, page, gzipped):
    check_upload(store, client, encode(page, gzipped))


@FUZZ
@given(page=mutated_pages())
def test_mutated_pages_are_stored_whole_or_refused(client, store, page):
    check_upload(store, client, encode(page, False))


@FUZZ
@given(value=json_values)
def test_arbitrary_json_is_refused(client, store, value):
    check_upload(store, client, json.dumps(value).encode())


@FUZZ
@given(body=st.binary(max_size=300), gzip_header=st.booleans())
def test_arbitrary_bytes_are_refused(client, store, body, gzip_header):
    check_upload(store, client, body, {"Content-Encoding": "gzip"} if gzip_header else {})


#: Pieces of pages, odd ones among them, for what formats the article: images, links, tables, code, metadata.
HTML_PIECES = [
    "<p>", "</p>", "The dockers voted to strike after long talks with the port. ", "<br>", "<h1>", "</h1>", "<li>",
    "<table><tr><td>", "</td><td>", "</tr></table>", "<pre>  code\n", "</pre>", "<blockquote>", "</blockquote>",
    "<img src='a.jpg' alt='A [picture]'>", "<img srcset=' , '>", "<img src='http://[::1'>", "<img width='0' src='b.png'>",
    "<img data-src='javascript:x()' src='data:,'>", "<img srcset='c.jpg 2x, d.jpg'>", "<figure>", "</figure>",
    "<a href='/x'>", "<a href='mailto:a@b'>", "</a>", "<title>T | S</title>", "<meta name='author' content='\"A\"\n'>",
    "<html lang='zz-\u202e'>", "&#0;", "&#x1b;", "\x00", "<math><annotation>x^2</annotation></math>",
    "<b>", "</b>", "<i>", "</i>", "<code>", "</code>", "<del>", "</del>", "*", "`", "~~", "’", " ",
]
html_pages = st.text(max_size=400) | st.lists(st.sampled_from(HTML_PIECES), max_size=30).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    request=st.one_of(
        st.fixed_dictionaries({"page": pages}),
        st.fixed_dictionaries({"html": html_pages}, optional={
            "url": st.none() | urls | json_values, "output": st.sampled_from(["text", "json", "markdown", "html"]),
            **{flag: st.booleans() for flag in ("include_links", "include_images", "with_metadata", "include_formatting")}}),
        st.fixed_dictionaries({}, optional={"page": json_values, "html": json_values, "url": json_values}),
        json_values,
    )
)
def test_extract_never_fails(client, store, request):
    before = snapshot(store)
    response = client.post("/api/extract", json=request)
    check_answer(response, "/api/extract")
    assert snapshot(store) == before  # extraction stores nothing


feedbacks = st.fixed_dictionaries(
    {},
    optional={
        "url": st.sampled_from([f"https://{KNOWN_SITE}/a", "https://unknown.example/", "no url"]) | urls | json_values,
        "kind": st.sampled_from(["wrong", "missing", "other"]) | json_values,
        "selector": st.sampled_from(["body > main > p", ""]) | st.text(max_size=80) | json_values,
        "text": st.none() | st.text(max_size=80) | json_values,
        "method": st.sampled_from([None, "rules", "mss", "magic"]),
        "rule_version": st.sampled_from([None, 1, 0, -1, True, "1"]) | st.integers(),
    },
)


@FUZZ
@given(mark=feedbacks)
def test_feedback_is_stored_or_refused(client, store, mark):
    before = store.redis.llen(f"sw:site:{KNOWN_SITE}:feedback")
    response = client.post("/api/feedback", json=mark)
    check_answer(response, "/api/feedback")
    after = store.redis.llen(f"sw:site:{KNOWN_SITE}:feedback")
    if response.status_code == 201 and response.get_json()["site"] == KNOWN_SITE:
        assert after == before + 1
        assert store.feedback(KNOWN_SITE)[-1]["selector"] == mark["selector"]
    else:
        assert after == before


def test_after_fuzzing_every_stored_page_is_whole(client, store):
    check_all_pages_whole(store)


# -- the extremes ----------------------------------------------------------------------------------


def _minimal_block(i: int) -> dict[str, Any]:
    return {"text": "w", "tag": "p", "path": [], "selector": "p", "box": {"left": 0, "top": i, "width": 1, "height": 1}}


def _page_with(**changes: Any) -> dict[str, Any]:
    page = page_dict(f"https://{KNOWN_SITE}/extreme/{time.monotonic_ns()}")
    page.update(changes)
    return page


def _bomb(decoded_bytes: int) -> bytes:
    """gzip of ``decoded_bytes`` spaces, built in slices (never the whole thing in memory)."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    slice_ = b" " * (1 << 20)
    parts = [deflate.compress(slice_) for _ in range(decoded_bytes // len(slice_))]
    return b"".join(parts) + deflate.flush()


EXTREMES = {
    # name: (body, headers, expected statuses)
    "gigantic text just under the cap": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), text="word " * 1_500_000)]), False), {}, {201}),
    "gigantic text over the cap": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), text="word " * 2_000_000)]), False), {}, {413}),
    "gigantic text gzipped over the cap": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), text="word " * 2_000_000)]), True), {}, {413}),
    "100k blocks": (lambda: encode(_page_with(blocks=[_minimal_block(i) for i in range(100_000)]), True), {}, {400, 413}),
    "deep nesting, bare": (lambda: b"[" * 200_000 + b"]" * 200_000, {}, {400}),
    "deep nesting in a block": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), attrs=_nested(900))]), False), {}, {400}),
    "deep nesting past the parser": (lambda: b'{"url": "https://fuzz.example/", "blocks": [{"attrs": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}]}", {}, {400}),
    "invalid UTF-8": (lambda: encode(_page_with(), False).replace(b"Body text", b"Body \xff\xfe text"), {}, {400}),
    "overlong UTF-8": (lambda: encode(_page_with(), False).replace(b"Body text", b"Body \xc0\xaf text"), {}, {400}),
    "lone surrogate": (lambda: encode(_page_with(), False).replace(b"Body text", b"Body \\ud800 text"), {}, {400}),
    "surrogate pair": (lambda: encode(_page_with(), False).replace(b"Body text", b"Body \\ud83d\\ude00 text"), {}, {201}),
    "NUL in text": (lambda: encode(_page_with(), False).replace(b"Body text", b"Body \\u0000 text"), {}, {201}),
    "huge selector": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), selector="div > " * 500_000 + "p")]), False), {}, {400}),
    "selector at the depth limit": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), selector="div > " * MAX_DEPTH + "p")]), False), {}, {201}),
    "huge class name": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), selector="p." + "x" * 3_000_000)]), False), {}, {201}),
    "deep path": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), path=["div"] * 100_000)]), False), {}, {400}),
    "huge integer": (lambda: encode(_page_with(blocks=[dict(_minimal_block(0), box={"left": 10**300, "top": 0, "width": 1, "height": 1})]), False), {}, {400}),
    "integer past the parser": (lambda: encode(_page_with(), False).replace(b'"link_chars": 0', b'"link_chars": ' + b"9" * 5000), {}, {400}),
    "float overflow": (lambda: encode(_page_with(), False).replace(b'"left": 100', b'"left": 1e999'), {}, {400}),
    "NaN": (lambda: encode(_page_with(), False).replace(b'"left": 100', b'"left": NaN'), {}, {400}),
    "bad IPv6 host": (lambda: encode(_page_with(url="https://[::1/x"), False), {}, {400}),
    "control character in host": (lambda: encode(_page_with(url="https://fuzz\u0000.example/x"), False), {}, {400}),
    "gzip bomb": (lambda: _bomb(200 << 20), {"Content-Encoding": "gzip"}, {413}),
    "gzip bomb without the header": (lambda: _bomb(200 << 20), {}, {413}),
    "gzip inside gzip": (lambda: gzip.compress(encode(_page_with(), True)), {"Content-Encoding": "gzip"}, {400}),
    "truncated gzip": (lambda: encode(_page_with(), True)[:-20], {"Content-Encoding": "gzip"}, {400}),
}


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("name", list(EXTREMES))
def test_extreme_upload(client, store, name):
    make_body, headers, expected = EXTREMES[name]
    body = make_body()
    started = time.perf_counter()
    before = snapshot(store)
    response = client.post("/api/pages", data=body, headers={"Content-Type": "application/json", **headers})
    elapsed = time.perf_counter() - started
    print(f"{name}: {len(body):,} bytes → {response.status_code} in {elapsed:.2f} s")
    check_answer(response, "/api/pages")
    assert response.status_code in expected, response.get_json()
    if response.status_code < 400:
        check_upload(store, client, body, headers)  # stored whole (re-upload replaces it with the same)
    else:
        assert snapshot(store) == before


def test_100k_blocks_are_refused_cheaply_even_under_a_raised_byte_cap(store, tmp_path):
    """Past ``MAX_BLOCKS`` a page is refused by its block count before any block is validated, so a
    hostile page costs little even where the byte cap is raised; the store is unchanged."""
    client = make_client(store, tmp_path, max_page_bytes=64_000_000)
    url = f"https://{KNOWN_SITE}/100k-blocks"
    body = encode(dict(page_dict(url), blocks=[_minimal_block(i) for i in range(100_000)]), True)
    before = snapshot(store)
    started = time.perf_counter()
    response = client.post("/api/pages", data=body, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
    print(f"100k blocks: {len(body):,} bytes gzipped → {response.status_code} in {time.perf_counter() - started:.1f} s")
    assert response.status_code == 400
    assert response.get_json()["field"] == "blocks" and str(MAX_BLOCKS) in response.get_json()["message"]
    assert snapshot(store) == before


def test_a_page_at_the_block_cap_is_validated_and_stored_whole(store, tmp_path):
    client = make_client(store, tmp_path, max_page_bytes=64_000_000)
    url = f"https://{KNOWN_SITE}/many-blocks"
    body = encode(dict(page_dict(url), blocks=[_minimal_block(i) for i in range(MAX_BLOCKS)]), True)
    response = client.post("/api/pages", data=body, headers={"Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert response.status_code == 201
    record = json.loads(zlib.decompress(store.redis.hget(f"sw:site:{KNOWN_SITE}:pages", url)))
    assert len(record["blocks"]) == MAX_BLOCKS and record["blocks"][-1]["box"]["top"] == MAX_BLOCKS - 1


@pytest.mark.parametrize(
    "mark",
    [
        {"url": f"https://{KNOWN_SITE}/a", "kind": "wrong", "selector": "p" * 5000},
        {"url": f"https://{KNOWN_SITE}/a", "kind": "wrong", "selector": "p", "text": "x" * 20_000},
        {"url": f"https://{KNOWN_SITE}/a", "kind": "wrong", "selector": "p\ud800"},
        {"url": "https://[::1/", "kind": "wrong", "selector": "p"},
    ],
    ids=["huge selector", "huge text", "lone surrogate", "bad IPv6 host"],
)
def test_extreme_feedback_is_refused(client, store, mark):
    before = store.redis.llen(f"sw:site:{KNOWN_SITE}:feedback")
    body = json.dumps(mark).encode()  # json.dumps escapes a lone surrogate as \ud800, as a browser might
    response = client.post("/api/feedback", data=body, headers={"Content-Type": "application/json"})
    check_answer(response, "/api/feedback")
    assert response.status_code == 400
    assert store.redis.llen(f"sw:site:{KNOWN_SITE}:feedback") == before


@pytest.mark.parametrize(
    "request_body",
    [
        {"html": "<div>" * 100_000 + "deep" + "</div>" * 100_000},
        {"html": "<p>" + "word " * 1_000_000 + "</p>"},
        {"html": "<p>\ud800 lone surrogate in html</p>"},
        {"page": _page_with(url="https://[::1/")},
        {"html": "<p>x</p>", "url": "https://[::1/"},
    ],
    ids=["deep html", "gigantic html", "lone surrogate", "bad IPv6 page url", "bad IPv6 url"],
)
def test_extreme_extract_requests(client, request_body):
    started = time.perf_counter()
    response = client.post("/api/extract", data=json.dumps(request_body), headers={"Content-Type": "application/json"})
    print(f"extract: {response.status_code} in {time.perf_counter() - started:.2f} s")
    check_answer(response, "/api/extract")


def test_html_past_the_cap_is_refused_before_extraction(client):
    html = "<p>" + "word " * (MAX_EXTRACT_MARKUP_CHARS // 5) + "</p>"
    started = time.perf_counter()
    response = client.post("/api/extract", json={"html": html})
    elapsed = time.perf_counter() - started
    assert response.status_code == 413 and response.get_json()["field"] == "html"  # MSS would answer 200
    assert "outside its scripts and styles" in response.get_json()["message"]
    print(f"extract of {len(html):,} characters: 413 in {elapsed:.2f} s")


def test_html_of_more_tags_than_the_cap_is_refused_before_extraction(client):
    html = "<p>x</p>" * (MAX_EXTRACT_TAGS // 2 + 1)  # well under the characters' cap
    started = time.perf_counter()
    response = client.post("/api/extract", json={"html": html})
    elapsed = time.perf_counter() - started
    assert response.status_code == 413 and response.get_json()["field"] == "html"
    assert "tags" in response.get_json()["message"]
    print(f"extract of {MAX_EXTRACT_TAGS + 2:,} tags: 413 in {elapsed:.2f} s")


def test_html_past_the_cap_in_scripts_alone_is_extracted(client):
    # recent pages inline megabytes of scripts and data around a short article: cheap to read past
    story = "<h1>Harbour reopens</h1>" + "<p>The harbour reopened to ferries on Monday after the storm.</p>" * 20
    html = (f"<html><head><script>var state = '{'x' * MAX_EXTRACT_MARKUP_CHARS}';</script></head>"
            f"<body><article>{story}</article></body></html>")
    response = client.post("/api/extract", json={"html": html})
    assert response.status_code == 200
    assert "harbour reopened to ferries" in response.get_json()["text"]


def test_hostile_pages_on_a_learned_site_neither_fail_extraction_nor_learning(client, store):
    """Selectors and paths at the depth limit, gigantic blocks and many blocks reach the rules (apply, in
    /api/extract) and the learner (the next learn of the site): answers, no exception."""
    pages = [page for page, sample in sample_pages(generate_site(seed=3, stories=4, features=0)).values() if sample.article]
    for page in pages:
        store.put_page(page)
    site = pages[0].site
    assert learn_stored_site(store, site).stored
    hostile = []
    for n, change in enumerate([
        {"selector": "div > " * MAX_DEPTH + "p"},
        {"path": ["div"] * MAX_DEPTH},
        {"text": "word " * 200_000},
        {"selector": "p." + "x" * 100_000},
    ]):
        data = pages[0].to_dict()
        data["url"] = data["url"].replace(".html", f"-hostile-{n}.html")
        data["canonical_url"] = None
        data["blocks"][3].update(change)
        hostile.append(data)
    for data in hostile:
        response = client.post("/api/extract", json={"page": data})
        check_answer(response, "/api/extract")
        assert response.status_code == 200
        assert client.post("/api/pages", json=data).status_code == 201
    outcome = learn_stored_site(store, site)
    assert outcome.reason  # learned or refused with a reason — never an exception
