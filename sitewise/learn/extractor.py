"""``rules``: the per-site extractor of ``sitewise eval`` — learn a site's rules from its training pages,
then apply them to each test page, recording which path every page took.

Paths (``info["method"]``): ``rules`` (a template matched and the result is confident), ``unconfident``
(rules applied but the result is outside the template's usual length, or selected nothing),
``no-template`` (no template matched: a layout not seen while learning), ``unlearned`` (the site had no
training pages), and ``fallback:NAME`` when a fallback extractor was given and took over from one of the
last three.
"""
from __future__ import annotations

import logging
from typing import Any, Sequence

from ..extractors import Document, Extractor, check_part, get_extractor
from .learner import LearnError, SiteLearner
from .rules import apply_rules

log = logging.getLogger(__name__)


class RulesExtractor:
    """Learn per site (``fit``), then extract by the learned rules (``extract``)."""

    name = "rules"
    needs_page = True
    per_site = True

    def __init__(self, fallback: str | None = None, headline: bool = True, part: str = "article") -> None:
        #: Registered extractor used when the rules are not confident (e.g. "mss"); None keeps the
        #: rules' own (possibly empty) text.
        self.fallback = fallback
        self.headline = headline
        #: "article" (heading and body) or "body" (without the heading: see sitewise.learn.rules).
        self.part = check_part(part)
        self.learner_: SiteLearner | None = None
        self._fallback: Extractor | None = None

    def fit(self, documents: Sequence[Document]) -> "RulesExtractor":
        pages = [d.page for d in documents if d.page is not None and d.page.blocks]
        self.learner_ = None
        if pages:
            try:
                self.learner_ = SiteLearner(headline=self.headline).fit(pages)
            except LearnError as exc:
                log.warning("cannot learn from %d pages: %s", len(pages), exc)
        return self

    def extract_detailed(self, document: Document) -> tuple[str, dict[str, Any]]:
        """The text and how it was obtained (``method``, ``template``, ``reason``)."""
        if self.learner_ is None:
            return self._fall_back(document, "", {"method": "unlearned", "reason": "no training pages"})
        if document.page is None and document.html is None:
            return "", {"method": "unconfident", "reason": "nothing to apply the rules to"}
        found = apply_rules(self.learner_.rules_, page=document.page, html=document.html)
        info: dict[str, Any] = {"template": found.template or "", "reason": found.reason}
        if found.confident:
            return found.body if self.part == "body" else found.text, {**info, "method": "rules"}
        method = "no-template" if found.template is None else "unconfident"
        return self._fall_back(document, found.text, {**info, "method": method})

    def extract(self, document: Document) -> str:
        return self.extract_detailed(document)[0]

    def _fall_back(self, document: Document, text: str, info: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        if not self.fallback:
            return text, info
        if self._fallback is None:
            self._fallback = get_extractor(self.fallback)
        return self._fallback.extract(document), {**info, "method": f"fallback:{self.fallback}", "why": info["method"]}
