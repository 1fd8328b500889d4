"""Language-aware word handling: tokens, stems and stop words, from code and shipped word lists only.

nltk's downloadable corpora cannot be relied on, so stemming uses nltk's Snowball stemmers (pure code)
and stop words come from the ``stopwordsiso`` package. Scripts without spaces between words (Chinese,
Japanese, Thai) are split into character bigrams so tf-idf still has terms to compare. A word keeps its
combining marks (Devanagari and Bengali vowel signs, Arabic and Hebrew vowel points, accents written
decomposed) and the joiners inside it (the ZWNJ of Persian ``کتاب\u200cها``): Python's ``\\w`` matches neither,
and split "हिन्दी" into "ह", "न", "द".
"""
from __future__ import annotations

import functools
import re
from typing import Callable

import regex


_SNOWBALL = {
    "ar": "arabic", "da": "danish", "nl": "dutch", "en": "english", "fi": "finnish", "fr": "french",
    "de": "german", "hu": "hungarian", "it": "italian", "no": "norwegian",
    "pt": "portuguese", "ro": "romanian", "ru": "russian", "es": "spanish", "sv": "swedish",
}
#: Language codes pages still declare for a language whose code ISO 639 changed (``iw`` Hebrew, which
#: Google long wrote), or for one variety of a language whose stop words are listed under another code
#: (Norwegian Bokmål and Nynorsk under ``no``, Filipino under Tagalog's ``tl``).
_LANGUAGE_ALIASES = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro", "nb": "no", "nn": "no", "fil": "tl"}

_WORD = re.compile(r"\w+")
#: Chinese and Japanese characters (kana, ideographs), as ranges of a character class ...
CJK_CHARACTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
#: ... and with Thai, the scripts written without spaces, so one word match can be a whole sentence.
UNSPACED_CHARACTERS = CJK_CHARACTERS + "\u0e00-\u0e7f"
_UNSPACED = re.compile(f"[{UNSPACED_CHARACTERS}]")
#: What starts a word: a letter, a digit or the underscore (what ``re``'s ``\w`` matches) ...
_WORD_START = r"[\p{L}\p{N}_]"
#: ... and what continues it: those, combining marks and the joiners (ZWNJ, ZWJ) that sit inside words.
#: Written for the ``regex`` module (which nltk requires): ``re`` has no class for combining marks.
_WORD_PART = r"[\p{L}\p{N}_\p{M}\u200c\u200d]"
_READER_WORD = regex.compile(f"{_WORD_START}{_WORD_PART}*")
#: A word as :func:`words` splits text: one character of a script without spaces, else a reader's word
#: that holds none.
_NOT_UNSPACED = f"(?![{UNSPACED_CHARACTERS}])"
_CHARACTER_OR_WORD = regex.compile(
    f"[{UNSPACED_CHARACTERS}]|{_NOT_UNSPACED}{_WORD_START}(?:{_NOT_UNSPACED}{_WORD_PART})*")


#: Chinese and Japanese characters (ideographs and kana): each is a word as :func:`word_count` counts.
_CJK_CHARACTER = re.compile(f"[{CJK_CHARACTERS}]")


#: Words whose terms are remembered per language (a site's learning sees each word many times; the
#: bound keeps a long-running worker's memory in check).
MAX_KNOWN_WORDS = 200_000


def base_language(lang: str | None) -> str:
    """``en-US`` → ``en``, ``iw`` → ``he`` (:data:`_LANGUAGE_ALIASES`); unknown or missing → ``en`` (most
    of the web, and the safest stemmer)."""
    code = (lang or "").strip().lower().replace("_", "-").split("-")[0]
    return _LANGUAGE_ALIASES.get(code, code) if re.fullmatch(r"[a-z]{2,3}", code) else "en"


@functools.lru_cache(maxsize=64)
def stemmer_for(lang: str | None) -> Callable[[str], str]:
    """A stemming function for the language: Snowball where it has one, identity otherwise."""
    code = base_language(lang)
    if code == "en":
        from nltk.stem.porter import PorterStemmer  # nltk takes most of a second to import: only when stemming

        return PorterStemmer().stem
    name = _SNOWBALL.get(code)
    if not name:
        return lambda word: word
    from nltk.stem.snowball import SnowballStemmer

    return SnowballStemmer(name).stem


@functools.lru_cache(maxsize=64)
def stop_words(lang: str | None) -> frozenset[str]:
    """Stop words of the language (lower-cased), empty when none are shipped."""
    import stopwordsiso

    code = base_language(lang)
    return frozenset(w.lower() for w in stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) else frozenset()


def terms(text: str, lang: str | None = None) -> list[str]:
    """Index terms of a text: lower-cased words without stop words, stemmed; CJK as character bigrams."""
    known = _word_terms(lang)
    out: list[str] = []
    for word in _reader_words(text.lower()):
        found = known.get(word)
        if found is None:
            found = _terms_of_word(word, lang)
            if len(known) >= MAX_KNOWN_WORDS:
                known.clear()
            known[word] = found
        out += found
    return out


def _reader_words(text: str) -> list[str]:
    """:data:`_READER_WORD`'s matches in ``text``. In ASCII text they are ``re``'s ``\\w+`` runs (letters,
    digits and the underscore; ASCII has no combining marks or joiners), found in half the time: learning
    splits every distinct text of a site, most of them ASCII."""
    return _WORD.findall(text) if text.isascii() else _READER_WORD.findall(text)


@functools.lru_cache(maxsize=64)
def _word_terms(lang: str | None) -> dict[str, tuple[str, ...]]:
    """The remembered terms of words in the language (filled by :func:`terms`)."""
    return {}


def _terms_of_word(word: str, lang: str | None) -> tuple[str, ...]:
    if _UNSPACED.search(word):
        return tuple(_bigrams(word))
    if word in stop_words(lang) or word.isdigit():
        return ()
    return (stemmer_for(lang)(word),)


def _bigrams(word: str) -> list[str]:
    return [word] if len(word) < 2 else [word[i : i + 2] for i in range(len(word) - 1)]


def words(text: str) -> list[str]:
    """The lower-cased words of a text to compare with another's: each character of a script written
    without spaces (Chinese, Japanese, Thai) one word, as :func:`word_count` counts them, so a headline
    and a heading in those scripts share words; a word of any other script with its combining marks."""
    return _CHARACTER_OR_WORD.findall(text.lower())


def is_unspaced_character(word: str) -> bool:
    """Whether ``word`` (one of :func:`words`) is a character of a script written without spaces."""
    return len(word) == 1 and _UNSPACED.match(word) is not None


def word_count(text: str) -> int:
    """How many words a reader counts in ``text`` (the ``words`` of every answer): its white-space separated
    runs that hold a letter or digit, and each Chinese or Japanese character, as word processors count
    those scripts, which put no spaces between words (a 600-character Chinese article is some 600 words,
    not the 5 runs its punctuation and line breaks leave). Thai, whose spaces part phrases, counts those."""
    cjk_characters = len(_CJK_CHARACTER.findall(text))
    spaced = _CJK_CHARACTER.sub(" ", text) if cjk_characters else text
    return cjk_characters + sum(1 for run in spaced.split() if _WORD.search(run))
