"""Bandwidth of a sized design: scale-up (NVLink), scale-out, bisection, hops.

Units: NVLink in GB/s (bytes), network in Gb/s or Tb/s (bits); every field
name says which, and whether it is one direction or both summed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core.design import ResolvedDesign
from core.fabric.families import cabled_nics
from core.fabric.families import family as topology_family
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import wiring_of
from core.hostlink import fed_cabled_port_gbits, fed_nic_gbits


class Bandwidth(BaseModel):
    """Bandwidth figures of a design."""

    model_config = ConfigDict(frozen=True)

    nvlink_gbytes_per_gpu_bidir: float
    nvlink_gbytes_per_gpu_per_direction: float
    nvlink_domain_gpus: int
    scaleout_gbits_per_gpu: float
    """Scale-out NIC bandwidth per GPU of the NIC ports the fabric cables, one direction, all planes [Gb/s]."""
    injection_tbits_one_direction: float
    """All NIC ports of all nodes, one direction [Tb/s]."""
    bisection_tbits_one_direction: float
    """Worst balanced cut of the nodes, one direction [Tb/s]."""
    leaf_oversubscription: float
    spine_oversubscription: float
    oversubscription: float
    """Effective end-to-end down:up ratio (1.0 = non-blocking)."""
    bisection_ratio: float = 1.0
    """Half the injection over the bisection, see :func:`bisection_ratio` (1.0 = non-blocking, 2.0 = 2:1)."""
    scaleup_to_scaleout_ratio: float
    """NVLink per GPU (one direction) over scale-out per GPU (one direction), both in bits."""
    hops_same_rail: int
    """Switches crossed between GPUs on the same rail in the same scalable unit (or the same leaf)."""
    hops_same_rail_other_su: int
    """Same rail, different scalable unit (or leaf) in the same pod."""
    hops_cross_rail: int
    """Different rails, without PXN wherever a switch path joins them (rail-optimized traffic between rails goes
    up to the spines, on one plane as between the rails a per-rail plane holds together); rails no switch path
    joins (rail-only, one rail per plane) are reached with PXN, over NVLink to the GPU on the other rail, then
    its rail: the same-rail count."""
    hops_cross_pod: int
    """Between pods (through the core) in three tiers; else the farthest pair."""
    cross_fabric_gbits_per_gpu: float
    """Per-GPU scale-out bandwidth when every GPU sends across the bisection [Gb/s, one direction]."""
    islands: int = 1
    """Independent fabrics per plane (rail-only rails, per-rail planes): no switch path joins two of them."""
    cross_island_via: str = "fabric"
    """How traffic between NICs of different islands or planes travels: ``fabric`` (a switch path exists),
    ``nvlink`` (rail-only, per-rail planes: forwarded inside the node over NVLink, or the host's PCIe when
    the NVLink domain is one GPU)."""
    cross_rail_pxn: bool = False
    """Whether ``hops_cross_rail`` is PXN's path (no switch path joins the rails), which the readouts say."""
    hops_valiant: int = 0
    """A Dragonfly's switches crossed by the longest non-minimal (Valiant) route through an intermediate group
    (``core.fabric.dragonfly.Hops``; with two groups the minimal one); 0 for a folded Clos or one group (no route
    between groups)."""
    hops_valiant_same_group: int = 0
    """Classic Dragonfly: switches on the non-minimal detour between two routers of a group through a third one
    (``Hops.valiant_same_group``); 0 where there is none."""


def tier_capacities_gbits(resolved: ResolvedDesign, fabric: FabricPlan) -> dict[str, float]:
    """Capacity of each fabric stage, one direction, all planes [Gb/s].

    Keys: ``injection`` (all NIC ports), ``leaf_up`` (leaf-to-spine links),
    ``spine_up`` (spine-to-core links); absent stages are omitted. An
    uplink counts only as far as the switch has traffic to fill it: a leaf of
    a partial scalable unit with 2 nodes and 32 uplinks adds 2 links' worth.
    """
    return _capacities(resolved, fabric, topology_family(fabric.family), fed_cabled_port_gbits(resolved))


def _capacities(resolved: ResolvedDesign, fabric: FabricPlan, other, fed_port: float) -> dict[str, float]:
    """``tier_capacities_gbits`` with the fabric's family module ``other`` (None: a folded Clos) and what one cabled
    NIC port carries, ``fed_cabled_port_gbits(resolved)`` [Gb/s, one direction], given."""
    if other is not None and hasattr(other, "capacities_gbits"):  # a family without leaves (torus) says its own
        own = other.capacities_gbits(resolved, fabric)
        fed = fed_port / resolved.port_speed_gbps  # the host's cap scales what the nodes inject
        return {**own, "injection": own["injection"] * fed} if fed < 1 else own
    planes = resolved.planes
    down, up = fed_port, resolved.uplink_gbps  # a NIC port carries what its host feeds it
    capacities = {"injection": fabric.node_leaf_links * down * planes}
    if fabric.tiers >= 2:
        leaf_up = spine_up = 0  # what each switch's uplinks carry as far as its down ports fill them, summed by role
        for g in fabric.switch_groups:
            if g.role == "leaf":
                leaf_up += g.count * min(g.down_ports_used * down, g.up_ports_used * up)
            elif g.role == "spine":
                spine_up += g.count * min(g.down_ports_used * up, g.up_ports_used * up)
        capacities["leaf_up"] = leaf_up * planes
        if fabric.tiers == 3:
            capacities["spine_up"] = spine_up * planes
    return capacities


def bisection_gbits(resolved: ResolvedDesign, fabric: FabricPlan) -> float:
    """Bisection bandwidth, one direction [Gb/s]: the worst balanced cut of the nodes.

    A cut that splits the leaves (or pods) in half crosses half of that tier's
    uplinks, so the bisection is half the smallest of the injection and the
    uplink capacities. Where every node reaches every other through one leaf
    set (a single switch, a single rail-optimized SU, a single ToR leaf) no
    cut crosses uplinks and the bisection is half the injection. A three-tier
    fabric with one pod never crosses the core.

    Exact when scalable units (leaves, pods) are all full; when the last one
    is partial the worst cut keeps more traffic inside leaves, so this is a
    conservative (lower) estimate. Tests cross-check it against a max-flow
    min-cut on the switch graph. Another topology family's bisection is its
    module's (``core.fabric.families``).
    """
    other = topology_family(fabric.family)
    return _bisection(resolved, fabric, _capacities(resolved, fabric, other, fed_cabled_port_gbits(resolved)), other)


def _bisection(resolved: ResolvedDesign, fabric: FabricPlan, capacities: dict[str, float], other) -> float:
    """``bisection_gbits`` from the fabric's ``tier_capacities_gbits`` and its family module ``other`` (None: a
    folded Clos)."""
    if other is not None:
        return other.bisection_gbits(resolved, fabric, capacities["injection"], capacities.get("leaf_up", 0.0))
    relevant = [capacities["injection"]]
    leaves_shared = fabric.tiers == 1 or fabric.group_count == 1
    if not leaves_shared:
        relevant.append(capacities["leaf_up"])
        if fabric.tiers == 3 and fabric.pod_count > 1:
            relevant.append(capacities["spine_up"])
    return min(relevant) / 2


def bisection_ratio(injection_gbits: float, bisection_gbits: float) -> float:
    """Bisection ratio, down:up style: half the injection over the bisection.

    The bisection (:func:`bisection_gbits`) is the worst balanced cut of the
    nodes, one direction. When every GPU of one half sends to the other half,
    the cut must carry half the injection of all GPUs, so::

        bisection_ratio = (injection_gbits / 2) / bisection_gbits

    1.0 reads "1:1", non-blocking: every GPU can send at its full NIC rate
    across the cut. 2.0 reads "2:1": it gets half its NIC rate. A fabric
    with more bisection than half its injection (oversubscription below 1)
    is still non-blocking for the GPUs; the ratio is floored at 1.0.

    Parameters
    ----------
    injection_gbits : float
        All NIC ports of all nodes, all planes, one direction [Gb/s]
        (``tier_capacities_gbits(...)["injection"]``).
    bisection_gbits : float
        Bisection bandwidth, one direction [Gb/s], as :func:`bisection_gbits`.
        Any common unit works for both arguments (the ratio has none).

    Returns
    -------
    float
        The ratio, >= 1.0 (dimensionless); 1.0 when there is no bisection
        to speak of (``bisection_gbits <= 0``: no network).
    """
    if bisection_gbits <= 0:
        return 1.0
    return max(1.0, injection_gbits / 2 / bisection_gbits)


def compute_bandwidth(resolved: ResolvedDesign, fabric: FabricPlan) -> Bandwidth:
    """All bandwidth figures for a resolved design and its sized fabric.

    The scale-out per GPU counts the NIC ports the fabric cables (``core.fabric.families.cabled_nics``: a torus
    leaves the ports over its neighbours unused), as the injection does, so the cross-fabric share is the
    bisection over half the GPUs.
    """
    other = topology_family(fabric.family)
    cabled = cabled_nics(fabric, resolved.nics_per_node)
    per_gpu_gbits = cabled * fed_nic_gbits(resolved) / resolved.gpus_per_node  # the host link's cap (core.hostlink)
    rail = resolved.topology in ("rail-optimized", "rail-only")
    fed_port = fed_cabled_port_gbits(resolved)
    capacities = _capacities(resolved, fabric, other, fed_port)  # tier_capacities_gbits
    injection = capacities["injection"]
    bisection = _bisection(resolved, fabric, capacities, other)  # bisection_gbits, the capacities computed once

    leaf_over = spine_over = 1.0
    if fabric.tiers >= 2 and fabric.leaf_uplinks:
        busiest_leaf = max(g.down_ports_used for g in fabric.switch_groups if g.role == "leaf")
        leaf_over = busiest_leaf * fed_port / (fabric.leaf_uplinks * resolved.uplink_gbps)
        leaf_over = leaf_over if resolved.design.oversubscription < 1 else max(1.0, leaf_over)
    if fabric.tiers == 3 or fabric.global_links:  # a Dragonfly+ spine's up ports are its global links
        spine_over = max([1.0] + [g.down_ports_used / g.up_ports_used for g in fabric.switch_groups
                                  if g.role == "spine" and g.up_ports_used])
    own = getattr(other, "oversubscriptions", None)
    if own is not None:  # a family's stages (a Dragonfly's routers and global links)
        leaf_over, spine_over = own(resolved, fabric)
    effective = bisection_ratio(injection, bisection)

    nvlink_bidir = resolved.nvlink_gbytes_per_gpu_bidir
    nvlink_dir = nvlink_bidir / 2
    single_leaf_set = fabric.tiers == 1 or fabric.group_count == 1
    same_rail = 1 if rail or single_leaf_set else 3
    other_su = 1 if fabric.tiers == 1 else 3
    pxn = fabric.islands > 1 and not (rail and resolved.rails_per_island > 1)
    if rail and resolved.rails_per_island > 1:  # rails that a switch path joins: through it, without PXN
        cross_rail = 1 if fabric.tiers == 1 else 3
    else:  # one rail per island (rail-only, a plane per rail): PXN, over NVLink to the other rail's GPU, then
        cross_rail = same_rail  # its own rail; a top-of-rack leaf holds every rail
    cross_pod = 5 if fabric.tiers == 3 and fabric.pod_count > 1 else (3 if fabric.tiers >= 2 else 1)
    valiant = detour = 0
    if other is not None:  # hops of the family's wiring: same leaf, same group, other group (minimal), Valiant
        hops = other.hop_counts(wiring_of(fabric, resolved.nodes, resolved.nics_per_node))
        same_rail, other_su, cross_rail = hops.same_leaf, hops.same_group, hops.same_group
        cross_pod, valiant = hops.other_group or hops.same_group, hops.valiant
        detour = getattr(hops, "valiant_same_group", 0)  # a torus's hops have none
    return Bandwidth(
        nvlink_gbytes_per_gpu_bidir=nvlink_bidir,
        nvlink_gbytes_per_gpu_per_direction=nvlink_dir,
        nvlink_domain_gpus=resolved.nvlink_domain_gpus,
        scaleout_gbits_per_gpu=per_gpu_gbits,
        injection_tbits_one_direction=injection / 1000,
        bisection_tbits_one_direction=bisection / 1000,
        leaf_oversubscription=leaf_over,
        spine_oversubscription=spine_over,
        oversubscription=effective,
        bisection_ratio=effective,
        scaleup_to_scaleout_ratio=(nvlink_dir * 8) / per_gpu_gbits if per_gpu_gbits else float("inf"),
        hops_same_rail=same_rail,
        hops_same_rail_other_su=other_su,
        hops_cross_rail=cross_rail,
        hops_cross_pod=cross_pod,
        cross_fabric_gbits_per_gpu=per_gpu_gbits / effective,
        islands=fabric.islands,
        cross_island_via="nvlink" if fabric.islands > 1 else "fabric", cross_rail_pxn=pxn and other is None,
        hops_valiant=valiant,
        hops_valiant_same_group=detour,
    )


def cross_rail_text(bw: Bandwidth) -> str:
    """The readouts' cross-rail switch count: ``3``, or ``1 (with PXN)`` where no switch path joins the rails."""
    from core.i18n import _

    return _("{count} (with PXN)").format(count=bw.hops_cross_rail) if bw.cross_rail_pxn else str(bw.hops_cross_rail)
