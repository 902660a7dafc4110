"""AppTest of the Sweep page (pages/5_Sweep.py) inside the app: a sweep link opens the chart and table with the
engine's numbers, controls change the sweep and the link, bad link values warn, a heatmap, both languages."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.design import Design
from core.plan import plan
from tests import pagetest
from tests.i18n_check import chinese_leaks, english_leaks
from tests.test_i18n import page_text, rerun, unescape

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
PAGE = "../pages/5_Sweep.py"


open_page = pagetest.opener(PAGE)  # the app opened from a link, then this page (tests/pagetest.py)


class _Main:
    """The main area of a page, for ``page_text``."""

    def __init__(self, at: AppTest):
        self._tree = at.main


def link(at: AppTest) -> dict:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in ((k, at.query_params[k]) for k in at.query_params)}


def table(at: AppTest):
    return at.dataframe[0].value


def test_default_sweep_of_the_sidebar_design():
    at = open_page({"n": "64"})
    frame = table(at)
    assert list(frame.iloc[:, 0]) == ["1", "1.5", "2", "3"]
    want = [plan(Design(gpu="H100", nodes=64, oversubscription=o)).summary()["cost"]["capex_per_gpu_usd"]
            for o in (1.0, 1.5, 2.0, 3.0)]
    got = [float(v.replace("$", "").replace(",", "")) for v in frame.iloc[:, 1]]
    assert got == pytest.approx(want, abs=0.51)
    assert len(at.get("plotly_chart")) == 1
    assert at.get("download_button")
    assert "/sweep?" in at.sidebar.code[0].value
    # the result names the sidebar design it is about
    assert any("512 x H100 in 64 nodes" in c.value for c in at.caption)


def test_link_opens_its_sweep_and_infeasible_points_say_why():
    at = open_page({"n": "64", "sw_x": "tiers", "sw_xv": "1,2,3", "sw_m": "switches_total"})
    frame = table(at)
    assert list(frame.iloc[:, 0]) == ["1", "2", "3"]
    assert frame.iloc[0, 1] == "-" and "tier" in frame.iloc[0, 2]
    assert frame.iloc[1, 1] == str(plan(Design(gpu="H100", nodes=64, tiers=2)).summary()["switches"]["total"])
    assert link(at)["sw_x"] == "tiers" and link(at)["sw_xv"] == "1,2,3"


def test_controls_change_the_sweep_and_the_link():
    at = open_page({"n": "64"})
    at.selectbox(key="sw_w_x").set_value("nodes")
    rerun(at)
    at.text_input(key="sw_w_xv").set_value("16, 32, 64")
    rerun(at)
    at.selectbox(key="sw_w_m").set_value("switches_total")
    rerun(at)
    assert not at.exception
    frame = table(at)
    assert list(frame.iloc[:, 0]) == ["16", "32", "64"]
    params = link(at)
    assert params["sw_x"] == "nodes" and params["sw_xv"] == "16,32,64" and params["sw_m"] == "switches_total"
    assert params["n"] == "64"  # the design stays


def test_bad_values_in_the_box_keep_the_last_good_sweep():
    at = open_page({"n": "64"})
    at.text_input(key="sw_w_xv").set_value("1, lots")
    rerun(at)
    assert at.error and "lots" in at.error[0].value
    assert len(table(at)) == 4


def test_heatmap_of_two_settings():
    at = open_page({"n": "64", "sw_x": "nodes", "sw_xv": "32,64", "sw_y": "fabric", "sw_m": "capex_usd"})
    chart = at.get("plotly_chart")[0]
    assert '"heatmap"' in chart.proto.spec
    assert len(table(at)) == 4


def test_bad_link_values_warn_escaped():
    at = open_page({"sw_x": "bogus", "sw_m": "[x](//evil.example)"})
    raw = " ".join(w.value for w in at.warning)
    texts = unescape(raw)
    assert "sw_x" in texts and "sw_m" in texts and "](//evil" in texts
    assert "](//evil" not in raw  # escaped: shown as typed, never a link
    assert len(table(at)) == 4  # the defaults still sweep


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_speaks_one_language(lang):
    at = open_page({"n": "64", "lang": lang, "sw_x": "tiers", "sw_xv": "1,2", "sw_y": "fabric"})
    text = page_text(_Main(at))  # this page's own text (the sidebar is checked by tests/test_i18n.py)
    assert len(text) > 300
    leaks = english_leaks(text) if lang == "zh" else chinese_leaks(text)
    assert not leaks, leaks[:20]


def test_job_metric_runs_the_performance_job():
    at = open_page({"n": "64", "sw_x": "fabric", "sw_m": "days_to_train"})
    frame = table(at)
    assert len(frame) == 2 and all(v != "-" for v in frame.iloc[:, 1])


@pytest.mark.parametrize("x", ["oversubscription", "nvlink_domain", "gpu"])
def test_the_chinese_caption_spaces_the_settings_name_only_beside_latin_letters(x):
    """The caption names the swept setting inside a Chinese sentence by ``core.i18n.embedded``: no space between
    it and a Chinese word ("其中叶层收敛比设为", was "其中 叶层收敛比 设为"), a space beside a Latin letter or digit."""
    from core.analysis import sweep as sw
    from core.i18n import embedded, language

    at = open_page({"n": "64", "lang": "zh", "sw_x": x})
    assert not at.exception
    with language("zh"):
        label = sw.setting_label(x)
        said = f"其中{embedded(label)}设为"
    (caption,) = [c.value for c in at.caption if c.value.startswith("每个点")]
    assert said in caption, caption
    assert re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", caption) is None, caption
