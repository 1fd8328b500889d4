"""Extractors: every way sitewise (or a peer) turns a page into article text, behind one interface.

An extractor gets a :class:`Document` (raw HTML and/or the rendered, collected page) and returns the
article text, one block per line, or ``""`` when the page has no article. Learners that work per site
(``per_site = True``) are ``fit`` on a site's training documents first, scikit-learn style.
Extractors are looked up by name; each lives in its own module and is imported only when asked for.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from .page import Page


@dataclass
class Document:
    """One page to extract from: what was served and, when rendered, what the collector saw."""

    id: str
    url: str | None = None
    html: str | None = None
    page: Page | None = None
    group: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


class Extractor(Protocol):
    #: Registry name.
    name: str
    #: True when ``extract`` needs ``Document.page`` (rendered blocks); False when raw HTML suffices.
    needs_page: bool
    #: True when the extractor must be fit on a site's pages before extracting that site's pages.
    per_site: bool

    def fit(self, documents: Sequence[Document]) -> "Extractor":
        """Learn from one site's training documents (a no-op for single-page extractors)."""

    def extract(self, document: Document) -> str:
        """The article text of one document, or ``""`` when it has none."""


class AllText:
    """Every collected block's text, in order: an upper bound on recall that proves the collector."""

    name = "all-text"
    needs_page = True
    per_site = False

    def fit(self, documents: Sequence[Document]) -> "AllText":
        return self

    def extract(self, document: Document) -> str:
        return document.page.text if document.page else ""


#: name → "module:factory"; factories take keyword options and return an Extractor.
REGISTRY: dict[str, str] = {
    "all-text": "sitewise.extractors:AllText",
    "rules": "sitewise.learn.extractor:RulesExtractor",
    "mss": "sitewise.mss.extractor:SupervisedMSS",
    "mss-baseline": "sitewise.mss.extractor:BaselineMSS",
    "mss-line": "sitewise.mss.extractor:LineMSS",
    "sitewise": "sitewise.pipeline:SitewiseExtractor",
    # Peers for the side-by-side benchmark (optional: pip install 'sitewise[bench]').
    "trafilatura": "sitewise.bench.peers:Trafilatura",
    "readability-lxml": "sitewise.bench.peers:ReadabilityLxml",
    "justext": "sitewise.bench.peers:JusText",
    "boilerpy3": "sitewise.bench.peers:Boilerpy3",
    "resiliparse": "sitewise.bench.peers:Resiliparse",
    "goose3": "sitewise.bench.peers:Goose3",
    "newspaper4k": "sitewise.bench.peers:Newspaper4k",
}


#: The registered extractors that tell an article's heading from its body (their ``part`` option).
PART_AWARE = frozenset({"rules", "sitewise"})
#: What of a page's article those extractors return: all of it, or the body (no heading, no captions).
PARTS = ("article", "body")


def check_part(part: str) -> str:
    """``part`` when it is one of :data:`PARTS`; a ValueError naming them otherwise."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}, not {part!r}")
    return part


def get_extractor(name: str, **options: Any) -> Extractor:
    """Instantiate a registered extractor; a clear error names the known ones."""
    target = REGISTRY.get(name)
    if target is None:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(REGISTRY))}")
    module_name, factory_name = target.split(":")
    factory = getattr(importlib.import_module(module_name), factory_name)
    return factory(**options)
