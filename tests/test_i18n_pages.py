"""The pages (Designer, Catalog, Performance) and their cached tables in each language.

Chinese pages show no English word of the catalog (``tests/i18n_check.english_leaks``; product names,
units and abbreviations allowed) and English pages no Chinese character, in the texts the pages
themselves write: titles, captions, markdown, tab and expander labels, widget labels, help texts and
options, table headers and the table cells the pages translate. Not checked here: the sidebar and
share box (``webui.state``), charts and key-number cards (``core.figures``), the engine's messages and
the verbatim docstrings of the Catalog page (``st.code``), product names and citations.

Real checks too: numbers do not change with the language, select values stay ids, the glossary shows
the definitions of the current language, the catalog's notes are translated and its citations are not,
every cached function is keyed by the language.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core import i18n
from core.catalog import load_catalog
from core.design import Design
from core.i18n import _, language
from core.text import NO_BREAK
from tests.i18n_check import chinese_leaks, english_leaks

ROOT = Path(__file__).resolve().parent.parent
ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CATALOG_PAGE = "../pages/2_Catalog.py"
PERF_PAGE = "../pages/3_Performance.py"
DESIGNS = {
    "default": {"n": "128"},
    "nvl72 ethernet 3 tiers": {"g": "GB200-NVL72", "n": "1152", "f": "eth", "os": "2", "px": "QM9700:20000"},
    "top-of-rack aoc": {"g": "B300", "n": "300", "f": "eth", "t": "tor", "cm": "aoc"},
}
TABS = ("Topology", "Bandwidth", "Cost & power")
LABELLED = ("button", "download_button", "selectbox", "multiselect", "number_input", "toggle", "radio",
            "text_input", "select_slider", "expander", "tab")


def run(params: dict, lang: str, page: str | None = None) -> AppTest:
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({**params, "lang": lang})
    at.run()
    if page:
        at.switch_page(page)
        with language(lang):  # AppTest formats select values with format_func in this thread
            at.run()
    assert not at.exception, at.exception
    return at


def _nodes(node):
    if getattr(node, "proto", None) is not None or getattr(node, "type", "") in LABELLED:
        yield node
    for child in (getattr(node, "children", None) or {}).values():
        yield from _nodes(child)


def page_texts(at: AppTest, translated_cells: tuple[str, ...] = ()) -> list[str]:
    """The texts the page itself writes (main area only), one string per element."""
    texts = []
    for node in _nodes(at.main):
        kind = getattr(node, "type", "")
        if kind in ("title", "caption", "markdown", "info", "subheader", "header"):
            value = str(node.value)
            if value.startswith("<style>") or 'class="fp-cards"' in value:
                continue  # CSS and the key-number cards (core.figures.keynumbers)
            texts.append(value)
        elif kind in LABELLED:
            texts += [str(getattr(node, "label", "") or ""), str(getattr(node, "help", "") or "")]
            if kind in ("selectbox", "radio") and node.options:
                texts += list(node.options)
        elif kind == "dataframe":
            frame = node.value
            texts += [str(c) for c in frame.columns]
            config = json.loads(node.proto.columns or "{}")
            texts += [str(c.get(k, "")) for c in config.values() for k in ("label", "help")]
            texts += [str(v) for c in translated_cells if c in frame for v in frame[c].tolist()]
    return [t for t in texts if t]


VERBATIM = ("python -m core plan --design design.json",)
"""Commands quoted in the help texts: never translated (docs/i18n.md)."""


def leaks(texts: list[str], lang: str) -> list[str]:
    text = re.sub(r"\\(.)", r"\1", "\n".join(texts)).replace(NO_BREAK, "")  # as a reader sees it (webui.safe.md)
    for verbatim in VERBATIM:
        text = text.replace(verbatim, " ")
    return english_leaks(text) if lang == "zh" else chinese_leaks(text)


def tab_params(tab: str, lang: str) -> dict:
    if tab == TABS[0]:
        return {}
    with language(lang):
        return {"tab": _(tab)}  # the link value is the label in the link's language (webui.state)


# --- each page in each language --------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize("tab", TABS)
def test_designer_speaks_one_language(lang, design, tab):
    at = run({**DESIGNS[design], **tab_params(tab, lang)}, lang)
    texts = page_texts(at, translated_cells=("category", "price_basis", _tr("category", lang),
                                             _tr("price basis", lang), _tr("role", lang)))
    assert len(texts) > 5
    assert not leaks(texts, lang), leaks(texts, lang)
    assert not any(re.search(r"\{[a-z_]+\}", t) for t in texts), "a placeholder was not filled"
    if lang == "zh":
        assert at.title[0].value != "Fabric planner" and chinese_leaks(at.caption[0].value)


def _tr(message: str, lang: str) -> str:
    with language(lang):
        return _(message)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_catalog_speaks_one_language(lang):
    at = run({"n": "64"}, lang, CATALOG_PAGE)
    with language(lang):
        # the notes are the catalog's translations (names and citations kept): checked in a test of their own
        cells = (_("price basis"), "price_basis", _("media"), "media", _("fitted at"), "end", _("cable kind"), "kind",
                 _("role"), "role", _("fabrics"), "fabrics")
    texts = page_texts(at, translated_cells=cells)
    assert not leaks(texts, lang), leaks(texts, lang)
    assert not any(re.search(r"\{[a-z_]+\}", t) for t in texts)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("params", [{"n": "128"}, {"n": "16", "perf_tp": "3"}, {"n": "2"},
                                    {"g": "GB200-NVL72", "n": "1152", "f": "eth", "os": "2"}])
def test_performance_speaks_one_language(lang, params):
    at = run(params, lang, PERF_PAGE)
    texts = page_texts(at)
    assert not leaks(texts, lang), leaks(texts, lang)
    if lang == "zh" and params.get("perf_tp"):  # an impossible split: the way out in Chinese too
        assert at.error and "可行的做法" in at.error[0].value


def test_performance_standalone_takes_lang_from_the_link():
    at = AppTest.from_file(str(ROOT / "pages" / "3_Performance.py"), default_timeout=120)
    at.query_params.update({"n": "64", "lang": "zh"})
    at.run()
    assert not at.exception and at.title[0].value == _tr("Performance", "zh") != "Performance"


# --- real checks ----------------------------------------------------------------------------------------
def test_bom_numbers_and_ids_do_not_change_with_the_language():
    en = run({"n": "128", "tab": "Cost & power"}, "en").dataframe[0].value
    zh_at = run({"n": "128", "tab": _tr("Cost & power", "zh")}, "zh")
    zh = zh_at.dataframe[0].value
    with language("zh"):
        qty, unit, total, catalog_id, category = _("qty"), _("unit USD"), _("total USD"), _("catalog id"), _("category")
    assert list(en.columns[:4]) == ["category", "item", "where", "quantity"]  # English: the ids (tests, downloads)
    assert qty in zh.columns and "quantity" not in zh.columns
    assert zh[qty].tolist() == en["quantity"].tolist()
    # money in each language's one format, of the same amounts, a column's decimals picked once (core.units)
    from core.formats.xlsx import bom_table
    from core.plan import plan
    from core.units import money_column

    amounts = bom_table(plan(Design(nodes=128)))
    assert en["unit_price_usd"].tolist() == [i18n.usd(v) for v in amounts["unit_price_usd"]]
    assert en["extended_price_usd"].tolist() == [i18n.usd(v) for v in amounts["extended_price_usd"]]
    with language("zh"):
        assert zh[unit].tolist() == money_column(list(amounts["unit_price_usd"]))
        assert zh[total].tolist() == money_column(list(amounts["extended_price_usd"]))
    assert zh[catalog_id].tolist() == en["catalog_id"].tolist()
    with language("zh"):
        from core.cost import CATEGORY_LABELS
        assert zh[category].tolist() == [_(CATEGORY_LABELS[c]) for c in en["category"]]
    assert set(zh[category]) & {"计算", "交换机", "网卡"} and not set(zh[category]) & set(en["category"])
    # the downloads keep the engine's column names in every language
    csv = [b for b in zh_at.get("download_button") if b.proto.label == _tr("BOM as CSV", "zh")]
    assert csv


def test_catalog_notes_are_translated_and_citations_are_not():
    catalog = load_catalog()
    zh = run({"n": "64"}, "zh", CATALOG_PAGE)
    en = run({"n": "64"}, "en", CATALOG_PAGE)
    with language("zh"):
        notes, source, price_source = _("notes"), _("source"), _("price source")
        tab_labels = [_(t) for t in ("GPU systems", "NICs", "Switches", "Transceivers", "Cables", "NVLink generations")]
    assert [t.label for t in zh.tabs] == tab_labels and len(zh.dataframe) == 8  # + the price book, the calibration
    systems_zh, systems_en = zh.dataframe[0].value, en.dataframe[0].value
    assert systems_zh[source].tolist() == systems_en["source"].tolist() == [s.source for s in catalog.systems]
    assert systems_zh[price_source].tolist() == [s.price_source for s in catalog.systems]
    with language("zh"):
        assert systems_zh[notes].tolist() == [_(s.notes) if s.notes else s.notes for s in catalog.systems]
    translated = [n for n, e in zip(systems_zh[notes], catalog.systems) if e.notes and n != e.notes]
    assert len(translated) >= len(catalog.systems) // 2, "the notes are shown in English"
    assert systems_en["notes"].tolist() == [s.notes for s in catalog.systems]
    # numbers are the same; only the header differs
    with language("zh"):
        assert systems_zh[_("GPUs per node")].tolist() == systems_en["gpus_per_node"].tolist()
    assert any("按原文引用" in c.value for c in zh.caption)  # sources are quoted as published


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_glossary_shows_the_definitions_of_the_language(lang):
    at = run({"n": "64"}, lang, CATALOG_PAGE)
    table = at.get("table")
    assert len(table) == 2  # the terms, then what their source codes stand for
    frame = table[0].value
    codes = table[1].value.iloc[:, 0].tolist()
    assert "[seed]" in codes and "[NVC]" in codes
    with language(lang):
        assert list(frame.columns) == [_("English term"), _("Chinese"), _("other names"), _("definition"), _("source")]
        definition = _("definition")
    terms = i18n.glossary()
    assert frame[frame.columns[0]].tolist() == [t["en"] for t in terms]
    assert frame[frame.columns[1]].tolist() == [t["zh"] for t in terms]
    assert frame[definition].tolist() == [t["zh_definition" if lang == "zh" else "en_definition"] for t in terms]
    assert any(m.value == "#### " + _tr("Glossary", lang) for m in at.markdown)


def test_formulas_in_chinese_are_summarised_and_the_docstrings_kept_verbatim():
    zh = run({"n": "64"}, "zh", CATALOG_PAGE)
    en = run({"n": "64"}, "en", CATALOG_PAGE)
    from core.fabric import sizing
    assert [e.label for e in en.expander][:2] == ["Fabric sizing (core/fabric/sizing.py)",
                                                  "Bandwidth (core/fabric/bandwidth.py)"]
    labels = [e.label for e in zh.expander]
    assert labels[:4] == ["网络规模计算", "带宽", "物料清单、成本与功耗", "拓扑图"]
    for expander in zh.expander[:4]:
        summary = expander.markdown[0].value
        assert chinese_leaks(summary) and not english_leaks(summary) and len(summary) > 80
        assert "英文" in expander.caption[0].value
    codes = "\n".join(c.value for c in zh.code)
    assert inspect.getdoc(sizing.size_fabric) in codes and inspect.getdoc(sizing) in codes
    assert not any(chinese_leaks(m.value) for e in en.expander for m in e.markdown)  # English: no summaries


def test_performance_select_values_stay_ids_and_survive_a_language_switch():
    at = run({"n": "128", "perf_cmp": "ib1", "perf_prec": "fp8", "perf_model": "llama3-8b"}, "en", PERF_PAGE)
    before = {k: at.session_state[k] for k in ("perf_w_cmp", "perf_w_prec", "perf_w_model", "perf_w_op")}
    at.session_state["w_lang"] = "zh"
    with language("en"):  # AppTest sends the widgets' values as the last run (English) labelled them
        at.run()
    assert not at.exception
    assert {k: at.session_state[k] for k in before} == before == {
        "perf_w_cmp": "ib1", "perf_w_prec": "fp8", "perf_w_model": "llama3-8b", "perf_w_op": ["all-reduce"]}
    compare = at.selectbox(key="perf_w_cmp")
    assert compare.value == "ib1" and compare.options[2] == "InfiniBand 1:1"
    assert at.title[0].value == _tr("Performance", "zh")


# --- the caches ----------------------------------------------------------------------------------------
def test_every_cached_table_is_keyed_by_the_language():
    from webui import cached
    key = Design(nodes=128).model_dump_json()
    en, zh = cached.switch_groups(key, "en"), cached.switch_groups(key, "zh")
    assert list(en.columns)[0] == "role" and list(zh.columns)[0] == "角色"
    assert en.iloc[:, 1:6].values.tolist() == zh.iloc[:, 1:6].values.tolist()
    assert en["role"].tolist() == ["leaf", "spine"] and zh["角色"].tolist() == ["叶交换机", "脊交换机"]
    bom_en, bom_zh = cached.bom_table(key, "en"), cached.bom_table(key, "zh")
    assert bom_en["quantity"].tolist() == bom_zh["quantity"].tolist()
    assert bom_en["category"].tolist() != bom_zh["category"].tolist()
    assert cached.bom_table(key, "en") is bom_en  # cached per language, not rebuilt
    # the cached functions take the language (every one that holds text)
    for name in ("topology", "scaleup", "bandwidth_hierarchy", "tier_capacity", "sweep", "oversubscription",
                 "sweep_table", "switch_groups", "capex", "power", "bom", "bom_table", "bom_csv", "bom_xlsx"):
        assert "language" in inspect.signature(getattr(cached, name)).parameters, name
    fig_en, fig_zh = cached.capex(key, "en"), cached.capex(key, "zh")
    assert fig_en.layout.title.text != fig_zh.layout.title.text


def test_csv_download_keeps_the_engine_columns_in_every_language():
    from webui import cached
    key = Design(nodes=16).model_dump_json()
    header_en = cached.bom_csv(key, "en").splitlines()[0]
    header_zh = cached.bom_csv(key, "zh").splitlines()[0]
    assert header_en == header_zh and header_en.startswith("category,item,catalog_id,quantity")
    assert pd.read_csv(__import__("io").StringIO(cached.bom_csv(key, "zh")))["quantity"].sum() > 0


@pytest.mark.parametrize("page,params,joined", [
    ("../pages/3_Performance.py", {"v": "1", "n": "64", "pods": "B300:32:800"}, "）·"),
    ("../pages/6_Resilience.py", {"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144"}, "每个 4 个 GPU），经"),
])
def test_page_captions_take_no_space_after_a_full_width_bracket(page, params, joined):
    """The design line under a page's title is the Designer's subtitle's shape: in Chinese no space between a
    closing full-width bracket and what follows it (``1.33:1）· NCCL``, ``每个 4 个 GPU），经第二级 NVLink``)."""
    from tests.pagetest import open_page

    at = open_page(page, {**params, "lang": "zh"})
    captions = [c.value for c in at.caption]
    assert any(joined in c for c in captions), captions[:3]
    assert not [c for c in captions if "） ·" in c], [c for c in captions if "） ·" in c]
