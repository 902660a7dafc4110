"""``python -m core serve``: the JSON keys the serving estimate promises, the search, the what-if, the table, bad input."""

from __future__ import annotations

import re
import json

import pytest

from conftest import run_cli as run

SPLIT = ["--model", "deepseek-v3", "--nodes", "16", "--prefill-nodes", "4", "--prefill-dp", "32", "--prefill-ep", "32",
         "--decode-nodes", "8", "--decode-dp", "64", "--decode-ep", "64"]


def test_json_has_the_promised_keys(capsys):
    code, out, err = run(capsys, "serve", *SPLIT, "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "100",
                         "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    for key in ("ttft_s", "tpot_s", "usd_per_million_output_tokens", "meets_slo", "ttft_breakdown_s",
                "max_rate_per_s", "balanced_prefill_decode_ratio"):
        assert key in s, key
    assert s["prefill"]["input_tokens_per_s_per_gpu"] > 0 and s["decode"]["output_tokens_per_s_per_gpu"] > 0
    assert s["kv_transfer"]["gbytes_per_s"] > 0
    assert set(s["decode"]["breakdown_s"]) == {"compute", "hbm", "nvlink", "fabric", "overhead"}
    assert s["meets_slo"] is True and s["rate_per_s"] == pytest.approx(20)
    assert s["gpus"] == 96 and "search" not in s  # given splits: one estimate
    assert s["decode"]["split"] == {"tp": 1, "dp": 64, "ep": 64, "pp": 1}


def test_without_a_split_it_searches_and_explains(capsys):
    code, out, err = run(capsys, "serve", "--model", "deepseek-v3", "--nodes", "16", "--ttft-ms", "2000",
                         "--tpot-ms", "100", "--explain", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    assert s["meets_slo"] is True and s["search"]["chosen"]["meets_slo"] is True
    rows = s["search"]["candidates_estimated"]
    assert rows[0]["verdict"] == "chosen" and len(rows) == s["search"]["candidates"]
    assert s["rate_per_s"] == pytest.approx(s["max_rate_per_s"], rel=1e-6)  # no rate: at the largest within targets
    assert s["search"]["rule"].startswith("lowest cost per million output tokens")


def test_no_fabric_adds_the_what_if(capsys):
    code, out, err = run(capsys, "serve", "--gpu", "gb200-nvl72", "--nodes", "36", "--model", "llama3.3-70b",
                         "--mode", "aggregated", "--decode-nodes", "4", "--decode-tp", "8", "--rate", "5",
                         "--no-fabric", "--format", "json")
    assert code == 0, err
    w = json.loads(out)["what_if_frontend"]
    assert w["frontend"]["network"] == "frontend" and w["resplit"] == []
    assert set(w["difference"]) == {"ttft_s", "tpot_s", "output_tokens_per_s", "usd_per_million_output_tokens"}


def test_table(capsys):
    code, out, err = run(capsys, "serve", *SPLIT, "--rate", "20", "--ttft-ms", "2000", "--tpot-ms", "100")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("DeepSeek-V3 (671B MoE) on 96 of 128 GPUs: disaggregated")
    heads = [line.split()[0] for line in lines[1:]]
    for head in ("prefill", "decode", "load", "TTFT", "TPOT", "throughput", "KV", "balance", "cost"):
        assert head in heads, head
    ttft = next(line for line in lines if line.startswith("TTFT"))
    assert "target 2,000 ms: met" in ttft and "queueing" in ttft and "KV-cache transfer" in ttft  # the chart's names
    assert re.search(r", compute fabric [\d.]+ ms,", next(line for line in lines if line.startswith("TPOT")))  # the what-if's name
    assert re.search(r"^cost +\$\d+\.\d\d per million output tokens", out, re.M)  # the money format, as the Inference card


@pytest.mark.parametrize("argv,field", [
    (["--input-tokens", "2000000"], "--input-tokens"),
    (["--cache-hit", "1"], "--cache-hit"),
    (["--decode-tp", "5000"], "--decode-tp"),
    (["--mode", "aggregated", "--prefill-tp", "2"], "--prefill-tp"),
    (["--rate", "0"], "--rate"),
    (["--rate", "5", "--concurrency", "10"], "--concurrency"),
])
def test_bad_input_names_the_option(capsys, argv, field):
    code, out, err = run(capsys, "serve", "--nodes", "16", *argv)
    assert code == 2, (argv, err)
    assert field in err and len(err.strip().splitlines()) == 1 and out == ""


def test_a_split_that_does_not_divide_says_what_fits(capsys):
    code, out, err = run(capsys, "serve", "--model", "deepseek-v3", "--nodes", "16", "--ttft-ms", "2000",
                         "--tpot-ms", "100", "--prefill-nodes", "4", "--prefill-dp", "32", "--prefill-ep", "32",
                         "--decode-nodes", "8", "--decode-dp", "48", "--decode-ep", "48")
    assert code == 3 and out == ""
    assert "decode pool: 64 GPUs on 8 nodes do not split into instances of tp x dp x pp = 48 GPUs" in err
    assert "The search finds one that fits and meets the targets: --mode " in err


@pytest.mark.parametrize("lang,words", [("en", "prefill pool: 8 GPUs on 1 node do not split"),
                                         ("zh", "预填充池：1 个节点上的 8 个 GPU 无法均分")])
def test_a_one_node_pool_that_does_not_divide_says_node_once(capsys, lang, words):
    code, out, err = run(capsys, "--lang", lang, "serve", "--prefill-nodes", "1", "--prefill-tp", "3",
                         "--decode-nodes", "1")
    assert code == 3 and out == ""
    assert words in err and "1 nodes" not in err


@pytest.mark.parametrize("lang,name", [("en", "serving pool"), ("zh", "服务池")])
def test_aggregated_modes_one_pool_is_named_as_on_the_page(capsys, lang, name):
    code, out, err = run(capsys, "--lang", lang, "serve", "--mode", "aggregated")
    assert code == 0, err
    assert out.splitlines()[1].startswith(name + " ")
    code, out, err = run(capsys, "--lang", lang, "serve", "--mode", "aggregated", "--decode-nodes", "1", "--decode-tp", "3")
    assert code == 3 and (name + ("：1 个节点上的 8 个 GPU" if lang == "zh" else ": 8 GPUs on 1 node")) in err
    assert "decode pool" not in err


@pytest.mark.parametrize("lang,words", [("en", " (one direction; 625 MiB per request"), ("zh", "（单向；每请求 625 MiB")])
def test_the_kv_transfer_rate_says_its_direction_as_the_pages_card(capsys, lang, words):
    code, out, err = run(capsys, "--lang", lang, "serve")
    assert code == 0, err
    assert words in next(line for line in out.splitlines() if line.startswith(("KV transfer", "KV 传输")))


@pytest.mark.parametrize("split", [[], ["--decode-tp", "8"]])
def test_a_model_that_does_not_fit_exits_3_with_ways_out(capsys, split):
    code, out, err = run(capsys, "serve", "--nodes", "1", "--model", "llama3-405b", "--precision", "bf16",
                         "--ttft-ms", "2000", "--tpot-ms", "100", "--mode", "aggregated", *split)
    assert code == 3 and out == ""
    assert "does not fit" in err and "Ways out (each estimated): grow the design to " in err and "; use FP8: " in err
    if split:  # the split's own problem first
        assert "serving pool: Llama 3.1 405B needs 94 GiB of weights per GPU at BF16 with this split" in err


def test_without_load_or_targets_it_shows_the_default_share_of_the_capacity(capsys):
    code, out, err = run(capsys, "serve", "--nodes", "8", "--ttft-ms", "0", "--tpot-ms", "0", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    # both rounded down to the digits shown (serving_search.shown_rate): within 1% of 0.8 x the largest
    assert s["rate_per_s"] == pytest.approx(0.8 * s["max_rate_per_s"], rel=1e-2)
    assert s["ttft_s"] is not None and not s["warnings"]  # below saturation, whichever mode the search chose


def test_the_command_line_and_the_page_share_their_defaults(capsys):
    """Without options the command serves what the Inference page serves by default (its model, lengths, precisions
    and targets)."""
    from core.formats.inferencelink import DEFAULTS

    code, out, err = run(capsys, "serve", "--nodes", "8", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    assert s["model"] == "Llama 3.3 70B" and DEFAULTS["model"] == "llama3.3-70b"
    w = s["workload"]
    assert (w["input_tokens"], w["output_tokens"], w["ttft_ms"], w["tpot_ms"]) == (
        DEFAULTS["in"], DEFAULTS["out"], DEFAULTS["ttft"], DEFAULTS["tpot"])
    assert DEFAULTS["prec"] == "auto"  # FP8 where the accelerator runs it (the default design's H100 does)
    assert (s["precision"], s["kv_precision"]) == ("fp8", DEFAULTS["kvp"])


def test_the_cli_docs_state_the_default_share():
    from pathlib import Path

    from core.perf.serving_constants import load_serving_constants

    text = " ".join((Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text(encoding="utf-8").split())
    share = load_serving_constants().memory.default_utilisation
    assert f"(without targets, at {share:.0%} of its capacity)" in text


def test_a_searched_deployment_is_shown_at_the_concurrency_given(capsys):
    code, out, err = run(capsys, "serve", "--nodes", "16", "--concurrency", "512", "--ttft-ms", "5000",
                         "--tpot-ms", "150", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    assert s["workload"]["concurrency"] == 512 and s["workload"]["rate"] is None and "search" in s



def test_export_writes_the_simulators_input_from_the_estimate(capsys):
    code, out, err = run(capsys, "serve", "--nodes", "2", "--model", "llama3.3-70b", "--mode", "aggregated",
                         "--decode-nodes", "1", "--decode-tp", "8", "--rate", "1", "--export", "inference-sim")
    assert code == 0, err
    assert "inter-token-latency:" in out and "model:" in out
    code, out, err = run(capsys, "serve", "--export", "nonsense")
    assert code == 2 and "--export" in err


def test_optimize_takes_a_serving_target(capsys):
    code, out, err = run(capsys, "optimize", "--gpu", "H100", "--gpus", "32", "--serve-model", "llama3.3-70b",
                         "--serve-rate", "2", "--serve-mode", "aggregated", "--serve-tpot-ms", "100",
                         "--topologies", "rail-optimized", "--oversubscription-grid", "1", "--single-model",
                         "--workers", "1", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    assert s["metric"] == "usd_per_mtok" and s["best"]["metrics"]["usd_per_million_output_tokens"] > 0
    code, out, err = run(capsys, "optimize", "--gpu", "H100", "--gpus", "32", "--serve-model", "llama3.3-70b")
    assert code == 2 and "--serve-rate" in err
    code, out, err = run(capsys, "optimize", "--gpu", "H100", "--gpus", "32", "--serve-model", "llama3.3-70b",
                         "--serve-rate", "2", "--serve-input-tokens", "0")
    assert code == 2 and "--serve-input-tokens" in err


def test_a_custom_model_serves(capsys):
    """A custom architecture (the train command's options, with experts) serves like a preset; an incomplete one
    names the options it lacks."""
    code, out, err = run(capsys, "serve", "--nodes", "8", "--layers", "48", "--hidden", "4096", "--ffn", "12288",
                         "--heads", "32", "--kv-heads", "8", "--vocab", "128000", "--experts", "64", "--top-k", "4",
                         "--moe-ffn", "1536", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    assert s["model"] == "custom" and s["meets_slo"] is True
    code, out, err = run(capsys, "serve", "--nodes", "8", "--layers", "48", "--hidden", "4096")
    assert code == 2 and "--vocab" in err
    code, out, err = run(capsys, "serve", "--nodes", "8", "--layers", "48", "--hidden", "4096", "--ffn", "12288",
                         "--heads", "32", "--kv-heads", "8", "--vocab", "128000", "--experts", "64")
    assert code == 2 and "top_k" in err


def test_the_command_line_and_the_inference_page_give_the_same_numbers(capsys):
    """The same design and settings, no split: ``serve --mode M`` and the Inference page serve the same deployment
    at the same load, to the last digit."""
    from core.design import Design
    from core.formats.inferencelink import DEFAULTS
    from core.perf.servingform import estimate_on
    from core.plan import plan

    code, out, err = run(capsys, "serve", "--nodes", "16", "--mode", "disaggregated", "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    page = estimate_on(plan(Design(nodes=16)), dict(DEFAULTS)).summary()
    for key in ("ttft_s", "tpot_s", "rate_per_s", "usd_per_million_output_tokens", "gpus"):
        assert s[key] == page[key], key
    assert s["decode"]["split"] == page["decode"]["split"] and s["prefill"]["split"] == page["prefill"]["split"]
