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


def test_learning_curve_sets_the_rules_with_the_fallback_beside_the_fallback_alone(monkeypatch):
    """The curve's rows come from the rules (alone, and with the fallback where they are not confident),
    its last column from the fallback on every test page, and the closing sentence from those numbers."""
    from sitewise.metrics import word_prf

    page = type("Document", (), {"html": "<p>x</p>"})()
    site = bench_learn.Site("example.com", train=[page] * 8, test=[(page, "the article text")])

    class Fallback:
        def extract(self, document):
            return "the article"  # F1 0.8 against the truth

    def scored(site, k, *, with_fallback=False, part="article"):
        good = k is None or k >= 4  # rules from 4 pages or more find the article
        rules = word_prf("the article text" if good else "menu", "the article text")
        with_fallback = [rules if good else word_prf(Fallback().extract(page), "the article text")] if with_fallback else []
        return bench_learn.SiteScore(site.name, 1, [rules], bench_learn.Counter(), with_fallback)

    monkeypatch.setattr(bench_learn, "_fallback_extractor", Fallback)
    monkeypatch.setattr(bench_learn, "score_site", scored)
    lines = bench_learn.curve_section({"dragnet": {"example.com": site}})
    assert "| dragnet, rules | 0.000 | 0.000 | 0.000 | 1.000 | 1.000 | 1.000 | 1.000 |  |" in lines
    assert "| dragnet, rules + fallback | 0.800 | 0.800 | 0.800 | 1.000 | 1.000 | 1.000 | 1.000 | 0.800 |" in lines
    assert lines[-2].endswith(
        "On dragnet, rules with the fallback score above the fallback alone (0.800) when learnt from 4, 5, 8, all pages."
    )


def test_learning_curve_without_html_has_no_fallback_row(monkeypatch):
    page = type("Document", (), {"html": None})()
    site = bench_learn.Site("npr.org", train=[page], test=[(page, "text")])
    monkeypatch.setattr(bench_learn, "score_site", lambda site, k, **kw: bench_learn.SiteScore(
        site.name, 1, [bench_learn.word_prf("text", "text")], bench_learn.Counter()))
    lines = bench_learn.curve_section({"spider": {"npr.org": site}})
    assert not any("rules + fallback" in line for line in lines)
    assert lines[-2].endswith("until then the MSS fallback serves it.")


def test_the_speed_benchmarks_synthetic_site_is_learned_page_for_page():
    """Every copy is a page of its own to the learner (which takes a page whose text, digits folded,
    repeats another's for a copy): a site of 40 pages made of 4 is timed as 40 pages, not 4."""
    from learn_support import sample_pages

    from sitewise.learn.learner import distinct_pages
    from sitewise.sample_site import generate_site

    originals = [page for page, _ in sample_pages(generate_site(seed=5, stories=4, features=0)).values()][:4]
    site = bench_learn.synthetic_site(originals, 40)
    assert len(site) == 40
    assert len(distinct_pages(site)) == 40


def test_the_speed_benchmark_times_a_workers_whole_learn_job(monkeypatch, tmp_path):
    """The learn job's columns: the pages stored in an embedded Redis of the benchmark's own, learned,
    learned again with one page more (each learn must store rules), and the Redis stopped and removed."""
    import tempfile

    from learn_support import sample_pages

    from sitewise.sample_site import generate_site

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(bench_learn, "SPEED_RUNS", 1)
    pages = bench_learn.synthetic_site([page for page, _ in sample_pages(generate_site(seed=5, stories=4, features=0))
                                        .values()][:4], 9)
    first, again = bench_learn._learn_job_times(pages[:8], pages[8])
    assert 0 < first and 0 < again
    assert list(tmp_path.iterdir()) == []  # the Redis's folder went with it
