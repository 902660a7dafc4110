"""The classic Dragonfly (``core.fabric.classic_dragonfly``) in its own words on every surface that would otherwise
say a folded Clos's (leaf, spine, core, link bundle, leaf groups) or a Dragonfly+'s: the single points' tier column,
the load heatmap's blocks and notes, the drawing's legend, the key-number cards, the share link's parameter labels
and the sidebar's sizing inputs, in English and Chinese. Each reads the family's ``WORDS``
(``core.fabric.families.words``)."""

from __future__ import annotations

import json

import pytest

from core.analysis.failure import tier_label
from core.analysis.load import link_load
from core.analysis.spof import single_points
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.figures.resilience import load_heatmap_figure
from core.figures.topology import topology_figure
from core.i18n import language as speaking
from core.plan import plan

DFC = "classic-dragonfly"


@pytest.fixture(scope="module")
def small():
    """Four groups of 32 routers, 256 nodes of 1 rail (single points and loads stay quick)."""
    return plan(Design(gpu="H100", gpus_per_node=1, nics_per_node=1, nodes=256, topology=DFC, switch="QM9700"))


@pytest.fixture(scope="module")
def large():
    """The brief's design: 16,384 H100 GPUs (2,048 nodes of 8) on QM9700 routers, drawn aggregated."""
    return plan(Design(gpu="H100", gpus=16384, switch="QM9700", topology=DFC))


def test_single_points_tier_column_names_local_and_global_bundles():
    assert tier_label("link", None, DFC) == "local link bundle"
    assert tier_label("global", None, DFC) == "global link bundle"
    assert tier_label("leaf", None, DFC) == "router"
    assert tier_label("link", None, "rail-optimized") == "link bundle"  # a Clos keeps its words
    with speaking("zh"):
        assert tier_label("link", None, DFC) == "本地链路束"


def test_single_points_of_the_family_read_in_its_words(small):
    result = single_points(small)
    tiers = {e.tier for e in result.elements} | {d.tier for d in result.degrading}
    assert "link" in tiers  # a local link's loss degrades (its two routers reach each other through a third)
    words = {tier_label(t, small.resolved.system, small.fabric.family) for t in tiers}
    assert "local link bundle" in words and "link bundle" not in words and "leaf" not in words


def test_load_heatmap_names_groups_and_notes_the_minimal_routing(small):
    result = link_load(small, "ring", "rail", seed=1)
    assert any(b["tier"] == "local" for b in result.blocks)
    fig = load_heatmap_figure(result, family=small.fabric.family)
    title = fig.layout.xaxis.title.text
    assert "SU" in title and "group" in title and "leaf" not in title  # the rows name the tiers
    assert len(title) <= 24  # it fits under a half-width chart at 1,024 px
    assert "node-router up" in fig.data[0].y and not any("leaf" in row for row in fig.data[0].y)
    assert "leaf groups" in load_heatmap_figure(result).layout.xaxis.title.text  # without a family: the Clos's
    assert any("minimal only" in n and "Slingshot" in n for n in result.notes)
    from webui.resilience_cache import tier_table

    assert "node-router up" in set(tier_table(result, "GB/s", small.fabric.family)["tier"])  # the page's table
    with speaking("zh"):
        zh = link_load(small, "ring", "rail", seed=1)
        assert "组" in load_heatmap_figure(zh, family=DFC).layout.xaxis.title.text
        assert any(row.startswith("节点-路由器") for row in load_heatmap_figure(zh, family=DFC).data[0].y)
        assert any("最小路由" in n for n in zh.notes)


def test_drawing_legend_names_the_groups(large):
    names = {t.name for t in topology_figure(large).data if t.showlegend is not False and t.name}
    groups = large.fabric.pod_count
    assert groups > 1 and f"Dragonfly groups ({groups}): their routers' global ports" in names, names
    assert not any("Global ports of the groups' routers" in n for n in names)


def test_key_numbers_have_no_spine_or_core_card(large):
    cards = {k.key: k for k in key_numbers(large.summary())}
    assert cards["switches_leaf"].label == "Routers"
    assert "switches_spine" not in cards and "switches_core" not in cards
    clos = plan(Design(gpu="H100", gpus=16384, switch="QM9700"))
    assert {"switches_spine", "switches_core"} <= {k.key for k in key_numbers(clos.summary())}


def test_share_link_label_of_the_group_routing_fits_both_dragonflies():
    from core.formats import resiliencelink

    gr = [p for p in resiliencelink._params() if p.key == "gr"]
    assert [p.name for p in gr] == ["routing between Dragonfly groups"]  # both Dragonflies' groups, not only D+'s
    with speaking("zh"):
        assert "Dragonfly 组" in gr[0].label() and "+" not in gr[0].label()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_designer_cards_and_sidebar_in_its_words(lang):
    from streamlit.testing.v1 import AppTest

    from tests.pagetest import ENTRY

    at = AppTest.from_file(ENTRY, default_timeout=240)
    at.query_params.update({"n": "256", "t": "dfc", "sw": "QM9700", "lang": lang})
    at.run()
    assert not at.exception and not at.error
    page = json.dumps([m.value for m in at.markdown], ensure_ascii=False)
    assert 'data-key=\\"switches_leaf\\"' in page  # the routers' card
    assert "switches_spine" not in page and "switches_core" not in page  # no spine and no core: no card
    oversub, tiers = at.select_slider(key="w_oversub"), at.selectbox(key="w_tiers")
    assert oversub.disabled and tiers.disabled
    effect = "No effect on a Dragonfly" if lang == "en" else "对 Dragonfly 无效"
    assert effect in oversub.help and effect in tiers.help
    assert ("not used by this topology" if lang == "en" else "此拓扑不使用") in oversub.label
    assert "leaf" not in oversub.label and "叶" not in oversub.label
    if lang == "zh":
        return  # (AppTest re-runs the zh sidebar's currency box by its English label)
    at.selectbox(key="w_topology").set_value("rail-optimized").run()  # a Clos: the inputs count again
    assert not at.select_slider(key="w_oversub").disabled and not at.selectbox(key="w_tiers").disabled
    assert at.select_slider(key="w_oversub").label == "Oversubscription (leaf down:up)"


def test_links_count_the_local_links_and_say_them_in_its_words():
    from core.fabric.wiring import Wiring

    for kw in (dict(gpus=16384), dict(nodes=13, gpus_per_node=1, nics_per_node=1, su_nodes=2, group_leaves=3,
                                      planes=2, nic="CX7-2P")):  # a last group smaller, two planes
        p = plan(Design(gpu="H100", switch="QM9700", topology=DFC, **kw))
        links = p.summary()["links"]
        w = Wiring.of(p)
        assert links["local"] == len(w.bundle_arrays("local")[1]) * w.planes > 0  # one cable per router pair
        other = sum(link.count for link in p.networks.compute_links) if p.networks is not None else 0
        assert p.networks_summary()["compute"]["links"] == sum(links.values()) + other  # (+ the other networks')
        card = {k.key: k for k in key_numbers(p.summary())}["links"]
        assert card.value == f"{sum(links.values()):,}"
        assert f"local {links['local']:,}" in card.help and "leaf" not in card.help and "spine" not in card.help


def test_report_single_points_name_the_local_link_bundle():
    from core.formats.report import design_report_html

    p = plan(Design(gpu="H100", topology=DFC, switch="QM9700", nodes=6, su_nodes=2, group_leaves=2, global_ratio=0.01,
                    gpus_per_node=1, nics_per_node=1))  # groups of two routers: their one local link is a single point
    assert any(e.tier == "link" for e in single_points(p).elements)
    html = design_report_html(p, name="dfc", share_link="")
    assert "<td>local link bundle</td>" in html and "<td>link bundle</td>" not in html


def test_plan_cli_says_routers_and_local_links(capsys):
    from core.cli import main

    main(["plan", "--gpus", "2048", "--gpu", "H100", "--topology", DFC, "--switch", "QM9700"])
    rows = {line.split(None, 1)[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "routers 128" in rows["switches"] and "spine" not in rows["switches"]
    assert "local 1,984" in rows["links"] and "leaf" not in rows["links"]


@pytest.mark.parametrize("lang, clos_words", [("en", ("uplink", "leaf")), ("zh", ("上行", "叶交换机"))])
def test_link_load_caption_and_hottest_links_in_its_words(large, lang, clos_words):
    """The link-load tab's method caption spoke of uplinks and a 2:1 leaf, and its hottest links showed the
    wiring's ids (``p0.leaf107 -> p0.leaf137``): on a classic Dragonfly both in its words, routers numbered as
    the drawing's hover numbers them; a folded Clos keeps its own."""
    from core.analysis.load import method_caption
    from core.figures.topology import link_name

    result = link_load(large)
    with speaking(lang):
        caption = method_caption(large.fabric.family)
        names = [link_name(large.fabric.family, h["link"]) for h in result.hot_links]
        clos = method_caption("clos"), link_name("clos", "p0.leaf3 -> p0.spine1#2")
    assert not any(word in caption for word in clos_words)
    assert names and not any("p0." in n or "leaf" in n or "叶" in n for n in names)
    router = "router " if lang == "en" else "路由器 "
    assert all(n.count(router) == 2 for n in names if " -> " in n)
    assert all(word in clos[0] for word in clos_words)
    assert clos[1] == ("leaf 4 -> spine 2#2" if lang == "en" else "叶交换机 4 -> 脊交换机 2#2")


def test_drawing_hover_names_a_router_as_the_hottest_links_do(small):
    """The drawing's hover names a router as the exports and the single points do (``ElementNames.device_name``:
    the family's export word, ``router001``), never a leaf."""
    texts = json.dumps([list(t.hovertext) for t in topology_figure(small).data if t.hovertext is not None])
    assert "router001" in texts and "leaf001" not in texts and "leaf 1" not in texts
