"""What a collective reads of a plan (``core.perf.commview.BusbwPlan``): the switch model as its SHARP (the id where a
SHARP entry names it) and the Spectrum-X pairing (the switch's ASIC and the NIC's id only where they pair), so
switch models of one structure share a collective; and every collective on the view is the plan's own, to the bit,
for Spectrum-X pairs, plain RoCE, each kind of InfiniBand SHARP and none."""

from __future__ import annotations

import pytest

from core.analysis.perfview import BusbwPlan
from core.design import Design
from core.memo import uncached
from core.perf import congestion
from core.perf.collectives import busbw_at, sweep
from core.perf.constants import calibrated, for_library, load_constants
from core.perf.placement import fabric_class, links, sharp_case
from core.perf.training import communicator_time
from core.plan import plan


def _plan(**fields):
    return plan(Design(gpu="H100", gpus=2048, **fields))


@pytest.fixture(scope="module")
def plans():
    return {
        ("TH5", "CX7"): _plan(fabric="ethernet", switch="TH5", nic="CX7"),
        ("SN5600", "CX7"): _plan(fabric="ethernet", switch="SN5600", nic="CX7"),
        ("TH5", "CX8"): _plan(fabric="ethernet", switch="TH5", nic="CX8"),
        ("SN5600", "CX8"): _plan(fabric="ethernet", switch="SN5600", nic="CX8"),
        ("SN5600", "BF3"): _plan(fabric="ethernet", switch="SN5600", nic="BF3"),
        ("QM9700", "CX7"): _plan(fabric="infiniband", switch="QM9700", nic="CX7"),
        ("QM9700", "CX8"): _plan(fabric="infiniband", switch="QM9700", nic="CX8", port_speed_gbps=400),
        ("QM9700", "CX6"): _plan(fabric="infiniband", switch="QM9700", nic="CX6", port_speed_gbps=200),
        ("QM9700", "CX7", 200): _plan(fabric="infiniband", switch="QM9700", nic="CX7", port_speed_gbps=200),
        ("Q3200", "CX8"): _plan(fabric="infiniband", switch="Q3200", nic="CX8", port_speed_gbps=800),
        ("Q3400", "CX8"): _plan(fabric="infiniband", switch="Q3400", nic="CX8", port_speed_gbps=800),
        ("SB7800", "CX7"): plan(Design(gpu="H100", gpus=256, fabric="infiniband", switch="SB7800", nic="CX7",
                                       port_speed_gbps=100)),
    }


def test_switch_models_of_one_structure_share_a_view_but_a_spectrum_x_pair(plans):
    """TH5 and SN5600 (64 x 800G) with a ConnectX-7 (plain RoCE on both) are one view; with a SuperNIC (ConnectX-8,
    BlueField-3) the SN5600 (Spectrum-4) pairs as Spectrum-X and is its own, while TH5 with either NIC is the
    ConnectX-7's; a SHARP switch keeps its id, a switch no SHARP entry names reads as none."""
    view = {key: BusbwPlan.of(p) for key, p in plans.items()}
    assert view["TH5", "CX7"] == view["SN5600", "CX7"] == view["TH5", "CX8"]
    assert hash(view["TH5", "CX7"]) == hash(view["SN5600", "CX7"])
    assert view["SN5600", "CX8"] != view["TH5", "CX8"] and view["SN5600", "BF3"] != view["SN5600", "CX8"]
    assert view["SN5600", "CX8"].resolved.switch.asic == "Spectrum-4" and view["SN5600", "CX8"].resolved.nic.id == "CX8"
    assert view["SN5600", "CX7"].resolved.switch == view["TH5", "CX7"].resolved.switch == ("", "")
    assert view["SN5600", "CX7"].resolved.nic.id == view["TH5", "CX8"].resolved.nic.id == ""
    assert view["QM9700", "CX7"].resolved.switch.id == "QM9700" and view["SB7800", "CX7"].resolved.switch.id == "SB7800"
    assert view["Q3200", "CX8"].resolved.switch.id == ""
    # built from a larger view (the optimizer's and the training estimates'), the same
    assert BusbwPlan.of(view["SN5600", "CX8"]) == view["SN5600", "CX8"]


def test_nic_models_of_one_port_speed_whose_hosts_feed_them_all_share_a_view(plans):
    """A ConnectX-7 and a ConnectX-8 at 400G (the H100's PCIe Gen5 x16 feeds 400 Gb/s per direction), and a
    ConnectX-6 and a ConnectX-7 at 200G (hosts of 200 and 400 Gb/s), are one view each: the host link reads as none
    where it caps nothing; a ConnectX-8 at 800G, which the host caps at 400 Gb/s, keeps it."""
    view = {key: BusbwPlan.of(p) for key, p in plans.items()}
    assert {plans[key].resolved.host_gbits_per_nic for key in (("QM9700", "CX6"), ("QM9700", "CX7", 200))} == {200, 400}
    assert view["QM9700", "CX7"] == view["QM9700", "CX8"] and view["QM9700", "CX6"] == view["QM9700", "CX7", 200]
    assert view["QM9700", "CX7"] != view["QM9700", "CX6"]
    assert view["QM9700", "CX7"].resolved.host_gbits_per_nic == 0
    assert plans["Q3400", "CX8"].resolved.host_gbits_per_nic == view["Q3400", "CX8"].resolved.host_gbits_per_nic == 400
    with uncached():
        assert busbw_at(plans["QM9700", "CX6"], "all-reduce", 1 << 30) == busbw_at(plans["QM9700", "CX7", 200],
                                                                                   "all-reduce", 1 << 30)


def test_every_rule_and_collective_on_the_view_is_the_plans(plans):
    """On each plan's view: the routing class (Spectrum-X where the pair holds), the SHARP case (offered, not usable
    by NCCL, absent from the catalog, or not InfiniBand) and the links, and the all-reduce busbw, a sweep of three
    operations at three sizes and the cached collective times with SHARP allowed, are the plan's own."""
    cases = set()
    for key, p in plans.items():
        view = BusbwPlan.of(p)
        assert fabric_class(view) == fabric_class(p) and congestion.fabric_class(view.resolved) == \
            congestion.fabric_class(p.resolved), key
        assert sharp_case(view) == sharp_case(p), key
        assert links(view) == links(p), key
        cases.add((congestion.fabric_class(p.resolved), sharp_case(p)))
        with uncached():
            assert busbw_at(view, "all-reduce", 1 << 30) == busbw_at(p, "all-reduce", 1 << 30), key
            for op in ("all-reduce", "all-gather", "all-to-all"):
                own, seen = (sweep(x, op, [1 << 16, 1 << 24, 1 << 32], sharp=True) for x in (p, view))
                assert own.sharp == seen.sharp and own.curves.keys() == seen.curves.keys(), (key, op)
                for name, curve in own.curves.items():
                    assert (curve.time_us == seen.curves[name].time_us).all(), (key, op, name)
        for routing in ("auto", "ecmp"):
            with congestion.assumptions(routing, "topo"):
                expected = communicator_time.__wrapped__(BusbwPlan.of(p), "all-reduce", 1e9, p.resolved.gpus, 1,
                                                         True, congestion.current(), None)
                assert communicator_time(view, "all-reduce", 1e9, p.resolved.gpus, 1, True, congestion.current(),
                                         None) == expected
    assert cases == {("ecmp", "fabric"), ("spectrum-x", "fabric"), ("ib-ar", "offered"), ("ib-ar", "catalog"),
                     ("ib-ar", "nccl")}


def test_every_librarys_and_calibrations_sharp_is_the_bundled():
    """The switch view keeps the ids the bundled SHARP entries name (``core.perf.commview._busbw_switch``): every
    collective library's constants and a calibration's hold the same entries."""
    bundled = load_constants()
    for library in [entry.name for entry in bundled.library]:
        assert for_library(library).sharp == bundled.sharp, library
        assert calibrated("net=0.8,nvlink=0.9,lat=2", library).sharp == bundled.sharp, library
