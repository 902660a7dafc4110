"""A classic Dragonfly's routers, tiers and routing in its own words on the CLI, the single points and the link load;
the adaptive per-GPU minimum explained against an explicit routing; the load figures readable at half a page."""

from __future__ import annotations

import argparse
import math

import numpy as np
import pytest

from core.analysis.load import link_load, link_load_arrays
from core.analysis.spof import Degrading, degrading_label
from core.units import percent
from core.cli import build_parser
from core.design import Design
from core.fabric.families import tier_words, words
from core.figures.resilience import HEATMAP_TICKS, bandwidth_histogram_figure, load_heatmap_figure
from core.figures.topology import element_name
from core.perf import congestion
from core.plan import plan
from tests.test_classic_dragonfly_analyses import LOADED, _explicit

BIG = ["--gpus", "16384", "--switch", "QM9700", "--topology", "classic-dragonfly"]


def _cli(*argv: str) -> str:
    args: argparse.Namespace = build_parser().parse_args(list(argv))
    return args.handler(args)


@pytest.fixture(scope="module")
def big():
    return plan(Design(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"))


def test_element_names_keep_the_id_and_add_the_routers():
    assert element_name("classic-dragonfly", "p0.leaf0-leaf62") == "p0.leaf0-leaf62 (router 1 - router 63)"
    assert element_name("classic-dragonfly", "p0.leaf3") == "p0.leaf3 (router 4)"
    for element in ("p0.leaf0-leaf62", "p0.leaf3", "node5.nic2", "p1", "p0.leaf0-spine1#2"):
        assert element_name(None, element) == element  # a folded Clos's ids are its words
    assert element_name("classic-dragonfly", "node5.nic2") == "node5.nic2"


def test_spof_cli_names_routers_and_never_reads_as_no_change():
    text = _cli("spof", *BIG)
    assert "router0001 -> router0002 (p0.leaf0-leaf1; router 1 - router 2)" in text  # the exports' names first (leftnames)
    assert "(p0.leaf0-leaf62; router 1 - router 63)" in text
    assert "100.0%" not in text
    assert "does not lower the bisection" in text or "99.9" in text


def test_bisection_share_is_said_plainly():
    assert percent(0.9997702) == "99.98%" and percent(0.5) == "50%" and percent(1.0) == "100%"
    row = Degrading(tier="global", example="p0.leaf0-leaf62", count=1, effect="global_capacity", gpus_affected=2,
                    share_left=0.9, bisection_share_left=1.0)
    assert "does not lower the bisection" in degrading_label(row) and "100" not in degrading_label(row)


def test_plan_headline_says_the_tiers_as_the_designer(big):
    head = _cli("plan", *BIG).splitlines()[0]
    assert tier_words(big.fabric) in head and "tier(s)" not in head


def test_load_cli_in_the_family_words():
    text = _cli("load", *BIG)
    assert "node-router up" in text and "node-leaf" not in text
    assert "p0.leaf" not in text and "router " in text
    assert "real Slingshot" not in text and "adaptive routing (as Slingshot's)" in text


def test_oversubscription_label_on_a_dragonfly():
    assert "leaf" not in words("classic-dragonfly", "input:oversubscription", None)
    assert words(None, "input:oversubscription", None) is None  # a folded Clos keeps the field's label


@pytest.mark.parametrize("pattern", ["ring", "pp"])
def test_adaptive_minimum_against_an_explicit_routing(pattern):
    """On a small Dragonfly (3 groups, 16 global links per pair), every connection routed here: the model's worst
    GPU gets its line rate times ``min(1, e / worst load)`` (a ring: no link above 100%, so exactly the adaptive
    efficiency ``e``, which the result says in a note; a pipeline: overloaded local links)."""
    p = plan(LOADED.model_copy(update={"global_ratio": 0.5}))
    result, arrays = link_load_arrays(p, pattern, "rail", seed=0)
    explicit = _explicit(p, arrays, valiant=False)
    cap = p.resolved.port_speed_gbps
    worst = max(explicit.values()) / cap
    eff = congestion.load_constants().adaptive_efficiency
    line = result.nic_gbps_per_gpu
    assert max(t.ar_max for t in result.tiers) == pytest.approx(max(worst, 1.0))
    expected = line * min(1.0, eff / worst) if worst > 0 else line
    assert result.ar.min == pytest.approx(expected, rel=1e-9)
    explained = any(f"{eff:.0%}" in n and "adaptive efficiency" in n for n in result.notes)
    assert explained == (pattern == "ring") and (worst == pytest.approx(1.0)) == (pattern == "ring")


def test_the_review_design_explains_its_adaptive_minimum(big):
    r = link_load(big, "ring", "rail")
    eff = congestion.load_constants().adaptive_efficiency
    assert max(t.ar_max for t in r.tiers) <= 1 + 1e-9
    assert r.ar.min == pytest.approx(eff * r.nic_gbps_per_gpu)
    assert any("adaptive efficiency" in n for n in r.notes)


def test_load_figures_fit_half_a_page(big):
    r = link_load(big, "ring", "rail")
    heat = load_heatmap_figure(r, family=big.fabric.family)
    assert len(heat.layout.xaxis.tickvals) <= HEATMAP_TICKS
    assert len(heat.layout.xaxis.title.text) <= 24
    assert heat.data[0].colorbar.nticks <= 3  # five colour-bar labels ran together at 1,024 px ("50100150200")
    hist = bandwidth_histogram_figure(r)
    ar, ecmp = hist.data
    starts = [np.asarray(t.x) + t.offset for t in (ar, ecmp)]
    assert all(math.isclose(a + ar.width, b) for a, b in zip(starts[0], starts[1]))  # side by side, not on top
