"""Every page on a Dragonfly+ design (AppTest): the Designer's tabs draw the groups and their global links, the
other pages work on the sidebar's design; the Resilience page fails its elements on its graph, and its other
sections say their closed forms do not model it."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.pagetest import ENTRY, open_page

LINK = {"n": "256", "t": "df", "sw": "QM9700", "dfg": "16"}


def _designer(tab: str, lang: str = "en") -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({**LINK, "tab": tab, "lang": lang})
    return at.run()


@pytest.mark.parametrize("lang, arcs", [("en", "Global links between groups"), ("zh", "组间全局链路")])
def test_topology_tab_draws_the_global_links_as_arcs(lang, arcs):
    at = _designer("Topology", lang)
    assert not at.exception and not at.error
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    global_traces = [t for t in spec["data"] if t.get("name") == arcs]
    assert len(global_traces) == 6  # 4 groups: a bundle between every pair
    assert [t.get("showlegend") for t in global_traces].count(True) == 1  # one legend entry stands for them
    assert "Dragonfly+" in spec["layout"]["title"]["text"]


@pytest.mark.parametrize("tab", ["Bandwidth", "Cost & power", "Racks & cabling", "Hand-off"])
def test_designer_tabs_work(tab):
    at = _designer(tab)
    assert not at.exception and not at.error


@pytest.mark.parametrize("page", ["../pages/3_Performance.py", "../pages/4_Compare.py", "../pages/5_Sweep.py",
                                  "../pages/7_Optimize.py", "../pages/8_Inference.py"])
def test_other_pages_work_on_the_sidebars_dragonfly(page):
    at = open_page(page, LINK, timeout=180)
    assert not at.error


def test_resilience_page_fails_elements_of_a_dragonfly_and_spares_its_bill():
    at = open_page("../pages/6_Resilience.py", {**LINK, "rs_fail": "global:3,p0.spine0"}, timeout=180)
    assert not at.error
    assert at.selectbox(key="rs_w_tier").options == ["leaf", "spine", "plane", "NIC", "link bundle",
                                                     "global link bundle"]
    assert [m.label for m in at.metric][:3] == ["GPUs cut off", "GPUs degraded", "Bisection (1 dir)"]
    assert at.metric[0].value == "0"
    assert at.multiselect(key="rs_w_failed").value == ["global:3", "p0.spine0"]
    stages = at.dataframe[1].value
    assert "global links" in list(stages.iloc[:, 0])
    assert any("maximum flow" in str(c.value) and "closed form over the topology's groups" in str(c.value)
               for c in at.caption)
    spares = open_page("../pages/6_Resilience.py", {**LINK, "rs_tab": "Spares"}, timeout=180)  # its bill's rows
    assert not spares.error and not spares.info and spares.dataframe


def test_resilience_page_of_a_dragonfly_has_its_single_points_availability_and_link_load():
    spof = open_page("../pages/6_Resilience.py", {**LINK, "rs_tab": "Single points of failure"}, timeout=180)
    assert not spof.error and not spof.info
    assert any("global link bundle" in str(c.value) and "bisection" in str(c.value) for c in spof.caption)
    avail = open_page("../pages/6_Resilience.py", {**LINK, "rs_tab": "Availability"}, timeout=180)
    assert not avail.error and not avail.info and avail.metric
    load = open_page("../pages/6_Resilience.py", {**LINK, "rs_tab": "Overload & imbalance", "rs_gr": "valiant"},
                     timeout=180)
    assert not load.error
    assert load.radio(key="rs_w_gr").value == "valiant"
    tiers = list(load.dataframe[0].value.iloc[:, 0])
    assert "global up" in tiers and "global down" in tiers
    assert any("Valiant routing" in str(i.value) for i in load.info)


def test_resilience_page_drops_a_clos_name_from_a_dragonfly_link():
    at = open_page("../pages/6_Resilience.py", {**LINK, "rs_fail": "rack3,p0.spine0"}, timeout=180)
    assert at.multiselect(key="rs_w_failed").value == ["p0.spine0"]
    assert any("rack3" in str(w.value) for w in at.warning)


def test_resilience_page_of_a_dragonfly_speaks_chinese():
    from tests.i18n_check import english_leaks
    from tests.test_i18n import page_text

    at = open_page("../pages/6_Resilience.py", {**LINK, "lang": "zh", "rs_fail": "global:3,p0.spine0"}, timeout=180)
    assert not at.error
    text = page_text(at)
    assert "全局链路" in text and "最大流" in text
    assert not english_leaks(text), english_leaks(text)[:20]


def test_resilience_page_fails_elements_of_a_dragonfly_of_131072_gpus():
    """The what-if runs in closed form over the groups at any size (the graph what-if stopped at 65,536 GPUs)."""
    at = open_page("../pages/6_Resilience.py", {"n": "16384", "t": "df", "rs_fail": "global:1,p0.spine0"},
                   timeout=300)
    assert not at.error
    assert at.metric[0].value == "0"
    assert at.multiselect(key="rs_w_failed").value == ["global:1", "p0.spine0"]
