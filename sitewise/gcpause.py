"""Python's cyclic garbage collector held off while one bounded piece of work runs.

Learning a site and extracting a page allocate many container objects and make next to no reference
cycles: their memory is freed by reference counting, but the allocations alone trigger collections that
walk the objects still alive, again and again as they grow. Pausing the collector for the work and
resuming it after (only if it was on) saves that walk; any cycles made are collected at the next
collection after the work.
"""
from __future__ import annotations

import functools
import gc
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def cyclic_gc_paused(function: Callable[..., T]) -> Callable[..., T]:
    """Run ``function`` with the cyclic collector paused (resumed after, if it was on).

    Threads share the collector's switch: a call that finds it already off leaves it alone, so the
    first of overlapping calls to finish turns it back on and the others then run with it on."""

    @functools.wraps(function)
    def paused(*args: Any, **kwargs: Any) -> T:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return paused
