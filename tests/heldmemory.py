"""What a call leaves in memory, counted from its own allocations only.

``tracemalloc.get_traced_memory`` counts every thread's allocations: a server's periodic memory log or a test
server's worker threads allocate while a measurement runs and made size-bound tests fail at random. ``held_by``
keeps the traces whose stack passes through its own call of ``fn``.
"""
from __future__ import annotations

import gc
import sys
import tracemalloc
from typing import Any, Callable


def held_by(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``(fn(), bytes)``: the result and the memory [bytes] still held, after a collection, by what ``fn``
    allocated on this thread (other threads' allocations are left out)."""
    gc.collect()
    tracemalloc.start(128)
    try:
        line = sys._getframe().f_lineno + 1
        result = fn()
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    mine = snapshot.filter_traces([tracemalloc.Filter(True, __file__, line, all_frames=True)])
    return result, sum(stat.size for stat in mine.statistics("filename"))
