"""One count for the in-band and out-of-band networks of a design with pods: the switches per pod, network and role
the mixed bill buys are those the hall places, the cabling plan cables and the NetBox import lists, and the links
per pod and class the bill counts (``core.analysis.podmgmt.mixed_networks``) are the cabling plan's rows and, summed,
the plan summary's links per network.

Each pod's out-of-band switches are re-sized on the whole design (the first pod's take the shared layer's management
ports and its racks' PDUs, any pod's its racks' PDUs as the hall builds them); their 100G uplinks re-size the pod's
in-band network, which can then need more switches than the pod alone has. Found at 46 DGX H100 with two pods of
128 DGX B200 on three tiers: the first pod's 4 out-of-band switches become 5 (the shared cores' management ports),
its in-band ports 46 x 2 + 4 head nodes x 2 + 1 NFS x 8 + 5 x 2 uplinks = 118 > 116 (one leaf pair of SN4600C:
2 x (64 - 4 uplinks - 2 ISL)), so the pair becomes 4 leaves and 2 spines; the bill bought them while the hall, the
cabling plan and NetBox kept the pod alone's pair.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from core.analysis.podmgmt import mixed_networks
from core.analysis.pods import mixed_plan
from core.analysis.whole import whole_summary
from core.design import Design
from core.formats import netbox
from core.formats.podnetbox import mixed_cabling_rows
from core.plan import plan

NETWORKS = ("inband", "oob")
_ROLE = re.compile(r", ([\w-]+)\)$")  # the bill's item ends "(in-band management, leaf)"
_ID = re.compile(r"^pod(\d+)\.(inband|oob)\.([a-z-]+?)\d*$")  # pod2.inband.leaf3, a slot's prefix pod2.oob.switch
_POD = re.compile(r"^pod(\d+)-")  # an exported name: pod2-oob-switch001

# two and three tiers, one and two planes (per-rail and, on Ethernet, per-port), node counts around the in-band
# leaf pair's limit (46, 47) and beyond (128), extra out-of-band switches (24, 64) and the design where the in-band
# network grows (the module docstring)
GRID = [
    Design(gpu="H100", nodes=24, pods="B200:128"),
    Design(gpu="H100", nodes=47, pods="B200:128"),
    Design(gpu="H100", nodes=64, pods="B200:128"),
    Design(gpu="H100", nodes=128, pods="B200:128"),
    Design(gpu="H100", nodes=24, pods="B200:128:800", tiers="3"),
    Design(gpu="H100", nodes=46, pods="B200:128,B200:128", tiers="3"),
    Design(gpu="H100", nodes=47, pods="B200:128", tiers="3"),
    Design(gpu="H100", nodes=128, pods="B200:128", tiers="3"),
    Design(gpu="H100", nodes=47, pods="B200:32:800", planes=2, plane_mode="per-rail"),
    Design(gpu="H100", nodes=47, pods="B200:32:800", planes=2, plane_mode="per-rail", tiers="3"),
    Design(gpu="H100", nodes=64, fabric="ethernet", nic="CX8", port_speed_gbps=400, pods="B200:32:400", planes=2),
]
IDS = [f"{d.nodes}-{d.pods}-t{d.tiers}-pl{d.planes}" for d in GRID]


def bill_switches(mixed) -> Counter:
    """(pod, network, role) -> switches the mixed bill buys (installed, not spares)."""
    out: Counter = Counter()
    for row in mixed.bom:
        if row.category == "switch" and row.network in NETWORKS and not row.spare:
            out[row.pod, row.network, _ROLE.search(row.item)[1]] += row.quantity
    return out


def hall_switches(mixed) -> Counter:
    """(pod, network, role) -> switches the hall's racks hold."""
    out: Counter = Counter()
    for rack in mixed.hall.layout.racks:
        for slot in rack.slots:
            found = _ID.match(slot.prefix)
            if found:
                out[int(found[1]), found[2], found[3]] += slot.count
    return out


def netbox_switches(design: Design) -> tuple[Counter, dict[str, tuple]]:
    """(pod, network, role) -> switches of the NetBox devices CSV, and each one's name -> its key."""
    out: Counter = Counter()
    names = {}
    for row in netbox.devices(plan(design)):
        found = _ID.match(row[-1])
        if found:
            key = (int(found[1]), found[2], found[3])
            out[key] += 1
            names[row[0]] = key
    return out, names


def test_the_grid_has_the_growing_design():
    """The grid holds a design whose in-band network grows on the whole design (so the test can fail)."""
    mixed = mixed_plan(GRID[IDS.index("46-B200:128,B200:128-t3-pl1")])
    whole = mixed_networks(mixed)[0]
    assert (mixed.plans[0].networks.oob.switch_count, whole.oob.switch_count) == (4, 5)
    assert (mixed.plans[0].networks.inband.switch_count, whole.inband.switch_count) == (2, 6)
    assert "+ 10 OOB uplinks = 118 ports" in whole.inband.explanation[0]


@pytest.mark.parametrize("design", GRID, ids=IDS)
def test_bill_hall_cabling_and_netbox_count_the_same_switches_and_links(design):
    mixed = mixed_plan(design)
    bill, hall = bill_switches(mixed), hall_switches(mixed)
    listed, names = netbox_switches(design)
    rows = list(mixed_cabling_rows(mixed, None))
    cabled = Counter(names[d] for d in {end for r in rows for end in (r.a_device, r.z_device) if end in names})
    assert bill and bill == hall == listed == cabled
    # every link the bill counts is a cable of the plan, and no other
    counted: Counter = Counter()
    for pod, whole in zip(mixed.fabric.pods, mixed_networks(mixed)):
        for link in (*whole.inband.links, *whole.oob.links):
            counted[pod.index + 1, link.kind] += link.count
    drawn = Counter((int((_POD.match(r.a_device) or _POD.match(r.z_device))[1]), r.link_class) for r in rows
                    if r.network in NETWORKS)
    assert +counted == drawn
    networks = whole_summary(plan(design))["networks"]  # the plan summary's (By network) links: the bill's
    for name in NETWORKS:
        assert networks[name]["links"] == sum(getattr(w, name).link_count for w in mixed_networks(mixed))
    ends = Counter((d, p) for r in rows for d, p in ((r.a_device, r.a_port), (r.z_device, r.z_port)) if p)
    assert max(ends.values()) == 1  # no port cabled twice
