"""Self-healing, against the real ``sitewise up`` (redis-server, gunicorn, RQ workers), all on 127.0.0.1:
an external Redis killed for a while under uploads, an embedded one whose restart fails, the supervisor
itself killed, a part that keeps dying, the gunicorn master SIGKILLed with slow requests in flight, slow
clients, malformed chunked bodies, a hostile Host header."""
from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import time

import pytest
import redis
from rq.job import Job
from rq.registry import FinishedJobRegistry

from sitewise import supervisor as supervisor_module
from sitewise.config import Settings
from sitewise.redis_conn import EmbeddedRedis, connect
from sitewise.store import Store
from sitewise.supervisor import Supervisor, UpOptions
from sitewise.worker.queue import JOB_SERIALIZER, learn_queue

from reliability_support import (
    ClientThreads, SlowClients, descendants, http, page_dict, pids_alive, probe, sitewise_up, status_of, wait_for,
)

#: How long Redis stays away in the outage test (the issue's 40 s figure is measured by hand: see
#: docs/reliability.md); long enough for every worker to be in the middle of something when it goes.
OUTAGE_S = 8.0
#: After Redis returns, the web tier must answer 200 again within this long.
RECOVERY_S = 10.0
#: Slow clients, and how long they press (the issue's 30 s figure is measured by hand).
SLOW_CLIENTS = 64
SLOW_SECONDS = 8.0
#: Health probes answered within 5 s, at least this share, while the slow clients press.
MIN_ANSWERED = 0.9
#: Limits off, no site cap (it would trim acknowledged pages), and learning as soon as pages arrive, so
#: the workers are busy when Redis goes.
BUSY_ENV = {"SITEWISE_UPLOADS_PER_MINUTE": "0", "SITEWISE_CLIENT_PAGES_PER_SITE_PER_DAY": "0",
            "SITEWISE_MIN_PAGES_TO_LEARN": "3", "SITEWISE_RELEARN_AFTER": "3", "SITEWISE_MAX_PAGES_PER_SITE": str(10**9)}


class Uploaders(ClientThreads):
    """Threads that stream uploads into the server, remembering each upload's answer (0: none)."""

    def __init__(self, base_url: str, count: int = 4) -> None:
        super().__init__(count)
        self.base_url = base_url
        self.answers: dict[str, int] = {}

    def client(self, number: int) -> None:
        n = 0
        while not self.stopping.is_set():
            n += 1
            url = f"https://outage.example/{number}/{n}"
            page = page_dict(url, [f"Paragraph {n} of stream {number}, long enough to be article text."] * 3)
            try:
                self.answers[url] = http("POST", f"{self.base_url}/api/pages", page, timeout=30)[0]
            except OSError:
                self.answers[url] = 0
            if self.answers[url] != 201:
                time.sleep(0.05)  # a client backs off a little on an error

    @property
    def acknowledged(self) -> set[str]:
        return {url for url, status in self.answers.items() if 200 <= status < 300}


def learned_since(connection: redis.Redis, since: float) -> bool:
    """Whether a learn job finished after ``since`` (a Unix time)."""
    ids = FinishedJobRegistry(queue=learn_queue(connection)).get_job_ids()
    jobs = Job.fetch_many(ids, connection=connection, serializer=JOB_SERIALIZER)
    return any(job is not None and job.ended_at is not None and job.ended_at.timestamp() > since for job in jobs)


def test_a_redis_outage_under_uploads_heals_by_itself_and_loses_no_acknowledged_upload(tmp_path):
    """External Redis (``REDIS_URL``) SIGKILLed for :data:`OUTAGE_S` under uploads and learning: the web
    tier answers 503 (JSON, Retry-After, no Redis error text) meanwhile, is back to 200 within
    :data:`RECOVERY_S` of Redis's return, the workers wait instead of dying, the supervisor never stops,
    and every upload answered 2xx is stored."""
    external = EmbeddedRedis(tmp_path / "redis")
    external.start()
    try:
        env = {**BUSY_ENV, "REDIS_URL": external.url}
        with sitewise_up(tmp_path / "data", "--workers", "2", env=env) as up:
            health = f"{up.base_url}/healthz"
            with Uploaders(up.base_url) as uploaders:
                wait_for(lambda: len(uploaders.acknowledged) > 30, 60, "uploads to stream")
                os.kill(external.process.pid, signal.SIGKILL)
                external.process.wait()
                went = time.monotonic()
                status, headers, body = wait_for(
                    lambda: (answer := http("GET", health, timeout=10))[0] == 503 and answer, 10, "healthz to say 503")
                assert json.loads(body)["redis"] == {"ok": False, "error": "unavailable"}
                assert headers["Retry-After"] and headers["Content-Type"] == "application/json"
                time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - went)))
                outage_answers = dict(uploaders.answers)
                external.start()  # from its append-only file
                back, returned_at = time.monotonic(), time.time()
                wait_for(lambda: status_of(health) == 200, RECOVERY_S, "healthz back to 200")
                recovered_s = time.monotonic() - back
                acknowledged_before = len(uploaders.acknowledged)
                wait_for(lambda: len(uploaders.acknowledged) > acknowledged_before + 20, 30, "uploads to be taken again")
            assert up.process.poll() is None, up.log  # the supervisor is running
            # The workers waited for Redis rather than dying, and learn again.
            wait_for(lambda: learned_since(connect(external.url), returned_at), 60,
                     "a learn job finished after Redis returned", 0.5)
            assert not re.search(r"worker-\d \(pid \d+\) (exited|killed)", up.log), up.log
            assert "crash-looping" not in up.log
            log = up.log
        assert up.exit_code == 0, log

        stored = set(Store(connect(external.url)).page_keys("outage.example"))
        refused = {status for url, status in uploaders.answers.items() if not 200 <= status < 300}
        lost = uploaders.acknowledged - stored
        print(f"outage {OUTAGE_S:.0f} s: healthz 200 {recovered_s:.1f} s after Redis returned; "
              f"{len(uploaders.acknowledged)} uploads acknowledged, {len(lost)} of them lost; "
              f"{sum(1 for s in outage_answers.values() if s == 503)} answered 503, refusals {sorted(refused)}")
        assert recovered_s <= RECOVERY_S
        assert not lost
        assert refused <= {503}  # never a 500, never no answer
    finally:
        external.stop()


def test_an_embedded_redis_that_cannot_restart_is_tried_again_until_it_can(tmp_path):
    """The embedded Redis SIGKILLed while its restart is bound to fail (its log file's path is taken by a
    directory, as a full or broken disk would fail it): the supervisor tries again with backoff instead of
    stopping, the web answers 503 meanwhile, and once the cause is gone Redis is back with every page."""
    data = tmp_path / "data"
    with sitewise_up(data, "--workers", "1", env={"SITEWISE_UPLOADS_PER_MINUTE": "0"}) as up:
        assert http("POST", f"{up.base_url}/api/pages", page_dict("https://embedded.example/a"))[0] == 201
        pid = int(re.search(r"redis: embedded redis-server \(pid (\d+)\)", up.log).group(1))
        (data / "redis.log").rename(data / "redis.log.old")
        (data / "redis.log").mkdir()
        os.kill(pid, signal.SIGKILL)
        up.wait_for_log("redis: could not restart", timeout=30)
        code, headers, _ = http("GET", f"{up.base_url}/healthz")
        assert code == 503 and headers["Retry-After"]
        up.wait_for_log("trying again in 2 s", timeout=30)
        (data / "redis.log").rmdir()
        up.wait_for_log("redis: restarted as pid", timeout=30)
        wait_for(lambda: status_of(f"{up.base_url}/healthz") == 200, 10, "healthz 200")
        assert up.process.poll() is None
        assert Store(connect(f"unix://{data / 'redis.sock'}?db=0")).page_keys("embedded.example") == ["https://embedded.example/a"]
    assert up.exit_code == 0, up.log


class _DiesAtOnce:
    """An embedded Redis on a full disk: it starts, then exits at its first write (AOF short write)."""

    def __init__(self, data_dir) -> None:
        self.data_dir = data_dir
        self.starts = 0
        self.process = subprocess.Popen(["false"])
        self.process.wait()

    def start(self) -> "_DiesAtOnce":
        self.starts += 1
        self.process = subprocess.Popen(["false"])
        self.process.wait()
        return self


def test_an_embedded_redis_that_dies_at_once_after_each_restart_is_restarted_with_backoff(tmp_path, caplog):
    """Before, each restart that succeeded reset the backoff: on a full disk Redis was restarted at every
    look of the watch loop (about 30 restarts in 25 s, measured), each one reloading its append-only file."""
    supervisor = Supervisor(Settings(data_dir=str(tmp_path)), UpOptions())
    supervisor.embedded = _DiesAtOnce(tmp_path)
    backoff = supervisor_module._Backoff()
    with caplog.at_level(logging.INFO, logger="sitewise.up"):
        for step in range(int(supervisor_module.CRASH_WINDOW_S / supervisor_module.POLL_INTERVAL_S)):
            supervisor._watch_embedded_redis(backoff, now=step * supervisor_module.POLL_INTERVAL_S)
    print(f"{supervisor.embedded.starts} restarts in {supervisor_module.CRASH_WINDOW_S:.0f} s")
    # the first IMMEDIATE_REDIS_RESTARTS at once, then after 1, 2, 4, 8, 16 and 30 s
    assert supervisor.embedded.starts <= supervisor_module.IMMEDIATE_REDIS_RESTARTS + 6
    assert "restarting it from" in caplog.text and "in 0 s" in caplog.text and "in 16 s" in caplog.text
    assert "crash-looping" in caplog.text


def test_a_sigkilled_supervisor_leaves_nothing_running_and_the_next_run_has_the_data(tmp_path):
    """``sitewise up`` itself SIGKILLed: every child, the embedded redis-server included, stops (an orphaned
    redis-server would share its append-only file with the next run's); started again, it has the data."""
    data = tmp_path / "data"
    with sitewise_up(data, "--workers", "1") as up:
        assert http("POST", f"{up.base_url}/api/pages", page_dict("https://killed.example/a"))[0] == 201
        everything = descendants(up.process.pid)
        up.process.kill()
        up.process.wait()
        wait_for(lambda: not pids_alive(everything), 60, "every child of the killed supervisor to stop")
    with sitewise_up(data, "--workers", "1", log_path=tmp_path / "again.log"):
        assert Store(connect(f"unix://{data / 'redis.sock'}?db=0")).page_keys("killed.example") == ["https://killed.example/a"]


def test_a_part_that_keeps_dying_is_restarted_with_backoff_and_never_stops_the_system(tmp_path):
    """A worker killed every time it comes back: the pauses grow, the supervisor says it is crash-looping
    (log, status file, ``/healthz``'s ``degraded``), keeps serving, and still restarts it."""
    with sitewise_up(tmp_path / "data", "--workers", "1") as up:
        status_file = tmp_path / "data" / "up-status.json"
        pid = int(re.search(r"worker-1: RQ worker \w+ \(pid (\d+)\)", up.log).group(1))
        for death in range(1, 6):
            os.kill(pid, signal.SIGKILL)
            up.wait_for_log(f"worker-1 (pid {pid}) killed by SIGKILL")
            if death < 5:
                restarts = wait_for(lambda: len(found := re.findall(r"worker-1: restarted as pid (\d+)", up.log)) == death
                                    and found, 30, f"restart {death}")
                pid = int(restarts[-1])
        delays = [int(d) for d in re.findall(r"worker-1 \(pid \d+\) killed by SIGKILL.*restarting it in (\d+) s", up.log)]
        assert delays == [1, 2, 4, 8, 16], up.log
        assert "5 deaths in 60 s: crash-looping" in up.log
        status = wait_for(lambda: json.loads(status_file.read_text()), 10, "the status file")
        wait_for(lambda: json.loads(status_file.read_text())["crash_looping"] == ["worker-1"], 10, "crash-looping status")
        code, _, body = http("GET", f"{up.base_url}/healthz")
        assert code == 200 and json.loads(body)["degraded"] == ["worker-1"], body
        assert up.process.poll() is None and status["supervisor_pid"] == up.process.pid
        assert http("POST", f"{up.base_url}/api/pages", page_dict("https://looping.example/a"))[0] == 201
    assert up.exit_code == 0, up.log
    assert not status_file.exists()  # the status file goes with the supervisor


@pytest.fixture(scope="module")
def up(tmp_path_factory):
    """One ``sitewise up`` for the web-tier tests below (the last of them kills its gunicorn master)."""
    root = tmp_path_factory.mktemp("web-tier")
    with sitewise_up(root / "data", "--workers", "1", env={"SITEWISE_UPLOADS_PER_MINUTE": "0"}) as running:
        yield running


def test_slow_clients_do_not_starve_the_web_tier(up):
    """:data:`SLOW_CLIENTS` connections dribbling their headers (and reconnecting when cut off): health
    probes are still answered within 5 s."""
    port = int(up.base_url.rsplit(":", 1)[1])
    with SlowClients(port, SLOW_CLIENTS) as slow:
        wait_for(lambda: slow.connections >= SLOW_CLIENTS, 10, "the slow clients to connect")
        latencies = probe(f"{up.base_url}/healthz", SLOW_SECONDS)
    answered = [s for s in latencies if s is not None]
    print(f"{SLOW_CLIENTS} slow clients ({slow.connections} connections), {SLOW_SECONDS:.0f} s: "
          f"{len(answered)}/{len(latencies)} probes answered within 5 s, slowest {max(answered, default=0):.2f} s")
    assert len(answered) >= MIN_ANSWERED * len(latencies)


def raw_request(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize("chunks", [
    b"zz\r\n{}\r\n0\r\n\r\n",  # a chunk size that is no number
    b"2\r\n{}XX0\r\n\r\n",  # a chunk without its CRLF
    b"10\r\n{\"a\":",  # cut short
])
def test_a_malformed_chunked_body_is_a_clean_400(up, chunks):
    port = int(up.base_url.rsplit(":", 1)[1])
    answer = raw_request(port, b"POST /api/pages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer[:500]
    assert json.loads(body)["error"] in {"bad_body", "bad_request"}  # the latter: Werkzeug's ClientDisconnected
    assert "Traceback" not in up.log


def test_the_install_link_ignores_a_hostile_host_header(up):
    _, _, body = http("GET", f"{up.base_url}/", headers={"Host": "evil.example"})
    page = body.decode()
    assert "evil.example" not in page
    assert up.base_url in page  # sitewise up's own address (SITEWISE_PUBLIC_URL unset)


@pytest.mark.parametrize("worker_class", ["gevent", "gthread"])
def test_a_sigkilled_gunicorn_master_with_slow_requests_in_flight_restarts_on_the_same_port(tmp_path, worker_class):
    """The master SIGKILLed while its workers hold slow uploads: the supervisor kills the orphans (they
    hold the listening socket, and gthread's finish their requests first, for up to 30 s) and the new
    master binds the same port at once. gevent's orphans quit by themselves within a second; gthread
    (a worker class one may choose with ``GUNICORN_CMD_ARGS``) shows that the restart does not rely on it."""
    with sitewise_up(tmp_path / "data", "--workers", "1", env={"GUNICORN_CMD_ARGS": f"--worker-class {worker_class}"}) as up:
        restart_web_after_sigkill(up)


def restart_web_after_sigkill(up) -> None:
    port = int(up.base_url.rsplit(":", 1)[1])
    master = int(re.findall(r"web: (?:gunicorn \(pid|restarted as pid) (\d+)", up.log)[-1])
    orphans = [int(p) for p in re.findall(r"\[(\d+)\] \[INFO\] Booting worker with pid", up.log)]
    in_flight = []
    for n in range(8):  # uploads that announce a body and send it slowly: requests in flight
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(b"POST /api/pages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n{\"url\": \"https://slow.example/%d\"" % n)
        in_flight.append(sock)
    time.sleep(1.0)  # the workers take them from the listen queue: requests in flight, waiting for their body
    try:
        os.kill(master, signal.SIGKILL)
        up.wait_for_log(f"web (pid {master}) killed by SIGKILL; restarting it in 1 s")
        up.wait_for_log("web: restarted as pid", timeout=30)
        new_master = int(re.findall(r"web: restarted as pid (\d+)", up.log)[-1])
        up.wait_for_log(f"[{new_master}] [INFO] Listening at: {up.base_url}", timeout=60)
        assert status_of(f"{up.base_url}/healthz") == 200
    finally:
        for sock in in_flight:
            sock.close()
    assert not pids_alive(orphans)
    assert not re.search(r"web \(pid \d+\) exited", up.log), up.log  # the new master bound at the first try
    assert up.process.poll() is None
