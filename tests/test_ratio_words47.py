"""review47 findings 1, 5, 7, 8 and 9: the end-to-end ratio has one name, "bisection ratio", on every surface; a
title says non-blocking only when the whole fabric is 1:1; the leaf what-if's note is about the leaves; a Dragonfly's
risk and readout name its groups and global links; "pod" is not a two-tier fabric's count.

Hand counts:
* Dragonfly+ of 4,096 H100 GPUs (512 nodes x 8 x 400G) on QM9700, 1:1 leaves (32 down, 32 up): 4 groups, a
  balanced cut crosses 4 group pairs x 341 global links = 1,364 x 400G = 545.6 Tb/s; half the injection 4,096 x 400
  / 2 = 819.2 Tb/s: bisection ratio 1.5015, "1.5:1". Farthest pair: leaf, spine, (global link), spine, leaf = 4
  switches.
* Pods, 64 H100 nodes (512 GPUs at 400G) + 32 B300 nodes (256 at 800G) under shared spines: (512 x 400 + 256 x 800)
  / 2 = 204.8 Tb/s over the worst cut's 384 x 400 = 153.6 Tb/s: 1.33:1; pod 1 planned alone (the job's fabric): 1:1.
  Pod 1's collectives: 512 GPUs in 64 NVLink domains of 8 and 64 nodes, 2 leaf groups of 32 nodes, two tiers (no
  pod tier).
* Folded Clos of 64 H100 nodes at 2:1 leaves: 2:1 end to end (spines 1:1), the taper is the leaves.
"""

from __future__ import annotations

import re

import pytest

from core.design import Design
from core.i18n import language
from core.plan import plan

DF = Design(topology="dragonfly", gpus=4096)
PODS = Design(gpu="H100", nodes=64, pods="B300:32:800")


@pytest.fixture(scope="module")
def df():
    return plan(DF)


@pytest.fixture(scope="module")
def pods():
    return plan(PODS)


def test_dragonfly_ratio_by_hand(df):
    bw = df.bandwidth
    assert df.fabric.pod_count == 4 and bw.leaf_oversubscription == pytest.approx(1.0)
    assert bw.oversubscription == pytest.approx(4096 * 400 / 2 / (4 * 341 * 400))  # 1.5015


def test_taper_words_rule():
    from core.designwords import taper_words

    assert taper_words(1.0, "1:1") == taper_words(1.0, None) == "non-blocking"
    assert taper_words(2.0, "2:1") == taper_words(2.0, None) == "2:1 at the leaf"
    assert taper_words(1.0, "1.5:1") == "1:1 at the leaf, bisection ratio 1.5:1"
    assert taper_words(0.5, "1:1") == "non-blocking"  # spare uplinks: still 1:1 end to end


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dragonfly_title_is_not_non_blocking(df, lang):
    """#1: the pack's title said "non-blocking" three lines above "oversubscription 1.5:1 end to end"."""
    from core.formats.report import _executive_summary, design_title

    with language(lang):
        title = design_title(df)
        summary = " ".join(_executive_summary(df, "GB/s", {}))
    said = {"en": ("1:1 at the leaf, bisection ratio 1.5:1", "non-blocking", "bisection ratio 1.5:1, half the "
                   "injection over the bisection"),
            "zh": ("叶交换机 1:1，对分带宽比 1.5:1", "无阻塞", "对分带宽比 1.5:1，即注入带宽的一半")}[lang]
    assert said[0] in title and said[1] not in title
    assert said[2] in summary and "oversubscription 1.5:1" not in summary


def test_pods_and_default_titles(pods):
    from core.formats.report import design_title

    assert "1:1 at the leaf, bisection ratio 1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs)" in design_title(pods)
    assert "non-blocking" in design_title(plan(Design(gpu="H100", nodes=64)))  # 1:1 everywhere
    assert "2:1 at the leaf, 400G" in design_title(plan(Design(gpu="H100", nodes=64, oversubscription=2)))


def test_optimizer_label_names_the_bisection_ratio(df):
    from core.analysis.optimize import Candidate, design_label

    built = Candidate(index=0, design=DF, tiers=2, oversubscription=df.bandwidth.oversubscription)
    assert "1:1 at the leaf, bisection ratio 1.5:1" in design_label(built)
    assert "non-blocking" in design_label(Candidate(index=0, design=DF, tiers=2))  # not planned: the leaf's


@pytest.mark.parametrize("args, said", [
    (["--topology", "dragonfly", "--gpus", "4096"], "bisection ratio 1.5:1, half the injection over the bisection"),
    (["--gpu", "H100", "--nodes", "64", "--pods", "B300:32:800"], "bisection ratio 1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs), "
                                                                  "half the injection"),
    (["--topology", "torus", "--gpus", "512"], "bisection ratio 6:1, half the injection over the bisection")])
def test_cli_bandwidth_row_says_bisection_ratio(capsys, args, said):
    """#1: the plan command said "oversubscription 1.5:1" where the cards say "bisection ratio 1.5:1"."""
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "plan", *args, "--lang", "en")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("bandwidth"))
    assert said in row and "oversubscription" not in row


def test_performance_ratio_is_the_jobs_fabric(df, pods):
    """#5: the caption gave the whole design's 1.33:1 for pod 1's job, whose labels say 1:1: one rule
    (``job_ratio``), the whole design's beside it."""
    from core.analysis.whole import pod_plan, whole_plan
    from core.perf import jobform

    job, _words = pod_plan(pods, 1)
    whole = whole_plan(pods).bandwidth.oversubscription
    assert whole == pytest.approx(204.8 / 153.6)
    assert jobform.job_ratio(job) == "1:1" and jobform.fabric_label(job) == "This design (InfiniBand, 1:1)"
    assert jobform.ratio_caption(job, whole) == "bisection ratio 1:1 (the job's pod; the whole design's 1.33:1)"
    assert jobform.ratio_caption(df, df.bandwidth.oversubscription) == "bisection ratio 1.5:1"
    assert jobform.fabric_label(df) == "This design (InfiniBand, 1.5:1)"
    with language("zh"):
        assert jobform.ratio_caption(job, whole) == "对分带宽比 1:1（作业所在 Pod；整个设计为 1.33:1）"


def test_dragonfly_whatif_note_is_about_the_leaves():
    """#7: the 1:1 row read "1:1 → 1.5:1, whole ports and scalable units": the global links, not ports, make 1.5:1.
    The leaves build 1:1 (32 down, 32 up); 1.5:1 asked builds 38 nodes on 26 uplinks' worth, 1.44:1 (whole ports)."""
    from core.analysis.whatif import oversubscription_sweep, sweep_display_table

    frame = oversubscription_sweep(DF, values=(1.0, 1.5, 2.0))
    table = sweep_display_table(frame, "GB/s")
    assert table["leaf oversubscription"].tolist() == ["1:1", "1.5:1 → 1.44:1", "2:1"]
    assert table["bisection ratio"].tolist() == ["1.5:1", "1.46:1", "1.97:1"]
    assert table["note"].tolist() == ["", "whole ports and scalable units", ""]
    assert frame["note"].tolist()[1] == "the leaves build 1.44:1 (whole ports and scalable units)"


def test_dragonfly_risk_names_the_global_links(df):
    """#8: "oversubscribed 1.5:1, so traffic across leaves can slow down" on 1:1 leaves."""
    from core.formats.report import _oversubscription_risk

    assert _oversubscription_risk(df) == ("the bisection ratio is 1.5:1, so traffic between groups, over the global "
                                          "links, can slow down")
    with language("zh"):
        assert _oversubscription_risk(df) == "对分带宽比为 1.5:1，组间经全局链路的流量可能变慢"
    clos = plan(Design(gpu="H100", nodes=64, oversubscription=2))
    assert clos.bandwidth.oversubscription == pytest.approx(2.0)
    assert _oversubscription_risk(clos) == "the bisection ratio is 2:1, so traffic across leaves can slow down"


def test_dragonfly_readout_counts_groups_not_pods(df):
    """#9: the pack's Bandwidth line said "cross pod 4" on a Dragonfly+, whose CLI says "4 across" groups."""
    from core.figures.bandwidth import bandwidth_readout
    from core.fabric.families import words

    assert df.bandwidth.hops_cross_pod == 4
    for key in ("readout:bandwidth", "report:readout:bandwidth"):
        text = bandwidth_readout(df.fabric.family, df.resolved.system, df.bandwidth, "GB/s", key, "{cross_pod} pod")
        assert "across groups 4" in text and "pod" not in text and "bisection ratio" in text.lower()
        assert words("dragonfly", key, None) is not None


def test_two_tier_collectives_caption_counts_no_pods(pods):
    """#9: "2 leaf groups, 1 pod" on a design with 2 pods: a two-tier fabric has no pod tier to count."""
    from core.analysis.whole import pod_plan
    from core.perf import jobform
    from core.perf.placement import place

    job, _words = pod_plan(pods, 1)

    def layout(p):
        return jobform.placement_notes([type("S", (), {"placement": place(p), "curves": {}})()], p.resolved.gpus,
                                       p.resolved.system.id, [])[0]

    text = layout(job)
    assert text.startswith("512 GPUs: 64 NVLink domains of 8, 64 nodes, 2 leaf groups; farthest path")
    assert not re.search(r"\bpods?\b", text)
    assert "4 Dragonfly+ groups" in layout(plan(DF))
    assert re.search(r"\d pods?;", layout(plan(Design(gpu="H100", gpus=16384))))  # three tiers: its pods


@pytest.mark.parametrize("lang, words", [
    ("en", "1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs)"),
    ("zh", "1.33:1（网卡较慢的一半 GPU 发出的流量为 1:1）")])
def test_the_slower_halfs_ratio_says_what_it_is(lang, words):
    """The slower half's ratio in plain words: the traffic the half of the GPUs with the slower NICs sends across
    the cut (it read "the slower half's 1:1", unclear in both languages)."""
    from core.analysis.whole import ratio_words
    from core.i18n import language

    p = plan(Design(nodes=64, pods="B300:32:800"))
    with language(lang):
        assert ratio_words(p) == words
