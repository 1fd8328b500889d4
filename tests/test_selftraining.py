"""The fallback learns from learned sites: rules label stored pages, a worker job trains MSS on them."""
import pytest
from rq import SimpleWorker

from sitewise.learn.site import learn_stored_site
from sitewise.mss.extractor import extract_mss, load_scorer
from sitewise.mss.blockmodel import BlockModel
from sitewise.mss.selftrain import MIN_GAIN
from sitewise.pipeline import rule_labelled_pages
from sitewise.worker.fallback import maybe_enqueue_retrain
from sitewise.worker.queue import JOB_SERIALIZER, learn_queue

pytestmark = pytest.mark.browser


@pytest.fixture
def learned_store(store, collected_sites):
    """Both sample sites stored and learned (their index pages included: they have no article)."""
    for _, pages in collected_sites.values():
        for page in pages.values():
            store.put_page(page)
    for host in collected_sites:
        assert learn_stored_site(store, host).stored
    return store


def test_rules_label_the_article_pages_of_learned_sites(learned_store, collected_sites):
    pairs = list(rule_labelled_pages(learned_store))
    articles = sum(len(site.article_paths) for site, _ in collected_sites.values())
    assert articles - 2 <= len(pairs) <= articles  # the index pages match no article template
    html, text, url = pairs[0]
    assert "<html" in html and text and text.split("\n")[0] in html and url.startswith("http")


def test_retrain_job_writes_a_model_the_fallback_uses(learned_store, redis_client, tmp_path, monkeypatch):
    model = tmp_path / "mss-model.json.gz"
    monkeypatch.setenv("SITEWISE_MSS_MODEL", str(model))
    job = learn_queue(redis_client).enqueue_call("sitewise.worker.fallback.retrain_fallback", kwargs={"min_pages": 10})
    SimpleWorker([learn_queue(redis_client)], connection=redis_client, serializer=JOB_SERIALIZER).work(burst=True)
    job.refresh()
    assert job.is_finished, job.exc_info
    result = job.return_value()
    assert result["used"] >= 10 and result["held_back_pages"] > 0
    # written only when it beats the model in use on the held-back sites' pages
    beats = result["candidate_f1"] >= result["current_f1"] + MIN_GAIN
    assert (result["model"] == str(model)) == beats and model.exists() == beats
    if beats:
        assert isinstance(load_scorer(), BlockModel)  # the configured model is the self-trained one
        html, text, url = next(rule_labelled_pages(learned_store))
        assert extract_mss(html, url=url).text


def test_retrain_is_queued_once_per_interval(redis_client):
    assert maybe_enqueue_retrain(redis_client) is not None
    assert maybe_enqueue_retrain(redis_client) is None
    assert len(learn_queue(redis_client)) == 1
