"""CLI tests for ``python -m core collective`` and ``python -m core train``."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli as run

ROOT = Path(__file__).resolve().parent.parent


def test_collective_json_keys(capsys):
    code, out, _ = run(capsys, "collective", "--op", "all-reduce", "--size", "1GiB", "--gpus", "1024",
                       "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"op", "algorithm", "bytes", "time_us", "algbw_gbytes", "busbw_gbytes"} <= set(data)
    assert data["bytes"] == 2**30 and data["gpus"] == 1024 and data["op"] == "all-reduce"
    assert data["busbw_gbytes"] == pytest.approx(data["algbw_gbytes"] * 2 * 1023 / 1024, rel=1e-3)


@pytest.mark.parametrize("size,expected", [("512B", 512), ("4KiB", 4096), ("2MiB", 2 * 2**20), ("1GB", 10**9),
                                           ("3KB", 3000), ("5MB", 5 * 10**6)])
def test_collective_size_units(capsys, size, expected):
    code, out, _ = run(capsys, "collective", "--size", size, "--nodes", "2", "--format", "json")
    assert code == 0 and json.loads(out)["bytes"] == expected


def test_collective_forced_algorithm_and_table(capsys):
    code, out, _ = run(capsys, "collective", "--op", "all-gather", "--size", "64MiB", "--nodes", "4",
                       "--algorithm", "ring")
    assert code == 0 and "fastest       ring" in out and "busbw" in out


def test_train_json_keys(capsys):
    code, out, _ = run(capsys, "train", "--model", "gpt3-175b", "--gpus", "128", "--tp", "4", "--pp", "8",
                       "--vp", "12", "--seq-len", "2048", "--global-batch", "256", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"step_time_s", "tokens_per_s", "comm_fraction", "days_to_train"} <= set(data)
    assert 6 < data["step_time_s"] < 11 and 0 < data["comm_fraction"] < 1


def test_train_custom_model_table(capsys):
    code, out, _ = run(capsys, "train", "--layers", "24", "--hidden", "2048", "--ffn", "8192", "--heads", "16",
                       "--kv-heads", "16", "--vocab", "50000", "--tp", "1", "--nodes", "2", "--seq-len", "2048",
                       "--global-batch", "64", "--tokens", "300B")
    assert code == 0 and "step time" in out and "days" in out


@pytest.mark.parametrize("argv", [
    ("collective", "--size", "1XB"),
    ("collective", "--op", "all-sum"),
    ("train", "--model", "gpt-5"),
    ("train", "--layers", "4"),
    ("train", "--tokens", "lots"),
    ("train", "--efficiency", "2"),
    ("train", "--nccl-version", "9.9.9"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and not out
    assert err.startswith("error:") and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ("collective", "--gpus", "64", "--job-gpus", "4096"),
    ("train", "--gpus", "64", "--tp", "3"),
    ("train", "--model", "llama3-405b", "--gpus", "64", "--tp", "8", "--pp", "1"),
])
def test_impossible_exits_3(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 3 and not out and err.startswith("cannot build this design:")


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "core", "collective", "--size", "8", "--nodes", "1", "--format",
                           "json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["algorithm"] == "ring"


@pytest.mark.parametrize("gpus,cluster", [("2", 8), ("12", 16), ("1024", 1024)])
def test_collective_communicator_defaults_to_the_requested_gpus(capsys, gpus, cluster):
    code, out, _ = run(capsys, "collective", "--gpus", gpus, "--size", "8", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["gpus"] == int(gpus) and data["cluster_gpus"] == cluster


def test_collective_table_says_the_cluster_was_rounded(capsys):
    code, out, _ = run(capsys, "collective", "--gpus", "12", "--size", "1GiB")
    assert code == 0 and "on 12 GPUs" in out and "the last with 4" in out and "12 rounded up" in out


def test_train_job_defaults_to_the_requested_gpus(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-8b", "--gpus", "12", "--tp", "4", "--global-batch",
                       "12", "--seq-len", "2048", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["gpus"] == 12 and data["cluster_gpus"] == 16 and data["parallelism"]["dp"] == 3


@pytest.mark.parametrize("argv,reason", [
    (("collective", "--gpus", "1024", "--fabric", "ethernet", "--algorithm", "sharp"), "InfiniBand switches"),
    (("collective", "--gpu", "A100", "--algorithm", "nvls"), "NVSwitch generation 3"),
])
def test_forced_algorithm_the_design_lacks_exits_3_with_the_reason(capsys, argv, reason):
    code, out, err = run(capsys, *argv)
    assert code == 3 and not out and reason in err


@pytest.mark.parametrize("size,reason", [("1.5", "whole number of bytes"), ("-1", "must be positive"),
                                         ("2TiB", "1 TiB")])
def test_bad_sizes_exit_2_with_the_reason(capsys, size, reason):
    code, out, err = run(capsys, "collective", "--size", size)
    assert code == 2 and not out and reason in err


# --- the split the CLI chooses -----------------------------------------------------

def test_train_without_tp_pp_chooses_a_fitting_split_and_says_so(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024")
    assert code == 0
    assert "split" in out and "chosen: the fastest of" in out and "--explain" in out


def test_train_split_choice_is_the_fastest_that_fits(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--explain", "--format", "json")
    assert code == 0
    data = json.loads(out)
    choice = data["split_choice"]
    assert set(choice) == {"chosen", "rule", "considered"}
    fitting = [c for c in choice["considered"] if c["fits"]]
    assert fitting and all(c["step_time_s"] >= choice["chosen"]["step_time_s"] for c in fitting)
    assert any(not c["fits"] and c["problem"] for c in choice["considered"])
    assert sum(c["first_tried"] for c in choice["considered"]) == 1
    assert (data["parallelism"]["tp"], data["parallelism"]["pp"]) == (choice["chosen"]["tp"], choice["chosen"]["pp"])
    assert data["step_time_s"] == pytest.approx(choice["chosen"]["step_time_s"], rel=1e-3)


def test_train_explain_lists_every_split_and_why(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--explain")
    assert code == 0
    assert "splits considered" in out and "chosen" in out and "does not fit" in out and "slower" in out
    assert "the first split tried" in out


def test_train_keeps_a_given_tp_and_chooses_pp(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--tp", "4", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["parallelism"]["tp"] == 4 and data["split_choice"]["chosen"]["tp"] == 4


def test_train_with_tp_and_pp_does_not_search(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--tp", "8", "--pp", "4",
                       "--format", "json")
    data = json.loads(out)
    assert code == 0 and "split_choice" not in data and data["global_batch"] == 1024


def test_train_no_split_fits_exits_3_naming_the_search(capsys):
    code, out, err = run(capsys, "train", "--model", "llama3-405b", "--gpus", "16")
    assert code == 3 and not out and "splits tried" in err


def test_train_published_llama3_405b_split_runs_with_a_memory_warning(capsys):
    code, out, _ = run(capsys, "train", "--model", "llama3-405b", "--gpus", "8192", "--fabric", "ethernet",
                       "--tp", "8", "--pp", "16", "--balanced-stages", "--global-batch", "2048", "--vp", "8",
                       "--shard-gradients")
    assert code == 0 and "Memory is tight" in out


def test_train_schedule_and_fp8_options(capsys):
    code, out, _ = run(capsys, "train", "--model", "deepseek-v3", "--gpu", "H800", "--gpus", "2048", "--tp", "1",
                       "--pp", "16", "--ep", "64", "--precision", "fp8", "--schedule", "dualpipe",
                       "--seq-len", "4096", "--global-batch", "15360", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["schedule"] == "dualpipe" and data["bubble_s"] == 0
    # without FP8 activation caching DeepSeek-V3 does not fit 80 GB: the flag reaches the memory model
    code, out2, err = run(capsys, "train", "--model", "deepseek-v3", "--gpu", "H800", "--gpus", "2048", "--tp", "1",
                          "--pp", "16", "--ep", "64", "--precision", "fp8", "--schedule", "dualpipe",
                          "--seq-len", "4096", "--global-batch", "15360", "--fp8-activations", "off")
    assert code == 3 and "activations" in err


def test_train_explain_in_chinese_keeps_json_english(capsys):
    code, zh, _ = run(capsys, "--lang", "zh", "train", "--model", "llama3-70b", "--gpus", "1024", "--explain")
    assert code == 0 and "splits considered" not in zh and "chosen" not in zh
    _c, zh_json, _e = run(capsys, "--lang", "zh", "train", "--model", "llama3-70b", "--gpus", "1024", "--explain",
                          "--format", "json")
    _c, en_json, _e = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--explain", "--format", "json")
    assert zh_json == en_json


def test_train_explain_with_a_given_split_says_nothing_was_chosen(capsys):
    code, out, _ = run(capsys, "train", "--gpus", "1024", "--tp", "8", "--pp", "4", "--explain")
    assert code == 0 and "no split was chosen" in out and "splits considered" not in out


# --- congestion assumptions and SHARP on the command line (the page's settings, in the CLI) ----------
def _train(capsys, *extra):
    code, out, err = run(capsys, "train", "--gpu", "H100", "--gpus", "2048", "--model", "llama3-70b", "--tp", "8",
                         "--pp", "4", "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_train_routing_and_placement_flags_match_the_engine_under_those_assumptions(capsys):
    from core.design import Design
    from core.perf.congestion import assumptions
    from core.perf.training import estimate, parse_job
    from core.plan import plan

    flags = ("--fabric", "ethernet", "--oversubscription", "2")
    packed = _train(capsys, *flags)
    spread = _train(capsys, *flags, "--placement", "scatter")
    assert packed["assumptions"] == {"routing": "auto", "placement": "topo", "nccl_version": "2.30.7"}
    assert spread["assumptions"]["placement"] == "scatter"
    p = plan(Design(gpu="H100", gpus=2048, fabric="ethernet", oversubscription=2.0))
    job = parse_job({"model": "llama3-70b", "tp": 8, "pp": 4, "gpus": 2048, "global_batch": spread["global_batch"]})
    with assumptions("auto", "scatter"):
        assert estimate(p, job).step_time_s == pytest.approx(spread["step_time_s"], abs=1e-4)
    assert spread["step_time_s"] > packed["step_time_s"]  # a 2:1 leaf shows once ranks spread over leaf groups


def test_train_sharp_speeds_up_an_all_reduce_of_gradients_only(capsys):
    base = _train(capsys, "--fabric", "infiniband", "--no-distributed-optimizer")
    sharp = _train(capsys, "--fabric", "infiniband", "--no-distributed-optimizer", "--sharp")
    dp = [c for c in sharp["communication"] if c["parallelism"] == "DP"][0]
    assert sharp["sharp"] is True and base["sharp"] is False and dp["algorithm"] == "sharp"
    assert dp["time_s"] < [c for c in base["communication"] if c["parallelism"] == "DP"][0]["time_s"]
    zero1 = _train(capsys, "--fabric", "infiniband", "--sharp")  # reduce-scatter + all-gather: SHARP does not apply
    assert all(c["algorithm"] != "sharp" for c in zero1["communication"])


def test_collective_placement_flag_and_bad_values(capsys):
    args = ("collective", "--op", "all-to-all", "--gpus", "1024", "--fabric", "ethernet", "--oversubscription", "2",
            "--format", "json")
    code, out, _ = run(capsys, *args)
    packed = json.loads(out)
    code, out, _ = run(capsys, *args, "--placement", "scatter")
    assert code == 0 and json.loads(out)["assumptions"]["placement"] == "scatter"
    code, _out, err = run(capsys, "train", "--routing", "nope")
    assert code == 2 and "--routing" in err and "Traceback" not in err
    assert packed["assumptions"] == {"routing": "auto", "placement": "topo"}


def test_train_models_the_nccl_release_it_is_given(capsys):
    """``train --nccl-version`` models that release (as ``collective`` does) and says which in the JSON."""
    argv = ("train", "--gpu", "GB200-NVL72", "--gpus", "1440", "--model", "llama3-70b", "--tp", "8", "--pp", "4",
            "--format", "json")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["assumptions"]["nccl_version"] == "2.30.7"
    code, out, _ = run(capsys, *argv, "--nccl-version", "2.26.2")
    assert code == 0 and json.loads(out)["assumptions"]["nccl_version"] == "2.26.2"
