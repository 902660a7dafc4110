"""Words the review found run together or unplural (review45 3.2, 3.3, 3.6): one node, one rail, a BOM
"why" of two sentences; and the GPUs rounded up to whole nodes said by the ``plan`` command as by the sidebar."""
from __future__ import annotations

import pytest

from core.cli import main as cli_main
from core.design import Design
from core.i18n import language
from core.plan import plan


@pytest.mark.parametrize("lang, headline, note", [
    ("en", "8 x H100 GPUs in 1 node; ", "7 GPUs rounded up to 1 whole node (8 GPUs)."),
    ("zh", "1 个节点共 8 个 H100 GPU；", "7 个 GPU 已向上取整为 1 个完整节点（8 个 GPU）。")])
def test_plan_says_one_node_and_the_gpus_rounded_up(lang, headline, note, capsys):
    """A hand count: 7 GPUs of 8 a node are 1 node, 8 GPUs; the note is the sidebar's (core.formats.entry)."""
    from core.formats.entry import rounded_note

    assert cli_main(["plan", "--gpus", "7", "--format", "table", "--lang", lang]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(headline) and err.strip() == note
    with language(lang):
        assert rounded_note(7, 8) == note and rounded_note(8, 8) is None
    assert cli_main(["plan", "--gpus", "16", "--format", "table"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("16 x H100 GPUs in 2 nodes; ") and not err  # whole nodes: nothing to say
    assert cli_main(["plan", "--gpus", "9", "--format", "json"]) == 0
    assert capsys.readouterr().err.strip() == "9 GPUs rounded up to 2 whole nodes (16 GPUs)."  # json stays data


@pytest.mark.parametrize("lang, joined", [
    ("en", "Single storage switch: 1 x 14 of 64 ports used. QM9700 is made by NVIDIA, the compute fabric's maker."),
    ("zh", "单台存储交换机：1 台，每台用 14 / 64 个端口。QM9700 由 NVIDIA 制造，与计算网络同一厂商。")])
def test_bom_why_of_a_network_switch_is_two_sentences(lang, joined):
    with language(lang):
        rows = [r for r in plan(Design()).bom if r.category == "switch" and r.network == "storage"]
    assert [r.why for r in rows] == [joined]


def test_rail_only_sizing_speaks_of_each_rails_fabric():
    """1,024 GPUs = 128 nodes; a rail's scalable unit is 32 nodes on one leaf, so 128 / 32 = 4 leaves per rail."""
    why = plan(Design(gpus=1024, topology="rail-only")).fabric.explanation
    assert why[1] == ("Each rail's fabric: a scalable unit is 32 nodes on one leaf (one leaf down port each at 1:1): "
                      "4 SU = 4 leaves per rail.")
    assert not any("Rail-optimized" in line or "1 rails" in line for line in why)
    with language("zh"):
        zh = plan(Design(gpus=1024, topology="rail-only")).fabric.explanation
    assert "轨道优化" not in zh[1] and "每条轨道 4 台叶交换机" in zh[1]


def test_one_rail_is_singular():
    """One NIC a node: one leaf per rail (1 rail), 128 nodes / 32 a scalable unit = 4 SU x 1 = 4 leaves."""
    why = plan(Design(nodes=128, nics_per_node=1)).fabric.explanation
    assert any("with one leaf per rail (1 rail): 4 SU x 1 = 4 leaves." in line for line in why), why


def test_one_rail_leaf_row_is_singular():
    """The leaf row of 128 one-NIC nodes: 4 SU of 32 nodes, one leaf each (1 rail)."""
    leaf = next(r for r in plan(Design(nodes=128, nics_per_node=1)).bom if r.category == "switch")
    assert leaf.why == "4 SU x 1 rail = 4"
    assert next(r for r in plan(Design(nodes=128)).bom if r.category == "switch").why == "4 SU x 8 rails = 32"


def test_dragonfly_lines_count_rails_in_words():
    """4,096 GPUs = 512 nodes: Dragonfly+ 512 / 32 = 16 SU x 8 rails = 128 leaves; classic Dragonfly 512 / 16 = 32 SU
    x 8 = 256 routers (the same numbers as before, the rails now a counted noun)."""
    assert plan(Design(gpus=4096, topology="dragonfly")).fabric.explanation[0] == (
        "Dragonfly+: a scalable unit is 32 nodes with one leaf per rail (8 rails): 16 SU x 8 = 128 leaves.")
    assert plan(Design(gpus=4096, topology="classic-dragonfly")).fabric.explanation[0] == (
        "Dragonfly: 16 nodes per router, one router per rail (8 rails) in each scalable unit: 32 SU x 8 = 256 routers.")
    with language("zh"):
        zh = plan(Design(gpus=4096, topology="dragonfly")).fabric.explanation[0]
    assert "（8 条轨道）：16 个可扩展单元 × 8 = 128 台叶交换机" in zh
