"""Character encodings read as browsers read them: the WHATWG Encoding Standard's labels and decoders.

A page names its encoding by a label (``<meta charset="iso-8859-1">``). Browsers look the label up in the
Encoding Standard's table (https://encoding.spec.whatwg.org/#names-and-labels), and many labels mean a
wider encoding than Python's codec of that name: every Latin-1 and ASCII label is windows-1252 (pages that
say ISO-8859-1 have long used its curly quotes and dashes in 0x80-0x9f, which Latin-1 reads as control
characters), GB2312 and GBK are read by the GB18030 decoder, EUC-KR is Windows' code page 949, Shift_JIS
its code page 932, Big5 takes the Hong Kong additions. Python's narrow codecs fail on the first character
outside the old standard (朱镕基's 镕 is GBK, not GB2312). A label that is no entry of the table
(``unicode_escape``, ``rot13``: Python codecs, not charsets) names nothing, as in a browser.

Python's one-byte tables stand in for the standard's, with its fill for their gaps (:func:`decode`); they
may differ at a few bytes of rarely used encodings (no page of the evaluation sets declares KOI8-U,
x-mac-cyrillic or windows-1255). The standard's "replacement" labels (ISO-2022-KR, HZ-GB-2312: a
browser shows such a page as one replacement character, to defeat script injection through their
escapes) and x-user-defined are left out, so they name nothing either.
"""
from __future__ import annotations

import codecs
import re
from functools import cache

#: One-byte encodings: (Python codec, the standard's labels). A browser never fails on one of them:
#: each byte is a character, the replacement character where the encoding has none.
_SINGLE_BYTE = (
    ("cp866", "866 cp866 csibm866 ibm866"),
    ("iso8859_2", "csisolatin2 iso-8859-2 iso-ir-101 iso8859-2 iso88592 iso_8859-2 iso_8859-2:1987 l2 latin2"),
    ("iso8859_3", "csisolatin3 iso-8859-3 iso-ir-109 iso8859-3 iso88593 iso_8859-3 iso_8859-3:1988 l3 latin3"),
    ("iso8859_4", "csisolatin4 iso-8859-4 iso-ir-110 iso8859-4 iso88594 iso_8859-4 iso_8859-4:1988 l4 latin4"),
    ("iso8859_5", "csisolatincyrillic cyrillic iso-8859-5 iso-ir-144 iso8859-5 iso88595 iso_8859-5 iso_8859-5:1988"),
    ("iso8859_6", "arabic asmo-708 csiso88596e csiso88596i csisolatinarabic ecma-114 iso-8859-6 iso-8859-6-e "
                  "iso-8859-6-i iso-ir-127 iso8859-6 iso88596 iso_8859-6 iso_8859-6:1987"),
    ("iso8859_7", "csisolatingreek ecma-118 elot_928 greek greek8 iso-8859-7 iso-ir-126 iso8859-7 iso88597 "
                  "iso_8859-7 iso_8859-7:1987 sun_eu_greek"),
    # ISO-8859-8 and -8-I differ only in the direction text is laid out in, not in characters.
    ("iso8859_8", "csiso88598e csisolatinhebrew hebrew iso-8859-8 iso-8859-8-e iso-ir-138 iso8859-8 iso88598 "
                  "iso_8859-8 iso_8859-8:1988 visual csiso88598i iso-8859-8-i logical"),
    ("iso8859_10", "csisolatin6 iso-8859-10 iso-ir-157 iso8859-10 iso885910 l6 latin6"),
    ("iso8859_13", "iso-8859-13 iso8859-13 iso885913"),
    ("iso8859_14", "iso-8859-14 iso8859-14 iso885914"),
    ("iso8859_15", "csisolatin9 iso-8859-15 iso8859-15 iso885915 iso_8859-15 l9"),
    ("iso8859_16", "iso-8859-16"),
    ("koi8_r", "cskoi8r koi koi8 koi8-r koi8_r"),
    ("koi8_u", "koi8-ru koi8-u"),
    ("mac_roman", "csmacintosh mac macintosh x-mac-roman"),
    ("cp874", "dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874"),
    ("cp1250", "cp1250 windows-1250 x-cp1250"),
    ("cp1251", "cp1251 windows-1251 x-cp1251"),
    ("cp1252", "ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 "
               "iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252"),
    ("cp1253", "cp1253 windows-1253 x-cp1253"),
    ("cp1254", "cp1254 csisolatin5 iso-8859-9 iso-ir-148 iso8859-9 iso88599 iso_8859-9 iso_8859-9:1989 l5 "
               "latin5 windows-1254 x-cp1254"),
    ("cp1255", "cp1255 windows-1255 x-cp1255"),
    ("cp1256", "cp1256 windows-1256 x-cp1256"),
    ("cp1257", "cp1257 windows-1257 x-cp1257"),
    ("cp1258", "cp1258 windows-1258 x-cp1258"),
    ("mac_cyrillic", "x-mac-cyrillic x-mac-ukrainian"),
)
#: Multi-byte encodings: (Python codec, the standard's labels). Their malformed sequences are the ones a
#: reader may have to tell apart from a wrong declaration (:func:`decode`).
_MULTI_BYTE = (
    ("utf-8", "unicode-1-1-utf-8 unicode11utf8 unicode20utf8 utf-8 utf8 x-unicode20utf8"),
    ("gb18030", "chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030"),
    ("big5hkscs", "big5 big5-hkscs cn-big5 csbig5 x-x-big5"),
    ("euc_jp", "cseucpkdfmtjapanese euc-jp x-euc-jp"),
    ("iso2022_jp", "csiso2022jp iso-2022-jp"),
    ("cp932", "csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis"),
    ("cp949", "cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 "
              "windows-949"),
    ("utf-16-be", "unicodefffe utf-16be"),
    ("utf-16-le", "csunicode iso-10646-ucs-2 ucs-2 unicode unicodefeff utf-16 utf-16le"),
)
_CODECS = {label: codec for codec, labels in _SINGLE_BYTE + _MULTI_BYTE for label in labels.split()}
_SINGLE_BYTE_CODECS = frozenset(codec for codec, _ in _SINGLE_BYTE)
#: Byte order marks: they say the encoding before anything the page says.
UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
BOMS = (UTF8_BOM, *UTF16_BOMS)
#: What the standard strips around a label (ASCII whitespace only).
_ASCII_WHITESPACE = "\t\n\f\r "

#: How far into a page a ``<meta>`` charset is looked for. HTML's prescan stops at 1,024 bytes; this
#: looks further, so that a declaration after a long run of scripts or styles is still found.
PRESCAN_BYTES = 4096
#: What the prescan reads, in page order: a comment, skipped whole (an unclosed one hides the rest;
#: ``<!-->`` is a whole one, as in HTML), or a ``<meta>`` tag naming a charset (``charset="x"``, or an
#: http-equiv ``content="text/html; charset=x"``).
_PRESCAN = re.compile(
    rb"""<!--.*?(?:(?<=--)>|\Z)|<meta[\s/][^>]*charset\s*=\s*["']?\s*([\w:.-]+)""", re.IGNORECASE | re.DOTALL
)
#: A page that names UTF-16 in ASCII bytes is not UTF-16: HTML reads it as UTF-8.
_NOT_IN_A_PAGE = {"utf-16-be": "utf-8", "utf-16-le": "utf-8"}


def codec_for_label(label: str | None) -> str | None:
    """The Python codec of the encoding ``label`` names in the Encoding Standard (matched ignoring ASCII
    case and surrounding whitespace), or None when it names none."""
    if not label or not label.isascii():  # ASCII case only: "\u212a" (Kelvin) would lower to "k"
        return None
    return _CODECS.get(label.strip(_ASCII_WHITESPACE).lower())


def codec_declared_in(html: bytes) -> str | None:
    """The codec of the first known charset a ``<meta>`` in the page's first :data:`PRESCAN_BYTES` names,
    outside comments (a label that names nothing is passed over, as HTML's prescan does)."""
    for match in _PRESCAN.finditer(html[:PRESCAN_BYTES]):
        label = match.group(1)  # None for a comment
        codec = label and codec_for_label(label.decode("ascii"))
        if codec:
            return _NOT_IN_A_PAGE.get(codec, codec)
    return None


def decode(data: bytes, codec: str, errors: str = "strict") -> str:
    """``data`` read in ``codec`` (one of :func:`codec_for_label`'s) as a browser reads it. A one-byte
    encoding never fails (a byte it has no character for is a replacement character); a multi-byte one
    raises UnicodeDecodeError on a malformed sequence unless ``errors`` is ``"replace"``."""
    if codec in _SINGLE_BYTE_CODECS:
        return codecs.charmap_decode(data, "strict", _browser_table(codec))[0]
    return data.decode(codec, errors)


#: The bytes of the C1 control characters (U+0080-U+009F in Latin-1).
_C1_BYTES = range(0x80, 0xA0)


@cache
def _browser_table(codec: str) -> str:
    """The 256 characters a browser reads the bytes of the one-byte ``codec`` as: Python's, and for a
    byte Python's leaves undefined the standard's: one of 0x80-0x9f (windows-125x's and 874's gaps) is the
    control character of that number (so the ``\\x9d`` of UTF-8's ``”`` read as windows-1252 is kept for
    the mojibake repair to undo), any other the replacement character."""
    return "".join(_browser_character(byte, codec) for byte in range(256))


def _browser_character(byte: int, codec: str) -> str:
    try:
        return bytes([byte]).decode(codec)
    except UnicodeDecodeError:
        return chr(byte) if byte in _C1_BYTES else "\ufffd"
