"""``sitewise train-mss``: train the fallback's block model (or the paper's Naive Bayes token scorer)
from pages with truth text."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

#: Where the training sets are beside a checkout of the repository (never part of it).
DEFAULT_DATA = Path("../shared/data")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train-mss",
        help="train the MSS fallback's model from pages with truth text",
        description="Train the block model the fallback ships with: by default from the sets whose licences "
        "let the model ship (wcxb-dev, readability-testpages) in --data, deterministically, so "
        "`sitewise train-mss --data ../shared/data --out sitewise/models/block-model.json.gz` rebuilds the "
        "shipped file; or from one --manifest. --out is required: a model at SITEWISE_MSS_MODEL, else "
        "<data_dir>/mss-model.json.gz, is used before the shipped one by sitewise.extract, the commands and "
        "the server, so writing there is a choice to make, never a default. The command says which model "
        "extraction uses afterwards.",
    )
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA,
        help=f"folder holding the training sets' folders (default {DEFAULT_DATA}, from the repository's root)",
    )
    parser.add_argument("--sets", help="comma-separated set folders to train on (default: the shipped model's)")
    parser.add_argument("--manifest", help="train on this manifest.jsonl (or its folder) instead of --data/--sets")
    parser.add_argument("--out", required=True, help="model file to write")
    parser.add_argument(
        "--split", help="only pages whose split field has this value (e.g. train)"
    )
    parser.add_argument(
        "--split-field", default="official_split",
        help="manifest field --split looks at: official_split (the dataset's own) or split (per site)",
    )
    parser.add_argument("--limit", type=int, help="use at most this many pages of each set")
    parser.add_argument(
        "--no-confidence", action="store_true",
        help="skip the answers' confidence estimate (fitted on out-of-fold readings: five more fits, about "
        "five times the training time); the model's answers then carry no confidence",
    )
    parser.add_argument(
        "--naive-bayes", action="store_true",
        help="train the paper's Naive Bayes token scorer instead of the block model",
    )
    parser.add_argument("--bias", type=float, help="Naive Bayes: score bias stored in the model")
    parser.add_argument(
        "--paper-features", action="store_true",
        help="Naive Bayes: only the paper's features (trigram, most-recent-unclosed tag), no calibration",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import time

    out = args.out
    if Path(out).is_dir():  # refused before the training, which takes minutes, not after it
        raise ValueError(f"--out {out} is a folder; give a file")
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    entries = _entries(args)
    started = time.perf_counter()
    confidence_line = None
    if args.naive_bayes:
        report = _train_naive_bayes(args, entries, out)
    else:
        from ..mss.blocktrain import train_block_model

        model, report = train_block_model(((e.html() or "", e.truth() or "", e.url) for e in entries),
                                          confidence=not args.no_confidence)
        model.info_["sources"] = sorted({e.id.split("/")[0] for e in entries})
        model.save(out)
        confidence_line = None if args.no_confidence else _confidence_line(model)
    print(f"trained on {report.used} of {report.pages} pages ({report.skipped or 'none skipped'}) "
          f"in {time.perf_counter() - started:.0f} s")
    if confidence_line is not None:
        print(confidence_line)
    print(f"model: {out}")
    print(_model_in_use(Path(out)))
    return 0


def _confidence_line(model: Any) -> str:
    from ..mss.confidence import FOLDS

    if model.confidence_ is None:
        return (f"answers' confidence: none (it needs pages of at least {FOLDS} sites, and answers that differ "
                "in F1, to hold pages out)")
    return f"answers' confidence: estimated from {model.confidence_.info_['readings']} out-of-fold answers"


def _model_in_use(written: Path) -> str:
    """Which model extraction uses now, said outright: a model written where the extractor looks first
    replaces the shipped one for sitewise.extract, the commands and the server."""
    from ..mss.model import SHIPPED_MODEL, configured_model_path, resolve_model_path

    in_use = resolve_model_path()
    if in_use is None or in_use.resolve() != written.resolve():
        return (f"sitewise.extract and the server use {in_use or 'the line scorer'}, not this model; to use it: "
                f"--mss-model {written} (extract) or SITEWISE_MSS_MODEL={written}")
    if in_use.resolve() == SHIPPED_MODEL.resolve():
        return "this is the shipped model's file: sitewise.extract and the server use it"
    return (f"NOTE: sitewise.extract, the commands and the server now use this model instead of the shipped one "
            f"(it is at {configured_model_path()}, where they look first); remove it to go back")


def _entries(args: argparse.Namespace) -> list:
    """The pages to train on: with truth, not marked as not containing it, in the chosen split."""
    from ..manifest import read_manifest
    from ..mss.blocktrain import TRAINING_SETS

    if args.manifest:
        sources = [Path(args.manifest)]
    else:
        names = args.sets.split(",") if args.sets else list(TRAINING_SETS)
        sources = [args.data / name.strip() for name in names]
        missing = [str(source) for source in sources if not source.is_dir()]
        if missing:
            raise ValueError(f"no training set at {', '.join(missing)}: pass --data FOLDER, the folder holding "
                             f"{', '.join(names)}, or --manifest FILE")
    entries = []
    for source in sources:
        chosen = [
            e for e in read_manifest(source)
            if e.has_truth and not e.mismatch and e.raw.get("html")
            and (args.split is None or e.raw.get(args.split_field) == args.split)
        ]
        entries += chosen[: args.limit] if args.limit is not None else chosen
    if not entries:
        raise ValueError(f"no pages with truth in {', '.join(map(str, sources))}"
                         + (f" where {args.split_field} = {args.split}" if args.split else ""))
    return entries


def _train_naive_bayes(args: argparse.Namespace, entries: list, out: str):
    from ..mss.model import save_model
    from ..mss.scorers import PAPER_FEATURES
    from ..mss.train import DEFAULT_BIAS, train

    options = {"bias": DEFAULT_BIAS if args.bias is None else args.bias}
    if args.paper_features:
        options.update(features=PAPER_FEATURES, calibrate=False)
    scorer, report = train(((e.html() or "", e.truth() or "") for e in entries), **options)
    info = {"source": str(args.manifest or args.data), "split": args.split, "split_field": args.split_field,
            **report.as_dict()}
    save_model(scorer, out, info)
    return report
