"""Bill-of-materials rows against their own words and parts (review46 findings 5 and 6).

* Node-side transceivers are node-end parts: a DGX H100's twin-port OSFP cages ride a heat sink and take the
  flat-top MMA4Z00-NS-FLT ("800G flat-top, twin-port ... for linking DGX H100 Cedar7 GPU links",
  https://docs.nvidia.com/networking/display/cableovpub/connectors+and+cages), not the switch's finned MMA4Z00-NS.
"""
import math
import re
import warnings

import pytest

from core.catalog import load_catalog
from core.design import Design
from core.plan import plan

DESIGNS = {
    "large": dict(gpu="H100", gpus=16384),
    "torus": dict(topology="torus", gpus=512),
    "gb200": dict(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144),
    "dragonfly": dict(topology="dragonfly", gpus=4096),
    "ethernet": dict(fabric="ethernet", gpus=1024),
    "top-of-rack": dict(gpu="H100", nodes=64, topology="top-of-rack"),
    "smf": dict(gpu="H100", nodes=600, cable_media="smf"),
    "b300-two-planes": dict(gpu="B300", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2,
                            cable_media="optics"),
}


PODS = {"pods": dict(nodes=64, pods="B200:32:800"), "pods-three-tiers": dict(nodes=64, pods="B200:32:800", tiers=3)}
"""Designs with pods: their bill (``core.analysis.whole``) recounts the links up into the shared layer at both ends
(``core.analysis.podoptics``)."""


@pytest.fixture(scope="module")
def plans():
    from core.analysis.whole import whole_plan

    return {**{name: plan(Design(**fields)) for name, fields in DESIGNS.items()},
            **{name: whole_plan(plan(Design(**fields))) for name, fields in PODS.items()}}


def test_node_side_rows_use_node_end_parts(plans):
    catalog = load_catalog()
    for name, p in plans.items():
        node_rows = [r for r in p.bom if r.category == "transceiver" and r.end == "node"]
        if name != "gb200":
            assert node_rows, name
        for row in node_rows:
            module = catalog.transceiver(row.catalog_id)
            assert module.end in ("node", "any"), (name, row.item)
            assert "switch end" not in row.item and "finned" not in module.form_factor, (name, row.item)
        optics = {t.id for t in catalog.transceivers}  # (a second NVLink level's modules are scale-up parts)
        for row in p.bom:  # and the switch side keeps the switch's parts
            if row.category == "transceiver" and row.end == "switch" and row.catalog_id in optics:
                assert catalog.transceiver(row.catalog_id).end in ("switch", "any"), (name, row.item)


def test_dgx_h100_node_cages_take_the_flat_top_twin_port_module(plans):
    """2,048 DGX H100 x 4 twin-port cages = 8,192 MMA4Z00-NS-FLT at US$1,249 (FS.com listing), not the finned
    MMA4Z00-NS at US$879: US$3,031,040 more than the finned part on the 16,384-GPU design."""
    rows = [r for r in plans["large"].bom if r.category == "transceiver" and r.end == "node" and r.network == "compute"]
    assert [(r.catalog_id, r.quantity, r.unit_price_usd) for r in rows] == [("OSFP-800G-2xSR4-FLT", 8192, 1249.0)]
    assert "MMA4Z00-NS-FLT" in rows[0].item and "flat top, node end" in rows[0].item
    torus = {r.catalog_id for r in plans["torus"].bom if r.category == "transceiver" and r.end == "node"
             and r.network == "compute"}
    assert torus == {"OSFP-800G-2xSR4-FLT"}
    smf = {r.catalog_id for r in plans["smf"].bom if r.category == "transceiver" and r.end == "node"
           and r.network == "compute"}
    assert smf <= {"OSFP-800G-2xDR4-FLT", "OSFP-800G-2xSR4-FLT"} and "OSFP-800G-2xDR4-FLT" in smf


def _value(expression: str) -> int | None:
    """An arithmetic count stated in words (``512 leaf x ceil(32/2) + 512 spine x ceil(32/2)``,
    ``2,048 nodes x ceil(8 ports / 2 per module)``): its words dropped, ``x`` read as a product; None when what is
    left is not arithmetic."""
    expression = re.sub(r"(?<!ceil)\([^()]*[A-Za-z][^()]*\)", "", expression)  # notes: (rails), (QM9700)
    expression = re.sub(r"(?<=[A-Za-z])\+", "", expression)  # a name's plus (Dragonfly+), not a sum
    tokens = re.findall(r"\d[\d,]*(?:\.\d+)?|ceil|[-+*/()]|\bx\b|[^\W\d_]+", expression)
    kept = []
    for token in tokens:
        if token == "x":
            kept.append("*")
        elif token == "ceil" or token in "+-*/()" or token[0].isdigit():
            kept.append(token.replace(",", ""))
    text = " ".join(kept).replace("( )", "")
    if not text or not re.fullmatch(r"[\d\s+*/().ceil-]+", text):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)
            return eval(text, {"__builtins__": {}}, {"ceil": math.ceil})  # noqa: S307 (digits and operators only)
    except (SyntaxError, TypeError, ZeroDivisionError):
        return None


def stated_count(why: str) -> int | None:
    """The count a row's ``why`` states, checking each equation it makes on the way: every ``<expression> = N``
    (the expression from the last ``:``/``;`` before it) must hold; the count is the last equation's N, or the
    ``of which M`` after it. Without an equation, a ``why`` that opens on a count of links or cables (``16,384
    node-leaf links ...``, ``4 links: ...``, ``2,592 cables: ...``, ``8 spines shared by 2 pods``, ``1 switch
    holds ...``) states that count, and so does a storage or
    management switch row's ``In-band leaf: 6 x 60 of 64 ports used``; else None (no count)."""
    equations = list(re.finditer(r"([^:;]*?) = (\d[\d,]*)", why))
    if equations:
        for m in equations:
            value = _value(m.group(1))
            assert value == int(m.group(2).replace(",", "")), (why, m.group(0), value)
        after = why[equations[-1].end():]
        part = re.search(r"of which (\d[\d,]*)", after)
        return int((part or equations[-1]).group(1 if part else 2).replace(",", ""))
    opening = re.match(r"(\d[\d,]*) (?:[\w-]+ )?(?:links|cables|switch|switches|spines|cores)\b", why)
    used = re.search(r": (\d[\d,]*) x \d[\d,]* of \d[\d,]* ports used\b", why)  # a network's switches
    return int((opening or used).group(1).replace(",", "")) if opening or used else None


@pytest.mark.parametrize("name", [*DESIGNS, *PODS])
def test_every_optics_row_states_its_own_quantity(plans, name):
    """Every transceiver and cable row of every network: the count its ``why`` states, after each of its
    equations holds, is its quantity; the compute fabric's link rows all state one. The split rows of the
    16,384-GPU design's leaf-spine class (16,384 modules were every link optical) say 12,556 and 3,828."""
    stated = 0
    for row in plans[name].bom:
        if row.category not in ("transceiver", "cable") or row.spare:
            continue
        count = stated_count(row.why)
        if row.network == "compute" and not row.management:
            assert count is not None, (name, row.item, row.why)
        if count is not None:
            stated += 1
            assert count == row.quantity, (name, row.item, row.why, row.quantity)
    assert stated


MORE = {"rail-only": dict(gpu="H100", nodes=64, topology="rail-only"),
        "per-rail-planes": dict(gpu="H100", nodes=64, plane_mode="per-rail", planes=8),
        "three-tiers": dict(gpu="H100", gpus=16384, tiers=3),
        "three-tiers-two-planes": dict(gpu="B300", nodes=512, fabric="ethernet", port_speed_gbps=400, planes=2,
                                       tiers=3),
        "grow-to": dict(gpu="H100", nodes=64, grow_to=256),
        "default": dict()}
"""More shapes for the switch, NIC and node rows: islands (rail-only rails, per-rail planes), three tiers with
planes, a fabric sized to grow, and the Designer's default."""


@pytest.fixture(scope="module")
def more_plans():
    return {name: plan(Design(**fields)) for name, fields in MORE.items()}


@pytest.mark.parametrize("name", [*DESIGNS, *PODS, *MORE])
def test_every_row_kind_states_its_own_quantity(plans, more_plans, name):
    """Every row of the bill that is not an optic or a cable (switch, NIC, node, management, storage, appliance):
    each equation its ``why`` states holds and the count it states is its quantity; the compute fabric's switch
    rows, the NIC rows and the node rows all state one (scope2: the spine row said ``= 672 links ...: 14 spines``
    and the node row ``144 nodes x 4 GPUs = 576 GPUs`` for 14 spines and 144 nodes)."""
    p = {**plans, **more_plans}[name]
    stated = 0
    for row in p.bom:
        if row.category in ("transceiver", "cable") or row.spare:
            continue
        count = stated_count(row.why)
        if row.network == "compute" and row.category in ("NIC", "switch") or row.catalog_id == p.resolved.system.id:
            assert count is not None, (name, row.item, row.why)
        if row.network != "compute" and row.category == "switch":
            assert count is not None, (name, row.item, row.why)
        if count is not None:
            stated += 1
            assert count == row.quantity, (name, row.item, row.why, row.quantity)
    assert stated


def test_gb200_spine_and_node_rows_hand_count(plans):
    """GB200-NVL72 at 144 trays: 24 leaves x 28 uplinks = 672 links, 2 to each spine, so 28 / 2 = 14 spines;
    576 GPUs / 4 per compute tray = 144 trays."""
    rows = {r.item.rsplit("(", 1)[-1]: r for r in plans["gb200"].bom if r.network == "compute"
            and r.category in ("switch", "compute", "NIC")}
    assert rows["spine)"].quantity == 14 and rows["spine)"].why == (
        "24 leaves x 28 uplinks = 672 links, 2 per leaf-spine pair: 28 / 2 = 14 spines")
    node = next(r for r in plans["gb200"].bom if r.category == "compute" and r.catalog_id == "GB200-NVL72")
    assert node.quantity == 144 and node.why.startswith("576 GPUs / 4 per node = 144 nodes (")
    assert rows["node)"].why == "144 nodes x 4 NICs (rails) = 576" and rows["node)"].quantity == 576
    two = [r for r in plans["b300-two-planes"].bom if r.item.endswith("(spine)")]
    assert [(r.quantity, r.why) for r in two] == [
        (8, "8 leaves x 64 uplinks = 512 links, 16 per leaf-spine pair: 64 / 16 x 2 planes = 8 spines")]


def test_split_rows_name_the_class_total_then_their_share(plans):
    rows = [r for r in plans["large"].bom if r.category == "transceiver" and "(switch side, leaf-spine)" in r.item]
    assert sorted(r.quantity for r in rows) == [3828, 12556] and sum(r.quantity for r in rows) == 16384
    for row in rows:
        assert "512 leaf x ceil(32/2) + 512 spine x ceil(32/2) = 16,384" in row.why
        assert f"of which {row.quantity:,} of this type, by the cable lengths" in row.why
    tor = [r for r in plans["top-of-rack"].bom if r.category == "transceiver" and r.end == "node"
           and r.network == "compute"]
    assert [r.quantity for r in tor] == [64]  # 64 nodes x ceil(8 / 2) = 256 were all 512 links optical; 128 are
    assert "= 256; ceil(256 x 128 / 512) = 64 for the 128 optical links of 512" in tor[0].why


def test_the_count_reader_refuses_a_false_equation():
    with pytest.raises(AssertionError):
        stated_count("switch side, leaf-spine: 512 leaf x ceil(32/2) = 16,384 (2 ports per cage)")
    assert stated_count("node side: 2,048 nodes x ceil(8 ports / 2 per module) = 8,192") == 8192
    assert stated_count("16,384 node-leaf links within a row, 5-10 m (longest 9.08 m): multimode optics") == 16384
    assert stated_count("one per node storage port") is None
    assert stated_count("In-band leaf: 6 x 60 of 64 ports used. SN4600C is made by NVIDIA") == 6
    with pytest.raises(AssertionError):  # the spine row's old words: a true equation of another number
        assert stated_count("24 leaves x 28 uplinks = 672 links, 2 per leaf-spine pair: 14 spines") == 14
    assert stated_count("leaf end, leaf-spine: 16 leaf (QM9700) x ceil(32/2) = 256 (2 ports per cage)") == 256


def test_a_bins_longest_link_reads_as_the_pack_and_the_designer_write_it():
    """A length bin's longest link [m] in one format (``core.units.metres``: one decimal, more only at the bin's
    top) in the bill's words, the review pack's media table and the Designer's media table (the bill said 18.06 m
    where the pack's table said 18.1)."""
    import re as _re

    from core.cost import _bin_words
    from core.units import metres
    from webui.physical_tab import _media_rows

    p = plan(Design(gpu="H100", nodes=64))
    for b in p.media:
        shown = metres(b.max_m, b.high_m)
        assert f"(longest {shown} m)" in _bin_words(b, "leaf-spine", b.label())
        row = next(r for r in _media_rows([b]))
        assert row["Longest [m]"] == shown
    assert any(_re.search(r"\.\d\d\b", f"{b.max_m:g}") for b in p.media)  # two decimals before: the test can fail
