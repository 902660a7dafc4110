"""Torus (core.fabric.torus): closed forms against networkx on small instances, sizing, bad input, the plan."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.design import Design, resolve_design
from core.errors import DesignError, InputError
from core.fabric import torus
from core.fabric.sizing import size_fabric
from core.fabric.wiring import wiring_of
from core.formats import sharelink
from core.plan import plan
from core.figures.style import full_title

small_dims = st.lists(st.integers(2, 6), min_size=1, max_size=3).map(tuple)


def _wiring(dims: tuple[int, ...], width: int = 1) -> torus.TorusWiring:
    return torus.TorusWiring(dims=dims, width=width, nodes=math.prod(dims), port_gbps=400)


def _graph(wiring) -> nx.Graph:
    graph = nx.Graph()
    graph.add_nodes_from(f"node{n}" for n in range(wiring.nodes))
    for b in wiring.bundles():
        assert not graph.has_edge(b.a, b.b), "one bundle per neighbour pair"
        graph.add_edge(b.a, b.b, capacity=b.count, links=b.count)
    return graph


def _reference(dims: tuple[int, ...]) -> nx.Graph:
    """The k-ary n-cube by its definition, on coordinates: networkx's periodic grid."""
    return nx.grid_graph(dim=list(reversed(dims)), periodic=True)


@settings(max_examples=60, deadline=None)
@given(small_dims, st.integers(1, 3))
def test_ports_per_vertex_and_links_balanced(dims, width):
    """Every node has 2n neighbours (n for a dimension of 2), width links to each on distinct ports."""
    wiring = _wiring(dims, width)
    ports: Counter = Counter()
    seen = set()
    for link in wiring.links():
        for end, port in ((link.a, link.a_port), (link.b, link.b_port)):
            assert (end, port) not in seen, "a port carries one link"
            seen.add((end, port))
            ports[end] += 1
    assert set(ports.values()) == {torus.ports_per_vertex(dims) * width}
    assert len(ports) == wiring.nodes
    assert sum(1 for _ in wiring.links()) == sum(torus.dimension_links(dims)) * width
    assert all(p < torus.ports_per_vertex(dims) * width for _end, p in seen)


@settings(max_examples=60, deadline=None)
@given(small_dims)
def test_wiring_is_the_k_ary_n_cube(dims):
    """The index's graph is isomorphic to the torus by definition (networkx periodic grid), and the folded
    coordinates are a bijection."""
    wiring = _wiring(dims)
    graph = _graph(wiring)
    reference = _reference(dims)
    assert graph.number_of_edges() == reference.number_of_edges()
    assert nx.is_isomorphic(graph, reference)
    coords = wiring.coords(list(range(wiring.nodes)))
    back = wiring.node_at(coords)
    assert list(back) == list(range(wiring.nodes))


@settings(max_examples=60, deadline=None)
@given(small_dims)
def test_hop_counts_are_networkx_shortest_paths(dims):
    graph = _graph(_wiring(dims))
    lengths = dict(nx.all_pairs_shortest_path_length(graph))
    assert max(max(d.values()) for d in lengths.values()) == torus.diameter(dims)
    if len(graph) > 1:
        assert torus.average_hops(dims) == pytest.approx(nx.average_shortest_path_length(graph))


def _max_flow(graph: nx.Graph, first: set[str], second: set[str]) -> float:
    flow = nx.DiGraph()
    for a, b, data in graph.edges(data=True):
        flow.add_edge(a, b, capacity=data["capacity"])
        flow.add_edge(b, a, capacity=data["capacity"])
    for n in first:
        flow.add_edge("S", n, capacity=math.inf)
    for n in second:
        flow.add_edge(n, "T", capacity=math.inf)
    return nx.maximum_flow_value(flow, "S", "T")


@settings(max_examples=40, deadline=None)
@given(small_dims, st.integers(1, 2))
def test_bisection_is_the_max_flow_between_the_slabs(dims, width):
    """The cut across the bisection's dimension: max-flow between the two slabs (an even dimension) equals the
    closed form; an odd one is bounded by it (its halves are balanced by a stepped cut the slabs do not see)."""
    wiring = _wiring(dims, width)
    i = torus.cut_dimension(dims)
    k = dims[i]
    position = wiring.coords(list(range(wiring.nodes)))[i]
    first = {f"node{n}" for n in range(wiring.nodes) if position[n] < k // 2}
    second = {f"node{n}" for n in range(wiring.nodes) if position[n] >= k // 2}
    flow = _max_flow(_graph(wiring), first, second)
    closed = torus.bisection_links(dims) * width
    if k % 2 == 0:
        assert flow == closed
    else:
        assert flow <= closed


def _min_bisection(graph: nx.Graph) -> int:
    nodes = sorted(graph)
    n = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges = [(index[a], index[b], d["capacity"]) for a, b, d in graph.edges(data=True)]
    best = math.inf
    for half in itertools.combinations(range(1, n), n // 2 - 1 if n % 2 == 0 else n // 2):
        side = {0, *half}  # node 0 on the first side: each cut once
        best = min(best, sum(c for a, b, c in edges if (a in side) != (b in side)))
    return best


@pytest.mark.parametrize("dims", [(2,), (3,), (5,), (4,), (2, 2), (2, 3), (3, 3), (2, 4), (3, 4), (2, 2, 2),
                                  (4, 4), (2, 2, 3), (3, 5), (2, 6), (2, 2, 4)])
def test_bisection_is_the_minimum_balanced_cut(dims):
    """Brute force over every balanced split (halves floor(N/2), ceil(N/2)) on tori of at most 16 nodes."""
    assert _min_bisection(_graph(_wiring(dims))) == torus.bisection_links(dims)


def test_even_k_ary_n_cube_bisection_is_2_k_to_the_n_minus_1():
    """Dally and Towles (2004), sec. 5.2: a k-ary n-cube with even k has a channel bisection of 2 k^(n-1)
    (bidirectional links counted once)."""
    for k, n in [(4, 2), (8, 2), (16, 3), (6, 3), (32, 2)]:
        assert torus.bisection_links((k,) * n) == 2 * k ** (n - 1)
        assert torus.diameter((k,) * n) == n * (k // 2)
        assert torus.average_hops((k,) * n) == pytest.approx(n * k / 4 * k ** n / (k ** n - 1))


@settings(max_examples=40, deadline=None)
@given(small_dims, st.integers(0, 2), st.integers(1, 3))
def test_counts_monotone_in_size(dims, i, step):
    """A longer dimension never has fewer links or a smaller diameter; nor fewer bisection links at the same
    parity (an odd dimension's halves need a stepped cut: 5x2 has a bisection of 5 links, 6x2 of 4)."""
    i = i % len(dims)
    bigger = dims[:i] + (dims[i] + step,) + dims[i + 1:]
    assert sum(torus.dimension_links(bigger)) >= sum(torus.dimension_links(dims))
    assert torus.diameter(bigger) >= torus.diameter(dims)
    if step % 2 == 0:
        assert torus.bisection_links(bigger) >= torus.bisection_links(dims)


@settings(max_examples=30, deadline=None)
@given(small_dims)
def test_bundle_arrays_are_the_bundles(dims):
    wiring = _wiring(dims, 2)
    a_role, a, b_role, b, links = wiring.bundle_arrays("torus")
    assert (a_role, b_role) == ("node", "node")
    from_arrays = Counter((f"node{x}", f"node{y}", c) for x, y, c in zip(a.tolist(), b.tolist(), links.tolist()))
    assert from_arrays == Counter((bd.a, bd.b, bd.count) for bd in wiring.bundles())


def test_folded_order_keeps_every_link_within_two_places():
    """Folded placement: along each dimension neighbours are at most two places apart (strides of the faster
    dimensions), the wraparound included."""
    dims = (8, 6, 4)
    wiring = _wiring(dims)
    dims_of, a, b = wiring.pair_arrays()
    strides = [1, 8, 48]
    spans = abs(a - b) / [strides[d] for d in dims_of]
    assert spans.max() <= 2


def test_lost_link_reroutes_and_matches_networkx():
    """A lost link of a ring: the long way round a lone ring, 3 hops through a neighbouring ring otherwise; the
    bisection across its dimension loses that link."""
    for dims in [(6,), (4, 4), (5, 3), (4, 4, 4)]:
        wiring = _wiring(dims)
        graph = _graph(wiring)
        i = torus.cut_dimension(dims)
        dim_of, a, b = wiring.pair_arrays()
        pick = int((dim_of == i).nonzero()[0][0])
        x, y = f"node{a[pick]}", f"node{b[pick]}"
        graph.remove_edge(x, y)
        loss = torus.link_lost(dims, 1, i)
        assert nx.shortest_path_length(graph, x, y) == loss.reroute_hops
        assert loss.ring_slowdown == 2.0
        assert loss.bisection_links in (torus.bisection_links(dims) - 1, torus.bisection_links(dims))


def test_allreduce_sends_two_s_one_minus_one_over_n():
    """Rings per dimension: each node sends 2 S (1 - 1/N) bytes in all, as a flat ring; at width 1 and both ways
    a 4x4x4 runs each phase at 2 x 400 Gb/s."""
    size = 2 ** 30
    seconds = torus.allreduce_seconds((4, 4, 4), 1, 400, size)
    sent = sum(2 * size / 4 ** i * 3 / 4 for i in range(3))
    assert sent == pytest.approx(2 * size * (1 - 1 / 64))
    assert seconds == pytest.approx(sent * 8 / (2 * 400e9))


def test_alltoall_is_bounded_by_the_bisection_on_a_long_ring():
    size = 2 ** 30
    ring = torus.alltoall_seconds((64,), 1, 400, size)
    assert ring == pytest.approx(32 * 32 * size * 8 / 64 / (2 * 400e9))


# --------------------------------------------------------------------------------------- design, plan
def test_plan_sizes_links_bom_and_summary():
    p = plan(Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4"))
    assert p.fabric.family == "torus" and p.fabric.torus_dims == (4, 4, 4)
    assert p.fabric.torus_width == 1  # 8 NIC ports over 6 neighbours
    assert p.fabric.switch_count_total == 0
    summary = p.summary()["torus"]
    assert summary["links"] == 192 and summary["bisection_links"] == 32 and summary["diameter_hops"] == 6
    assert p.bandwidth.bisection_tbits_one_direction == pytest.approx(32 * 0.4)
    cables = sum(r.quantity for r in p.bom if r.category == "cable" and "torus" in r.item)
    assert cables == 192  # one cable or fibre cord per link
    assert not any(r.category == "switch" and "torus" in r.item for r in p.bom)


def test_default_dims_are_the_most_balanced_3d_shape():
    assert torus.default_dims(64) == (4, 4, 4)
    assert torus.default_dims(4096) == (16, 16, 16)
    assert torus.default_dims(24) == (3, 4, 2) or sorted(torus.default_dims(24)) == [2, 3, 4]
    assert torus.default_dims(14) == (7, 2)
    assert torus.default_dims(13) == (13,)


def test_dims_not_matching_the_nodes_is_a_design_error_with_ways_out_that_build():
    design = Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x5")
    with pytest.raises(DesignError) as err:
        plan(design)
    assert "80" in str(err.value) and "64" in str(err.value)
    assert err.value.fixes
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))


def test_dimension_under_two_is_a_design_error_with_ways_out_that_build():
    design = Design(gpu="H100", nodes=16, topology="torus", torus_dims="16x1")
    with pytest.raises(DesignError) as err:
        plan(design)
    assert "at least 2" in str(err.value)
    assert err.value.fixes
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))


def test_cube_that_does_not_divide_is_a_design_error():
    design = Design(gpu="H100", nodes=64, topology="torus", torus_dims="8x8", torus_cube=3)
    with pytest.raises(DesignError) as err:
        plan(design)
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))


@pytest.mark.parametrize("text", ["16x", "axb", "0x4", "1x2x3x4", "4.5x2"])
def test_dims_syntax_is_an_input_error(text):
    with pytest.raises((InputError, ValueError)):
        Design(nodes=8, topology="torus", torus_dims=text)


def test_dims_spellings_read_the_same():
    for text in ("16x16x16", "16X16X16", "16*16*16", "16,16,16", "16\u00d716\u00d716", [16, 16, 16]):
        assert Design(nodes=4096, topology="torus", torus_dims=text).torus_dims == "16x16x16"


def test_share_link_design_file_and_cli(capsys):
    from conftest import run_cli

    design = Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4", torus_cube=4)
    params = sharelink.encode(design)
    assert params["t"] == "tr" and params["tdim"] == "4x4x4" and params["tcube"] == "4"
    decoded, warnings = sharelink.decode(params)
    assert decoded == design and not warnings
    _bad, warnings = sharelink.decode({**params, "tdim": "4x<b>"})
    assert warnings
    assert Design.from_json(design.to_json()) == design
    code, out, _err = run_cli(capsys, "plan", "--gpu", "H100", "--nodes", "64", "--topology", "torus",
                              "--torus-dims", "4x4x4", "--torus-cube", "4", "--format", "json")
    assert code == 0
    summary = json.loads(out)
    assert summary["torus"]["ocs"]["switches"] == 48 and summary["torus"]["bisection_links"] == 32


def test_planning_is_flat_in_size():
    """The sizing reads closed forms only: the wiring's links are not enumerated to plan."""
    import time

    def timed(nodes, dims):
        resolved = resolve_design(Design(gpu="H100", nodes=nodes, topology="torus", torus_dims=dims))
        start = time.perf_counter()
        for _ in range(20):
            size_fabric(resolved)
        return (time.perf_counter() - start) / 20

    small, large = timed(64, "4x4x4"), timed(131072 // 8, "32x32x16")
    assert large < max(5 * small, 0.005)


def test_wiring_of_a_plan_is_memoised_and_hashable():
    resolved = resolve_design(Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4"))
    fabric = size_fabric(resolved)
    assert wiring_of(fabric, 64, 8) is wiring_of(fabric, 64, 8)
    assert hash(wiring_of(fabric, 64, 8))


# ---------------------------------------------------------------------------------------------- failure
def _torus_plan(dims: str = "4x4x4"):
    return plan(Design(gpu="H100", nodes=math.prod(int(k) for k in dims.split("x")), topology="torus",
                       torus_dims=dims))


def test_what_if_lost_links_across_the_cut_lower_the_bisection_one_by_one():
    from core.analysis.failure import what_if

    p = _torus_plan()
    healthy = p.bandwidth.bisection_tbits_one_direction
    for count in (1, 4, 16):
        result = what_if(p, [f"link:{count}"])
        assert result.nodes_disconnected == 0
        assert result.bisection_tbits_one_direction == pytest.approx(healthy * (32 - count) / 32)
        assert result.busbw_gbytes < result.healthy_busbw_gbytes


def test_what_if_cut_off_nodes_match_networkx_components():
    """Every link of node 0 lost: node 0 alone is cut off; its six bundles named, either order."""
    from core.analysis.failure import what_if

    p = _torus_plan()
    wiring = wiring_of(p.fabric, 64, 8)
    bundles = [f"node{int(b)}-node{int(a)}" for _d, a, b in zip(*wiring.pair_arrays()) if 0 in (a, b)]
    assert len(bundles) == 6
    result = what_if(p, bundles)
    assert result.nodes_disconnected == 1 and result.gpus_disconnected == 8
    graph = _graph(wiring)
    graph.remove_node("node0")
    assert nx.is_connected(graph)


def test_what_if_a_lost_nic_takes_its_link_and_a_lost_node_breaks_every_ring():
    from core.analysis.failure import what_if

    p = _torus_plan()
    nic = what_if(p, ["node5.nic0"])
    assert nic.gpus_degraded == 4 * 8 and nic.nodes_disconnected == 0  # its link's ring of 4 nodes runs as a line
    node = what_if(p, ["node5"])
    assert node.nodes_disconnected == 1
    assert "50%" in node.notes[0]  # every ring runs as a line: each dimension's phase twice as long, share 1/2
    assert node.busbw_gbytes < node.healthy_busbw_gbytes / 2 * 1.05


def _collective_busbw(p, gpus: int, op: str = "all-reduce", port_share: float = 1.0) -> float:
    from core.analysis.failure.whatif import degraded_plan
    from core.perf.collectives import collective

    return collective(degraded_plan(p, port_share, 1.0, 1.0), op, 1 << 30, gpus=gpus)["busbw_gbytes"]


def test_what_if_healthy_busbw_is_the_collective_models():
    """review47 #3: the what-if's healthy busbw is the number ``collective``, Performance and Compare show (94.5 GB/s
    on 4x4x4 H100s), not the bound of a second, bandwidth-only ring formula (100 GB/s: one 400 Gb/s cable per
    neighbour, rings both ways, 2 x 50 GB/s; its busbw per node was shown as a GPU's). All-to-all likewise (11.9 GB/s
    per GPU, not 98.4 GB/s per node)."""
    from core.analysis.failure import what_if

    p = _torus_plan()
    result = what_if(p, ["node:1"])
    assert result.healthy_busbw_gbytes == pytest.approx(_collective_busbw(p, 512))
    assert 90 < result.healthy_busbw_gbytes < 100  # below the 100 GB/s bound by the latency of 3 x 3 ring steps
    assert result.healthy_alltoall_busbw_gbytes == pytest.approx(_collective_busbw(p, 512, "all-to-all"))
    assert result.healthy_alltoall_busbw_gbytes < 100 / 8


@pytest.mark.parametrize("spec, ring, cut", [
    ("node:1", 1 / 2, 31 / 32),  # every ring broken: each phase 2x; node 0 held 1 of the 32 links across the cut
    ("link:1", 21 / 37, 31 / 32),  # dimension 1 broken: (1 + 1/4 + 1/16) / (2 + 1/4 + 1/16) = 21/37
])
def test_what_if_failed_busbw_is_the_collective_model_at_the_rings_share(spec, ring, cut):
    """The failed all-reduce is the collective model's on the connected GPUs at the rings' surviving share of the NIC
    rate (hand counts: phases of 4x4x4 in the ratio 1 : 1/4 : 1/16), all-to-all at the bisection's share."""
    from core.analysis.failure import what_if

    p = _torus_plan()
    result = what_if(p, [spec])
    connected = 512 - result.gpus_disconnected
    assert result.busbw_gbytes == pytest.approx(_collective_busbw(p, connected, port_share=ring))
    assert result.alltoall_busbw_gbytes == pytest.approx(_collective_busbw(p, connected, "all-to-all", cut))
    assert result.bisection_tbits_one_direction == pytest.approx(result.healthy_bisection_tbits_one_direction * cut)


def test_what_if_models_the_training_step_on_a_torus():
    """review47 #2: the what-if gives the healthy step the Performance and Compare pages give (``estimate``), and
    the failed one, instead of "not modelled on a torus"."""
    from core.analysis.failure import what_if
    from core.perf.training import estimate, model_preset, parse_job

    p = _torus_plan()
    job = parse_job(dict(model=model_preset("llama3-8b"), tp=8, pp=1))
    result = what_if(p, ["link:1"], job=job)
    healthy = estimate(p, job)
    assert result.healthy_step_time_s == pytest.approx(healthy.step_time_s)
    assert result.healthy_days_to_train == pytest.approx(healthy.days_to_train)
    assert result.step_time_s > result.healthy_step_time_s and result.days_to_train > result.healthy_days_to_train
    assert not any("not modelled" in note for note in result.notes)
    lost = what_if(p, ["node:1"], job=job)  # 504 GPUs left: the 512-GPU job no longer fits, said
    assert lost.step_time_s is None and lost.healthy_step_time_s == pytest.approx(healthy.step_time_s)
    assert any("504 GPUs are still connected" in note for note in lost.notes)


@pytest.mark.parametrize("spec", ["leaf:1", "node0-node9", "node99", "link:999", "node0.nic8"])
def test_what_if_unknown_elements_are_input_errors(spec):
    from core.analysis.failure import what_if

    with pytest.raises(InputError):
        what_if(_torus_plan(), [spec])


def test_graphml_export_is_isomorphic_to_the_wiring():
    """The GraphML export reads back as the index's graph (every node, every neighbour bundle)."""
    import io

    from core.formats.exports import export_text

    p = _torus_plan("4x3x2")
    exported = nx.read_graphml(io.StringIO(export_text(p, "graphml")))
    wiring = wiring_of(p.fabric, 24, 8)
    assert nx.is_isomorphic(nx.Graph(exported), _graph(wiring))
    assert nx.is_isomorphic(nx.Graph(exported), _reference((4, 3, 2)))


def test_slurm_tree_is_layers_under_one_switch():
    from core.formats.exports import export_text

    text = export_text(_torus_plan("4x4x4"), "slurm")
    lines = [line for line in text.splitlines() if line.startswith("SwitchName=")]
    assert len(lines) == 5 and lines[-1].endswith("Switches=group[001-004]")


def test_planes_are_refused_with_a_way_out_that_builds():
    design = Design(gpu="H100", nodes=64, topology="torus", torus_dims="4x4x4", planes=2, nic="CX7-2P")
    with pytest.raises(DesignError) as err:
        plan(design)
    assert err.value.fixes
    for _phrase, changes in err.value.fixes:
        plan(Design(**{**design.model_dump(exclude_defaults=True), **changes}))


def test_diagram_draws_a_grid_with_wrap_arcs_within_budget():
    from core.figures.topology import DRAW_BUDGET, count_drawn_elements, topology_figure

    for dims in ("4x4", "4x4x4", "32x32x16"):
        fig = topology_figure(_torus_plan(dims) if dims != "32x32x16" else plan(
            Design(gpu="H100", nodes=16384, topology="torus", torus_dims=dims)))
        names = [trace.name for trace in fig.data]
        assert any("wraparound" in (name or "") for name in names) == (dims != "32x32x16")  # drawn whole or not
        assert count_drawn_elements(fig) <= DRAW_BUDGET
        assert ("Showing" in full_title(fig.layout.title)) == (dims == "32x32x16")



def test_diagram_legend_names_each_wraparound_in_chinese_without_a_stray_space():
    """The legend's wraparound entries in Chinese read 第 1 维（x）环回: the word was added after a space, so a
    full-width bracket or a Chinese word was followed by one (第 1 维（x） 环回, 仅画顶行 环回)."""
    from core.figures.topology import topology_figure
    from core.i18n import language

    with language("zh"):
        names = [trace.name for trace in topology_figure(_torus_plan("4x4x4")).data if "环回" in (trace.name or "")]
    assert names == ["第 1 维（x）环回", "第 2 维（y）环回", "第 3 维（z），仅画顶行环回"], names

def test_job_block_and_node_shares():
    """A job's block: whole dimensions first, then a part ring (a line: half the ring bandwidth)."""
    assert torus.job_block((4, 4, 4), 64) == ((4, 4, 4), True)
    assert torus.job_block((4, 4, 4), 16) == ((4, 4), True)
    assert torus.job_block((4, 4, 4), 8) == ((4, 2), False)
    assert torus.job_block((4, 4, 4), 1) == ((), True)
    shares = torus.node_shares((4, 4, 4), 1, 400, 8, 64)
    # rings: one dimension's two links at a time, 800 of 3,200 Gb/s, times the bytes' 2 (N-1)/N over the phases
    assert shares["ring"] == pytest.approx(100e9 / (8 * 400e9 / 8), rel=1e-9)
    assert torus.node_shares((4, 4, 4), 1, 400, 8, 8)["ring"] < torus.node_shares((4, 4, 4), 1, 400, 8, 16)["ring"]


def test_collectives_on_a_torus_see_its_rings():
    """The Performance model's all-reduce on a torus keeps the rings' share of the NIC bandwidth (and says so)."""
    from core.perf.collectives import collective

    torus_plan, clos_plan = _torus_plan(), plan(Design(gpu="H100", nodes=64))
    slow = collective(torus_plan, "all-reduce", 2 ** 30, algorithm="ring")
    fast = collective(clos_plan, "all-reduce", 2 ** 30, algorithm="ring")
    assert slow["time_us"] > 2 * fast["time_us"]
    assert any("rings per dimension" in note for note in slow["notes"])


@pytest.mark.parametrize("design, words, lang", [
    (Design(topology="torus", gpus=7), "a torus needs at least 2 nodes, and the design has 1 node.", "en"),
    (Design(topology="torus", nodes=8, torus_dims="8x1"),
     "every torus dimension needs at least 2 nodes (dimensions 8x1 for 8 nodes).", "en"),
    (Design(topology="torus", gpus=7), "环面至少需要 2 个节点，而该设计只有 1 个节点。", "zh"),
])
def test_too_small_a_torus_says_its_nodes_in_words(design, words, lang):
    """``?v=1&t=tr&ng=7`` (one node) said "every torus dimension needs at least 2 nodes (dimensions - for 1
    nodes)": no dimensions to show and "1 nodes". One node is said as such; a count is ``plurals.nodes``'."""
    from core.i18n import language

    with language(lang), pytest.raises(DesignError) as raised:
        plan(design)
    assert words in str(raised.value) and "1 nodes" not in str(raised.value)
