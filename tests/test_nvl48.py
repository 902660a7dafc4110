"""Level-2 NVLink failures: the training step, the degraded GPUs and the labelled row (nvl48).

GB200 NVL72, 144 nodes (576 GPUs) in 144-GPU NVLink domains of 4 NVL36 racks (36 GPUs each) joined by 18 level-2
units; a GPU has 18 NVLink 5 links (900 GB/s per direction) inside its rack and as many to the second level, so one
unit lost leaves 17/18 x 900 = 850 GB/s to the other racks (``core.analysis.failure.nvlink2``).
"""

from __future__ import annotations

import json

import pytest

from core.design import Design
from core.plan import plan

GB200 = dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)


def _job(p, tp: int, model: str = "llama3-70b"):
    from core.cli.common import split_job
    from core.perf.training import model_preset, parse_job

    return split_job(p, parse_job(dict(model=model_preset(model))), tp=tp, pp=None)


def _parts(run) -> dict:
    return {c.kind: c for c in run.comm}


def test_a_tp_group_across_racks_runs_at_seventeen_eighteenths_and_one_inside_a_rack_does_not():
    """Hand count by the model's own formula: the failed step's TP part of a TP group of 64 (spanning 2 of the
    domain's 36-GPU racks) is the collective model's TP time on a copy whose NVLink is 17/18 x 900 = 850 GB/s
    everywhere (the level-2 traffic is all of it: a ring across racks runs at the second level's pace); a TP group of
    4 inside a rack keeps its healthy TP time to the bit, the 17/18 factor on the level-2 traffic only."""
    from core.analysis.failure import what_if
    from core.analysis.failure.nvlink2 import crossing_parts
    from core.perf.training import estimate

    p = plan(Design(**GB200))
    r = p.resolved
    assert r.nvlink_level1_gpus == 36 and r.gpus == 576
    slower = p.model_copy(update={"resolved": r.model_copy(
        update={"nvlink_gbytes_per_gpu_bidir": r.nvlink_gbytes_per_gpu_bidir * 17 / 18})})
    for tp, crosses in ((64, True), (4, False)):
        job = _job(p, tp)
        assert job.tp == tp
        result = what_if(p, ["nvlink2:1"], job)
        healthy = _parts(estimate(p, job))["TP"].time_s
        hand = _parts(estimate(slower, job))["TP"].time_s  # all NVLink at 850
        failed = _parts(estimate(_failed_copy(p, ["nvlink2:1"]), job))["TP"].time_s
        if crosses:
            assert failed == pytest.approx(hand, rel=1e-12) and failed > healthy
            # mostly bandwidth: most of 18/17 slower (26.08 of 25.17 s), never more
            assert 1.0 < failed / healthy <= 18 / 17 + 1e-9 and failed / healthy > 1.03
            assert result.step_time_s > result.healthy_step_time_s
        else:
            assert failed == healthy and hand > healthy  # all NVLink at 850 would slow it
        # every part: a collective whose groups span racks at 850 (the all-850 copy's time), the rest as healthy
        failed_run, healthy_run, hand_run = (estimate(_failed_copy(p, ["nvlink2:1"]), job), estimate(p, job),
                                             estimate(slower, job))
        crossing, inside = crossing_parts(p, failed_run)
        assert ("TP" in crossing) is crosses and "DP" in crossing
        for part, was, hand_part in zip(failed_run.comm, healthy_run.comm, hand_run.comm):
            expected = hand_part.time_s if part.kind in crossing else was.time_s
            assert part.time_s == pytest.approx(expected, rel=1e-12), part.kind
        # the what-if takes the better of that copy and the split one (l2fix48c): TP-64's ring at 850 GB/s (26.16 s)
        # is slower than the split racks' scale-out path, which is the 36-GPU-domain design's step (25.43 s)
        split_run = estimate(plan(Design(**{**GB200, "nvlink_domain_gpus": 36})), job)
        assert result.step_time_s == pytest.approx(min(failed_run.step_time_s, split_run.step_time_s), rel=1e-12)
        assert (result.step_time_s < failed_run.step_time_s) is crosses
        note = next(n for n in result.notes if n.startswith("Training step"))
        assert ("the TP and DP groups span racks" in note) is crosses, note
        assert ("The TP groups stay inside one rack" in note) is (not crosses), note


def _failed_copy(p, failures):
    """The what-if's degraded copy of ``p`` (``degraded_plan``) for ``failures``, built the way ``what_if`` does."""
    from core.analysis.failure import analyse, degraded_plan, resolve_failures
    from core.analysis.failure.nvlink2 import level2_loss

    elements = resolve_failures(p, failures)
    a = analyse(p, elements)
    loss = level2_loss(p, elements)
    assert loss.worst_gbytes == pytest.approx(850)
    return degraded_plan(p, a.worst_port_fraction, a.worst_leaf_up_fraction, a.worst_spine_up_fraction,
                         a.nvlink_fraction, loss.worst_gbytes)


def test_the_degraded_copy_holds_the_level_2_bandwidth_left_and_the_first_level_unchanged():
    from core.fabric.domainlevels import scaleup_of
    from core.perf.placement import links, place

    p = plan(Design(**GB200))
    copy = _failed_copy(p, ["nvlink2:1"])
    up = scaleup_of(copy.resolved)
    assert up.level1_gbytes_per_gpu == 900 and up.level2_gbytes_per_gpu == pytest.approx(850)
    assert scaleup_of(p.resolved).level2_gbytes_per_gpu == 900
    assert links(copy, placement=place(copy, 8)).nvlink_line == 900  # inside a rack: the first level
    assert links(copy, placement=place(copy, 64)).nvlink_line == pytest.approx(850)  # two racks: the second


def test_expert_dispatch_across_nodes_of_a_tapered_second_level_waits_for_it():
    """H100 NVLink Switch System (9 uplinks x 25 GB/s = 225 GB/s to other nodes, 450 inside a node): 32 expert-parallel
    ranks in one 256-GPU domain, 8 per node, so 24/32 = 3/4 of a GPU's bytes go to other nodes over the second
    level. Hand count: the NVLink time is max(bytes / 450, 3/4 bytes / 225) x 1/efficiency = bytes / 300 / efficiency
    (1.5x the single-level figure); 8 ranks inside a node keep bytes / 450 / efficiency."""
    from core.perf.expert_dispatch import ep_layer
    from core.perf.placement import links
    from core.perf.serving_constants import load_serving_constants

    p = plan(Design(gpu="H100", nodes=64, nvlink_domain_gpus=256))
    efficiency = links(p).nvlink / links(p).nvlink_line
    assert links(p).nvlink_line == 450
    base = load_serving_constants().expert_parallel.normal_base_us * 1e-6
    tokens, top_k, hidden = 4096, 8, 7168
    per_direction = tokens * top_k * hidden * 2  # BF16 both ways
    for ranks, gbytes in ((32, 300.0), (8, 450.0)):
        e = ep_layer(p, ranks, tokens, top_k, hidden, "normal", bytes_per_value=(2, 2))
        assert e.remote == 0 and e.fabric_s == 0
        hand = base + per_direction / (gbytes * efficiency * 1e9)
        assert e.dispatch_s == pytest.approx(hand, rel=1e-12) and e.combine_s == pytest.approx(hand, rel=1e-12)


def test_gpus_degraded_counts_nic_and_nvlink_each_gpu_once():
    """One rule for "GPUs degraded": a NIC port or less NVLink (either level), each GPU once. Hand counts: the
    level-2 unit of domain nvd001 (nodes 0-35, 144 GPUs) and a NIC of node 5 (inside it): 144; a NIC of node 100
    (rack 11, domain nvd003): 145; its tray too (rack 0, inside nvd001): still 145 (the rack's GPUs counted once)."""
    from core.analysis.failure import what_if

    p = plan(Design(**GB200))
    assert what_if(p, ["nvlink2:1"]).degraded_gpus == 144
    inside = what_if(p, ["nvlink2:1", "node5.nic0"])
    assert inside.gpus_degraded == 1 and inside.gpus_nvlink_degraded == 144 and inside.degraded_gpus == 144
    outside = what_if(p, ["nvlink2:1", "node100.nic0"])
    assert outside.gpus_degraded == 1 and outside.degraded_gpus == 145
    both = what_if(p, ["nvlink2:1", "node100.nic0", "rack0.nvswitch-tray0"])
    assert both.gpus_nvlink_degraded == 144 and both.degraded_gpus == 145
    assert what_if(p, ["rack11.nvswitch-tray0", "node100.nic0"]).degraded_gpus == 36  # node 100 is in rack 11
    assert what_if(p, ["leaf:1"]).degraded_gpus == what_if(p, ["leaf:1"]).gpus_degraded  # no NVLink lost


def test_cli_json_and_the_card_say_the_one_count(capsys):
    from tests.conftest import run_cli

    args = ("failure", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144", "--fail", "nvlink2:1",
            "--fail", "node100.nic0")
    code, out, _err = run_cli(capsys, *args)
    line = " ".join(out.split())
    assert code == 0 and ("degraded 145 in all, a GPU in both counted once: 1 GPU lost a NIC port (1 over PXN via "
                          "NVLink); 144 GPUs have less NVLink bandwidth") in line, line
    code, out, _err = run_cli(capsys, *args, "--format", "json")
    data = json.loads(out)
    assert data["gpus_degraded"] == 1 and data["gpus_degraded_any"] == 145 and data["gpus_nvlink_degraded"] == 144
    code, out, _err = run_cli(capsys, "--lang", "zh", *args)
    assert "共 145 个（两者兼有的 GPU 只计一次）" in " ".join(out.split())


def test_a_tapered_second_level_row_says_it_is_the_second_levels_figure():
    """H100 NVLink Switch System, 1 of 18 level-2 units lost: the row's healthy 225 GB/s is a GPU's bandwidth to
    other nodes over the second level, the 450 inside a node beside it; in both languages."""
    from core.analysis.failure import what_if
    from core.analysis.failure.nvlink2 import level2_scope
    from core.figures.resilience import what_if_rows
    from core.i18n import language

    p = plan(Design(gpu="H100", nodes=64, nvlink_domain_gpus=256))
    result = what_if(p, ["nvlink2:1"])
    assert result.nvlink_level2_of == 8 and result.nvlink_inside_gbytes_per_gpu_one_direction == 450
    rows = {r[0]: r[1:] for r in what_if_rows(result, "GB/s", p.resolved.system)}
    assert rows["NVLink per GPU, level 2, worst domain, one direction"] == ("225 GB/s", "212 GB/s"), rows
    with language("zh"):
        rows = {r[0]: r[1:] for r in what_if_rows(result, "GB/s", p.resolved.system)}
        scope = level2_scope(8, 8, "450 GB/s")
    assert rows["每 GPU 第二级 NVLink 带宽，最差域，单向"] == ("225 GB/s", "212 GB/s"), rows
    assert scope == "到本域其他节点，经第二级 NVLink（节点内为 450 GB/s）"
    assert level2_scope(36, 4, "900 GB/s") == ("to other racks of its domain, over the second NVLink level (900 GB/s "
                                               "inside a rack)")
    # a first-level loss alone keeps the plain row: its figures are the first level's
    tray = what_if(plan(Design(**GB200)), ["tray:1"])
    assert tray.nvlink_level2_of == 0
    assert "NVLink per GPU, worst domain, one direction" in {r[0] for r in what_if_rows(tray, "GB/s")}


@pytest.mark.parametrize("lang, label", [("en", "GPUs degraded"), ("zh", "降级的 GPU")])
def test_the_resilience_card_counts_the_nvlink_gpus(lang, label):
    """The card said 0 while the table said 144 GPUs with less NVLink: it reads ``degraded_gpus`` now."""
    from tests import pagetest

    at = pagetest.open_page("../pages/6_Resilience.py", {"g": "GB200-NVL72", "n": "144", "nvd": "144",
                                                         "rs_fail": "nvlink2:1", "lang": lang})
    assert not at.warning, [w.value for w in at.warning]
    card = next(m for m in at.metric if m.label == label)
    assert card.value == "144", card.value


def test_the_page_says_what_the_nvlink_row_is_under_its_table():
    from tests import pagetest

    at = pagetest.open_page("../pages/6_Resilience.py", {"g": "H100", "n": "64", "nvd": "256", "rs_fail": "nvlink2:1"})
    assert not at.warning, [w.value for w in at.warning]
    captions = [c.value for c in at.caption]
    assert ("NVLink per GPU, level 2: to other nodes of its domain, over the second NVLink level (450 GB/s inside "
            "a node).") in captions, captions


def test_every_level_2_unit_lost_splits_the_step_into_racks():
    """All 18 units of nvd001 lost: the degraded copy's NVLink domains are its 36-GPU racks, so a TP group of 64 leaves
    its rack over the NICs (slower), a TP group of 4 stays inside one, its DP crossing racks over the scale-out
    network; the domain's all-reduce row has no figure (no 144-GPU NVLink domain is left)."""
    from core.analysis.failure import what_if

    p = plan(Design(**GB200))
    small = what_if(p, ["nvlink2:18"], _job(p, 4))
    assert small.domain_busbw_gbytes is None and small.healthy_domain_busbw_gbytes is not None
    assert small.step_time_s is not None and small.step_time_s >= small.healthy_step_time_s
    assert any("lost its second NVLink level, so their traffic between racks goes over the scale-out network" in n
               for n in small.notes), small.notes
    large = what_if(p, ["nvlink2:18"], _job(p, 64))  # its TP groups of 64 now leave the rack over the NICs
    assert large.step_time_s > large.healthy_step_time_s
    assert any("the TP and DP groups span racks of an NVLink domain that lost its second NVLink level" in n
               for n in large.notes), large.notes
