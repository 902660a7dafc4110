"""Sweep varies the topology families and their sizing inputs (review48 #5): the allowed values are the Design
fields' declarations (one truth), and each point is the design a single plan would build."""

from __future__ import annotations

import typing

import pytest

from core import vocab
from core.analysis.sweep import SETTINGS, Axis, SweepSpec, check_values, design_at, sweep
from core.design import Design, field_bounds
from core.errors import InputError
from core.formats import sweeplink
from core.plan import plan

BASE = Design(gpu="H100", gpus=4096)


def test_categorical_values_are_the_design_fields():
    assert SETTINGS["topology"].values() == vocab.TOPOLOGY.ids
    assert {"dragonfly", "torus", "classic-dragonfly"} <= set(SETTINGS["topology"].values())
    assert SETTINGS["plane_mode"].values() == tuple(typing.get_args(Design.model_fields["plane_mode"].annotation))
    assert SETTINGS["tiers"].values() == ("auto", "1", "2", "3")
    assert sweeplink.default_values("topology") == vocab.TOPOLOGY.ids


def test_numeric_bounds_are_the_design_fields():
    for key in ("global_ratio", "group_leaves", "nvlink_domain", "nvlink_rack", "nics_per_node"):
        low, high, low_open, _ = field_bounds(SETTINGS[key].field)
        assert SETTINGS[key].bounds[1] == high
    assert check_values("global_ratio", ["0.5", "4"]) == (0.5, 4.0)
    with pytest.raises(InputError, match="above 0"):
        check_values("global_ratio", ["0"])
    with pytest.raises(InputError, match="from 1 to 576"):
        check_values("nvlink_domain", ["1152"])


def test_families_and_their_inputs_sweep_to_the_single_plans():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="topology", values=check_values(
        "topology", ["rail-optimized", "dragonfly", "torus", "classic-dragonfly"])), metric="capex_usd"))
    for point in result.points:
        assert point.value == pytest.approx(plan(Design(gpu="H100", gpus=4096, topology=point.x)).cost.capex_usd)
    ratio = sweep(SweepSpec(base=BASE.model_copy(update={"topology": "dragonfly"}),
                            x=Axis(setting="global_ratio", values=(0.5, 2.0)), metric="capex_usd"))
    values = [p.value for p in ratio.points]
    assert values == [pytest.approx(plan(Design(gpu="H100", gpus=4096, topology="dragonfly", global_ratio=r))
                                    .cost.capex_usd) for r in (0.5, 2.0)] and values[0] < values[1]
    torus = BASE.model_copy(update={"topology": "torus"})
    assert design_at(torus, {"torus_dims": "8x8x8"}).torus_dims == "8x8x8"
    dims = sweep(SweepSpec(base=torus, x=Axis(setting="torus_dims", values=check_values(
        "torus_dims", ["8x8x8", "4x4x4"])), metric="capex_usd"))
    assert dims.points[0].value is not None and dims.points[1].value is None and "512" in dims.points[1].reason
    domain = sweep(SweepSpec(base=Design(gpu="GB200-NVL72", nodes=144), x=Axis(setting="nvlink_domain",
                                                                             values=(72, 144)), metric="capex_usd"))
    assert [p.value for p in domain.points] == [pytest.approx(plan(Design(
        gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=d)).cost.capex_usd) for d in (72, 144)]
