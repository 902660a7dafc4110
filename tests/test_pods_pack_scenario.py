"""The review pack of a design with pods: its failure scenario is the Resilience page's whole-fabric what-if (the
page's table of what every pod loses, a column per pod, and its failures inside one pod), not pod 1 alone."""

from __future__ import annotations

import re
from html import unescape

import pytest

from core.design import Design
from core.formats import report
from core.plan import plan

LINK = "https://planner.example.com/?v=1"


def _section(document: str, ident: str) -> str:
    start = document.index(">", document.index(f'data-section="{ident}"')) + 1
    return document[start:document.index("</section>", start)]


def _tables(markup: str) -> list[list[list[str]]]:
    return [[[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, re.S)]
             for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)]
            for table in re.findall(r"<table[^>]*>(.*?)</table>", markup, re.S)]


def test_the_packs_failure_scenario_is_the_pages_table():
    """The page opened from a link failing a shared spine and pod 2's leaf shows a table of every pod; the pack of
    the same settings shows the same cells (and no note that it is pod 1's alone)."""
    from tests import pagetest

    fail = ("spine0", "pod2.p0.leaf1")
    at = pagetest.open_page("../pages/6_Resilience.py", {"n": "64", "pods": "B200:32:800", "lang": "en",
                                                          "rs_tab": "Failure what-if", "rs_fail": ",".join(fail)})
    assert not at.exception and not at.error
    frame = at.dataframe[0].value
    page = [list(frame.columns)] + [[str(v) for v in row] for row in frame.itertuples(index=False)]
    section = _section(report.design_report_html(plan(Design(gpu="H100", nodes=64, pods="B200:32:800")), name="",
                                                 share_link=LINK, resilience={"fail": fail}), "failure-scenario")
    assert _tables(section)[0] == page
    assert "pod 1 loses" not in section and "spine001, pod2-leaf002" in section  # as the page's chips name them
    assert page[-1][2].split(" / ")[0] != page[-1][2].split(" / ")[1]  # pod 2 lost its way into the spines


@pytest.mark.parametrize("tiers", [2, 3])
def test_the_scenario_reads_the_whole_fabric_and_inside_the_pods(tiers):
    """Shared switches and another pod's switches (the page's names), a NIC inside pod 2 and an element neither
    what-if takes: the whole fabric's table, the pod's own what-if, the rest said; the main risks count the GPUs
    the scenario cuts off."""
    from core.analysis.podinside import inside_what_if
    from core.analysis.podwhatif import loss_rows, pods_what_if
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.whole import design_mixed

    design = Design(gpu="H100", nodes=64, pods="B200:32:800", **({"tiers": "3"} if tiers == 3 else {}))
    whole = ["core0", "pod2.p0.spine0"] if tiers == 3 else ["spine0", "pod2.p0.leaf1"]
    mixed = design_mixed(design)
    section = _section(report.design_report_html(plan(design), name="", share_link=LINK,
                                                 resilience={"fail": (*whole, "pod2.node5.nic2", "node3.nic1")}),
                       "failure-scenario")
    rows = loss_rows(pods_what_if(mixed, whole), "GB/s", cores=tiers == 3)
    tables = _tables(section)
    assert [row[1] for row in tables[0][1:]] == [value for value in list(rows[0].values())[1:]]
    assert [row[2] for row in tables[0][1:]] == [value for value in list(rows[1].values())[1:]]
    (pod, result), = inside_what_if(mixed, ["pod2.node5.nic2"])
    assert pod == 2 and tables[1][1][2] == f"{result.gpus_degraded:,}"
    assert "Not failed on the whole fabric: node3.nic1" in unescape(section)
    failed = unescape(section).split("Failed on the Resilience page: ")[1].split(".</p>")[0]
    names = PodElementNames(mixed)  # every element as the pods' exports name it, each read back to its id
    assert failed.split(", ") == [names.name(e) for e in (*whole, "pod2.node5.nic2")]
    assert "pod2-gpu006 nic3" in failed and not re.search(r"pod\d\.", failed), failed
