"""Rules for the processes the engine and the app run: how many CPUs this process may use, how a worker
(optimizer search workers, the app's job workers) dies with its parent, and a server setting read from the
environment (``FP_JOB_WORKERS``, ``FP_PLAN_CACHE_MB``, ...)."""

from __future__ import annotations

import os
import signal
import sys


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, else the machine's count), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - no affinity call (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def die_with_parent(parent: int | None = None) -> None:
    """Ask Linux to kill this process when its parent dies (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so killing the
    parent, even with ``kill -9``, leaves no orphans computing; elsewhere nothing. With ``parent`` (the parent's
    pid as the parent saw it), exit at once if the parent already died before the request was made."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the parent check below still holds
            pass
    if parent is not None and os.getppid() != parent:  # nobody will read this process's work
        os._exit(1)


def env_int(name: str, default: int, low: int, high: int) -> int:
    """The whole number in the environment variable ``name``, kept within ``low``..``high``; ``default`` when it
    is unset or not a whole number (a bad setting never stops a server)."""
    try:
        value = int(os.environ.get(name, default))
    except ValueError:
        value = default
    return max(low, min(high, value))
