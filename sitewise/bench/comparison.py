"""Side by side: sitewise's extractors and the peers on the same pages, with the same metrics, in one run —
the comparison itself (``sitewise bench compare`` is :mod:`sitewise.bench.compare`; its report and plots,
:mod:`sitewise.bench.compare_report` and :mod:`sitewise.bench.compare_plots`, read what this produces).

Every system (sitewise's learned rules, its pipeline, the MSS fallback and baseline, the peers of
:mod:`sitewise.bench.peers`, and the all-text upper bound) runs over one or more page selections of
``../shared/data`` manifests; the eval harness (:mod:`sitewise.evaluate`: bag-of-words P/R/F1 per page,
the shingle metric, ms/page) scores them, and the per-site learners get a learning curve.

Phases, per page selection: select (per-site protocol for ``split=test`` selections: learners fit on each
site's ``split: train`` pages) → load (raw HTML once; rendered pages once, only when a system needs
them) → run each available system (one untimed warm-up page first) → learning curve (fit on the first
k training pages of each site) → save (``results.json`` plus one gzipped JSONL of predictions and scores
per set and system, so the report can be re-drawn, and systems added later, without re-running all).
A system that is not installed or not built yet is reported as skipped with the reason; so is a system
that cannot run on a set (peers on spider, which has no HTML).
"""
from __future__ import annotations

import gzip
import json
import logging
import os
import platform
import subprocess
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..extractors import PART_AWARE

log = logging.getLogger(__name__)

#: sitewise's own systems, in report order: learned rules, the whole pipeline (rules, else fallback),
#: the supervised MSS fallback and the MSS baseline.
SITEWISE_SYSTEMS = ("rules", "sitewise", "mss", "mss-baseline")
#: Upper bound on recall of the collector (every rendered block's text).
BASELINES = ("all-text",)
#: Systems that only extract what they learned from a site's training pages: they run only on
#: per-site selections (on a set without a per-site split they would have nothing to learn from).
PER_SITE_ONLY = frozenset({"rules"})
#: Numbers of training pages per site for the learning curve (None = all of the site's train pages).
DEFAULT_CURVE_SIZES: tuple[int | None, ...] = (1, 2, 3, 5, 8, None)
#: Pages rendered without the cache to measure rendering throughput (enough for a stable median).
DEFAULT_RENDER_SAMPLE = 20
#: The standard suite under ``--data``: (label, set folder, selecting field, value). ``split=test`` is
#: the per-site protocol; the others score every selected page with single-page extractors.
STANDARD_SUITE: tuple[tuple[str, str, str | None, str | None], ...] = (
    ("spider sites", "spider", "split", "test"),
    ("dragnet sites", "dragnet", "split", "test"),
    ("l3s-gn1 sites", "l3s-gn1", "split", "test"),
    ("dragnet official test", "dragnet", "official_split", "test"),
    ("cleaneval", "cleaneval", None, None),
    ("l3s-gn1", "l3s-gn1", None, None),
)
#: Sets whose truth is an article's body alone: spider's is Diffbot's ``text`` field, which leaves the
#: headline, author, date and image captions to fields of their own. Systems that tell heading from body
#: are scored on their body there, not on their whole article.
BODY_TRUTH_SETS = frozenset({"spider"})
#: Error messages are kept this long (a render failure can quote the whole page).
ERROR_CHARS = 300
#: Third-party loggers that report every odd page (unparsable dates, parse retries) at warning level.
CHATTY_LOGGERS = ("newspaper", "goose3", "readability", "trafilatura", "htmldate", "courlan", "justext", "boilerpy3")
#: A tiny page each system extracts once, untimed, so import and lazy-loading costs (models, suffix
#: lists) are not counted as the first page's extraction time.
WARM_UP_HTML = (
    "<html><head><title>Warm-up</title></head><body><nav><a href='/'>Home</a></nav><article><h1>Warm-up</h1>"
    + "<p>This paragraph is long enough to look like the text of an article to every extractor here.</p>" * 4
    + "</article></body></html>"
)


# -- what is compared ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetSpec:
    """A selection of a manifest's pages: all of them, or those whose ``field`` equals ``value``."""

    label: str
    manifest: str
    field: str | None = None
    value: str | None = None
    #: What systems that tell the heading from the body return here: "article" or "body".
    part: str = "article"

    @property
    def per_site(self) -> bool:
        """The per-site protocol: learners fit on each site's ``split: train`` pages, score ``split: test``."""
        return self.field == "split"

    @property
    def slug(self) -> str:
        return "-".join("".join(c if c.isalnum() else " " for c in self.label.lower()).split())

    def describe(self) -> str:
        if self.per_site:
            described = f"`split: {self.value}` pages (per-site protocol: each site learned from its `split: train` pages)"
        elif self.field:
            described = f"`{self.field}: {self.value}` pages (single-page extraction; no site learned)"
        else:
            described = "all pages (single-page extraction; no site learned)"
        if self.part == "body":
            described += "; rules and sitewise scored on the article body (no headline, byline, date line or captions)"
        return described

    @classmethod
    def parse(cls, text: str) -> "SetSpec":
        """``PATH`` or ``PATH:FIELD=VALUE`` (PATH: a manifest file or its folder)."""
        path, _, selection = text.rpartition(":")
        if not path or "=" not in selection:
            path, selection = text, ""
        field_name, _, value = selection.partition("=")
        if selection and not (field_name and value):
            raise ValueError(f"bad set {text!r}: expected PATH or PATH:FIELD=VALUE")
        folder = Path(path)
        name = folder.parent.name if folder.suffix == ".jsonl" else folder.name
        standard = {(f, s, v): label for label, f, s, v in STANDARD_SUITE}
        if (name, field_name or None, value or None) in standard:
            label = standard[(name, field_name or None, value or None)]  # same label, so runs can merge
        elif field_name == "split" and value == "test":
            label = f"{name} sites"
        elif field_name:
            label = f"{name} {field_name}={value}"
        else:
            label = name
        return cls(label, str(path), field_name or None, value or None, scored_part(name))


def standard_suite(data_dir: Path) -> list[SetSpec]:
    return [SetSpec(label, str(data_dir / folder), f, v, scored_part(folder)) for label, folder, f, v in STANDARD_SUITE]


def scored_part(set_name: str) -> str:
    """What of the article is scored on a set (by its folder's name): "body" or "article"."""
    return "body" if set_name in BODY_TRUTH_SETS else "article"


# -- what a run produces --------------------------------------------------------------------------------


@dataclass
class LearningCurve:
    """F1 on a selection's test pages against the number of training pages each site learned from."""

    #: x labels in order ("1", "2", …, "all").
    sizes: list[str]
    #: size → mean F1 over all headline test pages.
    overall: dict[str, float]
    #: size → site → mean F1 over that site's headline test pages.
    by_site: dict[str, dict[str, float]]
    #: site → number of training pages it has (sites with fewer than k pages learn from all of them).
    train_pages: dict[str, int]
    #: site → seconds to fit on all of its training pages.
    fit_seconds: dict[str, float]


@dataclass
class SystemRun:
    """One system's results on one selection (the pages themselves live in ``pages/``)."""

    system: str
    version: str
    call: str
    seconds: float
    ran_at: str
    run: int
    curve: LearningCurve | None = None
    #: Options the system was created with (``--option SYSTEM.KEY=VALUE``).
    options: dict[str, str] = field(default_factory=dict)
    result: Any = field(default=None, repr=False)  # EvalResult, kept out of results.json


@dataclass
class RenderStats:
    pages: int
    seconds: float
    failures: int

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds else 0.0


@dataclass
class SetRun:
    spec: SetSpec
    pages: int = 0
    left_out: int = 0
    sites: int = 0
    systems: dict[str, SystemRun] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


@dataclass
class Comparison:
    """Everything the report shows: the runs (commands, machine, versions) and each selection's results."""

    runs: list[dict[str, Any]] = field(default_factory=list)
    sets: dict[str, SetRun] = field(default_factory=dict)
    render: RenderStats | None = None

    # -- persistence -------------------------------------------------------------------------------

    def save(self, results_dir: Path) -> Path:
        results_dir.mkdir(parents=True, exist_ok=True)
        payload = {
            "runs": self.runs,
            "render": asdict(self.render) if self.render else None,
            "sets": [
                {
                    "spec": asdict(run.spec),
                    "pages": run.pages,
                    "left_out": run.left_out,
                    "sites": run.sites,
                    "skipped": run.skipped,
                    "systems": {
                        name: {k: v for k, v in asdict(system).items() if k != "result"}
                        for name, system in run.systems.items()
                    },
                }
                for run in self.sets.values()
            ],
        }
        for run in self.sets.values():
            for name, system in run.systems.items():
                if system.result is not None:
                    _write_pages(results_dir / "pages" / run.spec.slug / f"{name}.jsonl.gz", system.result.pages)
        path = results_dir / "results.json"
        path.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
        return path

    @classmethod
    def load(cls, results_dir: Path) -> "Comparison":
        from ..evaluate import EvalResult

        path = results_dir / "results.json"
        if not path.is_file():
            raise FileNotFoundError(f"no results at {path}: run 'sitewise bench compare' first")
        payload = json.loads(path.read_text(encoding="utf-8"))
        comparison = cls(runs=payload["runs"], render=RenderStats(**payload["render"]) if payload["render"] else None)
        for item in payload["sets"]:
            spec = SetSpec(**item["spec"])
            run = SetRun(spec, item["pages"], item["left_out"], item["sites"], skipped=item["skipped"])
            for name, raw in item["systems"].items():
                stored_curve = raw.pop("curve", None)
                curve = LearningCurve(**stored_curve) if stored_curve else None
                pages = _read_pages(results_dir / "pages" / spec.slug / f"{name}.jsonl.gz")
                run.systems[name] = SystemRun(**raw, curve=curve, result=EvalResult(name, spec.manifest, pages))
            comparison.sets[spec.label] = run
        return comparison

    def merge(self, newer: "Comparison") -> None:
        """Take ``newer``'s systems (and skips) over ours, set by set; runs are numbered on, and a run
        whose every number a later one replaced is dropped (the report lists the runs behind its numbers)."""
        offset = len(self.runs)
        self.runs.extend(newer.runs)
        self.render = newer.render or self.render
        for label, new_run in newer.sets.items():
            old_run = self.sets.get(label)
            for system in new_run.systems.values():
                system.run += offset
            if old_run is None or old_run.spec != new_run.spec:
                self.sets[label] = new_run
                continue
            old_run.pages, old_run.left_out, old_run.sites = new_run.pages, new_run.left_out, new_run.sites
            for name, system in new_run.systems.items():
                old_run.systems[name] = system
                old_run.skipped.pop(name, None)
            for name, reason in new_run.skipped.items():
                if name not in old_run.systems:
                    old_run.skipped[name] = reason
        self._drop_superseded_runs()

    def _drop_superseded_runs(self) -> None:
        used = sorted({system.run for set_run in self.sets.values() for system in set_run.systems.values()})
        renumber = {old: new for new, old in enumerate(used)}
        self.runs = [self.runs[old] for old in used]
        for set_run in self.sets.values():
            for system in set_run.systems.values():
                system.run = renumber[system.run]


def _write_pages(path: Path, pages: Sequence[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for page in pages:
            row = {
                "id": page.id, "group": page.group, "text": page.text,
                "score": [page.score.precision, page.score.recall, page.score.f1] if page.score else None,
                "shingles": list(page.shingles) if page.shingles else None,
                "ms": round(page.ms, 4), "mismatch": page.mismatch,
                "error": page.error[:ERROR_CHARS] if page.error else None,
                "info": {k: v for k, v in page.info.items() if isinstance(v, (str, int, float, bool))},
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _read_pages(path: Path) -> list[Any]:
    from ..evaluate import PageResult
    from ..metrics import Score

    pages = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            row["score"] = Score(*row["score"]) if row["score"] else None
            row["shingles"] = tuple(row["shingles"]) if row["shingles"] else None
            pages.append(PageResult(**row))
    return pages


# -- running ---------------------------------------------------------------------------------------------


def compare(
    specs: Sequence[SetSpec],
    systems: Sequence[str],
    *,
    command: str = "",
    options: dict[str, dict[str, str]] | None = None,
    limit: int | None = None,
    curve_sizes: Sequence[int | None] = DEFAULT_CURVE_SIZES,
    workers: int = 2,
    cache_dir: Path | None = None,
    render_sample: int = DEFAULT_RENDER_SAMPLE,
    progress: bool = True,
) -> Comparison:
    """Run every system on every selection (nothing is written; see :meth:`Comparison.save`)."""
    comparison = Comparison(runs=[environment(systems, command)])
    options = options or {}
    available, unavailable = open_systems(systems, options)
    for spec in specs:
        started = time.perf_counter()
        comparison.sets[spec.label] = run_set(
            spec, available, unavailable, options, comparison.runs[0]["sitewise"],
            limit=limit, curve_sizes=curve_sizes, workers=workers, cache_dir=cache_dir, progress=progress,
        )
        log.info("%s done in %.0f s", spec.label, time.perf_counter() - started)
    if render_sample and any(available[n].needs_page for n in available):
        comparison.render = measure_rendering(specs, render_sample, workers)
    comparison.runs[0]["finished"] = now()
    comparison.runs[0]["load_average_end"] = load_average()
    return comparison


def open_systems(
    names: Sequence[str], options: dict[str, dict[str, str]] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """(name → extractor instance) for the systems that can be created, (name → why not) for the rest."""
    from ..extractors import get_extractor

    available: dict[str, Any] = {}
    unavailable: dict[str, str] = {}
    for name in names:
        try:
            available[name] = get_extractor(name, **(options or {}).get(name, {}))
        except ImportError as exc:
            unavailable[name] = f"not available: {exc}"
        except Exception as exc:  # a system that cannot even start is reported, not fatal to the others
            log.exception("cannot create %s", name)
            unavailable[name] = f"cannot start: {type(exc).__name__}: {exc}"
    return available, unavailable


@dataclass
class _Loaded:
    """A selection's pages, loaded once and shared by every system."""

    scored: list[Any]
    training: list[Any]
    truths: dict[str, str | None]
    mismatches: set[str]
    html_docs: list[Any]
    rendered: tuple[list[Any], dict[str, str]] | None = None
    render_error: str | None = None


def run_set(
    spec: SetSpec,
    available: dict[str, Any],
    unavailable: dict[str, str],
    options: dict[str, dict[str, str]],
    sitewise_version: str,
    *,
    limit: int | None,
    curve_sizes: Sequence[int | None],
    workers: int,
    cache_dir: Path | None,
    progress: bool,
) -> SetRun:
    from ..evaluate import EvalResult, extract_all

    loaded = load_set(spec, limit)
    set_run = SetRun(
        spec,
        pages=sum(1 for e in loaded.scored if not e.mismatch),
        left_out=sum(1 for e in loaded.scored if e.mismatch),
        sites=len({e.group for e in loaded.scored}),
        skipped=dict(unavailable),
    )
    has_html = any(d.html for d in loaded.html_docs)
    for name, extractor in available.items():
        reason = _cannot_run(name, extractor, spec, has_html)
        if extractor.needs_page and reason is None:
            documents, errors = _rendered(loaded, workers, cache_dir, progress)
            reason = loaded.render_error
        else:
            documents, errors = loaded.html_docs, {}
        if reason:
            set_run.skipped[name] = reason
            continue
        scored_docs, training_docs = documents[: len(loaded.scored)], documents[len(loaded.scored) :]
        _warm_up(extractor, scored_docs)
        log.info("%s: %s on %d pages", spec.label, name, len(scored_docs))
        started = time.perf_counter()
        system_options = dict(options.get(name, {}))
        if spec.part != "article" and name in PART_AWARE:
            system_options["part"] = spec.part
        pages = extract_all(
            name, scored_docs, training_docs, loaded.truths, loaded.mismatches, errors, system_options, progress
        )
        seconds = time.perf_counter() - started
        if pages and all(p.error for p in pages):
            set_run.skipped[name] = f"failed on every page, e.g. {pages[0].error[:ERROR_CHARS]}"
            continue
        system = SystemRun(
            name, system_version(name, sitewise_version), getattr(extractor, "call", ""), round(seconds, 2), now(), run=0,
            options=system_options, result=EvalResult(name, spec.manifest, pages),
        )
        if extractor.per_site and spec.per_site and curve_sizes:
            system.curve = learning_curve(
                name, system_options, scored_docs, training_docs, loaded, errors, curve_sizes, system.result
            )
        set_run.systems[name] = system
    return set_run


def load_set(spec: SetSpec, limit: int | None) -> _Loaded:
    """Select the pages of a spec and load their raw HTML (rendering waits until a system needs it)."""
    from ..evaluate import load_documents, select_entries
    from ..manifest import read_manifest

    entries = read_manifest(spec.manifest, "registrable")  # sites as the server and `sitewise eval` key them
    if spec.per_site:
        scored, training = select_entries(entries, per_site=True, only_split=spec.value, limit=limit)
    else:
        scored = [e for e in entries if e.has_truth and (spec.field is None or e.raw.get(spec.field) == spec.value)]
        scored, training = scored[:limit] if limit else scored, []
    if not scored:
        raise ValueError(f"{spec.label}: no pages with truth selected in {spec.manifest}")
    documents, _ = load_documents(scored + training, needs_page=False)
    loaded = _Loaded(
        scored, training, {e.id: e.truth() for e in scored}, {e.id for e in scored if e.mismatch}, documents
    )
    _single_page(loaded, spec)
    return loaded


def _single_page(loaded: _Loaded, spec: SetSpec) -> None:
    """Outside the per-site protocol no site is learned: per-site learners fit on nothing (the harness
    does that for pages whose ``split`` is not ``test``), so they show their fallback."""
    if spec.per_site:
        return
    for document in loaded.html_docs:
        document.meta["split"] = None


def _rendered(loaded: _Loaded, workers: int, cache_dir: Path | None, progress: bool) -> tuple[list[Any], dict[str, str]]:
    """The selection's rendered documents (rendered on first use; spider pages are imported instead)."""
    from ..evaluate import load_documents

    if loaded.rendered is None and loaded.render_error is None:
        try:
            documents, errors = load_documents(
                loaded.scored + loaded.training, needs_page=True, workers=workers, cache_dir=cache_dir,
                progress=progress,
            )
        except ImportError as exc:
            loaded.render_error = f"needs rendered pages, and rendering is not available: {exc}"
            return [], {}
        for rendered, raw in zip(documents, loaded.html_docs):
            rendered.meta = raw.meta
        loaded.rendered = (documents, errors)
    return loaded.rendered or ([], {})


def _cannot_run(name: str, extractor: Any, spec: SetSpec, has_html: bool) -> str | None:
    if name in PER_SITE_ONLY and not spec.per_site:
        return "learns each site from its training pages: runs only on per-site (split=test) sets"
    if not extractor.needs_page and not has_html:
        return "this set has no raw HTML (pre-rendered page JSON only), which this system needs"
    return None


def _warm_up(extractor: Any, documents: Sequence[Any]) -> None:
    from ..extractors import Document

    if extractor.per_site:
        return  # fitting happens inside the timed run anyway, per site; nothing lazy to warm
    sample = next((d for d in documents if d.page is not None), None) if extractor.needs_page else None
    try:
        extractor.extract(sample or Document(id="warm-up", url="http://warm-up.invalid/", html=WARM_UP_HTML))
    except Exception:  # the warm-up only loads lazy state; real failures are reported on real pages
        log.debug("warm-up of %s failed", extractor.name, exc_info=True)


def learning_curve(
    name: str,
    options: dict[str, str],
    scored_docs: Sequence[Any],
    training_docs: Sequence[Any],
    loaded: _Loaded,
    errors: dict[str, str],
    sizes: Sequence[int | None],
    full: Any,
) -> LearningCurve:
    """F1 on the test pages when each site learns from its first k training pages (manifest order)."""
    from ..evaluate import EvalResult, extract_all
    from ..extractors import get_extractor

    by_site: dict[str, list[Any]] = defaultdict(list)
    for document in training_docs:
        if document.id not in errors:
            by_site[document.group].append(document)
    tested = {d.group for d in scored_docs}
    curve = LearningCurve([], {}, {}, {g: len(by_site.get(g, [])) for g in sorted(tested)}, {})
    for size in sizes:
        label = "all" if size is None else str(size)
        if size is None:
            result = full
        else:
            subset = [d for docs in by_site.values() for d in docs[:size]]
            pages = extract_all(
                name, scored_docs, subset, loaded.truths, loaded.mismatches, errors, options, progress=False
            )
            result = EvalResult(name, "", pages)
        curve.sizes.append(label)
        curve.overall[label] = result.summary().f1
        curve.by_site[label] = {site: summary.f1 for site, summary in result.by_group().items()}
    for site in sorted(tested):
        started = time.perf_counter()
        get_extractor(name, **options).fit(by_site.get(site, []))
        curve.fit_seconds[site] = round(time.perf_counter() - started, 4)
    return curve


def measure_rendering(specs: Sequence[SetSpec], sample: int, workers: int) -> RenderStats | None:
    """Render ``sample`` raw-HTML pages of the first set that has them, bypassing the cache."""
    from ..manifest import read_manifest

    for spec in specs:
        entries = [e for e in read_manifest(spec.manifest) if e.raw.get("html")][:sample]
        if entries:
            break
    else:
        return None
    try:
        from ..collect import StoredPage, collect_many, stored_url
    except ImportError:
        return None

    items = [StoredPage(stored_url(e.url, e.site, e.id), e.html_bytes()) for e in entries]
    started = time.perf_counter()
    results = collect_many(items, workers=workers, cache_dir=None, progress=False)
    seconds = time.perf_counter() - started
    return RenderStats(len(items), round(seconds, 2), sum(1 for r in results if isinstance(r, Exception)))


# -- who is who ------------------------------------------------------------------------------------------


def peers_of(run: SetRun) -> list[SystemRun]:
    from .peers import PEERS

    return [s for name, s in run.systems.items() if name in PEERS]


def best_peer(run: SetRun, exclude: Iterable[str] = ()) -> SystemRun | None:
    """The peer with the highest mean F1 on the set."""
    candidates = [s for s in peers_of(run) if s.system not in set(exclude)]
    return max(candidates, key=lambda s: f1(s), default=None)


def primary(run: SetRun) -> SystemRun | None:
    """sitewise's system that answers for the set: learned rules on per-site sets, else the pipeline
    (which, with no site learned, is the fallback), else the MSS fallback alone."""
    order = ("rules", "sitewise", "mss") if run.spec.per_site else ("sitewise", "mss")
    return next((run.systems[n] for n in order if n in run.systems), None)


def f1(system: SystemRun) -> float:
    return system.result.summary().f1


def ordered_systems(run: SetRun) -> list[SystemRun]:
    """sitewise's systems first, then peers by F1, then the baselines."""
    own = [run.systems[n] for n in SITEWISE_SYSTEMS if n in run.systems]
    others = sorted(peers_of(run), key=lambda s: -f1(s))
    base = [run.systems[n] for n in BASELINES if n in run.systems]
    rest = [s for s in run.systems.values() if s not in own + others + base]
    return own + others + rest + base


# -- where and with what ------------------------------------------------------------------------------------


def system_version(name: str, sitewise_version: str) -> str:
    """A peer's package and version; for sitewise's own systems, the sitewise version the run started with
    (its modules are imported then: commits that land during a long run do not change what it measures)."""
    from .peers import PEERS, peer_version

    if name in PEERS:
        return f"{PEERS[name].distribution} {peer_version(name)}"
    return f"sitewise {sitewise_version}"


def environment(systems: Sequence[str], command: str) -> dict[str, Any]:
    """The machine, software and command of this run, for the report."""
    import sitewise

    from .peers import PEERS, peer_version

    return {
        "command": command,
        "started": now(),
        "systems": list(systems),
        "machine": {
            "cpu": _cpu_model(),
            "cores": os.cpu_count(),
            "memory_gb": _memory_gb(),
            "os": platform.platform(),
            "load_average_start": load_average(),
        },
        "python": platform.python_version(),
        "sitewise": f"{sitewise.__version__} ({_sitewise_version()})",
        # Settings that change what sitewise's systems do (e.g. SITEWISE_MSS_MODEL), as set for this run.
        "settings": {k: v for k, v in sorted(os.environ.items()) if k.startswith("SITEWISE_")},
        "peers": {name: peer_version(name) for name in PEERS},
    }


def _sitewise_version() -> str:
    """The git commit of the working tree, marked when it has uncommitted changes."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--", "sitewise"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"commit {commit}{' + uncommitted changes' if dirty else ''}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    return None


def load_average() -> list[float] | None:
    """The machine's 1, 5 and 15-minute load averages (None where the system does not tell)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def now() -> str:
    """The time now, as the reports write it."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
