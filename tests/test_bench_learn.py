"""``sitewise bench learn``'s arguments: each bad one is one error line before any page is rendered, and
the report is left as it was."""
from __future__ import annotations

from pathlib import Path

import pytest

from sitewise.bench import learn as bench_learn
from sitewise.cli import main


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder whose one set is never rendered: loading it fails the test."""
    (tmp_path / "data" / "dragnet").mkdir(parents=True)
    (tmp_path / "data" / "dragnet" / "manifest.jsonl").write_text("")

    def no_loading(*args, **kwargs):
        raise AssertionError("pages were loaded before the arguments were checked")

    monkeypatch.setattr(bench_learn, "load_sites", no_loading)
    return tmp_path / "data"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--sizes", "20,lots"], "--sizes takes page counts of 1 or more separated by commas, not '20,lots'"),
        (["--sizes", "0"], "--sizes takes page counts of 1 or more separated by commas, not '0'"),
        (["--limit-sites", "0"], "--limit-sites must be at least 1"),
        (["--out", "{tmp}"], "--out {tmp} is a folder; give a file"),
    ],
    ids=["sizes", "size 0", "limit-sites", "out a folder"],
)
def test_bad_arguments_are_refused_before_any_page_is_loaded(data, tmp_path, capsys, args, message):
    report = tmp_path / "bench-learn.md"
    report.write_text("# the earlier report\n")
    args = [arg.format(tmp=tmp_path) for arg in args]
    assert main(["bench", "learn", "--data", str(data), "--sets", "dragnet", "--out", str(report), *args]) == 2
    assert capsys.readouterr().err == f"sitewise bench: error: {message.format(tmp=tmp_path)}\n"
    assert report.read_text() == "# the earlier report\n"


def test_no_set_found_is_an_error_that_leaves_the_report(tmp_path, capsys):
    report = tmp_path / "bench-learn.md"
    report.write_text("# the earlier report\n")
    assert main(["bench", "learn", "--data", str(tmp_path / "nowhere"), "--out", str(report), "--quiet"]) == 2
    message = f"no set of spider, dragnet has a manifest under {tmp_path / 'nowhere'}"
    assert capsys.readouterr().err == f"sitewise bench: error: {message}\n"
    assert report.read_text() == "# the earlier report\n"
