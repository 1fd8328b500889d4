"""The ``sitewise`` command line. Each sub-command lives in ``sitewise/commands/<name>.py`` with a
``register(subparsers)`` that adds its parser (cheap: heavy imports happen inside the handler)."""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from . import __version__
from .api import SitewiseError
from .config import configure_logging

#: Sub-command modules, in the order ``sitewise --help`` lists them.
COMMANDS = (
    "demo", "up", "collect", "import_spider", "learn", "alias", "rules", "extract", "train_mss", "eval", "bench",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sitewise", description="Learn, site by site, where the article is.")
    parser.add_argument("--version", action="version", version=f"sitewise {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"sitewise.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"sitewise.commands.{name}":
                raise
            continue  # not built yet in this checkout
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(logging.DEBUG if args.verbose else logging.INFO)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader stopped early (``sitewise extract … | head``): not an error of ours; silence the
        # interpreter's own complaint when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except _store_errors() as exc:
        print(f"sitewise {args.command}: error: {_store_down(exc, args)}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, OSError, SitewiseError) as exc:
        # Bad input, files named by options included (a folder given for a file, a full disk): one clear
        # line, no traceback. What a command writes is written whole or not at all (commands/output.py).
        print(f"sitewise {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2


def _one_line(exc: Exception) -> str:
    """An error's message; an OSError's as the file it names and why (``/tmp: Is a directory``), not
    Python's ``[Errno 21] Is a directory: '/tmp'``; a KeyError's without quotes around it."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{os.fsdecode(exc.filename)}: {exc.strerror}" if isinstance(exc.filename, (str, bytes)) else exc.strerror
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])  # (a KeyError's str() is its message's repr, quotes and all)
    return str(exc)


def _store_errors() -> tuple[type[Exception], ...]:
    """Redis's errors of a store that does not answer. Only a command that loaded redis can raise them,
    so they are looked up then: the command line starts without importing redis."""
    redis = sys.modules.get("redis")
    return (redis.ConnectionError, redis.TimeoutError) if redis is not None else ()


def _store_down(exc: Exception, args: argparse.Namespace) -> str:
    """One line for a store that does not answer: which Redis (without its password), why, and how to do
    without it when the command can (its ``store_hint``)."""
    from .config import Settings
    from .redis_conn import display_url

    settings = Settings.from_env()
    where = f"Redis at {display_url(settings.redis_url)} (REDIS_URL)" if settings.redis_url else (
        f"the embedded Redis in {settings.data_dir} (SITEWISE_DATA_DIR)")
    hint = getattr(args, "store_hint", "")
    return f"the store does not answer ({where}: {str(exc).rstrip('.')})" + (f"; {hint}" if hint else "")
