"""The exports' names of the failure what-if's elements of a design with pods, both ways.

The whole-fabric what-if (``core.analysis.podwhatif``, ``core.analysis.podcorewhatif``), the failures inside one pod
(``core.analysis.podinside``) and the single points (``core.analysis.podspof``) name an element by the pods' wiring
ids (``core.fabric.podwiring``): ``pod2.p0.leaf1``, ``spine0``, ``pod2.p0.leaf1-spine0#1``, ``pod2.node5.nic2``,
``pod1.rack0.feedA``. The pods' exports (NetBox, the cabling plan, Slurm: ``core.formats.podnetbox``,
``core.formats.podslurm``) name a pod's devices under the pod's naming scheme (``pod_scheme``: ``pod2-leaf002``,
``pod2-gpu006``), the shared spines or cores by the design's (``shared_switches``: ``spine001``, ``core002``) and
every rack by the hall (``MixedPlan.hall``: ``R05-01``, unique over the hall). An element is named as one pod's
element is (``core.analysis.failure.names.ElementNames`` of the pod's plan in the hall under its scheme), a bundle
to a shared switch by its two ends::

    pod2.p0.leaf1            -> pod2-leaf002             pod2.node5.nic2       -> pod2-gpu006 nic3
    spine0                   -> spine001                 pod2.rack0            -> R05-01
    pod2.p0.leaf1-spine0#1   -> pod2-leaf002 -> spine001 #2   pod1.rack0.feedA -> R02-01 feedA
    pod2.p0.spine0-core1     -> pod2-spine001 -> core002 pod2.node0.nvswitch0  -> pod2-gpu001 nvswitch1

``parse`` reads every name ``name`` writes back to the id (any case; None for a text that is no export name: an id
passes through as before).
"""

from __future__ import annotations

import re

from core.analysis.failure.names import _LINK, ElementNames
from core.analysis.pods import mixed_wiring
from core.fabric.naming import Namer, pod_scheme
from core.fabric.wiring import Wiring


def shared_switches(mixed, naming) -> list[tuple[str, str]]:
    """``(whole-fabric id, name)`` of the shared layer's switches of the mixed plan ``mixed`` under the naming scheme
    ``naming``: the shared spines (``spine0``, ``spine001``), or the shared cores of pods on three tiers (``core0``,
    ``core001``: the design's names, as ``core.formats.podexports.PodNames`` and the pods' NetBox import give them);
    plane by plane on several planes (``p2.spine0``, ``p3-spine001``: the first pod's names of that plane)."""
    wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
    namer = Namer.of(mixed.plans[0], naming)
    role, count = ("core", mixed.fabric.cores) if mixed.fabric.tiers == 3 else ("spine", mixed.fabric.spines)
    make = wiring.shared_core_id if mixed.fabric.tiers == 3 else wiring.shared_spine_id
    return [(make(k, q), namer.switch(role, k, *wiring.plane_of(q))) for q in range(wiring.planes)
            for k in range(count)]


class PodElementNames:
    """The export names of one mixed plan's failure elements (module docstring): ``name(id)``, ``parse(name)``,
    ``shown(id)`` (the name with the id in brackets)."""

    def __init__(self, mixed, scheme=None):
        self.naming = scheme  # the design's naming scheme (None: the default names); each pod's is pod_scheme's
        self.wiring = mixed_wiring(mixed, three_tiers=True, planes=True)
        views = mixed.hall.views if mixed.hall is not None else [None] * len(mixed.plans)
        self.pods = [ElementNames(p if view is None else p.model_copy(update={"layout": view}),
                                  pod_scheme(scheme, pod.index + 1))
                     for pod, p, view in zip(mixed.fabric.pods, mixed.plans, views)]
        self.shared = dict(shared_switches(mixed, scheme))
        self.shared_ids = {name.lower(): device for device, name in self.shared.items()}

    # --- id -> export name -------------------------------------------------------------------------------------
    def device(self, device: str) -> str | None:
        """Export name of a device id of the whole fabric (a shared switch, a pod's switch or server); None else."""
        if device in self.shared:
            return self.shared[device]
        found = self.wiring.parse(device)
        return None if found is None else self.pods[found[0]].device(found[1])

    def device_name(self, device: str) -> str:
        """The name people see of a device id of the whole fabric (the charts' labels and hovers, as
        ``ElementNames.device_name`` for a design without pods): ``device``'s, else the id itself."""
        return self.device(device) or device

    def name(self, element: str) -> str:
        """The export name of element id ``element`` (module docstring); the id itself when it has none."""
        text = element.strip()
        stem, hash_, cable = text.lower().partition("#")
        lower, dash, upper = stem.rpartition("-")
        pod = self.wiring.parse(lower) if dash else None
        if dash and (upper in self.shared or (pod and Wiring.parse(upper))) and (not hash_ or cable.isdigit()):
            # a bundle to a shared switch, or on planes to its pod's own spine (pod1.p1.leaf0-p1.spine0)
            below = self.device(lower)
            above = self.shared.get(upper) or (self.device(self.wiring.local_id(pod[0], upper)) if pod else None)
            if below is not None and above is not None:
                return f"{below} -> {above}" + (f" #{int(cable) + 1}" if hash_ else "")
        if text.lower() in self.shared:
            return self.shared[text.lower()]
        found = self.wiring.parse(text.lower() if not text.lower().endswith((".feeda", ".feedb")) else text)
        if found is None:
            return element
        named = self.pods[found[0]].name(found[1])
        return element if named == found[1] else named

    def shown(self, element: str) -> str:
        """``name`` with the id in brackets where they differ: ``pod2-gpu006 nic3 (pod2.node5.nic2)``."""
        name = self.name(element)
        return element if name == element else f"{name} ({element})"

    # --- export name -> id -------------------------------------------------------------------------------------
    def _parse_device(self, text: str) -> str | None:
        text = text.strip()
        if text.lower() in self.shared_ids:
            return self.shared_ids[text.lower()]
        for i, names in enumerate(self.pods):
            own = names.parse_device(text)
            if own is not None and not own.startswith("rack"):
                return self.wiring.local_id(i, own)
        return None

    def parse(self, text: str) -> str | None:
        """The element id of an export name ``name`` writes (module docstring); None for a text that is none."""
        text = " ".join(str(text).replace("\u2192", "->").split())
        found = _LINK.match(text)
        if found:
            a, b = self._parse_device(found["a"]), self._parse_device(found["b"])
            cable = found["cable"]
            bundle = None if a is None or b is None else self.wiring.bundle_of(a, b) or self.wiring.bundle_of(b, a)
            if bundle is not None and (cable is None or int(cable) >= 1):  # leaf-spine or spine-core, any plane
                return bundle + ("" if cable is None else f"#{int(cable) - 1}")
        elif text.lower() in self.shared_ids:
            return self.shared_ids[text.lower()]
        for i, names in enumerate(self.pods):  # a pod's own element: a leaf, its bundle to its own spine, a NIC, ...
            own = names.parse(text)
            if own is not None and not re.fullmatch(r"p\d+", own) and self._pod_named(i, text, own):
                return self.wiring.local_id(i, own)
        return None

    def _pod_named(self, i: int, text: str, own: str) -> bool:
        """Whether ``text`` names the element ``own`` of the pod at position ``i`` under that pod's names (a rack's
        hall name is one pod's; a switch or server name carries the pod's prefix); spaces aside, as the names read
        (``pod2-gpu006 nic 3``, ``R05-02 feed A``)."""
        return "".join(self.pods[i].name(own).split()).lower() == "".join(text.split()).lower()


def pod_element_names(plan, scheme=None) -> PodElementNames | None:
    """The ``PodElementNames`` of ``plan``'s design with pods under ``scheme`` (None: the default names); None for a
    design without pods or whose pods cannot be planned together."""
    from core.analysis.whole import design_mixed
    from core.errors import FabricPlannerError

    try:
        mixed = design_mixed(plan.design)
    except FabricPlannerError:
        return None
    return None if mixed is None else PodElementNames(mixed, scheme)

