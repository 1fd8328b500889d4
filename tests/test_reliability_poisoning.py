"""Poisoning: one client flooding a site with junk pages must not replace good rules.

End to end on the real app, store and RQ learn job: readers upload a site's articles and the worker
learns rules; then one client floods the site. The defences: the per-client daily quota per site
(``client_pages_per_site_per_day``), the per-site page cap (``max_pages_per_site``: the oldest go), and the
learner's consistency check before a new rule version replaces the current one. The test measures what
matters to readers: the word F1 of the site's current rules on articles neither side uploaded.
"""
from __future__ import annotations

import random

import pytest
from poisoning_support import decoy_page, held_out_f1, learn, site_articles, upload
from sitewise.server import create_app
from sitewise.config import Settings
from sitewise.page import Block, Box, Page

SITE = "gazette.test"
#: Articles readers upload, and articles kept back to score the rules on.
GOOD_PAGES = 8
HELD_OUT = 4
#: The flooding client's allowance, and the site's cap: the defaults' ratio (200 of 500).
QUOTA = 20
CAP = 50
ATTACKER = "203.0.113.66"
#: Rules after the flood may score this much lower on held-out articles and still count as unharmed.
TOLERANCE = 0.02


@pytest.fixture(scope="module")
def articles():
    return site_articles(GOOD_PAGES, HELD_OUT)


@pytest.fixture
def system(store, tmp_path, monkeypatch):
    settings = Settings(
        data_dir=str(tmp_path), uploads_per_minute=0, client_pages_per_site_per_day=QUOTA,
        max_pages_per_site=CAP, min_pages_to_learn=3, relearn_after=5,
    )
    # The learn job reads its settings from the environment, as a worker process does.
    monkeypatch.setenv("SITEWISE_MAX_PAGES_PER_SITE", str(CAP))
    monkeypatch.setenv("SITEWISE_MIN_PAGES_TO_LEARN", "3")
    store.max_pages_per_site = CAP
    app = create_app(settings, store)
    return app.test_client(), store


def noise_page(rng: random.Random, n: int) -> Page:
    """Junk: random text in random structure."""
    words = "buy cheap pills now best offer click here free win casino".split()
    blocks = [
        Block(
            text=" ".join(rng.choice(words) for _ in range(rng.randint(3, 80))),
            tag=rng.choice(["p", "div", "li", "span"]),
            path=["html", "body", "div", "p"],
            selector=f"body > div.x{rng.randint(0, 999)} > p.y{rng.randint(0, 999)}",
            box=Box(rng.uniform(0, 1000), rng.uniform(0, 5000), rng.uniform(50, 800), rng.uniform(10, 300)),
            style={"font-size": f"{rng.randint(8, 30)}px", "display": "block"},
        )
        for _ in range(rng.randint(5, 40))
    ]
    return Page(url=f"http://{SITE}/spam/{n}.html", blocks=blocks, titles=["Best offer casino"], collector="bookmarklet")


@pytest.mark.parametrize("junk", ["noise", "decoy"])
def test_one_client_flooding_a_site_does_not_replace_good_rules(system, articles, junk):
    client, store = system
    good, held_out = articles
    for number, (page, _) in enumerate(good):
        assert upload(client, page, f"198.51.100.{number}") == 201  # readers: one page each
    learn(store)
    good_rules = store.rules(SITE)
    assert good_rules is not None
    good_f1 = held_out_f1(good_rules, held_out)

    rng = random.Random(1)
    statuses = []
    for n in range(QUOTA * 2):
        page = noise_page(rng, n) if junk == "noise" else decoy_page(good[n % len(good)][0], rng, f"http://{SITE}/story/decoy-{n}.html")
        statuses.append(upload(client, page, ATTACKER))
        if n % 5 == 4:
            learn(store)  # the worker keeps up with the flood: every due re-learn runs
    learn(store)

    # The quota: the flooding client got QUOTA pages in, the rest were refused.
    assert statuses.count(201) == QUOTA and statuses.count(429) == QUOTA
    # Another reader is not affected by the attacker's quota.
    assert upload(client, held_out[0][0], "198.51.100.200") == 201
    assert store.page_count(SITE) <= CAP

    rules = store.rules(SITE)
    outcome_f1 = held_out_f1(rules, held_out)
    versions = store.rule_versions(SITE)
    print(f"{junk}: {QUOTA} junk pages stored of {QUOTA * 2} sent, {store.page_count(SITE)} pages; rule versions "
          f"{versions}; held-out F1 {good_f1:.3f} before the flood, {outcome_f1:.3f} after")
    assert outcome_f1 >= good_f1 - TOLERANCE


def test_the_site_cap_keeps_the_newest_pages(system, articles):
    client, store = system
    good, _ = articles
    rng = random.Random(2)
    for n in range(CAP + 10):
        assert upload(client, noise_page(rng, n), f"192.0.2.{n}") == 201
    keys = store.page_keys(SITE)
    assert len(keys) == CAP and store.page_count(SITE) == CAP
    assert keys[0].endswith("/spam/10.html") and keys[-1].endswith(f"/spam/{CAP + 9}.html")
