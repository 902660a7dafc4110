"""Growth stages in the deliverables: the review pack's "Growth stages" section and the XLSX's sheet show the rows
of core.analysis.stages.stage_rows (the Racks & cabling tab's and the CLI's engine), in both languages; a design
without stages has neither."""

from __future__ import annotations

import io
import re

import openpyxl
import pytest

from core.analysis.stages import STAGE_COLUMNS, STAGES_SCOPE, growth, moved_rows, stage_headers, stage_rows
from core.design import Design
from core.errors import DesignError
from core.formats import report, xlsx
from core.i18n import _, language, number, usd
from core.plan import plan
from tests.i18n_check import english_leaks, html_text

STAGED = Design(gpu="H100", nodes=64, switch="QM9700", stages="128,256")
"""Without grow_to: the wider spine layer of each stage re-terminates leaf uplinks."""
GROWN = Design(gpu="H100", nodes=64, switch="QM9700", stages="128", grow_to=256)
FLAT = Design(gpu="H100", nodes=64, switch="QM9700")


def _section(html: str, ident: str) -> str:
    start = html.index(">", html.index(f'data-section="{ident}"')) + 1
    return html[start:html.index("</section>", start)]


def _cells(table_html: str) -> list[list[str]]:
    """The body rows of the first table in ``table_html``, each cell's text."""
    body = table_html[table_html.index("<tbody>"):table_html.index("</tbody>")]
    return [[html_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
            for r in re.findall(r"<tr>(.*?)</tr>", body)]


def _shown(rows: list[dict]) -> list[list[str]]:
    form = {"count": number, "usd": usd, "text": str}
    return [[form[STAGE_COLUMNS[c][1]](v) for c, v in row.items()] for row in rows]


@pytest.mark.parametrize("design", [STAGED, GROWN], ids=["stages", "stages-and-grow-to"])
def test_pack_shows_the_engines_stage_rows(design):
    deltas = growth(design)
    html = report.design_report_html(plan(design), name="Staged", share_link="http://localhost:8501/")
    section = _section(html, "growth")
    assert '<a href="#growth">Growth stages</a>' in html  # in the contents
    assert _cells(section) == _shown(stage_rows(deltas))
    assert [c[0] for c in _cells(section)] == [f"{d.from_nodes:,} → {d.to_nodes:,}" for d in deltas]
    moved = moved_rows(deltas)
    if any(d.cables_moved for d in deltas):
        table = section[section.index("Re-terminated cables by link class"):]
        assert [[r[0], r[2]] for r in _cells(table)] == [[step, number(n)] for step, _kind, n in moved]
        assert sum(n for *_step, n in moved) == sum(d.cables_moved for d in deltas) > 0
    else:
        assert "Re-terminated cables by link class" not in section
    order = re.findall(r'data-section="([^"]+)"', html)
    assert order.index("physical") < order.index("growth") < order.index("performance")


def test_stage_rows_are_the_deltas():
    deltas = growth(STAGED)
    rows = stage_rows(deltas)
    assert list(rows[0]) == list(STAGE_COLUMNS) == list(stage_headers())
    for row, d in zip(rows, deltas):
        assert (row["moved"], row["capex"], row["switches"], row["cables"]) == (
            d.cables_moved, d.capex_usd, d.switches_added, d.cables_added)
        assert row["gpus"] == d.to_gpus == plan(STAGED.model_copy(update={"nodes": d.to_nodes, "stages": None})
                                                 ).resolved.gpus
        cards = [plan(STAGED.model_copy(update={"nodes": n, "stages": None})).summary()["transceivers"]
                 for n in (d.from_nodes, d.to_nodes)]  # the Transceivers card's count: the compute fabric's
        assert row["transceivers"] == d.transceivers_bought == sum(
            c["switch_side"] + c["node_side"] for c in cards[1:]) - sum(c["switch_side"] + c["node_side"]
                                                                       for c in cards[:1]) > 0


def test_xlsx_sheet_holds_the_engines_numbers_with_formats():
    deltas = growth(STAGED)
    data = xlsx.design_xlsx(plan(STAGED))
    book = openpyxl.load_workbook(io.BytesIO(data))
    ws = book["Growth stages"]
    values = [list(r) for r in ws.iter_rows(values_only=True)]
    assert values[0] == list(stage_headers().values())
    assert values[1:len(deltas) + 1] == [[v for v in row.values()] for row in stage_rows(deltas)]
    assert values[-1][0] == _(STAGES_SCOPE)  # the columns' scope under the rows
    money = xlsx.number_format(xlsx.USD)
    for row in ws.iter_rows(min_row=2, max_row=len(deltas) + 1):
        formats = {column: cell.number_format for column, cell in zip(STAGE_COLUMNS, row)}
        assert formats["capex"] == money and formats["moved"] == formats["gpus"] == xlsx.WHOLE
    assert ws.freeze_panes == "A2"


def test_design_without_stages_has_neither_section_nor_sheet():
    html = report.design_report_html(plan(FLAT), name="Flat", share_link="http://localhost:8501/")
    assert 'data-section="growth"' not in html and "Growth stages" not in html
    book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(plan(FLAT))))
    assert "Growth stages" not in book.sheetnames


def test_stages_that_cannot_be_planned_say_why():
    """A later stage the fabric cannot build: the section and the sheet give the engine's reason, no table."""
    bad = Design(gpu="H100", nodes=64, switch="QM9700", stages="100000")
    with pytest.raises(DesignError) as info:
        growth(bad)
    html = report.design_report_html(plan(bad), name="Too big", share_link="")
    section = _section(html, "growth")
    assert "<table" not in section and html_text(section).strip().endswith(str(info.value).strip())
    book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(plan(bad))))
    assert book["Growth stages"]["A1"].value == str(info.value)


def test_chinese_section_and_sheet():
    deltas = growth(STAGED)
    with language("zh"):
        html = report.design_report_html(plan(STAGED), name="分期", share_link="http://localhost:8501/")
        headers = list(stage_headers().values())
        data = xlsx.design_xlsx(plan(STAGED))
        shown = _shown(stage_rows(deltas))
    section = _section(html, "growth")
    assert "扩容阶段" in section and _cells(section) == shown
    text = html_text(re.sub(r"<td[^>]*>.*?</td>", " ", section, flags=re.S))
    assert not english_leaks(text), english_leaks(text)
    book = openpyxl.load_workbook(io.BytesIO(data))
    assert [c.value for c in book["扩容阶段"][1]] == headers
