"""The OpenAPI description is valid, complete (every API route is in it) and carries the page schema."""
from __future__ import annotations

import re

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from sitewise.server import create_app
from sitewise.server.openapi import openapi_document
from server_support import page_dict, settings_for, with_change


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
