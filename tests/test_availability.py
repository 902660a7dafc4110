"""Availability over time (core/analysis/availability.py): closed forms, Monte Carlo, held-out Meta figures.

Held-out golden figures (not used to set any rate they are compared with; see reliability.toml):
* Llama 3 Herd of Models (Meta, arXiv 2407.21783), sec. 3.3.4 Table 5: 419 unexpected interruptions in a
  54-day snapshot of pre-training on 16,384 H100 GPUs (2,048 nodes of 8); 35 of them "Network Switch/Cable".
  Rates compared: gpu_node from Kokolis et al. (arXiv 2410.21680, 6.50 and 2.34 failures / 1000 node-days),
  switch and link from Alibaba HPN (SIGCOMM 2024 sec. 2.3, 0.051% ToR and 0.057% NIC-ToR links a month).
* The NIC rate IS taken from Table 5 (7 NIC interruptions), so the NIC row is not a check (pinned below).
"""

from __future__ import annotations

import math

import pytest

from core import plurals
from core.analysis.availability import (
    ClassRate,
    Shape,
    availability,
    binomial_tail,
    default_rates,
    element_counts,
    expected_failures,
    job_fraction_closed_form,
    rates_with,
    shape_of,
)
from core.design import Design
from core.errors import InputError
from core.plan import plan

LLAMA3_DAYS = 54
LLAMA3_NODES = 16_384 // 8
LLAMA3_UNEXPECTED = 419
LLAMA3_NETWORK_SWITCH_CABLE = 35
LLAMA3_NIC = 7


def small_shape(**change) -> Shape:
    base = dict(nodes=16, gpus_per_node=8, links_per_node=8, nodes_per_group=4, leaves_per_group=8, groups=4,
                leaf_uplinks=8, spines_per_pod=8, groups_per_pod=4, spines=8, spine_uplinks=0, cores_per_group=0,
                cores=0, bisection_tbits_one_direction=10.0)
    return Shape(**{**base, **change})


def only(**rates) -> dict[str, ClassRate]:
    """Rates with every class at zero but the ones given as unavailability q (mttr 8760 h: afr = q/(1-q))."""
    out = {}
    for name in ("gpu_node", "nic", "link", "switch"):
        q = rates.get(name, 0.0)
        out[name] = ClassRate(afr=q / (1 - q), mttr_hours=8760.0)
    return out


def test_unavailability_is_the_alternating_renewal_steady_state():
    # afr 1/year, 24 h repair: r = 24/8760, q = r/(1+r) = 24/8784 (hand arithmetic)
    assert ClassRate(afr=1.0, mttr_hours=24.0).unavailability == pytest.approx(24 / 8784, rel=1e-12)
    assert ClassRate(afr=2.0, mttr_hours=1.0).mtbf_hours == 4380.0


def test_binomial_tail_matches_direct_sum():
    for n, p, k in ((16, 0.9, 14), (40, 0.97, 40), (10, 0.5, 3), (2048, 0.995, 2040)):
        direct = sum(math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(k, n + 1))
        assert binomial_tail(n, p, k) == pytest.approx(direct, rel=1e-9, abs=1e-15)
    assert binomial_tail(5, 0.3, 0) == 1.0 and binomial_tail(5, 0.3, 6) == 0.0


def test_monte_carlo_matches_binomial_closed_form_when_only_nodes_fail():
    shape = small_shape()
    rates = only(gpu_node=0.1)
    result = availability(shape, job_gpus=14 * 8, trials=20_000, seed=3, rates=rates)
    exact = binomial_tail(16, 0.9, 14)  # 0.789...
    assert result.job_run_fraction_closed_form == pytest.approx(exact, rel=1e-12)
    assert abs(result.job_run_fraction - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)
    assert result.expected_down["gpu_node"] == pytest.approx(1.6)
    assert result.mean_down_sampled["gpu_node"] == pytest.approx(1.6, abs=0.05)
    assert result.expected_gpus_usable == pytest.approx(16 * 0.9 * 8, rel=0.01)


def test_monte_carlo_counts_a_nic_or_link_loss_as_losing_the_node():
    shape = small_shape()
    rates = only(nic=0.01, link=0.02)
    p = (0.99 * 0.98) ** 8
    result = availability(shape, job_gpus=16 * 8, trials=20_000, seed=5, rates=rates)
    assert result.job_run_fraction_closed_form == pytest.approx(p ** 16, rel=1e-9)
    assert abs(result.job_run_fraction - p ** 16) < 4 * math.sqrt(p ** 16 * (1 - p ** 16) / 20_000)
    # a lost rail degrades the node, it is not cut off (7 of 8 rails still up)
    assert result.expected_gpus_cut_off < 1e-3
    assert result.expected_gpus_degraded == pytest.approx(16 * (1 - p) * 8, rel=0.05)


def test_a_shared_leaf_takes_every_node_of_its_group():
    # top-of-rack: 4 racks of 4 nodes, one ToR each; only ToRs fail. A job needing all 16 nodes runs
    # when all 4 ToRs are up, (1-q)^4; a job needing 12 runs when at most one is down (Binomial over racks).
    shape = small_shape(leaves_per_group=1, links_per_node=1, spines=2, spines_per_pod=2, leaf_uplinks=2)
    q = 0.1
    rates = only(switch=q)
    full = availability(shape, job_gpus=16 * 8, trials=20_000, seed=7, rates=rates)
    assert full.job_run_fraction_closed_form is None  # a shared element fails: no binomial over nodes
    assert abs(full.job_run_fraction - 0.9 ** 4) < 4 * math.sqrt(0.9 ** 4 * (1 - 0.9 ** 4) / 20_000)
    twelve = availability(shape, job_gpus=12 * 8, trials=20_000, seed=7, rates=rates)
    # ToRs down <= 1, spines irrelevant to reachability in this model
    exact = binomial_tail(4, 0.9, 3)
    assert abs(twelve.job_run_fraction - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000)
    # every GPU of a rack whose ToR is down is cut off: 4 racks x q x 32 GPUs
    assert full.expected_gpus_cut_off == pytest.approx(4 * q * 32, rel=0.05)


def test_expected_bandwidth_share_of_a_two_tier_fabric():
    # leaf-spine links usable when both ends are up: E[share] = (1-q)^2 with links never failing
    shape = small_shape()
    q = 0.05
    result = availability(shape, job_gpus=8, trials=20_000, seed=11, rates=only(switch=q))
    assert result.expected_bandwidth_share == pytest.approx((1 - q) ** 2, abs=0.003)
    assert result.expected_bisection_tbits_one_direction == pytest.approx(10.0 * (1 - q) ** 2, abs=0.03)


def test_more_failures_never_help():
    shape = small_shape()
    low = availability(shape, job_gpus=15 * 8, trials=4000, seed=1, rates=only(gpu_node=0.02, switch=0.01))
    high = availability(shape, job_gpus=15 * 8, trials=4000, seed=1, rates=only(gpu_node=0.05, switch=0.03))
    assert high.job_run_fraction < low.job_run_fraction
    assert high.expected_bandwidth_share < low.expected_bandwidth_share
    assert high.expected_gpus_cut_off > low.expected_gpus_cut_off


def test_same_seed_same_result_and_seeds_differ():
    shape = small_shape()
    a = availability(shape, job_gpus=15 * 8, trials=2000, seed=9, rates=only(gpu_node=0.05))
    b = availability(shape, job_gpus=15 * 8, trials=2000, seed=9, rates=only(gpu_node=0.05))
    c = availability(shape, job_gpus=15 * 8, trials=2000, seed=10, rates=only(gpu_node=0.05))
    assert a == b and a.job_run_fraction != c.job_run_fraction


def test_shape_of_a_rail_optimized_plan_counts_the_bom():
    p = plan(Design(gpus=16_384))
    shape = shape_of(p)
    counts = element_counts(shape)
    assert counts["gpu_node"] == 2048
    assert counts["nic"] == sum(r.quantity for r in p.bom if r.category == "NIC")
    assert counts["switch"] == p.fabric.switch_count_total
    assert counts["link"] == (p.fabric.node_leaf_links + p.fabric.leaf_spine_links + p.fabric.spine_core_links) \
        * p.fabric.planes


def test_llama3_interruptions_held_out_node_rate():
    """Kokolis et al. node rates -> the Llama 3 cluster's 54 days; Meta published 419 (Table 5).

    Tolerance: the published count must lie between the two clusters' rates (2.34 and 6.50 per 1000
    node-days), and the default (their mean, 4.42) within 25% of it. Today: 488.7, +16.6%.
    Caveat: the plain mean was chosen over the node-weighted mean (5.11: 565, +35%) with this figure in
    view, so only the bracket is a fully held-out check; the 25% is a tolerance on a choice.
    """
    node_days = LLAMA3_NODES * LLAMA3_DAYS
    assert 2.34e-3 * node_days < LLAMA3_UNEXPECTED < 6.50e-3 * node_days  # 258.8 < 419 < 718.8
    shape = shape_of(plan(Design(gpus=16_384, fabric="ethernet")))
    predicted = expected_failures(shape, LLAMA3_DAYS * 24)["gpu_node"]
    assert predicted == pytest.approx(488.7, abs=0.1)
    assert abs(predicted / LLAMA3_UNEXPECTED - 1) < 0.25


def test_llama3_network_interruptions_held_out_switch_and_link_rates():
    """HPN rates on our 16,384-GPU RoCE design (3 tiers, 49,152 links, 640 switches) vs Meta's 35
    "Network Switch/Cable" interruptions. HPN's link rate is for NIC-ToR links; applied to node links
    only it gives 17.2, applied to every link 50.3: the published 35 lies between (tolerance +-50%
    on the default, which applies it to every link: +43.8% today). Meta's own fabric differs
    (RoCE AI zones under aggregation switches), which is part of the gap."""
    shape = shape_of(plan(Design(gpus=16_384, fabric="ethernet")))
    rates = default_rates()
    hours = LLAMA3_DAYS * 24
    full = expected_failures(shape, hours)
    network = full["switch"] + full["link"]
    node_links_only = (shape.nodes * shape.links_per_node * rates["link"].afr + element_counts(shape)["switch"]
                       * rates["switch"].afr) * hours / 8760
    assert node_links_only < LLAMA3_NETWORK_SWITCH_CABLE < network
    assert network == pytest.approx(50.3, abs=0.1)
    assert abs(network / LLAMA3_NETWORK_SWITCH_CABLE - 1) < 0.5


def test_nic_rate_is_taken_from_llama3_so_it_is_not_a_check():
    # pins that the NIC rate reproduces its own source (7 in 54 days on 16,384 NICs) by construction
    shape = shape_of(plan(Design(gpus=16_384, fabric="ethernet")))
    assert expected_failures(shape, LLAMA3_DAYS * 24)["nic"] == pytest.approx(LLAMA3_NIC, rel=0.01)


def test_every_rate_has_a_source_and_a_grade():
    for name, rate in default_rates().items():
        assert rate.source and rate.grade, name
        assert rate.afr > 0 and rate.mttr_hours > 0


def test_bad_input_is_refused_with_a_message():
    shape = small_shape()
    with pytest.raises(InputError, match="does not fit"):
        availability(shape, job_gpus=16 * 8 + 1)
    with pytest.raises(InputError, match="trials"):
        availability(shape, trials=0)
    with pytest.raises(InputError, match="unknown element class"):
        rates_with({"psu": {"afr": 1}})
    with pytest.raises(InputError, match="at least 0"):
        rates_with({"switch": {"afr": -1}})
    assert rates_with({"switch": {"afr": 0.08}})["switch"].afr == 0.08


def test_closed_form_is_used_only_without_shared_failures():
    shape = small_shape()
    assert job_fraction_closed_form(shape, 8, only(gpu_node=0.5)) == pytest.approx(1 - 0.5 ** 16)
    assert availability(shape, trials=10, rates=only(gpu_node=0.1, switch=0.1)).job_run_fraction_closed_form is None


def test_json_keys_for_the_cli():
    data = availability(small_shape(), trials=10, rates=only(gpu_node=0.1)).to_json()
    for key in ("method", "trials", "seed", "job_gpus", "elements", "expected_down", "job_run_fraction",
                "job_run_fraction_closed_form", "expected_gpus_cut_off", "expected_gpus_degraded",
                "expected_bandwidth_share", "expected_bisection_tbits_one_direction",
                "healthy_bisection_tbits_one_direction", "rates"):
        assert key in data


def test_cli_json(capsys):
    import json

    from core.cli import main

    assert main(["availability", "--gpus", "256", "--fabric", "ethernet", "--trials", "200",
                 "--spares", "switch=N+2", "--rate", "switch.afr=0.08", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"availability", "spares", "monitoring"}
    assert data["availability"]["trials"] == 200 and data["availability"]["rates"]["switch"]["afr"] == 0.08
    assert all(r["quantity"] == 2 for r in data["spares"]["rows"] if r["category"] == "switch")
    assert any(r["id"] == "eth_pfc_pause" for r in data["monitoring"])
    assert main(["--lang", "zh", "availability", "--gpus", "256", "--trials", "50", "--format", "json"]) == 0
    assert "spares: " in capsys.readouterr().out  # machine output stays English


def test_cli_table_in_chinese_and_errors(capsys):
    import re

    from core.cli import main

    assert main(["--lang", "zh", "availability", "--gpus", "256", "--trials", "50"]) == 0
    out = capsys.readouterr().out
    assert "训练作业" in out and "备件" in out
    prose = re.sub(r"[A-Za-z0-9_*]+_[A-Za-z0-9_*]+|InfiniBand|RoCE|DDM|CMIS|FEC|ECN|PFC|ACK|NIC|GPU|BER|EEPROM|"
                   r"Tb/s|USD|go-back-N|Rx|Tx|SymbolErrorCounterExtended|eff_ber|ber_threshold|Port\w+|Link\w+|"
                   r"C\b|ms\b|e-\d+", "", out)
    assert not re.search(r"\b[a-z]{4,}\b", prose), re.findall(r"\b[a-z]{4,}\b", prose)[:10]
    for argv, text in ((["--job-gpus", "9999"], "does not fit"), (["--rate", "psu.afr=1"], "unknown element"),
                       (["--spares", "switch=lots"], "not a percentage"), (["--rate", "switch.afr=x"], "not a number"),
                       (["--spares", "nothing"], "NAME=VALUE")):
        assert main(["availability", "--gpus", "256", "--trials", "10", *argv]) == 2
        assert text in capsys.readouterr().err


def test_spare_nodes_for_99_percent_match_the_binomial_quantile():
    shape = small_shape(nodes=64, groups=16)
    q = 0.05
    result = availability(shape, job_gpus=8, trials=20_000, seed=13, rates=only(gpu_node=q))
    # smallest s with P(down <= s) >= 0.99, down ~ Binomial(64, 0.05) (mean 3.2): s = 8 (P = 0.9956; s = 7: 0.9858)
    exact = next(s for s in range(65) if binomial_tail(64, 1 - q, 64 - s) >= 0.99)
    assert exact == 8
    assert result.spare_nodes_for_99pct == exact


def test_llama3_all_classes_together_overcount_and_the_gap_is_pinned():
    """Node rate + NIC + links + switches for the Llama 3 cluster over 54 days: 546.1 vs 419 published, +30%.

    Outside the 25% tolerance of the node rate alone because Kokolis et al.'s node rate already counts the
    network faults charged to nodes (IB links were their largest cause), so adding the network classes
    double counts; the model states it as an upper bound. This test pins the gap until the split is known."""
    shape = shape_of(plan(Design(gpus=16_384, fabric="ethernet")))
    total = sum(expected_failures(shape, LLAMA3_DAYS * 24).values())
    assert total == pytest.approx(546.1, abs=0.2)
    assert 0.25 < total / LLAMA3_UNEXPECTED - 1 < 0.35
    result = availability(shape, trials=10, rates=default_rates())
    assert result.interruptions_per_day == pytest.approx(total / LLAMA3_DAYS, rel=1e-9)
    # Meta: one interruption every ~3 hours (419 in 54 days = 3.09 h); the model: one every 2.37 h
    assert 24 / result.interruptions_per_day == pytest.approx(2.37, abs=0.01)


WIRING_DESIGNS = [dict(gpus=64), dict(gpus=256), dict(gpus=300), dict(gpus=512, topology="top-of-rack"),
                  dict(gpus=512, topology="top-of-rack", nodes_per_rack=4), dict(gpus=2048, oversubscription=2),
                  dict(gpus=4096, tiers="3", su_nodes=8, pod_sus=2), dict(gpu="GB200-NVL72", gpus=288),
                  dict(gpus=20_000),
                  # partial last pods: 5 groups in pods of 4 (a leaf of pod 1 used to get pod 0's spines)
                  dict(gpus=160 * 8, switch="QM9700", tiers="3"),
                  dict(gpus=150, gpus_per_node=1, nics_per_node=1, topology="top-of-rack", nodes_per_rack=4,
                       switch="QM8700", port_speed_gbps=200, tiers="3")]


@pytest.mark.parametrize("params", WIRING_DESIGNS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_model_wiring_is_the_networkx_graphs(params):
    """The Monte Carlo's node-leaf, leaf-spine and spine-core wiring equals core.fabric.topology.fabric_graph
    (which the sizing tests check for ports and min-cut): per leaf, its servers and link counts; per leaf,
    its spines and link counts; per spine, its cores and link counts."""
    from collections import Counter

    from core.analysis.availability import wiring
    from core.fabric.topology import fabric_graph

    p = plan(Design(**params))
    assert p.fabric.planes == 1 and p.fabric.islands == 1
    shape = shape_of(p)
    link_leaf, up_spine, up_core = wiring(shape)
    graph = fabric_graph(p, servers="each")

    def neighbours(vertex, role, word):
        return Counter({int(u.split(word)[1]): graph.edges[vertex, u]["links"] for u in graph.neighbors(vertex)
                        if graph.nodes[u]["role"] == role})

    leaves = {int(v.split("leaf")[1]): v for v, d in graph.nodes(data=True) if d["role"] == "leaf"}
    assert sorted(leaves) == list(range(shape.leaves))
    ours_servers = {leaf: Counter() for leaf in leaves}
    for node, row in enumerate(link_leaf):
        for leaf in row:
            ours_servers[int(leaf)][node] += 1
    for leaf, vertex in leaves.items():
        assert neighbours(vertex, "server", "node") == ours_servers[leaf], leaf
        if up_spine is not None:
            assert neighbours(vertex, "spine", "spine") == Counter(int(s) for s in up_spine[leaf]), leaf
    if up_core is not None and not p.fabric.partial_last_pod:  # its spines' uplinks: a full pod's (shape_of)
        for vertex, d in graph.nodes(data=True):
            if d["role"] == "spine":
                spine = int(vertex.split("spine")[1])
                assert neighbours(vertex, "core", "core") == Counter(int(c) for c in up_core[spine]), spine


def test_cut_off_gpus_match_networkx_reachability():
    """Fail given leaves in a small top-of-rack design; GPUs whose server has no live leaf neighbour in the
    networkx graph are the ones the model's wiring cuts off."""
    import networkx as nx

    from core.analysis.availability import wiring
    from core.fabric.topology import fabric_graph

    p = plan(Design(gpus=512, topology="top-of-rack", nodes_per_rack=4))
    shape = shape_of(p)
    link_leaf, _up, _core = wiring(shape)
    failed = {0, 3, 7}
    graph = fabric_graph(p, servers="each")
    graph.remove_nodes_from([f"p0.leaf{i}" for i in failed])
    spine = next(v for v, d in graph.nodes(data=True) if d["role"] == "spine")
    reachable = nx.node_connected_component(graph, spine)
    brute = {n for n in range(shape.nodes) if f"node{n}" not in reachable}
    model = {n for n in range(shape.nodes) if all(int(leaf) in failed for leaf in link_leaf[n])}
    assert brute == model and len(brute) == 3 * shape.nodes_per_group


def test_a_second_job_size_reads_the_kept_draws_and_gets_what_a_fresh_run_gets():
    from core.analysis import availability as module

    p = plan(Design(gpu="H100", nodes=32))
    module._simulate.cache_clear()
    fresh = availability(p, job_gpus=200, trials=300, seed=1)
    module._simulate.cache_clear()
    whole = availability(p, trials=300, seed=1)
    kept = availability(p, job_gpus=200, trials=300, seed=1)
    assert module._simulate.cache_info().hits == 1
    assert kept == fresh and kept.job_run_fraction >= whole.job_run_fraction


def test_a_link_rate_moves_with_its_parts():
    """reliability.toml: one link = its two transceivers and its cable. The catalog's parts (40% and 20% of the HPN
    link rate, 0.057% a month x 12 = 0.00684 a year) add up to the link's rate: 2 x 0.002736 + 0.001368 = 0.00684;
    a changed part moves the link by what it adds (review45 1.2: a transceiver at 5 a year left the link at 0.00684)."""
    base = default_rates()
    assert base["link"].afr == pytest.approx(0.00684, abs=1e-12)
    assert 2 * base["transceiver"].afr + base["cable"].afr == pytest.approx(base["link"].afr, abs=1e-12)
    assert rates_with({})["link"].afr == base["link"].afr
    assert rates_with({"transceiver": {"afr": 5}})["link"].afr == pytest.approx(2 * 5 + 0.001368)
    assert rates_with({"cable": {"afr": 1}})["link"].afr == pytest.approx(2 * 0.002736 + 1)
    assert rates_with({"transceiver": {"afr": 0}, "cable": {"afr": 0}})["link"].afr == 0
    # the link's own rate, when given, stands as given; a repair time of a part does not move the link's rate
    assert rates_with({"transceiver": {"afr": 5}, "link": {"afr": 0.01}})["link"].afr == 0.01
    assert rates_with({"transceiver": {"mttr_hours": 1}})["link"].afr == base["link"].afr
    shape = small_shape()
    worse = availability(shape, trials=200, rates=rates_with({"transceiver": {"afr": 5}}))
    assert worse.job_run_fraction < availability(shape, trials=200, rates=rates_with({})).job_run_fraction


def test_cli_down_on_average_row_reads_as_the_pages_column(capsys):
    """``availability``'s "down on average" row writes each class's expected count as the Resilience page's
    "expected down" column does (``expected_down_text``): it wrote nodes 9.01 and switches 0.0019 beside the page's
    9.010 and 0.002."""
    import re

    from core.analysis.availability import expected_down_text
    from core.cli import main

    assert main(["availability", "--gpus", "1024", "--trials", "50"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("down on average"))
    result = availability(plan(Design(gpus=1024)), trials=50, seed=0)
    page = {name: expected_down_text(result, name) for name in ("gpu_node", "nic", "link", "switch")}
    assert re.findall(r"\d+\.\d+", row) == list(page.values()), (row, page)


def test_expected_down_above_zero_never_reads_zero():
    """The Resilience page's "expected down" showed "0.000" for the default design's NICs (0.000253) and switch
    (0.0000028), both above zero: three significant figures (``core.units.number``) in the column and the CLI."""
    from core.analysis.availability import CLASSES, expected_down_text

    result = availability(plan(Design()), trials=50, seed=0)
    shown = {name: expected_down_text(result, name) for name in CLASSES}
    assert shown["nic"] == "0.000253" and shown["switch"] == "0.00000279", shown
    assert all(float(text) > 0 for text in shown.values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_second_nvlink_level_left_out_is_said_with_its_counts(lang):
    """GB200 with a 144-GPU NVLink domain: the Availability tab counted 1,248 links and 38 switches where the
    Designer counts 3,840 and 110 (72 level-2 NVLink switch units, 2,592 cables) without saying it leaves them out:
    the note names them; a one-level design has no such note."""
    from core.formats import sharelink
    from core.i18n import language

    design, _warnings = sharelink.decode({"v": "1", "g": "GB200-NVL72", "n": "144", "nvd": "144"})
    with language(lang):
        result = availability(plan(design), trials=20, seed=0)
        switches, links = plurals.switches(72), plurals.links(2592)
    assert result.elements["switch"] == 38 and result.elements["link"] == 1248
    (note,) = result.notes
    assert switches in note and links in note and ("Not modelled" in note) == (lang == "en")
    assert not availability(plan(Design()), trials=20, seed=0).notes


def test_cli_job_row_names_the_job_once(capsys):
    """The first row read "job  256 of 256 GPUs runs 92% of the time" (a count that "runs"), in zh "训练作业  …的训练
    作业有…" (the label twice); it says what the Resilience page's "Job can run" card says, the job named once."""
    from core.cli import main

    assert main(["availability", "--gpus", "256", "--trials", "50"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("job           on 256 of 256 GPUs: can run ")
    assert main(["--lang", "zh", "availability", "--gpus", "256", "--trials", "50"]) == 0
    assert capsys.readouterr().out.splitlines()[0].count("作业") == 1
