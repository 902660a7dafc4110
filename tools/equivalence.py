"""Fingerprints of every output that reads the fabric's wiring, over a grid of designs.

``python -m tools.equivalence [--physical] OUT.json`` writes ``{design: {output: sha256}}``; ``--compare A.json B.json``
lists what differs. Used to show a refactor of the wiring (``core.fabric.wiring``) leaves every output
byte-identical: run it before and after and compare. The grid covers one to three tiers, rail-optimized,
top-of-rack, rail-only and per-rail planes, several planes, partial SUs and pods, growth and NVL72 racks.
``--physical``: the outputs that read the racks, cable lengths and media (``physical_fingerprints``) over
``PHYSICAL_GRID``, every family up to 131,072 GPUs (a change of ``core.physical`` must leave them byte-identical).
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

PHYSICAL_GRID: dict[str, dict] = {
    **GRID,
    "Dragonfly+ 1024": dict(gpu="H100", gpus=1024, switch="QM9700", topology="dragonfly"),
    "Dragonfly+ 16384": dict(gpu="H100", gpus=16384, switch="QM9700", topology="dragonfly"),
    "classic Dragonfly 1024": dict(gpu="H100", gpus=1024, switch="QM9700", topology="classic-dragonfly"),
    "classic Dragonfly 16384": dict(gpu="H100", gpus=16384, switch="QM9700", topology="classic-dragonfly"),
    "torus 64": dict(gpu="B300", gpus=64, topology="torus"),
    "torus 4096": dict(gpu="B300", gpus=4096, topology="torus"),
    "NVL72 4608": dict(gpu="GB200-NVL72", gpus=4608),
    "NVL576 of NVL36": dict(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576, nvlink_rack_gpus=36),
    "NVL576": dict(gpu="GB200-NVL72", gpus=576, nvlink_domain_gpus=576),
    "pods": dict(gpu="H100", nodes=64, pods="B200:32:800"),
    "pods staged": dict(gpu="H100", nodes=64, pods="B200:32:800@1"),
    "multi-plane per-port 4": dict(gpu="B300", gpus=8192, fabric="ethernet", switch="SN5600", port_speed_gbps=400,
                                   planes=2),
    "per-rail 8 planes": dict(gpu="H800", gpus=4096, switch="QM9700", plane_mode="per-rail", planes=8),
    "rail-only pods": dict(gpu="H100", gpus=16384, topology="rail-only", oversubscription=0.5, su_nodes=16,
                           pod_sus=16, tiers=3),
    "HPN dual-ToR grow": dict(gpu="H100", gpus=4096, fabric="ethernet", switch="TH5", nic="CX7-2P",
                              port_speed_gbps=200, uplink_speed_gbps=400, planes=2, grow_to=1024,
                              spine_oversubscription=15.0),
    "ToR 1-tier 64": dict(gpu="H100", gpus=64, topology="top-of-rack", nodes_per_rack=2),
    "B300 XDR 1024": dict(gpu="B300", gpus=1024, switch="Q3400"),
    "B300 XDR 16384": dict(gpu="B300", gpus=16384, switch="Q3400"),
    "B300 XDR 131072": dict(gpu="B300", gpus=131072, switch="Q3400"),
    "H100 RoCE 131072": dict(gpu="H100", gpus=131072, fabric="ethernet", switch="SN5600", port_speed_gbps=400),
    "H100 Dragonfly+ 131072": dict(gpu="H100", gpus=131072, switch="QM9700", topology="dragonfly"),
    "H100 classic Dragonfly 131072": dict(gpu="H100", gpus=131072, switch="QM9700", topology="classic-dragonfly"),
    "H100 400G/800G 7800R4 16384": dict(gpu="H100", gpus=16384, fabric="ethernet", leaf_switch="SN5600",
                                        spine_switch="ARISTA-7800R4-576", core_switch="ARISTA-7800R4-576",
                                        port_speed_gbps=400, uplink_speed_gbps=800, nic="BF3"),
    "rack preset small": dict(gpu="H100", nodes=100, switch="QM9700", rack_kw=25),
}
"""The physical layer's grid (``--physical``): ``GRID`` and every family at up to 131,072 GPUs."""


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


def physical_fingerprints(kwargs: dict) -> dict[str, str]:
    """Fingerprint of each output of one design that reads its racks, cable lengths or media: the layout (every
    rack, row and device position), the lengths and media, the bill, the summary, the cabling plan and (up to
    16,384 GPUs) every export; a design the planner refuses gives its error."""
    from core.design import Design
    from core.formats.exports import export_text, exports
    from core.physical.cabling import cabling_rows
    from core.plan import plan

    try:
        result = plan(Design(**kwargs))
    except Exception as error:  # noqa: BLE001
        return {"error": _h(f"{type(error).__name__}: {error}")}
    out: dict[str, str] = {
        "summary": _h(sorted(result.summary().items())), "bom": _h(result.bom_frame().to_csv()),
        "reserved": _h(repr(result.reserved_bom)),
        "layout": _h(result.layout.model_dump_json() if result.layout is not None else ""),
        "layout_summary": _h(result.layout.summary() if result.layout is not None else ""),
        "lengths": _h(repr(result.lengths)), "media": _h(repr(result.media)),
        "cabling_rows": _h(_or_error(lambda: list(cabling_rows(result))))}
    if result.resolved.gpus <= 16384:
        for name in exports():
            out[f"export:{name}"] = _h(_or_error(export_text, result, name))
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help") or (argv[0].startswith("-") and argv[0] not in ("--compare",
                                                                                                 "--physical")):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    if argv and argv[0] == "--compare":
        a, b = (json.load(open(p)) for p in argv[1:3])
        diff = [(d, k) for d in a for k in a[d] if b.get(d, {}).get(k) != a[d][k]]
        diff += [(d, k) for d in b for k in b[d] if k not in a.get(d, {})]
        for d, k in diff:
            print(f"differs: {d} / {k}")
        print(f"{len(diff)} of {sum(len(v) for v in a.values())} outputs differ")
        return 1 if diff else 0
    if argv and argv[0] == "--physical":
        argv = argv[1:]
        result = {name: physical_fingerprints(kwargs) for name, kwargs in PHYSICAL_GRID.items()}
    else:
        result = {name: fingerprints(kwargs) for name, kwargs in GRID.items()}
    with open(argv[0], "w") as out:
        json.dump(result, out, indent=1, sort_keys=True)
    print(f"{sum(len(v) for v in result.values())} outputs of {len(result)} designs -> {argv[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
