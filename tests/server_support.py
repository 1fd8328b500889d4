"""Helpers for the server tests: small valid pages, and the app on a real embedded Redis."""
from __future__ import annotations

import copy
import gzip
import json
from typing import Any

from sitewise.config import Settings

STYLE = {"display": "block", "font-size": "16px", "color": "rgb(0,0,0)"}


def block(text: str, selector: str = "body > main > p", tag: str = "p", top: float = 0.0) -> dict[str, Any]:
    return {
        "text": text,
        "tag": tag,
        "path": ["html", "body", "main", tag],
        "selector": selector,
        "box": {"left": 10, "top": top, "width": 600, "height": 40},
        "style": dict(STYLE),
        "link_chars": 0,
    }


def page_dict(url: str = "https://news.example/a/1", blocks: int = 3, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": 1,
        "url": url,
        "canonical_url": None,
        "titles": ["A story about the harbor"],
        "descriptions": ["Ships and cargo at the harbor."],
        "lang": "en",
        "viewport": {"width": 1280, "height": 800},
        "collector": "bookmarklet",
        "blocks": [block(f"Paragraph {i} about ships and the harbor.", top=100.0 + 50 * i) for i in range(blocks)],
    }
    data.update(fields)
    return data


def with_change(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``data`` with the value at a dotted path (``blocks.0.box.left``) replaced."""
    out = copy.deepcopy(data)
    target = out
    parts = path.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    last = parts[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return out


def as_json(data: Any) -> bytes:
    return json.dumps(data).encode("utf-8")


def as_gzip(data: Any) -> bytes:
    return gzip.compress(as_json(data))


def settings_for(tmp_path: Any, **overrides: Any) -> Settings:
    values = {"data_dir": str(tmp_path), "admin_token": "s3cret", "uploads_per_minute": 1000}
    values.update(overrides)
    return Settings(**values)
