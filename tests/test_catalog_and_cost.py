"""Catalog validation and cost/BOM arithmetic."""

import re
import shutil
from datetime import date

import pytest

from core.catalog import CATALOG_DIR, load_catalog, load_catalog_from
from core.cost import HOURS_PER_YEAR, NETWORK_CATEGORIES
from core.design import Design
from core.errors import InputError
from core.plan import plan

catalog = load_catalog()


def test_every_entry_is_sourced_and_dated():
    for kind, entry in catalog.all_entries():
        assert entry.source.strip(), (kind, entry.id)
        assert date.fromisoformat(entry.as_of) <= date(2026, 12, 31), (kind, entry.id)
        assert entry.price_basis in ("list", "street", "hyperscale", "estimate")
        assert entry.price_source.strip() and entry.power_source.strip(), (kind, entry.id)
    for generation in catalog.nvlink:
        assert generation.source and date.fromisoformat(generation.as_of)


def test_published_numbers():
    """Spot checks against the sources cited in the catalog (hardware-facts.md)."""
    h100 = catalog.system("h100")
    assert (h100.nvlink_generation, h100.nvlink_links_per_gpu, h100.nvlink_gbytes_per_gpu_bidir) == (4, 18, 900)
    assert catalog.system("A100").nvlink_gbytes_per_gpu_bidir == 600
    assert catalog.system("H800").nvlink_gbytes_per_gpu_bidir == 400
    assert catalog.system("A800").nvlink_gbytes_per_gpu_bidir == 400
    nvl72 = catalog.system("GB200-NVL72")
    assert (nvl72.nvlink_domain_gpus, nvl72.nvswitch_chips_per_domain, nvl72.nvlink_gbytes_per_gpu_bidir) == (72, 18, 1800)
    assert catalog.switch("QM9700").ports_at(400) == 64 and catalog.switch("QM9700").ports_at(200) == 128
    assert catalog.switch("Q3400").ports_at(800) == 144
    assert catalog.switch("SN5600").ports_at(800) == 64 and catalog.switch("SN5600").ports_at(400) == 128
    assert catalog.switch("QM8700").ports_at(200) == 40
    for gen, per_link in ((2, 25), (3, 25), (4, 25), (5, 50)):
        assert catalog.nvlink_generation(gen).link_gbytes_per_direction == per_link
    # switch capacity is the sum of port speeds in one direction
    for switch in catalog.switches:
        top = max(switch.port_modes, key=lambda m: m.speed_gbps)
        assert switch.capacity_tbps == pytest.approx(top.speed_gbps * top.ports / 1000, rel=0.01), switch.id


def test_unknown_model_names_the_known_ones():
    with pytest.raises(InputError, match="known: .*H100"):
        catalog.system("H1000")


def test_broken_catalog_file_is_a_clear_error(tmp_path):
    for path in CATALOG_DIR.glob("*.toml"):
        shutil.copy(path, tmp_path / path.name)
    (tmp_path / "switches.toml").write_text("[[switch]]\nid = 'X'\n")
    with pytest.raises(InputError, match="invalid"):
        load_catalog_from(tmp_path)
    (tmp_path / "switches.toml").write_text("not = [toml")
    with pytest.raises(InputError, match="not valid TOML"):
        load_catalog_from(tmp_path)


def test_bom_rows_add_up_and_explain_themselves():
    result = plan(Design(gpu="H100", nodes=512, cable_media="optics"))
    frame = result.bom_frame()
    assert (frame["extended_price_usd"] == frame["quantity"] * frame["unit_price_usd"]).all()
    assert frame["why"].str.len().min() > 10
    assert frame["extended_price_usd"].sum() == pytest.approx(result.cost.capex_usd)
    # the storage and management networks' parts are their own, and so are the UFM appliances' links (review45 1.4)
    compute = (frame["network"] == "compute") & ~frame["management"]
    network = frame[frame["category"].isin(NETWORK_CATEGORIES) & compute]["extended_price_usd"].sum()
    assert network == pytest.approx(result.cost.network_capex_usd)
    switches = frame[(frame["category"] == "switch") & compute]["quantity"].sum()
    assert switches == result.summary()["switches"]["total"]
    # every number the why-column names for switches is the count it explains
    leaf_row = frame[frame["item"].str.contains(r"\(leaf\)")].iloc[0]
    assert re.search(r"16 SU x 8 rails", leaf_row["why"])


def test_price_and_power_overrides():
    base = plan(Design(gpu="H100", nodes=64))
    cheaper = plan(Design(gpu="H100", nodes=64, price_overrides={"QM9700": 1000.0}, power_overrides={"QM9700": 0.0}))
    # the QM9700 override reaches the storage fabric's QM9700 too (core.networks)
    switches = base.summary()["switches"]["total"] + base.summary()["networks"]["storage"]["switches"]
    qm = catalog.switch("QM9700")
    assert base.cost.capex_usd - cheaper.cost.capex_usd == pytest.approx(switches * (qm.price_usd - 1000))
    assert base.cost.it_kw - cheaper.cost.it_kw == pytest.approx(switches * qm.power_w / 1000)
    assert "override" in set(cheaper.bom_frame()["price_basis"])


def test_tco_formula():
    result = plan(Design(gpu="H100", nodes=32, pue=1.5, electricity_usd_per_kwh=0.2, tco_years=4))
    cost = result.cost
    assert cost.facility_kw == pytest.approx(cost.it_kw * 1.5)
    assert cost.energy_usd_per_year == pytest.approx(cost.facility_kw * HOURS_PER_YEAR * 0.2)
    assert cost.tco_usd == pytest.approx(cost.capex_usd + 4 * cost.energy_usd_per_year)
    assert cost.capex_per_gpu_usd == pytest.approx(cost.capex_usd / 256)


def test_node_price_is_not_double_counted_with_nics():
    result = plan(Design(gpu="H100", nodes=10))
    frame = result.bom_frame()
    compute = frame[frame["category"] == "compute"]["extended_price_usd"].sum()
    nics = frame[frame["category"] == "NIC"]["extended_price_usd"].sum()
    assert compute + nics == pytest.approx(10 * catalog.system("H100").node_price_usd)


@pytest.mark.parametrize("media,expect", [("copper", "cable"), ("optics", "transceiver")])
def test_cable_media_policy(media, expect):
    # top-of-rack: the leaf sits in the rack, so node-leaf links are within copper reach (media
    # follow each link's length; a rail-optimized SU's 5-10 m node-leaf runs take optics even with "copper")
    frame = plan(Design(gpu="H100", nodes=64, topology="top-of-rack", cable_media=media)).bom_frame()
    node_leaf = frame[frame["why"].str.contains("node-leaf") | frame["why"].str.startswith("node side")]
    assert expect in set(node_leaf["category"])
    if media == "copper":
        assert any(frame["catalog_id"].str.startswith(("DAC", "ACC")))
    if media == "aoc":
        assert any(frame["catalog_id"].str.startswith("AOC"))


def test_every_system_plans_on_its_default_fabric():
    for system in catalog.systems:
        result = plan(Design(gpu=system.id, nodes=40))
        assert result.cost.capex_usd > 0 and result.fabric.tiers >= 1


def test_aoc_policy_uses_aoc_where_the_catalog_has_one():
    frame = plan(Design(gpu="A100", nodes=64, cable_media="aoc")).bom_frame()  # 200G HDR AOC exists
    assert frame["catalog_id"].str.startswith("AOC").any()
    # NDR has no AOC in the catalog: optics are used, and each optical row says which media
    result = plan(Design(gpu="H100", nodes=64, cable_media="aoc"))
    assert result.media and all(m.kind in ("dac", "acc", "mmf", "smf") for m in result.media)  # compute links
    assert result.bom_frame()["why"].str.contains("multimode optics|single-mode optics").any()


def test_both_ends_and_fibre_share_one_media_per_link_class():
    """media are chosen per link class and length bin; within a bin the switch module, the node
    module and the fibre cord are of one media (a class may mix multimode bins and longer single-mode ones)."""
    from core.catalog import load_catalog
    cat = load_catalog()
    for nodes in (64, 600):
        result = plan(Design(gpu="H100", nodes=nodes, cable_media="optics"))
        frame = result.bom_frame()
        for m in result.media:
            assert not m.cable_id and m.switch_module_id and m.fibre_id
            media = cat.transceiver(m.switch_module_id).media
            assert cat.cable(m.fibre_id).media == media == m.kind
            if m.link_class == "node-leaf":
                assert cat.transceiver(m.node_module_id).media == media
            fibres = frame[(frame["category"] == "cable") & frame["item"].str.endswith(f"({m.link_class}, {m.label()})")]
            assert set(fibres["catalog_id"]) == {m.fibre_id}


def test_long_runs_get_long_reach_optics_short_runs_do_not():
    """Each bin's module reaches its longest link; the shortest bin does not get the longest-reach module."""
    from core.catalog import load_catalog
    cat = load_catalog()
    result = plan(Design(gpu="H100", gpus=4096, cable_media="optics"))  # three tiers
    assert result.fabric.tiers == 3
    for m in result.media:
        assert cat.transceiver(m.switch_module_id).reach_m >= m.max_m
    shortest = min(result.media, key=lambda m: m.max_m)
    assert cat.transceiver(shortest.switch_module_id).reach_m < max(t.reach_m for t in cat.transceivers)


def test_spectrum_x_twin_planes_use_one_twin_port_module_per_nic():
    """DGX B300 with Spectrum-X: each ConnectX-8 cage carries 2 x 400GbE, one per plane: 8 NICs and
    8 node-side twin-port modules per node, not 16."""
    result = plan(Design(gpu="B300", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2,
                         cable_media="optics"))
    frame = result.bom_frame()
    assert frame[frame["category"] == "NIC"]["quantity"].sum() == 64 * 8
    assert result.transceiver_counts()["node_side"] == 64 * 8
    assert result.bandwidth.scaleout_gbits_per_gpu == 800


def test_node_modules_fit_the_nic_cage():
    """H100 at NDR200: the ConnectX-7 has an OSFP cage, so its module is a 400G OSFP run at 200G,
    not a QSFP56 HDR module of the exact speed; HDR A100s (ConnectX-6, QSFP56) keep QSFP56."""
    from core.catalog import form_factor_family, load_catalog
    cat = load_catalog()
    for gpu, speed, family in (("H100", 200, "OSFP"), ("H100", 400, "OSFP"), ("A100", 200, "QSFP56"),
                               ("V100", 100, "QSFP28")):
        frame = plan(Design(gpu=gpu, nodes=40, port_speed_gbps=speed, cable_media="optics")).bom_frame()
        node = frame[frame["item"].str.endswith("(node side)")]
        assert {form_factor_family(cat.transceiver(i).form_factor) for i in node["catalog_id"]} == {family}
