"""Fingerprints of every output that reads the fabric's wiring, over a grid of designs.

``python -m tools.equivalence OUT.json`` writes ``{design: {output: sha256}}``; ``--compare A.json B.json``
lists what differs. Used to show a refactor of the wiring (``core.fabric.wiring``) leaves every output
byte-identical: run it before and after and compare. The grid covers one to three tiers, rail-optimized,
top-of-rack, rail-only and per-rail planes, several planes, partial SUs and pods, growth and NVL72 racks.
"""

from __future__ import annotations

import hashlib
import json
import sys

GRID: dict[str, dict] = {
    "one switch": dict(gpu="H100", nodes=2),
    "one SU": dict(gpu="H100", nodes=32, switch="QM9700"),
    "2-tier 2 SUs": dict(gpu="H100", nodes=64, switch="QM9700"),
    "2-tier 2:1 partial": dict(gpu="H100", nodes=84, switch="QM9700", oversubscription=2.0),
    "partial SU": dict(gpu="H100", nodes=40, switch="QM9700"),
    "ToR 3:1": dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, oversubscription=3.0),
    "3-tier ToR 1-GPU": dict(gpu="H100", nodes=160, gpus_per_node=1, nics_per_node=1, topology="top-of-rack",
                             nodes_per_rack=4, switch="QM8700", port_speed_gbps=200, tiers=3),
    "dual-plane ToR": dict(gpu="H100", nodes=16, topology="top-of-rack", nodes_per_rack=2, planes=2, nic="CX7-2P"),
    "3-tier 1024 H100": dict(gpu="H100", nodes=1024, switch="QM9700", tiers=3),
    "rail-only": dict(gpu="H100", nodes=64, topology="rail-only"),
    "ethernet 2:1": dict(gpu="H100", nodes=128, fabric="ethernet", oversubscription=2.0),
    "GB200 NVL72": dict(gpu="GB200", nodes=72),
    "grow": dict(gpu="H100", nodes=64, switch="QM9700", grow_to=256),
    "3-tier partial pod": dict(gpu="H100", nodes=1100, switch="QM9700", tiers=3),
    "per-rail planes": dict(gpu="H100", nodes=64, plane_mode="per-rail", planes=2),
    "2 planes rail-optimized": dict(gpu="H100", nodes=64, planes=2, nic="CX7-2P"),
    "800G uplinks": dict(gpu="B200", nodes=256, fabric="ethernet", switch="SN5600", port_speed_gbps=400,
                         uplink_speed_gbps=800),
    "3-tier ethernet": dict(gpu="H100", nodes=2048, fabric="ethernet", tiers=3),
}


def _h(text) -> str:
    return hashlib.sha256(str(text).encode()).hexdigest()[:16]


def _graph_text(graph) -> str:
    nodes = sorted((str(v), sorted((k, str(x)) for k, x in d.items())) for v, d in graph.nodes(data=True))
    edges = sorted((*sorted((str(a), str(b))), sorted((k, str(x)) for k, x in d.items()))
                   for a, b, d in graph.edges(data=True))
    return repr((sorted(graph.graph.items()), nodes, edges))


def _or_error(fn, *args):
    """``fn(*args)``, or its error's type and message (a refused output is part of the behaviour)."""
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"


def fingerprints(kwargs: dict) -> dict[str, str]:
    """Fingerprint of each wiring-dependent output of one design."""
    from core.analysis.availability import availability
    from core.analysis.failure import what_if
    from core.analysis.load import link_load
    from core.analysis.spof import single_points
    from core.design import Design
    from core.fabric.topology import aggregated_graph, fabric_graph
    from core.formats.exports import export_text, exports
    from core.physical.cabling import cabling_rows
    from core.plan import plan

    out: dict[str, str] = {}
    result = plan(Design(**kwargs))
    out["summary"] = _h(sorted(result.summary().items()))
    out["bom"] = _h(result.bom_frame().to_csv())
    out["layout"] = _h(result.layout.model_dump_json() if result.layout is not None else "")
    out["media"] = _h(repr(getattr(result, "media", None)))
    for name in exports():
        out[f"export:{name}"] = _h(_or_error(export_text, result, name))
    out["cabling_rows"] = _h(list(cabling_rows(result)))
    for servers in ("each", "grouped", "none"):
        out[f"graph:{servers}"] = _h(_graph_text(fabric_graph(result, servers=servers)))
    out["graph:aggregated"] = _h(_graph_text(aggregated_graph(result)))
    out["spof"] = _h(single_points(result).model_dump_json())
    for spec in ("leaf:1", "spine:1", "core:1", "nic:2", "link:1", "leaf:3", "spine:2", "plane:1", "rack:1"):
        out[f"whatif:{spec}"] = _h(_or_error(lambda: what_if(result, [spec]).model_dump_json()))
    for pattern in ("ring", "alltoall"):
        out[f"load:{pattern}"] = _h(_or_error(lambda: link_load(result, pattern).model_dump_json()))
    out["availability"] = _h(availability(result, trials=200).model_dump_json())
    return out


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--compare":
        a, b = (json.load(open(p)) for p in argv[1:3])
        diff = [(d, k) for d in a for k in a[d] if b.get(d, {}).get(k) != a[d][k]]
        diff += [(d, k) for d in b for k in b[d] if k not in a.get(d, {})]
        for d, k in diff:
            print(f"differs: {d} / {k}")
        print(f"{len(diff)} of {sum(len(v) for v in a.values())} outputs differ")
        return 1 if diff else 0
    result = {name: fingerprints(kwargs) for name, kwargs in GRID.items()}
    with open(argv[0], "w") as out:
        json.dump(result, out, indent=1, sort_keys=True)
    print(f"{sum(len(v) for v in result.values())} outputs of {len(result)} designs -> {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
