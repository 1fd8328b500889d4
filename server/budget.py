"""The global storage budget: uploads and marks are refused with 507 once Redis holds this much.

Per-client limits (``sitewise.server.ratelimit``) bound what one address stores; this bounds what all of them
store together, however many addresses an attacker holds. The budget is ``Settings.storage_budget_bytes``,
at most :data:`MAXMEMORY_SHARE` of Redis's own ``maxmemory`` when it has one (so the refusal is ours,
clear and early, not Redis's out-of-memory error halfway through a write).
"""
from __future__ import annotations

import threading
import time

from sitewise.store import Store

from .errors import ApiError

#: Redis's memory use is read at most this often per process (one INFO call; uploads come by the hundred).
CHECK_INTERVAL_S = 1.0
#: Leave Redis this share of its maxmemory for queues, limits and rules.
MAXMEMORY_SHARE = 0.9
#: Clients are told to come back after this long (an operator must free or add space first).
RETRY_AFTER_S = 3600


class StorageBudget:
    """``check()`` raises 507 while Redis holds more than the budget."""

    def __init__(self, store: Store, budget_bytes: int) -> None:
        self.store = store
        self.budget_bytes = budget_bytes
        self._checked_at = float("-inf")
        self._used = self._limit = 0
        self._lock = threading.Lock()

    def usage(self) -> tuple[int, int]:
        """Bytes used and the budget in force (0: no budget), read at most every CHECK_INTERVAL_S."""
        with self._lock:
            if time.monotonic() - self._checked_at >= CHECK_INTERVAL_S:
                used, maxmemory = self.store.storage_used()
                limits = [b for b in (self.budget_bytes, int(maxmemory * MAXMEMORY_SHARE)) if b > 0]
                self._used, self._limit = used, min(limits, default=0)
                self._checked_at = time.monotonic()
            return self._used, self._limit

    def check(self) -> None:
        used, limit = self.usage()
        if limit and used >= limit:
            raise ApiError(
                507, "storage_full",
                f"the server's storage budget is used up ({used} of {limit} bytes); nothing was stored",
                headers={"Retry-After": str(RETRY_AFTER_S)}, used_bytes=used, budget_bytes=limit,
            )
