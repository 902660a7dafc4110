"""Benchmark: availability Monte Carlo (1,000 trials of a 16,384-GPU design within 2 s), spares and
the monitoring checklist.

Cases: 16,384 H100 on InfiniBand (3 tiers, 1,280 switches, 49,152 links) and on RoCE (3 tiers, 640 switches),
and 2,048 GPUs. The plan is built once (the page caches it); ``availability`` is timed from scratch, seeded.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed  # noqa: E402
from core.analysis.availability import availability  # noqa: E402
from core.analysis.monitoring import checklist  # noqa: E402
from core.analysis.sparing import with_spares  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402

TARGET_S = 2.0


def timed_s(fn, repeat=5) -> tuple[float, float]:
    """(median, max) [s]."""
    median_ms, max_ms = timed(fn, repeat)
    return median_ms / 1e3, max_ms / 1e3


def main() -> None:
    status = 0
    for label, design in (("16,384 x H100 InfiniBand", Design(gpus=16384)),
                          ("16,384 x H100 RoCE", Design(gpus=16384, fabric="ethernet")),
                          ("2,048 x H100 InfiniBand", Design(gpus=2048))):
        p = plan(design)
        median, worst = timed_s(lambda: availability(p, job_gpus=p.resolved.gpus - 256, trials=1000, seed=1))
        ok = worst <= TARGET_S
        status |= not ok
        print(f"{label:28s} 1,000 trials: median {median:.3f} s, max {worst:.3f} s "
              f"(target {TARGET_S:.1f} s) {'ok' if ok else 'SLOW'}")
        median, worst = timed_s(lambda: (with_spares(p), checklist(p)), repeat=20)
        print(f"{label:28s} spares + checklist: median {median * 1e3:.2f} ms, max {worst * 1e3:.2f} ms")
    sys.exit(status)


if __name__ == "__main__":
    main()
