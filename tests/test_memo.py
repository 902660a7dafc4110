"""Caches bounded in bytes (``core.memo``): eviction by size, least recently used first; the plan cache's size
bound (``core.plan.plan_bytes``) is an upper bound of what a plan holds (tracemalloc), from 128 to 131,072 GPUs
and for every topology."""

from __future__ import annotations

import gc
import threading
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import plan as plan_module
from core.catalog import load_catalog
from core.design import Design
from core.memo import BoundedCache, bounded
from core.plan import plan_bytes


def test_entries_go_least_recently_used_first_by_size():
    cache = BoundedCache(100, sizeof=len)
    for key in "abc":
        cache.get(key, lambda k=key: k * 30)  # 30 bytes each
    cache.get("a", lambda: pytest.fail("a is cached"))  # a is now the most recent
    cache.get("d", lambda: "d" * 30)  # 120 > 100: b goes
    assert cache.bytes == 90 and len(cache) == 3
    made = []
    cache.get("b", lambda: made.append(1) or "b" * 30)
    assert made == [1]  # b was dropped
    cache.get("huge", lambda: "x" * 101)  # larger than the budget: returned, not kept
    assert "huge" not in dict(cache._entries) and cache.bytes <= 100


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 60)), max_size=80), st.integers(1, 200),
       st.integers(1, 10))
def test_the_budget_and_the_count_always_hold(requests, budget, entries):
    cache = BoundedCache(budget, sizeof=len, max_entries=entries)
    for key, size in requests:
        value = cache.get(key, lambda s=size: "v" * s)
        assert len(value) in (size, len(cache._entries.get(key, ("",))[0]))
        assert cache.bytes <= budget and len(cache) <= entries
        assert cache.bytes == sum(s for _v, s in cache._entries.values())


def test_threads_share_one_cache():
    calls = []
    f = bounded(1 << 20, sizeof=lambda v: 8)(lambda x: calls.append(x) or x * 2)
    threads = [threading.Thread(target=lambda: [f(i % 10) for i in range(200)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert f.cache.bytes == 80 and len(f.cache) == 10 and len(calls) >= 10


@pytest.mark.parametrize("design", [
    Design(gpu="H100", nodes=16), Design(gpu="H100", nodes=2048), Design(gpu="H100", nodes=8192),
    Design(gpu="H100", nodes=16384, fabric="ethernet"), Design(gpu="GB200-NVL72", gpus=72 * 1800, fabric="ethernet"),
    Design(gpu="H100", nodes=4096, topology="top-of-rack"), Design(gpu="H100", nodes=2048, topology="rail-only"),
    Design(gpu="H100", nodes=8192, storage="ethernet", grow_to=16384, fabric="ethernet"),
], ids=lambda d: f"{d.gpu}-{d.nodes or d.gpus}-{d.topology}")
def test_a_plans_size_bound_holds(design):
    catalog = load_catalog()
    plan_module._plan(design, catalog)  # warm the catalog's and the engine's own caches
    gc.collect()
    tracemalloc.start()
    try:
        p = plan_module._plan(design, catalog)
        gc.collect()
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held <= plan_bytes(p) <= 8 * held + (1 << 20), (held, plan_bytes(p))


def test_the_plan_cache_is_bounded_in_bytes(monkeypatch):
    cache = plan_module._plan_cached_key.cache
    assert cache.max_bytes == plan_module.PLAN_CACHE_BYTES > 0
    monkeypatch.setattr(cache, "max_bytes", 3 * plan_module.PLAN_BASE_BYTES + 64 * plan_module.PLAN_BYTES_PER_GPU * 8)
    cache.clear()
    for nodes in range(1, 9):
        plan_module.plan(Design(gpu="H100", nodes=nodes))
        assert cache.bytes <= cache.max_bytes
    assert len(cache) == 3  # each 1-8 node plan weighs its base and its GPUs
    cache.clear()


def test_a_bad_server_setting_falls_back(monkeypatch):
    from core.processes import env_int

    monkeypatch.setenv("FP_TEST_SETTING", "abc")
    assert env_int("FP_TEST_SETTING", 96, 0, 100) == 96
    monkeypatch.setenv("FP_TEST_SETTING", "5000")
    assert env_int("FP_TEST_SETTING", 96, 0, 100) == 100
