"""The as-built check against the real tools: a plan exported as an ibsim fabric file, faults injected into the
file, Debian's ``ibsim`` simulating it and the real ``ibnetdiscover`` (under ``ibsim-run``) discovering it; the
check must find exactly the injected faults. ``make ibsim`` installs ``ibsim-utils`` and ``infiniband-diags``
(``make test`` depends on it); without them the test is skipped outside CI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from core.analysis.verify import verify
from core.design import Design
from core.fabric.wiring import Wiring
from core.formats.exports import export_text
from core.formats.ibnetdiscover import read_ibnetdiscover
from core.formats.ibsim import ibsim_command
from core.plan import plan
from tests.ibsimtools import needed_tools, tools as _tools

DESIGN = Design(gpu="H100", nodes=64)
"""Two scalable units of 32 DGX H100: 16 rail leaves and 8 spines of QM9700, 1,024 links."""


def _records(text: str) -> dict[str, list[str]]:
    """The net file's records: header line -> its port lines."""
    out, header = {}, None
    for line in text.splitlines():
        if line.startswith(("Switch", "Hca")):
            header = line
            out[header] = []
        elif line.startswith("[") and header:
            out[header].append(line)
    return out


def _write(records: dict[str, list[str]], path: Path) -> None:
    path.write_text("".join(h + "\n" + "\n".join(lines) + "\n\n" for h, lines in records.items() if lines))


def _set(records, device: str, port: int, remote: str | None, remote_port: int | None = None) -> None:
    """Set (or with ``remote`` None remove) port ``port`` of ``device`` in the records."""
    header = next(h for h in records if h.endswith(f'"{device}"'))
    lines = [line for line in records[header] if not line.startswith(f"[{port}]")]
    if remote is not None:
        lines.append(f'[{port}]\t"{remote}"[{remote_port}]')
    records[header] = sorted(lines, key=lambda line: int(line[1:line.index("]")]))


def _found(out: dict) -> list[tuple]:
    """Each fault as ``(kind, planned A device, planned A port)`` (``None`` without a planned link), sorted."""
    return sorted(((f["kind"], *((f["planned"]["a"], f["planned"]["a_port"]) if f["planned"] else ("", "")))
                   for f in (*out["missing"], *out["extra"], *out["miswired"])))


def _own_socket() -> dict:
    """``IBSIM_SOCKNAME`` of a simulator of this test's own: ibsim and its clients (umad2sim) meet on an abstract
    socket named ``sim`` by default, so two tests simulating at once (``pytest -n 2``) talked to each other's
    fabric; the name is per process and per call."""
    _own_socket.calls = getattr(_own_socket, "calls", 0) + 1
    return {"IBSIM_SOCKNAME": f"fp{os.getpid()}n{_own_socket.calls}"}


def _discover(net: Path, command: str, tools, tmp_path: Path, hosts: tuple[str, ...] = ("",)) -> str:
    """The real ibnetdiscover's output of the simulated ``net``, attached at each of ``hosts`` in turn (``SIM_HOST``:
    one discovery per plane, as on a cluster with several; ``""`` the file's first device), concatenated."""
    ibsim, run, ibnetdiscover = tools
    limits = re.findall(r"-([NSP]) (\d+)", command)
    args = [ibsim, "-s", "-n", *[x for flag, value in limits for x in (f"-{flag}", value)], str(net)]
    log = open(tmp_path / "ibsim.log", "wb")
    sock = _own_socket()
    sim = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp_path,
                           env={**os.environ, **sock})
    try:
        time.sleep(1.5)
        assert sim.poll() is None, (tmp_path / "ibsim.log").read_text(errors="replace")[-2000:]
        outputs = []
        for host in hosts:
            env = {**os.environ, **sock, **({"SIM_HOST": host} if host else {})}
            done = subprocess.run([run, ibnetdiscover], capture_output=True, timeout=120, cwd=tmp_path, env=env)
            assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
            outputs.append(done.stdout.decode())
        return "\n".join(outputs)
    finally:
        sim.terminate()
        sim.wait(timeout=10)
        log.close()


@pytest.mark.slow
def test_ibsim_round_trip_finds_exactly_the_injected_faults(tmp_path: Path):
    tools = needed_tools()
    result = plan(DESIGN)
    text = export_text(result, "ibsim")
    records = _records(text)
    # faults: node3's NIC 0 and node4's NIC 0 swapped on leaf 0 (ports 4 and 5); node7's NIC 2 removed; node12's
    # NICs 0 and 1
    # swapped (a rail swap)
    _set(records, "leaf001", 4, "gpu005 mlx5_0", 1)
    _set(records, "leaf001", 5, "gpu004 mlx5_0", 1)
    _set(records, "gpu004 mlx5_0", 1, "leaf001", 5)
    _set(records, "gpu005 mlx5_0", 1, "leaf001", 4)
    _set(records, "leaf003", 8, None)
    _set(records, "gpu008 mlx5_2", 1, None)
    _set(records, "leaf001", 13, "gpu013 mlx5_1", 1)
    _set(records, "leaf002", 13, "gpu013 mlx5_0", 1)
    _set(records, "gpu013 mlx5_0", 1, "leaf002", 13)
    _set(records, "gpu013 mlx5_1", 1, "leaf001", 13)
    # leaf 2's first uplink (port 33, to spine 0's port 9) and leaf 3's fifth (port 37, to spine 1's port 13) swap
    # their spine ends (each leaf on the wrong spine); a host the plan does not have on node7's freed leaf port
    _set(records, "leaf003", 33, "spine002", 13)
    _set(records, "spine002", 13, "leaf003", 33)
    _set(records, "leaf004", 37, "spine001", 9)
    _set(records, "spine001", 9, "leaf004", 37)
    _set(records, "leaf003", 8, "stray mlx5_0", 1)
    records['Hca\t1 "stray mlx5_0"'] = ['[1]\t"leaf003"[8]']
    net = tmp_path / "net"
    _write(records, net)
    discovered = _discover(net, ibsim_command(result, Wiring.of(result)), tools, tmp_path)
    assert '"leaf001"' in discovered and "gpu013 mlx5_1" in discovered
    out = verify(result, read_ibnetdiscover(discovered.encode()), skip_speed=True)
    found = _found(out)
    assert found == sorted([
        ("wrong-port", "node3", "nic1/port1"), ("wrong-port", "node4", "nic1/port1"),
        ("missing", "node7", "nic3/port1"),
        ("rail-swap", "node12", "nic1/port1"), ("rail-swap", "node12", "nic2/port1"),
        ("wrong-spine", "p0.leaf2", "1/17/1"), ("wrong-spine", "p0.leaf3", "1/19/1"), ("extra", "", ""),
    ]), found
    assert out["coverage"]["matched_links"] == 1024 - 7 and out["coverage"]["unknown_device_names"] == ["stray"]
    extra = out["extra"][0]["found"]
    assert {(extra["a"], extra["a_port"]), (extra["b"], extra["b_port"])} == {("leaf003", "8"), ("stray", "nic1/port1")}
    specs = sorted(f["failure_spec"] for f in out["miswired"] if f["kind"] == "wrong-spine")
    assert specs == ["p0.leaf2-spine0#0", "p0.leaf3-spine1#0"]
    missing = out["missing"][0]
    assert missing["impact"]["gpus_degraded"] == 1 and missing["failure_spec"] == "node7.nic2"
    assert missing["impact"]["allreduce_busbw_gbytes"] < out["impact"]["healthy"]["allreduce_busbw_gbytes"]
    # node12 lost two NICs to the swap: the slowest rank, so moving one of its cables back gives the most
    # all-reduce busbw back; node7's missing cable then only gives bisection back; the wrong ports cost nothing
    by_id = {f["id"]: f for f in (*out["missing"], *out["miswired"], *out["extra"])}
    first, second = (by_id[fix["fault"]] for fix in out["fixes"][:2])
    assert {first["kind"], second["kind"]} == {"rail-swap"}
    assert out["fixes"][0]["allreduce_busbw_back_gbytes"] > 0 and out["fixes"][2]["bisection_back_tbits"] > 0
    kinds = [by_id[fix["fault"]]["kind"] for fix in out["fixes"]]
    assert sorted(kinds[2:5]) == ["missing", "wrong-spine", "wrong-spine"]
    assert sorted(kinds[5:]) == ["extra", "wrong-port", "wrong-port"]


@pytest.mark.slow
def test_opensm_routes_the_exported_plan_as_a_fat_tree(tmp_path: Path):
    """OpenSM's fat-tree routing engine (``-R ftree``) on the simulated fabric of the plan: it configures its
    tables on every switch (it falls back to min-hop on a fabric it cannot read as a fat tree)."""
    tools, opensm = _tools(), shutil.which("opensm") or ("/usr/sbin/opensm" if os.path.exists("/usr/sbin/opensm")
                                                         else None)
    if tools is None or opensm is None:
        if os.environ.get("CI"):
            pytest.fail("ibsim/opensm missing: `make ibsim` installs ibsim-utils, infiniband-diags and opensm")
        pytest.skip("ibsim-utils / opensm not installed (make ibsim)")
    result = plan(DESIGN)
    net = tmp_path / "net"
    net.write_text(export_text(result, "ibsim"))
    limits = re.findall(r"-([NSP]) (\d+)", ibsim_command(result, Wiring.of(result)))
    sock = _own_socket()
    with open(tmp_path / "ibsim.log", "wb") as log:
        sim = subprocess.Popen([tools[0], "-s", "-n", *[x for f, v in limits for x in (f"-{f}", v)], str(net)],
                               stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=tmp_path,
                               env={**os.environ, **sock})
        try:
            time.sleep(1.5)
            env = {**os.environ, **sock, "OSM_CACHE_DIR": str(tmp_path)}
            done = subprocess.run([tools[1], opensm, "-f", str(tmp_path / "opensm.log"), "-R", "ftree", "-o"],
                                  capture_output=True, timeout=120, cwd=tmp_path, env=env)
        finally:
            sim.terminate()
            sim.wait(timeout=10)
    text = (tmp_path / "opensm.log").read_text(errors="replace")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    assert "ftree tables configured on all switches" in text, text[-3000:]
    assert "FatTree rank (roots to leaf switches): 2" in text


@pytest.mark.slow
def test_ibsim_round_trip_of_two_planes_finds_a_nic_with_its_planes_crossed(tmp_path: Path):
    """Two InfiniBand planes (dual-port NICs at NDR200): node0's first NIC has its two ports' cables crossed, port 1
    on plane 1's leaf and port 2 on plane 0's; the real ibnetdiscover, run once in each plane (two subnets), shows
    exactly two links in the wrong plane."""
    tools = needed_tools()
    result = plan(Design(gpu="H100", nodes=32, switch="QM9700", nic="CX7-2P", port_speed_gbps=200, planes=2))
    records = _records(export_text(result, "ibsim"))
    _set(records, "gpu001 mlx5_0", 1, "p2-leaf001", 1)
    _set(records, "gpu001 mlx5_0", 2, "p1-leaf001", 1)
    _set(records, "p1-leaf001", 1, "gpu001 mlx5_0", 2)
    _set(records, "p2-leaf001", 1, "gpu001 mlx5_0", 1)
    net = tmp_path / "net"
    _write(records, net)
    discovered = _discover(net, ibsim_command(result, Wiring.of(result)), tools, tmp_path, ("p1-leaf002", "p2-leaf002"))
    out = verify(result, read_ibnetdiscover(discovered.encode()), skip_speed=True)
    assert _found(out) == [("wrong-plane", "node0", "nic1/port1"), ("wrong-plane", "node0", "nic1/port2")]
    assert out["coverage"]["matched_links"] == out["coverage"]["planned_links"] - 2
    assert any("upper bound" in note for note in out["notes"])  # a NIC port priced as its NIC in every plane


@pytest.mark.slow
def test_ibsim_round_trip_at_hdr_finds_a_narrow_and_a_slow_link(tmp_path: Path):
    """At HDR (200 Gb/s, a rate Debian's ibsim knows) the export enables each port's rate, the simulated links come
    up at it, and the check compares speeds: node5's NIC 2 enabled at 1x (it trains down to 1xHDR, 50 Gb/s) and
    leaf 1's first uplink enabled at EDR on both ends (100 Gb/s) are exactly the two wrong-speed faults."""
    tools = needed_tools()
    result = plan(Design(gpu="H100", nodes=32, switch="QM8700", port_speed_gbps=200))
    text = export_text(result, "ibsim")
    narrow = 'Hca\t1 "gpu006 mlx5_2"\n[1]\t"leaf003"[6]\t\t# lid 0 lmc 0 "leaf003" lid 0 4xHDR'
    assert narrow in text
    text = text.replace(narrow, narrow.replace("4xHDR", "1xHDR"))
    uplink = re.search(r'Switch\t40 "leaf002"\n(?:.*\n)*?(\[(\d+)\]\t"(spine\d+)"\[(\d+)\]\t\t# "spine\d+" lid 0 '
                       r'4xHDR)', text)
    line, port, spine, spine_port = uplink.groups()
    text = text.replace(line, line.replace("4xHDR", "4xEDR"))
    back = f'[{spine_port}]\t"leaf002"[{port}]\t\t# "leaf002" lid 0 4xHDR'
    assert back in text
    text = text.replace(back, back.replace("4xHDR", "4xEDR"))
    net = tmp_path / "net"
    net.write_text(text)
    discovered = _discover(net, ibsim_command(result, Wiring.of(result)), tools, tmp_path)
    assert "1xHDR" in discovered and "4xEDR" in discovered
    out = verify(result, read_ibnetdiscover(discovered.encode()))
    assert _found(out) == [("wrong-speed", "node5", "nic3/port1"), ("wrong-speed", "p0.leaf1", out["miswired"][
        [f["planned"]["a"] for f in out["miswired"]].index("p0.leaf1")]["planned"]["a_port"])]
    speeds = sorted((f["found"]["speed_gbps"], f["found"]["width"]) for f in out["miswired"])
    assert speeds == [(50.0, "1x"), (100.0, "4x")]
    assert out["coverage"]["matched_links"] == out["coverage"]["planned_links"] - 2
    assert all(f["impact"]["allreduce_busbw_gbytes"] < out["impact"]["healthy"]["allreduce_busbw_gbytes"]
               for f in out["miswired"] if f["planned"]["class"] == "node-leaf")
