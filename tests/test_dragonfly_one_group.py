"""A Dragonfly's switch hops in one rule (``core.fabric.families.group_hops``, ``group_hops_summary``): with one
group there is no route between groups, so no output says "across groups" or "Valiant" (the plan CLI, its JSON,
the Designer's and the pack's readouts) nor "0 other groups" (the leaf what-if's note); with two groups Valiant
routing has no intermediate group and is minimal, so its hops are the minimal ones everywhere (was 0 in the JSON and
the Designer, the minimal count in the CLI)."""

from __future__ import annotations

import pytest
from conftest import run_cli

from core.design import Design
from core.fabric.families import leaf_whatif_note
from core.figures.bandwidth import bandwidth_readout
from core.i18n import language
from core.plan import plan

ONE_DFP = Design(gpu="H100", gpus=4096, topology="dragonfly", fabric="ethernet")  # SN5600: 1 group, 64 + 64
ONE_DF = Design(gpu="H100", gpus=128, topology="classic-dragonfly")  # 1 group of 8 routers
TWO_DFP = Design(gpu="H100", gpus=4096, topology="dragonfly", fabric="ethernet", oversubscription=2.0)
DFC_EIGHT = Design(gpu="H100", gpus=4096, topology="classic-dragonfly")  # 8 groups


def _readouts(p) -> list[str]:
    return [bandwidth_readout(p.fabric.family, p.resolved.system, p.bandwidth, "GB/s", key, "")
            for key in ("readout:bandwidth", "report:readout:bandwidth")]


@pytest.mark.parametrize("design", [ONE_DFP, ONE_DF], ids=["dragonfly+", "dragonfly"])
def test_one_group_says_no_route_between_groups(capsys, design):
    p = plan(design)
    assert p.fabric.pod_count == 1
    entry = next(v for k, v in p.summary().items() if k in ("dragonfly", "classic_dragonfly"))
    assert entry["hops_other_group"] == 0 and entry["hops_valiant"] == 0
    with language("en"):
        for text in _readouts(p):
            assert "Valiant" not in text and "across groups" not in text
            assert f"in its one group {p.bandwidth.hops_cross_rail}" in text
        assert leaf_whatif_note(p) == ""  # was "spread over its 0 other groups"
    flags = ["--topology", design.topology, "--gpus", str(design.gpus), "--format", "table"]
    flags += ["--fabric", design.fabric] if design.fabric else []
    code, out, _err = run_cli(capsys, "plan", *flags)
    assert code == 0 and "one group of" in out and "no global links" in out
    assert "Valiant" not in out and "1 groups" not in out and " across" not in out
    code, out, _err = run_cli(capsys, "plan", *flags, "--lang", "zh")
    assert code == 0 and "仅一个组" in out and "Valiant" not in out


def test_two_groups_valiant_is_minimal_everywhere(capsys):
    p = plan(TWO_DFP)
    assert p.fabric.pod_count == 2
    d = p.summary()["dragonfly"]
    assert d["hops_valiant"] == d["hops_other_group"] == p.bandwidth.hops_cross_pod == 4
    with language("en"):
        for text in _readouts(p):
            assert "across groups 4, Valiant up to 4" in text
    code, out, _err = run_cli(capsys, "plan", "--topology", "dragonfly", "--gpus", "4096", "--fabric", "ethernet",
                              "--oversubscription", "2", "--format", "table")
    assert code == 0 and "across groups 4, Valiant up to 4" in out


def test_two_group_classic_dragonfly_routing_row_has_no_two_global_hops():
    """With two groups Valiant has no third group to pass through: the summary's routing row (the plan CLI, the
    Designer's sizing notes) says minimal and Valiant alike, not Valiant's "two global hops"; eight groups keep it."""
    from core.fabric.classic_dragonfly import summary_rows

    two, eight = plan(Design(gpu="H100", gpus=1024, topology="classic-dragonfly")), plan(DFC_EIGHT)
    assert two.fabric.pod_count == 2 and eight.fabric.pod_count == 8
    with language("en"):
        row = dict(summary_rows(two.summary()))["Dragonfly routing"]
        assert "minimal and Valiant routing alike" in row and "two global hops" not in row
        assert "two global hops" in dict(summary_rows(eight.summary()))["Dragonfly routing"]



def test_two_group_dragonfly_plus_pair_links_grouped(capsys):
    """A Dragonfly+'s links per group pair are written with the thousands separator as the total beside them (was
    "1024 global links per group pair, 1,024 in all"), in the plan CLI's row and the sizing note."""
    code, out, _err = run_cli(capsys, "--lang", "en", "plan", "--gpu", "h100", "--gpus", "2048", "--topology",
                              "dragonfly", "--format", "table")
    assert code == 0 and "1,024 global links per group pair" in out and "joined by 1,024 global links" in out
    assert "1024 global" not in out


@pytest.mark.parametrize("pattern", ["uniform", "adversarial"])
def test_two_group_load_note_has_no_valiant_detour(pattern):
    """The link-load closed form of a two-group classic Dragonfly says minimal and Valiant alike (its loads are
    equal, ``global_loads``), not Valiant's "two global hops" or "every other group's links"; eight groups keep them."""
    from core.fabric.classic_dragonfly import load_notes

    two, eight = plan(Design(gpu="H100", gpus=1024, topology="classic-dragonfly")), plan(DFC_EIGHT)
    with language("en"):
        note = load_notes(two.fabric, pattern, "minimal", {"global": 0.5, "local": 0.2})[0]
        assert "minimal and Valiant routing alike" in note
        assert "two global hops" not in note and "every other group" not in note and "the next" not in note
        assert "minimal and Valiant routing alike" not in load_notes(eight.fabric, pattern, "minimal", {})[0]


@pytest.mark.parametrize("topology", ["dragonfly", "classic-dragonfly"])
def test_two_group_collective_note_keeps_valiant_minimal(topology):
    """The Performance page's note on the global links' share: with two groups Valiant has no third group, so the
    note does not say it "takes two global hops and would halve that share" (eight groups still do)."""
    from core.perf.collectives import sweep

    gpus = {"dragonfly": 2048, "classic-dragonfly": 1024}[topology]
    two = plan(Design(gpu="H100", gpus=gpus, topology=topology))
    assert two.fabric.pod_count == 2
    with language("en"):
        notes = " ".join(sweep(two, "all-reduce", [2.0 ** 30]).notes)
        assert "no third group to pass through" in notes and "two global hops" not in notes
        eight = " ".join(sweep(plan(DFC_EIGHT), "all-reduce", [2.0 ** 30]).notes)
        assert "two global hops and would halve" in eight
