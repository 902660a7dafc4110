"""Unit tests of the training-step estimator (core/training.py)."""

import pytest

from core.design import Design
from core.errors import DesignError, InputError
from core.plan import plan
from core.training import ModelSpec, estimate, parse_job, scaling

P1024 = plan(Design(gpu="H100", gpus=1024))


def job(**kw):
    base = dict(model="llama3-70b", seq_len=8192, global_batch=512, tp=8, pp=4)
    return parse_job({**base, **kw})


def test_step_is_compute_plus_bubble_plus_exposed_comm():
    e = estimate(P1024, job())
    assert e.step_time_s == pytest.approx(e.compute_s + e.bubble_s + sum(c.exposed_s for c in e.comm))
    assert e.tokens_per_s == pytest.approx(512 * 8192 / e.step_time_s)
    assert 0 < e.comm_fraction < 1 and 0 < e.mfu < 1
    assert e.days_to_train == pytest.approx(1e12 / e.tokens_per_s / 86400)
    assert {c.kind for c in e.comm} == {"TP", "PP", "DP"}
    assert e.dp == 32 and e.microbatches == 16


def test_split_checks_raise_design_errors_with_suggestions():
    with pytest.raises(DesignError, match="split"):
        estimate(P1024, job(tp=3, pp=1))  # 1024 not divisible by 3
    with pytest.raises(DesignError, match="heads"):
        estimate(P1024, job(tp=128, pp=1))  # 64 heads do not split 128 ways
    with pytest.raises(DesignError, match="cluster"):
        estimate(P1024, job(gpus=4096))
    with pytest.raises(DesignError, match="global batch"):
        estimate(P1024, job(global_batch=100))
    with pytest.raises(DesignError, match="mixture-of-experts"):
        estimate(P1024, job(ep=8))
    with pytest.raises(DesignError, match="per GPU"):
        estimate(P1024, job(model="llama3-405b", tp=1, pp=1, global_batch=1024))


def test_memory_error_suggests_what_would_fit():
    with pytest.raises(DesignError) as info:
        estimate(P1024, job(model="llama3-405b", tp=8, pp=1, global_batch=1024))
    assert info.value.suggestion


def test_bad_input_is_input_error():
    with pytest.raises(InputError):
        parse_job(dict(model="gpt-5"))
    with pytest.raises(InputError):
        parse_job(dict(model="llama3-8b", tp=0))


def test_custom_model_and_fp8():
    custom = ModelSpec(layers=24, hidden=2048, ffn=8192, heads=16, kv_heads=16, vocab=50000, mlp_matrices=2)
    bf16 = estimate(P1024, parse_job(dict(model=custom, tp=1, pp=1, seq_len=2048, global_batch=1024)))
    fp8 = estimate(P1024, parse_job(dict(model=custom, tp=1, pp=1, seq_len=2048, global_batch=1024,
                                         precision="fp8")))
    assert fp8.compute_s < bf16.compute_s
    with pytest.raises(DesignError, match="FP8"):
        estimate(plan(Design(gpu="A100", nodes=16)), parse_job(dict(model=custom, tp=1, precision="fp8",
                                                                    global_batch=128, seq_len=2048)))


def test_moe_has_expert_all_to_all_and_roce_oversubscription_hurts_it():
    ds = dict(model="deepseek-v3", seq_len=4096, global_batch=8192, tp=2, pp=16, ep=64)
    ib = estimate(P1024, parse_job(ds))
    roce = estimate(plan(Design(gpu="H100", gpus=1024, fabric="ethernet", oversubscription=2.0)), parse_job(ds))
    assert any(c.kind == "EP" and c.collective == "all-to-all" for c in ib.comm)
    assert roce.step_time_s > ib.step_time_s and roce.days_to_train > ib.days_to_train


def test_scaling_efficiency_starts_at_one_and_does_not_exceed_it():
    rows = scaling(P1024, job(), [32, 64, 128, 256, 512, 1024])
    assert rows[0]["scaling_efficiency"] == pytest.approx(1.0)
    assert all(r["scaling_efficiency"] <= 1.0 + 1e-9 for r in rows)
    assert [r["gpus"] for r in rows] == [32, 64, 128, 256, 512, 1024]
