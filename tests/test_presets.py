"""Published designs as a starting point: the share link's ``preset`` key, the CLI's ``--preset`` and
``presets`` command, and the sidebar's gallery (AppTest). What each preset reproduces: test_golden_presets.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import run_cli as run
from core.design import Design
from core.formats.sharelink import PRESET_KEY, decode, encode
from core.presets import find_preset, load_presets
from tests.i18n_check import english_leaks
from tests.test_i18n import page_text, rerun, unescape
from webui.gallery import OPEN

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
PRESETS = load_presets()


# --- the share link ------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_link_preset_key_restores_the_design_and_round_trips(preset):
    design, warnings = decode({PRESET_KEY: preset.id})
    assert design == preset.design and not warnings
    assert decode(encode(design)) == (design, [])       # the link the app writes holds the whole design


def test_link_keys_override_the_preset():
    design, warnings = decode({PRESET_KEY: "meta-24k-roce", "ng": "12288", "os": "0.5", "npr": "4"})
    assert not warnings
    meta = find_preset("meta-24k-roce")
    assert design == Design(**{**meta.fields, "nodes": None, "gpus": 12288, "oversubscription": 0.5,
                               "nodes_per_rack": 4})
    assert decode({PRESET_KEY: "deepseek-mpft", "n": "64"})[0].nodes == 64


@pytest.mark.parametrize("value", ["no-such-design", "<b>x</b>](//evil.example)", ["deepseek", "nope"], ""])
def test_unknown_preset_in_a_link_is_one_warning_and_the_default(value):
    design, warnings = decode({PRESET_KEY: value})
    assert design == Design()
    assert len(warnings) == 1 + (isinstance(value, list))  # a repeated key is said too
    assert "'preset' (published design)" in warnings[-1] and "no published design has this name" in warnings[-1]


def test_unknown_preset_keeps_the_rest_of_the_link():
    design, warnings = decode({PRESET_KEY: "nope", "n": "16", "g": "B200"})
    assert (design.gpu, design.nodes) == ("B200", 16) and len(warnings) == 1


# --- the command line ----------------------------------------------------------------------------

def test_cli_preset_with_an_override(capsys):
    code, out, _err = run(capsys, "plan", "--preset", "deepseek-mpft", "--nodes", "1024", "--format", "json")
    s = json.loads(out)
    assert code in (0, None)
    assert (s["gpus"], s["gpu_model"], s["planes"], s["islands"]) == (8192, "H800", 8, 8)
    assert s["design"]["plane_mode"] == "per-rail" and s["design"]["nodes"] == 1024
    code, out, _err = run(capsys, "plan", "--preset", "DeepSeek-MPFT", "--format", "json")
    assert Design(**json.loads(out)["design"]) == find_preset("deepseek-mpft").design


def test_cli_preset_works_on_other_design_commands(capsys):
    code, out, _err = run(capsys, "spof", "--preset", "alibaba-hpn-segment", "--format", "json")
    assert code in (0, None) and json.loads(out)
    code, out, _err = run(capsys, "plan", "--preset", "meta-24k-roce", "--gpus", "12288", "--format", "json")
    assert json.loads(out)["gpus"] == 12288 and json.loads(out)["switch_models"]["spine"] == "ARISTA-7800R3-576"


def test_cli_unknown_preset_is_exit_2_with_the_known_ones(capsys):
    code, out, err = run(capsys, "plan", "--preset", "x" * 300)
    assert code == 2 and not out and "deepseek-mpft" in err and len(err) < 600 and "x" * 41 not in err


def test_cli_preset_and_design_file_are_exclusive(capsys, tmp_path):
    path = tmp_path / "d.json"
    path.write_text(Design().to_json())
    code, _out, err = run(capsys, "plan", "--preset", "rail-only", "--design", str(path))
    assert code == 2 and "--preset" in err and "--design" in err


def test_cli_presets_lists_sources_and_checks_them(capsys):
    code, out, _err = run(capsys, "presets", "--check", "--format", "json")
    entries = json.loads(out)
    assert code in (0, None) and [e["id"] for e in entries] == [p.id for p in PRESETS]
    assert all(n["reproduced"] for e in entries for n in e["published"])
    assert all(e["source"]["url"].startswith("https://") for e in entries)
    code, out, _err = run(capsys, "--lang", "zh", "presets")
    assert "python -m core plan --preset deepseek-mpft" in out and "arxiv.org/abs/2505.09343" in out
    assert find_preset("deepseek-mpft").title not in out  # titles are translated


# --- the sidebar's gallery -----------------------------------------------------------------------

def _app(params: dict) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update(params)
    return at.run()


def test_gallery_loads_every_preset_into_the_sidebar_and_the_link():
    at = _app({"n": "8"})
    assert not at.exception and not [b for b in at.button if (b.key or "").startswith("fp_preset_")]  # drawn when open
    for preset in PRESETS:
        at.session_state[OPEN] = True                           # the user opens the gallery
        at.run()
        at.button(key=f"fp_preset_{preset.id}").click().run()
        assert not at.exception, preset.id
        assert at.session_state["fp_current"].design == preset.design, preset.id
        assert not at.session_state[OPEN]                       # closed: the sidebar shows the design loaded
        assert not at.sidebar.warning and any(preset.title in unescape(s.value)  # the app runs in English
                                              for s in at.sidebar.success), preset.id
        link = {k: at.query_params[k] for k in at.query_params}
        assert decode({k: v for k, v in link.items() if k not in ("lang", "ui_bw")})[0] == preset.design
    at.number_input(key="w_su").set_value(4).run()             # then it is an ordinary design
    assert at.session_state["fp_current"].design.su_nodes == 4 and not at.sidebar.success


def test_link_with_preset_opens_it_and_an_unknown_one_warns_once_escaped():
    at = _app({PRESET_KEY: "alibaba-hpn-pod"})
    assert not at.exception and not at.warning
    assert at.session_state["fp_current"].design == find_preset("alibaba-hpn-pod").design
    assert PRESET_KEY not in at.query_params                    # the link now holds the whole design
    at = _app({PRESET_KEY: "[x](//evil.example)"})
    assert not at.exception and at.session_state["fp_current"].design == Design()
    texts = [w.value for w in at.warning]
    assert len(texts) == 1 and unescape(texts[0]).count("'preset'") == 1
    assert "[x](//evil.example)" not in texts[0] and "[x](//evil.example)" in unescape(texts[0])


def test_open_gallery_speaks_chinese_and_quotes_its_sources():
    at = _app({"lang": "zh"})
    at.session_state[OPEN] = True
    rerun(at)  # AppTest formats the select boxes in the test's thread: in the page's language
    assert not at.exception and at.button(key="fp_preset_deepseek-mpft").label == "载入此设计"
    text = page_text(at)
    assert "DeepSeek 多平面胖树" in text and "Insights into DeepSeek-V3" in text   # titles translated, sources quoted
    assert not english_leaks(text)
