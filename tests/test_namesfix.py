"""One name and one unit for the same number on every surface (review 45, sections 2.3, 2.5, 2.7, 2.8, 3.7)."""

from __future__ import annotations

import re

import pytest

from conftest import run_cli

from core import units, vocab
from core.analysis import compare as cmp
from core.analysis import sweep as sw
from core.analysis.whatif import oversubscription_sweep, sweep_display_table
from core.design import Design
from core.fabric.bandwidth import tier_capacities_gbits
from core.figures.bandwidth import oversubscription_figure, tier_capacity_figure
from core.figures.keynumbers import fabric_capex_words, fabric_share_words, key_numbers
from core.i18n import language, usd
from core.plan import plan

GB200 = dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)


@pytest.fixture(scope="module")
def small():
    return plan(Design())


@pytest.fixture(scope="module")
def gb200():
    return plan(Design(**GB200))


def _table(capsys, *argv, lang: str = "en") -> str:
    return run_cli(capsys, "--lang", lang, "plan", *argv, "--format", "table")[1]


def test_the_compute_fabrics_money_has_one_name_on_every_surface(small, capsys):
    s = small.summary()
    word = vocab.compute_fabric()
    table = _table(capsys)
    cost = next(line for line in table.splitlines() if line.startswith("cost"))
    power = next(line for line in table.splitlines() if line.startswith("power"))
    assert f"; {word} {usd(s['cost']['network_capex_usd'])}" in cost and "network" not in cost
    assert f"({word} {units.power(s['power']['network_kw'])})" in power and "network" not in power
    card = {k.key: k for k in key_numbers(s)}
    assert f"IT ({word} " in card["it_power"].help
    assert card["capex_fabric"].label == fabric_capex_words(s["cost"])[0] == vocab.compute_fabric("capex")
    # Compare, sweep and the card name the share alike
    share = next(m for m in cmp.metrics(()) if m.key == "network_share")
    assert cmp.metric_label(share) == sw.metric_label("network_share") == fabric_share_words(s["cost"])[0]
    capex = next(m for m in cmp.metrics(()) if m.key == "network_capex_usd")
    assert cmp.metric_label(capex) == sw.metric_label("network_capex_usd") == "Capex, compute fabric [USD]"
    sweep = oversubscription_sweep(small.design, values=(1.0, 2.0))
    names = [t.name for t in oversubscription_figure(sweep, 1.0).data]
    assert "compute fabric capex per GPU [USD]" in names and not any("network" in n for n in names)
    assert "compute fabric capex per GPU [USD]" in sweep_display_table(sweep, "GB/s").columns
    zh = _table(capsys, lang="zh")
    with language("zh"):
        assert f"{vocab.compute_fabric()} {units.power(s['power']['network_kw'])}" in zh and "（其中网络" not in zh and "；网络 " not in zh


def test_a_second_nvlink_level_is_named_alike_on_the_designer_and_compare(gb200, small, capsys):
    s = gb200.summary()
    assert s["cost"]["scaleup_capex_usd"] > 0
    label = fabric_capex_words(s["cost"])[0]
    assert label == "Capex, compute fabric and NVLink level 2"
    comparison = cmp.Comparison([cmp.Column("a", small.design, small), cmp.Column("b", gb200.design, gb200)], 0, (),
                                cmp.metrics(()))
    assert comparison.level2
    rows = {m.key: cmp.metric_label(m, comparison.level2) for m in comparison.rows}
    assert rows["network_capex_usd"] == label + " [USD]"
    assert rows["network_share"] == fabric_share_words(s["cost"])[0]
    table = _table(capsys, "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144")
    cost = next(line for line in table.splitlines() if line.startswith("cost"))
    assert f"; {vocab.compute_fabric(level2=True)} {usd(s['cost']['network_capex_usd'])} (of which" in cost


def test_pods_pack_names_one_ratio_in_its_summary():
    """The mixed pack's paragraph said "oversubscription 1.33:1 end to end", then "Main risks: ... no
    oversubscription" (the slower half's 1:1)."""
    from core.analysis.whole import ratio_words
    from core.formats.report import _executive_summary

    p = plan(Design(nodes=64, pods="B300:32:800"))
    lines = " ".join(_executive_summary(p, "GB/s", {}))
    assert "bisection ratio 1.33:1" in lines and "no oversubscription" not in lines  # one term (review47 #1)
    assert ratio_words(p) == "1.33:1 (1:1 for traffic from the half of the GPUs with the slower NICs)" and ratio_words(p) in lines


def test_bisection_shown_in_the_cards_unit(small):
    s = small.summary()
    card = {k.key: k for k in key_numbers(s)}
    bisection_gbits = s["bandwidth"]["bisection_tbits_one_direction"] * 1000
    shown = units.bandwidth(bisection_gbits, "GB/s")
    assert shown == "800 GB/s" and card["bisection"].value == shown
    bar = tier_capacity_figure(small, tier_capacities_gbits(small.resolved, small.fabric), "GB/s").data[0]
    assert shown in list(bar.text) and "0.8 TB/s" not in list(bar.text)
    table = sweep_display_table(oversubscription_sweep(small.design, values=(1.0, 2.0)), "GB/s")
    assert "bisection [GB/s]" in table.columns and table["bisection [GB/s]"].iloc[0] == "800"


def test_one_multiplication_sign_and_one_tier_wording_per_language(small, capsys):
    from core.formats.report import _design_line, design_title

    title, line = design_title(small), _design_line(small)
    assert title.startswith("32 x H100 cluster: 1-tier QM9700 InfiniBand") and "×" not in title
    assert line.startswith("32 x H100 in 4 nodes") and "One-tier" not in line
    assert ", 1 tier, " in run_cli(capsys, "plan")[1].splitlines()[0]
    with language("zh"):
        title, line = design_title(small), _design_line(small)
    assert title.startswith("32 × H100 集群：1 层 QM9700") and "一层" not in title + line


def test_gb200_in_nvl36_racks_keeps_the_links_system_name(gb200, capsys):
    """One name rule (core.scaleup.other_rack): the system is GB200-NVL72 on every surface (link, headline, JSON,
    bill); the NVL36 racks are said by their size, and the bill says once that the trays are priced as NVL72's."""
    import json

    from core.figures.keynumbers import size_caption

    assert gb200.summary()["gpu_model"] == "GB200-NVL72"
    assert size_caption(gb200) == ("576 GPUs in 16 NVL36 racks of GB200-NVL72 trays (144 compute trays of 4 GPUs), "
                                   "joined by a second NVLink level into 4 domains of 144 GPUs")
    head = run_cli(capsys, "plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144")[1]
    assert head.startswith("576 x GB200-NVL72 GPUs in 144 nodes;") and "GB200-NVL36" not in head
    data = json.loads(run_cli(capsys, "plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144",
                              "--format", "json")[1])
    assert data["gpu_model"] == "GB200-NVL72"
    node = next(r for r in gb200.bom if r.category == "compute")
    assert node.item.endswith("node, in NVL36 racks (priced as in the catalog's GB200-NVL72 rack)")
    assert node.quantity == 144 and "NVL36" not in next(r for r in plan(Design(gpu="GB200-NVL72", nodes=36)).bom
                                                      if r.category == "compute").item


def test_failure_accepts_the_exports_switch_names():
    """The Hand-off tab promises one set of names in every export (``leaf001``, 1-based); the failure what-if took
    only the engine ids (``p0.leaf0``) and refused ``leaf001`` (review 45, 2.4)."""
    from core.analysis.failure.spec import resolve_failures
    from core.fabric.naming import Namer
    from core.fabric.wiring import Wiring

    for design in (Design(), Design(gpus=1024), Design(gpus=1024, planes=2, plane_mode="per-rail")):
        p = plan(design)
        namer, wiring = Namer.of(p), Wiring.of(p)
        for role in wiring.roles:
            ids = list(wiring.switch_ids(role))
            for engine in (ids[0], ids[-1]):
                export = namer.vertex(engine)
                assert resolve_failures(p, [export]) == resolve_failures(p, [engine]), (export, engine)
    p = plan(Design(gpus=1024))
    assert resolve_failures(p, ["leaf:leaf001"]) == [("leaf", (0, 0, 0), False)]
    assert resolve_failures(p, ["leaf3"]) == [("leaf", (0, 0, 3), False)]  # the engine's ids keep working
    assert resolve_failures(p, ["spine016"]) == [("spine", (0, 0, 15), False)]


def test_single_points_say_the_export_names_with_the_id_in_brackets(capsys):
    from core.analysis.failure.spec import export_namer
    from core.figures.topology import element_name

    out = run_cli(capsys, "spof")[1]
    assert "leaf001 (p0.leaf0) leaf: 32 GPUs lost" in out
    out = run_cli(capsys, "spof", "--gpus", "1024")[1]
    assert "leaf001 -> spine001 (p0.leaf0-spine0) link bundle" in out  # the hot links' form (leftnames)
    p = plan(Design(gpus=1024))
    assert element_name(None, "p0.leaf3", export_namer(p)) == "leaf004 (p0.leaf3)"
    assert element_name(None, "node5.nic2", export_namer(p)) == "gpu006 nic3 (node5.nic2)"  # leftnames
    assert export_namer(plan(Design(nodes=64, pods="B300:32:800"))) is None
