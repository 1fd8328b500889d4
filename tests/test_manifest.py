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
