"""MSS end to end: an article page, a listing page, the registered extractors, training and self-training."""
import gzip
import json

import pytest

from sitewise.cli import main
from sitewise.extractors import Document, get_extractor
from sitewise.metrics import word_prf
from sitewise.mss import MSS, extract_mss
from sitewise.mss.model import load_model
from sitewise.mss.scorers import BaselineScorer
from sitewise.mss.selftrain import self_train
from sitewise.sample_site import generate_site

PARAGRAPHS = [
    "The harbour authority approved a plan on Tuesday to deepen the main channel, letting larger cargo "
    "ships reach the old docks for the first time in forty years.",
    "Dredging will start in the spring and last about eighteen months, the authority said, with work "
    "paused during the summer so that fishing boats can use the channel.",
    "Local businesses welcomed the decision. Owners of the warehouses along the quay said new traffic "
    "would bring jobs back to a part of town that has been quiet for a long time.",
]
ARTICLE_PAGE = f"""<!DOCTYPE html><html><head><title>Harbour channel to be deepened</title>
<script>var tracking = {{"id": 1}};</script><style>.x {{ color: red }}</style></head><body>
<div id="header"><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a></div>
<nav><ul><li><a href="/a">Politics</a></li><li><a href="/b">Business</a></li><li><a href="/c">Culture</a></li></ul></nav>
<div class="content"><h1>Harbour channel to be deepened</h1><p class="byline">By Ada Brook</p>
{''.join(f'<p>{p}</p>' for p in PARAGRAPHS)}</div>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/1">Storm closes coast road</a></li><li><a href="/2">Council budget vote</a></li></ul></div>
<div id="comments"><p>What about the noise? Nobody asked the people who live on the quay about this plan at all.</p></div>
<div class="footer"><a href="/about">About us</a> | <a href="/privacy">Privacy</a> | Copyright 2024</div>
</body></html>"""
LISTING_PAGE = "<html><body><h1>Latest news</h1>" + "".join(
    f'<div class="teaser"><h2><a href="/story/{n}">Story number {n} about the harbour</a></h2>'
    f"<p>A short teaser for story {n}, a line or so long …</p></div>" for n in range(12)
) + "</body></html>"


@pytest.mark.parametrize("pipeline", [MSS(), MSS(BaselineScorer())])
def test_article_page_gives_the_article_and_not_the_furniture(pipeline):
    result = pipeline.extract(ARTICLE_PAGE)
    assert result.found and not result.reason
    for paragraph in PARAGRAPHS:
        assert paragraph in result.text
    for junk in ("Politics", "Most read", "noise", "Privacy", "tracking"):
        assert junk not in result.text
    assert result.span is not None and result.span[0] < result.span[1] and result.score > 0
    assert "<p>" in result.html


def test_listing_and_empty_pages_give_nothing():
    for html in (LISTING_PAGE, "", "<html><body></body></html>", "<p>Page not found</p>"):
        result = extract_mss(html, BaselineScorer())
        assert result.text == "" and result.reason


def test_registered_extractors_work_on_documents():
    document = Document(id="fixture", html=ARTICLE_PAGE)
    for name in ("mss-baseline", "mss"):
        extractor = get_extractor(name)
        assert extractor.needs_page is False and extractor.per_site is False
        text, info = extractor.extract_detailed(document)
        assert PARAGRAPHS[1] in text and info["method"] == name
    assert get_extractor("mss-baseline").extract(Document(id="none")) == ""
    with pytest.raises(ValueError):
        get_extractor("mss-baseline", clean_bogus="1")
    hr_cut = get_extractor("mss-baseline", hr="cut", clean_figure="yes", min_paragraph_words="0")
    assert hr_cut.pipeline.hr == "cut" and hr_cut.pipeline.clean.figure and hr_cut.pipeline.min_paragraph_words == 0


def training_set(root):
    """A training set of the sample site's articles (manifest, HTML, truth) in ``root``."""
    site = generate_site(seed=3)
    (root / "html").mkdir(parents=True)
    (root / "truth").mkdir()
    with (root / "manifest.jsonl").open("w") as manifest:
        for n, page in enumerate(p for p in site.pages.values() if p.article):
            (root / "html" / f"{n}.html.gz").write_bytes(gzip.compress(page.html.encode()))
            (root / "truth" / f"{n}.txt").write_text(page.truth)
            manifest.write(json.dumps({"id": f"set/{n}", "site": "gazette", "url": None, "html": f"html/{n}.html.gz",
                                       "truth": f"truth/{n}.txt", "split": None, "official_split": "train"}) + "\n")
    return root


def test_train_mss_command_and_supervised_extraction(tmp_path, capsys):
    root = training_set(tmp_path / "set")
    out = tmp_path / "model.json.gz"
    assert main(["train-mss", "--manifest", str(root), "--split", "train", "--out", str(out)]) == 0
    assert "answers' confidence: estimated from" in capsys.readouterr().out
    model = load_model(out)
    assert model.confidence_ is not None
    other = generate_site(seed=11)
    pages = [p for p in other.pages.values() if p.article]
    scores = [word_prf(extract_mss(p.html, model).text, p.truth).f1 for p in pages]
    assert min(scores) > 0.8
    assert extract_mss(other.pages["/"].html, model).text == ""  # the index lists articles, it is not one
    assert main(["train-mss", "--manifest", str(root), "--split", "test", "--out", str(out)]) == 2  # no pages


def test_train_mss_never_replaces_the_model_in_use_by_default(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SITEWISE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("SITEWISE_MSS_MODEL", raising=False)
    root = training_set(tmp_path / "set")
    with pytest.raises(SystemExit) as refused:  # no --out: nothing written, least of all where extract looks
        main(["train-mss", "--manifest", str(root)])
    assert refused.value.code == 2 and "required: --out" in capsys.readouterr().err
    assert not (tmp_path / "data").exists()

    elsewhere = tmp_path / "mine.json.gz"
    assert main(["train-mss", "--manifest", str(root), "--limit", "6", "--out", str(elsewhere), "--no-confidence"]) == 0
    assert load_model(elsewhere).confidence_ is None
    assert f"not this model; to use it: --mss-model {elsewhere} (extract) or SITEWISE_MSS_MODEL={elsewhere}" in capsys.readouterr().out

    configured = tmp_path / "data" / "mss-model.json.gz"  # asked for outright: said loudly
    assert main(["train-mss", "--manifest", str(root), "--limit", "6", "--out", str(configured), "--no-confidence"]) == 0
    assert "NOTE: sitewise.extract, the commands and the server now use this model instead of the shipped one" in capsys.readouterr().out


def test_train_mss_without_its_data_says_what_to_pass(tmp_path, capsys):
    assert main(["train-mss", "--data", str(tmp_path), "--out", str(tmp_path / "m.json.gz")]) == 2
    err = capsys.readouterr().err
    assert f"no training set at {tmp_path / 'wcxb-dev'}" in err and "pass --data FOLDER" in err and "--manifest FILE" in err


@pytest.mark.parametrize("args, message", [(["--out", "{folder}"], "--out {folder} is a folder; give a file"),
                                           (["--out", "{folder}/m.json.gz", "--limit", "-1"], "--limit must be at least 1")],
                         ids=["out folder", "limit"])
def test_train_mss_refuses_bad_arguments_before_training(args, message, tmp_path, monkeypatch, capsys):
    import sitewise.mss.blocktrain

    def never(*args, **kwargs):
        raise AssertionError("trained")

    monkeypatch.setattr(sitewise.mss.blocktrain, "train_block_model", never)
    root = training_set(tmp_path / "set")
    assert main(["train-mss", "--manifest", str(root), *(arg.format(folder=tmp_path) for arg in args)]) == 2
    assert capsys.readouterr().err == f"sitewise train-mss: error: {message.format(folder=tmp_path)}\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["set"]  # nothing written


def test_self_training_writes_a_model_only_when_it_beats_the_one_in_use(tmp_path):
    site = generate_site(seed=5)
    pages = [(p.html, p.truth, f"https://paper{n % 6}.test/story/{n}")  # six learned sites
             for n, p in enumerate(p for p in site.pages.values() if p.article)]
    skipped = self_train(pages[:3], tmp_path / "few.json.gz")
    assert skipped.path is None and not (tmp_path / "few.json.gz").exists()
    small = {"min_samples_leaf": 5, "max_iter": 30}
    finds_nothing = BaselineScorer(word_score=-1.0)
    better = self_train(pages, tmp_path / "model.json.gz", min_pages=10, current=finds_nothing, base=None, **small)
    assert better.path == tmp_path / "model.json.gz" and better.held_back_pages > 0
    assert better.candidate_f1 > better.current_f1
    model = load_model(better.path)
    assert model.info_["source"] == "self-training"
    # the same pages again teach nothing better than the model they made: it is not rewritten
    same = self_train(pages, tmp_path / "again.json.gz", min_pages=10, current=model, base=None, **small)
    assert same.path is None and not (tmp_path / "again.json.gz").exists()
    assert same.candidate_f1 == pytest.approx(same.current_f1)


def test_long_class_names_are_not_remembered_across_pages():
    # QA's pages: 40 distinct 50 KB class strings a page stayed in the name cache, 2 MB a page for good
    from sitewise.mss import blocks

    long_names = [f"story-{i} " + "x" * blocks.MAX_CACHED_NAME_CHARS for i in range(3)]
    page = ARTICLE_PAGE.replace('<div class="content">', "".join(f'<div class="{names}">' for names in long_names))
    assert "Dredging will start" in extract_mss(page).text
    assert not any(names.strip().lower() in blocks._NAME_CACHE for names in long_names)
