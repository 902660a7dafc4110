"""What the benchmark scripts share: time a call several times (not a benchmark itself)."""

from __future__ import annotations

import statistics
import time


def timed(fn, repeat: int = 20) -> tuple[float, float]:
    """(median, max) wall time of ``fn()`` over ``repeat`` calls [ms]."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), max(times)
