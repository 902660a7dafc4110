"""The failure what-if of a design with pods on the whole fabric: every pod's servers and leaves under the shared
spines (``core.fabric.podwiring``), some leaves and shared spines lost, what each pod loses.

Elements are the wiring's device ids: a pod's leaf ``pod2.p0.leaf1``, a shared spine ``spine0``, a leaf's bundle to
a shared spine ``pod2.p0.leaf1-spine0`` (``core.fabric.podwiring.PodsWiring.link_id``) or one cable ``#x`` of it
(``pod2.p0.leaf1-spine0#0``, ``x`` below the bundle's ``u_p / N`` cables, as a fabric's failure spec names one:
``core.analysis.failure``). Per pod, in closed
form from the wiring (O(groups x leaves per group x spines), never a graph):

* **GPUs cut off**: a server is cut off when every leaf it is cabled to is lost; when every shared spine is lost
  the pods' leaf groups are apart, and the GPUs outside the group (scalable unit) holding the most GPUs are cut
  off too; in general the GPUs outside the part of the fabric holding the most GPUs (as the single points count the
  GPUs lost) are cut off.
* **Servers degraded**: servers still connected that lost some of their leaves (a rail's NIC ports).
* **Injection** [Gb/s per direction]: the node-leaf capacity of the pod's servers to leaves that live.
* **To the spines** [Gb/s per direction]: the most the pod's servers can send into the shared spine layer, the
  max-flow from all its servers to the live spines: each live leaf passes the lesser of its live servers' links
  and its links to live spines (``u_p / N`` per spine at the pod's uplink speed, less its lost cables). Traffic
  between pods crosses it.

**Planes** (``MixedFabric.planes``, either mode): every plane's shared spines, leaves and bundles are elements
under their plane's ids (``p1.spine0``, ``pod2.p1.leaf3``, ``pod2.p1.leaf3-p1.spine0``; per-rail ``p0.i1.spine0``,
``pod2.p0.i1.leaf3``). Each plane is computed as above and the bandwidths are summed over the planes; a server
joins every plane it has a live leaf in, so it is cut off only when it lost its leaves in every plane (per-port: its
NIC ports' planes; per-rail: its rails' planes, the lost rails' traffic forwarded over NVLink to a live one as
``core.analysis.failure`` counts PXN), and degraded when it lost some. Losing one of plane ``q``'s ``N`` shared
spines costs a pod with leaves not bound by their servers ``1 / (planes x N)`` of its bandwidth up.

Pods on three tiers (``core.fabric.podcore``) are ``core.analysis.podcorewhatif``'s: the shared cores, every pod's
own spines and leaves and their bundles, the bandwidth up into the cores; the same ``PodLoss`` rows (on planes each
plane's, ids as ``p1.core0``, ``pod2.p1.spine0``, ``pod2.p1.spine0-p1.core1``).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core.analysis.pods import MixedPlan, mixed_wiring
from core.errors import InputError, shown
from core.i18n import N_, _

POD1_NOTE = N_("A design with pods: this scenario fails elements of pod 1's fabric and shows what pod 1 loses. "
               "The Resilience page's \"Every pod under the shared spines\" and python -m core failure with the "
               "shared spines and pods' leaves ({examples}) show what every pod loses.")
"""Said wherever a failure what-if of a design with pods is pod 1's alone (the review pack's failure scenario,
``python -m core failure``)."""


class PodLoss(BaseModel):
    """What one pod loses (module docstring); bandwidths per direction [Gb/s]."""

    model_config = ConfigDict(frozen=True)

    pod: int
    """The pod's number (1-based)."""
    system: str
    gpus: int
    gpus_cut_off: int
    nodes_cut_off: int
    nodes_degraded: int
    injection_gbps: float
    healthy_injection_gbps: float
    spine_gbps: float
    """Into the shared spines (pods on three tiers: into the shared cores), per direction [Gb/s]."""
    healthy_spine_gbps: float


def whatif_wiring(mixed: MixedPlan):
    """The wiring the whole-fabric what-if reads (``core.analysis.pods.mixed_wiring``): pods on two or three tiers on
    any number of planes."""
    return mixed_wiring(mixed, three_tiers=True, planes=True)


def pod_elements(mixed: MixedPlan) -> list[str]:
    """Every element the whole-fabric what-if takes: the shared spines, then every pod's leaves (device ids); pods on
    three tiers: the shared cores, every pod's own spines, then every pod's leaves."""
    wiring = whatif_wiring(mixed)
    if wiring.three_tiers:
        from core.analysis.podcorewhatif import core_elements

        return core_elements(wiring)
    planes = range(wiring.planes)
    return list(wiring.shared_ids()) + [wiring.leaf_id(i, k, q) for i, own in enumerate(wiring.wirings)
                                        for q in planes for k in range(own.leaves)]


def whole_failures(mixed: MixedPlan, failed: list[str]) -> list[str]:
    """The whole-fabric elements (``pod_elements`` ids) of the failure what-if's ``failed`` elements of pod 1 planned
    alone: its spines are the shared spines, its leaves pod 1's (``PodsWiring.whole_of_alone``); the others (a NIC,
    a rack, a spine the shared layer does not have) have no whole-fabric counterpart here and are left out."""
    wiring = whatif_wiring(mixed)
    out = []
    for element in failed:
        whole = wiring.whole_of_alone(element)
        if whole is not None and whole not in out:
            out.append(whole)
    return out


def standalone_hidden_note(mixed: MixedPlan, plan) -> str:
    """Why the Resilience page shows no failure what-if of pod 1 planned alone (``plan``) for a design with pods:
    alone, pod 1 has spines the design does not buy (their count and model against the shared spines'), so its
    diagram and its failures would be of switches not in the bill; the whole-fabric what-if above loses the real
    shared spines and every pod's leaves (pods on three tiers: pod 1 alone has cores the design does not buy)."""
    f = plan.fabric  # pod 1's own tiers
    if mixed.fabric.tiers == 3:
        return _("Pod 1 planned alone would have its own cores ({count} x {model}), which the design does not buy: its "
                 "spines sit under the {shared} shared {shared_model} cores. So the page does not draw or fail pod 1 "
                 "as if alone; the what-if above loses the real shared cores and every pod's spines and leaves and "
                 "shows what each pod loses.").format(
            count=f.core_count, model=plan.resolved.tier_switches["core"].id, shared=mixed.fabric.cores,
            shared_model=mixed.fabric.core_switch)
    return _("Pod 1 planned alone would have its own spines ({count} x {model}), which the design does not buy: its "
             "spines are the {shared} shared {shared_model}. So the page does not draw or fail pod 1 as if alone; "
             "the what-if above loses the real shared spines and every pod's leaves and shows what each pod "
             "loses.").format(count=f.spine_count, model=plan.resolved.tier_switches["spine"].id,
                              shared=mixed.fabric.spines, shared_model=mixed.fabric.spine_switch)


def _cable(wiring, element: str) -> tuple[tuple[int, int, int, int], int] | None:
    """``((plane, pod position, leaf, spine), cable)`` of one cable ``<bundle>#x`` of a leaf-spine bundle; None for
    another element or a cable the bundle does not have."""
    bundle, mark, cable = element.rpartition("#")
    link = wiring.parse_plane_link(bundle) if mark and cable.isdigit() else None
    if link is None or int(cable) >= wiring.fabric.pods[link[1]].links_per_leaf_spine_pair:
        return None
    return link, int(cable)


def _lost(mixed: MixedPlan, failed: list[str], naming=None) -> tuple[set, list[set], dict]:
    """The lost shared spines ``(plane, spine)``, each pod's lost leaves ``(plane, leaf)`` and the cables lost of each
    leaf-spine bundle ``(plane, pod position, leaf, spine) -> count`` of ``failed`` ids (a bundle: all its cables);
    ``InputError`` for an id that is not a shared spine, a pod's leaf, a leaf-spine bundle
    (``PodsWiring.link_id``) or a cable of one, of any plane."""
    wiring = whatif_wiring(mixed)
    lost_spines, lost_leaves, cables = set(), [set() for _w in wiring.wirings], {}
    for element in failed:
        shared = wiring.parse_shared(element)
        if shared is not None:
            lost_spines.add(shared)
            continue
        link, cable = wiring.parse_plane_link(element), _cable(wiring, element)
        if link is not None or cable is not None:
            link, one = (link, None) if link is not None else cable
            every = range(mixed.fabric.pods[link[1]].links_per_leaf_spine_pair)
            cables.setdefault(link, set()).update(every if one is None else {one})
            continue
        found = wiring.parse(element)
        own = wiring.wirings[found[0]] if found is not None else None
        parsed = own.parse(found[1]) if own is not None else None
        q = wiring.plane_of_device(element) if parsed is not None and parsed[0] == "leaf" else None
        if q is None or parsed[3] >= own.leaves:
            from core.analysis.failure.podnames import PodElementNames

            last = wiring.planes - 1  # the examples name the last plane: its ids show the plane prefix
            name = PodElementNames(mixed, naming).name  # as the pods' exports name them (spine001, pod1-leaf001)
            raise InputError(_("Unknown element {element}: a shared spine (such as {spine}), a pod's leaf (such as "
                               "{leaf}), a leaf's bundle to a shared spine (such as {link}) or one cable of it (such "
                               "as {cable}).").format(
                element=shown(element), spine=name(wiring.shared_spine_id(0, last)), leaf=name(wiring.leaf_id(0, 0, last)),
                link=name(wiring.link_id(0, 0, 0, last)), cable=name(wiring.link_id(0, 0, 0, last) + "#0")))
        lost_leaves[found[0]].add((q, parsed[3]))
    return lost_spines, lost_leaves, {link: len(lost) for link, lost in cables.items()}


def pod_examples(mixed: MixedPlan, names) -> list[str]:
    """Two whole-fabric elements of a design with pods as its exports name them (``names``:
    ``core.analysis.failure.podnames.PodElementNames`` under the design's naming): a shared spine (pods on three
    tiers: a core) and pod 1's first leaf (spine): ``spine001, pod1-leaf001``; under ``sw-``: ``sw-spine001,
    pod1-sw-leaf001``. The examples of what the whole-fabric what-if reads, wherever one is asked for."""
    choices = whole_choices(mixed)
    picks = [next((c for c in choices if not c.startswith("pod")), None),
             next((c for c in choices if c.startswith("pod1.")), None)]
    return [names.name(c) for c in picks if c is not None]


def whole_choices(mixed: MixedPlan) -> list[str]:
    """Every element ``pods_what_if`` takes: ``pod_elements`` and every leaf's bundle to every shared spine (pods on
    three tiers: to every spine of its pod, and every pod spine's bundle to every core of its group)."""
    wiring = whatif_wiring(mixed)
    if wiring.three_tiers:
        from core.analysis.podcorewhatif import core_choices

        return core_choices(wiring)
    return pod_elements(mixed) + [wiring.link_id(i, k, j, q) for i, own in enumerate(wiring.wirings)
                                  for q in range(wiring.planes) for k in range(own.leaves)
                                  for j in range(mixed.fabric.spines)]


def is_whole_element(mixed: MixedPlan, element: str) -> bool:
    """Whether ``pods_what_if`` takes ``element``: a shared spine, a pod's leaf or a leaf-spine bundle (pods on three
    tiers: ``core.analysis.podcorewhatif``'s elements)."""
    try:
        if mixed.fabric.tiers == 3:
            from core.analysis.podcorewhatif import lost_by_plane

            lost_by_plane(whatif_wiring(mixed), [element])
        else:
            _lost(mixed, [element])
    except InputError:
        return False
    return True


def split_failures(mixed: MixedPlan, specs) -> tuple[list[str], list[str]]:
    """One failure selection of a design with pods for both what-ifs: ``(pod 1 alone, whole fabric only)``.

    A spec the whole-fabric what-if takes (``is_whole_element``, as ``python -m core failure`` reads it: ``spine0``
    a shared spine, ``pod2.p0.leaf1`` pod 2's leaf) that pod 1 planned alone has too is given as pod 1's own id
    (``PodsWiring.alone_of_whole``: ``p0.spine0``, ``p0.leaf1``); another pod's leaf or bundle is whole-fabric only;
    a spec that is not a whole-fabric id (``p0.spine0``, ``node5.nic2``, ``leaf:2``) is pod 1's as typed. A pod-1
    bundle (``pod1.p0.leaf1-spine0``) is in both lists. A failure inside one pod under its prefix
    (``pod2.node5.nic2``: ``core.analysis.podinside``) is whole-fabric only. Specs are lower-cased and stripped;
    order kept, no repeats.
    """
    wiring = whatif_wiring(mixed)
    alone: list[str] = []
    whole: list[str] = []
    from core.analysis.podinside import inside_spec

    for spec in (str(s).strip().lower() for s in specs):
        if not spec:
            continue
        if inside_spec(mixed, spec) is not None:  # a pod's NIC, rack or scale-up part: its pod's own what-if
            whole += [spec] if spec not in whole else []
            continue
        own = wiring.alone_of_whole(spec) if is_whole_element(mixed, spec) else spec
        if own is not None and own not in alone:
            alone.append(own)
        if own is None or (own != spec and wiring.whole_of_alone(own) != spec):
            if spec not in whole:
                whole.append(spec)
    return alone, whole


COUNT_NOTE = N_("{spec} fails {elements} on pod 1: on a design with pods a tier and a count chooses pod 1's "
                "elements, where they hurt most on pod 1's fabric.")
"""Said wherever a tier and a count of a design with pods is failed (``pod1_counts``): the Resilience page, python -m
core failure."""


def pod1_counts(mixed: MixedPlan, specs, naming=None) -> list[tuple[str, list[str]]]:
    """The rule by which a design with pods fails a tier and a count (``leaf:1``), in python -m core failure and on
    the Resilience page: ``(spec, whole-fabric ids)`` of each tier-and-count spec of ``specs`` (the others left
    out), its elements chosen on pod 1, where they hurt most on pod 1's fabric as the design builds it (its plan in
    ``mixed``, not pod 1 planned alone: ``core.analysis.failure.spec.chosen_elements``), each as the whole fabric has
    it: a leaf ``pod1.p0.leaf0``, a
    spine the shared spine (``PodsWiring.whole_of_alone``), a NIC, rack or scale-up part inside pod 1
    (``pod1.node0.nic0``, ``core.analysis.podinside``). ``InputError`` for a count pod 1 cannot give, and (with the
    whole fabric's examples under ``naming``) for a choice the whole fabric does not have."""
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.failure.spec import chosen_elements
    from core.analysis.podinside import inside_spec

    wiring = whatif_wiring(mixed)
    out = []
    for spec in (str(s).strip().lower() for s in specs):
        if not spec.partition(":")[2].strip().isdigit():
            continue
        whole = []
        for element in chosen_elements(mixed.plans[0], [spec]):
            found = wiring.whole_of_alone(element) or (f"pod1.{element}" if inside_spec(mixed, f"pod1.{element}")
                                                       else None)
            if found is None:
                raise InputError(_("{spec}: on a design with pods a tier and a count chooses pod 1's elements, and "
                                   "pod 1's {element} is not one the whole fabric has; name one, such as "
                                   "{example}.").format(spec=shown(spec), element=shown(element),
                                                        example=", ".join(pod_examples(
                                                            mixed, PodElementNames(mixed, naming)))))
            whole.append(found)
        out.append((spec, whole))
    return out


def count_notes(mixed: MixedPlan, counts, naming=None) -> list[str]:
    """``COUNT_NOTE`` of each ``(spec, whole-fabric ids)`` of ``pod1_counts``, its elements as the pods' exports name
    them under the naming scheme ``naming`` (``pod1-leaf001``, ``R02-01``): which pod a tier and a count failed."""
    from core.analysis.failure.podnames import PodElementNames

    names = PodElementNames(mixed, naming)
    return [_(COUNT_NOTE).format(spec=spec, elements=", ".join(names.name(e) for e in elements))
            for spec, elements in counts]


def whole_picks(mixed: MixedPlan, alone, extra) -> tuple[list[str], list[str]]:
    """One failure selection of a design with pods as the Resilience page reads it: ``(the whole-fabric what-if's
    failed elements, the failures inside the pods)``. ``alone``: pod 1's own specs (``split_failures``' first list,
    the page's failed elements), their whole-fabric counterparts first (``whole_failures``); ``extra``: the
    whole-fabric-only specs, those ``pods_what_if`` takes after them (``whole_choices``, or one cable of a bundle: a
    hot link pasted), those inside one pod (``core.analysis.podinside.inside_spec``) in the second list. The review
    pack reads its failure scenario so."""
    from core.analysis.podinside import inside_spec

    options = set(whole_choices(mixed))
    return (whole_failures(mixed, list(alone)) + [e for e in extra if e in options or "#" in e and
                                                  is_whole_element(mixed, e)],
            [e for e in extra if inside_spec(mixed, e)])


def link_failures(mixed: MixedPlan, alone, whole) -> tuple[str, ...]:
    """The share link's failed elements of a design with pods (``split_failures``' inverse): pod 1's switches the
    whole fabric has under their whole-fabric ids (``p0.spine0``: ``spine0``, as the CLI names them), the other
    specs of ``alone`` as they are, then ``whole``; no repeats."""
    wiring = whatif_wiring(mixed)
    out = [wiring.whole_of_alone(spec) or spec for spec in alone] + list(whole)
    return tuple(dict.fromkeys(out))


class _Parts:
    """Union-find over the live leaves and shared spines: which of them still reach each other."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        """The root of ``x``'s part (path halving)."""
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b) -> None:
        """Put ``a`` and ``b`` in one part."""
        self.parent[self.find(a)] = self.find(b)


def _servers(mixed: MixedPlan, wiring, i: int, lost_leaves: set, parts: "_Parts", key, groups: list) -> dict:
    """The pod at position ``i``'s servers with ``lost_leaves`` (``(plane, leaf)``; module docstring): its
    ``PodLoss`` fields but the bandwidth up (``spine_gbps``, ``healthy_spine_gbps``), summed over the planes. A
    leaf group's servers join their live leaves of every plane in ``parts`` (``key(plane, leaf)``: the leaf's
    vertex); appends ``(pod position, group, connected GPUs, one of its live leaves' vertex, degraded)`` of every
    leaf group of the pod to ``groups``: a server is cut off when it lost its leaves in every plane, degraded when
    it lost some."""
    own, pod, gpn = wiring.wirings[i], mixed.fabric.pods[i], mixed.plans[i].resolved.gpus_per_node
    node_links = own.links_per_node_leaf * own.port_gbps  # one server to one of its leaves [Gb/s]
    cut = degraded = 0
    injection = healthy_injection = 0.0
    for g in range(own.groups):
        nodes = own.group_nodes(g)
        leaves = [(q, k) for q in range(wiring.planes) for k in own.leaves_of_group(g)]
        live = [leaf for leaf in leaves if leaf not in lost_leaves]
        healthy_injection += nodes * len(leaves) * node_links
        injection += nodes * len(live) * node_links
        cut += 0 if live else nodes
        hurt = bool(live) and len(live) < len(leaves)
        degraded += nodes if hurt else 0
        for leaf in live:
            parts.join(key(*leaf), key(*live[0]))
        groups.append((i, g, nodes * gpn if live else 0, key(*live[0]) if live else None, hurt))
    return dict(pod=pod.index + 1, system=pod.system, gpus=pod.gpus, nodes_cut_off=cut, gpus_cut_off=cut * gpn,
                nodes_degraded=degraded, injection_gbps=injection, healthy_injection_gbps=healthy_injection)


def _cut_apart(mixed: MixedPlan, wiring, parts: "_Parts", groups: list, out: list[dict]) -> list[PodLoss]:
    """``out`` with the GPUs outside the part of ``parts`` holding the most GPUs cut off (module docstring), as
    ``PodLoss`` rows; ``groups`` as ``_servers`` gives them."""
    held: dict = {}  # GPUs of each part still connected
    for _i, _g, gpus, leaf, _hurt in groups:
        if leaf is not None:
            held[parts.find(leaf)] = held.get(parts.find(leaf), 0) + gpus
    keep = max(held, key=held.get) if held else None  # the part holding the most GPUs is kept
    for i, g, gpus, leaf, hurt in groups:
        if leaf is not None and parts.find(leaf) != keep:
            own, gpn = wiring.wirings[i], mixed.plans[i].resolved.gpus_per_node
            out[i]["nodes_cut_off"] += own.group_nodes(g)
            out[i]["gpus_cut_off"] += own.group_nodes(g) * gpn
            out[i]["nodes_degraded"] -= own.group_nodes(g) if hurt else 0
    return [PodLoss(**row) for row in out]


def _three_tiers_what_if(mixed: MixedPlan, wiring, failed: list[str]) -> list[PodLoss]:
    """``pods_what_if`` of pods on three tiers (``core.analysis.podcorewhatif``): the bandwidth up is into the shared
    cores, each plane's summed."""
    from core.analysis.podcorewhatif import into_cores, join_parts, lost_by_plane, lost_of

    lost, healthy = lost_by_plane(wiring, failed), lost_of(wiring, [])
    parts, groups, out = _Parts(), [], []
    for q, plane in enumerate(lost):
        join_parts(wiring, plane, parts, q)
    for i, own in enumerate(wiring.wirings):
        gone = {(q, k) for q, plane in enumerate(lost) for k in plane.leaves[i]}
        row = _servers(mixed, wiring, i, gone, parts, lambda q, k, i=i: ("leaf", i, k, q), groups)
        node_links = own.links_per_node_leaf * own.port_gbps
        out.append({**row, "spine_gbps": sum(into_cores(wiring, i, plane, node_links) for plane in lost),
                    "healthy_spine_gbps": wiring.planes * into_cores(wiring, i, healthy, node_links)})
    return _cut_apart(mixed, wiring, parts, groups, out)


def pods_what_if(mixed: MixedPlan, failed: list[str], naming=None) -> list[PodLoss]:
    """What each pod of ``mixed`` loses when the ``failed`` leaves, shared spines and leaf-spine bundles are lost
    (module docstring), in ``mixed.fabric.pods`` order; on several planes each plane's own (summed over the planes,
    a server joined to every plane it has a live leaf in); pods on three tiers: their cores, own spines and bundles
    too (``core.analysis.podcorewhatif``). An unknown element's error gives examples as the pods' exports name them
    under the naming scheme ``naming`` (None: the default names)."""
    wiring = whatif_wiring(mixed)
    if wiring.three_tiers:
        from core.analysis.failure.podnames import PodElementNames
        from core.analysis.failure.spec import NamedError

        try:
            return _three_tiers_what_if(mixed, wiring, failed)
        except NamedError as exc:  # its examples as the pods' exports name them (core001, pod1-spine001)
            raise exc.said(PodElementNames(mixed, naming).name) from None
    f = mixed.fabric
    lost_spines, lost_leaves, lost_cables = _lost(mixed, failed, naming)
    parts = _Parts()
    groups: list = []  # (pod position, group, connected GPUs, one of its live leaves, degraded) of every leaf group
    out = []
    for i, own in enumerate(wiring.wirings):
        pod = f.pods[i]
        row = _servers(mixed, wiring, i, lost_leaves[i], parts, lambda q, k, i=i: ("leaf", i, q, k), groups)
        node_links = own.links_per_node_leaf * own.port_gbps  # one server to one of its leaves [Gb/s]
        pair = pod.links_per_leaf_spine_pair  # cables of one leaf to one shared spine
        spine = healthy_spine = 0.0
        for q in range(wiring.planes):
            live_spines = [j for j in range(f.spines) if (q, j) not in lost_spines]
            for g in range(own.groups):
                nodes, leaves = own.group_nodes(g), own.leaves_of_group(g)
                healthy_spine += len(leaves) * min(nodes * node_links, f.spines * pair * pod.uplink_speed_gbps)
                for k in (k for k in leaves if (q, k) not in lost_leaves[i]):  # each live leaf its live spines
                    left = {j: pair - lost_cables.get((q, i, k, j), 0) for j in live_spines}
                    spine += min(nodes * node_links, sum(left.values()) * pod.uplink_speed_gbps)
                    for j in (j for j in live_spines if left[j] > 0):
                        parts.join(("leaf", i, q, k), ("spine", q, j))
        out.append({**row, "spine_gbps": spine, "healthy_spine_gbps": healthy_spine})
    return _cut_apart(mixed, wiring, parts, groups, out)


def loss_rows(losses: list[PodLoss], unit: str, cores: bool = False) -> list[dict[str, str]]:
    """A row per pod of ``losses`` for a table, in the current language: the pod and its system, GPUs cut off of
    its GPUs, servers degraded, injection and bandwidth into the shared spines (``cores``: pods on three tiers, into
    the shared cores) as ``failed / healthy`` (per direction, in the one unit the headers name: ``core.units.scale``
    of the largest healthy value in ``unit``; short cells, so a column per pod fits a 1,024 px page in Chinese
    too)."""
    from core.i18n import number
    from core.units import bandwidth_in, scale

    divisor, label = scale(max([loss.healthy_injection_gbps for loss in losses] +
                               [loss.healthy_spine_gbps for loss in losses], default=0), unit)

    def left(now: float, healthy: float) -> str:
        return f"{bandwidth_in(now, divisor)} / {bandwidth_in(healthy, divisor)}"

    return [{_("Pod"): _("pod {pod}").format(pod=loss.pod) + f" ({loss.system})",
             _("GPUs cut off"): _("{lost} of {gpus}").format(lost=number(loss.gpus_cut_off), gpus=number(loss.gpus)),
             _("Servers degraded"): number(loss.nodes_degraded),
             _("Injection [{unit}, 1 dir]").format(unit=label): left(loss.injection_gbps,
                                                                    loss.healthy_injection_gbps),
             (_("Into shared cores [{unit}, 1 dir]") if cores else _("Into shared spines [{unit}, 1 dir]")).format(
                 unit=label): left(loss.spine_gbps, loss.healthy_spine_gbps)}
            for loss in losses]
