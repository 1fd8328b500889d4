"""The OpenAPI 3.1 description of the API: ``server/openapi.json`` (hand-written) with the page format
(``sitewise/schema/page.schema.json``, the one source of truth) inserted as the Page and Block schemas."""
from __future__ import annotations

import copy
import json
from functools import lru_cache
from importlib import resources
from typing import Any

_PAGE_DEFS = "#/$defs/"
_COMPONENTS = "#/components/schemas/"


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: (_COMPONENTS + v[len(_PAGE_DEFS):].capitalize() if k == "$ref" and isinstance(v, str) and v.startswith(_PAGE_DEFS)
                    else _rewrite_refs(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite_refs(item) for item in node]
    return node


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    document = json.loads(resources.files("sitewise.server").joinpath("openapi.json").read_text("utf-8"))
    page = json.loads(resources.files("sitewise").joinpath("schema/page.schema.json").read_text("utf-8"))
    schemas = document["components"]["schemas"]
    for name, definition in page.pop("$defs", {}).items():
        schemas[name.capitalize()] = _rewrite_refs(definition)
    page.pop("$schema", None)
    page.pop("$id", None)
    schemas["Page"] = _rewrite_refs(page)
    return document


def openapi_document() -> dict[str, Any]:
    """The complete description (a fresh copy: callers may change it)."""
    return copy.deepcopy(_document())
