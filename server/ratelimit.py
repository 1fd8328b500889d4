"""Per-client limits in Redis: a fixed-window counter per (limit name, client, window).

Fixed windows are the cheapest correct limiter (one INCR and one EXPIRE in a transaction) and every web
process shares them through Redis; a client can burst at most twice the limit across a window edge,
which is acceptable for a guard against floods.
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

    def hit(self, client_key: str, now: float | None = None) -> Verdict:
        if self.limit <= 0:
            return Verdict(True, 0, self.limit, 0)
        now = time.time() if now is None else now
        window = int(now // self.window_s)
        key = f"{PREFIX}{self.name}:{client_key}:{window}"
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, self.window_s * 2)
            count, _ = pipe.execute()
        retry_after = max(1, int((window + 1) * self.window_s - now))
        return Verdict(int(count) <= self.limit, int(count), self.limit, retry_after)

    def check(self, client_key: str, what: str) -> Verdict:
        """Count one hit; raise 429 (with ``Retry-After``) when the client is over the limit."""
        verdict = self.hit(client_key)
        if not verdict.allowed:
            raise ApiError(
                429,
                "rate_limited",
                f"too many {what}: at most {verdict.limit} per {self.window_s} s; retry in {verdict.retry_after} s",
                headers={"Retry-After": str(verdict.retry_after)},
                limit=verdict.limit,
                retry_after=verdict.retry_after,
            )
        return verdict
