"""A link end's media found once per kind (``core.physical.media.MediaMenu``, ``cable_menu``, ``module_menu``) and
chosen per length: the same choice, the same errors, as found afresh for each length, in any order of lengths."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.catalog import load_catalog
from core.errors import DesignError
from core.physical.media import POLICIES, LinkSpeed, MediaMenu, cable_fits, cable_menu, cheapest_cable

CATALOG = load_catalog()
SPEEDS = (100, 200, 400, 800, 1600)
CAGES = ("", "OSFP", "QSFP112", "QSFP56", "QSFP28")
REACHES = sorted({e.reach_m for e in (*CATALOG.cables, *CATALOG.transceivers)})
LENGTHS = st.one_of(st.sampled_from(REACHES), st.sampled_from(REACHES).map(lambda r: r + 0.01),
                    st.floats(0.1, 2500.0, allow_nan=False))


def _outcome(menu: MediaMenu, length_m: float):
    """``menu``'s choice of ``length_m`` as plain values, or the error it raises."""
    try:
        choice = menu.choose(length_m, "leaf-spine")
    except DesignError as exc:
        return "error", str(exc)
    return choice.kind, (choice.cable or choice.module).id, choice.reach_m


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabric=st.sampled_from(("infiniband", "ethernet")), speed=st.sampled_from(SPEEDS),
       policy=st.sampled_from(sorted(POLICIES)), end=st.sampled_from(("switch", "node")),
       cage=st.sampled_from(CAGES), cage_ports=st.sampled_from((1, 2, 4)), lengths=st.lists(LENGTHS, min_size=1,
                                                                                            max_size=12))
def test_one_menu_for_many_lengths_chooses_as_one_menu_a_length(fabric, speed, policy, end, cage, cage_ports, lengths):
    at = LinkSpeed(fabric, speed)
    shared = MediaMenu(CATALOG, at, policy, cage_ports, cage, end)
    for length in lengths:  # a menu whose kinds a shorter or longer length found first chooses as a fresh one
        assert _outcome(shared, length) == _outcome(MediaMenu(CATALOG, at, policy, cage_ports, cage, end), length)


def _cable_by_length(catalog, fabric: str, speed: int, kinds: tuple, length_m: float, cage: str):
    """The cable rule written length first (as it was before the menus): of the speed reaching the length, fitting
    the cage; else the slowest faster ones fitting and reaching; the cheapest, then shortest reach."""
    options = [c for c in catalog.cables if c.kind in kinds and fabric in c.fabrics and c.speed_gbps == speed
               and c.reach_m >= length_m and (not cage or cable_fits(c, cage))]
    if cage and not options:
        faster = [c for c in catalog.cables if c.kind in kinds and fabric in c.fabrics and c.speed_gbps > speed
                  and c.reach_m >= length_m and cable_fits(c, cage)]
        options = [c for c in faster if c.speed_gbps == min(f.speed_gbps for f in faster)]
    return min(options, key=lambda c: (c.price_usd, c.reach_m)) if options else None


def _with_faster_cables():
    """The catalog with two faster OSFP DACs than 400G: the slower one short (800G, 2 m), the faster one long
    (1.6T, 5 m); the 400G DAC of no stated plug made a QSFP112 one (it fits no OSFP cage)."""
    dac = next(c for c in CATALOG.cables if c.id == "DAC-400G")
    extra = (dac.model_copy(update={"id": "DAC-800G-T", "speed_gbps": 800, "reach_m": 2.0, "form_factor": "OSFP"}),
             dac.model_copy(update={"id": "DAC-1600G-T", "speed_gbps": 1600, "reach_m": 5.0, "form_factor": "OSFP"}))
    qsfp = dac.model_copy(update={"form_factor": "QSFP112"})
    return CATALOG.model_copy(update={"cables": (*[qsfp if c is dac else c for c in CATALOG.cables], *extra)})


@pytest.mark.parametrize("catalog", [CATALOG, _with_faster_cables()], ids=["bundled", "faster cables"])
def test_cheapest_cable_of_a_menu_is_the_length_first_rule(catalog):
    lengths = sorted({0.5, *(c.reach_m for c in catalog.cables), *(c.reach_m + 0.5 for c in catalog.cables)})
    for fabric in ("infiniband", "ethernet"):
        for speed in SPEEDS:
            for kinds in (("dac",), ("acc",), ("aoc",), ("dac", "acc")):
                for cage in CAGES:
                    menu = cable_menu(catalog, fabric, speed, kinds, cage)
                    for length in lengths:
                        assert cheapest_cable(menu, length) == _cable_by_length(catalog, fabric, speed, kinds,
                                                                                length, cage)


def test_a_faster_cable_is_the_slowest_that_reaches():
    catalog = _with_faster_cables()
    menu = cable_menu(catalog, "ethernet", 400, ("dac",), "OSFP")
    assert cheapest_cable(menu, 1.5).id == "DAC-800G-T"  # both faster ones reach: the slower
    assert cheapest_cable(menu, 3.0).id == "DAC-1600G-T"  # the 800G one falls short: the 1.6T one
    assert cheapest_cable(menu, 6.0) is None
    assert cheapest_cable(cable_menu(catalog, "ethernet", 400, ("dac",)), 1.5).id == "DAC-400G"  # no cage: any plug


@pytest.mark.parametrize("design", [
    dict(gpu="H100", gpus=16384, fabric="ethernet", leaf_switch="SN5600", spine_switch="ARISTA-7800R4-576",
         core_switch="ARISTA-7800R4-576", port_speed_gbps=400, uplink_speed_gbps=800, nic="BF3"),
    dict(gpu="B200", gpus=2048, fabric="ethernet", switch="SN5600", port_speed_gbps=400, uplink_speed_gbps=800,
         cable_media="aoc"),
    dict(gpu="H100", gpus=4096, switch="QM9700", topology="classic-dragonfly"),
    dict(gpu="B300", gpus=512, topology="torus"),
], ids=["800G uplinks, two switch models", "aoc, 800G uplinks", "classic Dragonfly", "torus"])
def test_classes_sharing_an_end_choose_as_each_class_alone(design):
    """``chosen_media`` finds the media once per link end (port speed, end, ports per cage, cage) and lets the link
    classes of one end share them: each bin is what ``choose_media`` chooses for it alone at its class's speed and
    switch (a node-to-node class: the NICs' cages)."""
    from core.catalog import form_factor_family
    from core.design import Design
    from core.physical.media import (choose_media, class_speeds, class_switches, family_node_classes,
                                     pick_transceiver)
    from core.plan import plan

    p = plan(Design(**design))
    resolved = p.resolved
    speeds, switches = class_speeds(resolved), class_switches(resolved)
    per_xcvr = max(resolved.system.node_ports_per_transceiver, resolved.planes)
    assert len({b.link_class for b in p.media}) > 1 or resolved.topology == "torus"  # a torus: one class
    for b in p.media:
        at = speeds[b.link_class]
        if b.link_class in family_node_classes():
            ends = dict(cage_ports=per_xcvr, cage=form_factor_family(resolved.nic.cage_type), end="node")
        else:
            switch = switches[b.link_class]
            ends = dict(cage_ports=switch.ports_per_cage(at.port_speed_gbps),
                        cage=form_factor_family(switch.cage_type))
        choice = choose_media(CATALOG, at, b.max_m, resolved.design.cable_media, **ends)
        chosen = b.cable_id or (b.node_module_id if "end" in ends else b.switch_module_id)
        assert (b.kind, chosen, b.reach_m) == (choice.kind, (choice.cable or choice.module).id, choice.reach_m)
        if b.link_class == "node-leaf" and not b.cable_id:  # the node end's module of the switch end's media
            node = pick_transceiver(CATALOG, resolved, "node", per_xcvr, b.max_m, media=choice.module.media,
                                    cage=form_factor_family(resolved.nic.cage_type))
            assert b.node_module_id == node.id
