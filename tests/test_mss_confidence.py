"""The fallback's confidence in its answer: the reading's facts, the calibrated estimate, its training
and its place in the model file and the answers."""
import gzip
import json

import numpy as np
import pytest

from sitewise.mss.blockmodel import BlockModel
from sitewise.mss.blocktrain import fit_answer_confidence, labelled_page, train_block_model
from sitewise.mss.confidence import READING_FACTS, AnswerConfidence, reading_facts
from sitewise.mss.extractor import extract_mss
from sitewise.mss.model import ModelError, load_model
from sitewise.sample_site import generate_site

from test_mss_blockmodel import SMALL
from test_mss_extract import ARTICLE_PAGE


def fact(name):
    return READING_FACTS.index(name)


def test_a_readings_facts_say_how_sure_it_was_and_what_it_left():
    probabilities = np.array([0.1, 0.9, 0.6, 0.95, 0.8, 0.2])
    words = np.array([10, 50, 20, 30, 40, 10])
    keep = np.array([False, True, True, True, False, False])
    facts = reading_facts(probabilities, words, keep, section=False, titled=True)
    assert facts.shape == (len(READING_FACTS),)
    assert facts[fact("kept_probability")] == pytest.approx((0.9 * 50 + 0.6 * 20 + 0.95 * 30) / 100)
    assert facts[fact("kept_unsure_share")] == pytest.approx(20 / 100)  # the 0.6 block
    assert facts[fact("left_plausible_share")] == pytest.approx(40 / 140)  # the 0.8 block left out
    assert facts[fact("page_unsure_share")] == pytest.approx(20 / 160)
    assert facts[fact("kept_page_share")] == pytest.approx(100 / 160)
    assert facts[fact("kept_runs_log")] == pytest.approx(np.log1p(1))
    assert (facts[fact("section")], facts[fact("titled")]) == (0.0, 1.0)
    split = reading_facts(probabilities, words, np.array([True, False, True, False, True, False]), section=True,
                          titled=False)
    assert split[fact("kept_runs_log")] == pytest.approx(np.log1p(3)) and split[fact("section")] == 1.0
    nothing = reading_facts(probabilities, words, np.zeros(6, dtype=bool), section=False, titled=False)
    assert nothing[fact("kept_probability")] == 0.0 and nothing[fact("kept_words_log")] == 0.0


def synthetic_readings(count=600, seed=0):
    """Readings whose answers' F1 rises with how sure the model was of the kept words, noisily."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(count, len(READING_FACTS)))
    f1 = np.clip(X[:, fact("kept_probability")] - 0.5 * X[:, fact("left_plausible_share")]
                 + rng.normal(0, 0.1, count) + 0.3, 0, 1)
    return X, f1


def test_the_estimate_follows_the_facts_and_is_calibrated():
    X, f1 = synthetic_readings()
    estimate = AnswerConfidence().fit(X, f1)
    assert estimate.coef_[fact("kept_probability")] > 0 > estimate.coef_[fact("left_plausible_share")]
    sure, unsure = X[0].copy(), X[0].copy()
    sure[fact("kept_probability")], unsure[fact("kept_probability")] = 0.95, 0.2
    assert estimate.predict(sure)[0] > estimate.predict(unsure)[0]
    predicted = estimate.predict(X)
    assert ((0 <= predicted) & (predicted <= 1)).all()
    # calibrated: readings given about the same estimate score about that on average
    for low in (0.2, 0.4, 0.6, 0.8):
        given = (predicted >= low) & (predicted < low + 0.2)
        assert abs(predicted[given].mean() - f1[given].mean()) < 0.02
    held_out_X, held_out_f1 = synthetic_readings(seed=1)
    assert np.corrcoef(estimate.predict(held_out_X), held_out_f1)[0, 1] > 0.7


def test_an_estimate_needs_readings_that_differ():
    X, f1 = synthetic_readings(count=10)
    with pytest.raises(ValueError, match="differ"):
        AnswerConfidence().fit(X, np.full(10, 0.9))
    with pytest.raises(ValueError, match="facts"):
        AnswerConfidence().fit(X[:, :3], f1)


@pytest.fixture(scope="module")
def trained():
    """A block model with its confidence estimate, trained on six generated sites (five host folds)."""
    pages = []
    for seed in range(1, 7):
        site = generate_site(seed=seed, stories=3, features=1)
        for path, page in site.pages.items():
            pages.append((page.html, page.truth if page.article else "", f"https://site{seed}.test{path}"))
    model, report = train_block_model(pages, confidence=True, **SMALL)
    assert report.used == len(pages)
    return model


def test_a_model_trained_with_confidence_estimates_its_answers(trained):
    assert trained.confidence_ is not None and trained.confidence_.info_["readings"] > 10
    result = extract_mss(ARTICLE_PAGE, trained, url="https://news.test/2024/harbour")
    assert result.found and 0.0 <= result.confidence <= 1.0
    assert result.confidence == round(result.confidence, 3)
    assert extract_mss("<html><body><p>Hi.</p></body></html>", trained).confidence is None  # nothing found


def test_the_estimate_travels_in_the_model_file_and_a_file_without_one_still_loads(trained, tmp_path):
    loaded = load_model(trained.save(tmp_path / "m.json.gz"))
    result, again = extract_mss(ARTICLE_PAGE, trained), extract_mss(ARTICLE_PAGE, loaded)
    assert again.confidence == result.confidence is not None
    assert (tmp_path / "m.json.gz").read_bytes() == loaded.save(tmp_path / "n.json.gz").read_bytes()
    document = trained.to_dict()
    del document["confidence"]  # a model file from before the estimate
    older = BlockModel.from_dict(document)
    assert older.confidence_ is None and "confidence" not in older.to_dict()
    assert extract_mss(ARTICLE_PAGE, older).confidence is None
    # a self-trained model joined to this one keeps its estimate
    assert trained.joined(older).confidence_ is trained.confidence_


@pytest.mark.parametrize("breaks", [
    lambda c: c.update(facts=c["facts"][:-1]),
    lambda c: c.update(coef=c["coef"][:-1]),
    lambda c: c.update(calibration_y=c["calibration_y"][:-1]),
    lambda c: c.update(calibration_x=[], calibration_y=[]),
    lambda c: c.update(version=99),
])
def test_a_broken_estimate_in_a_model_file_is_refused_clearly(trained, tmp_path, breaks):
    document = json.loads(json.dumps(trained.to_dict()))
    breaks(document["confidence"])
    path = tmp_path / "broken.json.gz"
    path.write_bytes(gzip.compress(json.dumps(document).encode()))
    with pytest.raises(ModelError):
        load_model(path)


def test_the_estimate_needs_pages_of_enough_sites_to_hold_some_out():
    site = generate_site(seed=1, stories=3, features=1)
    pages = [(p.html, p.truth if p.article else "", f"https://one.test{path}") for path, p in site.pages.items()]
    labelled = [labelled_page(*page) for page in pages]
    with pytest.raises(ValueError, match="at least 5 sites"):
        fit_answer_confidence(pages, labelled, **SMALL)
    model, _ = train_block_model(pages, confidence=True, **SMALL)  # the model itself is still trained
    assert model.confidence_ is None and model.members_
