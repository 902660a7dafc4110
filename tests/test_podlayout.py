"""The hall of a design with pods (core.physical.podlayout): every pod's racks and the shared spines' on one floor,
every compute link measured there, checked link by link against positions on small designs; the mixed bill's media
follow those lengths."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from core.analysis.pods import mixed_links, mixed_plan, mixed_wiring
from core.design import Design
from core.errors import InputError
from core.physical.lengths import BIN_EDGES_M, length_m
from core.physical.podlayout import LINK_CLASSES, pods_link_arrays
from core.physical.racks import load_racks

DESIGNS = {
    "two": Design(gpu="H100", nodes=64, pods="B200:32:800"),
    "three": Design(gpu="H100", nodes=32, pods="B200:16:800,H100:16"),
    "wide": Design(gpu="H100", nodes=256, pods="B200:64:800"),
    "tiers3": Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=3),
}
"""Pods under one shared spine layer, and on three tiers (tiers3: each pod's own spines under the shared cores)."""


def _wiring(mixed):
    return mixed_wiring(mixed, three_tiers=True)


def _shared_ids(mixed, wiring) -> list[str]:
    """The shared layer's device ids: the shared spines, or the shared cores on three tiers."""
    if wiring.three_tiers:
        return [wiring.core_id(k) for k in range(mixed.fabric.cores)]
    return [wiring.spine_id(j) for j in range(mixed.fabric.spines)]


@pytest.fixture(scope="module", params=sorted(DESIGNS))
def mixed(request):
    return mixed_plan(DESIGNS[request.param])


def _reference(layout, a: str, z: str) -> float:
    """One link's length [m] from the two ends' positions, by the routing rule as ``core.physical.lengths`` states it
    (restated here as the reference)."""
    routing = load_racks().routing
    u_m = routing.u_mm / 1000
    ends = []
    for device in (a, z):
        place = layout.position(device)
        rack = layout.rack(place.rack)
        ends.append((rack, place.u + place.height_u / 2 - 1))
    (ra, ua), (rz, uz) = ends
    if ra.name == rz.name:
        run = abs(ua - uz) * u_m + routing.in_rack_m
    else:
        run = ((ra.u_total - ua) * u_m + routing.tray_above_rack_m + (rz.u_total - uz) * u_m
               + routing.tray_above_rack_m + abs(ra.x_m - rz.x_m) + abs(ra.y_m - rz.y_m))
    return run * (1 + routing.slack_fraction) + 2 * routing.slack_end_m


def _bin(length: float) -> int:
    return next(b for b in range(len(BIN_EDGES_M) - 1) if length <= BIN_EDGES_M[b + 1])


def test_every_link_is_measured_between_its_ends_places(mixed):
    """Brute force: every bundle's length is the reference from its two ends' racks and U (and ``length_m``'s), and
    the bins hold the reference's links."""
    wiring, hall = _wiring(mixed), mixed.hall
    arrays = pods_link_arrays(hall, wiring)
    reference: dict[tuple[int, str], Counter] = {}
    measured = 0
    for (pod, link_class), (lengths, links, _routes, a_ids, b_ids) in arrays.items():
        for length, count, a, b in zip(lengths, links, a_ids, b_ids):
            expected = _reference(hall.layout, a, b)
            assert length == pytest.approx(expected, abs=1e-9), (a, b)
            assert length_m(hall.layout, a, b) == pytest.approx(expected, abs=1e-9)
            reference.setdefault((pod, link_class), Counter())[_bin(expected)] += int(count)
            measured += 1
    assert measured == sum(1 for _bundle in wiring.bundles())
    for pod, classes in enumerate(mixed.lengths):
        for item in classes:
            got = Counter({_bin(b.max_m): b.links for b in item.bins})
            assert got == reference[pod, item.link_class]


def test_counts_add_up_to_the_wirings_links(mixed):
    """Per pod the hall's link classes hold its node-leaf links, its leaf uplinks and on three tiers its spines'
    core uplinks (N_p x U_p), and no other."""
    wiring = _wiring(mixed)
    for pod, (classes, own) in enumerate(zip(mixed.lengths, mixed.plans)):
        by_class = {item.link_class: item.links for item in classes}
        f = mixed.fabric.pods[pod]
        core = f.own_spines * f.spine_uplinks
        assert tuple(by_class) == (LINK_CLASSES if wiring.three_tiers else LINK_CLASSES[:2])
        assert (core > 0) == wiring.three_tiers
        node_leaf = int(wiring.wirings[pod].bundle_arrays("node-leaf")[4].sum())
        assert by_class["node-leaf"] == node_leaf == next(x.links for x in own.lengths if x.link_class == "node-leaf")
        assert by_class["leaf-spine"] == f.uplinks
        assert by_class.get("spine-core", 0) == core
        assert sum(b.links for item in classes for b in item.bins) == node_leaf + f.uplinks + core
    assert sum(b.count for b in wiring.bundles() if b.kind == "leaf-spine") == sum(p.uplinks for p in mixed.fabric.pods)


def test_the_hall_holds_every_pod_device_at_its_own_U_and_the_shared_spines(mixed):
    """Every device a pod's own layout places but its own spines (three tiers: its own cores) stands in the hall at
    the same U and in a rack of the same kind (under the pod prefix, in the pod's view under its own id); the shared
    spines (cores) stand in network racks of central rows in the middle; rack names are unique."""
    wiring, hall = _wiring(mixed), mixed.hall
    names = [r.name for r in hall.layout.racks]
    assert len(names) == len(set(names))
    dropped = "core" if wiring.three_tiers else "spine"
    for pod, own in enumerate(mixed.plans):
        for rack in own.layout.racks:
            for slot in rack.slots:
                for device in slot.ids():
                    if slot.kind == dropped:
                        with pytest.raises(InputError):
                            hall.views[pod].position(device)
                        continue
                    there = hall.layout.position(wiring.local_id(pod, device))
                    assert there.u == own.layout.position(device).u
                    assert there == hall.views[pod].position(device)
                    assert there.rack == hall.rack_names[pod][rack.name]
                    placed = hall.layout.rack(there.rack)
                    assert (placed.kind, placed.kw, placed.u_used) == (rack.kind, rack.kw, rack.u_used)
    rows = set()
    shared = _shared_ids(mixed, wiring)
    for device in shared:
        place = hall.layout.position(device)
        assert hall.layout.rack(place.rack).kind == "network"
        rows.add(place.row)
    assert all(hall.pods_of_rows[row] == () for row in rows)
    pod_rows = [row for row, pods in enumerate(hall.pods_of_rows) if pods]
    assert min(rows) == len(pod_rows) // 2  # after the first half of the pods' rows
    assert hall.spine_racks == len({hall.layout.position(device).rack for device in shared})


def test_node_leaf_lengths_are_the_pods_own_and_uplinks_run_to_the_shared_spines(mixed):
    """Node-leaf lengths are the pod's own; the cables to the shared layer (leaf-spine, three tiers spine-core) run
    across rows, to the shared rows."""
    three = mixed.fabric.tiers == 3
    for classes, own in zip(mixed.lengths, mixed.plans):
        alone = {x.link_class: x for x in own.lengths}
        hall = {x.link_class: x for x in classes}
        assert hall["node-leaf"].model_dump() == pytest.approx(alone["node-leaf"].model_dump())
        assert hall["spine-core" if three else "leaf-spine"].bins[-1].route == "across-rows"


def test_the_mixed_bill_takes_the_media_of_the_hall_lengths():
    """Leaf-spine cables of each pod in the bill: one row per length bin of the hall's lengths, with its links (the
    Racks tab's chart and the bill agree); on the wide design a pod's uplinks fall in other bins than alone."""
    mixed = mixed_plan(DESIGNS["wide"])
    moved = False
    for pod, (classes, own, media) in enumerate(zip(mixed.lengths, mixed.plans, mixed.media)):
        uplinks = next(x for x in classes if x.link_class == "leaf-spine")
        chosen = [m for m in media if m.link_class == "leaf-spine"]
        assert [(m.label(), m.links) for m in chosen] == [(b.label(), b.links) for b in uplinks.bins]
        assert all(m.reach_m >= m.max_m for m in chosen)
        alone = next(x for x in own.lengths if x.link_class == "leaf-spine")
        moved |= [b.label() for b in alone.bins] != [b.label() for b in uplinks.bins]
        for m in chosen:
            part = m.cable_id or m.fibre_id
            rows = [r for r in mixed.bom if r.catalog_id == part and f"leaf-spine, {m.label()}" in r.item]
            assert sum(r.quantity for r in rows) >= m.links
    assert moved
    total = sum(r.quantity for r in mixed.bom if r.category == "cable" and "leaf-spine, " in r.item
                and r.network == "compute")
    assert total == sum(p.uplinks for p in mixed.fabric.pods)


def test_a_pod_bill_rebuilt_with_its_own_media_is_its_own_bill():
    """The mixed bill rebuilds each pod's bill with the hall's media (core.cost.build_bom): with the pod's own media
    it is the pod's own bill, row for row."""
    from core.catalog import load_catalog
    from core.cost import build_bom

    for p in mixed_plan(DESIGNS["two"]).plans:
        assert build_bom(p.resolved, p.fabric, load_catalog(), media=p.media, networks=p.networks) == p.bom


def test_lengths_are_finite_and_routes_known(mixed):
    for (_pod, _class), (lengths, links, routes, _a, _b) in pods_link_arrays(mixed.hall, _wiring(mixed)).items():
        assert np.isfinite(lengths).all() and (links > 0).all() and set(routes.tolist()) <= {0, 1, 2}


@pytest.mark.parametrize("name", ["wide", "tiers3"])
def test_the_cabling_plan_measures_every_compute_cable_in_the_hall(name):
    """The cabling plan of a design with pods (the CSV and XLSX, NetBox's cables): each compute cable's racks are
    the hall's, its length the reference between its ends' places rounded up to 0.1 m, and its part that of its
    length bin among the pod's hall media (which the bill counts); on three tiers the spine-core cables too."""
    from core.formats.podnetbox import mixed_cabling_rows
    from core.physical.media import media_for

    mixed = mixed_plan(DESIGNS[name])
    wiring, layout = _wiring(mixed), mixed.hall.layout
    rows = [r for r in mixed_cabling_rows(mixed, None) if r.network == "compute" and r.link_class in LINK_CLASSES]
    links = list(mixed_links(mixed))
    assert len(rows) == len(links)
    for row, (kind, a, _a_port, z, _z_port, _speed) in zip(rows, links):
        assert row.link_class == kind
        expected = math.ceil(_reference(layout, a, z) * 10 - 1e-6) / 10
        assert row.length_m == pytest.approx(expected), (a, z)
        assert (row.a_rack, row.z_rack) == (layout.position(a).rack, layout.position(z).rack)
        pod = wiring.parse(a)[0]
        chosen = media_for(mixed.media[pod], kind, row.length_m)
        assert row.cable_part == (chosen.cable_id or chosen.fibre_id)
    shared = "spine-core" if name == "tiers3" else "leaf-spine"
    uplinks = [r for r in rows if r.link_class == shared]
    assert uplinks and max(r.length_m for r in uplinks) >= max(x.max_m for c in mixed.lengths for x in c
                                                               if x.link_class == shared)


@pytest.mark.parametrize("name", ["two", "tiers3"])
def test_extra_out_of_band_switches_fill_the_shared_racks_then_racks_of_their_own(name):
    """However many extra out-of-band switches the shared layer needs, each stands once, within its rack's U and
    power, in the shared rows; when the shared racks are full they get racks of their own, whose PDUs raise the
    count again (here 40 + 30 per shared rack): the count placed is the count for the racks the hall ends with."""
    from core.catalog import load_catalog
    from core.physical.podlayout import ExtraSwitches, pods_hall

    mixed = mixed_plan(DESIGNS[name])
    wiring = _wiring(mixed)
    f = mixed.fabric
    top = load_catalog().switch(f.core_switch if wiring.three_tiers else f.spine_switch)
    extra = ExtraSwitches("SN2201", "pod1.oob.switch", 7, 1.0, 100.0, lambda racks: 40 + 30 * racks)
    hall = pods_hall(wiring, [p.layout for p in mixed.plans], top, top.power_w, extra=(extra,))
    placed = [(rack, slot) for rack in hall.layout.racks for slot in rack.slots
              if slot.prefix == extra.prefix and slot.start >= extra.first]  # the pod's own are 0 .. 6
    ids = [i for _rack, slot in placed for i in slot.ids()]
    assert ids == [f"pod1.oob.switch{k}" for k in range(7, 7 + 40 + 30 * hall.spine_racks)]
    assert hall.spine_racks > len({hall.layout.position(d).rack for d in _shared_ids(mixed, wiring)})  # own racks
    usable = load_racks().network.usable_u
    assert all(not hall.pods_of_rows[rack.row] for rack, _slot in placed)
    for rack, _slot in placed:
        assert max(s.top_u for s in rack.slots) <= usable and rack.kw <= rack.kw_limit + 1e-9
        tops = sorted((s.first_u, s.top_u) for s in rack.slots)
        assert all(a[1] < b[0] for a, b in zip(tops, tops[1:]))  # no two slots share a U
    assert {rack.kind for rack, slot in placed if len(rack.slots) == 1} == {"management"}
