"""The Performance page's comparison link (core.formats.joblink): perf_cmp / perf_cmpl / perf_rt / perf_pl / perf_sharp."""

import re

import pytest

from core.errors import InputError
from core.formats import joblink, sharelink
from core.perf import congestion
from core.design import Design


def test_new_keys_default_and_old_links_load_unchanged():
    values, warnings = joblink.JOB.decode({"perf_cmp": "ib1", "perf_model": "llama3-8b"})
    assert not warnings
    assert values["cmp"] == "ib1" and values["cmpl"] == "" and values["rt"] == "auto" and values["pl"] == "topo"
    assert values["sharp"] == "0"
    assert joblink.JOB.encode(values) == {"perf_cmp": "ib1", "perf_model": "llama3-8b"}


def test_comparison_link_round_trip():
    link = "https://planner.example/?v=1&n=256&f=eth&os=2"
    values = {**joblink.DEFAULTS, "cmp": "url", "cmpl": link, "rt": "spectrum-x", "pl": "scatter", "sharp": "1"}
    params = joblink.JOB.encode(values)
    assert params["perf_cmpl"] == link and params["perf_pl"] == "scatter"
    back, warnings = joblink.JOB.decode(params)
    assert not warnings and back == values


@pytest.mark.parametrize("text", ["https://planner.example/performance?v=1&n=256&f=eth&os=2",
                                  "?v=1&n=256&f=eth&os=2", "v=1&n=256&f=eth&os=2"])
def test_compare_design_reads_a_url_or_its_query(text):
    design, warnings = joblink.compare_design(text)
    assert not warnings
    assert design == sharelink.decode({"v": "1", "n": "256", "f": "eth", "os": "2"})[0]
    assert design.fabric == "ethernet" and design.oversubscription == 2.0


def test_compare_design_warns_about_bad_values_and_ignores_page_keys():
    design, warnings = joblink.compare_design("?v=1&n=64&g=H999&perf_tp=3&lang=zh")
    assert isinstance(design, Design) and len(warnings) == 1 and "H999" in warnings[0]


@pytest.mark.parametrize("text, words", [("", "Paste a share link"), ("hello world", "not a share link"),
                                         ("?n=64&" + "x" * 5000, "longer than 4,000")])
def test_compare_design_refuses_what_is_not_a_link(text, words):
    with pytest.raises(InputError, match=words):
        joblink.compare_design(text)


def test_too_long_link_in_the_page_link_is_a_warning_not_an_error():
    values, warnings = joblink.JOB.decode({"perf_cmpl": "?n=1&" + "y" * 5000, "perf_rt": "<script>", "perf_pl": "x"})
    assert values["cmpl"] == "" and values["rt"] == "auto" and values["pl"] == "topo"
    assert len(warnings) == 3


def test_bad_routing_and_placement_warnings_speak_chinese():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from i18n_check import chinese_leaks, english_leaks

    from core.i18n import language

    with language("zh"):
        _values, warnings = joblink.JOB.decode({"perf_rt": "magic", "perf_pl": "far", "perf_cmp": "ib9"})
    assert len(warnings) == 3
    for warning in warnings:
        shown = warning.replace("'magic'", "").replace("'far'", "").replace("'ib9'", "")
        for key in ("perf_rt", "perf_pl", "perf_cmp"):
            shown = shown.replace(key, "")
        for accepted in (*congestion.ROUTINGS, *congestion.PLACEMENTS, *joblink.COMPARE_CHOICES):  # ids, as typed
            shown = re.sub(rf"(?<![\w-]){re.escape(accepted)}(?![\w-])", " ", shown)
        assert chinese_leaks(warning) and not english_leaks(shown), warning
