"""The learning worker: one pending job per site, the learn_site job on a real Redis and RQ worker, the
poisoning guard, and the learn/rules commands."""
from __future__ import annotations

import dataclasses
import json
import logging
import threading

import pytest
from rq import SimpleWorker
from rq.job import JobStatus

from learn_support import sample_pages
from sitewise.cli import main
from sitewise.learn import rules as rules_module
from sitewise.learn.learner import SiteLearner
from sitewise.learn.site import learn_stored_site
from sitewise.sample_site import generate_site
from sitewise.worker.queue import (
    JOB_SERIALIZER, cancel_learn, clear_unmatched, enqueue_learn, learn_queue, note_unmatched, pending_job_id,
    release_pending, unmatched_pages,
)


@pytest.fixture(scope="module")
def gazette_pages():
    pages = sample_pages(generate_site(seed=11, stories=6, features=0))
    return [page for page, sample in pages.values() if sample.template == "story"]


def _run_worker(redis_client) -> None:
    SimpleWorker([learn_queue(redis_client)], connection=redis_client, serializer=JOB_SERIALIZER).work(burst=True)


def test_at_most_one_pending_job_per_site(redis_client):
    first = enqueue_learn("gazette.test", connection=redis_client)
    again = enqueue_learn("gazette.test", connection=redis_client)
    other = enqueue_learn("other.test", connection=redis_client)
    assert again.id == first.id and other.id != first.id
    assert len(learn_queue(redis_client)) == 2
    # Once the job starts it releases the mark, so new pages can queue the next learn.
    release_pending("gazette.test", first.id, redis_client)
    assert pending_job_id("gazette.test", redis_client) is None
    assert enqueue_learn("gazette.test", connection=redis_client).id != first.id
    # A stale job's release never drops a newer job's mark.
    release_pending("gazette.test", first.id, redis_client)
    assert pending_job_id("gazette.test", redis_client) is not None
    with pytest.raises(ValueError):
        enqueue_learn("", connection=redis_client)


def test_a_lost_pending_job_is_replaced(redis_client, caplog):
    job = enqueue_learn("gazette.test", connection=redis_client)
    job.delete()
    with caplog.at_level(logging.INFO, logger="sitewise.worker.queue"):
        assert enqueue_learn("gazette.test", connection=redis_client).id != job.id
    assert [r.levelno for r in caplog.records] == [logging.WARNING] and "no longer queued" in caplog.text


def test_a_job_that_has_started_but_not_yet_released_its_mark_is_followed_by_another(redis_client, caplog):
    """Between a worker starting a job and the job releasing its site's mark, an upload queues the next
    learn (the running one may not see its page) and says so as news, not as a lost job."""
    job = enqueue_learn("gazette.test", connection=redis_client)
    job.set_status(JobStatus.STARTED)
    with caplog.at_level(logging.INFO, logger="sitewise.worker.queue"):
        follower = enqueue_learn("gazette.test", connection=redis_client)
    assert follower.id != job.id and pending_job_id("gazette.test", redis_client) == follower.id
    assert [r.levelno for r in caplog.records] == [logging.INFO] and "has started" in caplog.text


def test_a_forced_learn_replaces_a_pending_ordinary_one(redis_client, store, monkeypatch, capsys):
    ordinary = enqueue_learn("gazette.test", connection=redis_client)  # a reader's upload queued it
    forced = enqueue_learn("gazette.test", connection=redis_client, force=True)  # then the administrator
    assert forced.id != ordinary.id and forced.kwargs == {"force": True}
    assert learn_queue(redis_client).job_ids == [forced.id]  # one learn runs: the forced one
    assert pending_job_id("gazette.test", redis_client) == forced.id
    # Asked again, forced or not, the forced job is the answer.
    assert enqueue_learn("gazette.test", connection=redis_client).id == forced.id
    assert enqueue_learn("gazette.test", connection=redis_client, force=True).id == forced.id
    # The CLI says what it queued.
    monkeypatch.setattr("sitewise.store.open_store", lambda settings=None: store)
    assert main(["learn", "gazette.test", "--queue", "--force"]) == 0
    assert f"gazette.test: forced learn job {forced.id}" in capsys.readouterr().out


def test_cancel_learn_takes_the_pending_job_off_the_queue(redis_client):
    job = enqueue_learn("gazette.test", connection=redis_client)
    other = enqueue_learn("other.test", connection=redis_client)
    assert cancel_learn("gazette.test", redis_client)
    assert learn_queue(redis_client).job_ids == [other.id] and pending_job_id("gazette.test", redis_client) is None
    assert not cancel_learn("gazette.test", redis_client)
    assert enqueue_learn("gazette.test", connection=redis_client).id != job.id


def test_learn_site_job_stores_rules(redis_client, store, gazette_pages, monkeypatch):
    monkeypatch.setenv("SITEWISE_MIN_PAGES_TO_LEARN", "3")
    for page in gazette_pages:
        store.put_page(page)
    job = enqueue_learn("gazette.test", connection=redis_client)
    _run_worker(redis_client)
    job.refresh()
    assert job.get_status() == "finished", job.latest_result()
    outcome = job.return_value()
    assert outcome["stored"] and outcome["version"] == 1 and outcome["templates"] == 1
    rules = store.rules("gazette.test")
    assert rules["version"] == 1 and rules["pages_learned"] == len(gazette_pages)
    assert pending_job_id("gazette.test", redis_client) is None
    assert store.site_info("gazette.test")["pages_since_learn"] == 0


def test_too_few_pages_stores_nothing(store, gazette_pages):
    store.put_page(gazette_pages[0])
    outcome = learn_stored_site(store, "gazette.test", min_pages=3)
    assert not outcome.stored and outcome.version is None and "3 needed" in outcome.reason
    assert store.rules("gazette.test") is None


def test_feedback_wins_and_poisoning_is_rejected(store, gazette_pages):
    for page in gazette_pages:
        store.put_page(page)
    first = learn_stored_site(store, "gazette.test", min_pages=3)
    assert first.stored and first.version == 1
    page = gazette_pages[0]
    byline = next(b for b in page.blocks if "byline" in b.selector)
    store.add_feedback("gazette.test", {"url": page.url, "selector": byline.selector, "text": byline.text, "kind": "missing"})
    second = learn_stored_site(store, "gazette.test", min_pages=3)
    assert second.stored and second.version == 2
    from sitewise.learn.rules import apply_rules

    assert byline.text in apply_rules(store.rules("gazette.test"), page=page).text
    # A malicious reader marks the article's paragraphs "not article": rules obeying that would lose the
    # article on every page, so the new version is rejected and version 2 stays.
    paragraph = next(b for b in page.blocks if b.tag == "p" and "story-body" in b.selector)
    store.add_feedback("gazette.test", {"url": page.url, "selector": paragraph.selector, "text": "", "kind": "not_article"})
    third = learn_stored_site(store, "gazette.test", min_pages=3)
    assert not third.stored and third.reason.startswith("rejected") and third.version == 2
    assert third.consistency_new < third.consistency_old
    assert store.rule_versions("gazette.test") == [1, 2]
    forced = learn_stored_site(store, "gazette.test", min_pages=3, force=True)
    assert forced.stored and forced.version == 3


def test_learn_and_rules_commands(store, gazette_pages, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("sitewise.store.open_store", lambda settings=None: store)
    for page in gazette_pages:
        store.put_page(page)
    assert main(["learn", "gazette.test", "--min-pages", "3"]) == 0
    assert "gazette.test: stored" in capsys.readouterr().out
    assert main(["rules", "gazette.test"]) == 0
    rules = json.loads(capsys.readouterr().out)
    assert rules["version"] == 1 and rules["templates"]
    assert main(["rules", "gazette.test", "--versions"]) == 0
    assert "* v1" in capsys.readouterr().out
    page_file = tmp_path / "page.json"
    page_file.write_text(json.dumps(gazette_pages[1].to_dict()))
    assert main(["rules", "gazette.test", "--apply", str(page_file)]) == 0
    out = capsys.readouterr().out
    assert "confident" in out and gazette_pages[1].titles[0].split(" | ")[0] in out
    assert main(["rules", "nowhere.test"]) == 2
    assert main(["learn", "gazette.test", "--queue"]) == 0
    assert "learn job" in capsys.readouterr().out


def test_pages_no_template_fits_queue_a_relearn(redis_client):
    assert note_unmatched("gazette.test", "https://gazette.test/gallery/1", connection=redis_client) is None
    # The same page again is still one page.
    assert note_unmatched("gazette.test", "https://gazette.test/gallery/1", connection=redis_client) is None
    assert len(learn_queue(redis_client)) == 0
    job = note_unmatched("gazette.test", "https://gazette.test/gallery/2", connection=redis_client)
    assert job is not None and pending_job_id("gazette.test", redis_client) == job.id
    assert unmatched_pages("gazette.test", redis_client) == {
        "https://gazette.test/gallery/1", "https://gazette.test/gallery/2"}
    # The learn job empties the set when it starts: later pages count towards the next re-learn.
    assert clear_unmatched("gazette.test", redis_client) == 2
    assert unmatched_pages("gazette.test", redis_client) == set()
    with pytest.raises(ValueError):
        note_unmatched("", "k", connection=redis_client)


def test_uploads_the_rules_do_not_fit_queue_a_relearn(store, tmp_path):
    from sitewise.server import create_app
    from server_support import page_dict, settings_for

    app = create_app(settings_for(tmp_path), store)
    app.testing = True
    client = app.test_client()
    # Learned rules that know only the "main" layout (page_dict's blocks are body > main > p).
    store.put_rules("news.example", {"templates": [{"name": "t1", "match": ["main"], "include": ["main"],
                                                    "exclude": [], "words": [5, 500]}]})

    def upload(url, selector):
        data = page_dict(url)
        data["blocks"] = [dict(b, selector=selector) for b in data["blocks"]]
        return client.post("/api/pages", json=data)

    assert upload("https://news.example/a/1", "body > main > p").get_json()["learning"] == "not_due"
    assert upload("https://news.example/g/1", "body > div.gallery > p").get_json()["learning"] == "not_due"
    assert len(learn_queue(store.redis)) == 0
    assert upload("https://news.example/g/2", "body > div.gallery > p").get_json()["learning"] == "queued"
    assert len(learn_queue(store.redis)) == 1


def test_deleting_a_site_or_page_forgets_its_pending_learn_and_unmatched_pages(store, tmp_path):
    from sitewise.server import create_app
    from server_support import page_dict, settings_for

    app = create_app(settings_for(tmp_path), store)
    client, admin = app.test_client(), {"Authorization": "Bearer s3cret"}
    store.put_rules("news.example", {"templates": [{"name": "t1", "match": ["div.story"], "include": ["div.story"],
                                                    "exclude": [], "words": [1, 10000]}]})
    for n in (1, 2, 3):  # readers' pages the rules do not fit: the second queues a re-learn
        assert client.post("/api/pages", json=page_dict(f"https://news.example/private/{n}")).status_code == 201
    assert len(learn_queue(store.redis)) == 1
    deleted = client.delete("/api/admin/sites/news.example/pages?key=https://news.example/private/1", headers=admin)
    assert deleted.status_code == 200
    assert unmatched_pages("news.example", store.redis) == {"https://news.example/private/2",
                                                            "https://news.example/private/3"}
    assert client.delete("/api/admin/sites/news.example", headers=admin).status_code == 200
    assert len(learn_queue(store.redis)) == 0 and pending_job_id("news.example", store.redis) is None
    left = [key for key in store.redis.keys("*") if b"news.example" in key or key.startswith(b"rq:job:")]
    assert [key for key in left if not key.startswith(b"sw:limit:")] == []  # a day's upload counts stay


def test_a_site_deleted_while_it_is_learned_stays_deleted(store, gazette_pages, monkeypatch):
    for page in gazette_pages:
        store.put_page(page)
    fit = SiteLearner.fit

    def fit_while_the_site_is_deleted_and_uploaded_anew(self, *args, **kwargs):
        fitted = fit(self, *args, **kwargs)
        store.delete_site("gazette.test")
        store.put_page(gazette_pages[0])
        return fitted

    monkeypatch.setattr(SiteLearner, "fit", fit_while_the_site_is_deleted_and_uploaded_anew)
    outcome = learn_stored_site(store, "gazette.test", min_pages=1)
    assert not outcome.stored and outcome.version is None and "deleted" in outcome.reason
    # Nothing learned from the deleted pages is stored or served; the new upload alone is there.
    assert store.rules("gazette.test") is None and store.taught("gazette.test") == set()
    assert store.page_keys("gazette.test") == [gazette_pages[0].key]
    assert store.site_info("gazette.test")["pages_since_learn"] == 1
    # The site uploaded anew learns normally.
    monkeypatch.setattr(SiteLearner, "fit", fit)
    relearned = learn_stored_site(store, "gazette.test", min_pages=1)
    assert relearned.stored and relearned.version == 1
    assert store.taught("gazette.test") == {gazette_pages[0].key}


def test_a_page_stored_while_its_site_is_learned_is_left_for_the_next_learn(store, gazette_pages, monkeypatch):
    for page in gazette_pages[:-1]:
        store.put_page(page)
    fit = SiteLearner.fit

    def fit_while_a_page_comes_in(self, *args, **kwargs):
        store.put_page(gazette_pages[-1])
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(SiteLearner, "fit", fit_while_a_page_comes_in)
    outcome = learn_stored_site(store, "gazette.test", min_pages=3)
    assert outcome.stored and outcome.pages == len(gazette_pages) - 1
    assert store.site_info("gazette.test")["pages_since_learn"] == 1  # the late page: not learned from yet
    assert gazette_pages[-1].key not in store.taught("gazette.test")


def test_learns_of_one_site_run_one_after_another(store, gazette_pages, monkeypatch):
    """A learn queued while another runs (the worker released the site's mark as that one began) waits for
    it, then finds every page read already and stores no second, identical version."""
    for page in gazette_pages:
        store.put_page(page)
    fitting, may_finish = threading.Event(), threading.Event()
    fit = SiteLearner.fit

    def slow_fit(self, *args, **kwargs):
        fitting.set()
        may_finish.wait(10)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(SiteLearner, "fit", slow_fit)
    outcomes = {}
    first = threading.Thread(target=lambda: outcomes.update(
        first=learn_stored_site(store, "gazette.test", min_pages=3)))
    second = threading.Thread(target=lambda: outcomes.update(
        second=learn_stored_site(store, "gazette.test", min_pages=3, only_if_new=True)))
    first.start()
    assert fitting.wait(10)
    assert store.site_info("gazette.test")["being_learned"]
    second.start()
    second.join(0.5)
    assert second.is_alive()  # it waits for the first learn's lock
    may_finish.set()
    for thread in (first, second):
        thread.join(10)
    assert outcomes["first"].stored and outcomes["first"].version == 1
    assert not outcomes["second"].stored and outcomes["second"].reason == "nothing new since version 1 was learned"
    assert store.rule_versions("gazette.test") == [1] and not store.site_info("gazette.test")["being_learned"]
    # A page new since then is learned from.
    store.put_page(dataclasses.replace(gazette_pages[0], url="https://gazette.test/new", canonical_url=None))
    assert learn_stored_site(store, "gazette.test", min_pages=3, only_if_new=True).version == 2


def test_a_learn_gives_up_on_a_lock_nobody_releases(store, gazette_pages, monkeypatch, caplog):
    for page in gazette_pages:
        store.put_page(page)
    monkeypatch.setattr("sitewise.store.LEARN_LOCK_WAIT_S", 0.2)
    assert store.take_learn_lock("gazette.test", "learn-1")  # held by a learn whose process died
    with caplog.at_level(logging.INFO, logger="sitewise.store"):
        outcome = learn_stored_site(store, "gazette.test", min_pages=3)
    assert not outcome.stored and outcome.reason == "another learn of the site is still running"
    assert caplog.messages == ["another learn of gazette.test is running: waiting up to 0.2 s for it"]
    assert store.rules("gazette.test") is None
    assert store.site_info("gazette.test")["pages_since_learn"] == len(gazette_pages)
    # A retry of the learn that died takes its lock over, and frees it when done.
    assert learn_stored_site(store, "gazette.test", min_pages=3, learner_id="learn-1").stored
    assert store.take_learn_lock("gazette.test", "learn-2") and not store.free_learn_lock("gazette.test", "learn-1")


def test_a_queued_learn_with_nothing_new_learns_nothing_unless_forced(redis_client, store, gazette_pages,
                                                                      monkeypatch):
    monkeypatch.setenv("SITEWISE_MIN_PAGES_TO_LEARN", "3")
    for page in gazette_pages:
        store.put_page(page)
    jobs = [enqueue_learn("gazette.test", connection=redis_client)]
    _run_worker(redis_client)
    jobs.append(enqueue_learn("gazette.test", connection=redis_client))
    _run_worker(redis_client)
    jobs.append(enqueue_learn("gazette.test", connection=redis_client, force=True))
    _run_worker(redis_client)
    first, idle, forced = (job.return_value() for job in jobs)
    assert first["stored"] and not idle["stored"] and idle["reason"] == "nothing new since version 1 was learned"
    assert forced["stored"] and forced["version"] == 2


def test_a_relearn_reads_each_rule_set_on_each_page_once(store, gazette_pages, monkeypatch):
    """The consistency guard, the change's judge and the support check all compare the current and the new
    rules on the pages learned from: two readings a page, not five."""
    for page in gazette_pages:
        store.put_page(page)
    assert learn_stored_site(store, "gazette.test", min_pages=3).stored
    store.put_page(dataclasses.replace(gazette_pages[0], url="https://gazette.test/new", canonical_url=None))
    readings = []  # (the rule set's templates, the page's blocks) of each reading
    apply_to_blocks = rules_module._apply_to_blocks
    monkeypatch.setattr(rules_module, "_apply_to_blocks", lambda templates, blocks, *matchers: readings.append(
        (id(templates), id(blocks))) or apply_to_blocks(templates, blocks, *matchers))
    relearned = learn_stored_site(store, "gazette.test", min_pages=3)
    assert relearned.stored and relearned.decision == "store"
    assert len(readings) == len(set(readings)) == 2 * (len(gazette_pages) + 1)  # the current rules, the new ones
