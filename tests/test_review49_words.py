"""review49's unit, scope and wording findings: the pods sentence's bus bandwidth in the user's unit (pages, CLI,
review pack), the Growth stages columns of one scope each, Compare's switch rows that add up to the total, one zh
term for minimal routing, and the plane mode's short option labels."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from core.analysis.compare import compare
from core.analysis.whole import pod_plan
from core.cli import main as cli_main
from core.design import Design
from core.i18n import _, language
from core.plan import plan
from tests import pagetest

PODS = Design(gpu="H100", nodes=64, pods="B300:32:800")
"""64 H100 nodes at 400G and 32 B300 nodes at 800G: an all-reduce of 1 GiB across every pod at most 363 GB/s,
2.9 Tb/s."""


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return out.getvalue()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pods_sentences_say_the_users_unit(lang):
    with language(lang):
        words = pod_plan(plan(PODS), 1, "Gb/s")[1]
        note = compare([("mixed", PODS)]).columns[0].all_notes("Gb/s")[0]
        bytes_words = pod_plan(plan(PODS), 1, "GB/s")[1]
    for text in (words, note):
        assert "2.9 Tb/s" in text and "GB/s" not in text
    assert "363 GB/s" in bytes_words and "Tb/s" not in bytes_words


def test_the_cli_says_the_pods_bound_in_its_units(tmp_path):
    trained = _cli("train", "--nodes", "64", "--pods", "B300:32:800", "--units", "gbit")
    assert "across every pod reaches at most 2.9 Tb/s bus bandwidth" in trained and "GB/s bus" not in trained
    (tmp_path / "a.json").write_text(PODS.model_dump_json(), encoding="utf-8")
    (tmp_path / "b.json").write_text(Design(gpu="H100", nodes=64).model_dump_json(), encoding="utf-8")
    files = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    assert "at most 2.9 Tb/s bus bandwidth" in _cli("compare", *files, "--units", "gbit")
    data = json.loads(_cli("compare", *files, "--units", "gbit", "--format", "json"))
    assert "2.9 Tb/s" in data["columns"][0]["notes"][0]


@pytest.mark.parametrize("page", ["../pages/3_Performance.py", "../pages/4_Compare.py"])
def test_pages_say_the_pods_bound_in_gbits(page):
    params = {"n": "64", "pods": "B300:32:800", "ui_bw": "gbit"} if "Performance" in page else {
        "n": "64", "ui_bw": "gbit", "c1_name": "mixed", "c1_n": "64", "c1_pods": "B300:32:800"}
    at = pagetest.opener(page)(params)
    assert not at.exception
    captions = [str(c.value).replace("\\", "").replace("\u2060", "") for c in at.caption]
    bound = [c for c in captions if "across every pod reaches at most" in c]
    assert bound and all("2.9 Tb/s" in c and "GB/s" not in c for c in bound)


@pytest.mark.parametrize("lang, words", [("en", ("Per port:", "Per rail:")), ("zh", ("按端口：", "按轨道："))])
def test_the_plane_mode_options_are_short_and_the_help_says_both(lang, words):
    from streamlit.testing.v1 import AppTest

    from core.cli.common import display_width

    at = AppTest.from_file(pagetest.ENTRY, default_timeout=60)
    at.query_params.update({"n": "64", "lang": lang})
    at = at.run()
    box = at.selectbox(key="w_plane_mode")
    assert not at.exception and len(box.options) == 2
    assert all(display_width(option) <= 12 for option in box.options)  # the 1280 px sidebar cut 27 columns
    assert all(word in box.help for word in words)


LEVEL2 = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
"""Two-level NVLink: 24 leaves, 14 spines and 72 NVLink level 2 switch units, 110 switches in total."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compares_switch_rows_add_up_to_the_total(lang):
    from core.analysis.compare import metric_label

    with language(lang):
        result = compare([("two levels", LEVEL2), ("one level", Design(gpu="GB200-NVL72", nodes=144))])
        labels = {m.key: metric_label(m, result.level2, result.families) for m in result.rows}
    values = result.columns[0].values
    parts = [k for k in labels if k.startswith("switches_") and k != "switches_total"]
    assert "switches_nvlink_level2" in parts and values["switches_nvlink_level2"] == 72
    assert sum(values[k] for k in parts) == values["switches_total"] == 110
    assert labels["switches_nvlink_level2"] == ("NVLink level 2 switch units" if lang == "en" else "第二级 NVLink 交换单元")
    alone = compare([("one level", Design(gpu="GB200-NVL72", nodes=144))])
    assert "switches_nvlink_level2" not in {m.key for m in alone.rows}  # no design has the row's parts


def test_the_workbook_lists_the_level2_switch_units():
    import openpyxl

    from core.formats.xlsx import design_xlsx

    book = openpyxl.load_workbook(io.BytesIO(design_xlsx(plan(LEVEL2))))
    rows = {row[0]: row[1] for row in book.worksheets[0].iter_rows(values_only=True) if row and row[0]}
    switch_rows = [v for k, v in rows.items() if k.endswith("switches") or k == "NVLink level 2 switch units"]
    assert rows["NVLink level 2 switch units"] == 72
    assert sum(switch_rows) == rows["Switches in total (compute fabric and NVLink level 2)"] == 110


def test_the_compare_cli_table_shows_the_level2_row(tmp_path):
    (tmp_path / "a.json").write_text(LEVEL2.model_dump_json(), encoding="utf-8")
    (tmp_path / "b.json").write_text(Design(gpu="GB200-NVL72", nodes=144).model_dump_json(), encoding="utf-8")
    table = _cli("compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    row = next(line for line in table.splitlines() if line.startswith("NVLink level 2 switch units"))
    assert row.split()[5] == "72"


def test_the_growth_columns_count_one_scope_each_and_say_it():
    from core.analysis.stages import STAGES_SCOPE, growth, stages_note

    design = Design(gpu="H100", nodes=64, stages="128,256")
    first = growth(design)[0]
    cards = [plan(Design(gpu="H100", nodes=n)).summary() for n in (64, 128)]
    fabric = [c["transceivers"]["switch_side"] + c["transceivers"]["node_side"] for c in cards]
    # the compute fabric's, as its switches and cables: 1,024, not every network's 1,348 (storage +324)
    assert first.transceivers_bought == fabric[1] - fabric[0] == first.cables_added == 1024
    assert first.capex_usd == pytest.approx(cards[1]["cost"]["capex_usd"] - cards[0]["cost"]["capex_usd"])
    for lang in ("en", "zh"):
        with language(lang):
            scope = _(STAGES_SCOPE)
            assert stages_note(design).endswith(scope)
            assert scope in _cli("stages", "--nodes", "64", "--stages", "128,256", "--lang", lang)
    assert "计算网络" in scope and "整个集群" in scope


def test_the_review_pack_says_the_pods_bound_in_its_unit():
    import re

    from core.formats.report import design_report_html

    html = design_report_html(plan(PODS), name="Mixed", share_link="", unit="Gb/s")
    said = re.findall(r"across every pod reaches at most [^<]*", html.replace("\u2060", ""))
    assert said and all("2.9 Tb/s" in s and "GB/s" not in s for s in said)
