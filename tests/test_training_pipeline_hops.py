"""Pipeline sends that leave the NVLink domain (review45 1.1): which stage boundaries cross, by hand count, and the
PP part timed and named by its slowest hop."""

import pytest

from core.design import Design
from core.perf.placement import level_label, links
from core.perf.training import _pipeline_crossings, estimate, parse_job
from core.plan import plan

P32 = plan(Design(gpu="H100", gpus=32))  # 4 x DGX H100: 8-GPU NVLink domains


@pytest.mark.parametrize("stride, pp, domain, crossing", [
    (4, 8, 8, 3),    # tp 4: stages pair up per node, boundaries 1-2, 3-4, 5-6 leave it
    (8, 4, 8, 3),    # one stage per node: every boundary crosses
    (16, 2, 8, 1),   # a stage spans two nodes: its one boundary crosses
    (2, 4, 8, 0),    # the whole pipeline inside one node
    (4, 2, 8, 0),    # two stages in one node: the old rule's only case, and still right
    (16, 4, 72, 0),  # GB200 NVL72: GPUs 0-63 in the first rack
    (16, 5, 72, 1),  # stage 4 (GPUs 64-79) straddles the rack edge: boundary 3-4 crosses
    (16, 9, 72, 2),  # 0-71 | 72-143: boundaries 3-4 (GPUs 48-79) and 4-5 (64-95) cross; 7-8 (112-143) does not
])
def test_stage_boundaries_that_leave_a_domain_by_hand(stride, pp, domain, crossing):
    assert _pipeline_crossings(stride, pp, domain) == crossing


def _pp(e):
    return next(c for c in e.comm if c.kind == "PP")


def test_a_pipeline_that_leaves_the_node_is_timed_at_the_nic_and_says_both_levels():
    """tp 4 x pp 8 on 32 GPUs (the CLI's default training split): 3 of 7 boundaries cross nodes, so the step's sends
    run at the NIC's rate (50 GB/s one direction per GPU on DGX H100), not NVLink's (review45 saw 327 GB/s)."""
    e = estimate(P32, parse_job({"model": "llama3-70b", "seq_len": 8192, "global_batch": 1024, "tp": 4, "pp": 8}))
    pp = _pp(e)
    nic = links(P32).nic_per_gpu_line
    assert nic == pytest.approx(50.0)
    algbw = pp.bytes_per_call / (pp.time_s / pp.calls) / 1e9
    assert algbw <= nic
    assert pp.fabric_level == "nvlink+fabric"
    assert level_label(pp.fabric_level, P32.resolved.system) == "NVLink + fabric"


def test_a_pipeline_inside_one_node_stays_on_nvlink_and_one_across_every_boundary_is_fabric():
    inside = _pp(estimate(P32, parse_job({"model": "llama3-8b", "seq_len": 8192, "global_batch": 64, "tp": 2,
                                         "pp": 4, "gpus": 8})))
    assert inside.fabric_level == "nvlink"
    assert inside.bytes_per_call / (inside.time_s / inside.calls) / 1e9 > links(P32).nic_per_gpu_line
    across = _pp(estimate(P32, parse_job({"model": "llama3-70b", "seq_len": 8192, "global_batch": 1024, "tp": 8,
                                         "pp": 4})))
    assert across.fabric_level == "fabric"
