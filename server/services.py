"""What the request handlers share — settings, the store, learning, limits — kept in
``app.extensions["sitewise"]`` by the app factory (:func:`sitewise.server.app.create_app`), and who is calling.
The blueprints import this module, never the factory: the factory imports them.
"""
from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, request

from sitewise.config import Settings
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
    dashboard_views: FixedWindowLimiter
    storage: StorageBudget
    #: Query parameters kept in stored URLs, per site (``Settings.url_params``).
    url_params: UrlParams


def services() -> Services:
    return current_app.extensions["sitewise"]


def client_id() -> str:
    """Who is calling, for limits: the peer address, or the one trusted proxies forwarded
    (``Settings.trusted_proxies``)."""
    return request.remote_addr or "unknown"
