"""Benchmark: one serving estimate (target <= 5 ms) and the split and node search for 1,024 GPUs (target <= 1 s).

Cases: DeepSeek-V3 as LMSYS deployed it on H100 (prefill EP32 on 4 nodes, decode EP72 on 9 nodes with 32
redundant experts) and Llama 3.3 70B on TP8, each estimated at a request rate; then
``core.perf.serving_search.search`` on ``Design(gpu="H100", gpus=1024)`` for DeepSeek-V3 at 2,000 input and
500 output tokens within a 2,000 ms TTFT and a 100 ms TPOT (what ``python -m core serve`` runs without a
split), without a rate (the cheapest at its largest rate) and at 500 requests/s (the fewest GPUs). Plans are
built once, as the page caches them; every call runs from scratch. Medians are compared with the targets.

Measured (2026-12-07, 18:50 UTC, load average 14-16 on 2 cores, CPU time, medians, three rounds alternately with
the baseline a486fd36), after (fix54b) the search decides an overloaded node count or rate before solving its pools
(``core.perf.serving.meets_targets``): the two estimates 0.80-1.31 ms (baseline 0.85-1.69 ms): PASS; the searches
without a rate 188-224 ms (baseline 197-242 ms) and at 500 requests/s 142-162 ms (baseline 164-228 ms): PASS. The
Inference page's search for Llama 3.3 70B on 32 H100 at 40 requests/s (2,000 ms / 50 ms targets), aggregated,
17.6-20.4 ms (baseline 26.4-29.1 ms: its four overloaded node counts each solved at saturation since fix53);
disaggregated 12.7-15.1 ms (baseline 13.2-14.3 ms: it estimates no overloaded one).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import timed  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402
from core.perf.serving import estimate, parse_deployment  # noqa: E402
from core.perf.serving_search import search  # noqa: E402

ESTIMATE_MS = 5.0
SEARCH_MS = 1000.0
WORKLOAD = dict(input_tokens=2000, output_tokens=500, ttft_ms=2000, tpot_ms=100)


def main() -> None:
    status = 0
    p = plan(Design(gpu="H100", gpus=1024))
    cases = [
        ("DeepSeek-V3, prefill 4 nodes EP32 + decode 9 nodes EP72, 40 requests/s",
         parse_deployment(dict(model="deepseek-v3", prefill=dict(nodes=4, dp=32, ep=32),
                               decode=dict(nodes=9, dp=72, ep=72, redundant_experts=32),
                               workload={**WORKLOAD, "rate": 40}))),
        ("Llama 3.3 70B, aggregated TP8 on 4 nodes, 20 requests/s",
         parse_deployment(dict(model="llama3.3-70b", mode="aggregated", decode=dict(nodes=4, tp=8),
                               workload={**WORKLOAD, "rate": 20}))),
    ]
    for name, dep in cases:
        estimate(p, dep)
        med, worst = timed(lambda: estimate(p, dep), repeat=50)
        ok = med <= ESTIMATE_MS
        status |= not ok
        print(f"serving estimate {name}: median {med:.2f} ms, max {worst:.2f} ms (target <= {ESTIMATE_MS:g} ms) "
              f"{'PASS' if ok else 'FAIL'}")
    for label, workload in (("cheapest at its max rate", WORKLOAD), ("fewest GPUs for 500 requests/s",
                                                                     {**WORKLOAD, "rate": 500})):
        result = search(p, "deepseek-v3", workload, mode=None)
        med, worst = timed(lambda: search(p, "deepseek-v3", workload, mode=None), repeat=5)
        ok = med <= SEARCH_MS and result.best is not None
        status |= not ok
        print(f"serving search DeepSeek-V3 on 1,024 x H100, {label} ({len(result.candidates)} deployments "
              f"estimated): median {med:.0f} ms, max {worst:.0f} ms (target <= {SEARCH_MS:g} ms) "
              f"{'PASS' if ok else 'FAIL'}")
    sys.exit(status)


if __name__ == "__main__":
    main()
