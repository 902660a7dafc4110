"""A design with pods reports the whole design's totals (review44 1.1-1.3, 2.7): the shared fabric's tiers, the
bisection ratio as its definition says (half of every GPU's injection over the bisection), the JSON's per-pod
values where the pods differ, one pod limit, and each distinct bandwidth once."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import pytest

from core.analysis.pods import mixed_plan
from core.analysis.whole import whole_summary
from core.cli import main as cli_main
from core.design import Design
from core.figures.subtitle import design_subtitle
from core.formats.podreport import pods_words
from core.formats.report import _executive_summary
from core.plan import plan

SMALL = Design(pods="B300:32:800")
"""The base design (4 H100 nodes, one leaf layer alone) and 32 B300 nodes: 2 shared Q3400 spines."""
MIXED = Design(nodes=64, pods="B300:32:800")
"""64 H100 nodes at 400G and 32 B300 nodes at 800G under 8 shared spines."""


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return out.getvalue()


def test_the_tiers_are_the_shared_fabrics():
    """4 H100 nodes alone fit one leaf layer (1 tier); under the shared spines the design has 2 tiers."""
    assert plan(Design()).fabric.tiers == 1 and mixed_plan(SMALL).fabric.tiers == 2
    s = whole_summary(plan(SMALL))
    assert s["tiers"] == 2 and s["switches"]["spine"] == 2
    assert json.loads(_cli("plan", "--pods", "B300:32:800", "--format", "json"))["tiers"] == 2
    headline = _cli("plan", "--pods", "B300:32:800", "--format", "table").splitlines()[0]
    assert "2 tiers" in headline and "1 tier" not in headline
    subtitle = design_subtitle(plan(SMALL))
    assert "· 2 tiers ·" in subtitle and "1 tier" not in subtitle
    assert pods_words(plan(SMALL)).startswith("Two-tier ")  # the pack's title and design line
    assert "a 2-tier InfiniBand" in _executive_summary(plan(SMALL), "GB/s", {})[0]
