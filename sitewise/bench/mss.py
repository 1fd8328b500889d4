"""The MSS fallback's block model beside the extractors people use: one honest table (issue 13).

``sitewise bench mss [--data ../shared/data] [--sets ...] [--folds 5] [--limit N] [--model FILE]
[--no-peers] [--max-iter N ...]`` prints a summary and writes ``docs/bench-mss.md``
(:mod:`sitewise.bench.mss_report`).

Phases: select each set's pages (pages with truth; ``truth_mismatch`` pages left out) → label every page
of the sets the model trains on once (:data:`~sitewise.mss.blocktrain.TRAINING_SETS`) → **out of fold**:
split those pages into k folds grouped by host, fit a :class:`~sitewise.mss.blockmodel.BlockModel` on
the other folds' labelled pages and score each held-out page → **untouched sets** (cleaneval, l3s-gn1,
dragnet's official test): fit one model on every labelled page (the model as shipped; or read
``--model``) and score them → report.

Scoring a page: every system (the block model ``mss``, the peers trafilatura, readability-lxml,
resiliparse and jusText, and sitewise's older fallbacks ``mss-line`` and ``mss-baseline``) extracts it,
timed (CPU and wall), before the next page is read, so machine load hits all alike; word P/R/F1 and the
shingle counts are kept per page and system.
"""
from __future__ import annotations

import argparse
import logging
import shlex
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ..commands.output import check_output_file, write_whole
from .mss_report import OLDER_FALLBACKS, SYSTEM, Outcome, PageResult, Run, render, summary_text

if TYPE_CHECKING:
    from ..manifest import Entry
    from ..mss.blockmodel import BlockModel
    from ..mss.blocktrain import LabelledPage
    from ..mss.confidence import AnswerConfidence
    from ..mss.extractor import MSSResult
    from .comparison import SetSpec

log = logging.getLogger(__name__)


#: Sets no sitewise model trains on (their licences forbid shipping a model trained on them): (label, set
#: folder, field selecting pages, value) — None selects every page.
UNTOUCHED_SETS: tuple[tuple[str, str, str | None, str | None], ...] = (
    ("cleaneval", "cleaneval", None, None),
    ("l3s-gn1", "l3s-gn1", None, None),
    ("dragnet-test", "dragnet", "official_split", "test"),
)
#: The peers, by registry name, in column order.
PEERS = ("trafilatura", "readability-lxml", "resiliparse", "justext")
DEFAULT_FOLDS = 5
DEFAULT_DATA = Path("../shared/data")
DEFAULT_OUT = Path("docs/bench-mss.md")
#: :class:`~sitewise.mss.blockmodel.BlockModel` settings the command line can change (scikit-learn's
#: boosting names, and the decoder's): for quick runs and for trying settings without editing the code.
MODEL_SETTINGS = (
    "max_iter", "learning_rate", "max_depth", "max_leaf_nodes", "min_samples_leaf", "l2_regularization",
    "max_features", "seeds", "threshold", "min_segment_share", "min_block_probability", "relaxed_threshold",
    "max_scant_words", "max_scant_share", "max_section_scant_words",
)
#: Progress is logged every this many pages.
PROGRESS_EVERY = 100


def bench_sets(data: Path) -> tuple[list["SetSpec"], list["SetSpec"]]:
    """(the sets the shipped model trains on, the untouched sets), as selections of ``data``'s manifests."""
    from ..mss.blocktrain import TRAINING_SETS
    from .comparison import SetSpec

    clash = set(TRAINING_SETS) & {folder for _, folder, _, _ in UNTOUCHED_SETS}
    if clash:  # the code changed which sets train the model: an untouched set would be scored in-sample
        raise ValueError(f"set(s) {', '.join(sorted(clash))} are both trained on and meant to be untouched")
    return ([SetSpec(name, str(data / name)) for name in TRAINING_SETS],
            [SetSpec(label, str(data / folder), field, value) for label, folder, field, value in UNTOUCHED_SETS])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the evaluation sets")
    parser.add_argument("--sets", nargs="+", metavar="SET",
                        help="score only these sets (default: all): the sets the model trains on (wcxb-dev, "
                        "readability-testpages) and " + ", ".join(label for label, *_ in UNTOUCHED_SETS))
    parser.add_argument("--folds", type=int, default=DEFAULT_FOLDS, help="folds (grouped by host) for the sets the model trains on")
    parser.add_argument("--limit", type=int, help="at most N pages per set (quick runs)")
    parser.add_argument("--model", type=Path, help="score the untouched sets with this block model file instead of training one "
                        "(its answers' confidence estimate, if it has one, goes with every fold model too)")
    parser.add_argument("--save-model", type=Path, help="keep the model trained on all training sets here")
    parser.add_argument("--no-peers", action="store_true", help="only sitewise's systems")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the report to write")
    for name in MODEL_SETTINGS:
        parser.add_argument("--" + name.replace("_", "-"), type=_number, metavar="X",
                            help=f"block model setting {name} (default: the code's)")


def run(args: argparse.Namespace) -> int:
    from .comparison import CHATTY_LOGGERS, environment, load_average, now

    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    started = time.perf_counter()
    # everything that can be wrong with the input is found before the first page is read
    if args.folds < 2:
        raise ValueError("--folds must be at least 2")
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")  # 0 read as no limit: the whole run, not a quick one
    training_sets, untouched_sets = bench_sets(args.data)
    trained, untouched = _chosen(training_sets, args.sets), _chosen(untouched_sets, args.sets)
    if args.sets:
        _check_names(args.sets, training_sets + untouched_sets)
    given_model = _read_model(args.model) if args.model else None
    needs_training = bool(trained) or (bool(untouched) and given_model is None)
    pages = {s.label: scored_entries(s, args.limit) for s in (*(training_sets if needs_training else ()), *untouched)}
    settings = _model_settings(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    check_output_file(args.out)

    systems, skipped, calls = _systems(args.no_peers)
    names = [SYSTEM, *systems]
    command = command_line(args)
    run_info = Run(command=command, environment=environment(names, command), systems=names, skipped=skipped,
                   calls=calls, out_of_fold=[s.label for s in trained], untouched=[s.label for s in untouched],
                   folds=args.folds, training={"settings": settings})
    results: list[PageResult] = []
    labelled: dict[str, LabelledPage | str] = {}
    if needs_training:
        training_pages = {s.label: pages[s.label] for s in training_sets}
        labelled = _label(training_pages, run_info.training)
        if trained:
            pool = [(entry, name) for name, entries in training_pages.items() for entry in entries]
            # the given model's confidence estimate was fitted on these pages' out-of-fold answers: the fold
            # models answer with it (what the report says of those rows)
            estimate = given_model.confidence_ if given_model is not None else None
            results += _out_of_fold(pool, {s.label for s in trained}, labelled, args.folds, settings, systems,
                                    run_info.training, estimate)
    if untouched:
        if given_model is None:
            model = _shipped_model(labelled, settings, args.save_model, run_info.training)
        else:
            model, run_info.training["model_file"] = given_model, str(args.model)
        for spec in untouched:
            log.info("%s: scoring %d pages", spec.label, len(pages[spec.label]))
            results += score_pages([(entry, spec.label) for entry in pages[spec.label]], model, systems)

    run_info.minutes = (time.perf_counter() - started) / 60
    run_info.finished, run_info.load_average_end = now(), load_average()
    write_whole(args.out, render(run_info, results))
    print(summary_text(run_info, results))
    print(f"wrote {args.out}")
    return 0


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run (options at their defaults left out)."""
    words = ["sitewise", "bench", "mss"]
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    defaults = vars(parser.parse_args([]))
    for name in ("data", "folds", "limit", "model", "save_model", "out", *MODEL_SETTINGS):
        value = getattr(args, name)
        if value is not None and value != defaults.get(name):
            words += ["--" + name.replace("_", "-"), str(value)]
    if args.sets:
        words += ["--sets", *args.sets]
    if args.no_peers:
        words.append("--no-peers")
    return " ".join(shlex.quote(word) for word in words)


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def _model_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The block model settings given on the command line (checked by making a model with them)."""
    from ..mss.blockmodel import BlockModel

    settings = {name: getattr(args, name) for name in MODEL_SETTINGS if getattr(args, name) is not None}
    BlockModel(**settings)  # a setting the model no longer has fails here, before any page is read
    return settings


def _chosen(specs: Sequence["SetSpec"], names: Sequence[str] | None) -> list["SetSpec"]:
    return [spec for spec in specs if not names or spec.label in names]


def _check_names(names: Sequence[str], specs: Sequence["SetSpec"]) -> None:
    unknown = set(names) - {spec.label for spec in specs}
    if unknown:
        raise ValueError(f"unknown set(s) {', '.join(sorted(unknown))}; known: {', '.join(s.label for s in specs)}")


def scored_entries(spec: "SetSpec", limit: int | None) -> list["Entry"]:
    """The set's scored pages: with truth, truth in the page, in the selection; the first ``limit``."""
    from ..manifest import read_manifest

    entries = [
        e for e in read_manifest(spec.manifest)
        if e.has_truth and not e.mismatch and (spec.field is None or e.raw.get(spec.field) == spec.value)
    ]
    if not entries:
        raise ValueError(f"{spec.label}: no pages with truth in {spec.manifest}")
    return entries[:limit] if limit else entries


# -- systems ------------------------------------------------------------------------------------------------

#: A system: the page (its HTML and URL) in, text out (the block model: its whole answer, text and confidence).
Extract = Callable[[str, "str | None"], "str | MSSResult"]


def _systems(no_peers: bool) -> tuple[dict[str, Extract], dict[str, str], dict[str, str]]:
    """(name → extract) of the peers and older fallbacks that can run, (name → why not) of the others,
    (name → how it is called) of the peers."""
    from ..extractors import Document
    from .comparison import open_systems

    names = [*([] if no_peers else PEERS), *OLDER_FALLBACKS]
    available, skipped = open_systems(names)
    systems: dict[str, Extract] = {}
    for name, extractor in available.items():
        systems[name] = lambda html, url, extractor=extractor: extractor.extract(Document(id="page", url=url, html=html))
    calls = {name: extractor.call for name, extractor in available.items() if getattr(extractor, "call", "")}
    return systems, skipped, calls


def _block_system(model: "BlockModel") -> Extract:
    from ..mss.extractor import BlockMSS

    pipeline = BlockMSS(model)
    return lambda html, url: pipeline.extract(html, url)


# -- training --------------------------------------------------------------------------------------------


def _label(pages: dict[str, list["Entry"]], training: dict[str, Any]) -> dict[str, "LabelledPage | str"]:
    """Every training page labelled once: id → its labelled blocks, or why it cannot be labelled."""
    from ..mss.blocktrain import labelled_page

    labelled: dict[str, LabelledPage | str] = {}
    facts: dict[str, Any] = {}
    for name, entries in pages.items():
        log.info("%s: labelling %d pages", name, len(entries))
        for entry in entries:
            labelled[entry.id] = labelled_page(entry.html() or "", entry.truth() or "", entry.url)
        reasons = Counter(labelled[e.id] for e in entries if isinstance(labelled[e.id], str))
        facts[name] = {"pages": len(entries), "used": len(entries) - sum(reasons.values()), "skipped": dict(reasons)}
    training["labelled"] = facts
    return labelled


def _fit(pages: Sequence["LabelledPage"], settings: dict[str, Any]) -> tuple["BlockModel", dict[str, Any]]:
    from ..mss.blockmodel import BlockModel
    from ..mss.blocktrain import training_table

    started = time.perf_counter()
    X, y, weights = training_table(pages)
    model = BlockModel(**settings).fit(X, y, sample_weight=weights)
    return model, {"pages": len(pages), "blocks": int(len(X)), "seconds": time.perf_counter() - started}


def _usable(labelled: dict[str, "LabelledPage | str"], ids: Sequence[str]) -> list["LabelledPage"]:
    return [page for page in (labelled[i] for i in ids) if not isinstance(page, str)]


def host_folds(entries: Sequence["Entry"], folds: int) -> list[list[int]]:
    """Indices of the held-out pages of each fold: ``folds`` folds, a host's pages all in one (a page
    without a host is a group of its own)."""
    from sklearn.model_selection import GroupKFold

    groups = [entry.site or entry.id for entry in entries]
    if len(set(groups)) < folds:
        raise ValueError(f"{folds} folds need at least {folds} hosts; the training sets have {len(set(groups))}")
    splitter = GroupKFold(n_splits=folds)
    return [held_out.tolist() for _, held_out in splitter.split(entries, groups=groups)]


def _out_of_fold(
    pool: Sequence[tuple["Entry", str]], scored: set[str], labelled: dict[str, "LabelledPage | str"], folds: int,
    settings: dict[str, Any], systems: dict[str, Extract], training: dict[str, Any],
    estimate: "AnswerConfidence | None" = None,
) -> list[PageResult]:
    """The pages of every training set (with their set's label) split into folds by host; each fold's
    pages of the ``scored`` sets scored by a model fitted on the other folds (never on their host), whose
    answers carry ``estimate``'s confidence."""
    entries = [entry for entry, _ in pool]
    results: list[PageResult] = []
    training["folds"] = []
    for number, held_out in enumerate(host_folds(entries, folds), 1):
        held = set(held_out)
        model, facts = _fit(_usable(labelled, [e.id for i, e in enumerate(entries) if i not in held]), settings)
        if estimate is not None:
            model.confidence_ = estimate
        training["folds"].append({"fold": number, "held_out": len(held_out), **facts})
        log.info("fold %d/%d: fitted on %d pages in %.0f s; scoring its %d held-out pages",
                 number, folds, facts["pages"], facts["seconds"], len(held_out))
        results += score_pages([pool[i] for i in held_out if pool[i][1] in scored], model, systems)
    order = {entry.id: i for i, entry in enumerate(entries)}
    return sorted(results, key=lambda r: order[r.id])


def _read_model(path: Path) -> "BlockModel":
    from ..mss.blockmodel import BlockModel
    from ..mss.model import load_model

    model = load_model(path)
    if not isinstance(model, BlockModel):
        raise ValueError(f"{path} is not a block model (a token scorer: the block model is what is benchmarked)")
    return model


def _shipped_model(labelled: dict[str, "LabelledPage | str"], settings: dict[str, Any], save: Path | None,
                   training: dict[str, Any]) -> "BlockModel":
    """The model as shipped: fitted on every labelled page of the training sets (kept in ``save``)."""
    log.info("fitting the model on all %d training pages", len(labelled))
    model, facts = _fit(_usable(labelled, list(labelled)), settings)
    training["shipped"] = facts
    if save:
        model.save(save)
    return model


# -- scoring ---------------------------------------------------------------------------------------------


def score_pages(pages: Sequence[tuple["Entry", str]], model: "BlockModel", systems: dict[str, Extract]) -> list[PageResult]:
    """Every system on every (page, set label), page by page. The block model (column :data:`SYSTEM`)
    runs first on the first page, then each page starts one system further, so no system always meets a
    page first (cold caches)."""
    runners = {SYSTEM: _block_system(model), **systems}
    _warm_up(runners)
    names = list(runners)
    results = []
    for number, (entry, label) in enumerate(pages):
        html, truth = entry.html() or "", entry.truth() or ""
        shift = number % len(names)
        outcomes = {name: _outcome(runners[name], html, entry.url, truth, name, entry.id)
                    for name in names[shift:] + names[:shift]}
        results.append(PageResult(entry.id, label, entry.raw.get("page_type"), {n: outcomes[n] for n in names}))
        if (number + 1) % PROGRESS_EVERY == 0:
            log.info("%d/%d pages scored", number + 1, len(pages))
    return results


def _warm_up(runners: dict[str, Extract]) -> None:
    """Each system extracts one tiny page, untimed, so lazy loading is not counted on the first page."""
    from .comparison import WARM_UP_HTML

    for name, extract in runners.items():
        try:
            extract(WARM_UP_HTML, "http://warm-up.invalid/")
        except Exception:  # the warm-up only loads lazy state; real failures are counted on real pages
            log.debug("warm-up of %s failed", name, exc_info=True)


def _outcome(extract: Extract, html: str, url: str | None, truth: str, name: str, page_id: str) -> Outcome:
    from ..metrics import shingle_counts, word_prf
    from .comparison import ERROR_CHARS

    failed = False
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        answer = extract(html, url)
    except Exception as exc:  # one page failing must not stop the benchmark; it scores as an empty answer
        # one line, cut short: some libraries quote the whole page in their message
        log.warning("%s failed on %s: %s: %s", name, page_id, type(exc).__name__, str(exc)[:ERROR_CHARS])
        answer, failed = "", True
    cpu_ms, wall_ms = (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000
    text, confidence = (answer, None) if isinstance(answer, str) else (answer.text, answer.confidence)
    return Outcome(word_prf(text, truth), shingle_counts(text, truth), cpu_ms, wall_ms, empty=not text.strip(),
                   failed=failed, confidence=confidence)
