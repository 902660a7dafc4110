"""Connectivity of a failed design: cut off, degraded and PXN GPUs (``core.analysis.failure``).

Nodes (and NVLink domains of several nodes, which forward over NVLink) join the switch components their
live ports reach (``core.analysis.failure.switches``); GPUs outside the component holding the most nodes
are cut off. ``analyse`` adds the bisection and ECMP of the failed state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.analysis.failure.bisection import _bisection
from core.analysis.failure.dead import _dead_of
from core.analysis.failure.ecmp import _ecmp
from core.analysis.failure.shape import Shape
from core.analysis.failure.switches import _Fabric, _Union
from core.plan import Plan


@dataclass
class _Unit:
    """Nodes that see the fabric alike: ``count`` nodes with the same ports."""

    count: int
    ports: list  # (p, i, nic, label or None)
    labels: frozenset


def _node_ports(fab: _Fabric, g: int, dead_nics: set) -> list:
    w = fab.shape.wiring
    ports = []
    for p, i in w.plane_islands():
        for lr in range(w.rails):
            nic = w.nic_of(lr, i)
            if nic in dead_nics:
                ports.append((p, i, nic, None))
                continue
            ports.append((p, i, nic, fab.label(p, i, w.leaf_of(g, lr))))
    return ports


def _units(fab: _Fabric) -> list[tuple[list[_Unit], int, int | None]]:
    """Pieces that share NVLink: ``(units, nodes, NVLink domain or None)``; a piece's labels are the union
    of its units'.

    A node count below zero means that many separate nodes alike (no NVLink between them). Groups whose
    leaves all live and reach their plane's spines see the fabric alike (per pod): their ports are
    computed once, and with one node per NVLink domain their nodes form one piece per pod. A multi-node
    domain that lost every NVLink switch chip falls apart into its nodes.
    """
    s, w, dead = fab.shape, fab.shape.wiring, fab.dead
    dead_leaf_groups = {w.group_of_leaf(k) for _p, _i, k in dead.leaves}
    dead_leaf_groups |= {w.group_of_leaf(k) for _p, _i, k, _b in fab.cut_leaf_spine}
    isolated_pods = {pod for (_p, _i, pod), n in fab.dead_spines_per_pod.items() if n >= fab.pod_spines}
    broken_by_group: dict[int, list] = {}
    for node in dead.nics:
        broken_by_group.setdefault(w.group_of_node(node), []).append(node)
    clean: dict = {}

    def clean_ports(g):
        pod = w.pod_of_group(g)
        key = g if (g in dead_leaf_groups or pod in isolated_pods) else ("pod", pod)
        if key not in clean:
            clean[key] = _node_ports(fab, g, set())
        return key, clean[key]

    def make(ports, count):
        return _Unit(count, ports, frozenset(x[3] for x in ports if x[3] is not None))

    pieces = []
    if s.nodes_per_domain == 1:
        merged: dict = {}
        for g in range(w.groups):
            n = w.group_nodes(g)
            broken = broken_by_group.get(g, ())
            if n - len(broken) > 0:
                key, ports = clean_ports(g)
                merged[key] = (ports, merged.get(key, (ports, 0))[1] + n - len(broken))
            for node in broken:
                pieces.append(([make(_node_ports(fab, g, dead.nics[node]), 1)], 1, None))
        for ports, count in merged.values():
            pieces.append(([make(ports, count)], -count, None))  # negative: that many separate nodes
        return pieces
    d = s.nodes_per_domain
    units_of: dict = {}
    split = {dom for dom, chips in dead.chips.items() if len(chips) >= s.nvl_chips}
    spans = []
    for first in range(0, s.nodes, d):
        last = min(s.nodes, first + d)
        if first // d in split:
            spans.extend((n, n + 1, first // d) for n in range(first, last))
        else:
            spans.append((first, last, first // d))
    for first, last, domain in spans:
        units = []
        node = first
        while node < last:
            g = w.group_of_node(node)
            end = min(last, g * w.nodes_per_group + w.group_nodes(g))
            broken = [x for x in broken_by_group.get(g, ()) if node <= x < end]
            if end - node - len(broken) > 0:
                key, ports = clean_ports(g)
                if key not in units_of:
                    units_of[key] = make(ports, 0)
                units.append(_Unit(end - node - len(broken), ports, units_of[key].labels))
            for x in broken:
                units.append(make(_node_ports(fab, g, dead.nics[x]), 1))
            node = end
        pieces.append((units, last - first, domain))
    return pieces


@dataclass
class Analysis:
    """Raw numbers of one failed state (``what_if`` wraps them with the perf models)."""

    nodes_disconnected: int
    gpus_degraded: int
    gpus_via_pxn: int
    worst_port_fraction: float
    stages_gbits: dict  # stage -> (healthy side, remaining side) [Gb/s]
    bisection_gbits: float
    healthy_bisection_gbits: float
    ecmp: list
    worst_leaf_up_fraction: float
    worst_spine_up_fraction: float
    nvlink_fraction: float = 1.0
    """NVLink bandwidth per GPU left in the worst connected NVLink domain (1: no switch chip lost)."""
    gpus_nvlink_degraded: int = 0
    """GPUs of connected NVLink domains that lost switch chips."""
    nodes_without_nvswitch: int = 0
    """HGX nodes that lost an NVSwitch chip (their GPUs are counted cut off)."""
    redundant: tuple = ()
    """Failed elements whose loss lost nothing (a rack feed whose partner lives)."""
    gpus_mesh_degraded: int = 0
    """GPUs that lost a direct-mesh link (counted in ``gpus_nvlink_degraded`` too)."""
    nic_degraded_by_domain: dict = field(default_factory=dict)
    """First-level NVLink domain (rack) index -> its GPUs among ``gpus_degraded`` (domains of several nodes only)."""
    nvlink_domains_degraded: frozenset = frozenset()
    """First-level NVLink domains (rack indices) whose GPUs are in ``gpus_nvlink_degraded`` for lost switch chips."""


def mesh_loss(shape: Shape, dead) -> tuple[float, int]:
    """``(fraction, gpus)`` of lost direct-mesh links: the scale-up bandwidth per GPU left at the worst GPU (its
    surviving links over all its links; a ring or an all-to-all over the mesh runs at its slowest member's pace)
    and the GPUs that lost a link."""
    fraction, gpus = 1.0, 0
    for pairs in dead.mesh.values():
        lost: dict[int, int] = {}
        for a, b in pairs:
            lost[a] = lost.get(a, 0) + shape.mesh_per_peer
            lost[b] = lost.get(b, 0) + shape.mesh_per_peer
        fraction = min(fraction, 1 - max(lost.values()) / max(1, shape.nvl_links))
        gpus += len(lost)
    return max(0.0, fraction), gpus


def _gpu_nics(shape: Shape) -> list[tuple[int, ...]]:
    gpn, nics = shape.gpus_per_node, shape.nics
    if nics >= gpn:
        return [tuple(range(g * nics // gpn, (g + 1) * nics // gpn)) for g in range(gpn)]
    return [(g * nics // gpn,) for g in range(gpn)]


def analyse(plan: Plan, elements) -> Analysis:
    shape = Shape.of(plan)
    dead = _dead_of(elements, shape)
    fab = _Fabric(shape, dead)
    pieces = _units(fab)

    # components: labels joined by pieces; pieces with no live port stand alone
    union = _Union()
    for units, _n, _d in pieces:
        labels = [lab for u in units for lab in u.labels]
        for lab in labels[1:]:
            union.union(labels[0], lab)
    size: dict = {}
    for units, n, _d in pieces:
        labels = [lab for u in units for lab in u.labels]
        if labels:  # a piece with no live port reaches no switch: cut off, never the main component
            root = union.find(labels[0])
            size[root] = size.get(root, 0) + abs(n)
    main = max(size, key=size.get) if size else None
    main_nodes = size.get(main, 0) if main is not None else 0
    nodes_disconnected = shape.nodes - main_nodes

    gpu_nics = _gpu_nics(shape)
    degraded = pxn = 0
    worst_fraction = 1.0
    total_ports = shape.nics * shape.planes
    nvlink_fraction = 1.0
    nvl_degraded: dict = {}
    nic_by_domain: dict = {}
    for units, _n, domain in pieces:
        labels = [lab for u in units for lab in u.labels]
        if main is None or not labels or union.find(labels[0]) != main:
            continue  # the piece (node, or NVLink domain of nodes) is cut off
        if domain is not None and domain in dead.chips:
            lost_links = sum(shape.chip_links(c) for c in dead.chips[domain])
            nvlink_fraction = min(nvlink_fraction, max(0.0, 1 - lost_links / max(1, shape.nvl_links)))
            nvl_degraded[domain] = nvl_degraded.get(domain, 0) + sum(u.count for u in units) * shape.gpus_per_node
        for u in units:
            lost = {}
            for _p, _i, nic, lab in u.ports:
                ok = lab is not None and union.find(lab) == main
                lost.setdefault(nic, [0, 0])
                lost[nic][0] += 0 if ok else 1
                lost[nic][1] += 1
            bad = sum(lost[n][0] for n in lost)
            worst_fraction = min(worst_fraction, 1 - bad / max(1, total_ports))
            for nics in gpu_nics:
                if any(lost[n][0] for n in nics):
                    degraded += u.count
                    if domain is not None:
                        nic_by_domain[domain] = nic_by_domain.get(domain, 0) + u.count
                    if all(lost[n][0] == lost[n][1] for n in nics):
                        pxn += u.count

    mesh_fraction, mesh_gpus = mesh_loss(shape, dead)
    nvlink_fraction = min(nvlink_fraction, mesh_fraction)
    nvl_degraded["mesh"] = mesh_gpus
    stages, bisection, healthy = _bisection(plan, shape, fab)
    ecmp, leaf_frac, spine_frac = _ecmp(shape, fab)
    redundant = tuple((t, k) for t, k, _c in elements if t == "feed" and k[0] not in dead.racks_down)
    return Analysis(nodes_disconnected, degraded, pxn, worst_fraction, stages, bisection, healthy, ecmp,
                    leaf_frac, spine_frac, nvlink_fraction, sum(nvl_degraded.values()),
                    len(dead.nodes_without_nvswitch), redundant, mesh_gpus, nic_by_domain,
                    frozenset(d for d in nvl_degraded if d != "mesh"))
