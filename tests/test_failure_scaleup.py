"""Failure what-if of link bundles, NVLink switch chips and trays, and rack power feeds (core.analysis.failure).

Link bundles against brute force on the networkx graph (``tests.test_failure._brute``: the bundle's cables
taken off the leaf-spine / spine-core edge, reachability and max-flow bisection recomputed). NVLink switches:
the rules of the module docstring (GB200 SuperPOD RA: every GPU one link to each of the 18 chips; Fabric
Manager User Guide: an HGX baseboard with a failed NVSwitch stays uninitialised under the default
NVSWITCH_FAILURE_MODE=0), as properties. Feeds: one of two feeds loses nothing, both are the rack.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import failure
from core.analysis.failure import Shape, resolve_failures, tiers_for, what_if
from core.design import Design
from core.errors import InputError
from core.plan import plan
from tests.test_failure import SMALL, _brute

THREE_TIER = dict(gpu="H100", nodes=160, gpus_per_node=1, nics_per_node=1, topology="top-of-rack", nodes_per_rack=4,
                  switch="QM8700", port_speed_gbps=200, tiers=3)


@pytest.fixture(scope="module")
def nvl72():
    return plan(Design(gpu="GB200-NVL72", nodes=36))


@pytest.fixture(scope="module")
def hgx():
    return plan(Design(gpu="H100", nodes=64, switch="QM9700"))


# ------------------------------------------------------------------------------------------- link bundles
BUNDLE_CASES = [
    ("2-tier rail-optimized, 2 SUs", ["p0.leaf3-spine1"]),
    ("2-tier rail-optimized, 2 SUs", ["p0.leaf3-spine1#0"]),
    ("2-tier rail-optimized, 2 SUs", ["link:8"]),  # every uplink bundle of leaf 0: the leaf is cut off
    ("2-tier rail-optimized, 2 SUs", ["link:3", "spine:2"]),
    ("2-tier rail-optimized, 2 SUs", ["p0.leaf0-spine0", "p0.leaf9-spine0", "p0.leaf9-spine5"]),
    ("2-tier 2:1, 2 SUs", ["link:2"]),
    ("2-tier 2:1, 2 SUs", ["p0.leaf1-spine0#1", "p0.leaf1-spine0#0"]),
    ("top-of-rack 3:1", ["link:1"]),  # one spine: the ToR's only bundle cuts its rack off
    ("top-of-rack 3:1", ["p0.leaf2-spine0#1"]),
    ("dual-plane ToR", ["link:2", "p1.leaf0-spine0"]),
    ("3-tier ToR, 1 GPU nodes", ["link:1"]),
    ("3-tier ToR, 1 GPU nodes", ["p0.spine0-core0"]),
    ("3-tier pods", ["p0.spine0-core0", "p0.spine1-core1"]),
    ("3-tier pods", ["link:2"]),
    ("3-tier pods", ["p0.spine1-core1#0", "core:1"]),
    ("3-tier pods", ["p0.spine0-core0", "p0.spine4-core0"]),
]


def _design(name):
    return THREE_TIER if name == "3-tier pods" else SMALL[name]


@pytest.mark.parametrize("name,failures", BUNDLE_CASES, ids=[f"{n}-{'+'.join(f)}" for n, f in BUNDLE_CASES])
def test_bundles_match_brute_force(name, failures):
    result = plan(Design(**_design(name)))
    out = what_if(result, failures)
    assert all(f["tier"] in ("link", "spine", "core") for f in out.failed)
    cut_off, degraded, bisection = _brute(result, resolve_failures(result, failures))
    assert (out.gpus_disconnected, out.gpus_degraded) == (cut_off, degraded)
    assert out.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)


def test_three_tier_spine_cut_from_its_cores_splits_nothing_but_its_uplinks():
    """Three tiers with pods: every core bundle of one spine lost leaves its pod reachable through the pod's
    other spines (brute force agrees); the spine's ECMP group is gone, the others keep theirs."""
    result = plan(Design(**THREE_TIER))
    shape = Shape.of(result)
    names = [f"p0.spine0-core{c}" for c in shape.cores_of_spine(0)]
    out = what_if(result, names)
    cut_off, _degraded, bisection = _brute(result, resolve_failures(result, names))
    assert out.gpus_disconnected == cut_off == 0
    assert out.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)


def test_bundle_lowers_the_leaf_uplinks_and_the_degraded_copy(hgx):
    """A leaf-spine bundle of 4 cables (8 spines, 32 uplinks per leaf) lost: the leaf hashes over 28 of its 32
    uplinks (ECMP, unit links), the leaf stage keeps 28/32 of that leaf, and busbw never rises."""
    shape = Shape.of(hgx)
    out = what_if(hgx, ["p0.leaf3-spine1"])
    per_leaf = shape.spines * shape.pair_links
    assert out.ecmp_unbalanced == ({"tier": "leaf", "switches": 1, "healthy_paths": per_leaf,
                                    "remaining_paths": per_leaf - shape.pair_links, "unit": "links"},)
    assert out.failed == ({"element": "p0.leaf3-spine1", "tier": "link", "chosen": False, "redundant": False},)
    assert out.busbw_gbytes <= out.healthy_busbw_gbytes
    assert out.alltoall_busbw_gbytes <= out.healthy_alltoall_busbw_gbytes


@pytest.mark.parametrize("spec,fragment", [
    ("p0.leaf3-spine99", "not cabled"),
    ("p0.leaf3-spine1#9", "cables, #0 to #3"),
    ("p0.spine0-core0", "unknown element"),  # two tiers: no cores
    ("link:100000", "cannot fail"),
    ("p0.leaf3-core1", "unknown element"),
])
def test_bad_bundle_names_are_input_errors(hgx, spec, fragment):
    with pytest.raises(InputError, match=fragment):
        what_if(hgx, [spec])


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["2-tier rail-optimized, 2 SUs", "top-of-rack 3:1", "3-tier pods", "dual-plane ToR"]),
       st.integers(1, 12), st.integers(1, 6))
def test_more_bundles_never_help(name, first, more):
    result = plan(Design(**_design(name)))
    try:
        smaller = what_if(result, [f"link:{first}"])
        larger = what_if(result, [f"link:{first + more}"])
    except InputError:
        return
    assert larger.bisection_tbits_one_direction <= smaller.bisection_tbits_one_direction + 1e-9
    assert larger.gpus_disconnected >= smaller.gpus_disconnected
    if larger.gpus_disconnected == smaller.gpus_disconnected:  # busbw is over the connected GPUs
        assert larger.busbw_gbytes <= smaller.busbw_gbytes + 1e-9


# ------------------------------------------------------------------------------------------- NVLink switches
@given(st.integers(1, 17))
@settings(max_examples=17, deadline=None)
def test_nvl72_chips_lost_leave_the_surviving_links_share(k):
    """GB200 NVL72: each GPU has one NVLink 5 link to each of the 18 switch chips (GB200 SuperPOD RA), so k
    chips lost leave (18 - k) / 18 of the NVLink bandwidth per GPU; nobody is cut off."""
    result = plan(Design(gpu="GB200-NVL72", nodes=36))
    out = what_if(result, [f"nvswitch:{k}"])
    assert out.gpus_disconnected == 0 and out.gpus_degraded == 0
    assert out.gpus_nvlink_degraded == 72  # one rack: the chips are taken from one domain first
    assert out.nvlink_gbytes_per_gpu_one_direction == pytest.approx(
        out.healthy_nvlink_gbytes_per_gpu_one_direction * (18 - k) / 18)
    assert out.healthy_nvlink_gbytes_per_gpu_one_direction == pytest.approx(900.0)  # 1,800 GB/s bidir / 2


def test_nvl72_tray_is_two_chips_and_named_per_rack(nvl72):
    tray = what_if(nvl72, ["rack1.nvswitch-tray2"])
    chips = what_if(nvl72, ["rack1.nvswitch4", "rack1.nvswitch5"])
    assert tray.failed[0]["tier"] == "tray"
    assert tray.nvlink_gbytes_per_gpu_one_direction == pytest.approx(900.0 * 16 / 18)
    assert tray.to_json()["busbw_gbytes"] == chips.to_json()["busbw_gbytes"]
    assert tray.domain_busbw_gbytes == pytest.approx(chips.domain_busbw_gbytes)
    assert [f["element"] for f in what_if(nvl72, ["tray:2"]).failed] == ["rack0.nvswitch-tray0",
                                                                           "rack0.nvswitch-tray1"]
    assert any("Adaptive Bandwidth" in n for n in tray.notes)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 8), min_size=1, max_size=8, unique=True), st.integers(0, 8))
def test_more_trays_never_raise_busbw(trays, extra):
    """The all-reduce inside the domain and across the cluster never rises when another tray fails."""
    result = plan(Design(gpu="GB200-NVL72", nodes=36))
    base = [f"rack0.nvswitch-tray{t}" for t in trays]
    more = base + ([f"rack0.nvswitch-tray{extra}"] if extra not in trays else ["rack1.nvswitch-tray0"])
    a, b = what_if(result, base), what_if(result, more)
    assert b.nvlink_gbytes_per_gpu_one_direction <= a.nvlink_gbytes_per_gpu_one_direction + 1e-9
    assert b.busbw_gbytes <= a.busbw_gbytes + 1e-9
    assert b.domain_busbw_gbytes <= a.domain_busbw_gbytes + 1e-9
    assert b.alltoall_busbw_gbytes <= a.alltoall_busbw_gbytes + 1e-9


def test_nvl72_without_any_switch_chip_falls_apart_into_trays(nvl72):
    """Every tray of rack 0 lost: its compute trays no longer forward over NVLink, so a tray whose NICs are
    lost too is cut off (with the chips alive it would reach the fabric over another tray's NIC)."""
    alone = what_if(nvl72, ["tray:9", "nic:4"])
    with_nvlink = what_if(nvl72, ["nic:4"])
    assert with_nvlink.gpus_disconnected == 0
    assert alone.gpus_disconnected == 4
    cut_off, degraded, _b = _brute(nvl72, resolve_failures(nvl72, ["tray:9", "nic:4"]))
    assert (alone.gpus_disconnected, alone.gpus_degraded) == (cut_off, degraded)
    assert alone.nvlink_gbytes_per_gpu_one_direction == 0


def test_nvl72_step_time_follows_the_slowest_domain(nvl72):
    from core.perf.training import model_preset, parse_job

    job = parse_job(dict(model=model_preset("llama3-70b"), tp=8, pp=1, gpus=64, global_batch=1024))
    healthy = what_if(nvl72, ["rack1.feedA"], job=job)  # redundant: nothing lost
    one = what_if(nvl72, ["tray:1"], job=job)
    four = what_if(nvl72, ["tray:4"], job=job)
    every = what_if(nvl72, ["tray:9"], job=job)  # no NVLink left in rack 0: tensor parallelism over PCIe
    assert healthy.step_time_s == pytest.approx(healthy.healthy_step_time_s)
    assert every.step_time_s > four.step_time_s > one.step_time_s > one.healthy_step_time_s


def test_hgx_nvswitch_chip_takes_its_node(hgx):
    """HGX H100: Fabric Manager's default NVSWITCH_FAILURE_MODE=0 leaves the baseboard uninitialised, so the
    node's 8 GPUs are out (counted cut off, like brute force failing all its NICs); the 5-link chips first."""
    shape = Shape.of(hgx)
    assert [shape.chip_links(c) for c in range(4)] == [5, 4, 4, 5]  # DGX H100: 18 links over 4 chips
    out = what_if(hgx, ["node5.nvswitch1"])
    assert out.gpus_disconnected == 8 and out.gpus_nvlink_degraded == 0
    assert any("NVSWITCH_FAILURE_MODE=0" in n for n in out.notes)
    assert [f["element"] for f in what_if(hgx, ["nvswitch:2"]).failed] == ["node0.nvswitch0", "node1.nvswitch0"]
    cut_off, degraded, bisection = _brute(hgx, resolve_failures(hgx, ["node5.nvswitch1", "nvswitch:2"]))
    both = what_if(hgx, ["node5.nvswitch1", "nvswitch:2"])
    assert (both.gpus_disconnected, both.gpus_degraded) == (cut_off, degraded) == (24, 0)
    assert both.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)


@pytest.mark.parametrize("design,spec,fragment", [
    (dict(gpu="H100", nodes=64, switch="QM9700"), "node64.nvswitch0", "an HGX node has chips"),
    (dict(gpu="H100", nodes=64, switch="QM9700"), "node0.nvswitch4", "an HGX node has chips"),
    (dict(gpu="H100", nodes=64, switch="QM9700"), "tray:1", "cannot fail 1 tray"),
    (dict(gpu="H100", nodes=64, switch="QM9700"), "rack0.nvswitch-tray0", "an HGX node has chips"),
    (dict(gpu="GB200-NVL72", nodes=36), "rack2.nvswitch0",
     "chips nvl001-nvsw1 nvswitch1 to nvl001-nvsw9 nvswitch2 and trays nvl001-nvsw1 to nvl001-nvsw9"),
    (dict(gpu="GB200-NVL72", nodes=36), "rack0.nvswitch-tray9",
     "chips nvl001-nvsw1 nvswitch1 to nvl001-nvsw9 nvswitch2 and trays nvl001-nvsw1 to nvl001-nvsw9"),
    (dict(gpu="GB200-NVL72", nodes=36), "node0.nvswitch0", "chips nvl001-nvsw1 nvswitch1 to nvl001-nvsw9 nvswitch2"),
    (dict(gpu="GB200-NVL72", nodes=36), "nvswitch:37", "cannot fail 37 nvswitch elements: the design has 36"),
    (dict(gpu="V100", nodes=8), "node0.nvswitch0", "no NVSwitch chips"),
])
def test_bad_nvswitch_names_are_input_errors(design, spec, fragment):
    with pytest.raises(InputError, match=fragment):
        what_if(plan(Design(**design)), [spec])


# ------------------------------------------------------------------------------------------- power feeds
def test_one_feed_loses_nothing_and_both_are_the_rack():
    result = plan(Design(**SMALL["top-of-rack 3:1"]))
    one = what_if(result, ["rack3.feedA"])
    both = what_if(result, ["rack3.feedA", "rack3.feedb"])
    rack = what_if(result, ["rack3"])
    assert one.gpus_disconnected == 0 and one.gpus_degraded == 0
    assert one.bisection_tbits_one_direction == pytest.approx(one.healthy_bisection_tbits_one_direction)
    assert one.failed[0] == {"element": "rack3.feedA", "tier": "feed", "chosen": False, "redundant": True}
    assert any("redundant" in n for n in one.notes)
    for key in ("gpus_disconnected", "gpus_degraded", "bisection_tbits_one_direction", "busbw_gbytes",
                "alltoall_busbw_gbytes"):
        assert getattr(both, key) == getattr(rack, key), key
    assert not any(f["redundant"] for f in both.failed)
    cut_off, degraded, bisection = _brute(result, resolve_failures(result, ["rack3.feedA", "rack3.feedB"]))
    assert (both.gpus_disconnected, both.gpus_degraded) == (cut_off, degraded)
    assert both.bisection_tbits_one_direction * 1000 == pytest.approx(bisection)


def test_a_one_feed_rack_loses_everything_with_its_feed(monkeypatch):
    monkeypatch.setattr(failure.power, "_feeds_for", lambda preset: (1, "N"))
    result = plan(Design(**SMALL["top-of-rack 3:1"]))
    assert Shape.of(result).feeds == 1
    assert what_if(result, ["rack3.feedA"]).gpus_disconnected == what_if(result, ["rack3"]).gpus_disconnected == 16
    with pytest.raises(InputError, match="one power feed"):
        what_if(result, ["rack3.feedB"])


def test_every_preset_has_a_sourced_feed_row():
    from core.physical.racks import load_racks

    table = failure._feed_table()
    for preset in load_racks().presets:
        assert preset.id in table, preset.id
        assert table[preset.id][0] in (1, 2)


def test_tiers_for_offers_only_what_the_design_has(hgx, nvl72):
    assert "tray" not in tiers_for(hgx) and "nvswitch" in tiers_for(hgx) and "core" not in tiers_for(hgx)
    assert {"tray", "nvswitch", "link", "feed"} <= set(tiers_for(nvl72))
    assert "link" not in tiers_for(plan(Design(**SMALL["one switch"])))


def test_link_round_trips_the_new_names(nvl72, hgx):
    """The rs_fail link key keeps the new names (lower case, as the page stores them) and the design checks them."""
    from urllib.parse import parse_qsl, urlencode

    from core.formats import resiliencelink as rl

    specs = ("p0.leaf3-spine1#2", "rack1.nvswitch-tray2", "rack0.nvswitch7", "rack1.feeda", "tray:2", "link:3",
             "feed:1", "nvswitch:1", "p0.leaf0-spine2")
    query = urlencode(rl.encode({**rl.DEFAULTS, "fail": specs}))
    values, warnings = rl.decode(dict(parse_qsl(query)))
    assert not warnings and values["fail"] == specs
    assert rl.check_failures(nvl72, specs) == (specs, [])
    good, problems = rl.check_failures(hgx, specs)  # an HGX node has no trays and no rack-level chips
    assert len(problems) == 3 and all("rs_fail" in p for p in problems)
    assert good == ("p0.leaf3-spine1#2", "rack1.feeda", "link:3", "feed:1", "nvswitch:1", "p0.leaf0-spine2")


def test_cli_accepts_the_new_elements(capsys):
    import json

    from core.cli import main

    args = ["failure", "--gpu", "GB200-NVL72", "--nodes", "36", "--fail", "tray:1", "--fail", "rack1.feedA",
            "--format", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(f["element"], f["tier"], f["redundant"]) for f in out["failed"]] == [
        ("rack1.feedA", "feed", True), ("rack0.nvswitch-tray0", "tray", False)]
    assert out["nvlink_gbytes_per_gpu_one_direction"] == pytest.approx(800.0)
    assert out["healthy"]["nvlink_gbytes_per_gpu_one_direction"] == pytest.approx(900.0)
    assert main(["--lang", "zh"] + args[:-2]) == 0
    text = capsys.readouterr().out
    assert "NVLink" in text
    assert main(args[:-2] + ["--fail", "rack0.nvswitch-tray9"]) == 2
    assert "trays nvl001-nvsw1 to nvl001-nvsw9" in capsys.readouterr().err  # as the exports name them


@pytest.mark.parametrize("gpu,chips,split", [
    ("H100", 4, [4, 4, 5, 5]),  # "every GPU has four NVLinks that connect to two of the NVSwitches, and five ... two"
    ("A100", 6, [2] * 6),  # "each A100 GPU has two NVLink connections to each NVSwitch"
    ("B200", 2, [9, 9]),  # "two NVSwitch ASICs ... nine NVLinks from each GPU connected to an NVSwitch"
])
def test_golden_baseboard_link_split_from_the_fabric_manager_guide(gpu, chips, split):
    """NVIDIA Fabric Manager User Guide, 'NVSwitch-Based Systems' (docs.nvidia.com/datacenter/tesla/
    fabric-manager-user-guide): how each GPU's NVLinks spread over its baseboard's NVSwitch chips. Held out: the
    spread rule (links // chips, the remainder on the outer chips) was not fitted to these rows."""
    shape = Shape.of(plan(Design(gpu=gpu, nodes=4)))
    assert shape.nvl_chips == chips
    assert sorted(shape.chip_links(c) for c in range(chips)) == split


def test_golden_a100_share_rule_gives_fabric_managers_five_sixths():
    """Fabric Manager User Guide, 'NVSwitch Failure', NVSWITCH_FAILURE_MODE=1 on HGX A100: one NVSwitch failed
    (disabled with its peer) 'will reduce the available bandwidth to 5/6'. The surviving-link share rule the
    NVL72 model uses gives the same 10 / 12 links for any one of the six chips."""
    shape = Shape.of(plan(Design(gpu="A100", nodes=4)))
    assert [1 - shape.chip_links(c) / shape.nvl_links for c in range(shape.nvl_chips)] == [pytest.approx(5 / 6)] * 6


def test_resilience_page_form_offers_the_designs_tiers_and_shows_nvlink():
    """AppTest: an NVL72 design offers trays, chips, bundles and feeds in the form; a tray and a bundle cable from
    the link show the NVLink rows and the redundant feed's note; an HGX design offers no trays."""
    from tests import pagetest
    from tests.test_i18n import rerun

    open_page = pagetest.opener("../pages/6_Resilience.py")
    at = open_page({"g": "GB200-NVL72", "n": "36", "rs_fail": "tray:1,p0.leaf0-spine1#2,rack1.feeda"})
    options = at.selectbox(key="rs_w_tier").options
    assert {"NVLink switch tray", "NVSwitch chip", "link bundle", "rack power feed"} <= set(options)
    assert at.multiselect(key="rs_w_failed").value == ["tray:1", "p0.leaf0-spine1#2", "rack1.feedA"]  # as the what-if writes it (leftnames)
    frame = at.dataframe[0].value
    rows = dict(zip(frame[frame.columns[0]], frame[frame.columns[2]]))
    assert rows["NVLink per GPU, worst domain, one direction"] == "800 GB/s"
    assert rows["GPUs with less NVLink bandwidth"] == "72"
    assert any("redundant" in i.value for i in at.info)
    at.selectbox(key="rs_w_tier").set_value("nvswitch")
    at.number_input(key="rs_w_count").set_value(2)
    at.button(key="rs_w_add_count").click()
    rerun(at)
    assert at.multiselect(key="rs_w_failed").value[-1] == "nvswitch:2"
    hgx = open_page({"n": "64", "sw": "QM9700"})
    assert "NVLink switch tray" not in hgx.selectbox(key="rs_w_tier").options
    assert "NVSwitch chip" in hgx.selectbox(key="rs_w_tier").options
