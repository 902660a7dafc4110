"""The host link between a GPU system and its NIC: how much of a NIC's port bandwidth the host can feed.

One rule, used by every bandwidth the planner reports (scale-out per GPU, injection, bisection, the collectives'
NIC line, training and inference estimates, the optimizer)::

    fed per NIC = min(port speed x ports used, host link)

The host link is the PCIe link of the lower generation and the fewer lanes of the two ends: the system's link to
each NIC (``System.nic_pcie_gen`` / ``nic_pcie_lanes``, sourced in ``assets/catalog/systems.toml``) and the NIC's
own host interface (``Nic.pcie_gen`` / ``pcie_lanes``; ConnectX-8 takes up to x32, the second x16 by Socket Direct
over its MCIO auxiliary connector). Either end at generation 0 is not a PCIe card in a PCIe slot (ports on the
accelerator, a cloud instance's adapter) or not captured: nothing is capped.

PCIe data rates per lane, one direction (PCI-SIG, https://pcisig.com/specifications and the PCI Express Base
Specifications 3.0-6.0; https://pcisig.com/pci-express-6.0-specification):

| gen | GT/s per lane | encoding | x16, one direction [Gb/s] |
| --- | --- | --- | --- |
| 3 | 8 | 128b/130b | 126.0 |
| 4 | 16 | 128b/130b | 252.1 |
| 5 | 32 | 128b/130b | 504.1 |
| 6 | 64 | PAM4, 256 B FLIT, 242 B payload | 968.0 |

A link's usable rate is the fastest network line rate (``LINE_RATES_GBPS``) at or below its encoded rate: Gen5 x16
(504 Gb/s before packet headers) feeds a 400G port and not an 800G one, as NVIDIA states for ConnectX-8 ("In a PCIe
Gen5 host one x16 link only feeds 400G; 800G needs Gen6 or Socket Direct", ``assets/catalog/nics.toml``); Gen6 x16
and 2 x Gen5 x16 (Socket Direct) feed 800G; Gen4 x16 feeds 200G (ConnectX-6 HDR); Gen3 x16 100G (ConnectX-5 EDR).
Transaction-layer headers take a further ~5-10 % of the encoded rate (Gen5 x16: roughly 450-480 Gb/s of payload).
Stepping down to a whole line rate does not count that remainder above 400G: a conservative reading, and the one
NVIDIA's statement gives.
"""

from __future__ import annotations

from core.catalog import Catalog, Nic, System
from core.i18n import _

PCIE_GTS_PER_LANE = {3: 8, 4: 16, 5: 32, 6: 64}
"""PCIe transfer rate per lane by generation [GT/s] (PCI-SIG)."""
PCIE_ENCODING = {3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}
"""Payload share of the line code (Gen3-5: 128b/130b; Gen6 FLIT mode: 242 of 256 bytes, the rest CRC and FEC)."""
LINE_RATES_GBPS = (25, 50, 100, 200, 400, 800, 1600)
"""The network port rates a host link is stepped down to [Gb/s, one direction]."""


def pcie_gbits(gen: int, lanes: int) -> float:
    """Encoded data rate of a PCIe link, one direction [Gb/s]."""
    return PCIE_GTS_PER_LANE[gen] * lanes * PCIE_ENCODING[gen]


def link_of(system: System, nic: Nic) -> tuple[int, int]:
    """The PCIe generation and lanes between ``system`` and ``nic``: the lower of each; (0, 0) when either end
    is not a PCIe link (or not captured)."""
    if not (system.nic_pcie_gen and nic.pcie_gen):
        return 0, 0
    return min(system.nic_pcie_gen, nic.pcie_gen), min(system.nic_pcie_lanes, nic.pcie_lanes)


def host_gbits(system: System, nic: Nic) -> int:
    """The most one NIC of ``system`` can carry to and from its host, one direction [Gb/s]: the fastest line rate
    at or below the link's encoded rate; 0 = not limited (no PCIe link between them, or not captured)."""
    gen, lanes = link_of(system, nic)
    if not gen:
        return 0
    rate = pcie_gbits(gen, lanes)
    return max((r for r in LINE_RATES_GBPS if r <= rate), default=LINE_RATES_GBPS[0])


def ports_in_use(resolved) -> int:
    """The ports of one NIC of ``resolved`` its fabric cables: one per plane (``plane_mode="per-port"``), one in
    all when each plane takes its own rails (``"per-rail"``; a per-rail pod's plane view ``core.fabric.pods.plane_of``
    counts its islands as ``planes``, its NICs still use one port)."""
    return 1 if resolved.plane_mode == "per-rail" else resolved.planes


def fed_nic_gbits(resolved) -> float:
    """The bandwidth one NIC of ``resolved`` carries for its GPU(s), one direction, all its ports in use [Gb/s]:
    ``min(port speed x ports in use, host link)`` (``ports_in_use``); reads ``port_speed_gbps``, ``planes``,
    ``plane_mode`` and ``host_gbits_per_nic`` (a resolved design or a view of one)."""
    return fed_gbits(resolved.port_speed_gbps, ports_in_use(resolved), resolved.host_gbits_per_nic)


def fed_gbits(port_speed: float, ports: int, host: float) -> float:
    """What one NIC with ``ports`` ports in use at ``port_speed`` carries over a host link of ``host`` [Gb/s, one
    direction; ``host`` 0 = not limited]: ``min(port_speed x ports, host)``."""
    wire = port_speed * ports
    return min(wire, host) if host else wire


def fed_cabled_port_gbits(resolved) -> float:
    """What one cabled NIC port of ``resolved`` carries, one direction [Gb/s]: its share of :func:`fed_nic_gbits`,
    the port speed unless the host caps it. The one per-port rule: the bandwidth module, the pods' rates and the
    SimAI writers all read it. A per-rail plane's NIC has one port in use, so its port carries
    ``min(port speed, host link)``."""
    return fed_nic_gbits(resolved) / ports_in_use(resolved)


def host_cap_note(catalog: Catalog, system: System, nic: Nic, fabric: str, port_speed: int, planes: int) -> str:
    """The warning a design gets when ``nic`` at ``port_speed`` x ``planes`` is faster than ``system`` feeds it
    over PCIe: the cap, and the cheapest NIC that reaches the cap; "" when the host feeds it all."""
    host = host_gbits(system, nic)
    wire = port_speed * planes
    if not host or wire <= host:
        return ""
    gen, lanes = link_of(system, nic)
    cheaper = [n for n in catalog.nics if n.transport is None and fabric in n.fabrics and host in n.speeds_on(fabric)
               and host_gbits(system, n) in (0, host) and n.price_usd < nic.price_usd]
    words = dict(system=system.id, gen=gen, lanes=lanes, host=host, nic=nic.id, wire=wire, speed=port_speed)
    if not cheaper:
        return _("{system} feeds each NIC over PCIe Gen{gen} x{lanes}: {host} Gb/s per direction, so {nic}'s {wire} "
                 "Gb/s carry {host} Gb/s per NIC; the bandwidth, bisection and estimates use {host} Gb/s (the bill "
                 "keeps the {speed}G optics).").format(**words)
    return _("{system} feeds each NIC over PCIe Gen{gen} x{lanes}: {host} Gb/s per direction, so {nic}'s {wire} Gb/s "
             "carry {host} Gb/s per NIC; the bandwidth, bisection and estimates use {host} Gb/s (the bill keeps the "
             "{speed}G optics). {cheaper} at {host} Gb/s reaches the same for less; a system with PCIe Gen6 to its "
             "NICs (B300, GB300) feeds {wire} Gb/s.").format(cheaper=min(cheaper, key=lambda n: n.price_usd).id,
                                                            **words)
