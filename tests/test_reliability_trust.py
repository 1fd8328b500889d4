"""Trust from agreement: the poisoning attacks of issue 16, each against the real app, store and RQ
learn job (in process), after ten readers from ten loopback addresses taught a site.

The measure is the readers': word F1 of the site's served rules on six articles nobody uploaded (1.000
before each attack; before the defences the first three attacks brought it to 0.170). Each attack must
leave it at 0.9 or more.
"""
from __future__ import annotations

import random

import pytest

from poisoning_support import decoy_page, held_out_f1, learn, site_articles, upload
from sitewise.server import create_app
from sitewise.config import Settings

SITE = "gazette.test"
READERS = 10
HELD_OUT = 6
#: The attacks' target: served-rules F1 on held-out articles.
MIN_F1 = 0.9
ATTACKER = "127.0.1.1"
ADMIN = {"Authorization": "Bearer s3cret"}
#: The per-client quota of pages per site per day (and of marks) as the defaults' ratio; the site cap
#: as the default.
QUOTA = 20
CAP = 500
#: The issue's many-address attack: 50 addresses × 10 decoys fill the whole cap.
ADDRESSES = 50


@pytest.fixture(scope="module")
def articles():
    return site_articles(READERS, HELD_OUT)


@pytest.fixture
def taught(store, tmp_path, monkeypatch, articles):
    """The app, the store and the rules after ten readers taught the site (one article each)."""
    settings = Settings(
        data_dir=str(tmp_path), admin_token="s3cret", uploads_per_minute=0, client_pages_per_site_per_day=QUOTA,
        max_pages_per_site=CAP, min_pages_to_learn=5, relearn_after=5,
    )
    # The learn job reads its settings from the environment, as a worker process does.
    monkeypatch.setenv("SITEWISE_MAX_PAGES_PER_SITE", str(CAP))
    monkeypatch.setenv("SITEWISE_MIN_PAGES_TO_LEARN", "5")
    store.max_pages_per_site = CAP
    client = create_app(settings, store).test_client()
    for number, (page, _) in enumerate(articles[0]):
        assert upload(client, page, f"127.0.0.{number + 1}") == 201
    learn(store)
    rules = store.rules(SITE)
    assert rules is not None and held_out_f1(rules, articles[1]) == pytest.approx(1.0)
    return client, store


def served_f1(store, articles) -> float:
    return held_out_f1(store.rules(SITE), articles[1])


def test_a_re_upload_by_someone_else_never_replaces_a_readers_page(taught, articles):
    client, store = taught
    readers, _ = articles
    before = {key: store.get_page(SITE, key).text for key in store.page_keys(SITE)}
    rng = random.Random(1)
    for page, _ in readers:  # the attack: 10 requests from one address
        response = client.post("/api/pages", json=decoy_page(page, rng, page.url).to_dict(),
                               environ_base={"REMOTE_ADDR": ATTACKER})
        assert response.status_code == 200 and response.get_json()["stored"] is False
    learn(store)
    assert {key: store.get_page(SITE, key).text for key in store.page_keys(SITE)} == before
    assert served_f1(store, articles) >= MIN_F1
    # The owner may still replace its own copy.
    assert upload(client, readers[0][0], "127.0.0.1") == 200


def test_canonical_url_cannot_overwrite_nor_reach_another_site(taught, articles):
    client, store = taught
    readers, _ = articles
    rng = random.Random(2)
    for n, (page, _) in enumerate(readers):
        fake = decoy_page(page, rng, f"http://{SITE}/story/decoy-{n}.html", canonical_url=page.url)
        response = client.post("/api/pages", json=fake.to_dict(), environ_base={"REMOTE_ADDR": ATTACKER})
        assert response.status_code == 200 and response.get_json()["stored"] is False
    elsewhere = decoy_page(readers[0][0], rng, f"http://{SITE}/story/decoy-x.html", canonical_url="http://other.test/a")
    response = client.post("/api/pages", json=elsewhere.to_dict(), environ_base={"REMOTE_ADDR": ATTACKER})
    assert response.status_code == 201 and response.get_json()["key"] == elsewhere.url  # keyed by its own URL
    assert store.sites() == [SITE]
    learn(store)
    assert all(store.get_page(SITE, page.key).text == page.text for page, _ in readers)
    assert served_f1(store, articles) >= MIN_F1


def test_a_feedback_flood_from_one_address_does_not_steer_learning(taught, articles):
    client, store = taught
    readers, _ = articles
    rng = random.Random(3)
    body = next(b for b in readers[0][0].blocks if "story-body" in b.selector)
    comment = next(b for b in readers[0][0].blocks if "comments" in b.selector and b.tag == "p")
    statuses = []
    for n in range(46):  # the attack: 46 marks from one address ...
        mark = {"url": readers[n % READERS][0].url, "kind": "not_article" if n % 2 else "missing",
                "selector": body.selector if n % 2 else comment.selector, "text": ""}
        statuses.append(client.post("/api/feedback", json=mark, environ_base={"REMOTE_ADDR": ATTACKER}).status_code)
    # The per-site quota of marks: 20 a day per client; the rest refused.
    assert statuses.count(201) == QUOTA and statuses.count(429) == 46 - QUOTA
    # Days of quota later: the same address has marked every body block "not article" and every comment
    # "missing" on every reader's page (what the quota delays, agreement must stop).
    tag = store.feedback(SITE)[0]["contributor"]
    for page, _ in readers:
        for block in page.blocks:
            kind = "not_article" if "story-body" in block.selector else "missing" if "comments" in block.selector else None
            if kind:
                store.add_feedback(SITE, {"url": page.url, "kind": kind, "selector": block.selector, "text": "",
                                          "contributor": tag, "received_at": "2026-01-01T00:00:00+00:00"})
    for n in range(5):  # ... plus 5 ordinary-looking pages
        assert upload(client, decoy_page(readers[n][0], rng, f"http://{SITE}/story/decoy-{n}.html"), ATTACKER) == 201
    learn(store)
    assert served_f1(store, articles) >= MIN_F1


def test_fifty_addresses_of_decoys_neither_evict_the_readers_nor_move_the_served_rules(taught, articles):
    client, store = taught
    readers, _ = articles
    reader_keys = {page.key for page, _ in readers}
    rng = random.Random(4)
    for a in range(ADDRESSES):
        for n in range(10):
            page = decoy_page(readers[(a + n) % READERS][0], rng, f"http://{SITE}/story/decoy-{a}-{n}.html")
            assert upload(client, page, f"127.0.2.{a + 1}") == 201
        if a % 10 == 9:
            learn(store)  # re-learns as the flood grows
    assert reader_keys <= set(store.page_keys(SITE))  # the pages that taught the rules were kept
    assert store.page_count(SITE) == CAP
    assert served_f1(store, articles) >= MIN_F1
    # The version the flood taught moved the region on the readers' pages: held, not served.
    assert client.get(f"/api/sites/{SITE}").get_json()["held_for_review"] is True
    held = client.get(f"/api/admin/sites/{SITE}/held", headers=ADMIN).get_json()
    print(f"{ADDRESSES} addresses x 10 decoys: versions {store.rule_versions(SITE)}, served F1 "
          f"{served_f1(store, articles):.3f}, held version's F1 {held_out_f1(held['rules'], articles[1]):.3f}: {held['reason']}")
    assert held_out_f1(held["rules"], articles[1]) < 0.5 and "held for review" in held["reason"]
    assert "held for review" in client.get(f"/sites/{SITE}").get_data(as_text=True)  # the dashboard says so
    version = store.rules(SITE)["version"]
    assert client.delete(f"/api/admin/sites/{SITE}/held", headers=ADMIN).get_json()["rejected"] is True
    assert store.held_rules(SITE) is None and store.rules(SITE)["version"] == version


def test_one_address_flooding_decoys_does_not_move_the_served_rules(taught, articles):
    client, store = taught
    readers, _ = articles
    rng = random.Random(5)
    statuses = []
    for n in range(QUOTA * 2):
        statuses.append(upload(client, decoy_page(readers[n % READERS][0], rng, f"http://{SITE}/story/decoy-{n}.html"), ATTACKER))
        if n % 5 == 4:
            learn(store)
    assert statuses.count(201) == QUOTA and statuses.count(429) == QUOTA
    assert served_f1(store, articles) >= MIN_F1
