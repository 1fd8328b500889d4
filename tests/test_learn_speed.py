"""The fast paths of learning give the answers of the plain definitions: block features worked out once
per selector path, DBSCAN rows numbered by array operations and distances computed in slices, word
terms remembered per language."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from learn_support import sample_pages
from sitewise import text as text_module
from sitewise.learn import cluster
from sitewise.learn.cluster import cluster_blocks, distinct_rows
from sitewise.learn.features import describe_blocks, page_width
from sitewise.learn.learner import SiteLearner
from sitewise.page import Block, Box, Page
from sitewise.sample_site import generate_site


@pytest.fixture(scope="module")
def pages() -> list[Page]:
    return [page for page, _ in sample_pages(generate_site(seed=11, stories=6, features=2)).values()]


def _block(selector: str, path: list[str], style: dict[str, str], text: str = "Some words here", left: float = 10.0) -> Block:
    return Block(text=text, tag=path[-1], path=path, selector=selector, box=Box(left, 0.0, 300.0, 20.0), style=style)


def test_records_of_a_path_share_its_facts_and_style_is_per_block(pages):
    records = describe_blocks(pages)
    assert len(records) == sum(len(p.blocks) for p in pages)
    by_selector = {}
    for record in records:
        first = by_selector.setdefault(record.block.selector, record)
        assert record.steps is first.steps and record.tokens is first.tokens
        assert record.defining[0] == record.steps[-1].tag
        style = record.block.style
        assert record.defining[1:] == tuple(style.get(n, "") for n in ("display", "font-family", "font-size", "font-weight", "font-style", "color", "text-transform"))
    assert len(by_selector) < len(records)  # pages share paths: the cache is exercised


def test_missing_style_properties_read_empty_and_malformed_paths_use_the_tag_path():
    style = {"display": "block", "font-size": "16px"}  # most properties missing
    blocks = [
        _block("body > div.a > p", ["html", "body", "div", "p"], style),
        # The same malformed selector on two blocks with different tag paths: facts are per block.
        _block("body > p[x", ["html", "body", "section", "p"], style),
        _block("body > p[x", ["html", "body", "article", "div", "p"], style),
    ]
    page = Page(url="http://example.test/a", blocks=blocks, titles=["A"])
    records = describe_blocks([page])
    assert records[0].defining == ("p", "block", "", "16px", "", "", "", "")
    assert records[0].soft[:2] == ("div", "body")
    assert [s.tag for s in records[1].steps] == ["body", "section", "p"]
    assert [s.tag for s in records[2].steps] == ["body", "article", "div", "p"]
    assert records[2].soft[:2] == ("div", "article")


def test_numeric_features_are_clipped_shares_of_the_page_width():
    style = {"display": "block"}
    page = Page(url="http://example.test/a", titles=["A"], blocks=[
        _block("body > p", ["html", "body", "p"], style, text="x" * 5000, left=-40.0),
        _block("body > p", ["html", "body", "p"], style, text="", left=200.0),
    ])
    width = page_width(page)
    assert width == 500.0  # no viewport: the right edge of the widest block
    first, second = describe_blocks([page])
    assert first.numeric == (0.0, 300.0 / width, 7.0, 0.0)
    assert second.numeric == (200.0 / width, 300.0 / width, 0.0, 0.0)


def test_distinct_rows_number_row_keys_in_order_of_first_occurrence(pages):
    records = describe_blocks(pages)
    rows, row_of = distinct_rows(records)
    numbering: dict[tuple, int] = {}
    expected = [numbering.setdefault(r.row_key(), len(numbering)) for r in records]
    assert rows == list(numbering)
    assert row_of.tolist() == expected


def test_distance_slices_do_not_change_the_clusters(pages, monkeypatch):
    records = describe_blocks(pages)
    whole = cluster_blocks(records)
    monkeypatch.setattr(cluster, "DISTANCE_SLICE", 3)
    sliced = cluster_blocks(records)
    assert np.array_equal(whole, sliced)
    assert len(set(whole.tolist())) < len(records)


def test_copies_of_pages_cluster_like_the_pages(pages):
    # Merged identical rows weigh their count: doubling every page doubles the weights, and a block
    # and its copy always land in the same cluster.
    records = describe_blocks(pages + copy.deepcopy(pages))
    labels = cluster_blocks(records)
    half = len(records) // 2
    assert labels[:half].tolist() == labels[half:].tolist()


def test_terms_remembered_per_word_stay_right_within_the_bound(monkeypatch):
    monkeypatch.setattr(text_module, "MAX_KNOWN_WORDS", 3)
    text = "The runners were running 2024 races; 東京タワー and the running runner"
    first = text_module.terms(text, "en")
    assert first == ["runner", "run", "race", "東京", "京タ", "タワ", "ワー", "run", "runner"]
    assert text_module.terms(text, "en") == first
    assert len(text_module._word_terms("en")) <= 3
    # The same word in another language is another term.
    assert text_module.terms("laufenden", "de") == ["laufend"]


def test_fit_leaves_the_garbage_collector_as_it_found_it(pages):
    import gc

    assert gc.isenabled()
    SiteLearner().fit(pages[:3])
    assert gc.isenabled()
    gc.disable()
    try:
        SiteLearner().fit(pages[:3])
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_record_kinds_are_equal_exactly_when_the_categorical_features_are(pages):
    records = describe_blocks(pages)
    numbering: dict[tuple, int] = {}
    expected = [numbering.setdefault((r.defining, r.soft, r.tokens), len(numbering)) for r in records]
    assert [r.kind for r in records] == expected
    assert len(numbering) < len(records)  # blocks share kinds: their feature tuples are shared too
    first = {}
    for record in records:
        assert record.defining is first.setdefault(record.kind, record).defining


def test_block_agreement_is_the_word_f1_of_the_joined_texts():
    from sitewise.learn.learner import _block_agreement
    from sitewise.metrics import word_prf

    texts = ["The Headline", "First words here, 2 of them", "Share this", "Second words", "the end", ""]
    blocks = [_block("body > p", ["html", "body", "p"], {}, text=text) for text in texts]
    cases = [([0, 1, 3], [0, 1, 3]), ([1, 2, 3], [0, 1, 3]), ([2], [0, 1]), ([], [1]), ([1], []), ([5], []), ([0, 4], [4, 0])]
    for chosen, wanted in cases:
        joined = ["\n".join(texts[i] for i in numbers) for numbers in (chosen, wanted)]
        assert _block_agreement(blocks, chosen, sorted(wanted)) == word_prf(*joined).f1, (chosen, wanted)


def test_a_blocks_bag_holds_its_term_counts(pages):
    from collections import Counter

    from sitewise.learn.scoring import analyse_text
    from sitewise.text import terms

    records = describe_blocks(pages)
    site = analyse_text(pages, records)
    for number in range(0, len(records), 7):
        expected = Counter(terms(records[number].text, pages[records[number].page].lang))
        assert site.bag(number) == expected


def test_clusters_join_the_article_by_their_characters_inside_the_regions(pages):
    from collections import Counter

    from sitewise.learn import selection
    from sitewise.learn.scoring import analyse_text
    from sitewise.learn.templates import MIN_TEMPLATE_PAGES, group_templates

    records = describe_blocks(pages)
    labels = cluster_blocks(records)
    site = analyse_text(pages, records)
    groups, _ = group_templates(records, labels, site, len(pages), MIN_TEMPLATE_PAGES)
    group = groups[0]
    chosen = selection.select_article(pages, records, labels, site, group.stats, group.seed, group.pages)
    # The plain definition: per cluster, the characters of its blocks inside their page's region.
    inside, everywhere, members = Counter(), Counter(), set(group.pages)
    for n, record in enumerate(records):
        if record.page in members:
            everywhere[labels[n]] += record.chars
            if selection._inside(record, chosen.regions[record.page]):
                inside[labels[n]] += record.chars
    expected = {group.seed} | {
        label for label, chars in inside.items()
        if chars >= selection.MIN_INSIDE_SHARE * everywhere[label] and label in group.stats
        and group.stats[label].link_density <= selection.MAX_LINK_DENSITY and group.stats[label].repeat <= selection.MAX_REPEAT
    }
    assert chosen.accepted_clusters == expected and len(expected) > 1
    assert chosen.weight.tolist() == [float(r.chars) if r.page in members else 0.0 for r in records]
