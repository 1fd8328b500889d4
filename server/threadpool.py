"""CPU-bound work off gevent's event loop.

The web server runs gevent workers (``sitewise.gunicorn_config``): one event loop per process serves every
connection, so a request that computes for a second (extracting a large page) would hold up every other
request of its process for that second. :func:`run_cpu_bound` runs such work in gevent's native thread
pool instead, where the interpreter switches between it and the loop every few milliseconds, as it did
between the threads of a threaded server. Outside gevent (tests, other servers) it simply calls.

Only pure computation may go there: nothing that does I/O through gevent's patched sockets (Redis), which
belong to the loop's thread.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def _gevent_patched() -> bool:
    monkey = sys.modules.get("gevent.monkey")  # imported by gunicorn's gevent worker, never by us
    return monkey is not None and monkey.is_module_patched("socket")


def run_cpu_bound(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)``, in gevent's thread pool when the server runs on gevent."""
    if not _gevent_patched():
        return func(*args, **kwargs)
    import gevent

    return gevent.get_hub().threadpool.apply(func, args, kwargs)
