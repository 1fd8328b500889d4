"""The evaluation harness: run an extractor over a manifest's pages and score it against the truth.

Phases, in order: select the manifest entries (split, limit, truth present) → load documents (raw HTML;
rendered blocks from the collector, or the spider import, when the extractor needs them) → extract
(per-site learners are fit on each site's ``split: train`` pages and score its ``split: test`` pages) →
score (bag-of-words P/R/F1 per page, the shingle metric) → write ``predictions.jsonl``, ``scores.jsonl``
and ``report.md``.
"""
from __future__ import annotations

import json
import logging
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from .extractors import Document, Extractor, get_extractor
from .manifest import GROUPINGS, Entry, read_manifest
from .metrics import Score, Summary, shingle_counts, shingle_prf, word_prf

log = logging.getLogger(__name__)

#: Rendered pages are cached here (keyed by collector source, URL and bytes) so re-runs skip Chromium.
DEFAULT_RENDER_CACHE = Path.home() / ".cache" / "sitewise" / "render"


@dataclass
class PageResult:
    """One scored page."""

    id: str
    group: str | None
    text: str
    score: Score | None
    shingles: tuple[float, float, float] | None
    ms: float
    mismatch: bool = False
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


@dataclass
class EvalResult:
    """All scored pages of one run, with the summaries the report shows."""

    extractor: str
    manifest: str
    pages: list[PageResult]
    #: Pages of the selection (before ``limit``) that have no truth: never extracted, never scored.
    without_truth: int = 0

    @property
    def headline(self) -> list[PageResult]:
        """Pages that count: truth present and contained in the page."""
        return [p for p in self.pages if p.score is not None and not p.mismatch]

    def summary(self, pages: Sequence[PageResult] | None = None) -> Summary:
        pages = self.headline if pages is None else pages
        scored = [p.score for p in pages if p.score is not None]
        return Summary.of(scored, empty=sum(1 for p in pages if not p.text.strip()))

    def shingle_summary(self) -> Score:
        return shingle_prf(p.shingles for p in self.headline if p.shingles is not None)

    def by_group(self) -> dict[str, Summary]:
        groups: dict[str, list[PageResult]] = defaultdict(list)
        for page in self.headline:
            groups[page.group or "(none)"].append(page)
        return {name: self.summary(pages) for name, pages in sorted(groups.items())}

    def milliseconds(self) -> tuple[float, float]:
        """Median and 95th percentile extraction time per page."""
        times = sorted(p.ms for p in self.pages if p.error is None)
        if not times:
            return 0.0, 0.0
        return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]

    def info_counts(self, key: str) -> Counter:
        return Counter(str(p.info[key]) for p in self.pages if key in p.info)


# -- phase 1: select ----------------------------------------------------------------------------


def select_entries(
    entries: Iterable[Entry], *, per_site: bool, only_split: str | None, limit: int | None
) -> tuple[list[Entry], list[Entry]]:
    """(entries to score: those with truth, extra training entries). A per-site learner trains on
    ``split: train`` pages, with truth or not, which are never scored; ``limit`` caps the scored pages (for
    per-site learners, whole sites are kept until the cap is reached, so every scored page has its site's
    training pages)."""
    scored: list[Entry] = []
    training: list[Entry] = []
    for entry in entries:
        if per_site and entry.split == "train":
            training.append(entry)
        elif entry.has_truth and _asked_for(entry, per_site, only_split):
            scored.append(entry)
    if limit is not None and len(scored) > limit:
        if per_site:
            keep_groups = list(dict.fromkeys(e.group for e in scored))
            kept: list[Entry] = []
            for group in keep_groups:
                if len(kept) >= limit:
                    break
                kept.extend(e for e in scored if e.group == group)
            scored = kept
            groups = {e.group for e in scored}
            training = [e for e in training if e.group in groups]
        else:
            scored = scored[:limit]
    return scored, training


def _asked_for(entry: Entry, per_site: bool, only_split: str | None) -> bool:
    """Whether the run scores the entry when it has truth: in the split asked for, and not a per-site
    learner's training page."""
    return not (per_site and entry.split == "train") and only_split in (None, entry.split)


# -- phase 2: load --------------------------------------------------------------------------------


def load_documents(
    entries: Sequence[Entry],
    *,
    needs_page: bool,
    workers: int = 2,
    cache_dir: Path | None = DEFAULT_RENDER_CACHE,
    progress: bool = True,
) -> tuple[list[Document], dict[str, str]]:
    """Documents for the entries, and the load error of each entry that could not be loaded."""
    from .collect import stored_url

    # A document's URL is the page's own or None: an extractor reads it as a signal of the page. A page
    # without one is rendered at a stand-in address on its site (stored_url), which stays the collected
    # page's URL only.
    documents = [
        Document(id=e.id, url=e.url, html=e.html(), group=e.group, meta={"split": e.split}) for e in entries
    ]
    errors: dict[str, str] = {}
    if not needs_page:
        return documents, errors
    spider = [(d, e) for d, e in zip(documents, entries) if e.raw.get("page")]
    if spider:
        from .spider_import import page_from_spider

        for document, entry in spider:
            try:
                document.page = page_from_spider(entry.spider_page())
            except ValueError as exc:
                errors[document.id] = f"import failed: {exc}"
    to_render = [(d, e) for d, e in zip(documents, entries) if d.page is None and d.html is not None]
    if to_render:
        from .collect import StoredPage, collect_many

        items = [StoredPage(stored_url(e.url, e.site, e.id), e.html_bytes()) for _, e in to_render]
        results = collect_many(items, workers=workers, cache_dir=cache_dir, progress=progress)
        for (document, _), result in zip(to_render, results):
            if isinstance(result, Exception):
                errors[document.id] = f"render failed: {result}"
            else:
                document.page = result
    return documents, errors


# -- phase 3 and 4: extract and score -------------------------------------------------------------


def extract_all(
    extractor_name: str,
    documents: Sequence[Document],
    training: Sequence[Document],
    truths: dict[str, str | None],
    mismatches: set[str],
    load_errors: dict[str, str],
    options: dict[str, Any] | None = None,
    progress: bool = True,
) -> list[PageResult]:
    """Extract every document (fitting per-site learners per group first) and score it."""
    from tqdm import tqdm

    options = options or {}
    prototype = get_extractor(extractor_name, **options)
    by_group: dict[str | None, list[Document]] = defaultdict(list)
    for document in training:
        by_group[document.group].append(document)
    fitted: dict[str | None, Extractor] = {}
    results: list[PageResult] = []
    # An extractor that answers from the HTML when the collected page is missing (as sitewise's pipeline
    # does for a caller with HTML alone) still answers a page that could not be rendered.
    from_html = getattr(prototype, "answers_without_page", False)
    for document in tqdm(documents, desc=f"extract {extractor_name}", unit="page", disable=not progress):
        load_error = load_errors.get(document.id)
        if load_error is not None and not (from_html and document.html):
            results.append(_result(document, "", truths, mismatches, 0.0, {}, load_error))
            continue
        extractor = prototype
        if prototype.per_site:
            group = document.group if document.meta.get("split") == "test" else None
            if group not in fitted:
                fitted[group] = get_extractor(extractor_name, **options).fit(
                    [d for d in by_group.get(group, []) if d.id not in load_errors] if group else []
                )
            extractor = fitted[group]
        start = time.perf_counter()
        error = None
        info: dict[str, Any] = {}
        try:
            detailed = getattr(extractor, "extract_detailed", None)
            if detailed:
                text, info = detailed(document)
            else:
                text = extractor.extract(document)
        except Exception as exc:  # one page failing must not stop the run; it is reported
            log.exception("extractor %s failed on %s", extractor_name, document.id)
            text, error = "", f"{type(exc).__name__}: {exc}"
        elapsed = (time.perf_counter() - start) * 1000
        if load_error is not None:
            info = {**info, "unrendered": load_error}
        results.append(_result(document, text, truths, mismatches, elapsed, info, error))
    return results


def _result(
    document: Document,
    text: str,
    truths: dict[str, str | None],
    mismatches: set[str],
    ms: float,
    info: dict[str, Any],
    error: str | None,
) -> PageResult:
    truth = truths.get(document.id)
    return PageResult(
        id=document.id,
        group=document.group,
        text=text,
        score=word_prf(text, truth) if truth is not None else None,
        shingles=shingle_counts(text, truth) if truth is not None else None,
        ms=ms,
        mismatch=document.id in mismatches,
        info=info,
        error=error,
    )


# -- the whole run ----------------------------------------------------------------------------------


def _fields_match(entry: Entry, where: dict[str, str]) -> bool:
    """The manifest record has each field at the given value, compared as the manifest writes it: text as
    it is (``subset=dev``), anything else in JSON (``year=2019``, ``truth_mismatch=true``, ``split=null``,
    which an absent field matches too)."""
    return all(_as_written(entry.raw.get(name)) == value for name, value in where.items())


def _as_written(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def evaluate(
    manifest: str | Path,
    extractor_name: str,
    *,
    only_split: str | None = None,
    where: dict[str, str] | None = None,
    limit: int | None = None,
    workers: int = 2,
    cache_dir: Path | None = DEFAULT_RENDER_CACHE,
    progress: bool = True,
    options: dict[str, Any] | None = None,
    group_by: str = "registrable",
) -> EvalResult:
    """Run one extractor over a manifest and score it (nothing is written; see :func:`write_outputs`).

    ``where`` keeps only pages whose manifest fields have these values (``{"official_split": "train"}``);
    a per-site learner's ``split: train`` pages are kept for training whatever it says. ``group_by`` says
    what one site is for per-site learners (``sitewise.manifest.Entry.group``): by default a registrable
    domain, as the server keys sites."""
    prototype = get_extractor(extractor_name, **(options or {}))
    everything = read_manifest(manifest, group_by)
    if group_by not in GROUPINGS and not any(group_by in entry.raw for entry in everything):
        raise ValueError(f"--group-by {group_by}: no page of {manifest} has that field (or use {', '.join(GROUPINGS)})")
    entries = [
        entry for entry in everything
        if _fields_match(entry, where or {}) or (prototype.per_site and entry.split == "train")
    ]
    scored, training = select_entries(entries, per_site=prototype.per_site, only_split=only_split, limit=limit)
    log.info("%s: %d pages to score, %d training pages", extractor_name, len(scored), len(training))
    documents, errors = load_documents(
        scored + training, needs_page=prototype.needs_page, workers=workers, cache_dir=cache_dir, progress=progress
    )
    truths = {e.id: e.truth() for e in scored}
    mismatches = {e.id for e in scored if e.mismatch}
    pages = extract_all(
        extractor_name, documents[: len(scored)], documents[len(scored) :], truths, mismatches, errors,
        options, progress,
    )
    without_truth = sum(1 for e in entries if not e.has_truth and _asked_for(e, prototype.per_site, only_split))
    return EvalResult(extractor_name, str(manifest), pages, without_truth)


def write_outputs(result: EvalResult, out_dir: str | Path) -> Path:
    """Write predictions.jsonl, scores.jsonl and report.md into ``out_dir``, each whole or not at all (an
    error leaves the file that was there); returns the report path."""
    from .commands.output import output_folder, write_whole

    out = output_folder(Path(out_dir))
    predictions = [{"id": page.id, "text": page.text} for page in result.pages]
    write_whole(out / "predictions.jsonl", _json_lines(predictions))
    write_whole(out / "scores.jsonl", _json_lines(_score_row(page) for page in result.pages))
    report = out / "report.md"
    write_whole(report, render_report(result))
    return report


def _json_lines(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def _score_row(page: PageResult) -> dict[str, Any]:
    row = {"id": page.id, "group": page.group, "ms": round(page.ms, 3), "mismatch": page.mismatch}
    if page.score:
        row.update(precision=page.score.precision, recall=page.score.recall, f1=page.score.f1)
    row.update({k: v for k, v in page.info.items() if isinstance(v, (str, int, float, bool))})
    if page.error:
        row["error"] = page.error
    return row


def render_report(result: EvalResult) -> str:
    overall = result.summary()
    shingles = result.shingle_summary()
    median_ms, p95_ms = result.milliseconds()
    left_out = sum(1 for p in result.pages if p.mismatch)
    errors = [p for p in result.pages if p.error]
    lines = [
        f"# sitewise eval: `{result.extractor}` on `{result.manifest}`",
        "",
        f"Pages scored: {overall.pages} (left out: {left_out} whose truth is not in the page; "
        f"{result.without_truth} without truth). Errors: {len(errors)}.",
        "",
        "| metric | precision | recall | F1 | median F1 | empty outputs |",
        "|---|---|---|---|---|---|",
        f"| bag of words (mean per page) | {overall.precision:.3f} | {overall.recall:.3f} | {overall.f1:.3f} "
        f"| {overall.median_f1:.3f} | {overall.empty} |",
        f"| 4-token shingles (benchmark) | {shingles.precision:.3f} | {shingles.recall:.3f} | {shingles.f1:.3f} | | |",
        "",
        f"Extraction time per page: median {median_ms:.2f} ms, p95 {p95_ms:.2f} ms.",
        "",
    ]
    methods = result.info_counts("method")
    if methods:
        lines += ["Path taken per page: " + ", ".join(f"{k} {v}" for k, v in methods.most_common()), ""]
    groups = result.by_group()
    if len(groups) > 1:
        lines += ["| site | pages | mean F1 | median F1 | precision | recall | empty |", "|---|---|---|---|---|---|---|"]
        for name, summary in groups.items():
            lines.append(
                f"| {name} | {summary.pages} | {summary.f1:.3f} | {summary.median_f1:.3f} | "
                f"{summary.precision:.3f} | {summary.recall:.3f} | {summary.empty} |"
            )
        lines.append("")
    if errors:
        lines += ["## Errors", ""] + [f"- `{p.id}`: {p.error}" for p in errors[:50]] + [""]
    return "\n".join(lines)
