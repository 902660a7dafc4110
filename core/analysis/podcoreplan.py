"""The bill of a design with pods on three tiers (``core.fabric.podcore``): each pod's own plan as one spine pod,
with the shared core layer bought once in place of the pods' own cores.

Each present pod is planned alone on three tiers (``core.analysis.pods.mixed_plan``): its nodes, leaves, its own
spines, the node-leaf, leaf-spine and spine-core cables and optics and its other networks are its own bill's rows.
The mixed bill keeps every row but the pod's own core switches (installed, not spare), and buys the shared cores
once (``MixedFabric.cores`` of the core model). Approximations, as with the shared spine layer: the spine-core
cables' lengths and media are each pod's own layout's (to its own core racks; no hall is drawn for pods on three
tiers, ``MixedPlan.hall`` is None), and the core-side optics are counted as each pod alone counts them. The
out-of-band network loses each pod's own cores' management ports and the first pod's takes the shared cores'
(``core.analysis.podmgmt.with_shared_management``); the shared cores' racks' PDUs are not added.
"""

from __future__ import annotations

from core.catalog import load_catalog
from core.cost import BomRow, build_bom
from core.fabric.pods import MixedFabric
from core.fabric.wiring import Wiring
from core.i18n import _


def _core_row(p, bom: tuple[BomRow, ...]) -> BomRow | None:
    """The compute fabric's core switch row of one pod's own bill ``bom`` (installed, not spare)."""
    core = p.resolved.tier_switches["core"]
    item = _("{name} (core)").format(name=core.name)
    return next((row for row in bom if row.category == "switch" and row.network == "compute" and row.item == item
                 and not row.spare), None)


def mixed_three_tiers(fabric: MixedFabric, sized: list, present: list) -> dict:
    """The ``core.analysis.pods.MixedPlan`` fields of pods on three tiers (module docstring).

    Parameters
    ----------
    fabric : MixedFabric
        The sized pods (``tiers`` 3) at the stage.
    sized : list of core.plan.Plan
        The own plans of the pods the core layer is sized for (the final stage's with ``Design.pods_final``): the
        shared core row is the first of their core rows of the core model.
    present : list of core.plan.Plan
        The present pods' own plans on three tiers (``fabric.pods`` order).

    Returns
    -------
    dict
        ``fabric``, ``plans`` and ``bom`` (every pod's rows but its own cores, the shared cores first; prices in
        USD as the pods' own bills).
    """
    from core.analysis.podmgmt import with_shared_management

    catalog = load_catalog()
    rows: list[BomRow] = []
    for i, p in enumerate(present):
        networks = with_shared_management(p, p.networks, i == 0, fabric.cores, 0, own=Wiring.of(p).cores)
        bom = build_bom(p.resolved, p.fabric, catalog, layout=p.layout, networks=networks)
        own = _core_row(p, bom)
        rows += [row for row in bom if row is not own]
    shared = next((row for row in (_core_row(p, p.bom) for p in sized)
                   if row is not None and row.catalog_id == fabric.core_switch), None)
    if shared is not None:
        rows.insert(0, shared.model_copy(update={
            "quantity": fabric.cores,
            "why": _("{cores} cores shared by {pods} pods: {groups} groups of {per_group}, spine j of every pod to "
                     "group j; {used} of {radix} ports at {speed}G used on each core of group 1 (sized for stage "
                     "{stage})").format(cores=fabric.cores, pods=len(sized), groups=fabric.core_groups,
                                        per_group=fabric.cores_per_group, used=fabric.core_ports_used,
                                        radix=fabric.core_radix, speed=fabric.core_speed_gbps,
                                        stage=fabric.sized_for_stage)}))
    return {"fabric": fabric, "plans": tuple(present), "bom": tuple(rows)}
