"""Any model by its shape: core/perf/modelshape.py, the CLI's custom-model options, the link's perf_arch and the
Performance page with a custom mixture-of-experts model; the new presets against their published sizes."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from core.cli import main
from core.design import Design
from core.errors import DesignError, InputError
from core.formats.joblink import DEFAULTS, JOB
from core.perf import jobform
from core.perf.modelshape import CUSTOM, SHAPE_FIELDS, build_model, decode_shape, encode_shape
from core.perf.training import PRESETS, estimate, parse_job
from core.plan import plan

from tests.test_performance_page import PAGE

MOE = dict(layers=24, hidden=2048, ffn=8192, heads=16, kv_heads=4, vocab=50000, experts=32, top_k=4,
           shared_experts=1, moe_ffn=1024, first_dense_layers=2, activation="swiglu")


@pytest.mark.parametrize("key,total_b,active_b", [
    ("qwen3-8b", 8.2, None), ("qwen3-32b", 32.8, None), ("mixtral-8x7b", 46.7, 12.9), ("mixtral-8x22b", 141, 39),
    ("nemotron4-340b", 341, None), ("gpt3-175b", 175, None), ("llama3-405b", 405, None),
    ("deepseek-v3", 671, 37), ("qwen3-30b-a3b", 30.5, None), ("qwen3-235b-a22b", 235, 22)])
def test_presets_have_their_published_sizes(key, total_b, active_b):
    """Parameter counts as the model cards state them (Mixtral paper: 46.7B total, 12.9B active; 141B / 39B;
    Nemotron-4 report: 340B; DeepSeek-V3: 671B / 37B)."""
    m = PRESETS[key]
    assert m.total_params / 1e9 == pytest.approx(total_b, rel=0.02)
    if active_b:
        assert m.active_params / 1e9 == pytest.approx(active_b, rel=0.03)


def test_activation_sets_the_mlp_matrices():
    assert PRESETS["nemotron4-340b"].mlp_matrices == 2 and PRESETS["nemotron4-340b"].mlp_kind == "relu2"
    assert PRESETS["gpt3-175b"].mlp_kind == "gelu"
    gelu_moe = build_model({**MOE, "activation": "gelu"})
    swiglu_moe = build_model(MOE)
    assert gelu_moe.expert_params * 3 == pytest.approx(swiglu_moe.expert_params * 2)
    with pytest.raises(InputError, match="mlp_matrices"):
        parse_job({"model": dict(layers=2, hidden=128, ffn=256, heads=2, kv_heads=2, vocab=10, activation="gelu",
                                 mlp_matrices=3)})


def test_build_model_defaults_and_attention_kinds():
    m = build_model(MOE)
    assert m.moe_layers == 22 and m.first_dense_layers == 2 and m.attention_kind == "gqa"
    assert build_model({k: MOE[k] for k in ("layers", "hidden", "ffn", "heads", "vocab")}).attention_kind == "mha"
    mla = build_model(dict(layers=4, hidden=1024, ffn=4096, heads=8, vocab=1000, attention="mla", kv_lora_rank=256,
                           qk_nope_dim=64, qk_rope_dim=32, v_head_dim=64))
    assert mla.attention_kind == "mla"
    with pytest.raises(InputError, match="--qk-rope-dim"):
        build_model(dict(layers=4, hidden=1024, ffn=4096, heads=8, vocab=1000, attention="mla", kv_lora_rank=256,
                         qk_nope_dim=64, v_head_dim=64))
    with pytest.raises(InputError, match="gqa"):
        build_model({**MOE, "kv_heads": 16, "attention": "gqa"})
    with pytest.raises(InputError, match="--vocab"):
        build_model({"layers": 2, "hidden": 128, "ffn": 4, "heads": 2})
    with pytest.raises(InputError, match="top_k"):
        build_model({**MOE, "top_k": 64})
    with pytest.raises(InputError, match="experts"):
        build_model({**MOE, "experts": "many"})


@pytest.mark.parametrize("key", list(PRESETS))
def test_every_preset_round_trips_through_its_shape(key):
    spec = PRESETS[key]
    text = encode_shape(spec)
    back = decode_shape(text)
    assert encode_shape(back) == text
    assert back.model_copy(update={"name": spec.name, "activation": spec.activation, "source": spec.source,
                                   "first_dense_layers": spec.first_dense_layers}) == spec


def test_link_round_trip_of_a_custom_model_and_zero_stage():
    text = encode_shape(build_model(MOE))
    values = {**DEFAULTS, "model": CUSTOM, "arch": text, "zero": "3", "ep": 8}
    params = JOB.encode(values)
    assert params["perf_model"] == "custom" and params["perf_zero"] == "3"
    decoded, warnings = JOB.decode(params)
    assert not warnings and decoded == values
    p = plan(Design(gpu="H100", gpus=64))
    job = jobform.job_from_settings(p, {**decoded, "tp": 1, "pp": 1, "tg": 64, "gbs": 256})
    assert job.zero == 3 and job.model.experts == 32 and job.model.shared_experts == 1
    assert estimate(p, job).step_time_s > 0


def test_a_bad_link_shape_is_one_warning_naming_the_field():
    _values, warnings = JOB.decode({"perf_model": "custom", "perf_arch": "layers:2,hidden:128,ffn:4,heads:3,"
                                                                        "kv_heads:2,vocab:10"})
    assert len(warnings) == 1 and "perf_arch" in warnings[0] and "kv_heads" in warnings[0]
    _values, warnings = JOB.decode({"perf_arch": "layers:2,colour:blue"})
    assert len(warnings) == 1 and "colour" in warnings[0]


def test_cli_custom_moe_with_every_shape_option(capsys):
    args = ["train", "--gpu", "H100", "--gpus", "64", "--layers", "24", "--hidden", "2048", "--ffn", "8192",
            "--heads", "16", "--kv-heads", "4", "--vocab", "50000", "--experts", "32", "--top-k", "4",
            "--shared-experts", "1", "--moe-ffn", "1024", "--first-dense-layers", "2", "--activation", "gelu",
            "--tied-embeddings", "--attention", "gqa", "--tp", "1", "--pp", "1", "--ep", "8", "--zero", "3",
            "--format", "json"]
    assert main(args) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["model"] == "custom" and s["zero_stage"] == 3 and s["parallelism"]["ep"] == 8
    m = build_model({**MOE, "activation": "gelu", "tied_embeddings": True})
    assert s["params_b"] == pytest.approx(m.total_params / 1e9, abs=1e-3)


def test_cli_custom_mla_model(capsys):
    args = ["train", "--gpu", "H100", "--gpus", "64", "--layers", "8", "--hidden", "2048", "--ffn", "8192",
            "--heads", "16", "--vocab", "50000", "--attention", "mla", "--q-lora-rank", "512", "--kv-lora-rank",
            "256", "--qk-nope-dim", "64", "--qk-rope-dim", "32", "--v-head-dim", "64", "--tp", "1", "--pp", "1",
            "--format", "json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "custom"


@pytest.mark.parametrize("extra,needle", [
    (["--attention", "mha", "--kv-heads", "4"], "attention mha"),
    (["--kv-heads", "5"], "kv_heads"),
    (["--experts", "32", "--top-k", "64"], "top_k"),
])
def test_cli_bad_shapes_name_the_field(capsys, extra, needle):
    args = ["train", "--gpu", "H100", "--gpus", "64", "--layers", "8", "--hidden", "2048", "--ffn", "8192",
            "--heads", "16", "--vocab", "50000", "--tp", "1", "--pp", "1", *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


def test_shapes_that_do_not_divide_name_the_field_and_the_fix():
    p = plan(Design(gpu="H100", gpus=64))
    odd = build_model({**MOE, "heads": 12, "kv_heads": 4, "experts": 30})
    with pytest.raises(DesignError, match="heads") as info:
        estimate(p, parse_job(dict(model=odd, tp=8, pp=1, seq_len=4096, global_batch=64)))
    assert info.value.suggestion
    with pytest.raises(DesignError, match="experts") as info:
        estimate(p, parse_job(dict(model=odd, tp=4, pp=1, ep=8, seq_len=4096, global_batch=64)))
    assert info.value.suggestion


def test_shape_fields_are_model_fields():
    from core.perf.training import ModelSpec

    assert {f.name for f in SHAPE_FIELDS} - {"attention"} <= set(ModelSpec.model_fields)


def test_performance_page_with_a_custom_moe_model():
    """The page opens a custom MoE model from its link, shows its inputs, estimates it with ZeRO-3, and an edit of
    one input goes back into the link."""
    at = AppTest.from_file(PAGE, default_timeout=90)
    for key, value in {"n": "64", "perf_model": "custom", "perf_arch": encode_shape(build_model(MOE)),
                       "perf_tp": "1", "perf_pp": "1", "perf_ep": "8", "perf_zero": "3", "perf_gbs": "256", "perf_tg": "64",
                       "perf_seq": "4096"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="perf_w_model").value == "custom"
    assert at.number_input(key="perf_w_arch_experts").value == 32
    assert at.selectbox(key="perf_w_zero").value == "3"
    assert any('data-testid="stMetricLabel">Step time' in str(m.value) for m in at.markdown)
    at.number_input(key="perf_w_arch_experts").set_value(64).run()
    assert not at.exception and not at.error
    assert "experts:64" in str(at.query_params["perf_arch"])
    at.number_input(key="perf_w_arch_kv_heads").set_value(5).run()  # 16 heads do not group by 5
    assert not at.exception and at.error and "kv_heads" in at.error[0].value.replace("\\", "")


@pytest.mark.parametrize("change,field", [
    (dict(ep=3), "ep"),  # 8 experts do not split over 3
    (dict(ep=8, tp=1, recompute="selective"), None),  # does not fit in memory: any field may fix it
    (dict(precision="fp8", ep=8), "precision"),  # A100 has no FP8
])
def test_ways_out_each_fit_and_are_in_the_message(change, field):
    from core.perf.training import estimate_or_ways_out

    gpu = "A100-80GB" if change.get("precision") == "fp8" else "H100"
    p = plan(Design(gpu=gpu, gpus=64))
    job = parse_job({"model": "mixtral-8x7b", "tp": 2, "pp": 1, "seq_len": 8192, "global_batch": 256, "gpus": 64,
                     **change})
    with pytest.raises(DesignError) as info:
        estimate_or_ways_out(p, job)
    fixes = info.value.fixes
    assert fixes and len(fixes) <= 3
    for phrase, changes in fixes:
        assert phrase in info.value.suggestion
        estimate(p, job.model_copy(update={**changes, "dp": None}))  # fits: no error
        if field:
            assert field in changes or "zero_stage" in changes or "recompute" in changes


def test_model_of_settings():
    assert jobform.model_of({"model": "mixtral-8x7b"}) is PRESETS["mixtral-8x7b"]
    assert jobform.model_of({"model": CUSTOM, "arch": ""}).hidden == PRESETS[jobform.DEFAULT_MODEL].hidden
    assert jobform.model_of({"model": CUSTOM, "arch": encode_shape(build_model(MOE))}).experts == 32
    with pytest.raises(InputError, match="heads"):
        jobform.model_of({"model": CUSTOM, "arch": "layers:2,hidden:128,ffn:4,heads:3,kv_heads:2,vocab:10"})


def test_layers_that_do_not_split_name_the_even_splits():
    p = plan(Design(gpu="H100", gpus=256))
    e = estimate(p, parse_job(dict(model="llama3-70b", seq_len=4096, tp=8, pp=4, vp=3, global_batch=1024)))
    assert any("vp 2 would split them evenly" in w for w in e.warnings)
    e = estimate(p, parse_job(dict(model="llama3-70b", seq_len=4096, tp=8, pp=4, vp=2, global_batch=1024)))
    assert not any("evenly" in w for w in e.warnings)
    odd = build_model(dict(layers=30, hidden=2048, ffn=8192, heads=16, vocab=32000))
    e = estimate(p, parse_job(dict(model=odd, seq_len=4096, tp=8, pp=4, global_batch=1024)))
    assert any(w.endswith("pp 2 would split them evenly.") for w in e.warnings)
