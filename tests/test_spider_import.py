"""The spider import: the original project's page JSON becomes sitewise pages (fixture in tests/fixtures/spider)."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from sitewise.cli import main
from sitewise.learn.selectors import parse_path, selects_path
from sitewise.page import STYLE_PROPERTIES, Page, PageError
from sitewise.spider_import import (
    normalise_style_value, page_from_spider, read_page_file, read_spider_file, spider_files,
)

FIXTURE = Path(__file__).parent / "fixtures" / "spider"


def load(number: int) -> dict:
    return json.loads((FIXTURE / f"{number:03d}.json").read_text(encoding="utf-8"))


def test_page_metadata_and_site():
    page = page_from_spider(load(0))
    assert page.site == "harbourtimes.test"
    assert page.titles[0] == "Harbour cranes return after a decade of repairs | Harbour Times"
    assert page.descriptions == ["The harbour's three cranes are back at work after ten years of repairs and a long fight over the budget."]
    assert page.collector == "import"
    # The result is a valid page in the sitewise format (round trip through the validator).
    assert Page.from_dict(page.to_dict()).to_dict()["blocks"] == page.to_dict()["blocks"]


def test_blocks_keep_text_order_selector_and_path():
    page = page_from_spider(load(0))
    texts = [b.text for b in page.blocks]
    assert texts[:4] == ["News", "City", "Culture", "Sport"]
    first_paragraph = next(b for b in page.blocks if b.text.startswith("The three cranes"))
    # Two text nodes around an inline link are one paragraph, with the space the page had.
    assert "repairs" in first_paragraph.text and "  " not in first_paragraph.text
    assert first_paragraph.path == ["html", "body", "div", "article", "div", "p"]
    assert first_paragraph.selector == "body > div#page.wrap > article.story > div.story-body > p"
    assert selects_path("article.story .story-body", parse_path(first_paragraph.selector))
    # The link holds the second half of the paragraph.
    assert 0 < first_paragraph.link_chars < len(first_paragraph.text)


def test_style_missing_values_come_from_body_and_are_normalised():
    page = page_from_spider(load(0))
    paragraph = next(b for b in page.blocks if b.text.startswith("The three cranes"))
    assert set(paragraph.style) == set(STYLE_PROPERTIES)
    assert paragraph.style["font-family"] == "georgia"  # body's, first family, lower-cased
    assert paragraph.style["color"] == "rgb(34,34,34)"
    assert paragraph.style["font-weight"] == "400"
    headline = next(b for b in page.blocks if b.tag == "h1")
    assert headline.style["font-weight"] == "700" and headline.style["font-size"] == "32px"


def test_link_chars_count_link_text_only():
    page = page_from_spider(load(0))
    nav = page.blocks[0]
    assert nav.link_chars == len(nav.text) == 4
    footer = page.blocks[-1]
    assert footer.link_chars == len("Privacy Policy")
    # Words from separate text nodes without whitespace between them are not glued together.
    assert footer.text == "© 2013 Harbour Times. All rights reserved. Privacy Policy"


@pytest.mark.parametrize(
    "prop, raw, expected",
    [
        ("color", "rgba(0, 0, 0, 0.5)", "rgba(0,0,0,0.5)"),
        ("background-color", "transparent", "rgba(0,0,0,0)"),
        ("margin-top", "12.6px", "13px"),
        ("margin-left", "-5.5px", "-5px"),
        ("font-family", "'Helvetica Neue', Arial", "helvetica neue"),
        ("font-weight", "bold", "700"),
        ("text-decoration-line", "underline solid rgb(0, 0, 0)", "underline"),
        ("line-height", "normal", "normal"),
    ],
)
def test_normalise_style_value(prop, raw, expected):
    assert normalise_style_value(prop, raw) == expected


def test_escaped_identifiers_in_selector():
    data = load(1)
    data["texts"][0]["selector"][0]["classes"] = ["col-md:6", "2col"]
    page = page_from_spider(data)
    assert page.blocks[0].selector.startswith(r"body > header#top.col-md\:6.\32 col > ")
    steps = parse_path(page.blocks[0].selector)
    assert steps[1].classes == frozenset({"col-md:6", "2col"})


def test_bad_input_names_the_field():
    data = load(2)
    data["texts"][3]["bound"] = "nowhere"
    with pytest.raises(PageError) as error:
        page_from_spider(data)
    assert error.value.field == "texts[3].bound"
    with pytest.raises(PageError):
        page_from_spider({"url": "http://x.test/", "texts": "no"})
    with pytest.raises(PageError):
        page_from_spider({"texts": []})  # no url


def test_files_gzip_and_natural_order(tmp_path):
    (tmp_path / "sub").mkdir()
    shutil.copy(FIXTURE / "000.json", tmp_path / "sub" / "10.json")
    (tmp_path / "sub" / "9.json.gz").write_bytes(gzip.compress((FIXTURE / "001.json").read_bytes()))
    (tmp_path / "notes.txt").write_text("not a page")
    files = list(spider_files(tmp_path))
    assert [f.name for f in files] == ["9.json.gz", "10.json"]
    assert read_spider_file(files[0]).url.endswith("river-festival-crowds/")


def test_cli_imports_into_the_store(store, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sitewise.store.open_store", lambda settings=None: store)
    (tmp_path / "broken.json").write_text("{not json")
    code = main(["import-spider", str(FIXTURE), str(tmp_path)])
    out = capsys.readouterr()
    assert code == 0
    assert "imported 3 pages of 1 sites" in out.out and "1 failed" in out.out
    assert "broken.json" in out.err
    assert store.page_count("harbourtimes.test") == 3
    # Importing again replaces (same URLs), never duplicates.
    main(["import-spider", str(FIXTURE)])
    assert store.page_count("harbourtimes.test") == 3


def test_cli_writes_page_files(tmp_path, capsys):
    assert main(["import-spider", str(FIXTURE / "001.json"), "--out", str(tmp_path)]) == 0
    (written,) = list(tmp_path.glob("*.json"))
    page = Page.from_dict(json.loads(written.read_text()))
    assert page.url.endswith("river-festival-crowds/")


def test_read_page_file_takes_either_format(tmp_path):
    spider = read_page_file(FIXTURE / "002.json")
    own = tmp_path / "page.json.gz"
    own.write_bytes(gzip.compress(json.dumps(spider.to_dict()).encode()))
    assert read_page_file(own).to_dict()["blocks"] == spider.to_dict()["blocks"]
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(PageError):
        read_page_file(tmp_path / "bad.json")


#: Deeper than Python's JSON parser goes (RecursionError past its recursion limit, 1,000).
TOO_DEEP_JSON = 3_000


def cut_short(data: bytes) -> bytes:
    """A gzip file as an interrupted copy leaves it."""
    compressed = gzip.compress(data)
    return compressed[: len(compressed) // 2]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("cut.json.gz", cut_short((FIXTURE / "000.json").read_bytes()), "not a whole gzip file"),
        ("plain.json.gz", (FIXTURE / "000.json").read_bytes(), "not a whole gzip file"),
        ("empty.json.gz", b"", "not JSON"),
        ("deep.json", b"[" * TOO_DEEP_JSON + b"]" * TOO_DEEP_JSON, "nests deeper than Python's parser goes"),
        ("deep.json.gz", gzip.compress(b"{\"a\":" * TOO_DEEP_JSON + b"1" + b"}" * TOO_DEEP_JSON), "nests deeper"),
    ],
    ids=["cut short", "not gzip", "empty", "nested too deep", "gzipped and nested too deep"],
)
def test_a_file_cut_short_or_nested_too_deep_is_a_page_error(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    for read in (read_page_file, read_spider_file):
        with pytest.raises(PageError, match=message):
            read(path)


def test_cli_import_goes_on_past_a_file_cut_short(tmp_path, capsys):
    folder = tmp_path / "pages"
    shutil.copytree(FIXTURE, folder)
    (folder / "cut.json.gz").write_bytes(cut_short((FIXTURE / "000.json").read_bytes()))
    assert main(["import-spider", str(folder), "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert "imported 3 pages of 1 sites" in out and "1 failed" in out
    assert err.splitlines() == [f"{folder / 'cut.json.gz'}: (file): not a whole gzip file: "
                                "Compressed file ended before the end-of-stream marker was reached"]


def test_cli_learn_goes_on_past_a_file_cut_short(tmp_path, capsys):
    folder = tmp_path / "pages"
    shutil.copytree(FIXTURE, folder)
    (folder / "cut.json.gz").write_bytes(cut_short((FIXTURE / "000.json").read_bytes()))
    assert main(["learn", "--files", str(folder), "--out", str(tmp_path / "rules.json")]) == 0
    out, err = capsys.readouterr()
    assert "harbourtimes.test: 3 pages" in out
    assert err.startswith(f"{folder / 'cut.json.gz'}: (file): not a whole gzip file") and len(err.splitlines()) == 1
