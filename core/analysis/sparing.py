"""Spares in the bill of materials: a sparing policy turns installed BOM rows into spare rows.

``with_spares(plan, policy)`` returns the spare rows (one per installed switch, transceiver, cable
or NIC row, its own ``why``, costed at the row's unit price, no power: spares sit on a shelf) and
``Spares`` holds the capex with spares. The plan itself is never changed; spares are off unless
asked for. A policy maps a BOM category to ``"2%"`` (spares = ceil(installed x 2 / 100)) or
``"N+1"`` (one spare per row, i.e. per model per tier); defaults from ``reliability.toml``
(``[sparing.*]``, graded [A]).

Each spare row also says how well it covers failures: the Poisson probability that the failures
of the installed items during a restock lead time (default 90 days) do not exceed the spares, with
the class rate of ``reliability.toml`` (``coverage``).
"""

from __future__ import annotations

import math
import re

from pydantic import BaseModel, ConfigDict

from core.analysis.availability import HOURS_PER_YEAR, _raw, default_rates
from core.cost import BomRow
from core.errors import InputError
from core.i18n import _

SPARED_CATEGORIES = ("switch", "transceiver", "cable", "NIC")
RATE_CLASS = {"switch": "switch", "transceiver": "transceiver", "cable": "cable", "NIC": "nic"}
"""BOM category -> reliability.toml class."""
DEFAULT_LEAD_DAYS = 90.0


def default_policy() -> dict[str, str]:
    """The catalog's sparing policy, as policy strings (``"2%"``, ``"N+1"``)."""
    out = {}
    for category, entry in _raw()["sparing"].items():
        out[category] = f"{entry['value']:g}%" if entry["kind"] == "percent" else f"N+{int(entry['value'])}"
    return out


def parse_rule(category: str, text: str) -> tuple[str, float]:
    """``"2%"`` -> ("percent", 2.0); ``"N+1"`` -> ("n_plus_k", 1); ``"0"`` -> ("percent", 0)."""
    value = str(text).strip().upper().replace(" ", "")
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)%?", value):
        number = float(m.group(1))
        if number <= 100:
            return "percent", number
    elif m := re.fullmatch(r"N\+(\d{1,4})", value):
        return "n_plus_k", float(m.group(1))
    raise InputError(_("sparing for {category}: {value} is not a percentage (2%) or N+k (N+1)").format(
        category=category, value=str(text)[:40]))


def parse_policy(policy: dict[str, str] | None) -> dict[str, tuple[str, float]]:
    """A policy dict (defaults filled in) to parsed rules; unknown categories refused."""
    merged = default_policy()
    for category, rule in (policy or {}).items():
        if category not in SPARED_CATEGORIES:
            raise InputError(_("no sparing for {category}; spares exist for {categories}").format(
                category=str(category)[:40], categories=", ".join(SPARED_CATEGORIES)))
        merged[category] = rule
    return {category: parse_rule(category, rule) for category, rule in merged.items()}


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
            "rows": [{"category": r.row.category, "catalog_id": r.row.catalog_id, "item": r.row.item,
                      "installed": r.installed, "quantity": r.row.quantity, "rule": r.rule,
                      "unit_price_usd": r.row.unit_price_usd,
                      "extended_price_usd": round(r.row.extended_price_usd, 2),
                      "expected_failures_in_lead_time": round(r.expected_failures_in_lead_time, 4),
                      "coverage": round(r.coverage, 6), "why": r.row.why} for r in self.rows],
        }


def spare_count(kind: str, value: float, installed: int) -> int:
    if installed <= 0:
        return 0
    if kind == "percent":
        return math.ceil(installed * value / 100 - 1e-9)
    return int(value)


def with_spares(plan, policy: dict[str, str] | None = None, lead_days: float = DEFAULT_LEAD_DAYS,
                rates: dict | None = None) -> Spares:
    """Spare rows for ``plan``'s BOM under ``policy`` (defaults: reliability.toml), and capex with them;
    ``rates`` (``availability.rates_with``) sets the failure rates the coverage uses."""
    if not (isinstance(lead_days, (int, float)) and 0 < lead_days <= 3650):
        raise InputError(_("the restock lead time must be from 1 to 3650 days"))
    rules = parse_policy(policy)
    rates = rates or default_rates()
    out: list[SpareRow] = []
    for row in plan.bom:
        if row.category not in rules:
            continue
        kind, value = rules[row.category]
        quantity = spare_count(kind, value, row.quantity)
        if quantity <= 0:
            continue
        rule = f"{value:g}%" if kind == "percent" else f"N+{int(value)}"
        if kind == "percent":
            why = _("spares: {rule} of {installed} installed, rounded up (sparing policy)").format(
                rule=rule, installed=f"{row.quantity:,}")
        else:
            why = _("spares: {count} per model and tier ({rule}) for {installed} installed (sparing policy)").format(
                count=quantity, rule=rule, installed=f"{row.quantity:,}")
        spare = row.model_copy(update={"quantity": quantity, "unit_power_w": 0.0, "why": why})
        mean = row.quantity * rates[RATE_CLASS[row.category]].afr * lead_days * 24 / HOURS_PER_YEAR
        out.append(SpareRow(row=spare, installed=row.quantity, rule=rule,
                            expected_failures_in_lead_time=mean, coverage=poisson_cdf(quantity, mean)))
    spend = sum(r.row.extended_price_usd for r in out)
    low = sum(r.row.quantity * r.row.low_usd for r in out)
    high = sum(r.row.quantity * r.row.high_usd for r in out)
    return Spares(rows=tuple(out), lead_days=float(lead_days), spares_capex_usd=spend,
                  capex_usd=plan.cost.capex_usd, capex_with_spares_usd=plan.cost.capex_usd + spend,
                  capex_with_spares_usd_low=plan.cost.capex_usd_low + low,
                  capex_with_spares_usd_high=plan.cost.capex_usd_high + high)
