"""Helpers for the deployment and reliability tests: hostile-but-valid pages, free ports, real
``sitewise up`` processes and HTTP calls with the standard library only (no test-only HTTP client)."""
from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

#: How long a part of the system may take to come up on a busy 2-core machine.
START_TIMEOUT_S = 90.0


def page_dict(url: str, paragraphs: list[str] | None = None, title: str = "A title") -> dict[str, Any]:
    """A valid collected page (format 1) with one block per paragraph."""
    paragraphs = paragraphs if paragraphs is not None else ["Body text of the article."]
    blocks = [
        {
            "text": text,
            "tag": "p",
            "path": ["html", "body", "article", "p"],
            "selector": f"body > article > p:nth-of-type({i + 1})",
            "box": {"left": 100, "top": 200 + 40 * i, "width": 600, "height": 36},
            "style": {"font-size": "16px", "display": "block"},
            "link_chars": 0,
        }
        for i, text in enumerate(paragraphs)
    ]
    return {"format": 1, "url": url, "titles": [title], "collector": "bookmarklet", "blocks": blocks}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http(
    method: str,
    url: str,
    body: bytes | dict | list | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; returns (status, headers, body) for every status, raises only on no answer."""
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    request = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if isinstance(body, (dict, list)):
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def gzip_json(value: Any) -> bytes:
    return gzip.compress(json.dumps(value).encode())


@contextlib.contextmanager
def sitewise_up(
    data_dir: Path, *args: str, env: dict[str, str] | None = None, log_path: Path | None = None
) -> Iterator["UpProcess"]:
    """``sitewise up`` as a real process on a free port; stopped with SIGTERM (like Ctrl-C) on exit."""
    port = free_port()
    log_path = log_path or data_dir.parent / "up.log"
    environment = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}  # embedded Redis unless given
    environment.update({"SITEWISE_ADMIN_TOKEN": "test-token", **(env or {})})
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "sitewise", "up", "--port", str(port), "--data-dir", str(data_dir), *args],
            stdout=log, stderr=subprocess.STDOUT, env=environment,
            start_new_session=True,  # its own process group, as a shell gives a foreground job
        )
        up = UpProcess(process, f"http://127.0.0.1:{port}", log_path)
        try:
            up.wait_until_up()
            yield up
        finally:
            up.stop()


class UpProcess:
    def __init__(self, process: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
        self.process = process
        self.base_url = base_url
        self.log_path = log_path
        self.exit_code: int | None = None

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_until_up(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while "sitewise is up" not in self.log:
            if self.process.poll() is not None:
                raise AssertionError(f"sitewise up exited with {self.process.returncode}:\n{self.log}")
            if time.monotonic() > deadline:
                raise AssertionError(f"sitewise up not ready in {START_TIMEOUT_S} s:\n{self.log}")
            time.sleep(0.1)

    def wait_for_log(self, text: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.log:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not in the log within {timeout} s:\n{self.log}")
            time.sleep(0.1)

    def stop(self, timeout: float = 60.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError(f"sitewise up did not stop within {timeout} s:\n{self.log}")
        self.exit_code = self.process.returncode
        return self.exit_code


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    """Poll ``predicate`` until it returns something truthy; that value, or AssertionError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc), e.g. an RQ worker's work-horse."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 is the parent pid; the command name (field 2) may hold spaces, so split after its ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def pids_alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        # A zombie is dead but not yet reaped by a parent that is itself gone: count it as dead.
        try:
            if open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z":
                alive.append(pid)
        except FileNotFoundError:  # gone between the two looks
            continue
    return alive


def descendants(pid: int) -> list[int]:
    found, frontier = [], [pid]
    while frontier:
        children = [c for p in frontier for c in children_of(p)]
        found += children
        frontier = children
    return found


def start_worker(redis_url: str, log_path: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``python -m sitewise.worker`` as a real process against ``redis_url`` (what ``sitewise up`` and compose run)."""
    environment = {**os.environ, "REDIS_URL": redis_url, **(env or {})}
    log = open(log_path, "ab")
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "sitewise.worker"], env=environment, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        log.close()  # the child has its own copy


def status_of(url: str) -> int | None:
    """The HTTP status ``url`` answers with, or None while nothing listens there."""
    try:
        return http("GET", url, timeout=5)[0]
    except (urllib.error.URLError, OSError):
        return None


class ClientThreads:
    """``count`` threads each running :meth:`client` (given its number) from ``with`` until its end,
    which sets ``stopping`` and waits for them."""

    def __init__(self, count: int) -> None:
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.client, args=(i,), daemon=True) for i in range(count)]

    def client(self, number: int) -> None:
        raise NotImplementedError

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


class SlowClients(ClientThreads):
    """``count`` connections that send a request's headers one byte at a time (a slowloris attack), each
    reconnecting when the server cuts it off. Only to 127.0.0.1."""

    #: Pause between two bytes: slow enough to hold a connection for minutes if the server let it.
    BYTE_INTERVAL_S = 0.1

    def __init__(self, port: int, count: int) -> None:
        super().__init__(count)
        self.port = port
        self.connections = 0

    def client(self, number: int) -> None:
        request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"a" * 100_000
        while not self.stopping.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=10) as sock:
                    self.connections += 1
                    for byte in request:
                        if self.stopping.wait(self.BYTE_INTERVAL_S):
                            return
                        sock.sendall(bytes([byte]))
            except OSError:  # cut off by the server: come back, as an attacker would
                self.stopping.wait(self.BYTE_INTERVAL_S)


def probe(url: str, seconds: float, interval: float = 0.5, timeout: float = 5.0) -> list[float | None]:
    """GET ``url`` every ``interval`` for ``seconds``: each probe's latency in seconds, None if unanswered
    (or not 200) within ``timeout``."""
    latencies: list[float | None] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.monotonic()
        try:
            status = http("GET", url, timeout=timeout)[0]
        except OSError:
            status = None
        elapsed = time.monotonic() - started
        latencies.append(elapsed if status == 200 and elapsed <= timeout else None)
        time.sleep(max(0.0, interval - elapsed))
    return latencies
