"""review47's findings 6, 10, 11, 13 and 14 (serve47): one design says the same thing on the Inference page's load
table and KV card, the Links and Transceivers cards, the failure CLI and the power figures, in English and Chinese.

The zh assertions read the translations in /work/parts/serve47.po (merged into the catalog by the lead)."""

from __future__ import annotations

import pytest

from conftest import run_cli

from core import units
from core.design import Design
from core.figures.keynumbers import key_numbers, kv_key_numbers
from core.figures.serving import fabric_load_note, fabric_load_rows
from core.i18n import language
from core.perf import serving
from core.perf.placement import has_pods
from core.plan import plan

DF = {"topology": "dragonfly", "gpus": 4096}  # ?v=1&t=df&ng=4096
# the Inference page's split for that design (``python -m core serve --topology dragonfly --gpus 4096``)
DF_DEPLOYMENT = {"model": "llama3.3-70b", "precision": "fp8", "prefill": {"nodes": 317, "tp": 1},
                 "decode": {"nodes": 195, "tp": 2, "pp": 2}}


@pytest.fixture(scope="module")
def df():
    p = plan(Design(**DF))
    return p, serving.estimate(p, serving.parse_deployment(DF_DEPLOYMENT))


# --- 6: a Dragonfly+'s global links are loaded, as the KV card and the collectives say -------------------------------
def test_the_dragonfly_load_table_loads_the_global_links_the_kv_card_names(df):
    """review47 #6: the table said "Spine uplinks —" ("nothing loads them") while the KV card said the cache crosses
    the global links. The cause was the table's own rule (three tiers) beside the collectives' ``has_pods``.

    Hand count: 4,096 GPUs / 8 = 512 nodes in 4 groups of 128, so a node's 511 peers are 384 in other groups
    (spread traffic leaves its group 384/511 = 75.1% of the time); 4 of the 128 spines have 32 down ports and 31
    global ones (2,046 global links = 6 group pairs x 341), so the busiest spine is 32/31 = 1.03:1, the ratio the
    collectives apply to the global stage; the decode pool takes the KV cache, 195 x 8 = 1,560 GPUs, over 50 GB/s NICs."""
    p, e = df
    assert p.fabric.tiers == 2 and has_pods(p.fabric) and p.fabric.pod_count == 4 and p.resolved.nodes == 512
    spines = {(g.down_ports_used, g.up_ports_used): g.count for g in p.fabric.switch_groups if g.role == "spine"}
    assert spines == {(32, 32): 124, (32, 31): 4} and p.bandwidth.spine_oversubscription == pytest.approx(32 / 31)
    assert e.kv.level == "global"
    decode = e.fabric_load["decode"]
    kv_per_gpu = e.kv.gbytes_per_s / 1560  # decode's traffic is the KV cache alone (its tp and pp stay in NVLink)
    assert decode["gbytes_per_s_per_gpu"] == pytest.approx(kv_per_gpu)
    assert decode["spine_uplinks"] == pytest.approx(kv_per_gpu * 384 / 511 * 32 / 31 / 50)
    assert decode["leaf_uplinks"] == pytest.approx(kv_per_gpu * 480 / 511 / 50)  # 32 nodes a leaf group, 1:1
    assert all(load["spine_uplinks"] > 0 for load in e.fabric_load.values()) and not fabric_load_note(e)
    for lang, header, level in (("en", "Global links", "global links"), ("zh", "全局链路", "全局链路")):
        with language(lang):
            rows = fabric_load_rows(e, "GB/s", p.resolved.system, p.fabric.family)
            offered = {n.key: n.help for n in kv_key_numbers(e.kv)}["kv_offered"]
        assert list(rows[1])[-1] == header and rows[1][header] == units.percent(decode["spine_uplinks"])
        assert level in offered and level == header.lower()  # the table's column and the card's level: one name


def test_a_classic_dragonfly_names_its_routers_local_and_global_links():
    p = plan(Design(topology="classic-dragonfly", gpus=1024))
    e = serving.estimate(p, serving.parse_deployment(
        {"model": "llama3.3-70b", "precision": "fp8", "prefill": {"nodes": 64, "tp": 1}, "decode": {"nodes": 64, "tp": 8}}))
    with language("en"):
        headers = list(fabric_load_rows(e, "GB/s", p.resolved.system, p.fabric.family)[0])
    assert headers[-2:] == ["Local links", "Global links"]
    assert all(load["spine_uplinks"] is not None for load in e.fabric_load.values())
    with language("zh"):
        assert list(fabric_load_rows(e, "GB/s", p.resolved.system, p.fabric.family)[0])[-2:] == ["本地链路", "全局链路"]


# --- 10: the KV card's "Network between the pools" says the efficiency it applies -------------------------------------
def test_the_network_between_the_pools_is_the_bisection_at_the_stated_efficiency(df):
    """review47 #10: 58 TB/s was neither the smaller pool's NICs (78 TB/s) nor the bisection (68.2 TB/s) its hover
    named. Hand count: 4 groups joined all to all by 2,046 global links, 341 a pair; the balanced cut (2 groups | 2)
    crosses 4 pairs: 1,364 links x 400 Gb/s = 545.6 Tb/s = 68.2 TB/s; at the catalog's 85%: 57.97 TB/s ("58 TB/s").
    The smaller pool's NICs: 1,560 GPUs x 50 GB/s x 85% = 66.3 TB/s (at most), so the bisection sets it."""
    p, e = df
    assert p.fabric.global_links == 6 * 341
    assert e.kv.efficiency == 0.85 and e.kv.bound == "bisection"
    assert e.kv.network_gbytes_per_s == pytest.approx(4 * 341 * 400 / 8 * 0.85)  # 57,970 GB/s
    assert e.kv.load == pytest.approx(e.kv.gbytes_per_s / 57_970)
    for lang, words in (("en", ("58 TB/s", "each at 85% of its line rate", "the fabric's bisection sets it")),
                        ("zh", ("58 TB/s", "线速的 85%", "网络的对分带宽决定"))):
        with language(lang):
            card = {n.key: n for n in kv_key_numbers(e.kv, "GB/s")}["kv_offered"]
        assert card.value == words[0] and words[1] in card.help and words[2] in card.help


# --- 11: the Transceivers card counts modules, the Links card links ---------------------------------------------------
def test_the_ufm_words_count_links_and_transceivers_each_with_its_own_noun():
    """review47 #11: both cards shared one message, so zh counted the UFM's 4 modules with 条 (links). The DF's
    compute network has 4 UFM links and 4 UFM-side modules more than the cards (the By network table's row)."""
    s = plan(Design(**DF)).summary()
    compute = s["networks"]["compute"]
    assert compute["links"] - sum(s["links"].values()) == 4
    assert compute["transceivers"] - s["transceivers"]["switch_side"] - s["transceivers"]["node_side"] == 4
    for lang, links, modules in (("en", "the UFM appliances' 4 links", "the UFM appliances' 4 transceivers"),
                                 ("zh", "UFM 设备的 4 条链路", "UFM 设备的 4 个光模块")):
        with language(lang):
            helps = {n.key: n.help for n in key_numbers(s)}
        assert links in helps["links"] and modules in helps["transceivers"]
        assert modules not in helps["links"] and links not in helps["transceivers"]


# --- 13: the failure CLI counts one node -------------------------------------------------------------------------------
def test_the_failure_cli_counts_one_node_in_the_singular(capsys):
    """review47 #13: "cut off 8 of 512 GPUs (1 nodes)". A torus node of 8 GPUs failed cuts off 8 GPUs, 1 node."""
    for lang, text in (("en", "8 of 512 GPUs (1 node)"), ("zh", "512 个 GPU 中的 8 个（1 个节点）")):
        code, out, _err = run_cli(capsys, "--lang", lang, "failure", "--topology", "torus", "--gpus", "512",
                                  "--fail", "node:1")
        assert code == 0 and text in out and "1 nodes" not in out


# --- 14: a power keeps the zeros its rounding put there, as money does ---------------------------------------------------
@pytest.mark.parametrize("kw, text", [(1195.842, "1.20 MW"), (43.05, "43.0 kW"), (3.004, "3.00 kW"),
                                      (409.6, "410 kW"), (0.4096 * 1000 * 1000, "410 MW"), (9.996, "10.0 kW"),
                                      (60.0, "60 kW"), (1200.0, "1.2 MW")])
def test_power_keeps_three_significant_figures(kw, text):
    """review47 #14: 1,195.8 kW read "1.2 MW" beside "$5.00 M"; an exact value (a 60 kW rack limit) reads as entered."""
    assert units.power(kw) == text
    assert units.power_in(409.6, (1000.0, "MW")) == "0.410 MW"
    assert units.kw(43.05) == "43.0" and units.kw(41.0) == "41"


def test_the_gb200_power_split_by_network_shows_three_figures():
    """The GB200 two-level design's IT power hover: compute (nodes and fabric) 1,195.8 kW -> "1.20 MW"."""
    s = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)).summary()  # ?v=1&g=GB200-NVL72&n=144&nvd=144
    assert s["networks"]["compute"]["power_kw"] == pytest.approx(1195.842)
    for lang, text in (("en", "compute (nodes and fabric) 1.20 MW"),
                       ("zh", "计算（节点与计算网络）1.20 MW")):
        with language(lang):
            assert text in {n.key: n.help for n in key_numbers(s)}["it_power"]


def test_the_power_charts_bar_labels_are_its_hovers_numbers():
    """The Cost & power tab's bars wrote ``number`` (40 for 40.02 kW) under hovers in ``power_in`` (40.0 kW): one rule."""
    from core.figures.cost import power_figure

    bar = power_figure(plan(Design())).data[0]
    shown = [(text, hover) for text, hover in zip(bar.text, bar.customdata) if text]
    assert shown and all(hover == f"{text} kW" for text, hover in shown)
    # 4 DGX H100 x 10.2 kW = 40.8 kW, less their NICs' 0.797 kW on a row of their own: 40.0032 kW, "40.0" (not "40")
    assert ("40.0", "40.0 kW") in shown
