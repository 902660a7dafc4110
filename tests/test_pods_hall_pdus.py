"""Rack PDUs of a design with pods are those of the hall as built (``core.analysis.podmgmt``): each pod's racks the
hall keeps (not the racks it drops, the pod's own spines' or, on three tiers, its own cores'), and the shared rows'
racks on the first pod's out-of-band network; the bill, the review pack (devices and links, one count) and the
cabling plan say the same number. Hand counts: the hall of 64 DGX H100 (4 a rack) and a pod of 32 DGX B200 at 800G
(4 a rack)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from core.analysis.podmgmt import mixed_networks
from core.analysis.pods import mixed_plan
from core.design import Design
from core.formats import report
from core.formats.podnetbox import mixed_cabling_rows
from core.plan import plan

PER_COMPUTE, PER_OTHER = 3, 2  # assets/catalog/networks.toml: pdus_per_compute_rack, pdus_per_other_rack

# (tiers, pod 1's PDUs, pod 2's PDUs), by hand from the hall:
# three tiers: pod 1 keeps 16 compute racks and 5 others (its own spines', management, storage and 2 leaf racks; its
# own cores' rack is dropped), pod 2 8 compute and 4 others (spines, management, storage, 1 leaf rack), the shared
# cores stand in 1 rack: pod 1 = 16 x 3 + 5 x 2 + 1 x 2 = 60, pod 2 = 8 x 3 + 4 x 2 = 32 (the pods alone estimated
# 56 and 30: 16 x 3 + (2 SUs + 2) x 2, 8 x 3 + (1 SU + 2) x 2).
# two tiers: the pods' own spine racks are dropped: pod 1 = 16 x 3 + 4 x 2 + 1 x 2 = 58, pod 2 = 8 x 3 + 3 x 2 = 30.
HAND = {"3": (60, 32), "2": (58, 30)}


def _design(tiers: str) -> Design:
    return Design(gpu="H100", nodes=64, pods="B200:32:800", **({"tiers": "3"} if tiers == "3" else {}))


@pytest.mark.parametrize("tiers", ["3", "2"])
def test_each_pods_pdus_are_its_racks_in_the_hall(tiers):
    mixed = mixed_plan(_design(tiers))
    hall = mixed.hall
    built = sum(PER_COMPUTE if r.kind == "compute" else PER_OTHER for r in hall.layout.racks)
    networks = mixed_networks(mixed)
    links = [next(l.count for l in n.oob.links if l.kind == "pdu-mgmt") for n in networks]
    devices = [next(d.count for d in n.oob.devices if d.kind == "pdu") for n in networks]
    assert tuple(links) == tuple(devices) == HAND[tiers]
    assert sum(links) == built  # every rack of the hall, the shared rows' too, and no other
    bill = sum(r.quantity for r in mixed.bom if r.network == "oob" and r.category == "cable" and r.why.endswith(
        ": rack PDUs"))
    drawn = sum(1 for r in mixed_cabling_rows(mixed, None) if r.link_class == "pdu-mgmt")
    assert bill == drawn == built


def _pack_rows(design: Design) -> list[list[str]]:
    document = report.design_report_html(plan(design), name="", share_link="https://planner.example.com/?v=1")
    start = document.index('data-section="networks"')
    section = document[start:document.index("</section>", start)]
    block = section[section.index("<h3>out-of-band management</h3>"):]
    return [[unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", block, re.S)]


@pytest.mark.parametrize("tiers", ["3", "2"])
def test_the_packs_pdu_devices_and_links_are_one_count(tiers):
    rows = _pack_rows(_design(tiers))
    devices = [int(r[1]) for r in rows if len(r) == 3 and r[2].endswith("rack PDUs (bought with the racks)")]
    links = [int(r[0]) for r in rows if len(r) > 3 and r[-1].endswith(": rack PDUs")]
    assert tuple(devices) == tuple(links) == HAND[tiers]
