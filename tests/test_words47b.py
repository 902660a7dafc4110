"""rev47b findings 2, 4, 5, 6 and 7: a family's own words on every surface that names its switches, its tiers and
its taper. A classic Dragonfly has one router tier and no leaves: its title says "1-tier ... bisection ratio", never
"2-tier" nor "at the leaf" (the sidebar calls its oversubscription "not used by this topology").
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.i18n import language
from core.plan import plan

DFC = Design(topology="classic-dragonfly", gpus=4096)


@pytest.fixture(scope="module")
def dfc():
    return plan(DFC)


def test_taper_words_without_leaves():
    from core.designwords import taper_words

    assert taper_words(1.0, "1.73:1", leaves=False) == "bisection ratio 1.73:1"
    assert taper_words(2.0, "1:1", leaves=False) == taper_words(1.0, None, leaves=False) == "non-blocking"
    assert taper_words(1.0, "1.73:1") == "1:1 at the leaf, bisection ratio 1.73:1"  # a family with leaves: both


def test_classic_dragonfly_title_one_router_tier(dfc):
    from core.designwords import plan_words
    from core.formats import report
    from core import units

    assert dfc.summary()["tiers"] == dfc.switch_tiers == 1 and not dfc.leaf_ratio
    words = plan_words(dfc)
    ratio = units.ratio(dfc.bandwidth.oversubscription)
    assert words.startswith(f"1-tier QM9700 InfiniBand, Dragonfly, bisection ratio {ratio}, "), words
    assert "at the leaf" not in report.design_title(dfc)
    with language("zh"):
        zh = plan_words(dfc)
    assert zh.startswith("1 层") and "叶交换机" not in zh, zh


@pytest.mark.parametrize("family, leaf, spine", [("dragonfly", "Leaf uplinks", "Global links"),
                                                  ("classic-dragonfly", "Local links", "Global links"),
                                                  ("rail-optimized", "Leaf uplinks", "Spine uplinks")])
def test_inference_load_caption_names_the_columns(dfc, family, leaf, spine):
    """Finding 5: the fabric-load caption names the uplink columns as the table does (one rule, ``load_columns``),
    never "spine uplinks (after oversubscription)" under a Dragonfly's global links; zh too."""
    from core.figures.serving import fabric_load_caption, load_columns

    assert load_columns(family) == {"nic": "NIC", "leaf_uplinks": leaf, "spine_uplinks": spine}
    caption = fabric_load_caption(dfc.resolved.system, family)
    assert f"the columns {leaf} and {spine}" in caption and "oversubscription" not in caption, caption
    with language("zh"):
        zh_leaf, zh_spine = (load_columns(family)[tier] for tier in ("leaf_uplinks", "spine_uplinks"))
        zh = fabric_load_caption(dfc.resolved.system, family)
    assert zh_leaf in zh and zh_spine in zh and "收敛比" not in zh, zh


@pytest.mark.parametrize("placement", ["topo", "scatter"])
def test_dragonfly_routing_sentence_names_the_global_links(dfc, placement):
    """Finding 7: on a Dragonfly+ with 1:1 leaves (and on a classic Dragonfly's routers) the collectives caption does
    not blame "oversubscription" or "the oversubscribed uplinks": the taper is the global links (bisection ratio)."""
    from core.perf import jobform
    from core.perf.placement import place

    df = plan(Design(topology="dragonfly", gpus=4096))
    for p, group in ((df, "Dragonfly+ group"), (dfc, "Dragonfly group")):
        assert p.bandwidth.leaf_oversubscription == pytest.approx(1.0)
        sweeps = [type("S", (), {"placement": place(p), "curves": {}})()]
        routing = jobform.placement_notes(sweeps, p.resolved.gpus, p.resolved.system.id, [], "adaptive", placement,
                                          family=p.fabric.family)[1]
        assert routing.startswith("Routing: adaptive; ") and group in routing and "global links" in routing, routing
        assert "oversubscribed" not in routing and "oversubscription mostly" not in routing, routing


def test_compare_names_a_classic_dragonflys_routers():
    """Finding 4: Compare's switch rows in each family's words (``switch_label``, as the cards and the XLSX):
    a classic Dragonfly's "Routers", no empty spine and core rows; beside a Clos both words; zh too."""
    from core.analysis.compare import compare, metric_label

    clos = Design(gpus=1024)
    dfc = Design(topology="classic-dragonfly", gpus=1024)
    alone = compare([("a", dfc), ("b", dfc.model_copy(update={"gpus": 2048}))])
    labels = {m.key: metric_label(m, alone.level2, alone.families) for m in alone.rows}
    assert labels["switches_leaf"] == "Routers" and "switches_spine" not in labels and "switches_core" not in labels
    both = compare([("clos", clos), ("dfc", dfc)])
    labels = {m.key: metric_label(m, both.level2, both.families) for m in both.rows}
    assert labels["switches_leaf"] == "Leaf switches / Routers" and labels["switches_spine"] == "Spine switches"
    with language("zh"):
        zh = [metric_label(m, alone.level2, alone.families) for m in alone.rows if m.key == "switches_leaf"]
    assert zh and "叶交换机" not in zh[0], zh


def test_sizing_table_names_a_classic_dragonflys_routers():
    """Finding 4: the pack's "How the fabric was sized" table (and the Designer's, ``webui.cached.switch_groups``)
    name a switch group's role in the family's words (``core.cost.role_words``): "router", not "leaf"; zh 路由器."""
    import re

    from core.cost import role_words
    from core.formats.report import design_report_html

    p = plan(Design(topology="classic-dragonfly", gpus=1024))
    assert [g.role for g in p.fabric.switch_groups] == ["leaf"]
    assert role_words("leaf", p.fabric.family) == "router" and role_words("leaf") == "leaf"
    html = design_report_html(p, name="dfc", share_link="")
    topology = html[html.index("How the fabric was sized"):]
    assert re.search(r"<td[^>]*>router</td>", topology) and not re.search(r"<td[^>]*>leaf</td>", topology)
    with language("zh"):
        assert role_words("leaf", p.fabric.family) != role_words("leaf")


def test_compared_fabric_says_its_bisection_ratio():
    """Finding 6: "This design (InfiniBand, 1.5:1)" is the bisection ratio; the compared fabric's label says its
    bisection ratio too (``jobform.alternative_label``), not the 2:1 leaf setting the choice names: on a Dragonfly+
    of 4,096 H100 at 2:1 leaves on Ethernet, the plan's bisection ratio reads 1.97:1."""
    from core.perf import jobform

    df = plan(Design(topology="dragonfly", gpus=4096))
    eth = plan(Design(topology="dragonfly", gpus=4096, fabric="ethernet", oversubscription=2.0))
    assert jobform.fabric_label(df) == "This design (InfiniBand, 1.5:1)"
    assert jobform.alternative_label(eth) == f"Ethernet RoCE ({jobform.job_ratio(eth)})" == "Ethernet RoCE (1.97:1)"
    with language("zh"):
        assert "1.97:1" in jobform.alternative_label(eth)


def test_optimizer_label_of_a_classic_dragonfly(dfc):
    """Finding 2 (the optimizer's labels, the same words): a classic Dragonfly candidate is 1-tier, no leaf ratio."""
    from core.analysis.optimize import Candidate, design_label

    c = Candidate(0, DFC, tiers=dfc.fabric.tiers, oversubscription=dfc.bandwidth.oversubscription)
    label = design_label(c)  # the grid's designs name their switch and speed; this one leaves them to the engine
    assert label.startswith("1-tier ") and ", Dragonfly, bisection ratio 1.73:1, " in label, label
    assert "at the leaf" not in label
    clos = design_label(Candidate(0, Design(gpus=1024, oversubscription=2.0), tiers=2, oversubscription=2.0))
    assert clos.startswith("2-tier ") and ", rail-optimized, 2:1 at the leaf, " in clos, clos
