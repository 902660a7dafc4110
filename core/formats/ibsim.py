"""The compute fabric as an ``ibsim`` fabric (net) file, for the InfiniBand fabric simulator of linux-rdma.

Format (ibsim's ``net-examples/net``, linux-rdma/ibsim at commit db9c0e4, and its parser ``ibsim/sim_net.c``):
one record per device, a header line ``Switch <ports> "<nodeid>"`` or ``Hca <ports> "<nodeid>"`` followed by one
line per connected port ``[<local port>] "<remote nodeid>"[<remote port>]`` and a blank line; ports are 1-based,
``<ports>`` at most 255. "The first port in the file is used as the SM port": the first record is a switch. The
file is also what ``ibnetdiscover`` reads and writes ("compatible with ibnetdiscover command output"), so
``core.formats.ibnetdiscover`` reads both.

Names and ports (``core.fabric.wiring`` and ``core.physical.cabling.port_units``):

* a switch is named as in every export (``core.fabric.naming.Namer``: ``leaf004``, or ``p0.leaf3`` under a scheme
  that keeps wiring ids) with as many ports as its model has units
  (``PortLayout.units``); port ordinal ``o`` of its down (up) ports is port number ``unit + 1`` of that
  ordinal's first unit, so a QM9700's node ports are 1..32 and its spine ports from 33 (``1/17/1``);
* a NIC is an HCA named ``<host name> mlx5_<k>`` (``node006 mlx5_2``: NIC 2 of the sixth node, 0-based, as a real HCA's node
  description is ``<host name> <device>``), with one port per plane (port ``p + 1`` in plane ``p``).

Speeds: each port line carries its link's rate in ibnetdiscover's form (``# "<remote>" lid 0 4xHDR``), which ibsim
enables on the port, so the simulated link comes up at that rate (a port enabled at a narrower width or lower speed
than its peer brings the link up at the lesser, as a real one trains down). Debian's ibsim 0.10 knows SDR to HDR
(``SIM_SPEEDS``; its parser refuses ``4xNDR``): a faster plan's lines carry no rate, every simulated link then
reports 4xSDR, and ``python -m core verify --skip-speed`` checks it.

ibsim holds ``MAX_SWITCHES`` switches by default (``MAXNETSWITCHS`` in ``ibsim/sim.h``): a plan with more is
refused. Its other default limits (2,048 devices, 256 x 36 + 2,048 x 2 ports) are raised on its command line;
the file's first comment gives the command (``ibsim_command``).

A design with pods is written whole: every pod's servers and leaves and the shared spines
(``core.formats.podibsim``).
"""

from __future__ import annotations

from typing import TextIO

from core.errors import InputError
from core.fabric.naming import Namer, NamingScheme
from core.fabric.wiring import Wiring
from core.formats.exports import Export, in_file_language, on_infiniband
from core.formats.ibnetdiscover import LANE_GBPS
from core.i18n import N_, _, ngettext
from core.physical.cabling import port_units

MAX_SWITCHES = 256
"""Switches ibsim holds without ``-S`` (``MAXNETSWITCHS``)."""
MAX_PORTS = 255
"""Most ports of one ibsim device (``type(Switch|Hca) ports(1-255)``)."""
SIM_SPEEDS = ("SDR", "DDR", "QDR", "FDR", "EDR", "HDR")
"""InfiniBand speeds Debian's ibsim 0.10 enables from a net file (``parse_port_link_width_and_speed``)."""


def sim_rate(speed_gbps: float) -> str | None:
    """The ``4x<speed>`` rate of a link of ``speed_gbps`` [Gb/s per direction] that ibsim knows, or None."""
    for name in SIM_SPEEDS:
        if abs(4 * LANE_GBPS[name] - speed_gbps) < 1e-9:
            return f"4x{name}"
    return None


def nic_name(node: str, nic: int) -> str:
    """The HCA name of NIC ``nic`` (0-based) of server ``node`` (its host name): ``node006 mlx5_2``."""
    return f"{node} mlx5_{nic}"


def switch_ports(plan, wiring: Wiring) -> dict[str, tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """Per switch role: ``(ports of the switch, port number of each down ordinal, of each up ordinal)``, 1-based."""
    return {role: (layout.units, tuple(u + 1 for u in down), tuple(u + 1 for u in up))
            for role, (layout, down, up, _cost) in port_units(plan, wiring).items()}


def check_size(plan) -> Wiring:
    """The wiring of ``plan`` if ibsim can hold it; ``InputError`` for more than ``MAX_SWITCHES`` switches or a
    switch of more than ``MAX_PORTS`` ports. Any topology family: a link's ends are its class's port sides
    (``class_ends``; a Dragonfly+ global link joins two spines' up ports)."""
    wiring = Wiring.of(plan)
    switches = sum(1 for _s in wiring.all_switch_ids())
    if not switches:  # a torus: node to node
        raise InputError(_("ibsim simulates InfiniBand switches, and this fabric has none (a torus joins its nodes "
                           "node to node)."))
    if switches > MAX_SWITCHES:
        raise InputError(_("ibsim holds at most {limit} switches and this design has {count}; export a smaller "
                           "design (fewer GPUs or planes) to simulate it").format(
            limit=MAX_SWITCHES, count=f"{switches:,}"))
    ports = max(units for units, _down, _up in switch_ports(plan, wiring).values())
    if ports > MAX_PORTS:
        raise InputError(_("ibsim devices have at most {limit} ports and this design's switches have {count}")
                         .format(limit=MAX_PORTS, count=ports))
    return wiring


def ibsim_command(plan, wiring: Wiring, path: str = "net") -> str:
    """The ibsim command line that holds this fabric (its device and port limits raised as needed)."""
    ports = switch_ports(plan, wiring)
    switches = [role for role in wiring.roles for _i in range(wiring.count(role) * wiring.planes * wiring.islands)]
    hcas = wiring.nodes * plan.resolved.nics_per_node
    total_ports = sum(ports[role][0] + 1 for role in switches) + hcas * (wiring.planes + 1)
    return f"ibsim -s -N {max(2048, len(switches) + hcas)} -S {MAX_SWITCHES} -P {max(13312, total_ports)} {path}"


def write_ibsim(plan, out: TextIO, naming: NamingScheme | None = None) -> None:
    """Write the compute fabric of ``plan`` as an ibsim net file (module docstring), its devices named by ``naming``
    (``core.fabric.naming.Namer``: ``leaf001``, ``node005 mlx5_2``) as every other export names them, so that what
    ``ibnetdiscover`` reports from the simulated fabric carries the planned names (``python -m core verify``
    reads them back, as it reads wiring ids)."""
    from core.formats.podibsim import write_mixed_ibsim  # a design with pods: every pod and the shared spines
    from core.formats.podslurm import mixed_of

    if not on_infiniband(plan):  # the format's own rule (``EXPORTS``' applies): the Designer does not offer it
        raise InputError(_("ibsim simulates InfiniBand subnets, and this design's compute fabric is Ethernet RoCE. "
                           "Export it as GraphML or ASTRA-sim (--format graphml or --format astra-sim), or plan an "
                           "InfiniBand fabric (--fabric infiniband) to simulate it in ibsim."))
    mixed = mixed_of(plan)
    if mixed is not None:
        write_mixed_ibsim(mixed, out, naming)
        return
    wiring = check_size(plan)
    name = Namer.of(plan, naming).vertex
    ports = switch_ports(plan, wiring)
    nics = plan.resolved.nics_per_node
    switch_lines: dict[str, list[str]] = {sid: [] for sid in wiring.all_switch_ids()}
    hca_lines: dict[str, list[str]] = {}
    for plane, island in wiring.plane_islands():
        for link in wiring.links(plane, island):
            port_lines(wiring, link, plane, ports, name, switch_lines, hca_lines)
    resolved = plan.resolved
    with in_file_language():  # core.formats.exports.FILE_LANGUAGE
        out.write(ngettext("# fabric planner: {gpus} GPUs, {nodes} nodes of {nics} NICs, {count} switch, as an ibsim "
                           "fabric file", "# fabric planner: {gpus} GPUs, {nodes} nodes of {nics} NICs, {count} "
                           "switches, as an ibsim fabric file", len(switch_lines)).format(
            gpus=f"{resolved.gpus:,}", nodes=f"{resolved.nodes:,}", nics=nics, count=f"{len(switch_lines):,}") + "\n")
    out.write(f"# run: {ibsim_command(plan, wiring)}\n\n")
    for sid, lines in switch_lines.items():
        role = Wiring.parse(sid)[0]
        out.write(f'Switch\t{ports[role][0]} "{name(sid)}"\n' + "\n".join(sorted(lines, key=_port_of)) + "\n\n")
    for n in range(wiring.nodes):
        for nic in range(nics):
            hca = nic_name(name(wiring.node_id(n)), nic)
            lines = hca_lines.get(hca)
            if lines:
                out.write(f'Hca\t{wiring.planes} "{hca}"\n' + "\n".join(sorted(lines, key=_port_of)) + "\n\n")


def port_lines(wiring: Wiring, link, plane: int, ports: dict, name, switch_lines: dict[str, list[str]],
               hca_lines: dict[str, list[str]]) -> None:
    """Add the port lines of ``link`` (a ``core.fabric.wiring.Link`` of ``wiring``'s ``plane``) at both its ends: to
    ``switch_lines`` (by switch id) and ``hca_lines`` (by HCA name). ``ports``: ``switch_ports`` of ``wiring``;
    ``name``: a device id's name. A node's NIC port is its plane's (port ``plane + 1``)."""
    kind, a, a_port, b, b_port, speed = link
    (lower, a_side), (upper, b_side) = wiring.class_ends(kind)
    b_number = ports[upper][1 if b_side == "down" else 2][b_port]
    rate = sim_rate(speed)
    if lower == "node":
        hca, b_name = nic_name(name(a), a_port), name(b)
        hca_lines.setdefault(hca, []).append(f'[{plane + 1}]\t"{b_name}"[{b_number}]' + _rate(b_name, rate, True))
        switch_lines[b].append(f'[{b_number}]\t"{hca}"[{plane + 1}]' + _rate(hca, rate))
        return
    a_number = ports[lower][1 if a_side == "down" else 2][a_port]
    switch_line(switch_lines, a, a_number, name(b), b_number, rate)
    switch_line(switch_lines, b, b_number, name(a), a_number, rate)


def switch_line(switch_lines: dict[str, list[str]], device: str, port: int, remote: str, remote_port: int,
                rate: str | None) -> None:
    """Add to ``device``'s lines its port ``port``'s line to port ``remote_port`` of the device named ``remote``."""
    switch_lines[device].append(f'[{port}]\t"{remote}"[{remote_port}]' + _rate(remote, rate))


def _rate(remote: str, rate: str | None, hca: bool = False) -> str:
    """A port line's comment giving its rate as ibnetdiscover writes it (an HCA's line starts with its own lid and
    lmc); empty without a rate ibsim knows."""
    if rate is None:
        return ""
    return f'\t\t# {"lid 0 lmc 0 " if hca else ""}"{remote}" lid 0 {rate}'


def _port_of(line: str) -> int:
    return int(line[1:line.index("]")])


EXPORTS = (Export(name="ibsim", write=write_ibsim, suffix=".net", mime="text/plain",
                  label=N_("InfiniBand fabric simulator (ibsim) net file of the compute fabric, at most 256 "
                           "switches"), applies=on_infiniband, every_pod=True),)
"""The ibsim net file among the export formats (``core.formats.exports``)."""
