"""``sitewise bench mss`` end to end on tiny generated sets laid out like ``../shared/data``: out-of-fold
scoring grouped by host, the untouched sets, the one table and its details, and no page text in the
report."""
from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest

from sitewise.bench import mss as bench_mss
from sitewise.bench.mss import host_folds
from sitewise.bench.mss_report import PageResult
from sitewise.cli import main
from sitewise.manifest import Entry

#: Quick-run settings: a tiny model, two folds.
TINY = ["--folds", "2", "--max-iter", "5", "--min-samples-leaf", "1"]
WORDS = ("river bridge council engineers repaired steel beams town green railings market winter harvest "
         "museum opened library readers garden station trains morning evening festival music school").split()
#: Pages per set: (id suffix, host, page type, kind) — kind says what the truth is.
WCXB = [
    ("01", "a.example", "article", "article"), ("02", "a.example", "article", "article"),
    ("03", "b.example", "forum", "article"), ("04", "b.example", "product", "article"),
    ("05", "c.example", "article", "article"), ("06", "c.example", "documentation", "article"),
    ("07", "d.example", "listing", "empty"),  # no main content: the truth file is empty
    ("08", "d.example", "article", "elsewhere"),  # truth not on the page, yet not marked: scored, not trained
    ("09", "e.example", "article", "mismatch"),  # truth_mismatch: left out everywhere
]


def sentence(rng: random.Random, marker: str) -> str:
    return " ".join([marker, *rng.choices(WORDS, k=14)]).capitalize() + "."


def page(rng: random.Random, marker: str) -> tuple[str, str]:
    """(html, truth) of an article page between navigation, related links and a footer."""
    title = f"Story {marker}"
    paragraphs = [" ".join(sentence(rng, f"{marker}x{i}") for _ in range(3)) for i in range(3)]
    links = "".join(f'<li><a href="/{marker}/{i}">Other story {i}</a></li>' for i in range(6))
    html = (f"<html><head><title>{title}</title></head><body><nav><ul>{links}</ul></nav>"
            f"<article><h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs)
            + f'</article><aside class="related"><ul>{links}</ul></aside>'
            "<footer><a href='/about'>About us</a> | <a href='/privacy'>Privacy policy</a></footer></body></html>")
    return html, "\n".join([title, *paragraphs])


def write_set(root: Path, name: str, pages: list[tuple[str, str | None, dict]], rng: random.Random) -> None:
    """A set folder: manifest.jsonl, gzipped HTML, truth text."""
    folder = root / name
    (folder / "html").mkdir(parents=True)
    (folder / "truth").mkdir()
    lines = []
    for suffix, host, extra in pages:
        kind = extra.pop("kind", "article")
        html, truth = page(rng, f"{name[:2]}{suffix}")
        if kind == "empty":
            truth = ""
        elif kind in ("elsewhere", "mismatch"):
            truth = page(rng, "zz" + suffix)[1]
        (folder / "html" / f"{suffix}.html.gz").write_bytes(gzip.compress(html.encode()))
        (folder / "truth" / f"{suffix}.txt").write_text(truth, encoding="utf-8")
        row = {"id": f"{name}/{suffix}", "site": host, "url": f"https://{host}/{suffix}" if host else None,
               "html": f"html/{suffix}.html.gz", "truth": f"truth/{suffix}.txt", "split": None, **extra}
        if kind == "mismatch":
            row["truth_mismatch"] = True
        lines.append(json.dumps(row))
    (folder / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("data")
    rng = random.Random(7)
    write_set(root, "wcxb-dev", [(s, h, {"page_type": t, "kind": k}) for s, h, t, k in WCXB], rng)
    write_set(root, "readability-testpages", [("1", None, {}), ("2", "f.example", {}), ("3", "g.example", {})], rng)
    write_set(root, "cleaneval", [("1", "h.example", {}), ("2", "i.example", {})], rng)
    write_set(root, "l3s-gn1", [("1", "j.example", {}), ("2", "k.example", {})], rng)
    write_set(root, "dragnet", [(str(i), f"d{i}.example", {"official_split": "test" if i % 2 else "train"})
                                for i in range(1, 5)], rng)
    return root


def section(report: str, title: str) -> str:
    """The text of the report's section whose heading starts with ``title``."""
    start = report.index("\n## " + title)
    end = report.find("\n## ", start + 1)
    return report[start : end if end > 0 else None]


def table_rows(text: str) -> dict[str, list[str]]:
    """First cell → the other cells, for every table row in ``text`` (header rows included)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    return rows


@pytest.fixture(scope="module")
def report(data: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("out")
    code = main(["bench", "mss", "--data", str(data), "--no-peers", "--out", str(out / "bench-mss.md"),
                 "--save-model", str(out / "model.json.gz"), *TINY])
    assert code == 0
    return (out / "bench-mss.md").read_text(encoding="utf-8")


def test_one_table_has_every_set_as_a_row_and_every_system_as_a_column(report: str):
    rows = table_rows(section(report, "One table"))
    assert rows["set"][:4] == ["pages", "mss", "mss-line", "mss-baseline"]
    expected_pages = {"wcxb-dev (out of fold)": 8, "readability-testpages (out of fold)": 3, "cleaneval": 2,
                      "l3s-gn1": 2, "dragnet-test": 2}  # the truth_mismatch page and dragnet's train pages left out
    assert {label: int(cells[0]) for label, cells in rows.items() if label != "set"} == expected_pages
    for label in expected_pages:
        scores = [float(cell.strip("*")) for cell in rows[label][1:4]]
        assert all(0.0 <= score <= 1.0 for score in scores)
        assert any(cell.startswith("**") for cell in rows[label][1:4])  # the row's best is marked
    assert "≥ 0.88" in rows["wcxb-dev (out of fold)"]


def test_details_cover_shingles_precision_recall_page_types_and_speed(report: str):
    assert set(table_rows(section(report, "Shingle F1"))) >= {"cleaneval", "dragnet-test"}
    types = table_rows(section(report, "wcxb-dev by page type"))
    assert {label for label in types if label != "set"} == {
        f"wcxb-dev {t}" for t in ("article", "documentation", "forum", "listing", "product")}
    assert types["wcxb-dev article"][0] == "4"  # 01, 02, 05 and the one trained on nothing (08)
    assert re.search(r"\| cleaneval \| [01]\.\d{3} / [01]\.\d{3} \(\d+ empty\)", section(report, "Precision"))
    speed = table_rows(section(report, "Speed"))
    assert {"mss", "mss-line", "mss-baseline"} <= set(speed)
    assert speed["mss"][-1] == "–"  # no trafilatura this run: no ratio to it
    assert "## Where sitewise still loses" in report


def test_training_is_reported_and_a_page_it_cannot_label_is_still_scored(report: str):
    method = section(report, "How this was measured")
    labelled = table_rows(method)
    assert labelled["wcxb-dev"][:2] == ["8", "7"] and labelled["wcxb-dev"][2].endswith(": 1")  # page 08, and why
    assert [label for label in labelled if label.isdigit()] == ["1", "2"]  # one row per fold
    assert "Block model settings given on the command line: `max_iter=5`, `min_samples_leaf=1`." in method
    assert "wcxb-dev/08" in section(report, "The 10 worst pages")


def test_the_report_names_pages_by_id_and_never_quotes_them(report: str, data: Path):
    truth = (data / "wcxb-dev" / "truth" / "01.txt").read_text(encoding="utf-8")
    assert all(line not in report for line in truth.splitlines())
    assert "Other story" not in report
    assert "--no-peers" in report and "--max-iter 5" in report


def test_folds_hold_each_host_out_whole():
    hosts = ["a", "a", "b", "c", "c", "c", None, "d", None]
    entries = [Entry(f"s/{i}", host, None, None, Path("."), {}) for i, host in enumerate(hosts)]
    folds = host_folds(entries, 3)
    assert sorted(i for fold in folds for i in fold) == list(range(len(entries)))
    for fold in folds:
        held = {hosts[i] for i in fold if hosts[i]}
        rest = {hosts[i] for other in folds if other is not fold for i in other if hosts[i]}
        assert not held & rest
    with pytest.raises(ValueError, match="at least 5 hosts"):
        host_folds(entries[:3], 5)


def test_no_page_is_scored_by_a_model_trained_on_its_host(monkeypatch: pytest.MonkeyPatch):
    hosts = ["a", "a", "b", "c", "c", None, "d", "e", "a"]
    pool = [(Entry(f"s/{i}", host, None, None, Path("."), {}), "other" if i == 8 else "scored")
            for i, host in enumerate(hosts)]
    labelled = {entry.id: object() for entry, _ in pool}
    labelled["s/3"] = "truth not found in page"
    fits: list[list[object]] = []  # the pages each model was fitted on; a model is its number here
    scored: list[tuple[int, list[str]]] = []  # (model, ids of the pages it scored)

    def fit(pages, settings):
        fits.append(list(pages))
        return len(fits) - 1, {"pages": len(pages), "blocks": 0, "seconds": 0.0}

    def score(pages, model, systems):
        scored.append((model, [entry.id for entry, _ in pages]))
        return [PageResult(entry.id, label, None, {}) for entry, label in pages]

    monkeypatch.setattr(bench_mss, "_fit", fit)
    monkeypatch.setattr(bench_mss, "score_pages", score)
    results = bench_mss._out_of_fold(pool, {"scored"}, labelled, 3, {}, {}, {})
    assert [r.id for r in results] == [f"s/{i}" for i in range(8)]  # each page of the scored set once, in order
    host = {entry.id: entry.site or entry.id for entry, _ in pool}
    trained_on = {id(page): page_id for page_id, page in labelled.items()}
    for model, ids in scored:
        seen = {host[trained_on[id(page)]] for page in fits[model]}
        assert not seen & {host[i] for i in ids}
        assert labelled["s/3"] not in fits[model]  # a page it cannot label is not trained on ...
    assert any("s/3" in ids for _, ids in scored)  # ... yet scored
    assert any(labelled["s/8"] in pages for pages in fits)  # another set's pages train, unscored


def test_a_saved_model_scores_the_untouched_sets_without_training(report: str, data: Path, tmp_path: Path):
    model = next(Path(p) for p in re.findall(r"--save-model (\S+)", report))
    code = main(["bench", "mss", "--data", str(data), "--no-peers", "--sets", "l3s-gn1", "--model", str(model),
                 "--out", str(tmp_path / "report.md")])
    assert code == 0
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"the model file `{model}`" in text
    assert set(table_rows(section(text, "One table"))) == {"set", "l3s-gn1"}
    assert "fold |" not in text  # nothing trained


def test_bad_choices_are_clear_errors(data: Path, tmp_path: Path, capsys: pytest.CaptureFixture):
    assert main(["bench", "mss", "--data", str(data), "--sets", "nope", "--out", str(tmp_path / "r.md")]) == 2
    assert "unknown set(s) nope" in capsys.readouterr().err
    assert main(["bench", "mss", "--data", str(data), "--folds", "1", "--out", str(tmp_path / "r.md")]) == 2
    assert not (tmp_path / "r.md").exists()
    capsys.readouterr()
    assert main(["bench", "mss", "--data", str(data), "--limit", "0", "--out", str(tmp_path / "r.md")]) == 2
    assert capsys.readouterr().err == "sitewise bench: error: --limit must be at least 1\n"
    assert main(["bench", "mss", "--data", str(data), "--out", str(tmp_path), *TINY]) == 2  # before any training
    assert capsys.readouterr().err == f"sitewise bench: error: --out {tmp_path} is a folder; give a file\n"


def test_peers_run_side_by_side_with_a_speed_ratio(data: Path, tmp_path: Path):
    pytest.importorskip("trafilatura")
    code = main(["bench", "mss", "--data", str(data), "--sets", "cleaneval", "--out", str(tmp_path / "r.md"), *TINY])
    assert code == 0
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "trafilatura" in table_rows(section(text, "One table"))["set"]
    assert table_rows(section(text, "Speed"))["trafilatura"][-1] == "1.00"


def test_the_fallbacks_confidence_is_reported_where_its_model_estimates_it(report: str, data: Path, tmp_path: Path):
    import numpy as np

    from sitewise.mss.confidence import READING_FACTS, AnswerConfidence
    from sitewise.mss.model import load_model

    assert "## How far to trust an answer" not in report  # the bench's own model has no estimate
    model = load_model(next(Path(p) for p in re.findall(r"--save-model (\S+)", report)))
    rng = np.random.default_rng(0)
    facts = rng.uniform(0, 1, size=(50, len(READING_FACTS)))
    model.confidence_ = AnswerConfidence().fit(facts, facts[:, 0])
    estimating = model.save(tmp_path / "estimating.json.gz")
    code = main(["bench", "mss", "--data", str(data), "--no-peers", "--sets", "wcxb-dev", "l3s-gn1",
                 "--model", str(estimating), "--out", str(tmp_path / "report.md"), *TINY])
    assert code == 0
    rows = table_rows(section((tmp_path / "report.md").read_text(encoding="utf-8"), "How far to trust an answer"))
    assert set(rows) >= {"set", "wcxb-dev (out of fold)", "l3s-gn1"}  # fold models answer with it too
    answers, mean_confidence, mean_f1, rho, *bands = rows["l3s-gn1"]
    assert answers == "2" and 0 <= float(mean_confidence) <= 1 and len(bands) == 4
    assert sum(int(band.split(":")[0]) for band in bands) == 2  # every answer in one band
