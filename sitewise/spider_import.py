"""Import pages collected by the original spider project's bookmarklet into the sitewise page format.

A spider page (``url``, ``titles``, ``descriptions``, ``body``, ``texts[]``, ``links``, ``images``) was
rendered in a real browser, so its blocks carry real computed CSS. Each ``texts[]`` entry becomes a
:class:`~sitewise.page.Block`:

* ``text``: its text nodes joined (a space is put back only between two letters or digits, where the
  spider dropped a whitespace-only node between inline elements), whitespace collapsed;
* ``tag``/``path``: ``element.name`` and ``["html", "body", *path]`` (spider paths start below body);
* ``selector``: the ``selector`` steps as ``tag#id.class`` joined by `` > `` below ``body``, identifiers
  escaped as ``CSS.escape`` does, exactly like ``bookmarklet/collect.js``;
* ``box``: ``bound``;
* ``style``: the :data:`~sitewise.page.STYLE_PROPERTIES` subset, normalised as ``collect.js`` does. The
  spider recorded only values that differ from ``<body>``'s computed style, so a missing value is the
  body's (then the CSS initial value);
* ``link_chars``: characters of link text in the block (from its ``html``), at most the text length.
"""
from __future__ import annotations

import gzip
import html as html_lib
import json
import math
import re
import zlib
from pathlib import Path
from typing import Any, Iterator

from .learn.selectors import Step, css_escape
from .page import STYLE_PROPERTIES, Page, PageError
from .text import UNSPACED_CHARACTERS

#: The names a folder's spider page files end in.
PAGE_FILE_SUFFIXES = (".json", ".json.gz")
#: Initial values of the recorded properties, for pages whose body style lacks one (old Chrome had no
#: ``text-decoration-line``, for instance).
_INITIAL_STYLE = {
    "display": "inline", "position": "static", "float": "none", "font-family": "serif",
    "font-size": "16px", "font-weight": "400", "font-style": "normal", "line-height": "normal",
    "color": "rgb(0,0,0)", "background-color": "rgba(0,0,0,0)", "text-align": "start",
    "text-decoration-line": "none", "text-transform": "none", "letter-spacing": "normal",
    "white-space": "normal", "list-style-type": "disc",
    **{f"{box}-{side}": "0px" for box in ("margin", "padding") for side in ("top", "right", "bottom", "left")},
    **{f"border-{side}-style": "none" for side in ("top", "bottom", "left", "right")},
}

_FONT_WEIGHTS = {"normal": "400", "bold": "700", "bolder": "700", "lighter": "300"}
_DECORATION_LINES = ("underline", "overline", "line-through", "blink")
_LENGTH = re.compile(r"(-?\d+(?:\.\d+)?)px")
_COLOUR = re.compile(r"(rgba?)\(\s*([^)]*)\)")
_LINK = re.compile(r"<a\b[^>]*\bhref\b[^>]*>(.*?)</a\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SPACES = re.compile(r"\s+")
_SENTENCE_ENDS = ".!?;:"
#: Scripts written without spaces: no space is put back between two of their characters.
_UNSPACED = re.compile(f"[{UNSPACED_CHARACTERS}]")


def normalise_style_value(prop: str, value: str) -> str:
    """A computed CSS value as ``collect.js`` records it: lengths in whole px, ``rgb(r,g,b)``/``rgba()``
    colours without spaces, the first font family lower-cased, numeric font weights."""
    value = _SPACES.sub(" ", value.strip())
    if prop == "font-family":
        return value.split(",")[0].strip().strip("'\"").lower()
    if prop == "font-weight":
        return _FONT_WEIGHTS.get(value, value)
    if prop == "text-decoration-line":
        lines = [word for word in value.split() if word in _DECORATION_LINES]
        return " ".join(lines) or "none"
    if value == "transparent":
        return "rgba(0,0,0,0)"
    value = _COLOUR.sub(lambda m: f"{m.group(1)}({','.join(p.strip() for p in m.group(2).split(','))})", value)
    return _LENGTH.sub(lambda m: f"{math.floor(float(m.group(1)) + 0.5)}px", value)


def _style(computed: dict[str, Any], body: dict[str, Any]) -> dict[str, str]:
    style = {}
    for prop in STYLE_PROPERTIES:
        # The spider had only ``text-decoration`` (2013 Chrome): its line part is the same thing.
        names = (prop, "text-decoration") if prop == "text-decoration-line" else (prop,)
        raw = next((str(src[n]) for src in (computed, body) for n in names if src.get(n) not in (None, "")), None)
        style[prop] = normalise_style_value(prop, raw) if raw is not None else _INITIAL_STYLE[prop]
    return style


def _join_text(nodes: list[str]) -> str:
    out = ""
    for node in nodes:
        if out and node and _needs_space(out[-1], node[0]):
            out += " "
        out += node
    return _SPACES.sub(" ", out).strip()


def _needs_space(left: str, right: str) -> bool:
    # Two word characters (or a sentence end and a letter) touching means a whitespace-only text node
    # between two inline elements was dropped by the spider collector ("Privacy Policy" "Terms"); inside
    # a word the spider kept the text in one node, and unspaced scripts never had a space there.
    if _UNSPACED.match(left) or _UNSPACED.match(right):
        return False
    return (left.isalnum() or left in _SENTENCE_ENDS) and right.isalnum() and not (left in _SENTENCE_ENDS and right.isdigit())


def _link_chars(fragment: str, text: str) -> int:
    total = 0
    for match in _LINK.finditer(fragment or ""):
        link_text = _SPACES.sub(" ", html_lib.unescape(_TAG.sub("", match.group(1)))).strip()
        # Links inside a nested block belong to that block; count only link text found in this one.
        if link_text and link_text in text:
            total += len(link_text)
    return min(total, len(text))


def _step(data: Any, where: str) -> Step:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        raise PageError(where, "must be an object with a tag name")
    classes = data.get("classes") or []
    if not isinstance(classes, list) or not all(isinstance(c, str) for c in classes):
        raise PageError(f"{where}.classes", "must be a list of strings")
    return Step(data["name"].lower(), str(data.get("id") or ""), frozenset(c for c in classes if c))


def _selector(steps: list[Step], class_orders: list[list[str]]) -> str:
    # Keep each element's class order as the page had it (collect.js reads classList in order).
    parts = ["body"] + [
        Step(step.tag, step.id).css() + "".join("." + c for c in _escaped_classes(order))
        for step, order in zip(steps, class_orders)
    ]
    return " > ".join(parts)


def _escaped_classes(order: list[str]) -> list[str]:
    seen: list[str] = []
    for name in order:
        if name and name not in seen:
            seen.append(name)
    return [css_escape(name) for name in seen]


def _block(entry: Any, body_style: dict[str, Any], where: str) -> dict[str, Any] | None:
    if not isinstance(entry, dict):
        raise PageError(where, "must be an object")
    nodes = entry.get("text")
    if isinstance(nodes, str):
        nodes = [nodes]
    if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes):
        raise PageError(f"{where}.text", "must be a list of strings")
    text = _join_text(nodes)
    if not text:
        return None
    selector_data = entry.get("selector")
    if not isinstance(selector_data, list):
        raise PageError(f"{where}.selector", "must be a list of {name, id, classes}")
    steps = [_step(s, f"{where}.selector[{i}]") for i, s in enumerate(selector_data)]
    bound = entry.get("bound")
    if not isinstance(bound, dict):
        raise PageError(f"{where}.bound", "must be an object with left, top, width, height")
    element = entry.get("element") or (selector_data[-1] if selector_data else {"name": "body"})
    tag = _step(element, f"{where}.element").tag
    computed = entry.get("computed") or {}
    if not isinstance(computed, dict):
        raise PageError(f"{where}.computed", "must be an object")
    return {
        "text": text,
        "tag": tag,
        "path": ["html", "body"] + [s.tag for s in steps],
        "selector": _selector(steps, [list(s.get("classes") or []) for s in selector_data]),
        "box": {k: bound.get(k) for k in ("left", "top", "width", "height")},
        "style": _style(computed, body_style),
        "link_chars": _link_chars(str(entry.get("html") or ""), text),
    }


def page_from_spider(data: Any) -> Page:
    """Convert one spider page JSON (already decoded) to a :class:`Page`; raises :class:`PageError`."""
    if not isinstance(data, dict):
        raise PageError("(spider page)", "must be a JSON object")
    texts = data.get("texts")
    if not isinstance(texts, list):
        raise PageError("texts", "must be a list")
    body = data.get("body") or {}
    body_style = body.get("computed") or {} if isinstance(body, dict) else {}
    blocks = [b for i, t in enumerate(texts) if (b := _block(t, body_style, f"texts[{i}]")) is not None]
    return Page.from_dict(
        {
            "url": data.get("url"),
            "titles": _strings(data, "titles"),
            "descriptions": _strings(data, "descriptions"),
            "collector": "import",
            "blocks": blocks,
        }
    )


def _strings(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key) or []
    if not isinstance(value, list):
        raise PageError(key, "must be a list of strings")
    out: list[str] = []
    for item in value:
        text = _SPACES.sub(" ", str(item)).strip() if isinstance(item, (str, int, float)) else ""
        if text and text not in out:
            out.append(text)
    return out


def read_spider_file(path: str | Path) -> Page:
    """Read and convert one spider page file (``.json`` or ``.json.gz``); raises :class:`PageError` for
    anything else, OSError when it cannot be read."""
    return page_from_spider(_read_json_file(path))


def read_page_file(path: str | Path) -> Page:
    """A page file in either format — sitewise page JSON or spider JSON (it has ``texts``) — plain or
    gzipped; raises :class:`PageError` for anything else, OSError when it cannot be read."""
    data = _read_json_file(path)
    return page_from_spider(data) if isinstance(data, dict) and "texts" in data else Page.from_dict(data)


def _read_json_file(path: str | Path) -> Any:
    """The JSON a page file holds (gunzipped when its name ends ``.gz``). A file cut short (an interrupted
    copy), not gzip, not JSON or nested deeper than Python's JSON parser goes is a :class:`PageError`,
    as a page breaking the format is: the caller reports it and goes on with the other files."""
    path = Path(path)
    raw = path.read_bytes()
    if path.suffix == ".gz":
        try:
            raw = gzip.decompress(raw)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise PageError("(file)", f"not a whole gzip file: {exc}") from None
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise PageError("(file)", f"not JSON: {exc}") from None
    except RecursionError:
        raise PageError("(file)", "not a page: its JSON nests deeper than Python's parser goes") from None


def spider_files(root: str | Path) -> Iterator[Path]:
    """Spider page files under a folder (or the file itself), in natural order of their paths."""
    root = Path(root)
    if root.is_file():
        yield root
        return
    if not root.is_dir():
        raise FileNotFoundError(f"no such file or folder: {root}")
    files = [p for p in root.rglob("*") if p.is_file() and p.name.endswith(PAGE_FILE_SUFFIXES)]
    yield from sorted(files, key=_natural_key)


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(path))]
