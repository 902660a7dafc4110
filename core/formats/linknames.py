"""A link of the link-load analysis under the names the exports give its two ends (the Slurm topology, NetBox and the
cabling plan: ``core.fabric.naming.Namer``; a design with pods: each pod's scheme ``core.formats.podslurm.pod_scheme``
and the shared spines' ``core.formats.podnetbox.spine_names``).

The analysis names a link by the wiring's ids (``core.analysis.load``, ``core.analysis.loadpods``):
``node5.nic2 -> p0.leaf3``, ``p0.leaf3 -> p0.spine1#2``, with pods ``pod2.node5.nic0 -> pod2.p0.leaf1`` and
``pod2.p0.leaf1 -> spine0#1``. ``link_names`` turns each end into its export name: a server's host name and its NIC
as the cabling plan counts it (``gpu006 nic3``: 1-based), a switch's name (``leaf004``, ``pod2-leaf002``,
``spine01``), and the parallel cable between the same two switches 1-based (``#3``). An id it cannot read stays as
it is. Every name is English, as in the exports. Every family so: a classic Dragonfly's router is ``leaf004`` as its
exports and failure views name it, not its own word (``router 4``, which ``failure_element`` still reads back).
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, Sequence

from core.fabric.naming import Namer, NamingScheme
from core.fabric.podwiring import PodsWiring
from core.fabric.wiring import ROLES, Wiring

_END = re.compile(r"^(?P<device>.+?)(?:\.nic(?P<nic>\d{1,9}))?(?:#(?P<cable>\d{1,9}))?$")
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
    name = _namer_of(plan, scheme)  # every family: a Dragonfly's routers as its exports name them (leaf002)

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


# --- a hot link back to the failure what-if's element ------------------------------------------------------------
_EXPORT_END = re.compile(r"^(?P<device>[^\s#]+?)(?:\s*nic(?P<nic>\d{1,9}))?(?:\s*#(?P<cable>\d{1,9}))?$")
"""A link end as ``link_names`` writes it: an export name, a server's NIC and a parallel cable, both 1-based."""
_WORDS_END = re.compile(r"^(?P<device>[^#]+?)(?:#(?P<cable>\d{1,9}))?$")
"""A switch end in a family's own words (``link_name``: ``router 4``), the cable as the wiring counts it."""


def _device_ids(plan) -> Iterator[str]:
    """Every server and switch id of ``plan``'s wiring (with pods: the whole fabric's, as ``_namer_of`` reads them)."""
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    if mixed is None:
        wiring = Wiring.of(plan)
        yield from (Wiring.node_id(n) for n in range(wiring.nodes))
        yield from wiring.all_switch_ids()
        return
    from core.analysis.pods import mixed_wiring

    wiring = mixed_wiring(mixed, three_tiers=True)
    for i, own in enumerate(wiring.wirings):
        yield from (wiring.node_id(i, n) for n in range(own.nodes))
        yield from (wiring.local_id(i, device) for device in own.all_switch_ids())
    shared = (PodsWiring.core_id, mixed.fabric.cores) if wiring.three_tiers else (PodsWiring.spine_id,
                                                                                 mixed.fabric.spines)
    yield from (shared[0](j) for j in range(shared[1]))


def _in_words(plan, text: str) -> bool:
    """Whether the hot link ``text`` of ``plan`` names its switches in a family's own words (``router 2 -> router
    3``, ``core.figures.topology.link_name``: a word, a space, a number), as earlier hot-link tables of a family
    other than the folded Clos did and the Resilience links they wrote still hold."""
    from core.fabric.families import clos_tiers

    return not clos_tiers(plan.fabric.family) and re.search(r"\D \d", re.sub(r"#\s*\d+", "", text)) is not None


def _export_ids(plan, scheme: NamingScheme | None, words: bool = False) -> dict[str, str]:
    """Export name (lower case) -> device id of every device of ``plan`` (``link_names``' inverse); ``words``: a
    family other than the folded Clos's switches in its own words (``core.figures.topology.switch_name``, plane
    0's: ``_in_words``)."""
    from core.fabric.families import clos_tiers
    from core.figures.topology import switch_name

    if words and not clos_tiers(plan.fabric.family):
        wiring = Wiring.of(plan)
        return {switch_name(plan.fabric.family, role, k + 1).lower(): wiring.switch_id(role, k)
                for role in wiring.roles for k in range(wiring.count(role))}
    name = _namer_of(plan, scheme)
    return {named.lower(): device for device in _device_ids(plan) if (named := name(device)) is not None}


def _ends(plan, text: str, scheme: NamingScheme | None) -> list[tuple[str, int | None, int | None]] | None:
    """``(device id, NIC, cable)`` (0-based) of each end of link ``text``; None when an end is not a device of
    ``plan``. The analysis's ids (``p0.leaf3 -> p0.spine1#2``, the load JSON's) when an end holds a ``.``,
    else the names ``link_names`` writes (``leaf004 -> spine002 #3``, ``gpu006 nic3 -> leaf004``)."""
    from core.fabric.families import clos_tiers

    parts = [" ".join(part.split()) for part in text.split("->")]
    if len(parts) != 2 or not all(parts):
        return None
    clos, first, words = clos_tiers(plan.fabric.family), _first_cable(plan, text), _in_words(plan, text)
    names = None
    ends = []
    for part in parts:
        if (clos and "." in text) or (not clos and "." in part):
            found = _END.match(part.replace(" ", ""))
            ends.append(None if found is None else (found["device"], found["nic"] and int(found["nic"]),
                                                    found["cable"] and int(found["cable"])))
            continue
        names = names if names is not None else _export_ids(plan, scheme, words)
        found = (_WORDS_END if words else _EXPORT_END).match(part)
        device = names.get(found["device"].lower()) if found else None
        nic = int(found["nic"]) - 1 if not words and found and found["nic"] else None
        cable = None if not found or found["cable"] is None else int(found["cable"]) - first
        ends.append(None if device is None or -1 in (nic, cable) else (device, nic, cable))
    return None if None in ends else ends


def _first_cable(plan, text: str) -> int:
    """The number of a bundle's first cable in the hot link ``text``: 1 under the export names (as ``link_names``
    writes them), 0 under the analysis's ids (an end holding a ``.``) or a family's own words (``_in_words``)."""
    return int("." not in text and not _in_words(plan, text))


def _cables(plan, a: str, b: str) -> int | None:
    """The cables of the bundle between the switch ids ``a`` and ``b`` of ``plan``'s wiring (any plane; with pods
    the whole fabric's, ``PodsWiring.bundles``); None when no bundle joins them."""
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    if mixed is not None:
        from core.analysis.pods import mixed_wiring

        bundles = mixed_wiring(mixed, three_tiers=True).bundles()
    else:
        wiring = Wiring.of(plan)
        bundles = (x for plane, island in wiring.plane_islands() for x in wiring.bundles(plane, island))
    return next((x.count for x in bundles if x.kind != "node-leaf" and {x.a, x.b} == {a, b}), None)


def _bundle(plan, lower: str, upper: str) -> str | None:
    """The failure what-if's bundle id between switch ids ``lower`` and ``upper`` (``p0.leaf3-spine1``; with pods
    ``PodsWiring.bundle_of``: ``pod2.p0.leaf1-spine0``); None for two switches no bundle joins."""
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    if mixed is not None:
        from core.analysis.pods import mixed_wiring

        wiring = mixed_wiring(mixed, three_tiers=True)
        return wiring.bundle_of(lower, upper) or wiring.bundle_of(upper, lower)
    a, b = Wiring.parse(lower), Wiring.parse(upper)
    if a is None or b is None or a[1:3] != b[1:3]:
        return None
    if (ROLES.index(a[0]), a[3]) > (ROLES.index(b[0]), b[3]):
        lower, a, b = upper, b, a
    return f"{lower}-{b[0]}{b[3]}"


def _nic_leaves(plan, node: str, nic: int) -> list[str]:
    """The leaf ids (one a plane) NIC ``nic`` (0-based) of server ``node`` of ``plan``'s wiring is cabled to (with
    pods the whole fabric's ids, ``pod2.p0.leaf1``); empty for a server or NIC the wiring does not have."""
    from core.formats.podslurm import mixed_of

    mixed = mixed_of(plan) if getattr(plan.design, "pods", None) else None
    wiring, prefix, local = Wiring.of(plan) if mixed is None else None, "", node
    if mixed is not None:
        from core.analysis.pods import mixed_wiring

        whole = mixed_wiring(mixed, three_tiers=True)
        found = whole.parse(node)
        if found is None:
            return []
        wiring, prefix, local = whole.wirings[found[0]], whole.prefix(found[0]), found[1]
    n = Wiring.parse_node(local)
    if n is None or not 0 <= n < wiring.nodes:
        return []
    return [prefix + wiring.switch_id("leaf", wiring.node_port(n, lr)[0], plane, island)
            for plane, island in wiring.plane_islands() for lr in range(wiring.rails)
            if wiring.nic_of(lr, island) == nic]


def failure_element(plan, text: str, scheme: NamingScheme | None = None) -> str:
    """The failure what-if's element (``core.analysis.failure``'s spec language) of one link of ``plan`` as the
    load analysis names it: under the exports' names (``link_names``: ``leaf002 -> spine003 #1``,
    ``core006 #15 -> pod1-spine011``, ``pod1-gpu001 nic1 -> pod1-leaf001``, a Dragonfly+'s ``leaf 88 ->
    spine 94``) or the analysis's ids (``p0.leaf1 -> p0.spine2#0``). A switch-to-switch link is its bundle's cable
    (``p0.leaf1-spine2#0``; the bundle when the name gives no cable), a server's link its NIC (``node0.nic0``, with
    pods ``pod1.node0.nic0``: its port in every plane). ``InputError`` (short, the name escaped) for a name that is
    no link of ``plan``."""
    from core.analysis.failure.spec import cable_out_of_range
    from core.errors import InputError, shown
    from core.i18n import _

    from core.analysis.failure.names import element_names
    from core.fabric.families import clos_tiers

    # another family's bundle as the failure views name it (leaf001 -> leaf033: its exports' names, not its words)
    names = element_names(plan, scheme) if not clos_tiers(plan.fabric.family) else None
    element = names.parse(text) if names is not None else None
    if element is not None and "->" in text:
        from core.analysis.failure.spec import as_typed, resolve_failures

        try:
            resolve_failures(plan, [element])
        except InputError as exc:  # refused as typed (no such bundle, a cable past the last)
            raise as_typed(exc, [text], [element]) from None
        return element
    ends = _ends(plan, text, scheme)
    servers = [end for end in ends or () if end[1] is not None]
    if ends and len(servers) == 1:
        node, nic = servers[0][:2]
        leaves = _nic_leaves(plan, node, nic)
        far = next(end[0] for end in ends if end[1] is None)
        if leaves and far not in leaves:  # the NIC exists, its cable goes elsewhere: refused, the right far end named
            right = leaves[0] if "." in text else (_namer_of(plan, scheme)(leaves[0]) or leaves[0])
            raise InputError(_("{name} is not a link of this design: that NIC is cabled to {leaf}").format(
                name=shown(text, 80), leaf=shown(right, 40)))
        return f"{node}.nic{nic}"
    bundle = _bundle(plan, ends[0][0], ends[1][0]) if ends and not servers else None
    if bundle is None:
        raise InputError(_("{name} is not a link of this design; paste a hot link as the load analysis names it "
                           "(switch to switch, or a server's NIC to its leaf)").format(name=shown(text, 80)))
    cable = next((end[2] for end in ends if end[2] is not None), None)
    count = None if cable is None else _cables(plan, ends[0][0], ends[1][0])
    if count is not None and cable >= count:  # refused as typed: the user's name, the cables in their numbering
        raise cable_out_of_range(text, count, _first_cable(plan, text))
    return bundle + ("" if cable is None else f"#{cable}")


def failure_specs(plan, specs, scheme: NamingScheme | None = None) -> list[str]:
    """``specs`` (the failure what-if's, ``--fail``'s) with each hot link (a spec holding ``->``) as its element
    (``failure_element``); the other specs as they are. The one place a hot link's name is read back."""
    return [failure_element(plan, spec, scheme) if "->" in str(spec) else spec for spec in specs]


def canonical_failures(plan, texts, scheme: NamingScheme | None = None) -> tuple[list[str], str]:
    """Typed failures (``--fail``'s, the Resilience page's names) with each switch named as the exports name it now
    (``core.fabric.naming.Namer.canonical``: a classic Dragonfly's ``leaf001 -> leaf002`` is ``router001 ->
    router002``), and the note saying what it renamed, once ("" when nothing). A design with pods: as typed."""
    from core.i18n import _

    texts = [str(text) for text in texts]
    if getattr(plan.design, "pods", None):
        return texts, ""
    namer = Namer.of(plan, scheme, checked=False)
    read = [namer.canonical(text) for text in texts]
    renamed = [_("{typed} as {name}").format(typed=text.strip(), name=new.strip())
               for text, new in zip(texts, read) if new != text]
    if not renamed:
        return read, ""
    return read, _("Read as the exports name them now: {renamed}.").format(renamed=_("; ").join(renamed))


def read_failures(plan, texts, scheme: NamingScheme | None = None) -> tuple[list[tuple[str, str]], list[str]]:
    """Typed failures (the Resilience page's comma-separated names, one pod's names) read one by one, as
    ``failure_specs`` reads them: ``(typed, spec)`` of each non-empty one, a hot link as its element, another spec
    lowercased; a hot link that is no link of ``plan`` is left out, its ``InputError`` said in the problems."""
    from core.errors import InputError

    pairs, problems = [], []
    for text in texts:
        text = str(text).strip()
        if not text:
            continue
        try:
            pairs.append((text, failure_element(plan, text, scheme) if "->" in text else text.lower()))
        except InputError as exc:
            problems.append(str(exc))
    return pairs, problems


def typed_failures(pairs, failed, mark: Callable[[dict], str] = lambda item: "", most: int | None = None,
                   name: Callable[[str], str] | None = None) -> list[str]:
    """What failed, as the user typed it (``pairs``: ``(typed, spec)``, ``read_failures``), with the elements it
    failed in brackets where they are not what was typed: a hot link its element (``leaf002 -> spine003 #1
    (p0.leaf1-spine2#1)``), a tier and a count the elements chosen where they hurt most, in the order the what-if
    chose them (``spine:1 (p0.spine0)``). ``failed``: the what-if's ``{"element", "chosen", ...}`` (the CLI's and the
    page's result); ``mark(item)`` is written after an element (the CLI's `` *`` for chosen); ``most``: at most that
    many elements in one pair's brackets, then ``...``; ``name(element id)``: the exports' name of an element
    (``core.analysis.failure.names.ElementNames.name``), said for the elements a count chose and after an id typed
    (``p0.leaf3 (leaf004)``)."""
    from core.i18n import _

    name = name or (lambda element: element)
    chosen = [item for item in failed if item.get("chosen")]
    named = {key.lower(): item for item in failed if not item.get("chosen")
             for key in (item["element"], name(item["element"]))}
    out = []
    for typed, spec in pairs:
        tier, sep, rest = spec.partition(":")
        if sep and rest.strip().isdigit():  # a tier and a count: the next elements the counts chose
            got, chosen = chosen[:int(rest)], chosen[int(rest):]
        else:
            item = named.get(spec.lower()) or named.get(rest.strip().lower() if sep else "")
            got = [item] if item else []
        if "->" in typed or (sep and rest.strip().isdigit()):
            shown = [(item["element"] if "->" in typed else name(item["element"])) + mark(item) for item in got]
            elements = ", ".join(shown if most is None or len(shown) <= most else [*shown[:most], "..."]) or spec
            out.append(_("{typed} ({elements})").format(typed=typed, elements=elements))
        elif got and name(got[0]["element"]).lower() not in (typed.lower(), (rest if sep else "").strip().lower()):
            out.append(_("{typed} ({elements})").format(typed=typed, elements=name(got[0]["element"])) + mark(got[0]))
        else:
            out.append(typed + (mark(got[0]) if got else ""))
    return out
