"""Sweep: every point is a direct plan() of its design; infeasible points keep the engine's message;
the sw_ link round-trips and warns; the CLI prints the same numbers in every format."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis import compare as cmp
from core.analysis.sweep import (METRICS, SETTINGS, Axis, SweepSpec, check_values, csv_rows, design_at, measure,
                                 sweep)
from core.design import Design
from core.errors import DesignError, FabricPlannerError, InputError
from core.figures import sweep as figs
from core.formats import inferencelink, sweeplink
from core.formats.joblink import DEFAULTS
from core.i18n import language
from core.perf.jobform import FITTED
from core.plan import plan

ROOT = Path(__file__).resolve().parents[1]
BASE = Design(gpu="H100", nodes=256)


def _direct(design: Design, metric: str, size: int = 1 << 30, job=None):
    p = plan(design)
    if metric in ("capex_usd", "capex_per_gpu_usd", "switches_total", "bisection_gbytes_per_gpu"):
        return cmp.key_values(p.summary())[metric]
    if metric == "busbw_gbytes":
        return cmp.busbw_values(p, [size], job or {})[cmp.busbw_key(size)]
    return cmp.training_values(p, job)[metric]


def test_each_point_is_a_direct_plan():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="oversubscription", values=(1, 1.5, 2, 3)),
                             metric="capex_per_gpu_usd"))
    assert [p.x for p in result.points] == [1.0, 1.5, 2.0, 3.0]
    for p in result.points:
        direct = Design(gpu="H100", nodes=256, oversubscription=float(p.x))
        assert p.design == direct
        assert p.value == pytest.approx(plan(direct).summary()["cost"]["capex_per_gpu_usd"])
    # more oversubscription, fewer spines: never more expensive (the engine's monotonicity)
    assert result.values == sorted(result.values, reverse=True)


def test_infeasible_point_keeps_the_engine_message():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="tiers", values=("auto", "1", "2")), metric="switches_total"))
    one = result.points[1]
    assert one.value is None
    with pytest.raises(DesignError) as caught:
        plan(Design(gpu="H100", nodes=256, tiers=1))
    assert one.reason == str(caught.value)
    assert result.points[0].value == result.points[2].value == plan(BASE).summary()["switches"]["total"]
    assert result.feasible == 2


def test_invalid_design_value_is_a_point_reason_not_a_crash():
    result = sweep(SweepSpec(base=Design(gpu="H100", nodes=1000), x=Axis(setting="gpus", values=(1024, 999_999)),
                             metric="capex_usd"))
    assert result.points[0].value is not None
    assert result.points[1].value is None and result.points[1].reason


def test_two_settings_give_every_combination():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=(64, 128, 10_000)),
                             y=Axis(setting="fabric", values=("infiniband", "ethernet")), metric="capex_usd"))
    assert len(result.points) == 6
    grid = result.grid()
    assert len(grid) == 2 and len(grid[0]) == 3
    for p in result.points:
        try:
            direct = plan(p.design).summary()["cost"]["capex_usd"]
        except FabricPlannerError as exc:
            assert p.value is None and p.reason == str(exc)
        else:
            assert p.value == pytest.approx(direct)
    ib_10k = grid[0][2]
    assert ib_10k.value is None and "three tiers" in ib_10k.reason


def test_fabric_change_drops_the_switch_and_speed():
    base = Design(gpu="H100", nodes=64, switch="QM9700", port_speed_gbps=400)
    design = design_at(base, {"fabric": "ethernet"}, "infiniband")
    assert design.fabric == "ethernet" and design.switch is None and design.port_speed_gbps is None
    plan(design)  # it builds


def test_switch_of_the_other_fabric_brings_its_fabric():
    design = design_at(BASE, {"switch": "SN5600"}, "infiniband")
    assert design.fabric == "ethernet"
    assert plan(design).resolved.switch.id == "SN5600"


def test_nodes_replace_gpus():
    design = design_at(Design(gpu="H100", gpus=1024), {"nodes": 32})
    assert design.nodes == 32 and design.gpus is None


def test_busbw_and_job_metrics_use_the_single_design_functions():
    job = dict(DEFAULTS)
    spec = SweepSpec(base=Design(gpu="H100", nodes=64), x=Axis(setting="fabric", values=("infiniband", "ethernet")),
                     metric="step_time_s", job=job, fit=FITTED, defaults=dict(DEFAULTS))
    result = sweep(spec)
    fitted = cmp.job_settings(plan(spec.base), job, FITTED, DEFAULTS)
    assert result.job == fitted  # fitted once, to the base design, then held
    for p in result.points:
        assert p.value == pytest.approx(_direct(p.design, "step_time_s", job=fitted))
    busbw = sweep(SweepSpec(base=Design(gpu="H100", nodes=64), x=Axis(setting="nodes", values=(16, 64)),
                            metric="busbw_gbytes", size=1 << 20, job=job))
    for p in busbw.points:
        assert p.value == pytest.approx(_direct(p.design, "busbw_gbytes", 1 << 20, job))


def test_every_metric_measures():
    p = plan(Design(gpu="H100", nodes=64))
    job = cmp.job_settings(p, dict(DEFAULTS), FITTED, DEFAULTS)
    torus = plan(Design(topology="torus", gpus=512))
    for key in METRICS:
        on = torus if key == "hops_node_max" else p  # node-to-node hops: a torus's (a Clos has switch hops)
        value = measure(on, key, 1 << 30, job, dict(inferencelink.DEFAULTS))
        assert value == value and value >= 0, key  # a number, not NaN


def test_serving_metrics_are_the_inference_pages():
    """A sweep point's serving metric is the Inference page's number for that design (the same estimate)."""
    from core.perf.servingform import estimate_on

    settings = dict(inferencelink.DEFAULTS)
    spec = SweepSpec(base=Design(gpu="H100", nodes=8), x=Axis(setting="fabric", values=("infiniband", "ethernet")),
                     metric="tpot_ms", serving=settings)
    result = sweep(spec)
    for point in result.points:
        assert point.value == pytest.approx(estimate_on(plan(point.design), settings).tpot_s * 1e3)
    with pytest.raises(InputError):
        measure(plan(Design(gpu="H100", nodes=8)), "tpot_ms")


@pytest.mark.parametrize("setting, values, words", [
    ("bogus", (1,), "cannot be swept"),
    ("nodes", (1.5,), "whole numbers"),
    ("oversubscription", (20,), "from 0.25 to 16"),
    ("switch", ("XYZ",), "not a value of switch"),
    ("nodes", (64, 64), "twice"),
    ("nodes", tuple(range(1, 70)), "at most 64"),
])
def test_bad_values_are_input_errors(setting, values, words):
    with pytest.raises(InputError, match=words):
        check_values(setting, values)


def test_spec_level_errors():
    with pytest.raises(InputError, match="not a sweep metric"):
        sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=(8,)), metric="nope"))
    with pytest.raises(InputError, match="twice"):
        sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=(8,)), y=Axis(setting="nodes", values=(16,))))
    with pytest.raises(InputError, match="at most 400"):
        sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=tuple(range(1, 30))),
                        y=Axis(setting="oversubscription", values=tuple(1 + i / 4 for i in range(20)))))


@settings(max_examples=25, deadline=None)
@given(nodes=st.lists(st.integers(1, 3000), min_size=1, max_size=5, unique=True),
       over=st.sampled_from([1.0, 2.0, 3.0]))
def test_property_points_equal_direct_plans(nodes, over):
    base = Design(gpu="H100", nodes=8, oversubscription=over)
    result = sweep(SweepSpec(base=base, x=Axis(setting="nodes", values=tuple(nodes)), metric="switches_total"))
    for p in result.points:
        try:
            want = plan(Design(gpu="H100", nodes=int(p.x), oversubscription=over)).summary()["switches"]["total"]
        except FabricPlannerError as exc:
            assert p.value is None and p.reason == str(exc)
        else:
            assert p.value == want


# --- figures ---------------------------------------------------------------------------------------

def test_line_chart_has_gaps_with_reasons():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=(64, 10_000, 128)), metric="capex_usd"))
    fig = figs.figure(result)
    line, gaps = fig.data
    assert line.y[1] is None and line.connectgaps is False
    assert list(gaps.x) == [10_000] and list(gaps.customdata[0][1:]) == ["cannot be built", gaps.customdata[0][2]]
    assert "three tiers" in gaps.customdata[0][2]  # [value, "cannot be built", reason]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bar_and_heatmap_titles_in_the_language(lang):
    with language(lang):
        bars = figs.figure(sweep(SweepSpec(base=BASE, x=Axis(setting="tiers", values=("auto", "1")),
                                           metric="capex_usd")))
        heat = figs.figure(sweep(SweepSpec(base=BASE, x=Axis(setting="nodes", values=(64, 10_000)),
                                           y=Axis(setting="fabric", values=("infiniband", "ethernet")),
                                           metric="capex_usd")))
    assert bars.data[0].type == "bar" and heat.data[0].type == "heatmap"
    title = heat.layout.title.text
    has_cjk = any("\u4e00" <= ch <= "\u9fff" for ch in title)
    assert has_cjk == (lang == "zh")
    assert heat.data[0].z[0][1] is None  # infeasible cell is blank
    assert "<br>" in heat.data[0].customdata[0][1]  # ... and says why on hover


# --- the link --------------------------------------------------------------------------------------

def test_link_defaults_and_round_trip():
    values, warnings = sweeplink.decode({})
    assert not warnings and values["x"] == "oversubscription" and values["xv"] == (1.0, 1.5, 2.0, 3.0)
    assert sweeplink.encode(values) == {}
    chosen = {"x": "nodes", "xv": (16, 64, 256), "y": "fabric", "yv": ("ethernet",), "m": "busbw_gbytes",
              "sz": 1 << 20}
    params = sweeplink.encode(chosen)
    assert all(k.startswith("sw_") for k in params)
    assert sweeplink.decode(params) == (chosen, [])


@settings(max_examples=40, deadline=None)
@given(x=st.sampled_from(sorted(SETTINGS)), data=st.data())
def test_link_round_trip_property(x, data):
    pool = sweeplink.default_values(x)
    values = tuple(data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True)))
    chosen = {"x": x, "xv": values, "y": "", "yv": (), "m": "capex_usd", "sz": 1 << 30}
    assert sweeplink.decode(sweeplink.encode(chosen))[0] == chosen


@pytest.mark.parametrize("params, words", [
    ({"sw_x": "bogus"}, "sw_x"),
    ({"sw_x": "nodes", "sw_xv": "1,two"}, "sw_xv"),
    ({"sw_m": "<script>"}, "sw_m"),
    ({"sw_x": "nodes", "sw_y": "nodes"}, "sw_y"),
    ({"sw_zz": "1"}, "unknown"),
    ({"sw_x": "oversubscription", "sw_xv": "1:100:1"}, "at most 64"),
])
def test_bad_link_values_warn_and_fall_back(params, words):
    values, warnings = sweeplink.decode(params)
    assert warnings and words in " ".join(warnings)
    assert values["m"] in METRICS and values["x"] in SETTINGS and values["xv"]
    assert all(len(w) < 600 for w in warnings)


def test_value_lists():
    assert sweeplink.parse_values("nodes", "64:256:64") == (64, 128, 192, 256)
    assert sweeplink.parse_values("oversubscription", "1；１.５ 2") == (1.0, 1.5, 2.0)
    assert sweeplink.parse_values("fabric", "InfiniBand,ethernet") == ("infiniband", "ethernet")
    with pytest.raises(InputError):
        sweeplink.parse_values("nodes", "5:1:1")


def test_link_warning_in_chinese():
    with language("zh"):
        _values, warnings = sweeplink.decode({"sw_m": "nope"})
    assert any("\u4e00" <= ch <= "\u9fff" for ch in warnings[0])


# --- the command line ------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_cli_formats_agree():
    args = ["sweep", "--gpu", "H100", "--nodes", "256", "--set", "oversubscription=1,2", "--metric", "capex_usd"]
    out = json.loads(_cli(*args, "--format", "json").stdout)
    rows = list(csv.DictReader(io.StringIO(_cli(*args, "--format", "csv").stdout)))
    direct = [plan(Design(gpu="H100", nodes=256, oversubscription=o)).summary()["cost"]["capex_usd"] for o in (1, 2)]
    assert [p["capex_usd"] for p in out["points"]] == pytest.approx(direct)
    assert [float(r["capex_usd"]) for r in rows] == pytest.approx(direct)
    table = _cli(*args)
    assert table.returncode == 0 and "2 of 2" in table.stdout


def test_cli_grid_and_reasons():
    out = json.loads(_cli("sweep", "--nodes", "64", "--set", "tiers=1,2", "--set2", "fabric=infiniband,ethernet",
                          "--metric", "switches_total", "--format", "json").stdout)
    assert out["setting2"] == "fabric" and len(out["points"]) == 4
    assert out["points"][0]["feasible"] is False and "tier" in out["points"][0]["reason"]


@pytest.mark.parametrize("args, code", [
    (["--set", "bogus=1"], 2), (["--set", "nodes"], 2), (["--set", "nodes=1,x"], 2), (["--metric", "nope"], 2),
])
def test_cli_bad_input_is_one_line(args, code):
    result = _cli("sweep", *(["--set", "nodes=8"] if args[0] != "--set" else []), *args)
    assert result.returncode == code
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_cli_in_chinese():
    result = _cli("--lang", "zh", "sweep", "--nodes", "64", "--set", "tiers=1,2")
    assert result.returncode == 0 and "无法构建" in result.stdout


def test_csv_rows_are_english_and_complete():
    result = sweep(SweepSpec(base=BASE, x=Axis(setting="tiers", values=("1", "2")), metric="capex_usd"))
    with language("zh"):
        rows = csv_rows(result)
    assert list(rows[0]) == ["tiers", "capex_usd", "feasible", "planned", "same_as", "reason"]
