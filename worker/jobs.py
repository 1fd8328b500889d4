"""RQ job functions. Each is a thin shell: the work is in ``sitewise.learn.site``."""
from __future__ import annotations

from typing import Any

from rq import get_current_job

from sitewise.config import Settings
from sitewise.learn.site import learn_stored_site
from sitewise.store import Store
from sitewise.trust import AgreementPolicy

from .fallback import maybe_enqueue_retrain
from .queue import clear_unmatched, release_pending


def learn_site(site: str, force: bool = False) -> dict[str, Any]:
    """Learn ``site`` from its stored pages and store the new rules (if they pass the poisoning guard).
    The job's result is the outcome (``sitewise.learn.site.LearnOutcome`` as a dict) and how many pages
    recorded as unmatched by the site's previous rules it learned from (``unmatched_pages``)."""
    job = get_current_job()
    if job is None:
        raise RuntimeError("learn_site runs inside an RQ worker (call sitewise.learn.site.learn_stored_site directly)")
    release_pending(site, job.id, job.connection)
    unmatched = clear_unmatched(site, job.connection)  # this learn sees those pages
    settings = Settings.from_env()
    store = Store(job.connection, settings.max_pages_per_site)
    # a learn queued for new pages may find them read by a learn that ran meanwhile: then it has nothing to do
    outcome = learn_stored_site(store, site, min_pages=settings.min_pages_to_learn, force=force,
                                policy=AgreementPolicy.from_settings(settings), only_if_new=not (force or unmatched),
                                learner_id=job.id)
    if outcome.stored:
        maybe_enqueue_retrain(job.connection)  # new rules label new pages: the fallback can learn from them
    return {**outcome.to_dict(), "unmatched_pages": unmatched}
