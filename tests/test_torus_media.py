"""A torus's media come from the NIC cages at both ends; the leaf fields a torus does not read are said to be
ignored and change nothing (review48 #3, media and fields)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from core.catalog import form_factor_family, load_catalog
from core.design import Design
from core.fabric.families import ignored_fields, swept_ignored, unused_fields
from core.physical.media import class_switches, family_node_classes
from core.plan import plan

BASE = dict(gpu="H100", gpus=512, fabric="ethernet", port_speed_gbps=400, topology="torus")


def _bill(p):
    return sorted((r.category, r.catalog_id, r.quantity) for r in p.bom)


def test_torus_link_class_is_node_to_node_and_has_no_switch_end():
    assert family_node_classes() == {"torus"}
    resolved = plan(Design(**BASE)).resolved
    assert "torus" not in class_switches(resolved)


@pytest.mark.parametrize("fields", [{"leaf_switch": "TH5", "spine_switch": "SN5600", "core_switch": "SN5600"},
                                    {"leaf_switch": "TH6"}, {"switch": "TH5"}, {"oversubscription": 2.0},
                                    {"tiers": "3"}])
def test_switch_fields_change_nothing_on_a_torus(fields):
    bare = plan(Design(**BASE))
    other = plan(Design(**BASE, **fields))
    assert other.cost.capex_usd == bare.cost.capex_usd
    assert _bill(other) == _bill(bare)


def test_torus_optics_are_the_nics_cage_modules_at_both_ends():
    p = plan(Design(**BASE, leaf_switch="TH5"))
    catalog = load_catalog()
    nic_cage = form_factor_family(p.resolved.nic.cage_type)
    rows = [r for r in p.bom if r.category == "transceiver" and "torus" in r.item]
    assert rows, "the 512-GPU torus has optical links between rows"
    for r in rows:
        module = catalog.transceiver(r.catalog_id)
        assert r.end == "node" and form_factor_family(module.form_factor) == nic_cage
        assert module.end in ("node", "any")  # a node-end module, chosen for the NIC's cage, not a switch's


def test_ignored_fields_are_declared_and_said():
    assert {"leaf_switch", "spine_switch", "core_switch", "oversubscription", "tiers"} <= set(ignored_fields("torus"))
    assert ignored_fields("rail-optimized") == ()
    said = unused_fields(Design(**BASE, leaf_switch="TH5", oversubscription=2.0))
    assert len(said) == 2 and all("no effect on a torus" in s for s in said)
    assert unused_fields(Design(**{**BASE, "topology": "rail-optimized"}, oversubscription=2.0)) == []
    assert "no effect on a torus" in swept_ignored(Design(**BASE), "oversubscription")
    assert swept_ignored(Design(**BASE), "nodes") is None


def test_cli_plan_and_sweep_warn():
    run = [sys.executable, "-m", "core"]
    out = subprocess.run(run + ["plan", "--gpu", "H100", "--nodes", "64", "--topology", "torus",
                                "--oversubscription", "2"], capture_output=True, text=True)
    assert out.returncode == 0 and "Oversubscription (leaf down:up) has" in out.stderr and "no effect on a torus" in out.stderr
    out = subprocess.run(run + ["sweep", "--gpu", "H100", "--nodes", "64", "--topology", "torus",
                                "--set", "oversubscription=1,2"], capture_output=True, text=True)
    assert out.returncode == 0 and "no effect on a torus" in out.stderr


def test_sweep_page_says_a_swept_setting_does_nothing_on_a_torus():
    from tests import pagetest

    open_page = pagetest.opener("../pages/5_Sweep.py")
    at = open_page({"n": "64", "t": "tr", "sw_x": "oversubscription", "sw_xv": "1,2"})
    assert not at.exception
    assert any("no effect on a torus" in str(i.value) for i in at.info)
    plain = open_page({"n": "64", "sw_x": "oversubscription", "sw_xv": "1,2"})
    assert not any("no effect on a" in str(i.value) for i in plain.info)


def test_a_100g_torus_on_osfp_nics_takes_no_qsfp28_cable_and_costs_no_more_than_400g():
    """torfix48c (rev48b #9): the DGX H100's CX7 ports are OSFP cages, so a 100G torus link cannot take the QSFP28
    DAC (no adapter in the bill); it takes the 400G OSFP-capable copper run at 100G, as the modules are. Hand
    count, 4x4x4 of 64 nodes: 192 links, of which 64 + 16 copper (<= 3 m, 3-5 m) and 96 + 16 optical, as at 400G,
    so the 100G torus's network capex is the 400G one's, not dearer."""
    from core.physical.media import cable_fits

    catalog = load_catalog()
    fast, slow = plan(Design(**BASE)), plan(Design(**{**BASE, "port_speed_gbps": 100}))
    assert form_factor_family(slow.resolved.nic.cage_type) == "OSFP"
    torus_cables = [r for r in slow.bom if r.category == "cable" and "torus" in r.item and r.catalog_id != ""
                    and any(c.id == r.catalog_id and c.kind in ("dac", "acc", "aoc") for c in catalog.cables)]
    assert sorted((r.catalog_id, r.quantity) for r in torus_cables) == [("ACC-400G", 16), ("ACC-400G", 64)]
    cables = {c.id: c for c in catalog.cables}
    assert all(cable_fits(cables[r.catalog_id], "OSFP") for r in torus_cables)
    assert slow.cost.network_capex_usd == fast.cost.network_capex_usd == 1_285_744  # was $1,289,984 at 100G
    # the plug rule, by hand: QSFP28 into OSFP no, into QSFP112 yes (the QSFP family), a cable of no stated plug fits
    assert not cable_fits(cables["DAC-100G"], "OSFP") and cable_fits(cables["DAC-100G"], "QSFP112")
    assert not cable_fits(cables["DAC-800G"], "QSFP112") and cable_fits(cables["ACC-400G"], "OSFP")


def test_a_swept_switch_keeps_a_torus_fabric_and_a_swept_topology_says_what_its_torus_ignores():
    """torfix48c (rev48b #7): sweeping switch=QM9700,TH5 on a torus kept its fabric in ``plan`` but took TH5's
    Ethernet in the sweep ($46,694 vs $46,483); now the switch brings its fabric only to a topology that reads it,
    so both points cost what ``plan`` says. Sweeping topology=torus,rail-optimized by oversubscription=1,2 says
    the torus ignores oversubscription (it said nothing: only the base's topology was read)."""
    from core.analysis.sweep import Axis, design_at, ignored_said
    from core.formats.sweeplink import parse_values

    base = Design(gpu="H100", gpus=512, topology="torus")
    point = design_at(base, {"switch": "TH5"})
    assert point.fabric is None  # not set from the ignored switch: the torus's own default, as ``plan`` has it
    assert plan(point).resolved.fabric == plan(base).resolved.fabric == "infiniband"
    assert plan(point).cost.capex_usd == plan(base).cost.capex_usd == plan(Design(**{**base.model_dump(
        exclude_defaults=True), "switch": "TH5"})).cost.capex_usd
    assert design_at(base, {"topology": "rail-optimized", "switch": "TH5"}).fabric == "ethernet"

    def axis(setting, text):
        return Axis(setting=setting, values=parse_values(setting, text))

    rail = Design(gpu="H100", gpus=512)
    said = ignored_said(rail, [axis("topology", "torus,rail-optimized"), axis("oversubscription", "1,2")])
    assert len(said) == 1 and "no effect on a torus" in said[0]
    assert said[0].startswith("The setting Oversubscription (leaf down:up) has") and "(oversubscription)" not in said[0]
    assert ignored_said(rail, [axis("topology", "rail-optimized"), axis("oversubscription", "1,2")]) == []
    assert len(ignored_said(base, [axis("oversubscription", "1,2"), axis("tiers", "2,3")])) == 2
    out = subprocess.run([sys.executable, "-m", "core", "sweep", "--gpu", "H100", "--gpus", "512", "--set",
                          "topology=torus,rail-optimized", "--set2", "oversubscription=1,2"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "no effect on a torus" in out.stderr
