"""A learning worker killed (SIGKILL) in the middle of learning: the job is retried, the rules end up the
same as an undisturbed learn, and no half-written rule version is ever served.

Real processes: an embedded redis-server and ``python -m sitewise.worker`` (an RQ worker that forks a work-horse
per job). Two ways to die: the work-horse alone (the learning process: OOM killer, a crash in native
code), and the whole worker with it (``docker kill``, a lost machine).
"""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import redis
from rq import Worker
from rq.job import Job, JobStatus
from rq.registry import StartedJobRegistry

from learn_support import sample_pages
from sitewise.learn.site import learn_stored_site
from sitewise.redis_conn import EmbeddedRedis, connect
from sitewise.sample_site import generate_site
from sitewise.store import Store
from sitewise.worker.queue import enqueue_learn, learn_queue

from reliability_support import children_of, start_worker, wait_for

#: Fields of a rule set that differ between two learns of the same pages.
VOLATILE = ("learned_at", "version", "site")
#: Seconds a learn job may take on a busy 2-core machine (sklearn import in the work-horse included).
JOB_TIMEOUT_S = 180


def stable(rules: dict | None) -> dict | None:
    return None if rules is None else {k: v for k, v in rules.items() if k not in VOLATILE}


@pytest.fixture(scope="module")
def site_pages():
    """A site big enough that learning takes a while (27 pages, two templates)."""
    pages = [page for page, _ in sample_pages(generate_site(seed=11, stories=20, features=6)).values()]
    return pages[0].site, pages


@pytest.fixture(scope="module")
def reference(site_pages, tmp_path_factory):
    """The rules an undisturbed learn of the same pages stores, and how long it took."""
    site, pages = site_pages
    store = Store(connect(data_dir=tmp_path_factory.mktemp("reference")))
    for page in pages:
        store.put_page(page)
    outcome = learn_stored_site(store, site)
    assert outcome.stored
    return stable(store.rules(site)), outcome.seconds


class RuleReader(threading.Thread):
    """Reads the site's current rules as a client would, as fast as it can; keeps anything odd."""

    def __init__(self, url: str, site: str, expected: dict) -> None:
        super().__init__(daemon=True)
        self.store = Store(connect(url))
        self.site = site
        self.expected = expected
        self.reads = 0
        self.odd: list[object] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                rules = self.store.rules(self.site)
            except redis.ConnectionError:
                continue
            except Exception as exc:  # a half-written version would fail to decode
                self.odd.append(exc)
                continue
            self.reads += 1
            if rules is not None and stable(rules) != self.expected:
                self.odd.append(rules)


@pytest.fixture
def system(tmp_path, site_pages, reference):
    """An embedded Redis holding the site's pages, a reader of its rules, and the worker processes."""
    site, pages = site_pages
    server = EmbeddedRedis(tmp_path / "redis").start()
    store = Store(connect(server.url))
    for page in pages:
        store.put_page(page)
    reader = RuleReader(server.url, site, reference[0])
    reader.start()
    workers: list = []
    try:
        yield server, store, reader, workers
    finally:
        reader.stopping.set()
        for process in workers:
            for pid in children_of(process.pid) + [process.pid]:
                _kill(pid)
            process.wait()
        server.stop()


def _kill(pid: int, signum: int = signal.SIGKILL) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def _add_worker(system, log_path) -> object:
    """Start one more ``python -m sitewise.worker`` and wait until it has registered with RQ."""
    server, store, _, workers = system
    process = start_worker(server.url, log_path)
    workers.append(process)
    wait_for(lambda: any(w.pid == process.pid for w in Worker.all(connection=store.redis)), 60, f"{log_path.stem} to register")
    return process


def _wait_for_the_end(job) -> str:
    return wait_for(lambda: job.get_status(refresh=True) in (JobStatus.FINISHED, JobStatus.FAILED) and
                    job.get_status(), JOB_TIMEOUT_S, "the retry to end")


def _check_reader(reader) -> None:
    reader.stopping.set()
    reader.join()
    print(f"{reader.reads} rule reads during the kill and the retry, {len(reader.odd)} odd")
    assert reader.reads > 0 and not reader.odd


def _learning_under_way(connection) -> bool:
    """The work-horse has imported the learner and read the site's pages (HMGET; the reader uses HGET)."""
    return any(client.get("cmd") in ("hmget", "lrange") for client in connection.client_list())


def _kill_mid_learning(store, job, worker_process, reference_seconds, whole_worker: bool) -> int:
    """Wait until the job is learning, let it get some way in, then SIGKILL; returns the horse's pid."""
    wait_for(lambda: job.get_status(refresh=True) == JobStatus.STARTED, JOB_TIMEOUT_S, "the job to start")
    horse = wait_for(lambda: children_of(worker_process.pid), 30, "the work-horse")[0]
    wait_for(lambda: _learning_under_way(store.redis), JOB_TIMEOUT_S, "the work-horse to read the pages", 0.01)
    time.sleep(reference_seconds * 0.3)  # some way into learning (it took reference_seconds undisturbed)
    assert job.get_status(refresh=True) == JobStatus.STARTED, "learning finished before the kill"
    _kill(horse)
    if whole_worker:
        _kill(worker_process.pid)
    return horse


def test_killed_work_horse_is_retried_and_rules_end_up_the_same(system, site_pages, reference, tmp_path):
    _, store, reader, _ = system
    site, _ = site_pages
    worker = _add_worker(system, tmp_path / "worker.log")
    job = enqueue_learn(site, connection=store.redis)
    _kill_mid_learning(store, job, worker, reference[1], whole_worker=False)

    status = _wait_for_the_end(job)
    log = (tmp_path / "worker.log").read_text()
    assert "Work-horse terminated unexpectedly" in log and "signal 9" in log
    assert status == JobStatus.FINISHED, log[-3000:]
    assert stable(store.rules(site)) == reference[0]
    _check_reader(reader)


def test_killed_worker_job_is_requeued_for_another_worker(system, site_pages, reference, tmp_path):
    _, store, reader, _ = system
    site, _ = site_pages
    first = _add_worker(system, tmp_path / "worker-1.log")
    job = enqueue_learn(site, connection=store.redis)
    _kill_mid_learning(store, job, first, reference[1], whole_worker=True)
    first.wait()

    # Nobody saw it die: the job stays "started" until its heartbeat lapses (RQ: job monitoring interval
    # + 60 s), when any worker's registry maintenance treats it as abandoned. Run that maintenance as it
    # will run then — RQ's own code, with the clock moved past the lapse — instead of waiting minutes.
    assert job.get_status(refresh=True) == JobStatus.STARTED
    _add_worker(system, tmp_path / "worker-2.log")
    StartedJobRegistry(queue=learn_queue(store.redis)).cleanup(timestamp=time.time() + 24 * 3600)

    status = _wait_for_the_end(job)
    assert status == JobStatus.FINISHED, Job.fetch(job.id, connection=store.redis).latest_result()
    assert stable(store.rules(site)) == reference[0]
    _check_reader(reader)
