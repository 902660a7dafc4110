"""Check the as-built compute fabric of a design with pods against the whole fabric's plan: every pod's servers and
leaves and the shared spines (``core.fabric.podwiring``), and price every fault on the whole fabric.

The planned links are ``core.analysis.pods.mixed_links``: each pod's node-leaf cables (its own cabling plan) and
the leaf-spine cables of ``PodsWiring.uplinks`` at each pod's own speed [Gb/s per direction], a shared spine's port
named ``1/<port>/<lane>``. Found devices map to the wiring's ids (``pod2.node3``, ``pod2.p0.leaf1``, ``spine0``) by
the mapping file, the id itself or the name every export of the design gives them (``pod2-gpu004``,
``pod2-leaf002``, ``spine001``: ``core.formats.podexports.PodNames``), case-insensitively. Port numbers are the
ibsim net file's (``core.formats.podibsim``): a pod's leaf port ``n`` as the pod's own plan numbers it
(``core.analysis.verify.port_labels``), a shared spine's port ``n`` is port ``(n - 1) // b``, lane ``(n - 1) % b``
(``b``: ``core.formats.podibsim.spine_lanes``).

Pods on three tiers (``core.fabric.podcore``): each pod's leaf-spine cables are its own (a pod spine's port named
as the pod's own plan numbers it), the spine-core cables ``PodsWiring.core_links``' with a shared core's port
``1/<port>/<lane>`` (``b``: the most spine uplinks a pod puts on one core port); a spine on another core is
``wrong-core``, and a lost spine-core cable is one cable of the spine's bundle to the core
(``pod2.p0.spine0-core1#0``), priced by its bandwidth into the cores and the busiest spine-core link left.

Pods on several planes (two or three tiers): every plane's cables are planned (``mixed_links``); a found cable whose ends
are in different planes (a switch's plane from its id, a server port's from the leaf the plan cables it to) is
``wrong-plane``; a server link lost is priced as its NIC lost in every plane (an upper bound, as
``core.analysis.verify`` says).

Kinds are ``core.analysis.verify.KINDS``': ``missing``, ``extra``, ``wrong-speed``, ``wrong-plane``, and on a planned
port another link's cable: a NIC on a leaf of its own pod is a fabric's (``core.analysis.verify.nic_fault`` on the pod's wiring:
``wrong-port`` on its planned leaf, ``rail-swap`` on another rail's leaf of its leaf group, else ``wrong-leaf``), on
another pod's leaf ``wrong-leaf``; otherwise ``wrong-port`` (the planned pair of devices), ``wrong-spine`` (a leaf
on another spine), ``wrong-device`` (anything else). Each fault names the servers it touches (a server link's
server, a leaf's leaf group) and their Slurm tree switches and blocks (``slurm_groups``, the pods' Slurm export's
names).

Impact (``core.analysis.podwhatif.pods_what_if``, closed form on the whole fabric): a lost leaf-spine cable is that
one cable of its leaf's bundle to the spine lost (``pod2.p0.leaf1-spine0#0``), a lost server link its NIC (its GPUs degraded, or cut off with every NIC lost); a slow or wrong-port link and an extra link
cost no connectivity. Figures: GPUs cut off and degraded, bandwidth into the shared spines lost [Gb/s per
direction], and the busiest link left under the whole fabric's ring all-reduce (``core.analysis.loadpods``, per
pod: ``k`` of a leaf's ``n`` uplinks lost carry ``n / (n - k)`` times the load; ``m`` of a server's ``c`` NICs lost
``1 + ceil(m / (c - m))`` times). The fix order ranks each fault fixed alone from the all-faults state by GPUs
reconnected, then bandwidth back.
"""

from __future__ import annotations

import math
from collections import Counter

from core.analysis.pods import MixedPlan, mixed_links, mixed_wiring
from core.analysis.podwhatif import pods_what_if
from core.analysis.verify import (
    _ACTIONS, Fault, Planned, _found_json, coverage_of, device_of, match_found, nic_fault, nodes_touched, port_labels,
    result_of,
)
from core.errors import DesignError, InputError
from core.fabric.naming import NamingScheme
from core.fabric.wiring import Wiring
from core.i18n import _
from core.physical.cabling import node_port, port_names, position_of

_RANK = {"leaf": 1, "spine": 2, "core": 3}


class _PodsIndex:
    """The whole fabric's planned links by end, device names back to ids and each pod's leaf port numbers."""

    def __init__(self, mixed: MixedPlan, naming: NamingScheme | None):
        from core.formats.podexports import PodNames
        from core.formats.podibsim import spine_lanes

        self.mixed, self.wiring = mixed, mixed_wiring(mixed, three_tiers=True, planes=True)
        self.shared = "spine-core" if self.wiring.three_tiers else "leaf-spine"  # the links to the shared layer
        self.lanes = spine_lanes(mixed)
        self.names = PodNames(mixed, naming)
        self.leaf_ports = [port_labels(p, own, port_names(p, own)) for p, own in zip(mixed.plans, self.wiring.wirings)]
        self.links: list[Planned] = []
        self.by_end: dict = {}
        self.pairs: dict = {}
        for kind, a, a_port, b, b_port, speed in mixed_links(mixed):
            p = len(self.links)
            self.links.append(Planned(kind, a, a_port, p, b, b_port, p, speed, 0))
            self.by_end[a, a_port] = self.by_end[b, b_port] = p
            self.pairs.setdefault((a, b), []).append(p)
        ids = {link.a for link in self.links} | {link.b for link in self.links}
        self.lookup = {i.casefold(): i for i in ids}
        self.lookup.update({self.names.device(i).casefold(): i for i in ids})
        self.spine_labels = {link.b_label.casefold(): link.b_label for link in self.links if link.kind == self.shared}

    def role(self, device: str) -> tuple[str, int | None]:
        """``(role, pod position)`` of a device id: ``server``, ``leaf`` (with its pod) or ``spine`` (pod None: a
        shared one; on three tiers a pod's own, with its pod) or ``core`` (pod None)."""
        found = self.wiring.parse(device)
        if found is None:
            return ("core" if self.wiring.three_tiers else "spine"), None
        parsed = Wiring.parse(found[1])
        return ("server" if parsed is None else parsed[0]), found[0]

    def end(self, found, mapping: dict) -> tuple[str | None, str | None]:
        """``(device id, planned port label)`` of a found end; None where the plan has no such device or port."""
        device, nic = device_of(self.lookup, found, mapping)
        if device is None:
            return None, None
        role, pod = self.role(device)
        if role == "server":
            plane = found.port.rpartition("/port")[2]
            if nic is not None and plane.isdigit():
                return device, node_port(nic, int(plane) - 1)
            return device, found.port if found.port.startswith("nic") else None
        if found.port.isdigit():
            n = int(found.port)
            if pod is None:  # a shared spine or core: its port n is port (n - 1) // b, lane (n - 1) % b
                return device, f"1/{(n - 1) // self.lanes + 1}/{(n - 1) % self.lanes + 1}" if n > 0 else None
            return device, self.leaf_ports[pod][0][role].get(n)
        table = self.spine_labels if pod is None else self.leaf_ports[pod][1][role]
        return device, table.get(found.port.casefold())

    def plane(self, device: str | None, label: str | None) -> int | None:
        """The plane ``q`` of a found end: a switch's own (``PodsWiring.plane_of_device``), a server port's that of
        the leaf the plan cables it to; None when unknown."""
        if device is None or self.role(device)[0] != "server":
            return None if device is None else self.wiring.plane_of_device(device)
        p = self.by_end.get((device, label))
        return None if p is None else self.wiring.plane_of_device(self.links[p].b)

    def vertex(self, device: str) -> str:
        """The export name of a device id."""
        return self.names.device(device)


def _classify(index: _PodsIndex, ends: tuple, used: set) -> tuple[str, int | None]:
    """``(kind, planned link index or None)`` of a found link that is not a planned link (module docstring)."""
    (u, ul), (v, _vl) = ends
    on_ports = [index.by_end.get(end) for end in ends if end[1] is not None]
    on_ports = [p for p in on_ports if p is not None]
    pair = [p for p in index.pairs.get((u, v), ()) if p not in used]
    if not on_ports:
        return ("wrong-port", pair[0]) if pair else ("extra", None)
    free = [p for p in on_ports if p not in used]
    planned = free[0] if free else None
    pu, pv = index.plane(*ends[0]), index.plane(*ends[1])
    if pu is not None and pv is not None and pu != pv:  # pods on planes: a cable into another plane
        return "wrong-plane", planned
    lower, upper = index.role(u)[0], index.role(v)[0]
    nic_link = index.by_end.get((u, ul)) if lower == "server" and ul else None
    if nic_link is not None and upper == "leaf":  # a fabric's rule (nic_fault) on the NIC's pod's own wiring
        own = nic_link if nic_link not in used else planned
        (pod, planned_leaf), (found_pod, found_leaf) = (index.wiring.parse(index.links[nic_link].b),
                                                        index.wiring.parse(v))
        if pod != found_pod:
            return "wrong-leaf", own
        return nic_fault(index.wiring.wirings[pod], planned_leaf, found_leaf), own
    if pair:
        return "wrong-port", next((p for p in free if p in pair), pair[0])
    if lower == "server" and upper == "leaf":
        return "wrong-leaf", planned
    if lower == "leaf" and upper == "spine":
        return "wrong-spine", planned
    if lower == "spine" and upper == "core":
        return "wrong-core", planned
    return "wrong-device", planned


def pods_diff(index: _PodsIndex, found: list, mapping: dict, skip_speed: bool = False):
    """``(matched planned indices, faults, unknown device names)`` of ``found`` against the whole fabric
    (``core.analysis.verify.match_found``: the one matching rule)."""

    def ends_of(link) -> tuple:
        return tuple(sorted((index.end(e, mapping) for e in (link.a, link.b)),
                            key=lambda e: _RANK.get(index.role(e[0])[0], 0) if e[0] else 0))

    def unknown_of(link) -> list[str]:
        return [e.device for e in (link.a, link.b) if device_of(index.lookup, e, mapping)[0] is None]

    return match_found(index, found, ends_of, unknown_of, _classify, skip_speed)


def spec_of(index: _PodsIndex, fault: Fault) -> str | None:
    """What a fault loses: one cable of a leaf's bundle to a spine (``pod2.p0.leaf1-spine0#0``: its ordinal in the
    bundle, ``core.analysis.podwhatif``), of a pod spine's bundle to a core on three tiers
    (``pod2.p0.spine0-core1#0``) or a server's NIC (``pod2.node3.nic1``, 0-based); None for a wrong port, an extra
    or a slow link."""
    if fault.planned is None or fault.kind in ("extra", "wrong-port", "wrong-speed"):
        return None
    link = index.links[fault.planned]
    if link.kind in ("leaf-spine", "spine-core"):
        bundle = index.wiring.bundle_of(link.a, link.b)
        return f"{bundle}#{index.pairs[link.a, link.b].index(fault.planned)}"
    return f"{link.a}.nic{int(link.a_label[3:link.a_label.index('/')]) - 1}"


def healthy_pod_loads(mixed: MixedPlan) -> dict[tuple[int, str], float]:
    """Per ``(pod number, tier)`` the busiest up link's utilisation under the whole fabric's ring all-reduce,
    rail-aligned (``core.analysis.loadpods.pods_link_load``); empty when it does not apply."""
    from core.analysis.loadpods import pods_link_load

    try:
        result = pods_link_load(mixed, "ring", "rail")
    except (InputError, DesignError):
        return {}
    return {(row.pod, row.tier): row.ar_max for row in result.tiers if row.direction == "up"}


class _Pricer:
    """The whole fabric's figures with sets of specs lost, memoised by the set."""

    def __init__(self, index: _PodsIndex):
        self.index, self.cache = index, {}
        self.loads = healthy_pod_loads(index.mixed)
        self.healthy = {"gpus_cut_off": 0, "gpus_degraded": 0, "spine_gbps_lost": 0.0,
                        "spine_gbps": sum(loss.healthy_spine_gbps for loss in pods_what_if(index.mixed, []))}

    def price(self, specs: frozenset) -> dict:
        """GPUs cut off and degraded, bandwidth into the spines lost [Gb/s per direction], the busiest link left."""
        if specs in self.cache:
            return self.cache[specs]
        mixed, wiring = self.index.mixed, self.index.wiring
        bundles = sorted(s for s in specs if ".nic" not in s)
        losses = pods_what_if(mixed, bundles)
        nics = Counter(s.rpartition(".nic")[0] for s in specs if ".nic" in s)
        cut = sum(loss.gpus_cut_off for loss in losses)
        degraded = sum(loss.nodes_degraded * p.resolved.gpus_per_node for loss, p in zip(losses, mixed.plans))
        for node, m in nics.items():
            pod = wiring.parse(node)[0]
            p = mixed.plans[pod]
            if m >= p.resolved.nics_per_node:
                cut += p.resolved.gpus_per_node
            else:
                degraded += p.resolved.gpus_per_node
        out = {"gpus_cut_off": cut, "gpus_degraded": degraded,
               "spine_gbps_lost": round(sum(x.healthy_spine_gbps - x.spine_gbps for x in losses), 3),
               "busiest_link": self.busiest(bundles, nics)}
        self.cache[specs] = out
        return out

    def busiest(self, bundles: list[str], nics: Counter) -> dict | None:
        """The busiest link the lost ``bundles`` and NICs leave (module docstring), or None."""
        mixed, wiring, found = self.index.mixed, self.index.wiring, []
        for node, m in nics.items():
            pod = wiring.parse(node)[0]
            c, load = mixed.plans[pod].resolved.nics_per_node, self.loads.get((mixed.fabric.pods[pod].index + 1,
                                                                                "node_leaf"))
            if load is not None and m < c:
                found.append((pod, "node_leaf", load, load * (1 + math.ceil(m / (c - m)))))
        for lower, lost in Counter(b.rpartition("-")[0] for b in bundles).items():  # one cable each
            pod = wiring.parse(lower)[0]
            spec = mixed.fabric.pods[pod]
            tier = "spine_core" if self.index.role(lower)[0] == "spine" else "leaf_spine"
            n = spec.spine_uplinks if tier == "spine_core" else spec.uplinks_per_leaf
            load = self.loads.get((spec.index + 1, tier))
            if load is not None and lost < n:
                found.append((pod, tier, load, load * n / (n - lost)))
        if not found:
            return None
        pod, tier, healthy, value = max(found, key=lambda item: item[3])
        return {"tier": tier, "pod": mixed.fabric.pods[pod].index + 1, "utilisation": round(value, 4),
                "healthy_utilisation": round(healthy, 4)}


def _gain(before: dict, after: dict) -> dict:
    """What fixing gives back: GPUs reconnected and bandwidth into the shared spines [Gb/s per direction]."""
    return {"gpus_reconnected": before["gpus_cut_off"] - after["gpus_cut_off"],
            "spine_gbps_back": round(before["spine_gbps_lost"] - after["spine_gbps_lost"], 3)}


def _price(index: _PodsIndex, faults: list[Fault]) -> tuple[dict, list[dict]]:
    """Each fault's ``impact`` (set on it), ``(all together, fix order)``."""
    pricer = _Pricer(index)
    specs = [spec_of(index, f) for f in faults]
    lost = frozenset(s for s in specs if s)
    together = dict(pricer.price(lost))
    nothing = pricer.price(frozenset())
    for fault, spec in zip(faults, specs):
        fault.impact = pricer.price(frozenset({spec})) if spec else dict(nothing)
    gains = {i: _gain(together, pricer.price(lost - {spec})) if spec else _gain(nothing, nothing)
             for i, spec in enumerate(specs)}
    ranked = sorted(gains, key=lambda i: (-gains[i]["gpus_reconnected"], -gains[i]["spine_gbps_back"], i))
    together.update(faults_priced=len(lost), healthy=pricer.healthy)
    return together, [{"rank": r + 1, "fault": i, "action": _ACTIONS.get(faults[i].kind, "move"), **gains[i]}
                      for r, i in enumerate(ranked)]


def slurm_groups(mixed: MixedPlan, naming: NamingScheme | None) -> tuple[dict[str, str], dict[str, str]]:
    """``(node name -> its leaf-level switch of the Slurm tree, node name -> its block)`` over every pod, each pod's
    own (``core.formats.slurm.node_groups`` under its ``pod<n>-`` names, as the pods' Slurm export names them:
    ``core.formats.podslurm``)."""
    from core.formats.podslurm import pod_scheme
    from core.formats.slurm import node_groups

    switch_of: dict[str, str] = {}
    block_of: dict[str, str] = {}
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        switches, blocks = node_groups(p, pod_scheme(naming, pod.index + 1))
        switch_of.update(switches)
        block_of.update(blocks)
    return switch_of, block_of


def touched_nodes(index: _PodsIndex, fault: Fault, devices: list[str]) -> list[str]:
    """The names of the servers whose paths a fault touches: a fabric's rule (``nodes_touched``) on each pod's
    own wiring (a server link's server; a leaf's leaf group)."""
    by_pod: dict[int, list[str]] = {}
    for device in devices:
        found = index.wiring.parse(device)
        if found is not None:
            by_pod.setdefault(found[0], []).append(found[1])
    server_link = any(index.role(d)[0] == "server" for d in devices)
    names = []
    for pod, own in by_pod.items():
        own = own if not server_link else [d for d in own if index.role(index.wiring.local_id(pod, d))[0] == "server"]
        names += [index.vertex(index.wiring.node_id(pod, n))
                  for n in nodes_touched(index.wiring.wirings[pod], own, fault.kind)]
    return names


def _where(index: _PodsIndex, fault: Fault, slurm: tuple[dict, dict]) -> dict:
    """Where a fault is: switches, leaves, racks of the hall, rail (NIC), servers affected and their Slurm tree
    switches and blocks (``slurm``: ``slurm_groups``)."""
    devices = []
    if fault.planned is not None:
        devices += [index.links[fault.planned].a, index.links[fault.planned].b]
    devices = list(dict.fromkeys(devices + [d for d, _label in fault.ends if d]))
    roles = {d: index.role(d)[0] for d in devices}
    hall = index.mixed.hall.layout if index.mixed.hall is not None else None
    nic = None
    labels = [index.links[fault.planned].a_label] if fault.planned is not None else []
    labels += [label for d, label in fault.ends if d and roles[d] == "server" and label]
    if labels and labels[0].startswith("nic"):
        nic = int(labels[0][3:labels[0].index("/")])
    nodes = touched_nodes(index, fault, devices)
    return {"switches": [index.vertex(d) for d in devices if roles[d] != "server"],
            "leaves": [index.vertex(d) for d in devices if roles[d] == "leaf"],
            "racks": sorted({position_of(hall, d)[0] for d in devices} - {""}), "nic": nic, "nodes": len(nodes),
            "slurm_switches": sorted({slurm[0][n] for n in nodes if n in slurm[0]}),
            "slurm_blocks": sorted({slurm[1][n] for n in nodes if n in slurm[1]})}


def _planned_json(index: _PodsIndex, p: int | None) -> dict | None:
    if p is None:
        return None
    link = index.links[p]
    pod = index.role(link.a)[1]
    return {"class": link.kind, "a": link.a, "a_name": index.vertex(link.a), "a_port": link.a_label,
            "b": link.b, "b_name": index.vertex(link.b), "b_port": link.b_label, "speed_gbps": link.speed_gbps,
            "plane": index.wiring.plane_of_device(link.b) or 0, "pod": index.mixed.fabric.pods[pod].index + 1}


def verify_pods(mixed: MixedPlan, found: list, mapping: dict | None = None, naming: NamingScheme | None = None,
                skip_speed: bool = False) -> dict:
    """The as-built check of ``found`` against the whole fabric of ``mixed`` (module docstring), as
    ``core.analysis.verify.verify``'s JSON-ready data: ``matched``, ``missing``, ``extra``, ``miswired``,
    ``impact`` (GPUs cut off and degraded, ``spine_gbps_lost`` [Gb/s per direction], ``busiest_link`` with its
    ``pod``), ``fixes``, ``summary``, ``coverage`` and ``notes``; each planned end carries its ``pod`` (1-based)."""
    index = _PodsIndex(mixed, naming)
    matched, faults, unknown = pods_diff(index, found, mapping or {}, skip_speed)
    together, fixes = _price(index, faults)
    slurm = slurm_groups(mixed, naming) if faults else ({}, {})
    rows = [{"id": n, "kind": f.kind, "planned": _planned_json(index, f.planned), "found": _found_json(f.found),
             "failure_spec": spec_of(index, f),
             "unknown_device": bool(f.ends) and None in (f.ends[0][0], f.ends[1][0]),
             "impact": f.impact, "where": _where(index, f, slurm)} for n, f in enumerate(faults)]
    coverage, checked = coverage_of(index, matched, faults, found, unknown, skip_speed)
    notes = [_("A design with pods: checked against the whole fabric, every pod under the shared spines "
               "({pods} pods, {spines} shared spines).").format(pods=len(mixed.fabric.pods),
                                                                spines=mixed.fabric.spines)
             if mixed.fabric.tiers != 3 else
             _("A design with pods on three tiers: checked against the whole fabric, every pod's leaves and own "
               "spines under the shared cores ({pods} pods, {cores} shared cores).").format(
                 pods=len(mixed.fabric.pods), cores=mixed.fabric.cores), *checked]
    if mixed.fabric.planes > 1 and any(r["failure_spec"] and ".nic" in r["failure_spec"] for r in rows):
        notes.append(_("A server link lost is priced as its NIC lost in every plane: an upper bound with several "
                       "planes."))  # core.analysis.verify's rule
    return result_of(rows, matched, together, fixes, coverage, notes)
