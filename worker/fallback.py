"""Self-training of the MSS fallback: after sites are learned, retrain it on their rule-labelled pages.

Retraining reads every stored page of every learned site, so it runs at most once per
:data:`RETRAIN_INTERVAL_S`: the first learn job in a window enqueues it (``SET NX`` with an expiry makes
that choice atomic across workers), later ones in the window do not. The web processes pick the new
model up by its file time (``sitewise.mss.extractor.load_scorer``); the model is written atomically.
"""
from __future__ import annotations

import logging
from typing import Any

import redis
from rq import get_current_job
from rq.job import Job, Retry

from sitewise.config import Settings
from sitewise.mss.selftrain import self_train
from sitewise.pipeline import rule_labelled_pages
from sitewise.trust import AgreementPolicy
from sitewise.store import Store

from .queue import FAILURE_TTL_S, RESULT_TTL_S, learn_queue

log = logging.getLogger(__name__)

#: At most one retrain per ten minutes: enough to follow a growing set of learned sites, cheap on 2 cores.
RETRAIN_INTERVAL_S = 600
#: Training on a few thousand pages takes under a minute; this is the safety net.
RETRAIN_TIMEOUT_S = 1800
#: A retrain whose work-horse dies (OOM, SIGKILL) or that raises is run again this many times, as learn jobs
#: are (at once: delayed retries need RQ's scheduler process); retraining from the same pages is idempotent
#: and the model file is replaced atomically.
RETRAIN_RETRIES = 2
_RETRAIN_MARK = "sitewise:mss-retrain"


def maybe_enqueue_retrain(connection: redis.Redis) -> Job | None:
    """Queue a retrain of the fallback unless one was queued in the last interval."""
    if not connection.set(_RETRAIN_MARK, "1", nx=True, ex=RETRAIN_INTERVAL_S):
        return None
    return learn_queue(connection).enqueue_call(
        "sitewise.worker.fallback.retrain_fallback",
        timeout=RETRAIN_TIMEOUT_S,
        result_ttl=RESULT_TTL_S,
        failure_ttl=FAILURE_TTL_S,
        retry=Retry(max=RETRAIN_RETRIES),
        description="retrain the MSS fallback on learned sites",
    )


def retrain_fallback(min_pages: int | None = None) -> dict[str, Any]:
    """Train the MSS scorer on the pages of learned sites (``min_pages``: the least that make a model,
    default the self-training module's); the job's result says what happened."""
    job = get_current_job()
    if job is None:
        raise RuntimeError("retrain_fallback runs inside an RQ worker (call sitewise.mss.selftrain.self_train)")
    settings = Settings.from_env()
    store = Store(job.connection, settings.max_pages_per_site)
    # only sites whose rules several readers corroborate teach the fallback every other site
    pages = rule_labelled_pages(store, AgreementPolicy.from_settings(settings))
    result = self_train(pages) if min_pages is None else self_train(pages, min_pages=min_pages)
    return {"model": str(result.path) if result.path else None, "current_f1": result.current_f1,
            "candidate_f1": result.candidate_f1, "held_back_pages": result.held_back_pages,
            **result.report.as_dict()}
