"""When an upload should make the worker (re-)learn a site, and handing the job to ``sitewise.worker.queue``.

The policy: a site is learned once it has ``min_pages_to_learn`` pages, and re-learned after
``relearn_after`` new pages since its last learn. ``sitewise.worker.queue`` keeps at most one pending job per site,
so asking twice is harmless.
"""
from __future__ import annotations

import logging
from typing import Any

import redis

from sitewise.config import Settings

log = logging.getLogger(__name__)


def learning_due(info: dict[str, Any], settings: Settings) -> bool:
    """True when a site's status (``Store.site_info``) calls for a learning job."""
    if info["pages"] < settings.min_pages_to_learn:
        return False
    return not info["learned"] or info["pages_since_learn"] >= settings.relearn_after


class Learning:
    """The learning queue as the server sees it: ask for a site to be learned; how long the queue is."""

    def __init__(self, connection: redis.Redis) -> None:
        self.connection = connection

    def request(self, site: str, reason: str, force: bool = False) -> str:
        """Enqueue learning ``site`` (the pending job when there is one); its job id. ``force`` asks the
        worker to store the new rules even when they do not beat the current ones (an admin's re-learn): a
        pending job that is not forced is replaced by a forced one."""
        from sitewise.worker import queue

        job = queue.enqueue_learn(site, connection=self.connection, force=force)
        log.info("learning %s requested (%s): job %s", site, reason, job.id)
        return job.id

    def cancel(self, site: str) -> bool:
        """Take the pending learn job of ``site`` off the queue (the site is being deleted); False when none
        was pending."""
        from sitewise.worker import queue

        return queue.cancel_learn(site, self.connection)

    def queue_length(self) -> int:
        from sitewise.worker import queue

        return len(queue.learn_queue(self.connection))
