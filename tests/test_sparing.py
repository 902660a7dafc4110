"""Spares in the BOM (core/analysis/sparing.py): counts, costs, policy parsing, Poisson coverage."""

from __future__ import annotations

import math

import pytest

from core.analysis.sparing import default_policy, parse_rule, poisson_cdf, with_spares
from core.design import Design
from core.errors import InputError
from core.plan import plan


@pytest.fixture(scope="module")
def big():
    return plan(Design(gpus=16_384))


def test_default_policy_is_the_catalogs():
    assert default_policy() == {"transceiver": "2%", "cable": "1%", "NIC": "1%", "switch": "N+1"}


def test_percent_rounds_up_and_n_plus_k_is_per_row(big):
    spares = with_spares(big)
    compute = [r for r in spares.rows if r.row.network == "compute"]  # the storage / management networks' spares aside
    by_installed = {(r.row.category, r.installed): r.row.quantity for r in compute}
    assert by_installed[("transceiver", 8192)] == 164  # ceil(163.84)
    # the 16,384 leaf-side modules of the spine links, split by media into their length bins: a rule per row
    assert by_installed[("transceiver", 12556)] == 252  # ceil(251.12)
    assert by_installed[("transceiver", 3828)] == 77  # ceil(76.56)
    assert by_installed[("cable", 16384)] == 164
    assert by_installed[("NIC", 16384)] == 164
    switch_rows = [r for r in compute if r.row.category == "switch"]
    assert len(switch_rows) == 3 and all(r.row.quantity == 1 for r in switch_rows)  # leaf, spine, core


def test_spares_are_costed_at_the_row_price_without_power(big):
    spares = with_spares(big)
    installed = {(r.category, r.catalog_id, r.item): r for r in big.bom}
    total = 0.0
    for spare in spares.rows:
        source = installed[(spare.row.category, spare.row.catalog_id, spare.row.item.replace(", spare)", ")").replace(" (spare)", ""))]
        assert spare.row.unit_price_usd == source.unit_price_usd
        assert spare.row.unit_power_w == 0.0
        assert "spares" in spare.row.why and spare.row.why != source.why
        total += spare.row.quantity * source.unit_price_usd
    assert spares.spares_capex_usd == pytest.approx(total)
    assert spares.capex_with_spares_usd == pytest.approx(big.cost.capex_usd + total)
    assert spares.capex_with_spares_usd_low < spares.capex_with_spares_usd < spares.capex_with_spares_usd_high


def test_the_plan_is_not_changed(big):
    before = (big.bom, big.cost.capex_usd, big.summary())
    with_spares(big, {"switch": "N+4"})
    assert (big.bom, big.cost.capex_usd, big.summary()) == before
    assert not any("spares" in r.why for r in big.bom)


def test_policy_overrides_and_zero():
    small = plan(Design(gpus=256))
    none = with_spares(small, {"transceiver": "0", "cable": "0%", "NIC": "0", "switch": "N+0"})
    assert none.rows == () and none.spares_capex_usd == 0 and none.capex_with_spares_usd == small.cost.capex_usd
    two = with_spares(small, {"switch": "N+2"})
    assert all(r.row.quantity == 2 for r in two.rows if r.row.category == "switch")


def test_parse_rule():
    assert parse_rule("x", "2%") == ("percent", 2.0)
    assert parse_rule("x", " n + 1 ") == ("n_plus_k", 1.0)
    assert parse_rule("x", "0.5") == ("percent", 0.5)
    for bad in ("abc", "150%", "N+", "-1%", "N+99999"):
        with pytest.raises(InputError, match="not a percentage"):
            parse_rule("transceiver", bad)
    with pytest.raises(InputError, match="no sparing for"):
        with_spares(plan(Design(gpus=256)), {"compute": "1%"})
    with pytest.raises(InputError, match="lead time"):
        with_spares(plan(Design(gpus=256)), lead_days=0)


def test_poisson_cdf_hand_values():
    m = 0.7726
    assert poisson_cdf(1, m) == pytest.approx(math.exp(-m) * (1 + m), rel=1e-12)
    assert poisson_cdf(0, 2.0) == pytest.approx(math.exp(-2.0))
    assert poisson_cdf(3, 0.0) == 1.0


def test_default_optics_spares_cover_a_90_day_restock_and_n_plus_1_switches_may_not(big):
    """The [A] claim in reliability.toml: 2% optics covers the 99th percentile of 90 days of failures at
    the link rate for 1,000+ modules; N+1 switches does not for 512 leaves (shown, not hidden)."""
    spares = with_spares(big)
    for r in spares.rows:
        if r.row.category == "transceiver":
            assert r.coverage > 0.99, r
    leaf = next(r for r in spares.rows if r.row.category == "switch" and r.installed == 512)
    # 512 x 0.00612 / year x 90 days = 0.7726 failures expected; P(<= 1) = 0.8186
    assert leaf.expected_failures_in_lead_time == pytest.approx(512 * 0.00612 * 90 / 365, rel=1e-9)
    assert leaf.coverage == pytest.approx(0.8186, abs=1e-4)


def test_json_fields():
    data = with_spares(plan(Design(gpus=256))).to_json()
    for key in ("lead_days", "spares_capex_usd", "capex_usd", "capex_with_spares_usd", "rows"):
        assert key in data
    assert {"category", "catalog_id", "quantity", "installed", "rule", "coverage", "why"} <= set(data["rows"][0])


def test_coverage_follows_edited_rates():
    from core.analysis.availability import rates_with

    p = plan(Design(gpus=1024))
    base = with_spares(p)
    worse = with_spares(p, rates=rates_with({"switch": {"afr": 0.5}}))
    b = next(r for r in base.rows if r.row.category == "switch")
    w = next(r for r in worse.rows if r.row.category == "switch")
    assert w.expected_failures_in_lead_time == pytest.approx(b.expected_failures_in_lead_time * 0.5 / 0.00612)
    assert w.coverage < b.coverage
    assert worse.spares_capex_usd == base.spares_capex_usd  # the rule, not the rate, sets the count


def test_every_sparing_default_says_where_it_comes_from_and_when():
    """Every catalog number has its source and date; the sparing defaults are assumptions and say so."""
    from datetime import date

    from core.spares import reliability_table
    for category, entry in reliability_table()["sparing"].items():
        assert entry["source"].startswith("[A]"), category
        assert date.fromisoformat(entry["as_of"] + "-01") <= date(2026, 12, 31), category


def test_a_design_with_pods_spares_every_pods_switches_and_nics():
    """A design with pods: each pod's own leaf switch and NIC rows get their spares, the shared spines once, and the
    capex is the mixed bill's (an H100 pod of 64 servers and a B200 pod of 32 under 16 shared spines)."""
    from core.analysis.pods import mixed_plan

    design = Design(gpu="H100", nodes=64, pods="B200:32:400")
    mixed = mixed_plan(design)
    spares = with_spares(plan(design))  # pod 1's plan: read as the whole bill
    compute = [r for r in spares.rows if r.row.network == "compute"]
    switches = sorted((r.installed, r.row.quantity) for r in compute if r.row.category == "switch")
    assert [p.leaves for p in mixed.fabric.pods] == [16, 8] and mixed.fabric.spines == 16
    assert switches == [(8, 1), (16, 1), (16, 1)]  # pod 2's leaves, pod 1's leaves, the shared spines: N+1 each
    nics = sorted((r.installed, r.row.quantity) for r in compute if r.row.category == "NIC")
    assert nics == [(32 * 8, math.ceil(32 * 8 / 100)), (64 * 8, math.ceil(64 * 8 / 100))]  # 1% per pod's row
    assert spares.capex_usd == pytest.approx(mixed.capex_usd)
    assert spares.capex_usd > plan(design).cost.capex_usd  # more than pod 1 alone
