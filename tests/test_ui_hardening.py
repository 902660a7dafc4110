"""Daily-use breakages of the web app, each reproduced first (issue: hardening).

State that survives navigation, a share box that equals the canonical link of what is on screen,
user text that is shown and never interpreted as markdown.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from streamlit.testing.v1 import AppTest

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
DESIGNER = "../app.py"
PERF = "../pages/3_Performance.py"
DESIGNER_PAGE = "../pages/1_Designer.py"
CATALOG = "../pages/2_Catalog.py"


def app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params or {})
    return at.run()


def share_params(at) -> dict[str, str]:
    link = at.sidebar.code[-1].value
    return {k: v[-1] for k, v in parse_qs(urlsplit(link).query).items()}


def share_path(at) -> str:
    return urlsplit(at.sidebar.code[-1].value).path


def url(at) -> dict[str, str]:
    return {k: (v[-1] if isinstance(v, list) else v) for k, v in at.query_params.items()}


# --- 1. the Performance page keeps its inputs across navigation --------------------------------------
def test_performance_inputs_survive_navigation():
    at = app({"v": "1", "n": "128"})
    at.switch_page(PERF).run()
    assert not at.exception and not at.error
    at.selectbox(key="perf_w_model").set_value("gpt3-175b").run()
    at.number_input(key="perf_w_seq").set_value(2048).run()
    at.number_input(key="perf_w_pp").set_value(8).run()
    at.number_input(key="perf_w_tok").set_value(2.5).run()
    at.multiselect(key="perf_w_op").set_value(["all-reduce", "all-to-all"]).run()
    before = {k: at.session_state[f"perf_w_{k}"] for k in ("model", "seq", "pp", "tp", "gbs", "tok", "op")}
    assert before["model"] == "gpt3-175b" and before["pp"] == 8
    at.switch_page(DESIGNER_PAGE).run()
    assert not at.exception
    at.switch_page(PERF).run()
    assert not at.exception and not at.error
    after = {k: at.session_state[f"perf_w_{k}"] for k in before}
    assert after == before
    assert len(at.get("plotly_chart")) == 4
    q = url(at)
    assert q["perf_model"] == "gpt3-175b" and q["perf_pp"] == "8" and q["perf_seq"] == "2048"


def test_designer_keeps_perf_settings_in_its_link():
    at = app({"v": "1", "n": "128", "perf_model": "gpt3-175b", "perf_pp": "8"})
    assert share_params(at)["perf_model"] == "gpt3-175b"
    at.switch_page(CATALOG).run()
    assert share_params(at)["perf_pp"] == "8"


# --- 2. the share box equals the canonical link of what is on screen ---------------------------------
def test_share_box_follows_the_change_on_the_performance_page():
    at = app({"v": "1", "n": "128"})
    at.switch_page(PERF).run()
    at.number_input(key="perf_w_pp").set_value(8).run()
    assert share_params(at)["perf_pp"] == "8"  # not one change behind
    assert share_params(at) == url(at)
    at.number_input(key="perf_w_pp").set_value(16).run()
    assert share_params(at)["perf_pp"] == "16" == url(at)["perf_pp"]
    assert share_path(at) == "/performance"


def test_share_box_drops_what_the_page_ignored():
    hostile = {"v": "1", "n": "16", "perf_tp": "<script>alert(1)</script>", "perf_zz": "1",
               "tab": "<script>x</script>", "zz": "1"}
    at = app(hostile)
    shared = share_params(at)
    assert "perf_tp" not in shared and "perf_zz" not in shared and "zz" not in shared
    assert "tab" not in shared
    assert "<script>" not in at.sidebar.code[-1].value
    at.switch_page(PERF).run()
    shared = share_params(at)
    assert all("<" not in v for v in shared.values())
    assert shared == url(at)


def test_share_box_on_the_designer_keeps_a_real_tab_only():
    at = app({"v": "1", "n": "16", "tab": "Bandwidth"})
    assert share_params(at).get("tab") == "Bandwidth"
    at = app({"v": "1", "n": "16", "tab": "Bogus"})
    assert "tab" not in share_params(at)
    assert any("'tab'" in w.value.replace('\\', '') and "Bogus" in w.value for w in at.warning)  # said, not dropped


def test_share_box_after_an_error_still_shows_the_design_link():
    at = app({"v": "1", "n": "100000", "ti": "1"})
    assert at.error
    assert share_params(at)["n"] == "100000" and share_params(at)["ti"] == "1"


# --- 3. no markdown injection ---------------------------------------------------------------------------
PHISH = "[Your design has expired - click here](//example.org/x) ![p](/probe)"
MARKDOWN_LINK = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\((?!\s)")


def _shown_markdown(at) -> list[str]:
    out = []
    for kind in ("warning", "error", "info", "caption", "markdown", "success"):
        out += [str(e.value) for e in getattr(at, kind)]
    out += [str(e.value) for e in at.sidebar.warning]
    return out


def test_link_values_cannot_inject_markdown():
    for key in ("px", "pw", "sw", "g", "n", "os", "perf_model", "perf_op", "ui_bw"):
        at = app({"v": "1", key: PHISH})
        assert not at.exception
        texts = _shown_markdown(at)
        assert any("click here" in t for t in texts), key  # the value is shown ...
        for text in texts:  # ... but never as a live link or image
            assert not MARKDOWN_LINK.search(text), (key, text)
            assert "![p](" not in text


def test_link_keys_cannot_inject_markdown():
    at = app({"v": "1", "[x](//example.org/k)": "1", PHISH: "2"})
    assert not at.exception
    texts = _shown_markdown(at)
    assert any("unknown" in t for t in texts)
    assert not any(MARKDOWN_LINK.search(t) for t in texts)


def test_override_messages_are_truncated():
    at = app({"v": "1", "px": "QM9700:" + "9" * 100_000})
    assert not at.exception
    assert all(len(t) < 2_000 for t in _shown_markdown(at) if 'class="fp-cards"' not in t)  # cards: no user text
    assert not any("9" * 100 in t for t in _shown_markdown(at))


def test_sidebar_override_box_cannot_inject_markdown():
    at = app({"v": "1"})
    at.text_input(key="w_px").set_value(PHISH).run()
    assert not at.exception
    texts = _shown_markdown(at)
    assert any("click here" in t for t in texts)
    assert not any(MARKDOWN_LINK.search(t) for t in texts)


# --- 9. inputs that silently did nothing ---------------------------------------------------------------
def _sidebar_warnings(at) -> list[str]:
    return [str(w.value) for w in at.sidebar.warning]


def test_exact_count_out_of_range_says_so_and_keeps_the_design():
    at = app({"v": "1", "n": "16"})
    for text in ("2000000", "0", "-3", "abc", "1.5"):
        at.text_input(key="w_count_exact").input(text).run()
        assert not at.exception
        assert at.session_state["fp_current"].design.nodes == 16, text
        warning = " ".join(_sidebar_warnings(at))
        assert "16 nodes" in warning.replace("\\", ""), (text, warning)


def test_exact_count_reads_what_people_type():
    at = app({"v": "1", "n": "16"})
    for text, nodes in (("1e3", 1000), ("2,048", 2048), ("１２８", 128), (" 64 ", 64)):
        at.text_input(key="w_count_exact").input(text).run()
        assert not at.exception and not at.error
        assert at.session_state["fp_current"].design.nodes == nodes, text


def test_gpus_as_the_unit_rounds_up_to_whole_nodes_and_says_so():
    at = app({"v": "1", "n": "16"})
    at.radio(key="w_unit").set_value("GPUs").run()
    at.text_input(key="w_count_exact").input("1001").run()
    assert at.session_state["fp_current"].design.nodes == 126
    assert any("rounded up" in w for w in _sidebar_warnings(at))
    assert url(at)["n"] == "126"  # one canonical form in the link


# --- 10. NVL72 racks as the unit -------------------------------------------------------------------------
def test_nvl72_is_sized_in_racks_and_the_sidebar_shows_what_is_built():
    at = app({"v": "1"})
    at.selectbox(key="w_gpu").set_value("GB200-NVL72").run()
    assert not at.exception and not at.error
    assert at.radio(key="w_unit").value == "racks"
    assert at.session_state["fp_current"].design.nodes == 18  # one whole rack, not 4 trays
    caption = at.caption[0].value
    assert "72 GPUs in 1 GB200-NVL72 rack (18 compute trays of 4 GPUs)" in caption
    at.select_slider(key="w_count").set_value(8).run()
    assert at.session_state["fp_current"].plan.resolved.gpus == 576
    assert "576 GPUs in 8 GB200-NVL72 racks (144 compute trays" in at.caption[0].value
    assert url(at)["n"] == "144"


def test_nvl72_link_opens_in_racks():
    at = app({"v": "1", "g": "GB200-NVL72", "n": "144"})
    assert at.radio(key="w_unit").value == "racks"
    assert at.select_slider(key="w_count").value == 8
    assert "in 144 nodes" not in at.caption[0].value


def test_fitted_performance_settings_stay_out_of_the_link():
    """Settings fitted to one design must not travel in the link as if set by hand (they are refitted)."""
    at = app({"v": "1", "n": "1"})
    at.switch_page(PERF).run()
    assert at.session_state["perf_w_model"] != "llama3-70b"  # fitted down for 8 GPUs
    assert "perf_model" not in url(at) and "perf_model" not in share_params(at)
    at.switch_page(DESIGNER_PAGE).run()
    at.select_slider(key="w_count").set_value(512).run()
    assert not any(k.startswith("perf_") for k in share_params(at))
    at.switch_page(PERF).run()  # refitted to 4,096 GPUs
    assert at.session_state["perf_w_model"] == "llama3-70b"
    at.number_input(key="perf_w_pp").set_value(2).run()  # set by hand: travels
    assert share_params(at)["perf_pp"] == "2" == url(at)["perf_pp"]


def test_a_nodes_way_out_keeps_whole_nvl72_racks():
    at = app({"v": "1", "g": "GB200-NVL72", "n": "18000", "ti": "2"})
    assert at.error
    fix = next(b for b in at.button if b.label.startswith("Plan at most"))
    fix.click().run()
    design = at.session_state["fp_current"].design
    assert design.nodes % 18 == 0 and not at.error
