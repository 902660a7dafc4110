"""AppTest of pages/3_Performance.py: renders from a share link, keeps perf_ settings in the URL, no tracebacks."""

import html
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "3_Performance.py")


def page(**params):
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_renders_charts_metrics_and_tables():
    at = page(n="128")
    assert not at.exception and not at.error
    assert len(at.get("plotly_chart")) == 4
    labels = [html.unescape(k) for m in at.markdown for k in re.findall(r'data-testid="stMetricLabel">(.*?)</div>',
                                                                          str(m.value))]
    assert labels == ["Step time", "Tokens/s", "MFU", "Communicating", "Days to train", "Cost of the run"]
    assert len(at.dataframe) >= 3


def test_perf_settings_come_from_and_go_to_the_link():
    at = page(n="128", perf_model="gpt3-175b", perf_tp="4", perf_pp="8", perf_seq="2048", perf_gbs="256",
              perf_op="all-reduce,all-to-all")
    assert not at.exception and not at.error
    assert at.selectbox(key="perf_w_model").value == "gpt3-175b"
    assert at.multiselect(key="perf_w_op").value == ["all-reduce", "all-to-all"]
    assert "perf_pp" in at.query_params and "perf_model" in at.query_params
    at.number_input(key="perf_w_pp").set_value(16).run()
    assert not at.error and "16" in str(at.query_params["perf_pp"])
    at.number_input(key="perf_w_pp").set_value(4).run()  # the default is left out of the link
    assert "perf_pp" not in at.query_params
    at.selectbox(key="perf_w_cmp").set_value("ib2").run()
    assert "ib2" in str(at.query_params["perf_cmp"])


def test_impossible_split_shows_error_not_traceback():
    at = page(n="16", perf_tp="3")
    assert not at.exception
    assert at.error and "heads" in at.error[0].value


def test_bad_link_values_warn_and_still_render():
    at = page(n="16", perf_tp="banana", g="H999")
    assert not at.exception
    assert len(at.warning) >= 2
    assert any('data-testid="stMetricLabel">Step time' in str(m.value) for m in at.markdown)


def test_design_that_cannot_be_built_shows_error():
    at = page(n="100000", ti="1")
    assert not at.exception
    assert at.error and not at.get("plotly_chart")


def _compare_table(at):
    frame = at.dataframe[-1].value
    assert "routing" in frame.columns and "days" in frame.columns
    return frame


def _days(text: str) -> float:
    """A days cell of the two-fabric table (``core.units.days`` text: ``21.8``, ``1,234``) as a number."""
    return float(text.replace(",", ""))


def test_the_table_and_the_chart_write_days_alike():
    """Same job, two fabrics: the chart's bars said ``21.8 d`` and the table under them ``21.77`` (``round(days,
    2)``); both write the one days format now (``core.units.days``), the bars' hover too."""
    import json

    at = page(n="128")
    assert not at.exception and not at.error
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    (chart,) = [s for s in specs if "Same job, two fabrics" in json.dumps(s["layout"].get("title", ""))]
    bars = chart["data"][0]
    table = list(_compare_table(at)["days"])
    assert bars["text"] == [f"{days} d" for days in table] and bars["customdata"] == table, (bars["text"], table)


def test_compare_with_a_pasted_share_link():
    """Any second design, as its share link: decoded, warnings shown escaped, the link keeps it."""
    link = "https://planner.example/?v=1&g=H100&n=128&f=eth&os=2"
    at = page(n="128", perf_cmp="url", perf_cmpl=link)
    assert not at.exception and not at.error
    frame = _compare_table(at)
    assert frame.iloc[1, 0].startswith("Linked design (1,024 x H100, Ethernet RoCE, 2:1")
    assert list(frame["routing"]) == ["InfiniBand adaptive routing", "RoCE, static ECMP"]
    assert str(at.query_params["perf_cmp"]) == "url" and "g=H100" in str(at.query_params["perf_cmpl"])
    # the presets stay quick choices
    at.selectbox(key="perf_w_cmp").set_value("eth1").run()
    assert not at.error and _compare_table(at).iloc[1, 0] == "Ethernet RoCE (1:1)"  # its bisection ratio


def test_bad_comparison_link_warns_escaped_and_keeps_the_page():
    at = page(n="64", perf_cmp="url", perf_cmpl="?v=1&g=<b>H999</b>&n=64")
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "Comparison link" in warning and "<b>" not in warning
    assert any('data-testid="stMetricLabel">Step time' in str(m.value) for m in at.markdown)
    empty = page(n="64", perf_cmp="url")
    assert not empty.exception
    assert empty.error and "Paste a share link" in empty.error[-1].value


def test_too_long_comparison_link_is_a_warning():
    at = page(n="64", perf_cmp="url", perf_cmpl="?v=1&n=64&" + "x" * 5000)
    assert not at.exception
    assert any("cmpl" in w.value and "longer than 4" in w.value for w in at.warning)


def test_spread_placement_on_two_to_one_roce_costs_days_and_dollars():
    """Non-blocking InfiniBand against 2:1 RoCE: the same job differs in step, days and dollars once
    the nodes are spread over the leaf groups (tests/test_congestion.py holds the sourced bounds)."""
    at = page(n="512", perf_cmp="url", perf_cmpl="?v=1&n=512&f=eth&os=2", perf_pl="scatter", perf_tg="4096",
              perf_gbs="512")
    assert not at.exception and not at.error
    frame = _compare_table(at)
    ib, roce = frame.iloc[0], frame.iloc[1]
    assert _days(roce["days"]) > 1.05 * _days(ib["days"]) and _days(roce["step [s]"]) > _days(ib["step [s]"])
    assert all(re.fullmatch(r"[\d,]+\.\d{3}", step) for step in frame["step [s]"])  # one format: three decimals
    assert roce["run cost [USD]"] != ib["run cost [USD]"]
    notes = " ".join(c.value for c in at.caption)
    assert "static ECMP" in notes and "Meta" in notes and "xAI" in notes
    assert "With the other placement" in notes and "packed" in notes
    assert str(at.query_params["perf_pl"]) == "scatter"


def test_routing_override_and_sharp_toggle_go_to_the_link():
    at = page(n="128", f="eth")
    assert not at.exception and not at.error
    assert "perf_w_sharp" not in [t.key for t in at.toggle]  # Ethernet: no SHARP, the switch not shown
    at.selectbox(key="perf_w_rt").set_value("spectrum-x").run()
    assert not at.error and str(at.query_params["perf_rt"]) == "spectrum-x"
    assert "Spectrum-X adaptive routing" in list(_compare_table(at)["routing"])
    ib = page(n="128", perf_sharp="1")
    assert not ib.exception and not ib.error
    assert ib.toggle(key="perf_w_sharp").value is True
    assert str(ib.query_params["perf_sharp"]) == "1"


def test_comparison_and_congestion_notes_speak_chinese():
    """The new settings, notes and comparison table in Chinese: no English words (tests/test_i18n.py's check)."""
    from i18n_check import english_leaks
    from test_i18n import page_text

    at = page(n="512", lang="zh", perf_cmp="url", perf_cmpl="?v=1&n=512&f=eth&os=2", perf_pl="scatter",
              perf_tg="4096", perf_gbs="512")
    assert not at.exception and not at.error
    text = page_text(at).replace("?v=1&n=512&f=eth&os=2", " ")  # the pasted link is the user's input, as typed
    assert "静态 ECMP" in text and "分散放置" in text and "链接中的设计" in text
    assert not english_leaks(text), english_leaks(text)
    bad = page(n="64", lang="zh", perf_cmp="url", perf_cmpl="?v=1&g=H999")
    assert not bad.exception
    assert any("对比链接" in w.value for w in bad.warning)


def test_gradient_sharding_toggle_reaches_the_estimate_and_the_link():
    """ZeRO-2 / FSDP gradient sharding (as Llama 3 ran) is a job setting on the page."""
    from test_i18n import page_text

    at = page(n="128", perf_model="llama3-70b")
    assert not at.exception and not at.error
    assert at.toggle(key="perf_w_zg").value is False and "perf_zg" not in at.query_params
    before = page_text(at)
    at.toggle(key="perf_w_zg").set_value(True).run()
    assert not at.exception and not at.error
    assert str(at.query_params["perf_zg"]) == "1"
    assert page_text(at) != before  # the memory per GPU and the step changed
    again = page(n="128", perf_model="llama3-70b", perf_zg="1")
    assert again.toggle(key="perf_w_zg").value is True


def test_gradient_sharding_setting_makes_a_sharded_job():
    from core.design import Design
    from core.formats.joblink import DEFAULTS
    from core.perf.jobform import job_from_settings
    from core.plan import plan

    p = plan(Design(gpu="H100", nodes=128))
    settings = {**DEFAULTS, "model": "llama3-70b"}
    assert not job_from_settings(p, settings).shard_gradients
    assert job_from_settings(p, {**settings, "zg": "1"}).shard_gradients


def test_a_bad_gradient_sharding_value_is_a_warning_and_the_default():
    from core.formats import joblink

    values, warnings = joblink.JOB.decode({"perf_zg": "<b>yes</b>" * 20})
    assert values["zg"] == "0" and len(warnings) == 1
    assert "<b>yes</b>" * 20 not in warnings[0]  # shown cut short (the page escapes it too)
    assert joblink.JOB.decode(joblink.JOB.encode({**joblink.DEFAULTS, "zg": "1"}))[0]["zg"] == "1"
    at = page(n="128", perf_zg="maybe")
    assert not at.exception and any("gradient sharding" in w.value for w in at.warning)


def test_summary_line_says_the_designs_planes():
    """The summary line says the design as the Designer does (``design_subtitle``): a per-rail 2-plane design's "2
    planes", whose numbers are both planes' (the review's F8: the line said only "400G x 8 NICs/node")."""
    at = page(v="1", n="64", pl="2", pm="rail", lang="en")
    assert not at.exception
    line = next(c.value for c in at.caption if c.value.startswith("512 x H100 in 64 nodes"))
    assert " · 2 tiers · 2 planes · switch QM9700 · NIC CX7 · " in line and "8 NICs/node" in line, line
