"""Spares as a design setting: ``Design.spares`` puts spare rows in ``Plan.bom`` and
``Plan.cost`` (core/spares.py, core/cost.py), the share link (``sp``), the design file, the CLI
(``--spares``), the XLSX and the review pack carry it; off by default changes nothing."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import spares
from core.design import Design
from core.errors import InputError
from core.formats import sharelink
from core.plan import plan

ON = "switch=N+2,transceiver=3%,cable=1%,NIC=N+1"


@pytest.fixture(scope="module")
def pair():
    """(off, default) plans of a two-tier 1,024-GPU design."""
    return plan(Design(gpus=1024)), plan(Design(gpus=1024, spares="default"))


# --- the setting ----------------------------------------------------------------------------------
def test_setting_is_checked_and_canonical():
    assert Design().spares == "off"
    assert Design(spares=" OFF ").spares == "off" and Design(spares="none").spares == "off"
    assert Design(spares="Default").spares == "default"
    assert Design(spares=" nic:1% ; Switch = n+2").spares == "switch=N+2,NIC=1%"  # category order, rule forms
    assert Design(spares="transceiver=2.50%").spares == "transceiver=2.5%"
    for bad, words in (("lots", "NAME=VALUE"), ("switch=lots", "not a percentage"), ("compute=1%", "no sparing for"),
                       ("switch=N+1,switch=N+2", "twice"), (",;", "names no category"), ("x" * 300, "longer than")):
        with pytest.raises(ValueError, match=words):
            Design(spares=bad)
    with pytest.raises(ValueError):
        Design(spares=3)


def test_policy_text_round_trip():
    policy = spares.policy_of_text(ON)
    assert policy == {"switch": "N+2", "transceiver": "3%", "cable": "1%", "NIC": "N+1"}
    assert spares.format_policy(policy) == ON
    assert spares.setting_policy("off") is None and spares.setting_policy("default") == {}
    assert spares.setting_policy("NIC=0") == {"NIC": "0%"}


def test_spare_count_rounds_up_per_row():
    assert spares.spare_count("percent", 2, 512) == 11  # ceil(10.24)
    assert spares.spare_count("percent", 2, 500) == 10  # exactly 10: no extra spare from float noise
    assert spares.spare_count("percent", 0.5, 1) == 1
    assert spares.spare_count("percent", 0, 10_000) == 0
    assert spares.spare_count("n_plus_k", 3, 1) == 3  # N+k: k per row whatever the count
    assert spares.spare_count("n_plus_k", 3, 0) == 0


def test_spare_item_keeps_the_place():
    name = "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch (QM9790 = unmanaged)"
    assert spares.spare_item(f"{name} (leaf)", name) == f"{name} (leaf, spare)"
    assert spares.spare_item(name, name) == f"{name} (spare)"  # the name's own brackets are not a place
    assert spares.spare_item("something else", name) == "something else (spare)"


# --- off changes nothing; on adds rows and capex ---------------------------------------------------
def test_off_is_the_old_plan(pair):
    off, _on = pair
    assert not any(r.spare for r in off.bom) and off.cost.spares_capex_usd == 0
    assert off.summary()["cost"]["spares"] == "off" and off.summary()["cost"]["spares_capex_usd"] == 0
    assert plan(Design(gpus=1024, spares="off")) == off


def test_default_policy_rows(pair):
    off, on = pair
    installed = [r for r in on.bom if not r.spare]
    assert installed == list(off.bom)  # the installed rows are the same, spare rows follow them
    rows = [r for r in on.bom if r.spare]
    assert rows and on.bom[-len(rows):] == tuple(rows)
    by_item = {r.item: r for r in off.bom}
    policy = spares.default_policy()
    for spare in rows:
        source = by_item[spare.item.replace(", spare)", ")").replace(" (spare)", "")]
        kind, value = spares.parse_rule(spare.category, policy[spare.category])
        expect = math.ceil(source.quantity * value / 100 - 1e-9) if kind == "percent" else int(value)
        assert spare.quantity == expect, spare.item
        assert (spare.category, spare.catalog_id, spare.network, spare.end) == (
            source.category, source.catalog_id, source.network, source.end)
        assert spare.unit_price_usd == source.unit_price_usd and spare.unit_power_w == 0.0
        assert (spare.low_usd, spare.high_usd) == (source.low_usd, source.high_usd)
        assert spare.why.startswith("spares: ") and f"{source.quantity:,} installed" in spare.why
    leaf = next(r for r in rows if r.item.endswith("(leaf, spare)") and r.network == "compute")
    assert leaf.quantity == 1 and "N+1" in leaf.why  # one per model and tier
    # 2% of the 512 node-side modules, rounded up: ceil(10.24) = 11
    node_side = next(r for r in rows if r.category == "transceiver" and r.end == "node")
    assert node_side.quantity == 11 and "2% of 512 installed, rounded up" in node_side.why
    assert not any(r.category in ("compute", "appliance") for r in rows)


def test_capex_includes_spares_and_power_does_not(pair):
    off, on = pair
    rows = [r for r in on.bom if r.spare]
    spend = sum(r.extended_price_usd for r in rows)
    assert spend > 0 and on.cost.spares_capex_usd == pytest.approx(spend)
    assert on.cost.capex_usd == pytest.approx(off.cost.capex_usd + spend)
    assert on.cost.capex_usd_low == pytest.approx(off.cost.capex_usd_low + sum(r.quantity * r.low_usd for r in rows))
    assert on.cost.capex_usd_high == pytest.approx(off.cost.capex_usd_high + sum(r.quantity * r.high_usd for r in rows))
    assert on.cost.it_kw == off.cost.it_kw and on.cost.facility_kw == off.cost.facility_kw
    fabric_spares = sum(r.extended_price_usd for r in rows if r.network == "compute" and not r.management)
    assert on.cost.network_capex_usd == pytest.approx(off.cost.network_capex_usd + fabric_spares)
    s_on, s_off = on.summary(), off.summary()
    assert s_on["cost"]["spares_capex_usd"] == round(spend, 2)
    # counts are of installed parts; capex per network includes that network's spares
    assert s_on["switches"] == s_off["switches"] and s_on["transceivers"] == s_off["transceivers"]
    for network, numbers in s_on["networks"].items():
        assert numbers["switches"] == s_off["networks"][network]["switches"]
        extra = sum(r.extended_price_usd for r in rows if r.network == network)
        assert numbers["capex_usd"] == pytest.approx(s_off["networks"][network]["capex_usd"] + extra, abs=0.02)


def test_custom_policy_and_zero():
    p = plan(Design(gpus=256, spares="switch=N+3,transceiver=0,cable=0%,NIC=0"))
    rows = [r for r in p.bom if r.spare]
    assert rows and all(r.category == "switch" and r.quantity == 3 for r in rows)
    named = plan(Design(gpus=256, spares="switch=N+3"))  # categories not named take the catalog default
    assert {r.category for r in named.bom if r.spare} == {"switch", "transceiver", "cable", "NIC"}


def test_analysis_reads_the_plan_without_its_own_spares(pair):
    from core.analysis.sparing import design_policy, with_spares

    off, on = pair
    a, b = with_spares(off), with_spares(on)
    assert a.capex_usd == pytest.approx(b.capex_usd) == pytest.approx(off.cost.capex_usd)
    assert a.spares_capex_usd == pytest.approx(b.spares_capex_usd) == pytest.approx(on.cost.spares_capex_usd)
    assert [r.row for r in a.rows] == [r for r in on.bom if r.spare]  # one rule, one set of rows
    assert design_policy(off) is None and design_policy(on) == spares.default_policy()
    assert design_policy(plan(Design(gpus=256, spares="switch=N+2")))["switch"] == "N+2"


def test_growth_reserves_the_spares_of_the_growth():
    p = plan(Design(nodes=64, grow_to=256, spares="default"))
    reserved = [r for r in p.reserved_bom if r.spare]
    final = plan(Design(nodes=256, spares="default"))
    assert reserved and all(r.quantity > 0 and r.unit_power_w == 0 for r in reserved)
    assert all(r.why.startswith("reserved for growth") for r in reserved)
    assert not any(r.spare for r in plan(Design(nodes=64, grow_to=256)).reserved_bom)
    assert final.cost.spares_capex_usd > p.cost.spares_capex_usd


# --- properties -----------------------------------------------------------------------------------
RULES = st.one_of(st.integers(0, 20).map(lambda n: f"{n}%"), st.integers(0, 5).map(lambda k: f"N+{k}"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes=st.sampled_from([2, 16, 64, 200]), fabric=st.sampled_from(["infiniband", "ethernet"]),
       rules=st.fixed_dictionaries({c: RULES for c in spares.SPARED_CATEGORIES}))
def test_spares_never_lower_capex_and_add_exactly_their_rows(nodes, fabric, rules):
    base = plan(Design(nodes=nodes, fabric=fabric))
    with_ = plan(Design(nodes=nodes, fabric=fabric, spares=spares.format_policy(rules)))
    rows = [r for r in with_.bom if r.spare]
    assert with_.cost.capex_usd >= base.cost.capex_usd
    assert with_.cost.capex_usd == pytest.approx(base.cost.capex_usd + sum(r.extended_price_usd for r in rows))
    assert with_.cost.spares_capex_usd == pytest.approx(sum(r.extended_price_usd for r in rows))
    assert with_.cost.it_kw == pytest.approx(base.cost.it_kw)
    for r in rows:
        kind, value = spares.parse_rule(r.category, rules[r.category])
        assert r.quantity >= 1 and (kind == "percent" or r.quantity == int(value))


# --- share link, design file, CLI -------------------------------------------------------------------
@pytest.mark.parametrize("setting", ["default", ON, "NIC=N+4"])
def test_share_link_round_trip(setting):
    design = Design(gpus=2048, spares=setting)
    params = sharelink.encode(design)
    assert params["sp"] == design.spares
    assert sharelink.decode(params) == (design, [])
    assert "sp" not in sharelink.encode(Design(gpus=2048))


def test_bad_link_value_is_one_warning():
    design, warnings = sharelink.decode({"v": "1", "n": "8", "sp": "switch=9000%"})
    assert design == Design(nodes=8) and len(warnings) == 1
    assert "'sp' (Spares)" in warnings[0] and "Accepted: off, default" in warnings[0]
    assert "not a percentage (2%) or N+k (N+1)" in warnings[0]
    design, warnings = sharelink.decode({"v": "1", "sp": "<b>" + "x" * 100 + "=1%"})  # the UI escapes (webui.safe)
    assert design == Design() and len(warnings) == 1 and "no sparing for" in warnings[0]
    assert "x" * 41 not in warnings[0]  # the user's text is cut to 40 characters


def test_design_file_round_trip_and_old_files():
    design = Design(gpus=512, spares=ON)
    data = json.loads(design.to_json())
    assert data["version"] == 1 and data["spares"] == ON
    assert Design.from_json(design.to_json()) == design
    assert json.loads(Design().to_json())["spares"] == "off"  # defaults are written too
    del data["spares"]  # an older file: no spares field means off
    assert Design.from_json(json.dumps(data)).spares == "off"
    with pytest.raises(InputError, match="spares"):
        Design.from_json(json.dumps({**data, "spares": "switch=N+lots"}))


def test_cli_plan_json_and_table(capsys):
    from core.cli import main

    assert main(["plan", "--gpus", "1024", "--spares", "default", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    p = plan(Design(gpus=1024, spares="default"))
    assert data["design"]["spares"] == "default"
    assert data["cost"]["spares"] == "default"
    assert data["cost"]["spares_capex_usd"] == round(p.cost.spares_capex_usd, 2) and p.cost.spares_capex_usd > 0
    assert data["cost"]["capex_usd"] == round(p.cost.capex_usd, 2)
    spare_rows = [r for r in data["bom"] if r["spare"]]
    assert len(spare_rows) == sum(1 for r in p.bom if r.spare) and all(r["unit_power_w"] == 0 for r in spare_rows)
    assert main(["plan", "--gpus", "256", "--spares", "switch=N+2", "--spares", "nic=2%"]) == 0
    assert "spares" in capsys.readouterr().out
    assert main(["plan", "--gpus", "256", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["cost"]["spares_capex_usd"] == 0
    assert main(["plan", "--gpus", "256", "--spares", "switch=lots"]) == 2
    err = capsys.readouterr().err
    assert "not a percentage" in err and "Traceback" not in err


def test_xlsx_and_review_pack_totals_include_spares():
    from io import BytesIO

    from openpyxl import load_workbook

    from core.formats import xlsx
    from core.formats.report import design_report_html

    p = plan(Design(gpus=256, spares="default"))
    book = load_workbook(BytesIO(xlsx.design_xlsx(p, share_link="https://example.test/?sp=default")))
    data = [tuple(c.value for c in row) for row in book["Bill of materials"].iter_rows()]
    col = {h: i for i, h in enumerate(data[0])}
    body, total = data[1:-1], data[-1]
    spare_body = [r for r in body if str(r[col["where"]]).endswith("spare")]
    assert len(spare_body) == sum(1 for r in p.bom if r.spare) > 0
    assert all(r[col["total W"]] == 0 for r in spare_body)
    assert total[col["total USD"]] == pytest.approx(p.cost.capex_usd)  # the totals row is plan.cost, spares in
    assert sum(r[col["total USD"]] for r in body) == pytest.approx(p.cost.capex_usd)
    assert total[col["total USD (high)"]] == pytest.approx(p.cost.capex_usd_high)
    summary = [tuple(c.value for c in row) for row in book["Summary"].iter_rows()]
    assert any(r[0] == "Spares (in the capex above, no power)" and r[1] == pytest.approx(p.cost.spares_capex_usd)
               for r in summary)
    assert {r[2]: r[1] for r in xlsx.design_rows(p)}["spares"] == "the catalog's policy"
    page = design_report_html(p, name="spares", share_link="https://example.test/")
    assert re.search(r'<td class="engine place">[^<]*, spare</td>', page)  # where a spare sits, as the workbook
    assert f'data-total-usd="{p.cost.capex_usd:.2f}"' in page
    assert "Capex includes" in page


# --- sweep and compare follow plan.cost ---------------------------------------------------------------
def test_sweep_costs_the_base_designs_spares():
    from core.analysis.sweep import Axis, SweepSpec, sweep

    spec = lambda base: SweepSpec(base=base, x=Axis(setting="nodes", values=(16, 64)), metric="capex_usd")  # noqa: E731
    off = sweep(spec(Design(nodes=16)))
    on = sweep(spec(Design(nodes=16, spares="default")))
    for a, b, nodes in zip(off.points, on.points, (16, 64)):
        extra = plan(Design(nodes=nodes, spares="default")).cost.spares_capex_usd
        assert extra > 0 and b.value == pytest.approx(a.value + extra)


def test_compare_bom_difference_lists_spare_rows_apart():
    from core.analysis.compare import bom_changes

    off, on = plan(Design(gpus=256)), plan(Design(gpus=256, spares="switch=N+2"))
    changes = bom_changes([off, on])
    spare = [c for c in changes if c.item.endswith("spare)")]
    assert len(spare) == sum(1 for r in on.bom if r.spare) > 0
    assert all(c.quantities[0] == 0 and c.quantities[1] > 0 for c in spare)
    assert not [c for c in changes if not c.item.endswith("spare)")]  # the installed rows are the same
    assert sum(c.usd_change(1, 0) for c in changes) == pytest.approx(on.cost.capex_usd - off.cost.capex_usd)
