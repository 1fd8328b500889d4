"""Naive Bayes training on a tiny labelled fixture, alignment, and the model file round trip."""
import gzip
import json

import numpy as np
import pytest

from sitewise.mss.blockmodel import FORMAT as BLOCK_FORMAT, VERSION as BLOCK_VERSION
from sitewise.mss.model import SHIPPED_MODEL, ModelError, load_model, resolve_model_path, save_model
from sitewise.mss.scorers import PAPER_FEATURES, FeatureCounter, NaiveBayesScorer, fit_logistic
from sitewise.mss.tokenize import tokenize
from sitewise.mss.train import label_tokens, train

ARTICLE = ("The river bridge reopened on Monday after two years of repairs. Engineers replaced the old "
           "steel beams and painted the railings a deep green colour for the town.")


def page(article: str, n: int) -> str:
    return (f'<html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>'
            f'<ul class="links"><li><a href="/a{n}">Read more stories</a></li><li><a href="/b{n}">Weather today</a></li></ul>'
            f'<div class="story"><h1>Bridge {n} reopens</h1><p>{article}</p><p>{article}</p></div>'
            f'<div class="footer"><a href="/c">Contact us</a> | <a href="/p">Privacy policy</a></div></body></html>')


def test_alignment_labels_article_words_and_the_tags_between_them():
    tokens = tokenize(page(ARTICLE, 1))
    labels, coverage = label_tokens(tokens, f"Bridge 1 reopens\n{ARTICLE}\n{ARTICLE}")
    assert coverage == pytest.approx(1.0)
    inside = {w for w, label in zip(tokens.words, labels) if label and w}
    assert {"river", "Engineers", "Bridge"} <= inside
    assert not {"Home", "Privacy", "Weather"} & inside
    between = tokens.features.index("</p>")  # closes the first paragraph, the second follows
    assert labels[between]


def test_naive_bayes_scores_article_tokens_above_navigation():
    pages = [tokenize(page(ARTICLE.replace("river", f"river{n}"), n)) for n in range(6)]
    labels = [label_tokens(t, ARTICLE)[0] for t in pages]
    scorer = NaiveBayesScorer(PAPER_FEATURES, min_count={"mrut": 1}).fit(pages, labels)
    tokens = tokenize(page(ARTICLE, 99))
    scores = scorer.score(tokens)
    words = {w: s for w, s in zip(tokens.words, scores) if w}
    assert words["Engineers"] > 0 > words["Privacy"]
    assert np.all(np.abs(scores) <= 0.5)  # P(in) − 0.5 with no bias


def test_unseen_features_add_nothing_to_the_log_odds():
    tokens = tokenize(page(ARTICLE, 1))
    scorer = NaiveBayesScorer(("trigram",)).fit([tokens], [label_tokens(tokens, ARTICLE)[0]])
    stranger = tokenize("<zzz>qwerty asdfgh zxcvbn</zzz>")
    assert np.allclose(scorer.log_odds(stranger), scorer.prior_)


def test_counter_rejects_mismatched_labels():
    with pytest.raises(ValueError):
        FeatureCounter().add(tokenize("<p>a b</p>"), [True])


def test_calibration_recovers_logistic_weights():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 2))
    y = (x @ [1.5, -0.5] + 0.2 + rng.logistic(size=4000)) > 0
    weights, intercept = fit_logistic(x, y)
    assert weights == pytest.approx([1.5, -0.5], abs=0.15) and intercept == pytest.approx(0.2, abs=0.15)


@pytest.fixture()
def trained(tmp_path):
    pairs = [(page(ARTICLE.replace("bridge", f"bridge{n}"), n), f"Bridge {n} reopens\n{ARTICLE}") for n in range(8)]
    scorer, report = train(pairs, bias=0.05)
    return scorer, report, save_model(scorer, tmp_path / "model.json.gz", report.as_dict())


def test_save_and_load_round_trip(trained):
    scorer, report, path = trained
    assert report.used == 8 and report.calibration_pages == 2
    loaded = load_model(path)
    tokens = tokenize(page(ARTICLE, 42))
    assert np.allclose(loaded.score(tokens), scorer.score(tokens))
    assert loaded.bias == 0.05 and loaded.features == scorer.features
    document = json.loads(gzip.decompress(path.read_bytes()))
    assert document["format"] == "sitewise-mss-naive-bayes" and document["info"]["used"] == 8


def test_a_model_that_cannot_be_written_leaves_no_stray_file(tmp_path):
    from sitewise.mss.blockmodel import write_model_file

    (tmp_path / "model.json.gz").mkdir()  # a folder where the file is meant
    with pytest.raises(IsADirectoryError):
        write_model_file(tmp_path / "model.json.gz", {"format": "any"})
    assert [path.name for path in tmp_path.iterdir()] == ["model.json.gz"]


def test_bad_model_files_are_refused_clearly(tmp_path):
    missing = tmp_path / "none.json.gz"
    with pytest.raises(ModelError, match="no MSS model"):
        load_model(missing)
    with pytest.raises(ModelError, match="no MSS model"):
        resolve_model_path(missing)
    garbage = tmp_path / "garbage.json.gz"
    garbage.write_bytes(b"not gzip")
    with pytest.raises(ModelError, match="gzip"):
        load_model(garbage)
    other = tmp_path / "other.json.gz"
    other.write_bytes(gzip.compress(b'{"format": "something-else"}'))
    with pytest.raises(ModelError, match="not a sitewise MSS model"):
        load_model(other)


def test_configured_model_path_is_found(trained, tmp_path, monkeypatch):
    _, _, path = trained
    monkeypatch.setenv("SITEWISE_MSS_MODEL", str(path))
    assert resolve_model_path() == path
    monkeypatch.setenv("SITEWISE_MSS_MODEL", str(tmp_path / "absent.json.gz"))
    monkeypatch.setenv("SITEWISE_DATA_DIR", str(tmp_path))
    assert resolve_model_path() == SHIPPED_MODEL  # nothing configured exists: the shipped block model
    monkeypatch.setattr("sitewise.mss.model.SHIPPED_MODEL", tmp_path / "not-shipped.json.gz")
    assert resolve_model_path() is None  # and without it, none (the line scorer takes over)


@pytest.mark.parametrize("content", [
    gzip.compress(json.dumps({"format": BLOCK_FORMAT, "version": BLOCK_VERSION, "features": ["an_older_feature"]}).encode()),
    b"half a gzip file",
], ids=["other features", "damaged"])
def test_a_configured_model_that_cannot_be_read_leaves_the_shipped_one_in_use(content, tmp_path, monkeypatch, caplog):
    """A self-trained model outlives an upgrade that changes the block features: it made every fallback
    extraction (every page of a site not learned yet) fail."""
    from sitewise.mss.extractor import extract_mss, load_scorer

    monkeypatch.setenv("SITEWISE_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SITEWISE_MSS_MODEL", raising=False)
    stale = tmp_path / "mss-model.json.gz"
    stale.write_bytes(content)
    assert resolve_model_path() == stale
    assert load_scorer() is load_scorer(SHIPPED_MODEL)
    assert "the shipped MSS model is used instead" in caplog.text and str(stale) in caplog.text
    assert "The river bridge reopened" in extract_mss(page(ARTICLE, 1)).text
    with pytest.raises(ModelError):  # asked for by name, it is refused as before
        load_scorer(stale)
