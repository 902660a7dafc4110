"""What-if sweeps: re-plan a design with one choice varied, through the engine.

The pages plot these; every number comes from ``core.plan.plan``.
"""

from __future__ import annotations

import pandas as pd

from core.design import Design
from core.errors import DesignError, InputError
from core.plan import plan

OVERSUBSCRIPTION_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)

SWEEP_COLUMNS = [
    "oversubscription", "feasible", "cross_fabric_gbits_per_gpu", "scaleout_gbits_per_gpu",
    "bisection_tbits", "effective_oversubscription", "switches", "network_capex_usd",
    "network_capex_per_gpu_usd", "tiers", "note",
]


def oversubscription_sweep(design: Design, values: tuple[float, ...] = OVERSUBSCRIPTION_STEPS) -> pd.DataFrame:
    """Re-plan ``design`` at each leaf oversubscription in ``values`` (plus the design's own).

    Returns one row per value (sorted) with ``SWEEP_COLUMNS``: per-GPU
    cross-fabric bandwidth [Gb/s, one direction] (scale-out per GPU divided by
    the effective end-to-end oversubscription), bisection [Tb/s], switch count
    (all planes) and network capex [USD]. A value the engine cannot build has
    ``feasible=False`` and the engine's message in ``note``.
    """
    rows = []
    for value in sorted({float(v) for v in values} | {float(design.oversubscription)}):
        variant = design.model_copy(update={"oversubscription": value})
        try:
            result = plan(variant)
        except (DesignError, InputError) as exc:
            rows.append({"oversubscription": value, "feasible": False, "note": str(exc)})
            continue
        bw = result.bandwidth
        rows.append({
            "oversubscription": value,
            "feasible": True,
            "cross_fabric_gbits_per_gpu": bw.cross_fabric_gbits_per_gpu,
            "scaleout_gbits_per_gpu": bw.scaleout_gbits_per_gpu,
            "bisection_tbits": bw.bisection_tbits_one_direction,
            "effective_oversubscription": bw.oversubscription,
            "switches": result.fabric.switch_count_total,
            "network_capex_usd": result.cost.network_capex_usd,
            "network_capex_per_gpu_usd": result.cost.network_capex_usd / result.resolved.gpus,
            "tiers": result.fabric.tiers,
            "note": "",
        })
    return pd.DataFrame.from_records(rows, columns=SWEEP_COLUMNS)
