"""Caches bounded in bytes (``core.memo``): eviction by size, least recently used first; the plan cache's size
bound (``core.plan.plan_bytes``) is an upper bound of what a plan holds (tracemalloc), from 128 to 131,072 GPUs
and for every topology."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import plan as plan_module
from core.catalog import load_catalog
from core.design import Design
from core.memo import BoundedCache, bounded
from core.plan import plan_bytes
from tests.heldmemory import held_by


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

    def planned():
        p = plan_module._plan(design, catalog)
        p.layout.racks  # a cached plan's racks are built once a drawing or export reads them: bound that
        return p

    p, held = held_by(planned)
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


# --- the engine's stage caches (core.memo.stage) -----------------------------------------------------------------

def _public_functions():
    """(module path, function name, parameter names) of every public function and method of ``core/``."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "core"
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                a = node.args
                names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
                names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
                yield str(path.relative_to(root.parent)), node.name, names


def test_no_public_engine_function_takes_a_memo():
    """Caching is the stages' own (``core.memo.stage``): no public function of ``core/`` takes a memo, a cache or
    precomputed arrays to share work between calls."""
    found = [(path, name, arg) for path, name, args in _public_functions() for arg in args
             if "memo" in arg.lower() or "cache" in arg.lower()]
    assert not found, found
    assert sum(1 for _f in _public_functions()) > 500  # the scan sees the engine


def _frozen(value) -> bool:
    """Whether ``value`` is a frozen value a cache may key by: numbers, strings, None, tuples and frozensets of
    frozen values, ``FrozenDict``s of them, frozen pydantic models, frozen dataclasses (views) and NamedTuples."""
    import dataclasses

    from pydantic import BaseModel

    from core.memo import FrozenDict

    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return True
    if isinstance(value, FrozenDict):
        return all(_frozen(k) and _frozen(v) for k, v in value.items())
    if isinstance(value, (tuple, frozenset)):  # NamedTuples too
        return all(_frozen(v) for v in value)
    if isinstance(value, BaseModel):
        return bool(value.model_config.get("frozen"))
    if dataclasses.is_dataclass(value):
        return value.__dataclass_params__.frozen and all(_frozen(getattr(value, f.name))
                                                          for f in dataclasses.fields(value))
    return False


def _stage_work():
    """Fill the stage caches: a small search (both languages) and a few plans and sweeps."""
    from core.analysis import jobsplit, servingstep
    from core.analysis.failure import what_if
    from core.analysis.optimize import Constraints, Grid, optimize
    from core.i18n import language
    from core.perf.collectives import sweep
    from core.perf.serving import parse_deployment
    from core.perf.training import parse_job
    from core.physical.cabling import network_links

    job = parse_job({"model": "llama3-8b", "tokens_to_train": 1e12})
    target = parse_deployment({"model": "llama3-8b", "mode": "aggregated", "precision": "fp8",
                               "workload": {"input_tokens": 1000, "output_tokens": 200, "rate": 2.0, "ttft_ms": 3000,
                                            "tpot_ms": 100}})

    grid = Grid(switches=("QM9700", "SN5600"), nics=("CX7",), oversubscription=(1.0, 2.0), planes=(1, 2))
    for lang in ("en", "zh"):
        with language(lang):
            optimize("H100", 1024, Constraints(), grid, workers=1, bounded=False)
            optimize("H100", 1024, Constraints(), Grid(switches=("QM9700",), nics=("CX7",)), workers=1)  # floors
            for design in (Design(gpu="GB200", gpus=1152), Design(gpu="H100", nodes=64, storage="none"),
                           Design(gpu="H100", nodes=300, fabric="ethernet", price_overrides={"SN5600": 20000.0})):
                p = plan_module.plan(design)
                sweep(p, "all-to-all", [1 << 20, 1 << 28])
                for _link in network_links(p):  # port names per cable (core.physical.cabling)
                    pass
                jobsplit.fastest(p, job)  # the optimizer's training and serving steps
                servingstep.price(p, target)
            for topology in ("dragonfly", "classic-dragonfly"):  # the healthy measures of the closed-form what-ifs
                what_if(plan_module.plan(Design(gpu="H100", gpus=2048, switch="QM9700", topology=topology)),
                        ["leaf:1"])


def test_every_stage_is_keyed_by_its_arguments_alone():
    """For every cached stage (``core.memo.STAGES``) and a sample of what a search and some plans cached: the key is
    the stage's arguments, all frozen values; the uncached function run on them afresh, in another language than
    the request's (any language the result depends on is an argument), gives the cached value, field for field;
    and the stage's size bound is at least the value's measured size (``deep_sizeof``, catalog entries shared), and
    the value's and the key's for a stage that counts its keys (``stage(key_sizeof=...)``)."""
    import inspect

    from core.catalog import Catalog, _Entry
    from core.i18n import language
    from core.memo import STAGES, _Raised, deep_sizeof
    from core.perf.constants import CollectiveConstants
    from core.physical.racks import Routing

    for cached in STAGES:
        cached.cache_clear()
    _stage_work()
    shared = (_Entry, Catalog, CollectiveConstants, Routing)
    names = {f.__name__ for f in STAGES}
    assert {"sized_networks", "network_rows_of", "placed_link_lengths", "chosen_media",
            "arranged_lengths", "arranged_racks", "sized_fabric",
            "priced_link_rows",
            "_curves", "_model_layout", "fastest_split", "split_bounds", "served", "healthy_measures"} <= names
    for cached in STAGES:
        entries = list(cached.cache._entries.items())
        assert entries, cached.__name__
        signature = inspect.signature(cached.__wrapped__)
        for key, (value, size) in entries[::max(1, len(entries) // 12)]:
            assert isinstance(key, tuple) and len(key) == len(signature.parameters), (cached.__name__, key)
            assert all(_frozen(arg) for arg in key), (cached.__name__, [type(a) for a in key])
            with language("zh" if "en" in key else "en"):
                try:
                    fresh = cached.__wrapped__(*key)
                except Exception as exc:  # a kept error: the same error again
                    assert isinstance(value, _Raised) and type(exc) is type(value.error), cached.__name__
                    assert str(exc) == str(value.error)
                    continue
            assert not isinstance(value, _Raised), cached.__name__
            assert _same(fresh, value), cached.__name__
            assert size >= deep_sizeof(value, shared), (cached.__name__, size, deep_sizeof(value, shared))
            if cached.cache.key_sizeof is not None:  # a key that may weigh more than its value is counted too
                assert size >= deep_sizeof(value, shared) + deep_sizeof(key, shared), (cached.__name__, size)


@pytest.mark.parametrize("design", [
    Design(gpu="H100", nodes=64, switch="QM9700", grow_to=256), Design(gpu="B300", gpus=64, topology="torus"),
    Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576), Design(gpu="H100", gpus=1024, switch="QM9700",
                                                                        topology="dragonfly"),
    Design(gpu="H100", nodes=1100, switch="QM9700", tiers=3, price_overrides={"QM9700": 20000.0}),
], ids=lambda d: f"{d.gpu}-{d.nodes or d.gpus}-{d.topology}")
def test_a_plan_from_the_stage_caches_is_the_plan_computed_afresh(design):
    """A plan asked again (its fabric, bandwidth, racks, cable lengths, media, compute racks, bill and growth reserve
    from the stage caches keyed by the resolved design's fields: ``core.plan.sized_fabric``,
    ``core.physical.lengths.arranged_lengths``, ``core.cost.priced_link_rows``) is the one the public functions give
    with every stage computed afresh (``core.memo.uncached``), in either language."""
    from core.cost import build_bom, fabric_media
    from core.fabric.bandwidth import compute_bandwidth
    from core.fabric.sizing import size_fabric
    from core.i18n import language
    from core.memo import uncached
    from core.physical.layout import place

    catalog = load_catalog()
    for lang in ("en", "zh"):
        with language(lang):
            plan_module._plan(design, catalog)
            warm = plan_module._plan(design, catalog)
            with uncached():
                resolved = warm.resolved
                fabric = size_fabric(resolved)
                layout = place(resolved, fabric, warm.networks, catalog)
                lengths, media = fabric_media(catalog, resolved, fabric, layout)
                bom = build_bom(resolved, fabric, catalog, layout=layout, media=media, networks=warm.networks)
                reserved = plan_module._reserved(resolved, bom, catalog)
            assert warm.fabric == fabric and warm.bandwidth == compute_bandwidth(resolved, fabric)
            assert warm.lengths == lengths and warm.media == media and warm.bom == bom
            assert warm.layout == layout and warm.cost.racks_compute == layout.counts()["compute"]
            assert warm.reserved_bom == reserved and (reserved != ()) == bool(design.grow_to)


def _same(a, b) -> bool:
    """Equal values, numpy arrays compared element by element (the curves)."""
    import dataclasses

    import numpy as np

    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b


def test_a_first_plan_measures_its_cable_lengths_once():
    """``as_built``'s rounds (``core.plan.built_networks``) size the racks-independent part of the other networks once
    (``core.networks.sized_parts``, no whole sizing), count the racks (from the drafts
    ``core.physical.layout.drafted_racks`` and the devices' own racks, ``kind_racks``) and arrange them once
    (``core.physical.lengths.arranged_racks``) without measuring cable lengths: a plan whose other networks change
    with its racks counts two sets of devices (with the networks sized for the estimated racks, then for the racks as
    built: 275 compute and 71 other racks for 1,100 H100 nodes on three tiers; their storage racks, the same in both,
    filled once), drafts and arranges once and measures
    the lengths once, of that arrangement, which the plan's own placing reads from the cache."""
    from core.memo import STAGES
    from core.networks import sized_networks, sized_parts
    from core.physical.layout import drafted_racks, kind_racks
    from core.physical.lengths import arranged_lengths, arranged_racks, placed_link_lengths

    for cached in STAGES:
        cached.cache_clear()
    found = plan_module._plan(Design(gpu="H100", nodes=1100, switch="QM9700", tiers=3), load_catalog())
    assert kind_racks.cache.misses == 3 and drafted_racks.cache.misses == 1  # the storage racks filled once
    assert plan_module.built_networks.cache.misses == 1 and sized_parts.cache.misses == 1
    assert sized_networks.cache.misses == 0  # the rounds size from the parts (``core.networks.networks_for``)
    assert arranged_racks.cache.misses == 1 and arranged_racks.cache.hits == 1  # once; the placing's hit
    assert placed_link_lengths.cache.misses == 1 and arranged_lengths.cache.misses == 1
    assert found.lengths == arranged_lengths.__wrapped__(*next(iter(arranged_lengths.cache._entries)))[1]


def test_a_cold_plan_arranges_its_last_round_once(monkeypatch):
    """With every stage computed afresh (``core.memo.uncached``, ``bench_core``'s cold plan) the racks are arranged
    once: ``as_built``'s rounds count them (``core.plan.built_networks``) and the plan's placing reads its arrangement
    (``core.physical.lengths.placed_lengths``) instead of arranging it again: 1,100 H100 nodes on three tiers (three
    sizings, the estimated racks and two as built) arrange once, and the plan is the one made with the caches."""
    from core.memo import bypassed, uncached
    from core.physical import lengths as lengths_module

    design, catalog = Design(gpu="H100", nodes=1100, switch="QM9700", tiers=3), load_catalog()
    warm = plan_module._plan(design, catalog)
    arranged = []
    real = lengths_module.arrange_drafted

    def counted(*args, **kwargs):
        arranged.append(1)
        return real(*args, **kwargs)

    assert not bypassed()
    monkeypatch.setattr(lengths_module, "arrange_drafted", counted)
    with uncached():
        assert bypassed()
        cold = plan_module._plan(design, catalog)
    assert len(arranged) == 1
    assert cold.lengths == warm.lengths and cold.media == warm.media and cold.bom == warm.bom
    assert cold.layout == warm.layout and cold.cost == warm.cost


def test_a_stage_keeps_errors_and_raises_them_afresh():
    """A kept error is raised again on each call, with a traceback of that call only (no growth across calls);
    other errors pass uncached; ``uncached()`` runs the function without the cache."""
    from core.memo import stage, uncached

    calls = []

    @stage(0.001, sizeof=lambda v: 8, errors=(ValueError,))
    def f(x):
        calls.append(x)
        if x < 0:
            raise ValueError(f"negative {x}")
        if x == 0:
            raise KeyError(x)
        return x * 2

    assert f(3) == 6 and f(3) == 6 and calls == [3]
    depths = []
    for _ in range(3):
        with pytest.raises(ValueError, match="negative -1") as raised:
            f(-1)
        tb, depth = raised.value.__traceback__, 0
        while tb is not None:
            tb, depth = tb.tb_next, depth + 1
        depths.append(depth)
    assert calls == [3, -1] and len(set(depths)) == 1
    for _ in range(2):
        with pytest.raises(KeyError):
            f(0)
    assert calls == [3, -1, 0, 0]
    with uncached():
        assert f(3) == 6
    assert calls[-1] == 3 and len(f.cache) == 2


def test_a_stage_hashes_its_key_once_a_call():
    """A stage's key is hashed once a call, a miss (found missing, replaced, kept) as a hit (found, moved to the end):
    a plan's keys are tuples of frozen models whose hashes are not kept. The key kept is the arguments' tuple, equal
    to it and hashed as it, and a key given as keywords too."""
    from core.memo import STAGES, stage

    class Costly:
        hashed = 0

        def __init__(self, value):
            self.value = value

        def __hash__(self):
            Costly.hashed += 1
            return hash(self.value)

        def __eq__(self, other):
            return isinstance(other, Costly) and self.value == other.value

    calls = []

    @stage(0.0001, lambda _value: 64)
    def f(x, *, by=1):
        calls.append(x.value)
        return x.value * by

    STAGES.remove(f)  # a test's stage, not the engine's (their budgets add up: ``STAGE_SHARES_MOST``)
    assert f(Costly(3)) == 3 and Costly.hashed == 1  # a miss
    assert f(Costly(3)) == 3 and Costly.hashed == 2 and calls == [3]  # a hit of an equal key
    assert f(Costly(3), by=2) == 6 and f(Costly(3), by=2) == 6 and Costly.hashed == 4 and calls == [3, 3]
    kept = next(iter(f.cache._entries))
    assert kept == (Costly(3),) and hash(kept) == hash((Costly(3),)) and Costly.hashed == 5  # the kept key's is kept


def test_views_hold_what_a_stage_reads_and_nothing_else():
    """A view (``core.memo.view``) is frozen and hashable, equal for objects that agree on its attributes, and
    reading an attribute it lacks raises; ``FrozenDict`` cannot change."""
    from core.memo import FrozenDict, view

    Inner = view("Inner", "a")
    Outer = view("Outer", "x y", inner=Inner, table=FrozenDict)

    class Obj:
        def __init__(self, x, y, a, other):
            self.x, self.y, self.inner, self.table, self.other = x, y, type("I", (), {"a": a})(), {"k": x}, other

    one, two = Outer.of(Obj(1, "s", 2.0, "differs")), Outer.of(Obj(1, "s", 2.0, "elsewhere"))
    assert one == two and hash(one) == hash(two) and one != Outer.of(Obj(1, "s", 3.0, ""))
    with pytest.raises(AttributeError):
        one.other  # noqa: B018 - reading outside the view raises
    with pytest.raises(AttributeError):
        one.x = 2
    with pytest.raises(TypeError):
        one.table["k"] = 5
    assert Outer.of(type("N", (), {"x": 0, "y": 0, "inner": None, "table": None})()).inner is None
    Part = view("Part", "", inner=Inner)  # built from a larger view: its nested views taken as they are
    assert Part.of(one).inner is one.inner and Part.of(one) == Part.of(Obj(1, "s", 2.0, "")) != Part.of(
        Obj(1, "s", 3.0, ""))
    # the engine's views pickle (a worker process may send one)
    import pickle

    from core.cost import Pricing
    from core.design import resolve_design
    from core.networks import NetworkInputs
    from core.physical.media import MediaInputs

    resolved = resolve_design(Design(gpu="H100", nodes=64, price_overrides={"QM9700": 1.0}), load_catalog())
    for made in (NetworkInputs, MediaInputs, Pricing):
        found = made.of(resolved)
        assert pickle.loads(pickle.dumps(found)) == found


# --- no cache keyed by identity or by a hand-written key ---------------------------------------------------------

def _identity_keys(tree) -> list[int]:
    """Lines where a dict is indexed by an object's identity: ``d[id(x)]``, ``d.get(id(x))`` (``setdefault``,
    ``pop``) or ``{id(x): ...}``. An identity outlives nothing it keys (a freed object's id is reused), and two equal
    inputs get two entries: caches are keyed by value (``core.memo.stage``)."""
    import ast

    def is_id(node) -> bool:
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "id"
                   for n in ast.walk(node))

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_id(node.slice):
            found.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("get", "setdefault", "pop") and node.args and is_id(node.args[0])):
            found.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and is_id(k) for k in node.keys):
            found.append(node.lineno)
        elif isinstance(node, ast.DictComp) and is_id(node.key):
            found.append(node.lineno)
    return found


def _hand_written_keys(tree) -> list[str]:
    """Functions named ``*_key`` that build a tuple by hand (``return (a, b, ...)``) used as a cache key (assigned
    to ``key``, or indexing or looked up in a dict): what a step reads, written a second time beside it."""
    import ast

    makers = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.endswith("_key")
              and any(isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple) for n in ast.walk(node))}

    def made(node) -> str | None:
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            return name if name in makers else None
        return None

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "key" for t in node.targets):
            found.append(made(node.value))
        elif isinstance(node, ast.Subscript):
            found.append(made(node.slice))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args and \
                node.func.attr in ("get", "setdefault", "pop"):
            found.append(made(node.args[0]))
    return sorted({name for name in found if name})


def _engine_trees():
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "core"
    for path in sorted(root.rglob("*.py")):
        yield str(path.relative_to(root.parent)), ast.parse(path.read_text(encoding="utf-8"))


def test_no_cache_is_keyed_by_identity_or_by_a_hand_written_key():
    """No dict of ``core/`` is indexed by ``id(...)``, and no hand-written ``*_key`` tuple keys a cache: the engine's
    caches are its stages, keyed by the arguments the function receives (``core.memo.stage``)."""
    trees = list(_engine_trees())
    assert len(trees) > 100
    assert not [(path, line) for path, tree in trees for line in _identity_keys(tree)]
    assert not [(path, name) for path, tree in trees for name in _hand_written_keys(tree)]


def test_the_key_checks_catch_a_planted_cache():
    """The two checks above find what they look for in a planted module (and nothing in a stage)."""
    import ast

    planted = ast.parse('''
_SEEN = {}
_CACHE = {}

def summary(plan):
    held = _SEEN.get(id(plan))
    if held is None:
        held = _SEEN[id(plan)] = plan.summary()
    return held

def plan_key(plan):
    return (plan.resolved.gpus, plan.fabric.tiers)

def step(plan):
    key = plan_key(plan)
    if key not in _CACHE:
        _CACHE[key] = plan.estimate()
    return _CACHE[key]
''')
    assert len(_identity_keys(planted)) == 2 and _hand_written_keys(planted) == ["plan_key"]
    clean = ast.parse('''
from core.memo import stage

@stage(0.01, sizeof=lambda v: 64)
def step(plan_view, language):
    return plan_view.gpus

def order_key(row):
    return (row.cost, row.name)

rows = sorted([], key=order_key)
seen = {1}
''')
    assert not _identity_keys(clean) and not _hand_written_keys(clean)


def test_the_collective_time_cache_counts_its_keys():
    """``core.perf.training.communicator_time`` keeps a plan's view in each key, some 2 KB against its answer's few
    hundred bytes: its entries count their keys (``_time_key_bytes``), a bound at least the key's measured size for
    plans of every kind that changes the view's size (tiers, Dragonfly+, a torus, a named calibration, NVL72)."""
    from core.catalog import Catalog, _Entry
    from core.memo import deep_sizeof
    from core.perf.constants import CollectiveConstants
    from core.perf.training import _time_key_bytes, collective_time, communicator_time
    from core.physical.racks import Routing

    shared = (_Entry, Catalog, CollectiveConstants, Routing)
    designs = (Design(gpu="H100", gpus=131072, fabric="ethernet"), Design(gpu="GB200", gpus=1152),
               Design(gpu="H100", gpus=2048, switch="QM9700", topology="dragonfly"),
               Design(gpu="H100", gpus=256, topology="torus", torus_dims=(4, 8)),
               Design(gpu="H100", gpus=256, calibration="lat=3.5, net=0.92,name=Pod A, March measurements"))
    communicator_time.cache_clear()
    for design in designs:
        collective_time(plan_module.plan(design), "all-reduce", 1 << 20, 8, 1)
    entries = list(communicator_time.cache._entries.items())
    assert len(entries) == len(designs)
    for key, (value, size) in entries:
        assert _time_key_bytes(key) >= deep_sizeof(key, shared) > 1000
        assert size == _time_key_bytes(key) + 320
    assert communicator_time.cache.bytes == sum(size for _key, (_value, size) in entries)


def test_stage_key_hashes_agree_with_equality():
    """The catalog entries, the rack catalog and a fabric plan hash by a few fields (``core.catalog._Entry``,
    ``core.physical.racks.RackCatalog``, ``core.fabric.sizing.FabricPlan``): an equal object made afresh (not the
    same one) hashes alike, so a stage's cache finds it; objects that differ in a field the hash leaves out stay
    apart as keys (equality still compares every field)."""
    from core.fabric.sizing import size_fabric
    from core.physical.racks import RackCatalog, load_racks

    catalog = load_catalog()
    for entry in (*catalog.switches, *catalog.nics, *catalog.systems, *catalog.transceivers, *catalog.cables):
        fresh = type(entry).model_validate(entry.model_dump())
        assert fresh == entry and fresh is not entry and hash(fresh) == hash(entry), entry.id
    racks = load_racks()
    assert hash(RackCatalog.model_validate(racks.model_dump())) == hash(racks)
    switch = catalog.switch("TH5")
    dearer = switch.model_copy(update={"price_usd": switch.price_usd + 1})
    assert dearer != switch and len({switch: 1, dearer: 2}) == 2
    resolved = plan_module.plan(Design(gpu="H100", gpus=2048, switch="QM9700")).resolved
    fabric = size_fabric(resolved)
    again = type(fabric).model_validate(fabric.model_dump())
    assert again == fabric and hash(again) == hash(fabric)
    other = fabric.model_copy(update={"port_speed_gbps": fabric.port_speed_gbps * 2})
    assert other != fabric and len({fabric: 1, other: 2}) == 2


def test_the_stages_budgets_add_up_to_what_memo_declares():
    """The stage caches' budgets (``share`` x ``STAGE_CACHE_BYTES`` each) add up to at most ``STAGE_SHARES_MOST`` x
    ``STAGE_CACHE_BYTES``: the memory ``core.memo`` declares for them is what they may hold. Every engine module is
    imported first, so every stage is registered."""
    import importlib
    import pkgutil

    import core
    from core.memo import STAGE_CACHE_BYTES, STAGE_SHARES_MOST, STAGES

    for module in pkgutil.walk_packages(core.__path__, "core."):
        if not module.name.endswith("__main__"):  # the command line: it runs on import
            importlib.import_module(module.name)
    total = sum(cached.cache.max_bytes for cached in STAGES)
    assert len(STAGES) >= 20
    assert total <= STAGE_SHARES_MOST * STAGE_CACHE_BYTES, total / STAGE_CACHE_BYTES
    assert total > (STAGE_SHARES_MOST - 0.25) * STAGE_CACHE_BYTES, "STAGE_SHARES_MOST states the sum: lower it"


def test_copied_is_model_copy_and_frozen_dicts_hash_once():
    """``core.memo.copied`` makes what ``model_copy(update=...)`` makes (fields, fields set, the original unchanged),
    and a ``FrozenDict``'s hash, kept after its first, is its items' (also after a round trip through pickle)."""
    import pickle

    from core.design import Design
    from core.memo import FrozenDict, copied

    base = Design(gpu="H100", gpus=1024)
    for update in ({"tiers": 2}, {"tiers": 3, "oversubscription": 2.0, "planes": 2}, {}):
        made, expected = copied(base, update), base.model_copy(update=update)
        assert type(made) is Design and made == expected and made.model_dump() == expected.model_dump()
        assert made.model_fields_set == expected.model_fields_set and made is not base
    assert base.tiers == "auto" and base.model_fields_set == {"gpu", "gpus"}
    table = FrozenDict({"leaf": "QM9700", "spine": ("SN5600", 2)})
    assert hash(table) == hash(table) == hash(frozenset(table.items()))
    again = pickle.loads(pickle.dumps(table))
    assert again == table and hash(again) == hash(table) and type(again) is FrozenDict


def test_models_compared_by_their_fields_dict_are_equal_as_pydantic_says():
    """``core.memo.same_fields`` (the ``__eq__`` of ``FabricPlan`` and ``SwitchGroup``, in stage keys) answers as
    ``BaseModel.__eq__`` for equal copies, plans that differ in one count, in one group or only in their switch
    models, a group and its plan, and anything else; those models have no extra fields, private attributes or
    cached properties (what it assumes)."""
    import functools

    from pydantic import BaseModel

    from core.design import resolve_design
    from core.fabric.sizing import FabricPlan, SwitchGroup, size_fabric
    from core.memo import copied, same_fields

    for model in (FabricPlan, SwitchGroup):
        assert model.__eq__ is same_fields and model.model_config.get("extra") in (None, "ignore")
        assert not model.__private_attributes__ and not any(
            isinstance(v, functools.cached_property) for v in vars(model).values())
    catalog = load_catalog()
    plans = [size_fabric(resolve_design(Design(gpu="H100", gpus=16384, fabric="ethernet", tiers=3,
                                                      oversubscription=2.0, switch=switch),
                                        catalog), words=False) for switch in ("TH5", "SN5600")]
    plans.append(size_fabric(resolve_design(Design(gpu="H100", gpus=1024), catalog)))
    a = plans[0]
    copy = copied(a, {"switch_groups": tuple(copied(g, {}) for g in a.switch_groups)})
    one_count = copied(a, {"spine_count": a.spine_count + 1})
    one_group = copied(a, {"switch_groups": (copied(a.switch_groups[0], {"count": a.switch_groups[0].count + 1}),
                                             *a.switch_groups[1:])})
    others = [a, copy, one_count, one_group, *plans, a.switch_groups[0], copy.switch_groups[0],
              one_group.switch_groups[0], None, 3, (a,)]
    compared = 0
    for x in others:
        for y in others:
            if isinstance(x, BaseModel):
                assert (x == y) is BaseModel.__eq__(x, y) if isinstance(y, BaseModel) else x != y, (x, y)
                compared += 1
    assert a == copy and a is not copy and a != one_count and a != one_group and a != plans[1]
    assert compared > 60
