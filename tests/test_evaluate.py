"""The eval harness: per-site protocol, scoring and reports (a tiny learner defined here), and a real
all-text run in Chromium over the generated sample site."""
import gzip
import json

import pytest

import sitewise
from comments_support import URL as BLOG_URL, blog_page
from learn_support import static_page
from sitewise import extractors
from sitewise.collect import stored_url
from sitewise.evaluate import evaluate, render_report, write_outputs
from sitewise.pipeline import find_article


def write_manifest(tmp_path, site, pages):
    """A manifest in ../shared/data's format for the given sample-site pages (html gzipped, truth plain)."""
    (tmp_path / "html").mkdir()
    (tmp_path / "truth").mkdir()
    lines = []
    for number, (page, split) in enumerate(pages):
        (tmp_path / "html" / f"{number}.html.gz").write_bytes(gzip.compress(page.html.encode("utf-8")))
        (tmp_path / "truth" / f"{number}.txt").write_text(page.truth, encoding="utf-8")
        lines.append({"id": f"sample/{number}", "site": "gazette.test", "url": f"http://gazette.test{page.path}",
                      "html": f"html/{number}.html.gz", "truth": f"truth/{number}.txt", "split": split})
    (tmp_path / "manifest.jsonl").write_text("\n".join(json.dumps(line) for line in lines))
    return tmp_path / "manifest.jsonl"


class RememberTitles:
    """A per-site learner for the test: its output names the training pages fit() was given."""

    name = "remember"
    needs_page = False
    per_site = True

    def fit(self, documents):
        self.seen_ = sorted(d.id for d in documents)
        return self

    def extract(self, document):
        return " ".join(self.seen_)


@pytest.fixture
def remember_extractor(monkeypatch):
    monkeypatch.setitem(extractors.REGISTRY, "remember", f"{__name__}:RememberTitles")


def test_per_site_learners_fit_on_train_and_score_test(tmp_path, sample_site, remember_extractor):
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:4]]
    manifest = write_manifest(tmp_path, "gazette.test", [(articles[0], "train"), (articles[1], "train"),
                                                         (articles[2], "test"), (articles[3], "test")])
    result = evaluate(manifest, "remember", progress=False)
    assert [p.id for p in result.pages] == ["sample/2", "sample/3"]  # train pages are never scored
    assert all(p.text == "sample/0 sample/1" for p in result.pages)
    assert result.summary().pages == 2


def test_where_selects_pages_by_any_manifest_field_and_keeps_training_pages(tmp_path, sample_site, remember_extractor):
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:4]]
    manifest = write_manifest(tmp_path, "gazette.test", [(articles[0], "train"), (articles[1], "test"),
                                                         (articles[2], "test"), (articles[3], "test")])
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    for line, subset in zip(lines, ["dev", "dev", "final", "dev"]):
        line["subset"] = subset
    manifest.write_text("\n".join(json.dumps(line) for line in lines))
    result = evaluate(manifest, "remember", where={"subset": "dev"}, progress=False)
    assert [p.id for p in result.pages] == ["sample/1", "sample/3"]
    assert all(p.text == "sample/0" for p in result.pages)  # the training page stays, whatever its subset
    assert evaluate(manifest, "remember", where={"subset": "none"}, progress=False).pages == []


def test_where_reads_values_other_than_text_as_the_manifest_writes_them(tmp_path, sample_site, remember_extractor):
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:3]]
    manifest = write_manifest(tmp_path, "gazette.test", [(page, "test") for page in articles])
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    lines[0].update(truth_mismatch=True, year=2019)
    lines[1].update(truth_mismatch=False, year=2020)
    manifest.write_text("\n".join(json.dumps(line) for line in lines))

    def scored(**where):
        return [p.id for p in evaluate(manifest, "remember", where=where, progress=False).pages]

    assert scored(truth_mismatch="true") == ["sample/0"]
    assert scored(truth_mismatch="false") == ["sample/1"]
    assert scored(truth_mismatch="null", split="test") == ["sample/2"]  # an absent field is null
    assert scored(year="2020") == ["sample/1"]


@pytest.mark.parametrize(
    "group_by, learned_from",
    [
        ("registrable", ["sample/0 sample/1", "sample/0 sample/1", "sample/2"]),  # as the server keys sites
        ("host", ["sample/0", "sample/1", "sample/2"]),  # as the manifest's per-site split was made
        ("brand", ["sample/0 sample/1 sample/2"] * 3),  # a field names the site: a sister domain joined
    ],
)
def test_sites_are_grouped_by_registrable_domain_host_or_field(tmp_path, sample_site, remember_extractor, group_by, learned_from):
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:6]]
    manifest = write_manifest(tmp_path, "gazette.test", [(page, "train" if n < 3 else "test") for n, page in enumerate(articles)])
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    for line, host in zip(lines, ["news.gazette.co.uk", "gazette.co.uk", "gazette.com"] * 2):
        line.update(site=host, brand="gazette")
    manifest.write_text("\n".join(json.dumps(line) for line in lines))
    result = evaluate(manifest, "remember", group_by=group_by, progress=False)
    assert [p.text for p in result.pages] == learned_from
    with pytest.raises(ValueError, match="no page of"):
        evaluate(manifest, "remember", group_by="publisher", progress=False)


def test_reports_are_written(tmp_path, sample_site, remember_extractor):
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:2]]
    manifest = write_manifest(tmp_path, "gazette.test", [(articles[0], "train"), (articles[1], "test")])
    result = evaluate(manifest, "remember", progress=False)
    report = write_outputs(result, tmp_path / "out")
    assert "bag of words" in report.read_text()
    predictions = [json.loads(l) for l in (tmp_path / "out" / "predictions.jsonl").read_text().splitlines()]
    assert predictions == [{"id": "sample/1", "text": "sample/0"}]
    assert "f1" in json.loads((tmp_path / "out" / "scores.jsonl").read_text())


@pytest.mark.browser
def test_all_text_keeps_the_article(tmp_path, sample_site):
    pages = [(sample_site.pages[p], None) for p in sample_site.article_paths[:3]]
    manifest = write_manifest(tmp_path, "gazette.test", pages)
    result = evaluate(manifest, "all-text", cache_dir=None, progress=False, workers=1)
    summary = result.summary()
    assert summary.pages == 3 and summary.empty == 0
    assert summary.recall > 0.97  # the collector keeps the article's words…
    assert summary.precision < 0.9  # …and the boilerplate, which all-text cannot drop
    assert all(p.error is None for p in result.pages)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--extractor", "mss", "--part", "body"], "--part body: only rules, sitewise tell the heading from the body"),
        (["--extractor", "mss", "--where", "subset"], "--where takes FIELD=VALUE, not 'subset'"),
        (["--extractor", "mss", "--limit", "-1"], "--limit must be at least 1"),  # (a slice: all pages but one)
        (["--extractor", "mss", "--workers", "0"], "--workers must be at least 1"),
        (["--extractor", "mss", "--out", "{manifest}"], "--out {manifest} is a file; give a folder"),
    ],
    ids=["part body", "where", "limit", "workers", "out a file"],
)
def test_bad_arguments_are_refused_before_anything_runs(args, message, tmp_path, sample_site, capsys):
    from sitewise.cli import main

    articles = [sample_site.pages[p] for p in sample_site.article_paths[:2]]
    manifest = write_manifest(tmp_path, "gazette.test", [(articles[0], "train"), (articles[1], "test")])
    args = [arg.format(manifest=manifest) for arg in args]
    before = manifest.read_bytes()
    assert main(["eval", "--manifest", str(manifest), "--out", str(tmp_path / "o"), *args]) == 2  # bad arguments
    assert capsys.readouterr().err == f"sitewise eval: error: {message.format(manifest=manifest)}\n"
    assert not (tmp_path / "o").exists() and manifest.read_bytes() == before  # refused before anything ran or was written


class RememberURL:
    """An extractor for the test: its output is the URL it was handed."""

    name = "remember-url"
    needs_page = False
    per_site = False

    def fit(self, documents):
        return self

    def extract(self, document):
        return document.url or "no address"


def test_extractors_get_the_pages_own_address_or_none(tmp_path, sample_site, monkeypatch):
    # An address is a signal to an extractor (the fallback reads its depth and slug): a page stored without
    # one must not be handed the stand-in it is rendered at.
    monkeypatch.setitem(extractors.REGISTRY, "remember-url", f"{__name__}:RememberURL")
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:2]]
    manifest = write_manifest(tmp_path, "gazette.test", [(articles[0], "test"), (articles[1], "test")])
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    del lines[1]["url"]
    manifest.write_text("\n".join(json.dumps(line) for line in lines))
    texts = {p.id: p.text for p in evaluate(manifest, "remember-url", progress=False).pages}
    assert texts == {"sample/0": f"http://gazette.test{articles[0].path}", "sample/1": "no address"}


def test_the_fallback_reads_no_stand_in_address():
    html = blog_page()
    no_address = find_article(None, html, None).text
    assert find_article(None, html, None, url=BLOG_URL).text != no_address  # (an address is a signal on this page)
    rendered = static_page(stored_url(None, "gazette.test", "set/1"), html)
    assert find_article(rendered, html, None).text == no_address
    assert find_article(None, html, None, url=stored_url(None, "gazette.test", "set/2")).text == no_address


def test_a_page_that_could_not_be_rendered_is_answered_from_its_html():
    from sitewise.evaluate import extract_all
    from sitewise.extractors import Document

    story = "The harbour cranes lifted their first containers on Monday, the port's director said. " * 6
    html = (f"<html><head><title>Cranes</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<article><h1>Cranes</h1><p>{story}</p></article></body></html>")
    document = Document(id="p", url="http://harbour.test/cranes", html=html)
    errors = {"p": "render failed: timeout"}
    (answered,) = extract_all("sitewise", [document], [], {"p": story}, set(), errors, progress=False)
    assert answered.error is None and answered.score.f1 > 0.9 and answered.info["unrendered"] == "render failed: timeout"
    (refused,) = extract_all("all-text", [document], [], {"p": story}, set(), errors, progress=False)
    assert refused.text == "" and refused.error == "render failed: timeout"  # it reads rendered blocks only


def test_the_fallbacks_body_leaves_out_its_headline_as_extracts_json_does():
    from sitewise.extractors import Document
    from sitewise.pipeline import SitewiseExtractor

    story = "The harbour cranes lifted their first containers on Monday, the port director said. "
    paragraphs = "".join(f"<p>{story * k} Work went on at berth {k}.</p>" for k in range(2, 6))
    html = (f"<html><head><title>Cranes return to the harbour</title></head><body><nav><a href='/'>Home</a> "
            f"<a href='/news'>News</a></nav><article><h1>Cranes return to the harbour</h1>{paragraphs}</article>"
            "<footer>Copyright</footer></body></html>")
    document = Document(id="p", url="http://harbour.test/cranes-return-to-the-harbour", html=html)
    article = SitewiseExtractor().fit([]).extract(document)
    body = SitewiseExtractor(part="body").fit([]).extract(document)
    assert article.splitlines()[0] == "Cranes return to the harbour"
    assert body == "\n".join(article.splitlines()[1:]) == json.loads(sitewise.extract(html, output="json"))["body"]


def test_pages_without_truth_are_counted_never_extracted(tmp_path, sample_site, monkeypatch):
    # A single-page extractor scores only pages with truth: a per-site split's train page without one is no
    # exception (it was extracted, counted against --limit and scored nothing), and the report counts them all.
    monkeypatch.setitem(extractors.REGISTRY, "remember-url", f"{__name__}:RememberURL")
    articles = [sample_site.pages[p] for p in sample_site.article_paths[:4]]
    manifest = write_manifest(tmp_path, "gazette.test", [(article, split) for article, split in
                                                         zip(articles, ["train", None, "test", None])])
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    lines[0]["truth"] = lines[1]["truth"] = None
    manifest.write_text("\n".join(json.dumps(line) for line in lines))
    result = evaluate(manifest, "remember-url", progress=False)
    assert [p.id for p in result.pages] == ["sample/2", "sample/3"]
    assert "Pages scored: 2 (left out: 0 whose truth is not in the page; 2 without truth)" in render_report(result)
    assert [p.id for p in evaluate(manifest, "remember-url", progress=False, limit=1).pages] == ["sample/2"]
