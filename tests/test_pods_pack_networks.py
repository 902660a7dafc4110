"""The out-of-band management of a design with pods is the whole design's (re-sized for the shared layer,
``core.analysis.podmgmt``): the review pack shows it as one network whose switches and links are those the mixed
bill buys and the By network table (``whole_summary``, the CLI's plan JSON) counts."""

from __future__ import annotations

import re
from html import unescape

import pytest

from core.analysis.whole import design_mixed, whole_summary
from core.design import Design
from core.formats import report
from core.plan import plan

DESIGNS = [Design(gpu="H100", nodes=64, pods="B200:32:800"),
           Design(gpu="H100", nodes=16, pods="B200:8", topology="top-of-rack"),
           Design(gpu="H100", nodes=64, pods="B200:32:800", tiers="3")]


def _oob_block(document: str) -> str:
    start = document.index('data-section="networks"')
    section = document[start:document.index("</section>", start)]
    return section[section.index("<h3>out-of-band management</h3>"):]


def _column(table: str, index: int) -> list[int]:
    rows = [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
    return [int(row[index].replace(",", "")) for row in rows if row]


@pytest.mark.parametrize("design", DESIGNS, ids=["two-tiers", "top-of-rack", "three-tiers"])
def test_the_out_of_band_network_is_the_whole_designs(design):
    p = plan(design)
    document = report.design_report_html(p, name="", share_link="https://planner.example.com/?v=1")
    assert "pod 1: out-of-band management" not in document
    block = _oob_block(document)
    tables = re.findall(r"<table[^>]*>.*?</table>", block, re.S)
    bill = [r for r in design_mixed(design).bom if r.network == "oob" and not r.spare]
    bought = {kind: sum(r.quantity for r in bill if r.category == kind) for kind in ("switch", "cable")}
    row = whole_summary(p)["networks"]["oob"]
    assert sum(_column(tables[0], 1)) == bought["switch"] == row["switches"]  # the switches table's counts
    assert sum(_column(tables[-1], 0)) == bought["cable"] == row["links"]  # the links table's counts
    assert f"{bought['switch']} switches and {bought['cable']:,} links in all" in unescape(block)
