"""Child processes that end with their parent: ``stop_with_parent`` runs in a child between fork and exec
(``subprocess.Popen(preexec_fn=stop_with_parent)``) and asks the kernel for SIGTERM when the parent dies.

``sitewise up``'s children use it, so a supervisor that is killed leaves nothing running: an embedded
redis-server left behind would share its files with the next run's (two servers appending to one
append-only file).
"""
from __future__ import annotations

import ctypes
import signal
import sys

#: Linux ``prctl`` option that delivers a signal to a child when its parent dies.
_PR_SET_PDEATHSIG = 1
#: libc, loaded before any fork: the child between fork and exec must not load libraries (another thread,
#: such as ``sitewise demo``'s, may hold the loader's lock at the moment of the fork).
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def stop_with_parent() -> None:
    """In the child before exec: ask the kernel for SIGTERM when the parent dies (Linux only; elsewhere a
    no-op)."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
