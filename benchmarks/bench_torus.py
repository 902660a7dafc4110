"""Benchmark: the torus family (``core.fabric.torus``), planning flat in size.

1. Sizing + wiring construction of a torus from 64 to 131,072 GPUs (B300, default dimensions: the most
   balanced 3D shape): the median at 131,072 within 1.3x the median at 64 (``bench_wiring.FLAT``).
2. The whole plan (racks, cable lengths, BOM) at each size, printed.
3. The whole index at 131,072 GPUs: every link enumerated (``TorusWiring.links``) within 1 s.

``python benchmarks/bench_torus.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_wiring import FLAT, INDEX_LIMIT_S, SIZES, _plan_ms, _sizing_ms  # noqa: E402
from core.design import Design, resolve_design  # noqa: E402
from core.fabric.sizing import size_fabric  # noqa: E402
from core.fabric.wiring import wiring_of  # noqa: E402


def _design(gpus: int) -> Design:
    return Design(gpu="B300", gpus=gpus, topology="torus")


def main() -> int:
    medians = {gpus: _sizing_ms(_design(gpus)) for gpus in SIZES}
    for gpus, ms in medians.items():
        resolved = resolve_design(_design(gpus))
        dims = "x".join(map(str, size_fabric(resolved).torus_dims))
        print(f"{gpus:>7,} GPUs ({dims}): sizing + wiring median {ms:.3f} ms; whole plan {_plan_ms(_design(gpus)):.1f} ms")
    ratio = medians[SIZES[-1]] / medians[SIZES[0]]
    print(f"131,072 / 64 GPUs: {ratio:.2f}x (target <= {FLAT}x)")
    resolved = resolve_design(_design(SIZES[-1]))
    wiring = wiring_of(size_fabric(resolved), resolved.nodes, resolved.nics_per_node)
    start = time.perf_counter()
    links = sum(1 for _ in wiring.links())
    links_s = time.perf_counter() - start
    print(f"131,072 GPUs: {links:,} links enumerated in {links_s:.2f} s (target <= {INDEX_LIMIT_S} s)")
    ok = ratio <= FLAT and links_s <= INDEX_LIMIT_S
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
