"""Check the as-built compute fabric against the plan, and price every fault with the failure analysis.

``verify(plan, found, mapping)`` takes the links an as-built reader found (``core.formats.asbuilt.FoundLink``, read
through its fields only, as this layer imports nothing of the formats':
``ibnetdiscover``, LLDP JSON, the NetBox cables CSV) and returns JSON-ready data: which planned links were
found as planned (``matched``), which were not (``missing``), which found links the plan does not have
(``extra``), and which found links took a planned link's place the wrong way (``miswired``, each with its planned
and found ends and a ``kind``), a summary per rack, leaf and rail, how much of the plan could be matched, and the
impact of each fault and of all of them together.

Planned links are ``core.fabric.wiring.Wiring.links``; a switch end's port is the cabling plan's port name
(``core.physical.cabling.port_names``; an InfiniBand port number ``n`` is the port starting at unit ``n - 1``,
``port_units``), a server end's ``nic<k>/port<p>`` (NIC ``k``, plane ``p``, 1-based). Found devices map to planned
ones by the mapping file (``core.formats.asbuilt.read_mapping``: names, HCA descriptions, GUIDs), else by wiring id
(``p0.leaf3``, ``node5``) or exported name (``leaf004``, ``gpu006``; ``core.fabric.naming``), case-insensitively.

Kinds (``KINDS``): a planned link not found is ``missing``; a found link between ports the plan leaves free is
``extra``; a found link on a port the plan gives another link is ``miswired``: ``wrong-plane`` (its ends are in
different planes), ``wrong-port`` (the planned pair of devices on other ports), ``rail-swap`` (a NIC on the leaf of
another rail of its scalable unit), ``wrong-leaf`` (a NIC on a leaf the plan does not cable it to, of its rail),
``wrong-spine`` / ``wrong-core`` (a leaf or spine cabled to an upper switch it should not reach), ``wrong-device``
(anything else); a link found where planned but slower is ``wrong-speed`` (speed or width).

Impact (``core.analysis.failure.what_if``, the same closed forms as ``python -m core failure``): a missing or
miswired link is its planned link lost (a server's link: ``node<n>.nic<k>``, every port of the NIC, so with
several planes an upper bound; a switch link: cable ``#x`` of its bundle, ``p0.leaf3-spine1#0``); a slow link is
priced between healthy and lost by its lost share of the speed (linear, an approximation; in the total of all
faults it counts as lost, an upper bound); a wrong port on the
planned pair of devices and an extra link cost no bandwidth (they still break port-based configuration and the
records). Per fault and for all faults together: GPUs cut off and degraded, bisection lost [Tb/s, one direction],
all-reduce and all-to-all busbw of 1 GiB on the connected GPUs [GB/s], the busiest link left under the load
analysis's ring all-reduce (``busiest_link``: utilisation, above 1 overloaded); the nodes, switches and Slurm tree
switches and blocks affected; and the fix order: each priced fault fixed alone from the all-faults state, ranked
by GPUs reconnected, then all-reduce busbw back, then all-to-all busbw, then bisection back (at most
``MAX_RANKED`` faults re-priced; the rest follow by their own impact).
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import NamedTuple

from core.analysis.failure import what_if
from core.errors import DesignError, InputError
from core.fabric.families import clos_tiers
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.i18n import N_, _
from core.physical.cabling import node_port, port_names, port_units, position_of
from core.plan import Plan

KINDS = {"missing": N_("missing link"), "extra": N_("extra link"), "wrong-port": N_("wrong port"),
         "rail-swap": N_("rail swap (a NIC on another rail's leaf)"), "wrong-leaf": N_("NIC on the wrong leaf"),
         "wrong-spine": N_("leaf cabled to the wrong spine"), "wrong-core": N_("spine cabled to the wrong core"),
         "wrong-speed": N_("wrong speed or width"), "wrong-plane": N_("link in the wrong plane"),
         "wrong-device": N_("wrong device")}
"""Fault kinds (module docstring) -> English label marked for translation."""
MAX_RANKED = 48
"""Most faults re-priced one by one for the fix order (each one what-if on the all-faults state)."""
CSV_COLUMNS = ("id", "kind", "planned_a", "planned_a_port", "planned_b", "planned_b_port", "planned_speed_gbps",
               "found_a", "found_a_port", "found_b", "found_b_port", "found_speed_gbps", "found_line",
               "gpus_cut_off", "gpus_degraded", "bisection_lost_tbits", "allreduce_busbw_gbytes",
               "alltoall_busbw_gbytes", "busiest_link_tier", "busiest_link_utilisation", "fix_rank", "fix_action",
               "switches", "racks", "slurm_switches", "slurm_blocks")
"""Columns of ``--format csv``: a fault's planned and found ends, its impact and where it is."""
_NIC_PORT = re.compile(r"^nic(\d+)/port(\d+)$", re.IGNORECASE)
_ANY_NIC = re.compile(r"^\?/port(\d+)$")
_MAPPED_NIC = re.compile(r"^(.+?)\s+nic(\d+)$", re.IGNORECASE)


class Planned(NamedTuple):
    """A planned link: class, ends (device id, port label), port ordinals, speed [Gb/s per direction], plane."""

    kind: str
    a: str
    a_label: str
    a_port: int
    b: str
    b_label: str
    b_port: int
    speed_gbps: int
    plane: int


def port_labels(plan: Plan, wiring: Wiring, names: dict) -> tuple[dict, dict]:
    """``(role -> port number -> port name, role -> casefolded name -> name)`` of ``plan``'s switches: an InfiniBand
    port number ``n`` is the port starting at unit ``n - 1`` (``port_units``), ``names`` is ``port_names``'."""
    number_to_label, labels = {}, {}
    for role, (_layout, down, up, _cost) in port_units(plan, wiring).items():
        numbers = {u + 1: names[role, "down"][o] for o, u in enumerate(down)}
        numbers.update({u + 1: names[role, "up"][o] for o, u in enumerate(up)})
        number_to_label[role] = numbers
        labels[role] = {label.casefold(): label for label in numbers.values()}
    return number_to_label, labels


def device_of(names: dict, found: tuple, mapping: dict) -> tuple[str | None, int | None]:
    """``(device id, NIC index from the mapping or None)`` of a found end by the mapping file, else its name
    (``names``: casefolded id or exported name -> id); ``(None, None)`` when unknown."""
    for key in (f"{found.device} {found.hca}".casefold() if found.hca else None, found.device.casefold(),
                f"0x{found.guid}" if found.guid else None):
        mapped = mapping.get(key) if key else None
        if mapped is not None:
            nic = _MAPPED_NIC.match(mapped)
            if nic:
                return names.get(nic[1].casefold()), int(nic[2]) - 1
            return names.get(mapped.casefold()), None
    return names.get(found.device.casefold()), None


@dataclass
class _Index:
    """The plan's links by end, port names by role and number, and device names back to ids."""

    plan: Plan
    wiring: Wiring
    links: list[Planned]
    by_end: dict
    pairs: dict
    number_to_label: dict
    labels: dict
    names: dict
    namer: Namer

    @staticmethod
    def of(plan: Plan, naming: NamingScheme | None) -> "_Index":
        """The index of ``plan`` (``InputError`` for a topology family other than the folded Clos)."""
        wiring = Wiring.of(plan)
        if not clos_tiers(plan.fabric.family):
            raise InputError(_("the as-built check covers folded-Clos fabrics; this design is a {family}").format(
                family=plan.fabric.family))
        names = port_names(plan, wiring)
        number_to_label, labels = port_labels(plan, wiring, names)
        links, by_end, pairs = [], {}, {}
        for plane, island in wiring.plane_islands():
            for kind, a, a_port, b, b_port, speed in wiring.links(plane, island):
                lower, upper = kind.split("-")
                a_label = node_port(a_port, plane) if lower == "node" else names[lower, "up"][a_port]
                link = Planned(kind, a, a_label, a_port, b, names[upper, "down"][b_port], b_port, speed, plane)
                by_end[a, a_label] = by_end[b, link.b_label] = len(links)
                pairs.setdefault((a, b), []).append(len(links))
                links.append(link)
        namer = Namer.of(plan, naming)
        ids = [*wiring.all_switch_ids(), *(wiring.node_id(n) for n in range(wiring.nodes))]
        lookup = {i.casefold(): i for i in ids}
        lookup.update({namer.vertex(i).casefold(): i for i in ids})
        return _Index(plan, wiring, links, by_end, pairs, number_to_label, labels, lookup, namer)

    def device(self, found: tuple, mapping: dict) -> tuple[str | None, int | None]:
        """``(device id, NIC index from the mapping or None)`` of a found end; ``(None, None)`` when unknown."""
        return device_of(self.names, found, mapping)

    def label(self, device: str, found: tuple, nic: int | None) -> str | None:
        """The planned port label of a found end on ``device``; None when it names no port of the plan (a server's
        NIC the tool does not name: found from the link's other end)."""
        role = Wiring.parse(device)
        if role is None:  # a server
            port = _NIC_PORT.match(found.port)
            any_nic = _ANY_NIC.match(found.port)
            plane = int(port[2]) if port else int(any_nic[1]) if any_nic else None
            if nic is not None and plane is not None:
                return node_port(nic, plane - 1)
            return node_port(int(port[1]) - 1, int(port[2]) - 1) if port else None
        if found.port.isdigit():
            return self.number_to_label[role[0]].get(int(found.port))
        return self.labels[role[0]].get(found.port.casefold())


@dataclass
class Fault:
    """One deviation: its ``kind``, the planned link it concerns (index) and the found link (or None)."""

    kind: str
    planned: int | None
    found: tuple | None
    ends: tuple = ()
    """The found link's resolved ends ``((device id or None, label or None), ...)``."""
    impact: dict = field(default_factory=dict)


_RANK = {"leaf": 1, "spine": 2, "core": 3}


def _rank(device: str | None) -> int:
    role = Wiring.parse(device) if device else None
    return _RANK[role[0]] if role else 0


def _resolve(index: _Index, link: tuple, mapping: dict) -> tuple:
    """The found link's ends as ``((device id, port label), ...)``, the lower end first (a server, then a leaf,
    spine, core); ``None`` where a device or port is not the plan's. A server's NIC the tool does not name is the
    one the plan cables to the switch end's port."""
    ends = []
    for end in (link.a, link.b):
        device, nic = index.device(end, mapping)
        ends.append((device, index.label(device, end, nic) if device else None))
    for i in (0, 1):
        (device, label), other = ends[i], ends[1 - i]
        if device and label is None and Wiring.parse(device) is None and other[1] is not None:
            planned = index.by_end.get(other)
            if planned is not None and index.links[planned].a == device:
                ends[i] = (device, index.links[planned].a_label)
    return tuple(sorted(ends, key=lambda e: _rank(e[0])))


def _plane(device: str, label: str | None) -> int | None:
    role = Wiring.parse(device)
    if role is not None:
        return role[1]
    port = _NIC_PORT.match(label or "")
    return int(port[2]) - 1 if port else None


def _classify(index: _Index, ends: tuple, used: set) -> tuple[str, int | None]:
    """``(kind, planned link index or None)`` of a found link that is not a planned link (module docstring)."""
    (u, ul), (v, vl) = ends
    on_ports = [index.by_end.get(end) for end in ends if end[1] is not None]
    free = [p for p in on_ports if p is not None and p not in used]
    pair = [p for p in index.pairs.get((u, v), ()) if p not in used]
    if not [p for p in on_ports if p is not None]:
        if pair:  # the planned pair of devices, on ports the plan leaves free
            return "wrong-port", pair[0]
        return "extra", None
    planned = free[0] if free else None
    pu, pv = _plane(u, ul), _plane(v, vl)
    if pu is not None and pv is not None and pu != pv:
        return "wrong-plane", planned
    lower, upper = Wiring.parse(u), Wiring.parse(v)
    nic_link = index.by_end.get((u, ul)) if lower is None and ul else None
    if nic_link is not None and upper is not None and upper[0] == "leaf":
        own = nic_link if nic_link not in used else planned
        return nic_fault(index.wiring, index.links[nic_link].b, v), own
    if pair:
        return "wrong-port", next((p for p in free if p in pair), pair[0])
    if lower is None:
        return "wrong-leaf", planned
    if lower is not None and upper is not None:
        return ("wrong-spine" if lower[0] == "leaf" else "wrong-core"), planned
    return "wrong-device", planned


def nic_fault(wiring: Wiring, planned_leaf: str, found_leaf: str) -> str:
    """The kind of a NIC port found on leaf ``found_leaf`` where the plan cables it to ``planned_leaf`` (leaf ids of
    ``wiring``, one plane): ``wrong-port`` (its planned leaf, another port), ``rail-swap`` (the leaf of another rail
    of its scalable unit) or ``wrong-leaf`` (any other leaf). The one rule of a fabric and of a design's pods
    (``core.formats.podverify``, each pod's own wiring)."""
    if planned_leaf == found_leaf:
        return "wrong-port"
    planned, found = Wiring.parse(planned_leaf)[3], Wiring.parse(found_leaf)[3]
    if wiring.group_of_leaf(planned) == wiring.group_of_leaf(found) and \
            wiring.rail_of_leaf(planned) != wiring.rail_of_leaf(found):
        return "rail-swap"
    return "wrong-leaf"


def diff(index: _Index, found: list[tuple], mapping: dict, skip_speed: bool = False):
    """``(matched planned indices, faults, unknown device names)`` of ``found`` against the plan."""

    def unknown_of(link) -> list[str]:
        return [end.device for end, (device, _label) in zip((link.a, link.b), _resolve_raw(index, link, mapping))
                if device is None]

    return match_found(index, found, lambda link: _resolve(index, link, mapping), unknown_of, _classify, skip_speed)


def match_found(index, found: list, ends_of, unknown_of, classify, skip_speed: bool = False):
    """``(matched planned indices, faults, unknown device names)``: each found link matched to the planned link
    both its ends name (``index.by_end``; a match slower than planned by over 1% is a ``wrong-speed`` fault unless
    ``skip_speed``), the others classified by ``classify(index, ends, used)`` once every exact match is taken, every
    planned link left unmatched ``missing``; a link with an end ``ends_of`` cannot place is ``extra``, its devices
    that ``unknown_of`` names counted as unknown. The one matching rule of a fabric (``diff``) and of a design's
    pods (``core.formats.podverify.pods_diff``); speeds in Gb/s."""
    used: set = set()
    matched, faults, pending = [], [], []
    unknown: Counter = Counter()
    for link in found:
        ends = ends_of(link)
        if ends[0][0] is None or ends[1][0] is None:
            unknown.update(unknown_of(link))
            faults.append(Fault("extra", None, link, ends))
            continue
        p = index.by_end.get(ends[0]) if ends[0][1] else None
        if p is not None and p == index.by_end.get(ends[1]) and p not in used:
            used.add(p)
            planned_speed = index.links[p].speed_gbps
            if not skip_speed and link.speed_gbps and abs(link.speed_gbps - planned_speed) > 0.01 * planned_speed:
                faults.append(Fault("wrong-speed", p, link, ends))
            else:
                matched.append(p)
            continue
        pending.append((link, ends))
    for link, ends in pending:
        kind, planned = classify(index, ends, used)
        if planned is not None:
            used.add(planned)
        faults.append(Fault(kind, planned, link, ends))
    faults.extend(Fault("missing", p, None) for p in range(len(index.links)) if p not in used)
    return matched, faults, sorted(unknown)


def _resolve_raw(index: _Index, link: tuple, mapping: dict) -> list:
    """The found link's ends as resolved devices in the file's order (for naming unknown devices)."""
    return [index.device(end, mapping) for end in (link.a, link.b)]


def failure_spec(index: _Index, planned: Planned) -> str:
    """The failure-spec element (``core.analysis.failure``) of a planned link lost: ``node5.nic2`` (the NIC, every
    plane) or ``p0.leaf3-spine1#0`` (cable ``#x`` of its bundle)."""
    if planned.kind == "node-leaf":
        return f"{planned.a}.nic{planned.a_port}"
    w, upper = index.wiring, Wiring.parse(planned.b)
    per = w.pair_links if planned.kind == "leaf-spine" else w.core_pair_links(Wiring.parse(planned.a)[3])
    return f"{planned.a}-{upper[0]}{upper[3]}#{planned.a_port % max(1, per)}"


def _figures(result, healthy_bisection: float) -> dict:
    """The impact figures of one ``FailureResult``."""
    return {"gpus_cut_off": result.gpus_disconnected, "gpus_degraded": result.gpus_degraded,
            "bisection_lost_tbits": round(healthy_bisection - result.bisection_tbits_one_direction, 6),
            "allreduce_busbw_gbytes": None if result.busbw_gbytes is None else round(result.busbw_gbytes, 3),
            "alltoall_busbw_gbytes": None if result.alltoall_busbw_gbytes is None
            else round(result.alltoall_busbw_gbytes, 3)}


class _Pricer:
    """What-ifs of sets of lost links on one plan, memoised by the set."""

    def __init__(self, plan: Plan):
        self.plan, self.cache, self.healthy = plan, {}, None

    def price(self, specs: frozenset) -> dict:
        """The figures with ``specs`` lost (healthy figures for none)."""
        if specs not in self.cache:
            if not specs:
                self.cache[specs] = dict(self.healthy)
            else:
                result = what_if(self.plan, sorted(specs))
                if self.healthy is None:
                    self.healthy = {"gpus_cut_off": 0, "gpus_degraded": 0, "bisection_lost_tbits": 0.0,
                                    "allreduce_busbw_gbytes": _round(result.healthy_busbw_gbytes),
                                    "alltoall_busbw_gbytes": _round(result.healthy_alltoall_busbw_gbytes),
                                    "bisection_tbits": round(result.healthy_bisection_tbits_one_direction, 6)}
                self.cache[specs] = _figures(result, self.healthy["bisection_tbits"])
        return self.cache[specs]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _scaled(healthy: dict, lost: dict, share: float) -> dict:
    """Figures between healthy and ``lost`` at ``share`` (0 healthy, 1 lost) of the link's speed lost."""
    out = {"gpus_cut_off": 0, "gpus_degraded": lost["gpus_degraded"] if share > 0 else 0,
           "bisection_lost_tbits": round(lost["bisection_lost_tbits"] * share, 6)}
    for key in ("allreduce_busbw_gbytes", "alltoall_busbw_gbytes"):
        h, x = healthy.get(key), lost.get(key)
        out[key] = None if h is None else round(h - (h - (x or 0.0)) * share, 3)
    return out


def _spec_of(index: _Index, fault: Fault) -> str | None:
    """The failure spec a fault loses, or None (a wrong port on the planned pair, an extra link, a slow link)."""
    if fault.planned is None or fault.kind in ("extra", "wrong-port", "wrong-speed"):
        return None
    return failure_spec(index, index.links[fault.planned])


def healthy_loads(plan: Plan) -> dict[str, float]:
    """Per tier, the busiest up link's utilisation (offered load / capacity) of the load analysis's ring all-reduce,
    rail-aligned, under adaptive routing (``core.analysis.load.link_load``, its defaults); empty when it does not
    apply (one GPU, a design it refuses)."""
    from core.analysis.load import link_load

    try:
        result = link_load(plan, "ring", "rail")
    except (InputError, DesignError):
        return {}
    return {row.tier: row.ar_max for row in result.tiers if row.direction == "up"}


def busiest_link(index: _Index, specs: frozenset, loads: dict[str, float]) -> dict | None:
    """The busiest link the lost links ``specs`` leave, from the healthy ``loads`` (``healthy_loads``): a switch
    spreads its traffic over its live uplinks (adaptive routing, as the load analysis), so ``k`` of ``n`` uplinks
    lost carry ``n / (n - k)`` times the load; a NIC lost sends its GPU's share over NVLink to one other NIC
    (PXN, as the failure analysis), ``m`` lost of ``c`` NICs ``1 + ceil(m / (c - m))`` times. ``{"tier",
    "utilisation", "healthy_utilisation"}`` of the worst, or None (no loads, or every uplink lost: cut off)."""
    w, lost_nics, lost_up = index.wiring, Counter(), Counter()
    for spec in specs:
        if ".nic" in spec:
            lost_nics[spec.split(".nic")[0]] += 1
        else:
            lost_up[spec.split("-")[0]] += 1
    found = []
    nics = index.plan.resolved.nics_per_node
    if lost_nics and "node_leaf" in loads and max(lost_nics.values()) < nics:
        m = max(lost_nics.values())
        found.append(("node_leaf", loads["node_leaf"] * (1 + math.ceil(m / (nics - m)))))
    for switch, k in lost_up.items():
        role, _plane, _island, number = Wiring.parse(switch)
        tier = "leaf_spine" if role == "leaf" else "spine_core"
        n = len(w.spines_of_leaf(number)) * w.pair_links if role == "leaf" else \
            len(w.cores_of_spine(number)) * w.core_pair_links(number)
        if tier in loads and k < n:
            found.append((tier, loads[tier] * n / (n - k)))
    if not found:
        return None
    tier, value = max(found, key=lambda item: item[1])
    return {"tier": tier, "utilisation": round(value, 4), "healthy_utilisation": round(loads[tier], 4)}


def price(index: _Index, faults: list[Fault]) -> tuple[dict, list[dict]]:
    """Each fault's ``impact`` (set on it), ``(all together, fix order)`` (module docstring)."""
    pricer = _Pricer(index.plan)
    specs = [_spec_of(index, f) for f in faults]
    lost = frozenset(s for s in specs if s)
    speed = [f for f in faults if f.kind == "wrong-speed"]
    if not lost and speed:
        pricer.price(frozenset({failure_spec(index, index.links[speed[0].planned])}))
    if not lost and not speed:  # nothing costs bandwidth (wrong ports, extra links): listed, in file order
        nothing = {"gpus_reconnected": 0, "allreduce_busbw_back_gbytes": 0.0, "alltoall_busbw_back_gbytes": 0.0,
                   "bisection_back_tbits": 0.0}
        for fault in faults:
            fault.impact = {"gpus_cut_off": 0, "gpus_degraded": 0, "bisection_lost_tbits": 0.0}
        return {"faults_priced": 0}, [{"rank": i + 1, "fault": i, "action": _ACTIONS.get(f.kind, "move"), **nothing}
                                      for i, f in enumerate(faults)]
    slow = frozenset(failure_spec(index, index.links[f.planned]) for f in speed)
    together = dict(pricer.price(lost | slow))  # a slow link counted as lost: the total is an upper bound
    unchanged = {k: v for k, v in pricer.healthy.items() if k != "bisection_tbits"}
    loads = healthy_loads(index.plan)
    together["busiest_link"] = busiest_link(index, lost | slow, loads)
    for fault, spec in zip(faults, specs):
        if spec:
            fault.impact = {**pricer.price(frozenset({spec})),
                            "busiest_link": busiest_link(index, frozenset({spec}), loads)}
        elif fault.kind == "wrong-speed":
            planned = index.links[fault.planned]
            share = min(1.0, max(0.0, 1 - (fault.found.speed_gbps or 0) / planned.speed_gbps))
            fault.impact = _scaled(pricer.healthy, pricer.price(frozenset({failure_spec(index, planned)})), share)
        else:
            fault.impact = dict(unchanged)
    together["faults_priced"] = len(lost) + len(speed)
    together["slow_links_counted_as_lost"] = len(slow)
    together["healthy"] = pricer.healthy
    return together, _fix_order(pricer, faults, specs, lost)


def _gain(before: dict, after: dict) -> dict:
    """What fixing gives back: GPUs reconnected, busbw [GB/s] and bisection [Tb/s] regained."""
    def diff_of(key):
        return round((after.get(key) or 0.0) - (before.get(key) or 0.0), 3)
    return {"gpus_reconnected": before["gpus_cut_off"] - after["gpus_cut_off"],
            "allreduce_busbw_back_gbytes": diff_of("allreduce_busbw_gbytes"),
            "alltoall_busbw_back_gbytes": diff_of("alltoall_busbw_gbytes"),
            "bisection_back_tbits": round(before["bisection_lost_tbits"] - after["bisection_lost_tbits"], 6)}


def _order_key(gain: dict) -> tuple:
    return (-gain["gpus_reconnected"], -gain["allreduce_busbw_back_gbytes"], -gain["alltoall_busbw_back_gbytes"],
            -gain["bisection_back_tbits"])


def _fix_order(pricer: _Pricer, faults: list[Fault], specs: dict, lost: frozenset) -> list[dict]:
    """The fix order: every fault, the ``MAX_RANKED`` worst re-priced alone from the all-faults state."""
    state = pricer.price(lost) if lost else pricer.healthy
    alone = [_gain(f.impact, pricer.healthy) for f in faults]
    own = sorted(range(len(faults)), key=lambda i: _order_key(alone[i]))
    gains = {}
    for position, i in enumerate(own):
        spec = specs[i]
        gains[i] = _gain(state, pricer.price(lost - {spec})) if spec and position < MAX_RANKED else alone[i]
    place = {i: position for position, i in enumerate(own)}
    ranked = sorted(gains, key=lambda i: (_order_key(gains[i]), place[i]))
    return [{"rank": r + 1, "fault": i, "action": _ACTIONS.get(faults[i].kind, "move"), **gains[i]}
            for r, i in enumerate(ranked)]


_ACTIONS = {"missing": "connect", "extra": "remove", "wrong-speed": "replace"}
"""What fixing a fault of a kind is (every miswired kind: move the cable to its planned ports)."""
ACTION_LABELS = {"connect": N_("connect"), "remove": N_("remove"), "replace": N_("replace or reseat"),
                 "move": N_("move")}


def _devices(index: _Index, fault: Fault) -> list[str]:
    """The plan's devices a fault touches (planned ends, then found ends), each once."""
    out = []
    if fault.planned is not None:
        link = index.links[fault.planned]
        out += [link.a, link.b]
    out += [device for device, _label in fault.ends if device]
    return list(dict.fromkeys(out))


def affected_nodes(index: _Index, fault: Fault) -> list[int]:
    """Servers whose paths a fault touches (``nodes_touched``)."""
    return nodes_touched(index.wiring, _devices(index, fault), fault.kind)


def nodes_touched(wiring: Wiring, devices: list[str], kind: str) -> list[int]:
    """Servers whose paths a fault of ``kind`` on ``devices`` (ids of ``wiring``) touches: a server link's server;
    a leaf's group; a spine's pod. The one rule of a fabric and of each pod of a design's pods."""
    nodes = set()
    server_link = any(Wiring.parse_node(d) is not None for d in devices)
    for device in devices:
        n, role = Wiring.parse_node(device), Wiring.parse(device)
        if n is not None:
            nodes.add(n)
        elif role is not None and role[0] == "leaf" and not server_link and kind != "wrong-port":
            nodes.update(wiring.nodes_of_group(wiring.group_of_leaf(role[3])))
    return sorted(nodes)


def _where(index: _Index, fault: Fault, slurm: tuple[dict, dict]) -> dict:
    """Where a fault is: switches, racks, rail (NIC), nodes affected and their Slurm tree switches and blocks."""
    devices = _devices(index, fault)
    layout = getattr(index.plan, "layout", None)
    switches = [index.namer.vertex(d) for d in devices if Wiring.parse(d)]
    leaves = [index.namer.vertex(d) for d in devices if (Wiring.parse(d) or ("",))[0] == "leaf"]
    racks = sorted({position_of(layout, d)[0] for d in devices} - {""})
    nic = None
    if fault.planned is not None and index.links[fault.planned].kind == "node-leaf":
        nic = index.links[fault.planned].a_port + 1
    elif fault.ends and Wiring.parse(fault.ends[0][0] or "p") is None and _NIC_PORT.match(fault.ends[0][1] or ""):
        nic = int(_NIC_PORT.match(fault.ends[0][1])[1])
    nodes = [index.namer.node(n) for n in affected_nodes(index, fault)]
    return {"switches": switches, "leaves": leaves, "racks": racks, "nic": nic, "nodes": len(nodes),
            "slurm_switches": sorted({slurm[0][n] for n in nodes if n in slurm[0]}),
            "slurm_blocks": sorted({slurm[1][n] for n in nodes if n in slurm[1]})}


def summary(faults: list[dict]) -> dict:
    """Faults per rack, per leaf and per rail (NIC, 1-based) from the faults' ``where``."""
    racks, leaves, rails = Counter(), Counter(), Counter()
    for fault in faults:
        where = fault["where"]
        racks.update(where["racks"])
        leaves.update(where["leaves"])
        if where["nic"]:
            rails[f"nic{where['nic']}"] += 1
    return {"per_rack": dict(sorted(racks.items())), "per_leaf": dict(sorted(leaves.items())),
            "per_rail": dict(sorted(rails.items(), key=lambda kv: int(kv[0][3:])))}


def _planned_json(index: _Index, p: int | None) -> dict | None:
    if p is None:
        return None
    link = index.links[p]
    return {"class": link.kind, "a": link.a, "a_name": index.namer.vertex(link.a), "a_port": link.a_label,
            "b": link.b, "b_name": index.namer.vertex(link.b), "b_port": link.b_label,
            "speed_gbps": link.speed_gbps, "plane": link.plane}


def _found_json(link: tuple | None) -> dict | None:
    if link is None:
        return None
    return {"a": link.a.device, "a_port": link.a.port, "b": link.b.device, "b_port": link.b.port,
            "speed_gbps": link.speed_gbps, "width": link.width, "line": link.line}


def _group(rows: list[dict], group: str) -> list[dict]:
    """The fault rows of ``missing``, ``extra`` or ``miswired`` (every other kind)."""
    if group in ("missing", "extra"):
        return [r for r in rows if r["kind"] == group]
    return [r for r in rows if r["kind"] not in ("missing", "extra")]


def verify(plan: Plan, found: list[tuple], mapping: dict | None = None, naming: NamingScheme | None = None,
           skip_speed: bool = False, slurm: tuple[dict, dict] | None = None) -> dict:
    """The as-built check of ``found`` against ``plan`` with its impact (module docstring), as JSON-ready data.

    Keys: ``matched`` (count and the share of the plan), ``missing``, ``extra``, ``miswired`` (lists of faults:
    ``kind``, ``planned`` and ``found`` ends, ``impact``, ``where``), ``impact`` (all faults together, with the
    healthy figures), ``fixes`` (the ranked fix list), ``summary`` (per rack, leaf, rail), ``coverage`` and
    ``notes``. Bandwidths: busbw [GB/s], bisection [Tb/s, one direction], speeds [Gb/s per direction].
    ``slurm``: ``(node name -> Slurm tree switch, node name -> block)`` (``core.formats.slurm.node_groups``) to
    name the Slurm switches and blocks a fault touches."""
    index = _Index.of(plan, naming)
    matched, faults, unknown = diff(index, found, mapping or {}, skip_speed)
    together, fixes = price(index, faults)
    slurm = slurm or ({}, {})
    rows = []
    for number, fault in enumerate(faults):
        rows.append({"id": number, "kind": fault.kind, "planned": _planned_json(index, fault.planned),
                     "found": _found_json(fault.found), "failure_spec": _spec_of(index, fault),
                     "unknown_device": bool(fault.ends) and None in (fault.ends[0][0], fault.ends[1][0]),
                     "impact": fault.impact, "where": _where(index, fault, slurm)})
    coverage, notes = coverage_of(index, matched, faults, found, unknown, skip_speed)
    if plan.resolved.planes > 1 and any(r["failure_spec"] and ".nic" in r["failure_spec"] for r in rows):
        notes.append(_("A server link lost is priced as its NIC lost in every plane: an upper bound with several "
                       "planes."))
    return result_of(rows, matched, together, fixes, coverage, notes)


def coverage_of(index, matched: list, faults: list, found: list, unknown: list, skip_speed: bool):
    """``(coverage, notes)`` of a check: planned, matched and found link counts, the share matched, found links on
    the plan's devices and the unknown devices (the first 20 named); notes when fewer than half the found links
    join the plan's devices and when speeds were not checked (one rule for a fabric and a design's pods)."""
    planned = len(index.links)
    in_plan = sum(1 for f in faults if f.found is not None and f.ends and None not in (f.ends[0][0], f.ends[1][0]))
    coverage = {"planned_links": planned, "matched_links": len(matched),
                "matched_share": round(len(matched) / planned, 6) if planned else 0.0,
                "found_links": len(found), "found_links_on_planned_devices": len(matched) + in_plan,
                "unknown_devices": len(unknown), "unknown_device_names": unknown[:20]}
    notes = []
    if found and coverage["found_links_on_planned_devices"] < 0.5 * len(found):
        notes.append(_("Fewer than half the found links join devices of this plan: is the file from this cluster, "
                       "or do its names need a mapping file?"))
    if skip_speed:
        notes.append(_("Link speeds were not checked."))
    return coverage, notes


def result_of(rows: list[dict], matched: list, together: dict, fixes: list, coverage: dict, notes: list) -> dict:
    """The check's JSON: matched count, the faults by group, their joint impact and fix order, the summary by kind,
    the coverage and the notes."""
    return {"matched": len(matched), "missing": _group(rows, "missing"), "extra": _group(rows, "extra"),
            "miswired": _group(rows, "miswired"), "impact": together, "fixes": fixes,
            "summary": {**summary(rows), "by_kind": dict(Counter(r["kind"] for r in rows))},
            "coverage": coverage, "notes": notes}


def faults_csv(out: dict) -> str:
    """``verify``'s faults as CSV: one row per fault (``CSV_COLUMNS``), in fix order (found names a spreadsheet would
    read as a formula are quoted, ``_cell``)."""
    faults = {f["id"]: f for f in (*out["missing"], *out["extra"], *out["miswired"])}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for fix in out["fixes"] or [{"fault": i, "rank": "", "action": ""} for i in faults]:
        fault = faults[fix["fault"]]
        p, f, impact, where = fault["planned"] or {}, fault["found"] or {}, fault["impact"], fault["where"]
        writer.writerow([fault["id"], fault["kind"], p.get("a_name"), p.get("a_port"), p.get("b_name"),
                         p.get("b_port"), p.get("speed_gbps"), *(_cell(f.get(k)) for k in ("a", "a_port", "b", "b_port")),
                         f.get("speed_gbps"), f.get("line"), impact.get("gpus_cut_off"), impact.get("gpus_degraded"),
                         impact.get("bisection_lost_tbits"), impact.get("allreduce_busbw_gbytes"),
                         impact.get("alltoall_busbw_gbytes"), (impact.get("busiest_link") or {}).get("tier"),
                         (impact.get("busiest_link") or {}).get("utilisation"), fix["rank"], fix["action"], " ".join(where["switches"]),
                         " ".join(where["racks"]), " ".join(where["slurm_switches"]), " ".join(where["slurm_blocks"])])
    return buffer.getvalue()


def _cell(value):
    """A found name as a CSV cell: a leading ``= + - @`` is quoted with ``'`` so a spreadsheet never runs it."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value
