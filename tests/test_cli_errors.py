"""The command line's errors: one clear line on stderr and the documented exit status (2: bad arguments,
files named by options included; 1: the store does not answer), never a traceback."""
from __future__ import annotations

import errno
import gzip
import json
import os
import shutil
from pathlib import Path

import pytest

from sitewise.cli import main


def test_learning_from_files_that_do_not_exist_says_so(tmp_path, capsys):
    assert main(["learn", "--files", str(tmp_path), str(tmp_path / "missing"), "/no/such/folder"]) == 2
    assert f"no such file or folder: {tmp_path / 'missing'}, /no/such/folder" in capsys.readouterr().err


def test_learn_without_a_site_is_refused_before_the_store_is_opened(monkeypatch, capsys):
    import sitewise.store

    def never(*args, **kwargs):
        raise AssertionError("the store was opened (the embedded Redis started)")

    monkeypatch.setattr(sitewise.store, "open_store", never)
    assert main(["learn"]) == 2
    assert capsys.readouterr().err == "sitewise learn: error: name at least one SITE (or --all, or --files)\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["learn", "example.com", "--out", "{dir}/rules.json"], "--out: only with --files"),
        (["learn", "example.com", "--site", "example"], "--site: only with --files"),
        (["learn", "example.com", "--force", "--files", "{dir}"], "SITE, --force: for learning stored sites, not with --files"),
        (["rules", "--rules", "{dir}/rules.json", "--version", "2"], "--version: for a stored site's rules, not with --rules FILE"),
        (["rules", "--rules", "{dir}/rules.json", "--versions"], "--versions: for a stored site's rules, not with --rules FILE"),
        (["rules", "example.com", "--versions", "--apply", "{dir}/page.html"], "--apply: not with --versions"),
    ],
)
def test_options_the_command_would_not_read_are_refused(args, message, tmp_path, monkeypatch, capsys):
    import sitewise.store

    def never(*args, **kwargs):
        raise AssertionError("the store was opened (the embedded Redis started)")

    monkeypatch.setattr(sitewise.store, "open_store", never)
    (tmp_path / "rules.json").write_text(json.dumps(PARAGRAPH_RULES))
    (tmp_path / "page.html").write_text("<p>" + "word " * 60 + "</p>")
    assert main([arg.format(dir=tmp_path) for arg in args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"sitewise {args[0]}: error: {message}") and len(err.splitlines()) == 1


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


@pytest.fixture
def page_files(tmp_path):
    """A folder of (spider) page files a site is learned from, an HTML page and a file in the way: inputs
    the commands below would accept."""
    shutil.copytree(Path(__file__).parent / "fixtures" / "spider", tmp_path / "pages")
    (tmp_path / "page.html").write_text("<p>" + "word " * 60 + "</p>")
    (tmp_path / "existing.txt").write_text("kept\n")
    (tmp_path / "folder.json").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "args, message",
    [
        (["learn", "--files", "{dir}/pages", "--out", "{dir}"], "--out {dir} is a folder; give a file"),
        (["learn", "--files", "{dir}/pages", "--out", "{dir}/no/rules.json"], "--out {dir}/no/rules.json: no such folder"),
        (["learn", "--files", "{dir}/pages", "--out", "/dev/full"], "/dev/full: No space left on device"),
        (["collect", "{dir}/page.html", "--out", "{dir}/existing.txt"], "--out {dir}/existing.txt is a file; give a folder"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--url-base", "not a url"], "--url-base must be an http(s) URL"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--url-base", "https:///a/"], "--url-base: no host"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--limit", "-1"], "--limit must be at least 1"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--workers", "0"], "--workers must be at least 1"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--cache", "{dir}/existing.txt"],
         "--cache {dir}/existing.txt is a file; give a folder"),
        (["collect", "{dir}/page.html", "--out", "{dir}/o", "--timeout", "nan"], "--timeout must be a positive number of seconds, not nan"),
        (["extract", "{dir}/page.html", "--render", "--timeout", "0"], "--timeout must be a positive number of seconds, not 0"),
        (["import-spider", "{dir}/pages", "--out", "{dir}/existing.txt"], "--out {dir}/existing.txt is a file; give a folder"),
        (["import-spider", "{dir}/pages", "--out", "{dir}/o", "--limit", "-1"], "--limit must be at least 1"),
        (["import-spider", "{dir}/pages", "{dir}/folder.json", "--out", "{dir}/o"],
         "no spider page files (*.json or *.json.gz, searched recursively) in {dir}/folder.json"),
        (["rules", "--rules", "{dir}", "--apply", "{dir}/page.html"], "cannot read rules file {dir}: Is a directory"),
        (["rules", "--rules", "{dir}/rules.json", "--apply", "{dir}/folder.json"], "{dir}/folder.json: Is a directory"),
        (["bench", "collect", "--manifest", "{dir}/pages", "--report", "{dir}"], "--report {dir} is a folder; give a file"),
        (["bench", "load", "--report", "{dir}"], "--report {dir} is a folder; give a file"),
    ],
    ids=["learn out folder", "learn out nowhere", "learn out full disk", "collect out file", "collect url base",
         "collect url base without host", "collect limit", "collect workers", "collect cache file", "collect timeout nan",
         "extract timeout zero",
         "import out file", "import limit", "import empty folder", "rules folder",
         "apply to folder", "bench collect report folder", "bench load report folder"],
)
def test_an_output_or_input_path_that_cannot_be_used_is_one_line(args, message, page_files, capsys):
    if "/dev/full" in args and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    (page_files / "rules.json").write_text(json.dumps(PARAGRAPH_RULES))
    assert main([arg.format(dir=page_files) for arg in args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"sitewise {args[0]}: error: {message.format(dir=page_files)}")
    assert len(err.splitlines()) == 1 and (page_files / "existing.txt").read_text() == "kept\n"
    assert not (page_files / "o").exists()  # refused before anything was written


def test_an_output_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from sitewise.commands import output

    path = tmp_path / "rules.json"
    path.write_text("old\n")
    path.chmod(0o640)
    output.write_whole(path, "new\n")
    assert path.read_text() == "new\n" and path.stat().st_mode & 0o777 == 0o640  # its mode kept
    link = tmp_path / "latest.json"
    link.symlink_to(path)
    output.write_whole(link, "newer\n")
    assert link.is_symlink() and path.read_text() == "newer\n"  # the link's file replaced, not the link

    def disk_full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(output.os, "replace", disk_full)
    with pytest.raises(OSError, match="No space left on device") as error:
        output.write_whole(path, "lost\n")
    assert error.value.filename == str(path)  # (named for the one line the command line prints)
    assert path.read_text() == "newer\n" and sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "rules.json"]


def test_an_output_that_is_no_regular_file_is_written_as_it_is():
    from sitewise.commands.output import write_whole

    write_whole(Path(os.devnull), "nothing\n")
    assert Path(os.devnull).is_char_device()  # not replaced by a file


@pytest.mark.parametrize(
    "manifest, extractor, message",
    [
        ('{"id": "a"}\n', "no-such-extractor", "unknown extractor 'no-such-extractor'; known: "),
        ('{"url": "https://example.com/a"}\n', "mss", "{manifest}:1: no 'id' field"),
    ],
    ids=["unknown extractor", "manifest line without id"],
)
def test_a_missing_name_is_said_plainly(manifest, extractor, message, tmp_path, capsys):
    path = tmp_path / "manifest.jsonl"
    path.write_text(manifest)
    assert main(["eval", "--manifest", str(path), "--extractor", extractor, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    # (not Python's repr of a KeyError: quotes around the message, or a bare "'id'")
    assert err.startswith(f"sitewise eval: error: {message.format(manifest=path)}") and len(err.splitlines()) == 1
