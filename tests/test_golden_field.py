"""Golden tests of published field fabrics and property tests of the options they need.

Sources (counts quoted as the sources state them; [P] primary, [S] secondary copy, [D] derived here):

* DeepSeek-AI, "Insights into DeepSeek-V3: Scaling Challenges and Reflections on Hardware for AI
  Architectures" (ISCA 2025, arXiv 2505.09343), §5.1 and Table 3 [P, read via tests/test_pricebook.py's
  citation and the eeumee.net summaries [S]]: a multi-plane fat tree (MPFT) of eight two-layer planes; each
  node has 8 GPUs and 8 400G InfiniBand NICs (ConnectX-7), GPU-NIC pair *i* in plane *i*; 64-port 400G
  switches; 16,384 endpoints, 768 switches. FT2 (one two-layer fat tree): 2,048 endpoints, 96 switches;
  FT3: 65,536 endpoints, 5,120 switches, 131,072 links. Cross-plane traffic "requires intra-node
  forwarding" (NVLink or PCIe).
* Alibaba, "Alibaba HPN: A Data Center Network for Large Language Model Training" (SIGCOMM 2024) [P via S:
  wuql20.bearblog.dev paper notes; article.woter.ai on HPN 7.0; atscaleconference.com abstract]: hosts of 8
  GPUs with 8 backend NICs of 2 x 200G, each NIC's two ports to two different ToRs (non-stacked dual-ToR,
  dual-plane); a segment is 1,024 GPUs (128 hosts) on 16 ToRs, each ToR 128 x 200G down and 64 x 400G up
  (51.2T); a pod interconnects 15K GPUs = 15 segments in two tiers.
* ByteDance, "MegaScale: Scaling Large Language Model Training to More Than 10,000 GPUs" (NSDI 2024),
  §3.4 [P via S: the7.net/news/show-370272.html copy]: Tomahawk 4 switches, 64 x 400G; three layers; at
  every layer 32 ports down, 32 up (1:1); at the ToR "one 400G downlink port is split into two 200G
  downlink ports"; eight 200G NICs per server, multi-rail; "the number of GPU servers connected by the same
  sets of ToR switches can reach 64"; runs on up to 12,288 GPUs.
* Meta, Llama 3 (arXiv 2407.21783) §3.3.1, and "RoCE networks for distributed AI training at scale"
  (SIGCOMM 2024) [P; glennklockwood.com "Meta's H100 clusters" summary [S]]: 24K GPUs (24,576) in a
  three-layer Clos; each rack 16 GPUs in two servers under one Minipack2 ToR; 192 racks per pod of 3,072
  GPUs at full bisection; eight pods joined by aggregation switches at 1:7 oversubscription; cluster
  switches are modular chassis (Arista 7800, up to 576 x 400G).
* NVIDIA DGX SuperPOD GB200 RA, architecture and network-fabrics pages [P]: "focused on the design of a
  single SU (8 DGX GB200 rack systems)", scaling "beyond 128 racks with 9216 GPUs";
  "the fabric should be designed to support the full SU, including leaf switches and leaf-spine cables,
  and leave the portion of the fabric unused where these nodes would be located". The RA's per-SU compute
  leaf/spine counts were not retrieved (the stored copy stops before them): pinned as a gap below.
* Wang et al., "How to Build Low-cost Networks for Large Language Models (without Sacrificing
  Performance)" (2023): rail-only networks (rail switches, no spine; cross-rail traffic over the NVLink
  domain). Structural test only: the paper's cost figures depend on its own price model.
"""

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.design import Design, resolve_design
from core.errors import DesignError, InputError
from core.fabric.bandwidth import bisection_gbits
from core.fabric.sizing import leaf_down_up
from core.fabric.topology import fabric_graph
from core.formats.sharelink import decode, encode
from core.plan import plan
from core.presets import find_preset


def published(preset: str, **changes) -> Design:
    """The published design ``preset`` (assets/catalog/presets.toml: the design written once, with its source and
    the numbers it reproduces) with ``changes``."""
    return Design(**{**find_preset(preset).fields, **changes})


def _leaf(p, reserved=False):
    return [g for g in p.fabric.switch_groups if g.role == "leaf" and g.reserved == reserved]


# --- DeepSeek MPFT ----------------------------------------------------------------------------------

def test_deepseek_mpft_eight_planes_of_two_tier_fat_trees():
    p = plan(published("deepseek-mpft"))
    s = p.summary()
    assert s["gpus"] == 16384                                    # "16,384 GPUs" / endpoints
    assert s["switches"]["total"] == 768                         # Table 3: 768 switches
    assert p.fabric.islands == 8 and p.fabric.tiers == 2         # eight planes, two layers each
    assert s["switches"]["leaf"] == 8 * 64 and s["switches"]["spine"] == 8 * 32   # k=64 FT2 per plane [D]
    assert s["links"]["node_leaf"] == 16384 and s["links"]["leaf_spine"] == 16384
    assert p.bandwidth.cross_island_via == "nvlink"              # cross-plane: intra-node forwarding
    assert p.bandwidth.hops_same_rail_other_su == 3              # leaf-spine-leaf inside a plane
    assert p.bandwidth.scaleout_gbits_per_gpu == 400


@pytest.mark.parametrize("nodes,switches,links", [(2048, 96, 2048), (65536, 5120, 131072)])
def test_deepseek_ft2_ft3_single_plane_references(nodes, switches, links):
    """Table 3's FT2 and FT3 columns: one 400G endpoint per node on 64-port switches."""
    s = plan(Design(gpu="H800", nodes=nodes, gpus_per_node=1, nics_per_node=1, switch="QM9700")).summary()
    assert s["switches"]["total"] == switches
    assert s["links"]["leaf_spine"] + s["links"]["spine_core"] == links


def test_per_rail_planes_need_a_divisor_of_the_rails():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=64, plane_mode="per-rail", planes=3))
    assert "plane i mod 3" in info.value.message and "8 NICs" in info.value.message
    assert "use 2 planes" in info.value.suggestion.lower()            # a checked way out (core.plan.ways_out)


# --- Alibaba HPN ------------------------------------------------------------------------------------

HPN = {k: v for k, v in find_preset("alibaba-hpn-segment").fields.items() if k not in ("nodes", "tiers")}


def test_alibaba_hpn_segment_dual_tor_200g_down_400g_up():
    p = plan(published("alibaba-hpn-segment"))
    s = p.summary()
    assert s["gpus"] == 1024                                     # one segment = 1,024 GPUs
    assert s["switches"]["leaf"] == 16                           # 16 ToRs per segment (8 per plane)
    leaf = _leaf(p)[0]
    assert (leaf.down_ports_used, leaf.down_speed_gbps) == (128, 200)   # 128 x 200G down
    assert (leaf.up_ports_used, leaf.up_speed_gbps) == (64, 400)        # 64 x 400G up
    assert leaf.port_units_used == leaf.radix == 256             # a 51.2T ToR, fully used
    assert p.bandwidth.leaf_oversubscription == 1.0
    assert s["links"]["node_leaf"] == 128 * 16                   # every NIC port: 8 NICs x 2 ports per host
    assert p.resolved.planes == 2                                # each NIC dual-homed, one ToR per plane


def test_alibaba_hpn_pod_of_15_segments():
    """15 segments per pod in two tiers; the pod is reached from the cores through 8 of each aggregation
    switch's 128 ports, which is what leaves 120 for 15 x 8 ToRs (15:1 up the pod [D])."""
    p = plan(published("alibaba-hpn-pod"))
    s = p.summary()
    assert s["gpus"] == 15360 and p.fabric.group_count == 15 and p.fabric.pod_count == 1
    assert s["switches"]["leaf"] == 15 * 16
    spine = [g for g in p.fabric.switch_groups if g.role == "spine"][0]
    assert (spine.down_ports_used, spine.up_ports_used, spine.radix) == (120, 8, 128)
    two_tier = plan(Design(nodes=15 * 128, tiers=2, **HPN))     # the pod alone fits two tiers
    assert two_tier.bandwidth.hops_cross_rail == 3


# --- ByteDance MegaScale ----------------------------------------------------------------------------

def test_bytedance_megascale_three_layers_of_tomahawk4():
    p = plan(published("bytedance-megascale"))
    s = p.summary()
    assert s["gpus"] == 12288 and p.fabric.tiers == 3           # three layers
    assert p.fabric.nodes_per_group == 64                        # 64 servers under one set of ToRs
    leaf = _leaf(p)[0]
    assert (leaf.down_ports_used, leaf.down_speed_gbps, leaf.up_ports_used, leaf.up_speed_gbps) == (64, 200, 32, 400)
    assert leaf.down_ports_used * 200 == leaf.up_ports_used * 400   # 32 x 400G split down, 32 x 400G up: 1:1
    spine = [g for g in p.fabric.switch_groups if g.role == "spine"][0]
    assert (spine.down_ports_used, spine.up_ports_used) == (32, 32)  # 32 down, 32 up at every layer
    assert s["switches"]["leaf"] == 24 * 8                       # [D] 1,536 servers / 64, 8 rails
    assert p.bandwidth.oversubscription == 1.0


def test_breakout_the_switch_does_not_offer_is_a_design_error():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=64, fabric="ethernet", switch="TH4", port_speed_gbps=400,
                    uplink_speed_gbps=800))
    assert "no 800 Gb/s port mode" in info.value.message and "64x400G, 128x200G" in info.value.message
    assert info.value.suggestion  # a checked way out (another switch, or another speed)


# --- Meta RoCE (Llama 3) ----------------------------------------------------------------------------

META = find_preset("meta-24k-roce").fields


def test_meta_24k_roce_cluster():
    p = plan(Design(**META))
    s = p.summary()
    assert s["gpus"] == 24576 and p.fabric.tiers == 3            # 24K GPUs, three layers
    assert s["switches"]["leaf"] == 1536                         # one ToR per rack of 16 GPUs
    assert p.fabric.groups_per_pod == 192 and p.fabric.pod_count == 8   # 192 racks per pod, 8 pods
    assert p.fabric.groups_per_pod * 16 == 3072                  # 3,072 GPUs per pod
    assert s["switch_models"] == {"leaf": "TH4", "spine": "ARISTA-7800R3-576", "core": "ARISTA-7800R3-576"}
    # full bisection inside a pod, 1:7 above it: 384 spine down ports over 55 uplinks = 6.98:1
    assert p.bandwidth.leaf_oversubscription == 1.0
    assert p.bandwidth.oversubscription == pytest.approx(7.0, rel=0.005)
    bom = {r.item: r.quantity for r in p.bom if r.category == "switch"}
    assert any("7800R3" in item for item in bom)                 # the chassis is priced at the spine


def test_meta_tor_with_more_uplink_than_downlink():
    """Meta provisions ToR uplinks above downlinks (glennklockwood.com summary: T0-T1 undersubscribed 2:1
    [S]); down:up 1:2 doubles the leaf uplinks."""
    p = plan(Design(**{**META, "oversubscription": 0.5}))
    leaf = _leaf(p)[0]
    assert (leaf.down_ports_used, leaf.up_ports_used) == (16, 32)
    assert p.bandwidth.leaf_oversubscription == 0.5


# --- NVIDIA GB200 SuperPOD: design for the full SU ---------------------------------------------------

def test_gb200_su_designed_for_the_full_su():
    one_rack = plan(published("superpod-gb200-1su", nodes=18, grow_to=144))   # 1 of the SU's 8 racks
    full = plan(published("superpod-gb200-1su"))
    assert full.summary()["gpus"] == 576                          # 8 racks x 72 GPUs
    # spines and every present leaf's uplinks are those of the full SU; only the present leaves are installed
    assert one_rack.fabric.spine_count == full.fabric.spine_count
    assert one_rack.fabric.leaf_uplinks == full.fabric.leaf_uplinks
    assert one_rack.fabric.leaf_count < full.fabric.leaf_count
    assert one_rack.fabric.grow_to_nodes == 144
    assert one_rack.fabric.max_nodes_without_recabling >= 144
    assert one_rack.reserved_bom and one_rack.reserved_network_capex_usd > 0
    installed = one_rack.cost.network_capex_usd
    assert installed + one_rack.reserved_network_capex_usd == pytest.approx(full.cost.network_capex_usd, rel=1e-9)


def test_gap_gb200_ra_compute_counts_not_pinned():
    """Known gap: the GB200 RA's compute-fabric leaf and spine counts per SU were not retrieved, so the
    planner's own numbers (rail-optimized QM9700, 18 trays per SU block) are pinned here, not matched."""
    s = plan(published("superpod-gb200-1su")).summary()
    assert (s["switches"]["leaf"], s["switches"]["spine"]) == (32, 9)
    assert any("not retrieved" in text for text in find_preset("superpod-gb200-1su").differences)  # said to users


# --- Rail-only (Wang et al. 2023) ---------------------------------------------------------------------

def test_rail_only_has_no_spine_between_rails():
    p = plan(published("rail-only"))
    assert p.fabric.islands == 8 and p.fabric.tiers == 1 and p.fabric.spine_count == 0
    assert p.summary()["switches"]["leaf"] == 8                   # one rail switch per rail
    g = fabric_graph(p, servers="none")
    assert nx.number_connected_components(g) == 8                 # rails meet only inside the nodes
    optimized = plan(Design(gpu="H100", nodes=32))
    assert p.cost.network_capex_usd <= optimized.cost.network_capex_usd


def test_gap_rail_only_paper_cost_figures_not_reproduced():
    """Known gap: Wang et al. report rail-only savings against their own price model; the planner prices
    with its catalog, so the paper's percentages are not compared."""
    assert plan(Design(gpu="H100", nodes=512, topology="rail-only")).fabric.islands == 8


# --- share links, design files, CLI -----------------------------------------------------------------

NEW_FIELDS = dict(nic="CX7-2P", leaf_switch="TH5", spine_switch="ARISTA-7800R3-576", uplink_speed_gbps=400,
                  plane_mode="per-rail", su_nodes=16, pod_sus=4, grow_to=512, topology="rail-only",
                  oversubscription=0.5, fabric="ethernet", port_speed_gbps=200, planes=2)


def test_new_fields_round_trip_links_and_json():
    design = Design(gpu="H100", nodes=64, **NEW_FIELDS)
    params = encode(design)
    assert {"nm", "lsw", "ssw", "us", "pm", "su", "pod", "gt"} <= set(params) and params["t"] == "ro"
    back, warnings = decode(params)
    assert back == design and not warnings
    assert Design.from_json(design.to_json()) == design


def test_old_links_keep_their_meaning():
    design, warnings = decode({"v": "1", "n": "64", "nic": "4", "sw": "QM9700"})
    assert not warnings and design.nics_per_node == 4 and design.nic is None and design.switch == "QM9700"


def test_unknown_nic_is_an_input_error():
    with pytest.raises(InputError):
        resolve_design(Design(nic="CX99"))
    _design, warnings = decode({"v": "1", "nm": "CX99"})
    assert warnings and "'nm' (NIC model)" in warnings[0]


def test_nic_choice_sets_ports_and_planes():
    two_port = resolve_design(Design(gpu="H100", nodes=8, nic="BF3-DPU", planes=2, port_speed_gbps=400))
    assert two_port.nic.id == "BF3-DPU" and two_port.planes == 2
    with pytest.raises(DesignError):
        resolve_design(Design(gpu="H100", nodes=8, nic="CX7", planes=2))
    with pytest.raises(InputError):
        resolve_design(Design(gpu="H100", nic="CX6", port_speed_gbps=400))


def test_su_nodes_and_pod_sus_limits_are_design_errors():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=64, su_nodes=40))
    assert "40 down ports" in info.value.message and "has 32 at 1:1" in info.value.message
    with pytest.raises(DesignError):
        plan(Design(gpu="H100", nodes=1024, pod_sus=9, tiers=3))
    assert plan(Design(gpu="H100", nodes=64, su_nodes=16)).fabric.group_count == 4


# --- property tests of the new options ----------------------------------------------------------------

new_option_designs = st.builds(
    lambda nodes, tier, mode, over, su, grow: dict(
        gpu="H100", nodes=nodes, fabric="ethernet", **{**tier, **mode}, oversubscription=over,
        su_nodes=su, grow_to=nodes + grow if grow else None),
    nodes=st.integers(1, 160),
    tier=st.sampled_from([
        dict(switch="SN5600", port_speed_gbps=400),
        dict(switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800),
        dict(switch="TH5", port_speed_gbps=200, uplink_speed_gbps=400, nic="CX7-2P", planes=2),
        dict(switch="TH4", port_speed_gbps=200, uplink_speed_gbps=400, nic="CX6"),
        dict(leaf_switch="TH4", spine_switch="ARISTA-7800R3-576", port_speed_gbps=400),
    ]),
    mode=st.sampled_from([dict(), dict(topology="rail-only"), dict(plane_mode="per-rail", planes=8),
                          dict(plane_mode="per-rail", planes=2), dict(topology="top-of-rack")]),
    over=st.sampled_from([0.5, 1.0, 1.0, 2.0]),
    su=st.sampled_from([None, None, 4, 16]),
    grow=st.sampled_from([0, 0, 64, 300]),
)


PLANNED = {"ok": 0, "all": 0}


def _plan_or_none(kwargs):
    PLANNED["all"] += 1
    try:
        result = plan(Design(**kwargs))
    except (DesignError, InputError):
        return None
    PLANNED["ok"] += 1
    return result


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(new_option_designs)
def test_new_options_respect_each_tiers_radix_and_balance(kwargs):
    p = _plan_or_none(kwargs)
    if p is None:
        return
    for group in p.fabric.switch_groups:                         # each tier at its own port mode
        assert group.port_units_used <= group.radix + 1e-9, group
    graph = fabric_graph(p, servers="each")
    for vertex, data in graph.nodes(data=True):
        if data["role"] != "server":
            assert data["port_units"] <= data["radix"] + 1e-9, vertex
    for u, v, data in graph.edges(data=True):                    # balanced links
        roles = {graph.nodes[u]["role"], graph.nodes[v]["role"]}
        if roles == {"leaf", "spine"}:
            assert data["links"] == p.fabric.links_per_leaf_spine_pair
    assert nx.is_connected(graph)                                # every node reaches every other (via NVLink/host
    links = {"node_leaf": 0, "leaf_spine": 0, "spine_core": 0}   # between islands)
    for u, v, data in graph.edges(data=True):
        roles = tuple(sorted((graph.nodes[u]["role"], graph.nodes[v]["role"])))
        links[{("leaf", "server"): "node_leaf", ("leaf", "spine"): "leaf_spine",
               ("core", "spine"): "spine_core"}[roles]] += data["links"]
    assert links == p.summary()["links"]
    bw = p.bandwidth
    assert 0 < bw.bisection_tbits_one_direction <= bw.injection_tbits_one_direction / 2 + 1e-9


@settings(max_examples=60, deadline=None)
@given(new_option_designs)
def test_new_options_cost_never_falls_as_nodes_grow(kwargs):
    kwargs = {**kwargs, "grow_to": None}
    smaller, larger = _plan_or_none(kwargs), _plan_or_none({**kwargs, "nodes": kwargs["nodes"] + 37})
    if smaller is None or larger is None:
        return
    assert larger.cost.capex_usd >= smaller.cost.capex_usd
    assert larger.summary()["switches"]["total"] >= smaller.summary()["switches"]["total"]


def _min_cut_bisection(p) -> float:
    """Max-flow min-cut [Gb/s, one direction] from the first half of the nodes to the second over the switch
    graph (every link at its own speed; servers join islands and planes, as NVLink forwarding does)."""
    graph = fabric_graph(p, servers="each")
    flow = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        flow.add_edge(u, v, capacity=data["capacity_gbps"])
        flow.add_edge(v, u, capacity=data["capacity_gbps"])
    n = p.resolved.nodes
    for i in range(n):
        if i < n // 2:
            flow.add_edge("SRC", f"node{i}")  # infinite capacity
        else:
            flow.add_edge(f"node{i}", "DST")
    return nx.maximum_flow_value(flow, "SRC", "DST")


@pytest.mark.parametrize("kwargs", [
    dict(gpu="H100", nodes=16, nics_per_node=2, gpus_per_node=2, fabric="ethernet", switch="SN5600",
         port_speed_gbps=400, uplink_speed_gbps=800, su_nodes=4),
    dict(gpu="H100", nodes=16, nics_per_node=2, gpus_per_node=2, switch="QM9700", su_nodes=4,
         oversubscription=2.0),
    dict(gpu="H100", nodes=12, nics_per_node=2, gpus_per_node=2, switch="QM9700", su_nodes=4,
         oversubscription=0.5),
    dict(gpu="H100", nodes=8, nics_per_node=4, gpus_per_node=4, switch="QM9700", plane_mode="per-rail",
         planes=2, su_nodes=2),
])
def test_bisection_equals_min_cut_on_small_new_designs(kwargs):
    p = plan(Design(**kwargs, tiers=2))
    assert p.fabric.group_count > 1                              # the cut crosses the uplinks
    assert bisection_gbits(p.resolved, p.fabric) == pytest.approx(_min_cut_bisection(p), rel=1e-9)


def test_leaf_down_up_with_breakouts():
    assert leaf_down_up(128, 1.0, 0.5, 2.0) == (64, 32)          # SN5600: 64 x 400G down, 32 x 800G up
    assert leaf_down_up(64, 0.5) == (21, 42)                      # more uplink than downlink
    for radix in (64, 128, 256):
        for over in (0.5, 1.0, 2.0, 3.0):
            for ratio, cost in ((1.0, 1.0), (0.5, 2.0), (0.25, 4.0)):
                down, up = leaf_down_up(radix, over, ratio, cost)
                assert down + cost * up <= radix + 1e-9
                assert down * ratio / up <= over + 1e-9


def test_property_strategy_mostly_builds():
    """The strategy above must exercise the options, not only their errors."""
    for example in (dict(nodes=100, tier=dict(switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800)),):
        assert _plan_or_none(dict(gpu="H100", fabric="ethernet", nodes=example["nodes"], **example["tier"]))
    if PLANNED["all"] > 50:
        assert PLANNED["ok"] / PLANNED["all"] > 0.5, PLANNED


def test_field_fabric_errors_offer_checked_ways_out():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=64, fabric="ethernet", leaf_switch="SN5600", spine_switch="TH4",
                    port_speed_gbps=400, uplink_speed_gbps=800))
    assert "spine switch TH4 has no 800 Gb/s port mode" in info.value.message
    assert ("run the uplinks at the port speed", {"uplink_speed_gbps": None}) in info.value.fixes
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", nodes=64, su_nodes=40))
    assert info.value.fixes[0] == ("let the engine size the scalable units", {"su_nodes": None})


def test_cli_flags_build_the_design_and_help_gives_units(capsys, tmp_path):
    import json

    from core.cli import main

    code = main(["plan", "--gpu", "H800", "--nodes", "2048", "--nic", "CX7", "--plane-mode", "per-rail",
                 "--planes", "8", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, None) and out["switches"]["total"] == 768 and out["planes"] == 8
    assert out["bandwidth"]["cross_island_via"] == "nvlink"
    assert out["design"]["plane_mode"] == "per-rail" and out["design"]["nic"] == "CX7"
    main(["plan", "--nodes", "64", "--fabric", "ethernet", "--leaf-switch", "SN5600", "--spine-switch", "TH5",
          "--uplink-speed", "800", "--port-speed", "400", "--su-nodes", "32", "--grow-to", "128", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert out["switch_models"]["spine"] == "TH5" and out["uplink_speed_gbps"] == 800
    assert out["growth"]["grow_to_nodes"] == 128 and out["growth"]["reserved_network_capex_usd"] > 0
    design_file = tmp_path / "d.json"
    design_file.write_text(json.dumps(out["design"]))
    main(["plan", "--design", str(design_file), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["design"] == out["design"]   # design files carry the new fields
    with pytest.raises(SystemExit):
        main(["plan", "--help"])
    text = capsys.readouterr().out
    for flag, unit in (("--uplink-speed", "[Gb/s]"), ("--grow-to", "[nodes]"), ("--su-nodes", "[nodes]"),
                       ("--pod-sus", "[SUs]")):
        assert flag in text and unit in text
    for flag in ("--nic", "--leaf-switch", "--spine-switch", "--core-switch", "--plane-mode", "rail-only"):
        assert flag in text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(su=st.sampled_from([2, 4]), groups=st.sampled_from([2, 4]), rails=st.sampled_from([1, 2, 4]),
       option=st.sampled_from([
           dict(fabric="ethernet", switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800),
           dict(switch="QM9700", oversubscription=2.0), dict(switch="QM9700", oversubscription=0.5),
           dict(switch="QM9700", topology="rail-only"), dict(switch="QM9700", plane_mode="per-rail", planes=2),
           dict(fabric="ethernet", leaf_switch="TH4", spine_switch="SN5600", port_speed_gbps=400)]))
def test_bisection_equals_min_cut_with_full_scalable_units(su, groups, rails, option):
    kwargs = dict(gpu="H100", nodes=su * groups, gpus_per_node=rails, nics_per_node=rails, su_nodes=su, tiers=2,
                  **option)
    p = _plan_or_none(kwargs)
    if p is None:
        return
    assert bisection_gbits(p.resolved, p.fabric) == pytest.approx(_min_cut_bisection(p), rel=1e-9)


def test_grow_to_reserves_the_future_leaves_and_installs_every_spine():
    """DGX SuperPOD B200 RA, larger-configuration table (docs.nvidia.com, scalable-infrastructure-b200): 4 SUs
    take 32 leaves and 16 spines, 8 SUs 64 and 32. Designed for 8 SUs with 4 present, all 32 spines are
    installed and the 32 leaves of the 4 future SUs are reserved."""
    now = plan(Design(gpu="H100", nodes=128, grow_to=256))
    assert (now.fabric.leaf_count, now.fabric.spine_count, now.fabric.leaf_uplinks) == (32, 32, 32)
    reserved = {r.item: r.quantity for r in now.reserved_bom if r.category == "switch"}
    assert list(reserved.values()) == [32]                         # the 4 future SUs' leaves
    assert now.fabric.max_nodes_without_recabling == 256
    assert [g.count for g in now.fabric.switch_groups if g.reserved] == [32]
    spine = [g for g in now.fabric.switch_groups if g.role == "spine"][0]
    assert (spine.down_ports_used, spine.radix) == (32, 64)        # half the spine ports wait for growth
