"""The OpenAPI description is valid, complete (every API route is in it, with every status it answers with
and that answer's body) and carries the page schema."""
from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
import redis
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from sitewise.page import Page
from sitewise.server import create_app
from sitewise.server.openapi import openapi_document
from sitewise.store import Store
from server_support import as_json, page_dict, settings_for, with_change


def test_the_description_is_a_valid_openapi_3_1_document():
    from openapi_spec_validator import validate

    validate(openapi_document())


def test_every_api_route_is_described(store, tmp_path):
    app = create_app(settings_for(tmp_path), store)
    documented = {(path, method.upper()) for path, item in openapi_document()["paths"].items() for method in item}
    routed = set()
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/rules/", "/healthz")):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            routed |= {(path, method) for method in rule.methods - {"HEAD", "OPTIONS"}}
    assert routed == documented


def test_served_description_validates_pages_like_the_server(store, tmp_path):
    client = create_app(settings_for(tmp_path), store).test_client()
    document = client.get("/api/openapi.json").get_json()
    registry = Registry().with_resource("urn:api", Resource.from_contents(document, default_specification=DRAFT202012))
    validator = Draft202012Validator({"$ref": "urn:api#/components/schemas/Page"}, registry=registry)
    assert validator.is_valid(page_dict())
    assert not validator.is_valid(with_change(page_dict(), "blocks.0.box.left", "12"))
    assert not validator.is_valid(with_change(page_dict(), "blocks.0.text", ""))


#: An article page with its headline, and rules of its site that select it.
ARTICLE = ("<html><head><title>Harbor strike ends</title></head><body><article><h1>Harbor strike ends</h1>"
           + "<p>The harbor workers voted to accept the new contract and ships came in again.</p>" * 4
           + "</article></body></html>")
ARTICLE_RULES = {"templates": [{"name": "story", "match": ["article"], "include": ["article"], "exclude": [],
                                "heading": ["article h1"], "words": [1, 500]}], "pages_learned": 4, "confidence": 0.9}


@pytest.mark.parametrize("request_body, method", [
    ({"html": ARTICLE, "url": "https://news.example/a/1"}, "rules"),
    ({"html": ARTICLE, "url": "https://other.example/a/1"}, "mss"),
    ({"html": ARTICLE}, "mss"),
    ({"page": page_dict()}, "mss"),
    ({"html": ARTICLE, "output": "markdown"}, "mss"),
    ({"html": ARTICLE, "url": "https://news.example/a/1", "output": "html", "include_links": True}, "rules"),
], ids=["rules", "mss", "html without url", "page without html", "markdown", "rules as html"])
def test_an_extraction_carries_every_field_described_and_no_other(store, tmp_path, request_body, method):
    store.put_rules("news.example", ARTICLE_RULES)
    client = create_app(settings_for(tmp_path), store).test_client()
    answer = client.post("/api/extract", json=request_body).get_json()
    document = openapi_document()
    schema = document["components"]["schemas"]["Extraction"]
    registry = Registry().with_resource("urn:api", Resource.from_contents(document, default_specification=DRAFT202012))
    assert answer["method"] == method
    # every field but the formats asked for in the request's output, which come only then
    asked = {request_body["output"]} if "output" in request_body else set()
    assert set(answer) == set(schema["required"]) | asked and set(schema["properties"]) - set(schema["required"]) == {"markdown", "html"}
    assert not list(Draft202012Validator(schema, registry=registry).iter_errors(answer))

# -- every status a route answers with is in the description -------------------------------------------

KNOWN_SITE = "news.example"
#: Bodies that take each route past its input checks (the other routes read no body).
GOOD_BODIES = {
    "/api/pages": page_dict(),
    "/api/extract": {"html": "<main><p>A short article about the harbor.</p></main>", "url": "https://news.example/a/1"},
    "/api/feedback": {"url": "https://news.example/a/1", "kind": "not_article", "selector": "body > main > p"},
    "/api/admin/aliases/{host}": {"site": KNOWN_SITE},
}
#: Path parameters as a request that should succeed names them (a host to join; to part, the one :func:`seed`
#: joined) ...
GOOD_VALUES = {"site": KNOWN_SITE, "host": "sister.example"}
JOINED_HOST = {("/api/admin/aliases/{host}", "DELETE"): {"host": "joined.example"}}
#: ... and the query strings it needs.
GOOD_QUERIES = {"/api/admin/sites/{site}/pages": {"key": "https://news.example/a/1"}}
#: Every per-client limit at one, so the second request of a client is over each.
ONE_OF_EACH = {name: 1 for name in ("uploads_per_minute", "client_pages_per_site_per_day", "client_pages_per_day",
                                    "client_bytes_per_day", "client_marks_per_site_per_day", "dashboard_views_per_minute")}
#: Each way a request can fail, as the server's code has it (server/*.py): a request that succeeds, then one
#: thing spoiled — the path, the body, the headers, the configuration, the store. A new failure path of the
#: server's belongs here, so that its status is checked against every route's description.
ERROR_PATHS = {
    "as asked": {},
    "a name that is no host name": {"values": {"site": "a..b", "host": "a..b"}},
    "an unknown site": {"values": {"site": "unknown.example", "host": "unknown.example"}},
    "a body that is no JSON": {"data": b"{not json"},
    "a body that is no JSON object": {"data": b"[]"},
    "an unsupported Content-Encoding": {"headers": {"Content-Encoding": "br"}},
    "a body over the cap": {"data": b" " * 70_000, "settings": {"max_page_bytes": 65_000}},
    "a wrong admin token": {"headers": {"Authorization": "Bearer wrong"}},
    "a token while admin actions are off": {"headers": {"Authorization": "Bearer s3cret"}, "settings": {"admin_token": ""}},
    "over every rate limit": {"settings": ONE_OF_EACH, "repeat": 3},
    "the storage budget used up": {"settings": {"storage_budget_bytes": 1}},
    "the store down": {"store": "down"},
    "the store full": {"store": "full"},
}


def api_operations(app) -> list[tuple[str, str]]:
    """(OpenAPI path, method) of every route under /api, /rules and /healthz."""
    operations = []
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/rules/", "/healthz")):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            operations += [(path, method) for method in sorted(rule.methods - {"HEAD", "OPTIONS"})]
    return operations


@contextmanager
def store_condition(store, condition: str | None, tmp_path):
    """The store the app is built on: the test's, one that does not answer, or the test's filled up."""
    if condition == "down":
        yield Store(redis.Redis.from_url(f"unix://{tmp_path}/no-redis-here.sock"))
        return
    if condition != "full":
        yield store
        return
    limit = store.redis.config_get("maxmemory")["maxmemory"]
    store.redis.config_set("maxmemory", "1")  # below what it holds: every write is refused
    try:
        yield store
    finally:
        store.redis.config_set("maxmemory", limit)


def seed(store) -> None:
    """A store where every operation can succeed: one page of KNOWN_SITE, a rule version held for review, and a
    sister domain joined to it (for the alias to part)."""
    store.redis.flushall()
    store.put_page(Page.from_dict(page_dict()))
    store.hold_rules(KNOWN_SITE, {"site": KNOWN_SITE, "templates": []}, "moved the article")
    store.put_alias(JOINED_HOST[("/api/admin/aliases/{host}", "DELETE")]["host"], KNOWN_SITE)


def answers(store, tmp_path, error_path: dict) -> list[tuple[str, str, int, object]]:
    """(path, method, status, JSON body) of every API operation asked in the way ``error_path`` says, each on a
    :func:`seed`-ed store."""
    seen = []
    for path, method in api_operations(create_app(settings_for(tmp_path), store)):
        seed(store)
        values = {**GOOD_VALUES, **JOINED_HOST.get((path, method), {}), **error_path.get("values", {})}
        url = re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)
        headers = {"Content-Type": "application/json"}
        if path.startswith("/api/admin/"):
            headers["Authorization"] = "Bearer s3cret"
        headers.update(error_path.get("headers", {}))
        data = error_path.get("data", as_json(GOOD_BODIES[path]) if path in GOOD_BODIES else None)
        with store_condition(store, error_path.get("store"), tmp_path) as used:
            client = create_app(settings_for(tmp_path, **error_path.get("settings", {})), used).test_client()
            for _ in range(error_path.get("repeat", 1)):
                response = client.open(url, method=method, data=data, headers=headers, query_string=GOOD_QUERIES.get(path))
                seen.append((path, method, response.status_code, response.get_json(silent=True)))
    return seen


@pytest.mark.parametrize("error_path", ERROR_PATHS.values(), ids=ERROR_PATHS.keys())
def test_every_status_a_route_answers_with_is_described_with_its_body(store, tmp_path, error_path):
    document = openapi_document()
    registry = Registry().with_resource("urn:api", Resource.from_contents(document, default_specification=DRAFT202012))
    undocumented, failed, misshapen = [], [], []
    for path, method, status, body in answers(store, tmp_path, error_path):
        response = document["paths"][path][method.lower()]["responses"].get(str(status))
        if status == 500:
            failed.append((method, path, body))  # described (any route may fail), but a bug wherever it happens
        elif response is None:
            undocumented.append((method, path, status, body))
        elif status >= 400:
            if "$ref" in response:
                response = document["components"]["responses"][response["$ref"].rpartition("/")[2]]
            schema = response["content"]["application/json"]["schema"]
            validator = Draft202012Validator({"$ref": "urn:api#/components/schemas/" + schema["$ref"].rpartition("/")[2]}
                                             if "$ref" in schema else schema, registry=registry)
            if not validator.is_valid(body):
                misshapen.append((method, path, status, body))
    assert not failed
    assert not undocumented
    assert not misshapen
