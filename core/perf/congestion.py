"""Congestion and routing: the share of a node's fabric bandwidth its traffic keeps on each fabric class.

Three fabric classes (``fabric_class``; the rule is the design's switch and NIC):

* ``ib-ar``: InfiniBand with adaptive routing (every InfiniBand design).
* ``spectrum-x``: Ethernet on NVIDIA Spectrum-4 switches with SuperNICs (BlueField-3 SuperNIC,
  ConnectX-8): per-packet adaptive routing, the NIC puts packets back in order.
* ``ecmp``: any other Ethernet RoCE fabric: static ECMP, each flow (queue pair) hashed onto one
  uplink for its lifetime.
* ``srd``: AWS EFA (a NIC whose ``transport`` is ``efa``): the Scalable Reliable Datagram protocol sprays each
  flow's packets over many paths and restores order in the adapter (Shalev et al., "A Cloud-Optimized Transport
  Protocol for Elastic and Scalable HPC", IEEE Micro 40(6), 2020), so it is counted as adaptive routing. The
  Google GPUDirect-TCPX/TCPXO transports run TCP flows: ``ecmp``.

The user may override the class, and how the job's nodes are placed, for one computation
(``assumptions``): the engine default is the design's class and topology-ordered ("topo")
ranks, the placement the nccl-tests calibration points were measured with.

One tier (leaf uplinks, or spine uplinks) at a time. A fraction ``crossing`` of a port's traffic
leaves the switch's group through uplinks that carry ``1/oversubscription`` of the down capacity,
so the demand on the uplinks is ``x = crossing x oversubscription`` of their capacity:

* adaptive routing (both AR classes) spreads the demand over every uplink: the traffic keeps
  ``min(1, efficiency / x)``; ``efficiency`` (0.95) is NVIDIA's published effective throughput
  for Spectrum-X at load (xAI Colossus), used for InfiniBand AR too (NVIDIA positions Spectrum-X
  as InfiniBand's adaptive routing on Ethernet; no separate InfiniBand figure was found). It only
  bites when the tier is saturated (x > 0.95).
* static ECMP: each of the ``F`` crossing flows lands on one of ``U`` uplinks at random, so an
  uplink carries ``L ~ Binomial(F, 1/U)`` flows; one uplink at the port speed serves ``s`` flows
  at their full rate (``s`` = flows per port: each flow wants 1/s of the port). The traffic kept
  is ``E[sum_i min(L_i, s)] / F = U E[min(L, s)] / F`` (exact, by linearity of expectation). With
  one flow per port and as many flows as uplinks this is 1 - (1 - 1/U)^U -> 1 - 1/e = 63%: the
  classic balls-into-bins result, and NVIDIA's "standard Ethernet ... 60% data throughput". Few,
  large flows (ring collectives, pipeline sends) lose most; many flows (all-to-all over many
  nodes) average out. ECMP never does better than adaptive routing on the same tier.

Assumptions, stated on the Performance page: flows share a link fairly and the tier is
work-conserving (a flow on a lightly loaded uplink finishes early), so this is the *average*
throughput; a bulk-synchronous collective waits for its slowest flow and can do worse (the gap to
Meta's measurement is pinned in tests/test_congestion.py). Uplinks run at the NIC port speed. Flows
per NIC port follow NCCL's defaults: 2 channels per NIC for rings, 4 flows for trees (2 channels, each to
about 2 tree neighbours over the network), 2 per remote peer for
point-to-point (``NCCL_NCHANNELS_PER_NET_PEER``), one queue pair per connection
(``NCCL_IB_QPS_PER_CONNECTION=1``). Constants and sources: ``assets/catalog/congestion.toml``.

Units: shares are fractions of a port's line rate (one direction).
"""

from __future__ import annotations

import contextvars
import math
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.errors import InputError, shown
from core.i18n import N_, _
from core.units import percent

ROUTINGS = ("auto", "ib-ar", "spectrum-x", "ecmp")
"""Routing classes a job may assume; ``auto`` = the design's (``fabric_class``)."""
ROUTING_LABELS = {"auto": N_("from the design"), "ib-ar": N_("InfiniBand adaptive routing"),
                  "spectrum-x": N_("Spectrum-X adaptive routing"), "ecmp": N_("RoCE, static ECMP"),
                  "srd": N_("AWS SRD multipath (EFA)")}
"""English, marked: show ``_(ROUTING_LABELS[key])`` (``srd`` is a design's class only, not an override)."""
ADAPTIVE = ("ib-ar", "spectrum-x", "srd")
"""Routing classes that spread a flow's packets over every uplink."""
PLACEMENTS = ("topo", "scatter")
PLACEMENT_LABELS = {"topo": N_("packed (in order)"), "scatter": N_("spread (scattered)")}
"""English, marked: show ``_(PLACEMENT_LABELS[key])``. Short (``PLACEMENT_LABEL_MOST``): the Performance page's
select in a third of a 1,024 px page cut "packed (topology-ord…"; the select's help says what each means."""
PLACEMENT_LABEL_MOST = 20
"""Widest a placement label may be, in Latin letters (a CJK character two: ``core.figures.style.text_width``)."""
CONSTANTS_FILE = Path(__file__).resolve().parents[2] / "assets" / "catalog" / "congestion.toml"


@dataclass(frozen=True)
class CongestionConstants:
    adaptive_efficiency: float
    """Share of a saturated tier's capacity adaptive routing delivers."""
    ring_flows_per_port: int
    """Flows (NCCL channels) a ring drives on each NIC port."""
    tree_flows_per_port: int
    """Flows NCCL's double binary tree drives on each NIC port (channels x network peers per channel)."""
    p2p_flows_per_peer: int
    """Flows per remote peer of point-to-point and all-to-all traffic."""
    spectrum_x_switch_asics: tuple[str, ...]
    spectrum_x_nics: tuple[str, ...]


@lru_cache(maxsize=1)
def load_constants() -> CongestionConstants:
    data = tomllib.loads(CONSTANTS_FILE.read_text(encoding="utf-8"))
    v = {k: (entry["value"] if isinstance(entry, dict) else entry) for k, entry in data["congestion"].items()}
    return CongestionConstants(
        adaptive_efficiency=float(v["adaptive_efficiency"]), ring_flows_per_port=int(v["ring_flows_per_port"]),
        tree_flows_per_port=int(v["tree_flows_per_port"]),
        p2p_flows_per_peer=int(v["p2p_flows_per_peer"]),
        spectrum_x_switch_asics=tuple(v["spectrum_x_switch_asics"]), spectrum_x_nics=tuple(v["spectrum_x_nics"]))


# --------------------------------------------------------------------------------------
# What the computation assumes (per request / per call, like the language)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Assumptions:
    routing: str = "auto"
    placement: str = "topo"


_CURRENT: contextvars.ContextVar[Assumptions] = contextvars.ContextVar("fp_congestion", default=Assumptions())


def check(routing: str, placement: str) -> Assumptions:
    if routing not in ROUTINGS:
        raise InputError(_("unknown routing {routing}; known: {known}").format(
            routing=shown(routing), known=", ".join(ROUTINGS)))
    if placement not in PLACEMENTS:
        raise InputError(_("unknown placement {placement}; known: {known}").format(
            placement=shown(placement), known=", ".join(PLACEMENTS)))
    return Assumptions(routing, placement)


@contextmanager
def assumptions(routing: str = "auto", placement: str = "topo"):
    """Within the block, collectives and training estimates assume this routing class and placement."""
    token = _CURRENT.set(check(routing, placement))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def current() -> Assumptions:
    return _CURRENT.get()


def fabric_class(resolved) -> str:
    """The design's routing class: ``ib-ar`` for InfiniBand; ``srd`` on AWS EFA adapters; ``spectrum-x`` for
    Ethernet on a Spectrum-4 switch with a SuperNIC (BlueField-3 SuperNIC, ConnectX-8); else ``ecmp``."""
    if resolved.fabric == "infiniband":
        return "ib-ar"
    if resolved.nic.transport == "efa":
        return "srd"
    return "spectrum-x" if spectrum_x(resolved.switch, resolved.nic) else "ecmp"


def spectrum_x(switch, nic) -> bool:
    """Whether ``switch`` and ``nic`` pair as Spectrum-X (``fabric_class``): a Spectrum-4 (or later Spectrum-X) ASIC
    and a SuperNIC (``congestion.toml``'s ``spectrum_x_switch_asics`` and ``spectrum_x_nics``); reads the switch's
    ``asic`` and the NIC's ``id`` (catalog entries, or a collective's views of them,
    ``core.perf.commview.BusbwResolved``)."""
    c = load_constants()
    asic = getattr(switch, "asic", "") or ""
    return any(asic.startswith(a) for a in c.spectrum_x_switch_asics) and nic.id in c.spectrum_x_nics


def routing_class(resolved) -> str:
    """The class in force: the job's override, else the design's. An InfiniBand design is always
    ``ib-ar``, and an Ethernet design is never: the override picks between the Ethernet classes."""
    asked = current().routing
    design = fabric_class(resolved)
    if asked == "auto" or (asked == "ib-ar") != (design == "ib-ar"):
        return design
    return asked


# --------------------------------------------------------------------------------------
# The arithmetic
# --------------------------------------------------------------------------------------
def ecmp_kept(flows: int, uplinks: int, slots: float) -> float:
    """Share of ``flows`` equal flows' demand that static ECMP over ``uplinks`` delivers.

    Each uplink serves ``slots`` flows at full rate; an uplink hashed ``L`` flows delivers
    ``min(L, slots)`` flows' worth. ``L ~ Binomial(flows, 1/uplinks)``, so the kept share is
    ``uplinks * E[min(L, slots)] / flows`` (exact). A pure function of its three numbers, memoised.
    """
    return _ecmp_kept(int(flows), int(uplinks), float(slots))


@lru_cache(maxsize=8192)
def _ecmp_kept(flows: int, uplinks: int, slots: float) -> float:
    if flows < 1:
        return 1.0
    if uplinks <= 1:
        return min(1.0, slots / flows)
    p = 1.0 / uplinks
    top = min(flows, math.floor(slots))  # E[min(L, s)] = sum_{k<=top} k P(k) + s P(L > top) (top = floor s)
    k = np.arange(top + 1, dtype=float)
    # log P(L = k), by the ratio P(k+1)/P(k) = (F-k)/(k+1) * p/(1-p)
    steps = np.log((flows - k[:-1]) / (k[:-1] + 1)) + math.log(p / (1 - p))
    logp = flows * math.log1p(-p) + np.concatenate(([0.0], np.cumsum(steps)))
    pk = np.exp(logp)
    below = float(np.sum(k * pk))
    tail = max(0.0, 1.0 - float(np.sum(pk)))
    expected = below + slots * tail
    return min(1.0, uplinks * expected / flows)


def tier_share(routing: str, crossing: float, oversubscription: float, down_ports: int,
               flows_per_port: float) -> float:
    """Share of its demand a switch's crossing traffic keeps at one tier (see the module docstring).

    ``crossing``: fraction of each port's traffic that leaves through the uplinks;
    ``oversubscription``: down / up capacity (>= 1); ``down_ports``: ports down per switch;
    ``flows_per_port``: flows each port's traffic is split into (each wants 1/flows_per_port
    of the port).
    """
    if crossing <= 0:
        return 1.0
    o = max(1.0, float(oversubscription))
    x = crossing * o
    adaptive = min(1.0, load_constants().adaptive_efficiency / x)
    if routing in ADAPTIVE:
        return adaptive
    # static ECMP: adaptive routing's result, further limited by hash collisions (never better)
    uplinks = max(1, round(max(1, down_ports) / o))
    flows = max(1, round(crossing * max(1, down_ports) * flows_per_port))
    return min(adaptive, ecmp_kept(flows, uplinks, flows_per_port))


def describe(routing: str) -> str:
    """One sentence: what the class assumes, with its sources (for the Performance page)."""
    c = load_constants()
    if routing == "ecmp":
        return _("Static ECMP (plain RoCE): each flow is hashed onto one uplink; an uplink's flows share it, "
                 "so a tier keeps E[min(flows on a link, flows it can carry)] of the demand (balls into bins: "
                 "one flow per port on as many uplinks keeps 1 - 1/e = 63%; NVIDIA quotes about 60% for standard "
                 "Ethernet at xAI scale; Meta measured up to 40% faster all-reduce once flows were spread over "
                 "more queue pairs, SIGCOMM 2024). Rings use {ring} flows per NIC, point-to-point {p2p} per "
                 "peer (NCCL defaults).").format(ring=c.ring_flows_per_port, p2p=c.p2p_flows_per_peer)
    return _("Adaptive routing ({name}): packets spread over every uplink, so a saturated tier delivers "
             "{eff} of its capacity (NVIDIA's Spectrum-X figure for xAI Colossus, used for InfiniBand "
             "adaptive routing too).").format(name=_(ROUTING_LABELS[routing]), eff=percent(c.adaptive_efficiency))
