"""Torus ways out: the same whether the size is given in GPUs or in nodes (review48 #7)."""

from __future__ import annotations

import pytest

from core.design import Design
from core.errors import DesignError
from core.plan import plan


@pytest.mark.parametrize("dims", ["8x8x7", "8x8x8"])
def test_ways_out_same_in_gpus_and_nodes_each_rebuilds_the_same_size(dims):
    by_gpus = Design(gpu="H100", gpus=512, topology="torus", torus_dims=dims)
    by_nodes = Design(gpu="H100", nodes=64, topology="torus", torus_dims=dims)
    fixes = []
    for design in (by_gpus, by_nodes):
        with pytest.raises(DesignError) as err:
            plan(design)
        fixes.append([phrase for phrase, _c in err.value.fixes])
        for _phrase, changes in err.value.fixes:
            fixed = plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))
            if "torus_dims" in changes:
                assert fixed.resolved.nodes == 64  # the cluster's size kept
        assert any(c.get("torus_dims") == "4x4x4" for _p, c in err.value.fixes)
    assert fixes[0] == fixes[1]
