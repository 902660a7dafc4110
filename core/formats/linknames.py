"""A link of the link-load analysis under the names the exports give its two ends (the Slurm topology, NetBox and the
cabling plan: ``core.fabric.naming.Namer``; a design with pods: each pod's scheme ``core.formats.podslurm.pod_scheme``
and the shared spines' ``core.formats.podnetbox.spine_names``).

The analysis names a link by the wiring's ids (``core.analysis.load``, ``core.analysis.loadpods``):
``node5.nic2 -> p0.leaf3``, ``p0.leaf3 -> p0.spine1#2``, with pods ``pod2.node5.nic0 -> pod2.p0.leaf1`` and
``pod2.p0.leaf1 -> spine0#1``. ``link_names`` turns each end into its export name: a server's host name and its NIC
as the cabling plan counts it (``gpu006 nic3``: 1-based), a switch's name (``leaf004``, ``pod2-leaf002``,
``spine01``), and the parallel cable between the same two switches 1-based (``#3``). An id it cannot read stays as
it is. Every name is English, as in the exports. A folded Clos only: another family's links keep its own words
(``core.figures.topology.link_name``: a Dragonfly's ``router 4``), which its exports do not use (they name a router
by its wiring role).
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from core.fabric.naming import Namer, NamingScheme
from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import Wiring

_END = re.compile(r"^(?P<device>.+?)(?:\.nic(?P<nic>\d+))?(?:#(?P<cable>\d+))?$")
"""A link end: a device id, then a NIC index or a parallel cable's index (0-based)."""


def _namer_of(plan, scheme: NamingScheme | None) -> Callable[[str], str | None]:
    """A function of a device id of ``plan``'s wiring (with pods: the whole fabric's) to its export name (None for
    an id it cannot read)."""
    from core.formats.podslurm import mixed_of, pod_scheme

    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    if mixed is None:
        namer = Namer.of(plan, scheme, checked=False)
        return lambda device: _vertex(namer, device)
    from core.analysis.pods import mixed_wiring
    from core.formats.podnetbox import spine_names

    if mixed.fabric.tiers == 3 or mixed.fabric.planes > 1:  # own spines, shared cores, planes: PodNames's names
        from core.formats.podexports import PodNames

        names = PodNames(mixed, scheme)
        return lambda device: (names.device(device) if names.wiring.parse_shared(device) is not None
                               or names.wiring.parse(device) is not None else None)
    wiring = mixed_wiring(mixed)
    namers = [Namer.of(p, pod_scheme(scheme, pod.index + 1), checked=False)
              for p, pod in zip(mixed.plans, mixed.fabric.pods)]
    spines = spine_names(mixed, scheme)
    first = PodsWiring.spine_id(0)[:-1]

    def name(device: str) -> str | None:
        if device.startswith(first) and device[len(first):].isdigit():
            j = int(device[len(first):])
            return spines[j] if j < len(spines) else None
        found = wiring.parse(device)
        return None if found is None else _vertex(namers[found[0]], found[1])

    return name


def _vertex(namer: Namer, device: str) -> str | None:
    """``namer``'s name of a server or switch id of one wiring; None for another id."""
    if Wiring.parse(device) is None and Wiring.parse_node(device) is None:
        return None
    return namer.vertex(device)


def link_names(plan, links: Sequence[str], scheme: NamingScheme | None = None) -> list[str]:
    """The links ``links`` (``a -> b``, the analysis's ids) of ``plan`` under the exports' names (module docstring).

    Parameters
    ----------
    plan : Plan
        The planned design (with pods: its whole fabric, ``core.analysis.whole``).
    links : sequence of str
        Link names as ``LoadResult.hot_links`` gives them.
    scheme : NamingScheme, optional
        The exports' naming scheme (default: the default names).

    Returns
    -------
    list of str
        Each link as ``gpu006 nic3 -> leaf004`` or ``pod2-leaf002 -> spine01 #2``.
    """
    from core.fabric.families import CLOS
    from core.figures.topology import link_name

    if plan.fabric.family != CLOS:  # a Dragonfly's routers: in its own words (its exports name them by role)
        return [link_name(plan.fabric.family, link) for link in links]
    name = _namer_of(plan, scheme)

    def end(text: str) -> str:
        found = _END.match(text)
        device = name(found["device"]) if found else None
        if device is None:
            return text
        nic = f" nic{int(found['nic']) + 1}" if found["nic"] is not None else ""
        cable = f" #{int(found['cable']) + 1}" if found["cable"] is not None else ""
        return device + nic + cable

    return [" -> ".join(end(part) for part in link.split(" -> ")) for link in links]


def scheme_of(values: dict | None, plan) -> NamingScheme | None:
    """The exports' naming scheme of the link's naming values ``values`` (``{"np": node prefix, "sp": switch prefix,
    "nd": digits}``, the Designer's hand-off options) checked against ``plan``; None (the default names) without
    values or when the scheme is refused (the Designer says why)."""
    from core.errors import InputError
    from core.fabric.naming import naming_scheme

    if not values:
        return None
    try:
        return naming_scheme(values["np"], values["sp"], int(values["nd"]), plan)
    except (InputError, KeyError, TypeError, ValueError):
        return None
