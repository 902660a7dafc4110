"""The sidebar's leaf-oversubscription input and the Resilience page's empty state follow one rule from each
family's declarations (``core.fabric.families``): no leaf-oversubscription what-if (a torus, a classic Dragonfly)
-> the input is shown disabled with why; no switch to click (a torus) -> no click is offered."""

from __future__ import annotations

import pytest

from core.fabric.families import leaf_whatif, oversubscription_input, words


@pytest.mark.parametrize("topology", ["torus", "classic-dragonfly"])
def test_no_leaf_whatif_greys_the_input(topology):
    assert leaf_whatif(topology) is False
    label, off = oversubscription_input(topology)
    assert "not used by this topology" in label and off


@pytest.mark.parametrize("topology", [None, "rail-optimized", "top-of-rack", "dragonfly"])
def test_leaves_keep_the_input(topology):
    assert leaf_whatif(topology) is True
    label, off = oversubscription_input(topology)
    assert off is None and label is None


def test_the_torus_offers_no_click():
    assert words("torus", "failure:click", "x") is None
    assert "router" in words("classic-dragonfly", "failure:empty", "click a switch")


def test_classic_dragonfly_failure_speaks_routers(capsys):
    """``--fail router:1`` is the family's word for its one switch tier (its ``tier:leaf``), the same element as
    ``leaf:1``; no "leaf uplinks" row (a router has none) and no leaf/spine shares in the method note."""
    from conftest import run_cli

    args = ("failure", "--gpu", "H100", "--topology", "classic-dragonfly", "--gpus", "4096", "--fail")
    code, out, err = run_cli(capsys, *args, "router:1")
    assert code == 0, err
    _code, leaf_out, _err = run_cli(capsys, *args, "leaf:1")
    first, rest = out.split("\n", 1)
    assert first == "failed: router:1 (router001 *)"  # echoed as typed, the element in brackets as the exports name it
    assert leaf_out.split("\n", 1) == ["failed: leaf:1 (router001 *)", rest]  # the same element, the same result
    assert "leaf uplinks" not in out and "worst leaf" not in out and "worst spine" not in out
    assert "global links" in out and "NIC injection" in out
    code, _out, err = run_cli(capsys, *args, "routr:1")
    assert code != 0 and "router" in err


def test_a_clos_keeps_its_leaf_uplinks_row(capsys):
    from conftest import run_cli

    code, out, _err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "spine:1")
    assert code == 0 and "leaf uplinks" in out


def test_classic_dragonfly_bandwidth_tab_speaks_routers_and_groups():
    """The capacity chart's router stage and the readout in the family's words: 4,096 H100 (512 nodes of 8 x 400G),
    8 groups of 32 routers; hops 1 on a router, 2 in a group, 3 across groups, Valiant up to 4 (the plan CLI's)."""
    from core.design import Design
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.fabric.families import group_hops
    from core.figures.bandwidth import tier_capacity_figure
    from core.plan import plan

    p = plan(Design(gpu="H100", gpus=4096, topology="classic-dragonfly"))
    fig = tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric))
    labels = " ".join(fig.data[0].x)
    assert "spine" not in labels.lower() and "Router" in labels
    bw = p.bandwidth
    for key in ("readout:bandwidth", "report:readout:bandwidth"):
        text = words(p.fabric.family, key, None).format(
            total="1.73:1", same_rail=bw.hops_same_rail, link="NVLink", ratio="9:1",
            group_hops=group_hops(bw.hops_cross_rail, bw.hops_cross_pod, bw.hops_valiant))
        assert "pod" not in text and "leaf" not in text and "spine" not in text
        assert "same rail 1, in a group 2, across groups 3, Valiant up to 4" in text


def test_a_clos_capacity_chart_keeps_leaf_to_spine():
    from core.design import Design
    from core.fabric.bandwidth import tier_capacities_gbits
    from core.figures.bandwidth import tier_capacity_figure
    from core.plan import plan

    p = plan(Design(gpu="H100", nodes=64))
    assert "Leaf -><br>spine" in tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric)).data[0].x


def test_classic_dragonfly_at_4096_gpus_is_drawn_aggregated():
    """8 groups of 32 routers: 8 x 32 x 31 / 2 = 3,968 local links, each drawn; the full drawing passes the limit,
    as the Dragonfly+'s at the same size, so both draw the aggregated view (review F26: 113,569 elements)."""
    from core.design import Design
    from core.figures.topology import FULL_GRAPH_LIMIT, count_drawn_elements, full_graph_elements, topology_figure
    from core.plan import plan

    p = plan(Design(gpu="H100", gpus=4096, topology="classic-dragonfly"))
    assert full_graph_elements(p) >= 2 * 3968 > FULL_GRAPH_LIMIT
    fig = topology_figure(p)
    assert count_drawn_elements(fig) < 2000
