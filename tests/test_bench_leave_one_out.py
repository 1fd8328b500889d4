"""``sitewise bench learn``'s leave-one-out section (sitewise.bench.leave_one_out): which sites it scores,
each page by rules learnt from its site's other pages, and the report's table."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitewise.bench import leave_one_out as loo
from sitewise.extractors import Document
from sitewise.manifest import Entry
from sitewise.metrics import word_prf
from sitewise.mss.model import SHIPPED_MODEL


def write_manifest(folder: Path, pages: list[tuple[str, str | None]]) -> Path:
    """A manifest of (host, truth) pages; a None truth: a page without one."""
    folder.mkdir(parents=True)
    (folder / "truth").mkdir()
    with open(folder / "manifest.jsonl", "w", encoding="utf-8") as manifest:
        for number, (host, truth) in enumerate(pages):
            line = {"id": f"set/{number}", "site": host, "url": f"https://{host}/{number}", "split": None}
            if truth is not None:
                (folder / "truth" / f"{number}.txt").write_text(truth, encoding="utf-8")
                line["truth"] = f"truth/{number}.txt"
            manifest.write(json.dumps(line) + "\n")
    return folder


def test_sites_of_a_few_pages_are_chosen_by_registrable_domain(tmp_path):
    folder = write_manifest(tmp_path / "set", [
        ("news.example.co.uk", "a"), ("www.example.co.uk", "b"), ("example.co.uk", "c"),  # one site, three hosts
        ("blog.test", "d"), ("blog.test", "e"), ("blog.test", None),  # two pages with truth: too few
        ("shop.test", "f"), ("shop.test", "g"), ("shop.test", "h"), ("shop.test", "i"),
    ])
    sites = loo.sites_of(folder)
    assert {site: [e.id for e in entries] for site, entries in sites.items()} == {
        "example.co.uk": ["set/0", "set/1", "set/2"], "shop.test": ["set/6", "set/7", "set/8", "set/9"]}
    assert list(loo.sites_of(folder, limit_sites=1)) == ["example.co.uk"]


def left_out(page_type: str, rules: float, sitewise: float, *, confident: bool = True, overruled: bool = False) -> loo.LeftOut:
    score = lambda f1: word_prf("a b", "a b") if f1 == 1 else word_prf("a", "a b") if f1 else word_prf("", "a")  # 1, 0.667, 0
    return loo.LeftOut("set/1", page_type, confident, overruled, score(rules), score(sitewise), score(rules),
                       score(sitewise), None)


def test_the_table_has_a_row_per_page_type_and_one_for_all():
    lines = loo.leave_one_out_lines("wcxb-dev", [
        left_out("article", 1, 1), left_out("product", 0, 0.5, overruled=True), left_out("product", 0, 0.5, confident=False),
    ], sites=2)
    rows = [line for line in lines if line.startswith("| ")]
    assert rows[0].startswith("| page type | pages | rules confident | overruled |") and "trafilatura" not in rows[0]
    assert rows[1] == "| article | 1 | 1 | 0 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |"
    assert rows[2] == "| product | 2 | 1 | 1 | 0.000 | 1.000 | 0.500 | 0.667 | 0.000 | 0.667 |"
    assert rows[3].startswith("| all | 3 | 2 | 1 |")
    assert lines[-2].startswith("**wcxb-dev: 2 sites, 3 pages: sitewise 0.778, unchecked 0.333, fallback alone 0.778; ")
    assert sorted(lines[-2].split("answered by ")[1].rstrip(".*").split(", ")) == ["fallback 1", "overruled 1", "rules 1"]


@pytest.mark.browser
def test_each_page_is_scored_by_rules_learnt_from_the_others(collected_sites, tmp_path):
    site, collected = collected_sites["gazette.test"]
    paths = site.article_paths[:6]
    pairs = []
    for number, path in enumerate(paths):
        (tmp_path / f"{number}.txt").write_text(site.pages[path].truth, encoding="utf-8")
        entry = Entry(f"gazette/{number}", "gazette.test", f"http://gazette.test{path}", None, tmp_path,
                      {"truth": f"{number}.txt", "page_type": "article"}, "registrable")
        page = collected[path]
        pairs.append((entry, Document(entry.id, entry.url, page.html, page=page)))
    scored = loo.score_left_out(pairs, SHIPPED_MODEL)
    assert [page.id for page in scored] == [f"gazette/{n}" for n in range(6)]
    answered = [page for page in scored if page.answered_by_rules]
    assert len(answered) >= 4
    for page in answered:  # the site's one layout: its template is learnt from 3 pages or more, and stands
        assert not page.overruled and page.sitewise == page.rules == page.unchecked and page.sitewise.f1 > 0.95
    for page in scored:
        assert page.answered_by_rules or page.sitewise == page.unchecked == page.fallback
        assert page.fallback.f1 > 0.8 and page.trafilatura is None
