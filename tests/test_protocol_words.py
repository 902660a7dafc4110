"""NCCL's protocol names (LL, LL128, Simple) are shown only for a library that runs them (``fastest_label``)."""
from core.cli import main
from core.formats.sharelink import decode, example_link
from core.perf.algorithms import fastest_label

ASCEND = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]


def test_fastest_label_names_the_protocol_only_for_libraries_that_declare_it():
    assert fastest_label("ring", "LL", "nccl") == "ring (LL)"
    assert fastest_label("ring", "Simple", "rccl") == "ring (Simple)"
    assert fastest_label("rhd", "Simple", "hccl") == "RHD"


def test_collective_on_ascend_names_no_nccl_protocol(capsys):
    assert main(["collective", *ASCEND]) == 0
    fastest = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("fastest"))
    assert "Simple" not in fastest and "LL" not in fastest


def test_compare_link_example_names_the_designs_system():
    design, _ = decode({"v": "1", "g": "Atlas-800T-A2", "ng": "2048", "f": "eth", "sw": "H3C-S9827-64EP"})
    assert "g=Atlas-800T-A2" in example_link(design) and "H100" not in example_link(design)


def test_busbw_hover_names_no_nccl_protocol_on_hccl():
    from core.figures.perf import busbw_figure
    from core.perf.collectives import sweep
    from core.plan import plan as make_plan

    design, _ = decode({"v": "1", "g": "Atlas-800T-A2", "ng": "64", "f": "eth", "sw": "H3C-S9827-64EP"})
    p = make_plan(design)
    fig = busbw_figure([sweep(p, "all-reduce", [2**20, 2**30], gpus=64)], [], system=p.resolved.system)
    text = " ".join(str(t.customdata) + t.hovertemplate for t in fig.data)
    assert "Simple" not in text and "LL" not in text
