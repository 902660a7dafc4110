"""The 100G uplinks of the out-of-band switches a design with pods adds for its shared layer's management
(``core.analysis.podmgmt``: the first pod's extra switches) are counted as a single fabric counts an out-of-band
switch's (``core.networks.management``: ``oob_uplinks_per_switch`` = 2 uplinks each, ports of the in-band leaves):
in the in-band network's sizing, the bill and the cabling plan. Hand counts from the designs' own numbers."""

from __future__ import annotations

import pytest

from core.analysis.podmgmt import extra_oob_switches, mixed_networks
from core.analysis.pods import mixed_plan
from core.design import Design
from core.formats.podnetbox import mixed_cabling_rows

# (design, first pod's own out-of-band switches, extra ones, in-band ports, per in-band leaf); each pod alone counts
# its own layout's racks' PDUs (``core.plan.as_built``):
# 24 DGX H100 + 128 B200 on two tiers: 2 own + 1 extra = 3 switches, 6 uplinks; in-band ports
# 24 nodes x 2 + 4 head nodes x 2 + 1 NFS x 8 + 6 = 70 on one leaf pair: 35 each.
# 24 DGX H100 + 128 B200 at 800G on three tiers: the same 2 own + 1 extra, 70 ports, 35 each.
CASES = [(Design(gpu="H100", nodes=24, pods="B200:128"), 2, 1, 70, 35),
         (Design(gpu="H100", nodes=24, pods="B200:128:800", tiers="3"), 2, 1, 70, 35)]


@pytest.mark.parametrize("design, own, extra, ports, per_leaf", CASES, ids=["two-tiers", "three-tiers"])
def test_extra_oob_switches_uplinks_are_counted(design, own, extra, ports, per_leaf):
    mixed = mixed_plan(design)
    assert mixed.plans[0].networks.oob.switch_count == own and extra_oob_switches(mixed)[2] == extra
    first = mixed_networks(mixed)[0]
    uplinks = 2 * (own + extra)
    assert first.oob.switch_count == own + extra
    assert next(l.count for l in first.inband.links if l.kind == "oob-uplink") == uplinks
    assert f"+ {uplinks} OOB uplinks = {ports} ports" in first.inband.explanation[0]
    assert [s.down_ports_used for s in first.inband.switches if s.role == "leaf"] == [per_leaf]
    # the bill buys them (pod 1's row first: the pods' bills in pod order), the cabling plan draws them
    bill = [r.quantity for r in mixed.bom if r.network == "inband" and r.why.endswith("OOB switch uplinks to leaves")]
    assert bill[0] == uplinks
    rows = [r for r in mixed_cabling_rows(mixed, None) if r.link_class == "oob-uplink"
            and r.a_device.startswith("pod1-")]
    assert len(rows) == uplinks
    assert len({r.a_device for r in rows}) == own + extra  # every switch, the extra ones too, uplinked
    ends = [(r.a_device, r.a_port) for r in rows] + [(r.z_device, r.z_port) for r in rows]
    assert len(ends) == len(set(ends))  # no port taken twice
    assert all(r.length_m for r in rows)  # measured in the hall (the extra switches stand in the shared racks)


def test_no_extra_switch_no_change():
    """Without an extra switch the in-band network is the pod alone's (the two-tier pods' outputs unchanged)."""
    mixed = mixed_plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    assert extra_oob_switches(mixed)[2] == 0
    for p, whole in zip(mixed.plans, mixed_networks(mixed)):
        assert whole.inband == p.networks.inband
