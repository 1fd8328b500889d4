"""The store: pages per site, versioned rules and reader feedback, in Redis.

Key layout (every key starts with ``sw:``; ``{site}`` is a site key as given by :meth:`Store.site_key`:
a registrable domain, ``sitewise.page.site_of``, or the site an administrator's alias joins it to):

=================================  ======  =====================================================
key                                type    holds
=================================  ======  =====================================================
``sw:sites``                       zset    site → time of its last page upload (unix seconds)
``sw:contributor-salt``            string  random salt of contributor tags (made once)
``sw:aliases``                     hash    registrable domain → the site it is part of (admin only)
``sw:site:{site}:pages``           hash    page key (canonical URL, else URL) → zlib(page JSON)
``sw:site:{site}:order``           zset    page key → time stored; the newest N are kept
``sw:site:{site}:contributors``    hash    page key → who uploaded it (a salted hash of the client);
                                           absent for pages the operator stored (CLI, admin token)
``sw:site:{site}:meta``            hash    ``pages_since_learn``, ``rule_version``, ``learned_at``
``sw:site:{site}:rules``           hash    rule version (1, 2, …) → rule set JSON; never rewritten
``sw:site:{site}:feedback``        list    reader feedback JSON, oldest first
=================================  ======  =====================================================

Every write that touches several keys runs in one MULTI/EXEC transaction, so a crash leaves either the
whole write or none of it; a rule version is written before it becomes current, so a reader never sees
a half-written one.
"""
from __future__ import annotations

import json
import secrets
import time
import zlib
from dataclasses import dataclass
from typing import Any, Iterator

import redis

from .config import Settings
from .page import Page, PageError, site_of, site_of_host
from .redis_conn import connect

PREFIX = "sw:"
SITES = PREFIX + "sites"
ALIASES = PREFIX + "aliases"
CONTRIBUTOR_SALT = PREFIX + "contributor-salt"
#: Fields of feedback and rules are JSON; pages are compressed (they are large and rarely read).
_ZLIB_LEVEL = 6


def _key(site: str, kind: str) -> str:
    return f"{PREFIX}site:{site}:{kind}"


@dataclass(frozen=True)
class PutResult:
    """What storing a page did."""

    site: str
    key: str
    created: bool
    pages: int
    pages_since_learn: int


class Store:
    """Pages, rules and feedback in Redis. Thread-safe as redis-py's client is."""

    def __init__(self, client: redis.Redis, max_pages_per_site: int = 500) -> None:
        self.redis = client
        self.max_pages_per_site = max_pages_per_site
        self._salt: str | None = None

    # -- pages ---------------------------------------------------------------------------------

    def put_page(self, page: Page, contributor: str | None = None) -> PutResult:
        """Store a page under its site; a page with the same key (canonical URL) is replaced.

        ``contributor`` names who uploaded it (see :func:`contributor_tag`); None means the operator, whose
        pages are trusted. Learning weighs contributors so that no single one outvotes the others.
        """
        site, key = self.site_key(page.url), page.key
        blob = zlib.compress(json.dumps(page.to_dict(), ensure_ascii=False).encode("utf-8"), _ZLIB_LEVEL)
        now = time.time()
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(_key(site, "pages"), key, blob)
            if contributor is None:
                pipe.hdel(_key(site, "contributors"), key)
            else:
                pipe.hset(_key(site, "contributors"), key, contributor)
            pipe.zadd(_key(site, "order"), {key: now})
            pipe.zadd(SITES, {site: now})
            pipe.hincrby(_key(site, "meta"), "pages_since_learn", 1)
            pipe.hlen(_key(site, "pages"))
            created, _, _, _, since_learn, count = pipe.execute()
        if count > self.max_pages_per_site:
            count = self._trim(site)
        return PutResult(site, key, bool(created), count, int(since_learn))

    def _trim(self, site: str) -> int:
        """Drop the oldest pages beyond the cap; returns the count left."""
        excess = self.redis.zrange(_key(site, "order"), 0, -(self.max_pages_per_site + 1))
        if excess:
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.hdel(_key(site, "pages"), *excess)
                pipe.hdel(_key(site, "contributors"), *excess)
                pipe.zrem(_key(site, "order"), *excess)
                pipe.execute()
        return int(self.redis.hlen(_key(site, "pages")))

    def get_page(self, site: str, key: str) -> Page | None:
        blob = self.redis.hget(_key(site, "pages"), key)
        return _decode_page(blob) if blob is not None else None

    def page_keys(self, site: str) -> list[str]:
        """Keys of a site's pages, oldest first."""
        return [k.decode() for k in self.redis.zrange(_key(site, "order"), 0, -1)]

    def pages(self, site: str) -> Iterator[Page]:
        """A site's pages, oldest first (read in batches, so large sites do not fill memory at once)."""
        keys = self.page_keys(site)
        for start in range(0, len(keys), 100):
            batch = keys[start : start + 100]
            for blob in self.redis.hmget(_key(site, "pages"), batch):
                if blob is not None:
                    yield _decode_page(blob)

    def page_count(self, site: str) -> int:
        return int(self.redis.hlen(_key(site, "pages")))

    def contributor_salt(self) -> str:
        """The deployment's salt for contributor tags: made on first use, the same for every process
        (read once per process: it never changes)."""
        if self._salt is None:
            self.redis.set(CONTRIBUTOR_SALT, secrets.token_hex(16), nx=True)
            self._salt = self.redis.get(CONTRIBUTOR_SALT).decode()
        return self._salt

    def contributors(self, site: str) -> dict[str, str]:
        """Page key → contributor tag, for the pages an outside client uploaded."""
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(_key(site, "contributors")).items()}

    def delete_page(self, site: str, key: str) -> bool:
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(_key(site, "pages"), key)
            pipe.hdel(_key(site, "contributors"), key)
            pipe.zrem(_key(site, "order"), key)
            removed, _, _ = pipe.execute()
        return bool(removed)

    # -- sites ---------------------------------------------------------------------------------

    def site_key(self, url_or_host: str) -> str:
        """The site a URL or host belongs to here: its registrable domain (``sitewise.page.site_of``),
        or the site an administrator joined that domain to (:meth:`put_alias`). Every page, rule set and
        feedback mark of ``news.bbc.co.uk``, ``www.bbc.co.uk`` and ``bbc.co.uk`` is under one key."""
        domain = site_of(url_or_host) if "://" in url_or_host else site_of_host(url_or_host)
        joined = self.redis.hget(ALIASES, domain)
        return joined.decode() if joined is not None else domain

    def aliases(self) -> dict[str, str]:
        """Registrable domain → the site an administrator joined it to."""
        return {k.decode(): v.decode() for k, v in self.redis.hgetall(ALIASES).items()}

    def put_alias(self, host: str, site: str) -> tuple[str, str, int]:
        """Join ``host``'s registrable domain to ``site`` (a sister domain: ``foxbusiness.com`` to
        ``foxnews.com``); returns (domain, site, pages moved). The domain's stored pages (with their
        contributors) and readers' feedback move to the site; its own rules go: the site is learned anew
        from all its pages. Aliases stay one step deep: one that pointed at ``host``'s domain now points
        at ``site``. Raises ValueError when the two are one site already. Interrupted, it can be run
        again: a page moved twice is stored once."""
        domain = site_of_host(host)
        site = self.site_key(site)
        if domain == site:
            raise ValueError(f"{host} is part of {site} already")
        contributors = self.contributors(domain)
        pending = [(page, contributors.get(page.key)) for page in self.pages(domain)]
        followers = [name for name, target in self.aliases().items() if target == domain]
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(ALIASES, domain, site)
            for name in followers:
                pipe.hset(ALIASES, name, site)
            pipe.execute()
        for page, contributor in pending:
            self.put_page(page, contributor)
        marks = self.feedback(domain)
        with self.redis.pipeline(transaction=True) as pipe:
            if marks:
                pipe.rpush(_key(site, "feedback"), *(json.dumps(mark, ensure_ascii=False) for mark in marks))
            pipe.delete(_key(domain, "feedback"))
            pipe.execute()
        self.delete_site(domain)
        return domain, site, len(pending)

    def delete_alias(self, host: str) -> bool:
        """Part ``host``'s registrable domain from the site it was joined to (pages stay with that site)."""
        return bool(self.redis.hdel(ALIASES, site_of_host(host)))

    def sites(self) -> list[str]:
        """Known sites, most recently updated first."""
        return [s.decode() for s in self.redis.zrevrange(SITES, 0, -1)]

    def site_info(self, site: str) -> dict[str, Any]:
        """What is known of a site: page count, current rule version and when it was learned."""
        meta = {k.decode(): v.decode() for k, v in self.redis.hgetall(_key(site, "meta")).items()}
        version = int(meta.get("rule_version", 0))
        rules = self.rules(site, version) if version else None
        return {
            "site": site,
            "pages": self.page_count(site),
            "pages_since_learn": int(meta.get("pages_since_learn", 0)),
            "learned": bool(version),
            "rule_version": version or None,
            "rule_versions": self.rule_versions(site),
            "learned_at": rules.get("learned_at") if rules else None,
            "confidence": rules.get("confidence") if rules else None,
            "feedback": int(self.redis.llen(_key(site, "feedback"))),
            "contributors": len(set(self.redis.hvals(_key(site, "contributors")))),
        }

    def delete_site(self, site: str) -> bool:
        kinds = ("pages", "order", "contributors", "meta", "rules", "feedback")
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(SITES, site)
            pipe.delete(*(_key(site, kind) for kind in kinds))
            removed, _ = pipe.execute()
        return bool(removed)

    # -- rules ---------------------------------------------------------------------------------

    def put_rules(self, site: str, rules: dict[str, Any], pages_learned_from: int | None = None) -> int:
        """Store a new rule version and make it current; returns its version number.

        The version is fixed inside the transaction (WATCH on the meta hash), so two workers finishing at
        once get different versions and the later one wins cleanly. ``pages_since_learn`` drops by the
        number of pages the rules were learned from seen since the last learn.
        """
        meta_key = _key(site, "meta")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(meta_key)
                    version = int(pipe.hget(meta_key, "rule_version") or 0) + 1
                    body = dict(rules, site=site, version=version)
                    pipe.multi()
                    pipe.hset(_key(site, "rules"), str(version), json.dumps(body, ensure_ascii=False))
                    pipe.hset(meta_key, mapping={"rule_version": version, "learned_at": time.time()})
                    pipe.hset(meta_key, "pages_since_learn", 0)
                    pipe.execute()
                    return version
                except redis.WatchError:
                    continue

    def rules(self, site: str, version: int | None = None) -> dict[str, Any] | None:
        """A rule set: the current one, or a given version; None when there is none."""
        if version is None:
            current = self.redis.hget(_key(site, "meta"), "rule_version")
            if not current:
                return None
            version = int(current)
        body = self.redis.hget(_key(site, "rules"), str(version))
        return json.loads(body) if body else None

    def rules_stamp(self, site: str) -> tuple[int, str] | None:
        """The current rule version and when it became current, in one round trip (None: not learned).
        Versions are never rewritten, so a reader holding this version's body may re-use it."""
        version, learned_at = self.redis.hmget(_key(site, "meta"), "rule_version", "learned_at")
        if not version:
            return None
        return int(version), (learned_at or b"").decode()

    def rule_versions(self, site: str) -> list[int]:
        return sorted(int(v) for v in self.redis.hkeys(_key(site, "rules")))

    # -- feedback ------------------------------------------------------------------------------

    def add_feedback(self, site: str, feedback: dict[str, Any]) -> int:
        """Append a reader's mark; returns how many the site has."""
        return int(self.redis.rpush(_key(site, "feedback"), json.dumps(feedback, ensure_ascii=False)))

    def feedback(self, site: str) -> list[dict[str, Any]]:
        return [json.loads(item) for item in self.redis.lrange(_key(site, "feedback"), 0, -1)]


def _decode_page(blob: bytes) -> Page:
    try:
        return Page.from_dict(json.loads(zlib.decompress(blob)))
    except (zlib.error, json.JSONDecodeError) as exc:
        raise PageError("(stored page)", f"corrupt record: {exc}") from None


def open_store(settings: Settings | None = None) -> Store:
    """The store the configuration names (``REDIS_URL`` or the embedded Redis in the data directory)."""
    settings = settings or Settings.from_env()
    return Store(connect(settings.redis_url, settings.data_dir), settings.max_pages_per_site)
