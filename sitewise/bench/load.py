"""Load test on loopback: GET /rules/<site> and POST /api/pages against a real ``sitewise up``.

``sitewise bench load`` starts the whole system (embedded Redis, gunicorn, one learning worker) on
127.0.0.1 in a temporary data directory, seeds a learned site, then runs bounded phases — rule reads,
uploads, both at once — each for ``--duration`` seconds with ``--connections`` keep-alive clients spread
over ``--client-processes`` processes. It prints requests/s and latency percentiles, counts every
non-2xx answer and transport error, stops the system, and writes ``docs/bench-load.md``.

The per-client upload limits are switched off for the run (every client is 127.0.0.1) and learning is not
triggered by the uploads (``--with-learning`` turns it on), so the numbers are the web tier's.
Targets on 2 cores: at least 1,000 rule reads/s and 100 uploads/s, with no errors.
"""
from __future__ import annotations

import argparse
import gzip
import http.client
import json
import multiprocessing
import os
import platform
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..commands.output import check_output_file, write_whole

#: Where the report goes (relative to the working directory, normally the repository).
DEFAULT_REPORT = Path("docs/bench-load.md")
#: Targets from the issue (2 cores, loopback, no errors).
TARGET_RULE_READS_PER_S = 1000
TARGET_UPLOADS_PER_S = 100
#: The site whose rules are read, and how many sites uploads are spread over.
RULES_SITE = "bench-rules.example"
UPLOAD_SITES = 20
#: Blocks per uploaded page: a typical article page as the collector records it (about 100 KB of JSON,
#: 10 KB gzipped, which the bookmarklet sends).
BLOCKS_PER_PAGE = 150
#: Upload bodies each client process builds before the clock starts, each with its own URL; past them
#: URLs repeat and an upload replaces its page (200) instead of adding one (201) — the same work.
UPLOAD_BODIES = 400
#: Seconds ``sitewise up`` may take to come up.
START_TIMEOUT_S = 120.0
#: Answers that count as success: rule reads may be revalidated (304), uploads create (201) or replace (200).
OK_STATUSES = frozenset({200, 201, 304})


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per phase (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="concurrent keep-alive clients (default 16)")
    parser.add_argument("--client-processes", type=int, default=2,
                        help="processes the clients are spread over (Python's GIL; default 2)")
    parser.add_argument("--web-processes", type=int, default=2, help="gunicorn processes (default 2)")
    parser.add_argument("--phases", default="rules,uploads,mixed",
                        help="comma-separated: rules, uploads, mixed (default all three)")
    parser.add_argument("--with-learning", action="store_true", help="let uploads queue learning jobs as usual")
    parser.add_argument("--appendfsync", choices=("always", "everysec"),
                        help="override the embedded Redis's fsync policy for the run (default: as configured)")
    parser.add_argument("--report", type=Path, default=DEFAULT_REPORT, help=f"markdown report (default {DEFAULT_REPORT})")
    parser.add_argument("--no-report", action="store_true", help="print only")


# -- requests --------------------------------------------------------------------------------------


def _synthetic_page(rng: random.Random, site: str, n: int) -> dict[str, Any]:
    """A collected article page: header, navigation, article paragraphs, sidebar, footer."""
    from ..page import STYLE_PROPERTIES

    words = "harbor council budget river bridge school market station museum festival storm coast".split()
    style = {prop: "0px" if prop.startswith(("margin", "padding")) else "normal" for prop in STYLE_PROPERTIES}
    blocks = []
    for i in range(BLOCKS_PER_PAGE):
        region = "article" if 20 <= i < 120 else ("nav" if i < 20 else "aside")
        text = " ".join(rng.choice(words) for _ in range(rng.randint(8, 60) if region == "article" else 3))
        blocks.append({
            "text": text.capitalize() + ".",
            "tag": "p" if region == "article" else "li",
            "path": ["html", "body", "div", region, "p" if region == "article" else "li"],
            "selector": f"body > div#page.wrap > {region}.{region}-main > {'p.body' if region == 'article' else 'li.item'}",
            "box": {"left": 120.0 if region == "article" else 900.0, "top": 40.0 * i, "width": 640.0, "height": 38.0},
            "style": dict(style, **{"font-size": "18px" if region == "article" else "13px", "display": "block"}),
            "link_chars": 0 if region == "article" else len(text),
        })
    return {
        "format": 1,
        "url": f"https://{site}/news/{n}.html",
        "titles": [f"Story {n} about the {rng.choice(words)}"],
        "descriptions": ["A story."],
        "lang": "en",
        "viewport": {"width": 1280, "height": 800},
        "collector": "bookmarklet",
        "blocks": blocks,
    }


@dataclass
class Phase:
    """One bounded run: what each client sends, for how long."""

    name: str
    duration: float
    #: Fraction of requests that are uploads (the rest are rule reads).
    upload_share: float


@dataclass
class PhaseResult:
    name: str
    seconds: float
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, Counter] = field(default_factory=dict)
    errors: dict[str, Counter] = field(default_factory=dict)
    #: CPU seconds the system under test (web, worker, Redis) used during the phase, and the clients.
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0

    def count(self, kind: str) -> int:
        return len(self.latencies_ms.get(kind, []))

    def rate(self, kind: str) -> float:
        return self.count(kind) / self.seconds if self.seconds else 0.0

    def failures(self, kind: str) -> int:
        bad = sum(n for status, n in self.statuses.get(kind, Counter()).items() if status not in OK_STATUSES)
        return bad + sum(self.errors.get(kind, Counter()).values())

    def cpu_ms_per_request(self, client: bool = False) -> float:
        requests = sum(self.count(kind) for kind in self.latencies_ms)
        seconds = self.client_cpu_s if client else self.server_cpu_s
        return seconds * 1000 / requests if requests else float("nan")

    def percentile(self, kind: str, q: float) -> float:
        values = sorted(self.latencies_ms.get(kind, []))
        if not values:
            return float("nan")
        return values[min(len(values) - 1, int(q / 100 * len(values)))]


def _client_process(port: int, phase: Phase, threads: int, seed: int, ready: Any, start: Any, out: Any) -> None:
    """Runs ``threads`` keep-alive clients from ``start`` for the phase's duration; sends the results
    through ``out``. Upload bodies are built (gzipped, each with its own URL) before signalling ``ready``."""
    rng = random.Random(seed)
    template = _synthetic_page(rng, "x", 0)
    bodies = []
    for n in range(UPLOAD_BODIES):
        template["url"] = f"https://site{n % UPLOAD_SITES}.bench.example/news/{seed}-{n}.html"
        bodies.append(gzip.compress(json.dumps(template).encode(), 6))
    latencies: dict[str, list[float]] = {"rules": [], "uploads": []}
    statuses: dict[str, Counter] = {"rules": Counter(), "uploads": Counter()}
    errors: dict[str, Counter] = {"rules": Counter(), "uploads": Counter()}
    lock = threading.Lock()
    ready.set()
    while not start.value:
        time.sleep(0.001)
    cpu_at_start = time.process_time()  # the clients' own cost, bodies already built
    start_at = start.value
    end_at = start_at + phase.duration

    def client(index: int) -> None:
        local_rng = random.Random(seed * 1000 + index)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        n = index
        while time.perf_counter() < start_at:
            time.sleep(0.001)
        while time.perf_counter() < end_at:
            n += threads
            kind = "uploads" if local_rng.random() < phase.upload_share else "rules"
            if kind == "uploads":
                request: tuple[str, str, bytes | None, dict[str, str]] = (
                    "POST", "/api/pages", bodies[n % len(bodies)],
                    {"Content-Type": "application/json", "Content-Encoding": "gzip"},
                )
            else:
                request = ("GET", f"/rules/{RULES_SITE}", None, {})
            started = time.perf_counter()
            try:
                connection.request(*request)
                response = connection.getresponse()
                response.read()
                status = response.status
                if response.will_close:
                    connection.close()
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                with lock:
                    errors[kind][type(exc).__name__] += 1
                continue
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                latencies[kind].append(elapsed)
                statuses[kind][status] += 1
        connection.close()

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    out.send((latencies, statuses, errors, time.process_time() - cpu_at_start))
    out.close()


def run_phase(port: int, phase: Phase, connections: int, processes: int, server_pid: int) -> PhaseResult:
    context = multiprocessing.get_context("fork")
    start = context.Value("d", 0.0)
    pipes, children, readiness = [], [], []
    for p in range(processes):
        threads = connections // processes + (1 if p < connections % processes else 0)
        receive, send = context.Pipe(duplex=False)
        ready = context.Event()
        child = context.Process(target=_client_process, args=(port, phase, threads, p + 1, ready, start, send))
        child.start()
        send.close()
        pipes.append(receive)
        children.append(child)
        readiness.append(ready)
    for ready in readiness:
        ready.wait()
    start.value = time.perf_counter() + 0.1  # every client starts at once, after all bodies are built
    cpu_before = _cpu_seconds(server_pid)
    result = PhaseResult(phase.name, phase.duration)
    for number, receive in enumerate(pipes):
        latencies, statuses, errors, client_cpu_s = receive.recv()
        result.client_cpu_s += client_cpu_s
        if number == 0:
            result.server_cpu_s = _cpu_seconds(server_pid) - cpu_before
        for kind in latencies:
            result.latencies_ms.setdefault(kind, []).extend(latencies[kind])
            result.statuses.setdefault(kind, Counter()).update(statuses[kind])
            result.errors.setdefault(kind, Counter()).update(errors[kind])
    for child in children:
        child.join()
    return result


# -- the system under test -------------------------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a process and of its descendants still running (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields_ = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields_[1]), []).append(int(entry.name))
        times[int(entry.name)] = (int(fields_[11]) + int(fields_[12])) / ticks
    total, frontier = 0.0, [pid]
    while frontier:
        current = frontier.pop()
        total += times.get(current, 0.0)
        frontier.extend(parents.get(current, []))
    return total



class Stack:
    """``sitewise up`` on 127.0.0.1 in a temporary data directory, as a child process."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.folder = Path(tempfile.mkdtemp(prefix="sitewise-bench-load-"))
        self.port = _free_port()
        self.log_path = self.folder / "up.log"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Stack":
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        env.update(SITEWISE_UPLOADS_PER_MINUTE="0", SITEWISE_CLIENT_PAGES_PER_SITE_PER_DAY="0",
                   SITEWISE_CLIENT_PAGES_PER_DAY="0", SITEWISE_CLIENT_BYTES_PER_DAY="0")
        if not self.args.with_learning:
            env["SITEWISE_MIN_PAGES_TO_LEARN"] = str(10**9)
        command = [
            sys.executable, "-m", "sitewise", "up", "--host", "127.0.0.1", "--port", str(self.port),
            "--workers", "1", "--web-processes", str(self.args.web_processes), "--data-dir", str(self.folder / "data"),
        ]
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        while "sitewise is up" not in self.log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = self.log()[-3000:]
                self.__exit__()
                raise RuntimeError(f"sitewise up did not start:\n{output}")
            time.sleep(0.2)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def redis(self) -> Any:
        import redis

        return redis.Redis.from_url(f"unix://{self.folder / 'data' / 'redis.sock'}?db=0")

    def __exit__(self, *exc: object) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=90)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _seed_rules(stack: Stack) -> None:
    """A learned site to read rules from: one page uploaded, a rule set stored through the store."""
    from ..store import Store

    client = stack.redis()
    store = Store(client)
    page = _synthetic_page(random.Random(0), RULES_SITE, 0)
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
    connection.request("POST", "/api/pages", json.dumps(page), {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status not in (200, 201):
        raise RuntimeError(f"seeding the rules site failed: {response.status}")
    store.put_rules(RULES_SITE, {
        "format": 1,
        "include": ["div#page > article.article-main > p.body"],
        "exclude": [],
        "templates": [{"name": "t1", "include": ["div#page > article.article-main > p.body"], "exclude": []}],
        "pages_learned": 1,
        "confidence": 0.9,
        "learned_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    })
    client.close()


# -- report ----------------------------------------------------------------------------------------


def _kinds(phase: Phase) -> list[str]:
    if phase.upload_share >= 1:
        return ["uploads"]
    return ["rules"] if phase.upload_share <= 0 else ["rules", "uploads"]


def _lines(results: list[tuple[Phase, PhaseResult]]) -> list[str]:
    rows = ["| phase | requests | requests/s | p50 ms | p95 ms | p99 ms | max ms | errors | server CPU ms/request |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for phase, result in results:
        for kind in _kinds(phase):
            label = "GET /rules/<site>" if kind == "rules" else "POST /api/pages (gzip, 150 blocks)"
            rows.append(
                f"| {phase.name}: {label} | {result.count(kind)} | {result.rate(kind):.0f} | "
                f"{result.percentile(kind, 50):.1f} | {result.percentile(kind, 95):.1f} | "
                f"{result.percentile(kind, 99):.1f} | {result.percentile(kind, 100):.1f} | {result.failures(kind)} | "
                f"{result.cpu_ms_per_request():.2f} |"
            )
    return rows


def _verdict(results: list[tuple[Phase, PhaseResult]]) -> list[str]:
    lines = []
    cores = os.cpu_count() or 1
    targets = {"rules": ("rule reads", TARGET_RULE_READS_PER_S), "uploads": ("uploads", TARGET_UPLOADS_PER_S)}
    for phase, result in results:
        if phase.name not in targets:
            continue
        label, target = targets[phase.name]
        rate, ok = result.rate(phase.name), result.failures(phase.name) == 0
        # Server CPU per request is what a busy shared machine distorts least; with the clients elsewhere,
        # the cores could serve at most this many requests a second.
        ceiling = cores * 1000 / result.cpu_ms_per_request() if result.server_cpu_s else float("nan")
        share = result.server_cpu_s / (result.seconds * cores)
        both = result.cpu_ms_per_request() + result.cpu_ms_per_request(client=True)
        lines.append(f"- {label}: {rate:.0f}/s (target ≥ {target}/s, no errors): "
                     f"{'met' if rate >= target and ok else 'NOT met'}; server CPU "
                     f"{result.cpu_ms_per_request():.2f} ms/request, so at most ~{ceiling:.0f}/s on {cores} cores "
                     f"with the clients on another machine, ~{cores * 1000 / both:.0f}/s with them on the same cores "
                     f"(client CPU {result.cpu_ms_per_request(client=True):.2f} ms/request); the system got "
                     f"{share:.0%} of the cores during the phase")
    for phase, result in results:
        for kind in _kinds(phase):
            odd = {s: n for s, n in result.statuses.get(kind, {}).items() if s not in OK_STATUSES}
            if odd or result.errors.get(kind):
                lines.append(f"- {phase.name} {kind}: statuses {dict(odd)}, transport errors {dict(result.errors[kind])}")
    return lines


def _write_report(path: Path, args: argparse.Namespace, fsync: str, results: list[tuple[Phase, PhaseResult]]) -> None:
    load = os.getloadavg()
    text = "\n".join([
        "# Load test on loopback",
        "",
        f"`{shlex.join(['sitewise', 'bench', 'load', *sys.argv[3:]])}` — {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, load average before the run "
        f"{load[0]:.1f} (other work on the machine inflates latencies).",
        "",
        f"System: `sitewise up` on 127.0.0.1 — {args.web_processes} gunicorn processes (gevent), embedded Redis "
        f"(append-only, appendfsync {fsync}), 1 learning worker{' (learning on)' if args.with_learning else ' (idle: uploads do not trigger learning)'}; "
        f"per-client upload limits off. Clients: {args.connections} keep-alive connections in "
        f"{args.client_processes} processes on the same machine, {args.duration:g} s per phase.",
        "",
        *_lines(results),
        "",
        *_verdict(results),
        "",
    ])
    write_whole(path, text)


# -- entry point -----------------------------------------------------------------------------------


PHASES = {"rules": 0.0, "uploads": 1.0, "mixed": 0.1}


def run(args: argparse.Namespace) -> int:
    names = [name.strip() for name in args.phases.split(",") if name.strip()]
    unknown = [name for name in names if name not in PHASES]
    if unknown:
        raise ValueError(f"unknown phase(s) {', '.join(unknown)}; choose from {', '.join(PHASES)}")
    if args.connections < 1 or args.client_processes < 1 or args.duration <= 0:
        raise ValueError("--connections, --client-processes and --duration must be positive")
    args.report.parent.mkdir(parents=True, exist_ok=True)
    check_output_file(args.report, "--report")  # (before the phases run, not after)
    phases = [Phase(name, args.duration, PHASES[name]) for name in names]
    results: list[tuple[Phase, PhaseResult]] = []
    with Stack(args) as stack:
        client = stack.redis()
        if args.appendfsync:
            client.config_set("appendfsync", args.appendfsync)
        fsync = client.config_get("appendfsync")["appendfsync"]
        client.close()
        _seed_rules(stack)
        print(f"sitewise up on 127.0.0.1:{stack.port} (appendfsync {fsync}); {len(phases)} phases of {args.duration:g} s")
        for phase in phases:
            assert stack.process is not None
            result = run_phase(stack.port, phase, args.connections, args.client_processes, stack.process.pid)
            results.append((phase, result))
            for line in _lines([(phase, result)])[2:]:
                print(line)
    for line in _verdict(results):
        print(line)
    if not args.no_report:
        _write_report(args.report, args, fsync, results)
        print(f"report: {args.report}")
    failed = any(result.failures(kind) for phase, result in results for kind in _kinds(phase))
    return 1 if failed else 0
