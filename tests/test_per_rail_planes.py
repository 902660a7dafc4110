"""Per-rail plane mode with one plane is not a silent no-op. NIC i goes to plane i mod planes,
so one plane puts every NIC in the same fabric: refused with ways out (one plane per NIC, or per-port), on the
CLI and in the Designer; planes that divide the NICs (2 of 8: NIC i in plane i mod 2) still plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from conftest import run_cli
from core.design import Design
from core.errors import DesignError
from core.plan import plan

ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


@pytest.mark.parametrize("extra", [{}, {"topology": "rail-only"}, {"nodes": 16, "nics_per_node": 4}])
def test_per_rail_with_one_plane_is_refused_and_every_way_out_plans(extra):
    design = Design(**{"nodes": 64, "plane_mode": "per-rail", **extra})
    with pytest.raises(DesignError) as info:
        plan(design)
    assert "per-rail with 1 plane" in info.value.message
    fixes = dict((tuple(sorted(c.items())), phrase) for phrase, c in info.value.fixes)
    rails = design.nics_per_node or 8
    assert (("planes", rails),) in fixes and "one per NIC" in fixes[(("planes", rails),)]
    assert (("plane_mode", "per-port"), ("planes", 1)) in fixes
    for _phrase, changes in info.value.fixes:
        fixed = plan(design.model_copy(update=changes))
        assert fixed.summary()["planes"] == changes["planes"]


@pytest.mark.parametrize("planes", [2, 4, 8])
def test_per_rail_planes_that_divide_the_nics_still_plan(planes):
    summary = plan(Design(nodes=64, plane_mode="per-rail", planes=planes)).summary()
    assert summary["planes"] == planes and summary["islands"] == planes


def test_cli_refuses_per_rail_with_one_plane_in_one_line(capsys):
    code, out, err = run_cli(capsys, "plan", "--plane-mode", "per-rail")
    assert code == 3 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "per-rail with 1 plane" in err and "Use 8 planes, one per NIC" in err and "every plane" in err
    code, out, _err = run_cli(capsys, "plan", "--plane-mode", "per-rail", "--planes", "8", "--format", "json")
    assert code in (0, None) and '"planes": 8' in out


def test_designer_link_with_per_rail_offers_buttons_that_build():
    params = {"v": "1", "lang": "en", "pm": "rail"}
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()
    assert not at.exception
    assert any("per" in e.value and "1 plane" in e.value for e in at.error)
    buttons = {b.key: b.label for b in at.button if b.key and b.key.startswith("fix_") and b.key != "fix_reset"}
    labels = " | ".join(buttons.values())
    assert "8 planes, one per NIC" in labels and "every plane" in labels
    for key in buttons:
        fresh = AppTest.from_file(ENTRY, default_timeout=90)
        fresh.query_params.update(params)
        fresh.run()
        fresh.button(key=key).click().run()
        assert not fresh.exception and not fresh.error, (key, [e.value for e in fresh.error])
        assert fresh.caption and " plane" in fresh.caption[0].value


def test_design_words_say_the_per_rail_planes_not_the_engines_one():
    """Per-rail planes are sized as one structure (``ResolvedDesign.planes`` 1, the planes its islands): the design
    in words (``core.designwords.plan_words``: the review pack's title and design line; a design with pods
    ``core.formats.podreport.pods_words``) says the design's planes (``Plan.planes``), as the Designer's subtitle and
    the CLI's headline do; rail-only islands are no planes."""
    from core.designwords import plan_words
    from core.figures.subtitle import design_subtitle
    from core.formats.podreport import pods_words
    from core.formats.report import design_title

    rail = plan(Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"))
    assert (rail.resolved.planes, rail.fabric.islands, rail.planes) == (1, 2, 2)
    assert plan_words(rail).endswith(", NIC CX7, 2 planes (per-rail)"), plan_words(rail)
    assert design_title(rail) == ("512 x H100 cluster: 2-tier QM9700 InfiniBand, rail-optimized, non-blocking, "
                                  "400G ports, NIC CX7, 2 planes (per-rail)")
    assert " · 2 planes · " in design_subtitle(rail)
    four = plan(Design(gpu="H100", nodes=64, planes=4, plane_mode="per-rail"))
    assert plan_words(four).endswith("4 planes (per-rail)")
    pods = plan(Design(gpu="H100", nodes=64, pods="B200:32:800", planes=2, plane_mode="per-rail"))
    assert pods_words(pods).endswith(", NIC CX7 + CX8, 2 planes (per-rail)"), pods_words(pods)
    only = plan(Design(gpu="H100", nodes=64, topology="rail-only"))
    assert only.fabric.islands == 8 and plan_words(only).endswith(", 1 plane")


def test_designer_and_cli_headlines_say_the_per_rail_planes(capsys):
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update({"v": "1", "lang": "en", "n": "64", "pl": "2", "pm": "rail"})
    at.run()
    assert not at.exception and not at.error
    subtitle = next(c.value for c in at.caption if c.value.startswith("512 x H100 in 64 nodes"))
    assert " · 2 tiers · 2 planes · switch QM9700 · " in subtitle, subtitle
    code, out, _err = run_cli(capsys, "plan", "--nodes", "64", "--plane-mode", "per-rail", "--planes", "2")
    assert code in (0, None) and "rail-optimized, 2 tiers, 2 planes, switch QM9700" in out.splitlines()[0]
