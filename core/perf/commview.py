"""What a collective reads of a plan, as one frozen value (``core.memo.view``): ``BusbwPlan``, the key of the cached
collective times (``core.perf.training.collective_time``, the optimizer's all-reduce busbw step), and the parts
of it that the larger ``core.analysis.perfview.PerfPlan`` (what the serving search and the training estimates read)
shares.

A collective (``core.perf.collectives.sweep``, ``busbw_at``) reads of a plan its calibration, the resolved design's
performance fields (system, sizes, NVLink domains, NICs, the switch model: its SHARP and Spectrum-X ASIC), the
fabric's structure (``core.perf.placement``: family, tiers, groups, pods, each tier's down ports, a torus's
dimensions) and the tiers' oversubscription. The views hold exactly those attributes under the plan's names: the
collective reads them unchanged, and an attribute outside them raises ``AttributeError`` instead of being read
unkeyed.
"""

from __future__ import annotations

from core.memo import text_bytes, view

PerfDesign = view("PerfDesign", "calibration gpus_per_node nvlink_domain_gpus storage_ports_per_node")
"""What the estimates read of the design: its calibration, and the fields that size the NVLink domains' runs and
the storage ports (``core.fabric.domainlevels.domain_runs``, ``core.networks.storage.node_storage_ports``)."""

PerfResolved = view(
    "PerfResolved", "fabric gpus gpus_per_node host_gbits_per_nic nic nics_per_node nodes nvlink_domain_gpus nvlink_domain_sizes "
    "nvlink_gbytes_per_gpu_bidir nvlink_generation nvlink_level1_gpus nvlink_level2_gbytes_per_gpu "
    "nvlink_rack_gpus plane_mode planes "
    "port_speed_gbps switch system", design=PerfDesign)
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

PerfBandwidth = view("PerfBandwidth", "bisection_tbits_one_direction hops_cross_pod hops_same_rail "
                     "hops_same_rail_other_su leaf_oversubscription spine_oversubscription")
"""What the estimates read of the bandwidth: the bisection, the tiers' oversubscription and the fabric's hop counts
(``core.perf.placement.fabric_hops``)."""
PerfCalibration = view("PerfCalibration", "calibration")

BusbwNic = view("BusbwNic", "transport id")
"""What a collective reads of the NIC: its cloud transport (``core.perf.placement.fabric_class``) and its id, read
only by the Spectrum-X pairing (``core.perf.congestion.spectrum_x``; ``_paired`` keeps it only where that holds)."""

BusbwSwitch = view("BusbwSwitch", "id asic")
"""What a collective reads of the switch model: its id, read only for its SHARP (``_busbw_switch``), and its ASIC,
read only by the Spectrum-X pairing (``_paired``)."""


def _busbw_switch(switch) -> BusbwSwitch:
    """``switch`` as a collective reads it: its id where a SHARP entry names it (``collectives.toml``'s ``[[sharp]]``,
    the same in every library's and calibration's constants: ``core.perf.placement.sharp_case`` and ``links`` read
    whether and which SHARP its switches offer), else "" (no SHARP, as for any switch no entry names); its ASIC as it
    is (``_paired`` keeps it only where it pairs)."""
    from core.perf.constants import load_constants

    return BusbwSwitch(switch.id if load_constants().sharp_entry(switch.id) is not None else "",
                       getattr(switch, "asic", "") or "")


def _paired(resolved):
    """A ``BusbwResolved`` whose switch ASIC and NIC id read "" unless they pair as Spectrum-X
    (``core.perf.congestion.spectrum_x``, the one rule ``fabric_class`` applies, and the only one that reads them):
    the switch models of one structure and the NIC models of one transport share a collective, but for that
    pairing. A design without switches (a torus: ``switch`` None) keeps None."""
    from core.perf.congestion import spectrum_x

    switch, nic = resolved.switch, resolved.nic
    asic = switch is not None and switch.asic
    if (not asic and not nic.id) or spectrum_x(switch, nic):
        return resolved
    return resolved._replace(switch=switch and switch._replace(asic=""), nic=nic._replace(id=""))


def _as_read(resolved):
    """``_paired`` of a ``BusbwResolved`` whose host link reads 0 (none) where it caps nothing: a collective reads
    it only through what a NIC carries (``core.hostlink.fed_nic_gbits``, the NIC line of
    ``core.perf.placement``), which is the ports' speed unless the host link is slower, so NIC models of one port
    speed whose hosts feed them all share a collective."""
    from core.hostlink import fed_gbits, ports_in_use

    host = resolved.host_gbits_per_nic
    if host:
        wire, ports = resolved.port_speed_gbps, ports_in_use(resolved)
        if fed_gbits(wire, ports, host) == fed_gbits(wire, ports, 0):
            resolved = resolved._replace(host_gbits_per_nic=0)
    return _paired(resolved)


BusbwResolved = view("BusbwResolved", " ".join(f for f in PerfResolved._fields if f not in ("nic", "switch", "design")),
                     fold=_as_read, design=PerfDesign, nic=BusbwNic, switch=_busbw_switch)
"""``PerfResolved`` with the switch and NIC as a collective reads them (``BusbwSwitch``, ``BusbwNic``: the SHARP
switch's id, and the Spectrum-X pair's ASIC and NIC id, ``_paired``) and the host link only where it caps the NIC
(``_as_read``)."""

BusbwPlan = view("BusbwPlan", "", design=PerfCalibration, resolved=BusbwResolved, fabric=PerfFabric,
                 bandwidth=PerfBandwidth)
"""What a collective reads of a plan (``core.perf.collectives.sweep`` and ``busbw_at``: the placement, its links
and contention, the collective constants): ``PerfPlan`` without the networks and the cost, so plans that differ
only in prices, optics, other networks, switch models of the same structure (and SHARP) or NIC models of the same
transport (``BusbwSwitch``, ``BusbwNic``: but for a Spectrum-X pair) and port speed whose hosts feed them all
(``_as_read``) share one collective time."""


def busbw_plan_bytes(plan: BusbwPlan) -> int:
    """Upper bound of the memory a ``BusbwPlan`` holds [bytes], the catalog's entries it refers to (the system,
    switch) not counted (``tests/test_memo.py`` checks it against ``core.memo.deep_sizeof``): the views' tuples and
    numbers, a few hundred bytes a switch group, a calibration's text (twice: the plan's and the design's) and the
    NVLink domains' and torus dimensions' tuples."""
    calibration = plan.design.calibration  # the design's text (``Design.calibration``), or None
    calibrated = 0 if calibration is None else 2 * text_bytes([str(calibration)])
    return (2560 + 256 * len(plan.fabric.switch_groups) + calibrated
            + 64 * (len(plan.resolved.nvlink_domain_sizes or ()) + len(plan.fabric.torus_dims or ())))
