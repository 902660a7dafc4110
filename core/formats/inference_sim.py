"""llm-d inference-sim configuration of a serving deployment, ``--export inference-sim``.

Format followed: the YAML the simulator reads with ``--config FILE`` (llm-d/llm-d-inference-sim, commit
eec055a): the ``yaml:"..."`` tags of ``pkg/common/config.go`` ``type Configuration struct``, decoded by
``gopkg.in/yaml.v3``. Durations are Go duration strings (``"25ms"``, ``"500us"``: ``time.Duration``
fields; ``docs/latency-simulation.md``: "All duration fields use Go duration strings"), counts integers,
``time-factor-under-load`` a float, names strings.

One simulator instance is one vLLM server: its ``data-parallel-size`` (1 to 8) ranks each serve on their own
port with their own queue of ``max-num-seqs`` running requests. A disaggregated deployment is two
configurations, as the simulator's own P/D example runs it (``manifests/disaggregation/vllm-sim-pd.yaml``:
a prefill deployment and a decode deployment behind llm-d's routing sidecar): the file holds two YAML
documents, the prefill pool's first and the decode pool's second; the simulator reads the first document of
a file, so save each as its own file. An aggregated deployment is one document.

Values, from the planner's estimate of the deployment at its load (``core.perf.serving.estimate``), with the
``per-token`` latency calculator (``pkg/llm-d-inference-sim/latencies.go``):

* decode: the simulator's inter-token latency grows linearly with a rank's running requests ``n``, from
  ``inter-token-latency`` at one to ``inter-token-latency x time-factor-under-load`` at ``max-num-seqs``
  (``getCurrLoadFactor``); the line is put through the estimate's two points: its time per output token (TPOT)
  at its load (``batch x pp`` sequences per rank) and its step at a full KV cache (``max-num-seqs`` = the
  sequences a rank's KV cache holds, ``max_batch x pp``), so the simulator's TPOT is the estimate's at this
  load and at saturation (``LoadLine``);
* prefill: the simulator's prefill time is ``prefill-overhead + (n - n_cached) x prefill-time-per-token``;
  ``prefill-overhead`` = the fixed overhead of one prefill batch, ``prefill-time-per-token`` = the rest of the
  request's prefill time over its ``n`` input tokens (the simulator's prefix cache is off, ``n_cached`` = 0,
  so a prefix-cache hit rate is already in the per-token time): a prompt of the workload's length prefills in
  exactly the estimate's time. In an aggregated instance the load factor scales prefill too, so both are
  divided by the factor at the estimate's load. A prefill instance's ``max-num-seqs`` is the requests in
  flight at which it reaches the pool's capacity, each taking the estimate's prefill time (Little's law),
  and its ``time-factor-under-load`` is 1;
* ``kv-cache-transfer-time-per-token`` = the estimate's KV-cache transfer time over the prompt's tokens (the
  simulator multiplies it by the full prompt length, and never by the load factor): the decode instance's
  first token after the transfer;
* ``max-model-len`` = input + output tokens of the workload; ``tensor-parallel-size`` (ignored by the
  simulator) and ``data-parallel-size`` from the pool's split.

Differences, stated in the file: the simulator queues requests itself (the estimate's M/D/1 queueing time is
not written); in the disaggregated flow the decode instance's first token comes after the KV transfer
without the estimate's one decode step (TTFT lower by one TPOT); latencies are means (no std-dev). The file
also says how to drive it: requests with ``max_tokens`` = the workload's output length and ``ignore_eos``
(``docs/response_generation.md``: random mode samples a shorter length otherwise).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from core import plurals
from core.errors import InputError
from core.formats.filenames import design_slug
from core.formats.serving_exports import ServingExport, hf_model_id
from core.i18n import N_, _
from core.perf.serving import PoolResult, ServingEstimate
from core.plan import Plan

SOURCE = "llm-d/llm-d-inference-sim pkg/common/config.go (commit eec055a)"
"""Where the keys and their types come from."""
MAX_DP_PER_PROCESS = 8
"""Most ``data-parallel-size`` ranks one simulator process runs (``config.go`` validate: 1 to 8)."""
PORTS = {"aggregated": 8000, "prefill": 8000, "decode": 8200}
"""Serving port per role, as ``manifests/disaggregation/vllm-sim-pd.yaml`` (the decode simulator behind the
routing sidecar on 8000)."""


def go_duration(seconds: float) -> str:
    """``seconds`` as a Go ``time.ParseDuration`` string at nanosecond resolution: ``"25ms"``, ``"512.5us"``.

    Parameters
    ----------
    seconds : float
        A finite, non-negative time [s].

    Returns
    -------
    str
        The largest of ``s``, ``ms``, ``us``, ``ns`` not above the value, with the decimals nanoseconds need
        (Go's ``time.Duration`` is an integer count of nanoseconds).
    """
    ns = round(seconds * 1e9)
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns >= scale:
            whole, frac = divmod(ns, scale)
            digits = len(str(scale)) - 1
            decimals = f"{frac:0{digits}d}".rstrip("0")
            return f"{whole}.{decimals}{unit}" if decimals else f"{whole}{unit}"
    return f"{ns}ns"


def _dp_size(dp: int) -> int:
    """Ranks per simulator process: the largest divisor of the pool's ``dp`` up to ``MAX_DP_PER_PROCESS``."""
    return max(d for d in range(1, MAX_DP_PER_PROCESS + 1) if dp % d == 0)


def _finite(est: ServingEstimate) -> None:
    """``InputError`` when the estimate has no finite latencies to write (the load exceeds a pool)."""
    if not (math.isfinite(est.tpot_s) and math.isfinite(est.ttft_s)):
        raise InputError(_("The load is more than the deployment can serve, so it has no finite latencies for the "
                           "simulator. Lower the request rate or add nodes, then export again."))


@dataclass(frozen=True)
class LoadLine:
    """inference-sim's inter-token latency of a rank against its running requests ``n``: ``itl_s x (1 + (factor -
    1)(n - 1)/(max_seqs - 1))`` (``pkg/llm-d-inference-sim/latencies.go`` ``getCurrLoadFactor``; 1 when
    ``max_seqs`` <= 1)."""

    itl_s: float
    """``inter-token-latency``: at one running request [s]."""
    factor: float
    """``time-factor-under-load``: the multiplier at ``max_seqs`` running requests (>= 1)."""
    max_seqs: int
    """``max-num-seqs``: running requests of a rank at most."""

    def at(self, running: float) -> float:
        """The simulator's inter-token latency at ``running`` requests [s]."""
        if self.max_seqs <= 1:
            return self.itl_s
        return self.itl_s * (1 + (self.factor - 1) * (running - 1) / (self.max_seqs - 1))


def running_per_rank(est: ServingEstimate) -> float:
    """Sequences a decode rank runs at the estimate's load (its batch per micro-batch times the stages, >= 1)."""
    split = est.deployment.decode
    return max(1.0, min(est.decode.batch * split.pp, est.decode.max_batch * split.pp))


def load_line(est: ServingEstimate) -> LoadLine:
    """The simulator's load line through the estimate's two decode points: TPOT at its load
    (``running_per_rank``) and the step at a full KV cache (``max_batch x pp`` sequences per rank, from the
    pool's capacity [tokens/s]). A flat line at TPOT when the two points coincide or the line would start at or
    below zero latency."""
    pool, split = est.decode, est.deployment.decode
    full = max(1, pool.max_batch * split.pp)
    at_load = running_per_rank(est)
    if full - at_load < 1 or pool.capacity_tokens_per_s <= 0:
        return LoadLine(est.tpot_s, 1.0, full)
    step_full = pool.ranks * full / pool.capacity_tokens_per_s
    slope = (step_full - est.tpot_s) / (full - at_load)
    first = est.tpot_s - slope * (at_load - 1)
    if slope < 0 or first <= 0:
        return LoadLine(est.tpot_s, 1.0, full)
    return LoadLine(first, step_full / first, full)


def _prefill_values(est: ServingEstimate, scale: float) -> dict:
    """The prefill keys: ``prefill-overhead`` (one batch's fixed overhead) and the per-token rest, over ``scale``
    (the simulator's load factor at the estimate's load when decode shares the instance, else 1), so the
    workload's prompt prefills in the estimate's time [s]."""
    pool, w = est.prefill, est.deployment.workload
    prefill_s = est.ttft_parts["prefill"]
    overhead_s = min(pool.step.overhead_s, prefill_s)
    return {"prefill-overhead": go_duration(overhead_s / scale),
            "prefill-time-per-token": go_duration((prefill_s - overhead_s) / w.input_tokens / scale)}


def _prefill_seqs(est: ServingEstimate) -> int:
    """``max-num-seqs`` of a prefill instance: the requests in flight at which a rank running each in the
    estimate's prefill time reaches the pool's capacity (Little's law), at least 1."""
    pool = est.prefill
    per_rank = pool.capacity_tokens_per_s / pool.ranks / est.deployment.workload.new_tokens
    return max(1, round(per_rank * est.ttft_parts["prefill"]))


def _role_values(est: ServingEstimate, role: str) -> dict:
    """The latency and concurrency keys of ``role`` (``aggregated``, ``prefill`` or ``decode``)."""
    if role == "prefill":
        return {"time-factor-under-load": 1.0, "max-num-seqs": _prefill_seqs(est), **_prefill_values(est, 1.0)}
    line = load_line(est)
    out = {"time-factor-under-load": line.factor, "max-num-seqs": line.max_seqs,
           "inter-token-latency": go_duration(line.itl_s)}
    if role == "aggregated":
        out.update(_prefill_values(est, line.at(running_per_rank(est)) / line.itl_s))
    else:
        out["kv-cache-transfer-time-per-token"] = go_duration(est.kv.time_s / est.deployment.workload.input_tokens)
    return out


def configs(est: ServingEstimate) -> dict[str, dict]:
    """The simulator configuration of each role, by role (``aggregated``, or ``prefill`` and ``decode``).

    Returns
    -------
    dict of str to dict
        Role -> YAML mapping: keys of ``pkg/common/config.go``; durations as Go duration strings, counts as
        int, ``time-factor-under-load`` as float.

    Raises
    ------
    InputError
        The load exceeds a pool (no finite latency to write).
    """
    _finite(est)
    dep = est.deployment
    model = hf_model_id(dep.model) or dep.model.name
    roles = {"aggregated": est.decode} if dep.mode == "aggregated" else {"prefill": est.prefill, "decode": est.decode}
    out = {}
    for role, pool in roles.items():
        config = {"port": PORTS[role], "model": model, "mode": "random",
                  "max-model-len": dep.workload.input_tokens + dep.workload.output_tokens,
                  "tensor-parallel-size": pool.split.tp, "data-parallel-size": _dp_size(pool.split.dp),
                  "latency-calculator": "per-token"}
        out[role] = {**config, **_role_values(est, role)}
    return out


def _scalar(value) -> str:
    """A YAML scalar: strings double-quoted (JSON escaping is valid YAML), numbers and booleans plain."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value)


def _header(plan: Plan, est: ServingEstimate) -> list[str]:
    """The file's opening comment: what it is, where the numbers come from, what the simulator leaves out."""
    dep, r = est.deployment, plan.resolved
    parts = est.ttft_parts
    return [
        "# llm-d inference-sim configuration (--config FILE), written by fabric planner",
        f"# format: {SOURCE}; durations are Go duration strings",
        f"# deployment: {dep.model.name}, {dep.mode}, {dep.precision.upper()} on {design_slug(plan)} "
        f"({r.system.id}); {dep.workload.input_tokens} input / {dep.workload.output_tokens} output tokens, "
        f"{est.rate:.4g} requests/s",
        f"# estimate at this load: TTFT {est.ttft_s * 1e3:.4g} ms (queue {parts['queue'] * 1e3:.4g}, prefill "
        f"{parts['prefill'] * 1e3:.4g}, KV transfer {parts['kv_transfer'] * 1e3:.4g}, first decode step "
        f"{parts['first_decode'] * 1e3:.4g}), TPOT {est.tpot_s * 1e3:.4g} ms",
        "# latency-calculator per-token: prefill = prefill-overhead + prompt tokens x prefill-time-per-token",
        "#   (the estimate's prefill of the workload's prompt, prefix-cache hits included: the simulator's cache",
        "#   is off); decode instance's first token = prompt tokens x kv-cache-transfer-time-per-token.",
        "# inter-token latency at n running requests of a rank = inter-token-latency x (1 + (time-factor-under-load",
        f"#   - 1)(n - 1)/(max-num-seqs - 1)): the estimate's TPOT at this load ({running_per_rank(est):.4g} running",
        "#   requests per rank) and its step with the KV cache full (max-num-seqs); an aggregated instance's",
        "#   prefill keys are divided by the factor at this load, which the simulator applies to them too.",
        f"# requests: send max_tokens {dep.workload.output_tokens} with ignore_eos true, or random mode samples a "
        "shorter response",
        "#   (docs/response_generation.md); prompts of the workload's input length.",
        "# not written: the queueing time (the simulator queues requests itself beyond max-num-seqs); the",
        "#   first decode step after the KV transfer (the simulator's TTFT is one TPOT lower); jitter (std-dev 0).",
    ]


def _role_comment(role: str, est: ServingEstimate, pool: PoolResult) -> str:
    """One line naming the role and how many simulator processes the pool needs."""
    processes = pool.ranks // _dp_size(pool.split.dp)
    what = {"aggregated": "the deployment (prefill and decode on the same GPUs)",
            "prefill": "the prefill pool (document 1 of 2; requests with do_remote_decode)",
            "decode": "the decode pool (document 2 of 2; requests with do_remote_prefill)"}[role]
    return (f"# {what}: {pool.gpus:,} GPUs, {plurals.instances(pool.replicas)} of tp {pool.split.tp} x dp "
            f"{pool.split.dp} x pp {pool.split.pp}; run {plurals.simulator_processes(processes)} with this "
            "configuration")


def render(plan: Plan, est: ServingEstimate) -> str:
    """The configuration file of ``est.deployment``: the header, then one YAML document per role.

    Raises
    ------
    InputError
        The load exceeds a pool (no finite latency to write).
    """
    roles = configs(est)
    pools = {"aggregated": est.decode, "prefill": est.prefill, "decode": est.decode}
    lines = _header(plan, est)
    if len(roles) > 1:
        lines.append("# two YAML documents, one per pool: the simulator reads the first document of a file, so save "
                     "each as its own file")
    for index, (role, config) in enumerate(roles.items()):
        if index:
            lines.append("---")
        lines.append(_role_comment(role, est, pools[role]))
        lines += [f"{key}: {_scalar(value)}" for key, value in config.items()]
    return "\n".join(lines) + "\n"


SERVING_EXPORTS = (ServingExport("inference-sim", render, ".yaml", "application/yaml",
                                 N_("llm-d inference-sim configuration: latencies from this estimate")),)
