"""Pods on three tiers: the spine-core switch-side optics of every pod are counted by end (``core.analysis.podoptics``,
the shared spines' rule one tier up): at the pod's own spines and at the shared cores as the design plans them (their
model, count, groups and cages at the core speed), not at the cores each pod alone would have."""

from __future__ import annotations

from core.analysis.whole import design_mixed
from core.design import Design


def _rows(mixed, end: str) -> list:
    return [r for r in mixed.bom if r.category == "transceiver" and not r.spare and r.item.endswith(f"({end})")]


def test_the_core_end_is_the_shared_cores():
    """H100 x 64 nodes and B200 x 32 nodes on three tiers: 8 shared Q3400 cores at 800G in 4 groups of 2. By hand:
    pod 1 has 16 QM9700 spines with 32 uplinks at 400G (2 ports per cage): 16 x ceil(32/2) = 256 at its spines; 4 of
    its spines under each core, 16 links each to each core of their group, one 800G port each: 64 ports per core,
    8 x ceil(64/2) = 256 at the cores. Pod 2 has 4 Q3400 spines with 64 uplinks at 800G: 4 x 32 = 128 at its spines;
    1 spine under each core, 32 ports: 8 x 16 = 128 at the cores."""
    mixed = design_mixed(Design(gpu="H100", nodes=64, pods="B200:32:800", tiers="3"))
    f = mixed.fabric
    assert (f.core_switch, f.cores, f.core_groups, f.core_speed_gbps) == ("Q3400", 8, 4, 800)
    assert not _rows(mixed, "switch side, spine-core")  # no row counted at the pods' own cores any more
    spines, cores = _rows(mixed, "spine end, spine-core"), _rows(mixed, "shared core end, spine-core")
    assert [r.quantity for r in spines] == [256, 128] and [r.quantity for r in cores] == [256, 128]
    assert all("8 cores (Q3400)" in r.why and "QM9700" not in r.why for r in cores)
    assert "pod 1's 64 spine uplinks at 400G to each core take 64 of its 800G ports" in cores[0].why
    assert "16 spines (QM9700) x ceil(32/2)" in spines[0].why and "4 spines (Q3400) x ceil(64/2)" in spines[1].why
