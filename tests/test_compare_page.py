"""AppTest of the Compare page (pages/4_Compare.py) inside the app: columns from a link, add / paste / duplicate /
edit / remove, the baseline, the whole comparison in the share link (and back), bad input, Chinese."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.formats import comparelink
from tests import pagetest
from tests.test_i18n import english_leaks, page_text, rerun

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
PAGE = "../pages/4_Compare.py"
TWO = {"c1_name": "IB", "c1_n": "64", "c2_name": "RoCE", "c2_n": "64", "c2_f": "eth"}


open_page = pagetest.opener(PAGE)  # the app opened from a link, then this page (tests/pagetest.py)


def columns(at: AppTest) -> list[str]:
    return [c for c in numbers(at).columns if c[:1].isdigit() and ". " in c and not c.endswith("baseline")]


def numbers(at: AppTest):
    return at.dataframe[0].value


def link(at: AppTest) -> dict:
    return {k: at.query_params[k] for k in at.query_params}


def flat(params: dict) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in params.items()}


def test_a_comparison_link_opens_every_design_with_deltas_charts_and_bom():
    at = open_page({"n": "16", **TWO})
    assert columns(at) == ["1. IB", "2. RoCE"]
    frame = numbers(at)
    assert "2. vs baseline" in frame.columns and "1. vs baseline" not in frame.columns
    assert len(at.get("plotly_chart")) == 3
    assert len(at.dataframe) == 2  # numbers and the BOM difference
    params = flat(link(at))
    assert {k: params[k] for k in TWO} == TWO and params["n"] == "16"  # the sidebar design stays too
    assert "c1_n=64" in at.sidebar.code[0].value and "/compare?" in at.sidebar.code[0].value


def test_starts_from_the_designer_design_and_adds_it_again():
    at = open_page({"n": "32"})
    assert columns(at) == ["1. Design 1"]
    at.button(key="cmp_w_add").click()
    rerun(at)
    assert columns(at) == ["1. Design 1", "2. Design 2"]
    assert flat(link(at))["c2_n"] == "32"


def test_paste_duplicate_edit_remove_and_baseline():
    at = open_page(TWO)
    at.text_input(key="cmp_w_paste").set_value("http://elsewhere/?v=1&n=128&f=eth&os=2")
    at.text_input(key="cmp_w_paste_name").set_value("RoCE 2:1 big")
    at.button(key="cmp_w_add_link").click()
    rerun(at)
    assert columns(at) == ["1. IB", "2. RoCE", "3. RoCE 2:1 big"]
    params = flat(link(at))
    assert params["c3_n"] == "128" and params["c3_os"] == "2" and params["c3_name"] == "RoCE 2:1 big"
    assert at.text_input(key="cmp_w_paste").value == ""

    at.button(key="cmp_w_dup_0").click()  # the first column's id is 0
    rerun(at)
    assert columns(at)[-1] == "4. IB (copy)"
    assert at.button(key="cmp_w_add").disabled and at.button(key="cmp_w_add_link").disabled  # four is the limit

    ident = 3  # the copy
    at.selectbox(key="cmp_w_edit").set_value(ident)
    rerun(at)
    at.text_area(key=f"cmp_w_link_{ident}").set_value("?n=64&os=2")
    at.button(key=f"cmp_w_apply_{ident}").click()
    rerun(at)
    assert flat(link(at))["c4_os"] == "2"
    over = next(r for _i, r in numbers(at).iterrows() if r["metric"] == "Bisection ratio (1:1 = non-blocking)")
    assert over["4. IB (copy)"] == "2:1" and over["1. IB"] == "1:1"

    at.selectbox(key="cmp_w_base").set_value(1)
    rerun(at)
    assert flat(link(at))["cmp_base"] == "2"
    assert "1. vs baseline" in numbers(at).columns and "2. vs baseline" not in numbers(at).columns

    at.button(key="cmp_w_rm_0").click()  # removing a column before the baseline keeps the same baseline design
    rerun(at)
    assert columns(at) == ["1. RoCE", "2. RoCE 2:1 big", "3. IB (copy)"]
    assert "cmp_base" not in link(at) and "c4_name" not in link(at)


def test_a_broken_pasted_link_is_an_escaped_error_and_the_text_stays():
    at = open_page(TWO)
    at.text_input(key="cmp_w_paste").set_value("<b>not a link</b>")
    at.button(key="cmp_w_add_link").click()
    rerun(at)
    assert at.error and "not a share link" in at.error[0].value and "<b>" not in at.error[0].value
    assert at.text_input(key="cmp_w_paste").value == "<b>not a link</b>"
    assert columns(at) == ["1. IB", "2. RoCE"]
    at.text_input(key="cmp_w_paste").set_value("?g=H999&n=8")  # a bad value inside: a warning, the rest applies
    at.button(key="cmp_w_add_link").click()
    rerun(at)
    assert any("H999" in w.value for w in at.warning) and len(columns(at)) == 3


def test_more_than_four_designs_in_a_link_warn_and_the_page_shows_four():
    params = {f"c{i}_n": str(8 * i) for i in range(1, 7)}
    at = open_page(params)
    assert len(columns(at)) == 4
    assert any("more than 4 designs" in w.value for w in at.warning)


def test_the_link_round_trips_to_identical_numbers():
    at = open_page({"n": "16", **TWO, "c2_os": "2", "cmp_base": "2", "cmp_sz": "16MiB,4GiB"})
    first = numbers(at)
    params = flat(link(at))
    assert comparelink.decode(params)[1] == []
    again = open_page(params)
    assert numbers(again).equals(first)
    assert flat(link(again)) == params


def test_chinese_page_speaks_chinese():
    at = open_page({**TWO, "lang": "zh"})
    text = page_text(at)
    assert "设计对比" in text and "相对基准" in text
    assert not english_leaks(text), english_leaks(text)[:20]


@pytest.mark.parametrize("bad", [{"c1_n": "banana", "c1_name": "x" * 300}, {"c2_ti": "1", "c2_n": "100000"},
                                 {"c1_name": "<script>alert(1)</script>", "cmp_sz": "nope", "cmp_base": "7"}])
def test_bad_links_never_crash(bad):
    at = open_page(bad)
    assert not at.exception and at.dataframe


def test_a_column_shows_what_the_performance_page_shows_for_its_design():
    at = open_page({**TWO, "perf_tok": "2"})
    days = next(r for _i, r in numbers(at).iterrows() if r["metric"] == "Days to train")["2. RoCE"]
    perf = AppTest.from_file(ENTRY, default_timeout=90)
    perf.query_params.update({"n": "64", "f": "eth", "perf_tok": "2"})
    perf.run()
    perf.switch_page("../pages/3_Performance.py")
    rerun(perf)
    card = next(str(m.value) for m in perf.markdown if 'data-key="days"' in str(m.value))
    assert f">{float(days.replace(',', '')):,.1f}<" in card


def test_a_columns_quick_controls_edit_its_design():
    at = open_page(TWO)
    at.selectbox(key="cmp_w_fabric_0").set_value("ethernet")
    rerun(at)
    assert flat(link(at))["c1_f"] == "eth"
    at.selectbox(key="cmp_w_edit").set_value(1)
    rerun(at)
    at.number_input(key="cmp_w_nodes_1").set_value(128)
    rerun(at)
    assert flat(link(at))["c2_n"] == "128"
    at.select_slider(key="cmp_w_oversubscription_1").set_value(2.0)
    rerun(at)
    assert flat(link(at))["c2_os"] == "2"
    gpus = next(r for _i, r in numbers(at).iterrows() if r["metric"] == "GPUs")
    assert gpus["2. RoCE"] == "1,024" and gpus["1. IB"] == "512"


def test_pasting_a_comparison_link_adds_all_its_designs_or_none():
    at = open_page(TWO)
    pasted = "http://x/compare?v=1&n=8&c1_name=A&c1_n=16&c2_name=B&c2_n=32&c2_f=eth"
    at.text_input(key="cmp_w_paste").set_value(pasted)
    at.button(key="cmp_w_add_link").click()
    rerun(at)
    assert columns(at) == ["1. IB", "2. RoCE", "3. A", "4. B"]
    at.button(key="cmp_w_rm_3").click()
    rerun(at)
    at.text_input(key="cmp_w_paste").set_value(pasted)  # two designs, room for one: refused, the text kept
    at.button(key="cmp_w_add_link").click()
    rerun(at)
    assert at.error and "room for 1" in at.error[0].value
    assert at.text_input(key="cmp_w_paste").value == pasted and len(columns(at)) == 3


def test_link_warnings_can_be_dismissed():
    at = open_page({**TWO, "c2_n": "banana"})
    assert any("banana" in w.value for w in at.warning)
    at.button(key="cmp_w_dismiss").click()
    rerun(at)
    assert not any("banana" in w.value for w in at.warning) and len(columns(at)) == 2


def test_switching_language_keeps_the_comparison():
    at = open_page({**TWO, "cmp_base": "2"})
    at.selectbox(key="cmp_w_edit").set_value(1)
    rerun(at)
    before = flat(link(at))
    at.session_state["w_lang"] = "zh"
    rerun(at)
    assert not at.exception
    after = flat(link(at))
    assert after.pop("lang") == "zh" and before.pop("lang") == "en"
    assert after == before
    assert "2. RoCE" in numbers(at).columns and "1. 相对基准" in numbers(at).columns


# --- the Compare page's own sidebar (the Designer's controls are not drawn here) ------------------------
DESIGNER_PAGE = "../pages/1_Designer.py"
SIDEBAR_LINKS = [
    {"ng": "1000"},  # a GPU count: the sidebar keeps nodes (n=125)
    {"f": "ib", "gpn": "8", "n": "16"},  # the system's own fabric and GPUs per node: left out by the sidebar
    {"g": "GB200-NVL72", "n": "290", "f": "eth", "os": "2", "ti": "3"},
    {"n": "64", "px": "QM9700:30000", "rp": "air-15", "rkw": "20", "st": "eth", "mg": "off", "ui_bw": "gbit",
     "pb": "list", "cm": "optics", "sos": "2", "sp": "default"},
    {"n": "4", "ti": "1", "sw": "QM9700", "t": "tor", "npr": "72"},  # cannot be built
    {"n": "banana", "g": "H999"},  # warnings, the defaults apply
]


def design_keys(params: dict) -> dict:
    """The Designer design's keys of a link (the comparison's own keys and the language left out)."""
    return {k: v for k, v in flat(params).items() if not comparelink.prefix_of(k) and k != "lang"}


@pytest.mark.parametrize("params", SIDEBAR_LINKS, ids=lambda p: "&".join(f"{k}={v}" for k, v in p.items()))
def test_a_link_opened_on_compare_holds_the_design_the_full_sidebar_builds(params):
    """A session that starts on the Compare page has no full sidebar run yet: its design (the share link's design
    keys, and the first column, which starts from it) is the one the Designer's sidebar builds from the same link."""
    designer = AppTest.from_file(ENTRY, default_timeout=90)
    designer.query_params.update(params)
    designer.run()
    assert not designer.exception, designer.exception
    wanted = design_keys(link(designer))
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()  # AppTest finds a page by its url_path only after a first run ...
    del at.session_state["fp_current"]  # ... so the Compare page runs as a session's first run does: no sidebar yet
    at.switch_page(PAGE)
    rerun(at)
    assert not at.exception, at.exception
    assert design_keys(link(at)) == wanted
    first = {k[3:]: v for k, v in flat(link(at)).items() if k.startswith("c1_") and k != "c1_name"}
    assert first == {k: v for k, v in wanted.items() if k not in ("v", "ui_bw")}
    assert [w.key for w in at.sidebar if getattr(w, "key", None)] == ["w_lang", "w_bits", "w_cur"]  # language, bandwidth unit, currency; no design control here


def test_the_designer_controls_survive_a_visit_to_the_compare_page():
    params = {"g": "H200", "n": "96", "os": "2", "nvl": "3", "px": "QM9700:30000", "rp": "air-15", "st": "eth",
              "mg": "off", "pue": "1.3", "ui_bw": "gbit"}
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()
    at.select_slider(key="w_count").set_value(128)  # a change made in the Designer's sidebar
    rerun(at)
    at.selectbox(key="w_topology").set_value("top-of-rack")
    rerun(at)
    controls = {k: at.session_state[k] for k in at.session_state if k.startswith("w_")}
    designer_link = design_keys(link(at))
    assert designer_link["n"] == "128" and designer_link["t"] == "tor"
    at.switch_page(PAGE)
    rerun(at)
    assert design_keys(link(at)) == designer_link  # the share link on the Compare page holds the same design
    assert "128 nodes" in " ".join(c.value for c in at.sidebar.caption)
    at.button(key="cmp_w_add").click()  # adds the Designer's design as it was left
    rerun(at)
    assert {k[3:]: v for k, v in flat(link(at)).items() if k.startswith("c2_") and k != "c2_name"} == {
        k: v for k, v in designer_link.items() if k not in ("v", "ui_bw")}
    at.selectbox(key="cmp_w_base").set_value(1)
    rerun(at)
    at.switch_page(DESIGNER_PAGE)
    rerun(at)
    assert not at.exception, at.exception
    assert {k: at.session_state[k] for k in controls} == controls
    assert design_keys(link(at)) == designer_link


def snapshot(at: AppTest) -> list[bytes]:
    """The numbers table, the BOM difference and the charts as the messages the browser gets."""
    return [node.proto.SerializeToString() for node in (*at.dataframe, *at.get("plotly_chart"))]


def test_replayed_tables_and_charts_are_the_drawn_ones(monkeypatch):
    """The tables and charts come from a cached function that Streamlit replays: a return to a baseline already
    shown sends the same messages as drawing them, without building the table again."""
    from core.figures import compare as figs
    from webui import compare_page

    compare_page._results.clear()
    built = []
    rows = figs.comparison_rows
    monkeypatch.setattr(figs, "comparison_rows", lambda result, *unit: built.append(1) or rows(result, *unit))
    at = open_page({**TWO, "c3_name": "2:1", "c3_n": "64", "c3_os": "2"})
    drawn = snapshot(at)
    assert len(built) == 1 and len(drawn) == 5  # numbers, BOM difference, three charts
    at.selectbox(key="cmp_w_base").set_value(2)
    rerun(at)
    assert len(built) == 2 and snapshot(at) != drawn  # another baseline: other deltas
    at.selectbox(key="cmp_w_base").set_value(0)
    rerun(at)
    assert len(built) == 2  # replayed, not built
    assert snapshot(at) == drawn


@pytest.mark.parametrize("lang, level2, alone", [("en", "and the compute fabric and NVLink level 2 (the scale-out",
                                                  "the compute fabric alone"),
                                                 ("zh", "和计算网络及第二级 NVLink（横向扩展网络", "和仅计算网络")])
def test_the_capex_caption_names_the_fabric_row_as_the_row_does(lang, level2, alone):
    """The caption's compute fabric scope is the row's (``compare.level2_in``): a GB200 design with two NVLink
    levels has the second level's parts in it, and the caption says so, not "the compute fabric alone"."""
    gb200 = {"c1_name": "GB", "c1_g": "GB200-NVL72", "c1_n": "144", "c1_nvd": "144", "lang": lang}
    captions = " ".join(str(c.value) for c in open_page(gb200).caption)
    assert level2 in captions and alone not in captions
    captions = " ".join(str(c.value) for c in open_page({**TWO, "lang": lang}).caption)
    assert alone in captions and level2 not in captions


def test_every_numbers_column_is_as_wide_as_its_widest_cell():
    """The grid sized the metric and group columns by their first rows (GPUs, Design), which cut the longer labels
    further down ("Capex, compute fabric and NVLink level", "Inference deployme"); each column is now as wide as
    its widest cell (``webui.tables.fitting_width``), the group and metric pinned."""
    import json

    from webui import tables

    at = open_page({"c1_name": "IB", "c1_n": "4", "c2_name": "GB200", "c2_g": "GB200-NVL72", "c2_n": "144",
                    "c2_nvd": "144"})
    frame, config = numbers(at), json.loads(at.dataframe[0].proto.columns or "{}")
    for column in frame.columns:
        assert config[column]["width"] >= min(tables.MAX_FIT_PX, tables.fitting_width(frame[column].tolist(), column))
    group, metric = frame.columns[:2]
    assert config[group]["pinned"] and config[metric]["pinned"]
    assert any("NVLink level 2" in label for label in frame[metric])  # the long label this was cut at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bandwidth_chart_takes_the_whole_width(lang):
    """The bandwidth chart draws a bar group per metric, a design with pods one per pod: in half the page its
    names turned upright in Chinese at 1,024 px and slanted at 1,280 px (four groups of a design with pods). It
    is drawn across the page; cost and days, a bar per design each, share a row."""
    import json

    from core.figures.style import RAW_TITLE
    from core.i18n import _, in_currency, language

    at = open_page({"v": "1", "n": "64", "pods": "B300:32:800", "lang": lang})

    def titles(charts):
        return [json.loads(c.proto.spec)["layout"]["meta"][RAW_TITLE] for c in charts]

    with language(lang):
        bandwidth = _("Bandwidth per GPU, per design [{unit}, one direction]").format(unit="GB/s")
        halves = {in_currency(_("Capex by category, per design [USD, estimates]")),
                  _("Days to train the job, per design")}
    drawn = titles(at.get("plotly_chart"))
    in_columns = [t for column in at.columns for t in titles(column.get("plotly_chart"))]
    assert bandwidth in drawn and bandwidth not in in_columns, drawn
    assert set(in_columns) == halves, in_columns
