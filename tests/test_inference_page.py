"""The Inference page (pages/8_Inference.py) inside the app, and what it stands on: the ``inf_`` link
(core.formats.inferencelink), the deployment its settings mean on a design (webui.inference) and its figure
(core.figures.serving).

The page shows the serving model's own numbers for the sidebar's design, keeps every setting in the link (and
reads it back), says what a bad link value was and keeps the rest, shows a deployment that does not fit with
its way out, and shows each alternative design's own error without losing the others."""

from __future__ import annotations

import json

import html
import math
import re

import pytest

from core.design import Design
from core.errors import DesignError
from core.i18n import language
from core.figures.keynumbers import serving_key_numbers
from core.figures.serving import compared_note, comparison_rows, time_figure
from core.formats import inferencelink as link
from core.formats import sharelink
from core.perf.serving import usable_hbm_bytes, weights_per_gpu_bytes
from core.plan import plan
from core.units import alike, milliseconds
from tests import pagetest
from tests.test_i18n import rerun
from core.perf import servingform
from webui import inference

PAGE = "../pages/8_Inference.py"
open_page = pagetest.opener(PAGE)
CARD = re.compile(r'data-testid="stMetricLabel">(.*?)</div><div class="fp-value" data-testid="stMetricValue">(.*?)</div>')


def cards(at) -> dict[str, str]:
    return {html.unescape(k): html.unescape(v) for m in at.markdown for k, v in CARD.findall(str(m.value))}


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def query(at) -> dict[str, str]:
    return {k: at.query_params[k] for k in at.query_params}


# --- the page ---------------------------------------------------------------------------------------------------
def test_default_page_shows_the_serving_models_numbers():
    at = open_page({"v": "1"})
    assert not at.error and not at.warning
    expected = servingform.estimate_on(plan(Design()), link.DEFAULTS)
    assert cards(at).items() >= {k.label: k.value for k in serving_key_numbers(expected)}.items()
    assert "KV cache per request" in cards(at)  # disaggregated: the transfer's cards
    assert len(at.get("plotly_chart")) == 1
    split = at.dataframe[0].value.set_index("Pool")  # a column per pool (webui.tables.turned)
    assert list(split.loc["Nodes"]) == [f"{expected.prefill.split.nodes:,}", f"{expected.decode.split.nodes:,}"]
    assert "/inference?" in at.sidebar.code[0].value


def test_every_setting_round_trips_through_the_link():
    params = {"v": "1", "n": "8", "lang": "en", "inf_model": "qwen3-30b-a3b",
              "inf_prec": "bf16", "inf_kvp": "fp8", "inf_in": "4000", "inf_out": "800", "inf_hit": "0.25",
              "inf_load": "rate", "inf_rate": "3.5", "inf_ttft": "1500", "inf_tpot": "40", "inf_pn": "2",
              "inf_ptp": "2", "inf_dn": "6", "inf_dtp": "1", "inf_ddp": "4", "inf_dep": "4", "inf_drx": "0"}
    at = open_page(params)
    assert not at.error and not at.warning, [e.value for e in at.error]
    want = {k: v for k, v in params.items() if k != "inf_drx"}  # 0 = chosen: the default, left out
    assert query(at) == want
    values, warnings = link.decode(params)
    assert not warnings and at.session_state["fp_inf"] == values
    assert at.number_input(key="inf_w_rate").value == 3.5 and at.selectbox(key="inf_w_kvp").value == "fp8"
    split = at.dataframe[0].value.set_index("Pool")
    assert list(split.loc["Nodes"]) == ["2", "6"] and list(split.loc["TP"]) == ["2", "1"] and list(split.loc["EP"])[1] == "4"
    assert link.decode(link.encode(values))[0] == values


def test_controls_change_the_numbers_and_the_link():
    at = open_page({"v": "1"})
    before = cards(at)["Time per output token"]
    at.selectbox(key="inf_w_model").set_value("qwen3-30b-a3b")
    rerun(at)
    at.radio(key="inf_w_load").set_value("conc")
    rerun(at)
    at.number_input(key="inf_w_conc").set_value(64)
    rerun(at)
    assert not at.exception and not at.error
    assert query(at)["inf_model"] == "qwen3-30b-a3b" and query(at)["inf_load"] == "conc" and query(at)["inf_conc"] == "64"
    assert cards(at)["Time per output token"] != before


def test_bad_link_values_warn_briefly_escaped_and_the_rest_applies():
    at = open_page({"v": "1", "inf_in": "0", "inf_dtp": "9999", "inf_model": "[x](//evil.example)",
                    "inf_rate": "lots", "inf_out": "800", "inf_load": "rate"})
    assert not at.exception and not at.error
    text = unescape(at.warning[0].value)
    for fragment in ("'inf_in' (input tokens)", "1 to 1,000,000", "'inf_dtp' (decode tp)", "'inf_model'",
                     "'inf_rate'"):
        assert fragment in text, text
    assert "](//evil" not in at.warning[0].value  # escaped: shown as characters, never a link
    store = at.session_state["fp_inf"]
    assert store["out"] == 800 and store["load"] == "rate"  # the good values kept
    assert store["in"] == link.DEFAULTS["in"] and store["model"] == link.DEFAULTS["model"]  # safe fallbacks
    assert query(at)["inf_out"] == "800" and "inf_in" not in query(at) and "inf_dtp" not in query(at)


@pytest.mark.parametrize("lang,name", [("en", "serving pool"), ("zh", "服务池")])
def test_aggregated_modes_one_pool_has_one_name(lang, name):
    at = open_page({"v": "1", "lang": lang, "inf_mode": "aggregated"})
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value.columns)[1:] == [name]  # the split table's column, as the controls' title
    assert list(at.dataframe[1].value.iloc[:, 0]) == [name]  # the fabric-load table's row (was "decode")
    assert any(m.value == "**" + name.capitalize() + "**" for m in at.markdown) or lang == "zh"
    at = open_page({"v": "1", "lang": lang, "inf_mode": "aggregated", "inf_dn": "1", "inf_dtp": "3"})
    assert unescape(at.error[0].value).startswith(name + ("：" if lang == "zh" else ": "))  # not "decode pool"


def test_a_deployment_that_does_not_fit_says_why_and_what_would_work():
    at = open_page({"v": "1", "n": "1"})  # disaggregated needs two nodes
    error = unescape(at.error[0].value)
    # the search's reason and ways out, as python -m core serve --nodes 1 says them (review45 2.2)
    assert "need 2 nodes" in error and "What would work" in error and "serve aggregated" in error
    assert not cards(at)
    assert at.number_input(key="inf_w_pn").value == 0  # nothing the user entered is lost


def test_no_fabric_what_if_says_when_the_split_leaves_the_nvlink_domain():
    at = open_page({"v": "1", "inf_model": "deepseek-r1", "inf_mode": "aggregated"})  # 32-GPU instances on H100
    warning = next(unescape(w.value) for w in at.warning if "NVLink domain" in unescape(w.value))
    assert "one NVLink domain of 8 GPUs, not 32" in warning and "What would work" in warning
    assert cards(at)  # the deployment itself is shown


def test_each_alternative_design_shows_its_own_error():
    at = open_page({"v": "1", "g": "B200", "n": "4", "inf_prec": "fp4", "inf_model": "qwen3-30b-a3b"})
    assert not at.error
    table = at.dataframe[-1].value.set_index("Design")  # a column per design (webui.tables.turned)
    assert table.loc["TPOT [ms]", "this design"] != "-" and table.loc["TPOT [ms]", "GB200-NVL72, as many GPUs in whole racks"] != "-"
    assert table.loc["TPOT [ms]", "H100, InfiniBand non-blocking"] == "-"
    warnings = [unescape(w.value) for w in at.warning]
    for label in ("H100, InfiniBand non-blocking", "H100, Ethernet RoCE non-blocking"):
        assert any(w.startswith(f"**{label}**") and "FP4" in w and "What would work" in w for w in warnings), warnings


def test_search_answers_and_its_split_fill_the_controls():
    """The page shows the serving search's answers and its button puts the best split into the controls and the
    link: the same split the search finds on its own."""
    at = open_page({"v": "1", "inf_ttft": "3000", "inf_tpot": "100"})
    text = " ".join(unescape(m.value) for m in at.markdown)
    assert "requests/s" in text and "balance the pools" in text
    at.button(key="inf_w_search").click()
    rerun(at)
    values = {**link.DEFAULTS, "ttft": 3000.0, "tpot": 100.0}
    best = inference.search(plan(Design()), values).best
    assert best is not None
    assert query(at)["inf_dn"] == str(best.decode.nodes) and query(at)["inf_dtp"] == str(best.decode.tp)
    assert at.number_input(key="inf_w_dtp").value == best.decode.tp
    assert not at.exception


def test_page_in_chinese():
    at = open_page({"v": "1", "lang": "zh"})
    assert not at.error and at.title[0].value != "Inference"
    assert "首" in " ".join(cards(at))  # 首个 token 时间


# --- the link, the deployment, the figure --------------------------------------------------------------------------
@pytest.mark.parametrize("key, text", [("in", "1000001"), ("hit", "1"), ("rate", "0"), ("conc", "2.5"),
                                       ("pn", "-1"), ("ttft", "nan"), ("mode", "both")])
def test_link_refuses_what_the_model_refuses(key, text):
    values, warnings = link.decode({"inf_" + key: text})
    assert len(warnings) == 1 and values[key] == link.DEFAULTS[key]


def test_chinese_link_warning_has_no_space_between_chinese_words():
    with language("zh"):
        warnings = link.decode({"inf_ttft": "-1", "inf_dtp": "-4"})[1]
    assert "0（无目标），或大于 0，最多 3,600,000" in warnings[0]  # 或 大于 was a placeholder's space
    assert "0（按设计选定），或 1 至 1,024" in warnings[1]  # a space between Chinese and a number stays


@pytest.mark.parametrize("params", [{"inf_pn": "1", "inf_ptp": "3"}, {"inf_mode": "aggregated", "inf_dn": "1",
                                                                      "inf_dtp": "5"}])
def test_a_pool_size_with_a_split_that_does_not_divide_it_is_the_models_error(params):
    values = link.decode(params)[0]
    with pytest.raises(DesignError, match="do not split into instances"):  # was a TypeError from the fallback split
        servingform.estimate_on(plan(Design()), values)


def test_widget_limits_are_the_models():
    assert link.widget_limits("in") == (1, 1_000_000)
    low, high = link.widget_limits("hit")
    assert low == 0 and 0.999999 < high < 1
    assert 0 < link.widget_limits("rate")[0] < 1e-300
    assert link.widget_limits("dtp") == (0, 1024)  # 0 = chosen for the design


def test_every_value_the_link_accepts_fits_its_box():
    at = open_page({"v": "1", "inf_load": "rate", "inf_rate": "0.0005", "inf_hit": "0.9999", "inf_conc": "100000000",
                    "inf_ttft": "3600000"})
    assert not at.exception and not at.warning
    assert at.number_input(key="inf_w_rate").value == 0.0005 and at.number_input(key="inf_w_hit").value == 0.9999


@pytest.mark.parametrize("design", [Design(), Design(gpu="GB200-NVL72", nodes=18), Design(nodes=128)])
@pytest.mark.parametrize("model", ["llama3.3-70b", "deepseek-r1", "qwen3-30b-a3b", "llama3-405b"])
def test_chosen_splits_divide_their_pools_and_hold_the_weights(design, model):
    p = plan(design)
    dep = servingform.chosen_deployment(p, {**link.DEFAULTS, "model": model})
    assert dep.prefill.nodes + dep.decode.nodes <= p.resolved.nodes
    for split in dep.pools:
        assert (split.nodes * p.resolved.gpus_per_node) % split.instance_gpus == 0
        if dep.model.is_moe:
            assert (dep.model.experts + split.redundant_experts) % split.ep == 0
    if design.nodes != 4 or model != "deepseek-r1":  # 4 H100 nodes hold DeepSeek-R1 once, not in two pools
        assert all(weights_per_gpu_bytes(dep, s) <= servingform.WEIGHT_SHARE * usable_hbm_bytes(p) for s in dep.pools)


def test_splits_left_at_zero_are_the_searchs():
    """Every pool and split at 0: the page serves what the search (and ``python -m core serve --mode M``) finds."""
    from core.perf.serving_search import search

    p = plan(Design(nodes=16))
    values = {**link.DEFAULTS, "ttft": 3000.0, "tpot": 100.0}
    dep = servingform.deployment(p, values)
    best = search(p, values["model"], servingform.workload(values), mode=values["mode"], ways_out=False).best
    assert (dep.prefill, dep.decode) == (best.prefill, best.decode) and dep.workload == servingform.workload(values)


def test_given_split_fields_are_kept():
    p = plan(Design(nodes=16))
    dep = servingform.deployment(p, {**link.DEFAULTS, "dn": 8, "dtp": 4, "dpp": 2, "pn": 4})
    assert (dep.decode.nodes, dep.decode.tp, dep.decode.pp, dep.prefill.nodes) == (8, 4, 2, 4)


def test_same_gpus_on_another_design():
    here = plan(Design(nodes=8))
    there = plan(Design(gpu="GB200-NVL72", gpus=64))
    dep = servingform.deployment(here, {**link.DEFAULTS, "pn": 2, "dn": 6})
    assert servingform.same_gpus(here, there, dep) == (4, 12)  # 16 and 48 GPUs in trays of 4


def test_alternatives_leave_out_the_design_itself():
    assert "h100ib" not in inference.alternative_keys(Design(oversubscription=1.0), "infiniband", 32)
    assert inference.alternative_keys(Design(gpu="B200"), "infiniband", 32) == list(inference.ALTERNATIVES)


def test_time_figure_bars_sum_to_tpot_and_ttft():
    e = servingform.estimate_on(plan(Design()), link.DEFAULTS)
    fig = time_figure({"a": e})
    bars = [t for t in fig.data if t.type == "bar"]
    tpot = sum(t.x[0] for t in bars if t.xaxis == "x")
    ttft = sum(t.x[0] for t in bars if t.xaxis == "x2")
    assert tpot == pytest.approx(e.tpot_s * 1e3) and ttft == pytest.approx(e.ttft_s * 1e3)


def test_unbounded_latency_is_said_not_drawn():
    p = plan(Design())
    e = servingform.estimate_on(p, {**link.DEFAULTS, "load": "rate", "rate": 10_000.0})
    assert math.isinf(e.ttft_s)
    fig = time_figure({"a": e})
    assert any("unbounded" in a.text for a in fig.layout.annotations)  # on its hatched bar
    row = comparison_rows([("a", e), ("b", DesignError("no room", "fewer"))])
    assert row[0]["TTFT [ms]"] == "unbounded" and row[0]["TPOT [ms]"] != "-" and row[1]["TTFT [ms]"] == "-"


def test_the_deployment_downloads_as_each_simulators_input():
    """The page offers the deployment as every serving simulator's input it can be, and says why not for the
    others (Vidur expresses no disaggregated deployment)."""
    from core.formats.serving_exports import serving_exports

    at = open_page({"v": "1"})
    buttons = at.get("download_button")
    captions = " ".join(unescape(c.value) for c in at.caption)
    assert len(buttons) + captions.count("**") // 2 >= len(serving_exports()) - 1
    assert len(buttons) >= 1
    served = inference.serve(Design(), plan(Design()), dict(link.DEFAULTS))
    assert isinstance(served.exports["inference-sim"], str) and "inter-token-latency" in served.exports["inference-sim"]
    assert isinstance(served.exports["vidur"], Exception)  # the default is disaggregated
    # the export's name on its line, why not below it: one line read "...aggregated deployments: Vidur cannot
    # express a disaggregated deployment: it has ..." (zh the same, three full-width colons)
    (why,) = [unescape(c.value) for c in at.caption if "Vidur" in c.value and "**" in c.value]
    assert why.count(":") == 2 and "**  \n" in why and "deployments**: " not in why, why


@pytest.mark.parametrize("lang,row,gone", [("en", "Serving pool split", "Prefill split"), ("zh", "服务池切分", "预填充切分")])
def test_aggregated_comparison_has_one_split_row(lang, row, gone):
    """Served aggregated (one pool), the comparison table printed that pool's split twice, as "Prefill split" and
    "Decode split": one row now, named as the controls name the pool."""
    at = open_page({"v": "1", "lang": lang, "inf_mode": "aggregated"})
    assert not at.exception and not at.error
    table = at.dataframe[-1].value.set_index(at.dataframe[-1].value.columns[0])
    assert row in table.index and gone not in table.index, list(table.index)
    assert all(str(v).startswith(("2", "4", "1", "-")) for v in table.loc[row]), table.loc[row]


def test_an_overloaded_aggregated_pool_is_drawn_not_a_crash():
    """Aggregated and overloaded, the design served nothing (its rate served 0, the time per output token
    unbounded): the alternatives were served that 0 requests/s, a ValidationError that took the page down. The pool
    now runs saturated (its time per output token bounded), the requests beyond it queue (the time to first token
    unbounded, hatched, one legend entry), and the alternatives are served the rate asked."""
    from core.figures.serving import UNBOUNDED

    at = open_page({"inf_mode": "aggregated", "inf_load": "rate", "inf_rate": "10000"})
    assert not at.exception
    (chart,) = [c for c in at.get("plotly_chart") if UNBOUNDED in c.proto.spec]
    hatched = [t for t in json.loads(chart.proto.spec)["data"] if t.get("name") == UNBOUNDED]
    assert "x2" in [t.get("xaxis") for t in hatched]  # the time to first token's hatch ...
    assert [t.get("showlegend", True) for t in hatched].count(True) == 1  # ... one legend entry
    assert any("serves this design's request rate, 10,000 requests/s" in str(c.value) for c in at.caption)  # not 0


@pytest.mark.parametrize("lang, word", [("en", "unbounded"), ("zh", "无上限")])
def test_an_overloaded_pools_utilisation_is_saturated_never_inf(lang, word):
    """Aggregated and overloaded, the serving pool's decode capacity was 0 and its utilisation infinite: the split
    table said "inf%", then "unbounded". The pool runs saturated now: its utilisation is all of its capacity
    (``core.units.percent``: never 100% below one), the queue's time to first token the unbounded word."""
    at = open_page({"inf_mode": "aggregated", "inf_load": "rate", "inf_rate": "10000", "lang": lang})
    assert not at.exception
    cells = [str(v) for t in at.table for v in t.value.to_numpy().ravel()] + \
            [str(v) for t in at.dataframe for v in t.value.to_numpy().ravel()]
    assert not [c for c in cells if "inf" in c.lower() and "%" in c]
    assert ">99.999%" in cells or "100%" in cells
    assert word in cells  # the comparison table's time to first token


@pytest.mark.parametrize("lang, name, other", [("en", "compute fabric", "scale-out fabric"), ("zh", "计算网络", "横向扩展网络")])
def test_the_what_if_names_the_fabric_one_way(lang, name, other):
    """The what-if's heading said "Without the compute fabric", its caption "Without the scale-out fabric" for the
    same thing: one name (``core.vocab.compute_fabric``'s), en and zh."""
    from core import vocab

    at = open_page({"v": "1", "lang": lang} if lang == "zh" else {"v": "1"})
    with language(lang):
        assert vocab.compute_fabric() == name
    heading = next(h.value for h in at.subheader if name in h.value)
    caption = next(unescape(c.value) for c in at.caption if "KV" in c.value and name in c.value)
    assert other not in heading + caption


@pytest.mark.parametrize("lang, usd_header", [("en", "Cost per million output tokens [USD]"),
                                               ("zh", "每百万输出 token 成本 [美元]")])
def test_the_comparison_sets_each_number_alike_across_designs(lang, usd_header):
    """The what-if's energy read "3.22" beside "3.1": a row across the designs has one number of decimals
    (``core.units.alike``); its cost row names the unit, as Compare's."""
    served = inference.serve(Design(), plan(Design()), dict(link.DEFAULTS))  # 3.22 J with the fabric, 3.10 without
    a, b = served.here, served.without
    with language(lang):
        rows = comparison_rows([("a", a), ("b", b)])
    assert usd_header in rows[0]
    for header in rows[0]:
        cells = [row[header] for row in rows]
        if all(re.fullmatch(r"[\d,]+\.\d+", c) for c in cells):  # numbers with decimals: as many each
            assert len({len(c.split(".")[1]) for c in cells}) == 1, (header, cells)
    joules = [row[next(h for h in row if "[J]" in h)] for row in rows]
    assert joules == alike([a.joules_per_output_token, b.joules_per_output_token]) == ["3.22", "3.10"]


@pytest.mark.parametrize("lang, name, other", [("en", "compute fabric", "scale-out fabric"), ("zh", "计算网络", "横向扩展网络")])
def test_the_fabric_load_table_and_the_step_part_name_the_fabric_as_the_what_if(lang, name, other):
    """The fabric-load table was "Load on the scale-out fabric" and the time per output token's part "scale-out
    fabric" where the what-if's heading says "Without the compute fabric": one name (``core.vocab.compute_fabric``)
    for the table, the chart's part and ``serve``'s TPOT line, en and zh."""
    at = open_page({"v": "1", "lang": lang})
    assert not at.exception
    title = f"**{'计算网络上的负载' if lang == 'zh' else 'Load on the compute fabric'}**"
    assert title in [m.value for m in at.markdown]
    assert not [m.value for m in at.markdown if other in m.value]
    from core.figures.serving import STEP_PARTS
    from core.i18n import _

    with language(lang):
        assert _(STEP_PARTS["fabric"]) == name  # the chart's part and serve's TPOT line (a chart leaves out a part of 0)


@pytest.mark.parametrize("lang, words", [("en", "one decode step of 109 sequences per rank"),
                                         ("zh", "每进程 109 条序列的一个解码步")])
def test_the_tpot_cards_help_spaces_its_number_in_chinese(lang, words):
    """The zh time-per-output-token card's help read "每进程109 条序列": a number between Chinese words takes a
    space on each side (``core.i18n.embedded``'s rule)."""
    e = servingform.estimate_on(plan(Design()), {**link.DEFAULTS, "mode": "aggregated", "load": "rate",
                                                 "rate": 10_000})
    with language(lang):
        helps = [k.help for k in serving_key_numbers(e)]
    assert words in helps


@pytest.mark.parametrize("lang, words", [("en", "In a narrow window the table scrolls sideways to its last columns."),
                                         ("zh", "窗口较窄时可左右滚动表格查看最后几列。")])
def test_the_scroll_note_shows_only_while_the_page_is_narrower_than_its_table(lang, words):
    """"In a narrow window the table scrolls sideways" showed at every width, under tables that fit a 1,600 px
    window: each note now carries a CSS container query that hides it from the page width at which its table fits
    (``webui.tables.say_it_scrolls``; the page's main block a size container, ``PAGE_CONTAINER_CSS`` in app.py's
    style). Checked in Chromium: the en what-if's note shows at 1,024 px and hides at 1,180 px; the comparison's,
    987 px wide, shows at 1,300 px and hides at 1,480 px."""
    from webui.tables import GRID_BORDER_PX, PAGE_CONTAINER, PAGE_CONTAINER_CSS, table_px, turned

    at = open_page({"v": "1", "lang": lang})
    assert not at.exception
    notes = [c.value for c in at.caption if words in c.value]
    assert notes and all(f"@container {PAGE_CONTAINER} (min-width: " in n for n in notes)
    widths = sorted(int(re.search(r"min-width: (\d+)px", n).group(1)) for n in notes)
    tables = [d.value for d in at.dataframe if len(d.value.columns) >= 3 and table_px(d.value) > 564]
    assert widths == sorted(math.ceil(table_px(t)) + GRID_BORDER_PX for t in tables)
    assert any(PAGE_CONTAINER_CSS.strip() in str(m.value) for m in at.markdown)  # app.py's style


@pytest.mark.parametrize("lang, idle", [("en", "A pool at 0 sends nothing over the compute fabric at any load"),
                                        ("zh", "流量为 0 的池在任何负载下都不经计算网络发送数据")])
def test_an_overloaded_page_shows_the_served_rates_numbers_and_says_why_the_fabric_reads_0(lang, idle):
    """Overloaded (10,000 requests/s on 32 H100, aggregated), the page served at saturation: every card and row
    is the served rate's (71 requests/s: 1,105 output tokens/s per GPU, not 0). Its fabric-load table read 0 GB/s
    and 0% beside an unbounded time to first token, as if the load stalled the fabric: the serving pool's
    instances (tp 2) sit inside one NVLink domain and aggregated has no KV-cache transfer, so it is 0 at any load;
    the caption now says so, where a pool reads 0 (the default disaggregated deployment's pools do not)."""
    from core.figures.serving import fabric_idle_note
    from core.units import number

    values = {**link.DEFAULTS, "mode": "aggregated", "load": "rate", "rate": 10_000.0}
    e = servingform.estimate_on(plan(Design()), values)
    assert e.overloaded and 0 < e.rate < 10_000 and e.output_tokens_per_s_per_gpu > 0
    at = open_page({"inf_mode": "aggregated", "inf_load": "rate", "inf_rate": "10000", "lang": lang})
    assert not at.exception
    shown = cards(at)
    with language(lang):
        expected = {k.label: k.value for k in serving_key_numbers(e)}
    assert shown.items() >= expected.items() and number(e.output_tokens_per_s_per_gpu) in shown.values()
    load = at.dataframe[1].value
    assert list(load.iloc[0, 1:3]) == ["0 GB/s", "0%"]
    assert any(idle in unescape(c.value) for c in at.caption)
    assert not fabric_idle_note(servingform.estimate_on(plan(Design()), link.DEFAULTS))  # 1.9 GB/s: no note


@pytest.mark.parametrize("lang, words", [("en", ("The cards above", "per output token", "6,153 requests/s")),
                                         ("zh", ("上方卡片", "每输出 token 时延", "每秒 6,153 个请求"))])
def test_the_comparison_says_why_this_designs_bar_is_not_the_cards_deployment(lang, words):
    """Dragonfly+ at 4,096 GPUs: the cards show 39.8 ms per output token on all 4,096 GPUs (the split that costs
    least per token at the largest rate within the targets), the chart's "this design" bar 43.4 ms on 3,864 of
    them (the fewest GPUs that serve that rate within the targets, another split), and nothing said why. Two
    answers to two questions: the sentence between the cards and the chart names both, the chart its rate."""
    params = {"v": "1", "t": "df", "ng": "4096"}
    design, _warnings = sharelink.decode(params)
    served = inference.serve(design, plan(design), dict(link.DEFAULTS))
    here, mine = served.here, served.mine[next(iter(served.mine))]
    assert here.gpus == 4096 and mine.gpus == 3864 and round(here.tpot_s * 1e3, 1) != round(mine.tpot_s * 1e3, 1)
    at = open_page({**params, "lang": lang})
    note = next(unescape(c.value) for c in at.caption if words[0] in unescape(c.value))
    for shown in (milliseconds(here.tpot_s), milliseconds(mine.tpot_s), "3,864", "4,096", *words[1:]):
        assert shown in note, (shown, note)
    layout = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]
    assert words[2] in json.dumps(layout["title"], ensure_ascii=False)
    default = inference.serve(Design(), plan(Design()), dict(link.DEFAULTS))  # one deployment: nothing to say
    assert compared_note(default.here, default.mine[next(iter(default.mine))], default.here.rate) == ""
