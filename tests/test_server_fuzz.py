"""Hostile input against the write endpoints: whatever the body, never a 500, and a refused upload
leaves the store as it was."""
from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sitewise.server import create_app
from server_support import page_dict, settings_for

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
PAGE_PATHS = ["url", "canonical_url", "titles", "descriptions", "lang", "viewport", "collected_at", "collector", "html",
              "format", "blocks", "blocks.0", "blocks.0.text", "blocks.0.tag", "blocks.0.path", "blocks.0.selector",
              "blocks.0.box", "blocks.0.box.top", "blocks.0.style", "blocks.0.style.color", "blocks.0.link_chars",
              "blocks.0.attrs", "blocks.1.box.width"]
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def client(store, tmp_path):
    app = create_app(settings_for(tmp_path, uploads_per_minute=0, client_pages_per_site_per_day=0), store)
    return app.test_client()


def put(data, path, value):
    target = data
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if isinstance(target, list):
        target[int(parts[-1])] = value
    else:
        target[parts[-1]] = value
    return data


@FUZZ
@given(path=st.sampled_from(PAGE_PATHS), value=JSON_VALUES, zipped=st.booleans())
def test_uploads_with_any_field_replaced(client, store, path, value, zipped):
    store.redis.flushdb()
    body = json.dumps(put(page_dict(blocks=2), path, value)).encode("utf-8")
    response = client.post("/api/pages", data=gzip.compress(body) if zipped else body, content_type="application/json")
    assert response.status_code in (200, 201, 400), response.get_json()
    assert response.is_json
    if response.status_code == 400:
        assert store.sites() == [] and store.redis.keys("sw:site:*") == []


@FUZZ
@given(body=st.binary(max_size=200))
def test_uploads_of_any_bytes(client, store, body):
    response = client.post("/api/pages", data=body, content_type="application/json")
    assert response.status_code in (201, 400, 415), response.get_json()


@FUZZ
@given(payload=st.dictionaries(st.sampled_from(["page", "html", "url"]), JSON_VALUES, max_size=3))
def test_extract_with_any_fields(client, payload):
    response = client.post("/api/extract", json=payload)
    assert response.status_code in (200, 400), response.get_json()


@FUZZ
@given(field=st.sampled_from(["url", "kind", "selector", "text", "method", "rule_version"]), value=JSON_VALUES)
def test_feedback_with_any_field(client, store, field, value):
    store.redis.flushdb()
    client.post("/api/pages", json=page_dict("https://news.example/a"))
    mark = {"url": "https://news.example/a", "kind": "missing", "selector": "body > p", "text": "x", field: value}
    response = client.post("/api/feedback", json=mark)
    assert response.status_code in (201, 400, 404), response.get_json()
    if response.status_code != 201:
        assert store.feedback("news.example") == []
