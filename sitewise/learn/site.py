"""Learning a stored site: read its pages and feedback from the store, learn, and store the new rule
version — unless it is less consistent than the current one (the poisoning guard).

Before learning, no single contributor may outvote the others: each uploader's pages count up to a
typical contributor's share (:func:`sitewise.contributors.balance_contributors`); the rest are set aside.

The guard: both the current and the new rule set are applied to the pages just learned from and scored
(mean word F1) against the new run's article selection, in which readers' marks have already won. A new
version that scores lower than the current one by more than :data:`CONSISTENCY_TOLERANCE` is rejected and
the current version stays: a flood of odd pages, or a learn that went wrong, cannot replace good rules
with worse ones. ``force`` skips the guard (an administrator's re-learn).
"""
from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from typing import Any

from ..contributors import balance_contributors
from ..store import Store
from .learner import LearnError, SiteLearner

log = logging.getLogger(__name__)

#: A new rule version may be this much less consistent than the current one and still replace it (the
#: same rules scored on a few more pages move by about this much).
CONSISTENCY_TOLERANCE = 0.01


@dataclass
class LearnOutcome:
    """What learning a stored site did."""

    site: str
    pages: int
    stored: bool
    #: The rule version current after learning (the new one when stored), None when there is none.
    version: int | None
    reason: str
    consistency_new: float | None = None
    consistency_old: float | None = None
    templates: int = 0
    confidence: float | None = None
    unlearned_pages: int = 0
    #: Pages not learned from because their contributor had already given a typical contributor's share.
    pages_set_aside: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def learn_stored_site(store: Store, site: str, *, min_pages: int = 1, force: bool = False) -> LearnOutcome:
    """Learn ``site`` from its stored pages and feedback; store the rules if they pass the guard."""
    started = time.perf_counter()
    site = store.site_key(site)  # a subdomain or a joined sister domain names its site
    stored_pages = list(store.pages(site))
    pages = balance_contributors(stored_pages, store.contributors(site))
    set_aside = len(stored_pages) - len(pages)
    current = store.rules(site)
    current_version = current.get("version") if current else None
    if len(pages) < max(1, min_pages):
        return LearnOutcome(site, len(pages), False, current_version, f"{len(pages)} pages; {min_pages} needed")
    try:
        learner = SiteLearner().fit(pages, feedback=store.feedback(site), site=site)
    except LearnError as exc:
        return LearnOutcome(site, len(pages), False, current_version, f"cannot learn: {exc}")
    rules = learner.rules_
    outcome = LearnOutcome(
        site, len(pages), False, current_version, "", templates=len(rules["templates"]),
        confidence=rules["confidence"], unlearned_pages=rules["unlearned_pages"], pages_set_aside=set_aside,
    )
    if not rules["templates"]:
        outcome.reason = "no template learned (no page has an article body the learner can find)"
    else:
        outcome.consistency_new = round(learner.consistency(rules), 4)
        if current is not None:
            outcome.consistency_old = round(learner.consistency(current), 4)
        if not force and outcome.consistency_old is not None and (
            outcome.consistency_new + CONSISTENCY_TOLERANCE < outcome.consistency_old
        ):
            outcome.reason = (
                f"rejected: the new rules are less consistent ({outcome.consistency_new:.3f}) than version "
                f"{current_version} ({outcome.consistency_old:.3f}) on the site's pages"
            )
        else:
            outcome.version = store.put_rules(site, rules)
            outcome.stored = True
            outcome.reason = "stored"
    outcome.seconds = round(time.perf_counter() - started, 3)
    log.info("learn %s: %s (%d pages, %d set aside, version %s, %.2f s)",
             site, outcome.reason, len(pages), set_aside, outcome.version, outcome.seconds)
    return outcome
