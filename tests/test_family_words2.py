"""Family words, second round (words2): each surface names a family's elements in the words it declares in
``core/fabric`` (its ``WORDS``, ``DESIGN_FIELDS``, ``tier_words``), never a folded Clos's.

* a torus's Slurm block export: its label (the Hand-off tab) and the file's basis say its blocks are layers of the
  torus, logical groups of nodes, not "the nodes under one leaf switch"; its tree label says its switches are
  logical;
* the sidebar's recent designs and the draw.io title name a design's tiers by ``tier_words`` (a torus was "1 tier"),
  the Optimize table's tiers column by the summary's count (``switch_tiers``: 0 for a torus);
* ``unused_fields`` warns about the Dragonfly fields (``group_leaves``, ``global_ratio``) on a Clos or a torus, once
  per field, naming both families that read them;
* a classic Dragonfly's compute-fabric UFM rows say routers, not leaves;
* the Inference chart's bars say how many GPUs each design's deployment uses.
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.fabric.families import switch_tiers, tier_words, unused_fields
from core.formats import slurm
from core.i18n import language
from core.plan import plan

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def torus():
    return plan(Design(topology="torus", gpus=512))


def _export(name):
    return next(e for e in slurm.EXPORTS if e.name == name)


def test_a_torus_slurm_block_is_a_layer_of_nodes_not_a_leaf_switch(torus):
    with language("en"):
        block = _export("slurm-block").describe(torus)
        tree = _export("slurm").describe(torus)
    assert "leaf switch" not in block and "layer of the torus" in block and "group of nodes" in block
    assert "no switches" in block
    assert "logical switches" in tree and "group of nodes" in tree
    basis = slurm.slurm_blocks(torus).basis
    assert "leaf switch" not in basis and "layer of the torus's last dimension" in basis
    assert "a torus has no switches" in basis
    # the tree form's blocks are those layers: 64 nodes, 4x4x4, four layers of 16
    assert [len(nodes) for _name, nodes in slurm.slurm_blocks(torus).blocks] == [16] * 4


def test_a_clos_slurm_block_keeps_its_leaf_words():
    clos = plan(Design(gpus=512))
    with language("en"):
        assert "leaf switch of the tree form" in _export("slurm-block").describe(clos)
        assert _export("slurm").describe(clos) == "Slurm topology.conf (tree plugin): switches and nodes"
    assert "leaf switch of the tree form" in slurm.slurm_blocks(clos).basis


def test_the_block_file_says_the_torus_basis_in_english_whatever_the_language(capsys):
    code, out, _err = run_cli(capsys, "--lang", "zh", "export", "--topology", "torus", "--gpus", "512", "--format",
                              "slurm-block")
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("# Blocks:")]
    assert "layer of the torus's last dimension" in line and "leaf switch" not in line


def test_recent_designs_name_tiers_in_the_family_words(torus):
    from webui.state import recent_label

    def facts(p):
        return {"name": "", "gpus": p.resolved.gpus, "system": p.resolved.system.id, "fabric": p.resolved.fabric,
                "plan_fabric": p.fabric}

    with language("en"):
        label = recent_label(facts(torus))
        assert "tier" not in label and tier_words(torus.fabric) in label  # was "1 tier"
        classic = plan(Design(topology="classic-dragonfly", gpus=4096))
        assert "router tier" in recent_label(facts(classic))
        assert recent_label(facts(plan(Design(gpus=512)))).endswith("2 tiers")


def test_a_design_tier_count_is_the_summary_s(torus):
    assert torus.summary()["tiers"] == 0 == switch_tiers(torus.fabric.family, torus.fabric.tiers)
    assert switch_tiers("rail-optimized", 2) == 2


def test_the_drawio_title_names_a_torus_without_tiers(capsys):
    code, out, _err = run_cli(capsys, "export", "--topology", "torus", "--gpus", "512", "--format", "drawio")
    assert code == 0
    assert "1 tier" not in out and "node to node, no switches" in out


def test_dragonfly_fields_on_another_topology_are_said_to_be_ignored(capsys):
    with language("en"):
        (message,) = unused_fields(Design(global_ratio=2.0))  # once, though two families read it
        assert message.startswith("The setting Dragonfly+ global ratio is used only") and "global_ratio" not in message  # its label
        assert "Dragonfly+ or Dragonfly" in message and "ignored" in message
        (message,) = unused_fields(Design(topology="torus", gpus=512, group_leaves=8))
        assert "group_leaves" not in message and "Leaves per Dragonfly+ group" in message
        assert unused_fields(Design(topology="dragonfly", gpus=4096, global_ratio=2.0, group_leaves=8)) == []
        assert unused_fields(Design(topology="classic-dragonfly", gpus=4096, global_ratio=0.5)) == []
    code, _out, err = run_cli(capsys, "plan", "--gpus", "512", "--global-ratio", "2")
    assert code == 0 and err.count("warning:") == 1 and "The setting Dragonfly+ global ratio is used only" in err
    code, _out, err = run_cli(capsys, "plan", "--topology", "dragonfly", "--gpus", "4096", "--global-ratio", "2")
    assert code == 0 and "warning" not in err


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_ignored_field_sentence_is_grammatical_for_a_plural_label(lang):
    """A plural field label was the subject of "is used" ("Torus dimensions is used only by ..."); the sentence's
    subject is now the setting, named by its label (in Chinese set in the sentence without spaces beside Chinese
    words: ``core.i18n.embedded``)."""
    with language(lang):
        (message,) = unused_fields(Design(torus_dims="4x4x4"))
    if lang == "en":
        assert message.startswith("The setting Torus dimensions is used only by the Torus topology"), message
    else:
        assert message.startswith("设置项环面维度仅用于"), message


def test_the_dragonfly_fields_are_declared_where_the_sizing_reads_them():
    from core.fabric import classic_dragonfly, dragonfly, torus as torus_module

    assert set(dragonfly.DESIGN_FIELDS) == set(classic_dragonfly.DESIGN_FIELDS) == {"group_leaves", "global_ratio"}
    assert not set(torus_module.DESIGN_FIELDS) & set(dragonfly.DESIGN_FIELDS)
    # the sizing reads them: another group size or global ratio sizes another Dragonfly
    for topology in ("dragonfly", "classic-dragonfly"):
        base = plan(Design(topology=topology, gpus=4096)).fabric
        other = plan(Design(topology=topology, gpus=4096, global_ratio=0.5)).fabric
        assert other.global_links < base.global_links


def _ufm_rows(p):
    return [row for row in p.bom if "UFM" in (row.item + row.why) and getattr(row, "network", "") == "compute"]


def test_classic_dragonfly_ufm_rows_say_routers():
    with language("en"):
        classic = plan(Design(topology="classic-dragonfly", gpus=4096))
        rows = _ufm_rows(classic)
        texts = " ".join(row.item + " " + row.why for row in rows)
        assert rows and "UFM-router" in texts and "compute routers" in texts and "router side" in texts
        assert "leaf" not in texts.replace("storage leaves", "")
        assert any("links to its routers" in line for line in classic.networks.explanation)
        clos = " ".join(r.item + " " + r.why for r in _ufm_rows(plan(Design(gpus=4096))))
        assert "UFM-leaf" in clos and "compute leaves" in clos


def test_the_inference_chart_bars_say_the_gpus_used():
    from core.figures.serving import time_figure
    from core.formats import inferencelink as link
    from core.perf import servingform

    with language("en"):
        p = plan(Design())
        estimate = servingform.estimate_on(p, link.DEFAULTS)
        fig = time_figure({"this design": estimate})
        used = f"{estimate.gpus:,} GPU"
        total = f"of {estimate.cluster_gpus:,} used"
        for axis in ("yaxis", "yaxis2"):
            (tick,) = fig.layout[axis].ticktext
            assert tick.startswith("this design") and used in tick and total in tick
        bars = [t for t in fig.data if t.type == "bar"]
        assert bars and all(used in c and total in c for t in bars for c in t.customdata)


def test_the_sidebar_lists_a_recent_torus_without_tiers():
    """On the page: a torus left for a Clos design is listed as the Designer's caption names it, not "1 tier"."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).with_name("apptest_entry.py")), default_timeout=90)
    at.query_params.update({"v": "1", "t": "tr", "ng": "512"})
    at.run()
    at.selectbox(key="w_topology").set_value("rail-optimized").run()
    (button,) = [b for b in at.button if str(b.key or "").startswith("fp_recent_")]
    label = button.label.replace("\\", "")
    assert "512 x H100" in label and "node to node, no switches" in label and "tier" not in label
