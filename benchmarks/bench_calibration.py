"""Calibration on nccl-tests logs (``core.perf.calibration.fit``): median time of one fit [ms].

Run: ``python benchmarks/bench_calibration.py``. Each timed fit starts cold, as a user's first does: the design
planned anew (the plan is timed too) and ``constants.calibrated``'s cache of corrected constants cleared. Workloads: the published tables in tests/golden/nccl-tests
(coreweave's 20 GB200 NVL72 racks, 1,440 ranks, 6 sizes; dgxc-benchmarking's DGX H100, 8 ranks, 32 sizes) and both
together on one design each. Target (issue: "a calibration fit within 1 s"): every median under 1,000 ms.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed  # noqa: E402

from core.design import Design  # noqa: E402
from core.formats import nccltests  # noqa: E402
from core.perf.calibration import fit  # noqa: E402
from core.perf.constants import calibrated  # noqa: E402
from core.plan import plan  # noqa: E402

GOLDEN = ROOT / "tests" / "golden" / "nccl-tests"
TARGET_MS = 1000.0
CASES = (("20 NVL72 racks, 1,440 ranks", Design(gpu="GB200-NVL72", gpus=1440), "coreweave-gb200-20racks.txt"),
         ("DGX H100, 8 ranks, 32 sizes", Design(gpu="H100", nodes=1), "dgxc-h100-8.txt"))


def main() -> None:
    print("calibration fit [ms]: median, max of 5")
    for label, design, name in CASES:
        p = plan(design)
        run = nccltests.parse((GOLDEN / name).read_text(), op="all-reduce", name=name)
        def once():  # each fit from cold: its corrected constants are cached by their text, so clear them
            calibrated.cache_clear()
            fit(p, [run])

        median, worst = timed(once, repeat=5)
        print(f"  {label:30s} {median:7.0f} {worst:7.0f}  {'PASS' if median <= TARGET_MS else 'MISS'}")


if __name__ == "__main__":
    main()
