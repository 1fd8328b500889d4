"""Pages with blocks for learning tests, without a browser.

``static_page(url, html)`` groups text under its nearest block-level element as collect.js does, builds
the same selector paths, honours ``display: none`` rules of the page's own ``<style>`` (simple selectors
only), gives each block the computed style of a few simple ``<style>`` rules plus tag defaults, and lays
blocks out top to bottom. It is a stand-in for Chromium that is good enough to learn from the generated
sample site; the real collector is tested (and used in the browser tests) elsewhere.
"""
from __future__ import annotations

import re
from typing import Any

import lxml.html

from sitewise.learn.selectors import Step
from sitewise.page import STYLE_PROPERTIES, Page

BLOCK_TAGS = frozenset(
    "address article aside blockquote body dd div dl dt figcaption figure footer form h1 h2 h3 h4 h5 h6 header "
    "li main nav ol p pre section table td th tr ul".split()
)
SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title", "meta", "link"})
TAG_STYLE = {
    "h1": {"font-size": "32px", "font-weight": "700"},
    "h2": {"font-size": "24px", "font-weight": "700"},
    "h3": {"font-size": "19px", "font-weight": "700"},
    "h4": {"font-size": "16px", "font-weight": "700"},
    "li": {"display": "list-item"},
    "blockquote": {"margin-left": "40px"},
}
DEFAULT_STYLE = {prop: "0px" if prop.startswith(("margin", "padding")) else "normal" for prop in STYLE_PROPERTIES}
DEFAULT_STYLE.update({
    "display": "block", "position": "static", "float": "none", "font-family": "georgia", "font-size": "16px",
    "font-weight": "400", "font-style": "normal", "color": "rgb(34,34,34)", "background-color": "rgba(0,0,0,0)",
    "text-align": "start", "text-decoration-line": "none", "text-transform": "none", "list-style-type": "disc",
    **{f"border-{side}-style": "none" for side in ("top", "bottom", "left", "right")},
})
_RULE = re.compile(r"([^{}]+)\{([^}]*)\}")
_SPACES = re.compile(r"\s+")
#: What separates an element's class names (its classList): ASCII whitespace only, not U+00A0 or U+3000.
_CLASS_SEPARATOR = re.compile(r"[ \t\n\r\f]+")


def _css_rules(doc: Any) -> list[tuple[str, dict[str, str]]]:
    rules = []
    for style in doc.iter("style"):
        for selectors, body in _RULE.findall(style.text or ""):
            declarations = {}
            for declaration in body.split(";"):
                if ":" in declaration:
                    name, value = declaration.split(":", 1)
                    declarations[name.strip().lower()] = value.strip()
            for selector in selectors.split(","):
                rules.append((selector.strip(), declarations))
    return rules


def _computed(element: Any, matched: dict[Any, dict[str, str]]) -> dict[str, str]:
    style = dict(DEFAULT_STYLE)
    chain = list(element.iterancestors())[::-1] + [element]
    for ancestor in chain:  # inherited properties, outermost first
        for name in ("font-family", "font-size", "font-style", "color", "text-transform"):
            if name in matched.get(ancestor, {}):
                style[name] = matched[ancestor][name]
    style.update(TAG_STYLE.get(element.tag, {}))
    for name, value in matched.get(element, {}).items():
        if name in style:
            style[name] = value
    style["font-family"] = style["font-family"].split(",")[0].strip().strip("'\"").lower()
    return style


def _selector_path(element: Any) -> str:
    steps = []
    for node in list(element.iterancestors())[::-1] + [element]:
        if node.tag == "html":
            continue
        classes = frozenset(name for name in _CLASS_SEPARATOR.split(node.get("class") or "") if name)
        steps.append(Step(node.tag, node.get("id") or "", classes).css() if node.tag != "body" else "body")
    return " > ".join(steps)


def static_page(url: str, html: str, *, titles: list[str] | None = None) -> Page:
    """A collected page for ``html`` (served at ``url``) built without a browser."""
    doc = lxml.html.document_fromstring(html)
    matched: dict[Any, dict[str, str]] = {}
    hidden: set[Any] = set()
    for selector, declarations in _css_rules(doc):
        try:
            elements = doc.cssselect(selector)
        except Exception:  # pseudo-classes and the like: not needed for the sample site
            continue
        for element in elements:
            matched.setdefault(element, {}).update(declarations)
            if declarations.get("display", "").replace(" ", "") == "none":
                hidden.add(element)
    blocks: dict[Any, dict[str, Any]] = {}
    order: list[Any] = []

    def block_of(node: Any) -> Any:
        while node.tag not in BLOCK_TAGS:
            node = node.getparent()
        return node

    def add_text(node: Any, text: str | None, in_link: bool) -> None:
        if not text or not text.strip():
            return
        owner = block_of(node)
        if owner not in blocks:
            blocks[owner] = {"parts": [], "links": 0}
            order.append(owner)
        blocks[owner]["parts"].append(text)
        if in_link:
            blocks[owner]["links"] += len(_SPACES.sub(" ", text).strip())

    def walk(node: Any, in_link: bool) -> None:
        if node.tag in SKIP_TAGS or node in hidden or not isinstance(node.tag, str):
            return
        in_link = in_link or (node.tag == "a" and node.get("href") is not None)
        add_text(node, node.text, in_link)
        for child in node:
            walk(child, in_link)
            tail = child.tail
            if child.tag == "br" and tail:
                tail = " " + tail  # a line break separates words, as innerText has it
            add_text(node, tail, in_link and child.tag != "a")

    body = doc.find("body")
    walk(body, False)
    out, top = [], 0.0
    for element in order:
        text = _SPACES.sub(" ", "".join(blocks[element]["parts"])).strip()
        if not text:
            continue
        depth = len(list(element.iterancestors()))
        height = 20.0 * (1 + len(text) // 90)
        in_rail = any(a.get("class") in ("rail",) for a in element.iterancestors())
        out.append({
            "text": text,
            "tag": element.tag,
            "path": [a.tag for a in list(element.iterancestors())[::-1]] + [element.tag],
            "selector": _selector_path(element),
            "box": {"left": (820.0 if in_rail else 10.0 * depth), "top": top,
                    "width": 260.0 if in_rail else 760.0 - 10 * depth, "height": height},
            "style": _computed(element, matched),
            "link_chars": min(blocks[element]["links"], len(text)),
        })
        top += height + 8
    title = doc.findtext(".//title") or ""
    descriptions = [m.get("content") for m in doc.iter("meta") if m.get("name") == "description" and m.get("content")]
    return Page.from_dict({
        "url": url, "titles": titles if titles is not None else ([title.strip()] if title.strip() else []),
        "descriptions": descriptions, "lang": doc.get("lang"), "collector": "import", "blocks": out,
        "viewport": {"width": 1100, "height": 800}, "html": html,
    })


def sample_pages(site: Any, base: str = "http://gazette.test") -> dict[str, tuple[Page, Any]]:
    """Every page of a generated sample site as (static page, sample page), by path."""
    return {path: (static_page(base + path, sample.html), sample) for path, sample in site.pages.items()}
