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
    assert "switch" not in words("torus", "failure:empty", "click a switch")
    assert "router" in words("classic-dragonfly", "failure:empty", "click a switch")


def test_classic_dragonfly_failure_speaks_routers(capsys):
    """``--fail router:1`` is the family's word for its one switch tier (its ``tier:leaf``), the same element as
    ``leaf:1``; no "leaf uplinks" row (a router has none) and no leaf/spine shares in the method note."""
    from conftest import run_cli

    args = ("failure", "--gpu", "H100", "--topology", "classic-dragonfly", "--gpus", "4096", "--fail")
    code, out, err = run_cli(capsys, *args, "router:1")
    assert code == 0, err
    _code, leaf_out, _err = run_cli(capsys, *args, "leaf:1")
    assert out == leaf_out
    assert "leaf uplinks" not in out and "worst leaf" not in out and "worst spine" not in out
    assert "global links" in out and "NIC injection" in out
    code, _out, err = run_cli(capsys, *args, "routr:1")
    assert code != 0 and "router" in err


def test_a_clos_keeps_its_leaf_uplinks_row(capsys):
    from conftest import run_cli

    code, out, _err = run_cli(capsys, "failure", "--gpu", "H100", "--nodes", "64", "--fail", "spine:1")
    assert code == 0 and "leaf uplinks" in out
