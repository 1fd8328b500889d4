"""What the request handlers share — settings, the store, learning, limits — kept in
``app.extensions["sitewise"]`` by the app factory (:func:`sitewise.server.app.create_app`), and who is calling.
The blueprints import this module, never the factory: the factory imports them.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from flask import current_app, g, request

from sitewise.config import Settings
from sitewise.contributors import contributor_tag
from sitewise.store import Store
from sitewise.urls import UrlParams

from .budget import StorageBudget
from .learning import Learning
from .ratelimit import FixedWindowLimiter


@dataclass
class Services:
    """What the request handlers share, kept in ``app.extensions["sitewise"]``."""

    settings: Settings
    store: Store
    learning: Learning
    uploads: FixedWindowLimiter
    extracts: FixedWindowLimiter
    site_quota: FixedWindowLimiter
    #: Per client per day over all sites: pages, and bytes as stored.
    client_pages: FixedWindowLimiter
    client_bytes: FixedWindowLimiter
    #: Marks per client per site per day.
    site_marks: FixedWindowLimiter
    #: Reads that cost a few Redis calls per site they show, per client per minute: the dashboard's pages
    #: and ``GET /api/sites`` share one allowance (``Settings.dashboard_views_per_minute``).
    views: FixedWindowLimiter
    storage: StorageBudget
    #: Query parameters kept in stored URLs, per site (``Settings.url_params``).
    url_params: UrlParams


def services() -> Services:
    return current_app.extensions["sitewise"]


#: An IPv6 client is its /64, not its address: a provider hands each subscriber (a home line, a phone, a
#: rented server) at least a /64 (RFC 6177; RIPE-690 recommends a /56 or /48 for homes), and a host picks
#: any address in it at will (privacy extensions change it daily), so counting addresses would give one
#: client 2^64 quotas and contributor tags. A /64 is what every subscriber has; grouping by /56 would lump
#: together the customers of providers that give out single /64s. A subscriber with a /56 can still count
#: as 256 clients: bounded like a client with 256 IPv4 addresses.
IPV6_CLIENT_PREFIX = 64


def client_network(address: str) -> str:
    """The client an address belongs to: an IPv4 address itself (also when written IPv4-mapped,
    ``::ffff:192.0.2.7``), an IPv6 address's /64 (``2001:db8:1:2::/64``); anything else (no address
    known) as given."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, IPV6_CLIENT_PREFIX), strict=False))
    return str(ip)


def client_key() -> str:
    """Who is calling, as every limit and contributor tag knows it: a salted 64-bit hash
    (:func:`sitewise.contributors.contributor_tag`) of the caller's :func:`client_network` -- of the peer
    address, or the one trusted proxies forwarded (``Settings.trusted_proxies``). The address itself is
    never stored or logged."""
    if "client_key" not in g:
        address = client_network(request.remote_addr or "unknown")
        g.client_key = contributor_tag(address, services().store.contributor_salt())
    return g.client_key


def known_client_key() -> str | None:
    """The caller's :func:`client_key` when the request has needed it (for a limit or a tag), else None:
    the access log names the caller without asking the store for the salt on every rule read."""
    return g.get("client_key")
