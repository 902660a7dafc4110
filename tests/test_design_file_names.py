"""Download names after the design (core.formats.filenames): fabric-<system>-<GPUs>-<fabric>, ASCII and safe."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from core.design import Design
from core.formats import filenames
from core.formats.exports import exports
from core.plan import plan

SAFE = re.compile(r"^[a-z0-9][a-z0-9.-]*$")


@pytest.mark.parametrize("design,slug", [
    (Design(gpu="H100", gpus=2048), "fabric-h100-2048-ib"),
    (Design(gpu="H100", gpus=2048, fabric="ethernet"), "fabric-h100-2048-roce"),
    (Design(gpu="GB200-NVL72", nodes=144), "fabric-gb200-nvl72-576-ib"),
    (Design(gpu="h100", nodes=127), "fabric-h100-1016-ib"),  # the GPUs the plan builds
])
def test_slug(design, slug):
    assert filenames.design_slug(plan(design)) == slug


def test_every_download_name():
    p = plan(Design(gpu="H100", gpus=2048))
    assert filenames.file_name(p, "xlsx") == "fabric-h100-2048-ib.xlsx"
    assert filenames.file_name(p, "bom-csv") == "fabric-h100-2048-ib-bom.csv"
    assert filenames.file_name(p, "json") == "fabric-h100-2048-ib.json"
    assert filenames.file_name(p, "report-pdf") == "fabric-h100-2048-ib-report.pdf"
    assert filenames.export_file_name(p, "slurm", ".conf") == "fabric-h100-2048-ib-slurm.conf"
    names = [filenames.export_file_name(p, n, e.suffix) for n, e in exports().items()]
    assert len(set(names)) == len(names)  # two formats with one suffix (netbox CSVs) still differ
    assert all(SAFE.match(n) for n in names)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_text_becomes_a_safe_part(text):
    part = filenames.slug_part(text)
    assert part == "" or SAFE.match(part)
    assert "/" not in part and ".." not in part and not part.startswith("-")
    assert filenames.slug_part("Ünïcode GPU/../x") == "unicode-gpu-x"
    name = filenames.export_file_name(plan(Design(nodes=2)), text or "x", text)
    assert SAFE.match(name) and len(name) <= filenames.MAX_SLUG + 2 * 80 + 2
