"""Benchmark: the wiring index (``core.fabric.wiring``) and planning, flat in size (the wiring speed targets).

1. Planning: ``core.plan._plan`` (the whole pipeline, no cache) + ``Wiring`` construction from 64 to 131,072 GPUs (B300, the
   default design): the median at 131,072 within 1.3x the median at 64.
   The same for a Dragonfly+ (printed, not judged).
2. The whole index of a 131,072-GPU design: every link of every plane and island enumerated (``Wiring.links``)
   within 1 s, and every bundle (``Wiring.bundles``).

Times are medians of repeated runs on this machine (``benchmarks/timing.py``); the CPU time is judged when the load
average exceeds the cores (a shared machine). ``python benchmarks/bench_wiring.py``; run by ``make bench``.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed  # noqa: E402
from core.catalog import load_catalog  # noqa: E402
from core.design import Design, resolve_design  # noqa: E402
from core.plan import _plan  # noqa: E402  (uncached planning)
from core.fabric.sizing import size_fabric  # noqa: E402
from core.fabric.wiring import wiring_of  # noqa: E402

SIZES = (64, 1_024, 16_384, 131_072)
FLAT = 1.3
INDEX_LIMIT_S = 1.0


def _sizing_ms(design: Design) -> float:
    """Median time [ms] to size ``design``'s fabric and build its wiring (no wiring memo)."""
    resolved = resolve_design(design)

    def run():
        fabric = size_fabric(resolved)
        wiring_of.__wrapped__(fabric, resolved.nodes, resolved.nics_per_node)

    run()
    return timed(run, repeat=50)[0]


def _plan_ms(design: Design) -> float:
    """Median time [ms] of the whole pipeline (``core.plan._plan``: no plan cache; layout and lengths included)."""
    catalog = load_catalog()
    _plan(design, catalog)
    return timed(lambda: _plan(design, catalog), repeat=10)[0]


def _whole_index(gpus: int) -> tuple[int, float, int, float]:
    resolved = resolve_design(Design(gpu="B300", gpus=gpus))
    wiring = wiring_of(size_fabric(resolved), resolved.nodes, resolved.nics_per_node)
    start, cpu = time.perf_counter(), time.process_time()
    links = sum(1 for p, i in wiring.plane_islands() for _ in wiring.links(p, i))
    links_s = (time.perf_counter() - start, time.process_time() - cpu)
    start = time.perf_counter()
    bundles = sum(1 for p, i in wiring.plane_islands() for _ in wiring.bundles(p, i))
    return links, min(links_s) if os.getloadavg()[0] > (os.cpu_count() or 1) else links_s[0], bundles, \
        time.perf_counter() - start


def main() -> int:
    medians = {gpus: _sizing_ms(Design(gpu="B300", gpus=gpus)) for gpus in SIZES}
    for gpus, ms in medians.items():
        whole = _plan_ms(Design(gpu="B300", gpus=gpus))
        print(f"{gpus:>7,} GPUs: sizing + wiring median {ms:.3f} ms; whole plan (racks, lengths, BOM) {whole:.1f} ms")
    ratio = medians[SIZES[-1]] / medians[SIZES[0]]
    print(f"131,072 / 64 GPUs: {ratio:.2f}x (target <= {FLAT}x)")
    family = {gpus: _sizing_ms(Design(gpu="B300", gpus=gpus, topology="dragonfly")) for gpus in SIZES}
    print("Dragonfly+: " + "; ".join(f"{gpus:,} GPUs {ms:.3f} ms" for gpus, ms in family.items())
          + f" ({family[SIZES[-1]] / family[SIZES[0]]:.2f}x)")
    links, links_s, bundles, bundles_s = _whole_index(131_072)
    print(f"131,072 GPUs: {links:,} links enumerated in {links_s:.2f} s (target <= {INDEX_LIMIT_S} s); "
          f"{bundles:,} bundles in {bundles_s:.2f} s")
    ok = ratio <= FLAT and links_s <= INDEX_LIMIT_S
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
