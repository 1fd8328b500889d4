"""The ``rules`` extractor of sitewise eval: learn per site from training documents, extract, report the path."""
from __future__ import annotations

import pytest

from learn_support import sample_pages
from sitewise.extractors import Document, get_extractor
from sitewise.metrics import word_prf
from sitewise.sample_site import generate_site


@pytest.fixture(scope="module")
def documents():
    pages = sample_pages(generate_site(seed=5, stories=6, features=2))
    docs = {path: (Document(id=path, url=page.url, html=page.html, page=page), sample) for path, (page, sample) in pages.items()}
    stories = [item for item in docs.values() if item[1].template == "story"]
    return stories[:4], stories[4:], next(item for item in docs.values() if item[1].template == "feature"), docs["/"]


def test_registered_and_per_site():
    extractor = get_extractor("rules")
    assert extractor.name == "rules" and extractor.per_site and extractor.needs_page


def test_fit_then_extract(documents):
    train, test, _, _ = documents
    extractor = get_extractor("rules").fit([d for d, _ in train])
    for document, sample in test:
        text, info = extractor.extract_detailed(document)
        assert info["method"] == "rules" and info["template"]
        assert word_prf(text, sample.truth).f1 >= 0.95
        assert extractor.extract(document) == text


def test_paths_for_unknown_layouts_and_unlearned_sites(documents):
    train, _, (feature, _), (index, _) = documents
    extractor = get_extractor("rules").fit([d for d, _ in train])
    text, info = extractor.extract_detailed(feature)  # a layout not among the training pages
    assert info["method"] == "no-template" and text == ""
    fallback = get_extractor("rules", fallback="all-text").fit([d for d, _ in train])
    text, info = fallback.extract_detailed(index)
    assert info["method"] == "fallback:all-text" and info["why"] == "no-template"
    assert text == index.page.text
    unlearned = get_extractor("rules").fit([])
    assert unlearned.extract_detailed(index) == ("", {"method": "unlearned", "reason": "no training pages"})


def test_html_only_documents_use_the_html(documents):
    train, test, _, _ = documents
    extractor = get_extractor("rules").fit([d for d, _ in train])
    document, sample = test[0]
    text, info = extractor.extract_detailed(Document(id="x", url=document.url, html=document.html))
    assert info["method"] == "rules" and word_prf(text, sample.truth).f1 >= 0.95
