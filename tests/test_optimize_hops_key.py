"""The optimizer's JSON names a design's most hops by what they count (``core.analysis.compare.HOPS_KEYS``, as the
Compare JSON does): ``hops_max`` the switches a path crosses on a switched fabric, ``hops_node_max`` the links a
path crosses between a torus's nodes; no bare ``hops`` that meant one on a Clos and the other on a torus."""

from __future__ import annotations

from conftest import cli_json


def test_the_hops_key_says_what_it_counts():
    torus = cli_json("optimize", "--gpu", "H100", "--gpus", "512", "--topologies", "torus", "--format", "json")
    clos = cli_json("optimize", "--gpu", "H100", "--gpus", "512", "--topologies", "rail-optimized", "--format", "json")
    for data, key, other in ((torus, "hops_node_max", "hops_max"), (clos, "hops_max", "hops_node_max")):
        for metrics in (data["best"]["metrics"], *(p["metrics"] for p in data["pareto"])):
            assert key in metrics and other not in metrics and "hops" not in metrics, metrics
    assert torus["best"]["metrics"]["hops_node_max"] == torus["best"]["summary"]["torus"]["diameter_hops"]
    assert clos["best"]["metrics"]["hops_max"] == max(v for k, v in clos["best"]["summary"]["bandwidth"].items()
                                                       if k.startswith("hops_"))


def test_the_plan_json_names_a_torus_hops_as_links_between_nodes():
    """The plan JSON's ``bandwidth.hops_*`` of a torus counted links between nodes under the keys a Clos's count
    switches under; they are ``hops_node_*`` now (``core.fabric.families.hops_key``, the one prefix rule the
    optimizer's and Compare's ``hops_node_max`` follow), a Clos's and a Dragonfly's unchanged."""
    torus = cli_json("plan", "--topology", "torus", "--gpus", "512", "--format", "json")["bandwidth"]
    clos = cli_json("plan", "--gpus", "512", "--format", "json")["bandwidth"]
    names = ("same_rail", "same_rail_other_su", "cross_rail", "cross_pod")
    assert [k for k in torus if k.startswith("hops_")] == ["hops_node_neighbour", "hops_node_farthest"]
    assert [k for k in clos if k.startswith("hops_")] == ["hops_" + n for n in names]
    assert (torus["hops_node_neighbour"], torus["hops_node_farthest"]) == (1, 6)  # a 4x4x4 torus's diameter, in links
    from core.analysis.compare import key_values

    summary = cli_json("plan", "--topology", "torus", "--gpus", "512", "--format", "json")
    assert key_values(summary)["hops_node_max"] == 6 and "hops_max" not in key_values(summary)


def test_a_torus_hop_key_names_no_clos_concept():
    """A torus's hop keys kept the folded Clos's suffixes (``hops_node_same_rail``, ``..._other_su``, ``..._cross_pod``:
    rails, scalable units and pods a torus does not have): they say what they count, a neighbour and the farthest
    pair (``core.fabric.torus.HOP_NAMES`` through ``core.fabric.families.hops_key``); the counts one key holds are
    one count; a Dragonfly's keep the plan JSON's common names beside its own ``hops_same_group``."""
    from core.design import Design
    from core.fabric.families import PLAN_HOPS, hops_key
    from core.plan import plan

    p = plan(Design(topology="torus", gpus=4096))
    keys = {}
    for name in PLAN_HOPS:
        keys.setdefault(hops_key("torus", name), set()).add(getattr(p.bandwidth, "hops_" + name))
    assert set(keys) == {"hops_node_neighbour", "hops_node_farthest"} and all(len(v) == 1 for v in keys.values())
    assert keys["hops_node_farthest"] == {p.summary()["torus"]["diameter_hops"]}
    assert not any(word in key for key in p.summary()["bandwidth"] for word in ("rail", "_su", "pod"))
    assert hops_key("dragonfly", "cross_pod") == "hops_cross_pod" and hops_key("torus", "max") == "hops_node_max"
