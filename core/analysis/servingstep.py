"""The optimizer's serving step: the cheapest deployment serving ``Constraints.serving`` on a candidate, as a
function of what the serving search reads of its plan (``core.analysis.perfview.unpriced``) and the deployment,
cached by those arguments (``core.memo.stage``): candidates that differ only in prices, optics or cable lengths
share one search, and each is priced at its own TCO afterwards (``price``)."""

from __future__ import annotations

from core.analysis.perfview import PerfPlan, unpriced
from core.errors import FabricPlannerError
from core.memo import stage
from core.perf import congestion
from core.perf.collectives import nccl_release, nccl_release_now
from core.plan import cost_basis, tco_share_usd_per_s


def _served_bytes(found) -> int:
    """Upper bound of the memory of a ``served`` answer [bytes] (a pair of numbers, or None;
    ``tests/test_memo.py``)."""
    return 160


@stage(0.01, _served_bytes)
def served(plan: PerfPlan, deployment, assumed: congestion.Assumptions,
           release: str | None) -> tuple[int, float] | None:
    """(GPUs, output tokens/s) of the cheapest deployment of ``deployment``'s model, workload, mode and precisions
    serving its rate within its TTFT and TPOT on ``plan`` (``core.perf.serving_search.search``, on the compute
    fabric) under the routing and placement ``assumed`` and NCCL ``release`` (None: the catalog's default; both
    arguments, so the cache key holds them), or None when none does or the search raises."""
    from core.perf.serving_search import search

    d = deployment
    try:
        with congestion.assumptions(assumed.routing, assumed.placement), nccl_release(release):
            found = search(plan, d.model, d.workload, mode=d.mode, precision=d.precision,
                           kv_precision=d.kv_precision, ways_out=False).best_estimate
    except FabricPlannerError:
        return None
    return None if found is None else (found.gpus, found.output_tokens_per_s)


def price(plan, deployment) -> tuple[int, float] | None:
    """(GPUs, cost per million output tokens [USD]) of the cheapest deployment of ``deployment`` on ``plan`` (a
    ``core.plan.Plan``): ``served`` on the plan's unpriced view, priced at the plan's TCO per second over the share
    of its GPUs the deployment takes; None when none serves the target."""
    found = served(unpriced(plan), deployment, congestion.current(), nccl_release_now())
    if found is None:
        return None
    cost, of_gpus = cost_basis(plan)
    return found[0], per_million(found, cost.tco_usd, cost.tco_years, of_gpus)


def per_million(found: tuple[int, float], tco_usd: float, tco_years: float, gpus: int) -> float:
    """Cost per million output tokens [USD] of the deployment ``found`` (``served``'s GPUs and output tokens/s) on
    a design of ``gpus`` GPUs whose TCO is ``tco_usd`` [USD] over ``tco_years``: the TCO per second over the share
    of the GPUs the deployment takes (``core.plan.tco_share_usd_per_s``). Non-decreasing in ``tco_usd``, so a
    floor of the TCO gives a floor of it."""
    used, tokens_per_s = found
    return tco_share_usd_per_s(tco_usd, tco_years, used, gpus) / tokens_per_s * 1e6


def served_before_bill(resolved, fabric, bandwidth, deployment) -> tuple[int, float] | None:
    """``served`` of a design sized but not yet laid out or billed (the serving search reads no bill, cost or
    other network: the unpriced view of a plan of the sized fabric is the full plan's, ``unpriced``)."""
    from types import SimpleNamespace

    sized = SimpleNamespace(resolved=resolved, fabric=fabric, bandwidth=bandwidth, design=resolved.design,
                            networks=None, cost=None)
    return served(unpriced(sized), deployment, congestion.current(), nccl_release_now())
