"""Lines that close an article: the heading of its comment thread, of a related-stories list, of an
author box. Many pages name these sections only in their text (no ``comment`` or ``related`` in any
id/class the clean-up could catch), and a comment thread or a list of teasers reads like prose to a
token scorer, so the best run ran on into them. Such a line is a hard boundary: no run crosses it.

Only short lines that are not link text count (a "12 Comments" link in the byline points at the thread,
it does not start it), and the whole line must be the phrase, so a sentence that mentions comments or
related work is never one. Both are judged by the line's words: its punctuation neither lengthens it (the
quotes, question mark and ellipsis around the post's title in WordPress's "46 Comments on “…”") nor
unlinks it (StackExchange's "Add a comment |" is a link beside a separator).
"""
from __future__ import annotations

import re

import numpy as np

from .scorers import word_facts
from .tokenize import TokenSequence

#: A line longer than this (words) is text, not a section heading.
MAX_BOUNDARY_WORDS = 16
#: The block model's features read closing lines as its trees were fitted on them: measured in tokens,
#: punctuation included (:func:`closing_lines` with ``count_symbols``). Trees refitted on lines measured in
#: words answered differently on far more pages than those lines touch (dragnet's official test −0.001,
#: where the decoding alone reading words gains +0.002; docs/mss.md, session 35), so only the decoding's
#: boundaries are measured in words until the trees are refitted for another reason.
FEATURES_COUNT_SYMBOLS = True
#: The score a boundary line's first token gets: far below anything a page's tokens can add up to, so
#: the maximum run never spans it (finite, so sums stay ordinary numbers).
BOUNDARY_SCORE = -1e6

_COUNT = r"(?:\d+|no|one|two|three)"
#: Whole-line phrases (English; the pages the fallback meets most) that open a section after the article.
CLOSING_LINE = re.compile(
    r"^(?:"
    # comment threads
    rf"(?:{_COUNT}\s+)?(?:comments?|responses?|replies|reactions?|trackbacks?|pingbacks?|thoughts)"
    rf"(?:\s*\(?\s*{_COUNT}\s*\)?)?(?:\s+(?:to|on|for)\b.*)?"
    rf"|{_COUNT}\s+(?:users?|people|readers)\s+(?:responded|commented|replied)\b.*"
    r"|(?:leave|post|add|write|submit|share)\s+(?:a|your)\s+(?:reply|comment|response|review|thoughts?)\b.*"
    r"|(?:join|start)\s+the\s+(?:discussion|conversation)"
    r"|(?:discussion|comments?)\s+(?:are|is)\s+closed"
    r"|(?:subscribe\s+to\s*:?\s*)?post\s+comments.*"
    r"|(?:blog\s+)?comments\s+powered\s+by.*"
    r"|(?:what\s+do\s+you\s+think|have\s+your\s+say)"
    # related stories and other furniture under the article
    r"|related\s+(?:posts?|articles?|stories|links|content|reading|coverage|items|on\s+\w+)"
    r"|(?:you|we\s+think\s+you)\s+(?:may|might|could|will)\s+also\s+(?:like|enjoy|be\s+interested\s+in)"
    r"|(?:more|other|recent|popular|top|latest)\s+(?:stories|posts|articles|news|headlines)(?:\s+(?:from|in|on)\b.*)?"
    r"|recommended(?:\s+(?:for\s+you|stories|articles|reading|posts))?"
    r"|most\s+(?:read|popular|viewed|shared|commented|emailed)(?:\s+\w+)?"
    r"|also\s+on\s+\w+"
    r"|about\s+the\s+author"
    r"|share\s+this(?:\s+(?:story|article|post|page))?"
    r")(?:\s*[:.!?»›>…])*$",
    re.IGNORECASE,
)


def closing_lines(tokens: TokenSequence, *, count_symbols: bool = False) -> np.ndarray:
    """Index of the first token of every line that opens a section after the article. ``count_symbols``:
    a line's punctuation tokens count as words of it, as the block model's features read them."""
    facts = word_facts(tokens)
    words = facts.index
    if not words.size:
        return np.zeros(0, dtype=np.int64)
    lines = tokens.lines[words]
    counted = None if count_symbols else facts.alnum
    counts = np.bincount(lines, weights=counted)
    in_link = tokens.links[words] if counted is None else tokens.links[words] & counted
    linked = np.bincount(lines, weights=in_link) if tokens.links.any() else np.zeros(counts.size)
    short = (counts > 0) & (counts <= MAX_BOUNDARY_WORDS) & (linked < counts)
    candidates = np.flatnonzero(short)
    # word tokens are in document order, so each line's words are one slice of the page's words
    starts = np.searchsorted(lines, candidates, "left")
    ends = np.searchsorted(lines, candidates, "right")
    # A line's words are a closing phrase or not whichever measure asks: each line is matched once a page
    # (the features and the decoding both ask, and the match is most of the cost).
    phrases: dict[int, bool] = tokens.memo.setdefault("closing_phrases", {})
    text_of, match = facts.words, CLOSING_LINE.match
    found = []
    for line, start, end in zip(candidates.tolist(), starts.tolist(), ends.tolist()):
        phrase = phrases.get(line)
        if phrase is None:
            phrase = phrases[line] = match(" ".join(text_of[start:end])) is not None
        if phrase:
            found.append(start)
    return words[found].astype(np.int64)
