"""Element names to show as examples of a failure what-if's form (the Resilience page's placeholder): ids of the
design's own wiring, so the example never names a spine of a one-tier fabric or a node past the last, said as the
exports name them (``core.analysis.failure.names``: ``leaf002``, ``gpu002 nic8``).

Each example is an element the failure-spec language (``core.analysis.failure.spec``, ``graphwhatif``,
``toruswhatif``) names and renders itself: the second element of a tier in the order a count fails them (the first
when the tier has one), for the tiers a reader most often fails, in this order: the highest switch tier, a link
bundle, a NIC, a scale-up switch (or mesh link), a rack's power feed. Every example is checked by
``resolve_failures`` on the plan; one that does not resolve is left out.
"""

from __future__ import annotations

from itertools import islice

from core.errors import FabricPlannerError
from core.fabric.families import failure_names

EXAMPLES = 4
"""Element names an example line shows."""
CLOS_TIERS = (("core", "spine", "leaf"), ("link",), ("nic",), ("nvswitch", "tray", "meshlink", "nvlink2"),
              ("feed", "rack"))
"""A folded Clos's example tiers: of each group, the first the design has."""
GRAPH_TIERS = (("spine", "leaf"), ("global",), ("link",), ("nic",))
"""Another family's (``graphwhatif``): its switches, global and local bundles, NICs."""


def _nth(keys, index: int):
    """The ``index``-th key of the iterator ``keys``, else its first, else None."""
    found = list(islice(keys, index + 1))
    return found[min(index, len(found) - 1)] if found else None


def _picked(groups, tiers, order, name) -> list[str]:
    """One name per group of tiers (its first tier in ``tiers``): ``name(tier, key)`` of the second key of
    ``order(tier)``."""
    out = []
    for group in groups:
        tier = next((t for t in group if t in tiers), None)
        key = None if tier is None else _nth(order(tier), 1)
        if key is not None:
            out.append(name(tier, key))
    return out


def _clos(plan) -> list[str]:
    from core.analysis.failure.shape import Shape
    from core.analysis.failure.spec import _element, _worst_order, tiers_for

    shape = Shape.of(plan)
    return _picked(CLOS_TIERS, tiers_for(plan), lambda t: _worst_order(t, shape),
                   lambda t, key: _element(t, key, shape))


def _graph(plan) -> list[str]:
    from core.analysis.failure import graphwhatif as g

    net = g._Net.of(plan)
    return _picked(GRAPH_TIERS, g.tiers_of(plan), lambda t: g._order(t, net), g._element)


def _torus(plan) -> list[str]:
    from core.analysis.failure import toruswhatif as t

    torus = t._Torus(plan)
    bundle = t._element(torus, "link", (0, 0)).split("#")[0]  # the whole bundle of two neighbours
    last = torus.wiring.nodes - 1
    return [bundle, t._element(torus, "nic", (min(1, last), torus.nics - 1)), t._element(torus, "node", (last,))]


def element_examples(plan, mixed=None, count: int = EXAMPLES, naming=None) -> list[str]:
    """Up to ``count`` element names of ``plan``'s design (module docstring) as the exports name them under the
    naming scheme ``naming`` (None: the default names); a design with pods (``mixed``, its
    ``core.analysis.pods.MixedPlan``, found from ``plan`` when None) as the pods' exports name its whole fabric's
    elements (``core.analysis.failure.podnames``): pod 2's first leaf (``pod2-leaf001``), the shared layer's first
    switch (``spine001``; three tiers ``core001`` and ``pod1-spine001``), then a NIC and a rack's power feed inside a
    pod (``pod2-gpu006 nic3``, ``R05-02 feedA``): names ``python -m core failure`` and the Resilience page take."""
    from core.analysis.failure.spec import _resolved, export_namer

    if mixed is None and getattr(plan.design, "pods", None):
        from core.analysis.whole import design_mixed

        try:
            mixed = design_mixed(plan.design)
        except FabricPlannerError:  # pods that cannot be planned together: pod 1's own names below
            mixed = None
    if mixed is not None and len(mixed.fabric.pods) > 1:
        from core.analysis.failure.podnames import PodElementNames

        names = PodElementNames(mixed, naming)
        return [names.name(element) for element in _whole(mixed)][:count]
    names = {"node-to-node": _torus, "tiers": _clos, "graph": _graph}[failure_names(plan.fabric.family)](plan)
    good = []
    for name in names:
        try:
            _resolved(plan, [name])
        except FabricPlannerError:
            continue
        good.append(name)
    exported = export_namer(plan, naming)  # the exports' names (leaf002, gpu002 nic8, R01-01 feedB)
    return [exported.name(name) if exported is not None else name for name in good[:count]]


def _whole(mixed) -> list[str]:
    """A design with pods: pod 2's first leaf, the shared layer's first switch and (three tiers) pod 1's first own
    spine as the whole fabric names them, each one the whole-fabric what-if takes
    (``core.analysis.podwhatif.is_whole_element``); pod 1's names alone (``p0.core1``) are not the whole fabric's;
    then a NIC and a rack's power feed of pod 2 (``core.analysis.podinside``: its own what-if)."""
    from core.analysis.podinside import inside_spec
    from core.analysis.podwhatif import is_whole_element, whatif_wiring
    from core.fabric.podwiring import PodsWiring

    wiring = whatif_wiring(mixed)  # pods on planes: plane 0's ids
    shared = [wiring.leaf_id(1, 0)]
    shared += [PodsWiring.core_id(0), wiring.own_spine_id(0, 0)] if wiring.three_tiers else [wiring.shared_spine_id(0)]
    inside = [e for e in ("pod2.node5.nic2", "pod2.rack1.feedA", "pod2.node0.nic0", "pod2.rack0.feedA")
              if inside_spec(mixed, e)]
    return [name for name in shared if is_whole_element(mixed, name)] + inside[:1] + [e for e in inside if "feed" in e][:1]
