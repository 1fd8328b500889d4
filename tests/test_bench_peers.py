"""The peers' adapters: each one, when installed, finds the article of a generated page; missing ones
are reported, not fatal."""
from __future__ import annotations

import importlib.util

import pytest

from sitewise.bench.comparison import open_systems
from sitewise.bench.peers import PEERS, Peer, PeerMissing, html_text, normalise
from sitewise.extractors import REGISTRY, Document, get_extractor
from sitewise.metrics import word_prf

#: The weakest peer here (jusText, English stop list) scores 0.62 on the sample site's first article;
#: a broken adapter (wrong call, HTML left in, fused words) scores far below.
MIN_F1 = 0.5


def _installed(name: str) -> bool:
    return importlib.util.find_spec(PEERS[name].module.split(".")[0]) is not None


@pytest.mark.parametrize("name", list(PEERS))
def test_peer_extracts_the_article_of_a_sample_page(name, sample_site):
    if not _installed(name):
        pytest.skip(f"{name} is not installed (pip install 'sitewise[bench]')")
    page = sample_site.pages[sample_site.article_paths[0]]
    extractor = get_extractor(name)
    assert (extractor.needs_page, extractor.per_site) == (False, False)
    text = extractor.fit([]).extract(Document(id="p", url="http://sample.test/" + page.path, html=page.html))
    assert word_prf(text, page.truth).f1 >= MIN_F1
    assert text == normalise(text), "outputs are normalised: one block per line, no blank lines"


@pytest.mark.parametrize("name", list(PEERS))
def test_peer_without_html_returns_nothing(name):
    if not _installed(name):
        pytest.skip(f"{name} is not installed")
    assert get_extractor(name).extract(Document(id="spider-page", url="http://example.com/", html=None)) == ""


def test_every_peer_is_registered():
    for name, peer in PEERS.items():
        assert REGISTRY[name] == f"sitewise.bench.peers:{peer.__name__}"


def test_boilerpy3_reads_a_page_without_body():
    if not _installed("boilerpy3"):
        pytest.skip("boilerpy3 is not installed")
    paragraph = "<p>" + "The harbor workers voted to accept the new contract after a long night. " * 6 + "</p>"
    text = get_extractor("boilerpy3").extract(Document(id="fragment", html=f"<div>{paragraph}</div>"))
    assert "harbor workers voted" in text


class _Absent(Peer):
    name, distribution, module = "absent", "sitewise-absent-peer", "sitewise_absent_peer_module"


def test_missing_peer_raises_a_clear_import_error():
    with pytest.raises(PeerMissing, match=r"pip install 'sitewise\[bench\]'"):
        _Absent()


def test_missing_system_is_reported_not_fatal(monkeypatch):
    monkeypatch.setitem(REGISTRY, "absent", f"{__name__}:_Absent")
    available, unavailable = open_systems(["absent", "all-text"])
    assert list(available) == ["all-text"]
    assert "pip install" in unavailable["absent"]


def test_html_text_breaks_lines_at_blocks_only():
    text = html_text("<div><h2>Title</h2><p>One <b>bold</b> word.</p><p>Two</p>Three<br>Four</div>")
    assert normalise(text).splitlines() == ["Title", "One bold word.", "Two", "Three", "Four"]


def test_normalise_collapses_spaces_and_drops_blank_lines():
    assert normalise("  a \t b \n\n \n c  ") == "a b\nc"
