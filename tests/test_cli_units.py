"""``--units gbyte|gbit`` on every command that prints bandwidth (``core/cli/bwunit.py``): the same numbers in
bytes by default, as the web app, or in bits, in the one bandwidth format (``core.units.bandwidth``)."""

from __future__ import annotations

import json
import re

import pytest

from conftest import run_cli
from core.units import bandwidth, cell, from_gbytes, from_tbits

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


def test_availability_units(capsys):
    """The expected and healthy bisection in the unit asked for. By hand: 64 nodes x 8 GPUs x 400 Gb/s / 2 =
    102.4 Tb/s = 12.8 TB/s one direction, healthy; the expected figure is the JSON's through the one format."""
    argv = ("availability", *DESIGN, "--trials", "100")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(out)["availability"]
    assert data["healthy_bisection_tbits_one_direction"] == pytest.approx(102.4)
    expected = from_tbits(data["expected_bisection_tbits_one_direction"])
    assert f"expected bisection {bandwidth(expected, 'GB/s')} of 12.8 TB/s (one direction)" in in_bytes
    assert f"expected bisection {bandwidth(expected, 'Gb/s')} of 102 Tb/s (one direction)" in in_bits
    assert "Gb/s" not in in_bytes and "GB/s" not in in_bits


def test_optimize_units(capsys):
    """The best design's busbw, the front's column (G of the unit, to the front's 0.1 GB/s = 0.8 Gb/s step) and the
    tie rule in the unit asked for; the JSON's numbers (GB/s) through the one format."""
    argv = ("optimize", "--gpus", "256", "--switches", "QM9700,SN5600", "--single-model", "--oversubscription-grid",
            "1,2", "--workers", "1")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    data = json.loads(out)
    best = data["best"]["metrics"]["busbw_gbytes"]
    for unit, text in (("GB/s", in_bytes), ("Gb/s", in_bits)):
        assert f"All-reduce busbw {bandwidth(from_gbytes(best), unit)} at 1 GiB over 256 GPUs." in text
        assert f"whole-cluster capex against busbw [{unit}]:" in text
    assert "at 0.1 GB/s of all-reduce bus bandwidth" in in_bytes and "at 0.8 Gb/s of all-reduce" in in_bits
    for p in data["pareto"]:
        gbytes = p["metrics"]["busbw_gbytes"]
        assert f"  {gbytes:,.1f}  " in in_bytes and f"  {gbytes * 8:,.1f}  " in in_bits
    assert "GB/s" not in in_bits  # the rejected reasons name port speeds in Gb/s in both


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


@pytest.mark.parametrize("command", ["compare", "failure", "collective", "load", "serve", "plan", "report", "verify",
                                     "train", "sweep", "availability", "optimize"])
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
    from core.perf.sizes import format_size

    size = format_size(json.loads(out)["kv_transfer"]["bytes_per_request"])  # the page's card: 625 MiB, not 655.4 MB
    assert size.endswith(("KiB", "MiB", "GiB")) and f"(one direction; {size} per request," in kv[in_bytes]


def _net_without(design, device: str, remote: str, tmp_path) -> str:
    """The design's as-built file (its ibsim export) without one cable of ``device`` to ``remote``."""
    import io

    from core.analysis.whole import design_mixed
    from core.formats.exports import export_text
    from core.formats.podibsim import write_mixed_ibsim
    from core.plan import plan
    from tests.test_verify_pods import _without

    if design.pods:
        buffer = io.StringIO()
        write_mixed_ibsim(design_mixed(design), buffer)
        text = buffer.getvalue()
    else:
        text = export_text(plan(design), "ibsim")
    path = tmp_path / "net"
    path.write_text(_without(text, device, remote))
    return str(path)


def test_verify_units(capsys, tmp_path):
    """One leaf-spine cable of 400 Gb/s missing: 400 Gb/s = 50 GB/s of bisection lost, and the busbw lines in
    the unit asked for (the JSON's numbers through the one format)."""
    from core.design import Design

    net = _net_without(Design(gpu="H100", nodes=64), "leaf001", "spine001", tmp_path)
    argv = ("verify", *DESIGN[:4], "--ibnetdiscover", net)
    in_bytes, in_bits = _both(capsys, *argv)
    assert "50 GB/s of bisection lost (one direction)" in in_bytes
    assert "400 Gb/s of bisection lost (one direction)" in in_bits
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    impact = json.loads(out)["impact"]
    assert impact["bisection_lost_tbits"] == 0.4
    for unit, text in (("GB/s", in_bytes), ("Gb/s", in_bits)):
        healthy = impact["healthy"]["allreduce_busbw_gbytes"]
        assert f"all-reduce 1 GiB: {bandwidth(from_gbytes(impact['allreduce_busbw_gbytes']), unit)} " \
               f"(healthy {bandwidth(from_gbytes(healthy), unit)})" in text
    assert "Gb/s" not in in_bytes and "GB/s" not in in_bits


def test_verify_pods_units(capsys, tmp_path):
    """A design with pods: one pod-2 leaf's 800 Gb/s cable to a shared spine missing = 100 GB/s into the spines."""
    from core.design import Design

    net = _net_without(Design(gpu="H100", nodes=64, pods="B200:32:800"), "pod2-leaf002", "spine001", tmp_path)
    in_bytes, in_bits = _both(capsys, "verify", *DESIGN[:4], "--pods", "B200:32:800", "--ibnetdiscover", net)
    assert "100 GB/s into the shared spines lost (per direction)" in in_bytes
    assert "(+100 GB/s into the shared spines, 0 GPUs back)" in in_bytes
    assert "800 Gb/s into the shared spines lost (per direction)" in in_bits
    assert "(+800 Gb/s into the shared spines, 0 GPUs back)" in in_bits


def test_train_units(capsys):
    """Each communication row's algbw (its volume over its time, as the JSON gives them) in the unit asked for."""
    argv = ("train", *DESIGN[:4], "--model", "llama3-8b", "--tp", "8", "--pp", "1")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    rows = json.loads(out)["communication"]
    assert rows
    for c in rows:
        gbits = from_gbytes(c["volume_gbytes"] / c["time_s"])
        assert f"{cell(c['time_s'])} s, algbw {bandwidth(gbits, 'GB/s')}," in in_bytes  # as the page's table
        assert f"{cell(c['time_s'])} s, algbw {bandwidth(gbits, 'Gb/s')}," in in_bits
    assert "Gb/s" not in in_bytes and "GB/s" not in in_bits


def test_train_algbw_is_volume_over_time():
    """By hand: 1,000 GB in 2 s is 500 GB/s = 4 Tb/s; the host offload rows (CPU time inside) show none."""
    from core.cli.train import _algbw

    row = {"volume_gbytes": 1000.0, "time_s": 2.0, "fabric_level": "fabric"}
    assert _algbw(row, "GB/s") == "500 GB/s" and _algbw(row, "Gb/s") == "4 Tb/s"
    assert _algbw({**row, "fabric_level": "host"}, "GB/s") == "-"


def test_sweep_units(capsys):
    """A bandwidth metric in the unit asked for: injection per GPU of 400 Gb/s NICs = 50 GB/s."""
    argv = ("sweep", *DESIGN, "--set", "nodes=32,64", "--metric", "scaleout_gbits_per_gpu")
    in_bytes, in_bits = _both(capsys, *argv)
    code, out, _err = run_cli(capsys, *argv, "--format", "json")
    values = [p["scaleout_gbits_per_gpu"] for p in json.loads(out)["points"]]
    assert values == [400, 400]
    assert in_bytes.count("50 GB/s") == 2 and in_bits.count("400 Gb/s") == 2
    in_bytes, in_bits = _both(capsys, "sweep", *DESIGN, "--set", "nodes=32,64", "--metric", "bisection_tbits")
    # 32 nodes x 8 GPUs x 400 Gb/s / 2 = 51.2 Tb/s = 6.4 TB/s one direction; 64 nodes twice that
    assert "51.2 Tb/s" in in_bits and "102 Tb/s" in in_bits and "TB/s" not in in_bits
    assert "6.4 TB/s" in in_bytes and "12.8 TB/s" in in_bytes and "Tb/s" not in in_bytes
