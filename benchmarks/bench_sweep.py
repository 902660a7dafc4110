"""Sweep benchmark: a 20-point line, a 10 x 10 heatmap and a 10-point step-time sweep, median ms.

Run: ``make bench`` (or ``python benchmarks/bench_sweep.py``). "cold" clears the engine's plan cache before
every run (a sweep nobody asked for before); "warm" repeats the same sweep (the page's reruns, whose plans
``core.plan.plan`` has cached). No target in the issue; the page should answer within a second or two.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import timed  # noqa: E402
from core import plan as plan_module  # noqa: E402
from core.analysis.sweep import Axis, SweepSpec, sweep  # noqa: E402
from core.design import Design  # noqa: E402
from core.formats.joblink import DEFAULTS  # noqa: E402
from core.perf.jobform import FITTED  # noqa: E402

BASE = Design(gpu="H100", nodes=1024)
CASES = {
    "20-point line (nodes 64..1280, capex per GPU)": SweepSpec(
        base=BASE, x=Axis(setting="nodes", values=tuple(range(64, 1281, 64))), metric="capex_per_gpu_usd"),
    "10 x 10 heatmap (nodes x leaf oversubscription, capex)": SweepSpec(
        base=BASE, x=Axis(setting="nodes", values=tuple(range(128, 1281, 128))),
        y=Axis(setting="oversubscription", values=(1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0)),
        metric="capex_usd"),
    "10-point busbw at 1 GiB (nodes)": SweepSpec(
        base=BASE, x=Axis(setting="nodes", values=tuple(range(128, 1281, 128))), metric="busbw_gbytes",
        job=dict(DEFAULTS)),
    "10-point step time (nodes, Performance job)": SweepSpec(
        base=BASE, x=Axis(setting="nodes", values=tuple(range(128, 1281, 128))), metric="step_time_s",
        job=dict(DEFAULTS), fit=FITTED, defaults=dict(DEFAULTS)),
}


def _cold(spec):
    def run():
        plan_module._plan_cached_key.cache_clear()
        plan_module._ways_out_cached.cache_clear()
        sweep(spec)
    return run


def main() -> None:
    for name, spec in CASES.items():
        cold, cold_max = timed(_cold(spec), repeat=5)
        sweep(spec)
        warm, warm_max = timed(lambda: sweep(spec), repeat=10)
        print(f"{name:58s} cold {cold:8.1f} ms (max {cold_max:8.1f})   warm {warm:8.1f} ms (max {warm_max:8.1f})",
              flush=True)


if __name__ == "__main__":
    main()
