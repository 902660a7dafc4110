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
