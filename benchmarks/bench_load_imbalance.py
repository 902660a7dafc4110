"""Overload and imbalance (core.analysis.load) at 131,072 GPUs.

Run: ``python benchmarks/bench_load_imbalance.py`` (``make bench`` runs it too). Target: about 1 s per pattern
and placement at 131,072 GPUs on 2 cores. Timed: ``link_load`` (pairs, placement, adaptive-routing loads, one
seeded ECMP hash per flow and tier, per-GPU bandwidth, hot links, heatmap and histogram data); the plan is built
before timing. Not ``bench_load.py``, which loads the web app with concurrent browser sessions.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.timing import timed  # noqa: E402
from core.analysis.load import link_load  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402

CONFIGS = {
    "B300 XDR Q3400 rail-optimized (3 tiers)": Design(gpu="B300", gpus=131_072, switch="Q3400"),
    "H100 RoCE SN5600 400G (ECMP)": Design(gpu="H100", gpus=131_072, fabric="ethernet", switch="SN5600",
                                           port_speed_gbps=400),
}
CASES = (("ring", "rail"), ("ring", "random"), ("tree", "rail"), ("alltoall", "rail"), ("alltoall", "random"),
         ("pp", "node"), ("uniform", "node"))


def main() -> int:
    worst = 0.0
    for name, design in CONFIGS.items():
        p = plan(design)
        print(f"{name}: {p.resolved.gpus:,} GPUs, {p.fabric.tiers} tiers")
        for pattern, placement in CASES:
            r = link_load(p, pattern, placement)
            median, top = timed(lambda: link_load(p, pattern, placement), repeat=3)
            worst = max(worst, median)
            print(f"  {pattern:9s} {placement:7s} {r.flows:>11,} flows  median {median:7.0f} ms  max {top:7.0f} ms"
                  f"  ECMP per GPU min/median {r.ecmp.min:5.0f}/{r.ecmp.median:5.0f} Gb/s")
    print(f"slowest median {worst:.0f} ms (target about 1000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
