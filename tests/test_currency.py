"""The display currency: one money format in USD, CNY and EUR (core.i18n.usd in a money_context), the link's
ui_cur / ui_fx, the CLI's --currency / --fx-rate, XLSX money cells, and the Designer's cards following the
sidebar's currency switch."""

from __future__ import annotations

import contextlib
import html
import io
import json
import math
import re
from pathlib import Path

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from conftest import run_cli
from core import i18n, units
from core.design import Design
from core.formats import uilink, xlsx
from core.plan import plan
from webui import state

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CODES = ("USD", "CNY", "EUR")


def as_currency(text: str, code: str) -> str:
    """A US-dollar text of ``usd`` with the currency's symbol / Chinese unit instead of the dollar's."""
    entry = i18n.currencies()[code]
    return text.replace("$", entry["symbol"]).replace("美元", entry["zh_unit"])


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("code", CODES)
@settings(max_examples=60, deadline=None)
@given(value=st.one_of(st.floats(-5e12, 5e12, allow_nan=False), st.integers(-10**12, 10**12).map(float)),
       rate=st.floats(0.4, 15.0), options=st.sampled_from([{}, {"signed": True}, {"exact": True}, {"trim": True},
                                                           {"cents": True}]))
def test_a_rate_scales_the_amount_and_the_currency_names_itself(language, code, value, rate, options):
    """Property: at rate r, ``usd(v)`` writes what ``usd(v * r)`` writes in dollars, in the currency's words."""
    entry = i18n.currencies()[code]
    rate = min(max(rate, entry["low"]), entry["high"])
    with i18n.language(language):
        dollars = i18n.usd(value * rate, **options)
        with i18n.money_context(code, rate):
            assert i18n.usd(value, **options) == as_currency(dollars, code)


@pytest.mark.parametrize("code, language, value, text", [
    ("USD", "en", 49_983, "$49,983"), ("USD", "en", 8.53e6, "$8.53 M"), ("USD", "zh", 4.998e4, "4.998万美元"),
    ("CNY", "en", 1e6 / 7.1072 * 1.23, "CN¥1.23 M"), ("CNY", "zh", 4.998e4 / 7.1072, "4.998万元"),
    ("CNY", "zh", 1.1e9 / 7.1072, "11亿元"), ("EUR", "en", 8.53e6 / 0.85496, "€8.53 M"),
    ("EUR", "zh", 4.998e4 / 0.85496, "4.998万欧元"), ("EUR", "en", 0.2 / 0.85496, "€0.20"),
])
def test_each_currency_at_its_published_rate(code, language, value, text):
    cents = value < 1
    with i18n.language(language), i18n.money_context(code):
        assert i18n.usd(value, cents=cents) == text


def test_the_rate_is_stated_with_its_date_and_source():
    with i18n.money_context("CNY"):
        note = i18n.money_note()
        assert "1 USD = 7.1072 CNY" in note and "2025-09-01" in note and "CFETS" in note
    with i18n.money_context("EUR", 0.9):
        assert "1 USD = 0.9 EUR" in i18n.money_note() and "set by the user" in i18n.money_note()
    assert "US dollars" in i18n.money_note()


@pytest.mark.parametrize("code, rate", [("XYZ", None), ("CNY", 0.0), ("CNY", -7.0), ("CNY", math.nan),
                                        ("CNY", math.inf), ("CNY", 1e9), ("EUR", 7.1), ("USD", 7.1)])
def test_unknown_currencies_and_insane_rates_are_refused(code, rate):
    with pytest.raises(ValueError):
        i18n.check_rate(code, rate)
    with pytest.raises(ValueError):
        i18n.set_currency(code, rate)


def test_the_locale_key_carries_the_currency_into_a_cache_or_a_worker():
    with i18n.language("zh"), i18n.money_context("EUR", 0.9):
        key, text = i18n.locale(), i18n.usd(1e6)
    assert key == "zh@EUR=0.9" and i18n.currency() == "USD"
    with i18n.language(key):
        assert i18n.usd(1e6) == text and i18n.current() == "zh"
    assert i18n.locale() == "en" and i18n.usd(1e6) == "$1.00 M"


def test_labels_name_the_shown_currency():
    assert i18n.in_currency("Capex [USD]") == "Capex [USD]"
    with i18n.money_context("CNY"):
        assert i18n.in_currency("Capex [USD]") == "Capex [CNY]"
        assert i18n.in_currency("资本支出 [美元]") == "资本支出 [元]"
        assert i18n.in_currency("USDT") == "USDT"  # a whole word only


@pytest.mark.parametrize("code", ["CNY", "EUR"])
def test_axis_ticks_are_round_in_the_shown_currency(code):
    with i18n.money_context(code):
        axis = units.money_axis(2.5e7)
        rate = i18n.fx_rate()
        shown = [tick * rate for tick in axis["tickvals"]]
        assert shown == pytest.approx(units.money_ticks(2.5e7 * rate))
        assert all(i18n.currencies()[code]["symbol"] in text for text in axis["ticktext"])
        assert all(re.fullmatch(r"\D*\d+( M)?", text) for text in axis["ticktext"])  # round: no decimals


# --- the link -----------------------------------------------------------------------------------
@pytest.mark.parametrize("code, rate", [("USD", None), ("CNY", None), ("CNY", 7.25), ("EUR", 0.91234)])
def test_link_round_trip(code, rate):
    with i18n.money_context(code, rate):
        params = state.UI.encode(uilink.money_link_values())
        expected = (code, i18n.fx_rate())
    assert ("ui_fx" in params) == (rate is not None) and ("ui_cur" in params) == (code != "USD")
    assert state.money_from_link(params) == (expected, [])
    assert not state.UI.decode(params)[1]


@pytest.mark.parametrize("params, expected", [
    ({"ui_cur": "XYZ"}, ("USD", 1.0)), ({"ui_cur": "XYZ", "ui_fx": "7.2"}, ("USD", 1.0)),
    ({"ui_cur": "CNY", "ui_fx": "abc"}, ("CNY", 7.1072)), ({"ui_cur": "CNY", "ui_fx": "-7"}, ("CNY", 7.1072)),
    ({"ui_cur": "CNY", "ui_fx": "nan"}, ("CNY", 7.1072)), ({"ui_cur": "CNY", "ui_fx": "inf"}, ("CNY", 7.1072)),
    ({"ui_cur": "CNY", "ui_fx": "700"}, ("CNY", 7.1072)), ({"ui_cur": "EUR", "ui_fx": "7.1"}, ("EUR", 0.85496)),
    ({"ui_fx": "7.1"}, ("USD", 1.0)),
])
def test_a_bad_currency_or_rate_in_a_link_is_one_warning_and_the_default(params, expected):
    money, own = state.money_from_link(params)
    warnings = state.UI.decode(params)[1] + own
    assert money == expected
    assert len(warnings) == 1, warnings
    assert "ui_cur" in warnings[0] or "ui_fx" in warnings[0]


# --- the CLI ------------------------------------------------------------------------------------
def test_cli_currency_option(capsys):
    code, dollars, _err = run_cli(capsys, "plan", "--nodes", "64")
    assert code == 0 and "$" in dollars and "CN¥" not in dollars
    code, yuan, _err = run_cli(capsys, "plan", "--nodes", "64", "--currency", "cny", "--fx-rate", "7")
    assert code == 0 and "CN¥" in yuan and "$" not in yuan and "1 USD = 7 CNY" in yuan
    code, machine, _err = run_cli(capsys, "plan", "--nodes", "64", "--format", "json")
    capex_usd = json.loads(machine)["cost"]["capex_usd"]
    with i18n.money_context("CNY", 7.0):  # the same amount, times the rate, in the headline's compact money
        assert f"capex {i18n.usd(capex_usd)}" in yuan and i18n.usd(capex_usd).startswith("CN¥")
    code, euros, _err = run_cli(capsys, "--lang", "zh", "--currency", "EUR", "plan", "--nodes", "64")
    assert code == 0 and "欧元" in euros and "美元" not in euros and "2025-09-01" in euros
    code, machine, _err = run_cli(capsys, "plan", "--nodes", "64", "--currency", "CNY", "--format", "json")
    assert code == 0 and "CN¥" not in machine  # json stays in USD, as its *_usd keys say


@pytest.mark.parametrize("argv", [["--currency", "XYZ"], ["--currency", "CNY", "--fx-rate", "100"],
                                  ["--fx-rate", "7"], ["--currency", "EUR", "--fx-rate", "nan"]])
def test_cli_refuses_a_bad_currency_or_rate(capsys, argv):
    code, out, err = run_cli(capsys, "plan", "--nodes", "64", *argv)
    assert code == 2 and not out and err.count("\n") == 1


# --- XLSX ---------------------------------------------------------------------------------------
def test_xlsx_money_cells_in_cny():
    p = plan(Design(nodes=64))
    dollars = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
    with i18n.language("zh"), i18n.money_context("CNY", 7.0):
        money_format = units.excel_money_format()
        yuan = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
    assert "元" in money_format and "美元" not in money_format
    money_cells = 0
    for before, after in zip(dollars.worksheets, yuan.worksheets):
        for row_before, row_after in zip(before.iter_rows(), after.iter_rows()):
            for cell, converted in zip(row_before, row_after):
                if converted.number_format == money_format:
                    money_cells += 1
                    assert converted.value == pytest.approx(cell.value * 7.0)
                elif isinstance(cell.value, (int, float)):
                    assert converted.value == cell.value
    assert money_cells > 20
    summary = yuan.worksheets[0]
    assert "CNY" in summary["B5"].value and "7" in summary["B5"].value
    headers = [c.value for c in yuan.worksheets[1][1]]
    # Chinese money labels name the currency in Chinese as the amounts do ([美元] -> [元]; the glossary's term)
    assert any("[元]" in str(h) for h in headers) and not any("USD" in str(h) or "美元" in str(h) for h in headers)


# --- the Designer -------------------------------------------------------------------------------
CARD = re.compile(r'data-testid="stMetricValue">(.*?)</div>')


def _cards(at) -> str:
    return " ".join(v for m in at.markdown for v in CARD.findall(str(m.value)))


def test_switching_the_currency_changes_the_designer_cards_and_the_link():
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.run()
    assert "$" in _cards(at) and "CN¥" not in _cards(at)
    at.selectbox(key=state.CURRENCY_WIDGET).set_value("CNY").run()
    assert not at.exception
    assert "CN¥" in _cards(at) and "$" not in _cards(at)
    assert at.query_params["ui_cur"] == "CNY" and "ui_fx" not in at.query_params
    at.number_input(key=state.RATE_WIDGET).set_value(7.5).run()
    assert at.query_params["ui_fx"] == "7.5"
    assert any("set by the user" in c.value for c in at.sidebar.caption)


def test_a_link_with_a_currency_opens_in_it_and_a_bad_one_warns_once():
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update({"ui_cur": "EUR"})
    at.run()
    assert "€" in _cards(at) and not at.warning
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update({"ui_cur": "GBP"})
    at.run()
    assert "$" in _cards(at) and len(at.warning) == 1
    assert "'ui_cur' (currency) = 'GBP'" in re.sub(r"\\(.)", r"\1", at.warning[0].value)  # markdown unescaped


# --- the other pages ----------------------------------------------------------------------------
def test_sweep_page_money_in_the_linked_currency():
    from tests import pagetest

    at = pagetest.open_page("../pages/5_Sweep.py", {"n": "64", "ui_cur": "CNY", "ui_fx": "7"})
    frame = at.dataframe[0].value
    want = [plan(Design(gpu="H100", nodes=64, oversubscription=o)).summary()["cost"]["capex_per_gpu_usd"] * 7
            for o in (1.0, 1.5, 2.0, 3.0)]
    got = [float(v.replace("CN¥", "").replace(",", "")) for v in frame.iloc[:, 1]]
    assert got == pytest.approx(want, abs=0.51)
    assert "[CNY]" in " ".join(map(str, frame.columns))
    spec = json.dumps(json.loads(at.get("plotly_chart")[0].proto.spec), ensure_ascii=False)
    assert "CN¥" in spec and not re.search(r"\$\d", spec)  # ticks and hovers


def test_inference_page_cost_per_million_tokens_in_the_linked_currency():
    from tests import pagetest

    at = pagetest.open_page("../pages/8_Inference.py", {"v": "1", "ui_cur": "EUR"})
    cards = " ".join(str(m.value) for m in at.markdown)
    assert re.search(r"Cost per million output tokens</div>.*?stMetricValue\">€\d+\.\d\d<", cards)


def test_optimize_front_and_axes_in_the_shown_currency():
    from core.analysis.optimize import Constraints, Grid, optimize
    from core.figures.optimize import capex_title, front_rows, metric_title, pareto_figure

    result = optimize("H100", 64, Constraints(max_oversubscription=1.5),
                      Grid(oversubscription=(1.0,), planes=(1,), plane_modes=("per-port",)), workers=1)
    with i18n.money_context("CNY", 7.0):
        rows = front_rows(result)
        figure = pareto_figure(result)
        assert capex_title(result.objective).endswith("[CNY]")
        assert metric_title("usd_per_mtok") == "Cost per million output tokens [CNY]"
    assert rows and all(r["capex"].startswith("CN¥") for r in rows)
    assert all(text.startswith("CN¥") for text in figure.layout.xaxis.ticktext)
    assert all(point[2].startswith("CN¥") for trace in figure.data for point in trace.customdata)


def test_optimize_front_axis_title_brackets_its_estimate_as_each_language_writes_them():
    from core.analysis.optimize import Constraints, Grid, optimize
    from core.figures.optimize import capex_title, pareto_figure

    result = optimize("H100", 64, Constraints(max_oversubscription=1.5),
                      Grid(oversubscription=(1.0,), planes=(1,), plane_modes=("per-port",)), workers=1)
    assert pareto_figure(result).layout.xaxis.title.text == capex_title(result.objective) + " (estimates)"
    with i18n.language("zh"):  # a full-width bracket takes no space before it
        title = pareto_figure(result).layout.xaxis.title.text
        assert title == capex_title(result.objective) + "（估算）" and " （" not in title


def test_optimize_money_boxes_speak_the_currency_and_the_link_keeps_dollars():
    from tests import pagetest

    # one switch model: a small search (18,120 candidates and 20 s of CPU with every model); what is tested is the
    # money boxes and the link, which do not depend on the search's size
    at = pagetest.open_page("../pages/7_Optimize.py", {"ng": "64", "opt_usd": "1000000", "ui_cur": "CNY",
                                                       "ui_fx": "7", "opt_sw": "QM9700"})
    box = next(b for b in at.number_input if b.label.startswith("Budget"))
    assert box.label == "Budget, whole cluster [CNY]" and box.value == 7_000_000
    limit = next(b for b in at.number_input if b.label.startswith("Max. cost per million"))
    assert limit.label.endswith("[CNY]")
    box.set_value(14_000_000)
    next(b for b in at.button if b.label == "Search").click()
    at.run()
    assert "opt_usd=2000000" in at.sidebar.code[0].value  # the link in US dollars: 14,000,000 CNY / 7


def test_review_pack_in_cny_states_the_rate_and_names_the_currency():
    from core.formats import report

    p = plan(Design(nodes=64))
    with i18n.money_context("CNY", 7.0):
        page = report.design_report_html(p, name="x", share_link="https://example.org/?v=1")
    body = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    assert "1 USD = 7 CNY" in body and "CN¥" in body
    headers = " ".join(re.findall(r"<th[^>]*>(.*?)</th>", body))
    assert "CNY" in headers and "USD" not in headers
    assert i18n.usd(p.cost.capex_usd) not in body  # the headline in dollars is not there ...
    with i18n.money_context("CNY", 7.0):
        assert i18n.usd(p.cost.capex_usd) in body  # ... the converted one is


@pytest.mark.parametrize("argv, keys", [(("--lang", "zh", "--currency", "CNY"), {"ui_cur": "CNY", "lang": "zh"}),
                                        (("--currency", "EUR", "--fx", "0.91234"),
                                         {"ui_cur": "EUR", "ui_fx": "0.91234", "lang": "en"}),
                                        ((), {"lang": "en"})])
def test_a_packs_share_link_keeps_its_currency(argv, keys):
    """review45 2.10: `--lang zh --currency CNY report` wrote its money in yuan and a share link without the currency
    (`?v=1&lang=zh`), which opens in US dollars. The link carries ``ui_cur`` (and ``ui_fx`` when not the published
    rate) as the app writes them (core.formats.uilink), and the app reads it back as the pack's money."""
    from urllib.parse import parse_qs, urlsplit

    from core.cli import main
    from core.formats import sharelink

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "report", "--format", "html"]) == 0
    link = re.search(r'class="fp-link"><strong>[^<]*</strong>\s*<a href="([^"]+)"', out.getvalue()).group(1)
    params = {k: v[-1] for k, v in parse_qs(urlsplit(html.unescape(link)).query).items()}
    assert {k: v for k, v in params.items() if k.startswith("ui_") or k == "lang"} == keys
    assert sharelink.decode(params)[1] == [] and not state.UI.decode(params)[1]
    code = keys.get("ui_cur", "USD")
    assert state.money_from_link(params)[0][0] == code
