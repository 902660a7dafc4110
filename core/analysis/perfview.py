"""What the performance estimates read of a plan, as one frozen value: the optimizer's serving and training steps
take it in place of the plan, so the step's cache key is its argument (``core.memo.stage``).

The serving search (``core.perf.serving_search.search``) and the training estimate and split search
(``core.perf.training``) read of a plan its system and sizes, the NVLink domain, the NICs, the switch model (its
SHARP and Spectrum-X ASIC), the design's calibration, the fabric's structure (tiers, groups, Dragonfly+ global links,
each tier's down ports), the tiers' oversubscription, the storage network's port speed (the front-end what-if) and
the cost. ``PerfPlan`` is a ``core.memo.view`` of exactly those attributes, under the plan's names: the estimates
read it unchanged, and an attribute outside it raises ``AttributeError`` instead of being read unkeyed. Its parts
that a collective reads (``BusbwPlan``: the calibration, the resolved design, the fabric and the bandwidth) are
declared with the collectives, in ``core.perf.commview``.

``unpriced(plan)`` is that view at a unit cost (1 USD of TCO over 1 year, 1 kW): the steps the optimizer caches
keep only what the price does not change (the deployment's GPUs and output tokens/s, the fastest split and its
step time and days; the searches rank by GPUs, step time and a cost per token proportional to GPUs over tokens/s
on one plan), so candidates that differ only in prices, optics or cable lengths share one entry, and each is priced
at its own TCO afterwards.
"""

from __future__ import annotations

from core.memo import view
from core.perf.commview import BusbwPlan, PerfBandwidth, PerfCalibration, PerfFabric, PerfResolved  # noqa: F401

PerfStorage = view("PerfStorage", "port_speed_gbps")
PerfNetworks = view("PerfNetworks", "", storage=PerfStorage)
PerfCost = view("PerfCost", "facility_kw tco_usd tco_years")

PerfPlan = view("PerfPlan", "", design=PerfCalibration, resolved=PerfResolved, fabric=PerfFabric,
                bandwidth=PerfBandwidth, networks=PerfNetworks, cost=PerfCost)
"""Everything the serving search and the training estimates read of a ``core.plan.Plan`` (module docstring)."""

UNIT_COST = PerfCost(facility_kw=1.0, tco_usd=1.0, tco_years=1.0)
"""The cost an unpriced view carries: 1 kW, 1 USD of TCO over 1 year."""


def unpriced(plan) -> PerfPlan:
    """``PerfPlan`` of ``plan`` at ``UNIT_COST``: what the performance estimates read of it but its price."""
    return PerfPlan.of(plan)._replace(cost=UNIT_COST)
