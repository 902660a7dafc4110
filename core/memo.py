"""Caches bounded in bytes: a least-recently-used cache whose entries each have a size, and which drops the
least recently used entries while their total exceeds its budget.

``functools.lru_cache`` bounds the number of entries, and an entry of a 131,072-GPU design weighs a hundred
times one of 1,024 GPUs, so a count says nothing about memory. Here each entry's size [bytes] comes from a
``sizeof`` function given with the cache: measured, or an upper bound checked by a test (the plan cache's,
``core.plan.plan_bytes``, by ``tests/test_memo.py`` against ``tracemalloc``).

Thread-safe: the value is made outside the lock (two threads asking the same new key may both make it; the
second result is kept), so one slow entry never blocks other keys.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class BoundedCache:
    """Least recently used first out, by total size.

    Parameters
    ----------
    max_bytes : int
        Budget [bytes] for the sizes of the entries kept; an entry larger than the budget is not kept.
    sizeof : callable
        ``sizeof(value) -> int``, the entry's size [bytes].
    max_entries : int
        Also at most this many entries (an entry's size may be tiny).
    """

    def __init__(self, max_bytes: int, sizeof: Callable[[Any], int], max_entries: int = 1 << 16):
        self.max_bytes, self.sizeof, self.max_entries = int(max_bytes), sizeof, int(max_entries)
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = 0

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value of ``key``, made by ``make()`` (and kept, within the budget) when it is not cached."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                self.hits += 1
                return entry[0]
            self.misses += 1
        value = make()
        size = max(0, int(self.sizeof(value)))
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if size <= self.max_bytes:
                self._entries[key] = (value, size)
                self.bytes += size
                while self.bytes > self.max_bytes or len(self._entries) > self.max_entries:
                    _key, (_value, dropped) = self._entries.popitem(last=False)
                    self.bytes -= dropped
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0

    def info(self) -> dict:
        """Entries, bytes kept, the budget, hits and misses."""
        return {"entries": len(self._entries), "bytes": self.bytes, "max_bytes": self.max_bytes, "hits": self.hits,
                "misses": self.misses}


def bounded(max_bytes: int, sizeof: Callable[[Any], int], max_entries: int = 1 << 16):
    """Decorator: cache a function of hashable positional arguments in a ``BoundedCache`` (``fn.cache``)."""
    def wrap(fn):
        cache = BoundedCache(max_bytes, sizeof, max_entries)

        @functools.wraps(fn)
        def cached(*args):
            return cache.get(args, lambda: fn(*args))

        cached.cache = cache
        cached.cache_clear = cache.clear
        return cached

    return wrap
