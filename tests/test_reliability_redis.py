"""Redis killed (SIGKILL) and restarted under a stream of writes: every acknowledged write survives.

The writer counts a page as acknowledged only when ``Store.put_page`` returned; a write cut off by the
kill raises and is not counted (the client cannot know whether it landed, and may retry). After each
restart the append-only file must bring back every acknowledged page, whole.
"""
from __future__ import annotations

import os
import re
import signal
import threading
import time

import redis

from sitewise.page import Page
from sitewise.redis_conn import EmbeddedRedis, connect
from sitewise.store import Store

from reliability_support import http, page_dict, sitewise_up, wait_for

#: Kill-and-restart cycles per test run, and how long the writer streams between them.
KILLS = 3
STREAM_S = 0.6


class Writer(threading.Thread):
    """Streams pages into the store until stopped; remembers which writes were acknowledged."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.store = Store(connect(url), max_pages_per_site=1_000_000)
        self.acknowledged: dict[str, str] = {}  # page key → its text
        self.failed = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        n = 0
        while not self.stopping.is_set():
            n += 1
            text = f"paragraph {n} " + "word " * (n % 50)
            page = Page.from_dict(page_dict(f"https://stream.example/{n}", [text, "second " * 20]))
            try:
                self.store.put_page(page)
            except redis.RedisError:
                self.failed += 1
                time.sleep(0.01)  # Redis is down: the client retries with the next page
                continue
            self.acknowledged[page.key] = text


def test_sigkilled_redis_loses_no_acknowledged_page(tmp_path):
    server = EmbeddedRedis(tmp_path).start()
    writer = Writer(server.url)
    try:
        writer.start()
        for _ in range(KILLS):
            time.sleep(STREAM_S)
            os.kill(server.process.pid, signal.SIGKILL)
            server.process.wait()
            time.sleep(0.1)  # uploads fail while it is down
            server.start()
        time.sleep(STREAM_S)
        writer.stopping.set()
        writer.join(timeout=10)

        store = Store(connect(server.url))
        missing = [key for key in writer.acknowledged if store.get_page("stream.example", key) is None]
        damaged = [
            key for key, text in writer.acknowledged.items()
            if key not in missing and store.get_page("stream.example", key).blocks[0].text != text
        ]
        print(f"{len(writer.acknowledged)} acknowledged writes, {writer.failed} refused while Redis was down, "
              f"{len(missing)} lost, {len(damaged)} damaged")
        # A real stream (fsync per write on a busy shared disk allows ~100 a second) that met a dead Redis.
        assert len(writer.acknowledged) > 30 and writer.failed > 0
        assert not missing and not damaged
        # No half-written page either: every page stored (acknowledged or not) decodes whole and is
        # listed in the site's order index (one MULTI/EXEC wrote both).
        # both read at one instant (a write still finishing between two reads is no inconsistency)
        with store.redis.pipeline(transaction=True) as pipe:
            pipe.zrange("sw:site:stream.example:order", 0, -1)
            pipe.hkeys("sw:site:stream.example:pages")
            order, pages = pipe.execute()
        assert set(order) == set(pages)
        assert all(len(page.blocks) == 2 for page in store.pages("stream.example"))
    finally:
        writer.stopping.set()
        server.stop()


def test_uploads_acknowledged_by_sitewise_up_survive_redis_sigkills(tmp_path):
    """The same through HTTP and the supervisor: uploads stream into ``sitewise up``; its embedded
    redis-server is SIGKILLed twice (the supervisor reports it and restarts it from its files); every
    upload answered 2xx is stored, and every refused one was refused as 503 (retry), never 500."""
    # Limits off, no learning, and no site cap (it would trim the oldest acknowledged pages).
    env = {"SITEWISE_UPLOADS_PER_MINUTE": "0", "SITEWISE_CLIENT_PAGES_PER_SITE_PER_DAY": "0",
           "SITEWISE_CLIENT_PAGES_PER_DAY": "0", "SITEWISE_CLIENT_BYTES_PER_DAY": "0",
           "SITEWISE_MIN_PAGES_TO_LEARN": str(10**9), "SITEWISE_MAX_PAGES_PER_SITE": str(10**9)}
    with sitewise_up(tmp_path / "data", "--workers", "1", env=env) as up:
        answers: dict[str, int] = {}
        unanswered: list[str] = []  # when and how a request got no answer, for the failure's message
        stopping = threading.Event()

        def uploader(number: int) -> None:
            n = 0
            while not stopping.is_set():
                n += 1
                url = f"https://http-stream.example/{number}/{n}"
                sent = time.monotonic()
                try:
                    answers[url] = http("POST", f"{up.base_url}/api/pages", page_dict(url), timeout=30)[0]
                except OSError as exc:
                    answers[url] = 0  # no answer at all
                    unanswered.append(f"{url} after {time.monotonic() - sent:.1f}s: {type(exc).__name__}: {exc}")

        threads = [threading.Thread(target=uploader, args=(i,), daemon=True) for i in range(4)]
        for thread in threads:
            thread.start()
        for kill in range(2):
            time.sleep(1.5)
            pid = int(re.findall(r"redis(?:: embedded redis-server \(pid|: restarted as pid) (\d+)", up.log)[-1])
            os.kill(pid, signal.SIGKILL)
            up.wait_for_log(f"redis: embedded redis-server (pid {pid}) killed by SIGKILL; restarting it")
            wait_for(lambda: up.log.count("redis: restarted as pid") == kill + 1, 30, "Redis to be restarted")
        time.sleep(1.5)
        stopping.set()
        for thread in threads:
            thread.join(timeout=60)

        store = Store(connect(f"unix://{tmp_path / 'data' / 'redis.sock'}?db=0"))
        stored = set(store.page_keys("http-stream.example"))
        acknowledged = {url for url, status in answers.items() if 200 <= status < 300}
        refused = {url: status for url, status in answers.items() if not 200 <= status < 300}
        print(f"{len(acknowledged)} uploads acknowledged, {len(refused)} refused while Redis was away "
              f"({sorted(set(refused.values()))}), {len(acknowledged - stored)} of the acknowledged missing")
        assert len(acknowledged) > 20
        assert acknowledged <= stored
        assert set(refused.values()) <= {503}, "\n".join([*unanswered, "--- sitewise up's log, last lines:", *up.log.splitlines()[-40:]])
