"""``sitewise up``: the whole system on one machine — Redis, the web server (gunicorn) and N workers."""
from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "up",
        help="run Redis, the web server and learning workers together (Ctrl-C stops them)",
        description="Start an embedded Redis (append-only, in the data directory; skipped when REDIS_URL is "
        "set), the web server under gunicorn and N RQ workers; log where each listens; report and restart a "
        "part that dies; on Ctrl-C or SIGTERM stop the web server, let the workers finish (or requeue) their "
        "jobs, and stop Redis last. Configuration: see docs/deploy.md.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address the web server binds (default 127.0.0.1)")
    parser.add_argument("--port", type=tcp_port, default=8000, help="web server port (default 8000)")
    parser.add_argument("--workers", type=at_least_one, default=2, help="learning worker processes (default 2)")
    parser.add_argument(
        "--web-processes", type=at_least_one, default=2, help="gunicorn worker processes (default 2, one per core)"
    )
    parser.add_argument(
        "--data-dir", type=Path, help="where the embedded Redis keeps its files (default $SITEWISE_DATA_DIR "
        "or ~/.local/share/sitewise)"
    )
    parser.add_argument(
        "--shutdown-timeout", type=float, default=30.0,
        help="seconds the web server and workers get to finish on Ctrl-C before their work is cut off and "
        "requeued (default 30)",
    )
    parser.add_argument("--access-log", action="store_true", help="log every HTTP request")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .. import gunicorn_config  # noqa: F401  (reads the web server's settings: a bad one stops us here)
    from ..config import Settings
    from ..supervisor import Supervisor, UpOptions

    settings = Settings.from_env(data_dir=str(args.data_dir) if args.data_dir else None)
    options = UpOptions(
        host=args.host,
        port=args.port,
        workers=args.workers,
        web_processes=args.web_processes,
        shutdown_timeout=args.shutdown_timeout,
        access_log=args.access_log,
    )
    return Supervisor(settings, options).run()


def tcp_port(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a TCP port (1-65535)")
    return value


def at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
