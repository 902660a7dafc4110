"""Serving-simulator exports: llm-d inference-sim YAML and Vidur command lines.

Each export is loaded with its simulator's published schema, kept here as cited fixtures:

* ``INFERENCE_SIM_FIELDS``: every ``yaml:"..."`` tag of ``type Configuration struct`` in
  llm-d/llm-d-inference-sim ``pkg/common/config.go`` at commit eec055a39e6bbc1adbcb54f88f24f36b7f94e781, with its
  Go type; the file is decoded by ``gopkg.in/yaml.v3``, which takes a ``time.Duration`` only as a string that
  ``time.ParseDuration`` accepts. The value rules are ``Configuration.validate()`` in the same file.
* ``VIDUR_FLAGS``: every field of Vidur's flattened ``SimulationConfig`` (microsoft/vidur at commit
  7d47513363ec447a741ac5e47241580b47724fbf, ``vidur/config/config.py`` flattened by
  ``vidur/config/flat_dataclass.py`` ``create_flat_dataclass``; obtained by running that function on the
  fetched source), with the type ``create_from_cli_args`` gives argparse (``bool`` fields are
  ``BooleanOptionalAction`` switches, ``list`` fields take several values). The choices are the enums of
  ``vidur/types`` (``str(enum)`` = the lower-case name) and ``get_name()`` of ``vidur/config/model_config.py``.
"""

from __future__ import annotations

import argparse
import re
import shlex

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from core.design import Design
from core.errors import InputError
from core.formats import inference_sim, vidur
from core.formats.inference_sim import go_duration
from core.formats.serving_exports import serving_export_file_name, serving_export_text, serving_exports
from core.i18n import language
from core.perf.serving import estimate, parse_deployment
from core.plan import plan

INFERENCE_SIM_FIELDS: dict[str, str] = {
    **dict.fromkeys((
        "block-size", "data-parallel-rank", "data-parallel-size", "default-embedding-dimensions",
        "event-batch-size", "failure-injection-rate", "image-emission-rate", "kv-cache-size",
        "kv-events-replay-queue-size", "max-cpu-loras", "max-loras", "max-model-len", "max-num-seqs",
        "max-request-body-size-mb", "max-tool-call-array-param-length", "max-tool-call-integer-param",
        "max-waiting-queue-length", "min-tool-call-array-param-length", "min-tool-call-integer-param",
        "object-tool-call-not-required-field-probability", "port", "tensor-parallel-size",
        "tool-call-extra-call-probability", "tool-call-not-required-param-probability",
    ), "int"),
    **dict.fromkeys((
        "dataset-in-memory", "enable-kvcache", "enable-prefix-caching", "enable-request-id-headers",
        "enable-sleep-mode", "enforce-eager", "force-dummy-tokenizer", "log-http", "mm-encoder-only", "omni",
        "self-signed-certs", "skip-tool-validation", "use-vllm-map-event-format",
    ), "bool"),
    **dict.fromkeys((
        "dataset-path", "dataset-table-name", "dataset-url", "ec-transfer-config", "hash-seed",
        "kv-events-replay-endpoint", "latency-calculator", "mm-processor-kwargs", "mode", "model", "render-url",
        "ssl-certfile", "ssl-keyfile", "zmq-endpoint",
    ), "string"),
    **dict.fromkeys((
        "failure-types", "lora-modules", "served-model-name",
    ), "[]string"),
    **dict.fromkeys((
        "fake-metrics",
    ), "*FakeMetrics"),
    **dict.fromkeys((
        "fake-metrics-refresh-interval", "inter-token-latency", "inter-token-latency-std-dev",
        "kv-cache-transfer-latency", "kv-cache-transfer-latency-std-dev", "kv-cache-transfer-time-per-token",
        "kv-cache-transfer-time-std-dev", "mm-render-timeout", "prefill-overhead", "prefill-time-per-token",
        "prefill-time-std-dev", "render-timeout", "startup-duration", "time-to-first-token",
        "time-to-first-token-std-dev", "time-to-generate-image", "time-to-generate-image-std-dev",
    ), "time.Duration"),
    **dict.fromkeys((
        "global-cache-hit-threshold", "max-tool-call-number-param", "min-tool-call-number-param",
        "time-factor-under-load",
    ), "float64"),
    **dict.fromkeys((
        "seed",
    ), "int64"),
}
"""yaml tag -> Go type of inference-sim's ``Configuration`` (pkg/common/config.go, commit eec055a)."""

VIDUR_FLAGS: dict[str, type] = {
    **dict.fromkeys((
        "cluster_config_num_replicas", "faster_transformer_scheduler_config_batch_size_cap",
        "faster_transformer_scheduler_config_block_size", "faster_transformer_scheduler_config_num_blocks",
        "fixed_request_length_generator_config_decode_tokens",
        "fixed_request_length_generator_config_max_tokens",
        "fixed_request_length_generator_config_prefill_tokens", "fixed_request_length_generator_config_seed",
        "gamma_request_interval_generator_config_seed", "lightllm_scheduler_config_batch_size_cap",
        "lightllm_scheduler_config_block_size", "lightllm_scheduler_config_max_tokens_in_batch",
        "lightllm_scheduler_config_max_waiting_iters", "lightllm_scheduler_config_num_blocks",
        "linear_regression_execution_time_predictor_config_k_fold_cv_splits",
        "linear_regression_execution_time_predictor_config_kv_cache_prediction_granularity",
        "linear_regression_execution_time_predictor_config_num_training_job_threads",
        "linear_regression_execution_time_predictor_config_prediction_max_batch_size",
        "linear_regression_execution_time_predictor_config_prediction_max_prefill_chunk_size",
        "linear_regression_execution_time_predictor_config_prediction_max_tokens_per_request",
        "metrics_config_max_batch_index", "metrics_config_min_batch_index", "metrics_config_subsamples",
        "orca_scheduler_config_batch_size_cap", "orca_scheduler_config_block_size",
        "orca_scheduler_config_num_blocks", "poisson_request_interval_generator_config_seed",
        "random_forrest_execution_time_predictor_config_k_fold_cv_splits",
        "random_forrest_execution_time_predictor_config_kv_cache_prediction_granularity",
        "random_forrest_execution_time_predictor_config_num_training_job_threads",
        "random_forrest_execution_time_predictor_config_prediction_max_batch_size",
        "random_forrest_execution_time_predictor_config_prediction_max_prefill_chunk_size",
        "random_forrest_execution_time_predictor_config_prediction_max_tokens_per_request",
        "replica_config_num_pipeline_stages", "replica_config_tensor_parallel_size",
        "sarathi_scheduler_config_batch_size_cap", "sarathi_scheduler_config_block_size",
        "sarathi_scheduler_config_chunk_size", "sarathi_scheduler_config_num_blocks", "seed",
        "static_request_interval_generator_config_seed", "synthetic_request_generator_config_num_requests",
        "synthetic_request_generator_config_seed", "time_limit", "trace_request_generator_config_max_tokens",
        "trace_request_generator_config_seed", "trace_request_interval_generator_config_seed",
        "trace_request_length_generator_config_max_tokens", "trace_request_length_generator_config_seed",
        "uniform_request_length_generator_config_max_tokens",
        "uniform_request_length_generator_config_min_tokens", "uniform_request_length_generator_config_seed",
        "vllm_scheduler_config_batch_size_cap", "vllm_scheduler_config_block_size",
        "vllm_scheduler_config_max_tokens_in_batch", "vllm_scheduler_config_num_blocks",
        "zipf_request_length_generator_config_max_tokens", "zipf_request_length_generator_config_min_tokens",
        "zipf_request_length_generator_config_seed"
    ), int),
    **dict.fromkeys((
        "faster_transformer_scheduler_config_watermark_blocks_fraction",
        "gamma_request_interval_generator_config_cv", "gamma_request_interval_generator_config_qps",
        "lightllm_scheduler_config_watermark_blocks_fraction",
        "linear_regression_execution_time_predictor_config_attention_decode_batching_overhead_fraction",
        "linear_regression_execution_time_predictor_config_attention_prefill_batching_overhead_fraction",
        "linear_regression_execution_time_predictor_config_nccl_cpu_launch_overhead_ms",
        "linear_regression_execution_time_predictor_config_nccl_cpu_skew_overhead_per_device_ms",
        "orca_scheduler_config_watermark_blocks_fraction", "poisson_request_interval_generator_config_qps",
        "random_forrest_execution_time_predictor_config_attention_decode_batching_overhead_fraction",
        "random_forrest_execution_time_predictor_config_attention_prefill_batching_overhead_fraction",
        "random_forrest_execution_time_predictor_config_nccl_cpu_launch_overhead_ms",
        "random_forrest_execution_time_predictor_config_nccl_cpu_skew_overhead_per_device_ms",
        "replica_config_memory_margin_fraction", "sarathi_scheduler_config_watermark_blocks_fraction",
        "synthetic_request_generator_config_duration", "trace_request_generator_config_decode_scale_factor",
        "trace_request_generator_config_prefill_scale_factor",
        "trace_request_generator_config_time_scale_factor",
        "trace_request_interval_generator_config_time_scale_factor",
        "trace_request_length_generator_config_decode_scale_factor",
        "trace_request_length_generator_config_prefill_scale_factor",
        "uniform_request_length_generator_config_prefill_to_decode_ratio",
        "vllm_scheduler_config_watermark_blocks_fraction",
        "zipf_request_length_generator_config_prefill_to_decode_ratio",
        "zipf_request_length_generator_config_theta"
    ), float),
    **dict.fromkeys((
        "execution_time_predictor_config_type", "global_scheduler_config_type",
        "interval_generator_config_type", "length_generator_config_type",
        "linear_regression_execution_time_predictor_config_all_reduce_input_file",
        "linear_regression_execution_time_predictor_config_attention_input_file",
        "linear_regression_execution_time_predictor_config_compute_input_file",
        "linear_regression_execution_time_predictor_config_cpu_overhead_input_file",
        "linear_regression_execution_time_predictor_config_send_recv_input_file", "log_level",
        "metrics_config_cache_dir", "metrics_config_output_dir", "metrics_config_wandb_group",
        "metrics_config_wandb_project", "metrics_config_wandb_run_id", "metrics_config_wandb_run_name",
        "metrics_config_wandb_sweep_id", "random_forrest_execution_time_predictor_config_all_reduce_input_file",
        "random_forrest_execution_time_predictor_config_attention_input_file",
        "random_forrest_execution_time_predictor_config_compute_input_file",
        "random_forrest_execution_time_predictor_config_cpu_overhead_input_file",
        "random_forrest_execution_time_predictor_config_send_recv_input_file", "replica_config_device",
        "replica_config_model_name", "replica_config_network_device", "replica_scheduler_config_type",
        "request_generator_config_type", "trace_request_generator_config_trace_file",
        "trace_request_interval_generator_config_end_time",
        "trace_request_interval_generator_config_start_time",
        "trace_request_interval_generator_config_trace_file", "trace_request_length_generator_config_trace_file"
    ), str),
    **dict.fromkeys((
        "linear_regression_execution_time_predictor_config_no_cache",
        "linear_regression_execution_time_predictor_config_skip_cpu_overhead_modeling",
        "metrics_config_enable_chrome_trace", "metrics_config_keep_individual_batch_metrics",
        "metrics_config_save_table_to_wandb", "metrics_config_store_batch_metrics",
        "metrics_config_store_operation_metrics", "metrics_config_store_plots",
        "metrics_config_store_request_metrics", "metrics_config_store_token_completion_metrics",
        "metrics_config_store_utilization_metrics", "metrics_config_write_json_trace",
        "metrics_config_write_metrics", "random_forrest_execution_time_predictor_config_no_cache",
        "random_forrest_execution_time_predictor_config_skip_cpu_overhead_modeling",
        "zipf_request_length_generator_config_scramble"
    ), bool),
    **dict.fromkeys((
        "linear_regression_execution_time_predictor_config_fit_intercept",
        "linear_regression_execution_time_predictor_config_polynomial_degree",
        "linear_regression_execution_time_predictor_config_polynomial_include_bias",
        "linear_regression_execution_time_predictor_config_polynomial_interaction_only",
        "random_forrest_execution_time_predictor_config_max_depth",
        "random_forrest_execution_time_predictor_config_min_samples_split",
        "random_forrest_execution_time_predictor_config_num_estimators"
    ), list),
}
"""Flag (without ``--``) -> argparse type of Vidur's flattened ``SimulationConfig`` (commit 7d47513)."""

VIDUR_CHOICES: dict[str, set[str]] = {
    "replica_config_device": {"a40", "a100", "h100"},  # vidur/types/device_sku_type.py
    "replica_config_network_device": {"a40_pairwise_nvlink", "a100_pairwise_nvlink", "h100_pairwise_nvlink",
                                      "a100_dgx", "h100_dgx"},  # vidur/types/node_sku_type.py
    "replica_scheduler_config_type": {"faster_transformer", "orca", "sarathi", "vllm", "lightllm"},
    "request_generator_config_type": {"synthetic", "trace_replay"},
    "length_generator_config_type": {"uniform", "zipf", "trace", "fixed"},
    "interval_generator_config_type": {"poisson", "gamma", "static", "trace"},
    "replica_config_model_name": {  # get_name() of the concrete classes of vidur/config/model_config.py
        "codellama/CodeLlama-34b-Instruct-hf", "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-70b-hf",
        "meta-llama/Meta-Llama-3-8B", "meta-llama/Meta-Llama-3-70B", "internlm/internlm-20b",
        "internlm/internlm2-20b", "microsoft/phi-2", "Qwen/Qwen-72B"},
}

GO_UNITS_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "μs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9,
               "h": 3600 * 10**9}
"""Units of Go's ``time.ParseDuration`` (src/time/format.go ``unitMap``) in nanoseconds."""
_GO_TERM = r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)"

AGGREGATED = dict(model="llama3-70b", mode="aggregated", decode=dict(nodes=2, tp=8), workload=dict(rate=5))
DISAGGREGATED_MOE = dict(model="deepseek-v3", mode="disaggregated", prefill=dict(nodes=4, tp=1, dp=32, ep=32),
                         decode=dict(nodes=4, tp=1, dp=32, ep=32))
DENSE_DP = dict(model="llama3-8b", mode="aggregated", decode=dict(nodes=1, tp=2, dp=4),
                workload=dict(rate=10, cache_hit=0.5))


def parse_go_duration(text: str) -> int:
    """Nanoseconds of a Go duration string, as ``time.ParseDuration`` reads it (an exact integer here)."""
    assert isinstance(text, str), f"{text!r}: yaml.v3 decodes a time.Duration from a string only"
    if text == "0":
        return 0
    assert re.fullmatch(f"({_GO_TERM})+", text), f"{text!r} is not a Go duration"
    total = 0
    for number, unit in re.findall(_GO_TERM, text):
        whole, _dot, frac = number.partition(".")
        scale = GO_UNITS_NS[unit]
        value = int(whole or 0) * scale + (int(frac) * scale // 10 ** len(frac) if frac else 0)
        assert not frac or int(frac) * scale % 10 ** len(frac) == 0, f"{text!r} is finer than a nanosecond"
        total += value
    return total


def check_inference_sim_schema(doc: dict) -> None:
    """Every key a field of ``Configuration`` with the value of its Go type; the values ``validate()`` accepts."""
    for key, value in doc.items():
        assert key in INFERENCE_SIM_FIELDS, f"{key} is not a yaml tag of inference-sim's Configuration"
        go = INFERENCE_SIM_FIELDS[key]
        if go in ("int", "int64"):
            assert type(value) is int, key
        elif go == "float64":
            assert type(value) in (int, float), key
        elif go == "string":
            assert type(value) is str, key
        elif go == "bool":
            assert type(value) is bool, key
        elif go == "time.Duration":
            assert parse_go_duration(value) >= 0, key
        else:
            pytest.fail(f"{key}: the export writes no {go}")
    assert doc["model"] and doc["mode"] in ("random", "echo") and doc["port"] > 0
    assert 1 <= doc["data-parallel-size"] <= 8 and doc["max-num-seqs"] >= 1 and doc["max-model-len"] >= 1
    assert doc["time-factor-under-load"] >= 1.0 and doc["latency-calculator"] in ("", "constant", "per-token")


def simulated_itl_ns(doc: dict, running: float) -> float:
    """inference-sim's inter-token latency [ns] at ``running`` requests of a rank: ``baseCalculator.
    GetInterTokenLatency`` x ``getCurrLoadFactor`` (pkg/llm-d-inference-sim/latencies.go, commit eec055a)."""
    seqs, factor = doc["max-num-seqs"], doc["time-factor-under-load"]
    load = 1.0 if seqs <= 1 else 1 + (factor - 1) * (running - 1) / (seqs - 1)
    return parse_go_duration(doc["inter-token-latency"]) * load


def check_decode_line(doc: dict, est) -> float:
    """The simulator's TPOT is the estimate's at its load and at a full KV cache; returns the load factor at the
    estimate's load."""
    pool, pp = est.decode, est.deployment.decode.pp
    running = max(1.0, pool.batch * pp)
    assert doc["max-num-seqs"] == pool.max_batch * pp
    assert simulated_itl_ns(doc, running) == pytest.approx(est.tpot_s * 1e9, rel=1e-6)
    full_step_ns = pool.ranks * doc["max-num-seqs"] / pool.capacity_tokens_per_s * 1e9
    assert simulated_itl_ns(doc, doc["max-num-seqs"]) == pytest.approx(full_step_ns, rel=1e-6)
    return simulated_itl_ns(doc, running) / parse_go_duration(doc["inter-token-latency"])


def vidur_args(script: str) -> dict[str, object]:
    """The flags of the script's ``python -m vidur.main`` command, parsed as Vidur's argparse parser would
    (``create_from_cli_args`` over ``VIDUR_FLAGS``); fails on an unknown flag or a value of the wrong type."""
    command = script[script.index("python -m vidur.main"):].replace("\\\n", " ")
    argv = shlex.split(command)[3:]
    parser = argparse.ArgumentParser(add_help=False)
    for name, kind in VIDUR_FLAGS.items():
        if kind is bool:
            parser.add_argument(f"--{name}", action=argparse.BooleanOptionalAction)
        elif kind is list:
            parser.add_argument(f"--{name}", nargs="+")
        else:
            parser.add_argument(f"--{name}", type=kind)
    given_flags = [a[2:] for a in argv if a.startswith("--")]
    assert len(given_flags) == len(set(given_flags)), "a flag given twice"
    parsed, unknown = parser.parse_known_args(argv)
    assert unknown == [], f"not Vidur flags: {unknown}"
    return {name: getattr(parsed, name) for name in given_flags}


@pytest.fixture(scope="module")
def h100():
    return plan(Design(gpu="H100", nodes=32))


def _export(p, data: dict, name: str):
    dep = parse_deployment(data)
    est = estimate(p, dep)
    return serving_export_text(p, dep, name), est


# --- the registry ----------------------------------------------------------------------------------------
def test_registry_names_files_and_text(h100):
    found = serving_exports()
    assert list(found) == ["inference-sim", "vidur"]
    assert (found["inference-sim"].suffix, found["vidur"].suffix) == (".yaml", ".sh")
    assert serving_export_file_name(h100, "inference-sim") == "fabric-h100-256-ib-inference-sim.yaml"
    dep = parse_deployment(AGGREGATED)
    est = estimate(h100, dep)
    assert serving_export_text(h100, dep, "vidur", est) == vidur.render(h100, est)
    assert serving_export_text(h100, dep, "inference-sim") == inference_sim.render(h100, est)


# --- inference-sim -------------------------------------------------------------------------------------------
@given(st.integers(min_value=0, max_value=10**13))
def test_go_duration_round_trips_nanoseconds(ns):
    assert parse_go_duration(go_duration(ns / 1e9)) == ns


def test_go_duration_examples():
    assert [go_duration(x) for x in (0.025, 500e-6, 1.5, 8e-9, 0)] == ["25ms", "500us", "1.5s", "8ns", "0ns"]


def test_inference_sim_aggregated_is_the_estimate(h100):
    text, est = _export(h100, AGGREGATED, "inference-sim")
    docs = list(yaml.safe_load_all(text))
    assert len(docs) == 1
    doc = docs[0]
    check_inference_sim_schema(doc)
    w = est.deployment.workload
    factor = check_decode_line(doc, est)
    assert doc["time-factor-under-load"] > factor > 1  # latency grows with the load, as the estimate's steps
    prefill_ns = parse_go_duration(doc["prefill-overhead"]) + w.input_tokens * parse_go_duration(
        doc["prefill-time-per-token"])  # the simulator scales both by the load factor (latencies.go)
    assert abs(prefill_ns * factor - est.ttft_parts["prefill"] * 1e9) <= w.input_tokens * factor  # 1 ns per token
    assert doc["model"] == "meta-llama/Meta-Llama-3-70B" and doc["max-model-len"] == 2500
    assert doc["latency-calculator"] == "per-token"
    assert (doc["tensor-parallel-size"], doc["data-parallel-size"]) == (8, 1)
    assert "kv-cache-transfer-time-per-token" not in doc
    assert "send max_tokens 500 with ignore_eos true" in text


def test_inference_sim_disaggregated_is_two_configs(h100):
    text, est = _export(h100, DISAGGREGATED_MOE, "inference-sim")
    prefill, decode = yaml.safe_load_all(text)
    for doc in (prefill, decode):
        check_inference_sim_schema(doc)
        assert doc["model"] == "deepseek-ai/DeepSeek-V3" and doc["data-parallel-size"] == 8  # dp 32 = 4 x 8
    w = est.deployment.workload
    assert "inter-token-latency" not in prefill and "kv-cache-transfer-time-per-token" not in prefill
    assert prefill["time-factor-under-load"] == 1.0
    capacity = est.prefill.capacity_tokens_per_s / est.prefill.ranks / w.new_tokens  # requests/s per rank
    assert prefill["max-num-seqs"] == max(1, round(capacity * est.ttft_parts["prefill"]))
    prefill_ns = parse_go_duration(prefill["prefill-overhead"]) + w.input_tokens * parse_go_duration(
        prefill["prefill-time-per-token"])
    assert abs(prefill_ns - est.ttft_parts["prefill"] * 1e9) <= w.input_tokens  # Go durations: whole nanoseconds
    assert "prefill-time-per-token" not in decode and decode["port"] == 8200
    check_decode_line(decode, est)
    kv_ns = w.input_tokens * parse_go_duration(decode["kv-cache-transfer-time-per-token"])
    assert abs(kv_ns - est.kv.time_s * 1e9) <= w.input_tokens
    assert "run 4 simulator processes" in text and "save each as its own file" in text


def test_inference_sim_prefix_hits_in_the_per_token_time(h100):
    text, est = _export(h100, DENSE_DP, "inference-sim")
    (doc,) = yaml.safe_load_all(text)
    check_inference_sim_schema(doc)
    factor = check_decode_line(doc, est)
    per_token = parse_go_duration(doc["prefill-time-per-token"])
    overhead = parse_go_duration(doc["prefill-overhead"])  # every token counted: none cached in the simulator
    assert abs((overhead + 2000 * per_token) * factor - est.ttft_parts["prefill"] * 1e9) <= 2000 * factor
    assert doc["data-parallel-size"] == 4 and doc["model"] == "meta-llama/Meta-Llama-3-8B"


def test_inference_sim_refuses_an_overloaded_deployment(h100):
    data = {**AGGREGATED, "workload": dict(rate=100_000)}
    with pytest.raises(InputError, match="more than the deployment can serve"):
        _export(h100, data, "inference-sim")
    with language("zh"), pytest.raises(InputError) as caught:
        _export(h100, data, "inference-sim")
    assert re.search("[\u4e00-\u9fff]", str(caught.value))


# --- Vidur ---------------------------------------------------------------------------------------------------
def test_vidur_flags_exist_with_their_types_and_values(h100):
    text, est = _export(h100, AGGREGATED, "vidur")
    args = vidur_args(text)
    for name, choices in VIDUR_CHOICES.items():
        if name in args:
            assert args[name] in choices, name
    assert args["replica_config_model_name"] == "meta-llama/Meta-Llama-3-70B"
    assert (args["replica_config_device"], args["replica_config_network_device"]) == ("h100", "h100_dgx")
    assert (args["replica_config_tensor_parallel_size"], args["replica_config_num_pipeline_stages"]) == (8, 1)
    assert args["cluster_config_num_replicas"] == est.decode.ranks == 2
    assert args["poisson_request_interval_generator_config_qps"] == 5.0
    assert (args["fixed_request_length_generator_config_prefill_tokens"],
            args["fixed_request_length_generator_config_decode_tokens"],
            args["fixed_request_length_generator_config_max_tokens"]) == (2000, 500, 2500)
    assert args["sarathi_scheduler_config_batch_size_cap"] == est.decode.max_batch
    assert args["sarathi_scheduler_config_chunk_size"] == int(est.prefill.batch)
    predictor = "random_forrest_execution_time_predictor_config_prediction_max"
    assert args[f"{predictor}_tokens_per_request"] >= 2500
    assert args[f"{predictor}_batch_size"] >= args["sarathi_scheduler_config_batch_size_cap"]
    assert args[f"{predictor}_prefill_chunk_size"] >= args["sarathi_scheduler_config_chunk_size"]
    assert "precision: Vidur's execution times are its FP16 profiles" in text
    assert "Vidur ships no h100 compute profile of meta-llama/Meta-Llama-3-70B" in text


def test_vidur_attention_ranks_are_replicas_and_notes_say_what_is_left_out(h100):
    text, est = _export(h100, DENSE_DP, "vidur")
    args = vidur_args(text)
    assert args["cluster_config_num_replicas"] == 4 and args["replica_config_tensor_parallel_size"] == 2
    assert "prefix cache: Vidur prefills every input token" in text
    text, _est = _export(h100, {**AGGREGATED, "model": "llama3.3-70b", "workload": dict(concurrency=64)}, "vidur")
    assert vidur_args(text)["replica_config_model_name"] == "meta-llama/Meta-Llama-3-70B"
    assert "runs as Vidur's meta-llama/Meta-Llama-3-70B" in text and "open-loop arrivals only" in text


@pytest.mark.parametrize("data, gpu, reason", [
    (DISAGGREGATED_MOE, "H100", "disaggregated"),
    (dict(model="qwen3-30b-a3b", mode="aggregated", decode=dict(nodes=1, tp=1, dp=8, ep=8)), "H100",
     "mixture of experts"),
    (dict(model="gpt3-175b", mode="aggregated", decode=dict(nodes=2, tp=8, pp=2)), "H100", "no model of"),
    (AGGREGATED, "B200", "GPU profiles for A40, A100 and H100 only"),
    (dict(model="llama3-70b", mode="aggregated", decode=dict(nodes=2, tp=16)), "H100", "cannot run tp 16"),
])
def test_vidur_refuses_what_it_cannot_express(data, gpu, reason):
    p = plan(Design(gpu=gpu, nodes=8))
    with pytest.raises(InputError, match=reason):
        _export(p, data, "vidur")


def test_inference_sim_at_a_full_kv_cache_is_flat(h100):
    data = {**DENSE_DP, "workload": dict(concurrency=1_000_000)}  # more clients than the KV cache holds
    text, est = _export(h100, data, "inference-sim")
    (doc,) = yaml.safe_load_all(text)
    check_inference_sim_schema(doc)
    assert est.decode.batch == est.decode.max_batch
    assert doc["time-factor-under-load"] == 1.0
    assert parse_go_duration(doc["inter-token-latency"]) == round(est.tpot_s * 1e9)
