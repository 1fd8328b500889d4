"""The one decision the server, `sitewise extract` and eval share: rules when they apply, else MSS."""
import json

import pytest

from sitewise.cli import main
from sitewise.learn.learner import SiteLearner
from sitewise.metrics import word_prf
from sitewise.pipeline import blocks_in_text, find_article, rebuild_html

pytestmark = pytest.mark.browser
SITE_URL = "http://gazette.test"


@pytest.fixture(scope="module")
def collected(collected_sites):
    """Every page of the sample site (seed 7, at gazette.test) rendered in Chromium, by path."""
    return collected_sites["gazette.test"][1]


@pytest.fixture(scope="module")
def rules(sample_site, collected):
    train = [collected[p] for p in sample_site.article_paths[:8]]
    return dict(SiteLearner().fit(train).rules_, site="gazette.test", version=1)


def test_learned_site_is_answered_by_rules(sample_site, collected, rules):
    for path in sample_site.article_paths[8:]:
        page = collected[path]
        article = find_article(page, page.html, rules)
        assert article.method == "rules" and article.rule_version == 1
        assert word_prf(article.text, sample_site.pages[path].truth).f1 > 0.95
        # the blocks named are the article's: their text is the answer
        assert "\n".join(page.blocks[i].text for i in article.blocks) == article.text


def test_unlearned_site_falls_back_to_mss(sample_site, collected):
    path = sample_site.article_paths[0]
    article = find_article(collected[path], None, None)
    assert article.method == "mss" and article.fallback_reason == "site not learned"
    assert word_prf(article.text, sample_site.pages[path].truth).f1 > 0.9
    assert article.blocks  # aligned back onto the collected blocks for highlighting


def test_page_the_rules_do_not_fit_falls_back(collected, rules):
    front = collected["/"]  # the listing page: no template of the article pages matches it
    article = find_article(front, front.html, rules)
    assert article.method == "mss" and article.fallback_reason.startswith("rules did not apply")


def test_blocks_in_text_needs_a_long_anchor(collected, sample_site):
    page = collected[sample_site.article_paths[0]]
    assert blocks_in_text(page.blocks, "Share") == []
    assert "<p>" in rebuild_html(page) and page.blocks[0].text in rebuild_html(page)


def test_extract_command_uses_given_rules_then_mss(tmp_path, sample_site, rules, capsys):
    path = sample_site.article_paths[9]
    saved = tmp_path / "page.html"
    saved.write_text(sample_site.pages[path].html, encoding="utf-8")
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(rules))

    assert main(["extract", str(saved), "--url", SITE_URL + path, "--render", "--rules", str(rules_file)]) == 0
    out, err = capsys.readouterr()
    assert "rules (site gazette.test, version 1" in err
    assert word_prf(out, sample_site.pages[path].truth).f1 > 0.95

    assert main(["extract", str(saved), "--no-store", "--json"]) == 0
    out, err = capsys.readouterr()
    answer = json.loads(out)
    assert answer["method"] == "mss" and answer["words"] > 50 and "mss (site not learned)" in err


def test_extract_command_reports_a_missing_file(capsys):
    assert main(["extract", "/no/such/page.html", "--no-store"]) == 2
    assert "no such file" in capsys.readouterr().err
