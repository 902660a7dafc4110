"""``python -m core optimize --design FILE``: the file's GPU model and count are the search's, as every other
command reads a design file; ``--gpu`` / ``--gpus`` override them; a design with pods is refused with a way out."""

from __future__ import annotations

import json

import pytest

from core.errors import InputError
from tests.conftest import run_cli


def _best(capsys, *argv) -> dict:
    code, out, _err = run_cli(capsys, "optimize", *argv, "--format", "json")
    assert code == 0, out
    return json.loads(out)["best"]


def test_the_design_files_gpu_and_count_are_searched(tmp_path, capsys):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"gpu": "B200", "nodes": 16, "topology": "top-of-rack"}), encoding="utf-8")
    best = _best(capsys, "--design", str(path))
    assert (best["design"]["gpu"], best["summary"]["gpus"]) == ("B200", 16 * 8)
    assert _best(capsys, "--design", str(path), "--gpus", "64")["summary"]["gpus"] == 64


def test_a_design_file_with_pods_is_refused(tmp_path, capsys):
    path = tmp_path / "pods.json"
    path.write_text(json.dumps({"gpu": "H100", "nodes": 64, "pods": "B200:32:800"}), encoding="utf-8")
    from core.cli.optimize import _searched_size
    from types import SimpleNamespace

    with pytest.raises(InputError, match="pods"):
        _searched_size(SimpleNamespace(design=str(path), gpu=None, gpus=None, nodes=None, budget_usd=None,
                                       max_power_kw=None))
