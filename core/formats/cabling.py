"""The cabling plan as CSV (streamed) and XLSX (a summary sheet and the plan, formatted).

A design with pods: every pod's cables and the leaf-spine cables to the shared spines
(``core.formats.podnetbox.plan_cabling_rows``: the NetBox cables' plan, names ``pod<n>-``).

``write_csv(plan, out, naming)`` writes ``core.physical.cabling.CABLE_COLUMNS`` as the header and one line
per cable, as the rows come (English ids; a 131,072-GPU plan of ~400,000 cables streams in seconds).
``write_xlsx(plan, target, naming)`` writes a workbook in openpyxl's write-only mode (rows are streamed to
the file, never held): a *Summary* sheet (cables by network, link class, media and length bin) and the
*Cabling plan* sheet (column formats and widths, frozen header, autofilter). Excel holds at most
1,048,576 rows per sheet (``EXCEL_MAX_ROWS``): a longer plan continues on *Cabling plan 2*, *3*, ...,
each with its header, and the summary says so.

Languages: the XLSX sheet names, the summary's labels and the plan sheet's column titles are in the
language of the request (``core.i18n``); every cell value is an English id, as in the CSV.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from typing import BinaryIO, TextIO

from core.fabric.naming import NamingScheme
from core.formats.exports import Export
from core.i18n import N_, _
from core.units import length_bin_name
from core.formats.podnetbox import plan_cabling_rows
from core.physical.cabling import CABLE_COLUMNS

EXCEL_MAX_ROWS = 1_048_576
"""Rows of one Excel worksheet (header included)."""

LENGTH_BINS_M = (3.0, 10.0, 30.0, 50.0, 100.0)
"""Upper edges of the summary's length bins [m]: <= 3, 3-10, 10-30, 30-50, 50-100, > 100 m."""

COLUMN_TITLES = {
    "cable_id": N_("Cable ID"), "network": N_("Network"), "link_class": N_("Link class"),
    "a_rack": N_("A rack"), "a_u": N_("A U"), "a_device": N_("A device"), "a_port": N_("A port"),
    "z_rack": N_("Z rack"), "z_u": N_("Z U"), "z_device": N_("Z device"), "z_port": N_("Z port"),
    "speed_gbps": N_("Speed [Gb/s]"), "media": N_("Media"), "length_m": N_("Length [m]"), "cable_part": N_("Cable part"),
    "a_transceiver": N_("A transceiver"), "z_transceiver": N_("Z transceiver"),
}
"""Plan sheet column -> its title, English marked for translation."""

_WIDTHS = {"cable_id": 12, "network": 10, "link_class": 12, "a_rack": 10, "a_u": 6, "a_device": 16,
           "a_port": 12, "z_rack": 10, "z_u": 6, "z_device": 18, "z_port": 12, "speed_gbps": 12, "media": 8,
           "length_m": 11, "cable_part": 22, "a_transceiver": 22, "z_transceiver": 22}


def write_csv(plan, out: TextIO, naming: NamingScheme | None = None) -> None:
    """Stream the cabling plan of ``plan`` to ``out`` as CSV (header ``CABLE_COLUMNS``; empty = unknown); a design
    that grows has a last column ``stage`` and, without pods, the later stages' cables after its own
    (``core.formats.stagecabling``)."""
    from core.formats.stagecabling import STAGE_COLUMN, staged_plans, staged_rows

    writer = csv.writer(out, lineterminator="\n")
    plans = staged_plans(plan)
    if plans is None:
        writer.writerow(CABLE_COLUMNS)
        writer.writerows(plan_cabling_rows(plan, naming))  # csv writes None as an empty field
        return
    writer.writerow((*CABLE_COLUMNS, STAGE_COLUMN))
    writer.writerows(staged_rows(plan, plan_cabling_rows(plan, naming), plans, naming))


EXPORTS = (Export(name="cabling", write=write_csv, suffix=".csv", mime="text/csv",
                  label=N_("Port-to-port cabling plan of every network (CSV; python -m core cabling also writes "
                           "XLSX)"), every_pod=True),)
"""The cabling plan among the export formats (``core.formats.exports``), as ``python -m core export --format
cabling`` and the Designer's Hand-off tab offer it."""


def length_bin(length_m: float | None) -> str:
    """The summary's length bin of a cable (``"<= 3 m"``, ``"3-10 m"``, ..., ``"> 100 m"``; ``"unknown"``)."""
    if length_m is None:
        return "unknown"
    low = 0.0
    for edge in LENGTH_BINS_M:
        if length_m <= edge:
            return length_bin_name(low, edge)
        low = edge
    return length_bin_name(low, math.inf)


def summarize(plan, naming: NamingScheme | None = None) -> tuple[Counter, int]:
    """``(Counter of (network, link class, media, length bin), total cables)`` over the whole plan."""
    counts: Counter = Counter()
    total = 0
    for row in plan_cabling_rows(plan, naming):
        counts[(row.network, row.link_class, row.media, length_bin(row.length_m))] += 1
        total += 1
    return counts, total


def write_xlsx(plan, target: str | BinaryIO, naming: NamingScheme | None = None,
               rows_per_sheet: int = EXCEL_MAX_ROWS - 1) -> None:
    """Write the cabling plan workbook to ``target`` (a path or a binary stream).

    ``rows_per_sheet`` cables per plan sheet (Excel's limit less the header by default; smaller in tests).
    The summary is counted in a first pass over the rows, the plan written in a second, so memory stays
    flat at any size.
    """
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font, PatternFill
    from openpyxl.utils import get_column_letter

    counts, total = summarize(plan, naming)
    sheets = max(1, -(-total // rows_per_sheet))
    book = Workbook(write_only=True)
    bold = Font(bold=True)
    fill = PatternFill("solid", fgColor="DDE4EE")

    def header_cells(sheet, titles):
        cells = []
        for title in titles:
            cell = WriteOnlyCell(sheet, value=title)
            cell.font, cell.fill = bold, fill
            cell.alignment = Alignment(vertical="center")
            cells.append(cell)
        return cells

    summary = book.create_sheet(_("Summary"))
    for letter, width in zip("ABCDE", (12, 14, 10, 14, 12)):
        summary.column_dimensions[letter].width = width
    summary.freeze_panes = "A4"
    summary.append([WriteOnlyCell(summary, value=_("Cabling plan: {count} cables").format(count=f"{total:,}"))])
    note = (_("The plan continues over {sheets} sheets of at most {rows} cables (Excel's row limit).").format(
        sheets=sheets, rows=f"{rows_per_sheet:,}") if sheets > 1 else
        _("Rack, U and length are empty where the design has no rack layout."))
    summary.append([note])
    summary.append(header_cells(summary, (_("Network"), _("Link class"), _("Media"), _("Length"), _("Cables"))))
    for (network, link_class, media, length), count in sorted(counts.items()):
        summary.append([network, link_class, media, length, count])
    summary.append([])
    totals: Counter = Counter()
    for (network, _link_class, _media, _length), count in counts.items():
        totals[network] += count
    summary.append(header_cells(summary, (_("Network"), _("Cables"))))
    for network, count in sorted(totals.items()):
        summary.append([network, count])

    titles = [_(COLUMN_TITLES[c]) for c in CABLE_COLUMNS]
    formats = {"length_m": "0.0"}  # integers read well as General; one styled cell per row keeps it fast
    rows = plan_cabling_rows(plan, naming)
    last = get_column_letter(len(CABLE_COLUMNS))
    for index in range(sheets):
        name = _("Cabling plan") if index == 0 else _("Cabling plan {number}").format(number=index + 1)
        sheet = book.create_sheet(name[:31])
        for position, column in enumerate(CABLE_COLUMNS, start=1):
            sheet.column_dimensions[get_column_letter(position)].width = _WIDTHS[column]
        sheet.freeze_panes = "A2"
        written = min(rows_per_sheet, total - index * rows_per_sheet)
        sheet.auto_filter.ref = f"A1:{last}{max(1, written) + 1}"
        sheet.append(header_cells(sheet, titles))
        styled = {CABLE_COLUMNS.index(c): f for c, f in formats.items()}
        for _n in range(written):
            row = next(rows)
            values = list(row)
            for position, number_format in styled.items():
                if values[position] is not None:
                    cell = WriteOnlyCell(sheet, value=values[position])
                    cell.number_format = number_format
                    values[position] = cell
            sheet.append(values)
    book.save(target)
