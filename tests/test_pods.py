"""Mixed generations under one spine layer (core.fabric.pods, core.analysis.pods): golden counts from the port
arithmetic, ports within radix, one pod = today's plan, stage deltas, bad input, the CLI and the link."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main as cli_main
from core.analysis.pods import mixed_links, mixed_plan, pod_growth
from core.analysis.stages import growth, has_stages
from core.design import Design
from core.errors import DesignError
from core.fabric.pods import pod_specs, size_pods
from core.formats import sharelink
from core.plan import plan

BROWNFIELD = Design(gpu="H100", nodes=64, pods="B200:32:800@1")
"""H100 pod with 400G NDR leaves, a B200 pod with 800G XDR leaves added at stage 1."""
BREAKOUT = Design(gpu="H100", nodes=64, fabric="ethernet", uplink_speed_gbps=800, pods="H100:32@1")
"""An Ethernet pod with 800G leaf uplinks and a second pod whose 400G uplinks break out of the 800G spine ports."""


def test_two_infiniband_pods_counts_by_hand():
    # Pod 1: 64 H100 nodes x 8 rails at 400G on QM9700 (64 ports): 32 down + 32 up per leaf, a scalable unit of
    #   32 nodes x 8 rails -> 2 SU x 8 = 16 leaves, 16 x 32 = 512 uplinks at 400G.
    # Pod 2: 32 B200 nodes x 8 rails at 800G on Q3400 (144 ports): 8 leaves of 32 down, 32 uplinks each = 256.
    # Spine: the fastest uplink is 800G -> Q3400 (144 ports at 800G, no 400G mode: a 400G uplink takes a whole
    #   port at the lower speed). Ports: 512 + 256 = 768 -> at least ceil(768 / 144) = 6 spines; the spine count
    #   divides gcd(32, 32) = 32 -> 8 spines, 4 links from every leaf to every spine; each spine uses
    #   16 x 4 + 8 x 4 = 96 of 144 ports.
    fabric = size_pods(BROWNFIELD)
    assert [(p.system, p.leaves, p.uplinks_per_leaf, p.uplinks_per_spine_port) for p in fabric.pods] == [
        ("H100", 16, 32, 1), ("B200", 8, 32, 1)]
    assert (fabric.spine_switch, fabric.spine_speed_gbps, fabric.spine_radix) == ("Q3400", 800, 144)
    assert fabric.spines == 8 and fabric.spine_ports_used == 16 * 4 + 8 * 4 == 96
    assert fabric.switches == 16 + 8 + 8
    assert fabric.leaves == sum(plan(Design(gpu=s.system, nodes=s.nodes, port_speed_gbps=s.speed_gbps, tiers=2))
                                .fabric.leaf_count for s in pod_specs(BROWNFIELD))
    # across pods the slower pod bounds: H100's 400 Gb/s per GPU; bisection = 768 GPUs / 2 x 400 Gb/s
    assert fabric.slowest.system == "H100" and fabric.cross_pod_gbps_per_gpu == 400
    assert fabric.bisection_gbps == 768 / 2 * 400


def test_breakout_of_faster_spine_ports_by_hand():
    # Pod 1: SN5600 leaves, 400G down and 800G up (an 800G uplink takes two 400G ports): 64 down + 32 up,
    #   a scalable unit of 64 nodes -> 8 leaves, 8 x 32 = 256 uplinks at 800G.
    # Pod 2: 32 H100 nodes at 400G on SN5600 (128 ports at 400G): 8 leaves of 32 down and 32 uplinks at 400G.
    # Spine: SN5600 at 800G, 64 ports; it lists 128 x 400G, so one 800G port breaks out to 2 x 400G uplinks.
    #   Port units: 256 + 256 / 2 = 384 -> at least 6 spines, dividing 32 -> 8; per spine 8 x 4 + 8 x 4 / 2 = 48.
    fabric = size_pods(BREAKOUT)
    assert [(p.leaves, p.uplinks_per_leaf, p.uplink_speed_gbps, p.uplinks_per_spine_port) for p in fabric.pods] == [
        (8, 32, 800, 1), (8, 32, 400, 2)]
    assert (fabric.spine_switch, fabric.spine_radix, fabric.spines, fabric.spine_ports_used) == ("SN5600", 64, 8, 48)
    spine_ports = {(z, zp) for kind, _a, _ap, z, zp, _s in mixed_links(mixed_plan(BREAKOUT)) if kind == "leaf-spine"}
    assert len(spine_ports) == 256 + 256  # every uplink its own spine lane
    assert len({(z, zp.rsplit("/", 1)[0]) for z, zp in spine_ports}) == 8 * 48  # lanes on 48 ports of each spine


@pytest.mark.parametrize("design", [
    Design(gpu="H100", nodes=64), Design(gpu="H100", nodes=200, tiers=2),
    Design(gpu="H100", nodes=48, oversubscription=2.0),
    Design(gpu="H100", nodes=64, topology="top-of-rack", fabric="ethernet"),
    Design(gpu="GB200-NVL72", nodes=72), Design(gpu="B300", nodes=128)])
def test_one_pod_is_todays_two_tier_plan(design):
    """One pod is today's plan, its management rows too: both count the rack PDUs of today's layout's racks (3 a
    compute rack, 2 another; ``core.plan.as_built``, ``core.analysis.podmgmt``), so the out-of-band switches and the
    in-band network for their uplinks are the same."""
    from core.analysis.podmgmt import mixed_networks

    today = plan(design.model_copy(update={"tiers": 2}))
    mixed = mixed_plan(design)
    assert (mixed.fabric.leaves, mixed.fabric.spines) == (today.fabric.leaf_count, today.fabric.spine_count)
    assert mixed.capex_usd == pytest.approx(today.cost.capex_usd)
    management = ("oob", "inband")
    assert sorted((r.network, r.category, r.catalog_id, r.quantity) for r in mixed.bom if r.network in management) == \
        sorted((r.network, r.category, r.catalog_id, r.quantity) for r in today.bom if r.network in management)
    built = sum(3 if r.kind == "compute" else 2 for r in today.layout.racks)
    assert next(l.count for l in mixed_networks(mixed)[0].oob.links if l.kind == "pdu-mgmt") == built
    assert today.networks.oob.links_of("pdu-mgmt") == today.networks.oob.devices_of("pdu") == built
    assert sum(1 for _link in mixed_links(mixed)) == today.fabric.node_leaf_links + today.fabric.leaf_spine_links


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.integers(1, 24).map(lambda k: 8 * k), pods=st.lists(st.tuples(
    st.sampled_from(["H100", "B200", "H200"]), st.integers(1, 12).map(lambda k: 8 * k), st.sampled_from([None, 800]),
    st.integers(0, 2)), min_size=1, max_size=3))
def test_ports_within_radix_and_balanced(first, pods):
    text = ",".join(f"{s}:{n}" + (f":{v}" if v else "") + (f"@{k}" if k else "") for s, n, v, k in pods)
    design = Design(gpu="H100", nodes=first, pods=text)
    try:
        fabric = size_pods(design)
    except DesignError as exc:
        assert exc.suggestion  # a way out in words
        return
    if fabric.tiers == 3:  # the pods' spines did not fit one shared layer: each pod's own under shared cores
        assert fabric.core_ports_used <= fabric.core_radix
        assert all(p.spine_uplinks % fabric.cores_per_group == 0 for p in fabric.pods)
        return
    assert fabric.spine_ports_used <= fabric.spine_radix
    for pod in fabric.pods:
        assert pod.uplinks_per_leaf % fabric.spines == 0
        assert pod.links_per_leaf_spine_pair * fabric.spines == pod.uplinks_per_leaf
    assert sum(math.ceil(p.leaves * p.links_per_leaf_spine_pair / p.uplinks_per_spine_port)
               for p in fabric.pods) == fabric.spine_ports_used


def test_spine_sized_for_the_final_stage_moves_nothing():
    final = BREAKOUT.model_copy(update={"pods_final": True})
    (step,) = pod_growth(final)
    assert (step.cables_moved, step.cables_speed_changed, step.cables_removed, step.switches_removed) == (0, 0, 0, 0)
    # the stage adds pod 2's 8 leaves and its cables: 32 nodes x 8 rails + 8 leaves x 32 uplinks
    assert step.switches_added == 8 and step.cables_added == 32 * 8 + 8 * 32
    assert (step.from_nodes, step.to_nodes, step.from_gpus, step.to_gpus) == (64, 96, 512, 768)
    assert step.capex_usd == pytest.approx(mixed_plan(final, 1).capex_usd - mixed_plan(final, 0).capex_usd)
    assert any(b.catalog_id == "H100" and b.quantity == 32 for b in step.bought)


def test_spine_sized_per_stage_recables_and_says_so():
    # stage 0: pod 1 alone needs 256 ports of 64 -> 4 spines; stage 1 needs 8: half of pod 1's uplinks move
    (step,) = pod_growth(BREAKOUT)
    assert size_pods(BREAKOUT, 0).spines == 4 and size_pods(BREAKOUT, 1).spines == 8
    assert step.cables_moved > 0 and step.moved_by_kind == {"leaf-spine": step.cables_moved}
    assert step.switches_added == 8 + 4 and step.recabled == step.cables_moved
    assert growth(BREAKOUT) == [step] and has_stages(BREAKOUT, 64)


def test_a_new_spine_model_recables_onto_it():
    # stage 0: QM9700 spines (400G); the B200 pod's 800G uplinks need Q3400 spines: every pod-1 cable moves over
    (step,) = pod_growth(BROWNFIELD)
    assert step.switches_removed == 8 and step.cables_moved == 16 * 32


@pytest.mark.parametrize("design, words", [
    (Design(gpu="H100", nodes=64, pods="X100:8"), "X100"),
    (Design(gpu="H100", nodes=64, pods="B200:512:800", tiers=2), "drop pod 2"),  # tiers auto: three tiers
    (Design(gpu="H100", nodes=512, pods="B200:8"), "at most 256 nodes"),
    (Design(gpu="H100", nodes=64, pods="B200:8", topology="rail-only"), "rail-optimized"),
    (Design(gpu="H100", nodes=64, pods="B200:8", planes=3, plane_mode="per-rail"), "plane mode per-port"),
    (Design(gpu="H100", nodes=64, pods="B200:8@1", stages="128"), "SYSTEM:NODES@STAGE"),
])
def test_bad_pods_are_design_errors_with_ways_out(design, words):
    with pytest.raises(DesignError) as info:
        size_pods(design)
    assert words in str(info.value) and info.value.suggestion
    for _phrase, changes in info.value.fixes:  # every way out given as data sizes (or plans, without pods)
        changed = design.model_copy(update=changes)
        size_pods(changed) if changed.pods else plan(changed)


def test_cli_plan_and_stages(capsys):
    assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800@1"]) == 0
    out = capsys.readouterr().out
    assert "8 Q3400 at 800G, 96 of 144 ports used on each" in out and "pod 2" in out
    assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800@1", "--format", "json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    data = whole["mixed_pods"]
    assert data["spines"]["count"] == 8 and data["gpus"] == 768 and whole["bom"][0]["quantity"] == 8
    assert whole["bom"][0]["pod"] == "shared"
    assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800@1", "--format", "csv"]) == 0
    assert "8 spines shared by 2 pods" in capsys.readouterr().out
    assert cli_main(["stages", "--nodes", "64", "--fabric", "ethernet", "--uplink-speed", "800", "--pods",
                     "H100:32@1", "--pods-final", "1"]) == 0
    out = capsys.readouterr().out
    assert "stage 1 adds" in out and "0 re-terminated" in out
    assert cli_main(["plan", "--pods", "B200:x"]) == 2
    assert cli_main(["plan", "--nodes", "64", "--pods", "X100:8"]) == 3
    assert cli_main(["stages", "--nodes", "64"]) == 2  # --stages or --pods
    assert cli_main(["stages", "--nodes", "64", "--pods", "B200:8"]) == 2  # no later stage


def test_link_and_file_round_trip():
    design = Design(gpu="H100", nodes=64, pods=" b200 : 32 : 800 @ 1，h100:8", pods_final=True)
    assert design.pods == "B200:32:800@1,H100:8"
    decoded, warnings = sharelink.decode(sharelink.encode(design))
    assert warnings == [] and decoded == design
    assert Design.from_json(design.to_json()) == design
    _design, warnings = sharelink.decode({"pods": "B200:x"})
    assert warnings and "SYSTEM:NODES" in " ".join(warnings)


def test_ways_out_as_data_drop_the_pod_at_fault():
    with pytest.raises(DesignError) as info:
        size_pods(Design(gpu="H100", nodes=64, pods="B200:32,X100:8"))
    assert info.value.fixes == (("drop the extra pod X100:8", {"pods": "B200:32"}),)
    with pytest.raises(DesignError) as info:
        size_pods(Design(gpu="H100", nodes=64, pods="B200:8", topology="rail-only"))
    assert info.value.fixes == (("drop the extra pods", {"pods": None}),)


def test_a_job_on_one_pod_uses_that_pods_system_and_the_slowest_bounds_across():
    from core.analysis.pods import pod_busbw, pods_summary
    from core.fabric.pods import pod_design
    from core.perf.collectives import collective

    mixed = mixed_plan(BROWNFIELD)
    alone = [collective(plan(pod_design(BROWNFIELD, i, "infiniband")), "all-reduce", 1 << 30)["busbw_gbytes"]
             for i in range(2)]
    assert pod_busbw(mixed) == alone and alone[1] > alone[0]  # B200 at 800G beats H100 at 400G
    assert [p.resolved.system.id for p in mixed.plans] == ["H100", "B200"]
    assert pods_summary(mixed)["cross_pod_allreduce_busbw_gbytes"] == alone[0]


def test_review_pack_has_the_pods_section_only_for_a_mixed_design():
    from core.formats.report import design_report_html

    html = design_report_html(plan(BROWNFIELD), name="Brownfield", share_link="")
    assert 'data-section="pods"' in html and "8 Q3400 at 800G, 96 of 144 ports used on each" in html
    assert 'data-section="growth"' in html  # the pods' stages
    assert 'data-section="pods"' not in design_report_html(plan(Design(gpu="H100", nodes=64)), name="x",
                                                           share_link="")


def test_a_small_pods_leaves_take_more_uplinks_so_the_spines_divide_them():
    # H100 x 64: 16 QM9700 leaves of 32 down + 32 up; B200 x 8 at 400G: 8 leaves of 8 down + 8 up.
    # As sized: gcd(32, 8) = 8 spines at most, but 16 x 32 + 8 x 8 = 576 ports need ceil(576 / 64) = 9.
    # Widened: N = 9 .. 15 would need 36 .. 45 uplinks on an H100 leaf (32 free ports) or are no multiple; N = 16:
    #   H100 leaves keep 32 (2 per spine), B200 leaves take 16 (1 per spine) at 8:16 = 0.5:1; 16 x 2 + 8 x 1 = 40 <= 64.
    design = Design(gpu="H100", nodes=64, pods="B200:8")
    fabric = size_pods(design)
    assert fabric.spines == 16 and fabric.spine_ports_used == 40
    assert [(p.leaves, p.uplinks_per_leaf, p.oversubscription) for p in fabric.pods] == [(16, 32, 1.0), (8, 16, 0.5)]
    mixed = mixed_plan(design)
    assert [(p.fabric.leaf_count, p.fabric.leaf_uplinks) for p in mixed.plans] == [(16, 32), (8, 16)]
    assert sum(kind == "leaf-spine" for kind, *_rest in mixed_links(mixed)) == 16 * 32 + 8 * 16
