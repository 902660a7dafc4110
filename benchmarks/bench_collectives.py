"""Benchmark: a 64-point message-size sweep (target <= 50 ms) and one training estimate."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed  # noqa: E402
from core.perf.collectives import OPS, size_sweep, sweep  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402
from core.perf.training import estimate, parse_job  # noqa: E402
from core.perf.placement import dtree_max_degree  # noqa: E402




def main() -> None:
    p = plan(Design(gpu="H100", gpus=1024))
    sizes = size_sweep(8, 16 * 2**30, 64)
    sweep(p, "all-reduce", sizes)  # warm the constants cache
    med, worst = timed(lambda: sweep(p, "all-reduce", sizes))
    print(f"64-point all-reduce sweep, 1,024 x H100 (all algorithms): median {med:.2f} ms, max {worst:.2f} ms "
          f"(target <= 50 ms) {'OK' if worst <= 50 else 'SLOW'}")
    med, worst = timed(lambda: [sweep(p, op, sizes) for op in OPS])
    print(f"64-point sweep of all 5 collectives: median {med:.2f} ms, max {worst:.2f} ms")
    big = plan(Design(gpu="GB200-NVL72", gpus=72 * 64))
    med, worst = timed(lambda: sweep(big, "all-reduce", sizes))
    print(f"64-point all-reduce sweep, 4,608 x GB200 NVL72: median {med:.2f} ms, max {worst:.2f} ms")
    huge = plan(Design(gpu="H100", gpus=65536))

    def cold() -> None:  # NCCL's tree over 8,192 domains rebuilt (trees.cc port, vectorised)
        dtree_max_degree.cache_clear()
        sweep(huge, "all-reduce", sizes)

    med, worst = timed(cold)
    print(f"64-point all-reduce sweep, 65,536 x H100, tree caches cold: median {med:.2f} ms, max {worst:.2f} ms "
          f"(target <= 50 ms) {'OK' if worst <= 50 else 'SLOW'}")
    job = parse_job(dict(model="llama3-405b", gpus=576, seq_len=8192, global_batch=252, tp=8, pp=9, cp=2, vp=7))
    p576 = plan(Design(gpu="H100", gpus=576))
    med, worst = timed(lambda: estimate(p576, job))
    est = estimate(p576, job)
    print(f"training estimate Llama 3.1 405B on 576 x H100: median {med:.2f} ms, max {worst:.2f} ms; "
          f"step {est.step_time_s:.2f} s (published 17.20 s), {est.tokens_per_s:,.0f} tokens/s, "
          f"MFU {est.mfu:.1%}, communicating {est.comm_fraction:.1%}")


if __name__ == "__main__":
    main()
