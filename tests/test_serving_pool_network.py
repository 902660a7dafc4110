"""The network between disaggregated pools is bounded by the smaller pool's NICs and the fabric's bisection."""
import json

from core.cli import main

ASCEND = ["--gpu", "Atlas-800T-A2", "--gpus", "2048", "--fabric", "ethernet", "--switch", "H3C-S9827-64EP"]


def _json(capsys, *argv) -> dict:
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_network_between_the_pools_is_bounded_by_the_smaller_pool_and_the_bisection(capsys):
    s = _json(capsys, "serve", *ASCEND, "--mode", "disaggregated")
    bw = _json(capsys, "plan", *ASCEND)["bandwidth"]
    nic = bw["scaleout_gbits_per_gpu"] / 8  # [GB/s per GPU, one direction]
    smaller = min(s["prefill"]["gpus"], s["decode"]["gpus"])
    offered = s["kv_transfer"]["network_gbytes_per_s"]
    assert s["prefill"]["gpus"] != s["decode"]["gpus"]
    assert 0 < offered <= smaller * nic
    assert offered <= bw["bisection_tbits_one_direction"] * 1000 / 8
    assert s["kv_transfer"]["load"] == s["kv_transfer"]["gbytes_per_s"] / offered
