"""The same figure in the same words on every surface (session 45, leftfix): a design with pods' bisection ratio on the
Designer's Bandwidth tab, the Performance caption, the review pack and the CLI (``core.analysis.whole.pods_ratios``);
a torus's transceivers where its family puts them (no "switch side 0"); SHARP only where the fabric's switches
reduce (``core.perf.placement.sharp_case``), and why not elsewhere."""

from __future__ import annotations

import json

import pytest

from core.design import Design
from core.plan import plan

MIXED_LINK = {"n": "64", "pods": "B300:32:800"}
MIXED_ARGS = ("--nodes", "64", "--pods", "B300:32:800")


def _cli_json(capsys, *argv) -> dict:
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    assert code == 0
    return json.loads(out)


def test_mixed_pods_ratio_is_the_designs_on_every_surface(capsys):
    """64 H100 nodes (512 GPUs at 400G) and 32 B300 nodes (256 at 800G) under shared spines: half of every GPU's
    injection (512 x 400 + 256 x 800) / 2 = 204.8 Tb/s over the worst cut's 384 H100 GPUs x 400 = 153.6 Tb/s is
    1.33:1; the slower half's own ratio (its 153.6 Tb/s over the cut) is 1:1. The CLI's JSON, the Designer's
    Bandwidth readout and the review pack's readout say 1.33:1 and name the 1:1 as the slower half's (each said pod
    1's 1:1 as the design's before). The Performance page describes the job's pod (pod 1 planned alone: 1:1, as its
    chart labels say) and gives the whole design's 1.33:1 beside it (review47 #5)."""
    from core.analysis.whole import ratio_words
    from tests.pagetest import open_page

    b = _cli_json(capsys, "plan", *MIXED_ARGS)["bandwidth"]
    assert b["oversubscription"] == pytest.approx(204.8 / 153.6, abs=1e-4) and b["oversubscription_slower_half"] == 1
    words = "1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs)"
    mixed = plan(Design(nodes=64, pods="B300:32:800"))
    assert ratio_words(mixed) == words
    at = open_page("../pages/1_Designer.py", {**MIXED_LINK, "tab": "Bandwidth"}, timeout=300)
    readout = [m.value for m in at.markdown if m.value.startswith("**Oversubscription**")]
    assert len(readout) == 1 and f"**bisection ratio** {words}" in readout[0]
    at = open_page("../pages/3_Performance.py", MIXED_LINK, timeout=300)
    assert any("bisection ratio 1:1 (the job's pod; the whole design's 1.33:1)" in c.value for c in at.caption)
    assert ratio_words(plan(Design(nodes=64))) == "1:1"  # one fabric: its own ratio, no slower half


class _Doc:
    """What the pack's sections write into: their bodies by key (figures left out)."""
    unit = "GB/s"

    def __init__(self):
        self.sections = {}

    def figure(self, *_args):
        return ""

    def section(self, key, _title, body):
        self.sections[key] = body


def test_the_review_pack_readout_names_the_slower_half():
    from core.formats.report import _bandwidth

    doc = _Doc()
    _bandwidth(doc, plan(Design(nodes=64, pods="B300:32:800")))
    assert "bisection ratio 1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs)" in doc.sections["bandwidth"]


def test_torus_transceivers_are_node_to_node_link_ends(capsys):
    """512 GPUs in a 4 x 4 x 4 torus: 112 optical links with a module at each end, two node ports a twin-port module:
    112 modules, all in the nodes' cages; no switch side (the card said "switch side 0")."""
    from core.figures.keynumbers import key_numbers
    from tests.conftest import run_cli

    torus = plan(Design(topology="torus", gpus=512))
    card = next(k for k in key_numbers(torus.summary()) if k.key == "transceivers")
    assert card.value == "112" and "switch side" not in card.help
    assert "112 in the nodes' cages, at both ends of the optical node-to-node links (no switches)" == card.help
    code, out, _err = run_cli(capsys, "plan", "--topology", "torus", "--gpus", "512")
    line = next(line for line in out.splitlines() if line.startswith("transceivers"))
    assert line.split(None, 1)[1] == card.help
    clos = next(k for k in key_numbers(plan(Design(gpus=512)).summary()) if k.key == "transceivers")
    assert clos.help.startswith("switch side ")  # a switched fabric keeps both sides


@pytest.mark.parametrize(("argv", "why"), [
    (("--fabric", "ethernet", "--gpus", "1024"), "this design's Ethernet RoCE switches do not reduce"),
    (("--topology", "torus", "--gpus", "512"), "nodes are joined node to node, without switches")])
def test_sharp_is_considered_only_where_switches_reduce(capsys, argv, why):
    """``collective --sharp`` said "SHARP considered" on Ethernet and on a torus, where no switch reduces; it now says
    why there is none, with or without ``--sharp``, and adds no SHARP curve; an InfiniBand Clos keeps it."""
    from core.perf.collectives import sweep
    from tests.conftest import run_cli

    for extra in (("--sharp",), ()):
        code, out, _err = run_cli(capsys, "collective", *argv, *extra)
        assert code == 0 and "considered" not in out
        assert why in next(line for line in out.splitlines() if line.startswith("SHARP"))
    assert not _cli_json(capsys, "collective", *argv, "--sharp")["sharp"]
    design = Design(fabric="ethernet", gpus=1024) if "ethernet" in argv else Design(topology="torus", gpus=512)
    result = sweep(plan(design), "all-reduce", [2**30], sharp=True)
    assert not result.sharp and "sharp" not in result.curves
    code, out, _err = run_cli(capsys, "collective", "--gpus", "1024", "--sharp")
    assert "SHARP         considered" in out and _cli_json(capsys, "collective", "--gpus", "1024", "--sharp")["sharp"]


def test_the_performance_page_says_why_there_is_no_sharp():
    from tests.pagetest import open_page

    at = open_page("../pages/3_Performance.py", {"t": "tr", "ng": "512", "perf_sharp": "1"}, timeout=300)
    assert not [t for t in at.toggle if t.label == "InfiniBand SHARP"]
    assert any(c.value.startswith("SHARP: none. In-network reduction happens in switches") for c in at.caption)
    at = open_page("../pages/3_Performance.py", {"ng": "1024"}, timeout=300)
    assert not [c for c in at.caption if c.value.startswith("SHARP: none")]  # InfiniBand Quantum: the toggle


def test_the_pack_says_sharp_on_only_where_switches_reduce():
    """A job link with SHARP on (``perf_sharp=1``) on a torus: the pack's model line said "InfiniBand SHARP on"."""
    from core.formats.report import _performance

    doc = _Doc()
    _performance(doc, plan(Design(topology="torus", gpus=512)), {"sharp": "1"})
    text = " ".join(doc.sections.values())
    assert "stock algorithm choice; routing" in text and "InfiniBand SHARP on" not in text
    doc = _Doc()
    _performance(doc, plan(Design(gpus=512)), {"sharp": "1"})
    assert "InfiniBand SHARP on" in " ".join(doc.sections.values())  # an InfiniBand Clos keeps it
