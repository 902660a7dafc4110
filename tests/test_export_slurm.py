"""Slurm exports: host lists, the tree and block forms, topology.yaml, and a real slurmctld reading the tree.

Grammar sources: topology.conf(5) and topology.yaml(5) (SchedMD, https://slurm.schedmd.com/topology.conf.html
and https://slurm.schedmd.com/topology.yaml.html): "SwitchName=s0 Nodes=dev[0-5]" / "Switches=s[0-2,4-8,12]",
hostlist expressions such as "tux[0-3,12,18-20]"; "BlockName=block1 Nodes=node[1-32]", "BlockSizes=30,120",
"Successive BlockSizes must be a power of two larger than the prior values", "Each block must have at least
the planning base block size count of nodes"; topology.yaml: a list of topologies, "topology" the first
attribute, ``tree.switches[].switch/children/nodes``, ``block.block_sizes`` and ``block.blocks[].block/nodes``.

Golden cases from published designs:
* NVIDIA DGX SuperPOD with DGX H100, RA-11333-001, Table 4 "Compute fabric component count" (4 SUs, 127
  nodes, 32 leaf and 16 spine QM9700; an SU is 32 DGX on 8 rail leaves):
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/
  -> the tree has 4 SU switches of 32, 32, 32 and 31 nodes, each standing for 8 rail leaves, under one
  switch standing for the 16 spines.
* NVIDIA DGX SuperPOD GB200 RA (an SU is 8 DGX GB200 racks; a rack is one NVLink domain of 72 GPUs in 18
  compute trays): 144 trays -> 8 blocks of 18 nodes, BlockSizes=18,36,72,144.

The real-client test (``slow``) runs Debian's slurmctld 22.05 (``make slurm`` installs it) with
``TopologyPlugin=topology/tree`` on the generated topology.conf and checks ``scontrol show topology``. Slurm
22.05 has no block plugin and no topology.yaml (both arrived in 23.x / 25.05), so those are checked against
their documented grammar here.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.design import Design
from core.errors import InputError
from core.fabric.naming import Namer, NamingScheme
from core.fabric.topology import fabric_graph
from core.formats.exports import export_text
from core.formats.slurm import (
    compress_hostlist,
    expand_hostlist,
    slurm_blocks,
    slurm_tree,
    tree_lines,
)
from core.plan import plan

DESIGNS = {
    "1tier-4": Design(gpu="H100", nodes=4),
    "2su-64": Design(gpu="H100", nodes=64),
    "superpod-127": Design(gpu="H100", nodes=127, switch="QM9700"),
    "3tier-96": Design(gpu="H100", nodes=96, tiers="3"),
    "3tier-1000": Design(gpu="H100", nodes=1000),
    "tor-48": Design(gpu="H100", nodes=48, topology="top-of-rack"),
    "rail-only-32": Design(gpu="H100", nodes=32, topology="rail-only"),
    "2plane-eth-64": Design(gpu="B300", nodes=64, fabric="ethernet", switch="SN5600", port_speed_gbps=400, planes=2),
    "nvl72-144": Design(gpu="GB200-NVL72", nodes=144),
    "dragonfly-256": Design(gpu="H100", nodes=256, topology="dragonfly", switch="QM9700", group_leaves=16),
}


# --- host lists ----------------------------------------------------------------------------------
def test_hostlist_documented_examples():
    assert expand_hostlist("tux[0-3,12,18-20]") == ["tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19", "tux20"]
    assert compress_hostlist(f"dev{i}" for i in range(6)) == "dev[0-5]"
    assert compress_hostlist(["s0", "s1", "s2", "s4", "s5", "s6", "s7", "s8", "s12"]) == "s[0-2,4-8,12]"
    assert compress_hostlist(f"gpu{i:03d}" for i in range(1, 33)) == "gpu[001-032]"
    assert compress_hostlist(["gpu007"]) == "gpu007"
    assert compress_hostlist(["spines"]) == "spines"
    assert expand_hostlist("gpu[098-101]") == ["gpu098", "gpu099", "gpu100", "gpu101"]


@pytest.mark.parametrize("bad", ["gpu[1-", "gpu[a-b]", "gpu[3-1]", "gpu]1[", "", "a[1][2]"])
def test_hostlist_malformed_is_an_input_error(bad):
    with pytest.raises(InputError):
        expand_hostlist(bad)


_NAMES = st.lists(
    st.tuples(st.sampled_from(["gpu", "leaf", "p1-leaf", "su", "n-", "x_"]), st.integers(0, 2500),
              st.integers(0, 5)).map(lambda t: f"{t[0]}{t[1]:0{t[2]}d}" if t[2] else f"{t[0]}{t[1]}"),
    max_size=60)


@settings(max_examples=300, deadline=None)
@given(_NAMES)
def test_hostlist_round_trip(names):
    expression = compress_hostlist(names)
    expanded = expand_hostlist(expression) if names else []
    assert sorted(expanded) == sorted(set(names))
    assert len(expanded) == len(set(names))  # nothing twice


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 9999), st.integers(1, 400), st.integers(1, 6))
def test_consecutive_names_are_one_range(first, count, digits):
    names = [f"gpu{n:0{digits}d}" for n in range(first, first + count)]
    if len({len(n) for n in names}) > 1:  # crossing a power of ten without padding: two groups
        return
    expression = compress_hostlist(names)
    assert expression.count("-") <= 1 and "," not in expression
    assert expand_hostlist(expression) == names


# --- the tree ------------------------------------------------------------------------------------
def _parse_tree(text):
    switches = {}
    for name, kind, children in tree_lines(text):
        assert name not in switches, f"{name} defined twice"
        switches[name] = (kind, children)
    return switches


@pytest.mark.parametrize("key", list(DESIGNS))
def test_tree_is_a_tree_of_every_node(key):
    p = plan(DESIGNS[key])
    switches = _parse_tree(export_text(p, "slurm"))
    namer = Namer.of(p)
    leaf_of = {}
    parents = {}
    for name, (kind, children) in switches.items():
        assert len(name) <= 64
        for child in children:
            if kind == "Nodes":
                assert child not in leaf_of, f"{child} under two switches"
                leaf_of[child] = name
            else:
                assert child in switches, f"{child} is not defined"
                assert child not in parents, f"{child} has two parents"
                parents[child] = name
    assert set(leaf_of) == {namer.node(n) for n in range(p.resolved.nodes)}
    roots = [s for s in switches if s not in parents]
    assert len(roots) == 1


@pytest.mark.parametrize("key", list(DESIGNS))
def test_tree_groups_nodes_by_their_leaves(key):
    """Two nodes share a Slurm leaf switch exactly when they sit on the same leaves of the fabric graph
    (plane 1, island 1); two leaf switches share a pod switch exactly when their leaves share spines."""
    p = plan(DESIGNS[key])
    tree = slurm_tree(p)
    namer = Namer.of(p)
    graph = fabric_graph(p, servers="each", planes=1)
    island0 = {v for v, d in graph.nodes(data=True) if d["role"] == "server" or d["island"] == 0}
    graph = graph.subgraph(island0)
    leaves_of = {namer.node(n): frozenset(graph.neighbors(f"node{n}")) for n in range(p.resolved.nodes)}
    slurm_leaf = {node: s.name for s in tree.switches for node in s.nodes}
    for a in leaves_of:
        for b in list(leaves_of)[:40]:
            assert (leaves_of[a] == leaves_of[b]) == (slurm_leaf[a] == slurm_leaf[b])
    if p.fabric.tiers == 3:
        parent = {child: s.name for s in tree.switches for child in s.switches}
        spines = {}
        for s in tree.switches:
            if s.nodes:
                node = next(n for n in range(p.resolved.nodes) if namer.node(n) == s.nodes[0])
                spines[s.name] = frozenset(u for leaf in graph.neighbors(f"node{node}") for u in graph.neighbors(leaf)
                                           if graph.nodes[u]["role"] == "spine")
        for a in spines:
            for b in spines:
                assert (spines[a] == spines[b]) == (parent[a] == parent[b])


def test_tree_golden_superpod_h100_4su():
    """DGX SuperPOD H100 RA Table 4, 4 SUs: 127 nodes on 32 leaf and 16 spine switches (see module docstring)."""
    p = plan(DESIGNS["superpod-127"])
    switches = _parse_tree(export_text(p, "slurm"))
    leaves = {name: children for name, (kind, children) in switches.items() if kind == "Nodes"}
    assert sorted(len(c) for c in leaves.values()) == [31, 32, 32, 32]
    tree = slurm_tree(p)
    stands = {s.name: s.stands_for for s in tree.switches}
    for name in leaves:
        assert len(expand_hostlist(stands[name].split(" ")[0])) == 8  # one SU = 8 rail leaves
    assert switches["spines"] == ("Switches", ["su001", "su002", "su003", "su004"])
    assert len(expand_hostlist(stands["spines"].split(" ")[0])) == 16


def test_tree_leading_comment_states_the_mapping():
    text = export_text(plan(DESIGNS["2plane-eth-64"]), "slurm")
    head = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    assert "scalable unit (SU) are one Slurm switch" in head
    assert "2 identical planes; this is plane 1" in head
    assert "#   su001 = p1-leaf[001-008] (8 rails of SU 1)" in head


def test_dragonfly_groups_are_switches_under_the_global_links():
    """Dragonfly+: each group's spines are one Slurm switch over its SUs, the global links the top switch."""
    p = plan(DESIGNS["dragonfly-256"])
    switches = _parse_tree(export_text(p, "slurm"))
    groups = [name for name in switches if name.startswith("group")]
    assert len(groups) == p.fabric.pod_count == 4
    assert switches["global"] == ("Switches", groups)
    assert all(len(switches[g][1]) == p.fabric.groups_per_pod for g in groups)


def test_naming_scheme_applies():
    p = plan(DESIGNS["2su-64"])
    text = export_text(p, "slurm", NamingScheme(node_prefix="dgx", switch_prefix="ib-", min_digits=2))
    assert "SwitchName=ib-su01 Nodes=dgx[01-32]" in text
    assert "SwitchName=ib-spines Switches=ib-su[01-02]" in text


# --- blocks --------------------------------------------------------------------------------------
_BLOCK = re.compile(r"BlockName=(\S+) Nodes=(\S+)")
_SIZES = re.compile(r"BlockSizes=(\d+(?:,\d+)*)")


def _check_block_grammar(text, nodes):
    blocks, sizes = {}, None
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if match := _BLOCK.fullmatch(line):
            assert match.group(1) not in blocks
            blocks[match.group(1)] = expand_hostlist(match.group(2))
        else:
            match = _SIZES.fullmatch(line)
            assert match is not None, f"not a topology/block line: {line}"
            assert sizes is None, "BlockSizes twice"
            sizes = [int(s) for s in match.group(1).split(",")]
    assert blocks and sizes
    for smaller, larger in zip(sizes, sizes[1:]):
        ratio = larger // smaller
        assert larger % smaller == 0 and ratio > 1 and ratio & (ratio - 1) == 0  # a power of two larger
    assert all(len(members) >= sizes[0] for members in blocks.values())
    listed = [n for members in blocks.values() for n in members]
    assert sorted(listed) == sorted(set(listed)) == sorted(nodes)
    return blocks, sizes


@pytest.mark.parametrize("key", list(DESIGNS))
def test_block_form_follows_the_documented_grammar(key):
    p = plan(DESIGNS[key])
    namer = Namer.of(p)
    _check_block_grammar(export_text(p, "slurm-block"), [namer.node(n) for n in range(p.resolved.nodes)])


def test_pods_every_pod_in_the_tree_and_the_blocks():
    """A design with pods: every pod's nodes (named ``pod<n>-``) in the tree under one top switch for the shared
    spines, and every pod's blocks (SUs of the HGX pods, NVL72 racks of the GB200 pod) in the block form."""
    p = plan(PODS["pods-96"])
    every = [f"pod{pod}-gpu{n:03d}" for pod, count in ((1, 64), (2, 32), (3, 36)) for n in range(1, count + 1)]
    switches = _parse_tree(export_text(p, "slurm"))
    under = sorted(n for kind, children in switches.values() if kind == "Nodes" for n in children)
    assert under == sorted(every)
    assert switches["spines"] == ("Switches", ["pod1-su001", "pod1-su002", "pod2-su001", "pod3-su001"])
    blocks, sizes = _check_block_grammar(export_text(p, "slurm-block"), every)
    assert sizes[0] == 18 and blocks["pod3-nvl002"] == [f"pod3-gpu{n:03d}" for n in range(19, 37)]
    assert "3 pods under one spine layer" in export_text(p, "slurm-yaml")


def test_block_golden_gb200_nvl72_su():
    """DGX SuperPOD GB200 RA: an SU of 8 racks; one NVL72 rack = one NVLink domain of 18 compute trays."""
    p = plan(DESIGNS["nvl72-144"])
    blocks, sizes = _check_block_grammar(export_text(p, "slurm-block"),
                                         [Namer.of(p).node(n) for n in range(144)])
    assert len(blocks) == 8 and all(len(m) == 18 for m in blocks.values())
    assert sizes == [18, 36, 72, 144]
    assert blocks["nvl001"] == [f"gpu{n:03d}" for n in range(1, 19)]


def test_single_node_nvlink_domains_use_the_scalable_units():
    p = plan(DESIGNS["2su-64"])
    result = slurm_blocks(p)
    assert [len(m) for _n, m in result.blocks] == [32, 32] and result.sizes == [32, 64]
    assert "scalable unit" in result.basis
    partial = slurm_blocks(plan(DESIGNS["superpod-127"]))
    assert partial.sizes[0] == 31  # the smallest block: every block holds at least the base size


# --- topology.yaml -------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["1tier-4", "2su-64", "3tier-96", "nvl72-144"])
def test_yaml_has_both_topologies(key):
    yaml = pytest.importorskip("yaml")
    p = plan(DESIGNS[key])
    text = export_text(p, "slurm-yaml")
    data = yaml.safe_load(text)
    assert [t["topology"] for t in data] == ["tree", "block"]
    for item in text.split("\n- ")[1:]:
        assert item.startswith("topology:")  # "Must be the first attribute"
    tree, block = data
    assert tree["cluster_default"] is True and block["cluster_default"] is False
    conf = _parse_tree(export_text(p, "slurm"))
    from_yaml = {}
    for switch in tree["tree"]["switches"]:
        assert set(switch) in ({"switch", "nodes"}, {"switch", "children"})
        kind = "Nodes" if "nodes" in switch else "Switches"
        from_yaml[switch["switch"]] = (kind, expand_hostlist(switch.get("nodes") or switch["children"]))
    assert from_yaml == conf
    conf_blocks = slurm_blocks(p)
    assert block["block"]["block_sizes"] == conf_blocks.sizes
    assert [(b["block"], expand_hostlist(b["nodes"])) for b in block["block"]["blocks"]] == conf_blocks.blocks


# --- a real slurmctld ----------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _slurmctld() -> str | None:
    return shutil.which("slurmctld") or ("/usr/sbin/slurmctld" if os.path.exists("/usr/sbin/slurmctld") else None)


def _parse_scontrol(text):
    """``scontrol show topology`` lines: name -> (level, nodes, switches)."""
    found = {}
    for line in text.splitlines():
        fields = dict(item.split("=", 1) for item in line.split() if "=" in item)
        if "SwitchName" in fields:
            found[fields["SwitchName"]] = (int(fields["Level"]), expand_hostlist(fields.get("Nodes", "")) if
                                           fields.get("Nodes") else [],
                                           expand_hostlist(fields["Switches"]) if fields.get("Switches") else [])
    return found


PODS = {"pods-96": Design(gpu="H100", nodes=64, pods="B200:32:800,GB200-NVL72:36:800")}
"""A design with pods: each pod's switches and nodes (names ``pod<n>-``) under the shared spines."""


@pytest.mark.slow
@pytest.mark.parametrize("key", ["2su-64", "3tier-96", "tor-48", "dragonfly-256", "pods-96"])
def test_slurmctld_loads_the_tree(key, tmp_path: Path):
    ctld, scontrol = _slurmctld(), shutil.which("scontrol")
    if not ctld or not scontrol:
        if os.environ.get("CI"):
            pytest.fail("slurmctld/scontrol missing: `make slurm` installs Debian's slurmctld and slurm-client")
        pytest.skip("slurmctld not installed (make slurm)")
    p = plan(DESIGNS.get(key) or PODS[key])
    conf_text = export_text(p, "slurm")
    every_node = sorted({n for _switch, kind, names in tree_lines(conf_text) if kind == "Nodes" for n in names})
    (tmp_path / "topology.conf").write_text(conf_text)
    (tmp_path / "state").mkdir()
    (tmp_path / "spool").mkdir()
    nodes = compress_hostlist(every_node)
    # auth/none: no munge daemon needed for a controller that only reads its configuration (Slurm 22.05 has it)
    (tmp_path / "slurm.conf").write_text("\n".join([
        "ClusterName=fabricplanner", "SlurmctldHost=localhost", f"SlurmctldPort={_free_port()}",
        f"SlurmdPort={_free_port()}", f"SlurmUser={getpass.getuser()}", "AuthType=auth/none", "CredType=cred/none",
        f"StateSaveLocation={tmp_path / 'state'}", f"SlurmdSpoolDir={tmp_path / 'spool'}",
        f"SlurmctldPidFile={tmp_path / 'slurmctld.pid'}", f"SlurmctldLogFile={tmp_path / 'slurmctld.log'}",
        "SelectType=select/cons_tres", "TopologyPlugin=topology/tree", "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none", "JobCompType=jobcomp/none", "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none", "ReturnToService=2",
        f"NodeName={nodes} NodeAddr=127.0.0.1 CPUs=1 State=CLOUD",  # CLOUD: no slurmd needs to answer
        "PartitionName=all Nodes=ALL Default=YES State=UP", ""]))
    env = {**os.environ, "SLURM_CONF": str(tmp_path / "slurm.conf")}
    process = subprocess.Popen([ctld, "-D", "-f", str(tmp_path / "slurm.conf")], env=env, cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        shown = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                log = (tmp_path / "slurmctld.log").read_text() if (tmp_path / "slurmctld.log").exists() else ""
                pytest.fail(f"slurmctld exited {process.returncode}: {process.stdout.read().decode()[-2000:]} {log[-2000:]}")
            result = subprocess.run([scontrol, "show", "topology"], env=env, capture_output=True, text=True,
                                    timeout=10)
            if result.returncode == 0 and "SwitchName=" in result.stdout:
                shown = result.stdout
                break
            time.sleep(0.3)
        assert shown, "scontrol show topology never answered"
        seen = _parse_scontrol(shown)
        expected = _parse_tree(conf_text)
        assert set(seen) == set(expected)
        levels = {}
        for name, (kind, children) in expected.items():
            level, nodes_seen, switches_seen = seen[name]
            if kind == "Nodes":
                assert level == 0 and nodes_seen == children and switches_seen == []
                levels[name] = 0
        for name, (kind, children) in expected.items():  # upper switches: children and every node below
            if kind == "Switches":
                level, nodes_seen, switches_seen = seen[name]
                assert switches_seen == children
                below = sorted(n for child in children for n in seen[child][1])
                assert sorted(nodes_seen) == below
                assert level == 1 + max(seen[child][0] for child in children)
        top = max(seen.values(), key=lambda v: v[0])
        assert sorted(top[1]) == every_node
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


# --- any design that plans -----------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(gpu=st.sampled_from(["H100", "B200", "GB200-NVL72"]), nodes=st.integers(1, 700),
       topology=st.sampled_from(["rail-optimized", "top-of-rack", "rail-only"]))
def test_any_design_gives_a_valid_tree_and_blocks(gpu, nodes, topology):
    from hypothesis import assume

    from core.errors import DesignError

    try:
        p = plan(Design(gpu=gpu, nodes=nodes, topology=topology))
    except (DesignError, InputError):
        assume(False)
        return
    namer = Namer.of(p)
    every = [namer.node(n) for n in range(p.resolved.nodes)]
    switches = _parse_tree(export_text(p, "slurm"))
    under = sorted(n for kind, children in switches.values() if kind == "Nodes" for n in children)
    assert under == sorted(every)
    children = [c for kind, cs in switches.values() if kind == "Switches" for c in cs]
    assert len(children) == len(set(children)) == len(switches) - 1  # a tree: one root, one parent each
    _check_block_grammar(export_text(p, "slurm-block"), every)
