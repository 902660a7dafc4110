"""Spares in the bill of materials with their coverage: a sparing policy turns installed BOM rows into spare rows.

The rows themselves are made by ``core.spares`` (policy parsing, the ceil rule, each row's ``why``),
which ``core.cost.build_bom`` also uses when ``Design.spares`` puts spares in the plan's own BOM and
capex. This module adds what needs failure rates: ``with_spares(plan, policy)`` returns the spare rows
of ``plan``'s installed rows (one per installed switch, transceiver, cable or NIC row, its own ``why``,
costed at the row's unit price, no power: spares sit on a shelf) and ``Spares`` holds the capex
without and with them. The plan itself is never changed; a plan that already holds spare rows
(``Design.spares`` on) is read without them (``capex_usd`` is then its capex less its spares). A design with pods
is read as its whole bill (``core.analysis.whole.whole_plan``): each pod's own leaf switches, NICs and optics rows
and the shared spines once, so every pod's switch models and NICs are spared. A
policy maps a BOM category to ``"2%"`` (spares = ceil(installed x 2 / 100)) or ``"N+1"`` (one spare
per row, i.e. per model per tier); defaults from ``reliability.toml`` (``[sparing.*]``, graded [A]).

Each spare row also says how well it covers failures: the Poisson probability that the failures
of the installed items during a restock lead time (default 90 days) do not exceed the spares, with
the class rate of ``reliability.toml`` (``coverage``).
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from core.analysis.availability import HOURS_PER_YEAR, default_rates
from core.analysis.whole import whole_plan
from core.catalog import load_catalog
from core.cost import BomRow
from core.errors import InputError
from core.i18n import _
from core.spares import (  # noqa: F401 - parse_rule, parse_policy, default_policy, spare_count: this module's API too
    SPARED_CATEGORIES,
    default_policy,
    parse_policy,
    parse_rule,
    setting_policy,
    spare_count,
    spare_pairs,
)

RATE_CLASS = {"switch": "switch", "transceiver": "transceiver", "cable": "cable", "NIC": "nic"}
"""BOM category -> reliability.toml class."""
DEFAULT_LEAD_DAYS = 90.0


def poisson_cdf(k: int, mean: float) -> float:
    """P(X <= k) for X ~ Poisson(mean)."""
    if mean <= 0:
        return 1.0
    term = math.exp(-mean)
    total = term
    for i in range(1, k + 1):
        term *= mean / i
        total += term
    return min(1.0, total)


class SpareRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    row: BomRow
    installed: int
    rule: str
    expected_failures_in_lead_time: float
    coverage: float
    """P(failures of the installed items in the lead time <= spares), Poisson."""


class Spares(BaseModel):
    model_config = ConfigDict(frozen=True)

    rows: tuple[SpareRow, ...]
    lead_days: float
    spares_capex_usd: float
    capex_usd: float
    capex_with_spares_usd: float
    capex_with_spares_usd_low: float
    capex_with_spares_usd_high: float

    @property
    def bom_rows(self) -> tuple[BomRow, ...]:
        return tuple(r.row for r in self.rows)

    def to_json(self) -> dict:
        return {
            "lead_days": self.lead_days,
            "spares_capex_usd": round(self.spares_capex_usd, 2),
            "capex_usd": round(self.capex_usd, 2),
            "capex_with_spares_usd": round(self.capex_with_spares_usd, 2),
            "capex_with_spares_usd_low": round(self.capex_with_spares_usd_low, 2),
            "capex_with_spares_usd_high": round(self.capex_with_spares_usd_high, 2),
            "rows": [{"category": r.row.category, "catalog_id": r.row.catalog_id, "item": r.row.item, "pod": r.row.pod,
                      "installed": r.installed, "quantity": r.row.quantity, "rule": r.rule,
                      "unit_price_usd": r.row.unit_price_usd,
                      "extended_price_usd": round(r.row.extended_price_usd, 2),
                      "expected_failures_in_lead_time": round(r.expected_failures_in_lead_time, 4),
                      "coverage": round(r.coverage, 6), "why": r.row.why} for r in self.rows],
        }


def with_spares(plan, policy: dict[str, str] | None = None, lead_days: float = DEFAULT_LEAD_DAYS,
                rates: dict | None = None) -> Spares:
    """Spare rows for ``plan``'s BOM under ``policy`` (defaults: reliability.toml), and capex with them [USD];
    ``rates`` (``availability.rates_with``) sets the failure rates the coverage uses. A design with pods: its
    whole bill, every pod's rows and the shared spines once (module docstring)."""
    if not (isinstance(lead_days, (int, float)) and 0 < lead_days <= 3650):
        raise InputError(_("the restock lead time must be from 1 to 3650 days"))
    rates = rates or default_rates()
    plan = whole_plan(plan)
    out: list[SpareRow] = []
    names = {e.id: e.name for _kind, e in load_catalog().all_entries()}
    for row, spare, rule in spare_pairs(plan.bom, policy, names):
        mean = row.quantity * rates[RATE_CLASS[row.category]].afr * lead_days * 24 / HOURS_PER_YEAR
        out.append(SpareRow(row=spare, installed=row.quantity, rule=rule,
                            expected_failures_in_lead_time=mean, coverage=poisson_cdf(spare.quantity, mean)))
    spend = sum(r.row.extended_price_usd for r in out)
    low = sum(r.row.quantity * r.row.low_usd for r in out)
    high = sum(r.row.quantity * r.row.high_usd for r in out)
    cost = plan.cost  # without the plan's own spares (Design.spares), if any: these rows replace them
    capex = cost.capex_usd - cost.spares_capex_usd
    return Spares(rows=tuple(out), lead_days=float(lead_days), spares_capex_usd=spend,
                  capex_usd=capex, capex_with_spares_usd=capex + spend,
                  capex_with_spares_usd_low=cost.capex_usd_low - cost.spares_capex_usd_low + low,
                  capex_with_spares_usd_high=cost.capex_usd_high - cost.spares_capex_usd_high + high)


def design_policy(plan) -> dict[str, str] | None:
    """The sparing policy the plan's design sets (``Design.spares``), every category filled in (the
    catalog default where it names none); None when the design has spares off."""
    policy = setting_policy(plan.design.spares)
    if policy is None:
        return None
    return {**default_policy(), **policy}
