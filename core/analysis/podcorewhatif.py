"""The failure what-if of pods on three tiers (``core.fabric.podcore``) on the whole fabric: every pod's servers,
leaves and own spines under the shared cores, some of them lost, what each pod loses (``core.analysis.podwhatif``
sends pods on three tiers here and keeps its ``PodLoss`` rows).

Elements are ``core.fabric.podwiring``'s ids: a shared core ``core0``, a pod's own spine ``pod2.p0.spine0``, a pod's
leaf ``pod2.p0.leaf1``, a leaf's bundle to its pod's spine ``pod2.p0.leaf1-spine0`` (``PodsWiring.link_id``), a
spine's bundle to a core of its group ``pod2.p0.spine0-core1`` (``PodsWiring.core_link_id``) or one cable ``#x`` of
a bundle (``x`` below its ``u_p / N_p`` or ``U_p / C`` cables). Per pod:

* **GPUs cut off**: a server is cut off when every leaf it is cabled to is lost; the GPUs outside the part of the
  fabric holding the most GPUs (live leaves, own spines and cores joined by their live cables) are cut off too:
  without any live core (or a pod without a live spine) the pods are apart and all but the largest part lose.
* **Servers degraded**, **injection**: as on two tiers (``core.analysis.podwhatif``).
* **Into the cores** [Gb/s per direction] (``PodLoss.spine_gbps``): the most the pod's servers can send into the
  shared core layer, the max-flow from the pod's servers through its live leaves (``a_k``: the leaf group's servers'
  links to the leaf) and live own spines (``c``: ``u_p / N_p`` cables of each leaf to each spine at the pod's uplink
  speed) to the live cores (``b_j``: spine ``j``'s live cables to the live cores of its group, ``U_p / C`` per core).
  Traffic between pods crosses it. With every leaf-spine cable whole the leaf-spine layer is complete and uniform
  and the minimum cut is closed form: ``min over t of (the N - t smallest b_j) + sum_k min(a_k, t * c)`` (the cut
  puts the ``t`` spines of the largest ``b_j`` on the cores' side); a lost leaf-spine cable makes the layer uneven:
  the cut then also tries every subset of the spines with a short pair (``uneven_cut``), and past
  ``UNEVEN_SPINES`` of them a max-flow on the pod's leaves and spines (``networkx``) gives it.

Cost: O(leaves x spines) per pod, ``2^s`` times that for ``s`` spines with a lost leaf-spine cable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import InputError
from core.fabric.podwiring import PodsWiring
from core.i18n import _


def core_elements(wiring: PodsWiring) -> list[str]:
    """Every element the what-if takes but the bundles: the shared cores, every pod's own spines, every pod's
    leaves (device ids), plane by plane for each kind."""
    planes = range(wiring.planes)
    return (list(wiring.shared_ids())
            + [wiring.own_spine_id(i, k, q) for i, own in enumerate(wiring.wirings) for q in planes
               for k in range(own.spines)]
            + [wiring.leaf_id(i, k, q) for i, own in enumerate(wiring.wirings) for q in planes
               for k in range(own.leaves)])


def core_choices(wiring: PodsWiring) -> list[str]:
    """``core_elements`` and every bundle: each leaf to each of its pod's spines, each spine to each core of its
    group (every plane's)."""
    planes = range(wiring.planes)
    leaf_spine = [wiring.link_id(i, k, j, q) for i, own in enumerate(wiring.wirings) for q in planes
                  for k in range(own.leaves) for j in range(own.spines)]
    spine_core = [wiring.core_link_id(i, k, c, q) for i, own in enumerate(wiring.wirings) for q in planes
                  for k in range(own.spines) for c in wiring.cores_of_spine(k)]
    return core_elements(wiring) + leaf_spine + spine_core


@dataclass
class Lost:
    """The elements lost (module docstring): cores, each pod's own spines and leaves (indices), and the cables lost
    of each leaf-spine bundle ``(pod position, leaf, spine)`` and spine-core bundle ``(pod position, spine, core)``
    (counts)."""

    cores: set = field(default_factory=set)
    spines: list = field(default_factory=list)
    leaves: list = field(default_factory=list)
    leaf_cables: dict = field(default_factory=dict)
    core_cables: dict = field(default_factory=dict)


def _bundle(wiring: PodsWiring, element: str) -> tuple[str, tuple, set] | None:
    """``(kind, bundle key, cables)`` of a bundle id or one cable ``#x`` of it (``leaf`` or ``core`` kind); None for
    another element or a cable the bundle does not have."""
    bundle, mark, cable = element.rpartition("#")
    if not (mark and cable.isdigit()):
        bundle, cable = element, None
    for kind, parse, pair in (("leaf", wiring.parse_link, "links_per_leaf_spine_pair"),
                              ("core", wiring.parse_core_link, "links_per_spine_core_pair")):
        key = parse(bundle)
        if key is not None:
            count = getattr(wiring.fabric.pods[key[0]], pair)
            if cable is None:
                return kind, key, set(range(count))
            return (kind, key, {int(cable)}) if int(cable) < count else None
    return None


def lost_of(wiring: PodsWiring, failed: list[str]) -> Lost:
    """The ``Lost`` of ``failed`` ids (module docstring); ``InputError`` for an id the fabric does not have."""
    lost = Lost(spines=[set() for _w in wiring.wirings], leaves=[set() for _w in wiring.wirings])
    cables: dict = {"leaf": {}, "core": {}}
    for element in failed:
        core, spine, bundle = wiring.parse_core(element), wiring.parse_own_spine(element), _bundle(wiring, element)
        found = wiring.parse(element)
        parsed = wiring.wirings[found[0]].parse(found[1]) if found is not None else None
        if core is not None:
            lost.cores.add(core)
        elif spine is not None:
            lost.spines[spine[0]].add(spine[1])
        elif bundle is not None:
            cables[bundle[0]].setdefault(bundle[1], set()).update(bundle[2])
        elif (parsed is not None and parsed[0] == "leaf" and not parsed[1] and not parsed[2]
              and parsed[3] < wiring.wirings[found[0]].leaves):
            lost.leaves[found[0]].add(parsed[3])
        else:
            raise _unknown(wiring, element)
    lost.leaf_cables = {key: len(c) for key, c in cables["leaf"].items()}
    lost.core_cables = {key: len(c) for key, c in cables["core"].items()}
    return lost


def _unknown(wiring: PodsWiring, element: str) -> InputError:
    """The ``InputError`` of an id the fabric does not have, with examples of the last plane's ids (on several
    planes they show the plane prefix; ``core.analysis.failure.spec.NamedError``: ``pods_what_if`` says them as the
    pods' exports name them)."""
    from core.analysis.failure.spec import NamedError
    from core.errors import shown

    q = wiring.planes - 1
    return NamedError(_(
        "Unknown element {element}: a shared core (such as {core}), a pod's spine (such as {spine}) or leaf "
        "(such as {leaf}), a leaf's bundle to a spine of its pod (such as {link}), a spine's bundle to a core "
        "(such as {up}) or one cable of a bundle (such as {cable})."), dict(
        core=wiring.shared_core_id(0, q), spine=wiring.own_spine_id(0, 0, q), leaf=wiring.leaf_id(0, 0, q),
        link=wiring.link_id(0, 0, 0, q), up=wiring.core_link_id(0, 0, 0, q),
        cable=wiring.link_id(0, 0, 0, q) + "#0"), element=shown(element))


def lost_by_plane(wiring: PodsWiring, failed: list[str]) -> list[Lost]:
    """The ``Lost`` of each plane (``lost_of`` of the ``failed`` ids of that plane, read as plane 0's:
    ``PodsWiring.in_plane_zero``); ``InputError`` for an id the fabric does not have."""
    by_plane: list[list[str]] = [[] for _q in range(wiring.planes)]
    for element in failed:
        found = wiring.in_plane_zero(element)
        if found is None:
            raise _unknown(wiring, element)
        by_plane[found[0]].append(found[1])
    try:
        return [lost_of(wiring, elements) for elements in by_plane]
    except InputError:  # said with the id as given (not as read in plane 0)
        bad = next(e for e in failed if not _known(wiring, e))
        raise _unknown(wiring, bad) from None


def _known(wiring: PodsWiring, element: str) -> bool:
    """Whether ``lost_by_plane`` takes the one id ``element``."""
    found = wiring.in_plane_zero(element)
    try:
        lost_of(wiring, [found[1]] if found is not None else [""])
    except InputError:
        return False
    return found is not None


UNEVEN_SPINES = 10
"""The most spines with a lost leaf-spine cable the minimum cut enumerates (``min_cut``); more take a max-flow."""


def min_cut(a: list[float], b: list[float], c: float) -> float:
    """The max-flow from leaves of capacities ``a`` (their servers' links) through a complete, uniform leaf-spine
    layer (``c`` per leaf-spine pair) to spines of capacities ``b`` into the cores, as its minimum cut (module
    docstring); all in Gb/s per direction."""
    b = sorted(b)
    return min(sum(b[:len(b) - t]) + sum(min(x, t * c) for x in a) for t in range(len(b) + 1))


def uneven_cut(a: dict[int, float], b: dict[int, float], c: float, short: dict[tuple[int, int], float]) -> float:
    """``min_cut`` when some leaf-spine pairs carry less than ``c``: ``short`` (leaf, spine) -> the capacity they lost
    [Gb/s per direction]; ``a`` leaf -> capacity, ``b`` spine -> capacity (the live ones). The cut's spines on the
    cores' side are a subset ``S`` of the spines with a short pair and the ``m`` others of the largest ``b``: every
    ``S`` and ``m`` is tried (``2^s x N`` cuts, ``s`` such spines), a short leaf taking ``t c`` less its lost share
    towards ``S``; a max-flow (``networkx``) past ``UNEVEN_SPINES`` such spines."""
    short = {(k, j): x for (k, j), x in short.items() if k in a and j in b}
    spines = sorted({j for _k, j in short})
    if len(spines) > UNEVEN_SPINES:
        return _flow(a, {(k, j): c - short.get((k, j), 0.0) for k in a for j in b}, b)
    leaves = sorted({k for k, _j in short})
    rest = sorted((x for j, x in b.items() if j not in spines), reverse=True)
    top = [0.0]
    for x in rest:
        top.append(top[-1] + x)
    even = [x for k, x in a.items() if k not in leaves]
    even_sum = [sum(min(x, t * c) for x in even) for t in range(len(b) + 1)]
    total, best = sum(b.values()), float("inf")
    for mask in range(1 << len(spines)):
        chosen = [j for i, j in enumerate(spines) if mask >> i & 1]
        kept = total - sum(b[j] for j in chosen)
        deficit = {k: sum(short.get((k, j), 0.0) for j in chosen) for k in leaves}
        for m in range(len(rest) + 1):
            t = len(chosen) + m
            best = min(best, kept - top[m] + even_sum[t] + sum(min(a[k], t * c - deficit[k]) for k in leaves))
    return best


def _flow(a: dict[int, float], cap: dict[tuple[int, int], float], b: dict[int, float]) -> float:
    """The max-flow from leaves ``a`` (leaf -> capacity) over the pairs ``cap`` ((leaf, spine) -> capacity) to
    spines ``b`` (spine -> capacity) [Gb/s per direction], on a graph (``networkx``)."""
    import networkx as nx

    g = nx.DiGraph()
    g.add_edges_from(("s", ("l", k), {"capacity": x}) for k, x in a.items())
    g.add_edges_from((("l", k), ("p", j), {"capacity": x}) for (k, j), x in cap.items() if x > 0)
    g.add_edges_from((("p", j), "t", {"capacity": x}) for j, x in b.items())
    return nx.maximum_flow_value(g, "s", "t") if "s" in g and "t" in g else 0.0


def into_cores(wiring: PodsWiring, i: int, lost: Lost, node_links: float) -> float:
    """Into the cores of the pod at position ``i`` with ``lost`` (module docstring) [Gb/s per direction];
    ``node_links``: one server's links to one of its leaves [Gb/s]."""
    own, pod = wiring.wirings[i], wiring.fabric.pods[i]
    s, pair = pod.uplink_speed_gbps, pod.links_per_leaf_spine_pair
    a = {k: own.group_nodes(own.group_of_leaf(k)) * node_links for k in range(own.leaves) if k not in lost.leaves[i]}
    spines = [j for j in range(own.spines) if j not in lost.spines[i]]
    b = {j: s * sum(pod.links_per_spine_core_pair - lost.core_cables.get((i, j, c), 0)
                    for c in wiring.cores_of_spine(j) if c not in lost.cores) for j in spines}
    short = {(k, j): n * s for (p, k, j), n in lost.leaf_cables.items() if p == i}
    if not short:
        return min_cut(list(a.values()), list(b.values()), pair * s)
    return uneven_cut(a, b, pair * s, short)


def join_parts(wiring: PodsWiring, lost: Lost, parts, q: int = 0) -> None:
    """Join in ``parts`` (``core.analysis.podwhatif``'s union-find) every live leaf of plane ``q`` with the live own
    spines it still has a cable to, and every live own spine with the live cores it still has a cable to (vertices
    tagged with the plane)."""
    for i, own in enumerate(wiring.wirings):
        pod = wiring.fabric.pods[i]
        spines = [j for j in range(own.spines) if j not in lost.spines[i]]
        for j in spines:
            for c in wiring.cores_of_spine(j):
                if c not in lost.cores and lost.core_cables.get((i, j, c), 0) < pod.links_per_spine_core_pair:
                    parts.join(("spine", i, j, q), ("core", c, q))
        for k in range(own.leaves):
            if k in lost.leaves[i]:
                continue
            for j in spines:
                if lost.leaf_cables.get((i, k, j), 0) < pod.links_per_leaf_spine_pair:
                    parts.join(("leaf", i, k, q), ("spine", i, j, q))
