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

Each end's modules are shared among the optical length bins by their link counts, as ``core.cost.link_rows``
does. The spare rows are then recounted from the installed rows (``core.spares.spare_rows``).
"""

from __future__ import annotations

import math

from core.catalog import Catalog, form_factor_family
from core.cost import KIND_LABELS, LINK_CLASS_LABELS, BomRow, _apportion, _row_adder
from core.fabric.pods import MixedFabric, PodLeaves
from core.i18n import N_, _
from core.physical.media import LinkSpeed, MediaBin, pick_transceiver
from core.spares import spare_rows
from core import plurals

LEAF_END = (N_("leaf end, {link_class}: {leaves} leaf ({model}) x ceil({ports}/{per_cage}) ({cage} per cage); "
             "{media} for {links} links by length: {spans}"), N_("{name} (leaf end, leaf-spine)"))
SPINE_END = (N_("shared spine end, {link_class}: {spines} spines ({model}) x ceil({ports}/{per_cage}): pod {pod}'s "
              "{uplinks} uplinks at {uplink}G to each spine take {ports} of its {speed}G ports ({cage} per cage); "
              "{media} for {links} links by length: {spans}"), N_("{name} (shared spine end, leaf-spine)"))
"""(why, item) of the leaf end's and of the shared spine end's rows, marked for translation."""


def _spine_module(catalog: Catalog, fabric: MixedFabric, pod: PodLeaves, kind: str, b: MediaBin):
    """The module at a shared spine's end of the pod's links of length bin ``b`` (module docstring)."""
    spine = catalog.switch(fabric.spine_switch)
    per_cage = spine.ports_per_cage(fabric.spine_speed_gbps) * pod.uplinks_per_spine_port
    module = pick_transceiver(catalog, LinkSpeed(kind, pod.uplink_speed_gbps), "switch", per_cage, b.max_m,
                              media=b.kind, cage=form_factor_family(spine.cage_type), strict=True)
    return module or catalog.transceiver(b.switch_module_id)


def shared_spine_optics(fabric: MixedFabric, pod: PodLeaves, plan, media: tuple[MediaBin, ...],
                        bom: tuple[BomRow, ...], catalog: Catalog) -> list[BomRow]:
    """The bill ``bom`` of ``pod`` planned alone (``plan``, a ``core.plan.Plan``; ``media``: its compute media
    bins in the hall) with its leaf-spine switch-side transceiver rows counted at its leaves and at the shared
    spines of ``fabric`` (module docstring); prices in USD at the pod's price basis. Two tiers only; a bill
    without optical leaf-spine links is returned as it is."""
    optical = [b for b in media if b.link_class == "leaf-spine" and not b.cable_id]
    if fabric.tiers != 2 or not optical:
        return list(bom)
    resolved, kind = plan.resolved, plan.resolved.fabric
    class_links = sum(b.links for b in media if b.link_class == "leaf-spine")
    share = sum(b.links for b in optical) / class_links
    module_names = {catalog.transceiver(b.switch_module_id).name for b in optical}
    old = {_("{name} (switch side, leaf-spine)").format(name=name) for name in module_names}
    installed = [row for row in bom if not row.spare]
    at = next(i for i, row in enumerate(installed) if row.category == "transceiver" and row.item in old)
    kept = [row for row in installed if not (row.category == "transceiver" and row.end == "switch" and row.item in old)]
    leaf = resolved.tier_switches["leaf"]
    leaf_cage = leaf.ports_per_cage(pod.uplink_speed_gbps)
    spine = catalog.switch(fabric.spine_switch)
    spine_cage = spine.ports_per_cage(fabric.spine_speed_gbps)
    ports = pod.spine_ports(fabric.spines)
    ends = (
        (math.ceil(pod.leaves * math.ceil(pod.uplinks_per_leaf / leaf_cage) * share),
         lambda b: catalog.transceiver(b.switch_module_id), LEAF_END,
         dict(leaves=f"{pod.leaves:,}", model=leaf.id, ports=pod.uplinks_per_leaf, per_cage=leaf_cage,
              cage=plurals.ports(leaf_cage))),
        (math.ceil(fabric.spines * math.ceil(ports / spine_cage) * share),
         lambda b: _spine_module(catalog, fabric, pod, kind, b), SPINE_END,
         dict(spines=f"{fabric.spines:,}", model=spine.id, ports=ports, per_cage=spine_cage,
              cage=plurals.ports(spine_cage), speed=fabric.spine_speed_gbps, pod=pod.index + 1,
              uplinks=f"{pod.leaves * pod.links_per_leaf_spine_pair:,}", uplink=pod.uplink_speed_gbps)),
    )
    new: list[BomRow] = []
    add = _row_adder(resolved, new)
    for total, module_of, (why, item), words in ends:
        by_module: dict[str, list] = {}
        for b, n in zip(optical, _apportion(total, [b.links for b in optical])):
            by_module.setdefault(module_of(b).id, []).append((b, n))
        for module_id, parts in by_module.items():
            module = catalog.transceiver(module_id)
            spans = ", ".join(f"{b.label()} {b.links:,}" for b, _n in parts)
            add("transceiver", module, sum(n for _b, n in parts), _(why).format(
                **words, media=_(KIND_LABELS[parts[0][0].kind]), links=f"{sum(b.links for b, _n in parts):,}",
                spans=spans, link_class=_(LINK_CLASS_LABELS["leaf-spine"])),
                item=_(item).format(name=module.name), end="switch")
    at = sum(1 for row in installed[:at] if row in kept)
    rows = kept[:at] + new + kept[at:]
    return rows + list(spare_rows(rows, resolved.design.spares,
                                  lambda: {e.id: e.name for _kind, e in catalog.all_entries()}))

