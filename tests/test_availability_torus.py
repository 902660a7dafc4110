"""Torus availability (core.analysis.availability's node-to-node links): counts by hand, the Monte Carlo against
closed forms where the elements are independent (review48 #9)."""

from __future__ import annotations

import math
import re

import pytest

from core.analysis.availability import ClassRate, availability, binomial_tail, default_rates, shape_of
from core.design import Design
from core.plan import plan


def _rates(**afr) -> dict[str, ClassRate]:
    rates = default_rates()
    return {name: rate.model_copy(update={"afr": afr.get(name, 0.0), "mttr_hours": 876.0})
            for name, rate in rates.items()}


@pytest.fixture(scope="module")
def cube():
    return plan(Design(gpu="H100", gpus=512, topology="torus"))


def test_4x4x4_element_counts(cube):
    """64 nodes, 6 cabled NIC ports each (8 NICs, 6 neighbours, width 1), 192 links, no switch."""
    shape = shape_of(cube)
    assert len(shape.torus_links) == 192 and shape.links_per_node == 6
    result = availability(cube, trials=10)
    assert result.elements == {"gpu_node": 64, "nic": 384, "link": 192, "switch": 0}
    ends = [(a, pa) for a, pa, _b, _pb in shape.torus_links] + [(b, pb) for _a, _pa, b, pb in shape.torus_links]
    assert len(set(ends)) == 384  # every cabled port carries one link


def test_nodes_only_match_the_binomial(cube):
    rates = _rates(gpu_node=1.0)  # q = 0.1 / 1.1 per node
    result = availability(cube, job_gpus=480, trials=4000, rates=rates)
    q = rates["gpu_node"].unavailability
    expected = binomial_tail(64, 1 - q, 60)
    assert result.job_run_fraction_closed_form == pytest.approx(expected)
    assert abs(result.job_run_fraction - expected) < 4 * result.job_run_fraction_stderr + 1e-3
    assert result.expected_gpus_cut_off == pytest.approx(512 * q, rel=0.05)


def test_links_only_bandwidth_and_drain(cube):
    """Cables failing alone: the share of links up is 1 - q; a node is drained when any of its 6 cables is down
    (each cable drains both its nodes), cut off only when all 6 are."""
    rates = _rates(link=1.0)
    q = rates["link"].unavailability
    result = availability(cube, trials=4000, rates=rates)
    assert result.job_run_fraction_closed_form is None  # shared links: no Binomial
    assert result.expected_bandwidth_share == pytest.approx(1 - q, abs=0.005)
    usable = 64 * (1 - q) ** 6
    assert result.expected_gpus_usable / 8 == pytest.approx(usable, rel=0.03)
    assert result.expected_bisection_tbits_one_direction == pytest.approx(
        (1 - q) * result.healthy_bisection_tbits_one_direction, rel=0.01)


def test_nics_drain_both_ends(cube):
    rates = _rates(nic=1.0)
    q = rates["nic"].unavailability
    result = availability(cube, trials=4000, rates=rates)
    usable = 64 * (1 - q) ** 12  # its own 6 ports and the 6 at the far ends
    assert result.expected_gpus_usable / 8 == pytest.approx(usable, rel=0.05)
    assert result.expected_bandwidth_share == pytest.approx((1 - q) ** 2, abs=0.005)
    assert math.isclose(result.expected_down["nic"], 384 * q)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cli_says_a_torus_has_no_switches_down(lang, capsys):
    """``python -m core availability`` of a torus printed "switches 0.0000" for a fabric without switches; it says
    "-" (none counted), as Compare does, and a Clos still counts its switches."""
    from core.cli import main

    main(["--lang", lang, "availability", "--topology", "torus", "--gpus", "512", "--trials", "50"])
    torus = capsys.readouterr().out
    main(["--lang", lang, "availability", "--gpus", "512", "--trials", "50"])
    clos = capsys.readouterr().out
    word = "switches " if lang == "en" else "交换机 "
    (row,) = [line for line in torus.splitlines() if word + "-" in line]
    assert "0.0000" not in row
    assert re.search(re.escape(word) + r"0\.\d+", clos)  # the page's figures (expected_down_text)
