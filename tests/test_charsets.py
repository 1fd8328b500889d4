"""Labels mean what they mean to browsers (the WHATWG Encoding Standard), and bytes read as browsers read them."""
import pytest

from sitewise.charsets import PRESCAN_BYTES, codec_declared_in, codec_for_label, decode


@pytest.mark.parametrize(
    "label, codec",
    [
        *[(label, "cp1252") for label in ("iso-8859-1", "ISO-8859-1", "latin1", "l1", "us-ascii", "ascii", "cp1252",
                                          "windows-1252", "iso8859-1", "iso_8859-1", "x-cp1252", "ansi_x3.4-1968")],
        *[(label, "gb18030") for label in ("gb2312", "GBK", "chinese", "csgb2312", "x-gbk", "gb18030")],
        *[(label, "cp949") for label in ("euc-kr", "ks_c_5601-1987", "windows-949", "korean")],
        *[(label, "cp932") for label in ("shift_jis", "sjis", "ms932", "windows-31j", "x-sjis", "shift-jis")],
        *[(label, "big5hkscs") for label in ("big5", "big5-hkscs", "cn-big5", "x-x-big5")],
        ("euc-jp", "euc_jp"), ("iso-2022-jp", "iso2022_jp"),
        ("utf8", "utf-8"), ("unicode-1-1-utf-8", "utf-8"), ("UTF-8", "utf-8"),
        ("iso-8859-9", "cp1254"), ("latin5", "cp1254"), ("iso-8859-11", "cp874"), ("tis-620", "cp874"),
        ("iso-8859-2", "iso8859_2"), ("iso-8859-8-i", "iso8859_8"), ("iso-8859-15", "iso8859_15"),
        ("windows-1251", "cp1251"), ("koi8-r", "koi8_r"), ("koi8-u", "koi8_u"), ("macintosh", "mac_roman"),
        ("ibm866", "cp866"), ("utf-16", "utf-16-le"), ("utf-16be", "utf-16-be"),
        (" Latin1\t\n", "cp1252"),  # ASCII case and whitespace do not matter
    ],
)
def test_a_label_names_the_encoding_browsers_read(label, codec):
    assert codec_for_label(label) == codec


@pytest.mark.parametrize(
    "label",
    ["unicode_escape", "raw_unicode_escape", "rot13", "base64", "hex", "zlib", "punycode", "idna", "utf-7",
     "iso8859_1", "latin-1", "unset", "unknown-0", "none", "", None, "\u212aoi8-r", "iso-2022-kr", "hz-gb-2312"],
)
def test_what_is_no_label_of_the_standard_names_nothing(label):
    """Python codecs that are no charsets, Python's own spellings, manifests' placeholders, a Kelvin sign
    that lowercases to "k", and the standard's replacement labels."""
    assert codec_for_label(label) is None


def test_windows_encodings_read_their_undefined_bytes_as_browsers_do():
    assert decode(b"\x93fair\x94 \x80", "cp1252") == "\u201cfair\u201d \u20ac"
    assert decode(b"\x81\x8d\x8f\x90\x9d", "cp1252") == "\x81\x8d\x8f\x90\x9d"  # C1 controls, never an error
    assert decode(b"\x81\xdb", "cp874") == "\x81\ufffd"  # past 0x9f a byte without a character is U+FFFD
    assert decode(b"\xa5", "iso8859_3") == "\ufffd"


def test_a_multi_byte_encoding_fails_or_replaces_as_asked():
    with pytest.raises(UnicodeDecodeError):
        decode(b"caf\xe9 ok", "utf-8")
    assert decode(b"caf\xe9 ok", "utf-8", errors="replace") == "caf\ufffd ok"


@pytest.mark.parametrize(
    "head, codec",
    [
        (b'<meta charset="koi8-r">', "koi8_r"),
        (b"<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=Shift_JIS'>", "cp932"),
        (b'<!-- <meta charset="koi8-r"> --><meta charset="utf-8">', "utf-8"),  # a comment is skipped
        (b'<!--> <meta charset="koi8-r">', "koi8_r"),  # "<!-->" is a whole comment
        (b'<!-- <meta charset="koi8-r"> <meta charset="utf-8">', None),  # an unclosed one hides the rest
        (b'<meta charset="unicode_escape"><meta charset="euc-kr">', "cp949"),  # no label: the next one
        (b'<meta charset="utf-16le">', "utf-8"),  # UTF-16 named in ASCII bytes is not UTF-16
        (b'<metadata charset="koi8-r">', None),
        (b"<p>" + b" " * PRESCAN_BYTES + b'<meta charset="koi8-r">', None),
    ],
)
def test_the_prescan_finds_what_a_browser_finds(head, codec):
    assert codec_declared_in(head) == codec
