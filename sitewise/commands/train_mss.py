"""``sitewise train-mss``: train the MSS fallback's Naive Bayes scorer from a manifest's pages."""
from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train-mss",
        help="train the MSS fallback model from a manifest (html + truth text)",
        description="Align each page's truth text to its tokens, train the Naive Bayes token scorer and "
        "write a model file (gzip JSON). Without --out it goes to SITEWISE_MSS_MODEL, else "
        "<data_dir>/mss-model.json.gz, where the extractor finds it.",
    )
    parser.add_argument("--manifest", required=True, help="manifest.jsonl, or the folder holding it")
    parser.add_argument("--out", help="model file to write (default: the configured model path)")
    parser.add_argument(
        "--split", help="train only on pages whose split field has this value (e.g. train)"
    )
    parser.add_argument(
        "--split-field", default="official_split",
        help="manifest field --split looks at: official_split (the dataset's own) or split (per site)",
    )
    parser.add_argument("--limit", type=int, help="use at most this many pages")
    parser.add_argument("--bias", type=float, help="score bias stored in the model (default: tuned value)")
    parser.add_argument(
        "--paper-features", action="store_true",
        help="only the paper's features (trigram, most-recent-unclosed tag), no calibration",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import time

    from ..manifest import read_manifest
    from ..mss.model import configured_model_path, save_model
    from ..mss.scorers import PAPER_FEATURES
    from ..mss.train import DEFAULT_BIAS, train

    entries = [
        e for e in read_manifest(args.manifest)
        if e.has_truth and not e.mismatch and (args.split is None or e.raw.get(args.split_field) == args.split)
    ]
    if args.limit is not None:
        entries = entries[: args.limit]
    if not entries:
        raise ValueError(f"no pages with truth in {args.manifest}"
                         + (f" where {args.split_field} = {args.split}" if args.split else ""))
    out = args.out or str(configured_model_path())
    options = {"bias": DEFAULT_BIAS if args.bias is None else args.bias}
    if args.paper_features:
        options.update(features=PAPER_FEATURES, calibrate=False)
    started = time.perf_counter()
    pairs = ((e.html() or "", e.truth() or "") for e in entries)
    scorer, report = train(pairs, **options)
    info = {"source": str(args.manifest), "split": args.split, "split_field": args.split_field, **report.as_dict()}
    save_model(scorer, out, info)
    print(f"trained on {report.used} of {report.pages} pages ({report.skipped or 'none skipped'}) "
          f"in {time.perf_counter() - started:.0f} s: {report.tokens_in} tokens in, {report.tokens_out} out")
    print(f"model: {out}")
    return 0
