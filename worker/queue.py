"""The learning queue: ``enqueue_learn(site)`` with at most one pending learn job per site, and
``note_unmatched(site, page_key)``: pages of a learned site its rules do not fit, a re-learn once
:data:`NEW_TEMPLATE_PAGES` of them accumulate (they may be a layout the rules do not know yet).

A pending job is marked by the key ``sitewise:learn-pending:{site}`` (value: the job id), set only if
absent (``SET NX``) so two servers asking at once enqueue one job. The job deletes the mark when it
*starts*, so pages that arrive while a site is being learned can queue the next learn. The mark expires
after :data:`PENDING_TTL_S` in case a job is lost with its queue. A forced learn (an administrator's)
asked for while an ordinary one is pending replaces it: one learn runs, the forced one.

Unmatched pages are a set per site, ``sitewise:unmatched:{site}`` (page keys). Reaching the threshold
queues a learn; the learn job empties the set when it starts (:func:`clear_unmatched`), since it learns
from those pages, and pages unmatched after that count towards the next one.

Both keys are named by ``sitewise.store``, whose ``delete_site`` / ``delete_page`` remove them with the
site or page; :func:`cancel_learn` takes a deleted site's queued job off the queue.
"""
from __future__ import annotations

import logging
import re
import uuid

import redis
from rq import Queue
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus, Retry
from rq.serializers import JSONSerializer

from sitewise.store import learn_pending_key, unmatched_key

log = logging.getLogger(__name__)

#: The queue learning jobs go to (``python -m sitewise.worker`` consumes it).
QUEUE_NAME = "sitewise-learn"
#: Job payloads (function name, arguments, results) are JSON, never pickle: with pickle, anyone who can
#: write to Redis could make every worker run code of their choosing. Workers must use the same one.
JOB_SERIALIZER = JSONSerializer
#: A learn job may run this long (learning a site of 500 pages takes seconds; this is a safety net).
JOB_TIMEOUT_S = 600
#: A learn job whose work-horse dies (SIGKILL, OOM) or that raises is run again this many times: learning
#: is idempotent (the rules of the same pages come out the same) and a rule version is stored atomically.
LEARN_RETRIES = 3
#: How long a job's result and a failed job's traceback are kept.
RESULT_TTL_S = 24 * 3600
FAILURE_TTL_S = 7 * 24 * 3600
#: A pending mark older than this is stale (the job was lost): the next request enqueues anew.
PENDING_TTL_S = 3600
#: Stored pages of a learned site that its rules did not fit, before a re-learn is queued for them: two,
#: because one page of a new layout is enough to learn it (sitewise.learn.templates) but a single odd
#: page (an error page, an index) should not re-learn the site on its own.
NEW_TEMPLATE_PAGES = 2
#: Unmatched marks older than this are forgotten (the layout did not come back).
UNMATCHED_TTL_S = 7 * 24 * 3600


def learn_queue(connection: redis.Redis) -> Queue:
    return Queue(QUEUE_NAME, connection=connection, serializer=JOB_SERIALIZER)


def pending_job_id(site: str, connection: redis.Redis) -> str | None:
    value = connection.get(learn_pending_key(site))
    return value.decode() if isinstance(value, bytes) else value


def enqueue_learn(site: str, *, connection: redis.Redis, force: bool = False) -> Job:
    """Queue learning ``site``; when a learn job for it is already pending, that job is returned, unless
    ``force`` is asked and the pending job is not forced: a forced job then takes its place (the answer is
    always a job that does what was asked)."""
    if not site:
        raise ValueError("no site to learn")
    # RQ job ids allow letters, digits, "_" and "-" only.
    job_id = f"learn-{re.sub(r'[^A-Za-z0-9_-]', '_', site)[:80]}-{uuid.uuid4().hex[:12]}"
    while not connection.set(learn_pending_key(site), job_id, nx=True, ex=PENDING_TTL_S):
        existing_id = pending_job_id(site, connection)
        marked = _fetched_job(existing_id, connection) if existing_id else None
        status = marked.get_status() if marked is not None else None
        existing = marked if status == JobStatus.QUEUED else None
        if existing is not None and (existing.kwargs.get("force") or not force):
            return existing
        if _take_over_mark(site, existing_id, job_id, connection):
            if existing is not None:
                log.info("forced learn of %s replaces its pending job %s", site, existing_id)
                existing.delete()
            elif status == JobStatus.STARTED:
                # the worker releases the mark as the job starts: pages that came since need a learn of their own
                log.info("learn job %s of %s has started; queueing another for the pages since", existing_id, site)
            elif existing_id:
                log.warning("pending learn job %s of %s is no longer queued; queueing a new one", existing_id, site)
            break
        # the mark changed meanwhile (released, or another request took it over): look again
    try:
        return learn_queue(connection).enqueue_call(
            "sitewise.worker.jobs.learn_site",
            args=(site,),
            kwargs={"force": force} if force else None,
            job_id=job_id,
            timeout=JOB_TIMEOUT_S,
            result_ttl=RESULT_TTL_S,
            failure_ttl=FAILURE_TTL_S,
            retry=Retry(max=LEARN_RETRIES),
            description=f"learn {site}",
        )
    except Exception:
        release_pending(site, job_id, connection)  # nothing was queued: let the next request try again
        raise


def _fetched_job(job_id: str, connection: redis.Redis) -> Job | None:
    """The job ``job_id``, None when it is gone."""
    try:
        return Job.fetch(job_id, connection=connection, serializer=JOB_SERIALIZER)
    except NoSuchJobError:
        return None


def _queued_job(job_id: str, connection: redis.Redis) -> Job | None:
    """The job ``job_id`` if it still waits in the queue; None when it is gone or has started (a started
    job releases its site's mark as it begins, so a mark naming it is on its way out)."""
    job = _fetched_job(job_id, connection)
    return job if job is not None and job.get_status() == JobStatus.QUEUED else None


def _take_over_mark(site: str, expected: str | None, job_id: str, connection: redis.Redis) -> bool:
    """Point the pending mark of ``site`` at ``job_id`` if it still names ``expected`` (None: if it is
    gone); False when it changed meanwhile."""
    with connection.pipeline(transaction=True) as pipe:
        try:
            pipe.watch(learn_pending_key(site))
            if pending_job_id(site, pipe) != expected:
                return False
            pipe.multi()
            pipe.set(learn_pending_key(site), job_id, ex=PENDING_TTL_S)
            pipe.execute()
            return True
        except redis.WatchError:
            return False


def cancel_learn(site: str, connection: redis.Redis) -> bool:
    """Take the pending learn job of ``site`` off the queue and drop its mark (the site is being deleted);
    False when none was pending. A job already running stores nothing for a deleted site
    (``sitewise.store.Store.generation``)."""
    job_id = pending_job_id(site, connection)
    if not job_id:
        return False
    job = _queued_job(job_id, connection)
    if job is not None:
        job.delete()
    release_pending(site, job_id, connection)
    log.info("pending learn job %s of %s cancelled", job_id, site)
    return job is not None


def release_pending(site: str, job_id: str, connection: redis.Redis) -> None:
    """Drop the pending mark of ``site`` if it is this job's (a newer job's mark is left alone)."""
    with connection.pipeline(transaction=True) as pipe:
        while True:
            try:
                pipe.watch(learn_pending_key(site))
                if pending_job_id(site, pipe) != job_id:
                    pipe.unwatch()
                    return
                pipe.multi()
                pipe.delete(learn_pending_key(site))
                pipe.execute()
                return
            except redis.WatchError:
                continue


def note_unmatched(
    site: str, page_key: str, *, connection: redis.Redis, threshold: int = NEW_TEMPLATE_PAGES
) -> Job | None:
    """Record a stored page of ``site`` that its rules did not fit. Once ``threshold`` distinct such pages
    are recorded, queue learning the site (the pending job if there is one) and return the job."""
    if not site or not page_key:
        raise ValueError("note_unmatched needs a site and a page key")
    if threshold < 1:
        raise ValueError(f"threshold must be at least 1, not {threshold}")
    with connection.pipeline(transaction=True) as pipe:
        pipe.sadd(unmatched_key(site), page_key)
        pipe.expire(unmatched_key(site), UNMATCHED_TTL_S)
        pipe.scard(unmatched_key(site))
        _, _, count = pipe.execute()
    if count < threshold:
        return None
    log.info("%d pages of %s fit none of its templates: re-learning it", count, site)
    return enqueue_learn(site, connection=connection)


def unmatched_pages(site: str, connection: redis.Redis) -> set[str]:
    """Keys of the pages of ``site`` recorded as unmatched since its last learn started."""
    return {m.decode() if isinstance(m, bytes) else m for m in connection.smembers(unmatched_key(site))}


def clear_unmatched(site: str, connection: redis.Redis) -> int:
    """Forget the unmatched pages of ``site`` (a learn is starting and will see them); how many there were."""
    with connection.pipeline(transaction=True) as pipe:
        pipe.scard(unmatched_key(site))
        pipe.delete(unmatched_key(site))
        count, _ = pipe.execute()
    return int(count)
