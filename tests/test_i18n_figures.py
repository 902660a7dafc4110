"""Figures and key numbers speak the request's language: every title, axis, legend, hover text,
annotation, category label and card is Chinese under ``language("zh")`` and English (unchanged) by
default; the numbers drawn never depend on the language; Chinese titles wrap by their width
(a CJK character is two Latin letters wide and Chinese breaks between characters)."""

from __future__ import annotations

import json
import re

import pytest

from core import figures
from core.analysis.whatif import oversubscription_sweep
from core.catalog import load_catalog
from core.design import Design
from core.fabric.bandwidth import tier_capacities_gbits
from core.figures import keynumbers as kn
from core.figures import perf as pf
from core.figures.style import CJK_FONTS, FONT, TITLE_CHARS, TITLE_CHARS_THREE_FIFTHS, text_width, wrap_text, wrap_title
from core.i18n import current, language, usd
from core.perf.collectives import OPS, load_constants, size_sweep, sweep
from core.perf.training import estimate, parse_job, scaling, scaling_gpu_counts
from core.plan import plan
from tests.i18n_check import chinese_leaks, english_leaks

CATALOG = load_catalog()
NAMES = sorted({entry.name for _kind, entry in CATALOG.all_entries()}, key=len, reverse=True)
CONSTANTS = load_constants()

DESIGNS = {
    "1 tier, every server": Design(nodes=4),
    "2 tiers, SUs": Design(nodes=127),
    "top-of-rack": Design(gpus=1024, topology="top-of-rack"),
    "two planes": Design(gpu="B300", gpus=1024, fabric="ethernet", port_speed_gbps=400, planes=2),
    "NVL72 racks": Design(gpu="GB200-NVL72", gpus=1152),
    "DGX-1V cube-mesh": Design(gpu="V100", nodes=2),
    "3 tiers, aggregated": Design(gpus=8192),
    "131,072 GPUs": Design(gpu="B300", gpus=131072),
}

# Latin text a Chinese figure shows on purpose: product names (the catalog's names, the collectives
# as NCCL names them, tools), published references (labels and citations are data) and "IT" (as in
# "IT 功耗": Chinese data-centre usage; tests/i18n_check.py's ALLOWED does not list it yet).
_KEPT = ("nccl-tests", "nvidia-smi topo -m")
_MARKUP = re.compile(r"%\{[^}]*\}|<[^<>]+>|&#?\w+;")  # Plotly placeholders, HTML tags, entities
_IT = re.compile(r"\bIT\b")


def _visible(text: str, extra: tuple[str, ...] = ()) -> str:
    """``text`` as a reader sees it, less the Latin text it keeps on purpose."""
    text = _MARKUP.sub(" ", text)
    for name in (*extra, *NAMES, *sorted(OPS, key=len, reverse=True), *_KEPT):
        text = text.replace(name, " ")
    return _IT.sub(" ", text)


def _texts(fig) -> list[str]:
    """Every text a figure shows: title, axis titles and tick labels, annotations, trace names,
    marker and bar texts, hover texts and templates, category labels, and custom data
    a hover template shows."""
    data = json.loads(fig.to_json())
    out: list[str] = []

    def strings(value):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, (list, tuple)):
            for item in value:
                strings(item)
        elif isinstance(value, dict):
            for item in value.values():
                strings(item)

    layout = data["layout"]
    for key, value in layout.items():
        if key == "title" or key.startswith(("xaxis", "yaxis")):
            strings((value.get("title") or {}).get("text") if key != "title" else value.get("text"))
            if key != "title":
                strings(value.get("ticktext"))
    for note in layout.get("annotations", []):
        strings(note.get("text"))
    for trace in data["data"]:
        strings(trace.get("name"))  # hidden traces' too: a name can show in a hover
        for key in ("text", "hovertext", "hovertemplate"):
            strings(trace.get(key))
        for key in ("x", "y"):
            values = trace.get(key)
            if isinstance(values, list) and any(isinstance(v, str) for v in values):
                strings(values)
        if "customdata" in (trace.get("hovertemplate") or ""):
            strings(trace.get("customdata"))
    return [t for t in out if t]


def _designer_figures(design: Design) -> dict:
    p = plan(design)
    return {
        "topology": figures.topology_figure(p, selected="p0.spine3"),
        "scale-up": figures.scaleup_figure(p),
        "hierarchy": figures.bandwidth_hierarchy_figure(p),
        "capacity": figures.tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric), unit="Gb/s"),
        "capex": figures.capex_figure(p),
        "power": figures.power_figure(p),
    }


def _job(p, **extra):
    gpus = p.resolved.gpus
    dp = gpus // 8
    return parse_job(dict(model="llama3-8b", gpus=gpus, tp=8, global_batch=dp * min(64, 1_000_000 // dp), **extra))


def _perf_figures(design: Design) -> tuple[dict, list[str]]:
    """The Performance page's figures; the fabric labels come from the page, in its language."""
    this, other = ("本设计", "另一种网络") if current() == "zh" else ("this design", "other fabric")
    p = plan(design)
    r = p.resolved
    ops = list(OPS)
    sweeps = [sweep(p, op, size_sweep(8, 16 * 2**30, 32), gpus=r.gpus) for op in ops]
    refs = [ref for op in ops for ref in CONSTANTS.references(r.system.id, r.gpus, op, r.nics_per_node)]
    job = _job(p)
    here = estimate(p, job)
    rows = scaling(p, job, scaling_gpu_counts(8, r.gpus, here.gpus))
    out = {
        "busbw": pf.busbw_figure(sweeps, refs),
        "busbw fastest": pf.busbw_figure(sweeps, refs, show_all_algorithms=False),
        "step": pf.step_figure({this: here}),
        "compare": pf.comparison_figure([{"label": this, "days": here.days_to_train, "cost_usd": here.cost_usd},
                                         {"label": other, "days": 2.0, "cost_usd": 3.2e8}]),
    }
    if len(rows) >= 2:
        out["scaling"] = pf.scaling_figure(rows)
    data = [text for ref in refs for text in (ref.label, ref.source[:90])]
    return out, data


def _cards(design: Design) -> list:
    p = plan(design)
    return [*kn.key_numbers(p.summary()), *kn.key_numbers(p.summary(), "Gb/s"), *kn.cost_key_numbers(p)]


# --- Chinese: nothing English ------------------------------------------------------------------
@pytest.mark.parametrize("name", DESIGNS)
def test_designer_figures_speak_chinese(name):
    with language("zh"):
        figs = _designer_figures(DESIGNS[name])
        for kind, fig in figs.items():
            for text in _texts(fig):
                assert not english_leaks(_visible(text)), (kind, text, english_leaks(_visible(text)))
        assert figs["topology"].layout.title.text.startswith("横向扩展网络")
        assert list(figs["topology"].layout.yaxis.ticktext)[:2] == ["服务器", "叶层"]
        assert "设施开销" in list(figs["power"].data[0].x)


@pytest.mark.parametrize("design", [Design(nodes=2), Design(gpu="GB200-NVL72", gpus=144), Design(gpus=1024)])
def test_performance_figures_speak_chinese(design):
    with language("zh"):
        figs, references = _perf_figures(design)
        for kind, fig in figs.items():
            for text in _texts(fig):
                assert not english_leaks(_visible(text, tuple(references))), (kind, text)
        assert "总线带宽" in figs["busbw"].layout.yaxis.title.text


def test_moe_step_and_published_points_speak_chinese():
    p = plan(Design(gpus=1024))
    with language("zh"):
        moe = estimate(p, parse_job(dict(model="deepseek-v3", gpus=1024, tp=8, pp=8, ep=8, recompute="full")))
        fig = pf.step_figure({"本设计": moe})
        names = [t.name for t in fig.data if t.name]
        assert "计算" in names and "流水线气泡" in names and any(n.startswith("DP（专家）") for n in names)
        for text in _texts(fig):
            assert not english_leaks(_visible(text)), text
        # a design with published nccl-tests points: the legend says they are published, in Chinese
        dgx = plan(Design(gpu="H100", nodes=1))
        refs = CONSTANTS.references(dgx.resolved.system.id, 8, "all-reduce", dgx.resolved.nics_per_node)
        if refs:
            bus = pf.busbw_figure([sweep(dgx, "all-reduce", size_sweep(8, 2**30, 16), gpus=8)], refs)
            assert any((t.name or "").startswith("公开实测：") for t in bus.data)


def test_oversubscription_figure_speaks_chinese_also_when_nothing_is_buildable():
    with language("zh"):
        good = figures.oversubscription_figure(oversubscription_sweep(Design(nodes=64)), 1.0)
        bad = figures.oversubscription_figure(oversubscription_sweep(Design(gpus=8192, tiers=2)), 1.0)
        for fig in (good, bad):
            for text in _texts(fig):
                assert not english_leaks(_visible(text)), text
        assert "无法构建" in bad.layout.annotations[0].text
        assert any(t.name == "当前设计" for t in good.data)


@pytest.mark.parametrize("name", DESIGNS)
def test_cards_and_captions_speak_chinese(name):
    design = DESIGNS[name]
    p = plan(design)
    with language("zh"):
        cards = _cards(design)
        cards += kn.training_key_numbers(estimate(p, _job(p))) if p.resolved.gpus % 8 == 0 else []
        for card in cards:
            for text in (card.label, card.value, card.help):
                assert not english_leaks(_visible(text)), (card.key, text)
        caption = kn.size_caption(p)
        assert not english_leaks(_visible(caption)) and chinese_leaks(caption), caption
        html = kn.cards_html(cards)
        assert not english_leaks(_visible(html.replace("fp-card", " ").replace("fp-label", " ")
                                           .replace("fp-value", " ").replace("fp-cards", " "))), html


def test_every_placeholder_is_filled_in_chinese():
    unfilled = re.compile(r"(?<!%)\{[a-z_]+\}")
    with language("zh"):
        for design in (Design(nodes=127), Design(gpu="GB200-NVL72", gpus=1152), Design(gpus=8192)):
            texts = [t for fig in _designer_figures(design).values() for t in _texts(fig)]
            texts += [t for card in _cards(design) for t in (card.label, card.value, card.help)]
            texts.append(kn.size_caption(plan(design)))
            assert not [t for t in texts if unfilled.search(t)]
            assert not [t for t in texts if "{{" in t or "}}" in t]  # Plotly's %{..} came out single


# --- English: unchanged, nothing Chinese -------------------------------------------------------
@pytest.mark.parametrize("name", ["2 tiers, SUs", "NVL72 racks", "131,072 GPUs"])
def test_english_figures_have_no_chinese(name):
    figs = _designer_figures(DESIGNS[name])
    perf, _refs = _perf_figures(Design(nodes=2))
    for fig in (*figs.values(), *perf.values()):
        assert not chinese_leaks(" ".join(_texts(fig)))
    assert not chinese_leaks(" ".join(c.label + c.value + c.help for c in _cards(DESIGNS[name])))
    assert not chinese_leaks(kn.size_caption(plan(DESIGNS[name])))


def test_english_texts_are_as_before():
    p = plan(Design(nodes=127))
    assert kn.size_caption(p) == "1,016 x H100 in 127 nodes"
    assert kn.size_caption(plan(Design(gpu="GB200-NVL72", gpus=576))) == \
        "576 GPUs in 8 GB200-NVL72 racks (144 compute trays of 4 GPUs)"
    labels = [k.label for k in kn.key_numbers(p.summary())]
    assert labels == ["GPUs", "Leaf switches", "Spine switches", "Core switches", "Links", "Transceivers",
                      "Bisection (1 dir)", "NVLink/GPU (bidir)", "Injection/GPU (1 dir)", "Capex, whole cluster",
                      "Capex, compute fabric", "Capex per GPU",
                      "IT power"]
    assert usd(45_776_640) == "$45.8 M" and usd(44_704) == "$44,704"
    title = figures.topology_figure(p).layout.title.text
    assert title.startswith("Scale-out fabric: 2 tiers, 32 leaves")  # three fifths of the page
    assert list(figures.capex_figure(p).data[0].x)[0] == "compute"


# --- the numbers do not depend on the language ------------------------------------------------
def _numbers(fig) -> list:
    data = json.loads(fig.to_json())["data"]
    return [[v for v in trace.get(axis) or [] if not isinstance(v, str)] for trace in data for axis in ("x", "y")]


@pytest.mark.parametrize("design", [Design(nodes=127), Design(gpu="B300", gpus=131072)])
def test_switching_language_keeps_every_number(design):
    english = _designer_figures(design)
    with language("zh"):
        chinese = _designer_figures(design)
    for kind in english:
        assert _numbers(english[kind]) == _numbers(chinese[kind]), kind
        assert len(english[kind].data) == len(chinese[kind].data), kind
    en_cards = {c.key: c.value for c in _cards(design)}
    with language("zh"):
        zh_cards = {c.key: c.value for c in _cards(design)}
    money = {"capex", "capex_fabric", "capex_per_gpu", "energy", "tco", "capex_range"}
    assert {k: v for k, v in en_cards.items() if k not in money} == \
        {k: v for k, v in zh_cards.items() if k not in money}


def test_chinese_money_is_written_in_wan_and_yi():
    with language("zh"):
        assert usd(45_776_640) == "4,578万美元"
        assert usd(9_880_555_520) == "98.8亿美元"
        assert usd(44_704) == "4.47万美元"
        cards = {c.key: c for c in kn.key_numbers(plan(Design(gpus=8192)).summary())}
        assert cards["capex"].value.endswith("亿美元") and "亿美元" in cards["capex"].help
        assert "US$" not in cards["capex"].help
        p = plan(Design(nodes=4))
        run = kn.training_key_numbers(estimate(p, _job(p)))
        assert next(c for c in run if c.key == "cost").value.endswith("美元")


# --- fonts -------------------------------------------------------------------------------------
def test_fonts_render_chinese():
    assert "Noto Sans CJK SC" in FONT["family"] and FONT["family"].startswith("Inter")
    assert CJK_FONTS in kn.CARDS_CSS and "Source Sans" in kn.CARDS_CSS
    fig = figures.bandwidth_hierarchy_figure(plan(Design(nodes=4)))
    assert "Noto Sans CJK SC" in fig.layout.font.family


# --- wrapping by width -------------------------------------------------------------------------
def _width(line: str) -> int:
    return text_width(re.sub(r"</?sup>", "", line))


def test_a_cjk_character_is_two_letters_wide():
    assert text_width("leaf") == 4 and text_width("叶交换机") == 8 and text_width("GPU 数") == 6
    assert text_width("（，）") == 6 and text_width("<b>叶</b>&#9679;") == 3


def test_chinese_wraps_between_characters_within_the_width():
    title = "每个 GPU 的带宽在横向扩展网络中按单向计算并且包括全部网络平面与所有轨道的叶交换机上行链路"
    text, lines = wrap_title(title)
    assert lines == len(text.split("<br>")) >= 3
    assert all(_width(line) <= TITLE_CHARS for line in text.split("<br>"))
    assert text.replace("<br>", "") == title  # broken between characters: nothing added or lost
    # the old measure (one per character) would have let a line of 36 Chinese characters (72 wide) through
    assert max(len(line) for line in text.split("<br>")) <= TITLE_CHARS // 2 + 3


def test_punctuation_never_begins_a_line_and_clauses_break_first():
    text, _ = wrap_title("横向扩展网络（平面 1/1）：2 层、32 台叶交换机、16 台脊交换机")
    assert text.split("<br>") == ["横向扩展网络（平面 1/1）：", "2 层、32 台叶交换机、16 台脊交换机"]
    for width in range(6, 40):
        for line in wrap_text("每个 GPU 18 条链路，分布在 4 颗 NVSwitch 芯片上（5+5+4+4），横向扩展：每节点 8 × CX7。",
                              width).split("<br>"):
            assert line[0] not in "，。、；：）" and line[-1] != "（", (width, line)


def test_subtitles_and_tags_survive_chinese_wrapping():
    dots = "  ".join(f"<span style='color:#{r}{r}{r}'>&#9679;</span> {r}" for r in range(1, 9))
    title = "纵向扩展：NVLink 5 域，72 个 GPU（18 × 4）<br><sup>叶交换机和链路颜色 = 轨道：" + dots + "</sup>"
    text, lines = wrap_title(title, 28)
    parts = text.split("<br>")
    assert lines == len(parts) and parts[0] == "纵向扩展：NVLink 5 域，"
    subs = [p for p in parts if p.startswith("<sup>")]
    assert subs and all(p.endswith("</sup>") for p in subs)
    assert all(_width(p) <= 28 * 1.35 + 3 for p in subs)  # tags count one each, as they always did
    assert "".join(subs).count("<span") == 8 == "".join(subs).count("</span>")


def test_english_wrapping_is_unchanged():
    text = "Cross-fabric bandwidth per GPU vs leaf oversubscription (re-planned by the engine)"
    assert wrap_title(text) == ("Cross-fabric bandwidth per GPU vs<br>leaf oversubscription (re-planned by<br>"
                                "the engine)", 3)
    assert wrap_text("a bb ccc dddd eeeee", 7) == "a bb<br>ccc<br>dddd<br>eeeee"


@pytest.mark.parametrize("name", ["NVL72 racks", "131,072 GPUs", "two planes"])
def test_chinese_titles_and_notes_fit_a_narrow_column(name):
    with language("zh"):
        figs = _designer_figures(DESIGNS[name])
        figs["oversubscription"] = figures.oversubscription_figure(oversubscription_sweep(Design(nodes=64)), 1.0)
    for kind, fig in figs.items():
        width = {"scale-up": 28, "topology": TITLE_CHARS_THREE_FIFTHS}.get(kind, TITLE_CHARS)
        for line in fig.layout.title.text.split("<br>"):
            limit = width * 1.35 if line.startswith("<sup>") else width
            assert _width(re.sub(r"<span[^>]*>|</span>", "", line)) <= limit + 1, (kind, line)
        assert fig.layout.margin.t >= 30 + 22 * (fig.layout.title.text.count("<br>") + 1) or kind != "topology"
    for line in figs["scale-up"].layout.annotations[0].text.split("<br>"):
        assert _width(line) <= 36, line
