"""Learning a stored site: read its pages and feedback from the store, learn, and store the new rule
version — unless it is less consistent than the current one (the poisoning guard).

Before learning, no single contributor may outvote the others: each uploader's pages count up to a
typical contributor's share (:func:`sitewise.contributors.balance_contributors`); the rest are set aside.

The guard: both the current and the new rule set are applied to the pages just learned from and scored
(mean word F1) against the new run's article selection, in which readers' marks have already won. A new
version that scores lower than the current one by more than :data:`CONSISTENCY_TOLERANCE` is rejected and
the current version stays: a flood of odd pages, or a learn that went wrong, cannot replace good rules
with worse ones.

Then trust from agreement (:mod:`sitewise.trust`): only marks several contributors agree on are learned
from; once a site has rules, a new version that moves the article region on the pages that taught the
current rules is held for review, and one that moves it elsewhere waits until independent contributors
over time agree. The pages the stored rules were learned from are kept by the site's page cap.
``force`` skips the guards (an administrator's re-learn).

A learn writes only to the site it read: a site deleted while it is being learned (and perhaps uploaded
anew) gets nothing from it (:meth:`sitewise.store.Store.generation`). Learns of one site run one after
another (:meth:`sitewise.store.Store.take_learn_lock`); one asked for while another ran may find that the other
has read every new page already, and with ``only_if_new`` it then learns nothing again.
"""
from __future__ import annotations

import logging
import secrets
import time
from dataclasses import asdict, dataclass
from typing import Any

from ..contributors import balance_contributors
from ..page import Page
from ..store import SiteGone, Store
from ..trust import AgreementPolicy, agreed_marks, judge_change, rule_support
from .learner import LearnError, SiteLearner
from .rules import RuleReadings

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
    #: Marks learned from (those enough contributors agree on), of all the site's marks.
    marks_used: int = 0
    #: "store", "hold" (held for review) or "wait" (for agreement) when the site had rules, else None.
    decision: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def learn_stored_site(
    store: Store, site: str, *, min_pages: int = 1, force: bool = False, policy: AgreementPolicy | None = None,
    only_if_new: bool = False, learner_id: str | None = None,
) -> LearnOutcome:
    """Learn ``site`` from its stored pages and feedback; store the rules if they pass the guards
    (``policy``: what makes agreement; default :class:`sitewise.trust.AgreementPolicy`). Waits while
    another learn of the site runs. ``only_if_new``: learn nothing when the site has rules and no page came
    since they were learned (a queued learn whose pages a learn before it has read already).
    ``learner_id`` names this learn to the site's lock (a job's id: a retry of a job that died takes over
    the lock it left); by default, a new one."""
    site = store.site_key(site)  # a subdomain or a joined sister domain names its site
    learner_id = learner_id or secrets.token_hex(8)
    if not store.take_learn_lock(site, learner_id):
        current = store.rules(site)
        return LearnOutcome(site, 0, False, current.get("version") if current else None,
                            "another learn of the site is still running")
    try:
        return _learn_locked(store, site, min_pages, force, policy or AgreementPolicy(), only_if_new)
    finally:
        if not store.free_learn_lock(site, learner_id):
            log.warning("the learn of %s outlasted its lock", site)


def _learn_locked(
    store: Store, site: str, min_pages: int, force: bool, policy: AgreementPolicy, only_if_new: bool
) -> LearnOutcome:
    """:func:`learn_stored_site` once it holds the site's lock."""
    started = time.perf_counter()
    generation = store.generation(site)  # read before the pages: what is learned from them is for this life
    keys, new_pages = store.learn_snapshot(site) if generation is not None else ([], 0)
    current = store.rules(site)
    current_version = current.get("version") if current else None
    if only_if_new and current is not None and new_pages == 0:
        log.info("learn %s: no page since version %s was learned; nothing to do", site, current_version)
        return LearnOutcome(site, len(keys), False, current_version,
                            f"nothing new since version {current_version} was learned")
    stored_pages = list(store.pages(site, keys))
    owners = store.contributors(site)
    pages = balance_contributors(stored_pages, owners)
    set_aside = len(stored_pages) - len(pages)
    if len(pages) < max(1, min_pages):
        return LearnOutcome(site, len(pages), False, current_version, f"{len(pages)} pages; {min_pages} needed")
    all_marks = store.feedback(site)
    marks = agreed_marks(all_marks, policy.min_contributors)
    try:
        learner = SiteLearner().fit(pages, feedback=marks, site=site)
    except LearnError as exc:
        return LearnOutcome(site, len(pages), False, current_version, f"cannot learn: {exc}")
    rules = learner.rules_
    outcome = LearnOutcome(
        site, len(pages), False, current_version, "", templates=len(rules["templates"]),
        confidence=rules["confidence"], unlearned_pages=rules["unlearned_pages"], pages_set_aside=set_aside,
        marks_used=len(marks),
    )
    try:
        if not rules["templates"]:
            outcome.reason = "no template learned (no page has an article body the learner can find)"
        else:
            read = RuleReadings()  # the checks below read both rule sets on the same pages, each once
            if _consistent_enough(learner, rules, current, outcome, force, read):
                _store_agreed(store, site, generation, rules, current, pages, owners, marks, outcome, policy, force,
                              new_pages, read)
        if not outcome.stored:
            store.learn_attempted(site, generation, new_pages)
    except SiteGone as exc:
        outcome.version, outcome.decision, outcome.reason = None, None, f"nothing stored: {exc}"
    outcome.seconds = round(time.perf_counter() - started, 3)
    log.info("learn %s: %s (%d pages, %d set aside, %d of %d marks, version %s, %.2f s)", site, outcome.reason,
             len(pages), set_aside, len(marks), len(all_marks), outcome.version, outcome.seconds)
    return outcome


def _consistent_enough(
    learner: SiteLearner, rules: dict[str, Any], current: dict[str, Any] | None, outcome: LearnOutcome, force: bool,
    read: RuleReadings,
) -> bool:
    """The poisoning guard: False (and why, in ``outcome``) when the new rules are less consistent on the
    pages just learned from than the current ones, beyond :data:`CONSISTENCY_TOLERANCE`; ``force`` passes."""
    outcome.consistency_new = round(learner.consistency(rules, read), 4)
    if current is not None:
        outcome.consistency_old = round(learner.consistency(current, read), 4)
    if force or outcome.consistency_old is None:
        return True
    if outcome.consistency_new + CONSISTENCY_TOLERANCE >= outcome.consistency_old:
        return True
    outcome.reason = (
        f"rejected: the new rules are less consistent ({outcome.consistency_new:.3f}) than version "
        f"{outcome.version} ({outcome.consistency_old:.3f}) on the site's pages"
    )
    return False


def _store_agreed(
    store: Store,
    site: str,
    generation: str,
    rules: dict[str, Any],
    current: dict[str, Any] | None,
    pages: list[Page],
    owners: dict[str, str],
    marks: list[dict[str, Any]],
    outcome: LearnOutcome,
    policy: AgreementPolicy,
    force: bool,
    new_pages: int,
    read: RuleReadings,
) -> None:
    """Store ``rules`` when the site has none, the change is agreed (:func:`sitewise.trust.judge_change`)
    or ``force``; hold them for review or let them wait otherwise. Records what the stored rules fit and
    the pages they were learned from (kept by the page cap). Writes nothing unless the site is still in
    its ``generation`` (:class:`sitewise.store.SiteGone`); ``new_pages``: how many of the pages were new
    (:meth:`sitewise.store.Store.learn_snapshot`); ``read``: the readings of the rule sets on the pages."""
    stored_at = store.page_times(site)
    if current is not None and not force:
        verdict = judge_change(current, rules, pages, owners, stored_at, store.learned_at(site) or 0.0, marks, policy,
                               read)
        outcome.decision = verdict.decision
        if verdict.decision != "store":
            if verdict.decision == "hold":
                support = rule_support(rules, pages, owners, stored_at, read).to_dict()
                store.hold_rules(site, rules, verdict.reason, support, generation=generation)
            outcome.reason = verdict.reason
            return
    support = rule_support(rules, pages, owners, stored_at, read).to_dict()
    outcome.version = store.put_rules(site, rules, support, taught=_taught_first(pages, owners), generation=generation,
                                     learned_new=new_pages)
    outcome.stored = True
    outcome.reason = "stored"


def _taught_first(pages: list[Page], owners: dict[str, str]) -> list[str]:
    """Keys of the pages learned from, in turns over their contributors (each one's newest first), so
    that the share of the cap kept for them holds every contributor's pages, not one flood's."""
    by_owner: dict[str | None, list[str]] = {}
    for page in reversed(pages):
        by_owner.setdefault(owners.get(page.key), []).append(page.key)
    queues = list(by_owner.values())
    return [queue[turn] for turn in range(max(map(len, queues), default=0)) for queue in queues if turn < len(queue)]
