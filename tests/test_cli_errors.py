"""The command line's errors: one clear line on stderr and the documented exit status (2: bad arguments,
files named by options included; 1: the store does not answer), never a traceback."""
from __future__ import annotations

import gzip
import json

import pytest

from sitewise.cli import main


def test_learning_from_files_that_do_not_exist_says_so(tmp_path, capsys):
    assert main(["learn", "--files", str(tmp_path), str(tmp_path / "missing"), "/no/such/folder"]) == 2
    assert f"no such file or folder: {tmp_path / 'missing'}, /no/such/folder" in capsys.readouterr().err


#: A Redis that refuses connections (nothing listens on port 1), with a password the messages must not show.
DOWN_REDIS = "redis://reader:s3cret@127.0.0.1:1/0?password=s3cret"


@pytest.mark.parametrize(
    "args, hint",
    [
        (["extract", "--url", "https://example.com/a", "{page}"], "--no-store"),
        (["rules", "example.com"], "--rules FILE"),
        (["learn", "example.com"], "--files PATH"),
        (["alias"], None),
    ],
)
def test_a_store_that_does_not_answer_is_one_line_naming_it(args, hint, tmp_path, monkeypatch, capsys):
    page = tmp_path / "page.html"
    page.write_text("<p>" + "word " * 60 + "</p>")
    monkeypatch.setenv("REDIS_URL", DOWN_REDIS)
    assert main([arg.format(page=page) for arg in args]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"sitewise {args[0]}: error: the store does not answer (Redis at redis://127.0.0.1:1/0 (REDIS_URL)" in err
    assert "s3cret" not in err
    assert (hint in err) if hint else "without the store" not in err


#: A rule set that takes a page's paragraphs.
PARAGRAPH_RULES = {"site": "x.test", "templates": [{"name": "t1", "match": [], "include": ["p"], "words": [0, 100]}]}


@pytest.mark.parametrize("content, message", [(b"", "the page is empty"), (b"\x7fELF\x02" + b"\x00" * 64, "binary")],
                         ids=["empty", "binary"])
def test_applying_rules_to_a_file_that_is_no_page_is_an_error(content, message, tmp_path, capsys):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(PARAGRAPH_RULES))
    page = tmp_path / "page.html"
    page.write_bytes(content)
    assert main(["rules", "--rules", str(rules), "--apply", str(page)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"sitewise rules: error: {page}: ") and message in err


def test_a_rules_file_holding_null_is_an_error_not_no_rules(tmp_path, capsys):
    rules = tmp_path / "rules.json"
    rules.write_text("null")
    page = tmp_path / "page.html"
    page.write_text("<p>" + "word " * 60 + "</p>")
    assert main(["extract", "--rules", str(rules), "--url", "https://www.npr.org/x", str(page)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"sitewise extract: error: rules file {rules}: (rules): must be a JSON object\n"
    assert main(["rules", "--rules", str(rules)]) == 2
    assert capsys.readouterr().err == f"sitewise rules: error: rules file {rules}: (rules): must be a JSON object\n"


def test_applying_rules_to_a_page_file_cut_short_names_it(tmp_path, capsys):
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(PARAGRAPH_RULES))
    page = tmp_path / "page.json.gz"
    page.write_bytes(gzip.compress(json.dumps({"url": "http://x.test/a", "blocks": []}).encode())[:30])
    assert main(["rules", "--rules", str(rules), "--apply", str(page)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"sitewise rules: error: {page}: (file): not a whole gzip file")
