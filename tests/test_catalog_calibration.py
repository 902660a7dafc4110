"""The training calibration table on the Catalog page: every published run, its role and error, from the engine."""

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core import units
from core.i18n import _, language
from core.perf.training_calibration import (CALIBRATION_COLUMNS, ROLE_LABELS, calibration_rows, evaluate_all,
                                            held_out_summary, load_runs, shown_value)
from webui import tables

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))
CATALOG_PAGE = "../pages/2_Catalog.py"


@pytest.fixture(scope="module")
def results():
    return evaluate_all()


def test_rows_carry_every_run_its_role_error_and_citation(results):
    rows = calibration_rows(results)
    runs = load_runs()
    assert [r["id"] for r in rows] == [run.id for run in runs.run]
    assert rows[0]["run"] == "Llama 3 70B on 64 GPUs (GB300-NVL72)"  # in words, not the catalog's id
    assert not {r["id"] for r in rows} & {r["run"] for r in rows}
    for row, result in zip(rows, results):
        assert row["error"] == units.percent(result.error, signed=True)  # the one percent format
        assert row["source"] == runs.source(result.run) and row["source"]
        if result.run.role == "fit":
            assert row["role"] == ROLE_LABELS["fit"] and row["note"] == result.run.sets and row["note"]
        else:
            assert row["role"] == ROLE_LABELS["held-out"] and row["note"] == result.run.miss
    within, held, fit = held_out_summary(results)
    assert fit + held == len(rows) and 0 < within <= held and fit > 0


def test_values_are_shown_in_their_measure():
    assert shown_value("mfu", 0.4321) == "43.2%"
    assert shown_value("step_s", 9.6666) == "9.67"
    assert shown_value("tokens_per_s_per_gpu", 1559.4) == "1,559"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_catalog_page_shows_the_calibration_from_the_engine(lang, results):
    at = AppTest.from_file(ENTRY, default_timeout=120)
    at.query_params.update({"n": "64", "lang": lang})
    at.run()
    at.switch_page(CATALOG_PAGE)
    with language(lang):  # AppTest formats select values with format_func in this thread
        at.run()
    assert not at.exception
    with language(lang):
        headers = {c: _(label) for c, label in CALIBRATION_COLUMNS.items()}
        expected = calibration_rows(results)
        title = _("Training estimate: calibration against published runs")
    shown = next(d for d in at.dataframe if headers["error"] in d.value.columns and headers["run"] in d.value.columns)
    table = shown.value
    assert list(table.columns) == list(headers.values())
    # every run whole in its pinned column: at 250 px "DeepSeek-V3 (671B MoE) on 256 GPUs (GB3..." lost its system
    run = json.loads(shown.proto.columns)[headers["run"]]
    assert run["pinned"] and run["width"] >= int(max(map(tables.text_px, table[headers["run"]])) + tables.CELL_PADDING_PX)
    assert list(table[headers["run"]]) == [r["run"] for r in expected]
    assert list(table[headers["error"]]) == [r["error"] for r in expected]
    assert list(table[headers["role"]]) == [r["role"] for r in expected]
    assert any(title in m.value for m in at.markdown)
    within, held, fit = held_out_summary(results)
    summary = next(m.value for m in at.markdown if f"{within}" in m.value and f"{held}" in m.value
                   and f"{fit}" in m.value and "15%" in m.value)
    assert summary
