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
    path.write_text(json.dumps({"gpu": "H100", "nodes": 64, "pods": "B200:32:800", "rack_kw": 30}), encoding="utf-8")
    from core.cli.optimize import _searched_size
    from types import SimpleNamespace

    def args(**extra):
        return SimpleNamespace(design=str(path), gpu=None, gpus=None, nodes=None, budget_usd=None, max_power_kw=None,
                               **extra)

    with pytest.raises(InputError, match="pods") as refused:
        _searched_size(args(first_pod=False))
    assert "the same command with --first-pod" in str(refused.value) and "--gpus" not in str(refused.value)
    gpu, gpus, base = _searched_size(args(first_pod=True))  # the way out: the first pod, the rest of the file kept
    assert (gpu, gpus, base.pods, base.rack_kw) == ("H100", 512, None, 30.0)


def test_the_way_out_of_pods_in_chinese(tmp_path):
    from types import SimpleNamespace

    from core.cli.optimize import _searched_size
    from core.i18n import language

    path = tmp_path / "pods.json"
    path.write_text(json.dumps({"gpu": "H100", "nodes": 64, "pods": "B200:32:800"}), encoding="utf-8")
    with language("zh"), pytest.raises(InputError) as refused:
        _searched_size(SimpleNamespace(design=str(path), gpu=None, gpus=None, nodes=None, budget_usd=None,
                                       max_power_kw=None, first_pod=False))
    assert "在同一命令中加上 --first-pod" in str(refused.value)


def test_a_two_level_nvlink_design_file_is_searched_as_the_page_searches_the_sidebar(tmp_path, capsys):
    """The file's fields the search does not set are every candidate's, as the Optimize page keeps the sidebar's
    (review48 #8: the CLI dropped the GB200 design's 144-GPU two-level NVLink domain, 418 GB/s instead of the page's
    526): the CLI's best is the page's, design, capex and busbw."""
    from core.formats import sharelink
    from core.i18n import usd
    from tests import pagetest
    from tests.test_optimize_page import unescaped

    params = {"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144"}
    design, warnings = sharelink.decode(params)
    assert not warnings and design.nvlink_domain_gpus == 144
    path = tmp_path / "nvl.json"
    path.write_text(design.to_json(), encoding="utf-8")
    code, out, _err = run_cli(capsys, "optimize", "--design", str(path), "--topologies", "rail-optimized",
                              "--format", "json")
    assert code == 0, out
    best = json.loads(out)["best"]
    assert best["design"]["nvlink_domain_gpus"] == 144 and best["summary"]["gpus"] == 576
    at = pagetest.open_page("../pages/7_Optimize.py", {**params, "opt_top": "rail-optimized", "opt_run": "1"},
                            timeout=300)
    front = at.table[0].value
    capex = front["Capex, whole cluster [USD]"].iloc[0]
    assert unescaped(capex) == usd(best["metrics"]["capex_usd"]) == "$48.5 M"  # the front's first: the cheapest
    assert round(best["metrics"]["busbw_gbytes"]) == 526  # two NVLink levels (one level: 418)
    assert any(unescaped(str(v)).startswith("526") for v in front.iloc[0].values)
    link = next(b.proto.url for b in at.get("link_button"))
    assert "nvd=144" in link


def test_a_torus_design_files_search_tries_the_torus(tmp_path, capsys):
    """Every page works on the sidebar's design, and the CLI on the design file's: without ``--topologies`` the
    search tries the file's own topology too (a torus was left out of the default grid, so a rail-optimized Clos
    won); ``--topologies`` still says the topologies alone."""
    path = tmp_path / "torus.json"
    path.write_text(json.dumps({"gpus": 64, "topology": "torus"}), encoding="utf-8")
    assert _best(capsys, "--design", str(path), "--oversubscription-grid", "1")["design"]["topology"] == "torus"
    asked = _best(capsys, "--design", str(path), "--oversubscription-grid", "1", "--topologies", "rail-only")
    assert asked["design"]["topology"] == "rail-only"
