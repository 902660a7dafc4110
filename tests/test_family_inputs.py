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
