"""Learning per-site rules: accuracy per site (spider, dragnet), the learning curve, clustering, the
fallback's self-training, speed.

``sitewise bench learn [--data ../shared/data] [--sets spider,dragnet] [--sizes 20,100,1000]`` prints
and writes ``docs/bench-learn.md``:

1. **per site**: learn each site's rules from its ``split: train`` pages, score its ``split: test`` pages
   (bag-of-words F1 against the truth, pages whose truth is not in the page left out), with the path each
   page took (rules, unconfident, no-template) — and, where MSS is available and the set has HTML, the
   score of sitewise's answer (:func:`sitewise.pipeline.find_article`: the MSS fallback for pages the rules
   are not confident on, or where a template of few pages disagrees with it); sets without a per-site
   split (``--leave-one-out``, wcxb-dev) leave-one-out over their sites of a few pages
   (:mod:`.leave_one_out`);
2. **learning curve**: the same, learning from the first 1, 2, 3, 4, 5, 8 and all training pages, the rules
   alone and with the fallback, beside the fallback alone (what serves a site not learned yet);
3. **clustering**: the original spider clustering (one-hot CSS values and tag path, standardised, DBSCAN
   eps 0.5, min_samples 1) against ours, on each site's training pages: how many clusters, and how much of
   the article text (blocks whose words are in the truth) the single best cluster holds;
4. **self-training**: what the fallback gains from the learned sites' rule-labelled pages, as the worker
   trains it (:func:`sitewise.mss.selftrain.self_train`), scored on held-back sites, on the learned sites'
   test pages and on a set of sites never learned (``--unseen``, default CleanEval);
5. **speed**: learning time for a site of 20, 100, 1000 pages (blocks already collected: copies of a
   spider site's pages, their own text made unique per copy), and applying rules to every test page with
   HTML, beside parsing it alone and trafilatura on it.
   ``--speed-only`` re-times just this and replaces the Speed section of the existing report.

Dragnet pages are rendered with the collector (the eval harness's render cache makes re-runs quick).
Timings are wall-clock and CPU seconds of this process on a shared machine: read them as such.
"""
from __future__ import annotations

import argparse
import copy
import logging
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..commands.output import check_output_file, write_whole
from ..metrics import Summary, word_prf
from ..pipeline import MIN_TRUSTED_TEMPLATE_PAGES, RULES_OVERRULED, SitewiseExtractor
from .leave_one_out import leave_one_out_section

log = logging.getLogger(__name__)

#: Training pages per site for the learning curve (None = all). 4: a publisher's 5 pages learnt
#: leave-one-out (issue 14's recent-news set) teach its rules from 4.
CURVE_SIZES: tuple[int | None, ...] = (1, 2, 3, 4, 5, 8, None)
#: Site sizes for the learning-time measurement.
SPEED_SIZES = (20, 100, 1000)
#: The spider site copied to make large sites for the speed measurement (real CSS, 16 pages).
SPEED_SOURCE = "techcrunch:techcrunch.com"
#: Runs of apply_rules (and of parsing alone) timed per page: the least is kept.
APPLY_RUNS = 5
#: ... and of trafilatura, some 20 times slower: fewer runs suffice for its least.
PEER_RUNS = 2
#: Learning runs per site size (the least CPU time is reported: other work only ever adds to it).
SPEED_RUNS = 3
SPEED_HEADING = "## Speed"
#: Sections of the report written by hand, which a new run keeps (see :func:`keep_written_sections`).
WRITTEN_SECTIONS = ("## Beside the peers",)
SPEED_NOTE = (
    "Learning is linear in blocks. The largest shares of its CPU time are term statistics (tokenising and "
    "stemming each distinct text once), block features, selecting the article, checking each template's "
    "rules on its pages and clustering; what depends only on a selector path, a style, a text or a "
    "feature row is worked out once per distinct one (a site's pages repeat them: `Page.from_dict` gives "
    "a page's blocks of one style one shared dict, whose values are read once), ASCII text is split into "
    "words by `re` (the `regex` module's pattern, which keeps combining marks and joiners in words, only "
    "where other characters are), and the learner pauses Python's cyclic garbage collector, whose full "
    "collections walked every object of the process (0.6 s of a 1.4 s learn of 100 pages while the "
    "benchmark's pages were loaded). The learn job adds reading the pages from the store (JSON and "
    "`Page.from_dict`: about 4 ms of CPU per page of 243 blocks, in the style-table form the store keeps) "
    "and the checks of the new rules, each rule set read once on each page with its template matchers "
    "kept across the pages (`sitewise.learn.rules.RuleReadings`)."
)
#: A block counts as article text for the clustering comparison when this share of its words is in the truth.
TRUTH_SHARE = 0.8
#: What the original project reported (its word accuracy against Diffbot, and the issue's measurements).
ORIGINAL = {"npr:npr.org": 0.995, "theverge:theverge.com": 0.62, "usatoday:usatoday.com": 0.966,
            "techcrunch:techcrunch.com": 0.854}
ORIGINAL_NOTE = (
    "*original*: what the spider project reported — its word accuracy against Diffbot's text (edit distance "
    "of the word sequences) for npr and usatoday, and the issue's measurements of it for techcrunch and "
    "theverge; the truth is Diffbot's, which leaves out headlines, bylines and captions (as the article's "
    "body, scored here, does) and also block quotes (npr: embedded tweets, quoted passages) and some lists "
    "(theverge) that human annotators keep, so a human-like extraction loses a few points against it."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=Path("../shared/data"), help="folder of the evaluation sets")
    parser.add_argument("--sets", default="spider,dragnet", help="comma-separated sets with a per-site split")
    parser.add_argument("--sizes", default=",".join(map(str, SPEED_SIZES)), help="site sizes (pages) to time learning on")
    parser.add_argument("--leave-one-out", default="wcxb-dev", metavar="SETS",
                        help="comma-separated sets without a per-site split to score leave-one-out over their sites of "
                        "3 pages or more, beside a fallback trained without them (default wcxb-dev; '' skips)")
    parser.add_argument("--no-curve", action="store_true", help="skip the learning curve")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed measurements")
    parser.add_argument("--speed-only", action="store_true",
                        help="only the speed measurements: replace the Speed section of the existing report")
    parser.add_argument("--no-self-train", action="store_true", help="skip the fallback's self-training")
    parser.add_argument("--unseen", default="cleaneval",
                        help="sets of other sites to score the self-trained fallback on (comma-separated)")
    parser.add_argument("--limit-sites", type=int, help="at most N sites per set (quick runs)")
    parser.add_argument("--workers", type=int, default=2, help="parallel pages while rendering (default 2)")
    parser.add_argument("--out", type=Path, default=Path("docs/bench-learn.md"), help="the report to write")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


@dataclass
class Site:
    """One site of a set: training pages, and test pages with their truth."""

    name: str
    train: list[Any] = field(default_factory=list)  # Documents
    test: list[tuple[Any, str]] = field(default_factory=list)  # (Document, truth)


@dataclass
class SiteScore:
    site: str
    pages: int
    scores: list[Any]  # sitewise.metrics.Score per test page, rules alone
    paths: Counter
    scores_fallback: list[Any] = field(default_factory=list)  # ... as sitewise answers (find_article)
    seconds: float = 0.0
    overruled: int = 0  # confident rules' answers the fallback's replaced (a template of few pages disagreed)

    @property
    def f1(self) -> list[float]:
        return [score.f1 for score in self.scores]


def _prf(scores: Sequence[Any]) -> str:
    """Mean precision, recall and F1 of per-page scores, as a report's table cells."""
    summary = Summary.of(scores)
    return f"{summary.precision:.3f} | {summary.recall:.3f} | {summary.f1:.3f}"


def run(args: argparse.Namespace) -> int:
    # everything that can be wrong with the arguments is found before the first page is rendered
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    sizes = _sizes(args.sizes)
    if args.limit_sites is not None and args.limit_sites < 1:
        raise ValueError("--limit-sites must be at least 1")  # 0 read as no limit: the whole run, not a quick one
    args.out.parent.mkdir(parents=True, exist_ok=True)
    check_output_file(args.out)
    report: list[str] = ["# Benchmark: learning per-site rules", "", _command_line(args), ""]
    loaded: dict[str, dict[str, Site]] = {}
    for name in sets:
        manifest = args.data / name
        if not (manifest / "manifest.jsonl").is_file():
            print(f"{name}: no manifest under {manifest}, skipped")
            continue
        loaded[name] = load_sites(manifest, limit_sites=args.limit_sites, workers=args.workers, progress=not args.quiet)
    if not loaded:
        raise ValueError(f"no set of {', '.join(sets) or 'none given'} has a manifest under {args.data}")
    if args.speed_only:
        speed = [*speed_section(loaded, sizes), f"(Re-timed with `--speed-only`: {_command_line(args)})", ""]
        previous = args.out.read_text(encoding="utf-8").splitlines() if args.out.is_file() else report
        report = replace_section(previous, SPEED_HEADING, speed)
    else:
        for name, sites in loaded.items():
            report += accuracy_section(name, sites)
        for name in _leave_one_out_sets(args):
            report += leave_one_out_section(name, args.data, workers=args.workers, progress=not args.quiet,
                                            limit_sites=args.limit_sites, trafilatura=_trafilatura())
        if not args.no_curve:
            report += curve_section(loaded)
        if "spider" in loaded:
            report += clustering_section(loaded["spider"])
        if not args.no_self_train:
            unseen = [args.data / name for name in args.unseen.split(",") if name.strip()]
            report += self_training_section(loaded, unseen)
        if not args.no_speed:
            report += speed_section(loaded, sizes)
        if args.out.is_file():
            report = keep_written_sections(args.out.read_text(encoding="utf-8").splitlines(), report)
    write_whole(args.out, "\n".join(report).rstrip("\n") + "\n")
    print(f"\nwrote {args.out}")
    return 0


def _leave_one_out_sets(args: argparse.Namespace) -> list[str]:
    """``--leave-one-out``'s sets that have a manifest under ``--data`` (the others said and skipped)."""
    names = [name.strip() for name in args.leave_one_out.split(",") if name.strip()]
    found = [name for name in names if (args.data / name / "manifest.jsonl").is_file()]
    for name in sorted(set(names) - set(found)):
        print(f"{name}: no manifest under {args.data / name}, not scored leave-one-out")
    return found


def _sizes(text: str) -> list[int]:
    """``--sizes`` as numbers of pages; a ValueError naming the option for anything else."""
    sizes = [s.strip() for s in text.split(",") if s.strip()]
    if not all(s.isdigit() and int(s) > 0 for s in sizes):
        raise ValueError(f"--sizes takes page counts of 1 or more separated by commas, not {text!r}")
    return [int(s) for s in sizes]


def keep_written_sections(previous: list[str], report: list[str]) -> list[str]:
    """``report`` with the sections of :data:`WRITTEN_SECTIONS` that ``previous`` has carried over at its
    end: they are written by hand (from ``docs/benchmarks.md``'s peers), not measured here."""
    for heading in WRITTEN_SECTIONS:
        if heading in previous and heading not in report:
            start, end = _section(previous, heading)
            report = [*report, *previous[start:end]]
            if report[-1]:
                report.append("")
    return report


def replace_section(lines: list[str], heading: str, section: list[str]) -> list[str]:
    """``lines`` (a markdown report) with the section under ``heading`` (up to the next ``## ``) replaced
    by ``section``, or with ``section`` appended when there is none."""
    if heading not in lines:
        return [*lines, "", *section] if lines else list(section)
    start, end = _section(lines, heading)
    return [*lines[:start], *section, *lines[end:]]


def _section(lines: list[str], heading: str) -> tuple[int, int]:
    """Where the section under ``heading`` starts and ends (at the next ``## `` heading, or the end)."""
    start = lines.index(heading)
    return start, next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))


def _command_line(args: argparse.Namespace) -> str:
    import platform

    only = " --speed-only" if args.speed_only else ""
    return (
        f"`sitewise bench learn --data {args.data} --sets {args.sets} --sizes {args.sizes}{only}` on "
        f"{platform.python_implementation()} {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M')}; "
        "timings are of one process on a shared 2-core machine."
    )


# -- loading ---------------------------------------------------------------------------------------


def load_sites(manifest: Path, *, limit_sites: int | None, workers: int, progress: bool) -> dict[str, Site]:
    """The per-site split of a set, with rendered (or imported) pages."""
    from ..evaluate import DEFAULT_RENDER_CACHE, load_documents
    from ..manifest import read_manifest

    # Sites as the server keys them: a registrable domain with all its hosts (news.bbc.co.uk is bbc.co.uk).
    entries = [e for e in read_manifest(manifest, "registrable") if e.split in ("train", "test")]
    groups = list(dict.fromkeys(e.group for e in entries))
    if limit_sites:
        groups = groups[:limit_sites]
    entries = [e for e in entries if e.group in set(groups) and (e.split == "train" or (e.has_truth and not e.mismatch))]
    documents, errors = load_documents(entries, needs_page=True, workers=workers, cache_dir=DEFAULT_RENDER_CACHE, progress=progress)
    for document_id, error in errors.items():
        log.warning("%s: %s", document_id, error)
    sites: dict[str, Site] = {g: Site(str(g)) for g in groups}
    for entry, document in zip(entries, documents):
        if document.id in errors or document.page is None:
            continue
        site = sites[entry.group]
        if entry.split == "train":
            site.train.append(document)
        else:
            site.test.append((document, entry.truth() or ""))
    return {name: site for name, site in sites.items() if site.test}


# -- 1. per site ---------------------------------------------------------------------------------


def score_site(site: Site, train_count: int | None = None, *, with_fallback: bool = False, part: str = "article") -> SiteScore:
    """The site's test pages scored by rules learnt from its (first ``train_count``) training pages: the rules
    alone, and, ``with_fallback``, as sitewise answers them (:func:`sitewise.pipeline.find_article`: the
    fallback where the rules are not confident, or where a template of few pages disagrees with it)."""
    from ..learn.extractor import RulesExtractor

    started = time.perf_counter()
    extractor = RulesExtractor(part=part).fit(site.train[:train_count] if train_count else site.train)
    seconds = time.perf_counter() - started
    combined = SitewiseExtractor.from_rules(extractor.learner_.rules_ if extractor.learner_ else None, part=part)
    result = SiteScore(site.name, len(site.test), [], Counter(), seconds=seconds)
    for document, truth in site.test:
        text, info = extractor.extract_detailed(document)
        result.scores.append(word_prf(text, truth))
        result.paths[info["method"]] += 1
        if with_fallback:
            text, info = combined.extract_detailed(document)
            result.scores_fallback.append(word_prf(text, truth))
            result.overruled += info.get("why", "").startswith(RULES_OVERRULED)
    return result


def _fallback_extractor() -> Any:
    try:
        from ..extractors import get_extractor

        return get_extractor("mss")
    except Exception as exc:  # MSS is another part of sitewise; report without it when it cannot load
        log.info("no MSS fallback: %s", exc)
        return None


def accuracy_section(name: str, sites: dict[str, Site]) -> list[str]:
    from .comparison import scored_part

    with_fallback = any(d.html for s in sites.values() for d, _ in s.test) and _fallback_extractor() is not None
    part = scored_part(name)
    lines = [f"## {name}: learn on each site's train pages, score its test pages", ""]
    if part == "body":
        lines += ["Scored on the article body (no headline, byline, date line or captions): the truth is Diffbot's `text`.", ""]
    header = "| site | test pages | P | R | mean F1 | median F1 | paths | learn s |"
    if with_fallback:
        header += " P with MSS fallback | R with MSS fallback | F1 with MSS fallback |"
    lines += [header, "|" + "---|" * (header.count("|") - 1)]
    scores = []
    for site in sites.values():
        score = score_site(site, with_fallback=with_fallback, part=part)
        scores.append(score)
        original = f" (original: {ORIGINAL[site.name]:.3f})" if site.name in ORIGINAL else ""
        row = (
            f"| {site.name} | {score.pages} | {_prf(score.scores)}{original} | "
            f"{statistics.median(score.f1):.3f} | {_paths(score.paths)} | {score.seconds:.2f} |"
        )
        if with_fallback:
            row += f" {_prf(score.scores_fallback)} |"
        lines.append(row)
        print(row)
    every = Summary.of([page for s in scores for page in s.scores])
    paths = sum((s.paths for s in scores), Counter())
    summary = (
        f"**{name}: {len(scores)} sites, {every.pages} test pages: mean F1 {every.f1:.3f} "
        f"(P {every.precision:.3f}, R {every.recall:.3f}; mean of site means {statistics.fmean(statistics.fmean(s.f1) for s in scores):.3f}), "
        f"median {every.median_f1:.3f}; paths: {_paths(paths)}.**"
    )
    if with_fallback:
        answered = Summary.of([page for s in scores for page in s.scores_fallback])
        summary += (f" As sitewise answers (the MSS fallback where the rules are not confident, or where a template of "
                    f"fewer than {MIN_TRUSTED_TEMPLATE_PAGES} pages disagrees with it, as on "
                    f"{sum(s.overruled for s in scores)} pages here): mean F1 {answered.f1:.3f} "
                    f"(P {answered.precision:.3f}, R {answered.recall:.3f}).")
    lines += ["", summary, ""]
    if any(site in ORIGINAL for site in sites):
        lines += [ORIGINAL_NOTE, ""]
    print(summary)
    return lines


def _paths(paths: Counter) -> str:
    return ", ".join(f"{k} {v}" for k, v in paths.most_common())


# -- 2. learning curve ---------------------------------------------------------------------------


def curve_section(loaded: dict[str, dict[str, Site]]) -> list[str]:
    """Mean F1 on each set's test pages with rules learnt from the first k training pages: the rules
    alone, and (where the set has HTML) with the MSS fallback where they are not confident, beside the
    fallback alone: what a site gets before it has `SITEWISE_MIN_PAGES_TO_LEARN` pages."""
    from .comparison import scored_part

    fallback = _fallback_extractor()
    lines = ["## Learning curve: mean F1 on the test pages, learning from the first k training pages", ""]
    header = "| set | " + " | ".join("all" if k is None else str(k) for k in CURVE_SIZES) + " | MSS fallback alone |"
    lines += [header, "|" + "---|" * (len(CURVE_SIZES) + 2)]
    comparisons = []
    for name, sites in loaded.items():
        part = scored_part(name)
        with_html = fallback is not None and all(d.html for site in sites.values() for d, _ in site.test)
        alone, combined = [], []
        for k in CURVE_SIZES:
            scores = [score_site(site, k, with_fallback=with_html, part=part) for site in sites.values()]
            alone.append(statistics.fmean(f for s in scores for f in s.f1))
            combined.append(statistics.fmean(x.f1 for s in scores for x in s.scores_fallback) if with_html else None)
        baseline = (
            statistics.fmean(word_prf(fallback.extract(d), truth).f1 for site in sites.values() for d, truth in site.test)
            if with_html else None
        )
        rows = [(f"{name}, rules", alone, "")]
        if with_html:
            rows.append((f"{name}, rules + fallback", combined, f"{baseline:.3f}"))
            comparisons.append(_curve_comparison(name, combined, baseline))
        for label, values, last in rows:
            row = f"| {label} | " + " | ".join(f"{v:.3f}" for v in values) + f" | {last} |"
            lines.append(row)
            print("curve", row)
    lines += ["", "A site is learned once it has `SITEWISE_MIN_PAGES_TO_LEARN` pages (default 5); until then "
              "the MSS fallback serves it." + "".join(f" {text}" for text in comparisons), ""]
    return lines


def _curve_comparison(name: str, combined: Sequence[float], baseline: float) -> str:
    """Where on one set's curve the rules with the fallback pass the fallback alone, in words."""
    ahead = [k for k, value in zip(CURVE_SIZES, combined) if value > baseline]
    if not ahead:
        return f"On {name}, rules from any number of pages score less than the fallback alone ({baseline:.3f})."
    sizes = ", ".join("all" if k is None else str(k) for k in ahead)
    return f"On {name}, rules with the fallback score above the fallback alone ({baseline:.3f}) when learnt from {sizes} pages."


# -- 3. clustering ---------------------------------------------------------------------------------


def original_clusters(records: Sequence[Any]) -> Any:
    """The spider project's clustering: one-hot CSS values and tag path, standardised, DBSCAN eps 0.5."""
    from sklearn.cluster import DBSCAN
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.preprocessing import StandardScaler

    rows = [{**{f"{k}={v}": 1 for k, v in r.block.style.items()}, "path=" + "/".join(r.block.path): 1} for r in records]
    matrix = DictVectorizer(sparse=False).fit_transform(rows)
    return DBSCAN(eps=0.5, min_samples=1).fit(StandardScaler().fit_transform(matrix)).labels_


def _article_mask(site: Site, pages: Sequence[Any], records: Sequence[Any]) -> list[bool]:
    from ..metrics import words

    truths = {}
    for document, truth in site.test:
        truths[document.page.url] = truth
    mask = []
    for record in records:
        truth = truths.get(pages[record.page].url)
        if truth is None:
            mask.append(False)
            continue
        bag = Counter(words(truth))
        tokens = words(record.text)
        mask.append(len(tokens) >= 4 and sum(1 for w in tokens if bag[w]) / len(tokens) >= TRUTH_SHARE)
    return mask


def clustering_section(sites: dict[str, Site]) -> list[str]:
    from ..learn.cluster import cluster_blocks
    from ..learn.features import describe_blocks

    lines = [
        "## Clustering: the original spider DBSCAN against ours (each site's test pages, which have truth)",
        "",
        "Article blocks: blocks whose words are (80%) in the truth. *kinds*: distinct feature rows before "
        "clustering (original: distinct CSS values + tag path; ours: distinct rows of our features after "
        "rounding). *recall*: share of the article text in the one cluster holding most of it — all a "
        "top-cluster choice could ever get. *purity*: share of that cluster's text that is article.",
        "",
        "| site | blocks | original: kinds → clusters | original: recall / purity | ours: kinds → clusters | ours: recall / purity |",
        "|---|---|---|---|---|---|",
    ]
    for site in sites.values():
        pages = [d.page for d, _ in site.test]
        records = describe_blocks(pages)
        mask = _article_mask(site, pages, records)
        if not any(mask):
            continue
        original_kinds = len({(tuple(sorted(r.block.style.items())), tuple(r.block.path)) for r in records})
        our_kinds = len({r.row_key() for r in records})
        cells = []
        for kinds, labels in ((original_kinds, original_clusters(records)), (our_kinds, cluster_blocks(records))):
            article: Counter = Counter()
            everything: Counter = Counter()
            for record, label, is_article in zip(records, labels, mask):
                everything[int(label)] += record.chars
                if is_article:
                    article[int(label)] += record.chars
            top, chars = article.most_common(1)[0]
            cells += [f"{kinds} → {len(set(labels.tolist()))}",
                      f"{chars / sum(article.values()):.2f} / {chars / everything[top]:.2f}"]
        row = f"| {site.name} | {len(records)} | " + " | ".join(cells) + " |"
        lines.append(row)
        print("clusters", row)
    lines += [
        "",
        "The original's clusters are exactly its distinct (style, path) kinds: after standardisation every "
        "difference exceeds eps 0.5. Ours merge kinds that differ only a little (spacing, a wrapper class, "
        "position, length) and keep apart what the original merged (same style and tag path, but comment "
        "instead of article containers), which is where the purity comes from.",
        "",
    ]
    return lines


# -- 4. self-training -------------------------------------------------------------------------------

SELF_TRAINING_HEADING = "## Self-training: what the learned sites teach the fallback"


def self_training_section(loaded: dict[str, dict[str, Site]], unseen: Sequence[Path]) -> list[str]:
    """What self-training adds to the MSS fallback, done as the worker does it: each site's rules, learned
    from its train pages, label those pages (confident answers only), every fourth site is held back, a
    block model trained on the rest is joined to the shipped one. Scored beside the shipped model: on the
    held-back sites' labelled pages (self-training's own test, which decides whether the worker writes
    the model), on the learned sites' test pages against their human truth (what the fallback answers
    there: pages no template fits), and on pages of sites never learned (``unseen`` sets)."""
    from ..learn.extractor import RulesExtractor
    from ..mss.model import SHIPPED_MODEL, load_model
    from ..mss.selftrain import MIN_GAIN, candidate_model, mean_f1, split_held_back
    from ..pipeline import rule_label

    labelled: list[tuple[str, str, str | None]] = []
    labelled_sites: list[str] = []
    tests: dict[str, list[tuple[str, str, str | None]]] = {}
    for sites in loaded.values():
        for site in sites.values():
            site_tests = [(document.html, truth, document.url) for document, truth in site.test if document.html]
            learner = RulesExtractor().fit(site.train).learner_ if site_tests else None
            if learner is None:
                continue  # spider's pages have no HTML to train or score an HTML model on; or nothing learned
            for document in site.train:
                # the page as served: rendered pages here carry their blocks, not their serialized DOM
                html = (document.page.html if document.page is not None else None) or document.html
                text = rule_label(learner.rules_, document.page, html) if html else None
                if text:
                    labelled.append((html, text, document.url))
                    labelled_sites.append(site.name)
            tests[site.name] = site_tests
    if not labelled:
        return []
    trained_on, held_back_pairs = split_held_back(list(zip(labelled, labelled_sites)), labelled_sites)
    training, held_back = [page for page, _ in trained_on], [page for page, _ in held_back_pairs]
    held_sites = {site for _, site in held_back_pairs}
    shipped = load_model(SHIPPED_MODEL)
    candidate, report = candidate_model(training, shipped)
    rows = [
        ("held-back sites' pages, labelled by their rules (self-training's own test)", held_back),
        ("test pages of the sites trained on, human truth",
         [page for site, pages in tests.items() if site not in held_sites for page in pages]),
        ("test pages of the held-back sites, human truth",
         [page for site, pages in tests.items() if site in held_sites for page in pages]),
    ]
    for path in unseen:
        rows.append((f"{path.name}: sites never learned, human truth", _truth_pages(path)))
    lines = [SELF_TRAINING_HEADING, "",
             f"{len(labelled)} pages of {len(set(labelled_sites))} learned sites labelled by their own rules "
             f"({len(training)} trained on, {len(held_back)} of {len(held_sites)} sites held back); training used "
             f"{report.used} of {report.pages} ({_skipped(report.skipped)}). The candidate (the shipped "
             f"model joined with the one trained on these pages) would be written only with a gain of "
             f"{MIN_GAIN} or more on the first row. Mean word F1 of the MSS fallback alone:", "",
             "| pages | count | shipped model | self-trained | change |", "|---|---|---|---|---|"]
    for label, pages in rows:
        if not pages:
            continue
        before, after = mean_f1(shipped, pages), mean_f1(candidate, pages)
        row = f"| {label} | {len(pages)} | {before:.3f} | {after:.3f} | {after - before:+.3f} |"
        lines.append(row)
        print(row)
    return [*lines, ""]


def _skipped(reasons: dict[str, int]) -> str:
    return ", ".join(f"{count} skipped: {reason}" for reason, count in reasons.items()) or "none skipped"


def _truth_pages(manifest: Path) -> list[tuple[str, str, str | None]]:
    """(HTML, truth, URL) of the pages ``sitewise bench mss`` scores in a set ([] when the set is absent)."""
    from .comparison import SetSpec
    from .mss import scored_entries

    try:
        entries = scored_entries(SetSpec(manifest.name, str(manifest)), None)
    except ValueError as exc:  # no manifest there, or no page with truth
        log.warning("%s", exc)
        return []
    return [(html, entry.truth() or "", entry.url) for entry in entries if (html := entry.html())]


# -- 5. speed --------------------------------------------------------------------------------------


def synthetic_site(pages: Sequence[Any], count: int) -> list[Any]:
    """``count`` pages made from ``pages``: copies whose own text (blocks not repeated across the
    originals) carries a per-copy word, so the copies are distinct pages of one site. The word is of
    letters: the learner folds digits when it compares texts (``sitewise.learn.scoring.text_key``), so a
    numbered word would make every copy of a page the same page to it, and learn only the originals."""
    from ..learn.scoring import text_key

    seen: Counter = Counter()
    for page in pages:
        seen.update({text_key(b.text) for b in page.blocks})
    out = []
    for number in range(count):
        page = copy.deepcopy(pages[number % len(pages)])
        copy_number = number // len(pages)
        if copy_number:
            page.url = f"{page.url}?copy={copy_number}"
            marker = f"variant{_letters(number)}"
            for block in page.blocks:
                if seen[text_key(block.text)] < 2:
                    block.text = f"{block.text} {marker}"
        out.append(page)
    return out


def _letters(number: int) -> str:
    """``number`` written in the letters a-j for the digits 0-9 (``12`` → ``bc``)."""
    return "".join(chr(ord("a") + int(digit)) for digit in str(number))


def speed_section(loaded: dict[str, dict[str, Site]], sizes: Sequence[int]) -> list[str]:
    """Learning time per site size (CPU seconds of this process: the best of :data:`SPEED_RUNS`, which
    is the least disturbed by other work on a shared machine), and applying rules to the test pages."""
    import gc
    import os

    from ..learn.learner import SiteLearner, distinct_pages
    from ..learn.rules import apply_rules

    lines = [SPEED_HEADING, ""]
    source = loaded.get("spider", {}).get(SPEED_SOURCE) or next(iter(next(iter(loaded.values())).values()))
    # The source's distinct pages (spider's techcrunch holds one page twice): a copy of a copy is no page.
    originals = distinct_pages([d.page for d in source.train] + [d.page for d, _ in source.test])
    SiteLearner().fit(originals[:3])  # imports and caches warm
    load_before = os.getloadavg()[0]
    lines += [
        f"| pages | blocks | learn CPU s (best of {SPEED_RUNS}) | median CPU s | CPU ms per page | best wall s | templates "
        "| learn job CPU s: first | again |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        row = _learn_time_row(originals, size)
        lines.append(row)
        print("learn", row)
    lines += [
        "",
        f"Pages: copies of the {len(originals)} distinct pages of `{source.name}` (real computed CSS), each "
        f"copy's own text made unique (every page learned: none taken for a copy of another); each run starts "
        f"from cold caches, as a worker's first learn of a site does. Load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on "
        f"{os.cpu_count()} cores: wall time is mostly waiting for a core, CPU time is the learner's. "
        "*Learn job*: what a worker's learn of the pages stored as one site costs this process (reading the "
        "pages from an embedded Redis, learning, checking the rules on the pages and storing them; Redis's "
        "own CPU aside): *first* with no rules yet, *again* a re-learn after one page more, which also "
        "compares the new rules with the current ones on every page (best of "
        f"{SPEED_RUNS} each).",
        "",
        SPEED_NOTE,
        "",
    ]
    # The synthetic sites are gone by now; collect them, so that applying rules is timed in a process of
    # ordinary size (with the 1,000-page site still alive, its garbage collections doubled a run's CPU time).
    gc.collect()
    lines += _apply_speed(loaded, apply_rules)
    return lines


def _learn_time_row(originals: Sequence[Any], size: int) -> str:
    """The speed table's row for a synthetic site of ``size`` pages."""
    from ..learn.learner import SiteLearner

    pages = synthetic_site(originals, size)
    cpu_times, wall_times = [], []
    for _ in range(SPEED_RUNS):
        forget_learned_answers()
        wall, cpu = time.perf_counter(), time.process_time()
        learner = SiteLearner().fit(pages)
        cpu_times.append(time.process_time() - cpu)
        wall_times.append(time.perf_counter() - wall)
    if learner.report_.pages != size:  # the learner took copies for one page: the row would time fewer pages
        raise RuntimeError(f"the synthetic site of {size} pages was learned as {learner.report_.pages} distinct pages")
    best = min(cpu_times)
    first, again = _learn_job_times(pages, synthetic_site(originals, size + 1)[-1])
    return (
        f"| {size} | {learner.report_.blocks} | {best:.2f} | {statistics.median(cpu_times):.2f} | "
        f"{1000 * best / size:.1f} | {min(wall_times):.2f} | {len(learner.rules_['templates'])} | "
        f"{first:.2f} | {again:.2f} |"
    )


def _learn_job_times(pages: Sequence[Any], another: Any) -> tuple[float, float]:
    """CPU seconds (best of :data:`SPEED_RUNS`) of a worker's learn of ``pages`` stored as one site, in an
    embedded Redis of its own: the first learn, and a re-learn once ``another`` page is stored."""
    import tempfile

    from ..redis_conn import connect, stop_embedded
    from ..store import Store

    first, again = [], []
    with tempfile.TemporaryDirectory(prefix="sitewise-bench-") as folder:
        client = connect(data_dir=folder)
        try:
            store = Store(client, max_pages_per_site=len(pages) + 1)
            site = store.site_key(pages[0].url)
            for _ in range(SPEED_RUNS):
                client.flushall()
                for page in pages:
                    store.put_page(page)
                first.append(_timed_learn(store, site))
                store.put_page(another)
                again.append(_timed_learn(store, site))
        finally:
            stop_embedded(client)
    return min(first), min(again)


def _timed_learn(store: Any, site: str) -> float:
    """CPU seconds of one learn of a stored site from cold caches; it must store rules."""
    from ..learn.site import learn_stored_site

    forget_learned_answers()
    cpu = time.process_time()
    outcome = learn_stored_site(store, site)
    seconds = time.process_time() - cpu
    if not outcome.stored:
        raise RuntimeError(f"the timed learn of {site} stored nothing: {outcome.reason}")
    return seconds


def forget_learned_answers() -> None:
    """Empty what learning remembers across sites (texts' keys and terms, class and id names, parsed
    selectors): each timed learn starts as a worker's first learn of a site does, not from the answers
    the run before it left (a warm learn of 100 pages took about a fifth less CPU time)."""
    from ..learn import consolidate, features, rules, scoring, selectors

    for module in (consolidate, features, rules, scoring, selectors):
        for value in vars(module).values():
            for cached in (value, *vars(value).values()) if isinstance(value, type) else (value,):
                cached = getattr(cached, "__func__", cached)  # a static method's function
                if callable(getattr(cached, "cache_clear", None)) and getattr(cached, "__module__", "") == module.__name__:
                    cached.cache_clear()


def _apply_speed(loaded: dict[str, dict[str, Site]], apply_rules: Any) -> list[str]:
    """Applying each site's rules to its test pages, page by page beside lexbor parsing the page alone
    and trafilatura extracting it (each the least of a few runs, taken in turn on the same page so that
    all see the same load on a shared machine), on raw HTML and on the collected blocks."""
    from selectolax.lexbor import LexborHTMLParser

    from ..learn.learner import SiteLearner

    pages = []
    for sites in loaded.values():
        for site in sites.values():
            tested = [document for document, _ in site.test if document.html]
            if tested:
                rules = SiteLearner().fit([d.page for d in site.train]).rules_
                pages += [(rules, document) for document in tested]
    if not pages:
        return ["No page with HTML to time applying rules on (run with --sets dragnet).", ""]
    peer = _trafilatura()
    times: dict[str, list[float]] = {"rules": [], "parse": [], "blocks": [], "peer": []}
    for rules, document in pages:
        html, page = document.html, document.page
        times["rules"].append(_least_ms(lambda: apply_rules(rules, html=html), APPLY_RUNS))
        times["parse"].append(_least_ms(lambda: LexborHTMLParser(html), APPLY_RUNS))
        times["blocks"].append(_least_ms(lambda: apply_rules(rules, page=page), APPLY_RUNS))
        if peer is not None:
            times["peer"].append(_least_ms(lambda: peer.extract_html(html, None), PEER_RUNS))
    median = {name: statistics.median(values) for name, values in times.items() if values}
    sizes = sorted(len(document.html) for _, document in pages)
    line = (
        f"Applying each site's rules to its {len(pages)} test pages with HTML (median {statistics.median(sizes) / 1000:.0f} KB): "
        f"median {median['rules']:.2f} ms per page on raw HTML (of which parsing, lexbor alone: {median['parse']:.2f} ms), "
        f"{median['blocks']:.2f} ms on the collected blocks"
    )
    if peer is not None:
        ratios = [peer_ms / rules_ms for rules_ms, peer_ms in zip(times["rules"], times["peer"])]
        line += (
            f"; trafilatura on the same pages, in turn with them: median {median['peer']:.2f} ms, "
            f"{median['peer'] / median['rules']:.1f} times the rules' (median of per-page ratios {statistics.median(ratios):.1f})"
        )
    line += f". Each the least of {APPLY_RUNS} runs per page (trafilatura: {PEER_RUNS})."
    print(line)
    return [line, ""]


def _least_ms(call: Any, runs: int) -> float:
    """The least wall time of ``runs`` calls, in milliseconds: other work on the machine only adds to it."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def _trafilatura() -> Any:
    """The trafilatura peer as ``sitewise bench compare`` runs it, or None when it is not installed."""
    try:
        from .peers import Trafilatura

        return Trafilatura()
    except Exception as exc:  # the bench extra is optional
        log.info("no trafilatura to time beside the rules: %s", exc)
        return None