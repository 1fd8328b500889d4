"""The benchmark report on a synthetic comparison: the numbers land in the right places, the verdicts
follow them, losses are shown, and results survive a save/load round trip."""
from __future__ import annotations

import pytest

from sitewise.bench.comparison import Comparison, LearningCurve, RenderStats, SetRun, SetSpec, SystemRun
from sitewise.bench.compare_report import best_peer, headline, primary, render, write_report
from sitewise.evaluate import EvalResult, PageResult
from sitewise.metrics import Score


def _pages(scores: dict[str, list[float]], ms: float = 5.0) -> list[PageResult]:
    """Pages per site with the given F1 (precision = recall = F1, so means are easy to check)."""
    return [
        PageResult(
            id=f"{site}/{i}", group=site, text="some words", score=Score(value, value, value),
            shingles=(value, (1 - value) / 2, (1 - value) / 2), ms=ms + i,
        )
        for site, values in scores.items()
        for i, value in enumerate(values)
    ]


def _system(name: str, manifest: str, scores: dict[str, list[float]], curve: LearningCurve | None = None) -> SystemRun:
    return SystemRun(
        name, "test 1.0", f"{name}(html)", seconds=1.0, ran_at="2024-01-01 00:00 UTC", run=0, curve=curve,
        result=EvalResult(name, manifest, _pages(scores)),
    )


@pytest.fixture
def comparison() -> Comparison:
    sites = SetRun(SetSpec("dragnet sites", "data/dragnet", "split", "test"), pages=4, left_out=1, sites=2)
    curve = LearningCurve(
        sizes=["1", "2", "all"], overall={"1": 0.5, "2": 0.8, "all": 0.9},
        by_site={"1": {"a.com": 0.4, "b.com": 0.6}, "2": {"a.com": 0.9, "b.com": 0.7}, "all": {"a.com": 1.0, "b.com": 0.8}},
        train_pages={"a.com": 5, "b.com": 2}, fit_seconds={"a.com": 0.02, "b.com": 0.01},
    )
    sites.systems = {
        "rules": _system("rules", "data/dragnet", {"a.com": [1.0, 1.0], "b.com": [0.8, 0.8]}, curve),
        "trafilatura": _system("trafilatura", "data/dragnet", {"a.com": [0.8, 0.8], "b.com": [0.9, 0.9]}),
        "justext": _system("justext", "data/dragnet", {"a.com": [0.5, 0.5], "b.com": [0.5, 0.5]}),
    }
    sites.skipped = {"goose3": "not available: No module named 'goose3'"}
    fallback = SetRun(SetSpec("cleaneval", "data/cleaneval"), pages=2, sites=2)
    fallback.systems = {
        "sitewise": _system("sitewise", "data/cleaneval", {"x.org": [0.7], "y.org": [0.7]}),
        "trafilatura": _system("trafilatura", "data/cleaneval", {"x.org": [0.9], "y.org": [0.9]}),
        "justext": _system("justext", "data/cleaneval", {"x.org": [0.6], "y.org": [0.6]}),
    }
    env = {"command": "sitewise bench compare", "started": "s", "finished": "f", "python": "3.11",
           "sitewise": "0.1.0", "machine": {"cpu": "Test CPU", "cores": 2, "memory_gb": 24, "os": "Linux",
                                             "load_average_start": [1.0, 1.0, 1.0]}, "load_average_end": [2.0, 2.0, 2.0]}
    return Comparison(runs=[env], sets={"dragnet sites": sites, "cleaneval": fallback})


def test_who_answers_for_sitewise_and_who_is_the_best_peer(comparison):
    sites, fallback = comparison.sets["dragnet sites"], comparison.sets["cleaneval"]
    assert primary(sites).system == "rules" and primary(fallback).system == "sitewise"
    assert best_peer(sites).system == "trafilatura"
    assert best_peer(fallback, exclude=("trafilatura",)).system == "justext"


def test_headline_quotes_rules_against_the_best_peer_and_the_fallback(comparison):
    text = headline(comparison)
    assert "learned rules score mean word F1 0.900 against 0.850 for the best peer (trafilatura)" in text
    assert "its fallback scores 0.700 against trafilatura's 0.900" in text


def test_report_shows_numbers_verdicts_losses_and_skips(comparison):
    text = render(comparison)
    assert "| rules | **0.900** | – |" in text  # overview: best of its set in bold, did not run on cleaneval
    assert "met: rules 0.900, best peer trafilatura 0.850 (+0.050)" in text
    assert "met: sitewise 0.700, best other peer justext 0.600 (+0.100)" in text
    assert "trafilatura 0.900 (not beaten, -0.200)" in text
    # where sitewise loses: a whole set, and a site of a per-site set
    assert "**cleaneval**: sitewise (0.700) trails trafilatura (0.900)" in text
    assert "b.com 0.800 vs trafilatura 0.900" in text
    assert "*goose3 skipped*: not available: No module named 'goose3'" in text
    assert "| dragnet sites | rules | 0.500 | 0.800 | 0.900 | trafilatura 0.850 | 2–5 |" in text
    assert "Test CPU, 2 cores" in text and "sitewise bench compare" in text
    assert "not measured" in text  # spider and l3s-gn1 targets: sets not in this run


def test_rendering_cost_is_stated_next_to_extraction_speed(comparison):
    comparison.render = RenderStats(pages=20, seconds=10.0, failures=1)
    text = render(comparison)
    assert "2.00 pages/s (10.0 s, 1 failed)" in text
    assert "about 500 ms of wall time per page" in text


def test_write_report_draws_the_plots(comparison, tmp_path):
    pytest.importorskip("matplotlib")
    path = write_report(comparison, tmp_path)
    images = sorted(p.name for p in (tmp_path / "img").iterdir())
    assert images == [
        "bench-f1-per-site-dragnet-sites.png", "bench-learning-curve-dragnet-sites.png",
        "bench-learning-curve.png", "bench-ms-per-page.png",
    ]
    text = path.read_text(encoding="utf-8")
    assert all(f"(img/{name})" in text for name in images)
    assert all((tmp_path / "img" / name).read_bytes().startswith(b"\x89PNG") for name in images)


def test_results_survive_save_and_load(comparison, tmp_path):
    comparison.save(tmp_path)
    loaded = Comparison.load(tmp_path)
    assert render(loaded) == render(comparison)
    assert loaded.sets["dragnet sites"].systems["rules"].curve == comparison.sets["dragnet sites"].systems["rules"].curve


def test_merge_replaces_rerun_systems_and_keeps_the_others(comparison):
    newer = Comparison(runs=[{"command": "again"}])
    rerun = SetRun(SetSpec("dragnet sites", "data/dragnet", "split", "test"), pages=4, left_out=1, sites=2)
    rerun.systems = {"goose3": _system("goose3", "data/dragnet", {"a.com": [0.6, 0.6], "b.com": [0.6, 0.6]})}
    newer.sets = {"dragnet sites": rerun}
    comparison.merge(newer)
    merged = comparison.sets["dragnet sites"]
    assert set(merged.systems) == {"rules", "trafilatura", "justext", "goose3"}
    assert "goose3" not in merged.skipped
    assert merged.systems["goose3"].run == 1 and len(comparison.runs) == 2
    goose_row = next(line for line in render(comparison).splitlines() if line.startswith("| goose3 | 0.600 | 0.600 | 0.600 |"))
    assert goose_row.endswith("| 2 |")  # the set now mixes runs: each row says which


def test_a_run_whose_numbers_were_all_replaced_is_dropped(comparison):
    """Re-running the same systems twice used to leave the first re-run listed with nothing of its own."""
    def rerun(command: str) -> Comparison:
        newer = Comparison(runs=[{"command": command}])
        again = SetRun(SetSpec("cleaneval", "data/cleaneval"), pages=2, sites=2)
        again.systems = {"sitewise": _system("sitewise", "data/cleaneval", {"x.org": [0.8], "y.org": [0.8]})}
        newer.sets = {"cleaneval": again}
        return newer

    comparison.merge(rerun("first re-run"))
    comparison.merge(rerun("second re-run"))
    assert [run["command"] for run in comparison.runs] == ["sitewise bench compare", "second re-run"]
    assert comparison.sets["cleaneval"].systems["sitewise"].run == 1
    assert comparison.sets["cleaneval"].systems["trafilatura"].run == 0
