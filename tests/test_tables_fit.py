"""The Designer's wide tables at a 1,024 px window (webui.tablefit): the columns a reader needs come first and fit
the main area together, short headers keep their full words in the tooltip; the rest is a sideways scroll away."""

from __future__ import annotations

import pytest

from core.analysis.whatif import oversubscription_sweep, sweep_display_table
from core.design import Design
from core.figures.style import text_width
from core.formats.xlsx import bom_headers, bom_table, category_label
from core.i18n import _, language
from core.plan import plan
from webui import tablefit, tables


@pytest.fixture(scope="module")
def large():
    return plan(Design(gpu="H100", gpus=16384))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_boms_item_to_its_total_fit_the_window(large, lang):
    with language(lang):
        header = bom_headers()
        bom = bom_table(large)
        col = (lambda c: c) if lang == "en" else header.get
        if lang != "en":
            bom = bom.rename(columns=header)
        bom = tables.money(bom, [col("unit_price_usd"), col("extended_price_usd")])
        shown, config = tablefit.bom_columns(bom, header, col)
    first = [col(c) for c in tablefit.BOM_FIRST]
    assert shown[:len(first)] == first and set(shown) == set(bom.columns)
    assert tablefit.leading_px(bom, config, first) <= tablefit.MAIN_PX
    assert shown[len(first)] == col("unit_price_usd")  # next, partly in view; the count's words a scroll away
    assert tablefit.leading_px(bom, config, first + [col("unit_price_usd"), col("category"), col("why")]) > tablefit.MAIN_PX


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bill_of_a_design_with_pods_says_whose_each_row_is(lang):
    """Pods: a pod column after where (pod 1, pod 2, the shared spines "shared"), the leading columns still fit."""
    from core.analysis.whole import whole_plan

    with language(lang):
        header = bom_headers()
        bom = bom_table(whole_plan(plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))))
        col = (lambda c: c) if lang == "en" else header.get
        if lang != "en":
            bom = bom.rename(columns=header)
        bom = tables.money(bom, [col("unit_price_usd"), col("extended_price_usd")])
        shown, config = tablefit.bom_columns(bom, header, col)
        pods = [_("pod {pod}").format(pod=n) for n in (1, 2)] + [_("shared")]
        node, nic = _("{name} (node)").format(name="")[1:-1].strip("()（）"), category_label("NIC")  # as the bill
    first = [col(c) for c in ("item", "where", "pod", "quantity", "extended_price_usd")]
    assert shown[:len(first)] == first and tablefit.leading_px(bom, config, first) <= tablefit.MAIN_PX
    assert set(bom[col("pod")]) == set(pods) and bom[col("pod")].iloc[0] == pods[2]  # the shared spines first
    nics = bom[bom[col("category")] == nic]
    assert list(nics[col("pod")]) == pods[:2] and set(nics[col("where")]) == {node}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("unit", ["GB/s", "Gb/s"])
def test_the_what_if_tables_leading_columns_fit_with_short_headers(large, lang, unit):
    with language(lang):
        frame = sweep_display_table(oversubscription_sweep(large.design), unit)
        shown, config = tablefit.sweep_columns(frame, unit)
    first = shown[:len(tablefit.SWEEP_SHORT) + 1]  # the short headers and the note
    assert set(first) == set(config) and len(first) == len(tablefit.SWEEP_SHORT) + 1  # every short header matched
    assert tablefit.leading_px(frame, config, first[:tablefit.SWEEP_IN_VIEW]) <= tablefit.MAIN_PX
    labels = [config[c]["label"] for c in first]
    assert all(text_width(label) <= tablefit.HEADER_CHARS for label in labels), labels
    shortened = [c for c in first if config[c]["label"] != c]
    assert len(shortened) >= 3 and all(config[c].get("help") for c in shortened)  # the full words in the tooltip


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("fields", [dict(gpus=16384), dict(gpus=32), dict(gpus=4096, topology="dragonfly"),
                                    dict(gpus=1024, topology="top-of-rack")], ids=str)
def test_the_what_ifs_note_is_whole_at_1280_px(fields, lang):
    """The note says why a ratio cell reads ``1.5:1 → 1:1``: it comes after the four leading columns and fits
    beside them at a 1,280 px window, every note whole (not "sam…")."""
    with language(lang):
        frame = sweep_display_table(oversubscription_sweep(Design(gpu="H100", **fields)), "GB/s")
        shown, config = tablefit.sweep_columns(frame, "GB/s")
        note = _("note")
    assert shown.index(note) == tablefit.SWEEP_IN_VIEW
    notes = [n for n in frame[note] if n]
    assert notes or fields == dict(gpus=16384)  # most designs repeat a design in the sweep
    assert all(tables.fitting_width([n]) < tables.MAX_FIT_PX for n in notes), notes  # none cut at the widest column
    assert tablefit.leading_px(frame, config, shown[:tablefit.SWEEP_IN_VIEW + 1]) <= tablefit.MAIN_PX_AT_1280
    following = shown[tablefit.SWEEP_IN_VIEW + 1]  # partly in view: its numbers on its left, where they show
    assert config[following]["alignment"] == "left" and config[shown[1]].get("alignment") != "left"


def test_the_full_table_would_not_fit():
    """The rule has work to do: the what-if table as the engine words it scrolls at 1,024 px."""
    frame = sweep_display_table(oversubscription_sweep(Design(gpu="H100", gpus=16384)), "GB/s")
    assert sum(tables.fitting_width(frame[c].tolist(), c) for c in frame.columns) > tablefit.MAIN_PX


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cable_tables_links_media_and_longest_fit(large, lang):
    from webui.physical_tab import _media_rows
    import pandas as pd

    with language(lang):
        frame = pd.DataFrame(_media_rows(large.media))
        shown, config = tablefit.media_columns(frame)
        first = shown[:len(tablefit.MEDIA_FIRST)]
        assert first == [_(c) for c in tablefit.MEDIA_FIRST]
    assert tablefit.leading_px(frame, config, first) <= tablefit.MAIN_PX
    assert all(c.get("help") for c in config.values() if c.get("label") not in (None, *frame.columns))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_training_steps_exposed_time_is_in_view(large, lang):
    import pandas as pd

    from core.perf import jobform
    from core.perf.training import TrainingJob, estimate, model_preset

    job = TrainingJob(model=model_preset("llama3-70b"), tp=8, pp=2)
    with language(lang):
        frame = pd.DataFrame(jobform.communication_rows(estimate(large, job), large.resolved.system))
        shown, config = tablefit.comm_columns(frame)
        first = [_(c) for c in tablefit.COMM_FIRST]
        exposed, collective = _("exposed [s]"), _("collective")
    assert shown[:len(first)] == first and exposed in first and shown[len(first)] == collective
    assert tablefit.leading_px(frame, config, first) <= tablefit.MAIN_PX


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_price_books_part_and_range_fit_the_window(lang):
    """The Catalog page's price book: each part's id and its low, typical and high price lead, pinned id first, and
    fit the main area at a 1,024 px window. The kind and the name led, the name as wide as the longest: the high
    price was cut off at 1,280 px in both languages."""
    import json

    from tests import pagetest

    at = pagetest.open_page("../pages/2_Catalog.py", {"lang": lang})
    table = at.dataframe[6]  # after the six catalog tables
    book, config = table.value, json.loads(table.proto.columns or "{}")
    with language(lang):
        first = ["id" if lang == "en" else _("catalog id")] + [_(f"{end} [USD]") if lang != "en" else f"{end}_usd"
                                                             for end in ("low", "typical", "high")]
    assert list(book.columns[:4]) == first, list(book.columns)
    assert config[first[0]].get("pinned") and tablefit.leading_px(book, config, first) <= tablefit.MAIN_PX
    assert config[first[0]]["width"] >= tables.fitting_width(book[first[0]], first[0])  # every id whole
