"""Mojibake (UTF-8 read as Latin-1 or cp1252) is put right in what sitewise answers, and only there."""
from __future__ import annotations

import json

import pytest

import sitewise
from learn_support import static_page
from sitewise.learn.rules import apply_rules
from sitewise.mojibake import repair_mojibake
from sitewise.pipeline import blocks_in_text

STORY = "I don’t know what the café on the harbour serves — but it is “good food”, the ferry crews say. "


def as_read_in(text: str, codec: str) -> str:
    """``text`` encoded as UTF-8 and decoded as ``codec``, as a browser reading a stale declaration does
    (bytes cp1252 leaves undefined, such as 0x9d of a closing quote, become the Latin-1 character)."""
    return "".join(bytes([byte]).decode(codec, errors="ignore") or chr(byte) for byte in text.encode("utf-8"))


@pytest.mark.parametrize("codec", ["cp1252", "latin-1"])
def test_utf8_read_as_a_one_byte_encoding_is_put_right(codec):
    garbled = as_read_in(STORY, codec)
    assert garbled != STORY and "â" in garbled
    assert repair_mojibake(garbled) == STORY


def test_utf8_encoded_twice_is_put_right():
    twice = as_read_in(as_read_in("Grüße — “hello”", "latin-1"), "latin-1")
    assert repair_mojibake(twice) == "Grüße — “hello”"
    assert repair_mojibake(as_read_in("Привет, мир", "latin-1")) == "Привет, мир"


@pytest.mark.parametrize("text", [
    STORY,
    "ÉTÉ\u00a0! À\u00a0la française, voilà\u00a0: 5\u00a0€.",
    "Straße «Zitat» – naïve résumé, São Paulo, MÜNCHEN–BERLIN",
    "Ñ€",  # as likely a Spanish letter before a price as mojibake: left as it is
    "",
])
def test_text_in_its_right_encoding_is_left_alone(text):
    assert repair_mojibake(text) == text


def page_declaring_latin1(title: str, paragraphs: list[str]) -> bytes:
    """A page whose bytes are UTF-8 but whose declaration says ISO-8859-1, as archived pages often are."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return (
        f'<html><head><meta charset="iso-8859-1"><title>{title}</title></head><body>'
        f"<nav><a href='/'>Home</a> <a href='/news'>News</a></nav>"
        f"<article><h1>{title}</h1>{body}<h2>Crews’ verdict</h2><p>{STORY}</p></article>"
        f"<footer>Copyright</footer></body></html>"
    ).encode("utf-8")


def test_extract_answers_the_characters_the_author_wrote():
    html = page_declaring_latin1("Café owners’ summer", [STORY * 3, STORY * 2])
    text = sitewise.extract(html)
    assert "don’t" in text and "café" in text and "â" not in text
    found = json.loads(sitewise.extract(html, output="json"))
    assert found["title"] == "Café owners’ summer" and found["text"] == text
    markdown = sitewise.extract(html, output="markdown")
    assert "## Crews’ verdict" in markdown.split("\n")  # its line still found among the page's lines


def test_rules_answer_the_characters_the_author_wrote():
    html = page_declaring_latin1("Café owners’ summer", [STORY * 3]).decode("latin-1")
    rules = {"format": 1, "site": "harbour.test", "templates": [
        {"name": "story", "match": ["article"], "include": ["article"], "exclude": [], "words": [10, 500]}]}
    for found in (apply_rules(rules, html=html), apply_rules(rules, page=static_page("http://harbour.test/a", html))):
        assert found.confident and "don’t" in found.text and "don’t" in found.body and "â" not in found.text


def test_collected_blocks_in_mojibake_are_aligned_with_the_answer():
    html = page_declaring_latin1("Café owners’ summer", [STORY * 3]).decode("latin-1")
    page = static_page("http://harbour.test/a", html)
    story_blocks = [i for i, block in enumerate(page.blocks) if "â" in block.text and "ferry" in block.text]
    answer = "\n".join(["Café owners’ summer", STORY * 3, "Crews’ verdict", STORY])
    assert story_blocks and set(story_blocks) <= set(blocks_in_text(page.blocks, answer))
