"""The split search's shortcuts change nothing it answers.

``choose_split`` times each distinct communicator once per search (one ``_Timing`` shared by its candidates) and
``_memory`` skips a middle pipeline stage that cannot be the fullest. The references here are the search and the
memory model without them: the search as it was before, each candidate estimated from scratch by the public
``estimate``, and every stage's memory counted. On a grid of designs and jobs both must give the same candidates
in the same order (splits, global batches, problems), the same numbers to the last bit (step times, each
parallelism's times, memory by part) and the same choice.
"""

import math
import random

import pytest

from core.design import Design
from core.errors import DesignError
from core.perf.training import (PRESETS, ZERO_REFINE, OutOfMemory, SplitCandidate, TrainingJob, _in_flight,
                                _layer_params, _memory, _powers_of_two, _split_grid, _state_bytes,
                                activation_bytes_per_token, choose_split, estimate, fitting_split, parse_job,
                                stage_layers)
from core.perf.training_constants import load_training_catalog
from core.plan import plan

FULL = dict(search_vp=True, search_cp=True, search_zero=True)
CASES = [
    ("tp and pp only", dict(gpu="H100", gpus=1024), dict(model="llama3-70b", seq_len=8192), {}),
    ("full, dense", dict(gpu="H100", gpus=1024), dict(model="llama3-70b", seq_len=8192), FULL),
    ("RoCE, 16,384 GPUs", dict(gpu="H100", gpus=16384, fabric="ethernet"),
     dict(model="llama3-405b", seq_len=8192, global_batch=2048, gpus=16384), FULL),
    ("DualPipe, ep and ZeRO", dict(gpu="H800", gpus=2048),
     dict(model="deepseek-v3", seq_len=4096, global_batch=15360, precision="fp8", schedule="dualpipe", gpus=2048),
     dict(search_ep=True, search_zero=True)),
    ("NVL72, mxfp8, ep", dict(gpu="GB300-NVL72", gpus=128),
     dict(model="deepseek-v3", seq_len=4096, micro_batch=2, global_batch=2048, precision="mxfp8", gpus=128),
     dict(FULL, search_ep=True)),
    ("all-to-all cp", dict(gpu="H100", gpus=64), dict(model="llama3-8b", seq_len=32768, cp_comm="all-to-all",
                                                     global_batch=64), FULL),
    ("offload, ZeRO-3, SHARP, full recompute", dict(gpu="H100", gpus=64),
     dict(model="mixtral-8x7b", seq_len=4096, offload="optimizer", zero_stage=3, sharp=True, recompute="full"),
     dict(FULL, search_ep=True)),
    ("tp given, balanced stages", dict(gpu="H100", gpus=256),
     dict(model="qwen3-235b-a22b", seq_len=4096, balanced_stages=True), dict(FULL, search_ep=True, tp=4)),
    ("pp and global batch given", dict(gpu="A100", gpus=128), dict(model="gpt3-175b", seq_len=2048, zero_stage=0),
     dict(FULL, pp=8, global_batch=1536)),
]


def _reference_try(plan_, job, gpus, split, ep, zero, global_batch, default):
    """One candidate as the search made it before: ``estimate`` from scratch."""
    t, p, v, c = split
    batch = fitting_split(plan_, job.model, tp=t, pp=p, cp=c, micro_batch=job.micro_batch, vp=v, job_gpus=gpus,
                          global_batch=global_batch, default_global_batch=job.global_batch)["global_batch"]
    cand = SplitCandidate(t, p, batch, first_tried=default, ep=ep, vp=v, cp=c, zero=zero)
    try:
        cand.estimate = estimate(plan_, job.model_copy(update={
            "tp": t, "pp": p, "vp": v, "cp": c, "ep": ep, "zero_stage": zero, "dp": None, "gpus": gpus,
            "global_batch": batch}))
    except DesignError as exc:
        cand.problem = exc.message
        return cand, exc
    return cand, None


def _reference_search(plan_, job, *, tp=None, pp=None, global_batch=None, max_pp=64, search_ep=False,
                      search_vp=False, search_cp=False, search_zero=False):
    """The split search before its shortcuts: (candidates, chosen index); ``DesignError`` when none fits."""
    mdl = job.model
    gpus = min(job.gpus or plan_.resolved.gpus, plan_.resolved.gpus)
    candidates, first_error = [], None
    stages = (job.zero, *(z for z in range(4) if z != job.zero)) if search_zero else (job.zero,)
    for n, split in enumerate(_split_grid(plan_, job, gpus, tp, pp, max_pp, search_vp, search_cp)):
        t, p, _v, c = split
        eps = [job.ep]
        if search_ep and mdl.is_moe:
            ranks = t * c * max(1, gpus // (t * p * c))
            eps = [e for e in _powers_of_two(min(mdl.experts, ranks)) if mdl.experts % e == 0 and ranks % e == 0]
        for e in eps:
            for zero in stages:
                cand, error = _reference_try(plan_, job, gpus, split, e, zero, global_batch, n == 0 and e == job.ep)
                candidates.append(cand)
                first_error = first_error or error
                if error is None or not isinstance(error, OutOfMemory):
                    break
    if search_zero:
        tried = {cand.key() for cand in candidates}
        fastest = sorted((cand for cand in candidates if cand.fits), key=lambda cand: cand.estimate.step_time_s)
        for best in fastest[:ZERO_REFINE]:
            for zero in range(4):
                if (*best.key()[:5], zero) not in tried:
                    cand, _error = _reference_try(plan_, job, gpus, (best.tp, best.pp, best.vp, best.cp), best.ep,
                                                  zero, global_batch, False)
                    candidates.append(cand)
                    tried.add(cand.key())
    fitting = [i for i, c in enumerate(candidates) if c.fits]
    if not fitting:
        raise first_error
    chosen = min(fitting, key=lambda i: (round(candidates[i].estimate.step_time_s, 6),
                                         candidates[i].tp * candidates[i].pp, candidates[i].ep, candidates[i].vp,
                                         candidates[i].cp, candidates[i].zero))
    return candidates, chosen


def _bits(c: SplitCandidate) -> tuple:
    """Everything the search shows of a candidate, floats as their exact bits."""
    e = c.estimate
    head = (c.key(), c.global_batch, c.first_tried, c.problem)
    if e is None:
        return head
    comm = tuple((p.kind, p.collective, p.group_size, p.calls, p.bytes_per_call.hex(), p.time_s.hex(),
                  p.exposed_s.hex(), p.algorithm, p.fabric_level) for p in e.comm)
    memory = tuple((k, v.hex()) for k, v in e.memory_gb.items())
    return (*head, e.step_time_s.hex(), e.compute_s.hex(), e.bubble_s.hex(), e.dp, e.microbatches, comm, memory,
            e.memory_stage, tuple(e.warnings))


@pytest.mark.parametrize("design, job, search", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_search_answers_as_each_split_estimated_from_scratch(design, job, search):
    p, j = plan(Design(**design)), parse_job(job)
    candidates, chosen = _reference_search(p, j, **search)
    choice = choose_split(p, j, **search)
    assert [_bits(c) for c in choice.candidates] == [_bits(c) for c in candidates]
    assert choice.chosen == chosen
    assert sum(c.fits for c in candidates) and sum(not c.fits for c in candidates)  # the grid has both kinds


def test_search_that_finds_nothing_raises_the_same_problem():
    p, j = plan(Design(gpu="H100", gpus=16)), parse_job(dict(model="llama3-405b", seq_len=8192, zero_stage=0))
    with pytest.raises(DesignError) as reference:
        _reference_search(p, j, tp=8, pp=2)
    with pytest.raises(DesignError) as found:
        choose_split(p, j, tp=8, pp=2)
    assert reference.value.message in found.value.message
    assert found.value.suggestion == reference.value.suggestion


def _memory_every_stage(job: TrainingJob, dp: int, microbatches: int) -> tuple[dict, int, int]:
    """``_memory`` without skipping: every stage counted, the first fullest kept: (parts, stage, layers)."""
    tc = load_training_catalog()
    unit, mdl = tc.memory.capacity_unit_bytes, job.model
    counts = stage_layers(mdl.layers, job.pp, job.balanced_stages)
    first_moe = mdl.layers - mdl.moe_layers if mdl.first_dense_layers is None else mdl.first_dense_layers
    copies = tc.schedule.dualpipe_parameter_copies if job.schedule == "dualpipe" else 1
    tokens = job.seq_len / job.cp * job.micro_batch / job.tp
    act_dense = activation_bytes_per_token(mdl, job, False) if mdl.moe_layers < mdl.layers else 0.0
    act_moe = activation_bytes_per_token(mdl, job, True) if mdl.is_moe else 0.0
    embedding = mdl.vocab * mdl.hidden / job.tp
    (d_dense, _e), (m_dense, m_expert) = _layer_params(mdl, False, job), _layer_params(mdl, True, job)
    best, start = None, 0
    for rank, n in enumerate(counts):
        n_moe = max(0, min(start + n, mdl.moe_layers + first_moe) - max(start, first_moe)) if mdl.is_moe else 0
        start += n
        layer = max(d_dense if n_moe < n else 0.0, m_dense + m_expert if n_moe else 0.0) * copies
        dense = (n - n_moe) * d_dense + n_moe * m_dense
        if rank == 0:
            dense += embedding
        if rank == job.pp - 1 and (job.pp > 1 or not mdl.tied_embeddings):
            dense += embedding
        if rank in (0, job.pp - 1):
            layer = max(layer, embedding * copies)
        act = tokens * ((n - n_moe) * act_dense + n_moe * act_moe) * _in_flight(job, rank, microbatches)
        if rank == job.pp - 1:
            act += tokens * mdl.vocab * tc.memory.logits_bytes_per_vocab
        state = _state_bytes(job, dense * copies, n_moe * m_expert * copies,
                             (dp * job.cp, max(1, job.tp * job.cp * dp // job.ep)), layer, n)
        parts = {part: nbytes / unit for part, nbytes in state.items()}
        parts["activations"] = act / unit
        if best is None or sum(parts.values()) > sum(best[0].values()):
            best = (parts, rank, n)
    return best


def test_memory_skips_only_stages_that_cannot_be_the_fullest():
    rng = random.Random(7)
    checked = 0
    while checked < 400:
        mdl = PRESETS[rng.choice(sorted(PRESETS))]
        pp, vp = rng.choice([1, 2, 3, 5, 8, 13, 16, 32]), rng.choice([1, 2, 4, 8])
        if pp * vp > mdl.layers:
            continue
        ep = rng.choice([e for e in (1, 2, 4, 8) if e == 1 or (mdl.is_moe and mdl.experts % e == 0)])
        job = TrainingJob(model=mdl, tp=rng.choice([1, 2, 8]), pp=pp, vp=vp, cp=rng.choice([1, 2]), ep=ep,
                          schedule=rng.choice(["1f1b", "dualpipe"]), balanced_stages=rng.random() < 0.3,
                          zero_stage=rng.choice([0, 1, 2, 3]), recompute=rng.choice(["none", "selective", "full"]),
                          micro_batch=rng.choice([1, 2]), offload=rng.choice(["none", "optimizer"]))
        dp, m = rng.choice([1, 8, 64]), rng.choice([1, 3, 16, 200])
        got = _memory(job, dp, m)
        parts, stage, layers = _memory_every_stage(job, dp, m)
        assert ({k: v.hex() for k, v in got.parts.items()}, got.stage, got.layers) == (
            {k: v.hex() for k, v in parts.items()}, stage, layers), job
        assert all(math.isfinite(v) for v in got.parts.values())
        checked += 1
