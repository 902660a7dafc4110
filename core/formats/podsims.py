"""The SimAI topology and the ASTRA-sim network of a design with pods (``core.analysis.pods``): the whole fabric,
every pod under the shared spine layer, as far as each format can say it.

**SimAI** (``core.formats.simai``'s format and id order): the GPUs pod by pod (pod 1's first), one NVSwitch vertex
per NVLink domain, then every pod's leaves and the shared spines; each GPU's NVLink line at its own pod's NVLink
rate and its NIC line to its own pod's leaf at the pod's port speed; the leaf-spine lines are
``core.fabric.podwiring.PodsWiring``'s bundles (``u_p / N`` links at the pod's uplink speed, one line per pair).
Planes as ``core.formats.simai`` writes a fabric's: on per-port planes each GPU has a line to its leaf in every
plane; on per-rail planes NIC ``i`` (each GPU its own) has one, to its leaf in plane ``i mod planes``; the switches
role-major, plane-minor and the leaf-spine lines plane by plane.
Pods on three tiers (``core.fabric.podcore``): every pod's leaves, then every pod's own spines, then the shared
cores; each pod's leaf-spine lines its own wiring's bundles and the spine-core lines ``PodsWiring``'s (``U_p / C``
links at the pod's uplink speed, one line per spine-core pair). What the format cannot say:

* one GPU type per file (``gpu_type``): pods of one system write it; pods of several write their systems joined by
  ``+`` (``H100+B200``), a name SimAI does not know, so it applies no GPU type's model (``GPUType::NONE``) to any
  GPU rather than one pod's to every pod; the export's description says so;
* one NVLink domain size per file (``gpus_per_server``: SimAI maps GPU ``i`` to NVSwitch ``G + i // size``):
  pods whose domains differ, or a pod that is not whole domains, are a ``DesignError``.

**ASTRA-sim** (``core.formats.astrasim``'s analytical network): the dimensions of the whole fabric, innermost
first: the NVLink domain, the GPUs under one leaf set (in domains) and the leaf sets of every pod (pod 1's first),
which the shared spines join. The format is a regular grid with one bandwidth a dimension, so:

* every pod must be a regular grid of the same NVLink domain and leaf set (GPUs under one leaf set), else
  ``DesignError``;
* each dimension's bandwidth is the slowest pod's (per GPU, per direction): a collective across pods waits for its
  slowest member (``core.fabric.pods``: the slower pod bounds; the spine dimension is
  ``MixedFabric.cross_pod_gbps_per_gpu``), so a job on a faster pod alone runs faster than the file says; the
  file's comments give each pod's own values. The NPUs' compute (each pod's GPU type) is the workload's (its
  traces), not the network file's;
* pods on three tiers, as the wiring joins them (``core.fabric.podwiring``): when every pod has as many leaf sets
  under its own spines (``Wiring.groups``), the dimensions are the leaf, each pod's own spine level (its leaf sets,
  at the slowest pod's own spine-level bandwidth, a spine dimension's latency) and the shared core (the pods, at
  the slowest pod's rate across the core, ``MixedFabric.cross_pod_gbps_per_gpu``, a core dimension's latency; a pod
  of one leaf set has no spine dimension, as a pod alone has none). Pods of other leaf set counts cannot be one
  grid with a spine dimension, so there the outer dimension is one core level of every pod's leaf sets (their
  count), joined by the pods' own spines and the shared cores at the slowest pod's rate across the core (which no
  pod's own spine level is slower than): a job inside one pod's spines is written as slow as one across the core,
  and the file says so.
"""

from __future__ import annotations

from typing import Iterator, TextIO

from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import DesignError, NotHandledError
from core.fabric.podwiring import PodsWiring
from core.hostlink import fed_cabled_port_gbits
from core.i18n import _


def _pod_error(pod, system: str, exc: DesignError) -> DesignError:
    """``exc`` (raised by a pod planned alone) said of pod ``pod`` (1-based number) and its system."""
    kind = NotHandledError if isinstance(exc, NotHandledError) else DesignError
    return kind(_("Pod {pod} ({system}): {reason}").format(pod=pod, system=system, reason=exc.message),
                exc.suggestion)


def simai_gpu_type(mixed: MixedPlan) -> str:
    """The ``gpu_type`` token of the SimAI file of ``mixed``: the pods' systems, joined by ``+`` when several
    (module docstring), as one token."""
    from core.formats.simai import SIMAI_GPU_TYPES

    systems = list(dict.fromkeys(p.resolved.system.id for p in mixed.plans))
    if len(systems) == 1 and systems[0] in SIMAI_GPU_TYPES:
        return systems[0]
    return "+".join(systems).replace(" ", "-")


def simai_domain(mixed: MixedPlan) -> int:
    """The NVLink domain size [GPUs] of every pod of ``mixed``; ``DesignError`` when a pod cannot be written
    (``core.formats.simai.check_expressible``), the pods' sizes differ or a pod is not whole domains."""
    from core.formats.simai import check_expressible

    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        try:
            check_expressible(p)
        except DesignError as exc:
            raise _pod_error(pod.index + 1, pod.system, exc) from None
    sizes = {p.resolved.nvlink_domain_gpus for p in mixed.plans}
    whole = all(p.resolved.gpus % p.resolved.nvlink_domain_gpus == 0 for p in mixed.plans)
    if len(sizes) > 1 or not whole:
        raise NotHandledError(
            _("SimAI reads one NVLink domain size for the whole file and every pod in whole domains; this design's "
              "pods have {sizes}.").format(sizes=", ".join(
                _("pod {pod}: {gpus} GPUs in domains of {size}").format(
                    pod=pod.index + 1, gpus=f"{pod.gpus:,}", size=p.resolved.nvlink_domain_gpus)
                for pod, p in zip(mixed.fabric.pods, mixed.plans))),
            _("Use pods of GPU systems with one NVLink domain size, each of whole domains, to export them together."))
    return sizes.pop()


def simai_counts(mixed: MixedPlan) -> tuple[int, int, int, int]:
    """``(GPUs, NVLink domain size, NVSwitch vertices, network switches)`` of the SimAI file of ``mixed``."""
    domain = simai_domain(mixed)
    f = mixed.fabric
    per_plane = f.leaves + sum(pod.own_spines for pod in f.pods) + f.spines + f.cores
    return f.gpus, domain, f.gpus // domain, per_plane * f.planes


def _wiring(mixed: MixedPlan) -> PodsWiring:
    """The wiring SimAI writes: pods on any planes, per-port or per-rail."""
    return mixed_wiring(mixed, three_tiers=True, planes=True)


def simai_switch_ids(mixed: MixedPlan) -> dict[str, int]:
    """The SimAI id of every switch of the whole fabric, by whole-fabric device id: every pod's leaves pod by pod,
    then the shared spines; on three tiers every pod's leaves, every pod's own spines, then the shared cores. On
    per-port planes role-major, plane-minor as ``core.formats.simai`` numbers a fabric's planes: every
    pod's leaves of plane 0, of plane 1..., then (three tiers) every pod's own spines of each plane, then the shared
    spines or cores of plane 0, of plane 1..."""
    wiring = _wiring(mixed)
    gpus, _domain, nvswitches, _switches = simai_counts(mixed)
    ids, next_id = {}, gpus + nvswitches
    for q in range(wiring.planes):
        for i, own in enumerate(wiring.wirings):
            for k in range(own.leaves):
                ids[wiring.leaf_id(i, k, q)] = next_id
                next_id += 1
    for q in range(wiring.planes if wiring.three_tiers else 0):
        for i, own in enumerate(wiring.wirings):
            for k in range(own.spines):
                ids[wiring.own_spine_id(i, k, q)] = next_id
                next_id += 1
    ids.update((spine, next_id + n) for n, spine in enumerate(wiring.shared_ids()))
    return ids


def simai_links(mixed: MixedPlan) -> Iterator[tuple[int, int, float, float]]:
    """Every line of the SimAI link list of ``mixed``: ``(src, dst, rate [Gb/s, one direction], latency [ns])``
    (module docstring), pod by pod, then the leaf-spine lines (three tiers: then the spine-core lines)."""
    from core.formats.astrasim import simulator_latencies

    wiring = _wiring(mixed)
    gpus, domain, _nvswitches, _switches = simai_counts(mixed)
    ids = simai_switch_ids(mixed)
    latency = simulator_latencies()
    nic_ns, nv_ns = latency["simai-nic-link"].ns, latency["simai-nvlink-link"].ns
    first, per_rail = 0, wiring.planes > 1 and mixed.fabric.plane_mode == "per-rail"
    for i, (own, p) in enumerate(zip(wiring.wirings, mixed.plans)):
        nvlink_gbps = p.bandwidth.nvlink_gbytes_per_gpu_per_direction * 8
        gpn, port_gbps = p.resolved.gpus_per_node, fed_cabled_port_gbits(p.resolved)  # core.hostlink
        for gpu in range(p.resolved.gpus):
            yield first + gpu, gpus + (first + gpu) // domain, nvlink_gbps, nv_ns
            node, nic = divmod(gpu, gpn)
            if per_rail:  # NIC i only in plane i mod planes, its local rail i // planes there (core.formats.simai)
                leaf, _port = own.node_port(node, nic // wiring.planes)
                yield first + gpu, ids[wiring.leaf_id(i, leaf, nic % wiring.planes)], port_gbps, nic_ns
                continue
            leaf, _port = own.node_port(node, nic)
            for q in range(wiring.planes):  # its line to its leaf in every plane (core.formats.simai)
                yield first + gpu, ids[wiring.leaf_id(i, leaf, q)], port_gbps, nic_ns
        first += p.resolved.gpus
    for bundle in wiring.bundles():
        if bundle.kind in ("leaf-spine", "spine-core") and bundle.count > 0:
            yield ids[bundle.a], ids[bundle.b], bundle.count * bundle.speed_gbps, nic_ns


def simai_link_count(mixed: MixedPlan) -> int:
    """Lines of the link list of ``mixed``'s SimAI file: two per GPU and one per leaf-spine pair (three tiers: and
    one per spine-core pair; counted over the wiring's bundles, O(bundles))."""
    f = mixed.fabric
    nic_lines = f.gpus if f.planes > 1 and f.plane_mode == "per-rail" else f.gpus * f.planes  # (simai_links)
    if f.tiers == 3:
        return f.gpus + nic_lines + sum(1 for b in _wiring(mixed).bundles()
                                if b.kind in ("leaf-spine", "spine-core") and b.count > 0)
    return f.gpus + nic_lines + sum(pod.leaves for pod in f.pods if pod.links_per_leaf_spine_pair) * f.spines * (
        f.planes)


def write_mixed_simai(mixed: MixedPlan, out: TextIO) -> None:
    """Stream the SimAI topology file of ``mixed`` to ``out`` (module docstring)."""
    from core.formats.simai import write_lines

    gpus, domain, nvswitches, switches = simai_counts(mixed)
    nodes = gpus + nvswitches + switches
    out.write(f"{nodes} {domain} {nvswitches} {switches} {simai_link_count(mixed)} {simai_gpu_type(mixed)}\n")
    out.write(" ".join(str(i) for i in range(gpus, nodes)) + " \n")
    write_lines(simai_links(mixed), out)


def simai_note(mixed: MixedPlan) -> str:
    """What the SimAI file of ``mixed`` says of its pods, in the current language (the export's description)."""
    systems = list(dict.fromkeys(p.resolved.system.id for p in mixed.plans))
    three = mixed.fabric.tiers == 3
    if len(systems) == 1:
        if three:
            return _("every pod's GPUs ({system}) under its own spines and the shared cores, each pod's NVLink and NIC "
                     "rates on its own links").format(system=systems[0])
        return _("every pod's GPUs ({system}) under the shared spines, each pod's NVLink and NIC rates on its own "
                 "links").format(system=systems[0])
    if three:
        return _("every pod under its own spines and the shared cores, each pod's NVLink and NIC rates on its own "
                 "links; SimAI reads one GPU type a file, so the type is written {token}, which SimAI does not know: "
                 "it applies no GPU type's model to any of the {systems} GPUs").format(
            token=simai_gpu_type(mixed), systems=", ".join(systems))
    return _("every pod under the shared spines, each pod's NVLink and NIC rates on its own links; SimAI reads one "
             "GPU type a file, so the type is written {token}, which SimAI does not know: it applies no GPU type's "
             "model to any of the {systems} GPUs").format(token=simai_gpu_type(mixed), systems=", ".join(systems))


def astra_dimensions(mixed: MixedPlan) -> tuple[list, list[list]]:
    """``(the whole fabric's dimensions, each pod's own dimensions)`` of ``mixed`` for ASTRA-sim (module docstring;
    ``core.formats.astrasim.Dimension``, innermost first): the NVLink domain and the leaf set at the slowest pod's
    bandwidth [GB/s = 10^9 B/s per GPU, per direction], and the leaf sets of every pod at the slowest pod's share
    of its leaves' uplinks. ``DesignError`` when a pod is not a regular grid, or the pods' domains or leaf sets
    differ."""
    from core.formats.astrasim import Dimension, dimensions, simulator_latencies

    own, shapes, spine_sets = [], [], set()
    for pod, p in zip(mixed.fabric.pods, mixed.plans):
        try:
            dims = dimensions(p)
        except DesignError as exc:
            raise _pod_error(pod.index + 1, pod.system, exc) from None
        size = {d.level: d.npus for d in dims}
        own.append(dims)
        shapes.append((size.get("nvlink", 1), size.get("leaf", 1)))
        spine_sets.add(size.get("spine", 1))  # leaf sets under the pod's own spines (three tiers)
    if len(set(shapes)) > 1:
        raise NotHandledError(
            _("ASTRA-sim's analytical network is a regular grid of dimensions, and this design's pods differ: "
              "{shapes}.").format(shapes=", ".join(
                _("pod {pod}: {gpus} GPUs under one leaf set, in NVLink domains of {domain}").format(
                    pod=pod.index + 1, gpus=f"{domain * sets:,}", domain=domain)
                for pod, (domain, sets) in zip(mixed.fabric.pods, shapes))),
            _("Use pods of one NVLink domain size and scalable unit (GPUs under one leaf set) to export them "
              "together."))
    domain, sets = shapes[0]
    slowest = {level: min(d.gbytes_per_s for dims in own for d in dims if d.level == level)
               for level in ("nvlink", "leaf")}
    link_ns = simulator_latencies()["astrasim-network-link"].ns
    whole = [d for d in own[0] if d.level in ("nvlink", "leaf")]
    whole = [d.model_copy(update={"gbytes_per_s": slowest[d.level]}) for d in whole]
    three = mixed.fabric.tiers == 3  # the leaf sets joined through the pods' own spines and the shared cores
    spines = spine_sets.pop() if three and len(spine_sets) == 1 else 1  # a pod's own spine level, when one grid
    if spines > 1:
        whole.append(Dimension(level="spine", topology="Switch", npus=spines, latency_ns=2 * link_ns,
                               gbytes_per_s=min(d.gbytes_per_s for dims in own for d in dims if d.level == "spine")))
    whole.append(Dimension(level="core" if three else "spine", topology="Switch",
                           npus=mixed.fabric.gpus // (domain * sets * spines),
                           gbytes_per_s=mixed.fabric.cross_pod_gbps_per_gpu / 8,
                           latency_ns=(3 if three else 2) * link_ns))
    return [d for d in whole if d.npus > 1], own


def _astra_outer_note(mixed: MixedPlan) -> str:
    """The comment line of the outer dimensions of ``mixed``'s ASTRA-sim file (module docstring; English, as the
    file's every comment)."""
    if mixed.fabric.tiers != 3:
        return ("# spine dimension: the leaf sets of every pod joined by the shared spines, at the slowest pod's "
                "share of its leaves' uplinks\n")
    groups = [own.groups for own in mixed_wiring(mixed, three_tiers=True).wirings]  # leaf sets per pod
    if len(set(groups)) == 1:
        return ("# spine dimension: each pod's leaf sets joined by its own spines, at the slowest pod's rate there "
                "(none when a pod has one leaf set); core dimension: the pods joined by the shared cores, at the "
                "slowest pod's rate across the core\n")
    sets = ", ".join(f"pod {pod.index + 1}: {count}" for pod, count in zip(mixed.fabric.pods, groups))
    return ("# core dimension: the leaf sets of every pod joined by the pods' own spines and the shared cores, at the "
            f"slowest pod's rate across the core; the pods have other leaf set counts ({sets}), so a pod's own spine "
            "level cannot be a dimension of one grid, and a job inside one pod's spines is written as slow\n")


def write_mixed_astra(mixed: MixedPlan, dims, out: TextIO) -> None:
    """Write the ASTRA-sim analytical network YAML of the whole fabric of ``mixed`` to ``out`` (module docstring),
    ``dims`` its ``astra_dimensions``; its comments give each pod's own dimensions and what the one bandwidth a
    dimension means for mixed pods."""
    from core.formats.astrasim import _LEVEL, _number, write_dimensions

    whole, own = dims
    f = mixed.fabric
    three = f.tiers == 3
    shared = (f", each with its own spines, under {f.cores_total} shared {f.core_switch} cores" if three else
              f" under {f.spines_total} shared {f.spine_switch} spines")
    out.write("# ASTRA-sim 2.x analytical network configuration (--network-configuration), written by fabric planner\n")
    out.write(f"# design: {f.gpus:,} GPUs in {f.nodes:,} nodes, {len(f.pods)} pods{shared} "
              f"({mixed.plans[0].resolved.fabric}, {f.tiers} tiers, {f.planes} plane{'s' if f.planes > 1 else ''}); "
              "NPUs numbered pod by pod (pod 1's "
              "first)\n")
    for pod, p, dims in zip(f.pods, mixed.plans, own):
        out.write(f"#   pod {pod.index + 1}: {pod.gpus:,} x {pod.system} in {pod.nodes:,} nodes at "
                  f"{pod.port_speed_gbps}G, leaf {pod.leaf_switch}; alone: " + ", ".join(
                      f"{_LEVEL[d.level].split(' (')[0]} {_number(d.gbytes_per_s)} GB/s" for d in dims)
                  + f"; out of its leaves {_number(pod.gbps_per_gpu / 8)} GB/s (10^9 B/s per GPU, per direction)\n")
    out.write("# mixed pods: the format gives every NPU of a dimension one bandwidth, so each dimension here is the\n"
              "#   slowest pod's (a collective across pods waits for its slowest member); a job on a faster pod alone\n"
              "#   runs faster than this file says (its own values above). The GPU types' compute is the workload's\n"
              "#   (its traces' compute times), not this file's.\n")
    write_dimensions(whole, _astra_outer_note(mixed), out)


def astra_note(mixed: MixedPlan) -> str:
    """What the ASTRA-sim file of ``mixed`` says of its pods, in the current language (the export's description)."""
    if mixed.fabric.tiers == 3:
        return _("every pod's leaf sets under their own spines and the shared cores, each dimension at the slowest "
                 "pod's bandwidth (the file's comments give each pod's own)")
    return _("every pod's leaf sets under the shared spines, each dimension at the slowest pod's bandwidth (the "
             "file's comments give each pod's own)")
