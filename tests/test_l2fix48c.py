"""A level-2 NVLink loss never gets better as more units fail, and never beats the healthy design (l2fix48c, rev48b
finding 1); the SPOF rows of a two-level NVLink design name and count as the exports and the failure what-if do
(rev48b finding 8).

GB200 NVL72, 144 nodes (576 GPUs) in 144-GPU NVLink domains of 4 NVL36 racks joined by 18 level-2 units.
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.plan import plan

GB200 = dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)


def _job(p, tp: int):
    from core.cli.common import split_job
    from core.perf.training import model_preset, parse_job

    return split_job(p, parse_job(dict(model=model_preset("llama3-70b"))), tp=tp, pp=None)


@pytest.mark.parametrize("tp", [64, 4])
def test_losing_more_level_2_units_is_never_faster_and_never_beats_healthy(tp):
    """0..18 units of one domain lost: the step never falls, the all-reduce and all-to-all busbw never rise, and no
    figure beats the healthy one. Before: 17 lost gave 287.4 s and 33.5 GB/s, all 18 lost 25.43 s and 722 GB/s (above
    the healthy 526)."""
    from core.analysis.failure import what_if

    p = plan(Design(**GB200))
    job = _job(p, tp)
    steps, busbw, a2a = [], [], []
    for lost in range(0, 19):
        if lost == 0:
            r = what_if(p, ["nvlink2:1"], job)
            steps.append(r.healthy_step_time_s)
            busbw.append(r.healthy_busbw_gbytes)
            a2a.append(r.healthy_alltoall_busbw_gbytes)
            continue
        r = what_if(p, [f"nvlink2:{lost}"], job)
        assert r.step_time_s >= r.healthy_step_time_s - 1e-12
        assert r.busbw_gbytes <= r.healthy_busbw_gbytes + 1e-9
        assert r.alltoall_busbw_gbytes <= r.healthy_alltoall_busbw_gbytes + 1e-9
        steps.append(r.step_time_s)
        busbw.append(r.busbw_gbytes)
        a2a.append(r.alltoall_busbw_gbytes)
    assert all(b >= a - 1e-12 for a, b in zip(steps, steps[1:])), steps
    assert all(b <= a + 1e-9 for a, b in zip(busbw, busbw[1:])), busbw
    assert all(b <= a + 1e-9 for a, b in zip(a2a, a2a[1:])), a2a


def test_the_split_step_is_the_36_gpu_domain_designs_and_the_figures_are_exact():
    """Hand figures (CLI, rev48b): healthy step 25.257 s, cluster all-reduce 526.292 GB/s; all 18 lost: the racks split,
    so TP-64 runs as on the same cluster built with 36-GPU NVLink domains (`train --nvlink-domain 36 --tp 64`:
    25.432 s); 17 lost: 50 GB/s of level 2 left (1/18 x 900) is slower than that, so the step is the split one too,
    and the cluster all-reduce is the healthy 526.292 (the split copy's 722 is above it: clamped)."""
    from core.analysis.failure import what_if
    from core.perf.training import estimate

    p = plan(Design(**GB200))
    job = _job(p, 64)
    split = estimate(plan(Design(**{**GB200, "nvlink_domain_gpus": 36})), job).step_time_s
    assert split == pytest.approx(25.432, abs=5e-4)
    for lost in (17, 18):
        r = what_if(p, [f"nvlink2:{lost}"], job)
        assert r.healthy_step_time_s == pytest.approx(25.257, abs=5e-4)
        assert r.step_time_s == pytest.approx(split, rel=1e-12)
        assert r.busbw_gbytes == pytest.approx(526.292, abs=1e-3) == r.healthy_busbw_gbytes
    seventeen = what_if(p, ["nvlink2:17"], job)
    assert seventeen.nvlink_gbytes_per_gpu_one_direction == pytest.approx(50)  # the row still says what is left
    assert seventeen.domain_busbw_gbytes == pytest.approx(34.689, abs=1e-3)  # the NVLink domain's own, at 50 GB/s
    note = next(n for n in seventeen.notes if n.startswith("Training step"))
    assert "the 50 of 900 GB/s per GPU per direction left on its second NVLink level is slower" in note, note


def test_the_spof_level_2_cable_is_named_as_the_cabling_plan_names_it():
    """The example cable (tray 1 of rack nvl001 to unit 1 of nvd001) reads as the cabling plan's row C001249:
    ``nvl001-nvsw1 osfp1 -> nvd001-l2sw001 osfp1`` (domainlevels.level2_links: the domain's cable 0 leaves tray 0's cage
    0 and lands on unit 0's cage 0), the engine id in brackets."""
    from core.analysis.failure.names import ElementNames
    from core.analysis.spof import single_points
    from core.figures.topology import element_name
    from core.physical.cabling import nvlink_links
    from core.fabric.naming import NamingScheme

    p = plan(Design(**GB200))
    cable = next(d for d in single_points(p).degrading if d.tier == "nvlink2-cable")
    assert cable.example == "rack0.nvswitch-tray0-domain0.l2switch0"
    names = ElementNames(p)
    assert names.name(cable.example) == "nvl001-nvsw1 osfp1 -> nvd001-l2sw001 osfp1"
    assert element_name(p.fabric.family, cable.example, names) == (
        "nvl001-nvsw1 osfp1 -> nvd001-l2sw001 osfp1 (rack0.nvswitch-tray0-domain0.l2switch0)")
    first = next(nvlink_links(p, NamingScheme()))
    assert first[2:4] + first[5:7] == ("nvl001-nvsw1", "osfp1", "nvd001-l2sw001", "osfp1")
    assert names.name("rack9.nvswitch-tray0-domain0.l2switch0") == "rack9.nvswitch-tray0-domain0.l2switch0"  # not cabled


def test_the_spof_tray_and_chip_rows_count_the_gpus_the_failure_what_if_degrades():
    """Two levels: a switch tray or chip of rack 0 slows its rack's 36 GPUs (4 NVL36 racks per 144-GPU domain), as
    ``failure --fail nvl001-nvsw1`` says (the row said the domain's 144); one level (NVL72 racks, 72-GPU domains): 72."""
    from core.analysis.failure import what_if
    from core.analysis.spof import single_points

    for design, hand in ((GB200, 36), (dict(gpu="GB200-NVL72", nodes=144), 72)):
        p = plan(Design(**design))
        rows = {d.tier: d for d in single_points(p).degrading}
        for tier in ("tray", "nvswitch"):
            assert rows[tier].gpus_affected == hand, (design, tier)
            assert what_if(p, [rows[tier].example]).degraded_gpus == hand, (design, tier)
