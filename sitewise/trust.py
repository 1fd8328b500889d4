"""Trust from agreement, not from volume: when readers' pages and marks may change a site's rules.

Anyone's browser may upload pages and marks, and one client can hold many addresses, so nothing a
single contributor sends may move the rules on its own. The policy, applied by
:func:`sitewise.learn.site.learn_stored_site`:

1. **First rules** may come from one reader: there is nothing to protect yet.
2. **Marks** count by distinct contributors: a mark moves a selector only when at least
   ``min_contributors`` contributors made it, and more of them than made the opposite mark
   (:func:`agreed_marks`). The operator's marks always count.
3. **Changes.** Once a site has rules, a new version is compared with them page by page
   (:func:`judge_change`). A version that extracts what the current one does is stored. One that
   moves the article region on the pages of the contributors who taught the current rules is **held
   for review** (an administrator accepts or rejects it; the served rules stay). One that moves it only
   on newer pages is stored once the pages (and marks) it changes come from ``min_contributors``
   independent contributors whose contributions span ``min_span_s`` seconds ("over time": a burst from
   many addresses is one attack, not many readers); until then it waits. The operator's pages count as
   agreement.
4. **Corroborated rules** (:func:`rules_corroborated`): the current rules fit the pages of
   ``min_contributors`` contributors over ``min_span_s``, or of the operator. Only such sites' pages may
   teach anything beyond the site itself (the fallback's self-training).
"""
from __future__ import annotations

import datetime as _dt
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .learn.rules import RuleReader, read_rules
from .metrics import word_prf
from .page import Page

if TYPE_CHECKING:
    from .config import Settings
    from .store import Store

#: Independent contributors who must agree before established rules change (and before a mark counts).
#: Three: two addresses are cheap for anyone, and a reader community of a site reaches three quickly.
MIN_AGREEING_CONTRIBUTORS = 3
#: Their contributions must span this long (a day): a burst from many addresses is one attacker.
MIN_AGREEMENT_SPAN_S = 86_400
#: Two rule sets extract "the same" from a page when their texts' word F1 is at least this (the same
#: rules learned from a few more pages differ by less; a region moved to the comments scores ~0.2).
SAME_REGION_F1 = 0.9
#: Label of the operator in support counts (pages and marks with no contributor tag).
OPERATOR = "(operator)"
_OPPOSITE = {"not_article": "missing", "missing": "not_article"}


@dataclass(frozen=True)
class AgreementPolicy:
    """How many independent contributors, over how long, make agreement."""

    min_contributors: int = MIN_AGREEING_CONTRIBUTORS
    min_span_s: float = MIN_AGREEMENT_SPAN_S

    @classmethod
    def from_settings(cls, settings: "Settings") -> "AgreementPolicy":
        return cls(settings.agreement_contributors, settings.agreement_hours * 3600.0)


@dataclass
class Support:
    """Who a rule version's evidence comes from: distinct contributors, whether the operator is among
    them, and how long their contributions span."""

    contributors: int = 0
    operator: bool = False
    span_s: float = 0.0

    def agrees(self, policy: AgreementPolicy) -> bool:
        return self.operator or (self.contributors >= policy.min_contributors and self.span_s >= policy.min_span_s)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def support_of(contributions: Sequence[tuple[str | None, float]]) -> Support:
    """The support of (contributor tag or None for the operator, time) pairs."""
    tags = {tag for tag, _ in contributions if tag is not None}
    times = [when for _, when in contributions]
    return Support(len(tags), any(tag is None for tag, _ in contributions), (max(times) - min(times)) if times else 0.0)


# -- marks -----------------------------------------------------------------------------------------


def _mark_target(mark: Mapping[str, Any]) -> str:
    """What a mark is about: its selector, else its text."""
    return mark.get("selector") or "text:" + (mark.get("text") or "").strip()


def agreed_marks(marks: Sequence[dict[str, Any]], min_contributors: int = MIN_AGREEING_CONTRIBUTORS) -> list[dict[str, Any]]:
    """The marks learning may use: those on a block that at least ``min_contributors`` distinct
    contributors marked the same way, and more of them than marked it the other way; every operator
    mark (no ``contributor``). One mark per contributor and page is kept (a repeat adds nothing)."""
    voters: dict[tuple[str, str], set[str]] = defaultdict(set)
    for mark in marks:
        if mark.get("contributor"):
            voters[(_mark_target(mark), mark.get("kind", ""))].add(mark["contributor"])
    kept, seen = [], set()
    for mark in marks:
        tag = mark.get("contributor")
        target, kind = _mark_target(mark), mark.get("kind", "")
        if tag:
            votes, against = len(voters[(target, kind)]), len(voters[(target, _OPPOSITE.get(kind, ""))])
            if votes < min_contributors or votes <= against:
                continue
        once = (tag, target, kind, mark.get("url"))
        if once not in seen:
            seen.add(once)
            kept.append(mark)
    return kept


# -- rule changes ----------------------------------------------------------------------------------


def region_agreement(current: dict[str, Any], new: dict[str, Any], page: Page, read: RuleReader = read_rules) -> float:
    """Word F1 between what two rule sets extract from a page (1 when neither applies confidently, 0
    when only one does). ``read``: how a rule set is applied to a page (a learn's
    :class:`~sitewise.learn.rules.RuleReadings` remembers)."""
    old_found, new_found = read(current, page), read(new, page)
    if not old_found.confident and not new_found.confident:
        return 1.0
    if old_found.confident != new_found.confident:
        return 0.0
    return word_prf(new_found.text, old_found.text).f1


@dataclass
class ChangeVerdict:
    """What :func:`judge_change` decided: ``store``, ``hold`` (for review) or ``wait`` (for agreement)."""

    decision: str
    reason: str
    #: Pages where the new rules extract something else than the current ones.
    moved_pages: int = 0
    #: Mean agreement of the two versions on the pages stored before the current rules were learned.
    earlier_agreement: float | None = None
    support: Support = field(default_factory=Support)


def judge_change(
    current: dict[str, Any],
    new: dict[str, Any],
    pages: Sequence[Page],
    owners: Mapping[str, str],
    stored_at: Mapping[str, float],
    current_since: float,
    marks: Sequence[dict[str, Any]] = (),
    policy: AgreementPolicy = AgreementPolicy(),
    read: RuleReader = read_rules,
) -> ChangeVerdict:
    """May ``new`` replace ``current``, given the pages learned from (``owners``: page key → contributor,
    absent for the operator's; ``stored_at``: page key → time) and the agreed marks? ``current_since`` is
    when the current rules became current: pages stored by then taught them. ``read``: as for
    :func:`region_agreement`."""
    agreement = {page.key: region_agreement(current, new, page, read) for page in pages}
    moved = [page for page in pages if agreement[page.key] < SAME_REGION_F1]
    earlier = [agreement[page.key] for page in pages if stored_at.get(page.key, 0.0) <= current_since]
    earlier_agreement = round(sum(earlier) / len(earlier), 4) if earlier else None
    contributions = [(owners.get(page.key), stored_at.get(page.key, 0.0)) for page in moved]
    contributions += [(mark.get("contributor"), _mark_time(mark)) for mark in marks]
    support = support_of(contributions)
    verdict = ChangeVerdict("store", "", len(moved), earlier_agreement, support)
    if not moved:
        verdict.reason = "the new rules extract what the current ones do"
    elif earlier_agreement is not None and earlier_agreement < SAME_REGION_F1:
        verdict.decision = "hold"
        verdict.reason = (
            f"held for review: the new rules move the article region on the pages that taught the current "
            f"ones (agreement {earlier_agreement:.3f} < {SAME_REGION_F1})"
        )
    elif not support.agrees(policy):
        verdict.decision = "wait"
        verdict.reason = (
            f"waiting for agreement: the change rests on {support.contributors} contributor(s) over "
            f"{support.span_s / 3600:.1f} h; {policy.min_contributors} over {policy.min_span_s / 3600:.1f} h needed"
        )
    else:
        verdict.reason = f"{support.contributors} contributors agree on the change"
    return verdict


def _mark_time(mark: Mapping[str, Any]) -> float:
    """When a mark arrived (its ``received_at``, ISO 8601), unix seconds; 0 when unknown."""
    try:
        return _dt.datetime.fromisoformat(mark.get("received_at") or "").timestamp()
    except (TypeError, ValueError):
        return 0.0


def rule_support(rules: dict[str, Any], pages: Sequence[Page], owners: Mapping[str, str],
                 stored_at: Mapping[str, float], read: RuleReader = read_rules) -> Support:
    """Whose pages ``rules`` fit (apply confidently with text). ``read``: as for :func:`region_agreement`."""
    fitting = []
    for page in pages:
        found = read(rules, page)
        if found.confident and found.text:
            fitting.append((owners.get(page.key), stored_at.get(page.key, 0.0)))
    return support_of(fitting)


def rules_corroborated(store: "Store", site: str, policy: AgreementPolicy | None = None) -> bool:
    """True when the site's current rules are corroborated: when they were stored they fit the pages of
    at least ``policy.min_contributors`` independent contributors whose pages span ``policy.min_span_s``,
    or pages of the operator. The fallback's self-training learns only from such sites."""
    if policy is None:
        from .config import Settings

        policy = AgreementPolicy.from_settings(Settings.from_env())
    support = store.rule_support(site)
    stamp = store.rules_stamp(site)
    if not support or stamp is None or support.get("version") != stamp[0]:
        return False
    return Support(int(support.get("contributors", 0)), bool(support.get("operator")),
                   float(support.get("span_s", 0.0))).agrees(policy)
