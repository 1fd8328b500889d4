"""Which of several sets of words occur in a string, found in one scan.

The block features ask of every id/class name on a page which kinds of words it holds (navigation,
comments, sharing ...: :data:`~sitewise.mss.blocks.NAME_KINDS`). Searching one regex per kind scans
each name once per kind; :class:`WordSets` scans it once for all of them, with a regex that is a trie
of every word (the engine then tries only the words that begin with the character at hand). A page
brings a hundred or more names not seen before, so this is most of what describing its DOM costs.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence


class WordSets:
    """Named sets of words; ``found(text)`` gives the positions (in ``sets``' order) of those with a word
    in ``text`` (anywhere in it, as ``re.search`` finds it) or whose extra regex in ``patterns`` (set
    name → pattern) finds something there."""

    def __init__(self, sets: Mapping[str, Sequence[str]], patterns: Mapping[str, str] | None = None):
        unknown = set(patterns or {}) - set(sets)
        if unknown:
            raise ValueError(f"patterns for no set: {', '.join(sorted(unknown))}")
        members = [frozenset(words) for words in sets.values()]
        words = frozenset().union(*members)
        if "" in words:
            raise ValueError("an empty word occurs everywhere: leave it out")
        # A word occurs where the longest word starting there begins with it: what the scan reports
        # (the longest word at each position) stands for the sets of every word it begins with.
        self._sets_of = {
            word: frozenset(i for i, words_of_set in enumerate(members)
                            if any(word.startswith(prefix) for prefix in words_of_set))
            for word in words
        }
        # a lookahead matches at every position without consuming: words that overlap are all seen
        self._longest_words = re.compile(f"(?=({_trie_pattern(sorted(words))}))").findall if words else None
        position = {name: i for i, name in enumerate(sets)}
        self._patterns = tuple(sorted((position[name], re.compile(p)) for name, p in (patterns or {}).items()))

    def found(self, text: str) -> tuple[int, ...]:
        found: set[int] = set()
        if self._longest_words is not None:
            for word in self._longest_words(text):
                found |= self._sets_of[word]
        found.update(i for i, pattern in self._patterns if i not in found and pattern.search(text))
        return tuple(sorted(found))


def _trie_pattern(words: Sequence[str]) -> str:
    """A regex matching the longest of ``words`` (non-empty) that the text at hand starts with: the words
    as a trie, each optional ending greedy."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + pattern(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)
