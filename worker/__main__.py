"""``python -m sitewise.worker``: an RQ worker for the learning queue, on the configured Redis (``REDIS_URL``,
else the embedded Redis in ``SITEWISE_DATA_DIR``). SIGTERM finishes the job in hand first.

Redis going away never ends the process: the worker waits for it with capped exponential backoff (logged),
then starts working again. A process that exited instead would be restarted by ``sitewise up`` or Docker
only to fail at once while Redis is still away, and a restart loop tells the operator less than a log
line that says what the worker waits for.
"""
from __future__ import annotations

import logging
import os
import signal
import threading
from types import FrameType

import redis
from rq import Queue, Worker
from rq.defaults import DEFAULT_WORKER_TTL
from rq.executions import Execution
from rq.job import Job

from sitewise.config import SettingError, Settings, configure_logging, log_level_from_env
from sitewise.redis_conn import WAIT_MAX_DELAY_S, connect, wait_for_redis

from .queue import JOB_SERIALIZER, learn_queue

log = logging.getLogger("worker")

#: How often a worker looks for jobs abandoned by a worker that died whole (its heartbeat lapsed) and
#: retries them; RQ's default of 10 minutes would leave a site unlearned that long.
MAINTENANCE_INTERVAL_S = 60
#: Pause before a new RQ worker replaces one that quit on an error.
RESTART_PAUSE_S = 1.0
#: How long the worker's Redis reads may wait: RQ's worker TTL, longer than its blocking dequeue (BLMOVE
#: for the TTL less 15 s), which the store's bound (``Settings.redis_timeout_seconds``) would cut short (RQ
#: logs "could not connect to Redis instance", backs off and blocks again). RQ lengthens a shorter timeout
#: itself, but only for the connections it makes, not the one our wait for Redis made first. A job's reads
#: (``job.connection``) have the same bound, each read its own: a learn over many pages is never cut.
REDIS_TIMEOUT_S = DEFAULT_WORKER_TTL


class LearnWorker(Worker):
    """RQ's worker, remembering whether a stop was asked for (a signal) or it quit on an error, and which
    job it had in hand when it quit."""

    #: RQ's own wait for Redis while idle (between jobs) has the same cap as ours, not its 60 s.
    max_connection_wait_time = WAIT_MAX_DELAY_S
    stop_requested = False
    job_in_hand: tuple[Job, Queue, Execution | None] | None = None

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_requested = True
        super().request_stop(signum, frame)

    def prepare_execution(self, job: Job) -> Execution:
        execution = super().prepare_execution(job)
        if self.job_in_hand is not None:
            self.job_in_hand = (*self.job_in_hand[:2], execution)
        return execution

    def execute_job(self, job: Job, queue: Queue) -> None:
        self.job_in_hand = (job, queue, None)
        super().execute_job(job, queue)  # raises when Redis goes away meanwhile: the job stays in hand
        self.job_in_hand = None

    def wind_up_after_outage(self) -> None:
        """Once Redis is back, finish what RQ's teardown could not when it went: deregister, stop listening
        for commands (that thread would reconnect and linger), and hand the job in hand back."""
        self.hand_back_lost_job()
        self.register_death()
        self.unsubscribe()

    def hand_back_lost_job(self) -> None:
        """The job this worker was running when it lost Redis goes to RQ's failure handling, which retries
        it (learn and retrain jobs have retries). Its work-horse is stopped first, since its result could
        not be recorded. Without this the job would sit in the started registry until its heartbeat lapsed
        (minutes), and its site's pending mark would hold back any new learn job as long."""
        if self.job_in_hand is None:
            return
        job, queue, execution = self.job_in_hand
        if self.horse_pid and _unreaped_child(self.horse_pid):  # not a finished job's pid, now maybe another's
            self.kill_horse(signal.SIGKILL)
            self.wait_for_horse()
        self.handle_job_failure(job, queue, exc_string="the worker lost Redis while running it", execution=execution)
        self.job_in_hand = None
        log.warning("worker %s: job %s, cut off by the Redis outage, handed back to RQ for a retry", self.name, job.id)


def main() -> int:
    configure_logging(log_level_from_env())
    try:
        settings = Settings.from_env()
    except SettingError as exc:  # one line naming the variable, not a traceback, and no retrying in vain
        log.critical("%s", exc)
        return 2
    connection = worker_connection(settings)
    stopping = threading.Event()
    _stop_on_signal(stopping)
    quit_on_error: LearnWorker | None = None
    while wait_for_redis(connection, stopping, "worker"):
        if quit_on_error is not None:
            try:
                quit_on_error.wind_up_after_outage()
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                log.error("worker %s: Redis went away again: %s", quit_on_error.name, exc)
                continue
            quit_on_error = None
        worker = LearnWorker(
            [learn_queue(connection)], connection=connection, serializer=JOB_SERIALIZER,
            maintenance_interval=MAINTENANCE_INTERVAL_S,
        )
        try:
            worker.work()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            # RQ's start (registering) or teardown (deregistering) met a Redis that went away.
            log.error("worker %s lost Redis: %s", worker.name, exc)
        if worker.stop_requested:
            return 0
        # RQ's loop quits on an error it does not handle (a Redis outage in the middle of a job); once
        # Redis answers, the job in hand is handed back and a new RQ worker starts.
        log.warning("worker %s stopped on an error; starting again once Redis answers", worker.name)
        quit_on_error = worker
        _stop_on_signal(stopping)
        stopping.wait(RESTART_PAUSE_S)  # an error that is not an outage must not make this loop spin
    return 0


def worker_connection(settings: Settings) -> redis.Redis:
    """The worker's Redis connection: the store's, with reads bounded by :data:`REDIS_TIMEOUT_S` rather
    than the store's bound."""
    return connect(settings.redis_url, settings.data_dir, REDIS_TIMEOUT_S)


def _unreaped_child(pid: int) -> bool:
    """Whether ``pid`` is a child of ours not yet waited for (running, or exited but not reaped)."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _stop_on_signal(stopping: threading.Event) -> None:
    """Until RQ installs its own handlers (and between its runs), a stop signal ends the wait for Redis."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopping.set())


if __name__ == "__main__":
    raise SystemExit(main())
