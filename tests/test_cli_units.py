"""``--units gbyte|gbit`` on every command that prints bandwidth (``core/cli/bwunit.py``): the same numbers in
bytes by default, as the web app, or in bits, in the one bandwidth format (``core.units.bandwidth``)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli
from core.units import bandwidth, from_gbytes, from_tbits

DESIGN = ("--gpu", "H100", "--nodes", "64", "--switch", "QM9700")


def _both(capsys, *argv) -> tuple[str, str]:
    """The command's text output in bytes (the default) and in bits."""
    code, in_bytes, _err = run_cli(capsys, *argv)
    assert code == 0
    code, in_bits, _err = run_cli(capsys, *argv, "--units", "gbit")
    assert code == 0
    return in_bytes, in_bits


def test_failure_units(capsys):
    argv = ("failure", *DESIGN, "--fail", "spine:2")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(out)
    for unit, text in (("GB/s", in_bytes), ("Gb/s", in_bits)):
        assert bandwidth(from_tbits(data["bisection_tbits_one_direction"]), unit) in text
        assert bandwidth(from_gbytes(data["busbw_gbytes"]), unit) in text
    assert "Gb/s" not in in_bytes and "GB/s" not in in_bits


def test_collective_units(capsys):
    argv = ("collective", *DESIGN, "--op", "all-reduce", "--size", "1GiB")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(out)
    for unit, text in (("GB/s", in_bytes), ("Gb/s", in_bits)):
        for key in ("algbw_gbytes", "busbw_gbytes", "bottleneck_line_gbytes"):
            assert bandwidth(from_gbytes(data[key]), unit) in text, key
    assert re.search(r"busbw .*Tb/s", in_bits)  # 2.9 Tb/s, not 2,900 Gb/s


def test_compare_units(capsys, tmp_path):
    files = []
    for name, data in {"a": {"gpus": 64}, "b": {"gpus": 256}}.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        files.append(str(path))
    in_bytes, in_bits = _both(capsys, "compare", *files)
    assert "GB/s" in in_bytes and "Gb/s" not in in_bytes
    assert "Gb/s" in in_bits and "GB/s" not in in_bits


@pytest.mark.parametrize("command", ["compare", "failure", "collective", "load", "serve", "plan", "report"])
def test_every_bandwidth_command_offers_units(capsys, command):
    with pytest.raises(SystemExit) as stop:
        run_cli(capsys, command, "--help")
    assert stop.value.code == 0 and "--units" in capsys.readouterr().out


def test_serve_units(capsys):
    argv = ("serve", "--model", "deepseek-v3", "--nodes", "16", "--prefill-nodes", "4", "--prefill-dp", "32",
            "--prefill-ep", "32", "--decode-nodes", "8", "--decode-dp", "64", "--decode-ep", "64", "--rate", "20")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    rate = json.loads(out)["kv_transfer"]["gbytes_per_s"]
    kv = {text: next(line for line in text.splitlines() if line.startswith("KV transfer"))
          for text in (in_bytes, in_bits)}
    assert bandwidth(from_gbytes(rate), "GB/s") in kv[in_bytes] and bandwidth(from_gbytes(rate), "Gb/s") in kv[in_bits]
