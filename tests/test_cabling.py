"""The cabling plan (core/physical/cabling.py), its CSV/XLSX writers and ``python -m core cabling``.

Golden (published source, held out from anything fitted): NVIDIA DGX SuperPOD with DGX H100 reference
architecture RA-11333-001 V11, Table 4 "Compute fabric component count" (4 SU, 127 DGX: 32 leaves, 16
spines, 1,016 compute node-leaf links besides the 4 UFM cables, 1,024 spine-leaf cables) and Appendix A,
Table 8 (1,536 switch-side OSFP transceivers: 48 switches x 32 cages, every cage populated),
https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/.
Port names: NVIDIA MLNX-OS User Manual v3.11.2016, InfiniBand Interface (Quantum-2 ``<Asic/Cage/Port>``,
e.g. ``1/3/1`` and ``1/3/2`` in cage 3); NVUE reference, Profile-Based Configuration (breakout
``swp1s0``..``swp32s3``). Properties (hypothesis): every port used once, no cage over its ports (breakouts
counted), per-class counts equal ``Plan.summary()["links"]``, rails on the same port of every rail leaf,
and the link structure equal to ``core.fabric.topology.fabric_graph``.
"""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.design import Design
from core.errors import FabricPlannerError
from core.fabric.naming import NamingScheme
from core.fabric.topology import fabric_graph
from core.i18n import _
from core.formats.cabling import COLUMN_TITLES, length_bin, summarize, write_csv, write_xlsx
from core.physical.cabling import (
    CABLE_COLUMNS,
    SITE,
    PortLayout,
    cable_count,
    cabling_rows,
    compute_links,
    port_layout,
)
from core.plan import plan

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "cabling"
SUMMARY_KEYS = {"node-leaf": "node_leaf", "leaf-spine": "leaf_spine", "spine-core": "spine_core"}


# ----------------------------------------------------------------------------------------- helpers
def cage_of(port: str) -> int:
    """Cage number (1-based) of a switch port name."""
    if port.startswith("swp"):
        return int(re.match(r"swp(\d+)", port).group(1))
    if port.startswith("Ethernet"):
        return int(re.match(r"Ethernet(\d+)", port).group(1))
    parts = port.split("/")
    assert parts[0] == "1", port
    return int(parts[1])


def switch_model(p, vertex: str):
    tier = re.search(r"(leaf|spine|core)\d+$", vertex).group(1)
    return tier, p.resolved.tier_switches[tier]


def check_plan(p) -> None:
    """Every property the cabling plan promises, on one planned design."""
    fabric = p.fabric
    unit_speed = {"leaf": fabric.port_speed_gbps, "spine": fabric.uplink_speed_gbps or fabric.port_speed_gbps,
                  "core": fabric.uplink_speed_gbps or fabric.port_speed_gbps}
    used: Counter = Counter()
    per_class: Counter = Counter()
    cage_units: dict[tuple[str, int], float] = defaultdict(float)
    rail_ports: dict[tuple[str, int], set] = defaultdict(set)
    edges: Counter = Counter()
    for link_class, a, a_port, z, z_port, speed in compute_links(p):
        per_class[link_class] += 1
        used[(a, a_port)] += 1
        used[(z, z_port)] += 1
        edges[frozenset((a, z))] += 1
        for vertex, port in ((a, a_port), (z, z_port)):
            if vertex.startswith("node"):
                continue
            tier, switch = switch_model(p, vertex)
            layout = port_layout(switch, unit_speed[tier])
            cost = layout.per_cage / max(1, (switch.ports_at(speed) or switch.cages) // switch.cages)
            cage = cage_of(port)
            assert 1 <= cage <= switch.cages, (vertex, port)
            cage_units[(vertex, cage)] += cost
        if link_class == "node-leaf":
            plane = int(a_port.split("port")[1]) - 1
            rail_ports[(a, plane)].add(z_port)
    # every port used exactly once
    assert max(used.values()) == 1, [k for k, v in used.items() if v > 1][:5]
    # no cage carries more than its ports (breakouts counted in units of the down-speed port)
    for (vertex, cage), units in cage_units.items():
        tier, switch = switch_model(p, vertex)
        per_cage = port_layout(switch, unit_speed[tier]).per_cage
        assert units <= per_cage + 1e-9, (vertex, cage, units, per_cage)
    switch_units: Counter = Counter()
    for (vertex, _cage), units in cage_units.items():
        switch_units[vertex] += units
    graph = fabric_graph(p)
    for vertex, units in switch_units.items():
        assert units <= graph.nodes[vertex]["radix"] + 1e-9
    # per-class counts equal the plan's link counts
    links = p.summary()["links"]
    for link_class, key in SUMMARY_KEYS.items():
        assert per_class[link_class] == links[key], (link_class, per_class, links)
    # the same wiring as the engine's graph
    assert dict(edges) == {frozenset((a, b)): e["links"] for a, b, e in graph.edges(data=True)}
    # rail-optimized: node k of an SU is on the same port of every rail leaf
    if fabric.topology in ("rail-optimized", "rail-only") and fabric.tiers > 1:
        for ports in rail_ports.values():
            assert len(ports) == 1, ports


def check_all_networks(p) -> None:
    """The whole plan (every network): each (device, port) once, per (network, link class) counts equal the
    sizing's link sets (``core.networks``), ids numbered 1..n, and every cable end a device of the design."""
    rows = list(cabling_rows(p))
    assert len(rows) == cable_count(p)
    assert [r.cable_id for r in rows] == [f"C{n:0{len(rows[0].cable_id) - 1}d}" for n in range(1, len(rows) + 1)]
    used = Counter()
    for r in rows:
        used[(r.a_device, r.a_port)] += 1
        if r.z_device != SITE:
            used[(r.z_device, r.z_port)] += 1
    assert max(used.values()) == 1, [k for k, v in used.items() if v > 1][:5]
    got = Counter((r.network, r.link_class) for r in rows if r.network != "compute" or r.link_class == "ufm-leaf")
    want: Counter = Counter()
    if p.networks is not None:
        for link in p.networks.compute_links:
            want[("compute", link.kind)] += link.count
        for network in p.networks.sized():
            for link in network.links:
                want[("oob" if link.kind == "oob-uplink" else network.network, link.kind)] += link.count
    assert got == +want


DESIGNS = st.fixed_dictionaries({
    "gpu": st.sampled_from(["H100", "B200", "GB200-NVL72"]),
    "nodes": st.integers(1, 160),
    "topology": st.sampled_from(["rail-optimized", "top-of-rack", "rail-only"]),
    "tiers": st.sampled_from(["auto", "1", "2", "3"]),
    "planes": st.integers(1, 2),
    "fabric": st.sampled_from(["infiniband", "ethernet"]),
    "su_nodes": st.none() | st.integers(2, 16),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DESIGNS)
def test_cabling_properties(kw):
    kw = {k: v for k, v in kw.items() if v is not None}
    if kw["tiers"] != "auto":
        kw["tiers"] = int(kw["tiers"])
    try:
        p = plan(Design(**kw))
    except (FabricPlannerError, ValueError):
        assume(False)
    check_plan(p)
    check_all_networks(p)


@pytest.mark.parametrize("kw", [
    dict(gpu="H100", nodes=300, tiers=3),                                        # three tiers, partial pod
    dict(gpu="H100", nodes=40, topology="rail-only"),                            # islands
    dict(gpu="H100", nodes=64, planes=2, plane_mode="per-rail"),                 # per-rail planes
    dict(gpu="B300", fabric="ethernet", switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800,
         nodes=70),                                                              # 800G uplinks, 400G breakouts
    dict(gpu="H100", nodes=4, switch="QM9700", port_speed_gbps=200, tiers=2),    # NDR200 split ports
    dict(gpu="H100", nodes=100, topology="top-of-rack", oversubscription=3),    # ToR, oversubscribed
    dict(gpu="H100", nodes=64, grow_to=200),                                     # growth: reserved capacity
])
def test_cabling_properties_named_designs(kw):
    p = plan(Design(**kw))
    check_plan(p)
    check_all_networks(p)


# ----------------------------------------------------------------------------------------- golden
def test_superpod_h100_4su_cabling_golden():
    """RA-11333-001 Table 4 (4 SU, 127 DGX H100): 1,016 compute node-leaf cables (the RA's 1,020 less its
    4 UFM cables, which the engine does not model) and 1,024 spine-leaf cables; Appendix A Table 8: 1,536
    switch-side OSFP transceivers = every one of the 32 cages of each of the 48 switches is cabled."""
    p = plan(Design(gpu="H100", nodes=127, switch="QM9700", port_speed_gbps=400, fabric="infiniband"))
    every = list(cabling_rows(p))
    rows = [r for r in every if r.network == "compute" and r.link_class != "ufm-leaf"]
    by_class = Counter(r.link_class for r in rows)
    assert by_class["node-leaf"] == 1020 - 4
    # the RA's 4 UFM cables: on the last SU's free leaf ports (its 32nd DGX position), 1/16/2
    ufm = [r for r in every if r.link_class == "ufm-leaf" and r.network == "compute"]
    assert len(ufm) == 4 and {r.z_port for r in ufm} == {"1/16/2"}
    assert {r.z_device for r in ufm} <= {f"leaf{k:03d}" for k in range(25, 33)}
    assert by_class["leaf-spine"] == 1024
    cages = {(r.z_device, cage_of(r.z_port)) for r in rows} | {
        (r.a_device, cage_of(r.a_port)) for r in rows if r.link_class != "node-leaf"}
    assert len({d for d, _c in cages}) == 48
    assert len(cages) == 1536
    # DGX k of an SU on leaf port k of each of its 8 rail leaves; downlinks in cages 1-16, uplinks in 17-32
    first = [r for r in rows if r.a_device == "gpu001" and r.link_class == "node-leaf"]
    assert [r.z_device for r in first] == [f"leaf{k:03d}" for k in range(1, 9)]
    assert {r.z_port for r in first} == {"1/1/1"}
    assert {r.z_port for r in rows if r.a_device == "gpu032" and r.link_class == "node-leaf"} == {"1/16/2"}
    assert {r.a_device for r in rows if r.a_device.startswith("gpu")} == {f"gpu{n:03d}" for n in range(1, 128)}
    up = [r for r in rows if r.link_class == "leaf-spine"]
    assert min(cage_of(r.a_port) for r in up) == 17 and max(cage_of(r.a_port) for r in up) == 32
    # leaf001's 32 uplinks: 2 to each of 16 spines, 1/17/1 and 1/17/2 to spine001
    mine = [r for r in up if r.a_device == "leaf001"]
    assert len(mine) == 32 and Counter(r.z_device for r in mine) == {f"spine{s:03d}": 2 for s in range(1, 17)}
    assert [(r.a_port, r.z_device, r.z_port) for r in mine[:2]] == [("1/17/1", "spine001", "1/1/1"),
                                                                     ("1/17/2", "spine001", "1/1/2")]


def _golden_csv(p) -> str:
    out = io.StringIO()
    write_csv(p, out)
    return out.getvalue()


GOLDEN_DESIGNS = {
    "h100-6-nodes-su3-2tier.csv": dict(gpu="H100", nodes=6, su_nodes=3, tiers=2),
    "b300-sn5600-400g-800g-up-4-nodes.csv": dict(gpu="B300", fabric="ethernet", switch="SN5600",
                                                 port_speed_gbps=400, uplink_speed_gbps=800, nodes=4, tiers=2),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_DESIGNS))
def test_golden_files(name):
    """The whole CSV of two small designs, checked by hand once (ports, rails, breakouts) and frozen.

    Regenerate after an intended change: ``PYTHONPATH=. python tests/test_cabling.py``."""
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert _golden_csv(plan(Design(**GOLDEN_DESIGNS[name]))) == expected


def test_golden_breakout_ports():
    """SN5600 at 400G toward the NICs (an 800G cage as 2 x 400G: swp1s0, swp1s1) with 800G uplinks on whole
    cages from swp33 up, as Cumulus names them."""
    text = (GOLDEN / "b300-sn5600-400g-800g-up-4-nodes.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    down = [r for r in rows if r["link_class"] == "node-leaf" and r["network"] == "compute"]
    up = [r for r in rows if r["link_class"] == "leaf-spine" and r["network"] == "compute"]
    assert [r["z_port"] for r in down if r["z_device"] == "leaf001"] == ["swp1s0", "swp1s1", "swp2s0", "swp2s1"]
    assert {r["a_port"] for r in up} == {"swp33", "swp34"}
    assert {r["speed_gbps"] for r in up} == {"800"} and {r["speed_gbps"] for r in down} == {"400"}


# ----------------------------------------------------------------------------------------- units
def test_port_names():
    ib2 = PortLayout(model="QM9700", style="ib-cage", cages=32, per_cage=2, native=2)
    assert [ib2.name(u) for u in (0, 1, 2, 63)] == ["1/1/1", "1/1/2", "1/2/1", "1/32/2"]
    ndr200 = PortLayout(model="QM9700", style="ib-cage", cages=32, per_cage=4, native=2)
    assert [ndr200.name(u) for u in range(5)] == ["1/1/1/1", "1/1/1/2", "1/1/2/1", "1/1/2/2", "1/2/1/1"]
    assert ndr200.name(4, cost=2) == "1/2/1" and ndr200.name(6, cost=2) == "1/2/2"
    hdr100 = PortLayout(model="QM8700", style="ib", cages=40, per_cage=2, native=1)
    assert [hdr100.name(u) for u in (0, 1, 9)] == ["1/1/1", "1/1/2", "1/5/2"]
    sn = PortLayout(model="SN5600", style="cumulus", cages=64, per_cage=4, native=1)
    assert [sn.name(u) for u in (0, 3, 4)] == ["swp1s0", "swp1s3", "swp2s0"]
    assert sn.name(128, cost=4) == "swp33" and sn.name(2, cost=2) == "swp1s1"
    assert PortLayout(model="TH5", style="ethernet", cages=64, per_cage=2, native=1).name(3) == "Ethernet2/2"


def test_lengths_match_core_physical_lengths():
    """Each cable's length is ``core.physical.lengths.length_m`` of its two ends (rounded up to 0.1 m), and
    its media's reach covers it (``core.physical.media``)."""
    from core.catalog import load_catalog
    from core.physical.lengths import length_m

    p = plan(Design(gpu="H100", nodes=300, tiers=3))
    assert p.layout is not None
    catalog = load_catalog()
    reach = {**{c.id: c.reach_m for c in catalog.cables}, **{t.id: t.reach_m for t in catalog.transceivers}}
    links = list(compute_links(p))
    rows = list(cabling_rows(p))
    for (link_class, a, _ap, z, _zp, _s), row in list(zip(links, rows))[::97]:
        expected = length_m(p.layout, a, z)
        assert row.length_m == pytest.approx(expected, abs=0.1 + 1e-9) and row.length_m >= expected - 1e-9
        assert row.a_rack and row.z_rack and row.a_u >= 1 and row.z_u >= 1
        part = row.z_transceiver or row.cable_part
        assert reach[part] >= row.length_m, row


def test_length_bins():
    assert [length_bin(x) for x in (None, 1, 3, 5, 30, 99, 250)] == [
        "unknown", "<= 3 m", "<= 3 m", "3-10 m", "10-30 m", "50-100 m", "> 100 m"]


def test_rows_are_typed_and_named_by_the_scheme():
    p = plan(Design(gpu="B300", fabric="ethernet", switch="SN5600", port_speed_gbps=400, planes=2, nodes=4))
    rows = list(cabling_rows(p, NamingScheme(node_prefix="dgx", switch_prefix="sw-", min_digits=2)))
    compute = [r for r in rows if r.network == "compute"]
    assert len(rows) == cable_count(p) and len(compute) == 64  # 4 nodes x 8 NICs x 2 planes, a switch per plane
    assert rows[0]._fields == CABLE_COLUMNS
    assert rows[0].a_device == "dgx01" and rows[0].z_device == "sw-p1-leaf01"
    assert compute[-1].a_port == "nic8/port2" and compute[-1].cable_id == "C000064"
    assert compute[-1].z_device == "sw-p2-leaf01"
    assert {r.network for r in rows} == {"compute", "inband", "oob"} | ({"storage"} if p.networks.storage else set())
    oob = next(r for r in rows if r.link_class == "switch-mgmt")
    assert oob.a_device.startswith("sw-") and oob.z_device.startswith("sw-oob-switch")  # the switch prefix too


def test_streamed_not_listed():
    """The plan is a generator: the first rows of a 131,072-GPU design come without building the rest."""
    p = plan(Design(gpu="B300", gpus=131_072))
    rows = cabling_rows(p)
    first = [next(rows) for _ in range(3)]
    assert first[0].cable_id == "C000001" and cable_count(p) > 390_000


# ----------------------------------------------------------------------------------------- writers
def test_csv_header_and_rows():
    p = plan(Design(gpu="H100", nodes=16))
    data = list(csv.reader(io.StringIO(_golden_csv(p))))
    assert tuple(data[0]) == CABLE_COLUMNS
    assert len(data) == 1 + cable_count(p)
    assert data[1][CABLE_COLUMNS.index("a_u")] in ("", "1") or data[1][3] != ""


def test_xlsx_summary_and_split(tmp_path):
    from openpyxl import load_workbook

    p = plan(Design(gpu="H100", nodes=6, su_nodes=3, tiers=2))
    target = tmp_path / "plan.xlsx"
    write_xlsx(p, target, rows_per_sheet=40)
    book = load_workbook(target)
    sheets = [book[n] for n in book.sheetnames[1:]]
    assert book.sheetnames[:3] == ["Summary", "Cabling plan", "Cabling plan 2"]
    total = cable_count(p)
    full, rest = divmod(total, 40)
    assert [s.max_row for s in sheets] == [41] * full + ([rest + 1] if rest else [])  # sheets of 40 + header
    assert sheets[0].freeze_panes == "A2" and sheets[0].auto_filter.ref == "A1:Q41"
    assert [c.value for c in sheets[0][1]][:3] == ["Cable ID", "Network", "Link class"]
    ids = [row[0] for s in sheets for row in s.iter_rows(min_row=2, values_only=True)]
    assert ids == [f"C{n:06d}" for n in range(1, total + 1)]
    counts, counted = summarize(p)
    assert counted == total and sum(counts.values()) == total
    summary = [r for r in book["Summary"].iter_rows(values_only=True)]
    assert summary[0][0] == f"Cabling plan: {total:,} cables"
    assert sum(r[4] for r in summary[3:] if r and r[0] == "compute" and r[1] == "node-leaf") == 48


def test_xlsx_in_chinese(tmp_path):
    from openpyxl import load_workbook

    from core.i18n import language

    target = tmp_path / "plan.xlsx"
    with language("zh"):
        write_xlsx(plan(Design(gpu="H100", nodes=2)), target)
        names = [_("Summary"), _("Cabling plan")]
        title = _(COLUMN_TITLES["cable_id"])
    book = load_workbook(target)
    assert book.sheetnames == names and names[0] != "Summary"  # translated (messages.po)
    assert book[names[1]]["A1"].value == title
    assert book[book.sheetnames[1]]["A2"].value == "C000001"  # values stay English ids


# ----------------------------------------------------------------------------------------- CLI
def _cli(*args: str, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, timeout=120)


def test_cli_csv_stdout_and_file(tmp_path):
    done = _cli("cabling", "--gpu", "h100", "--nodes", "4", "--node-prefix", "dgx")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ",".join(CABLE_COLUMNS) and lines[1].startswith("C000001,compute,node-leaf,R") and ",dgx001,nic1/port1," in lines[1]
    out = tmp_path / "c.csv"
    done = _cli("cabling", "--gpu", "h100", "--nodes", "4", "--output", str(out), "--lang", "zh")
    assert done.returncode == 0 and done.stdout == ""
    assert out.read_text(encoding="utf-8").splitlines() == _cli("cabling", "--gpu", "h100", "--nodes", "4",
                                                               "--node-prefix", "gpu").stdout.splitlines()


def test_cli_xlsx(tmp_path):
    out = tmp_path / "c.xlsx"
    done = _cli("cabling", "--gpu", "h100", "--nodes", "4", "--format", "xlsx", "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:2] == b"PK"


@pytest.mark.parametrize("args,code,words", [
    (("--format", "xlsx"), 2, "--output"),
    (("--format", "pdf"), 2, "invalid choice"),
    (("--node-prefix", "9x"), 2, "--node-prefix"),
    (("--min-digits", "0"), 2, "min-digits"),
    (("--nodes", "-3"), 2, "nodes"),
    (("--output", "/no/such/folder/x.csv"), 2, "no such folder"),
    (("--nodes", "100", "--tiers", "1"), 3, "cannot build"),
])
def test_cli_bad_input(args, code, words):
    done = _cli("cabling", "--gpu", "h100", "--nodes", "4", *args)
    assert done.returncode == code, (done.returncode, done.stderr)
    assert words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


if __name__ == "__main__":  # regenerate the golden files
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for file_name, design in GOLDEN_DESIGNS.items():
        (GOLDEN / file_name).write_text(_golden_csv(plan(Design(**design))), encoding="utf-8")
        print("wrote", GOLDEN / file_name)
