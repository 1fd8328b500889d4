"""``sitewise up``: Redis, the web server and N learning workers on one machine, as one command.

Phases, in the order they run:

1. **start** — the data directory must be ours alone (locked while we run: another ``sitewise up`` there
   would run a second Redis on the same files) and the web server's port free (an answer from another
   program there must never be taken for ours); Redis (embedded, unless ``REDIS_URL`` names one), then the web server under gunicorn,
   then the workers; each part is checked ready before the next starts, and the log says where it listens.
   The web server is ready once it has said it holds the port (its pid in ``web-bound.pid``) and
   ``/healthz`` answers.
2. **watch** — every child's output is relayed with its name in front; a child that dies is reported
   (how it died) and started again after a pause that doubles, up to a cap, while it keeps dying. Nothing
   stops the whole system but a stop request, or another program holding the port when the web server is
   to be restarted (it could never bind it): a part that keeps dying is logged as crash-looping and
   marked so in the status file (``up-status.json`` in the data directory, shown by ``/healthz``), and
   comes back by itself once its cause (a Redis outage, a full disk) is gone. A dead web server takes its
   orphaned gunicorn processes with it (its whole process group), so the restart finds the port free.
3. **stop** (Ctrl-C or SIGTERM) — web first (no new uploads; requests in flight finish), then the
   workers (each finishes its current job; a second signal, or the grace period running out, makes RQ
   requeue it instead), Redis last, so every acknowledged write is on disk when we exit.

Children run in their own process groups, so a terminal's Ctrl-C reaches only the supervisor, which
then stops them in the order above; each child also gets SIGTERM should the supervisor itself die.
"""
from __future__ import annotations

import collections
import errno
import fcntl
import json
import logging
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable

import redis

from .config import Settings
from .processes import stop_with_parent
from .redis_conn import UP_LOCK_FILE, EmbeddedRedis, display_url

log = logging.getLogger("sitewise.up")

#: How often the watch loop looks at its children when none of them prints anything.
POLL_INTERVAL_S = 0.5
#: How long a part may take to become ready before ``sitewise up`` gives up (gunicorn imports the app
#: in every web process, which takes a few seconds on a busy 2-core machine).
READY_TIMEOUT_S = 60.0
#: A child that dies this many times within ``CRASH_WINDOW_S`` is crash-looping: said at CRITICAL level
#: and in the status file, and still restarted (what kills it may pass: a Redis outage, a full disk).
CRASH_LOOP_DEATHS = 5
CRASH_WINDOW_S = 60.0
#: Pause before restarting a dead child, doubled at each death within the window (a child that died
#: because Redis is briefly away should not spin) up to the cap (so it is back soon after the cause is).
RESTART_DELAY_S = 1.0
MAX_RESTART_DELAY_S = 30.0
#: The embedded Redis is restarted at once after this many deaths within ``CRASH_WINDOW_S`` (one killed
#: now and then, by the OOM killer or an operator, is back before clients notice: every pause is time
#: uploads are answered 503), and with backoff after more (one that dies at its first write, on a full
#: disk, is not restarted in a tight loop, reloading its append-only file each time).
IMMEDIATE_REDIS_RESTARTS = 3
#: How often the watch loop checks that Redis answers (for the status file and the log).
REDIS_CHECK_INTERVAL_S = 2.0
#: A Redis check must not hold up the relay of the children's output.
REDIS_CHECK_TIMEOUT_S = 1.0
#: The health signal: the state of every part, rewritten when it changes (in the data directory).
STATUS_FILE = "up-status.json"
#: Where our gunicorn master writes its pid once it holds its port (in the data directory): until then an
#: answer on the port may be another program's.
WEB_BOUND_FILE = "web-bound.pid"
#: After the grace period a worker's job is abandoned to RQ (second SIGTERM: the work-horse is killed and
#: the job requeued); this long more, and the worker is killed outright.
FORCED_STOP_S = 10.0
#: RQ ignores a second SIGTERM that comes within a second of the first (it takes it for a duplicate), so
#: the one that turns a warm shutdown into a cold one waits at least this long.
RQ_SIGNAL_DEDUPE_S = 1.1


@dataclass
class Child:
    """One supervised process: how to start it, and what happened to it."""

    name: str
    argv: list[str]
    env: dict[str, str]
    #: The signal that cuts a graceful stop short: gunicorn's is SIGQUIT, RQ's a second SIGTERM.
    hurry_signal: signal.Signals = signal.SIGTERM
    #: Kill what is left of the child's process group when it dies: gunicorn's workers outlive a SIGKILLed
    #: master, holding the listening port and finishing slow requests (an RQ work-horse is left to finish
    #: its job instead: the job is recorded when it ends).
    kill_orphans: bool = False
    process: subprocess.Popen[bytes] | None = None
    deaths: collections.deque[float] = field(default_factory=collections.deque)
    restart_at: float | None = None
    _partial: bytes = b""

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self) -> None:
        self.process = subprocess.Popen(
            self.argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            process_group=0,
            preexec_fn=stop_with_parent,
        )
        self.restart_at = None

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, signum: int) -> None:
        if self.running():
            assert self.process is not None
            self.process.send_signal(signum)

    def record_death(self, now: float) -> int:
        """Remember a death; returns how many fell within the crash window."""
        return remember_within_window(self.deaths, now)

    def kill_process_group(self) -> None:
        """SIGKILL whatever still runs in the (dead) child's process group."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the group's id is the child's pid (process_group=0)
        except ProcessLookupError:
            return
        log.warning("%s: killed the processes left in its group (pgid %s)", self.name, self.process.pid)

    def state(self, now: float) -> dict[str, object]:
        """The child as the status file shows it."""
        deaths = sum(1 for t in self.deaths if now - t <= CRASH_WINDOW_S)
        if self.restart_at is not None:
            state = "crash-looping" if deaths >= CRASH_LOOP_DEATHS else "restarting"
        else:
            state = "running" if self.running() else "stopped"
        return {"state": state, "pid": self.pid, "deaths_last_minute": deaths}


def describe_exit(returncode: int) -> str:
    """``exited with status 3`` or ``killed by SIGKILL`` for a Popen return code."""
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"




@dataclass(frozen=True)
class UpOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    web_processes: int = 2
    shutdown_timeout: float = 30.0
    access_log: bool = False


class Supervisor:
    """Runs and watches the parts of a sitewise deployment; :meth:`run` returns the exit status."""

    def __init__(self, settings: Settings, options: UpOptions) -> None:
        self.settings = settings
        self.options = options
        self.embedded: EmbeddedRedis | None = None
        self.redis_url = settings.redis_url
        self.web: Child | None = None
        self.workers: list[Child] = []
        self.selector = selectors.DefaultSelector()
        self._stop_signals: list[str] = []  # the name of each stop request's signal
        self._stop_requests_said = 0  # how many of them the log has told (:meth:`_say_stop_requests`)
        self.redis_ok = True
        self._redis_checked_at = 0.0
        self._redis_probe: redis.Redis | None = None  # made on first use; reconnects by itself
        self._status: dict[str, object] = {}
        self._lock: IO[str] | None = None  # the data directory's lock, held from start to stop

    # -- public ----------------------------------------------------------------------------------

    def run(self, on_ready: Callable[["Supervisor"], None] | None = None) -> int:
        """Start everything, watch until asked to stop, then stop everything; 1 if the start failed."""
        previous = {sig: signal.signal(sig, self._request_stop) for sig in stop_signals()}
        failed = False
        try:
            self.start()
            if on_ready:
                on_ready(self)
            self.watch()
        except RuntimeError as exc:
            log.error("%s", exc)
            failed = True
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return 1 if failed else 0

    @property
    def base_url(self) -> str:
        host = "127.0.0.1" if self.options.host in ("0.0.0.0", "") else self.options.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.options.port}"

    # -- start -----------------------------------------------------------------------------------

    def start(self) -> None:
        self._lock_data_dir()
        ensure_port_free(self.options.host, self.options.port)
        self._start_redis()
        env = self._child_env()
        self.web = Child("web", self._gunicorn_argv(), env, hurry_signal=signal.SIGQUIT, kill_orphans=True)
        self._launch(self.web)
        self._wait_for_web()
        self.workers = [
            Child(f"worker-{i}", [sys.executable, "-m", "sitewise.worker"], env) for i in range(1, self.options.workers + 1)
        ]
        for worker in self.workers:
            self._launch(worker)
        self._wait_for_workers()
        log.info("sitewise is up: open %s/ to install the bookmarklet; Ctrl-C stops everything", self.base_url)

    def _lock_data_dir(self) -> None:
        """Hold the data directory for this run (``flock`` on its lock file, which holds our pid), or
        RuntimeError: another ``sitewise up`` holds it (its pid named), or it cannot be written (read-only,
        another user's). A second run there would start a second redis-server on the same files (two servers
        appending to one append-only file, the second taking over the socket) and remove the first one's
        files as it stopped; the CLI's commands use our Redis while we hold it (``redis_conn.connect``)."""
        data_dir = Path(self.settings.data_dir)
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            lock = open(data_dir / UP_LOCK_FILE, "a+")
        except OSError as exc:
            raise RuntimeError(f"cannot use the data directory {data_dir}: {exc.strerror}") from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "?"
            lock.close()
            raise RuntimeError(
                f"the data directory {data_dir} is in use by another sitewise up (pid {holder}): stop it, or "
                "choose another --data-dir"
            ) from None
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        self._lock = lock

    def _start_redis(self) -> None:
        if self.redis_url:
            client = redis.Redis.from_url(self.redis_url, socket_connect_timeout=5)
            try:
                client.ping()
            except redis.RedisError as exc:
                raise RuntimeError(f"REDIS_URL={self.redis_shown} does not answer: {exc}") from None
            finally:
                client.close()
            log.info("using Redis at %s (REDIS_URL)", self.redis_shown)
            return
        self.embedded = EmbeddedRedis(self.settings.data_dir).start()
        self.redis_url = self.embedded.url
        log.info(
            "redis: embedded redis-server (pid %s) listening on %s, append-only file in %s, log %s",
            self.embedded.process.pid if self.embedded.process else "?",
            self.redis_shown,
            self.settings.data_dir,
            self.embedded.data_dir / "redis.log",
        )

    @property
    def redis_shown(self) -> str:
        """The Redis URL as logs and the status file show it: without user name, password or query."""
        return display_url(self.redis_url)

    @property
    def status_path(self) -> Path:
        return Path(self.settings.data_dir) / STATUS_FILE

    @property
    def bound_path(self) -> Path:
        return Path(self.settings.data_dir) / WEB_BOUND_FILE

    def _child_env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            REDIS_URL=self.redis_url,
            SITEWISE_DATA_DIR=str(self.settings.data_dir),
            # The install page's bookmarklet points here unless the operator named a public address.
            SITEWISE_PUBLIC_URL=self.settings.public_url or self.base_url,
            SITEWISE_UP_STATUS=str(self.status_path),
            SITEWISE_UP_BOUND=str(self.bound_path),
            PYTHONUNBUFFERED="1",  # children's log lines reach the relay as they are written
        )
        return env

    def _gunicorn_argv(self) -> list[str]:
        host = f"[{self.options.host}]" if ":" in self.options.host else self.options.host
        argv = [
            sys.executable, "-m", "gunicorn",
            "--config", "python:sitewise.gunicorn_config",
            "--bind", f"{host}:{self.options.port}",
            "--workers", str(self.options.web_processes),
            "--graceful-timeout", str(int(self.options.shutdown_timeout)),
        ]
        if self.options.access_log:
            argv += ["--access-logfile", "-"]
        return argv + ["sitewise.server:create_app()"]

    def _launch(self, child: Child) -> None:
        self._close_output(child)  # a restarted child's previous pipe
        child.start()
        assert child.process is not None and child.process.stdout is not None
        os.set_blocking(child.process.stdout.fileno(), False)
        self.selector.register(child.process.stdout, selectors.EVENT_READ, child)
        log.debug("%s: started pid %s: %s", child.name, child.pid, " ".join(child.argv))

    def _wait_for_web(self) -> None:
        assert self.web is not None
        url = f"{self.base_url}/healthz"
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            self._pump(0.2)
            if self.stop_requests:
                raise RuntimeError("stopped while starting")
            if not self.web.running():
                assert self.web.process is not None
                ensure_port_free(self.options.host, self.options.port)  # taken since we looked: say that
                raise RuntimeError(f"web server {describe_exit(self.web.process.returncode)} while starting")
            # Only once our gunicorn holds the port is an answer its own (health may be 503 until workers run).
            status = _http_status(url) if self._web_holds_port() else None
            if status is not None:
                break
            if time.monotonic() > deadline:
                raise RuntimeError(f"web server did not answer {url} within {READY_TIMEOUT_S:.0f} s")
        log.info(
            "web: gunicorn (pid %s, %d processes) listening on %s/ (%s answered %s)",
            self.web.pid, self.options.web_processes, self.base_url, url, status,
        )

    def _web_holds_port(self) -> bool:
        """Whether our gunicorn master has bound its port: its hook (``sitewise.gunicorn_config.when_ready``)
        writes its pid to the file we named in ``SITEWISE_UP_BOUND``."""
        assert self.web is not None
        try:
            return self.bound_path.read_text() == str(self.web.pid)
        except OSError:
            return False

    def _wait_for_workers(self) -> None:
        """Wait until every worker has registered with RQ, and log which queues each one consumes."""
        from rq import Worker

        wanted = {w.pid: w for w in self.workers}
        deadline = time.monotonic() + READY_TIMEOUT_S
        client = redis.Redis.from_url(self.redis_url)
        try:
            while wanted:
                self._pump(0.2)
                if self.stop_requests:
                    raise RuntimeError("stopped while starting")
                for child in wanted.values():
                    if not child.running():
                        assert child.process is not None
                        raise RuntimeError(f"{child.name} {describe_exit(child.process.returncode)} while starting")
                for registered in Worker.all(connection=client):
                    child = wanted.pop(registered.pid, None)
                    if child:
                        log.info(
                            "%s: RQ worker %s (pid %s) consuming queue %s from %s",
                            child.name, registered.name, child.pid, ", ".join(registered.queue_names()), self.redis_shown,
                        )
                if wanted and time.monotonic() > deadline:
                    names = ", ".join(c.name for c in wanted.values())
                    raise RuntimeError(f"{names} did not register with RQ within {READY_TIMEOUT_S:.0f} s")
        finally:
            client.close()

    # -- watch -----------------------------------------------------------------------------------

    def watch(self) -> None:
        redis_restart = _Backoff()
        while not self.stop_requests:
            self._pump(POLL_INTERVAL_S)
            now = time.monotonic()
            self._watch_embedded_redis(redis_restart, now)
            self._check_redis(now)
            for child in self._children():
                if child.restart_at is not None:
                    if now >= child.restart_at:
                        if child is self.web:  # a web server that cannot bind would die again and again
                            ensure_port_free(self.options.host, self.options.port)
                        self._launch(child)
                        log.warning("%s: restarted as pid %s", child.name, child.pid)
                elif not child.running():
                    self._handle_death(child, now)
            self._write_status(now)

    def _watch_embedded_redis(self, backoff: "_Backoff", now: float) -> None:
        """The embedded Redis is restarted in place: its append-only file brings every write back. Its deaths
        and failed restarts (a full disk, a port taken) space the restarts out as a part's deaths do, so a
        Redis that dies again at once (on a full disk it starts, then exits at its first write) is not
        restarted in a tight loop; it is never given up."""
        if self.embedded is None:
            return
        process = self.embedded.process
        if process is not None:
            if process.poll() is None:
                return
            self.embedded.process = None
            delay = backoff.failed(now)
            log.log(
                logging.CRITICAL if backoff.crash_looping else logging.ERROR,
                "redis: embedded redis-server (pid %s) %s%s; restarting it from %s in %.0f s",
                process.pid, describe_exit(process.returncode),
                " — crash-looping" if backoff.crash_looping else "", self.embedded.data_dir, delay,
            )
        if not backoff.due(now):
            return
        try:
            self.embedded.start()
        except RuntimeError as exc:
            self.embedded.process = None
            delay = backoff.failed(now)
            log.critical("redis: could not restart: %s; trying again in %.0f s", exc, delay)
            return
        log.warning("redis: restarted as pid %s on %s", self.embedded.process.pid, self.redis_shown)

    def _check_redis(self, now: float) -> None:
        """Note (log and status) when Redis stops or starts answering; the children wait for it themselves."""
        if now - self._redis_checked_at < REDIS_CHECK_INTERVAL_S:
            return
        self._redis_checked_at = now
        if self._redis_probe is None:
            self._redis_probe = redis.Redis.from_url(
                self.redis_url, socket_timeout=REDIS_CHECK_TIMEOUT_S, socket_connect_timeout=REDIS_CHECK_TIMEOUT_S,
                retry=None,
            )
        try:
            self._redis_probe.ping()
            answered, problem = True, ""
        except redis.RedisError as exc:
            answered, problem = False, str(exc)
        if answered != self.redis_ok:
            if answered:
                log.warning("redis: %s answers again", self.redis_shown)
            else:
                log.error("redis: %s does not answer (%s); the web server answers 503 and the workers wait", self.redis_shown, problem)
        self.redis_ok = answered

    def _handle_death(self, child: Child, now: float) -> None:
        assert child.process is not None
        self._close_output(child)
        if child.kill_orphans:
            child.kill_process_group()
        deaths = child.record_death(now)
        how = describe_exit(child.process.returncode)
        delay = restart_delay(deaths)
        if deaths >= CRASH_LOOP_DEATHS:
            log.critical(
                "%s (pid %s) %s — %d deaths in %.0f s: crash-looping; restarting it in %.0f s",
                child.name, child.pid, how, deaths, CRASH_WINDOW_S, delay,
            )
        else:
            log.error("%s (pid %s) %s; restarting it in %.0f s", child.name, child.pid, how, delay)
        child.restart_at = now + delay

    def _write_status(self, now: float) -> None:
        """Rewrite the status file when a part's state changed (atomically: readers never see half)."""
        parts = {child.name: child.state(now) for child in self._children()}
        status = {
            "supervisor_pid": os.getpid(),
            "redis": {"url": self.redis_shown, "answers": self.redis_ok},
            "parts": parts,
            "crash_looping": sorted(name for name, part in parts.items() if part["state"] == "crash-looping"),
        }
        if status == self._status:
            return
        self._status = status
        temporary = self.status_path.with_suffix(".tmp")
        try:
            temporary.parent.mkdir(parents=True, exist_ok=True)  # with REDIS_URL nothing else made it
            temporary.write_text(json.dumps(status, indent=1))
            os.replace(temporary, self.status_path)
        except OSError as exc:
            log.warning("could not write %s: %s", self.status_path, exc)

    # -- stop ------------------------------------------------------------------------------------

    def _request_stop(self, signum: int, frame: object) -> None:
        """The stop signals' handler: it only notes the request. Logging here would write to stderr in the middle of
        whatever the main thread was writing there, and Python refuses that with a RuntimeError ("reentrant
        call"), which ended a run that was stopping well with status 1; :meth:`_pump` tells the log."""
        self._stop_signals.append(signal.Signals(signum).name)

    @property
    def stop_requests(self) -> int:
        """How many times a stop signal came."""
        return len(self._stop_signals)

    def _say_stop_requests(self) -> None:
        """Log the stop requests the signal handler noted since the last call: the first, and a second."""
        while self._stop_requests_said < min(self.stop_requests, 2):
            name = self._stop_signals[self._stop_requests_said]
            self._stop_requests_said += 1
            if self._stop_requests_said == 1:
                log.info("%s: stopping (web, then workers, then Redis; again to hurry)", name)
            else:
                log.warning("%s again: not waiting for requests and jobs; cut-off learn jobs are retried after a "
                            "restart", name)

    def stop(self) -> None:
        self._say_stop_requests()
        if self.web:
            self._stop_children([self.web], self.options.shutdown_timeout)
        self._stop_children(self.workers, self.options.shutdown_timeout)
        for child in self._children():
            self._close_output(child)
        if self._redis_probe is not None:
            self._redis_probe.close()
        if self.embedded is not None:
            self.embedded.stop()
            log.info("redis: stopped; data is in %s", self.embedded.data_dir)
        self.selector.close()
        if self._lock is not None:  # else the files are another run's, or there are none
            self.status_path.unlink(missing_ok=True)
            self.bound_path.unlink(missing_ok=True)
            self._lock.close()  # releases the data directory
        log.info("sitewise stopped")

    def _stop_children(self, children: list[Child], grace: float) -> None:
        """SIGTERM, wait ``grace`` (less when hurried); the child's hurry signal, wait; SIGKILL."""
        for child in children:
            child.restart_at = None
            child.signal(signal.SIGTERM)
        first_signal = time.monotonic()
        for signum, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, FORCED_STOP_S)):
            deadline = time.monotonic() + wait
            while any(c.running() for c in children):
                hurry = signum == signal.SIGTERM and self.stop_requests > 1
                if time.monotonic() > deadline or (hurry and time.monotonic() - first_signal > RQ_SIGNAL_DEDUPE_S):
                    break
                self._pump(0.1)
            late = [c for c in children if c.running()]
            if not late:
                break
            for child in late:
                sent = child.hurry_signal if signum == signal.SIGTERM else signum
                log.warning("%s (pid %s) still running; sending %s", child.name, child.pid, sent.name)
                child.signal(sent)
        for child in children:
            if child.process is not None:
                child.process.wait()
                log.info("%s (pid %s) %s", child.name, child.pid, describe_exit(child.process.returncode))

    # -- output ----------------------------------------------------------------------------------

    def _children(self) -> list[Child]:
        return ([self.web] if self.web else []) + self.workers

    def _pump(self, timeout: float) -> None:
        """Relay children's output, line by line with their name in front, for up to ``timeout``; first
        log the stop requests the signal handler noted."""
        self._say_stop_requests()
        try:
            events = self.selector.select(timeout)
        except InterruptedError:  # a signal arrived: let the caller look at the flags
            return
        for key, _ in events:
            self._relay(key.data)

    def _relay(self, child: Child) -> None:
        assert child.process is not None and child.process.stdout is not None
        try:
            chunk = child.process.stdout.read()
        except (BlockingIOError, ValueError):  # nothing yet, or already closed
            return
        if chunk is None:  # non-blocking read with nothing to read
            return
        if not chunk:  # end of file: the child closed its output (it is exiting)
            self._close_output(child)
            return
        lines = (child._partial + chunk).split(b"\n")
        child._partial = lines.pop()
        for line in lines:
            self._emit(child, line)

    def _close_output(self, child: Child) -> None:
        """Stop relaying a dead child's output: relay what is left, flush its last partial line, free the
        pipe. (Never a blocking read: an orphaned RQ work-horse may still hold the pipe open.)"""
        stdout = child.process.stdout if child.process else None
        if stdout is None or stdout.closed:
            return
        try:
            rest = stdout.read() or b""
        except (BlockingIOError, ValueError):
            rest = b""
        self.selector.unregister(stdout)
        stdout.close()
        for line in (child._partial + rest).split(b"\n"):
            if line:
                self._emit(child, line)
        child._partial = b""

    @staticmethod
    def _emit(child: Child, line: bytes) -> None:
        sys.stderr.write(f"{child.name:>9} | {line.decode('utf-8', 'replace').rstrip()}\n")
        sys.stderr.flush()


def ensure_port_free(host: str, port: int, option: str = "--port") -> None:
    """RuntimeError, naming the port and ``option`` (the way to choose another), unless ``host:port`` can be
    bound now. Bound as gunicorn and Python's HTTP servers bind (IPv4 unless ``host`` is an IPv6 address,
    ``SO_REUSEADDR``), so the closing connections of a previous run do not count, and a program listening
    there does."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except socket.gaierror as exc:
            raise RuntimeError(f"cannot listen on {host}: {exc.strerror}") from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise RuntimeError(
                    f"port {port} on {host} is in use by another program: stop it, or choose another port with {option}"
                ) from None
            raise RuntimeError(f"cannot listen on {host} port {port}: {exc.strerror}") from None


def stop_signals() -> list[signal.Signals]:
    """The signals that stop everything in order: Ctrl-C, SIGTERM, and the hang-up of a closed terminal or
    SSH session (which would otherwise end us at once, unlogged, our children stopped all together by the
    kernel) unless it is ignored, as under ``nohup``."""
    hang_up = [] if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN else [signal.SIGHUP]
    return [signal.SIGINT, signal.SIGTERM, *hang_up]


def restart_delay(failures: int) -> float:
    """The pause before the next try after ``failures`` (≥ 1) in a row: :data:`RESTART_DELAY_S`, doubling up
    to :data:`MAX_RESTART_DELAY_S`."""
    return min(RESTART_DELAY_S * 2 ** (failures - 1), MAX_RESTART_DELAY_S)


def remember_within_window(times: collections.deque[float], now: float) -> int:
    """Add ``now`` to ``times`` and forget those older than :data:`CRASH_WINDOW_S`; how many are left."""
    times.append(now)
    while times and now - times[0] > CRASH_WINDOW_S:
        times.popleft()
    return len(times)


class _Backoff:
    """When to try again after failures within the crash window: at once after the first
    :data:`IMMEDIATE_REDIS_RESTARTS`, then after :func:`restart_delay` of the failures beyond them."""

    def __init__(self) -> None:
        self.failures: collections.deque[float] = collections.deque()
        self.next_at = 0.0

    def due(self, now: float) -> bool:
        return now >= self.next_at

    @property
    def crash_looping(self) -> bool:
        return len(self.failures) >= CRASH_LOOP_DEATHS

    def failed(self, now: float) -> float:
        failures = remember_within_window(self.failures, now)
        delay = restart_delay(failures - IMMEDIATE_REDIS_RESTARTS) if failures > IMMEDIATE_REDIS_RESTARTS else 0.0
        self.next_at = now + delay
        return delay


def _http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (urllib.error.URLError, OSError):
        return None
