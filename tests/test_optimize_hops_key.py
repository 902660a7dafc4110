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
