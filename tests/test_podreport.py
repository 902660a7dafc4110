"""The review pack of a design with pods reads the whole design: its title, subtitle and footer, the Compute racks
card, the main risks' hottest rack, the storage and management networks of every pod, the collectives' GPUs and the
growth stages' words; a design without pods keeps its own words."""

from __future__ import annotations

import re

import pytest

from core.analysis.stages import POD_STAGES_NOTE, STAGES_NOTE
from core.design import Design
from core.designwords import plan_words
from core.figures.keynumbers import cost_key_numbers
from core.formats import report
from core.i18n import language
from core.plan import plan


def _text(html: str) -> str:
    """The visible text of ``html``, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture(scope="module")
def mixed():
    """The mixed design of the review (H100 x 64 nodes + B200 x 32 nodes at 800G) and its pack's text."""
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800"))
    return p, _text(report.design_report_html(p, name="", share_link=""))


def test_the_title_subtitle_and_footer_are_the_whole_design(mixed):
    p, text = mixed
    title = report.design_title(p)
    assert title.startswith("768 x H100 + B200 cluster: ")
    assert "QM9700 + Q3400 leaves and Q3400 spines" in title and "400 / 800G ports" in title
    assert "NIC CX7 + CX8" in title
    assert "512" not in title
    assert "768 GPUs in 2 pods (H100 + B200, 96 nodes) · " in text
    assert "512 x H100 in 64 nodes" not in text
    assert f"{title}: design review" in text  # the footer of every page is the document's title


def test_the_racks_card_and_the_risks_are_the_whole_hall(mixed):
    p, text = mixed
    assert "32 racks in all, 4 of them for network switches, at most 57.2 kW per rack of 60 kW" in text
    assert "up to 57.2 kW in one rack (limit 60 kW)" in text  # the limit as the card writes it (core.units.kw)
    assert "21 racks in all" not in text and "40.8 kW" not in text


def test_every_pod_s_networks_and_the_job_s_pod(mixed):
    _p, text = mixed
    for pod in ("pod 1", "pod 2"):
        assert f"{pod}: storage fabric" in text and f"{pod}: out-of-band management" not in text
        assert f"{pod}: node BMC ports" in text  # the whole design's out-of-band network: every pod's part
    assert "on every GPU of pod 1 (512 GPUs)" in text
    assert "every GPU of the design" not in text
    assert "Longest compute cable" in text and "chart below" not in text
    assert "Mixed pods under one spine layer" in text and "part of the fabric sizing pod 1 H100 x 64 nodes" in text


def test_a_design_without_pods_keeps_its_words():
    p = plan(Design(gpu="H100", nodes=64))
    assert report.design_title(p) == f"512 x H100 cluster: {plan_words(p)}"
    assert report._design_line(p) == f"512 x H100 in 64 nodes · {plan_words(p)}"
    counts, layout = p.layout.counts(), p.layout
    card = next(k for k in cost_key_numbers(p) if k.key == "racks")
    assert f"{counts['total']:,} racks in all, {counts['network']:,} of them for network switches, at most " \
           f"{layout.max_kw_per_rack:,.1f} kW per rack of {layout.power_limit_kw:g} kW" in card.help
    text = _text(report.design_report_html(p, name="", share_link=""))
    assert "pod 1" not in text and "every GPU of the design (512 GPUs)" in text
    assert "<h3>storage fabric</h3>" in report.design_report_html(p, name="", share_link="")


def test_growth_words_and_level_2_nvlink_follow_the_pods():
    """The GB200 design with level-2 NVLink and a B200 pod added at stage 1: the pods' growth words and pod 1's
    level-2 NVLink cables, as the Racks tab shows them."""
    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144, pods="B200:32:800@1"))
    text = _text(report.design_report_html(p, name="", share_link=""))
    assert _text(POD_STAGES_NOTE)[:60] in text
    assert _text(STAGES_NOTE)[:60] not in text
    assert report.design_title(p).startswith("832 x GB200-NVL72 + B200 cluster: ")
    assert "Level-2 NVLink cables" in text and "pod 2 not listed: one NVLink level" in text
    assert re.search(r"pod 1 rack \(or node\) to level-2 NVLink switch 2,592 21\.4 ", text)  # 16 NVL36 racks


def test_the_bill_says_whose_each_row_is():
    """The pack's bill of a design with pods: a pod column (the shared spines "shared", then each pod's rows), the
    spare rows of Design.spares too; the NICs sit in the node (where)."""
    p = plan(Design(gpu="H100", nodes=64, pods="B200:32:800", spares="default"))
    html = report.design_report_html(p, name="", share_link="")
    table = html[html.index('data-bom="all"'):]
    table = table[:table.index("</table>")]
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    assert heads[:4] == ["category", "item", "where", "pod"]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr class=\"\"[^>]*>(.*?)</tr>", table)]
    pods = {row[3] for row in rows}
    assert pods == {"shared", "pod 1", "pod 2"}, pods
    spares = [row for row in rows if "spare" in row[2]]
    assert {row[3] for row in spares} == {"shared", "pod 1", "pod 2"}
    nics = [row for row in rows if row[0] == "NIC"]
    assert [row[3] for row in nics if "spare" not in row[2]] == ["pod 1", "pod 2"]
    assert all(row[2].startswith("node") and "(node" not in row[1] for row in nics)


def test_the_racks_card_says_what_its_numbers_count():
    """"4 racks in all (1 network)" read as one network: the card says the racks hold network switches, en and zh."""
    p = plan(Design(gpu="H100", nodes=4))
    counts = p.layout.counts()
    card = next(k for k in cost_key_numbers(p) if k.key == "racks")
    assert f"{counts['total']:,} racks in all, {counts['network']:,} of them for network switches" in card.help
    with language("zh"):
        card = next(k for k in cost_key_numbers(p) if k.key == "racks")
    assert f"共 {counts['total']:,} 个机柜，其中 {counts['network']:,} 个放置网络交换机" in card.help
