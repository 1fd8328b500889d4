"""``SiteLearner``: learn a site's rules from its collected pages, scikit-learn style.

    learner = SiteLearner().fit(pages)        # pages of one site (sitewise.page.Page, with blocks)
    learner.rules_                             # the rule set JSON (docs/rules.md)
    learner.predict(page)                      # an Extraction (text, template, confident)

Phases of ``fit``, in order (each in its own module):

1. features (:mod:`.features`) and DBSCAN clusters (:mod:`.cluster`) of all blocks of all pages;
2. term statistics, tf-idf and cross-page redundancy (:mod:`.scoring`);
3. templates by covering with body clusters (:mod:`.templates`);
4. per template, the article blocks (:mod:`.selection`), with readers' feedback applied;
5. per template, include/exclude selectors induced from those blocks (:mod:`.consolidate`), readers'
   marks enforced, the usual article length measured, match selectors chosen;
6. the rule set, with a confidence: how well the rules reproduce the selection on the training pages.
"""
from __future__ import annotations

import logging
import math
import operator
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence
from urllib.parse import urldefrag

import numpy as np

from ..gcpause import cyclic_gc_paused
from ..metrics import overlap_prf, word_prf, words as metric_words
from ..page import Block, Page
from .cluster import cluster_blocks
from .consolidate import PathIndex, induce, step_selectors
from .features import BlockRecord, describe_blocks
from .rules import (
    RULES_FORMAT, BlockMatcher, Extraction, RuleReader, TemplateMatcher, apply_rules, count_words, line_key, may_recur,
    now_iso, read_rules, select_blocks,
)
from .scoring import analyse_text, text_key
from .selection import Selection, apply_feedback, select_article
from .selectors import Step
from .templates import MIN_TEMPLATE_PAGES, choose_match, group_templates

log = logging.getLogger(__name__)
_PAGE = operator.attrgetter("page")

#: A template whose rules reproduce the learner's own article selection on its own training pages
#: worse than this (mean word F1) is dropped, its pages left to the fallback: rules that cannot select
#: the article where it is known are confidently wrong everywhere else (l3s-gn1's news.bbc.co.uk, before
#: unnamed paths got tag chains: agreement 0.09, test F1 0.08, while MSS scored 0.95).
#: (Where readers' marks shaped the selection, the poisoning guard of sitewise.learn.site judges the
#: rules against the current version instead, and an administrator's forced re-learn still stores them.)
MIN_TEMPLATE_AGREEMENT = 0.5
#: The accepted article length of a template is [min(LOW × shortest, LOW_CAP), HIGH × longest + SLACK]
#: words of its training pages: far less means the rules missed the article (they hold a caption of a
#: gallery or video page), far more that they caught the whole page. Only order-of-magnitude outliers
#: are suspect: a site's articles range from a brief to a long read, and on dragnet, spider and
#: l3s-gn1 (learning from 1, 2, 3 or all pages) every page flagged by the earlier 4x bound or by a
#: 0.2x floor above 25 words had been extracted right (F1 0.96-1.00), and MSS did no better or far worse.
WORDS_LOW_FACTOR = 0.2
#: ... but a page of 25 words or more is never "too short": that is an article, if a short one.
WORDS_LOW_CAP = 25
WORDS_HIGH_FACTOR = 10.0
WORDS_HIGH_SLACK = 200
#: A body line (by :func:`~.rules.line_key`: case and spacing aside, digits kept) that the template's rules
#: select on at least this share of its pages, and on two at least, as link text (:data:`RECURRING_LINK_SHARE`)
#: is the site's furniture inside the article's container: a share bar's "Tweet", an "Enlarge Photo" link
#: under every picture (the InfoDiscoverer paper's redundancy, per line). Its heading's lines (bylines) and section heads stay (:func:`~.rules.may_recur`). On every
#: per-site set, measured on what readers saw (docs/bench-learn.md), recurring lines of plain text were
#: as often the article's ("What's the Big Idea?" in a paragraph, a columnist's name) as not.
RECURRING_SHARE = 0.5
MIN_RECURRING_PAGES = 2
#: ... and at least this share of its characters in links.
RECURRING_LINK_SHARE = 0.5
#: Heading selectors are kept only when they pick out the heading of the training pages at least this
#: well (weighted F1, each page's heading weighing 1): below it they would add a site's boilerplate.
MIN_HEADING_F1 = 0.5
#: At most this many heading selectors: a headline, a byline or date line, a standfirst (on dragnet's
#: sites 3 select as well as 6, and each one costs every page it is applied to a pass over its blocks).
MAX_HEADING_INCLUDE = 3


class LearnError(ValueError):
    """The pages cannot be learned from (none has blocks)."""


@dataclass
class TemplateReport:
    """How one template was learned."""

    name: str
    pages: list[int]
    seed_cluster: int
    accepted_clusters: list[int]
    agreement: float  # mean word F1 of the rules' text against the selected blocks' text
    foreign_matches: int  # pages of other templates its match selectors also match


@dataclass
class LearnReport:
    site: str
    pages: int
    blocks: int
    clusters: int
    templates: list[TemplateReport]
    unlearned_pages: list[int]
    seconds: float
    phase_seconds: dict[str, float] = field(default_factory=dict)


class SiteLearner:
    """Learns one site's rule set from its pages (``fit``) and applies it (``predict``)."""

    def __init__(self, *, headline: bool = True, min_template_pages: int | None = None) -> None:
        self.headline = headline
        self.min_template_pages = min_template_pages

    # -- fit ---------------------------------------------------------------------------------------

    @cyclic_gc_paused  # a learn of 100 pages spent 0.6 s of 1.4 s in collections walking the site's pages
    def fit(
        self, pages: Sequence[Page], feedback: Sequence[dict[str, Any]] = (), *, site: str | None = None
    ) -> "SiteLearner":
        """Learn the rules of the site ``pages`` make up (named ``site``; by default the site most of
        them belong to). Pages no template fits are left to the fallback, never the whole site."""
        started = time.perf_counter()
        phases: dict[str, float] = {}
        given = [p for p in pages if p.blocks]
        if not given:
            raise LearnError("no pages with blocks to learn from")
        pages = distinct_pages(given)
        if len(pages) < len(given):
            log.debug("%d of %d pages are copies of others: learning from %d", len(given) - len(pages), len(given), len(pages))
        # The caller decides what one site is (the store's site key, an eval group, a --site name): pages
        # of several hosts or domains are learned together, a template per layout, whatever their hosts.
        site_name = site or Counter(p.site for p in given).most_common(1)[0][0]

        mark = time.perf_counter()
        records = describe_blocks(pages)
        labels = cluster_blocks(records)
        phases["cluster"] = time.perf_counter() - mark

        mark = time.perf_counter()
        text = analyse_text(pages, records)
        min_pages = self.min_template_pages or MIN_TEMPLATE_PAGES
        groups, unlearned = group_templates(records, labels, text, len(pages), min_pages)
        phases["score"] = time.perf_counter() - mark

        mark = time.perf_counter()
        paths, path_of = _distinct_paths(records)
        path_pages: list[set[int]] = [set() for _ in paths]
        for record, number in zip(records, path_of):
            path_pages[number].add(record.page)
        index = PathIndex(paths)
        templates: list[dict[str, Any]] = []
        reports: list[TemplateReport] = []
        reference: dict[int, str] = {}
        for number, group in enumerate(groups, 1):
            selection = select_article(
                pages, records, labels, text, group.stats, group.seed, group.pages, headline=self.headline
            )
            marked = apply_feedback(pages, records, selection, feedback)
            positive, negative = _path_weights(records, path_of, len(paths), selection, selection.article)
            induced = induce(index, positive, negative)
            if not induced.include:
                unlearned.extend(group.pages)
                continue
            include, exclude = _enforce_feedback(pages, records, selection, induced.include, induced.exclude, feedback)
            heading = _heading_rules(records, path_of, index, selection, marked=bool(marked))
            template, agreement, texts = _measure(f"t{number}", pages, records, selection, include, exclude, heading)
            if agreement < MIN_TEMPLATE_AGREEMENT and not marked:
                log.debug("template t%d (%d pages): rules reproduce the article on its own pages at F1 %.2f only: "
                         "dropped", number, len(group.pages), agreement)
                unlearned.extend(group.pages)
                continue
            reference.update(texts)
            templates.append(template)
            reports.append(TemplateReport(
                template["name"], group.pages, group.seed, sorted(selection.accepted_clusters), agreement, 0
            ))
            group_regions = [selection.regions[p] for p in group.pages if selection.regions.get(p)]
            template["_regions"] = group_regions
        unlearned.extend(_choose_matches(templates, reports, index, path_pages))
        phases["rules"] = time.perf_counter() - mark

        covered = sum(len(r.pages) for r in reports)
        agreement = sum(r.agreement * len(r.pages) for r in reports) / covered if covered else 0.0
        confidence = agreement * covered / len(pages)
        # The most common layout (tried last) is the one for consumers that do not choose templates.
        primary = templates[-1] if templates else {"include": [], "exclude": []}
        self.rules_: dict[str, Any] = {
            "format": RULES_FORMAT,
            "site": site_name,
            # whose pages the rules are of, whatever the name: a rule set handed to sitewise.extract applies to
            # them (copies included: a page's copy under another site's address, a mirror, is that site's too)
            "sites_learned": sorted({page.site for page in given}),
            "learned_at": now_iso(),
            "pages_learned": len(pages),
            "confidence": round(confidence, 4),
            "include": list(primary["include"]),
            "exclude": list(primary["exclude"]),
            "templates": templates,
            "unlearned_pages": len(unlearned),
        }
        self.reference_texts_ = reference
        self.pages_ = pages
        self.records_: list[BlockRecord] = records
        self.cluster_labels_ = labels
        self.report_ = LearnReport(
            site_name, len(pages), len(records), int(len(set(labels.tolist()))), reports, sorted(unlearned),
            time.perf_counter() - started, phases,
        )
        return self

    # -- predict -------------------------------------------------------------------------------------

    def predict(self, page: Page) -> Extraction:
        """The article of a page of the site by the learned rules."""
        return apply_rules(self.rules_, page=page)

    def consistency(self, rules: dict[str, Any] | None, read: RuleReader = read_rules) -> float:
        """How well a rule set reproduces this fit's article selection on the pages it learned from (mean
        word F1; a page where the rules are not confident counts 0): the poisoning guard compares the
        current and the new rule version with it. ``read``: how the rules are applied to a page (a learn's
        :class:`~sitewise.learn.rules.RuleReadings` remembers)."""
        if not rules or not self.reference_texts_:
            return 0.0
        scores = []
        for page_number, reference in self.reference_texts_.items():
            extraction = read(rules, self.pages_[page_number])
            scores.append(word_prf(extraction.text, reference).f1 if extraction.confident else 0.0)
        return sum(scores) / len(scores)


def distinct_pages(pages: Iterable[Page]) -> list[Page]:
    """The pages, each once (the first given): a page given again, under the same URL (fragment aside) or
    with the same text (by :func:`sitewise.learn.scoring.text_key`: a file named twice, a print or
    tracking-parameter copy of an article), is a copy. The learner knows boilerplate as text that recurs on
    many pages: copies made their article look like it (three copies of one of eight pages, and no article
    body was found). A page's canonical URL does not decide: pages set it wrong (every page of a site
    naming its home page), and the store keys pages by it already."""
    addresses: set[str] = set()
    texts: set[str] = set()
    kept = []
    for page in pages:
        address, text = urldefrag(page.url).url, page_text_key(page)
        if address in addresses or text in texts:
            continue
        addresses.add(address)
        texts.add(text)
        kept.append(page)
    return kept


def page_text_key(page: Page) -> str:
    """:func:`.scoring.text_key` of the page's whole text, joined from its blocks' keys: the same string
    (whitespace and digit runs do not cross a block's end), from keys a site's pages share."""
    return " ".join(filter(None, map(text_key, [block.text for block in page.blocks])))


def _distinct_paths(records: Sequence[BlockRecord]) -> tuple[list[tuple[Step, ...]], list[int]]:
    number_of: dict[tuple[Step, ...], int] = {}
    path_of = [number_of.setdefault(r.steps, len(number_of)) for r in records]
    return list(number_of), path_of


def _path_weights(
    records: Sequence[BlockRecord], path_of: Sequence[int], count: int, selection: Selection, wanted: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positive (``wanted``: the body, or the heading) and negative weight of each distinct path on the
    template's pages; every page's wanted text weighs 1 in total, so long articles do not drown short
    ones (a page without wanted text weighs 1 in total, all negative)."""
    # Whole-array sums (np.bincount adds in record order, as a loop would): this sees every block.
    page_of = np.fromiter(map(_PAGE, records), dtype=np.int64, count=len(records))
    numbers = np.flatnonzero(np.isin(page_of, selection.pages))
    pages, weights, article = page_of[numbers], selection.weight[numbers], wanted[numbers].astype(bool)
    size = int(page_of.max()) + 1 if len(page_of) else 0
    page_total = np.bincount(pages, weights=weights, minlength=size)
    positive_total = np.bincount(pages[article], weights=weights[article], minlength=size)
    share = weights / np.maximum(np.where(positive_total != 0, positive_total, page_total), 1.0)[pages]
    paths = np.asarray(path_of, dtype=np.int64)[numbers]
    positive = np.bincount(paths[article], weights=share[article], minlength=count)
    negative = np.bincount(paths[~article], weights=share[~article], minlength=count)
    return positive, negative


def _heading_rules(
    records: Sequence[BlockRecord], path_of: Sequence[int], index: PathIndex, selection: Selection, *, marked: bool
) -> list[str]:
    """Selectors for the article's heading, induced apart from the body's (against everything else on
    the pages, the body included); none when they would not pick it out well (F1 below
    :data:`MIN_HEADING_F1` on the training pages) or when the template's pages have no heading. A
    selector that would take a block a reader marked "not article" is left out."""
    if not selection.heading.any():
        return []
    positive, negative = _path_weights(records, path_of, len(index.paths), selection, selection.heading)
    induced = induce(index, positive, negative, equivalents=False, max_include=MAX_HEADING_INCLUDE)
    refused: set[int] = set()
    if marked:  # readers' marks are weighted up (selection.FEEDBACK_WEIGHT): those still not article
        members = set(selection.pages)
        refused = {
            path_of[n] for n, record in enumerate(records)
            if record.page in members and selection.weight[n] > record.chars and not selection.article[n]
        }
    # Includes only: a heading is a few small elements, and the HTML path reads them before any
    # exclude could be applied to them.
    include, chosen = [], np.zeros(len(index.paths), dtype=bool)
    for selector in induced.include:
        matcher = BlockMatcher([selector])
        selects = np.fromiter(map(matcher.selects, index.paths), dtype=bool, count=len(index.paths))
        if not any(selects[path] for path in refused):
            include.append(selector)
            chosen |= selects
    tp, selected = float(positive[chosen].sum()), float((positive + negative)[chosen].sum())
    f1 = 2 * tp / (selected + float(positive.sum())) if selected else 0.0
    return include if f1 >= MIN_HEADING_F1 else []


def _enforce_feedback(
    pages: Sequence[Page],
    records: Sequence[BlockRecord],
    selection: Selection,
    include: list[str],
    exclude: list[str],
    feedback: Sequence[dict[str, Any]],
) -> tuple[list[str], list[str]]:
    """Make the rules obey the readers' marks on the learned pages: for a marked block the rules still
    get wrong, add the selector (from its path: a named step, else the whole path) that fixes it at the
    least cost — an exclude that drops no article block, an include that adds the least non-article
    text. A mark no such selector can honour (the marked block shares its path with article text) is
    left to the poisoning guard and logged."""
    if not feedback:
        return include, exclude
    include, exclude = list(include), list(exclude)
    members = set(selection.pages)
    numbers = [n for n, r in enumerate(records) if r.page in members]
    blocks = [records[n].block for n in numbers]
    marked = [i for i, n in enumerate(numbers) if selection.weight[n] > records[n].chars]
    for position in marked:
        n = numbers[position]
        chosen = set(select_blocks(blocks, include, exclude))
        wants = bool(selection.article[n])
        if (position in chosen) == wants:
            continue
        best, best_cost = None, None
        for selector in _fix_candidates(records[n].steps):
            rules = (include + [selector], exclude) if wants else (include, exclude + [selector])
            after = set(select_blocks(blocks, *rules))
            if (position in after) != wants:
                continue
            changed = after ^ chosen
            cost = sum(records[numbers[i]].chars for i in changed if bool(selection.article[numbers[i]]) != (i in after))
            if best_cost is None or cost < best_cost:
                best, best_cost = selector, cost
        allowed = 0 if not wants else records[n].chars
        if best is None or best_cost > allowed:
            log.warning("cannot honour a %s mark on %s without changing other article text",
                        "missing" if wants else "not_article", records[n].block.selector)
            continue
        (include if wants else exclude).append(best)
    return include, exclude


def _fix_candidates(steps: tuple[Step, ...]) -> list[str]:
    """Selectors for a marked block, most specific first: its named steps deepest first, then its path."""
    out = []
    for step in reversed(steps[1:]):
        out.extend(key for key, _ in step_selectors(step))
    out.append(" > ".join(step.css() for step in steps))
    return out


def _measure(
    name: str,
    pages: Sequence[Page],
    records: Sequence[BlockRecord],
    selection: Selection,
    include: list[str],
    exclude: list[str],
    heading: list[str],
) -> tuple[dict[str, Any], float, dict[int, str]]:
    """The template's JSON (without match), its agreement with the selection (body and heading) and
    the reference texts. The template's ``recurring`` lines are the body's link lines its rules select on
    :data:`RECURRING_SHARE` of its pages (:func:`~.rules.is_recurring`); its agreement and word range are
    of what the selectors select, those lines in."""
    article_of_page: dict[int, list[int]] = defaultdict(list)
    for n in np.flatnonzero(selection.article | selection.heading).tolist():
        article_of_page[records[n].page].append(n)
    words, scores, references = [], [], {}
    template: dict[str, Any] = {"name": name, "match": [], "include": include, "exclude": exclude}
    if heading:
        template["heading"] = heading
    matcher = TemplateMatcher(template)
    pages_of_line: Counter[str] = Counter()
    for page in selection.pages:
        blocks = pages[page].blocks
        selected = matcher.select(blocks)
        pages_of_line.update({
            line_key(blocks[i].text) for i, kind in selected
            if may_recur(kind, blocks[i].tag) and blocks[i].link_density >= RECURRING_LINK_SHARE
        })
        chosen = [i for i, _ in selected]
        text = "\n".join(blocks[i].text for i in chosen)
        reference = "\n".join(records[n].text for n in article_of_page[page])
        references[page] = reference
        words.append(count_words(text))
        scores.append(_block_agreement(blocks, chosen, [records[n].index for n in article_of_page[page]]))
    low = min(int(math.floor(WORDS_LOW_FACTOR * min(words))), WORDS_LOW_CAP)
    high = int(math.ceil(WORDS_HIGH_FACTOR * max(words) + WORDS_HIGH_SLACK))
    agreement = sum(scores) / len(scores)
    template.update({
        "words": [max(1, low), max(high, low)],
        "pages": len(selection.pages),
        "confidence": round(agreement, 4),
    })
    least = max(MIN_RECURRING_PAGES, RECURRING_SHARE * len(selection.pages))
    recurring = sorted(line for line, count in pages_of_line.items() if line and count >= least)
    if recurring:
        template["recurring"] = recurring
    return template, agreement, references


def _block_agreement(blocks: Sequence[Block], chosen: list[int], wanted: list[int]) -> float:
    """:func:`word_prf`'s F1 of the texts of the ``chosen`` and the ``wanted`` blocks (each joined by line
    breaks), counted so that the blocks both hold are read once: no word spans a line break, so their
    words are words of both texts, and only the blocks of one side are compared word for word."""
    if chosen == wanted:  # the rules choosing the selection's very blocks (most pages): nothing to count
        return 1.0
    chosen_set, wanted_set = set(chosen), set(wanted)
    shared = len(metric_words("\n".join(blocks[i].text for i in chosen if i in wanted_set)))
    extra = Counter(metric_words("\n".join(blocks[i].text for i in chosen if i not in wanted_set)))
    missing = Counter(metric_words("\n".join(blocks[i].text for i in wanted if i not in chosen_set)))
    overlap = shared + sum((extra & missing).values())
    return overlap_prf(overlap, shared + sum(extra.values()), shared + sum(missing.values())).f1


def _choose_matches(
    templates: list[dict[str, Any]], reports: list[TemplateReport], index: PathIndex, path_pages: list[set[int]]
) -> list[int]:
    """Order the templates, give each its match selectors, and drop those that cannot be recognised;
    returns the pages of the dropped templates.

    A page takes the first template whose match selectors are present, so a template's match only has
    to tell it apart from the templates tried *after* it. The rarer layouts are tried first, the site's
    most common layout last: its match is simply its first include (the article's container), so a
    page of a layout not seen while learning gets the common template unless its article container is
    missing, rather than none because some wrapper of the training pages happened to differ. A rarer
    template whose match would also be present on pages of a later one cannot be told apart: it is
    dropped (its pages fall back) rather than allowed to take the later template's pages."""
    regions = [template.pop("_regions") for template in templates]
    order = sorted(range(len(templates)), key=lambda i: (len(reports[i].pages), -i))
    kept: list[int] = []
    dropped: list[int] = []
    for position, i in enumerate(order):
        if position == len(order) - 1:
            # Tried last, nothing to tell it from: present when its article container is.
            templates[i]["match"], reports[i].foreign_matches = [templates[i]["include"][0]], 0
            kept.append(i)
            continue
        later = set().union(*(set(reports[j].pages) for j in order[position + 1:]))
        match, foreign = choose_match(index, path_pages, set(reports[i].pages), later, regions[i], templates[i]["include"][0])
        if foreign:
            log.debug("template %s (%d pages) cannot be told from later ones: dropped", templates[i]["name"], len(reports[i].pages))
            dropped.extend(reports[i].pages)
            continue
        templates[i]["match"], reports[i].foreign_matches = match, foreign
        kept.append(i)
    templates[:] = [templates[i] for i in kept]
    reports[:] = [reports[i] for i in kept]
    return dropped
