import gzip
import json

import pytest

from sitewise.manifest import ManifestError, decode_html, read_manifest


def test_reads_entries_and_gzipped_files(tmp_path):
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "1.html.gz").write_bytes(gzip.compress("<p>café</p>".encode("utf-8")))
    (tmp_path / "t.txt").write_text("café\n", encoding="utf-8")
    line = {"id": "set/1", "site": "a.com", "url": None, "html": "html/1.html.gz", "truth": "t.txt",
            "split": "test", "truth_mismatch": True}
    (tmp_path / "manifest.jsonl").write_text(json.dumps(line) + "\n\n")
    [entry] = read_manifest(tmp_path)
    assert entry.html() == "<p>café</p>" and entry.truth() == "café\n"
    assert entry.mismatch and entry.split == "test" and entry.group == "a.com"


def test_spider_entries_group_by_collection(tmp_path):
    line = {"id": "spider/npr/1", "site": "npr.org", "url": "u", "page": "p.json", "truth": None,
            "split": "train", "collection": "npr"}
    (tmp_path / "manifest.jsonl").write_text(json.dumps(line))
    [entry] = read_manifest(tmp_path / "manifest.jsonl")
    assert entry.group == "npr:npr.org" and not entry.has_truth and entry.html() is None


def test_bad_manifest_is_a_clear_error(tmp_path):
    (tmp_path / "manifest.jsonl").write_text('{"id": "x"}\nnot json\n')
    with pytest.raises(ManifestError, match="manifest.jsonl:2"):
        read_manifest(tmp_path)
    with pytest.raises(ManifestError, match="no manifest"):
        read_manifest(tmp_path / "missing")


@pytest.mark.parametrize(
    "data, expected",
    [
        ('<meta charset="iso-8859-1"><p>caf\xe9</p>'.encode("latin-1"), "café"),
        ("<p>café</p>".encode("utf-8"), "café"),
        ("<p>caf\xe9</p>".encode("cp1252"), "café"),
        (b"\xef\xbb\xbf<p>x</p>", "<p>x</p>"),
    ],
)
def test_decode_html(data, expected):
    assert expected in decode_html(data)


STRIKE = "港口工人周日投票结束了罢工。" * 5 + "朱镕基说这是公平的协议。"  # 镕 is GBK, not GB2312
QUOTES = b"The union said it\x92s a \x93fair deal\x94 and voted to end the strike."


@pytest.mark.parametrize(
    "data, declared, expected",
    [
        (f'<meta charset="gb2312"><p>{STRIKE}</p>'.encode("gbk"), None, STRIKE),
        ('<meta charset="euc-kr"><p>똠방각하</p>'.encode("cp949"), None, "똠방각하"),  # 똠 is cp949's
        ('<meta charset="shift_jis"><p>①髙橋さん</p>'.encode("cp932"), None, "①髙橋さん"),
        ('<meta charset="big5"><p>香港峯會</p>'.encode("big5hkscs"), None, "香港峯會"),
        ("<p>똠방각하</p>".encode("cp949"), "euc-kr", "똠방각하"),  # the manifest's label alike
        *[(b'<meta charset="%s"><p>' % label + QUOTES, None, "it\u2019s a \u201cfair deal\u201d")
          for label in (b"iso-8859-1", b"ISO-8859-1", b"latin1", b"us-ascii", b"iso_8859-1:1987")],
        (b"<p>" + QUOTES, "iso-8859-1", "it\u2019s a \u201cfair deal\u201d"),
        ('<meta charset="utf-16"><p>café</p>!'.encode(), None, "<p>café</p>"),  # as UTF-8, not UTF-16
        ('<!-- <meta charset="koi8-r"> --><meta charset="utf-8"><p>café'.encode(), None, "<p>café"),
        (b'<meta charset="unicode_escape"><p>C:\\new</p>', None, "C:\\new"),  # no charset: passed over
        (b'<meta charset="rot13"><p>caf\xc3\xa9</p>', "base64", "café"),
        ("<p>café</p>".encode(), "unknown-0", "café"),
    ],
)
def test_decode_html_reads_labels_as_browsers_do(data, declared, expected):
    assert expected in decode_html(data, declared)


def test_a_few_malformed_bytes_are_replaced_in_the_declared_encoding():
    """A browser shows a replacement character for a bad sequence; it does not read the page in another
    encoding. A page malformed at most of its non-ASCII bytes does read better as windows-1252."""
    chinese = f'<meta charset="gb2312"><p>{STRIKE}</p>'.encode("gbk")
    assert decode_html(chinese.replace(b"</p>", b"\x81</p>")) == decode_html(chinese).replace("</p>", "\ufffd</p>")
    utf8 = '<meta charset="utf-8"><p>Grüße aus Köln, “so”</p>'.encode() + b"\xff"
    assert "Grüße aus Köln, “so”</p>\ufffd" in decode_html(utf8)
    assert "Grüße aus Köln" in decode_html("<p>Grüße aus Köln</p>".encode("cp1252"), "utf8")


def test_a_stale_declaration_gives_way_to_bytes_that_are_utf8():
    """Archived pages keep a legacy multi-byte <meta> above bytes re-encoded as UTF-8."""
    assert STRIKE in decode_html(f'<meta charset="gb2312"><p>{STRIKE}</p>'.encode())


def test_an_id_given_twice_is_a_clear_error(tmp_path):
    lines = [{"id": "set/1", "truth": "a.txt"}, {"id": "set/2"}, {"id": "set/1", "truth": "b.txt"}]
    (tmp_path / "manifest.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(ManifestError, match=r"manifest.jsonl:3: id 'set/1' is also line 1's"):
        read_manifest(tmp_path)


@pytest.mark.parametrize(
    "name, data, message",
    [
        ("page.html.gz", b"<p>not compressed</p>", "page.html.gz: not readable as gzip"),
        ("page.html.gz", gzip.compress(b"<p>" + b"cut short " * 100 + b"</p>")[:40], "page.html.gz: not readable as gzip"),
        ("truth.txt", "caf\xe9".encode("latin-1"), "truth.txt: truth is not UTF-8"),
    ],
    ids=["plain-named-gz", "cut-short-gz", "latin-1-truth"],
)
def test_an_unreadable_file_is_an_error_naming_it(tmp_path, name, data, message):
    (tmp_path / name).write_bytes(data)
    line = {"id": "set/1", "html": name} if name.startswith("page") else {"id": "set/1", "truth": name}
    (tmp_path / "manifest.jsonl").write_text(json.dumps(line))
    [entry] = read_manifest(tmp_path)
    read = entry.html if name.startswith("page") else entry.truth
    with pytest.raises(ManifestError, match=message):
        read()


def test_a_manifest_saved_with_a_bom_reads_and_one_not_utf8_is_named(tmp_path):
    entry = {"id": "set/1", "html": "1.html", "title": "Caf\u00e9\u2028menu"}
    (tmp_path / "manifest.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps(entry, ensure_ascii=False).encode() + b"\r\n")
    [read] = read_manifest(tmp_path / "manifest.jsonl")
    assert read.id == "set/1" and read.raw["title"] == "Caf\u00e9\u2028menu"  # U+2028 is no line break here
    (tmp_path / "manifest.jsonl").write_bytes(json.dumps(entry).encode().replace(b"set/1", b"caf\xe9"))
    with pytest.raises(ManifestError, match="manifest.jsonl: not UTF-8"):
        read_manifest(tmp_path / "manifest.jsonl")


@pytest.mark.parametrize("truth", ["", 3, ["truth/1.txt"]])
def test_a_truth_that_names_no_file_is_a_clear_error(tmp_path, truth):
    (tmp_path / "manifest.jsonl").write_text(json.dumps({"id": "set/1", "html": "1.html", "truth": truth}) + "\n")
    with pytest.raises(ManifestError, match="manifest.jsonl:1: truth must be a file's path or null"):
        read_manifest(tmp_path / "manifest.jsonl")
