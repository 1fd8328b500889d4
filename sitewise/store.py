"""The store: pages per site, versioned rules and reader feedback, in Redis.

Key layout (every key starts with ``sw:``; ``{site}`` is a site key as given by :meth:`Store.site_key`:
a registrable domain, ``sitewise.page.site_of``, or the site an administrator's alias joins it to):

=================================  ======  =====================================================
key                                type    holds
=================================  ======  =====================================================
``sw:sites``                       zset    site → time of its last page upload (unix seconds)
``sw:contributor-salt``            string  random salt of contributor tags (made once)
``sw:aliases``                     hash    registrable domain → the site it is part of (admin only)
``sw:site:{site}:pages``           hash    page key (canonical URL, else URL) → zlib(page JSON, its styles
                                           as a table: ``Page.to_dict(style_table=True)``)
``sw:site:{site}:order``           zset    page key → time stored; beyond the cap the oldest pages that
                                           did not teach the current rules go first
``sw:site:{site}:contributors``    hash    page key → who uploaded it (a salted hash of the client), its
                                           owner: nobody else's upload replaces it; absent for pages
                                           the operator stored (CLI, admin token)
``sw:site:{site}:taught``          set     keys of pages the current rules were learned from (kept)
``sw:site:{site}:meta``            hash    ``pages_since_learn``, ``rule_version``, ``learned_at``,
                                           ``support`` (JSON: who the current rules fit), ``generation``
                                           (this life of the site: see :meth:`Store.generation`)
``sw:site:{site}:rules``           hash    rule version (1, 2, …) → rule set JSON; never rewritten
``sw:site:{site}:held``            hash    a rule version held for review: ``rules``, ``reason``,
                                           ``held_at``, ``support``
``sw:site:{site}:feedback``        list    reader feedback JSON, oldest first, the newest N kept
``sw:site:{site}:learning``        string  who is learning the site now (:meth:`Store.take_learn_lock`)
=================================  ======  =====================================================

The learning queue (``sitewise.worker.queue``) keeps two keys of its own per site, named here because
deleting a site or a page must remove them with the rest (the library never imports the worker):
``sitewise:learn-pending:{site}`` (string: the id of the site's queued learn job) and
``sitewise:unmatched:{site}`` (set: keys of pages the site's rules did not fit).

Every write that touches several keys runs in one MULTI/EXEC transaction, so a crash leaves either the
whole write or none of it; a rule version is written before it becomes current, so a reader never sees
a half-written one. What a learn writes (rules, the pages they were learned from, a held version) is
written only if the site it started on is still there (:meth:`Store.generation`): a site deleted while it
is being learned stays deleted.
"""
from __future__ import annotations

import json
import logging
import secrets
import time
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator, TypeVar

import redis

from .config import Settings
from .errors import SitewiseError
from .page import Page, PageError, expand_style_table, site_of, site_of_host
from .redis_conn import connect

_Written = TypeVar("_Written")
log = logging.getLogger(__name__)

PREFIX = "sw:"
SITES = PREFIX + "sites"
ALIASES = PREFIX + "aliases"
CONTRIBUTOR_SALT = PREFIX + "contributor-salt"
#: Fields of feedback and rules are JSON; pages are compressed (they are large and rarely read).
_ZLIB_LEVEL = 6
#: Marks kept per site (the newest): 10,000 marks made the dashboard 10x and learning 14x slower, and
#: marks count by distinct contributor, so a few hundred readers' worth is plenty.
MAX_FEEDBACK_PER_SITE = 1000
#: At most this share of a site's page cap is kept as "taught the current rules": the rest of the cap
#: stays open for new pages, which must be able to reach the next learn.
TAUGHT_SHARE_OF_CAP = 0.5
_SITE_KINDS = ("pages", "order", "contributors", "taught", "meta", "rules", "held", "feedback")
#: The learning queue's per-site keys (see the module's docstring).
LEARN_PENDING_PREFIX = "sitewise:learn-pending:"
UNMATCHED_PREFIX = "sitewise:unmatched:"
#: The meta field naming a site's current life: a random token, made when a learn first asks for it.
GENERATION_FIELD = "generation"
#: Random bytes of a generation token: enough that a deleted site's token never comes back.
_GENERATION_BYTES = 8
#: A learn holds its site's lock at most this long, so a lock left by a learn whose process died frees
#: the site on its own (a retry of the same job takes it over at once: :meth:`Store.take_learn_lock`).
#: Learning a site of 500 pages takes seconds; a learn that outlasts the lock only risks what the lock
#: saves (two learns of one site at once store two versions; every write is still a transaction).
LEARN_LOCK_TTL_S = 300
#: How long a learn waits for another learn of its site to finish: the lock's whole life, so it gives up
#: only on a lock left by a dead process, and a worker's job (600 s) outlasts the wait and its own learn.
LEARN_LOCK_WAIT_S = LEARN_LOCK_TTL_S
#: How often a waiting learn looks at the lock again (a learn takes seconds; Redis is not to be flooded).
_LEARN_LOCK_POLL_S = 0.1

#: Take a site's learn lock if it is free or already this owner's (left by an attempt of the same job that
#: died). KEYS: the lock. ARGV: owner, time-to-live (s). Returns 1 when taken.
_TAKE_LOCK = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""

#: Free a site's learn lock if this owner holds it (one that outlived its time-to-live may be another's).
_FREE_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

#: A site's generation, made if it has none, without bringing a deleted site back (no meta hash: no site).
#: KEYS: meta. ARGV: field, a new token. Returns the generation, or nil when the site does not exist.
_GENERATION = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""

#: Store a page unless another contributor owns its key (one round trip, atomic). KEYS: pages,
#: contributors, order, sites, meta. ARGV: page key, blob, contributor ("" = the operator), time, site.
#: Returns {stored (0/1), created (0/1), page count, pages since learn}. Only a new key counts towards
#: the next learn: a page uploaded again (a reader's bookmarklet on the same article) replaces its copy,
#: and re-learning on it would learn from the same pages.
_PUT_PAGE = """
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1])
if exists == 1 and ARGV[3] ~= '' and redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[3] then
  return {0, 0, redis.call('HLEN', KEYS[1]), tonumber(redis.call('HGET', KEYS[5], 'pages_since_learn') or '0')}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[3] == '' then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[3]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[5])
local since
if exists == 0 then
  since = redis.call('HINCRBY', KEYS[5], 'pages_since_learn', 1)
else
  since = tonumber(redis.call('HGET', KEYS[5], 'pages_since_learn') or '0')
end
return {1, 1 - exists, redis.call('HLEN', KEYS[1]), since}
"""


def _key(site: str, kind: str) -> str:
    return f"{PREFIX}site:{site}:{kind}"


def learn_pending_key(site: str) -> str:
    """The learning queue's mark of a site's queued learn job (its value: the job id)."""
    return LEARN_PENDING_PREFIX + site


def unmatched_key(site: str) -> str:
    """The learning queue's set of a site's pages its rules did not fit."""
    return UNMATCHED_PREFIX + site


class SiteGone(SitewiseError):
    """The site was deleted (and perhaps uploaded anew) since the write's generation was read: nothing
    was written."""

    def __init__(self, site: str) -> None:
        super().__init__(f"{site} was deleted since its learn started")
        self.site = site


@dataclass(frozen=True)
class PutResult:
    """What storing a page did."""

    site: str
    key: str
    created: bool
    pages: int
    pages_since_learn: int
    #: False when another contributor (or the operator) owns the key: their copy was kept, nothing stored.
    stored: bool = True
    #: Size of the stored record (compressed), what the page costs in Redis.
    bytes: int = 0


class Store:
    """Pages, rules and feedback in Redis. Thread-safe as redis-py's client is."""

    def __init__(self, client: redis.Redis, max_pages_per_site: int = 500) -> None:
        self.redis = client
        self.max_pages_per_site = max_pages_per_site
        self._salt: str | None = None
        self._put_page = client.register_script(_PUT_PAGE)
        self._generation = client.register_script(_GENERATION)
        self._take_lock = client.register_script(_TAKE_LOCK)
        self._free_lock = client.register_script(_FREE_LOCK)

    # -- pages ---------------------------------------------------------------------------------

    def put_page(self, page: Page, contributor: str | None = None, now: float | None = None) -> PutResult:
        """Store a page under its site, owned by ``contributor``.

        ``contributor`` names who uploaded it (see :func:`contributor_tag`); None means the operator, whose
        pages are trusted and replace any copy. A contributor's upload replaces only its own copy of a key
        (canonical URL, else URL): when someone else's copy is stored, it is kept and nothing is stored
        (``PutResult.stored`` is False), so nobody can swap a page another reader taught the site.
        Learning weighs contributors so that no single one outvotes the others. ``now``: the time stored.
        """
        site, key = self.site_key(page.url), page.key
        record = page.to_dict(style_table=True)  # half the JSON to parse each time the page is read
        blob = zlib.compress(json.dumps(record, ensure_ascii=False).encode("utf-8"), _ZLIB_LEVEL)
        now = time.time() if now is None else now
        keys = [_key(site, kind) for kind in ("pages", "contributors", "order")] + [SITES, _key(site, "meta")]
        stored, created, count, since_learn = self._put_page(keys=keys, args=[key, blob, contributor or "", now, site])
        if count > self.max_pages_per_site:
            count = self._trim(site)
        return PutResult(site, key, bool(created), int(count), int(since_learn), bool(stored), len(blob) if stored else 0)

    def _trim(self, site: str) -> int:
        """Drop pages beyond the cap, the oldest first, but those that taught the current rules last (a
        flood of new pages cannot push out what the served rules were learned from); the count left."""
        order = self.redis.zrange(_key(site, "order"), 0, -1)
        surplus = len(order) - self.max_pages_per_site
        if surplus > 0:
            taught = self.redis.smembers(_key(site, "taught"))
            excess = ([k for k in order if k not in taught] + [k for k in order if k in taught])[:surplus]
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.hdel(_key(site, "pages"), *excess)
                pipe.hdel(_key(site, "contributors"), *excess)
                pipe.zrem(_key(site, "order"), *excess)
                pipe.execute()
        return int(self.redis.hlen(_key(site, "pages")))

    def get_page(self, site: str, key: str) -> Page | None:
        blob = self.page_record(site, key)
        return decode_page(blob) if blob is not None else None

    def page_record(self, site: str, key: str) -> bytes | None:
        """A stored page as stored (compressed; :func:`decode_page` reads it): a cheap identity for caches
        of what is derived from a page."""
        return self.redis.hget(_key(site, "pages"), key)

    def page_keys(self, site: str) -> list[str]:
        """Keys of a site's pages, oldest first."""
        return [k.decode() for k in self.redis.zrange(_key(site, "order"), 0, -1)]

    def pages(self, site: str, keys: list[str] | None = None) -> Iterator[Page]:
        """A site's pages, oldest first, or those of ``keys`` that are still stored (read in batches, so
        large sites do not fill memory at once). A record that cannot be read is passed over with a
        warning: one damaged record must not stop a site from being learned."""
        keys = self.page_keys(site) if keys is None else keys
        for start in range(0, len(keys), 100):
            batch = keys[start : start + 100]
            for key, blob in zip(batch, self.redis.hmget(_key(site, "pages"), batch)):
                if blob is None:
                    continue
                try:
                    page = decode_page(blob)
                except PageError as exc:
                    log.warning("stored page %s of %s cannot be read, passed over: %s", key, site, exc)
                    continue
                yield page

    def learn_snapshot(self, site: str) -> tuple[list[str], int]:
        """The keys of a site's pages, oldest first, and how many of them are new since the last learn,
        read at one instant: a learn that reads these pages passes the count to :meth:`put_rules` (or
        :meth:`learn_attempted`), and pages stored meanwhile still count towards the next learn."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrange(_key(site, "order"), 0, -1)
            pipe.hget(_key(site, "meta"), "pages_since_learn")
            keys, since = pipe.execute()
        return [k.decode() for k in keys], int(since or 0)

    def take_learn_lock(self, site: str, owner: str) -> bool:
        """Take the lock a learn of ``site`` holds, so that learns of one site run one after another: one
        queued while another runs then reads the pages and rules that one left. Waits up to
        :data:`LEARN_LOCK_WAIT_S` while another ``owner`` holds it; False when it is held still. A lock
        this owner holds already (an attempt of the same job that died) is taken over."""
        key, deadline = _key(site, "learning"), time.monotonic() + LEARN_LOCK_WAIT_S
        waited = False
        while not self._take_lock(keys=[key], args=[owner, LEARN_LOCK_TTL_S]):
            if not waited:  # (a learn of a site takes seconds: say why this one does not start)
                log.info("another learn of %s is running: waiting up to %g s for it", site, LEARN_LOCK_WAIT_S)
                waited = True
            if time.monotonic() >= deadline:
                return False
            time.sleep(_LEARN_LOCK_POLL_S)
        return True

    def free_learn_lock(self, site: str, owner: str) -> bool:
        """Free the lock :meth:`take_learn_lock` gave ``owner``; False when it had passed its time-to-live."""
        return bool(self._free_lock(keys=[_key(site, "learning")], args=[owner]))

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

    def page_times(self, site: str) -> dict[str, float]:
        """Page key → when it was stored (unix seconds)."""
        return {k.decode(): t for k, t in self.redis.zrange(_key(site, "order"), 0, -1, withscores=True)}

    def set_taught(self, site: str, keys: list[str]) -> None:
        """Record the pages the current rules were learned from (at most :data:`TAUGHT_SHARE_OF_CAP` of
        the cap, the first given first): the cap evicts them last. :meth:`put_rules` records them with the
        rules it stores."""
        with self.redis.pipeline(transaction=True) as pipe:
            self._queue_taught(pipe, site, keys)
            pipe.execute()

    def _queue_taught(self, pipe: redis.client.Pipeline, site: str, keys: list[str]) -> None:
        kept = keys[: int(self.max_pages_per_site * TAUGHT_SHARE_OF_CAP)]
        pipe.delete(_key(site, "taught"))
        if kept:
            pipe.sadd(_key(site, "taught"), *kept)

    def taught(self, site: str) -> set[str]:
        return {k.decode() for k in self.redis.smembers(_key(site, "taught"))}

    def delete_page(self, site: str, key: str) -> bool:
        """Delete a page and every mention of its key (the learning queue's unmatched pages too: a deleted
        page no longer counts towards a re-learn); False when the site had no such page."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hdel(_key(site, "pages"), key)
            pipe.hdel(_key(site, "contributors"), key)
            pipe.zrem(_key(site, "order"), key)
            pipe.srem(_key(site, "taught"), key)
            pipe.srem(unmatched_key(site), key)
            removed, *_ = pipe.execute()
        return bool(removed)

    def storage_used(self) -> tuple[int, int]:
        """Bytes Redis holds now and its ``maxmemory`` (0: none), for the storage budget."""
        memory = self.redis.info("memory")
        return int(memory.get("used_memory", 0)), int(memory.get("maxmemory", 0))

    # -- sites ---------------------------------------------------------------------------------

    def site_key(self, url_or_host: str) -> str:
        """The site a URL or host belongs to here: its registrable domain (``sitewise.page.site_of``),
        or the site an administrator joined that domain to (:meth:`put_alias`). Every page, rule set and
        feedback mark of ``news.bbc.co.uk``, ``www.bbc.co.uk`` and ``bbc.co.uk`` is under one key."""
        # (a host holds no "/": "//host/path", a URL without its scheme, is a URL)
        domain = site_of(url_or_host) if "/" in url_or_host else site_of_host(url_or_host)
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
        again: a page moved twice is stored once. A stored page that cannot be read is not moved (see
        :meth:`pages`)."""
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
        """What is known of a site: page count, current rule version and when it was learned, whether a
        learn of it runs now."""
        # One round trip for the counts and flags (every upload answers with them), one for the rules' body;
        # no MULTI: a full Redis refuses one, and these reads must still answer then.
        with self.redis.pipeline(transaction=False) as pipe:
            pipe.hgetall(_key(site, "meta"))
            pipe.hlen(_key(site, "pages"))
            pipe.hkeys(_key(site, "rules"))
            pipe.llen(_key(site, "feedback"))
            pipe.hvals(_key(site, "contributors"))
            pipe.exists(_key(site, "held"))
            pipe.exists(_key(site, "learning"))
            raw_meta, pages, versions, feedback, contributors, held, learning = pipe.execute()
        meta = {k.decode(): v.decode() for k, v in raw_meta.items()}
        version = int(meta.get("rule_version", 0))
        rules = self.rules(site, version) if version else None
        return {
            "site": site,
            "pages": int(pages),
            "pages_since_learn": int(meta.get("pages_since_learn", 0)),
            "learned": bool(version),
            "rule_version": version or None,
            "rule_versions": _version_numbers(versions),
            "learned_at": rules.get("learned_at") if rules else None,
            "confidence": rules.get("confidence") if rules else None,
            "feedback": int(feedback),
            "contributors": len(set(contributors)),
            "held_for_review": bool(held),
            "being_learned": bool(learning),
        }

    def delete_site(self, site: str) -> bool:
        """Delete everything about a site: pages, rules, feedback, its generation (a learn that started
        before cannot store: :meth:`generation`) and the learning queue's keys (its pending mark, its
        unmatched pages; the queued job itself is the queue's to cancel). False when it was not listed."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(SITES, site)
            pipe.delete(*(_key(site, kind) for kind in _SITE_KINDS), learn_pending_key(site), unmatched_key(site))
            removed, _ = pipe.execute()
        return bool(removed)

    def generation(self, site: str) -> str | None:
        """The site's current life, for a learn to write only to the site it read: a token made the first
        time it is asked for and deleted with the site, so a site deleted and uploaded anew has another.
        None when the site does not exist."""
        token = self._generation(keys=[_key(site, "meta")],
                                 args=[GENERATION_FIELD, secrets.token_hex(_GENERATION_BYTES)])
        return token.decode() if token is not None else None

    def _write_if_current(
        self, site: str, generation: str | None, write: Callable[[redis.client.Pipeline], _Written]
    ) -> _Written:
        """Run ``write`` as one transaction on ``site``, again when the site's meta hash changed meanwhile:
        ``write`` may read (the pipeline watches the meta hash), then calls ``pipe.multi()`` and queues its
        writes. With a ``generation``, raises :class:`SiteGone` and writes nothing unless the site is still
        in that life (deleting it deletes the meta hash, which ends the transaction)."""
        meta_key = _key(site, "meta")
        while True:
            with self.redis.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(meta_key)
                    if generation is not None and pipe.hget(meta_key, GENERATION_FIELD) != generation.encode():
                        raise SiteGone(site)
                    written = write(pipe)
                    pipe.execute()
                    return written
                except redis.WatchError:
                    continue

    # -- rules ---------------------------------------------------------------------------------

    def put_rules(
        self, site: str, rules: dict[str, Any], support: dict[str, Any] | None = None, *,
        taught: list[str] | None = None, generation: str | None = None, learned_new: int | None = None,
    ) -> int:
        """Store a new rule version and make it current; returns its version number.

        The version is fixed inside the transaction (WATCH on the meta hash), so two workers finishing at
        once get different versions and the later one wins cleanly. ``pages_since_learn`` drops by
        ``learned_new``, the new pages the learn read (:meth:`learn_snapshot`), so those stored while it
        ran still count; None starts it again at 0. ``support`` (``sitewise.trust.Support`` as a dict)
        says whose pages the rules fit; ``taught`` the keys of the pages they were learned from
        (:meth:`set_taught`), recorded in the same transaction. A learn passes the ``generation`` it read
        the pages in: :class:`SiteGone` when the site was deleted since, and nothing is stored.
        """
        meta_key = _key(site, "meta")

        def write(pipe: redis.client.Pipeline) -> int:
            version = int(pipe.hget(meta_key, "rule_version") or 0) + 1
            since = _since_after_learn(pipe, meta_key, learned_new)
            body = dict(rules, site=site, version=version)
            pipe.multi()
            pipe.hset(_key(site, "rules"), str(version), json.dumps(body, ensure_ascii=False))
            pipe.hset(meta_key, mapping={"rule_version": version, "learned_at": time.time(), "pages_since_learn": since,
                                         "support": json.dumps(dict(support or {}, version=version))})
            if taught is not None:
                self._queue_taught(pipe, site, taught)
            return version

        return self._write_if_current(site, generation, write)

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
        return _version_numbers(self.redis.hkeys(_key(site, "rules")))

    def rule_support(self, site: str) -> dict[str, Any] | None:
        """Whose pages the current rules fit, as :meth:`put_rules` recorded it (with its ``version``)."""
        raw = self.redis.hget(_key(site, "meta"), "support")
        return json.loads(raw) if raw else None

    def learned_at(self, site: str) -> float | None:
        """When the current rules became current (unix seconds), None when there are none."""
        raw = self.redis.hget(_key(site, "meta"), "learned_at")
        return float(raw) if raw else None

    def learn_attempted(self, site: str, generation: str | None = None, learned_new: int | None = None) -> None:
        """A learn ran and stored nothing (rejected, held, waiting): the pages it read no longer count as
        new, so a site whose rules are under attack is not re-learned on every upload. ``generation`` and
        ``learned_new``: as for :meth:`put_rules`."""
        meta_key = _key(site, "meta")

        def write(pipe: redis.client.Pipeline) -> None:
            since = _since_after_learn(pipe, meta_key, learned_new)
            pipe.multi()
            pipe.hset(meta_key, "pages_since_learn", since)

        self._write_if_current(site, generation, write)

    # -- rule versions held for review ----------------------------------------------------------------

    def hold_rules(
        self, site: str, rules: dict[str, Any], reason: str, support: dict[str, Any] | None = None, *,
        generation: str | None = None,
    ) -> None:
        """Keep a learned rule version aside for an administrator (the newest replaces an older one);
        the served rules do not change. ``generation``: as for :meth:`put_rules`."""

        def write(pipe: redis.client.Pipeline) -> None:
            pipe.multi()
            pipe.hset(_key(site, "held"), mapping={
                "rules": json.dumps(dict(rules, site=site), ensure_ascii=False),
                "reason": reason,
                "held_at": time.time(),
                "support": json.dumps(support or {}),
            })

        self._write_if_current(site, generation, write)

    def held_rules(self, site: str) -> dict[str, Any] | None:
        """The version held for review: ``rules``, ``reason``, ``held_at``, ``support``; None when none."""
        raw = {k.decode(): v.decode() for k, v in self.redis.hgetall(_key(site, "held")).items()}
        if "rules" not in raw:
            return None
        return {"rules": json.loads(raw["rules"]), "reason": raw.get("reason", ""),
                "held_at": float(raw.get("held_at", 0)), "support": json.loads(raw.get("support") or "{}")}

    def accept_held(self, site: str) -> int | None:
        """Make the held version current (an administrator's decision); its new version number, None when
        nothing is held."""
        generation = self.generation(site)
        held = self.held_rules(site) if generation is not None else None
        if held is None:
            return None
        try:
            # learned from no page now: the pages that came since the held learn still count towards the next
            version = self.put_rules(site, held["rules"], held["support"], generation=generation, learned_new=0)
        except SiteGone:  # deleted meanwhile: what was held went with it
            return None
        self.redis.delete(_key(site, "held"))
        return version

    def reject_held(self, site: str) -> bool:
        """Drop the held version; False when nothing was held."""
        return bool(self.redis.delete(_key(site, "held")))

    # -- feedback ------------------------------------------------------------------------------

    def add_feedback(self, site: str, feedback: dict[str, Any]) -> int:
        """Append a reader's mark, keeping the newest :data:`MAX_FEEDBACK_PER_SITE`; returns how many the
        site has."""
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.rpush(_key(site, "feedback"), json.dumps(feedback, ensure_ascii=False))
            pipe.ltrim(_key(site, "feedback"), -MAX_FEEDBACK_PER_SITE, -1)
            pipe.llen(_key(site, "feedback"))
            _, _, count = pipe.execute()
        return int(count)

    def feedback(self, site: str) -> list[dict[str, Any]]:
        return [json.loads(item) for item in self.redis.lrange(_key(site, "feedback"), 0, -1)]


def _version_numbers(fields: list[bytes]) -> list[int]:
    """A site's rule versions, in order, from the fields of its rules hash."""
    return sorted(int(v) for v in fields)


def _since_after_learn(pipe: redis.client.Pipeline, meta_key: str, learned_new: int | None) -> int:
    """``pages_since_learn`` once a learn that read ``learned_new`` of the new pages is done (read inside
    the transaction: an upload meanwhile makes it run again)."""
    if learned_new is None:
        return 0
    return max(0, int(pipe.hget(meta_key, "pages_since_learn") or 0) - learned_new)


def decode_page(blob: bytes) -> Page:
    try:
        return Page.from_dict(expand_style_table(json.loads(zlib.decompress(blob))))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PageError("(stored page)", f"corrupt record: {exc}") from None


def open_store(settings: Settings | None = None) -> Store:
    """The store the configuration names (``REDIS_URL`` or the embedded Redis in the data directory), its
    waits for Redis bounded by ``redis_timeout_seconds``."""
    settings = settings or Settings.from_env()
    connection = connect(settings.redis_url, settings.data_dir, settings.redis_timeout_seconds or None)
    return Store(connection, settings.max_pages_per_site)
