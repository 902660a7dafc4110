"""The switch-side optics of a pod's leaf-spine links under the shared spine layer of a mixed design.

A pod planned alone (``core.analysis.pods``) counts the switch-side modules of its leaf-spine links at both
switch ends of its own plan: its leaves and its own spines (``core.cost.switch_module_counts``). In the mixed
design the pod's own spines are not built; its uplinks end on the shared spines (``core.fabric.pods``). So the
pod's leaf-spine switch-side rows are split by end:

* **Leaf end**: ``L_p x ceil(u_p / c_leaf)`` modules, ``c_leaf`` the leaf's ports per cage at the uplink speed
  ``s_p`` [Gb/s per direction], of the module the pod's media chose for each length bin.
* **Shared spine end**: ``N x ceil(P_p / c_S)`` modules, ``N`` the shared spines, ``P_p`` the ports at the spine
  speed ``S`` the pod's uplinks take on each spine (``PodLeaves.spine_ports``) and ``c_S`` the shared spine's
  ports per cage at ``S``. A module there carries ``c_S x b_p`` links at ``s_p`` (``b_p``: the pod's uplinks per
  spine port; a whole port run at ``s_p`` when ``b_p = 1``), in the shared spine's cage family and the media of
  the bin (``core.physical.media.pick_transceiver``; the bin's own module when the catalog has none of that
  media reaching).

Pods on three tiers (``core.fabric.podcore``) take the same rule one tier up: the pod's spine-core rows are split
into its **own spine end** (``N_p x ceil(U_p / c_spine)``) and the **shared core end** (``C x ceil(P_p / c_C)``,
``P_p = N_p / groups x core_ports``: the ports at the core speed the pod's spines under a core take on it,
``PodLeaves.core_ports``; ``c_C`` the shared core's ports per cage), the core's module in its cage family.

Each end's modules are shared among the optical length bins by their link counts, as ``core.cost.link_rows``
does. The spare rows are then recounted from the installed rows (``core.spares.spare_rows``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from core.catalog import Catalog, form_factor_family
from core.cost import LINK_CLASS_LABELS, BomRow, apportion, length_words, priced_row_adder, share_words
from core.fabric.pods import MixedFabric, PodLeaves
from core.i18n import N_, _
from core.physical.media import LinkSpeed, MediaBin, pick_transceiver
from core.spares import spare_rows
from core import plurals

LEAF_END = (N_("leaf end, {link_class}: {leaves} leaf ({model}) x ceil({ports}/{per_cage}) = {every} ({cage} per "
             "cage)"), N_("{name} (leaf end, leaf-spine)"))
SPINE_END = (N_("shared spine end, {link_class}: {spines} spines ({model}) x ceil({ports}/{per_cage}) = {every}: pod "
              "{pod}'s {uplinks} uplinks at {uplink}G to each spine take {ports} of its {speed}G ports ({cage} per "
              "cage)"), N_("{name} (shared spine end, leaf-spine)"))
"""(why, item) of the leaf end's and of the shared spine end's rows, marked for translation."""


OWN_SPINE_END = (N_("spine end, {link_class}: {spines} spines ({model}) x ceil({ports}/{per_cage}) = {every} ({cage} "
                    "per cage)"), N_("{name} (spine end, spine-core)"))
CORE_END = (N_("shared core end, {link_class}: {cores} cores ({model}) x ceil({ports}/{per_cage}) = {every}: pod "
               "{pod}'s {uplinks} spine uplinks at {uplink}G to each core take {ports} of its {speed}G ports ({cage} "
               "per cage)"), N_("{name} (shared core end, spine-core)"))
"""Pods on three tiers: (why, item) of the pod's own spine end's and of the shared core end's spine-core rows."""


def _far_module(catalog: Catalog, switch, speed: int, lanes: int, pod: PodLeaves, kind: str, b: MediaBin):
    """The module at a shared switch's end (``switch`` at ``speed`` [Gb/s per direction], ``lanes`` of the pod's
    uplinks per port) of the pod's links of length bin ``b`` (module docstring)."""
    per_cage = switch.ports_per_cage(speed) * lanes
    module = pick_transceiver(catalog, LinkSpeed(kind, pod.uplink_speed_gbps), "switch", per_cage, b.max_m,
                              media=b.kind, cage=form_factor_family(switch.cage_type), strict=True)
    return module or catalog.transceiver(b.switch_module_id)


def _ends(fabric: MixedFabric, pod: PodLeaves, plan, catalog: Catalog, share: float) -> tuple:
    """``(link class, ends)`` of the pod's links up into the shared layer (module docstring): two tiers its
    leaf-spine links, at its leaves and the shared spines; three tiers its spine-core links, at its own spines and
    the shared cores (``C`` cores in groups, ``N_p / groups`` of its spines under each core, ``core_ports`` each at
    the core speed). Each end: (modules, module of a bin, (why, item), words); ``share``: the optical links'
    share of the class. Switches of every plane (``MixedFabric.planes``); ports per switch as in one."""
    kind = plan.resolved.fabric
    if fabric.tiers == 3:
        link_class, near, up = "spine-core", plan.resolved.tier_switches["spine"], pod.spine_uplinks
        n = pod.own_spines * fabric.planes
        far, count, speed, lanes = (catalog.switch(fabric.core_switch), fabric.cores_total, fabric.core_speed_gbps,
                                    pod.uplinks_per_core_port)
        ports = pod.own_spines // fabric.core_groups * pod.core_ports()
        texts = OWN_SPINE_END, CORE_END
        far_words = dict(cores=f"{count:,}", uplinks=f"{pod.own_spines // fabric.core_groups * pod.links_per_spine_core_pair:,}")
        near_words = dict(spines=f"{n:,}")
    else:
        link_class, near, up = "leaf-spine", plan.resolved.tier_switches["leaf"], pod.uplinks_per_leaf
        n = pod.leaves * fabric.planes
        far, count, speed, lanes = (catalog.switch(fabric.spine_switch), fabric.spines_total, fabric.spine_speed_gbps,
                                    pod.uplinks_per_spine_port)
        ports = pod.spine_ports(fabric.spines)
        texts = LEAF_END, SPINE_END
        far_words = dict(spines=f"{count:,}", uplinks=f"{pod.leaves * pod.links_per_leaf_spine_pair:,}")
        near_words = dict(leaves=f"{n:,}")
    near_cage, far_cage = near.ports_per_cage(pod.uplink_speed_gbps), far.ports_per_cage(speed)
    every_near, every_far = n * math.ceil(up / near_cage), count * math.ceil(ports / far_cage)  # were all optical
    return link_class, (
        (math.ceil(every_near * share), lambda b: catalog.transceiver(b.switch_module_id),
         texts[0], dict(near_words, model=near.id, ports=up, per_cage=near_cage, cage=plurals.ports(near_cage),
                        every=every_near)),
        (math.ceil(every_far * share),
         lambda b: _far_module(catalog, far, speed, lanes, pod, kind, b), texts[1],
         dict(far_words, model=far.id, ports=ports, per_cage=far_cage, cage=plurals.ports(far_cage), speed=speed,
              pod=pod.index + 1, uplink=pod.uplink_speed_gbps, every=every_far)),
    )


def shared_spine_optics(fabric: MixedFabric, pod: PodLeaves, plan, media: tuple[MediaBin, ...],
                        bom: tuple[BomRow, ...], catalog: Catalog) -> list[BomRow]:
    """The bill ``bom`` of ``pod`` planned alone (``plan``, a ``core.plan.Plan``; ``media``: its compute media
    bins in the hall) with its leaf-spine switch-side transceiver rows counted at its leaves and at the shared
    spines of ``fabric`` (module docstring); pods on three tiers: its spine-core rows at its own spines and at the
    shared cores. Prices in USD at the pod's price basis. A bill without optical links up into the shared layer is
    returned as it is."""
    link_class = "spine-core" if fabric.tiers == 3 else "leaf-spine"
    optical = [b for b in media if b.link_class == link_class and not b.cable_id]
    if not optical:
        return list(bom)
    resolved = plan.resolved
    class_links = sum(b.links for b in media if b.link_class == link_class)
    optical_links = sum(b.links for b in optical)
    share = Fraction(optical_links, class_links)  # exact: the rows say ceil(modules x optical / links)
    module_names = {catalog.transceiver(b.switch_module_id).name for b in optical}
    item = N_("{name} (switch side, spine-core)") if fabric.tiers == 3 else N_("{name} (switch side, leaf-spine)")
    old = {_(item).format(name=name) for name in module_names}
    installed = [row for row in bom if not row.spare]
    at = next(i for i, row in enumerate(installed) if row.category == "transceiver" and row.item in old)
    kept = [row for row in installed if not (row.category == "transceiver" and row.end == "switch" and row.item in old)]
    link_class, ends = _ends(fabric, pod, plan, catalog, share)
    new: list[BomRow] = []
    add = priced_row_adder(resolved, new)
    for total, module_of, (why, item), words in ends:
        by_module: dict[str, list] = {}
        for b, n in zip(optical, apportion(total, [b.links for b in optical])):
            by_module.setdefault(module_of(b).id, []).append((b, n))
        for module_id, parts in by_module.items():
            module = catalog.transceiver(module_id)
            quantity = sum(n for _b, n in parts)
            add("transceiver", module, quantity, _(why).format(
                **{**words, "every": f"{words['every']:,}"}, link_class=_(LINK_CLASS_LABELS[link_class]))
                + share_words(words["every"], class_links, optical_links, total, quantity)
                + length_words([(b, b.label()) for b, _n in parts]),
                item=_(item).format(name=module.name), end="switch")
    at = sum(1 for row in installed[:at] if row in kept)
    rows = kept[:at] + new + kept[at:]
    return rows + list(spare_rows(rows, resolved.design.spares,
                                  lambda: {e.id: e.name for _kind, e in catalog.all_entries()}))

