"""The classic Dragonfly's bill, cable lengths and collective bound in its own words (leftperf 3): its routers are
``(router)``, not ``(leaf)``, its terminal links ``node-router``, not ``node-leaf`` (the words declared once, in the
family's ``WORDS``: ``tier:leaf``, ``link:node-leaf``, ``bound:leaf``), on the plan CLI's bill, the Designer's BOM
and Racks tabs and the review pack; the collective CLI names the local links between routers where a Clos names
the leaf uplinks. A folded Clos keeps its own words."""

from __future__ import annotations

import pytest

from conftest import run_cli as run
from core.analysis.load import tier_label
from core.design import Design
from core.i18n import language as speaking
from core.plan import plan

DFC = Design(gpu="H100", gpus=1024, topology="classic-dragonfly")
CLOS = Design(gpu="H100", gpus=1024)


def _fabric_rows(design: Design, lang: str):
    with speaking(lang):
        return [r for r in plan(design).bom if r.network == "compute" and not r.management
                and r.category in ("switch", "transceiver", "cable")]


@pytest.mark.parametrize("lang, router, leaf_words", [
    ("en", "(router)", ("leaf",)),
    ("zh", "（路由器）", ("叶", "leaf")),
])
def test_bill_names_routers_and_node_router_links(lang, router, leaf_words):
    rows = _fabric_rows(DFC, lang)
    switch = [r for r in rows if r.category == "switch"]
    assert len(switch) == 1 and switch[0].item.endswith(router) and switch[0].quantity == 64  # 8 SU x 8 rails
    for r in rows:  # no compute-fabric row of a classic Dragonfly says leaf (the UFM's management rows aside)
        assert not any(word in r.item or word in r.why for word in leaf_words), (r.item, r.why)
    terminal = [r for r in rows if r.category == "cable" and r.quantity == 1024]  # 128 nodes x 8 NICs
    assert terminal and all(("node-router" if lang == "en" else "节点-路由器") in r.item for r in terminal)


def test_a_folded_clos_keeps_leaf_and_node_leaf():
    rows = _fabric_rows(CLOS, "en")
    assert any(r.category == "switch" and r.item.endswith("(leaf)") for r in rows)
    assert any("node-leaf" in r.item for r in rows) and not any("router" in r.item + r.why for r in rows)


def test_plan_cli_bill_and_the_pack_say_router(capsys):
    code, out, _e = run(capsys, "plan", "--gpu", "H100", "--gpus", "1024", "--topology", "classic-dragonfly",
                        "--format", "csv")
    assert code == 0
    compute = [ln for ln in out.splitlines() if ",compute,False,False" in ln]
    assert any("(router)" in ln for ln in compute) and any("(switch side, node-router)" in ln for ln in compute)
    assert not any("(leaf)" in ln or "node-leaf" in ln for ln in compute)
    from core.formats.report import design_report_html

    html = design_report_html(plan(DFC), name="dfc", share_link="")
    assert "(router)" in html and "node-router" in html
    assert "(leaf)" not in html and ">node-leaf<" not in html


def test_designer_racks_lengths_and_load_tiers_name_node_router_links():
    from core.figures.racks import lengths_figure

    p = plan(DFC)
    names = {t.name for t in lengths_figure(p.lengths, p.media, p.fabric.family).data}
    assert "node-router" in names and "node-leaf" not in names
    assert tier_label("node_leaf", p.fabric.family) == "node-router"
    assert tier_label("node_leaf", "clos") == "node-leaf" and tier_label("global", p.fabric.family) == "global"


def test_collective_bound_names_the_local_links_not_the_leaf_uplinks(capsys):
    """4,096 GPUs in groups of 8 routers (one SU): the model's first stage above the routers' node ports is the local
    links, a router's 16 node ports over its 7 local links (2.29:1, ``oversubscriptions``)."""
    code, out, _e = run(capsys, "collective", "--gpu", "H100", "--gpus", "4096", "--topology", "classic-dragonfly",
                        "--group-leaves", "8", "--op", "all-to-all", "--size", "1GiB")
    assert code == 0
    busbw = next(ln for ln in out.splitlines() if ln.startswith("busbw"))
    assert "the local links between a group's routers (2.29:1 oversubscription)" in busbw
    assert "leaf uplinks" not in busbw
    _c, clos, _e = run(capsys, "collective", "--gpu", "H100", "--gpus", "4096", "--topology", "top-of-rack",
                       "--oversubscription", "2", "--op", "all-to-all", "--size", "1GiB")
    assert "the leaf uplinks (2:1 oversubscription)" in clos
