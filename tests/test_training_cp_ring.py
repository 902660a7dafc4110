"""Context-parallel rings that leave the NVLink domain (leftperf 1): which ring sends cross a domain's edge, by hand
count; the CP part timed at the fabric's rate and named by both levels; the CLI and the Performance page's table
saying the same level."""

import pytest

from conftest import run_cli as run
from core.design import Design
from core.perf.jobform import communication_rows
from core.perf.placement import level_label, links
from core.perf.training import _ring_crossings, estimate, parse_job
from core.plan import plan

NVL72 = plan(Design(gpu="GB200-NVL72", nodes=36))  # 144 GPUs in two 72-GPU racks, 4 GPUs a node
P32 = plan(Design(gpu="H100", gpus=32))  # 4 x DGX H100: 8-GPU NVLink domains


@pytest.mark.parametrize("tp, cp, gpus, domain, crossing, sends", [
    # blocks of tp x cp GPUs, a ring's ranks tp apart, each sending to the next and the last to the first
    (2, 4, 16, 8, 0, 8),       # blocks of 8 fill the nodes: no send leaves one (the pattern repeats every 8)
    (4, 4, 16, 8, 8, 16),      # block 0-15: sends 4-7 -> 8-11 and 12-15 -> 0-3 leave their node, 8 of 16
    (8, 4, 32, 8, 32, 32),     # one rank a node: every send crosses
    (4, 4, 144, 72, 8, 144),   # 72-GPU racks: block 64-79 straddles the edge (68-71 -> 72-75, 76-79 -> 64-67)
    (4, 2, 144, 72, 0, 72),    # blocks of 8: nine to a rack, none straddles
    (1, 16, 144, 72, 2, 144),  # block 64-79 with tp 1: 71 -> 72 and 79 -> 64
    (4, 4, 64, 72, 0, 64),     # a 64-GPU job stays in the first rack
    (4, 4, 1440, 72, 8, 144),  # the pattern repeats every lcm(16, 72) = 144 GPUs
])
def test_ring_sends_that_leave_a_domain_by_hand(tp, cp, gpus, domain, crossing, sends):
    assert _ring_crossings(tp, cp, gpus, domain) == (crossing, sends)


def _cp(p, **job):
    e = estimate(p, parse_job({"model": "llama3-70b", "seq_len": 32768, "recompute": "full", "pp": 1, **job}))
    return next(c for c in e.comm if c.kind == "CP")


def _algbw(part) -> float:
    return part.bytes_per_call / (part.time_s / part.calls) / 1e9  # GB/s, one direction


def test_a_ring_that_straddles_a_rack_edge_is_timed_at_the_nic_and_says_both_levels():
    """tp 4 x cp 4 on 144 GB200 GPUs: tp x cp = 16 <= 72 (the old rule said NVLink), but the ring in GPUs 64-79 spans
    both racks, so every ring step waits for a send at the NIC's rate (50 GB/s one direction per GPU)."""
    part = _cp(NVL72, tp=4, cp=4, global_batch=18)
    nic = links(NVL72).nic_per_gpu_line
    assert nic == pytest.approx(50.0)
    assert _algbw(part) <= nic
    assert part.fabric_level == "nvlink+fabric"
    assert level_label(part.fabric_level, NVL72.resolved.system) == "NVLink + fabric"


def test_rings_that_fit_the_racks_stay_on_nvlink_and_one_rank_a_node_is_fabric():
    inside = _cp(NVL72, tp=4, cp=2, global_batch=36)
    assert inside.fabric_level == "nvlink"
    assert _algbw(inside) > links(NVL72).nvlink_line / 2  # NVLink's rate (900 GB/s a direction), far above a NIC's
    across = _cp(P32, tp=8, cp=4, global_batch=8)
    assert across.fabric_level == "fabric"
    assert _algbw(across) <= links(P32).nic_per_gpu_line


def test_cli_and_performance_table_name_the_same_level():
    """``python -m core train`` prints the CP row's level as the Performance page's table does (both read the
    estimate's ``fabric_level`` through ``level_label``)."""
    import contextlib
    import io

    from core.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["train", "--gpu", "GB200-NVL72", "--nodes", "36", "--model", "llama3-70b", "--seq-len", "32768",
                     "--recompute", "full", "--tp", "4", "--cp", "4", "--pp", "1", "--global-batch", "18"])
    assert code == 0
    line = next(ln for ln in out.getvalue().splitlines() if ln.strip().startswith("CP"))
    assert line.endswith("ring over NVLink + fabric")
    e = estimate(NVL72, parse_job({"model": "llama3-70b", "seq_len": 32768, "recompute": "full", "tp": 4, "cp": 4,
                                   "pp": 1, "global_batch": 18}))
    rows = communication_rows(e, NVL72.resolved.system)
    cp_row = next(r for r in rows if "CP" in str(next(iter(r.values()))))
    assert "NVLink + fabric" in cp_row.values()
