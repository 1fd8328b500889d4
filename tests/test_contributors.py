"""Contributors: pseudonymous tags on uploaded pages, the share cap before learning, trusted operator
uploads, and client addresses behind trusted proxies."""
from __future__ import annotations

import pytest

from sitewise.server import create_app
from sitewise.config import Settings
from sitewise.contributors import (
    MIN_PAGES_PER_CONTRIBUTOR,
    balance_contributors,
    contributor_cap,
    contributor_tag,
)
from sitewise.page import Block, Box, Page
from sitewise.server.services import client_network

SITE = "contrib.test"
TOKEN = "s3cret-token"


def page(n: int) -> Page:
    block = Block("Some article text here.", "p", ["html", "body", "p"], "body > p", Box(0, 0, 100, 20), {})
    return Page(url=f"https://{SITE}/story/{n}", blocks=[block], titles=[f"Story {n}"], collector="bookmarklet")


def test_the_tag_is_stable_salted_and_not_the_address():
    tag = contributor_tag("203.0.113.5", "salt-a")
    assert tag == contributor_tag("203.0.113.5", "salt-a")
    assert tag != contributor_tag("203.0.113.5", "salt-b") != contributor_tag("203.0.113.6", "salt-a")
    assert "203" not in tag and len(tag) == 16


@pytest.mark.parametrize(
    "counts, cap",
    [
        ([], None),
        ([50], None),  # a lone contributor (one reader, one crawler) outvotes nobody: all its pages count
        ([1] * 8 + [20], MIN_PAGES_PER_CONTRIBUTOR),  # eight readers and a flood: the flood counts 3
        ([10, 12, 9, 200], 10),  # the typical share is the lower median
        ([8, 20], 8),  # two contributors: the larger counts as much as the smaller
    ],
)
def test_contributor_cap(counts, cap):
    assert contributor_cap(counts) == cap


def test_balancing_keeps_each_contributors_newest_pages_operator_pages_and_order():
    pages = [page(n) for n in range(14)]
    owner = {p.key: "flood" for p in pages[:10]}
    owner.update({pages[10].key: "reader-1", pages[11].key: "reader-2"})  # 12, 13: the operator's
    kept = balance_contributors(pages, owner)
    assert [p.url for p in kept] == [p.url for p in pages[7:]]  # the flood's newest 3, then the rest in order


def test_balancing_with_one_contributor_keeps_everything():
    pages = [page(n) for n in range(30)]
    assert balance_contributors(pages, {p.key: "crawler" for p in pages}) == pages


def test_the_store_records_contributors_and_forgets_them_with_the_page(store):
    store.max_pages_per_site = 3
    for n in range(4):
        store.put_page(page(n), contributor="reader" if n % 2 else None)
    # Page 0 was trimmed; 1 and 3 are a reader's, 2 the operator's.
    assert store.contributors(SITE) == {page(1).key: "reader", page(3).key: "reader"}
    assert store.site_info(SITE)["contributors"] == 1
    store.put_page(page(3))  # re-stored by the operator: no longer the reader's
    assert store.contributors(SITE) == {page(1).key: "reader"}
    store.delete_page(SITE, page(1).key)
    assert store.contributors(SITE) == {}
    store.put_page(page(5), contributor="reader")
    store.delete_site(SITE)
    assert store.contributors(SITE) == {}


def test_the_salt_is_made_once_per_deployment(store):
    salt = store.contributor_salt()
    assert len(salt) == 32
    store._salt = None  # another process reads the same salt
    assert store.contributor_salt() == salt


def app_client(store, tmp_path, **overrides):
    values = {"data_dir": str(tmp_path), "admin_token": TOKEN, "client_pages_per_site_per_day": 2, **overrides}
    return create_app(Settings(**values), store).test_client()


def upload(client, n: int, address: str = "198.51.100.7", **headers):
    return client.post("/api/pages", json=page(n).to_dict(), headers=headers, environ_base={"REMOTE_ADDR": address})


def test_joined_domains_share_one_sites_quota(store, tmp_path):
    store.put_alias("contrib-sister.test", SITE)
    client = app_client(store, tmp_path)
    assert upload(client, 1).status_code == 201
    sister = page(2)
    sister.url = "https://contrib-sister.test/story/2"
    assert client.post("/api/pages", json=sister.to_dict(), environ_base={"REMOTE_ADDR": "198.51.100.7"}).status_code == 201
    assert upload(client, 3).status_code == 429  # the quota of 2 is the joined site's, not each domain's
    assert store.page_count(SITE) == 2


def test_a_readers_upload_is_tagged_and_counts_against_the_quota(store, tmp_path):
    client = app_client(store, tmp_path)
    assert upload(client, 1).status_code == 201
    assert upload(client, 2).status_code == 201
    refused = upload(client, 3)
    assert refused.status_code == 429 and refused.get_json()["error"] == "rate_limited"
    tags = set(store.contributors(SITE).values())
    assert tags == {contributor_tag("198.51.100.7", store.contributor_salt())}
    assert store.page_count(SITE) == 2


def test_the_operators_upload_is_trusted(store, tmp_path):
    client = app_client(store, tmp_path)
    for n in range(5):  # past the reader quota of 2
        assert upload(client, n, Authorization=f"Bearer {TOKEN}").status_code == 201
    assert store.page_count(SITE) == 5 and store.contributors(SITE) == {}


def test_only_the_operators_upload_keeps_its_html(store, tmp_path):
    client = app_client(store, tmp_path)
    crafted = {**page(1).to_dict(), "html": "<html><body><nav>Home</nav><p>Crafted to teach the fallback</p></body></html>"}
    reader = client.post("/api/pages", json=crafted, environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert reader.status_code == 201 and store.get_page(SITE, reader.get_json()["key"]).html is None
    operator = client.post("/api/pages", json={**crafted, "url": f"https://{SITE}/story/2"},
                           headers={"Authorization": f"Bearer {TOKEN}"})
    assert operator.status_code == 201 and store.get_page(SITE, operator.get_json()["key"]).html == crafted["html"]


@pytest.mark.parametrize("header, status", [("Bearer wrong", 401), ("Basic abc", 401)])
def test_an_upload_with_a_wrong_token_is_refused_and_stores_nothing(store, tmp_path, header, status):
    client = app_client(store, tmp_path)
    response = upload(client, 1, Authorization=header)
    assert response.status_code == status and response.get_json()["error"] == "unauthorized"
    assert store.page_count(SITE) == 0


def test_forwarded_addresses_are_believed_only_behind_trusted_proxies(store, tmp_path):
    def tags_after_uploads(client) -> set[str]:
        for n, forwarded in enumerate(["192.0.2.1", "192.0.2.2"]):
            response = upload(client, n, address="10.0.0.1", **{"X-Forwarded-For": forwarded})
            assert response.status_code == 201
        tags = set(store.contributors(SITE).values())
        store.delete_site(SITE)
        return tags

    salt = store.contributor_salt()
    direct = tags_after_uploads(app_client(store, tmp_path, client_pages_per_site_per_day=0))
    assert direct == {contributor_tag("10.0.0.1", salt)}  # a client cannot pick its address
    proxied = tags_after_uploads(app_client(store, tmp_path, client_pages_per_site_per_day=0, trusted_proxies=1))
    assert proxied == {contributor_tag("192.0.2.1", salt), contributor_tag("192.0.2.2", salt)}


@pytest.mark.parametrize("address, client", [
    ("192.0.2.7", "192.0.2.7"),
    ("::ffff:192.0.2.7", "192.0.2.7"),  # IPv4 on a dual-stack socket is the same client
    ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
    ("2001:DB8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
    ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
    ("fe80::1%eth0", "fe80::/64"),
    ("unknown", "unknown"),
])
def test_a_client_is_its_ipv4_address_or_its_ipv6_64(address, client):
    assert client_network(address) == client


def test_addresses_of_one_ipv6_64_are_one_client(store, tmp_path):
    client = app_client(store, tmp_path)
    statuses = [upload(client, n, address=f"2001:db8:1:2::{n + 1:x}").status_code for n in range(4)]
    assert statuses == [201, 201, 429, 429]  # one /64, one quota of 2
    assert upload(client, 5, address="2001:db8:1:3::1").status_code == 201  # the next /64: another client
    assert store.site_info(SITE)["contributors"] == 2
    mapped = [upload(client, n, address=address).status_code
              for n, address in ((6, "192.0.2.7"), (7, "::ffff:192.0.2.7"), (8, "192.0.2.7"))]
    assert mapped == [201, 201, 429]  # IPv4-mapped IPv6 is the IPv4 client
