"""``sitewise demo``: the whole system on the bundled sample site, in one command.

Phases: start Redis, the web server and the workers (as ``sitewise up``) → serve the generated sample
site on localhost → collect most of its articles in headless Chromium and upload them to the server,
as readers' bookmarklets would → wait until the worker has learned the site's rules → extract a held-out
article through the API → print where to look (install page, dashboard, sample articles to try the
bookmarklet on). Ctrl-C stops everything.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from .up import at_least_one, tcp_port

log = logging.getLogger("sitewise.demo")

#: Articles kept back from collection, for the reader to try the bookmarklet on pages never seen.
HELD_OUT = 3
#: How long the worker may take to learn the sample site (seconds; a busy 2-core machine is slow).
LEARN_TIMEOUT_S = 180.0
#: Pause between polls of GET /rules/<site>.
POLL_S = 1.0
#: Where the sample site is served (its pages' host, the site the demo learns).
SITE_HOST = "localhost"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run the whole system on the bundled sample site (collected, learned); Ctrl-C stops it",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--port", type=tcp_port, default=8000, help="web server port (default 8000)")
    parser.add_argument("--site-port", type=tcp_port, default=8001, help="sample site port (default 8001)")
    parser.add_argument("--workers", type=at_least_one, default=2, help="learning workers (default 2)")
    parser.add_argument("--data-dir", type=Path, help="keep the demo's Redis data here (default: a temporary folder)")
    parser.add_argument("--exit-when-ready", action="store_true", help="stop once the site is learned (for scripts)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..config import Settings
    from ..supervisor import Supervisor, UpOptions, ensure_port_free

    try:
        ensure_port_free(SITE_HOST, args.site_port, "--site-port")  # the web server's port: the supervisor's
    except RuntimeError as exc:
        log.error("%s", exc)
        return 1
    with tempfile.TemporaryDirectory(prefix="sitewise-demo-") as scratch:
        data_dir = str(args.data_dir or scratch)
        # The demo runs its own embedded Redis even when REDIS_URL is set: it must not touch real data.
        settings = Settings.from_env(data_dir=data_dir, redis_url="")
        supervisor = Supervisor(settings, UpOptions(port=args.port, workers=args.workers))
        outcome: dict[str, bool] = {}

        def on_ready(sup: Supervisor) -> None:
            # Runs beside the supervisor's watch loop (which must keep relaying its children's output).
            threading.Thread(target=_drive, args=(sup, args, outcome), name="demo", daemon=True).start()

        status = supervisor.run(on_ready=on_ready)
    return status or (0 if outcome.get("learned", not args.exit_when_ready) else 1)


def _drive(supervisor, args: argparse.Namespace, outcome: dict[str, bool]) -> None:
    """Serve the sample site, collect and upload it, wait for the rules, and say where to look."""
    from ..sample_site import generate_site, serve_site

    site = generate_site(seed=7)
    server = supervisor.base_url
    try:
        with serve_site(site, host=SITE_HOST, port=args.site_port) as site_url:
            articles = site.article_paths
            learned_from, held_out = articles[:-HELD_OUT], articles[-HELD_OUT:]
            _collect_and_upload([site_url + path for path in learned_from], server)
            rules = _wait_for_rules(server, SITE_HOST)
            outcome["learned"] = rules is not None
            if rules is None:
                log.error("the sample site was not learned within %.0f s; see the worker log above", LEARN_TIMEOUT_S)
            else:
                _announce(server, site_url, rules, held_out)
            if args.exit_when_ready or rules is None:
                os.kill(os.getpid(), signal.SIGTERM)  # the supervisor stops everything in order
                return
            threading.Event().wait()  # keep serving the sample site until the supervisor stops us
    except Exception as exc:  # the demo thread must report, not die silently; a port taken is one line
        log.error("demo failed: %s", exc, exc_info=not isinstance(exc, OSError))
        outcome["learned"] = False
        os.kill(os.getpid(), signal.SIGTERM)


def _collect_and_upload(urls: list[str], server: str) -> None:
    from ..collect import Collector
    from .collect import ServerSink

    sink = ServerSink(server)
    log.info("collecting %d sample articles in headless Chromium and uploading them to %s", len(urls), server)
    with Collector(workers=2) as collector:
        for url, result in zip(urls, collector.collect_many(urls, progress=False)):
            if isinstance(result, Exception):
                log.warning("could not collect %s: %s", url, result)
            else:
                sink.put(url, result)


def _wait_for_rules(server: str, site: str) -> dict | None:
    deadline = time.monotonic() + LEARN_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{server}/rules/{site}", timeout=5) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            if exc.code != 404:
                raise
        time.sleep(POLL_S)
    return None


def _announce(server: str, site_url: str, rules: dict, held_out: list[str]) -> None:
    templates = rules.get("templates", [])
    lines = [
        "",
        "sitewise demo is running.",
        f"  install page (drag the bookmarklet to your bookmarks bar): {server}/",
        f"  dashboard: {server}/sites/localhost",
        f"  rules: {server}/rules/localhost (version {rules.get('version')}, learned from "
        f"{rules.get('pages_learned')} pages, {len(templates)} template(s))",
        f"  sample site: {site_url}/  — articles never collected, to try the bookmarklet on:",
        *(f"    {site_url}{path}" for path in held_out),
        "Ctrl-C stops everything.",
        "",
    ]
    log.info("\n".join(lines))
