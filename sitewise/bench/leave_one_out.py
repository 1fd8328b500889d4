"""Learned rules on recent pages of sites with a few pages each, leave-one-out: ``sitewise bench learn``'s
section on a set without a per-site split (wcxb-dev). Each page of a site with at least
:data:`MIN_SITE_PAGES` pages is scored by rules learnt from the site's other pages (as a publisher's fifth
page by rules from its other four), beside the fallback alone, trafilatura, and sitewise's answer without
the check of templates of few pages (:data:`sitewise.pipeline.MIN_TRUSTED_TEMPLATE_PAGES`).

The shipped fallback was trained on these pages, so the fallback here is a block model trained for the run
on the shipped model's training sets without these sites' pages (never on a page it scores).
"""
from __future__ import annotations

import logging
import statistics
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..metrics import Score, Summary, word_prf
from ..pipeline import RULES_OVERRULED, SitewiseExtractor

log = logging.getLogger(__name__)

#: A site is scored leave-one-out when it has at least this many pages: rules learnt from two pages or more.
MIN_SITE_PAGES = 3


@dataclass
class LeftOut:
    """One page scored with rules learnt from its site's other pages."""

    id: str
    page_type: str
    answered_by_rules: bool  # the rules' answer was confident
    overruled: bool  # ... and the fallback's replaced it (a template of few pages disagreed)
    rules: Score  # the rules alone (their own text, empty or not, where not confident)
    sitewise: Score  # sitewise's answer (sitewise.pipeline.find_article)
    unchecked: Score  # the rules where confident, else the fallback: the answer before templates were checked
    fallback: Score  # the fallback alone
    trafilatura: Score | None


def sites_of(manifest: Path, min_pages: int = MIN_SITE_PAGES, limit_sites: int | None = None) -> dict[str, list[Any]]:
    """The set's sites (registrable domains, as the server keys them) of ``min_pages`` scored pages or
    more (truth in the page), each with its pages, in manifest order; the first ``limit_sites``."""
    from ..manifest import read_manifest

    by_site: dict[str, list[Any]] = defaultdict(list)
    for entry in read_manifest(manifest, "registrable"):
        if entry.has_truth and not entry.mismatch and entry.group:
            by_site[entry.group].append(entry)
    sites = {site: entries for site, entries in by_site.items() if len(entries) >= min_pages}
    return dict(list(sites.items())[:limit_sites]) if limit_sites else sites


def fallback_without(data: Path, sites: set[str], out: Path) -> Path:
    """A block model trained on the shipped model's training sets (in ``data``) without the pages of
    ``sites``, saved to ``out``."""
    from ..manifest import read_manifest
    from ..mss.blocktrain import TRAINING_SETS, train_block_model

    entries = [
        entry for name in TRAINING_SETS for entry in read_manifest(data / name, "registrable")
        if entry.has_truth and not entry.mismatch and entry.raw.get("html") and entry.group not in sites
    ]
    log.info("training a fallback on %d pages of %s without %d sites' pages", len(entries), ", ".join(TRAINING_SETS), len(sites))
    model, _ = train_block_model((entry.html() or "", entry.truth() or "", entry.url) for entry in entries)
    return model.save(out)


def score_left_out(site_pages: Sequence[tuple[Any, Any]], fallback_model: Path, trafilatura: Any = None) -> list[LeftOut]:
    """Every page of one site, (manifest entry, rendered document) pairs, scored leave-one-out."""
    from ..learn.extractor import RulesExtractor

    alone = SitewiseExtractor.from_rules(None, mss_model=str(fallback_model))
    scored = []
    for index, (entry, document) in enumerate(site_pages):
        truth = entry.truth() or ""
        rules_extractor = RulesExtractor().fit([other for i, (_, other) in enumerate(site_pages) if i != index])
        rules_text, rules_info = rules_extractor.extract_detailed(document)
        rules = rules_extractor.learner_.rules_ if rules_extractor.learner_ is not None else None
        text, info = SitewiseExtractor.from_rules(rules, mss_model=str(fallback_model)).extract_detailed(document)
        # where sitewise answered by the fallback, that is the fallback's answer: read once
        fallback_text = text if info["method"] == "mss" else alone.extract(document)
        confident = rules_info["method"] == "rules"
        scored.append(LeftOut(
            id=entry.id,
            page_type=entry.raw.get("page_type") or "page",
            answered_by_rules=confident,
            overruled=info.get("why", "").startswith(RULES_OVERRULED),
            rules=word_prf(rules_text, truth),
            sitewise=word_prf(text, truth),
            unchecked=word_prf(rules_text if confident else fallback_text, truth),
            fallback=word_prf(fallback_text, truth),
            trafilatura=word_prf(trafilatura.extract(document), truth) if trafilatura is not None else None,
        ))
    return scored


def leave_one_out_section(name: str, data: Path, *, workers: int = 2, progress: bool = True,
                          limit_sites: int | None = None, trafilatura: Any = None) -> list[str]:
    """The report's section for set ``name`` of ``data``: its sites of :data:`MIN_SITE_PAGES` pages or more
    rendered, a fallback trained without them, every page scored leave-one-out."""
    from ..evaluate import DEFAULT_RENDER_CACHE, load_documents

    sites = sites_of(data / name, limit_sites=limit_sites)
    entries = [entry for pages in sites.values() for entry in pages]
    documents, errors = load_documents(entries, needs_page=True, workers=workers, cache_dir=DEFAULT_RENDER_CACHE,
                                       progress=progress)
    for document_id, error in errors.items():
        log.warning("%s: %s", document_id, error)
    rendered: dict[str, list[tuple[Any, Any]]] = defaultdict(list)
    for entry, document in zip(entries, documents):
        if document.id not in errors and document.page is not None:
            rendered[entry.group].append((entry, document))
    scored_sites = [site_pages for site_pages in rendered.values() if len(site_pages) >= MIN_SITE_PAGES]
    with tempfile.TemporaryDirectory() as folder:
        model = fallback_without(data, set(sites), Path(folder) / "fallback.json.gz")
        scored = [page for site_pages in scored_sites for page in score_left_out(site_pages, model, trafilatura)]
    return leave_one_out_lines(name, scored, sites=len(scored_sites))


def leave_one_out_lines(name: str, scored: Sequence[LeftOut], sites: int) -> list[str]:
    """The section's table (by page type, then every page) and its summary."""
    from ..pipeline import MIN_RULES_FALLBACK_AGREEMENT, MIN_TRUSTED_TEMPLATE_PAGES

    with_peer = any(page.trafilatura is not None for page in scored)
    lines = [
        f"## {name}: sites of {MIN_SITE_PAGES} pages or more, leave-one-out", "",
        f"Each page scored by rules learnt from its site's other pages. *sitewise*: what sitewise answers (the "
        f"fallback where the rules are not confident, and where a template learnt from fewer than "
        f"{MIN_TRUSTED_TEMPLATE_PAGES} pages shares less than a word F1 of {MIN_RULES_FALLBACK_AGREEMENT} with "
        f"it); *unchecked*: the rules wherever they are confident. The fallback is a block model trained for "
        f"this run without these sites' pages.", "",
    ]
    header = "| page type | pages | rules confident | overruled | rules alone F1 | sitewise P | R | F1 | unchecked F1 | fallback alone F1 |"
    if with_peer:
        header += " trafilatura F1 |"
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    groups: dict[str, list[LeftOut]] = defaultdict(list)
    for page in scored:
        groups[page.page_type].append(page)
    for label, pages in [*sorted(groups.items()), ("all", list(scored))]:
        if not pages:
            continue
        answered = Summary.of([p.sitewise for p in pages])
        row = (f"| {label} | {len(pages)} | {sum(p.answered_by_rules for p in pages)} | {sum(p.overruled for p in pages)} | "
               f"{_mean_f1([p.rules for p in pages])} | {answered.precision:.3f} | {answered.recall:.3f} | {answered.f1:.3f} | "
               f"{_mean_f1([p.unchecked for p in pages])} | {_mean_f1([p.fallback for p in pages])} |")
        if with_peer:
            row += f" {_mean_f1([p.trafilatura for p in pages if p.trafilatura is not None])} |"
        lines.append(row)
        print(row)
    methods = Counter("overruled" if p.overruled else "rules" if p.answered_by_rules else "fallback" for p in scored)
    summary = (f"**{name}: {sites} sites, {len(scored)} pages: sitewise {_mean_f1([p.sitewise for p in scored])}, "
               f"unchecked {_mean_f1([p.unchecked for p in scored])}, fallback alone {_mean_f1([p.fallback for p in scored])}; "
               f"answered by {', '.join(f'{k} {v}' for k, v in methods.most_common())}.**")
    lines += ["", summary, ""]
    print(summary)
    return lines


def _mean_f1(scores: Sequence[Score]) -> str:
    return f"{statistics.fmean(s.f1 for s in scores):.3f}" if scores else "–"
