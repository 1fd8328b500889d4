"""WordSets finds, in one scan, what one regex search per set would find."""
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitewise.mss.blocks import NAME_KIND_PATTERNS, NAME_KINDS, _NAME_WORDS
from sitewise.mss.wordsets import WordSets

SETS = {"short": ("nav", "post", "ad"), "long": ("navbar", "postbody", "post-body"), "other": ("bar", "body", "dy")}
PATTERNS = {"other": r"(?:^|[-_])x$"}


def searched(sets, patterns, text):
    """The definition: one search per set, for any of its words or its pattern."""
    regexes = [re.compile("|".join([*map(re.escape, words), *([patterns[name]] if name in patterns else [])]))
               for name, words in sets.items()]
    return tuple(i for i, regex in enumerate(regexes) if regex.search(text))


@pytest.mark.parametrize("text", [
    "", "navbar", "nav", "navba", "top-navbar-postbody", "post-body", "postbod", "xbody", "a-x", "ax", "x",
    "navbarbody", "bodypost", "NAVBAR",
])
def test_overlapping_and_nested_words_are_all_found(text):
    assert WordSets(SETS, PATTERNS).found(text) == searched(SETS, PATTERNS, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["nav", "bar", "post", "body", "-", "_", " ", "x", "d", "y", "a", "po"]), max_size=12))
def test_any_string_of_word_pieces(pieces):
    text = "".join(pieces)
    assert WordSets(SETS, PATTERNS).found(text) == searched(SETS, PATTERNS, text)


@pytest.mark.parametrize("name", [
    "site-header", "navbar", "ad", "ads", "header-ad", "ad-slot", "shadow", "top_ads2", "tags", "tag-list",
    "stage", "post-body entry-content", "sr-only visually-hidden", "read-next more-stories", "",
])
def test_block_name_kinds_are_their_words_or_patterns_anywhere(name):
    assert _NAME_WORDS.found(name) == searched(dict(NAME_KINDS), NAME_KIND_PATTERNS, name)


def test_bad_sets_are_refused():
    with pytest.raises(ValueError, match="empty word"):
        WordSets({"a": ("x", "")})
    with pytest.raises(ValueError, match="no set"):
        WordSets({"a": ("x",)}, {"b": "y"})
