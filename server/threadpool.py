"""CPU-bound work off gevent's event loop.

The web server runs gevent workers (``sitewise.gunicorn_config``): one event loop per process serves every
connection, so a request that computes for a second (extracting a large page) would hold up every other
request of its process for that second. :func:`run_cpu_bound` runs such work in a native thread instead,
where the interpreter switches between it and the loop every few milliseconds, as it did between the
threads of a threaded server. Outside gevent (tests, other servers) it simply calls.

Only pure computation may go there: nothing that does I/O through gevent's patched sockets (Redis), which
belong to the loop's thread.
"""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: One native thread per process runs all the off-loop work, one job after another. Under gevent's
#: monkey-patching Python's import locks are gevent locks, and a gevent lock two native threads wait on
#: can miss its wake-up (gevent issue #2013): with gevent's shared pool, the first uploads after a start
#: were validated in several threads that all imported ``publicsuffixlist`` for the first time, and one
#: thread slept for good, its request never answered (5 of 70 starts with 4 concurrent uploads). The work
#: imports lazily (numpy, lxml, ...) when an input first needs it, so no warm-up at start covers it all.
CPU_THREADS = 1


def _gevent_patched() -> bool:
    monkey = sys.modules.get("gevent.monkey")  # imported by gunicorn's gevent worker, never by us
    return monkey is not None and monkey.is_module_patched("socket")


@functools.lru_cache(maxsize=1)
def _cpu_pool() -> Any:
    """The process's pool of :data:`CPU_THREADS`, made on first use: in the web process, after gunicorn's fork."""
    from gevent.threadpool import ThreadPool

    return ThreadPool(CPU_THREADS)


def run_cpu_bound(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)``, in the process's CPU thread when the server runs on gevent."""
    if not _gevent_patched():
        return func(*args, **kwargs)
    return _cpu_pool().apply(func, args, kwargs)
