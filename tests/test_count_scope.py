"""One scope for every count card: the compute fabric's switches, links and transceivers, and with a second NVLink
level its switch units, cables and modules, as the capex and the By network table's compute row hold them (scope2).

Hand count, GB200-NVL72 at 144 compute trays with NVLink domains of 144 GPUs (``?v=1&g=GB200-NVL72&n=144&nvd=144``):
576 GPUs in 4 domains of 144; each GPU has 18 level-2 NVLinks, so a domain has 144 x 18 = 2,592 level-2 links and
2,592 / 144 ports per NVLink 5 switch tray = 18 trays, 4 x 18 = 72 in all. The scale-out fabric has 24 leaves and
14 spines (38), so the switches in the capex's scope are 38 + 72 = 110.
"""
import json

import pytest

from conftest import run_cli
from core.analysis import compare as cmp
from core.cost import in_compute_fabric
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.i18n import language
from core.plan import plan

GB200 = dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
DESIGNS = {"gb200": GB200, "default": {}, "large": dict(gpu="H100", gpus=16384),
           "dragonfly": dict(topology="dragonfly", gpus=4096), "torus": dict(topology="torus", gpus=512),
           "two-planes": dict(gpu="B300", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2)}


@pytest.fixture(scope="module")
def plans():
    return {name: plan(Design(**fields)) for name, fields in DESIGNS.items()}


def test_gb200_two_level_switches_hand_count(plans):
    s = plans["gb200"].summary()
    assert s["switches"] == {"leaf": 24, "spine": 14, "core": 0, "nvlink_level2": 72, "total": 110}
    assert s["nvlink"]["domains"] == 4 and s["nvlink"]["level2_switches"] == 144 * 18 // 144


@pytest.mark.parametrize("name", DESIGNS)
def test_count_cards_are_the_capex_scope(plans, name):
    """Switches, links and transceivers of the summary are the bill's rows of the compute fabric
    (``in_compute_fabric``: the capex's boundary), installed, and the By network table's compute row less the UFM
    appliances' links and modules; the power's scope is the same rows'."""
    p = plans[name]
    s = p.summary()
    rows = [r for r in p.bom if in_compute_fabric(r) and not r.spare]
    assert s["switches"]["total"] == sum(r.quantity for r in rows if r.category == "switch")
    assert s["switches"]["total"] == s["networks"]["compute"]["switches"]
    assert sum(s["transceivers"].values()) == sum(r.quantity for r in rows if r.category == "transceiver")
    ufm = [r for r in p.bom if r.network == "compute" and r.management]
    assert s["networks"]["compute"]["links"] - sum(s["links"].values()) == sum(
        r.quantity for r in ufm if r.category == "cable")
    assert s["cost"]["network_capex_usd"] == pytest.approx(sum(r.extended_price_usd for r in p.bom if in_compute_fabric(r)))
    assert s["power"]["network_kw"] == pytest.approx(sum(r.extended_power_w for r in rows) / 1000, abs=1e-3)
    assert ("nvlink_level2" in s["switches"]) == (name == "gb200") == bool(s["cost"]["scaleup_capex_usd"])


def test_switch_cards_say_the_level2_units(plans):
    cards = {k.key: k for k in key_numbers(plans["gb200"].summary())}
    for tier in ("leaf", "spine"):
        assert cards[f"switches_{tier}"].help.endswith(
            "110 switches in 2 tiers and NVLink level 2, of which NVLink level 2 72 (its switch units)"), tier
    assert cards["switches_core"].help == (
        "none: no core layer in 2 tiers; 110 switches in all, of which NVLink level 2 72 (its switch units)")
    default = {k.key: k for k in key_numbers(plans["default"].summary())}
    assert default["switches_leaf"].help == "1 QM9700 leaf switch, all 1 plane; 1 switch in 1 tier"
    with language("zh"):
        zh = {k.key: k for k in key_numbers(plans["gb200"].summary())}
    assert "其中第二级 NVLink 72" in zh["switches_leaf"].help


def test_plan_cli_and_compare_count_the_level2_units(capsys, plans):
    args = ("plan", "--gpu", "GB200-NVL72", "--nodes", "144", "--nvlink-domain", "144")
    code, out, _ = run_cli(capsys, *args)
    assert code == 0
    line = next(line for line in out.splitlines() if line.startswith("switches"))
    assert line.split(None, 1)[1] == "leaf 24  spine 14  core 0  total 110, of which NVLink level 2 72 (its switch units)"
    code, out, _ = run_cli(capsys, *args, "--format", "json")
    assert json.loads(out)["switches"]["total"] == 110
    assert cmp.key_values(plans["gb200"].summary())["switches_total"] == 110


def test_xlsx_and_whatif_count_the_level2_units(plans):
    from core.analysis.whatif import oversubscription_sweep
    from core.formats.xlsx import key_number_rows

    rows = {label: value for label, value, *_ in key_number_rows(plans["gb200"])}
    assert rows["Switches in total (compute fabric and NVLink level 2)"] == 110
    assert {label: value for label, value, *_ in key_number_rows(plans["default"])}[
        "Switches in total (compute fabric)"] == 1
    frame = oversubscription_sweep(Design(**GB200), (1.0,))
    assert frame.loc[frame["oversubscription"] == 1.0, "switches"].tolist() == [110]


def test_optimizer_counts_the_level2_units():
    """The Optimize page's switches column: 110 for the GB200 design, as the Designer's cards (38 before)."""
    from core.analysis.optimize import Constraints, _Evaluator
    from core.catalog import load_catalog

    cand = _Evaluator(Constraints(), load_catalog()).evaluate(0, Design(**GB200), full=True)
    assert cand.switches == 110
    assert _Evaluator(Constraints(), load_catalog()).evaluate(0, Design(), full=True).switches == 1
