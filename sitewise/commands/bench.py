"""``sitewise bench NAME``: run one benchmark module from ``sitewise.bench``."""
from __future__ import annotations

import argparse
import importlib
import pkgutil


def _benchmarks() -> list[str]:
    import sitewise.bench

    return sorted(m.name for m in pkgutil.iter_modules(sitewise.bench.__path__) if not m.name.startswith("_"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark (prints numbers, writes docs/ reports)")
    names = parser.add_subparsers(dest="benchmark", metavar="NAME")
    for name in _benchmarks():
        module = importlib.import_module(f"sitewise.bench.{name}")
        if not hasattr(module, "run"):
            continue  # a helper shared by benchmarks (e.g. the peers' adapters), not a benchmark
        sub = names.add_parser(name, help=(module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else None)
        module.add_arguments(sub)
        sub.set_defaults(handler=module.run)
    parser.set_defaults(handler=lambda args: parser.print_help() or 2)
