"""The as-built check of a design with pods on the command line: ``python -m core verify --pods`` reads the whole
fabric's ibsim net file (``core.formats.podibsim``, which the reader takes as ibnetdiscover output) and checks it
against every pod and the shared spines (``core.formats.podverify``)."""

from __future__ import annotations

import io
import json

import pytest

from core.formats.podverify import verify_pods
from core.analysis.whole import design_mixed
from core.design import Design
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.formats.podibsim import write_mixed_ibsim
from tests.conftest import run_cli

DESIGN = Design(gpu="H100", nodes=64, pods="B200:32:800")


@pytest.fixture(scope="module")
def net_text() -> str:
    buffer = io.StringIO()
    write_mixed_ibsim(design_mixed(DESIGN), buffer)
    return buffer.getvalue()


def _without(text: str, device: str, remote: str) -> str:
    """``text`` without the first port line of ``device``'s record to ``remote`` and its other end."""
    lines = text.splitlines(keepends=True)
    header = lines.index(next(x for x in lines if x.rstrip().endswith(f'"{device}"')))
    at = next(i for i in range(header + 1, len(lines)) if f'"{remote}"' in lines[i])
    port, far = lines[at].split("]")[0][1:], lines[at].split('"[')[1].split("]")[0]
    del lines[at]
    header = lines.index(next(x for x in lines if x.rstrip().endswith(f'"{remote}"')))
    back = next(i for i in range(header + 1, len(lines)) if lines[i].startswith(f"[{far}]")
                and f'"{device}"[{port}]' in lines[i])
    del lines[back]
    return "".join(lines)


def test_the_net_file_itself_verifies_clean_with_its_speeds(net_text):
    """The file's own port rates are each pod's (a pod at NDR beside one at XDR): no wrong speed."""
    mixed = design_mixed(DESIGN)
    out = verify_pods(mixed, read_ibnetdiscover(net_text.encode()))
    assert out["coverage"]["matched_links"] == out["coverage"]["planned_links"] == 1536, out["summary"]
    assert not out["missing"] and not out["miswired"] and not out["extra"]


def test_cli_checks_the_whole_fabric(capsys, tmp_path, net_text):
    net = tmp_path / "net"
    net.write_text(_without(net_text, "pod2-gpu003 mlx5_4", "pod2-leaf005"))
    base = ["--lang", "en", "verify", "--gpu", "H100", "--nodes", "64", "--pods", "B200:32:800",
            "--ibnetdiscover", str(net)]
    code, out, _err = run_cli(capsys, *base, "--format", "json")
    data = json.loads(out)
    assert code == 0 and len(data["missing"]) == 1 and not data["miswired"], data["summary"]
    planned = data["missing"][0]["planned"]
    assert (planned["a"], planned["a_name"], planned["a_port"], planned["b_name"], planned["pod"]) == (
        "pod2.node2", "pod2-gpu003", "nic5/port1", "pod2-leaf005", 2)
    assert data["missing"][0]["impact"]["gpus_degraded"] == 8 and data["fixes"][0]["action"] == "connect"
    code, out, _err = run_cli(capsys, *base)
    assert code == 0 and "1,535 of 1,536 planned links" in out and "pod2-gpu003 nic5/port1" in out
    assert "checked against the whole fabric" in out and "pod 2: node-leaf" in out
    code, out, _err = run_cli(capsys, "--lang", "zh", *base[2:])
    assert code == 0 and "1,535" in out


def _swapped(text: str, node: str, leaves: tuple[str, str], hcas: tuple[str, str]) -> str:
    """``text`` with the cables of ``node``'s two NICs ``hcas`` swapped between ``leaves`` (each leaf keeps its port;
    both ends edited)."""
    lines = text.splitlines(keepends=True)

    def record(name: str) -> int:
        return lines.index(next(x for x in lines if x.rstrip().endswith(f'"{name}"')))

    for leaf, mine, other in ((leaves[0], hcas[0], hcas[1]), (leaves[1], hcas[1], hcas[0])):
        at = next(i for i in range(record(leaf) + 1, len(lines)) if f'"{node} {mine}"' in lines[i])
        lines[at] = lines[at].replace(f'"{node} {mine}"', f'"{node} {other}"')
    first, second = record(f"{node} {hcas[0]}") + 1, record(f"{node} {hcas[1]}") + 1
    lines[first], lines[second] = lines[second], lines[first]
    return "".join(lines)


def test_a_rail_swap_is_a_fabrics_rail_swap_with_its_slurm_switch_and_block(net_text):
    """Two cables of one pod-2 server swapped between its rails' leaves: the single fabric's rule (a NIC on another
    rail's leaf of its leaf group: ``rail-swap``), each fault naming the server's Slurm tree switch and block as the
    pods' Slurm export names them."""
    from core.analysis.verify import faults_csv
    from core.formats.podslurm import mixed_blocks, mixed_tree

    mixed = design_mixed(DESIGN)
    text = _swapped(net_text, "pod2-gpu003", ("pod2-leaf001", "pod2-leaf002"), ("mlx5_0", "mlx5_1"))
    out = verify_pods(mixed, read_ibnetdiscover(text.encode()))
    assert not out["missing"] and not out["extra"] and len(out["miswired"]) == 2
    assert {f["kind"] for f in out["miswired"]} == {"rail-swap"}, out["summary"]
    switch = next(s.name for s in mixed_tree(mixed, None).switches if "pod2-gpu003" in s.nodes)
    block = next(name for name, nodes in mixed_blocks(mixed, None, 8).blocks if "pod2-gpu003" in nodes)
    for fault in out["miswired"]:
        assert fault["where"]["nodes"] == 1
        assert fault["where"]["slurm_switches"] == [switch] and fault["where"]["slurm_blocks"] == [block]
    assert f",{switch},{block}\n" in faults_csv(out)


def test_a_lost_leaf_spine_cable_is_priced_as_one_cable(net_text):
    """A pod-2 leaf's cable to spine001 lost: one cable of its 4 to that spine (800 Gb/s into the spines), not its
    whole bundle; the fault touches the leaf's leaf group (its servers' Slurm switch and block)."""
    mixed = design_mixed(DESIGN)
    assert mixed.fabric.pods[1].links_per_leaf_spine_pair == 4
    out = verify_pods(mixed, read_ibnetdiscover(_without(net_text, "pod2-leaf002", "spine001").encode()))
    fault = out["missing"][0]
    assert len(out["missing"]) == 1 and fault["failure_spec"].startswith("pod2.p0.leaf1-spine0#")
    assert fault["impact"]["spine_gbps_lost"] == out["impact"]["spine_gbps_lost"] == 800
    assert fault["impact"]["gpus_cut_off"] == 0 and out["fixes"][0]["spine_gbps_back"] == 800
    assert fault["where"]["nodes"] == 32 and fault["where"]["slurm_switches"] and fault["where"]["slurm_blocks"]
