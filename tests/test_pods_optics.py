"""The mixed-pods bill describes the shared spine layer it plans (core.analysis.podoptics): the leaf-spine optics
at the shared spines' end counted on those spines, in their cages, and the nodes' NIC words."""

from __future__ import annotations

import math

from core.analysis.pods import mixed_plan
from core.catalog import load_catalog
from core.design import Design

BROWNFIELD = Design(gpu="H100", nodes=64, pods="B200:32:800")
"""H100 pod (400G QM9700 leaves) and B200 pod (800G Q3400 leaves) under 8 shared Q3400 spines."""
BREAKOUT = Design(gpu="H100", nodes=64, fabric="ethernet", uplink_speed_gbps=800, pods="H100:32@1")
"""Pod 2's 400G uplinks break out of the shared SN5600 spines' 800G ports (2 per port)."""


def _ends(mixed, pod: int) -> dict[str, int]:
    """Pod ``pod``'s (0-based) compute leaf-spine switch-side modules by end: item tail -> quantity."""
    start = [i for i, row in enumerate(mixed.bom) if row.category == "compute"] + [len(mixed.bom)]
    rows = mixed.bom[start[pod]:start[pod + 1]]
    out: dict[str, int] = {}
    for row in rows:
        if row.category == "transceiver" and row.network == "compute" and "leaf-spine" in row.item:
            end = row.item.rsplit("(", 1)[1]
            out[end] = out.get(end, 0) + row.quantity
    return out


def test_spine_end_optics_are_counted_on_the_shared_spines_by_hand():
    # 8 shared Q3400 spines (2 ports per OSFP cage at 800G). Pod 1: 16 QM9700 leaves x 32 uplinks at 400G, 4 to
    # each spine: 64 ports (whole 800G ports run at 400G) per spine -> 8 x ceil(64/2) = 256 modules at the spine
    # end, 16 x ceil(32/2) = 256 at the leaves. Pod 2: 8 Q3400 leaves x 32 uplinks at 800G: 32 ports per spine ->
    # 8 x ceil(32/2) = 128, and 8 x 16 = 128 at the leaves.
    mixed = mixed_plan(BROWNFIELD)
    assert (mixed.fabric.spines, mixed.fabric.spine_switch) == (8, "Q3400")
    assert _ends(mixed, 0) == {"leaf end, leaf-spine)": 256, "shared spine end, leaf-spine)": 256}
    assert _ends(mixed, 1) == {"leaf end, leaf-spine)": 128, "shared spine end, leaf-spine)": 128}
    spine_rows = [row for row in mixed.bom if row.item.endswith("(shared spine end, leaf-spine)")]
    assert spine_rows and all("8 spines (Q3400)" in row.why for row in spine_rows)
    # no row of the bill describes a pod's own spine layer (its spines alone: 8 of 64 ports, 2 of 128)
    assert not any(" spine x ceil(" in row.why for row in mixed.bom if row.network == "compute")


def test_breakout_spine_end_takes_a_module_per_spine_port():
    # Pod 2: 8 leaves x 32 uplinks at 400G, 4 to each of the 8 SN5600 spines: 32 uplinks per spine, 2 per 800G
    # port -> 16 ports; SN5600 has one 800G port per cage, so 8 x ceil(16/1) = 128 modules of 2 x 400G (the pod
    # alone counted its own 2 spines: 2 x ceil(128/2) = 64).
    mixed = mixed_plan(BREAKOUT)
    spine = load_catalog().switch(mixed.fabric.spine_switch)
    pod = mixed.fabric.pods[1]
    per_cage = spine.ports_per_cage(mixed.fabric.spine_speed_gbps)
    assert (pod.uplinks_per_spine_port, per_cage) == (2, 1)
    assert _ends(mixed, 1)["shared spine end, leaf-spine)"] == 8 * math.ceil(16 / 1) == 128
    catalog = load_catalog()
    for row in mixed.bom:
        if row.item.endswith("(shared spine end, leaf-spine)") and "400G" in row.why:
            assert catalog.transceiver(row.catalog_id).logical_ports == per_cage * 2  # two uplinks per module


def test_node_row_names_the_nics_listed():
    mixed = mixed_plan(BROWNFIELD)
    b200 = next(row for row in mixed.bom if row.catalog_id == "B200")
    assert "CX8" in b200.why and "CX8" in {row.catalog_id for row in mixed.bom if row.category == "NIC"}
    h100 = next(row for row in mixed.bom if row.catalog_id == "H100")
    assert "CX7 NICs, listed below" in h100.why
