"""Command-line tests: output keys, formats, and exit codes for bad input and impossible designs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli as run

ROOT = Path(__file__).resolve().parent.parent


def test_plan_json_has_the_documented_keys(capsys):
    code, out, _ = run(capsys, "plan", "--gpu", "h100", "--nodes", "127", "--switch", "qm9700", "--format", "json")
    assert code == 0
    data = json.loads(out)
    for key in ("gpus", "nodes", "tiers", "switches", "links", "transceivers", "bandwidth", "cost", "power"):
        assert key in data
    assert set(data["switches"]) >= {"leaf", "spine", "core", "total"}
    assert set(data["links"]) >= {"node_leaf", "leaf_spine", "spine_core"}
    assert set(data["transceivers"]) >= {"switch_side", "node_side"}
    assert set(data["bandwidth"]) >= {"nvlink_gbytes_per_gpu_bidir", "scaleout_gbits_per_gpu",
                                      "bisection_tbits_one_direction", "oversubscription"}
    assert set(data["cost"]) >= {"capex_usd", "capex_per_gpu_usd", "network_capex_usd"}
    assert set(data["power"]) >= {"it_kw", "network_kw"}
    assert data["switches"] == {"leaf": 32, "spine": 16, "core": 0, "total": 48}
    assert data["gpus"] == 1016
    assert data["bom"] and {"category", "item", "quantity", "why"} <= set(data["bom"][0])


def test_names_are_case_insensitive(capsys):
    code, out, _ = run(capsys, "plan", "--gpu", "gb200-nvl72", "--nodes", "36", "--switch", "Qm9700",
                       "--format", "json")
    assert code == 0 and json.loads(out)["gpu_model"] == "GB200-NVL72"
    code, out, _ = run(capsys, "plan", "--gpu", "B300", "--switch", "q3400", "--nodes", "72", "--format", "json")
    assert code == 0 and json.loads(out)["switch_model"] == "Q3400"
    code, out, _ = run(capsys, "plan", "--gpu", "b300", "--fabric", "ethernet", "--switch", "sn5600",
                       "--port-speed", "400", "--planes", "2", "--nodes", "64", "--format", "json")
    assert code == 0 and json.loads(out)["switches"]["leaf"] == 16


def test_gpus_sets_nodes(capsys):
    code, out, _ = run(capsys, "plan", "--gpus", "1000", "--gpus-per-node", "8", "--format", "json")
    assert code == 0 and json.loads(out)["nodes"] == 125


def test_csv_is_the_bill_of_materials(capsys):
    code, out, _ = run(capsys, "plan", "--nodes", "64", "--format", "csv")
    assert code == 0
    header = out.splitlines()[0]
    assert header.startswith("category,item,catalog_id,quantity,unit_price_usd,extended_price_usd")
    assert "why" in header


def test_table_is_readable(capsys):
    code, out, _ = run(capsys, "plan", "--nodes", "64")
    assert code == 0 and "switches" in out and "GB/s" in out and "Gb/s" not in out  # bytes, as the web's default
    code, out, _ = run(capsys, "plan", "--nodes", "64", "--units", "gbit")
    assert code == 0 and "Tb/s" in out and "GB/s" not in out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["plan", "--gpu", "h900"], "unknown system model"),
        (["plan", "--nodes", "-4"], "at least 1"),
        (["plan", "--nodes", "many"], "whole number"),
        (["plan", "--frobnicate"], "unrecognized arguments"),
        (["plan", "--switch", "qm9700", "--fabric", "ethernet"], "infiniband"),
        (["plan", "--switch", "q3400", "--port-speed", "400"], "no 400 Gb/s port mode"),
        (["plan", "--oversubscription", "0.2"], "at least 0.25"),  # below 1 is allowed down to 1:4
        (["plan", "--price", "QM9700=cheap"], "not a number"),
        (["plan", "--price", "QM9700=-4"], ">= 0"),
        (["plan", "--price", "nothing=3"], "not a catalog id"),
        (["plan", "--pue", "0.5"], "pue"),
        (["plan", "--design", "/nonexistent.json"], "cannot read design file"),
        (["plan", "--nodes", "4", "--gpus", "32"], "not both"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert needle.lower() in err.lower()


def test_impossible_design_exits_3_and_says_what_works(capsys):
    code, _, err = run(capsys, "plan", "--gpus", "131072", "--switch", "qm9700")
    assert code == 3
    # no InfiniBand switch in the catalog has more than 64 ports at 400G, so "a larger-radix switch"
    # (the old suggestion) could not help; the ways out offered are the ones that re-plan
    assert "three tiers hold at most" in err and "larger-radix" not in err
    assert "Run the ports at 200 Gb/s" in err and "plan at most 8,192 nodes" in err
    assert run(capsys, "plan", "--gpus", "131072", "--switch", "qm9700", "--port-speed", "200")[0] == 0
    code, _, err = run(capsys, "plan", "--nodes", "512", "--tiers", "2")
    assert code == 3 and "Set tiers to auto" in err
    assert run(capsys, "plan", "--nodes", "512", "--tiers", "auto")[0] == 0


def test_design_file_round_trip(tmp_path, capsys):
    code, out, _ = run(capsys, "plan", "--gpu", "b200", "--nodes", "95", "--oversubscription", "2:1",
                       "--price", "QM9700=25000", "--format", "json")
    design = json.loads(out)["design"]
    path = tmp_path / "design.json"
    path.write_text(json.dumps(design))
    code2, out2, _ = run(capsys, "plan", "--design", str(path), "--format", "json")
    assert code == code2 == 0
    first, second = json.loads(out), json.loads(out2)
    assert first["switches"] == second["switches"] and first["cost"] == second["cost"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code3, _, err = run(capsys, "plan", "--design", str(bad))
    assert code3 == 2 and "not valid JSON" in err


def test_catalog_lists_every_kind(capsys):
    code, out, _ = run(capsys, "catalog", "--format", "json")
    data = json.loads(out)
    assert code == 0 and {"systems", "switches", "nics", "transceivers", "cables", "nvlink"} <= set(data)
    code, out, _ = run(capsys, "catalog")
    assert code == 0 and "QM9700" in out


def test_module_entry_point_and_help():
    proc = subprocess.run([sys.executable, "-m", "core", "plan", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0
    for text in ("--port-speed", "[Gb/s]", "--oversubscription", "--tiers", "--nodes-per-rack", "--planes"):
        assert text in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "core", "plan", "--gpu", "nope"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("error:")
