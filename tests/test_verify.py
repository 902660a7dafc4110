"""The as-built check: readers (ibnetdiscover, lldpctl JSON, NetBox cables CSV) on real samples and hostile input,
the diff's fault kinds, the mapping file, the pricing and fix order, and the command line.

LLDP samples: lldpd/lldpd ``tests/integration/test_lldpcli.py`` (``test_json_output`` and ``test_json0_output``,
the neighbours of ``eth0`` as ``lldpcli -f json`` and ``-f json0`` print them), with the uname text shortened;
the several-interface form (``"interface"`` a list of one-key objects) is lldpctl's for more than one interface.
"""

from __future__ import annotations

import json
import re

import pytest

from core.analysis.verify import KINDS, verify
from core.design import Design
from core.errors import InputError
from core.fabric.wiring import Wiring
from core.formats import lldp
from core.formats.asbuilt import FoundEnd, FoundLink, read_mapping
from core.formats.exports import export_text
from core.formats.ibnetdiscover import read_ibnetdiscover, speed_of
from core.formats.ibsim import MAX_SWITCHES, check_size
from core.formats.netbox import read_cables
from core.physical.cabling import compute_links
from core.plan import plan
from tests.conftest import run_cli

SMALL = Design(gpu="H100", nodes=64)
LLDPD_JSON = {"lldp": {"interface": {"eth0": {
    "via": "LLDP", "rid": "1",
    "chassis": {"ns-2.example.com": {"id": {"type": "mac", "value": "00:00:00:00:00:02"},
                                     "descr": "Spectacular GNU/Linux 2016", "mgmt-ip": "fe80::200:ff:fe00:2",
                                     "mgmt-iface": "2", "capability": [{"type": "Bridge", "enabled": False},
                                                                       {"type": "Wlan", "enabled": False}]}},
    "port": {"id": {"type": "mac", "value": "00:00:00:00:00:02"}, "descr": "eth1", "ttl": "120"}}}}}
LLDPD_JSON0 = {"lldp": [{"interface": [{
    "name": "eth0", "via": "LLDP", "rid": "1",
    "chassis": [{"id": [{"type": "mac", "value": "00:00:00:00:00:02"}], "name": [{"value": "ns-2.example.com"}],
                 "descr": [{"value": "Spectacular GNU/Linux 2016"}], "mgmt-ip": [{"value": "fe80::200:ff:fe00:2"}],
                 "mgmt-iface": [{"value": "2"}], "capability": [{"type": "Bridge", "enabled": False}]}],
    "port": [{"id": [{"type": "mac", "value": "00:00:00:00:00:02"}], "descr": [{"value": "eth1"}],
              "ttl": [{"value": "120"}]}]}]}]}


@pytest.fixture(scope="module")
def small():
    return plan(SMALL)


def _kinds(out: dict) -> list[tuple]:
    return sorted((f["kind"], (f["planned"] or {}).get("a") or "", (f["planned"] or {}).get("a_port") or "")
                  for f in (*out["missing"], *out["extra"], *out["miswired"]))


# --- readers -------------------------------------------------------------------------------------------------
def test_ibnetdiscover_real_form_with_guids_managed_names_and_rates():
    text = """#
# Topology file: generated on Sat Dec  5 10:29:13 2026
vendid=0x2c9
devid=0xd2f0
sysimgguid=0xfc6a1c0300e23a40
switchguid=0xfc6a1c0300e23a40(fc6a1c0300e23a40)
Switch\t65 "S-fc6a1c0300e23a40"\t\t# "MF0;leaf001:MQM9700/U1" enhanced port 0 lid 5 lmc 0
[1]\t"H-946dae03006a3c5a"[1](946dae03006a3c5a) \t\t# "gpu001 mlx5_0" lid 12 4xNDR
[33]\t"S-fc6a1c0300e23b40"[1]\t\t# "MF0;spine001:MQM9700/U1" lid 3 2xNDR

vendid=0x2c9
devid=0x1021
caguid=0x946dae03006a3c5a
Ca\t1 "H-946dae03006a3c5a"\t\t# "gpu001 mlx5_0"
[1](946dae03006a3c5a) \t"S-fc6a1c0300e23a40"[1]\t\t# lid 12 lmc 0 "MF0;leaf001:MQM9700/U1" lid 5 4xNDR
"""
    links = read_ibnetdiscover(text.encode())
    assert len(links) == 2  # the CA's line is the switch's port 1 seen from the other end
    first = links[0]
    ends = {first.a.device: first.a, first.b.device: first.b}
    assert ends["leaf001"].port == "1" and ends["leaf001"].guid == "fc6a1c0300e23a40"
    assert ends["gpu001"].port == "nic1/port1" and ends["gpu001"].hca == "mlx5_0"
    assert first.speed_gbps == 400 and links[1].speed_gbps == 200 and links[1].width == "2x"
    assert {links[1].a.device, links[1].b.device} == {"leaf001", "spine001"}
    assert speed_of("4xHDR") == (200.0, "4x") and speed_of("4xXYZ") == (None, "")


def test_lldpctl_samples_from_lldpds_repository_both_forms():
    for sample in (LLDPD_JSON, LLDPD_JSON0):
        (link,) = lldp.read_lldp(json.dumps({"ns-1.example.com": sample}).encode())
        assert (link.a.device, link.a.port) == ("ns-1.example.com", "eth0")
        assert (link.b.device, link.b.port) == ("ns-2.example.com", "eth1")  # a MAC port id: its description
    several = {"lldp": {"interface": [
        {"swp1": {"chassis": {"gpu001": {"id": {"type": "mac", "value": "aa"}}},
                  "port": {"id": {"type": "ifname", "value": "nic1/port1"}}}},
        {"swp33": {"chassis": {"spine001": {"id": {"type": "mac", "value": "bb"}}},
                   "port": {"id": {"type": "ifname", "value": "swp1"}}}}]}}
    links = lldp.read_lldp(json.dumps({"leaf001": several, "spine001": {"lldp": {"interface": {"swp1": {
        "chassis": {"leaf001": {}}, "port": {"id": {"type": "ifname", "value": "swp33"}}}}}}}).encode())
    assert [(x.a.device, x.a.port, x.b.device, x.b.port) for x in links] == [
        ("leaf001", "swp1", "gpu001", "nic1/port1"), ("leaf001", "swp33", "spine001", "swp1")]  # seen twice, kept once


HOSTILE_NAME = "<script>alert(1)</script>"


@pytest.mark.parametrize("reader, data", [
    (read_ibnetdiscover, b""),
    (read_ibnetdiscover, b'Switch 64 "p0.leaf0\n[1] "node0'),  # truncated mid-record
    (read_ibnetdiscover, json.dumps(LLDPD_JSON).encode()),  # the wrong kind of file
    (read_ibnetdiscover, b"\xff\xfe binary"),
    (read_ibnetdiscover, b'Switch 64 "' + b"x" * 100_000 + b'"\n'),  # a 100 kB name
    (read_ibnetdiscover, b'Switch 64 "a\x1bb"\n[1] "x"[1]\n'),  # a control character
    (lldp.read_lldp, b"{}"),
    (lldp.read_lldp, b"[" * 100_000),
    (lldp.read_lldp, json.dumps(LLDPD_JSON).encode()),  # one output without its host's name
    (lldp.read_lldp, json.dumps({"leaf\n001": LLDPD_JSON}).encode()),  # a newline in a name
    (lldp.read_lldp, json.dumps({HOSTILE_NAME * 5000: LLDPD_JSON}).encode()),
    (lldp.read_lldp, b"side_a_device,side_a_name\n"),
    (read_cables, json.dumps(LLDPD_JSON).encode()),
    (read_cables, b"side_a_device,side_a_name,side_b_device,side_b_name\n" + b"a" * 300 + b",x,y,z\n"),
    (read_mapping, b"only-one-name\n"),
])
def test_bad_input_is_one_short_escaped_input_error(reader, data):
    with pytest.raises(InputError) as caught:
        reader(data)
    message = str(caught.value)
    assert len(message) < 400 and "\n" not in message and HOSTILE_NAME * 2 not in message


def test_each_reader_states_and_keeps_its_size_limit(monkeypatch):
    from core.formats import ibnetdiscover, netbox

    for module, name, reader in ((ibnetdiscover, "MAX_BYTES", read_ibnetdiscover), (lldp, "MAX_BYTES", lldp.read_lldp),
                                 (netbox, "MAX_CABLES_BYTES", read_cables)):
        assert getattr(module, name) >= 32 * 1024 * 1024
        monkeypatch.setattr(module, name, 100)
        with pytest.raises(InputError, match="larger than"):
            getattr(module, reader.__name__)(b" " * 101)


def test_markup_names_are_kept_as_data_and_unknown(small):
    """A name with markup is a device the plan does not have: an extra link, the name kept whole in the data."""
    found = read_ibnetdiscover(f'Switch 64 "p0.leaf0"\n[9]\t"{HOSTILE_NAME} mlx5_0"[1]\n'.encode())
    out = verify(small, found)
    assert out["coverage"]["unknown_device_names"] == [HOSTILE_NAME] and out["extra"][0]["kind"] == "extra"
    assert out["extra"][0]["unknown_device"] and not out["missing"][0]["unknown_device"]


# --- the diff ----------------------------------------------------------------------------------------------------
def test_exported_files_match_the_plan_exactly(small):
    for found in (read_ibnetdiscover(export_text(small, "ibsim").encode()),
                  read_cables(export_text(small, "netbox-cables").encode())):
        out = verify(small, found)
        assert out["matched"] == 1024 and not out["missing"] and not out["extra"] and not out["miswired"]
        assert out["impact"] == {"faults_priced": 0} and out["coverage"]["matched_share"] == 1.0 and not out["fixes"]


def test_netbox_edits_are_found_with_their_kinds(small):
    lines = export_text(small, "netbox-cables").splitlines()
    header, rows = lines[0], lines[1:]
    cols = header.split(",")
    b_dev = cols.index("side_b_device")
    edited = [row.split(",") for row in rows]
    edited[0][-1] = "compute node-leaf 200G"  # gpu001 nic1: a slow link
    del edited[1]  # gpu001 nic2: missing
    uplink = next(i for i, r in enumerate(edited) if r[-1].startswith("compute leaf-spine"))
    edited[uplink][b_dev] = "spine008"  # leaf001's first uplink on the last spine, same port: wrong spine
    out = verify(small, read_cables("\n".join([header, *(",".join(r) for r in edited)]).encode()))
    kinds = _kinds(out)
    assert ("wrong-speed", "node0", "nic1/port1") in kinds and ("missing", "node1", "nic1/port1") not in kinds
    assert ("missing", "node0", "nic2/port1") in kinds
    assert ("wrong-spine", "p0.leaf0", "1/17/1") in kinds
    slow = next(f for f in out["miswired"] if f["kind"] == "wrong-speed")
    healthy = out["impact"]["healthy"]["allreduce_busbw_gbytes"]
    lost = next(f for f in out["missing"])["impact"]["allreduce_busbw_gbytes"]
    assert lost < slow["impact"]["allreduce_busbw_gbytes"] < healthy  # half the speed: between lost and healthy
    assert slow["found"]["speed_gbps"] == 200 and out["impact"]["slow_links_counted_as_lost"] == 1
    spine = next(f for f in out["miswired"] if f["kind"] == "wrong-spine")["impact"]["busiest_link"]
    assert spine["tier"] == "leaf_spine" and spine["utilisation"] > spine["healthy_utilisation"]
    assert out["missing"][0]["impact"]["busiest_link"]["utilisation"] == 2 * out["missing"][0]["impact"][
        "busiest_link"]["healthy_utilisation"]  # PXN: another NIC carries the lost one's share too
    assert set(out["summary"]["per_rail"]) == {"nic1", "nic2"} and out["summary"]["by_kind"]["wrong-spine"] >= 1
    assert all(k in KINDS for k in out["summary"]["by_kind"])


def test_wrong_plane_and_mapping_file():
    two = plan(Design(gpu="B300", nodes=16, fabric="ethernet", switch="SN5600", port_speed_gbps=400, planes=2))
    links = list(compute_links(two))
    node_leaf = [link for link in links if link[0] == "node-leaf"]
    p1 = next(link for link in node_leaf if link[2] == "nic1/port2")  # NIC 1's plane-1 port
    p0 = next(link for link in node_leaf if link[2] == "nic1/port1" and link[1] == p1[1])
    found = [FoundLink(FoundEnd(f"host-{a}", port, "abc"), FoundEnd(z, z_port), None, "", 1)
             for _k, a, port, z, z_port, _s in links if (a, port) != (p1[1], p1[2])]
    found.append(FoundLink(FoundEnd(f"host-{p1[1]}", "nic1/port2"), FoundEnd(p0[3], "swp64"), None, "", 2))
    mapping = read_mapping(("found,planned\n" + "".join(f"host-node{n},gpu{n + 1:03d}\n" for n in range(16)))
                           .encode())
    out = verify(two, found, mapping)
    assert _kinds(out) == [("wrong-plane", p1[1], "nic1/port2")]
    unmapped = verify(two, found)
    assert unmapped["coverage"]["matched_share"] < 0.5 and unmapped["notes"]  # names differ: say so


def test_a_different_cluster_matches_little_and_says_so(small):
    other = plan(Design(gpu="H100", nodes=8))
    out = verify(other, read_ibnetdiscover(export_text(small, "ibsim").encode()))
    assert out["coverage"]["matched_share"] < 1 and out["extra"]


def test_ibsim_export_refuses_more_than_256_switches():
    big = plan(Design(gpu="H100", gpus=16_384))
    switches = sum(1 for _s in Wiring.of(big).all_switch_ids())
    assert switches > MAX_SWITCHES
    with pytest.raises(InputError, match="at most 256 switches"):
        check_size(big)


# --- the command line --------------------------------------------------------------------------------------------
def test_cli_json_csv_table_and_errors(capsys, tmp_path, small):
    net = tmp_path / "net"
    text = export_text(small, "ibsim").replace('[1]\t"gpu001 mlx5_0"[1]\n', "").replace(
        'Hca\t1 "gpu001 mlx5_0"\n[1]\t"leaf001"[1]\n', "")
    net.write_text(text)
    base = ["--lang", "en", "verify", "--gpu", "H100", "--nodes", "64", "--ibnetdiscover", str(net)]
    code, out, err = run_cli(capsys, *base, "--format", "json")
    data = json.loads(out)
    assert code == 0 and [f["kind"] for f in data["missing"]] == ["missing"] and data["fixes"][0]["action"] == "connect"
    where = data["missing"][0]["where"]
    assert where["slurm_switches"] == ["su001"] and where["slurm_blocks"] == ["block001"] and where["nic"] == 1
    code, out, _err = run_cli(capsys, *base, "--format", "csv")
    rows = out.splitlines()
    assert code == 0 and rows[0].startswith("id,kind,planned_a") and len(rows) == 2 and ",missing," in rows[1]
    code, out, _err = run_cli(capsys, *base)
    assert code == 0 and "1,023 of 1,024 planned links" in out and "gpu001 nic1/port1" in out
    assert "busiest link left: node-leaf at 200% of its capacity (healthy 100%)" in out
    code, out, _err = run_cli(capsys, "--lang", "zh", *base[2:])
    assert code == 0 and "1,023" in out
    bad = tmp_path / "bad"
    bad.write_bytes(b"<html>" + b"x" * 100_000)
    code, out, err = run_cli(capsys, *base[:-1], str(bad))
    assert code == 2 and len(err.strip().splitlines()) == 1 and len(err) < 400
    code, out, err = run_cli(capsys, *base[:-1], str(tmp_path / "none"))
    assert code == 2 and "cannot read" in err


def test_golden_ibsim_file_is_the_export_and_matches():
    """``tests/golden/asbuilt/h100-64gpus.net`` (the CLI tests' as-built file) is today's export of 64 H100 GPUs."""
    from pathlib import Path

    golden = (Path(__file__).parent / "golden" / "asbuilt" / "h100-64gpus.net").read_text()
    result = plan(Design(gpu="H100", gpus=64))
    assert export_text(result, "ibsim") == golden
    assert verify(result, read_ibnetdiscover(golden.encode()))["matched"] == 64


def _lldp_outputs(result, faults=()) -> dict:
    """Each switch's ``lldpctl -f json`` output of ``result``'s compute fabric (the several-interface form: a list
    of one-key objects), with ``faults`` (``{(switch name, port): (neighbour, neighbour port) or None}``)."""
    from core.fabric.naming import Namer

    namer = Namer.of(result)
    seen: dict[str, dict] = {}
    for _kind, a, a_port, z, z_port, _speed in compute_links(result):
        for local, port, remote, remote_port in ((z, z_port, a, a_port), (a, a_port, z, z_port)):
            if Wiring.parse(local):
                seen.setdefault(namer.vertex(local), {})[port] = (namer.vertex(remote), remote_port)
    for (switch, port), neighbour in dict(faults).items():
        if neighbour is None:
            seen[switch].pop(port)
        else:
            seen[switch][port] = neighbour
    return {switch: {"lldp": {"interface": [
        {port: {"via": "LLDP", "chassis": {name: {"id": {"type": "mac", "value": "00:00:00:00:00:01"}}},
                "port": {"id": {"type": "ifname", "value": remote_port}, "descr": remote_port, "ttl": "120"}}}
        for port, (name, remote_port) in ports.items()]}} for switch, ports in seen.items()}


def test_lldp_from_an_ethernet_plan_with_injected_faults():
    eth = plan(Design(gpu="H100", nodes=64, fabric="ethernet", switch="SN5600", port_speed_gbps=400))
    clean = _lldp_outputs(eth)
    assert verify(eth, lldp.read_lldp(json.dumps(clean).encode()))["coverage"]["matched_share"] == 1.0
    leaf = clean["leaf001"]["lldp"]["interface"]
    first, second = (next(iter(x.items())) for x in leaf[:2])
    uplink = next(port for x in leaf for port, entry in x.items()
                  if next(iter(entry["chassis"])).startswith("spine"))
    def neighbour(entry):
        return next(iter(entry["chassis"])), entry["port"]["id"]["value"]

    faults = {("leaf001", first[0]): neighbour(second[1]), ("leaf001", second[0]): neighbour(first[1]),
              ("leaf001", uplink): None}  # two NIC cables swapped on their leaf; an uplink pulled at both ends
    spine_side = next((s, p) for s, out in clean.items() if s.startswith("spine") for x in out["lldp"]["interface"]
                      for p, e in x.items() if next(iter(e["chassis"])) == "leaf001" and
                      e["port"]["id"]["value"] == uplink)
    faults[spine_side] = None
    out = verify(eth, lldp.read_lldp(json.dumps(_lldp_outputs(eth, faults)).encode()))
    kinds = _kinds(out)
    assert [k for k, *_rest in kinds] == ["missing", "wrong-port", "wrong-port"], kinds
    assert out["missing"][0]["planned"]["a_name"] == "leaf001" and "-spine" in out["missing"][0]["failure_spec"]
    assert {f["planned"]["a_name"] for f in out["miswired"]} == {neighbour(first[1])[0], neighbour(second[1])[0]}


def test_random_damage_to_an_ibsim_file_never_breaks_the_check():
    """Seeded mutations (a line's remote device or port changed, a line dropped or doubled, junk added; a port line
    after a blank line has no record and is refused): each file is either refused with an InputError or checked,
    every planned link accounted for once."""
    import random

    result = plan(Design(gpu="H100", nodes=16))
    lines = export_text(result, "ibsim").splitlines()
    rng = random.Random(7)
    names = ["p0.leaf0", "p0.leaf1", "p0.spine0", "node3 mlx5_1", "nobody", "<b>x</b>", "p9.leaf0", "node99 mlx5_0"]
    checked = 0
    for _trial in range(40):
        damaged = list(lines)
        for _edit in range(rng.randint(1, 6)):
            i = rng.randrange(len(damaged))
            what = rng.randrange(5)
            if what == 0 and damaged[i].startswith("["):
                damaged[i] = re.sub(r'"[^"]*"', f'"{rng.choice(names)}"', damaged[i], count=1)
            elif what == 1 and damaged[i].startswith("["):
                damaged[i] = re.sub(r"\[(\d+)\]$", f"[{rng.randint(0, 300)}]", damaged[i])
            elif what == 2:
                del damaged[i]
            elif what == 3:
                damaged.insert(i, damaged[i])
            else:
                damaged.insert(i, rng.choice(["junk", 'Switch 2 "', "", "", "[1]\t\"p0.leaf0\"[1]", "# note"]))
        try:
            found = read_ibnetdiscover("\n".join(damaged).encode())
        except InputError:
            continue
        out = verify(result, found)
        checked += 1
        planned = [f["planned"] for f in (*out["missing"], *out["miswired"]) if f["planned"]]
        keys = [(p["a"], p["a_port"]) for p in planned]
        assert len(keys) == len(set(keys)) and out["matched"] + len(set(keys)) <= out["coverage"]["planned_links"]
    assert checked >= 10, checked


def test_a_host_interface_the_plan_does_not_name_takes_the_nic_the_switch_port_is_planned_for():
    """LLDP from a leaf sees a host's own interface name (``enp12s0``): the NIC is the one the plan cables to that
    leaf port, so the link matches; on a port planned for another host it is a wrong port of the host (one leaf
    takes all its NICs here) and the other host's link is missing."""
    eth = plan(Design(gpu="H100", nodes=16, fabric="ethernet", switch="SN5600", port_speed_gbps=400))
    links = [link for link in compute_links(eth) if link[0] == "node-leaf"]
    _kind, node, _port, leaf, leaf_port, _speed = links[0]
    other = next(link for link in links if link[1] != node and link[3] == leaf)  # another host's port on that leaf
    found = [FoundLink(FoundEnd(leaf, leaf_port), FoundEnd(node, "enp12s0"), None, "", 1),
             FoundLink(FoundEnd(other[3], other[4]), FoundEnd(node, "enp13s0"), None, "", 2)]
    out = verify(eth, found)
    assert out["matched"] == 1
    (fault,) = out["miswired"]  # one leaf takes all 8 NICs: the unnamed NIC is one of node's own, on a wrong port
    assert fault["kind"] == "wrong-port" and fault["planned"]["a"] == node
    assert (other[1], other[2]) in {(f["planned"]["a"], f["planned"]["a_port"]) for f in out["missing"]}
