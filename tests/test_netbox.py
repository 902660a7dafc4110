"""NetBox bulk-import CSVs (core/formats/netbox.py).

Headers are checked against NetBox's own import forms: ``netbox/dcim/forms/bulk_import.py`` of
netbox-community/netbox v4.6.8 (commit 43fe81f9e833228c9869f7ddadb67e6c5f145060), the ``Meta.fields`` of
``DeviceImportForm``, ``InterfaceImportForm`` and ``CableImportForm`` (copied below from that file), and the
choice values from ``netbox/dcim/choices.py`` of the same commit.
"""

from __future__ import annotations

import csv
import io

import pytest

from core.design import Design
from core.fabric.naming import NamingScheme
from core.formats.exports import export_text, exports
from core.formats.netbox import (
    CABLE_FIELDS,
    CABLE_TYPES,
    DEVICE_FIELDS,
    ETHERNET_TYPES,
    IB_TYPES,
    INTERFACE_FIELDS,
    device_type,
    manufacturer,
    write_devices,
)
from core.physical.cabling import cable_count, cabling_rows
from core.plan import plan

# netbox/dcim/forms/bulk_import.py @ 43fe81f9 (v4.6.8): DeviceImportForm.Meta.fields
NETBOX_DEVICE_IMPORT_FIELDS = (
    'name', 'role', 'tenant', 'manufacturer', 'device_type', 'platform', 'serial', 'asset_tag', 'status',
    'site', 'location', 'rack', 'position', 'face', 'latitude', 'longitude', 'parent', 'device_bay', 'airflow',
    'virtual_chassis', 'vc_position', 'vc_priority', 'cluster', 'description', 'config_template', 'owner',
    'comments', 'tags',
)
# InterfaceImportForm.Meta.fields
NETBOX_INTERFACE_IMPORT_FIELDS = (
    'device', 'name', 'label', 'parent', 'bridge', 'lag', 'type', 'speed', 'duplex', 'enabled',
    'mark_connected', 'wwn', 'vdcs', 'mtu', 'mgmt_only', 'description', 'poe_mode', 'poe_type', 'mode',
    'vlan_group', 'untagged_vlan', 'tagged_vlans', 'qinq_svlan', 'vrf', 'rf_role', 'rf_channel',
    'rf_channel_frequency', 'rf_channel_width', 'tx_power', 'owner', 'tags',
)
# CableImportForm.Meta.fields
NETBOX_CABLE_IMPORT_FIELDS = (
    'side_a_site', 'side_a_device', 'side_a_power_panel', 'side_a_type', 'side_a_name',
    'side_b_site', 'side_b_device', 'side_b_power_panel', 'side_b_type', 'side_b_name',
    'type', 'status', 'profile', 'tenant', 'bundle', 'label', 'color', 'length', 'length_unit',
    'description', 'owner', 'comments', 'tags',
)
# Required fields (no required=False in the form): DeviceImportForm role, manufacturer, device_type, status,
# site (and name, the model's); CableImportForm side_a_type, side_a_name, side_b_type, side_b_name.
NETBOX_DEVICE_REQUIRED = ("name", "role", "manufacturer", "device_type", "status", "site")
NETBOX_CABLE_REQUIRED = ("side_a_type", "side_a_name", "side_b_type", "side_b_name")
# netbox/dcim/choices.py @ 43fe81f9
NETBOX_CABLE_TYPES = {"dac-active", "dac-passive", "aoc", "mmf", "smf", "mmf-om4", "smf-os2", "cat5e", "cat6"}
NETBOX_INTERFACE_TYPES = {"infiniband-edr", "infiniband-hdr", "infiniband-ndr", "infiniband-xdr", "1000base-t",
                          "100gbase-x-qsfp28", "200gbase-x-qsfp56", "400gbase-x-osfp", "800gbase-x-osfp",
                          "1.6tbase-x-osfp1600", "other"}
NETBOX_DEVICE_STATUS = {"offline", "active", "planned", "staged", "failed", "inventory", "decommissioning"}
NETBOX_FACES = {"front", "rear"}
NETBOX_LINK_STATUS = {"connected", "planned", "decommissioning"}


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture(scope="module")
def small():
    return plan(Design(gpu="H100", nodes=40))


def test_headers_are_netbox_import_fields():
    assert set(DEVICE_FIELDS) <= set(NETBOX_DEVICE_IMPORT_FIELDS)
    assert set(INTERFACE_FIELDS) <= set(NETBOX_INTERFACE_IMPORT_FIELDS)
    assert set(CABLE_FIELDS) <= set(NETBOX_CABLE_IMPORT_FIELDS)
    assert set(NETBOX_DEVICE_REQUIRED) <= set(DEVICE_FIELDS)
    assert set(NETBOX_CABLE_REQUIRED) <= set(CABLE_FIELDS)
    assert set(CABLE_TYPES.values()) <= NETBOX_CABLE_TYPES
    assert set(IB_TYPES.values()) | set(ETHERNET_TYPES.values()) <= NETBOX_INTERFACE_TYPES


def test_registered_exports():
    names = list(exports())
    assert {"netbox-devices", "netbox-interfaces", "netbox-cables"} <= set(names)
    assert exports()["netbox-cables"].suffix == ".csv"


def test_devices_csv(small):
    rows = _rows(export_text(small, "netbox-devices"))
    assert tuple(rows[0]) == DEVICE_FIELDS
    s = small.summary()
    others = sum(1 for _ in small.networks.device_ids()) if small.networks is not None else 0
    assert len(rows) == s["nodes"] + s["switches"]["total"] + others
    names = [r["name"] for r in rows]
    assert len(set(names)) == len(names)
    assert {r["status"] for r in rows} <= NETBOX_DEVICE_STATUS and {r["face"] for r in rows} <= NETBOX_FACES | {""}
    first = rows[0]
    assert (first["name"], first["role"], first["manufacturer"], first["device_type"]) == (
        "gpu001", "GPU server", "NVIDIA", "DGX H100")
    leaf = next(r for r in rows if r["name"] == "leaf001")
    assert (leaf["role"], leaf["manufacturer"], leaf["device_type"]) == ("Leaf switch", "NVIDIA", "QM9700")
    if small.layout is not None:  # rack and position from the layout (rack PDUs are not placed)
        assert all(r["rack"] and int(r["position"]) >= 1 and r["face"] == "front" for r in rows
                   if r["role"] != "PDU")
        position = small.layout.position("node0")
        assert (first["rack"], int(first["position"])) == (position.rack, position.u)


def test_devices_site_parameter(small):
    out = io.StringIO()
    write_devices(small, out, NamingScheme(node_prefix="dgx"), site="hall-b")
    rows = _rows(out.getvalue())
    assert {r["site"] for r in rows} == {"hall-b"} and rows[0]["name"] == "dgx001"


def test_cables_and_interfaces_match_the_cabling_plan(small):
    cables = _rows(export_text(small, "netbox-cables"))
    every = list(cabling_rows(small))
    plan_rows = [r for r in every if r.z_port]  # site uplinks end at the site network, not a design device
    assert len(every) == cable_count(small) and {r.link_class for r in every if not r.z_port} <= {"site-uplink"}
    assert tuple(cables[0]) == CABLE_FIELDS and len(cables) == len(plan_rows)
    for row, cable in zip(plan_rows, cables):
        assert (cable["side_a_device"], cable["side_a_name"], cable["side_b_device"], cable["side_b_name"]) == (
            row.a_device, row.a_port, row.z_device, row.z_port)
        assert cable["label"] == row.cable_id and cable["status"] in NETBOX_LINK_STATUS
        assert cable["side_a_type"] == cable["side_b_type"] == "dcim.interface"
        assert cable["type"] == CABLE_TYPES[row.media]
        if row.length_m is not None:
            assert float(cable["length"]) == row.length_m and cable["length_unit"] == "m"
    interfaces = _rows(export_text(small, "netbox-interfaces"))
    assert tuple(interfaces[0]) == INTERFACE_FIELDS
    keys = [(i["device"], i["name"]) for i in interfaces]
    assert len(keys) == 2 * len(cables) + len(every) - len(plan_rows)  # site uplinks: their switch end only
    assert len(set(keys)) == len(keys)  # every port once
    by_port = {(i["device"], i["name"]): i for i in interfaces}
    compute = [by_port[(r.z_device, r.z_port)] for r in plan_rows if r.network == "compute"
               and r.link_class != "ufm-leaf"]
    assert {i["type"] for i in compute} == {"infiniband-ndr"} and {i["speed"] for i in compute} == {"400000000"}
    assert {i["type"] for i in interfaces} <= NETBOX_INTERFACE_TYPES
    devices = {r["name"] for r in _rows(export_text(small, "netbox-devices"))}
    assert {d for d, _n in keys} <= devices  # every cable end is an exported device


def test_ethernet_types_and_manufacturers():
    from core.catalog import load_catalog

    catalog = load_catalog()
    assert manufacturer(catalog.switch("TH5")) == "Generic"
    assert manufacturer(catalog.switch("ARISTA-7800R4-576")) == "Arista"
    assert device_type(catalog.system("GB200-NVL72")) == "GB200 NVL72 rack compute tray"
    p = plan(Design(gpu="B300", fabric="ethernet", switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800,
                    nodes=4, tiers=2))
    by_port = {(i["device"], i["name"]): i for i in _rows(export_text(p, "netbox-interfaces"))}
    kinds = {(by_port[(r.z_device, r.z_port)]["speed"], by_port[(r.z_device, r.z_port)]["type"])
             for r in cabling_rows(p) if r.network == "compute"}
    assert kinds == {("400000000", "400gbase-x-osfp"), ("800000000", "800gbase-x-osfp")}


def test_cli_export_netbox(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "cables.csv"
    done = subprocess.run([sys.executable, "-m", "core", "export", "--format", "netbox-cables", "--gpu", "h100",
                           "--nodes", "4", "--output", str(out)], capture_output=True, text=True, cwd=root,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").splitlines()[0] == ",".join(CABLE_FIELDS)


def test_pods_every_pod_and_the_shared_spines():
    """A design with pods: every pod's devices under names of its own and the shared spines once; every cable end
    an exported device and port; each pod leaf's uplinks all reach the shared spines; no rack position twice."""
    from core.analysis.pods import mixed_plan
    from core.plan import plan

    design = Design(gpu="H100", nodes=64, pods="B200:32:800")
    p, mixed = plan(design), mixed_plan(design)
    devices = _rows(export_text(p, "netbox-devices"))
    names = [r["name"] for r in devices]
    assert len(set(names)) == len(names)
    roles = {}
    for r in devices:
        roles.setdefault(r["role"], []).append(r["name"])
    assert sorted(roles["Spine switch"]) == [f"spine{j:03d}" for j in range(1, mixed.fabric.spines + 1)]
    assert len(roles["Leaf switch"]) == mixed.fabric.leaves and len(roles["GPU server"]) == 96
    assert {n[:5] for n in roles["GPU server"]} == {"pod1-", "pod2-"}
    placed = [(r["rack"], r["position"]) for r in devices if r["rack"] and r["position"]]
    assert len(placed) == len(set(placed))
    compute = [r for r in devices if r["role"] in ("GPU server", "Leaf switch", "Spine switch")]
    assert all(r["rack"] and r["position"] and r["face"] == "front" for r in compute)  # the shared spines too
    hall = {rack.name: rack for rack in mixed.hall.layout.racks}
    for r in devices:  # every rack is the hall's, every position within it
        if r["rack"]:
            assert r["rack"] in hall and 1 <= int(r["position"]) <= hall[r["rack"]].u_total
    spine_racks = {r["rack"] for r in devices if r["role"] == "Spine switch"}
    assert {hall[name].kind for name in spine_racks} == {"network"}
    assert not spine_racks & {r["rack"] for r in devices if r["role"] != "Spine switch"}
    cables = _rows(export_text(p, "netbox-cables"))
    interfaces = {(i["device"], i["name"]) for i in _rows(export_text(p, "netbox-interfaces"))}
    ends = [(c["side_a_device"], c["side_a_name"]) for c in cables] + [(c["side_b_device"], c["side_b_name"])
                                                                        for c in cables]
    assert len(ends) == len(set(ends)) and set(ends) <= interfaces and {d for d, _n in ends} <= set(names)
    uplinks = [c for c in cables if c["description"].startswith("compute leaf-spine")]
    assert len(uplinks) == sum(pod.uplinks for pod in mixed.fabric.pods)
    assert {c["side_b_device"] for c in uplinks} == set(roles["Spine switch"])
    assert {c["type"] for c in uplinks} <= set(CABLE_TYPES.values())
    assert len({c["label"] for c in cables}) == len(cables)


def test_network_switch_roles_say_each_word_once():
    """The other networks' switch roles read as NetBox role names: no word twice ('OOB switch switch', 'Storage
    storage leaf switch' were the old names), the storage systems' leaves apart from the nodes' leaves."""
    design = Design(topology="dragonfly", gpus=4096)
    buf = io.StringIO()
    write_devices(plan(design), buf, NamingScheme())
    roles = {r["role"] for r in _rows(buf.getvalue())}
    assert {"OOB switch", "Storage leaf switch", "Storage target leaf switch", "Storage spine switch"} <= roles
    for role in roles:
        words = role.lower().split()
        assert len(words) == len(set(words)), role
