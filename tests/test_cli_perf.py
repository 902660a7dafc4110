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
