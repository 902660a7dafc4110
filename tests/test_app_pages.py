"""AppTest of every page: defaults, a share link, a bad link, an infeasible design, every tab."""

import html
import json
import re
from pathlib import Path

import pytest

from core.figures.style import full_title
from streamlit.testing.v1 import AppTest

from core.formats import sharelink
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.plan import plan
from core.text import NO_BREAK
from webui import tablefit

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CATALOG_PAGE = "../pages/2_Catalog.py"
PERF_PAGE = Path(__file__).resolve().parent.parent / "pages" / "3_Performance.py"


def app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update(params or {})
    return at.run()


def shown(markdown: str) -> str:
    """What a reader sees of escaped markdown (webui.safe.md backslash-escapes punctuation and keeps amounts on one
    line with invisible joiners, core.text.unbroken)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(NO_BREAK, "")


CARD = re.compile(r'data-testid="stMetricLabel">(.*?)</div><div class="fp-value" data-testid="stMetricValue">(.*?)</div>')


def metrics(at) -> dict[str, str]:
    """Key numbers on screen: the Designer's HTML cards (core.figures.keynumbers.cards_html) and st.metric cards."""
    found = {html.unescape(k): html.unescape(v) for m in at.markdown for k, v in CARD.findall(str(m.value))}
    return {**found, **{m.label: m.value for m in at.metric}}


def charts(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def expected(design: Design, unit="GB/s") -> dict[str, str]:
    return {k.label: k.value for k in key_numbers(plan(design).summary(), unit)}


def test_defaults():
    at = app()
    assert not at.exception and not at.error and not at.warning
    assert at.title[0].value == "Fabric planner"
    assert metrics(at).items() >= expected(Design()).items()
    assert at.query_params == {"v": "1", "lang": "en"}
    specs = charts(at)
    assert len(specs) == 2  # topology and scale-up; other tabs are lazy
    assert "Scale-out fabric" in specs[0]["layout"]["title"]["text"]
    assert "Scale-up" in specs[1]["layout"]["title"]["text"]
    link = at.sidebar.code[0].value
    assert link.startswith("http") and "v=1" in link


def test_share_link_restores_every_control():
    design = Design(gpu="B300", nodes=300, fabric="ethernet", port_speed_gbps=400, switch="TH5", planes=2,
                    topology="top-of-rack", oversubscription=1.25, tiers=3, nics_per_node=4, nodes_per_rack=8,
                    cable_media="aoc", pue=1.25, electricity_usd_per_kwh=0.07, tco_years=4.0,
                    price_overrides={"TH5": 41000.0}, power_overrides={"CX8": 30.5})
    params = {**sharelink.encode(design), "ui_bw": "gbit", "lang": "en"}
    at = app(params)
    assert not at.exception and not at.error and not at.warning
    assert at.session_state["fp_current"].design == design
    assert dict(at.query_params) == params  # the URL is stable once restored
    assert metrics(at).items() >= expected(design, "Gb/s").items()
    assert at.selectbox(key="w_switch").value == "TH5" and at.toggle(key="w_bits").value is True
    at.switch_page(CATALOG_PAGE).run()  # every page keeps the design in the URL
    assert not at.exception and dict(at.query_params) == params


def test_bad_link_warns_names_the_parameter_and_keeps_working():
    at = app({"n": "lots", "g": "H999", "os": "0.2", "sw": "QM8700", "zz": "1", "t": "tor"})
    assert not at.exception
    text = shown(at.warning[0].value)
    for fragment in ("'n' (Nodes)", "whole number from 1", "'g' (GPU model)", "'os' (Oversubscription (leaf down:up))",
                     "from 0.25 to 16", "'sw' (Switch model)", "has no 400 Gb/s ports", "'zz' is unknown"):
        assert fragment in text
    assert at.session_state["fp_current"].design == Design(topology="top-of-rack")  # the rest applied
    assert dict(at.query_params) == {"v": "1", "t": "tor", "lang": "en"}  # bad values dropped from the URL
    assert metrics(at)["GPUs"] == "32"
    at.button(key="dismiss_warnings").click().run()
    assert not at.warning


def test_infeasible_design_shows_a_way_out():
    at = app({"n": "2000", "ti": "2"})
    assert not at.exception
    error = at.error[0].value
    assert "cannot be built" in error and "hold at most 256 nodes" in error and "What would work" in error
    assert not metrics(at)
    next(b for b in at.button if b.label == "Set tiers to auto").click().run()
    assert not at.error and metrics(at)["GPUs"] == "16,000"
    assert "ti" not in at.query_params


def test_slider_change_updates_numbers_and_url():
    at = app()
    at.select_slider(key="w_count").set_value(128).run()
    assert metrics(at)["GPUs"] == "1,024" and at.query_params["n"] == "128"
    at.selectbox(key="w_fabric").set_value("ethernet").run()
    assert at.query_params["f"] == "eth" and at.selectbox(key="w_switch").value == "auto"
    at.text_input(key="w_count_exact").input("127").run()
    assert at.query_params["n"] == "127" and metrics(at)["GPUs"] == "1,016"


def test_switch_options_fit_the_port_speed():
    at = app({"ps": "800"})
    options = at.selectbox(key="w_switch").options
    assert any("Q3400" in o for o in options) and not any("QM9700" in o for o in options)


@pytest.mark.parametrize("params", [
    {},
    {"f": "eth"},
    {"g": "A100"},
    {"g": "A100", "f": "eth"},
    {"g": "V100"},
    {"g": "H100", "ps": "100"},
    {"g": "H100", "f": "eth", "ps": "200"},
    {"g": "B300"},
    {"g": "B300", "f": "eth"},
    {"g": "GB200-NVL72", "n": "18"},
    {"g": "GB300-NVL72", "n": "18", "f": "eth"},
])
def test_auto_labels_name_what_the_plan_uses(params):
    at = app({"v": "1", **params})
    assert not at.exception
    resolved = at.session_state["fp_current"].plan.resolved
    switch_auto = at.selectbox(key="w_switch").options[0]
    assert switch_auto.startswith(f"auto ({resolved.switch.id}, {resolved.switch_ports} ports)"), switch_auto
    if "ps" not in params:
        assert at.selectbox(key="w_speed").options[0] == f"auto ({resolved.port_speed_gbps} Gb/s)"


def test_auto_switch_label_follows_a_fabric_change():
    at = app({"v": "1", "g": "B300"})
    at.selectbox(key="w_fabric").set_value("ethernet").run()
    resolved = at.session_state["fp_current"].plan.resolved
    assert resolved.fabric == "ethernet"
    assert at.selectbox(key="w_switch").options[0].startswith(f"auto ({resolved.switch.id},")
    assert resolved.switch.fabric == "ethernet"


def test_port_speeds_are_ones_the_engine_builds():
    at = app({"v": "1", "g": "B300", "f": "eth"})
    eth = at.selectbox(key="w_speed").options
    assert "800 Gb/s" not in eth and "400 Gb/s" in eth  # ConnectX-8 runs 2 x 400GbE on Ethernet
    at.selectbox(key="w_fabric").set_value("infiniband").run()
    assert "800 Gb/s" in at.selectbox(key="w_speed").options


def test_nvlink_generations_offered_are_the_systems_and_older():
    at = app({"v": "1", "g": "V100"})
    assert at.selectbox(key="w_nvl").options == ["auto (NVLink 2)", "NVLink 1 (Pascal (P100))",
                                                 "NVLink 2 (Volta (V100))"]
    at = app({"v": "1", "g": "GB200-NVL72", "n": "18"})
    options = at.selectbox(key="w_nvl").options
    assert len(options) == 6 and not any(o.startswith("NVLink 6") for o in options)
    assert "older generation" in at.selectbox(key="w_nvl").help


@pytest.mark.parametrize("tab,charts_expected", [("Bandwidth", 3), ("Cost & power", 4)])  # capex, power, networks, price sensitivity
def test_each_tab_renders(tab, charts_expected):
    at = app({"n": "128", "tab": tab})
    assert not at.exception
    specs = charts(at)
    assert len(specs) == charts_expected
    if tab == "Bandwidth":
        assert "oversubscription" in specs[2]["layout"]["title"]["text"]
        assert len(at.dataframe) == 1
    else:
        bom = at.dataframe[0].value
        assert "why" in bom.columns and bom["quantity"].sum() > 0
        assert list(bom.columns[:7]) == ["category", "item", "where", "quantity", "unit_price_usd",
                                         "extended_price_usd", "why"]
        xcvr = bom[bom["category"] == "transceiver"]
        assert len(set(zip(xcvr["item"], xcvr["where"]))) == len(xcvr)  # every row tells its end and class
        assert not any(("switch end" in i or "NIC end" in i) for i in bom["item"])
        config = json.loads(at.dataframe[0].proto.columns or "{}")  # quantity and prices in view at 1,024 px
        assert config["item"]["width"] == tablefit.BOM_PX["item"]  # webui.tablefit: item to total fit 1,024 px
        labels = [b.label for b in at.get("download_button")]
        assert labels == ["BOM as CSV", "BOM as XLSX", "Design as JSON"]


def test_topology_selection_highlights():
    at = app({"n": "128"})
    at.session_state["_fp_selected"] = (at.session_state["fp_current"].design.model_dump_json(), "p0.spine0",
                                        "spine 1")
    at.run()
    spec = charts(at)[0]
    assert any(t.get("name") == "selected links" for t in spec["data"])
    assert any("Highlighted" in c.value for c in at.caption)


def test_large_design_is_aggregated():
    at = app({"g": "B300", "n": "16384"})
    spec = charts(at)[0]
    assert "Aggregated view" in full_title(spec["layout"]["title"])
    assert metrics(at)["GPUs"] == "131,072"


def test_catalog_page():
    at = app({"n": "64"})
    at.switch_page(CATALOG_PAGE).run()
    assert not at.exception
    assert at.title[0].value == "Catalog & assumptions"
    assert len(at.dataframe) == 8  # the six catalog tables, the price book, the training calibration
    book = at.dataframe[6].value
    assert {"low_usd", "typical_usd", "high_usd", "price_basis", "price_source"} <= set(book.columns)
    # the one money format (core.i18n.usd), as in the BOM: "$329,580", not Streamlit's "$329,580.00"
    for column in ("low_usd", "typical_usd", "high_usd"):
        assert all(re.fullmatch(r"\$\d{1,3}(,\d{3})*|\$\d+(\.\d+)? [MB]", v) for v in book[column]), column

    def dollars(text):
        number, _, unit = text[1:].partition(" ")
        return float(number.replace(",", "")) * {"": 1, "M": 1e6, "B": 1e9}[unit]
    value = {c: [dollars(v) for v in book[c]] for c in ("low_usd", "typical_usd", "high_usd")}
    assert all(lo <= ty <= hi for lo, ty, hi in zip(value["low_usd"], value["typical_usd"], value["high_usd"]))
    # the second NVLink level's parts, which a GB200 bill of two levels prices, are in the price book (and counted)
    assert {"NVLINK5-SWITCH-TRAY", "NVLINK5-OSFP-MODULE", "NVLINK5-FIBER"} <= set(book["id"])
    assert len(book) == len(set(book["id"]))
    for frame in (d.value for d in at.dataframe[:6]):
        assert {"source", "as_of"} <= set(frame.columns)
    assert [e.label for e in at.expander][:2] == ["Fabric sizing (core/fabric/sizing.py)", "Bandwidth (core/fabric/bandwidth.py)"]
    assert any("bisection" in c.value.lower() for c in at.code)
    assert at.query_params["n"] == "64"


def test_catalog_page_bad_link():
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update({"n": "x"})
    at.switch_page(CATALOG_PAGE).run()
    assert not at.exception and "'n' (Nodes)" in shown(at.warning[0].value)


@pytest.mark.skipif(not PERF_PAGE.exists(), reason="no Performance page")
def test_performance_page_is_in_navigation_and_keeps_the_design():
    at = app({"n": "64"})
    at.switch_page("../pages/3_Performance.py").run()
    assert not at.exception and at.title[0].value == "Performance"
    assert at.query_params["n"] == "64"


@pytest.mark.skipif(not PERF_PAGE.exists(), reason="no Performance page")
def test_performance_page_warns_about_a_bad_link():
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update({"v": "1", "n": "lots", "sw": "XYZ"})
    at.run().switch_page("../pages/3_Performance.py").run()
    assert at.title[0].value == "Performance"
    assert not at.exception
    text = shown(at.warning[0].value)
    assert "'n' (Nodes)" in text and "'sw' (Switch model)" in text


@pytest.mark.skipif(not PERF_PAGE.exists(), reason="no Performance page")
@pytest.mark.parametrize("params,model,tp,pp,gbs", [
    # the split is the fastest that fits (core.perf.training.default_split), as python -m core train chooses it
    ({"n": "2"}, "qwen3-32b", 4, 2, 1024),  # 16 GPUs: 70B does not fit: the largest dense preset that does
    ({"g": "B300", "ng": "131072"}, "llama3-70b", 8, 16, 1024),  # dp 1,024
    ({"n": "128"}, "llama3-70b", 8, 1, 1024),
])
def test_performance_defaults_fit_the_design(params, model, tp, pp, gbs):
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({"v": "1", **params})
    at.run().switch_page("../pages/3_Performance.py").run()
    assert at.title[0].value == "Performance"
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert (at.selectbox(key="perf_w_model").value, at.number_input(key="perf_w_tp").value,
            at.number_input(key="perf_w_pp").value, at.number_input(key="perf_w_gbs").value) == (model, tp, pp, gbs)
    assert list(metrics(at))[:2] == ["Step time", "Tokens/s"]


@pytest.mark.skipif(not PERF_PAGE.exists(), reason="no Performance page")
def test_performance_defaults_refit_when_the_design_changes_but_user_values_stay():
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({"v": "1", "n": "128"})
    at.run().switch_page("../pages/3_Performance.py").run()
    at.number_input(key="perf_w_tp").set_value(4).run()
    at.text_input(key="w_count_exact").input("2").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.number_input(key="perf_w_tp").value == 4  # the user's choice
    assert at.number_input(key="perf_w_pp").value == 2  # refitted: the fastest split with tp 4 on 16 GPUs


def test_small_sidebar_details():
    at = app({"v": "1", "g": "GB200-NVL72", "n": "128", "px": "QM9700:30000"})
    assert not at.exception
    link = at.sidebar.code[0].value
    assert "/?" in link
    gpu = at.selectbox(key="w_gpu")
    assert max(len(o) for o in gpu.options) <= 26 and "GB200-NVL72 · 72 GPUs/rack" in gpu.options
    px = at.text_input(key="w_px")
    assert px.value == "QM9700:30000" and ":" in px.placeholder and "=" not in px.placeholder
    infos = [i.value for i in at.info]
    assert any("128 nodes rounded up to 144" in i for i in infos)  # the plan's rounding, visibly
    assert at.session_state["fp_current"].plan.resolved.nodes == 144


def test_no_icons_fetched_from_the_internet():
    root = Path(__file__).resolve().parent.parent
    for path in [root / "app.py", *(root / "pages").glob("*.py"), *(root / "webui").glob("*.py")]:
        assert ":material/" not in path.read_text(), path
