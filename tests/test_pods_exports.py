"""Every pod in the exports of a design with pods: the cabling plan (CSV and XLSX), GraphML and draw.io hold every
pod's devices and the shared spines, as the whole fabric's wiring (core.fabric.podwiring) and graph
(core.fabric.podgraph) have them."""

from __future__ import annotations

import csv
import io

from core.analysis.pods import mixed_links, mixed_plan
from core.design import Design
from core.formats.cabling import write_xlsx
from core.formats.exports import export_text
from core.plan import plan

TWO = Design(gpu="H100", nodes=64, pods="B200:32:400")
"""An H100 pod of 512 GPUs and a B200 pod of 256 under one spine layer (as tests/test_pods_views.py)."""


def _compute(rows):
    """The compute fabric's node-leaf and leaf-spine cables of CSV rows (a pod's UFM appliance cables aside)."""
    return [r for r in rows if r["network"] == "compute" and r["link_class"] in ("node-leaf", "leaf-spine")]


def test_the_cabling_csv_holds_every_pod_and_the_shared_spine_cables():
    p = plan(TWO)
    rows = list(csv.DictReader(io.StringIO(export_text(p, "cabling"))))
    mixed = mixed_plan(TWO)
    cables = list(mixed_links(mixed))
    compute = _compute(rows)
    assert len(compute) == len(cables)  # every node-leaf cable of every pod and every leaf-spine cable
    assert sum(r["link_class"] == "leaf-spine" for r in compute) == sum(pod.uplinks for pod in mixed.fabric.pods)
    assert {r["a_device"].split("-")[0] for r in compute if r["link_class"] == "node-leaf"} == {"pod1", "pod2"}
    spines = {r["z_device"] for r in compute if r["link_class"] == "leaf-spine"}
    assert len(spines) == mixed.fabric.spines and not any(s.startswith("pod") for s in spines)
    ids = [r["cable_id"] for r in rows]
    assert len(ids) == len(set(ids))
    alone = list(csv.DictReader(io.StringIO(export_text(plan(Design(gpu="H100", nodes=64)), "cabling"))))
    assert len(rows) > len(alone)


def test_the_cabling_workbook_holds_the_same_cables(tmp_path):
    from openpyxl import load_workbook

    p = plan(TWO)
    target = tmp_path / "cabling.xlsx"
    write_xlsx(p, str(target))
    book = load_workbook(target, read_only=True)
    sheet = book[book.sheetnames[1]]
    values = list(sheet.iter_rows(values_only=True))
    csv_rows = list(csv.reader(io.StringIO(export_text(p, "cabling"))))
    assert len(values) == len(csv_rows)  # the header and every cable
    assert [v[0] for v in values[1:]] == [r[0] for r in csv_rows[1:]]
    assert any(str(v[5]).startswith("pod2-") for v in values[1:])
