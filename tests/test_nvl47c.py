"""The level-2 NVLink failure row agrees with its note (nvl47c): one rule, ``core.analysis.failure.nvlink2``."""

from __future__ import annotations

import json

import pytest

from core.design import Design
from core.plan import plan

GB200 = dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)


def test_a_lost_level_2_unit_lowers_the_worst_domains_nvlink_row_as_its_note_says():
    """GB200 NVL72, 144 nodes (576 GPUs) in 144-GPU NVLink domains of 4 NVL36 racks joined by 18 level-2 units.
    Hand count: a GPU's 18 NVLink 5 links to the other racks (900 GB/s per direction, non-blocking) spread over the
    18 units; 1 lost leaves 17/18 x 900 = 850 GB/s for the 144 GPUs of that domain. The note said 850 of 900 while the
    row "NVLink per GPU, worst domain" read 900 -> 900 and "GPUs with less NVLink bandwidth" 0."""
    from core.analysis.failure import what_if
    from core.figures.resilience import what_if_rows

    p = plan(Design(**GB200))
    assert p.resolved.gpus == 576
    result = what_if(p, ["nvlink2:1"])
    assert any("850 of 900 GB/s" in note for note in result.notes)
    assert result.healthy_nvlink_gbytes_per_gpu_one_direction == 900
    assert abs(result.nvlink_gbytes_per_gpu_one_direction - 900 * 17 / 18) < 1e-9  # 850
    assert result.gpus_nvlink_degraded == 144
    rows = {r[0]: r[1:] for r in what_if_rows(result, "GB/s", p.resolved.system)}
    assert rows["NVLink per GPU, level 2, worst domain, one direction"] == ("900 GB/s", "850 GB/s")  # nvl48
    assert rows["GPUs with less NVLink bandwidth"] == ("0", "144")
    # the domain's all-reduce crosses its racks: it runs on the second level left, below the healthy figure
    assert result.domain_busbw_gbytes < result.healthy_domain_busbw_gbytes
    out = result.to_json()
    assert out["gpus_nvlink_degraded"] == 144 and out["nvlink_gbytes_per_gpu_one_direction"] == 850.0


def test_every_level_2_unit_lost_leaves_no_nvlink_between_the_racks():
    """All 18 units lost: the domain splits into its 4 racks, which reach each other over the scale-out network
    only (the note), so the worst domain's NVLink to its other racks is 0 for its 144 GPUs; a healthy domain
    elsewhere keeps its 900 inside and across its racks."""
    from core.analysis.failure import what_if

    result = what_if(plan(Design(**GB200)), ["nvlink2:18"])
    assert any("splits into its 4 first-level domains" in note for note in result.notes)
    assert result.nvlink_gbytes_per_gpu_one_direction == 0 and result.gpus_nvlink_degraded == 144


def test_a_tapered_second_level_compares_like_with_like():
    """H100 NVLink Switch System (scaleup.toml: 9 uplinks per GPU x 25 GB/s = 225 GB/s to other nodes, 2:1 under the
    450 inside a node), 256-GPU domains of 32 nodes: 256 x 9 = 2,304 level-2 links / 128 ports = 18 units; 1 lost
    leaves 17/18 x 225 = 212.5 GB/s per GPU, as the note says, and the row's healthy figure is the same 225 (the
    bandwidth to other nodes), not the 450 inside a node."""
    from core.analysis.failure import what_if
    from core.fabric.domainlevels import scaleup_of

    p = plan(Design(gpu="H100", nodes=64, nvlink_domain_gpus=256))
    up = scaleup_of(p.resolved)
    assert up.level2_gbytes_per_gpu == 225
    units = next(up.domains()).level2_switches
    assert units == 256 * 9 // 128 == 18
    result = what_if(p, ["nvlink2:1"])
    left = 225 * (units - 1) / units
    assert any(f"{left:,.0f} of 225 GB/s" in note for note in result.notes), result.notes
    assert result.healthy_nvlink_gbytes_per_gpu_one_direction == 225
    assert abs(result.nvlink_gbytes_per_gpu_one_direction - left) < 1e-9 and result.gpus_nvlink_degraded == 256


def test_cli_table_json_and_chinese_agree(capsys):
    from tests.conftest import run_cli

    args = ("failure", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144", "--fail", "nvlink2:1")
    code, out, _err = run_cli(capsys, *args)
    line = " ".join(out.split())
    assert code == 0 and "144 GPUs at 850 GB/s per GPU, one direction (healthy 900 GB/s)" in line, line
    assert "850 of 900 GB/s" in line
    code, out, _err = run_cli(capsys, *args, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["gpus_nvlink_degraded"] == 144
    assert data["nvlink_gbytes_per_gpu_one_direction"] == 850.0
    assert data["healthy"]["nvlink_gbytes_per_gpu_one_direction"] == 900.0
    code, out, _err = run_cli(capsys, "--lang", "zh", *args)
    line = " ".join(out.split())
    assert code == 0 and "850 / 900 GB/s" in line, line
    assert "144 个 GPU，每个 GPU 单向 850 GB/s（健康时 900 GB/s）" in line, line


@pytest.mark.parametrize("lang, words", [
    ("en", ("number", "healthy", "failed", "NVLink per GPU, level 2, worst domain, one direction",
            "GPUs with less NVLink bandwidth")),
    ("zh", ("指标", "健康", "故障", "每 GPU 第二级 NVLink 带宽，最差域，单向", "NVLink 带宽降低的 GPU"))])
def test_the_resilience_page_table_says_850_and_144(lang, words):
    from tests import pagetest

    at = pagetest.open_page("../pages/6_Resilience.py", {"g": "GB200-NVL72", "n": "144", "nvd": "144",
                                                         "rs_fail": "nvlink2:1", "lang": lang})
    assert not at.warning, [w.value for w in at.warning]
    number, healthy, failed, per_gpu, gpus = words
    frame = next(d for d in at.dataframe if failed in d.value.columns).value
    rows = {a: (b, c) for a, b, c in zip(frame[number], frame[healthy], frame[failed])}
    assert rows[per_gpu] == ("900 GB/s", "850 GB/s"), rows
    assert rows[gpus] == ("0", "144"), rows


def test_a_gpu_hit_at_both_levels_counts_once():
    """A level-2 unit and a first-level tray of the same domain's rack nvl001 (36 GPUs, 8 of 9 trays left: 800 GB/s):
    the domain's 144 GPUs have less NVLink, the rack's 36 among them, so 144 (not 180) at the lower 800 GB/s; a tray
    of nvl005, in the next domain, adds its 36: 180."""
    from core.analysis.failure import what_if

    p = plan(Design(**GB200))
    same = what_if(p, ["nvlink2:1", "tray:1"])
    assert same.gpus_nvlink_degraded == 144 and abs(same.nvlink_gbytes_per_gpu_one_direction - 900 * 8 / 9) < 1e-9
    other = what_if(p, ["nvlink2:1", "nvl005-nvsw1"])
    assert other.gpus_nvlink_degraded == 144 + 36
