"""Text read in the wrong encoding ("mojibake") put right: ``donâ€™t`` → ``don’t``.

Two kinds of page give it. Archived pages lose the HTTP header that said UTF-8 and still declare
ISO-8859-1, so a reader that trusts the declaration (as a browser does) shows each accented letter or
curly quote as two or three Latin-1 characters (44 of L3S-GN1's 620 scored pages show three or more).
And some sites serve UTF-8 encoded twice, which every reader shows as it is (30 of wcxb-dev's 1,350 scored
pages, 13 more of L3S-GN1's). Readers, archives and word counts want the characters the author wrote.

The page is still *read* as a browser reads it: the fallback's model learned from pages read that way,
and a collected page is what the reader's browser showed. Only what sitewise answers (the article's
text, its lines for Markdown and highlighting, the page's metadata) is put right, by ftfy's
``fix_encoding``, which undoes a wrong decoding only where the result is more plausible than the input
(French ``ÉTÉ\\u00a0!`` or a lone ``Ñ€`` stay as they are).
"""
from __future__ import annotations

import re

import regex

#: What cp1252 makes of the bytes 0x80-0x9f (``€``, ``™``, curly quotes, dashes): with Latin-1's
#: 0x80-0xbf, the characters a UTF-8 continuation byte becomes when it is read as a one-byte encoding.
_CP1252_HIGH = "".join(bytes([b]).decode("cp1252", "ignore") for b in range(0x80, 0xA0))
_CONTINUATION = "[\u0080-\u00bf" + re.escape(_CP1252_HIGH) + "]"
#: A UTF-8 lead byte read as Latin-1 (``Â`` to ``ô``: 0xc2-0xf4) followed by a continuation byte read
#: either way. Mojibake always holds one; most text never does, and is answered after this one look.
#: (Both patterns are compiled by the ``regex`` module, whose search for a character class is about seven
#: times faster than ``re``'s: a few microseconds for an article.)
_SUSPECT = regex.compile("[\u00c2-\u00f4]" + _CONTINUATION)
#: ... and a whole such sequence: a lead byte with as many continuation bytes as it announces. Text in its
#: right encoding often has the pair above ("é”" in French) but rarely a whole sequence, and ftfy's look
#: costs about 0.2 ms a kilobyte where this one costs a hundredth of that.
_SEQUENCE = regex.compile(
    f"[\u00c2-\u00df]{_CONTINUATION}|[\u00e0-\u00ef]{_CONTINUATION}{{2}}|[\u00f0-\u00f4]{_CONTINUATION}{{3}}"
)


def repair_mojibake(text: str) -> str:
    """``text`` with UTF-8 that was decoded as Latin-1 or cp1252 (once or more) decoded right."""
    if not _SUSPECT.search(text) or not _SEQUENCE.search(text):
        return text
    from ftfy import fix_encoding  # only for the few texts that need it: importing it takes 40 ms

    return fix_encoding(text)
