"""``sitewise bench compare`` end to end on a small manifest written from the generated sample site."""
from __future__ import annotations

import importlib.util
import json

import pytest

from sitewise.bench.compare import parse_curve, parse_options, parse_systems
from sitewise.bench.comparison import SetSpec, compare, open_systems
from sitewise.cli import main

FAST_PEER = "resiliparse"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec(FAST_PEER) is None, reason=f"{FAST_PEER} is not installed (pip install 'sitewise[bench]')"
)


@pytest.fixture
def manifest(sample_site, tmp_path):
    """Every article page of the sample site: the first half `split: train`, the rest `test`; one test
    page's truth is marked as not matching its page; the index page has no truth."""
    folder = tmp_path / "sample"
    folder.mkdir()
    lines = []
    articles = sample_site.article_paths
    for number, path in enumerate(sorted(sample_site.pages)):
        page = sample_site.pages[path]
        (folder / f"{number}.html").write_text(page.html, encoding="utf-8")
        entry = {"id": f"sample/{number}", "site": "sample.test", "url": f"http://sample.test{path}",
                 "html": f"{number}.html", "truth": None, "split": None, "kind": "index"}
        if path in articles:
            (folder / f"{number}.txt").write_text(page.truth, encoding="utf-8")
            train = articles.index(path) < len(articles) // 2
            entry.update(truth=f"{number}.txt", split="train" if train else "test", kind=page.template)
        lines.append(entry)
    test_ids = [e["id"] for e in lines if e["split"] == "test"]
    next(e for e in lines if e["id"] == test_ids[0])["truth_mismatch"] = True
    (folder / "manifest.jsonl").write_text("\n".join(json.dumps(e) for e in lines), encoding="utf-8")
    return folder


def test_set_spec_parses_paths_and_selections():
    assert SetSpec.parse("../data/dragnet:split=test") == SetSpec("dragnet sites", "../data/dragnet", "split", "test")
    assert SetSpec.parse("../data/dragnet:official_split=test").label == "dragnet official test"  # standard
    assert SetSpec.parse("../data/dragnet:official_split=train").label == "dragnet official_split=train"
    assert SetSpec.parse("/x/cleaneval/manifest.jsonl") == SetSpec("cleaneval", "/x/cleaneval/manifest.jsonl")
    # Spider's truth is Diffbot's text field (no headline, author or date): the article body is scored.
    spider = SetSpec.parse("../data/spider:split=test")
    assert (spider.label, spider.part) == ("spider sites", "body") and "article body" in spider.describe()
    assert SetSpec.parse("../data/dragnet:split=test").part == "article"
    with pytest.raises(ValueError):
        SetSpec.parse("data:=test")


def test_bad_systems_and_curves_are_clear_errors():
    with pytest.raises(ValueError, match="unknown system"):
        parse_systems("trafilatura,no-such-extractor")
    assert parse_curve("1,3,all") == (1, 3, None)
    with pytest.raises(ValueError, match="--curve"):
        parse_curve("1,0")


def test_options_go_to_one_system_and_bad_ones_are_reported():
    assert parse_options(["mss.model=a=b.json", "sitewise.mss_model=m"], ["mss", "sitewise"]) == {
        "mss": {"model": "a=b.json"}, "sitewise": {"mss_model": "m"},
    }
    with pytest.raises(ValueError, match="SYSTEM.KEY=VALUE"):
        parse_options(["mss=1"], ["mss"])
    with pytest.raises(ValueError, match="not one of the systems run"):
        parse_options(["mss.model=x"], ["trafilatura"])
    available, unavailable = open_systems([FAST_PEER], {FAST_PEER: {"no_such_option": "1"}})
    assert not available and unavailable[FAST_PEER].startswith("cannot start: TypeError")


def test_compare_scores_the_same_pages_per_protocol(manifest, sample_site):
    per_site = SetSpec.parse(f"{manifest}:split=test")
    stories = SetSpec("sample stories", str(manifest), "kind", "story")
    comparison = compare([per_site], [FAST_PEER], render_sample=0, progress=False)

    sites = comparison.sets[per_site.label]
    tested = len(sample_site.article_paths) - len(sample_site.article_paths) // 2
    assert (sites.pages, sites.left_out, sites.sites) == (tested - 1, 1, 1)
    result = sites.systems[FAST_PEER].result
    assert len(result.pages) == tested and len(result.headline) == tested - 1
    assert result.summary().f1 > 0.5

    story_run = compare([stories], [FAST_PEER, "rules"], render_sample=0, progress=False).sets["sample stories"]
    story_count = sum(1 for p in sample_site.article_paths if sample_site.pages[p].template == "story")
    assert story_run.pages + story_run.left_out == story_count
    assert len(story_run.systems[FAST_PEER].result.pages) == story_count
    assert "rules" in story_run.skipped  # learns per site (or not built yet): skipped, with the reason


def test_command_writes_results_and_report_and_redraws_it(manifest, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    results, docs = tmp_path / "results", tmp_path / "docs"
    common = ["--results", str(results), "--docs", str(docs)]
    assert main(["bench", "compare", "--set", f"{manifest}:split=test", "--systems", FAST_PEER,
                 "--render-sample", "0", "--quiet", *common]) == 0
    report = (docs / "benchmarks.md").read_text(encoding="utf-8")
    assert f"| {FAST_PEER} |" in report and f"--systems {FAST_PEER}" in report
    (docs / "benchmarks.md").unlink()
    assert main(["bench", "compare", "--report-only", *common]) == 0
    assert (docs / "benchmarks.md").read_text(encoding="utf-8") == report
    assert "sample sites: " in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--limit", "0"], "--limit must be at least 1"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--docs", "{manifest}"], "--docs {manifest} is a file; give a folder"),
        (["--results", "{manifest}"], "--results {manifest} is a file; give a folder"),
    ],
    ids=["limit", "workers", "docs a file", "results a file"],
)
def test_bad_arguments_are_refused_before_any_page_is_scored(manifest, tmp_path, capsys, args, message):
    a_file = manifest / "manifest.jsonl"
    args = [arg.format(manifest=a_file) for arg in args]
    common = ["--results", str(tmp_path / "results"), "--docs", str(tmp_path / "docs")]
    assert main(["bench", "compare", "--set", str(manifest), "--systems", FAST_PEER, "--render-sample", "0",
                 "--quiet", *common, *args]) == 2
    assert capsys.readouterr().err == f"sitewise bench: error: {message.format(manifest=a_file)}\n"
    assert not (tmp_path / "docs" / "benchmarks.md").exists() and not (tmp_path / "results" / "results.json").exists()
