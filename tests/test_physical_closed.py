"""The physical layer's closed forms equal the per-rack and per-link computation they replace in planning.

``place`` returns a ``Layout`` whose racks, rows and device index are built from its ``Arrangement`` only when read:
the rack counts, the most power per rack, the rows and the hall (``Layout.summary``) come from the arrangement's SU
blocks (``Arrangement.counts``, ``Arrangement.max_kw``) and the cable lengths from its ``RackPlaces``. Here, over
every topology family and 64 to 131,072 GPUs, these equal what the built racks give (the reference: one ``Rack`` per
rack, the lengths of every link from the racks' positions), and the layout, once built, is the same object in every
byte (``model_dump_json``) whichever way it was reached. The cable lengths of planning come per repeating block (an
SU template's node-leaf links times its SUs, a Dragonfly group's inner links times the groups standing alike): they
bin as every link measured one by one does.
"""

from __future__ import annotations

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError, InputError
from core.fabric.sizing import size_fabric
from core.memo import uncached
from core.networks import size_networks
from core.physical.layout import KIND_ORDER, Layout, arrange
from core.physical.lengths import link_lengths

GRID = [
    dict(gpu="H100", nodes=2),
    dict(gpu="H100", nodes=40, switch="QM9700"),
    dict(gpu="H100", nodes=84, switch="QM9700", oversubscription=2.0),
    dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, oversubscription=3.0),
    dict(gpu="H100", nodes=160, gpus_per_node=1, nics_per_node=1, topology="top-of-rack", nodes_per_rack=4,
         switch="QM8700", port_speed_gbps=200, tiers=3),
    dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, planes=2, nic="CX7-2P"),
    dict(gpu="H100", nodes=1100, switch="QM9700", tiers=3),
    dict(gpu="H100", nodes=64, topology="rail-only"),
    dict(gpu="H100", gpus=16384, topology="rail-only", oversubscription=0.5, su_nodes=16, pod_sus=16, tiers=3),
    dict(gpu="H100", nodes=64, switch="QM9700", grow_to=256),
    dict(gpu="H100", nodes=64, plane_mode="per-rail", planes=2),
    dict(gpu="H800", gpus=4096, switch="QM9700", plane_mode="per-rail", planes=8),
    dict(gpu="B300", gpus=8192, fabric="ethernet", switch="SN5600", port_speed_gbps=400, planes=2),
    dict(gpu="H100", gpus=4096, fabric="ethernet", switch="TH5", nic="CX7-2P", port_speed_gbps=200,
         uplink_speed_gbps=400, planes=2, grow_to=1024, spine_oversubscription=15.0),
    dict(gpu="H100", gpus=16384, switch="QM9700", topology="dragonfly"),
    dict(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"),
    dict(gpu="B300", gpus=4096, topology="torus"),
    dict(gpu="GB200", nodes=72),
    dict(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576, nvlink_rack_gpus=36),
    dict(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576),
    dict(gpu="H100", nodes=64, pods="B200:32:800"),
    dict(gpu="H100", nodes=100, switch="QM9700", rack_kw=25),
    dict(gpu="H100", nodes=512, fabric="ethernet", storage="ethernet"),
    dict(gpu="B300", gpus=131072, switch="Q3400"),
    dict(gpu="H100", gpus=131072, switch="QM9700", topology="dragonfly"),
    dict(gpu="H100", gpus=131072, switch="QM9700", topology="classic-dragonfly"),
]


def _arranged(kwargs: dict):
    catalog = load_catalog()
    resolved = resolve_design(Design(**kwargs), catalog)
    fabric = size_fabric(resolved)
    return resolved, fabric, arrange(resolved, fabric, size_networks(resolved, fabric, catalog))


def _check(kwargs: dict) -> None:
    """The closed forms of one design equal the built racks' and links' numbers."""
    resolved, fabric, arrangement = _arranged(kwargs)
    lazy = arrangement.layout()
    summary, counts, max_kw = lazy.summary(), lazy.counts(), lazy.max_kw_per_rack
    with uncached():  # computed afresh from the arrangement (not a cached result)
        lengths = link_lengths(resolved, fabric, lazy)
    assert lazy.arrangement is arrangement, "counting or measuring built the racks"
    whole = arrangement.layout()
    racks = whole.racks  # the reference: one Rack per rack, one Row per row
    assert whole.arrangement is None
    reference = {kind: sum(r.kind == kind for r in racks) for kind in KIND_ORDER}
    assert counts == {**reference, "total": len(racks)}
    assert max_kw == max((r.kw for r in racks), default=0.0)
    assert summary == whole.summary() and summary["rows"] == len(whole.rows)
    assert lengths == link_lengths(resolved, fabric, whole)  # every link from the built racks' positions
    assert lazy.model_dump_json() == whole.model_dump_json() and lazy == whole
    again = pickle.loads(pickle.dumps(arrangement.layout()))
    assert again == whole and again.model_dump() == whole.model_dump()


@pytest.mark.parametrize("kwargs", GRID, ids=lambda k: "-".join(f"{v}" for v in k.values()))
def test_closed_forms_equal_the_built_racks_and_links(kwargs):
    _check(kwargs)


FAMILIES = {
    "rail-optimized": dict(switch="QM9700"),
    "top-of-rack": dict(topology="top-of-rack", nodes_per_rack=4),
    "rail-only": dict(topology="rail-only"),
    "per-port planes": dict(planes=2, nic="CX7-2P"),
    "per-rail planes": dict(plane_mode="per-rail", planes=4),
    "dragonfly": dict(switch="QM9700", topology="dragonfly"),
    "classic-dragonfly": dict(switch="QM9700", topology="classic-dragonfly"),
    "torus": dict(topology="torus"),
    "ethernet 3:1": dict(fabric="ethernet", oversubscription=3.0),
    "grow": dict(switch="QM9700", grow="x4"),
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FAMILIES)), st.sampled_from(["H100", "B300", "GB200"]), st.integers(3, 17),
       st.sampled_from(["auto", 1, 2, 3]), st.integers(0, 7))
def test_closed_forms_hold_over_families_sizes_and_tiers(family, gpu, log2_gpus, tiers, extra_nodes):
    kwargs = {**FAMILIES[family], "gpu": gpu, "tiers": tiers}
    nodes = max(1, (1 << log2_gpus) // 8 + extra_nodes)  # whole and partial SUs
    if kwargs.pop("grow", None):
        kwargs["grow_to"] = nodes * 4
    try:
        _check({**kwargs, "nodes": nodes})
    except (DesignError, InputError):
        pass  # a design the planner refuses has no layout


BLOCKS = {  # design -> the classes measured per repeating block or kind of link, not link by link
    "B300 XDR": (dict(gpu="B300", gpus=131072, switch="Q3400"), ("node-leaf", "leaf-spine", "spine-core")),
    "Dragonfly+": (dict(gpu="H100", gpus=131072, switch="QM9700", topology="dragonfly"),
                   ("node-leaf", "leaf-spine", "global")),
    "classic Dragonfly": (dict(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"),
                          ("node-leaf", "local", "global")),
    "per-rail planes": (dict(gpu="H800", gpus=4096, switch="QM9700", plane_mode="per-rail", planes=8), ("node-leaf",)),
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_blocks_measure_few_links_and_give_the_per_link_bins(name):
    """The planning path measures the node-leaf links once per SU template, a Dragonfly's links inside its groups
    once per class of groups standing alike and the other links once per kind (class of rack pairs x height pair):
    a few thousand entries, not one per link, binned as every link measured one by one (``link_arrays``, the
    per-link reference) bins them."""
    from core.physical.lengths import _END_PREFIXES, LinkEnds, _link_arrays, _wiring, bin_lengths, link_arrays
    from core.physical.racks import load_racks

    kwargs, classes = BLOCKS[name]
    resolved, fabric, arrangement = _arranged(kwargs)
    places = arrangement.places(_END_PREFIXES)
    blocks = _link_arrays(_wiring(resolved, fabric), LinkEnds(places), load_racks().routing, places)
    per_link = link_arrays(resolved, fabric, arrangement)
    assert list(blocks) == list(per_link)
    for link_class, (lengths, links, routes) in per_link.items():
        found = blocks[link_class]
        assert int(found[1].sum()) == int(links.sum())
        if link_class in classes:
            assert len(found[0]) * 10 < len(lengths), link_class
        assert bin_lengths(link_class, *found) == bin_lengths(link_class, lengths, links, routes)


def test_a_layout_built_whole_counts_its_racks():
    """A ``Layout`` made with its racks (no arrangement) counts and measures them one by one."""
    _resolved, _fabric, arrangement = _arranged(dict(gpu="H100", nodes=64, switch="QM9700"))
    racks, rows, index = arrangement.built()
    lazy = arrangement.layout()
    fields = {name: getattr(lazy, name) for name in ("preset", "power_limit_kw", "rack_units", "nodes_per_rack",
                                                     "node_kw", "row_pitch_m", "floor_area_m2", "hall_length_m",
                                                     "hall_width_m", "notes")}
    whole = Layout(**fields, racks=racks, rows=rows, index=index)
    assert whole.arrangement is None and whole.counts() == lazy.counts() and whole.summary() == lazy.summary()
    assert whole.racks[0].kind in KIND_ORDER and whole == lazy


def test_a_plan_serialises_its_lazy_layout_whole():
    """A plan's ``model_dump`` holds its layout's racks, rows and index, built from the arrangement on the way."""
    from core.plan import _plan

    p = _plan(Design(gpu="H100", nodes=64, switch="QM9700"), load_catalog())
    assert p.layout.arrangement is not None
    dumped = p.model_dump()["layout"]
    assert p.layout.arrangement is None and len(dumped["racks"]) == len(p.layout.racks) == p.layout.counts()["total"]
    assert list(dumped) == list(Layout.model_fields) and dumped == p.layout.model_dump()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.sampled_from([1, 3, 300, 10 ** 9]), st.integers(0, 2 ** 31))
def test_the_hashed_distinct_values_are_numpys(count, spread, seed):
    """``core.physical.lengths._unique_inverse`` (hashed: ``pandas.factorize``, then the distinct values sorted) gives
    exactly ``np.unique(values, return_inverse=True)``: the same distinct values in the same order and dtype, the same
    place of each value, below and above the count it hashes from (``_UNIQUE_SORTED``); and ``_heights``' table of
    (rack height, U centre) pairs the sorted complex pairs, below and above ``_HEIGHTS_SORTED``."""
    import numpy as np

    from core.physical.lengths import _heights, _unique_inverse

    rng = np.random.default_rng(seed)
    values = rng.integers(-spread, spread + 1, count).astype(np.int64)
    found, expected = _unique_inverse(values), np.unique(values, return_inverse=True)
    assert found[0].dtype == expected[0].dtype and found[1].dtype == expected[1].dtype
    assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])
    top = rng.choice([42.0, 48.0, 52.0], count)
    centre = rng.integers(1, 40, count) + rng.choice([0.0, 0.5], count)
    pairs, place = _heights(top, centre)
    sorted_pairs, sorted_place = np.unique(top + 1j * centre, return_inverse=True)
    assert np.array_equal(pairs, sorted_pairs) and np.array_equal(place, sorted_place)


@st.composite
def _ranged_arrangement(draw):
    """A random small arrangement of two roles' devices in racks (``LinkEnds`` made by hand: racks on the micrometre
    grid, rows, heights; each role's devices in slots of random racks, first U and height) and random ranges of
    bundles between them (each A device to consecutive B devices, some links each), in one to three planes."""
    import numpy as np

    from core.physical.lengths import LinkEnds

    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    racks = draw(st.integers(1, 12))
    copies = draw(st.integers(1, 3))
    prefixes = [f"p{k}." for k in range(copies)]
    ends = LinkEnds.__new__(LinkEnds)
    ends.layout, ends._located = None, {}
    ends.x = rng.integers(0, 40, racks) * 0.6 + rng.integers(0, 3, racks) * 0.001
    ends.row = rng.integers(0, 3, racks)
    ends.y = ends.row * 2.4
    ends.top = rng.choice([42.0, 48.0], racks)
    ends._tables = {}
    counts = {"spine": draw(st.integers(1, 40)), "core": draw(st.integers(1, 60))}
    for prefix in prefixes:
        for role, count in counts.items():
            starts, where, first, height = [], [], [], []
            placed = 0
            while placed < count:  # slots of consecutive devices, each in a random rack, at a random height
                size = int(rng.integers(1, 12))
                starts.append(placed)
                where.append(int(rng.integers(0, racks)))
                first.append(float(rng.integers(1, 30)))
                height.append(float(rng.choice([1, 2])))
                placed += size
            ends._tables[prefix + role] = (np.array(starts), np.array(where), np.array(first), np.array(height))
    bundles = draw(st.integers(1, 30))
    a = np.sort(rng.choice(counts["spine"], min(bundles, counts["spine"]), replace=False))
    count = rng.integers(0 if draw(st.booleans()) else 1, counts["core"] + 1, len(a))  # (some ranges empty)
    first = np.array([int(rng.integers(0, counts["core"] - c + 1)) for c in count], dtype=np.int64)
    links = rng.integers(1, 5, len(a)) if draw(st.booleans()) else np.full(len(a), 2)
    return ends, prefixes, a, first, count.astype(np.int64), links.astype(np.int64)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ranged_arrangement())
def test_ranges_count_the_lengths_link_by_link_measures(arranged):
    """``_ranged`` (the bundles of a range of consecutive devices counted per piece of a run of one rack and
    consecutive heights, the pieces alike summed per B height) gives the same (class, kind) counts as ``_compacted``
    counting link by link, so the same arrays, and the same bins as every link measured (``_measured``), on random
    arrangements: racks anywhere, slots of random heights, devices split across racks, ranges of any length."""
    import numpy as np

    import core.physical.lengths as lengths
    from core.physical.racks import load_racks

    ends, prefixes, a, first, count, links = arranged
    routing = load_racks().routing
    bundle = np.repeat(np.arange(len(a)), count)  # the ranges expanded as Wiring.bundle_arrays does
    b = first[bundle] + (np.arange(len(bundle)) - np.repeat(np.cumsum(count) - count, count))
    expanded = ("spine", a[bundle], "core", b, links[bundle])
    saved = lengths._FEW_LINKS, lengths._RANGE_PIECES, lengths._RANGE_CELLS
    lengths._FEW_LINKS, lengths._RANGE_PIECES, lengths._RANGE_CELLS = 0, 0, 1 << 30  # small: counted anyway
    try:
        found = lengths._ranged(ends, routing, prefixes, "spine", a, "core", first, count, links)
    finally:
        lengths._FEW_LINKS, lengths._RANGE_PIECES, lengths._RANGE_CELLS = saved
    if not count.any():  # no link: nothing counted
        assert found is None
        return
    assert found is not None
    compacted = lengths._compacted(ends, routing, prefixes, *expanded)
    assert compacted is not None
    for x, y in zip(found, compacted, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)
    measured = lengths._measured(ends, routing, prefixes, *expanded)
    assert int(found[1].sum()) == int(measured[1].sum())
    assert lengths.bin_lengths("spine-core", *found) == lengths.bin_lengths("spine-core", *measured)



@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ranged_arrangement(), st.integers(0, 2 ** 32 - 1))
def test_pair_keys_are_the_tray_distance_and_route(arranged, seed):
    """``_pair_keys`` (made in place) is each rack pair's distance along the trays [um] x 3 + its route code (0 in one
    rack, 1 along a row, 2 across rows), as ``_tray_m`` and ``pair_lengths`` say, and ``_pair_classes`` its distinct
    values and each pair's place among them, on random racks and pairs (some inside one rack)."""
    import numpy as np

    from core.physical.lengths import _pair_classes, _pair_keys, _tray_m, pair_lengths
    from core.physical.racks import load_racks

    ends = arranged[0]
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 200))
    pa = rng.integers(0, len(ends.top), count)
    pb = np.where(rng.random(count) < 0.2, pa, rng.integers(0, len(ends.top), count))
    middle = np.full(count, 10.0)
    _length, route = pair_lengths(ends, load_racks().routing, pa, middle, pb, middle)
    expected = np.rint(_tray_m(ends, pa, pb) * 1e6).astype(np.int64) * 3 + route
    assert np.array_equal(_pair_keys(ends, pa, pb), expected)
    classes, of_class = _pair_classes(ends, pa, pb)
    assert all(np.array_equal(x, y) for x, y in zip((classes, of_class), np.unique(expected, return_inverse=True)))

@st.composite
def _group_pairs(draw):
    """A random small arrangement of groups that stand alike (``LinkEnds`` made by hand: each group's racks one
    template's, at a random place along and across the rows; each device in the same rack of its group's and slot
    as the first group's) and random links between groups (``Wiring.pair_blocks``: per entry a distance and the two
    devices' offsets), in one plane; sometimes one device moved, so the groups no longer stand alike."""
    import numpy as np

    from core.physical.lengths import LinkEnds

    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    groups, size, template = draw(st.integers(2, 14)), draw(st.integers(1, 6)), draw(st.integers(1, 3))
    along = rng.integers(0, 6, template) * 0.6  # the template's racks: along and across (rows) from its first
    rows = rng.integers(0, 2, template)
    along[0], rows[0] = 0.0, 0
    tops = rng.choice([42.0, 48.0], template)
    base_x = rng.integers(0, 8, groups) * 0.6 + rng.integers(0, 3, groups) * 0.001
    base_row = rng.integers(0, 5, groups)
    ends = LinkEnds.__new__(LinkEnds)
    ends.layout, ends._located = None, {}
    ends.x = (base_x[:, None] + along[None, :]).ravel()
    ends.row = (base_row[:, None] + rows[None, :]).ravel()
    ends.y = ends.row * 2.4
    ends.top = np.tile(tops, groups)
    rack = rng.integers(0, template, size)  # each device's rack of its group and its slot's first U
    rack[0] = 0
    first_u = rng.integers(1, 30, size).astype(float)
    where = (np.arange(groups)[:, None] * template + rack[None, :]).ravel()
    first = np.tile(first_u, groups)
    if draw(st.booleans()):  # one device elsewhere: the groups no longer stand alike
        first[int(rng.integers(size, groups * size)) if groups * size > size else 0] += 1
    ends._tables = {"p0.spine": (np.arange(groups * size), where, first, np.ones(groups * size))}
    entries = draw(st.integers(1, 3 * groups))
    d = np.sort(rng.integers(1, groups, entries))
    offset_a, offset_b = rng.integers(0, size, entries), rng.integers(0, size, entries)
    return ends, groups, size, d.astype(np.int64), offset_a.astype(np.int64), offset_b.astype(np.int64)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_group_pairs())
def test_links_between_groups_counted_per_place_give_the_per_link_bins(arranged):
    """``_pair_blocks`` (the links between groups counted per distance between the groups and pair of group places,
    each kind measured once) gives the same bins as every link measured (``_measured``) on random arrangements of
    groups that stand alike, and declines (``None``) where they do not."""
    import numpy as np

    import core.physical.lengths as lengths
    from core.physical.racks import load_racks

    ends, groups, size, d, offset_a, offset_b = arranged
    routing = load_racks().routing
    found = lengths._pair_blocks(ends, routing, "p0.", "spine", groups, size, d, offset_a, offset_b)
    each = np.repeat(np.arange(len(d)), groups - d)  # every link: entry by entry, group by group
    group = np.arange(len(each)) - np.repeat(np.cumsum(groups - d) - (groups - d), groups - d)
    a, b = group * size + offset_a[each], (group + d[each]) * size + offset_b[each]
    measured = lengths._measured(ends, routing, ["p0."], "spine", a, "spine", b, np.ones(len(a), dtype=np.int64))
    racks = ends.locate_all(["p0.spine"], groups * size)[0][0].reshape(groups, size)
    centres = ends.locate_all(["p0.spine"], groups * size)[1][0].reshape(groups, size)
    if not (centres == centres[0]).all():
        assert found is None
        return
    assert found is not None and int(found[1].sum()) == len(a)
    assert lengths.bin_lengths("global", *found) == lengths.bin_lengths("global", *measured)
    # link by link: the same (length, route) of every link, bit for bit
    expanded = sorted(zip(np.repeat(found[0], found[1]).tolist(), np.repeat(found[2], found[1]).tolist()))
    assert expanded == sorted(zip(measured[0].tolist(), measured[2].tolist()))
    assert racks.shape == (groups, size)
