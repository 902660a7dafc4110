"""A tier the fabric does not have shows a dash in the fabric-load table, not 0.0% (``fabric_load``)."""
from core.design import Design
from core.figures.serving import NO_TIER, fabric_load_note, fabric_load_rows
from core.perf import serving
from core.plan import plan

DEPLOYMENT = {"model": "llama3.3-70b", "precision": "bf16", "prefill": {"nodes": 4, "tp": 8}, "decode": {"nodes": 4, "tp": 8}}


def test_two_tiers_have_no_spine_uplinks_to_load():
    p = plan(Design(gpu="Atlas-800T-A2", gpus=2048, fabric="ethernet", switch="H3C-S9827-64EP"))
    assert p.fabric.tiers == 2 and p.fabric.spine_uplinks == 0
    e = serving.estimate(p, serving.parse_deployment(DEPLOYMENT))
    assert all(load["spine_uplinks"] is None and load["leaf_uplinks"] is not None for load in e.fabric_load.values())
    rows = fabric_load_rows(e, "GB/s", p.resolved.system)
    assert all(list(r.values())[-1] == NO_TIER and list(r.values())[-2] != NO_TIER for r in rows)
    assert fabric_load_note(e)


def test_three_tiers_load_their_spine_uplinks():
    p = plan(Design(gpu="H100", nodes=4096))
    assert p.fabric.spine_uplinks
    e = serving.estimate(p, serving.parse_deployment(DEPLOYMENT))
    assert all(load["spine_uplinks"] is not None for load in e.fabric_load.values())
    assert not fabric_load_note(e)


def test_a_torus_has_no_uplinks_to_load():
    """A torus joins its nodes node to node: no leaf, no uplink. Its fabric-load table read "0.0%" under "Leaf
    uplinks" for every deployment, then a dash under "Leaf uplinks | Spine uplinks" and a note in Clos terms; now
    its own link class, as a Dragonfly+ names its global links (``load_columns``, the family's words): its NIC
    ports are its torus links, no uplink column, no dash note, a caption in its terms (en and zh)."""
    from core.figures.serving import fabric_load_caption
    from core.i18n import language

    p = plan(Design(gpu="H100", gpus=512, topology="torus"))
    e = serving.estimate(p, serving.parse_deployment(DEPLOYMENT))
    assert all(load["leaf_uplinks"] is None and load["spine_uplinks"] is None and load["nic"] > 0
               for load in e.fabric_load.values())
    for lang, header, link, clos in (("en", "Torus links (NIC ports)", "torus link", ("Leaf uplinks", "columns")),
                                     ("zh", "环面链路（网卡端口）", "环面链路", ("叶交换机上行链路", "两列"))):
        with language(lang):
            rows = fabric_load_rows(e, "GB/s", p.resolved.system, p.fabric.family)
            caption = fabric_load_caption(p.resolved.system, p.fabric.family)
        assert all(list(r)[2:] == [header] and NO_TIER not in r.values() for r in rows)
        assert link in caption and not any(word in caption for word in clos)
    assert not fabric_load_note(e, p.fabric.family)
