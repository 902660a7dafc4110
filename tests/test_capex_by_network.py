"""capex by network (the compute fabric apart from the whole cluster) in the cost summary, the
Designer's headline, Compare's rows and the optimizer's objective; the optimizer's bisection-ratio constraint."""

from __future__ import annotations

import math

import pytest

from core import vocab
from core.analysis import compare as cmp
from core.analysis.optimize import Constraints, Grid, optimize
from core.cost import NETWORK_CATEGORIES
from core.design import Design
from core.figures.keynumbers import key_numbers
from core.formats import optimizelink
from core.plan import plan

SMALL_GRID = Grid(oversubscription=(1.0, 2.0), planes=(1,), plane_modes=("per-port",), tiers=(2,))
"""Two tiers only: at 256 H100 one Tomahawk 5 in one tier is both the cheapest cluster and the cheapest compute
fabric; on two tiers the objectives pick different switches (TH5 top-of-rack vs QM8700 top-of-rack)."""


def test_cost_summary_has_compute_fabric_and_whole_cluster_capex():
    p = plan(Design(gpu="H100", gpus=1024))  # storage and management networks on (the defaults)
    fabric = sum(r.extended_price_usd for r in p.bom if r.network == "compute" and r.category in NETWORK_CATEGORIES
                 and not r.management)  # the UFM appliances' links are the compute network's management's
    everything = sum(r.extended_price_usd for r in p.bom)
    nodes = sum(r.extended_price_usd for r in p.bom if r.category == "compute")
    storage = sum(r.extended_price_usd for r in p.bom if r.network == "storage")
    assert storage > 0 and nodes > 0
    assert p.cost.compute_fabric_capex_usd == pytest.approx(fabric)
    assert p.cost.cluster_capex_usd == pytest.approx(everything)
    # GPU nodes, storage (switches and appliances) and management are in the cluster's figure, not the fabric's
    assert p.cost.cluster_capex_usd - p.cost.compute_fabric_capex_usd >= nodes + storage - 1e-6


def test_compute_fabric_money_and_counts_share_one_boundary():
    """review45 1.4: the Links (32) and Transceivers (32) cards of the default design leave out the UFM appliances'
    4 links, but "Capex, compute fabric" billed their 4 modules and 4 fibres ($143,944). Hand sum of the fabric's
    rows (catalog street prices): 1 QM9700 $43,000 + 32 ConnectX-7 at $2,188 = $70,016 + 16 switch-side OSFP modules
    at $879 = $14,064 + 16 node-side flat-top modules (MMA4Z00-NS-FLT) at $1,249 = $19,984 + 32 fibres at $50 =
    $1,600: $148,664 (the UFM's 4 QSFP56 at $250 and 4 fibres, $1,200, not)."""
    p = plan(Design())
    s = p.summary()
    fabric = [r for r in p.bom if r.network == "compute" and r.category in NETWORK_CATEGORIES and not r.management]
    ufm = [r for r in p.bom if r.management]
    assert {r.category for r in ufm} == {"appliance", "transceiver", "cable"}
    assert sum(r.quantity for r in fabric if r.category == "transceiver") \
        == s["transceivers"]["switch_side"] + s["transceivers"]["node_side"] == 32
    assert sum(r.quantity for r in fabric if r.category == "cable") == sum(s["links"].values())
    assert p.cost.network_capex_usd == pytest.approx(sum(r.extended_price_usd for r in fabric))
    assert p.cost.network_capex_usd == pytest.approx(43_000 + 70_016 + 14_064 + 19_984 + 1_600)


def test_designer_headline_names_both_capex_figures():
    p = plan(Design(gpu="H100", gpus=1024))
    cards = {k.key: k for k in key_numbers(p.summary())}
    assert cards["capex"].label == "Capex, whole cluster"
    assert cards["capex_fabric"].label == "Capex, compute fabric"
    assert "$" in cards["capex_fabric"].value and "GPU nodes" in cards["capex_fabric"].help


def test_compare_rows_say_which_capex():
    labels = {m.key: cmp.metric_label(m) for m in cmp.metrics()}
    assert labels["capex_usd"] == "Capex, whole cluster [USD]"
    assert labels["network_capex_usd"] == "Capex, compute fabric [USD]"


@pytest.fixture(scope="module")
def both():
    # bounded=False: every feasible candidate costed, so the minima below are over all of them
    return {objective: optimize("H100", 256, Constraints(), SMALL_GRID, workers=1, objective=objective,
                                bounded=False) for objective in ("cluster", "compute")}


def test_objective_changes_the_winner_where_it_matters(both):
    cluster, compute = both["cluster"], both["compute"]
    assert cluster.objective == "cluster" and compute.objective == "compute"
    assert cluster.best.index != compute.best.index
    feasible = [c for c in cluster.candidates if c.feasible]
    assert cluster.best.capex_usd == min(c.capex_usd for c in feasible)
    assert compute.best.network_capex_usd == min(c.network_capex_usd for c in feasible)
    assert compute.best.network_capex_usd < cluster.best.network_capex_usd
    assert compute.best.capex_usd > cluster.best.capex_usd
    assert vocab.compute_fabric("capex") in compute.explanation[0] and "whole-cluster capex" in cluster.explanation[0]
    assert compute.summary()["objective"] == "compute"
    # the default is the whole cluster, as before the choice existed
    assert optimize("H100", 256, Constraints(), SMALL_GRID, workers=1).best.index == cluster.best.index


def test_objective_in_the_link():
    values, warnings = optimizelink.decode({"opt_obj": "compute"})
    assert values["obj"] == "compute" and not warnings
    assert optimizelink.encode(values) == {"opt_obj": "compute"}
    assert optimizelink.decode({})[0]["obj"] == "cluster"


def test_bisection_ratio_constraint_reads_one_for_a_non_blocking_fabric():
    result = optimize("H100", 256, Constraints(max_bisection_ratio=1.0), SMALL_GRID, workers=1)
    checked = 0
    for c in result.candidates:
        if math.isnan(c.bisection_ratio):
            continue
        p = plan(c.design)
        half_injection = p.resolved.gpus * p.bandwidth.scaleout_gbits_per_gpu / 2
        ratio = max(1.0, half_injection / (p.bandwidth.bisection_tbits_one_direction * 1000))
        assert c.bisection_ratio == pytest.approx(ratio)
        assert c.feasible == (ratio <= 1.0 + 1e-9) or c.reason not in ("", "max_bisection_ratio")
        if c.design.oversubscription == 1.0 and c.feasible:  # non-blocking: the old figure reads half the NIC rate
            assert c.bisection_gbytes_per_gpu == pytest.approx(p.bandwidth.scaleout_gbits_per_gpu / 8 / 2)
        checked += 1
        if checked >= 12:
            break
    assert checked and result.best.bisection_ratio <= 1.0 + 1e-9
    assert result.rejected.get("maximum bisection ratio", 0) > 0


def test_old_bisection_link_key_still_applies_and_the_new_one_round_trips():
    values, warnings = optimizelink.decode({"opt_bis": "20", "opt_bisr": "1.5"})
    assert not warnings
    c = optimizelink.constraints(values)
    assert c.min_bisection_gbytes_per_gpu == 20 and c.max_bisection_ratio == 1.5


def test_cli_objective_and_bisection_ratio(capsys):
    import json

    from conftest import run_cli as run

    common = ("optimize", "--gpus", "256", "--switches", "QM9700,SN5600", "--single-model",
              "--oversubscription-grid", "1,2", "--max-bisection-ratio", "1:1", "--workers", "1")
    code, out, _err = run(capsys, *common, "--objective", "compute", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["objective"] == "compute"
    assert all(p["metrics"]["bisection_ratio"] <= 1.0 + 1e-9 for p in data["pareto"])
    fabric = [p["metrics"]["network_capex_usd"] for p in data["pareto"]]
    assert fabric == sorted(fabric) and data["best"]["metrics"]["network_capex_usd"] == fabric[0]
    code, out, _err = run(capsys, *common, "--format", "table")
    assert code == 0 and "best by whole-cluster capex" in out and "256 x H100 in 32 nodes" in out
    code, _out, err = run(capsys, *common, "--objective", "nodes")
    assert code != 0 and "--objective" in err


def test_the_by_network_split_leaves_no_space_after_a_full_width_bracket():
    """zh: the capex and IT power cards' help name each network and its amount; the compute network's name ends in
    a full-width bracket (计算（节点与计算网络）), which carries its own space: no second one before the amount."""
    from core.i18n import language

    with language("zh"):
        cards = {k.key: k.help for k in key_numbers(plan(Design(nodes=64)).summary())}
    for key in ("capex", "it_power"):
        assert "（节点与计算网络）" in cards[key] and "） " not in cards[key], cards[key]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_optimize_names_the_compute_fabric_capex_as_the_designer(lang):
    """Optimize said "compute-fabric capex" for a GB200 design's two-level NVLink domain, whose compute fabric
    capex holds the level-2 NVLink switches, where the Designer and Compare say "Capex, compute fabric and NVLink
    level 2": the objective's words are ``core.vocab.compute_fabric``'s, by whether the candidate holds them."""
    from core.analysis.objectives import objective_word
    from core.figures.optimize import capex_title
    from core.i18n import language

    grid = Grid(topologies=("rail-optimized",), switches=("QM9700",), oversubscription=(1.0,), planes=(1,),
                plane_modes=("per-port",), tiers=(2,))
    nvl = optimize("GB200-NVL72", 576, Constraints(), grid, workers=1, objective="compute",
                   base=Design(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=144))
    h100 = optimize("H100", 256, Constraints(), SMALL_GRID, workers=1, objective="compute")
    assert nvl.best.scaleup_capex_usd > 0 and h100.best.scaleup_capex_usd == 0
    with language(lang):
        level2, alone = vocab.compute_fabric("capex", True), vocab.compute_fabric("capex")
        assert objective_word("compute", nvl.best) == level2 and objective_word("compute", h100.best) == alone
        assert level2 in " ".join(nvl.explained()) and level2 not in " ".join(h100.explained())
        assert level2 in capex_title("compute", nvl.pareto) and level2 not in capex_title("compute", h100.pareto)
        assert objective_word("compute") == alone  # the menu's, before a search
