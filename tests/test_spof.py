"""Single points of failure (core.analysis.spof) against failing every element one by one on the networkx graph."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.failure import Shape, _pair_links, _worst_order
from core.analysis.spof import remedy_label, single_points
from core.design import Design
from core.i18n import language
from core.plan import plan
from tests.test_failure import SMALL, _brute


def _every_element(shape):
    for tier in ("leaf", "spine", "core", "nic", "link", "feed"):
        if tier == "spine" and shape.tiers < 2 or tier == "core" and shape.tiers < 3:
            continue
        for key in _worst_order(tier, shape):
            if tier == "link" and _pair_links(shape, key[0], key[3]) > 1:
                key = (*key[:5], 0)  # a bundle of several cables: its single cable is the element that fails alone
            yield tier, key


@pytest.mark.parametrize("name", [*SMALL, "3-tier pods"])
def test_spof_list_matches_failing_each_element_on_the_graph(name):
    kwargs = SMALL.get(name) or dict(gpu="H100", nodes=160, gpus_per_node=1, nics_per_node=1,
                                     topology="top-of-rack", nodes_per_rack=4, switch="QM8700",
                                     port_speed_gbps=200, tiers=3)
    result = plan(Design(**kwargs))
    shape = Shape.of(result)
    listed = {e.element: e.gpus_lost for e in single_points(result).elements}
    from core.analysis.failure import _element

    expected = {}
    for tier, key in _every_element(shape):
        cut_off, _degraded, _bisection = _brute(result, [(tier, key, False)], flow=False)
        if cut_off:
            expected[_element(tier, key, shape)] = cut_off
    assert listed == expected


def test_top_of_rack_lists_every_tor_with_its_rack_and_the_lone_spine():
    result = plan(Design(**SMALL["top-of-rack 3:1"]))
    spof = single_points(result)
    tors = [e for e in spof.elements if e.tier == "leaf"]
    assert len(tors) == result.fabric.leaf_count
    assert all(e.gpus_lost == 16 and e.remedy == "plane" for e in tors)  # 2 nodes x 8 GPUs per rack
    assert tors[0].remedy_capex_usd > 0
    spines = [e for e in spof.elements if e.tier == "spine"]
    assert result.fabric.spine_count == 1 and len(spines) == 1 and spines[0].gpus_lost == 128 - 16
    assert spines[0].remedy == "n_plus_1" and spines[0].remedy_capex_usd > 0
    with language("zh"):
        assert "脊" in remedy_label(spines[0])


def test_dual_tor_has_no_single_point():
    assert single_points(plan(Design(**SMALL["dual-plane ToR"]))).count == 0


def test_one_switch_fabric_lists_the_switch():
    spof = single_points(plan(Design(**SMALL["one switch"])))
    assert [(e.element, e.gpus_lost) for e in spof.elements] == [("p0.leaf0", 16)]


_nonblocking = st.builds(dict, nodes=st.integers(33, 256), switch=st.sampled_from(["QM9700", "QM8700"]),
                         planes=st.sampled_from([1, 1]))


@settings(max_examples=25, deadline=None)
@given(_nonblocking)
def test_nonblocking_multi_spine_fabric_has_no_spine_or_core_spof(kwargs):
    try:
        result = plan(Design(gpu="H100", port_speed_gbps=400 if kwargs["switch"] == "QM9700" else 200,
                             **{k: v for k, v in kwargs.items() if k != "planes"}))
    except Exception:
        return
    shape = Shape.of(result)
    per = shape.spines_per_pod if shape.tiers == 3 else shape.spines
    if shape.tiers < 2 or per < 2 or (shape.tiers == 3 and shape.cores_per_group < 2 and shape.spines_per_pod < 2):
        return
    assert not [e for e in single_points(result).elements if e.tier in ("spine", "core")]


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 40), st.sampled_from([1, 2, 4]))
def test_one_tor_per_rack_lists_every_tor(racks, per_rack):
    try:
        result = plan(Design(gpu="H100", nodes=racks * per_rack, topology="top-of-rack", nodes_per_rack=per_rack,
                             oversubscription=3.0))
    except Exception:
        return
    tors = [e for e in single_points(result).elements if e.tier == "leaf"]
    assert len(tors) == result.fabric.leaf_count_total


def test_golden_alibaba_hpn_dual_tor_removes_the_tor_single_point():
    """Alibaba HPN (Qian et al., "Alibaba HPN: A Data Center Network for Large Language Model Training",
    SIGCOMM 2024, doi 10.1145/3651890.3672265, section "Dual-ToR"): the ToR is the most common single point
    of failure of a training cluster; each NIC port dual-homed to two independent ToRs leaves none. A 1K-GPU
    HPN segment (8 x H100 per host, dual-port 2 x 200G NICs, 51.2T single-chip switches): with one ToR per
    rack every ToR is listed, with both ports' planes (dual-ToR) nothing is."""
    hpn = dict(gpu="H100", gpus=1024, fabric="ethernet", switch="TH5", nic="CX7-2P", port_speed_gbps=200,
               topology="top-of-rack", tiers=2)
    dual = plan(Design(**hpn, planes=2))
    assert single_points(dual).count == 0
    single = plan(Design(**hpn, planes=1))
    tors = [e for e in single_points(single).elements if e.tier == "leaf"]
    assert len(tors) == single.fabric.leaf_count_total > 0
    assert all(e.gpus_lost == single.fabric.nodes_per_group * 8 for e in tors)
    assert tors[0].remedy == "plane" and tors[0].remedy_capex_usd > 0


def test_nvl72_trays_degrade_and_are_not_single_points():
    """GB200 NVL72 (GB200 SuperPOD RA: 9 switch trays of 2 chips, each GPU one link to each of the 18 chips):
    a tray lost leaves 16/18 of every GPU's NVLink bandwidth and cuts nobody off, so it is listed as degrading,
    never as a single point."""
    result = single_points(plan(Design(gpu="GB200-NVL72", nodes=36)))
    assert not [e for e in result.elements if e.tier in ("tray", "nvswitch")]
    rows = {d.tier: d for d in result.degrading}
    assert rows["tray"].count == 2 * 9 and rows["tray"].example == "rack0.nvswitch-tray0"
    assert rows["tray"].share_left == pytest.approx(16 / 18) and rows["tray"].gpus_affected == 72
    assert rows["nvswitch"].share_left == pytest.approx(17 / 18) and rows["nvswitch"].count == 36
    assert rows["feed"].effect == "none"
    out = result.to_json()
    assert {d["tier"] for d in out["degrading"]} >= {"tray", "nvswitch", "feed"}
    with language("zh"):
        from core.analysis.spof import degrading_label

        assert "NVLink" in degrading_label(rows["tray"]) and "88.9%" in degrading_label(rows["tray"])


def test_hgx_nvswitch_is_listed_as_node_internal():
    result = single_points(plan(Design(gpu="H100", nodes=64, switch="QM9700")))
    rows = {d.tier: d for d in result.degrading}
    assert rows["nvswitch"].effect == "node_unusable" and rows["nvswitch"].gpus_affected == 8
    assert rows["nvswitch"].count == 64 * 4 and rows["link"].effect == "uplink_capacity"
    assert result.count == 0  # every leaf has 8 spines, every NIC a rail: nothing in the fabric is a single point


def test_one_feed_racks_list_their_feed(monkeypatch):
    from core.analysis import failure

    monkeypatch.setattr(failure.power, "_feeds_for", lambda preset: (1, "N"))
    result = plan(Design(**SMALL["top-of-rack 3:1"]))
    feeds = [e for e in single_points(result).elements if e.tier == "feed"]
    assert [e.element for e in feeds] == [f"rack{r}.feedA" for r in range(8)]
    assert all(e.gpus_lost == 16 and e.remedy == "feed" and e.remedy_capex_usd is None for e in feeds)
    with language("zh"):
        assert remedy_label(feeds[0]) != "a second power feed with N+N supplies"


def test_one_cable_uplink_to_a_lone_spine_is_a_single_point():
    """A top-of-rack fabric with one spine and one cable per ToR uplink: every cable cuts its rack off (brute
    force agrees in test_spof_list_matches_failing_each_element_on_the_graph for the SMALL designs)."""
    from core.analysis.failure import Shape

    result = plan(Design(gpu="H100", nodes=16, gpus_per_node=1, nics_per_node=1, topology="top-of-rack",
                         nodes_per_rack=2, switch="QM8700", port_speed_gbps=200, oversubscription=2.0, tiers=2))
    shape = Shape.of(result)
    assert (shape.tiers, shape.pair_links, shape.spines, shape.leaves) == (2, 1, 1, 8)
    listed = {e.element: e.gpus_lost for e in single_points(result).elements if e.tier == "link"}
    assert listed == {f"p0.leaf{k}-spine0": 2 for k in range(8)}
    for k in (0, 7):
        cut_off, _d, _b = _brute(result, [("link", ("ls", 0, 0, k, 0, None), False)], flow=False)
        assert cut_off == 2
