"""Storage, in-band and out-of-band networks (core.networks): properties, options, BOM and link keys."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import FabricPlannerError, InputError
from core.fabric.sizing import size_fabric
from core.formats import sharelink
from core.i18n import language
from core.networks import size_networks
from core.plan import plan

CATALOG = load_catalog()


def sized(design: Design):
    resolved = resolve_design(design, CATALOG)
    fabric = size_fabric(resolved)
    return resolved, fabric, size_networks(resolved, fabric, CATALOG)


designs = st.builds(
    Design,
    gpu=st.sampled_from(["H100", "A100", "B200", "GB200-NVL72", "B300"]),
    nodes=st.integers(1, 3000),
    storage=st.sampled_from(["auto", "infiniband", "ethernet"]),
    storage_ports_per_node=st.one_of(st.none(), st.integers(1, 4)),
    storage_systems=st.one_of(st.none(), st.integers(0, 300)),
    storage_oversubscription=st.one_of(st.none(), st.floats(1.0, 6.0)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_ports_within_radix_and_every_node_connected(design):
    try:
        resolved, fabric, networks = sized(design)
    except FabricPlannerError:
        return  # a compute fabric the catalog cannot build is not this module's concern
    nodes = resolved.nodes
    for network in networks.sized():
        for group in network.switches:
            assert group.count >= 1
            assert group.ports_used <= group.radix, (network.network, group)
    s = networks.storage
    per_node = design.storage_ports_per_node or 2
    assert s.links_of("node-leaf") == nodes * per_node  # every node has its storage ports
    assert networks.inband.links_of("node-leaf") == nodes * 2  # ... its in-band ports
    assert networks.oob.links_of("bmc") == nodes  # ... and its BMC port
    if s.tiers == 2:  # leaf uplinks land on spine ports, none lost
        up = sum(g.up_ports_used * g.count for g in s.switches if g.role in ("leaf", "storage-leaf"))
        down = sum(g.down_ports_used * g.count for g in s.switches if g.role == "spine")
        assert up == down == s.links_of("leaf-spine")
        node_leaf = next(g for g in s.switches if g.role == "leaf")
        o = design.storage_oversubscription or 4 / 3
        assert node_leaf.down_ports_used / node_leaf.up_ports_used <= o + 1e-9  # never above the target
        assert node_leaf.count * node_leaf.down_ports_used >= s.links_of("node-leaf")
    oob = networks.oob
    ports = oob.link_count - oob.links_of("ufm-b2b")
    assert oob.switch_count == math.ceil(ports / 48)
    ids = list(networks.device_ids())
    assert len(ids) == len(set(ids))


def test_device_ids_follow_the_contract():
    _r, _f, n = sized(Design(gpu="H100", nodes=127))
    ids = set(n.device_ids())
    for wanted in ("storage.leaf0", "storage.leaf11", "storage.spine0", "storage.array0", "inband.leaf0",
                   "inband.spine1", "oob.switch0", "mgmt.head0", "mgmt.ufm0", "mgmt.ufm3", "mgmt.nfs0"):
        assert wanted in ids
    assert "storage.leaf12" not in ids and "mgmt.ufm4" not in ids
    placed = {d["prefix"]: d for d in n.devices()}
    assert placed["storage.leaf"]["count"] == 12 and placed["mgmt.ufm"]["count"] == 4
    assert placed["storage.array"]["kind"] == "storage" and placed["mgmt.ufm"]["kind"] == "management"
    assert "pdu" not in placed  # the racks own their PDUs


def test_totals_are_the_sum_of_the_networks():
    for design in (Design(gpu="H100", nodes=127), Design(gpu="B300", nodes=300, fabric="ethernet", switch="SN5600",
                                                          port_speed_gbps=400, planes=2),
                   Design(gpu="GB200-NVL72", nodes=144), Design(gpu="A100", nodes=20, management=False)):
        p = plan(design)
        s = p.summary()
        nets = s["networks"]
        assert sum(v["capex_usd"] for v in nets.values()) == pytest.approx(p.cost.capex_usd, abs=0.05)
        assert sum(v["power_kw"] for v in nets.values()) == pytest.approx(p.cost.it_kw, abs=0.01)
        for row in p.bom:
            assert row.network in ("compute", "storage", "inband", "oob")
        assert sum(r.extended_price_usd for r in p.bom if r.network == "storage") == \
            pytest.approx(nets["storage"]["capex_usd"], abs=0.05)


def test_networks_do_not_change_the_compute_fabric_numbers():
    with_all = plan(Design(gpu="H100", nodes=127)).summary()
    without = plan(Design(gpu="H100", nodes=127, storage="none", management=False)).summary()
    for key in ("switches", "links", "transceivers"):
        assert with_all[key] == without[key]
    assert without["networks"]["storage"]["switches"] == 0 and without["networks"]["inband"]["capex_usd"] == 0
    assert with_all["cost"]["capex_usd"] > without["cost"]["capex_usd"]
    assert with_all["power"]["it_kw"] > without["power"]["it_kw"]


def test_storage_options():
    _r, _f, n = sized(Design(gpu="H100", nodes=127, storage="none"))
    assert n.storage is None and n.inband is not None
    _r, _f, n = sized(Design(gpu="H100", nodes=127, storage_ports_per_node=0))
    assert n.storage is None
    _r, _f, n = sized(Design(gpu="H100", nodes=127, storage="ethernet"))
    assert n.storage.fabric == "ethernet" and n.storage.devices_of("ufm") == 0  # no UFM on Ethernet
    assert {s.model for s in n.storage.switches} == {"SN5600"}
    _r, _f, n = sized(Design(gpu="H100", nodes=127, storage_systems=0))
    assert n.storage.links_of("storage-leaf") == 0 and n.storage.devices_of("storage") == 0
    _r, _f, n = sized(Design(gpu="H100", nodes=127, storage_oversubscription=1.0))
    assert n.storage.oversubscription <= 1.0  # uplinks rounded up to a multiple of the spines
    _r, _f, n = sized(Design(gpu="H100", nodes=16))
    assert n.storage.tiers == 1 and n.storage.switch_count == 1  # 32 + storage ports fit one QM9700
    _r, _f, n = sized(Design(gpu="A100", nodes=20))
    assert n.storage.port_speed_gbps == 200  # capped at the HDR compute port speed
    _r, _f, n = sized(Design(gpu="H100", nodes=127, management=False))
    assert n.inband is None and n.oob is None and n.storage.devices_of("ufm") == 0


def test_large_cluster_splits_into_storage_pods():
    _r, _f, n = sized(Design(gpu="H100", nodes=4096))
    assert n.storage.islands > 1
    assert any("storage pods" in line for line in n.storage.explanation)
    assert n.inband.islands > 1


def test_bad_storage_speed_is_a_clear_input_error():
    with pytest.raises(InputError, match="storage port speed"):
        sized(Design(gpu="H100", nodes=8, storage_port_speed_gbps=123))


def test_bom_rows_are_tagged_and_explained():
    p = plan(Design(gpu="H100", nodes=127))
    rows = [r for r in p.bom if r.network != "compute" or r.category == "appliance"]
    assert {r.network for r in rows} == {"compute", "storage", "inband", "oob"}
    assert all(r.why and r.quantity > 0 for r in rows)
    heads = [r for r in p.bom if r.catalog_id == "HEAD-NODE"]
    assert len(heads) == 1 and heads[0].quantity == 4 and heads[0].network == "inband"
    frame = p.bom_frame()
    assert "network" in frame.columns and set(frame["network"]) == {"compute", "storage", "inband", "oob"}


def test_price_override_reaches_network_parts():
    base = plan(Design(gpu="H100", nodes=127))
    cheap = plan(Design(gpu="H100", nodes=127, price_overrides={"STORAGE-PFS-8x200": 1000.0}))
    row = next(r for r in cheap.bom if r.catalog_id == "STORAGE-PFS-8x200")
    assert row.unit_price_usd == 1000.0 and row.price_basis == "override"
    assert cheap.cost.capex_usd < base.cost.capex_usd


def test_explanation_in_chinese():
    with language("zh"):
        _r, _f, n = sized(Design(gpu="H100", nodes=127))
    text = " ".join(n.explanation)
    assert "存储" in text and "带外" in text


@settings(max_examples=40, deadline=None)
@given(storage=st.sampled_from(["auto", "infiniband", "ethernet", "none"]),
       ports=st.one_of(st.none(), st.integers(0, 16)), speed=st.one_of(st.none(), st.sampled_from([100, 200, 400])),
       systems=st.one_of(st.none(), st.integers(0, 100_000)),
       o=st.one_of(st.none(), st.floats(1.0, 16.0, allow_nan=False)), management=st.booleans())
def test_share_link_round_trips_the_network_fields(storage, ports, speed, systems, o, management):
    design = Design(storage=storage, storage_ports_per_node=ports, storage_port_speed_gbps=speed,
                    storage_systems=systems, storage_oversubscription=o, management=management)
    decoded, warnings = sharelink.decode(sharelink.encode(design))
    assert not warnings and decoded == design


def test_old_links_keep_working():
    design, warnings = sharelink.decode({"v": "1", "n": "127", "g": "H100"})
    assert not warnings and design.storage == "auto" and design.management is True


def test_networks_figure_and_table():
    from core.figures.cost import networks_figure, networks_table
    p = plan(Design(gpu="H100", nodes=127))
    fig = networks_figure(p)
    for trace in fig.data[:2]:  # capex, then IT power: shares of the totals, stacked to 100%
        assert sum(trace.x) == pytest.approx(100.0)
    table = networks_table(p)
    assert list(table.iloc[:, 1]) == [48, 16, 8, 8]  # switches: compute, storage, in-band, OOB
    assert table.iloc[:, 4].sum() == pytest.approx(p.cost.capex_usd, abs=0.05)
    with language("zh"):
        assert networks_table(p).columns[0] == "网络"


def test_the_networks_cache_key_is_what_sizing_them_reads():
    """``size_networks`` sizes from views of the design and fabric plan (``NetworkInputs``, ``NetworkFabric``: its
    cache key; reading anything else would raise): over an optimizer grid (switch models, speeds, NICs, planes,
    topologies, tiers, ratios) crossed with the storage and management settings, in both languages, the cached
    networks equal those sized from the whole objects, field for field, and designs share keys."""
    from core.analysis.optimize import Constraints, Grid, candidate_designs
    from core.i18n import current, language
    from core.networks import NetworkFabric, NetworkInputs, _size_networks

    catalog = load_catalog()
    grid = Grid(switches=("QM9700", "Q3400", "SN5600"), nics=("CX7", "CX8"), oversubscription=(1.0, 2.0))
    settings_ = ({}, {"storage": "none"}, {"storage": "ethernet", "storage_ports_per_node": 1},
                 {"management": False}, {"storage_systems": 3, "storage_oversubscription": 2.0},
                 {"storage_port_speed_gbps": 400})
    seen: dict[tuple, str] = {}
    checked = 0
    for gpus in (256, 2048):
        for extra in settings_:
            for design in candidate_designs("H100", gpus, Constraints(), grid)[::7]:
                design = design.model_copy(update=extra)
                for lang in ("en", "zh"):
                    with language(lang):
                        try:
                            resolved = resolve_design(design, catalog)
                            fabric = size_fabric(resolved)
                            networks = size_networks(resolved, fabric, catalog).model_dump_json()
                        except FabricPlannerError:
                            continue
                        assert _size_networks(resolved, fabric, catalog).model_dump_json() == networks
                        key = (NetworkInputs.of(resolved), NetworkFabric.of(fabric), current())
                    assert seen.setdefault(key, networks) == networks, (design, key)
                    checked += 1
    assert len(seen) >= 40 and checked - len(seen) >= checked // 4  # a quarter of the designs share a key



@pytest.mark.parametrize("radix", [8, 16, 36, 40, 64, 128])
@pytest.mark.parametrize("o", [1.0, 4 / 3, 2.0, 3.0])
def test_storage_two_tier_cap_keeps_every_shape(radix, o):
    """``storage._two_tier`` tries at most ``radix`` node leaves (more never fit: each takes a port of every spine):
    the same shape, or none, as the search up to ``radix`` more than the fewest, over node ports from a few to
    several times what two tiers hold (the storage pods' search asks one pod count after another)."""
    from core.fabric.sizing import down_up_split
    from core.networks import storage

    down_max, _up = down_up_split(radix, o)
    holds = asked = 0
    for node_ports in sorted({max(1, radix * radix * k // 8) for k in range(1, 24)}):
        for storage_ports, ufm_ports, sus in ((0, 0, 1), (radix // 2 + 3, 2, 4), (5 * radix, 0, 37)):
            shape = storage._two_tier.__wrapped__(node_ports, storage_ports, ufm_ports, radix, o, sus)
            fewest = math.ceil(node_ports / down_max)
            side = storage._storage_side(storage_ports, ufm_ports, radix, sus)
            searched = next((found for n in range(fewest, fewest + radix + 1)
                             if (found := storage._with_node_leaves(n, node_ports, side, ufm_ports, radix, o))), None)
            assert shape == searched, (node_ports, storage_ports)
            holds, asked = holds + (shape is not None), asked + 1
    assert 0 < holds < asked  # some hold, some do not


@pytest.mark.parametrize("lang, one, many", [("en", "1 storage system = ceil(", "storage systems = ceil("),
                                             ("zh", "1 个存储系统 = ⌈", "个存储系统 = ⌈")])
def test_storage_systems_count_in_the_singular_and_plural(lang, one, many):
    """The storage fabric's explanation counts its systems in the right number: "1 storage system", not "1 storage
    systems" (a 32-GPU design sizes one; 4,096 GPUs more)."""
    with language(lang):
        small = sized(Design(gpus=32))[2].storage.explanation
        large = sized(Design(gpus=4096))[2].storage.explanation
    assert any(line.startswith(one) for line in small), small
    assert any(many in line and not line.startswith("1 ") for line in large), large
