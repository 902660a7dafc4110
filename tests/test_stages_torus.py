"""Stage tables count switch tiers as every surface does (Plan.switch_tiers), and a torus refuses growth by one rule
(review48 #11)."""

from __future__ import annotations

import pytest

from core.analysis.stages import growth, stage_rows
from core.design import Design
from core.errors import DesignError
from core.plan import plan


def test_classic_dragonfly_stage_tiers_are_its_one_router_tier():
    design = Design(gpu="H100", nodes=256, stages="512", topology="classic-dragonfly")
    deltas = growth(design)
    assert plan(design.model_copy(update={"stages": None})).switch_tiers == 1
    assert deltas[0].tiers == (1, 1)
    assert stage_rows(deltas)[0]["tiers"] == "1 → 1"


def test_folded_clos_stage_tiers_unchanged():
    deltas = growth(Design(gpu="H100", nodes=64, stages="512"))
    assert deltas[0].tiers == (plan(Design(gpu="H100", nodes=64)).fabric.tiers,
                               plan(Design(gpu="H100", nodes=512)).fabric.tiers)


@pytest.mark.parametrize("growth_field", [{"grow_to": 64}, {"stages": "64"}])
def test_torus_refuses_a_growth_target_and_stages_alike_with_a_way_out_that_builds(growth_field):
    design = Design(gpu="H100", nodes=32, topology="torus", **growth_field)
    with pytest.raises(DesignError) as err:
        plan(design)
    assert "growth (a growth target or stages) is not planned for a torus" in str(err.value)
    assert err.value.fixes
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))
    with pytest.raises(DesignError):
        growth(design)
