"""AppTest of the Designer's spares control (Cost & power tab, ``Design.spares``): toggling it on puts spare
rows in the BOM table, raises the capex card by the spares capex and writes ``sp`` into the link; the
Resilience page's spares section starts from the design's policy."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import i18n
from core.design import Design
from core.plan import plan

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CARD = re.compile(r'data-testid="stMetricLabel">(.*?)</div><div class="fp-value" data-testid="stMetricValue">(.*?)</div>')


def app(params: dict) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def cards(at) -> dict[str, str]:
    return {html.unescape(k): html.unescape(v) for m in at.markdown for k, v in CARD.findall(str(m.value))}


def bom(at):
    return next(d.value for d in at.dataframe if "why" in d.value.columns or "why (how the count was derived)"
                in d.value.columns or len(d.value.columns) > 8)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_toggle_spares_on_the_cost_tab(lang):
    at = app({"n": "32", "tab": "Cost & power", "lang": lang})
    assert not at.exception and not at.error
    off = plan(Design(nodes=32))
    on = plan(Design(nodes=32, spares="default"))
    spare_rows = sum(1 for r in on.bom if r.spare)
    with i18n.language(lang):  # AppTest formats select values with format_func in this thread
        capex_label = i18n._("Capex, whole cluster")
        marker = i18n._("{name} ({place}, spare)").format(name="", place="")[-3:-1]  # "re" / "备件"
        caption = i18n._("Capex includes {usd} of spares ({rows} BOM rows at the end of the bill of materials; "
                         "range {range}); the Resilience page shows how well they cover "
                         "failures.").split("{")[0]
        mode = at.selectbox(key="w_sp_mode")
        assert mode.value == "off"
        rows_before = len(bom(at))
        before = cards(at)
        assert at.session_state["fp_current"].plan.cost.capex_usd == off.cost.capex_usd
        mode.set_value("default").run()
        assert not at.exception and not at.error
        cur = at.session_state["fp_current"]
        assert cur.design.spares == "default"
        assert cur.plan.cost.capex_usd == pytest.approx(off.cost.capex_usd + on.cost.spares_capex_usd)
        table = bom(at)
        assert spare_rows > 0 and len(table) == rows_before + spare_rows
        where = table.columns[2]
        assert sum(1 for w in table[where] if str(w).endswith(marker)) == spare_rows
        after = cards(at)
        assert after[capex_label] != before[capex_label]
        assert after[capex_label] == cards(app({"n": "32", "sp": "default", "lang": lang}))[capex_label]
        assert any(caption in c.value for c in at.caption)
        assert at.query_params.get("sp") in ("default", ["default"])
        # custom: a rule per category; a bad one is refused with a message and the rule before it stays
        at.selectbox(key="w_sp_mode").set_value("custom").run()
        assert at.session_state["fp_current"].design.spares == "switch=N+1,transceiver=2%,cable=1%,NIC=1%"
        at.text_input(key="w_sp_switch").set_value("N+3").run()
        assert at.session_state["fp_current"].design.spares.startswith("switch=N+3,")
        at.text_input(key="w_sp_cable").set_value("<b>lots</b>").run()
        assert not at.exception and len(at.error) == 1 and "<b>" not in at.error[0].value
        assert "cable=1%" in at.session_state["fp_current"].design.spares
        at.selectbox(key="w_sp_mode").set_value("off").run()
        assert at.session_state["fp_current"].plan.cost.capex_usd == off.cost.capex_usd
        assert "sp" not in at.query_params


def test_link_opens_with_the_policy_in_the_fields():
    at = app({"n": "32", "tab": "Cost & power", "sp": "switch=N+2,NIC=3%"})
    assert not at.exception and not at.warning
    assert at.selectbox(key="w_sp_mode").value == "custom"
    assert at.text_input(key="w_sp_switch").value == "N+2" and at.text_input(key="w_sp_NIC").value == "3%"
    assert at.text_input(key="w_sp_transceiver").value == "2%"  # not named: the catalog's rule


def test_bad_link_value_is_a_warning():
    at = app({"n": "32", "sp": "switch=9000%"})
    assert not at.exception
    assert any("'sp'" in re.sub(r"\\(.)", r"\1", w.value) for w in at.warning)  # shown escaped (webui.safe)
    assert at.session_state["fp_current"].design.spares == "off"


def test_resilience_spares_start_from_the_designs_policy():
    from core.analysis.sparing import with_spares
    from tests.test_i18n import rerun

    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({"n": "64", "sp": "switch=N+3,transceiver=5%", "rs_tab": "Spares"})
    at.run()
    at.switch_page("../pages/6_Resilience.py")
    rerun(at)
    assert not at.exception, at.exception
    assert at.text_input(key="rs_w_sp_switch").value == "N+3"
    assert at.text_input(key="rs_w_sp_transceiver").value == "5%"
    assert at.text_input(key="rs_w_sp_cable").value == "1%"  # not named by the design: the catalog's
    p = plan(Design(nodes=64, spares="switch=N+3,transceiver=5%"))
    expect = with_spares(p, {"switch": "N+3", "transceiver": "5%", "cable": "1%", "NIC": "1%"})
    assert expect.capex_usd == pytest.approx(p.cost.capex_usd - p.cost.spares_capex_usd)
    shown = {html.unescape(k): html.unescape(v) for m in at.markdown for k, v in CARD.findall(str(m.value))}
    assert shown["Spares"] == i18n.usd(expect.spares_capex_usd) == i18n.usd(p.cost.spares_capex_usd)
    assert shown["Capex with spares"] == i18n.usd(p.cost.capex_usd)  # the Designer's capex, spares in
    assert any("Starting point: the design's sparing policy" in c.value for c in at.caption)
    at.text_input(key="rs_w_sp_switch").set_value("N+1")  # a rule changed here wins on this page
    rerun(at)
    frame = at.dataframe[0].value
    assert set(frame[frame["category"] == "switch"]["spares"]) == {1}
