"""Ways out of an unbuildable design: every one offered builds (core.analysis.wayouts and the Designer's buttons)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.analysis.wayouts import way_outs
from core.design import Design
from core.errors import FabricPlannerError
from core.plan import plan

FAILING = [
    Design(nodes=100_000, tiers=1),
    Design(nodes=5_000, tiers=2),
    Design(nodes=20_000, switch="QM8700", port_speed_gbps=200),
    Design(gpu="H100", nodes=125_000, fabric="infiniband"),
    Design(nodes=100_000, tiers=2, switch="QM9700"),
    Design(gpu="H100", nodes=125_000, fabric="ethernet", switch="SN5600", tiers=2),
]


@pytest.mark.parametrize("design", FAILING, ids=lambda d: d.to_json().replace("\n", ""))
def test_every_way_out_builds(design):
    with pytest.raises(FabricPlannerError):
        plan(design)
    for out in way_outs(design):
        plan(out.design)  # no error
        for field, value in out.changes.items():
            assert getattr(out.design, field) == (value if value is not None else getattr(Design(), field))


def test_no_way_out_where_none_helps():
    # a million GPUs in 125,000 nodes already on Ethernet with auto everything: only "reset" can help
    design = Design(gpu="H100", nodes=125_000, fabric="ethernet")
    try:
        plan(design)
    except FabricPlannerError:
        assert way_outs(design) == []
    # more GPUs than the engine's cap: no fabric or switch change helps
    assert way_outs(Design(gpu="H100", nodes=1_000_000, fabric="infiniband", tiers=3)) == []


ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


@pytest.mark.parametrize("params", [
    {"v": "1", "n": "100000", "ti": "1"},
    {"v": "1", "n": "20000", "sw": "QM8700", "ps": "200"},
    {"v": "1", "n": "1000000", "ti": "3"},
], ids=["tiers", "switch", "cap"])
def test_every_button_on_the_error_page_builds(params):
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()
    assert at.error
    keys = [b.key for b in at.button if b.key and b.key.startswith("fix_")]
    assert "fix_reset" in keys
    for key in keys:
        fresh = AppTest.from_file(ENTRY, default_timeout=90)
        fresh.query_params.update(params)
        fresh.run()
        fresh.button(key=key).click().run()
        assert not fresh.exception
        assert not fresh.error, (key, [e.value for e in fresh.error])
