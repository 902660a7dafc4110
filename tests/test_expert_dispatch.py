"""Expert dispatch and combine: serving and training time them with one function (core/perf/expert_dispatch.py).

Serving's golden DeepEP points are in tests/test_serving_golden.py, training's published MoE runs in
tests/test_training_calibration.py; here, that both estimates read the one model and what it gives."""

import math

import pytest

from core.design import Design
from core.perf import expert_dispatch, serving, training
from core.plan import plan


def test_serving_and_training_use_the_one_dispatch_model():
    assert serving.ep_layer is expert_dispatch.ep_layer
    assert training.ep_layer is expert_dispatch.ep_layer


def _training(monkeypatch, calls):
    real = expert_dispatch.ep_layer

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(training, "ep_layer", spy)
    p = plan(Design(gpu="B200", gpus=256))
    job = training.parse_job({"model": "deepseek-v3", "gpus": 256, "seq_len": 4096, "global_batch": 256,
                              "tp": 2, "pp": 4, "ep": 32, "precision": "fp8"})
    return p, job, training.estimate(p, job)


def test_training_times_each_moe_layer_by_the_dispatch_model(monkeypatch):
    calls = []
    p, job, est = _training(monkeypatch, calls)
    (args, kwargs), = calls
    assert args[1] == job.ep and args[5] == "normal"
    assert kwargs["stride"] == job.tp * job.cp  # EP ranks sit tp x cp apart
    assert args[2] == pytest.approx(job.seq_len * job.micro_batch / job.tp)  # a TP group splits its tokens
    e = expert_dispatch.ep_layer(p, job.ep, args[2], job.model.top_k, job.model.hidden, "normal",
                                 stride=job.tp * job.cp, bytes_per_value=(2.0, 2.0))
    ep, = [c for c in est.comm if c.kind == "EP"]
    rounds = math.ceil(job.model.moe_layers / job.pp) * est.microbatches
    # forward dispatch + combine and their gradients in backward
    assert ep.time_s == pytest.approx(rounds * 2 * (e.dispatch_s + e.combine_s))
    assert ep.calls == 4 * rounds and ep.algorithm == "DeepEP"


def test_serving_times_each_moe_layer_by_the_dispatch_model(monkeypatch):
    calls = []
    real = expert_dispatch.ep_layer

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(serving, "ep_layer", spy)
    serving.decode_step(plan(Design(gpu="H200", nodes=4)),
                        serving.parse_deployment({"model": "deepseek-v3", "precision": "fp8",
                                                  "decode": {"nodes": 4, "dp": 32, "ep": 32}}), 64)
    assert calls and all(a[5] == "low-latency" for a in calls)


def test_the_dispatch_kernels_sms_slow_the_compute_they_overlap(monkeypatch):
    """DeepSeek-V3 sec. 3.2.2: the dispatch kernels hold 20 of 132 SMs; hidden dispatch time costs that share."""
    _p, _job, est = _training(monkeypatch, [])
    ep, = [c for c in est.comm if c.kind == "EP"]
    share = training.load_training_catalog().schedule.dispatch_sm_share
    assert 0.1 < share < 0.2 and ep.hidden_s > 0
    monkeypatch.setattr(training, "ep_layer", expert_dispatch.ep_layer)
    p = plan(Design(gpu="B200", gpus=256))
    job = training.parse_job({"model": "deepseek-v3", "gpus": 256, "seq_len": 4096, "global_batch": 256,
                              "tp": 2, "pp": 4, "ep": 32, "precision": "fp8"})
    base = training._compute_time(job, p, est.microbatches).compute
    assert est.compute_s == pytest.approx(base + ep.hidden_s * share)


def test_normal_kernels_send_a_token_once_per_remote_domain():
    """Across 8 domains, top-8 routing reaches on average 7 (1 - (7/8)^8) = 4.5 remote domains, not 7 of 8
    copies: the normal kernels forward inside a domain over NVLink."""
    p = plan(Design(gpu="H800", nodes=32))
    normal = expert_dispatch.ep_layer(p, 64, 4096, 8, 7168, "normal")
    low = expert_dispatch.ep_layer(p, 64, 4096, 8, 7168, "low-latency")
    assert normal.remote == pytest.approx(7 * (1 - (7 / 8) ** 8) / 8)
    assert low.remote == pytest.approx(7 / 8)
    assert normal.dispatch_s < low.dispatch_s + 1e-4  # fewer bytes leave the domain (bases differ by 85 us)
