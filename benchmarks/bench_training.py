"""Benchmark: training estimates (median <= 2 ms each, slowest <= 20 ms) and the CLI's split search (the full one,
tp, pp, vp, cp, ep and ZeRO stage, on 16,384 GPUs: median <= 1 s).

Cases: the published runs of tests/test_training_published.py (Llama 3 405B on 16,384 H100 over
RoCE, DeepSeek-V3 on 2,048 H800 with DualPipe), DeepSeek-V3 in MXFP8 on 256 GB300 (NeMo 26.02's split: the
compute model's expert, attention and memory-bound terms), a weak-scaling sweep, and ``choose_split`` (what
``python -m core train`` without --tp/--pp runs). Plans are built once (as the page caches them);
the estimate itself is timed, each call from scratch (the collective sweeps are not cached).

The full searches print their median wall time (the target) and median CPU time of this process, with the
load average: the machine is shared, and the wall time grows with the load, the CPU time much less. The search
times each distinct communicator (operation, bytes, ranks, stride) once for all its candidates (2,328 collective
sweeps of DeepSeek-V3's search are 232 distinct ones) and skips the pipeline stages that cannot be the fullest.
DeepSeek-V3 on 16,384 H100 with ep searched too (996 splits) went from a median of 1,416 ms wall, 416 ms of CPU
to 406 ms wall, 122 ms of CPU (load average 10.5 on 2 cores, both revisions in the same minutes);
tests/test_training_search_equivalence.py checks that the answers are the same to the bit.
"""

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402
from core.perf.training import choose_split, estimate, parse_job, scaling, scaling_gpu_counts  # noqa: E402

TARGET_MS = 2.0
"""A training estimate's median [ms] (the issue's target); ``WORST_MS`` bounds its slowest call on a shared machine."""
WORST_MS = 20.0
SEARCH_TARGET_MS = 1000.0
"""The full split search's median for 16,384 GPUs [ms] (the issue's target)."""


def cpu_median_ms(fn, repeat: int = 5) -> float:
    """Median CPU time of this process over ``repeat`` calls of ``fn()`` [ms]."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1e3)
    return statistics.median(times)


def main() -> None:
    status = 0
    cases = [
        ("Llama 3 405B, 16,384 x H100 RoCE, tp 8 pp 16 vp 8, sharded gradients",
         plan(Design(gpu="H100", gpus=16384, fabric="ethernet")),
         parse_job(dict(model="llama3-405b", seq_len=8192, tp=8, pp=16, vp=8, global_batch=2048, balanced_stages=True,
                        shard_gradients=True, gpus=16384))),
        ("DeepSeek-V3, 2,048 x H800, pp 16 ep 64 fp8 DualPipe", plan(Design(gpu="H800", gpus=2048)),
         parse_job(dict(model="deepseek-v3", seq_len=4096, tp=1, pp=16, ep=64, global_batch=15360, precision="fp8",
                        schedule="dualpipe", gpus=2048))),
        ("DeepSeek-V3, 256 x GB300, pp 2 vp 8 ep 32 mxfp8", plan(Design(gpu="GB300-NVL72", gpus=256)),
         parse_job(dict(model="deepseek-v3", seq_len=4096, tp=1, pp=2, vp=8, ep=32, micro_batch=2, global_batch=4096,
                        precision="mxfp8", gpus=256))),
    ]
    for name, p, job in cases:
        estimate(p, job)
        med, worst = timed(lambda: estimate(p, job))
        ok = med <= TARGET_MS and worst <= WORST_MS
        status |= not ok
        print(f"training estimate {name}: median {med:.2f} ms (target <= {TARGET_MS:g} ms), max {worst:.2f} ms "
              f"(<= {WORST_MS:g} ms) {'OK' if ok else 'SLOW'}")
    p, job = cases[0][1], cases[0][2]
    counts = scaling_gpu_counts(job.tp * job.pp * job.cp, p.resolved.gpus, 16384)
    med, worst = timed(lambda: scaling(p, job, counts), repeat=5)
    print(f"weak-scaling sweep ({len(counts)} GPU counts): median {med:.1f} ms, max {worst:.1f} ms")
    p1024 = plan(Design(gpu="H100", gpus=1024))
    j = parse_job(dict(model="llama3-70b", seq_len=8192))
    med, worst = timed(lambda: choose_split(p1024, j), repeat=5)
    n = len(choose_split(p1024, j).candidates)
    print(f"choose_split Llama 3 70B on 1,024 x H100 ({n} splits): median {med:.1f} ms, max {worst:.1f} ms")
    for name, p, job, search_ep in (
            ("Llama 3 405B on 16,384 x H100 RoCE", cases[0][1], parse_job(dict(
                model="llama3-405b", seq_len=8192, global_batch=2048, gpus=16384)), False),
            ("DeepSeek-V3 on 16,384 x H100 (ep searched too)", plan(Design(gpu="H100", gpus=16384)), parse_job(dict(
                model="deepseek-v3", seq_len=4096, global_batch=16384, precision="fp8", gpus=16384)), True)):
        search = dict(search_ep=search_ep, search_vp=True, search_cp=True, search_zero=True)
        choice = choose_split(p, job, **search)
        med, worst = timed(lambda: choose_split(p, job, **search), repeat=5)
        cpu = cpu_median_ms(lambda: choose_split(p, job, **search))
        ok = med <= SEARCH_TARGET_MS
        status |= not ok
        best = choice.best
        print(f"full split search (tp, pp, vp, cp, ep, ZeRO) {name}: {len(choice.candidates)} splits, "
              f"{sum(c.fits for c in choice.candidates)} fit, chosen tp {best.tp} pp {best.pp} vp {best.vp} "
              f"cp {best.cp} ep {best.ep} ZeRO {best.zero}; median {med:.0f} ms (target <= {SEARCH_TARGET_MS:g} ms), "
              f"max {worst:.0f} ms, CPU median {cpu:.0f} ms, load average {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores {'OK' if ok else 'SLOW'}")
    sys.exit(status)


if __name__ == "__main__":
    main()
