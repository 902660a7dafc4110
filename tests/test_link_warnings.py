"""Link warnings are counted and cut, and a link too long for the framework is said, not silently dropped.

Before: 900 unknown ``nm_`` keys gave 900 warnings (71,890 characters; the page rewrote the address bar once per
key), a 20,000-character key a 20,076-character warning, and a link of more than 1,000 parameters reached the app
empty (Streamlit drops it), so the user got the default design without a word.
One rule now (``sharelink.capped_warnings``): at most 5 lines per link, each at most 200 characters, then
"and N more warnings"; every page's link box, pasted links and the upload message go through it.
"""

from __future__ import annotations

import time

import pytest
from streamlit.runtime import app_session
from streamlit.runtime.state import query_params as st_query_params

import webui.state  # noqa: F401 - registers the nm_ and ui_ extensions, as the app does
from core.formats import (comparelink, inferencelink, joblink, optimizelink, resiliencelink,  # noqa: F401
                          sharelink, sweeplink)
from core.i18n import language
from tests.pagetest import open_page
from webui import pagestate, serve

LINES, WIDTH = sharelink.MAX_WARNING_LINES, sharelink.MAX_WARNING_CHARS
PREFIXES = ("nm_", "opt_", "cmp_", "sw_", "rs_", "perf_", "ui_", "inf_")


# --- the rule -------------------------------------------------------------------------------------------
def test_the_rule_keeps_a_few_short_lines_and_counts_the_rest():
    warnings = [f"warning {i} " + "x" * (i * 50) for i in range(900)]
    lines = sharelink.capped_warnings(warnings)
    assert len(lines) == LINES + 1
    assert lines[0] == warnings[0]  # short ones are kept whole
    assert all(len(line) <= WIDTH for line in lines)
    assert lines[4].endswith("\u2026") and lines[4].startswith("warning 4 ")
    assert lines[-1] == "and 895 more warnings"
    assert sharelink.capped_warnings(warnings[:6])[-1] == "and 1 more warning"
    assert sharelink.capped_warnings(warnings[:5]) == [w if len(w) <= WIDTH else w[:WIDTH - 1] + "\u2026"
                                                       for w in warnings[:5]]
    assert sharelink.capped_warnings([]) == []
    with language("zh"):
        assert sharelink.capped_warnings(warnings)[-1] == "另有 895 条警告"


def test_the_rule_costs_one_pass():
    many = ["w" * 10_000] * 100_000  # 100,000 warnings of 10,000 characters
    start = time.process_time()
    assert len(sharelink.capped_warnings(many)) == LINES + 1
    assert time.process_time() - start < 0.2


def test_the_page_bullets_are_the_rule_escaped():
    text = pagestate.bullets(["[x](//ev.il) " + "y" * 500] * 7)
    assert text.count("\n- ") == LINES  # 6 bullets
    assert "and 2 more warnings" in text and "](" not in text


# --- every decoder: one short warning per unknown key, in linear time -----------------------------------
@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_20000_character_key_gives_a_short_warning(prefix):
    ext = sharelink.extension(prefix) if prefix != "rs_" else None
    params = {prefix + "k" * 20_000: "1"}
    warnings = ext.decode(params)[1] if ext else resiliencelink.decode(params)[1]
    assert len(warnings) == 1
    assert len(warnings[0]) < 400 and "k" * 21 not in warnings[0], len(warnings[0])  # the known keys, then cut


def test_a_20000_character_design_key_gives_a_short_warning():
    warnings = sharelink.decode({"k" * 20_000: "1"})[1]
    assert len(warnings) == 1 and len(warnings[0]) < 400 and "k" * 21 not in warnings[0]  # as the extensions' limit


def _decode_all(params):
    for ext in sharelink.extensions().values():
        ext.decode(params)
    resiliencelink.decode(params)
    sharelink.decode(params)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_decoding_unknown_keys_is_linear(prefix):
    def cost(count: int) -> float:
        params = {f"{prefix}x{i}": "1" for i in range(count)}
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            _decode_all(params)
            best = min(best, time.process_time() - start)
        return best

    small, big = cost(900), cost(3600)
    assert big <= 8 * max(small, 0.003), (small, big)
    assert small < 0.1


# --- the pages show the capped warnings --------------------------------------------------------------------
def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_the_designer_caps_900_unknown_naming_keys():
    params = {"v": "1", "n": "16", "lang": "en", **{f"nm_x{i}": "1" for i in range(900)}}
    at = open_page("../pages/1_Designer.py", params)
    boxes = [w.value for w in at.warning if "were not applied" in w.value]
    assert len(boxes) == 1, [w.value[:80] for w in at.warning]
    bullets = _bullets(boxes[0])
    assert len(bullets) == LINES + 1 and bullets[-1] == "- and 895 more warnings"
    assert len(boxes[0]) < 2_000
    assert not any(key.startswith("nm_x") for key in at.query_params)  # the address bar is the canonical link
    assert at.session_state["fp_current"].design.nodes == 16  # the rest of the link applied


def test_a_page_link_caps_its_warnings():
    params = {"v": "1", "lang": "en", **{f"sw_{'k' * 300}{i}": "1" for i in range(40)}}
    at = open_page("../pages/5_Sweep.py", params)
    boxes = [w.value for w in at.warning if "sweep link" in w.value]
    assert len(boxes) == 1
    bullets = _bullets(boxes[0])
    assert len(bullets) == LINES + 1 and bullets[-1] == "- and 35 more warnings"
    assert all(len(b) < 2 * WIDTH for b in bullets)  # escaped characters count twice at most


def test_the_chinese_page_counts_in_chinese():
    params = {"v": "1", "lang": "zh", **{f"nm_x{i}": "1" for i in range(12)}}
    at = open_page("../pages/1_Designer.py", params)
    assert any("另有 7 条警告" in w.value for w in at.warning)


# --- links too long for the framework -----------------------------------------------------------------------
def test_our_limits_are_streamlits():
    """Streamlit drops a query string over these limits before the app runs; ours must be the same numbers."""
    assert sharelink.MAX_LINK_PARAMS == st_query_params.CLIENT_STATE_QUERY_STRING_MAX_FIELDS
    assert sharelink.MAX_LINK_CHARS == st_query_params.CLIENT_STATE_QUERY_STRING_MAX_LENGTH


def test_the_launcher_marks_a_dropped_link(monkeypatch):
    monkeypatch.setattr(app_session, "sanitize_query_string", app_session.sanitize_query_string)
    assert serve.mark_dropped_links() and serve.mark_dropped_links()  # twice: wrapped once
    sanitize = app_session.sanitize_query_string
    assert sanitize("v=1&n=8") == "v=1&n=8" and sanitize("") == ""
    too_many = "&".join(f"k{i}=1" for i in range(1001))
    assert sanitize(too_many) == f"{sharelink.DROPPED_KEY}=1001%3A{len(too_many)}"
    too_long = "v=1&name=" + "x" * (512 * 1024)
    assert sanitize(too_long) == f"{sharelink.DROPPED_KEY}=2%3A{len(too_long)}"
    assert sanitize(sanitize(too_many)) == sanitize(too_many)


def test_a_dropped_link_is_said_on_the_page():
    at = open_page("../pages/1_Designer.py", {sharelink.DROPPED_KEY: "1200:15000"})
    text = " ".join(w.value for w in at.warning).replace("\\", "")  # unescaped
    assert "1,200 parameters and 15,000 characters" in text and "default design is shown" in text
    assert sharelink.DROPPED_KEY not in at.query_params  # the address bar holds the design shown
    assert sharelink.dropped_link_warning({sharelink.DROPPED_KEY: "x" * 5000}) is None


def test_a_link_too_long_to_open_is_refused_where_it_is_made():
    assert sharelink.check_link_size({"v": "1", "n": "8"}) is None
    assert "1,001 parameters" in sharelink.check_link_size({f"k{i}": "1" for i in range(1001)})
    assert "characters long" in sharelink.check_link_size({"name": "x" * sharelink.MAX_LINK_CHARS})
    with language("zh"):
        assert "1,001 个参数" in sharelink.check_link_size({f"k{i}": "1" for i in range(1001)})


@pytest.mark.e2e
def test_a_link_of_1200_parameters_is_said_in_the_browser(server, page):
    """In headless Chromium against ``python -m webui.serve``: Streamlit drops the query, the page says why."""
    from test_e2e_browser import settle

    query = "v=1&n=64&lang=en&" + "&".join(f"nm_x{i}=1" for i in range(1200))
    page.goto(f"{server}/?{query}")
    settle(page)
    text = page.locator("body").inner_text()
    assert "The link had 1,203 parameters" in text and "default design is shown" in text
    page.wait_for_function("!window.location.search.includes('fp_dropped')", timeout=30_000)
