"""Simulator exports: SimAI topology files and ASTRA-sim analytical network configurations.

Golden SimAI files (``tests/golden/exports/simai-*.txt``) were written by SimAI's own generator,
aliyun/SimAI ``astra-sim-alibabacloud/inputs/topo/gen_Topo_Template.py`` at commit cef83f9d, with the
parameters of the planned design (commands below): the export must equal them byte for byte. They are
held out: nothing in ``core/formats/simai.py`` was fitted to them. The file is checked besides by a
Python port of the C++ reader (``network_frontend/ns3/common.h`` ``SetupNetwork`` and
``AstraSimNetwork.cc`` ``main``) and against the planner's own graph (``fabric_graph``).

ASTRA-sim files are checked by the rules of its analytical backend's parser
(astra-sim/astra-network-analytical ``common/network-parser/NetworkParser.cpp`` ``check_validity``), its
unit conversion (``common/NetworkFunction.cpp``: 1 GB = 2^30 B) and against ``Plan.bandwidth``; the
golden ``astrasim-*.yml`` files pin the whole text (regression, written by this exporter and reviewed).
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from pathlib import Path

import networkx as nx
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from core.design import Design
from core.errors import DesignError
from core.fabric.topology import fabric_graph
from core.formats import astrasim, simai
from core.formats.exports import export_text, exports
from core.i18n import language as use
from core.hostlink import fed_cabled_port_gbits
from core.plan import plan

GOLDEN = Path(__file__).parent / "golden" / "exports"

# Each: the design, and the gen_Topo_Template.py command that wrote the golden file (SimAI commit cef83f9d).
SIMAI_GOLDEN = {
    "simai-h100-16n-rail.txt": (
        Design(gpu="H100", nodes=16, su_nodes=4),
        "--ro -g 128 -gps 8 -gt H100 -nsps 1 -nvbw 3600Gbps -nl 0.000025ms -l 0.0005ms -bw 400Gbps "
        "-asn 32 -npa 4 -psn 2 -apbw 800Gbps -app 32"),
    "simai-h100-16n-tor.txt": (
        Design(gpu="H100", nodes=16, topology="top-of-rack"),
        "-g 128 -gps 8 -gt H100 -nsps 1 -nvbw 3600Gbps -nl 0.000025ms -l 0.0005ms -bw 400Gbps "
        "-asn 4 -npa 32 -psn 2 -apbw 6400Gbps -app 4"),
    # BF3-DPU's 2 x 400G ports on H100's PCIe Gen5 x16 carry 400 Gb/s in all (core.hostlink): 200 Gb/s a port. The
    # file was written with -bw 400Gbps; -bw is the rate of every GPU-leaf line and of no other, so the generator's
    # output with -bw 200Gbps is that file with those 256 lines' rate changed, as it is stored now.
    "simai-h100-16n-2planes.txt": (
        Design(gpu="H100", nodes=16, su_nodes=4, planes=2, nic="BF3-DPU"),
        "--ro --dt --dp -g 128 -gps 8 -gt H100 -nsps 1 -nvbw 3600Gbps -nl 0.000025ms -l 0.0005ms -bw 200Gbps "
        "-asn 64 -npa 4 -psn 4 -apbw 800Gbps -app 32"),
}

ASTRA_GOLDEN = {
    "astrasim-h100-64n.yml": Design(gpu="H100", nodes=64),
    "astrasim-gb200-nvl72-144n.yml": Design(gpu="GB200-NVL72", nodes=144),
}

STRUCTURE_DESIGNS = [
    Design(gpu="H100", nodes=8),
    Design(gpu="H100", nodes=64),
    Design(gpu="H100", nodes=127),
    Design(gpu="H100", nodes=16, topology="top-of-rack"),
    Design(gpu="H100", nodes=16, su_nodes=4, planes=2, nic="BF3-DPU"),
    Design(gpu="GB200-NVL72", nodes=72),
    Design(gpu="H100", nodes=256, tiers=3),
    Design(gpu="H100", nodes=64, oversubscription=2),
    Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"),
    Design(gpu="H100", nodes=32, topology="rail-only"),
]


# --- SimAI ------------------------------------------------------------------------------------------

def read_simai(text: str) -> dict:
    """The file as SimAI's reader sees it (``SetupNetwork``: a stream of whitespace-separated tokens)."""
    tokens = iter(text.split())
    node_num, gpus_per_server, nvswitch_num, switch_num, link_num = (int(next(tokens)) for _ in range(5))
    gpu_type = next(tokens)
    node_type = [0] * node_num
    nvswitches = [int(next(tokens)) for _ in range(nvswitch_num)]
    switches = [int(next(tokens)) for _ in range(switch_num)]
    for sid in nvswitches:
        node_type[sid] = 2
    for sid in switches:
        node_type[sid] = 1
    links = []
    for _ in range(link_num):
        src, dst = int(next(tokens)), int(next(tokens))
        rate, delay, error = next(tokens), next(tokens), float(next(tokens))
        links.append((src, dst, rate, delay, error))
    assert next(tokens, None) is None, "tokens after the last link"
    return {"node_num": node_num, "gpus_per_server": gpus_per_server, "nvswitches": nvswitches,
            "switches": switches, "links": links, "gpu_type": gpu_type, "node_type": node_type}


def gbps(rate: str) -> float:
    assert rate.endswith("Gbps"), rate
    return float(rate[:-4])


@pytest.mark.parametrize("name", sorted(SIMAI_GOLDEN))
def test_simai_equals_simai_own_generator(name):
    design, _command = SIMAI_GOLDEN[name]
    assert export_text(plan(design), "simai") == (GOLDEN / name).read_text()


@pytest.mark.parametrize("design", STRUCTURE_DESIGNS, ids=lambda d: d.model_dump_json(exclude_defaults=True))
def test_simai_file_is_what_its_reader_expects(design):
    p = plan(design)
    r = p.resolved
    f = read_simai(export_text(p, "simai"))
    gpus = r.gpus
    # AstraSimNetwork.cc: gpu_num = node_num - nvswitch_num - switch_num; GPU i -> NVSwitch gpu_num + i / gpus_per_server
    assert f["node_num"] - len(f["nvswitches"]) - len(f["switches"]) == gpus
    assert f["nvswitches"] == list(range(gpus, gpus + len(f["nvswitches"])))
    assert f["gpus_per_server"] == r.nvlink_domain_gpus
    assert len(f["switches"]) == p.summary()["switches"]["total"]
    assert sorted(f["nvswitches"] + f["switches"]) == list(range(gpus, f["node_num"]))
    pairs = Counter(frozenset((s, d)) for s, d, *_ in f["links"])
    assert max(pairs.values()) == 1, "the reader keeps one interface per neighbour pair"
    for src, dst, rate, delay, error in f["links"]:
        assert 0 <= src < f["node_num"] and 0 <= dst < f["node_num"] and src != dst
        assert delay.endswith("ms") and float(delay[:-2]) > 0 and error == 0
        if f["node_type"][dst] == 2:  # NVLink: GPU -> its own NVSwitch at NVLink per GPU per direction
            assert dst == gpus + src // f["gpus_per_server"]
            assert gbps(rate) == pytest.approx(p.bandwidth.nvlink_gbytes_per_gpu_per_direction * 8)
    nic = [l for l in f["links"] if f["node_type"][l[0]] == 0 and f["node_type"][l[1]] == 1]
    fabric = [l for l in f["links"] if f["node_type"][l[0]] == 1]
    links = p.summary()["links"]
    assert len(nic) == links["node_leaf"] == gpus * p.fabric.planes
    assert all(gbps(l[2]) == fed_cabled_port_gbits(r) for l in nic)  # what the host feeds a port (core.hostlink)
    up = p.fabric.uplink_speed_gbps or r.port_speed_gbps
    assert sum(gbps(l[2]) for l in fabric) / up == pytest.approx(links["leaf_spine"] + links["spine_core"])
    assert len(f["links"]) == simai.link_count(p)


@pytest.mark.parametrize("design", STRUCTURE_DESIGNS, ids=lambda d: d.model_dump_json(exclude_defaults=True))
def test_simai_links_are_the_planner_graph(design):
    """Contract GPUs into their servers: the SimAI network equals ``fabric_graph`` edge by edge, capacity included."""
    p = plan(design)
    f = read_simai(export_text(p, "simai"))
    gpn, gpus = p.resolved.gpus_per_node, p.resolved.gpus
    leaf_id, spine_id, core_id = simai._ids(p)
    ids = {}
    for vertex, data in fabric_graph(p, servers="each").nodes(data=True):
        if data["role"] == "server":
            continue
        index = int(vertex.split(data["role"])[-1])
        slot = data["plane"] * p.fabric.islands + data["island"]  # islands: per-rail planes, rail-only rails
        ids[vertex] = {"leaf": leaf_id, "spine": spine_id, "core": core_id}[data["role"]](slot, index)
    name = {v: k for k, v in ids.items()}
    got = nx.Graph()
    for src, dst, rate, _delay, _error in f["links"]:
        if f["node_type"][dst] == 2:
            continue
        a = f"node{src // gpn}" if src < gpus else name[src]
        b = name[dst]
        if got.has_edge(a, b):
            got[a][b]["capacity_gbps"] += gbps(rate)
        else:
            got.add_edge(a, b, capacity_gbps=gbps(rate))
    want = fabric_graph(p, servers="each")
    assert {frozenset(e) for e in got.edges} == {frozenset(e) for e in want.edges}
    fed = fed_cabled_port_gbits(p.resolved) / p.resolved.port_speed_gbps  # a server's lines: what its host feeds
    for a, b, data in want.edges(data=True):
        share = fed if want.nodes[a]["role"] == "server" or want.nodes[b]["role"] == "server" else 1.0
        assert got[a][b]["capacity_gbps"] == pytest.approx(data["capacity_gbps"] * share), (a, b)


@pytest.mark.parametrize("design, words", [
    (Design(gpu="H100", nodes=16, nics_per_node=4), "4 NICs for 8 GPUs"),
    (Design(gpu="H100", nodes=16, nvlink_domain_gpus=1), "no NVLink domain"),
])
def test_simai_says_what_it_cannot_express(design, words):
    with pytest.raises(DesignError, match=words) as caught:
        export_text(plan(design), "simai")
    assert caught.value.suggestion


@pytest.mark.parametrize("design", [Design(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"),
                                    Design(gpu="H100", nodes=32, topology="rail-only"),
                                    Design(gpu="H100", nodes=256, tiers=3, planes=2, plane_mode="per-rail")],
                         ids=["per-rail", "rail-only", "per-rail-3-tiers"])
def test_simai_islands_each_nic_on_its_planes_leaf_each_port_once(design):
    """Per-rail planes (rail-only rails): every GPU's one NIC line goes to the leaf the wiring cables that NIC to
    (its plane's, ``core.fabric.wiring.Wiring.links``), every switch of every plane is in the file, each once, and
    SimAI's reader finds no path between two rails (it forwards only through switches and NVSwitches,
    ``common.h`` CalculateRoute), which the export's description says with the way SimAI routes them (PXN)."""
    from core.fabric.wiring import Wiring

    p = plan(design)
    wiring, gpn = Wiring.of(p), p.resolved.gpus_per_node
    f = read_simai(export_text(p, "simai"))
    number = simai._switch_ids(p)
    assert sorted(number.values()) == f["switches"] and len(number) == p.summary()["switches"]["total"]
    want = {}
    for plane, island in wiring.plane_islands():
        for link in wiring.links(plane, island):
            if link.kind == "node-leaf":
                want[int(link.a[4:]) * gpn + link.a_port] = number[link.b]
    got = {src: dst for src, dst, *_ in f["links"] if f["node_type"][src] == 0 and f["node_type"][dst] == 1}
    nic_lines = Counter(src for src, dst, *_ in f["links"] if f["node_type"][src] == 0 and f["node_type"][dst] == 1)
    assert set(nic_lines.values()) == {1} and got == want  # each NIC cabled once, to its own leaf
    graph = nx.Graph((src, dst) for src, dst, *_ in f["links"] if f["node_type"][dst] == 1)  # no NVLink line
    assert not nx.has_path(graph, 0, 1)  # GPUs 0 and 1 of a server: rails apart, no switch path
    assert "AS_PXN_ENABLE=1" in exports()["simai"].label_for(p)


def test_simai_unknown_gpu_type_is_one_token():
    f = read_simai(export_text(plan(Design(gpu="GB200-NVL72", nodes=72)), "simai"))
    assert f["gpu_type"] == "GB200-NVL72"  # SimAI maps names it does not know to GPUType::NONE


def test_simai_streams():
    class Counting(io.StringIO):
        writes = 0

        def write(self, text):
            Counting.writes += 1
            return super().write(text)
    out = Counting()
    simai.write(plan(Design(gpu="H100", nodes=512)), out)
    assert Counting.writes > 5  # written in pieces, not built as one string


# --- ASTRA-sim --------------------------------------------------------------------------------------

def read_astra(text: str) -> dict:
    """Parse and check as ``NetworkParser::parse_network_config_yml`` and ``check_validity`` do."""
    config = yaml.safe_load(text)
    dims = len(config["topology"])
    assert set(config["topology"]) <= {"Ring", "FullyConnected", "Switch"}
    for key in ("npus_count", "bandwidth", "latency"):
        assert len(config[key]) == dims, key
    assert all(isinstance(n, int) and n > 1 for n in config["npus_count"])
    assert all(b > 0 for b in config["bandwidth"]) and all(lat >= 0 for lat in config["latency"])
    return config


@pytest.mark.parametrize("name", sorted(ASTRA_GOLDEN))
def test_astra_golden(name):
    assert export_text(plan(ASTRA_GOLDEN[name]), "astra-sim") == (GOLDEN / name).read_text()


def test_astra_unit_is_the_backends_gib():
    # NetworkFunction.cpp: bw_GBps * (1 << 30) / 1'000'000'000 bytes per ns
    assert astrasim.GIB_PER_GB * 2**30 == pytest.approx(1e9)
    config = read_astra(export_text(plan(Design(gpu="H100", nodes=1)), "astra-sim"))
    assert config["npus_count"] == [8]
    assert config["bandwidth"][0] * 2**30 / 1e9 == pytest.approx(450.0, abs=1e-3)  # H100 NVLink 900 GB/s bidir


@pytest.mark.parametrize("design", [d for d in STRUCTURE_DESIGNS if d.nodes != 127],
                         ids=lambda d: d.model_dump_json(exclude_defaults=True))
def test_astra_dimensions_match_the_plan(design):
    p = plan(design)
    b, fabric = p.bandwidth, p.fabric
    config = read_astra(export_text(p, "astra-sim"))
    assert math.prod(config["npus_count"]) == p.resolved.gpus
    levels = [d.level for d in astrasim.dimensions(p)]
    got = {level: bw / astrasim.GIB_PER_GB for level, bw in zip(levels, config["bandwidth"])}
    assert got["nvlink"] == pytest.approx(b.nvlink_gbytes_per_gpu_per_direction, rel=1e-6)
    per_gpu = b.scaleout_gbits_per_gpu / 8
    if "leaf" in got:
        assert got["leaf"] == pytest.approx(per_gpu, rel=1e-6)
    if "spine" in got:
        assert got["spine"] == pytest.approx(per_gpu / max(1, b.leaf_oversubscription), rel=1e-6)
    if "core" in got:
        assert got["core"] == pytest.approx(per_gpu / max(1, b.leaf_oversubscription)
                                            / max(1, b.spine_oversubscription), rel=1e-6)
    assert len(levels) <= 1 + fabric.tiers


def test_astra_oversubscribed_leaf_halves_the_spine_dimension():
    p = plan(Design(gpu="H100", nodes=64, oversubscription=2))
    assert p.bandwidth.leaf_oversubscription == pytest.approx(2)
    dims = {d.level: d for d in astrasim.dimensions(p)}
    assert dims["spine"].gbytes_per_s == pytest.approx(dims["leaf"].gbytes_per_s / 2)


def test_astra_three_tiers_have_four_dimensions():
    dims = astrasim.dimensions(plan(Design(gpu="H100", nodes=2048, tiers=3)))
    assert [d.level for d in dims] == ["nvlink", "leaf", "spine", "core"]
    assert [d.npus for d in dims] == [8, 32, 4, 16]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_astra_partial_su_names_the_nearest_sizes(language):
    with use(language), pytest.raises(DesignError) as caught:
        export_text(plan(Design(gpu="H100", nodes=127)), "astra-sim")
    assert "96" in caught.value.suggestion and "128" in caught.value.suggestion


@pytest.mark.parametrize("design", [Design(gpu="H100", gpus=4096, topology="classic-dragonfly"),
                                    Design(gpu="H100", gpus=512, topology="torus"), Design(gpu="H100", nodes=64),
                                    Design(gpu="H100", nodes=64, pods="B200:32:400")])
def test_astra_file_is_english_in_every_language(design):
    """The ASTRA-sim file is one language: the Chinese product's was English comments with a Chinese design line and
    count inside them ("list 2 个算法 in each *-implementation entry"); now the same bytes in both, as draw.io's;
    a refusal still speaks the request's language (``test_astra_partial_su_names_the_nearest_sizes``)."""
    english = export_text(plan(design), "astra-sim")
    with use("zh"):
        chinese = export_text(plan(design), "astra-sim")
    assert chinese == english
    assert re.search(r"[\u3000-\u9fff\uff00-\uffef]", chinese) is None


@pytest.mark.parametrize("language", ["en", "zh"])
def test_astra_refusal_speaks_the_requests_language(language):
    with use(language), pytest.raises(DesignError) as caught:
        export_text(plan(Design(gpu="H100", nodes=127)), "astra-sim")
    assert (re.search(r"[\u4e00-\u9fff]", str(caught.value)) is not None) == (language == "zh")


@settings(max_examples=40, deadline=None)
@given(nodes=st.integers(1, 300), topology=st.sampled_from(["rail-optimized", "top-of-rack"]))
def test_astra_and_simai_either_export_validly_or_say_why(nodes, topology):
    try:
        p = plan(Design(gpu="H100", nodes=nodes, topology=topology))
    except DesignError:
        return
    try:
        config = read_astra(export_text(p, "astra-sim"))
        assert math.prod(config["npus_count"]) == p.resolved.gpus
    except DesignError as exc:
        assert "regular grid" in str(exc.message) or "at least 2" in str(exc.message)
    f = read_simai(export_text(p, "simai"))
    assert len(f["links"]) == simai.link_count(p)


def test_registered():
    names = exports()
    assert names["astra-sim"].suffix == ".yml" and names["simai"].suffix == ".txt"
