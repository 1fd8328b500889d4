"""The page's headline and the heading that repeats it: the anchor of title-anchored selection.

An article page names its story twice: in ``<title>`` (or ``og:title``) and in a heading just above the
story. The heading marks where the article is, which the maximum run alone can miss: a short post next to
a longer footer blurb, a one-paragraph story above a comment thread. :func:`page_headline` reads the
headline before the clean-up drops ``<head>``; :func:`title_heading` finds the heading that repeats it.
Words are compared as :func:`sitewise.text.words` splits them: each character of Chinese, Japanese and
Thai, which put no spaces between words, is one, so their headlines match too.
"""
from __future__ import annotations

import re
from typing import Iterator

from lxml import etree

from ..text import is_unspaced_character, words as title_words

#: What separates the headline from the site's name in a ``<title>``: "Story | Site", "Site - Story", and
#: the full-width bar that Chinese and Japanese titles write without spaces ("咖啡指南｜博客").
_TITLE_SEPARATOR = re.compile(r"\s+[|\-–—:»·•/]+\s+|\s*::\s*|\s+\|\s*|\s*\|\s+|\s*｜\s*")
#: Fallback separators, tried only when the headline matches no heading: also "Site: Story" (a colon
#: too often belongs to the headline itself, "Review: ...", to split on it first).
_LOOSE_SEPARATOR = re.compile(_TITLE_SEPARATOR.pattern + r"|:\s+")

#: Elements that can hold the headline: headings, and elements named as a title or headline (many blogs
#: put the post title in a ``<div class="post-title">``). The class is matched with only ASCII letters
#: folded to lower case ("Post-Title" is one, "TİTLE" is not), by the regex engine itself: folding each
#: name with ``str.translate`` first cost twice as much.
_HEADING_TAGS = frozenset({"h1", "h2", "h3"})
_HEADING_NAME = re.compile("title|headline", re.IGNORECASE | re.ASCII)
#: A heading repeats the headline when at least this share of the headline's words are in it ...
MIN_HEADLINE_COVERAGE = 0.6
#: ... and at least this share of its own words are the headline's (not a longer teaser that quotes it).
MIN_HEADING_PRECISION = 0.6
#: ... and they share at least this many words (one shared word is a site name or a section, not a story).
MIN_SHARED_WORDS = 2
#: A heading and headline that share at least this many words (3 matched wrongly on CleanEval dev) match
#: when either one mostly holds the other (the heading adds a byline-length tail, or the ``og:title`` is
#: a shortened headline) ...
MIN_SHARED_WORDS_ONE_SIDED = 4
#: ... that is, at least this share of the shorter one's words are in the longer one.
MIN_ONE_SIDED_MATCH = 0.6
#: Headings longer than this (words) are paragraphs, not headings ...
MAX_HEADING_WORDS = 40
#: ... counting this many characters of a script without spaces as one word (each is a word to compare,
#: but a Chinese word is one to three characters, a Thai one three or more: a Thai headline runs past 40).
UNSPACED_CHARACTERS_PER_WORD = 3


def page_headline(root: etree._Element) -> list[str]:
    """The words of the page's headline: ``og:title`` when the page has one, else the longest part of
    ``<title>`` between separators (the part that is not the site's name); [] when neither exists."""
    for meta in root.iter("meta"):
        if (meta.get("property") or meta.get("name") or "").lower() in ("og:title", "twitter:title"):
            words = title_words(meta.get("content") or "")
            if len(words) >= MIN_SHARED_WORDS:
                return words
    for title in root.iter("title"):
        parts = [title_words(part) for part in _TITLE_SEPARATOR.split(title.text or "")]
        return max(parts, key=len, default=[])
    return []


def headline_alternatives(root: etree._Element, headline: list[str] | None = None) -> list[list[str]]:
    """Other parts of ``<title>`` than the headline (:func:`page_headline`, read again unless given) to
    look for when it matches no heading: a short story title beside a longer site name ("Almost There -
    Hacker Monthly Blog"), "Site: Story"."""
    if headline is None:
        headline = page_headline(root)
    for title in root.iter("title"):
        parts = sorted((title_words(part) for part in _LOOSE_SEPARATOR.split(title.text or "")), key=len, reverse=True)
        return [part for part in parts if len(part) >= MIN_SHARED_WORDS and part != headline]
    return []


def title_heading(root: etree._Element, headline: list[str]) -> etree._Element | None:
    """The first element of the page whose text repeats ``headline``, preferring headings that cover
    more of it; None when none does."""
    return anchor_heading(root, headline, [])[0]


def anchor_heading(
    root: etree._Element, headline: list[str], alternatives: list[list[str]]
) -> tuple[etree._Element | None, bool]:
    """(The heading to anchor on, whether it repeats ``headline``): the heading that repeats the headline,
    else the first that repeats another part of the title (which may be the site's name), else None."""
    if len(headline) < MIN_SHARED_WORDS and not alternatives:
        return None, False
    candidates = _heading_candidates(root)  # read once for the headline and every alternative
    heading = _repeating(candidates, headline)
    if heading is not None or not alternatives:
        return heading, heading is not None
    return next((h for h in (_repeating(candidates, words) for words in alternatives) if h is not None), None), False


def _repeating(candidates: list[tuple[etree._Element, list[str]]], headline: list[str]) -> etree._Element | None:
    """The first candidate whose words repeat ``headline``, preferring those that cover more of it."""
    if len(headline) < MIN_SHARED_WORDS:
        return None
    wanted = set(headline)
    best, best_coverage = None, 0.0
    for element, words in candidates:
        shared = wanted.intersection(words)
        coverage = len(shared) / len(wanted)
        precision = sum(w in wanted for w in words) / len(words)
        matches = (coverage >= MIN_HEADLINE_COVERAGE and precision >= MIN_HEADING_PRECISION) or (
            len(shared) >= MIN_SHARED_WORDS_ONE_SIDED and max(coverage, precision) >= MIN_ONE_SIDED_MATCH)
        if len(shared) >= MIN_SHARED_WORDS and matches and coverage > best_coverage:
            best, best_coverage = element, coverage
    return best


def _heading_candidates(root: etree._Element) -> list[tuple[etree._Element, list[str]]]:
    """(element, its words) of every element that can hold the headline, in document order, with
    between 1 and :data:`MAX_HEADING_WORDS` words."""
    found = []
    for element in _document_elements(root):
        if element.tag not in _HEADING_TAGS:
            names = element.get("class")
            if not names or not _HEADING_NAME.search(names):
                continue
        words = _heading_words(element)
        if words:
            found.append((element, words))
    return found


def _document_elements(root: etree._Element) -> Iterator[etree._Element]:
    """Every element of ``root``'s document in document order, including the top-level siblings of its
    root element (libxml2 can leave a second ``<html>`` beside the first)."""
    top = root.getroottree().getroot()
    for element in (*reversed(list(top.itersiblings(preceding=True))), top, *top.itersiblings()):
        if isinstance(element.tag, str):
            yield from element.iter(etree.Element)


def _heading_words(element: etree._Element) -> list[str] | None:
    """The words of an element's text, or None once there are more than :data:`MAX_HEADING_WORDS`
    (reading stops there: a container named "title" can hold the whole page). The pieces of its text
    count as joined by spaces, so no word spans two of them: the words of each piece in turn are the
    words of the whole text."""
    words: list[str] = []
    length = 0.0
    for piece in element.itertext():
        found = title_words(piece)
        unspaced = sum(map(is_unspaced_character, found))
        length += len(found) - unspaced + unspaced / UNSPACED_CHARACTERS_PER_WORD
        words += found
        if length > MAX_HEADING_WORDS:
            return None
    return words
