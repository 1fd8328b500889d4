"""Small defences of the web tier and the queue, on the real app and a real Redis: nosniff on every JSON
answer, a health check that names no Redis address, 507 from a full Redis, an install link that ignores
the Host header, JSON (not pickle) job payloads, the embedded Redis's memory bound, CPU-bound work off
gevent's event loop."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import zlib

import pytest
import redis

from sitewise.server import create_app
from sitewise.server.threadpool import run_cpu_bound
from server_support import as_json, page_dict, settings_for
from sitewise.redis_conn import DEFAULT_MAXMEMORY, MAXMEMORY_POLICY
from sitewise.store import Store
from sitewise.supervisor import MAX_RESTART_DELAY_S, RESTART_DELAY_S, restart_delay
from sitewise.worker.fallback import RETRAIN_RETRIES, maybe_enqueue_retrain
from sitewise.worker.queue import enqueue_learn


@pytest.fixture
def make_client(store: Store, tmp_path):
    def make(store: Store = store, **overrides):
        app = create_app(settings_for(tmp_path, **overrides), store)
        app.testing = True
        return app.test_client()

    return make


@pytest.mark.parametrize("method, path, body", [
    ("GET", "/healthz", None),
    ("GET", "/api/sites", None),
    ("GET", "/rules/nothing.example", None),  # 404
    ("POST", "/api/pages", b"{not json"),  # 400
    ("DELETE", "/api/pages", None),  # 405
    ("POST", "/api/pages", as_json(page_dict())),  # 201
])
def test_every_json_answer_says_nosniff(make_client, method, path, body):
    response = make_client().open(path, method=method, data=body, headers={"Content-Type": "application/json"})
    assert response.is_json, (response.status_code, response.data[:200])
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_without_redis_the_health_check_says_503_without_naming_redis(make_client, tmp_path):
    gone = Store(redis.Redis.from_url(f"unix://{tmp_path}/no-redis-here.sock"))
    client = make_client(store=gone)
    response = client.get("/healthz")
    assert response.status_code == 503 and response.headers["Retry-After"]
    assert response.get_json()["redis"] == {"ok": False, "error": "unavailable"}
    assert str(tmp_path) not in response.get_data(as_text=True)
    upload = client.post("/api/pages", data=as_json(page_dict()), headers={"Content-Type": "application/json"})
    assert upload.status_code == 503 and upload.get_json()["error"] == "store_unavailable"
    assert str(tmp_path) not in upload.get_data(as_text=True)


def test_a_full_redis_refuses_uploads_with_507_and_keeps_what_it_has(make_client, store):
    client = make_client()
    assert client.post("/api/pages", data=as_json(page_dict()), headers={"Content-Type": "application/json"}).status_code == 201
    limit = store.redis.config_get("maxmemory")["maxmemory"]
    store.redis.config_set("maxmemory", "1")  # below what it holds: every write is refused
    try:
        response = client.post("/api/pages", data=as_json(page_dict("https://news.example/a/2")),
                               headers={"Content-Type": "application/json"})
    finally:
        store.redis.config_set("maxmemory", limit)
    assert response.status_code == 507 and response.get_json()["error"] == "store_full"
    assert store.page_keys("news.example") == ["https://news.example/a/1"]


def test_a_full_redis_refusing_a_scripts_write_is_507_not_500(make_client, store):
    client = make_client()
    assert client.post("/api/pages", data=as_json(page_dict()), headers={"Content-Type": "application/json"}).status_code == 201
    limit = store.redis.config_get("maxmemory")["maxmemory"]
    store.redis.config_set("maxmemory", "1")
    try:  # accepting held rules first makes the site's generation token, in a Lua script
        response = client.post("/api/admin/sites/news.example/held/accept", headers={"Authorization": "Bearer s3cret"})
    finally:
        store.redis.config_set("maxmemory", limit)
    assert response.status_code == 507 and response.get_json()["error"] == "store_full"


def test_the_embedded_redis_is_bounded_and_never_evicts(store):
    config = store.redis.config_get("maxmemory*")
    assert config["maxmemory-policy"] == MAXMEMORY_POLICY == "noeviction"
    assert int(config["maxmemory"]) == 2 * 1024**3 and DEFAULT_MAXMEMORY == "2gb"


def test_the_install_link_follows_the_configured_address_never_the_host_header(make_client):
    hostile = make_client().get("/", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in hostile
    assert "http://localhost" in hostile  # the address the server says it serves on
    public = make_client(public_url="https://sitewise.example.org/").get("/", headers={"Host": "evil.example"})
    page = public.get_data(as_text=True)
    assert "evil.example" not in page
    assert "<code>https://sitewise.example.org</code>" in page and "&#34;https://sitewise.example.org&#34;" in page  # the loader's


def test_job_payloads_are_json_not_pickle(store):
    job = enqueue_learn("news.example", connection=store.redis, force=True)
    raw = store.redis.hget(f"rq:job:{job.id}", "data")
    payload = json.loads(zlib.decompress(raw))
    assert not raw.startswith(b"\x80")  # no pickle protocol header, compressed or not
    assert payload[0] == "sitewise.worker.jobs.learn_site" and payload[2] == ["news.example"] and payload[3] == {"force": True}


def test_restart_pauses_double_up_to_a_cap():
    assert [restart_delay(n) for n in range(1, 5)] == [RESTART_DELAY_S * 2**i for i in range(4)]
    assert restart_delay(50) == MAX_RESTART_DELAY_S


def test_cpu_bound_work_leaves_gevents_loop_and_errors_come_back():
    """Under gevent (as the web server runs) the work runs in a native thread of gevent's pool, so the
    event loop keeps serving other requests; an error it raises reaches the caller; without gevent it
    runs in place."""
    script = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import threading\n"
        "from sitewise.server.threadpool import run_cpu_bound\n"
        "from sitewise.server.errors import ApiError\n"
        "here = threading.get_native_id()\n"
        "print(run_cpu_bound(threading.get_native_id) != here)\n"
        "def fail(): raise ApiError(400, 'bad', 'no')\n"
        "try:\n    run_cpu_bound(fail)\nexcept ApiError as exc:\n    print(exc.code)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["True", "bad"], result.stderr
    assert run_cpu_bound(threading.get_native_id) == threading.get_native_id()


def test_cpu_bound_jobs_of_concurrent_requests_run_one_after_another_in_one_thread():
    """Four requests' jobs at once under gevent: one native thread runs them in turn. In several threads
    two first imports of a module could meet on gevent's patched import lock, whose waiter may never be
    woken: the first uploads after a start, each importing ``publicsuffixlist``, left one unanswered."""
    script = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import threading, time, gevent\n"
        "from sitewise.server.threadpool import run_cpu_bound\n"
        "def job():\n"
        "    started = time.perf_counter()\n"
        "    while time.perf_counter() < started + 0.02: pass  # long enough for threads to interleave\n"
        "    return threading.get_native_id(), started, time.perf_counter()\n"
        "greenlets = [gevent.spawn(run_cpu_bound, job) for _ in range(4)]\n"
        "gevent.joinall(greenlets)\n"
        "runs = sorted(g.value for g in greenlets)\n"
        "print(len({thread for thread, _, _ in runs}))\n"
        "runs.sort(key=lambda run: run[1])\n"
        "print(all(before[2] <= after[1] for before, after in zip(runs, runs[1:])))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["1", "True"], (result.stdout, result.stderr)


def test_the_fallback_retrain_job_has_retries(store):
    job = maybe_enqueue_retrain(store.redis)
    assert job is not None and job.retries_left == RETRAIN_RETRIES >= 1
