"""Plan a design end to end: resolve, size the fabric, bandwidth, bill of materials, cost.

``plan(design)`` is the one entry point the pages, the CLI and the share
links call. It is pure and deterministic; results are immutable.
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd
from pydantic import BaseModel, ConfigDict

from core.fabric.bandwidth import Bandwidth, compute_bandwidth
from core.catalog import Catalog, load_catalog
from core.cost import BomRow, CostSummary, bom_dataframe, build_bom, summarize_cost
from core.design import Design, ResolvedDesign, resolve_design
from core.fabric.sizing import FabricPlan, size_fabric


class Plan(BaseModel):
    """Everything the engine knows about one design."""

    model_config = ConfigDict(frozen=True)

    resolved: ResolvedDesign
    fabric: FabricPlan
    bandwidth: Bandwidth
    bom: tuple[BomRow, ...]
    cost: CostSummary

    @property
    def design(self) -> Design:
        return self.resolved.design

    def bom_frame(self) -> pd.DataFrame:
        """The bill of materials as a pandas DataFrame (one row per item)."""
        return bom_dataframe(self.bom)

    def transceiver_counts(self) -> dict[str, int]:
        """Transceivers at the switch end and at the node end."""
        counts = {"switch_side": 0, "node_side": 0}
        for row in self.bom:
            if row.category == "transceiver":
                counts[f"{row.end}_side"] += row.quantity
        return counts

    def summary(self) -> dict:
        """The headline numbers as plain JSON-ready data (counts summed over planes)."""
        fabric = self.fabric
        planes = fabric.planes
        resolved = self.resolved
        transceivers = self.transceiver_counts()
        return {
            "gpus": resolved.gpus,
            "nodes": resolved.nodes,
            "gpu_model": resolved.system.id,
            "gpus_per_node": resolved.gpus_per_node,
            "fabric": resolved.fabric,
            "topology": resolved.topology,
            "switch_model": resolved.switch.id,
            "nic_model": resolved.nic.id,
            "port_speed_gbps": resolved.port_speed_gbps,
            "nics_per_node": resolved.nics_per_node,
            "planes": planes,
            "tiers": fabric.tiers,
            "scalable_units": fabric.group_count if resolved.topology == "rail-optimized" else None,
            "pods": fabric.pod_count if fabric.tiers == 3 else None,
            "switches": {
                "leaf": fabric.leaf_count_total,
                "spine": fabric.spine_count_total,
                "core": fabric.core_count_total,
                "total": fabric.switch_count_total,
            },
            "links": {
                "node_leaf": fabric.node_leaf_links * planes,
                "leaf_spine": fabric.leaf_spine_links * planes,
                "spine_core": fabric.spine_core_links * planes,
            },
            "transceivers": transceivers,
            "bandwidth": {
                "nvlink_gbytes_per_gpu_bidir": self.bandwidth.nvlink_gbytes_per_gpu_bidir,
                "nvlink_gbytes_per_gpu_per_direction": self.bandwidth.nvlink_gbytes_per_gpu_per_direction,
                "scaleout_gbits_per_gpu": self.bandwidth.scaleout_gbits_per_gpu,
                "bisection_tbits_one_direction": round(self.bandwidth.bisection_tbits_one_direction, 6),
                "oversubscription": round(self.bandwidth.oversubscription, 4),
                "leaf_oversubscription": round(self.bandwidth.leaf_oversubscription, 4),
                "scaleup_to_scaleout_ratio": round(self.bandwidth.scaleup_to_scaleout_ratio, 3),
                "hops_same_rail": self.bandwidth.hops_same_rail,
                "hops_same_rail_other_su": self.bandwidth.hops_same_rail_other_su,
                "hops_cross_rail": self.bandwidth.hops_cross_rail,
                "hops_cross_pod": self.bandwidth.hops_cross_pod,
            },
            "cost": {
                "capex_usd": round(self.cost.capex_usd, 2),
                "capex_per_gpu_usd": round(self.cost.capex_per_gpu_usd, 2),
                "network_capex_usd": round(self.cost.network_capex_usd, 2),
                "network_share": round(self.cost.network_share, 4),
                "energy_usd_per_year": round(self.cost.energy_usd_per_year, 2),
                "tco_usd": round(self.cost.tco_usd, 2),
                "tco_years": self.cost.tco_years,
                "price_note": "estimates from the catalog unless overridden",
            },
            "power": {
                "it_kw": round(self.cost.it_kw, 3),
                "network_kw": round(self.cost.network_kw, 3),
                "facility_kw": round(self.cost.facility_kw, 3),
                "pue": self.cost.pue,
                "basis": "nodes at their maximum power, network parts at typical power; "
                         "energy assumes that draw around the clock (an upper bound)",
            },
            "racks_compute": self.cost.racks_compute,
            "explanation": list(resolved.notes) + list(fabric.explanation),
        }


def plan(design: Design, catalog: Catalog | None = None) -> Plan:
    """Plan ``design`` against ``catalog`` (the bundled one by default).

    Raises
    ------
    InputError
        Unknown model or a combination the hardware does not offer.
    DesignError
        A design that cannot be built, with what would work.
    """
    if catalog is None:
        return _plan_cached(design)
    return _plan(design, catalog)


def _plan(design: Design, catalog: Catalog) -> Plan:
    resolved = resolve_design(design, catalog)
    fabric = size_fabric(resolved)
    bandwidth = compute_bandwidth(resolved, fabric)
    bom = build_bom(resolved, fabric, catalog)
    cost = summarize_cost(resolved, bom)
    return Plan(resolved=resolved, fabric=fabric, bandwidth=bandwidth, bom=bom, cost=cost)


@lru_cache(maxsize=256)
def _plan_cached_key(key: str) -> Plan:
    return _plan(Design.model_validate_json(key), load_catalog())


def _plan_cached(design: Design) -> Plan:
    return _plan_cached_key(design.model_dump_json())
