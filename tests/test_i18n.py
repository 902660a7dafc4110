"""Both languages, end to end: the catalog is complete, every page speaks one language, switching keeps the design.

* Every message of the code is in ``messages.po`` with a Chinese translation, the same
  placeholders, and nothing left fuzzy (``tools.i18n_update`` keeps it in step with the code).
* AppTest renders every page (and every Designer tab) in each language and fails if a text of the
  other language appears (``tests/i18n_check.py``: product names, units and abbreviations allowed).
* ``lang=`` in the link picks the language; an unknown value falls back with a warning; the
  browser's language is the default; the switch keeps the design and the Performance settings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from babel.messages.pofile import read_po
from streamlit.testing.v1 import AppTest

from core import i18n
from core.i18n import _, language
from core.text import NO_BREAK
from tests.i18n_check import PO, chinese_leaks, english_leaks, plotly_text, proto_text
from tools.i18n_update import extract

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CATALOG_PAGE = "../pages/2_Catalog.py"
PERF_PAGE = "../pages/3_Performance.py"
COMPARE_PAGE = "../pages/4_Compare.py"
SWEEP_PAGE = "../pages/5_Sweep.py"
RESILIENCE_PAGE = "../pages/6_Resilience.py"
INFERENCE_PAGE = "../pages/8_Inference.py"
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _catalog():
    with PO.open("rb") as handle:
        return read_po(handle)


# --- the catalog -------------------------------------------------------------------------------
def test_catalog_is_in_step_with_the_code():
    """Every message the code (and the hardware catalog's notes) holds is in the .po, and no other."""
    code = {m.id if isinstance(m.id, str) else m.id[0] for m in extract() if m.id}
    po = {m.id if isinstance(m.id, str) else m.id[0] for m in _catalog() if m.id}
    assert not code - po, f"run `make i18n`: messages missing from the .po: {sorted(code - po)[:5]}"
    assert not po - code, f"run `make i18n`: messages no longer in the code: {sorted(po - code)[:5]}"


def test_every_message_has_a_chinese_translation():
    missing = [m.id for m in _catalog()
               if m.id and not (all(m.string) if isinstance(m.string, (list, tuple)) else m.string)]
    fuzzy = [m.id for m in _catalog() if m.id and m.fuzzy]
    assert not missing, f"{len(missing)} untranslated, e.g. {missing[:5]}"
    assert not fuzzy, f"fuzzy (unchecked) translations: {fuzzy[:5]}"


def test_translations_keep_the_placeholders():
    for message in _catalog():
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        for text in strings:
            if text:  # an empty one is untranslated (the test above)
                assert set(PLACEHOLDER.findall(text)) == wanted, (message.id, text)


def test_chinese_translations_are_chinese():
    """A msgstr with English words and no Chinese character is a copy of the English, not a translation."""
    copied = [(m.id, m.string) for m in _catalog() if m.id and isinstance(m.string, str) and m.string
              and english_leaks(PLACEHOLDER.sub(" ", m.string)) and not chinese_leaks(m.string)]
    assert not copied, f"{len(copied)} translations are English, e.g. {copied[:3]}"


def test_glossary_has_both_languages():
    terms = i18n.glossary()
    assert len(terms) >= 25
    for term in terms:
        assert term["en"] and term["zh"] and term["en_definition"] and term["zh_definition"] and term["source"]
        assert chinese_leaks(term["zh"]) and not chinese_leaks(term["en"] + term["en_definition"])
    wanted = {"leaf switch": "叶交换机", "spine switch": "脊交换机", "oversubscription": "收敛比",
              "bisection bandwidth": "对分带宽", "single point of failure": "单点故障", "rail-optimized": "轨道优化",
              "scalable unit (SU)": "可扩展单元", "spine-leaf network": "叶脊网络"}
    by_en = {t["en"]: t["zh"] for t in terms}
    sources = i18n.glossary_sources()
    for term in terms:  # every source code a term cites is explained
        assert set(re.findall(r"\[(\w+)\]", term["source"])) <= set(sources), term
    assert {k: by_en.get(k) for k in wanted} == wanted


def test_language_is_per_context_and_defaults_to_english():
    assert i18n.current() == "en"
    with language("zh"):
        assert _("Share") == "分享"
        with language("en"):
            assert _("Share") == "Share"
        assert i18n.current() == "zh"
    assert _("Share") == "Share"
    with pytest.raises(ValueError):
        i18n.set_language("fr")


@pytest.mark.parametrize("header, expected", [
    ("zh-CN", "zh"), ("zh_CN.UTF-8", "zh"), ("zh-Hant-TW", "zh"), ("en-GB", "en"), ("fr", None), ("", None),
    (None, None), ("fr-FR,zh;q=0.8,en;q=0.5", "zh"), ("de,en;q=0.9,zh;q=0.8", "en"), ("zh;q=0,en", "en"),
    ("*", None), ("x" * 5000, None), ("en;q=abc,zh", "zh"),
])
def test_from_locale(header, expected):
    assert i18n.from_locale(header) == expected


def test_money_and_numbers_per_locale():
    assert i18n.number(1234567) == "1,234,567" and i18n.usd(123456.4) == "$123,456"
    assert i18n.usd(1234567.4) == "$1.23 M" and i18n.usd(12_300_000) == "$12.3 M" and i18n.usd(1.5e9) == "$1.50 B"
    assert not hasattr(i18n, "usd_compact")  # one money format
    with language("zh"):
        assert i18n.number(1234567) == "1,234,567" and i18n.usd(1234567) == "123.5万美元"
        assert i18n.usd(12_300_000) == "1,230万美元"
        assert i18n.usd(1.5e9) == "15亿美元" and i18n.usd(2.5e4) == "2.5万美元"
        assert i18n.join(["a", "b", "c"]) == "a、b 和 c" and i18n.join(["叶", "脊"]) == "叶和脊"  # spaced as the catalog
    assert i18n.join(["a", "b", "c"]) == "a, b and c"


# --- every page in each language ------------------------------------------------------------------
def _nodes(node):
    children = getattr(node, "children", None)
    if children is not None:
        if getattr(node, "proto", None) is not None:
            yield node
        for child in children.values():
            yield from _nodes(child)
    else:
        yield node


def page_text(at: AppTest) -> str:
    """Every text a reader can see on the page (labels, help, options, markdown, chart text, table headers
    and cells), less the share link (a URL) and the engine's verbatim source docs (``st.code``)."""
    parts = []
    for node in _nodes(at._tree):
        kind = getattr(node, "type", "")
        proto = getattr(node, "proto", None)
        if proto is None or kind in ("code", "html"):
            continue
        if kind == "plotly_chart":
            parts += plotly_text(json.loads(proto.spec))
        elif kind == "dataframe":
            frame = node.value
            parts.append(" ".join(map(str, frame.columns)))
            for column in frame.columns:
                if frame[column].dtype == object:
                    parts += [str(v) for v in frame[column].tolist()]
        elif kind == "markdown" and str(node.value).startswith("<style>"):
            continue
        else:
            parts += proto_text(proto)
    text = unescape("\n".join(parts))  # webui.safe.md escapes punctuation: all\\-reduce reads all-reduce
    text = re.sub(r"`[^`]*`", " ", text)  # code spans: commands and file names, as typed
    text = re.sub(r"https?://\S+", " ", text)  # links and citations' URLs
    return text.replace("Fabric planner", " ")  # the product's name


def unescape(markdown: str) -> str:
    """What a reader sees of escaped markdown (webui.safe.md backslash-escapes punctuation and keeps amounts on one
    line with invisible joiners, core.text.unbroken)."""
    return re.sub(r"\\(.)", r"\1", markdown).replace(NO_BREAK, "")


def rerun(at: AppTest) -> AppTest:
    """``at.run()`` with this thread speaking the last run's language: AppTest formats the select boxes'
    values with their ``format_func`` in the test's thread (the server gets labels from the browser)."""
    with language(at.session_state["_fp_lang_shown"] if "_fp_lang_shown" in at.session_state else "en"):
        return at.run()


def _run(params: dict, page: str | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()
    if page:
        at.switch_page(page)
        rerun(at)
    return at


PAGES = [(None, None), (None, "Bandwidth"), (None, "Cost & power"), (CATALOG_PAGE, None), (PERF_PAGE, None), (COMPARE_PAGE, None),
         (SWEEP_PAGE, None), (RESILIENCE_PAGE, None), (INFERENCE_PAGE, None)]
DESIGNS = {
    "default": {},
    "nvl72 ethernet 3 tiers": {"g": "GB200-NVL72", "n": "1152", "f": "eth", "os": "2", "px": "QM9700:20000"},
    "infeasible": {"n": "4", "ti": "1", "sw": "QM9700", "g": "H100", "s": "400", "t": "tor", "npr": "72"},
}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize("page, tab", PAGES, ids=["designer", "bandwidth", "cost", "catalog", "performance", "compare", "sweep",
                                                  "resilience", "inference"])
def test_page_speaks_one_language(lang, design, page, tab):
    if design != "default" and page == CATALOG_PAGE:
        pytest.skip("the Catalog page does not depend on the design")
    at = _run({**DESIGNS[design], "lang": lang, **({"tab": tab} if tab else {})}, page)
    if tab:
        assert at.dataframe, "the tab did not open"
    assert not at.exception, at.exception
    assert at.session_state["w_lang"] == lang
    text = page_text(at)
    assert len(text) > 500
    leaks = english_leaks(text) if lang == "zh" else chinese_leaks(text)
    assert not leaks, f"{lang} page shows text of the other language: {leaks[:30]}"


def test_link_language_beats_the_browser_and_is_in_the_link():
    at = _run({"lang": "zh"})
    assert at.query_params["lang"] == "zh" and "lang=zh" in at.sidebar.code[0].value
    assert at.title[0].value == _("Fabric planner") or "规划" in at.title[0].value


def test_unknown_lang_falls_back_with_a_warning():
    at = _run({"lang": "klingon", "n": "16"})
    assert at.session_state["w_lang"] == "en" and at.query_params["lang"] == "en"
    assert any("'lang'" in unescape(w.value) and "klingon" in unescape(w.value) for w in at.warning)
    assert at.session_state["fp_current"].design.nodes == 16  # the rest of the link applies


def test_switching_language_keeps_the_design_and_every_setting():
    at = _run({"g": "B200", "n": "64", "f": "eth", "os": "2", "px": "QM9700:20000", "ui_bw": "gbit"})
    rerun(at.switch_page(PERF_PAGE))
    perf_before = dict(at.session_state["fp_job"])
    design_before = at.session_state["fp_current"].design
    widgets_before = {k: at.session_state[k] for k in ("w_gpu", "w_nodes", "w_fabric", "w_oversub", "w_px", "w_bits")}
    at.session_state["w_lang"] = "zh"
    rerun(at)
    assert not at.exception
    assert at.session_state["fp_current"].design == design_before
    assert dict(at.session_state["fp_job"]) == perf_before
    assert {k: at.session_state[k] for k in widgets_before} == widgets_before
    assert at.query_params["lang"] == "zh"
    assert not english_leaks(page_text(at))


def test_warnings_follow_the_language_switch():
    at = _run({"n": "abc"})
    assert at.warning and not chinese_leaks(at.warning[0].value)
    at.session_state["w_lang"] = "zh"
    rerun(at)
    assert at.warning and chinese_leaks(at.warning[0].value) and not english_leaks(at.warning[0].value)


def test_designer_tab_follows_the_language_switch_and_its_link_value_does_not():
    at = _run({"tab": "Cost & power"})
    assert at.session_state["fp_tab"] == "Cost & power" and at.dataframe  # the BOM
    at.session_state["w_lang"] = "zh"
    rerun(at)
    assert at.query_params["tab"] == "Cost & power" and at.dataframe and not at.exception
    with language("zh"):
        assert [t.label for t in at.tabs][2] == _("Cost & power") != "Cost & power"
    at.session_state["w_lang"] = "en"
    rerun(at)
    assert at.query_params["tab"] == "Cost & power" and at.dataframe


@pytest.mark.parametrize("value", ["Bandwidth", "bandwidth", "带宽"])
def test_tab_link_value_in_either_language(value):
    at = _run({"tab": value})
    assert at.session_state["fp_tab"] == "Bandwidth" and at.query_params["tab"] == "Bandwidth"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_xlsx_export_speaks_the_language(lang):
    """The XLSX (for people) has sheet names, headers and categories in the page's language (the CSV stays
    the engine's in every language, for scripts); core.formats.xlsx builds it, webui.cached caches it."""
    import io

    import openpyxl

    from core.design import Design
    from webui import cached

    book = openpyxl.load_workbook(io.BytesIO(cached.bom_xlsx(Design(nodes=64).model_dump_json(), lang)))
    bom = book.worksheets[1]
    headers = [c.value for c in next(bom.iter_rows(max_row=1))]
    categories = {row[0].value for row in bom.iter_rows(min_row=2)}
    if lang == "zh":
        assert book.sheetnames[:3] == ["摘要", "物料清单", "设计"] and headers[0] == "类别" and "交换机" in categories
        assert not english_leaks(" ".join(book.sheetnames[:3] + headers + sorted(categories)))
    else:
        assert book.sheetnames[:3] == ["Summary", "Bill of materials", "Design"]
        assert headers[0] == "category" and "item" in headers and "switch" in categories


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_growth_reserve_is_shown_on_the_cost_tab(lang):
    """grow_to: the Cost tab lists what growth still buys, apart from the installed BOM, in the page's language."""
    at = _run({"n": "64", "gt": "256", "tab": "Cost & power", "lang": lang})
    assert not at.exception
    with language(lang):
        heading = "#### " + _("Reserved for growth")
    assert any(m.value == heading for m in at.markdown)
    # the last table of counts (the By network table after it has a column per network, of text)
    reserved = next(d.value for d in reversed(at.dataframe) if pd.api.types.is_numeric_dtype(d.value.iloc[:, 2]))
    assert len(reserved) > 0 and reserved.iloc[:, 2].sum() > 0  # quantities to buy later
    plan_ = at.session_state["fp_current"].plan
    assert plan_.reserved_network_capex_usd > 0
    text = page_text(at)
    assert not (english_leaks(text) if lang == "zh" else chinese_leaks(text))


def test_growth_key_number():
    """grow_to: a key number says how far the installed fabric grows without recabling."""
    from core.design import Design
    from core.figures.keynumbers import key_numbers
    from core.plan import plan

    grown = {k.key: k for k in key_numbers(plan(Design(nodes=64, grow_to=256)).summary())}
    growth = plan(Design(nodes=64, grow_to=256)).summary()["growth"]
    assert grown["growth"].value == f"{growth['max_nodes_without_recabling']:,} nodes"
    assert growth["max_nodes_without_recabling"] >= 256
    assert "growth" not in {k.key for k in key_numbers(plan(Design(nodes=64)).summary())}
    with language("zh"):
        assert key_numbers(plan(Design(nodes=64, grow_to=256)).summary())[-1].value.endswith("个节点")
