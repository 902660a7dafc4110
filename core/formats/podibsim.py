"""The ibsim net file of a design with pods (``core.analysis.pods``): every pod's servers and leaves and the shared
spine layer, one simulated subnet.

The records are ``core.formats.ibsim``'s: a switch per leaf and shared spine, an HCA per NIC of every pod's servers.
The wiring is ``core.fabric.podwiring.PodsWiring``'s (which pod device meets which spine port):

* a pod's servers and leaves are named as every export of the design names them (``core.formats.podexports``:
  ``pod2-gpu001 mlx5_0``, ``pod2-leaf001``), the shared spines ``spine001`` ...; each pod's leaves have its own
  model's ports and its node-leaf cables its own port numbers (``core.formats.ibsim.switch_ports`` of the pod's
  own plan), each pod's NICs their own speed;
* a leaf's uplink ``k`` takes the pod's own up port ``k`` (the port its own spines would have); on a shared spine,
  port ``p`` (0-based, at the spine speed) broken out to ``b`` lanes is ibsim ports ``p * b + 1`` .. ``p * b + b``
  (``b`` the most uplinks any pod puts on one spine port, ``PodLeaves.uplinks_per_spine_port``: each lane is a
  cable, and an ibsim port holds one), so a spine has ``spine radix x b`` ports in the file;
* each port line carries its own link's rate (``core.formats.ibsim.sim_rate``): a pod at HDR comes up at 4xHDR
  beside a pod at EDR.

Pods on three tiers (``core.fabric.podcore``): a switch per leaf, per pod's own spine and per shared core
(``core001`` ...); each pod's node-leaf and leaf-spine cables are its own wiring's with its own port numbers (a
spine's down and up ports ``core.formats.ibsim.switch_ports`` of the pod's plan), and the spine-core cables are
``PodsWiring.core_links``': a spine's uplink ``k`` takes its own up port ``k``, a core port broken out to ``b``
lanes (``PodLeaves.uplinks_per_core_port``, the most of any pod) is ibsim ports ``p * b + 1`` .. ``p * b + b``.

The limits are ibsim's (``core.formats.ibsim.MAX_SWITCHES`` switches, ``MAX_PORTS`` ports a device), over the whole
fabric; the file's first comments give the pods and the command that holds it.
"""

from __future__ import annotations

from typing import TextIO

from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import InputError
from core.fabric.naming import NamingScheme
from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring
from core.formats.ibsim import (
    MAX_PORTS, MAX_SWITCHES, _port_of, nic_name, port_lines, sim_rate, switch_line, switch_ports,
)
from core.formats.exports import in_file_language
from core.formats.podexports import PodNames
from core.formats.podslurm import mixed_header
from core.i18n import _, ngettext


def spine_lanes(mixed: MixedPlan) -> int:
    """Breakout lanes of a shared spine port in the net file: the most uplinks a pod puts on one spine port (three
    tiers: on one core port)."""
    if mixed.fabric.tiers == 3:
        return max(pod.uplinks_per_core_port for pod in mixed.fabric.pods)
    return max(pod.uplinks_per_spine_port for pod in mixed.fabric.pods)


def spine_port_number(mixed: MixedPlan, spine_port: int, lane: int) -> int:
    """The ibsim port (1-based) of lane ``lane`` of shared spine (core) port ``spine_port`` (both 0-based)."""
    return spine_port * spine_lanes(mixed) + lane + 1


def _shared(mixed: MixedPlan) -> tuple[list[str], int]:
    """``(ids, ports each in the file)`` of the shared spines, or the shared cores on three tiers (a port counted
    in breakout lanes); every plane's."""
    f = mixed.fabric
    ids = list(mixed_wiring(mixed, three_tiers=True, planes=True).shared_ids())  # plane by plane
    return ids, (f.core_radix if f.tiers == 3 else f.spine_radix) * spine_lanes(mixed)


def _switch_count(mixed: MixedPlan) -> int:
    """Switches of the whole fabric in the net file: every pod's leaves (and own spines) and the shared layer's."""
    f = mixed.fabric
    return (f.leaves + sum(pod.own_spines for pod in f.pods)) * f.planes + len(_shared(mixed)[0])


def check_mixed_size(mixed: MixedPlan, wiring: PodsWiring) -> list[dict]:
    """Each pod's ``core.formats.ibsim.switch_ports`` if ibsim holds the whole fabric; ``InputError`` for more than
    ``MAX_SWITCHES`` switches or a device of more than ``MAX_PORTS`` ports (a shared switch counted in breakout
    lanes)."""
    switches = _switch_count(mixed)
    if switches > MAX_SWITCHES:
        raise InputError(_("ibsim holds at most {limit} switches and this design has {count}; export a smaller "
                           "design (fewer GPUs or planes) to simulate it").format(
            limit=MAX_SWITCHES, count=f"{switches:,}"))
    ports = [switch_ports(p, own) for p, own in zip(mixed.plans, wiring.wirings)]
    most = max(_shared(mixed)[1], *(units for pod in ports for role, (units, _d, _u) in pod.items()
                                    if role == "leaf" or (role == "spine" and wiring.three_tiers)))
    if most > MAX_PORTS:
        raise InputError(_("ibsim devices have at most {limit} ports and this design's switches have {count}")
                         .format(limit=MAX_PORTS, count=most))
    return ports


def mixed_ibsim_command(mixed: MixedPlan, ports: list[dict], path: str = "net") -> str:
    """The ibsim command line that holds the whole fabric of ``mixed`` (``ports``: ``check_mixed_size``'s), its
    device and port limits raised as needed (``core.formats.ibsim.ibsim_command``'s rule)."""
    f = mixed.fabric
    hcas = sum(pod.nodes * p.resolved.nics_per_node for pod, p in zip(f.pods, mixed.plans))
    shared, each = _shared(mixed)
    total = (f.planes * sum(pod.leaves * (own["leaf"][0] + 1) for pod, own in zip(f.pods, ports))
             + f.planes * sum(pod.own_spines * (own["spine"][0] + 1) for pod, own in zip(f.pods, ports)
                              if pod.own_spines)
             + len(shared) * (each + 1) + 2 * hcas * (f.planes if f.plane_mode == "per-port" else 1))
    return f"ibsim -s -N {max(2048, _switch_count(mixed) + hcas)} -S {MAX_SWITCHES} -P {max(13312, total)} {path}"


def _shared_lines(mixed: MixedPlan, wiring: PodsWiring, ports: list[dict], name, switch_lines: dict) -> None:
    """Add the port lines of the cables to the shared layer at both ends: every pod leaf's uplinks to the shared
    spines, or on three tiers every pod spine's uplinks to the shared cores (module docstring)."""
    if wiring.three_tiers:
        ends = ((wiring.own_spine_id(up.pod, up.spine, up.plane), ports[up.pod]["spine"][2][up.spine_port],
                 wiring.shared_core_id(up.core, up.plane), spine_port_number(mixed, up.core_port, up.lane),
                 up.speed_gbps) for up in wiring.core_links())
    else:
        ends = ((wiring.leaf_id(up.pod, up.leaf, up.plane), ports[up.pod]["leaf"][2][up.leaf_port],
                 wiring.shared_spine_id(up.spine, up.plane), spine_port_number(mixed, up.spine_port, up.lane),
                 up.speed_gbps) for up in wiring.uplinks())
    for lower, lower_port, upper, upper_port, speed in ends:  # each cable at both of its ends
        rate = sim_rate(speed)
        switch_line(switch_lines, lower, lower_port, name(upper), upper_port, rate)
        switch_line(switch_lines, upper, upper_port, name(lower), lower_port, rate)


def write_mixed_ibsim(mixed: MixedPlan, out: TextIO, naming: NamingScheme | None = None) -> None:
    """Write the whole fabric of ``mixed`` as an ibsim net file (module docstring), devices named under ``naming``
    as every export of the design names them; the first record is a leaf of pod 1 (ibsim's SM port)."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    ports = check_mixed_size(mixed, wiring)
    names = PodNames(mixed, naming)
    f = mixed.fabric
    three = wiring.three_tiers
    switch_lines: dict[str, list[str]] = {}
    hca_lines: dict[str, list[str]] = {}
    for i, own in enumerate(wiring.wirings):
        switch_lines.update((wiring.local_id(i, sid), []) for sid in own.switch_ids("leaf"))
        if three:
            switch_lines.update((wiring.local_id(i, sid), []) for sid in own.switch_ids("spine"))
        for plane, island in own.plane_islands():  # a NIC's port of a per-port plane is port plane + 1
            for link in own.links(plane, island):
                if link.kind == "node-leaf" or (three and link.kind == "leaf-spine"):
                    whole = link._replace(a=wiring.local_id(i, link.a), b=wiring.local_id(i, link.b))
                    port_lines(own, whole, plane, ports[i], names.device, switch_lines, hca_lines)
    shared, each = _shared(mixed)
    switch_lines.update((sid, []) for sid in shared)
    _shared_lines(mixed, wiring, ports, names.device, switch_lines)
    switches = _switch_count(mixed)
    with in_file_language():  # core.formats.exports.FILE_LANGUAGE
        out.write(ngettext("# fabric planner: {gpus} GPUs, {nodes} nodes in {pods} pods, {count} switch, as an ibsim "
                           "fabric file", "# fabric planner: {gpus} GPUs, {nodes} nodes in {pods} pods, {count} "
                           "switches, as an ibsim fabric file", switches).format(
            gpus=f"{f.gpus:,}", nodes=f"{f.nodes:,}", pods=len(f.pods), count=f"{switches:,}") + "\n"
            + mixed_header(mixed))
    out.write(f"# run: {mixed_ibsim_command(mixed, ports)}\n\n")
    for sid, lines in switch_lines.items():
        found = wiring.parse(sid)
        count = each if found is None else ports[found[0]][Wiring.parse(found[1])[0]][0]
        out.write(f'Switch\t{count} "{names.device(sid)}"\n' + "\n".join(sorted(lines, key=_port_of)) + "\n\n")
    for i, (own, p) in enumerate(zip(wiring.wirings, mixed.plans)):
        for n in range(own.nodes):
            for nic in range(p.resolved.nics_per_node):
                hca = nic_name(names.device(wiring.node_id(i, n)), nic)
                lines = hca_lines.get(hca)
                if lines:
                    out.write(f'Hca\t{own.planes} "{hca}"\n' + "\n".join(sorted(lines, key=_port_of)) + "\n\n")
