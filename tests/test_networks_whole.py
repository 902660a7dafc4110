"""The By network table and chart are the whole design's (a design with pods: every pod and the shared spines),
the same numbers as the review pack's network table and ``plan --format json``'s ``networks``; the Links and
Transceivers cards say what they count that the table's compute row does not (the UFM appliances')."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.figures.cost import networks_figure, networks_note, networks_table
from core.figures.keynumbers import key_numbers, unbilled_by_cards
from core.i18n import number, usd
from core.plan import plan

MIXED = Design(gpu="H100", nodes=64, pods="B200:32:800")


def _cli_networks() -> dict:
    """``plan --format json``'s ``networks`` of ``MIXED``."""
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["plan", "--nodes", "64", "--pods", "B200:32:800", "--format", "json"]) == 0
    return json.loads(out.getvalue())["networks"]


def test_the_by_network_table_is_the_whole_designs_as_the_pack_and_the_cli():
    from core.formats.report import design_report_html

    p = plan(MIXED)
    networks = _cli_networks()
    assert networks == whole_summary(p)["networks"]
    table = networks_table(p)
    compute = table.iloc[0].tolist()
    assert compute[1:5] == [networks["compute"]["switches"], networks["compute"]["links"],
                            networks["compute"]["transceivers"], networks["compute"]["capex_usd"]]
    assert compute[1] == 32  # every pod's 24 leaves and the 8 shared spines, not pod 1's own 24 with its spines
    assert table.iloc[:, 1].tolist() == [v["switches"] for v in networks.values()]
    html = design_report_html(p, name="Mixed", share_link="")
    section = html[html.index('data-section="networks"'):]
    for v in networks.values():
        assert usd(v["capex_usd"]) in section and number(v["links"]) in section


def test_the_by_network_chart_is_the_whole_designs():
    p = plan(MIXED)
    networks = whole_summary(p)["networks"]
    shown = {row[1] for trace in networks_figure(p).data if trace.customdata is not None for row in trace.customdata}
    assert usd(networks["compute"]["capex_usd"]) in shown and usd(networks["storage"]["capex_usd"]) in shown


def test_the_cards_and_the_table_say_what_each_counts():
    s = whole_summary(plan(Design(gpu="H100", gpus=16384)))
    links, transceivers = unbilled_by_cards(s)
    assert (links, transceivers) == (4, 4)
    assert sum(s["links"].values()) + links == s["networks"]["compute"]["links"] == 49_156
    cards = {k.key: k for k in key_numbers(s)}
    assert cards["links"].value == "49,152" and "not counted: the UFM appliances' 4" in cards["links"].help
    assert "not counted: the UFM appliances' 4" in cards["transceivers"].help
    assert "UFM appliances' 4 links and 4 transceivers" in networks_note(plan(Design(gpu="H100", gpus=16384)))


def test_the_designers_by_network_columns_are_the_tables_numbers_and_fit_1024():
    """The Designer's By network table has a column per network (six columns across scrolled at 1,024 px): the
    same numbers as ``networks_table``, the capex in the one money format, the power in the one power format."""
    from core.figures.cost import networks_rows
    from core.units import power
    from webui.tables import scrolls_at_1024, turned

    p = plan(MIXED)
    networks = whole_summary(p)["networks"]
    rows = networks_rows(p)
    assert [r["Switches"] for r in rows] == [v["switches"] for v in networks.values()]
    assert [r["Capex"] for r in rows] == [usd(v["capex_usd"]) for v in networks.values()]
    assert [r["IT power"] for r in rows] == [power(round(v["power_kw"], 1)) for v in networks.values()]
    assert not scrolls_at_1024(turned(rows, "Network"))
