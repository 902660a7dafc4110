"""The out-of-band management of a design with pods (core.analysis.podmgmt): the cabling plan and NetBox exports
cable every shared spine's management port and the shared spine racks' PDUs, and the bill counts the cables the
plan draws."""

from __future__ import annotations

import pytest

from core.analysis.podmgmt import shared_pdus, shared_racks
from core.analysis.pods import mixed_plan
from core.design import Design
from core.formats.podnetbox import mixed_cabling_rows, mixed_devices

MANAGEMENT = ("bmc", "switch-mgmt", "device-mgmt", "pdu-mgmt")


def _bill_links(mixed, kind: str) -> int:
    """Cables the mixed bill buys for the out-of-band link class ``kind`` (its rows' "N links: <description>")."""
    descriptions = {link.description for p in mixed.plans if p.networks and p.networks.oob
                    for link in p.networks.oob.links if link.kind == kind}
    return sum(row.quantity for row in mixed.bom if row.network == "oob" and row.category == "cable"
               and any(row.why.endswith(": " + d) for d in descriptions))


@pytest.mark.parametrize("pods", ["B200:32:800", "B200:16"])
def test_the_cabling_plans_management_cables_are_the_bills(pods):
    mixed = mixed_plan(Design(nodes=64, pods=pods))
    rows = list(mixed_cabling_rows(mixed, None))
    for kind in MANAGEMENT:
        drawn = sum(1 for r in rows if r.link_class == kind)
        assert drawn == _bill_links(mixed, kind), kind
    managed = {r.a_device for r in rows if r.link_class == "switch-mgmt"}
    from core.formats.netbox import devices

    spines = [d[0] for d in mixed_devices(mixed, None, "site", devices)
              if d[1] == "Spine switch"]
    assert spines and all(s in managed for s in spines)  # every shared spine has its management cable
    ports = [(r.z_device, r.z_port) for r in rows if r.network == "oob" and r.link_class in MANAGEMENT]
    assert len(ports) == len(set(ports))  # no out-of-band switch port taken twice


def test_the_shared_spine_racks_have_pdus_in_the_exports():
    mixed = mixed_plan(Design(nodes=64, pods="B200:32:800"))
    assert shared_racks(mixed.hall) and shared_pdus(mixed.hall) > 0
    from core.formats.netbox import devices

    names = {d[0] for d in mixed_devices(mixed, None, "site", devices)}
    pdus = [r for r in mixed_cabling_rows(mixed, None)
            if r.link_class == "pdu-mgmt" and not r.a_device.startswith("pod")]
    assert len(pdus) == shared_pdus(mixed.hall)
    assert all(r.a_device in names and r.z_device in names for r in pdus)


@pytest.mark.parametrize("pods", ["B200:32:800", "B200:128"])
def test_the_first_pods_oob_switches_are_resized_for_the_shared_layer_in_bill_cabling_and_netbox(pods):
    """The first pod's out-of-band switches serve its own ports and the shared spines' and their racks' PDUs': the
    bill's count and "x of y ports used", the cabling plan's switches and ports and NetBox's switches agree (with
    32 shared spines the first pod of 24 nodes' 2 switches alone have no room: a third is added; of 32 nodes, its
    own layout's racks' PDUs already give it 3)."""
    import re

    from core.formats.netbox import devices

    mixed = mixed_plan(Design(nodes=24 if pods == "B200:128" else 64, pods=pods))
    rows = [r for r in mixed_cabling_rows(mixed, None) if r.network == "oob" and r.link_class in MANAGEMENT]
    cabled: dict[str, int] = {}
    for r in rows:
        if r.z_device.startswith("pod1-oob-switch"):
            cabled[r.z_device] = cabled.get(r.z_device, 0) + 1
    bill = next(r for r in mixed.bom if r.network == "oob" and r.category == "switch")
    count, used, radix = map(int, re.search(r"(\d+) x (\d+) of (\d+) ports used", bill.why).groups())
    netbox = [d[0] for d in mixed_devices(mixed, None, "site", devices) if d[0].startswith("pod1-oob-switch")]
    assert bill.quantity == count == len(cabled) == len(netbox) and set(netbox) == set(cabled)
    assert all(n <= radix for n in cabled.values())
    assert (used - 1) * count < sum(cabled.values()) <= used * count  # "x of y ports used": ceil(ports / switches)
    own = mixed.plans[0].networks.oob.switches[0].count
    assert count == (own + 1 if pods == "B200:128" else own)


TOR = Design(gpu="H100", nodes=64, topology="top-of-rack", fabric="ethernet", pods="H100:64")
"""Two pods of 64 DGX H100 on top-of-rack Ethernet: each pod's hall keeps 32 compute racks (16 pairs: a leaf and 3
nodes, then 1 node) and 2 others (management, storage), so 32 x 3 + 2 x 2 = 100 rack PDUs where each pod alone
has 102 in its own layout (32 x 3 + 3 x 2, ``core.plan.as_built``; the estimate before any layout was 56)."""


def test_racks_as_built_out_of_band_switches_agree_in_bill_hall_netbox_and_cabling():
    """By hand: pod 2's out-of-band ports are 64 BMCs + (30 - 4 own spines) switch ports + 18 appliance ports + 100
    PDUs = 208, ceil(208 / 48) = 5 switches, as many as alone (64 + 30 + 18 + 102 = 214 ports); pod 1's also take
    the 8 shared spines' ports and their rack's 2 PDUs: 218, 5 switches. No switch is added: each pod's five stand
    in its own racks, none in the shared rows; each is a NetBox device with its 2 uplinks; no switch port is taken
    twice or past the 48th."""
    import re

    from core.formats.netbox import devices

    mixed = mixed_plan(TOR)
    bill = [r for r in mixed.bom if r.network == "oob" and r.category == "switch"]
    assert [r.quantity for r in bill] == [5, 5]
    assert [int(re.search(r"(\d+) x (\d+) of", r.why).group(2)) for r in bill] == [44, 42]  # ceil(218/5), ceil(208/5)
    shared = [s.prefix + str(s.start) for r in mixed.hall.layout.racks if not mixed.hall.pods_of_rows[r.row]
              for s in r.slots if s.kind == "management"]
    assert shared == []
    names = [d[0] for d in mixed_devices(mixed, None, "site", devices) if "-oob-switch" in d[0]]
    assert sorted(names) == sorted(f"pod{p}-oob-switch{k:03d}" for p in (1, 2) for k in range(1, 6))
    rows = list(mixed_cabling_rows(mixed, None))
    for kind in MANAGEMENT:
        assert sum(1 for r in rows if r.link_class == kind) == _bill_links(mixed, kind), kind
    cabled: dict[str, int] = {}
    for r in rows:
        if r.network == "oob" and r.link_class in MANAGEMENT:
            cabled[r.z_device] = cabled.get(r.z_device, 0) + 1
    assert set(cabled) == set(names) and max(cabled.values()) <= 48
    ends = [(r.z_device, r.z_port) for r in rows if r.network == "oob" and r.link_class in MANAGEMENT]
    assert len(ends) == len(set(ends))
    uplinks = [r for r in rows if r.link_class == "oob-uplink"]
    assert sum(1 for r in uplinks if r.a_device.startswith("pod2-")) == 5 * 2
    assert {r.a_device for r in uplinks} == set(names)


def test_the_racks_tab_says_where_each_pods_added_switch_stands():
    """The first pod of 24 nodes' third switch (``test_the_first_pods_oob_switches_are_resized...``) is named where
    it stands; pods whose own switches have room (``TOR``: their own layouts' racks' PDUs sized them) get no note."""
    from core.figures.podracks import hall_notes

    notes = hall_notes(mixed_plan(Design(nodes=24, pods="B200:128")))
    assert any("to pod 1's management network" in n for n in notes)
    assert not any("management network for its racks' PDUs" in n or "to pod 1's management network" in n
                   for n in hall_notes(mixed_plan(TOR)))