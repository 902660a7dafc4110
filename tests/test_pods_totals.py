"""A design with pods reports the whole design's totals (review44 1.1-1.3, 2.7): the shared fabric's tiers, the
bisection ratio as its definition says (half of every GPU's injection over the bisection), the JSON's per-pod
values where the pods differ, one pod limit, and each distinct bandwidth once."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from core.analysis.compare import compare
from core.analysis.pods import mixed_plan
from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import MAX_PODS, Design
from core.figures.keynumbers import key_numbers
from core.figures.subtitle import design_subtitle
from core.formats.podreport import pods_words
from core.formats.report import _executive_summary
from core.plan import plan

SMALL = Design(pods="B300:32:800")
"""The base design (4 H100 nodes, one leaf layer alone) and 32 B300 nodes: 2 shared Q3400 spines."""
MIXED = Design(nodes=64, pods="B300:32:800")
"""64 H100 nodes at 400G and 32 B300 nodes at 800G under 8 shared spines."""


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return out.getvalue()


def test_the_tiers_are_the_shared_fabrics():
    """4 H100 nodes alone fit one leaf layer (1 tier); under the shared spines the design has 2 tiers."""
    assert plan(Design()).fabric.tiers == 1 and mixed_plan(SMALL).fabric.tiers == 2
    s = whole_summary(plan(SMALL))
    assert s["tiers"] == 2 and s["switches"]["spine"] == 2
    assert json.loads(_cli("plan", "--pods", "B300:32:800", "--format", "json"))["tiers"] == 2
    headline = _cli("plan", "--pods", "B300:32:800", "--format", "table").splitlines()[0]
    assert "2 tiers" in headline and "1 tier" not in headline
    subtitle = design_subtitle(plan(SMALL))
    assert "· 2 tiers ·" in subtitle and "1 tier" not in subtitle
    assert pods_words(plan(SMALL)).startswith("2-tier ")  # the pack's title and design line
    assert "a 2-tier InfiniBand" in _executive_summary(plan(SMALL), "GB/s", {})[0]


def test_the_bisection_ratio_follows_its_definition():
    """Half of every GPU's injection over the bisection: (512 x 400 + 256 x 800) / 2 = 204.8 Tb/s (25.6 TB/s) over
    the worst cut's 384 H100 GPUs x 400 = 153.6 Tb/s (19.2 TB/s): 4:3, shown 1.33:1 (review44 1.2); the slower
    half's own ratio (its GPUs' injection over the cut) is 1:1 and named so."""
    s = whole_summary(plan(MIXED))
    b = s["bandwidth"]
    assert b["bisection_tbits_one_direction"] == pytest.approx(153.6)
    assert b["oversubscription"] == pytest.approx(204.8 / 153.6, abs=1e-4)
    assert b["oversubscription_slower_half"] == 1.0
    cards = {k.key: k for k in key_numbers(s)}
    assert "bisection ratio 1.33:1 (half the injection of all GPUs" in cards["bisection"].help
    assert "bisection ratio 1.33:1" in _cli("plan", "--nodes", "64", "--pods", "B300:32:800", "--format", "table")
    assert compare([("mixed", MIXED)], sizes=()).columns[0].values["oversubscription"] == pytest.approx(4 / 3, 1e-3)
    summary = _executive_summary(plan(MIXED), "GB/s", {})
    assert "bisection ratio 1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs), half the injection" in " ".join(summary)


def test_the_json_says_every_pods_value_where_they_differ():
    """``plan --format json`` of 64 H100 nodes (CX7, 400G, QM9700 leaves, 900 GB/s NVLink) and 32 B300 nodes (CX8,
    800G, Q3400, 1.8 TB/s): the values the pods differ in are null with every pod's list, as the table's
    ``400 / 800G``, ``CX7 + CX8`` and ``50 GB/s / 100 GB/s`` (review44 1.3); ``pods`` counts them."""
    s = json.loads(_cli("plan", "--nodes", "64", "--pods", "B300:32:800", "--format", "json"))
    assert s["pods"] == 2 and s["gpu_model"] == "H100 + B300"
    for key, pods in {"port_speed_gbps": [400, 800], "uplink_speed_gbps": [400, 800], "nic_model": ["CX7", "CX8"],
                      "switch_model": ["QM9700", "Q3400"]}.items():
        assert s[key] is None and s[f"{key}_pods"] == pods
    b = s["bandwidth"]
    for key, pods in {"scaleout_gbits_per_gpu": [400, 800], "nvlink_gbytes_per_gpu_bidir": [900, 1800],
                      "nvlink_gbytes_per_gpu_per_direction": [450, 900]}.items():
        assert b[key] is None and b[f"{key}_pods"] == pods
    assert b["scaleup_to_scaleout_ratio"] == 9 and b["scaleup_to_scaleout_ratio_pods"] == [9, 9]  # shared: kept
    table = _cli("plan", "--nodes", "64", "--pods", "B300:32:800", "--format", "table")
    assert "400 / 800G" in table and "CX7 + CX8" in design_subtitle(plan(MIXED))
    assert "injection per GPU 50 GB/s / 100 GB/s" in table
    alone = json.loads(_cli("plan", "--nodes", "64", "--format", "json"))  # no pods: as before
    assert alone["port_speed_gbps"] == 400 and alone["nic_model"] == "CX7" and "nic_model_pods" not in alone


def test_one_pod_limit_and_each_bandwidth_once():
    """``MAX_PODS`` extra pods besides the design's own are accepted, one more is refused by a message that says
    both counts (review44 2.7); 17 pods of two systems print each per-GPU bandwidth once, as the cards do."""
    pods = ",".join(["B300:32:800"] * MAX_PODS)
    assert MAX_PODS == 16 and Design(pods=pods).pods == pods
    with pytest.raises(Exception) as refused:
        Design(pods=pods + ",B300:1")
    assert "17 extra pods are too many: a design has at most 16 extra pods besides its own system and nodes (the " \
           "first pod), 17 pods in all" in str(refused.value)
    table = _cli("plan", "--pods", pods, "--format", "table")
    line = next(text for text in table.splitlines() if text.startswith("bandwidth"))
    assert "NVLink 900 GB/s / 1.8 TB/s per GPU (both directions)" in line
    assert "injection per GPU 50 GB/s / 100 GB/s (one direction)" in line
    assert "17 pods" in design_subtitle(plan(Design(pods=pods)))


@pytest.mark.parametrize("tiers", ["auto", 3])
def test_one_stage_says_nothing_of_stages(tiers):
    """Every pod built now: no "stage 0" in the pods lines, the bill's shared layer or the CLI (review44 section
    3); a pod added at stage 1 keeps them."""
    from core.analysis.pods import pods_lines, pods_summary

    now, later = Design(nodes=64, pods="B300:32:800", tiers=tiers), Design(nodes=64, pods="B300:32:800@1",
                                                                             tiers=tiers, pods_final=True)
    words = " ".join(text for _label, text in pods_lines(pods_summary(mixed_plan(now))))
    bill = " ".join(row.why for row in mixed_plan(now).bom)
    table = _cli("plan", "--nodes", "64", "--pods", "B300:32:800", "--tiers", str(tiers))
    for text in (words, bill, table):
        assert "stage" not in text
    staged = " ".join(text for _label, text in pods_lines(pods_summary(mixed_plan(later))))
    assert "stage 0:" in staged and "stage 1:" in staged and "(sized for stage 1)" in staged


def test_the_packs_bandwidth_readout_says_the_whole_ratio():
    """The pack's Bandwidth section says the same end-to-end ratio as its summary (1.33:1, not pod 1's 1:1)."""
    from core.formats.report import _bandwidth

    class Doc:
        unit, sections = "GB/s", {}

        def figure(self, *_args):
            return ""

        def section(self, key, _title, body):
            self.sections[key] = body

    doc = Doc()
    _bandwidth(doc, plan(MIXED))
    assert "bisection ratio 1.33:1" in doc.sections["bandwidth"] and "bisection ratio 1:1" not in doc.sections["bandwidth"]


def test_an_unknown_pod_system_in_a_link_is_echoed_cut():
    """The warning about an unknown pod system echoes what the link wrote, cut (``core.errors.shown``): a 5,000-character
    system name does not flood the page."""
    from core.formats import sharelink

    _design, warnings = sharelink.decode({"v": "1", "pods": "Z" * 5000 + ":32"})
    (warning,) = [w for w in warnings if "no GPU system" in w]
    assert len(warning) < 500 and "Z" * 50 not in warning
