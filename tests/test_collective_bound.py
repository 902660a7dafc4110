"""``collective`` names the level whose share the model applied (review45 1.3): the leaf uplinks at 4:1, the torus's
rings or its cut, and the NIC egress only when nothing beyond the NICs takes a share."""

import json
import re

import pytest

from core.cli import main


def _run(capsys, *args):
    assert main(["collective", *args]) == 0
    return capsys.readouterr().out


def _busbw(text):
    return next(line for line in text.splitlines() if line.startswith("busbw"))


def test_all_to_all_at_4_to_1_is_bound_by_the_leaf_uplinks(capsys):
    data = json.loads(_run(capsys, "--gpus", "1024", "--oversubscription", "4", "--op", "all-to-all", "--format",
                           "json"))
    share = data["fabric_bound"]["share"]
    assert data["fabric_bound"]["level"] == "leaf" and share < 0.5
    # the named bound is what the busbw sits under: one GPU's 50 GB/s NIC times the share the uplinks leave
    assert data["busbw_gbytes"] <= 50 * share * 1.001
    line = _busbw(_run(capsys, "--gpus", "1024", "--oversubscription", "4", "--op", "all-to-all"))
    assert "leaf uplinks (4:1 oversubscription)" in line and "of each GPU's NIC 50 GB/s per direction" in line
    kept = float(re.search(r", ([\d.]+) GB/s of each GPU's NIC", line).group(1))
    assert kept == pytest.approx(50 * share, rel=0.01)


@pytest.mark.parametrize("op, level, words", [
    ("all-reduce", "torus-rings", "torus rings per dimension"),
    ("all-to-all", "torus-cut", "torus links and bisection"),
])
def test_torus_names_its_rings_or_its_cut(capsys, op, level, words):
    data = json.loads(_run(capsys, "--topology", "torus", "--gpus", "512", "--op", op, "--format", "json"))
    assert data["fabric_bound"]["level"] == level and data["fabric_bound"]["share"] < 0.5
    assert words in _busbw(_run(capsys, "--topology", "torus", "--gpus", "512", "--op", op))


def test_a_non_blocking_ring_is_still_bound_by_the_egress(capsys):
    data = json.loads(_run(capsys, "--format", "json"))
    assert data["fabric_bound"] == {"share": 1.0, "level": "nic"}
    assert "(bound: the NVLink domain's NIC egress 400 GB/s" in _busbw(_run(capsys))
