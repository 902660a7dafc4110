"""Non-NVIDIA hardware in the exports: NetBox device types of the new switches and NICs (manufacturer from
the catalog's vendor), Slurm blocks of a scale-up domain that is not NVLink, and the sidebar's vendor grouping."""

from __future__ import annotations

import io

import pytest
import yaml

from core.catalog import VENDOR_LABELS, grouped_by_vendor, load_catalog, vendor_label
from core.design import Design
from core.formats.exports import exports
from core.formats.netbox import device_type_documents, devices, manufacturer
from core.formats.slurm import slurm_blocks, write_block_conf
from core.i18n import language
from core.plan import plan

NEW_SWITCHES = ("ARISTA-7060X6-64PE", "H3C-S9827-64EP", "H3C-S9825-64D", "HUAWEI-CE-XH9330", "RUIJIE-RG-S6980-64QC")


@pytest.mark.parametrize("switch", NEW_SWITCHES)
def test_netbox_device_type_of_each_new_switch(switch):
    entry = load_catalog().switch(switch)
    speed = 200 if entry.ports_at(200) else 400
    p = plan(Design(gpu="H100", gpus=256, fabric="ethernet", switch=switch, nic="THOR2", port_speed_gbps=speed))
    docs = [yaml.safe_load(d) for d in device_type_documents(p)]
    switch_doc = next(d for d in docs if d["model"] == entry.id)
    assert switch_doc["manufacturer"] == entry.vendor and switch_doc["u_height"] == entry.rack_units
    assert len(switch_doc["interfaces"]) == entry.ports_at(max(entry.speeds_gbps))
    assert len({i["name"] for i in switch_doc["interfaces"]}) == len(switch_doc["interfaces"])
    nic_doc = docs[-1]
    assert nic_doc["manufacturer"] == "Broadcom" and nic_doc["model"] == "THOR2"
    assert nic_doc["interfaces"] == [{"name": "port1", "type": "400gbase-x-osfp"}]
    rows = [r for r in devices(p) if r[1] == "Leaf switch"]
    assert rows and all(r[2] == entry.vendor and r[3] == entry.id for r in rows)


def test_device_types_export_is_registered_and_parses():
    export = exports()["netbox-device-types"]
    out = io.StringIO()
    export.write(plan(Design(gpu="H100", nodes=8)), out)
    docs = list(yaml.safe_load_all(out.getvalue()))
    assert {d["model"] for d in docs} >= {"QM9700", "CX7"}
    assert all(d["manufacturer"] == "NVIDIA" for d in docs)


def test_manufacturer_keeps_generic_white_boxes_and_nvidia():
    catalog = load_catalog()
    assert manufacturer(catalog.switch("TH5")) == "Generic"
    assert manufacturer(catalog.switch("SN5600")) == "NVIDIA"
    assert manufacturer(catalog.nic("POLLARA-400")) == "AMD"


def test_every_nic_switch_and_appliance_declares_its_maker():
    """The NetBox manufacturer is the declared vendor, for every entry, never a rule on the name."""
    catalog = load_catalog()
    entries = (*catalog.systems, *catalog.nics, *catalog.switches, *catalog.appliances)
    assert all(e.vendor in VENDOR_LABELS and manufacturer(e) == e.vendor for e in entries)
    makers = {e.id: e.vendor for e in entries}
    assert (makers["Gaudi3-RoCE"], makers["Ascend910C-RoCE"], makers["EFA-P6"], makers["GVNIC-TCPXO"]) == (
        "Intel", "Huawei", "AWS", "Google")
    assert (makers["UFM-APPLIANCE"], makers["HEAD-NODE"], makers["TH4"]) == ("NVIDIA", "Generic", "Generic")
    renamed = catalog.nic("CX7").model_copy(update={"name": "Generic NIC", "vendor": "Acme"})
    assert manufacturer(renamed) == "Acme"  # the name says nothing


def test_a_catalog_entry_without_a_maker_is_refused(tmp_path):
    import shutil

    from core.catalog import CATALOG_DIR, load_catalog_from
    from core.errors import InputError

    for path in CATALOG_DIR.glob("*.toml"):
        shutil.copy(path, tmp_path / path.name)
    networks = tmp_path / "networks.toml"
    networks.write_text(networks.read_text(encoding="utf-8").replace('vendor = "NVIDIA"\n', "", 1), encoding="utf-8")
    with pytest.raises(InputError, match="vendor"):
        load_catalog_from(tmp_path)


def test_device_types_of_an_ascend_cluster_name_huawei():
    p = plan(Design(gpu="Atlas-800T-A2", nodes=8))
    docs = [yaml.safe_load(d) for d in device_type_documents(p)]
    assert docs[-1]["model"] == "Ascend910B-RoCE" and docs[-1]["manufacturer"] == "Huawei"
    assert next(r for r in devices(p) if r[1] == "GPU server")[2] == "Huawei"


def test_slurm_blocks_name_a_non_nvlink_scaleup_domain():
    catalog = load_catalog()
    rack = catalog.system("GB200-NVL72").model_copy(update=dict(
        id="TEST-UB-RACK", aliases=(), vendor="Huawei", collective_library="hccl", scaleup_name="UB"))
    p = plan(Design(gpu="TEST-UB-RACK", gpus=144), catalog.model_copy(update={"systems": catalog.systems + (rack,)}))
    blocks = slurm_blocks(p)
    assert "UB domain of 72" in blocks.basis and [name for name, _m in blocks.blocks] == ["sud001", "sud002"]
    out = io.StringIO()
    write_block_conf(p, out, None)
    assert "BlockName=sud001" in out.getvalue()
    nvl = slurm_blocks(plan(Design(gpu="GB200-NVL72", gpus=144)))
    assert nvl.blocks[0][0] == "nvl001" and "NVLink domain" in nvl.basis


def test_vendor_grouping_and_labels():
    switches = load_catalog().fabric_switches("ethernet", 400)
    grouped = grouped_by_vendor(switches)
    vendors = [s.vendor for s in grouped]
    assert sorted(vendors) == sorted(s.vendor for s in switches)
    assert all(vendors.index(v) + vendors.count(v) - 1 == len(vendors) - 1 - vendors[::-1].index(v)
               for v in set(vendors))  # each maker's switches are contiguous
    assert vendors[0] == "NVIDIA"
    assert {s.vendor for s in load_catalog().switches} <= set(VENDOR_LABELS)
    with language("zh"):
        assert vendor_label(load_catalog().switch("HUAWEI-CE-XH9330")) == "华为"
        assert vendor_label(load_catalog().switch("H3C-S9827-64EP")) == "新华三"
        assert vendor_label(load_catalog().switch("RUIJIE-RG-S6980-64QC")) == "锐捷"


def test_ultra_ethernet_products_are_the_published_ones():
    catalog = load_catalog()
    assert [n.id for n in catalog.nics if n.ultra_ethernet] == ["POLLARA-400"]
    assert not any(s.ultra_ethernet for s in catalog.switches)


def test_optimizer_vendor_filter_in_link_and_cli():
    from core.cli import build_parser
    from core.cli.optimize import _constraints
    from core.errors import InputError
    from core.formats import optimizelink

    values, warnings = optimizelink.decode({"opt_ven": "h3c,HUAWEI"})
    assert not warnings and values["ven"] == ("H3C", "Huawei")
    allowed = optimizelink.constraints(values).switches
    assert set(allowed) == {"H3C-S9827-64EP", "H3C-S9825-64D", "HUAWEI-CE-XH9330"}
    assert optimizelink.encode(values)["opt_ven"] == "H3C,Huawei"
    both = optimizelink.constraints({**values, "sw": ("H3C-S9827-64EP", "SN5600")}).switches
    assert both == ("H3C-S9827-64EP",)  # the makers narrow the models
    _values, warnings = optimizelink.decode({"opt_ven": "Acme"})
    assert warnings and "Acme" in warnings[0]
    with pytest.raises(InputError):
        optimizelink.allowed_switches(("SN5600",), ("H3C",))
    args = build_parser().parse_args(["optimize", "--gpu", "H100", "--gpus", "64", "--vendors", "ruijie"])
    assert _constraints(args).switches == ("RUIJIE-RG-S6980-64QC",)
    with pytest.raises(InputError):
        _constraints(build_parser().parse_args(["optimize", "--gpus", "64", "--vendors", "nobody"]))
