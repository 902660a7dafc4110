"""What the performance estimates read of a plan, as one frozen value: the optimizer's serving and training steps
take it in place of the plan, so the step's cache key is its argument (``core.memo.stage``).

The serving search (``core.perf.serving_search.search``) and the training estimate and split search
(``core.perf.training``) read of a plan its system and sizes, the NVLink domain, the NICs, the switch model (its
SHARP and Spectrum-X ASIC), the design's calibration, the fabric's structure (tiers, groups, Dragonfly+ global links,
each tier's down ports), the tiers' oversubscription, the storage network's port speed (the front-end what-if) and
the cost. ``PerfPlan`` is a ``core.memo.view`` of exactly those attributes, under the plan's names: the estimates
read it unchanged, and an attribute outside it raises ``AttributeError`` instead of being read unkeyed.

``unpriced(plan)`` is that view at a unit cost (1 USD of TCO over 1 year, 1 kW): the steps the optimizer caches
keep only what the price does not change (the deployment's GPUs and output tokens/s, the fastest split and its
step time and days; the searches rank by GPUs, step time and a cost per token proportional to GPUs over tokens/s
on one plan), so candidates that differ only in prices, optics or cable lengths share one entry, and each is priced
at its own TCO afterwards.
"""

from __future__ import annotations

from core.memo import view

PerfDesign = view("PerfDesign", "calibration gpus_per_node nvlink_domain_gpus storage_ports_per_node")
"""What the estimates read of the design: its calibration, and the fields that size the NVLink domains' runs and
the storage ports (``core.fabric.domainlevels.domain_runs``, ``core.networks.storage.node_storage_ports``)."""

PerfResolved = view(
    "PerfResolved", "fabric gpus gpus_per_node nic nics_per_node nodes nvlink_domain_gpus nvlink_domain_sizes "
    "nvlink_gbytes_per_gpu_bidir nvlink_generation nvlink_level1_gpus nvlink_rack_gpus planes port_speed_gbps "
    "switch system", design=PerfDesign)
"""What the estimates read of the resolved design (the system, switch and NIC as catalog entries)."""

PerfSwitchGroup = view("PerfSwitchGroup", "role reserved down_ports_used")
"""What ``core.perf.placement.down_ports`` reads of a tier's switch group."""


def _groups(groups) -> tuple:
    """A fabric's switch groups as ``PerfSwitchGroup`` views."""
    return tuple(PerfSwitchGroup.of(g) for g in groups)


PerfFabric = view("PerfFabric", "family global_links group_count groups_per_pod leaf_down_ports_max "
                  "nodes_per_group pod_count port_speed_gbps tiers torus_dims torus_width", switch_groups=_groups)
"""What the estimates read of the fabric plan: its family and structure (``core.perf.placement``; a torus's
dimensions and link width; the leaf groups' and pods' counts, which the scattered placement's spread reads)."""

PerfBandwidth = view("PerfBandwidth", "bisection_tbits_one_direction leaf_oversubscription spine_oversubscription")
PerfStorage = view("PerfStorage", "port_speed_gbps")
PerfNetworks = view("PerfNetworks", "", storage=PerfStorage)
PerfCost = view("PerfCost", "facility_kw tco_usd tco_years")

PerfCalibration = view("PerfCalibration", "calibration")
PerfPlan = view("PerfPlan", "", design=PerfCalibration, resolved=PerfResolved, fabric=PerfFabric,
                bandwidth=PerfBandwidth, networks=PerfNetworks, cost=PerfCost)
"""Everything the serving search and the training estimates read of a ``core.plan.Plan`` (module docstring)."""

UNIT_COST = PerfCost(facility_kw=1.0, tco_usd=1.0, tco_years=1.0)
"""The cost an unpriced view carries: 1 kW, 1 USD of TCO over 1 year."""


def unpriced(plan) -> PerfPlan:
    """``PerfPlan`` of ``plan`` at ``UNIT_COST``: what the performance estimates read of it but its price."""
    return PerfPlan.of(plan)._replace(cost=UNIT_COST)


BusbwNic = view("BusbwNic", "transport id")
"""What a collective's busbw reads of the NIC (``_busbw_nic``)."""


def _busbw_nic(nic) -> BusbwNic:
    """``nic`` as the busbw reads it: its cloud transport (``core.perf.placement.fabric_class``) and its id only where
    the id decides something, a Spectrum-X SuperNIC's (``core.perf.congestion.fabric_class``: whether the
    Spectrum-X pairing holds); any other NIC's id reads as "", so the NICs of one port speed share a busbw."""
    from core.perf.congestion import load_constants

    return BusbwNic(nic.transport, nic.id if nic.id in load_constants().spectrum_x_nics else "")


BusbwResolved = view("BusbwResolved", " ".join(f for f in PerfResolved._fields if f not in ("nic", "design")),
                     design=PerfDesign, nic=_busbw_nic)
"""``PerfResolved`` with the NIC as the busbw reads it (``BusbwNic``)."""

BusbwPlan = view("BusbwPlan", "", design=PerfCalibration, resolved=BusbwResolved, fabric=PerfFabric,
                 bandwidth=PerfBandwidth)
"""What a collective's busbw reads of a plan (``core.perf.collectives.busbw_at``: the placement, its links and
contention, the collective constants): ``PerfPlan`` without the networks and the cost, so the optimizer's candidates
that differ only in prices, optics, other networks, switch models of the same structure or NIC models of the same
transport (``BusbwNic``) share one busbw."""
