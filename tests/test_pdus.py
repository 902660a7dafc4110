"""A single fabric's rack PDUs are those of the racks its layout builds (``core.plan.as_built``): the out-of-band
network's PDU devices and ``pdu-mgmt`` links, its switches for their ports and the in-band network for those
switches' uplinks, as the Racks tab, the review pack and NetBox show them.

Hand counts (3 PDUs a compute rack, 2 another: ``pdus_per_compute_rack``, ``pdus_per_other_rack``;
``assets/catalog/networks.toml``), the racks read off each layout's Racks tab:

* 64 DGX H100, rail-optimized: 16 compute racks (4 nodes each) + 5 others (3 network, 1 storage, 1 management):
  16 x 3 + 5 x 2 = 58 PDUs (the estimate before the layout: 16 x 3 + (2 SUs + 2) x 2 = 56). Out-of-band ports:
  64 BMCs + 38 switch management ports + 22 appliance ports + 58 PDUs = 182, ceil(182 / 48) = 4 switches.
* 64 DGX H100, top-of-rack Ethernet: 32 compute racks (a leaf and 3 nodes, then 1 node, per pair) + 3 others
  (network, storage, management): 32 x 3 + 3 x 2 = 102 PDUs (estimate 56). Ports: 64 + 30 + 18 + 102 = 214,
  ceil(214 / 48) = 5 switches (the estimate's 168 ports gave 4), so 5 x 2 = 10 in-band ``oob-uplink`` links.
* 72 GB200 NVL72 trays: 4 NVL72 racks + 7 others (5 network, 1 storage, 1 management): 4 x 3 + 7 x 2 = 26
  (estimate 24).
* 1,024 DGX H100 on three tiers (QM9700): 256 compute racks + 62 others (44 network, 13 storage, 5 management):
  256 x 3 + 62 x 2 = 892 (estimate 836).
"""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from core.design import Design
from core.networks import size_networks
from core.networks.management import rack_pdus
from core.plan import as_built, built_counts, plan

CASES = {
    "rail-optimized 64": (Design(gpu="H100", nodes=64), (16, 5), 58, 56),
    "top-of-rack 64": (Design(gpu="H100", nodes=64, topology="top-of-rack", fabric="ethernet"), (32, 3), 102, 56),
    "GB200 NVL72": (Design(gpu="GB200-NVL72", nodes=72), (4, 7), 26, 24),
    "3-tier 1024": (Design(gpu="H100", nodes=1024, switch="QM9700", tiers=3), (256, 62), 892, 836),
}


@pytest.mark.parametrize("name", list(CASES))
def test_pdus_are_the_layouts_racks_by_hand(name):
    design, racks, pdus, estimate = CASES[name]
    p = plan(design)
    oob = p.networks.oob
    shown = p.racks_summary()  # the Racks tab's counts
    assert (shown["compute"], shown["total"] - shown["compute"]) == racks == built_counts(p.layout)
    by_rack = sum(3 if rack.kind == "compute" else 2 for rack in p.layout.racks)
    assert oob.devices_of("pdu") == oob.links_of("pdu-mgmt") == by_rack == pdus == rack_pdus(racks)
    line = ("Rack PDUs of the racks as the layout builds them: {:,} = {:,} compute racks x 3 + {} other racks x 2 (the "
            "estimate before the layout was {:,}).").format(pdus, racks[0], racks[1], estimate)
    assert line in oob.explanation
    bill = sum(r.quantity for r in p.bom if r.network == "oob" and r.category == "switch" and not r.spare)
    assert bill == oob.switch_count
    assert p.networks.inband.links_of("oob-uplink") == 2 * oob.switch_count


def test_out_of_band_switches_by_hand():
    rail = plan(CASES["rail-optimized 64"][0]).networks
    assert rail.oob.switch_count == 4 and rail.oob.links_of("bmc") + rail.oob.links_of("switch-mgmt") + \
        rail.oob.links_of("device-mgmt") + rail.oob.links_of("pdu-mgmt") == 64 + 38 + 22 + 58
    tor = plan(CASES["top-of-rack 64"][0]).networks
    assert tor.oob.links_of("bmc") + tor.oob.links_of("switch-mgmt") + tor.oob.links_of("device-mgmt") == 64 + 30 + 18
    assert tor.oob.switch_count == 5 and tor.inband.links_of("oob-uplink") == 10  # ceil(214 / 48); 2 uplinks each


MORE = {"torus 64": Design(gpu="B300", gpus=64, topology="torus"),
        "Dragonfly+ 1024": Design(gpu="H100", gpus=1024, switch="QM9700", topology="dragonfly"),
        "rail-only 64": Design(gpu="H100", nodes=64, topology="rail-only"),
        "NVL576": Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576)}
"""Other families for the fixed point (every design of ``tools.equivalence.PHYSICAL_GRID`` up to 16,384 GPUs
converged when this was written)."""


@pytest.mark.parametrize("name", [*CASES, *MORE])
def test_the_fixed_point_holds(name):
    """The networks are sized for the racks the layout builds from them, the layout holds their switches (ids), and
    sizing once more for its racks changes nothing: ``as_built`` converged within its bound."""
    p = plan(CASES[name][0] if name in CASES else MORE[name])
    assert p.networks.oob.devices_of("pdu") == sum(3 if rack.kind == "compute" else 2 for rack in p.layout.racks)
    catalog = load_catalog()
    again = size_networks(p.resolved, p.fabric, catalog, built_counts(p.layout))
    assert again == p.networks
    placed = {f"{s.prefix}{s.start + k}" for rack in p.layout.racks for s in rack.slots
              if s.kind in ("management", "storage") for k in range(s.count)}
    wanted = {i for n in p.networks.sized() for g in n.switches for i in g.ids()}
    assert wanted <= placed
    networks, arrangement, racks = as_built(p.resolved, p.fabric, catalog)
    assert networks == p.networks and racks == built_counts(arrangement) == built_counts(p.layout)


def test_the_review_pack_and_netbox_show_the_same_pdus():
    from core.formats.netbox import devices
    from core.formats.report import design_report_html

    p = plan(CASES["top-of-rack 64"][0])
    html = design_report_html(p, name="", share_link="")
    assert "Rack PDUs of the racks as the layout builds them: 102 = 32 compute racks x 3" in html
    assert sum(1 for row in devices(p) if row[0].startswith("pdu")) == 102
