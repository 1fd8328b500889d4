"""Per-client limits in Redis: a fixed-window counter per (limit name, client, window).

Fixed windows are the cheapest correct limiter (one INCR and one EXPIRE in a transaction) and every web
process shares them through Redis; a client can burst at most twice the limit across a window edge,
which is acceptable for a guard against floods.

A client is named by its pseudonym (:func:`sitewise.server.services.client_key`), never its address: the
counters live in Redis for two windows, and so in its append-only file and backups.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import redis

from .errors import ApiError

PREFIX = "sw:limit:"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    count: int
    limit: int
    retry_after: int


class FixedWindowLimiter:
    """At most ``limit`` hits per ``window_s`` seconds for each client key; ``limit <= 0`` disables it."""

    def __init__(self, client: redis.Redis, name: str, limit: int, window_s: int) -> None:
        self.redis = client
        self.name = name
        self.limit = limit
        self.window_s = window_s

    def _window(self, client_key: str, now: float) -> tuple[str, int]:
        """The counter's key for the window ``now`` falls in, and seconds until the window ends."""
        window = int(now // self.window_s)
        return f"{PREFIX}{self.name}:{client_key}:{window}", max(1, int((window + 1) * self.window_s - now))

    def hit(self, client_key: str, now: float | None = None, amount: int = 1) -> Verdict:
        """Count ``amount`` (one request, or bytes) against the client's window."""
        if self.limit <= 0:
            return Verdict(True, 0, self.limit, 0)
        key, retry_after = self._window(client_key, time.time() if now is None else now)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.incrby(key, amount)
            pipe.expire(key, self.window_s * 2)
            count, _ = pipe.execute()
        return Verdict(int(count) <= self.limit, int(count), self.limit, retry_after)

    def check(self, client_key: str, what: str) -> Verdict:
        """Count one hit; raise 429 (with ``Retry-After``) when the client is over the limit."""
        verdict = self.hit(client_key)
        if not verdict.allowed:
            raise self._refusal(verdict, what)
        return verdict

    def check_room(self, client_key: str, what: str) -> None:
        """Raise 429 when the client has already used its whole allowance. Counts nothing: the caller
        adds the amount with :meth:`hit` once it knows it (e.g. the bytes a page took to store)."""
        if self.limit <= 0:
            return
        key, retry_after = self._window(client_key, time.time())
        used = int(self.redis.get(key) or 0)
        if used >= self.limit:
            raise self._refusal(Verdict(False, used, self.limit, retry_after), what)

    def _refusal(self, verdict: Verdict, what: str) -> ApiError:
        return ApiError(
            429,
            "rate_limited",
            f"too many {what}: at most {verdict.limit} per {self.window_s} s; retry in {verdict.retry_after} s",
            headers={"Retry-After": str(verdict.retry_after)},
            limit=verdict.limit,
            retry_after=verdict.retry_after,
        )
