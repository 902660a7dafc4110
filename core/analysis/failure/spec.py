"""The failure-spec language of a failure what-if (``core.analysis.failure``, module docstring there).

Element names (``p0.leaf3``, ``su2-rail4``, ``p1``, ``node5.nic2``, ``rack3``, ``rack3.feedA``,
``p0.leaf3-spine1#2``, ``node5.nvswitch1``, ``rack3.nvswitch-tray2``, ``domain0.l2switch5``) parsed to ``(tier, key)`` and back;
``tier:count`` specs resolved to elements in the order that hurts most (``_worst_order``).
"""

from __future__ import annotations

import re

from core.analysis.failure.shape import Shape, _pair_links
from core.errors import InputError, shown
from core.fabric.families import failure_names, words
from core.fabric.wiring import PLANE_PREFIX, Wiring
from core.i18n import N_, _, ngettext
from core.plan import Plan

TIERS = ("leaf", "spine", "core", "plane", "nic", "rack", "link", "nvswitch", "tray", "feed", "meshlink", "nvlink2")
TIER_ALIASES = {"tor": "leaf", "bundle": "link", "nvlink-switch": "nvswitch", "xgmi": "meshlink", "hccs": "meshlink"}
TIER_LABELS = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core"), "plane": N_("plane"), "nic": N_("NIC"),
               "rack": N_("rack"), "link": N_("link bundle"), "nvswitch": N_("NVSwitch chip"),
               "tray": N_("NVLink switch tray"), "feed": N_("rack power feed"),
               "global": N_("global link bundle"), "meshlink": N_("scale-up mesh link"),
               "nvlink2": N_("level-2 NVLink switch"), "nvlink2-cable": N_("level-2 NVLink cable"), "node": N_("node")}
SCALEUP_SWITCH_LABELS = {"nvswitch": N_("{link} switch chip"), "tray": N_("{link} switch tray"),
                         "nvlink2": N_("level-2 {link} switch")}
"""The scale-up switch tiers' words on a system whose switch chips are not NVLink's (CloudMatrix 384's Unified Bus):
``{link}`` is the system's link word (``core.scaleup.link_word``)."""


def count_tiers() -> tuple[str, ...]:
    """Every tier a ``tier:count`` spec fails in some family, each once: the folded Clos's (``TIERS``: its level-2
    NVLink switches ``nvlink2`` too), the graph families' (``graphwhatif.TIERS``: ``global``), the torus's
    (``toruswhatif.TIERS``: ``node``). The one list ``failure --fail``'s help shows and the Resilience link reads
    (``spec_words``); a design has the ones ``tiers_for`` gives."""
    from core.analysis.failure import graphwhatif, toruswhatif

    return tuple(dict.fromkeys((*TIERS, *graphwhatif.TIERS, *toruswhatif.TIERS)))


def spec_words() -> tuple[str, ...]:
    """Every word a spec may start with (``word:count``, ``word:name``): ``count_tiers``, ``TIER_ALIASES`` and each
    family's own tier words (``core.fabric.families.tier_aliases``: a classic Dragonfly's ``router``)."""
    from core.fabric.families import FAMILIES, tier_aliases

    own = [word for name in FAMILIES for word in tier_aliases(name)]
    return tuple(dict.fromkeys((*count_tiers(), *TIER_ALIASES, *own)))


def tier_label(tier: str, system=None, family: str | None = None) -> str:
    """A failure tier in words, in the request's language; the scale-up switch tiers in ``system``'s own words when
    it is not NVLink (``SCALEUP_SWITCH_LABELS``; a ``core.catalog.System``, or None: NVLink's); the fabric tiers in
    the words of ``family`` (a ``FabricPlan.family``; its ``tier:<tier>`` words, ``core.fabric.families.words``: a
    Dragonfly's routers and local link bundles)."""
    if system is not None and not system.nvlink_generation and tier in SCALEUP_SWITCH_LABELS:
        from core.scaleup import link_word  # ground floor

        return _(SCALEUP_SWITCH_LABELS[tier]).format(link=link_word(system))
    return words(family, f"tier:{tier}", TIER_LABELS[tier])


MAX_FAILURES = 10_000
"""Most elements one what-if fails."""

_SU_RAIL = re.compile(rf"^(?:{PLANE_PREFIX})?su(\d+)-rail(\d+)$")
_PLANE = re.compile(r"^p(\d+)$")
_NIC = re.compile(r"^node(\d+)\.nic(\d+)$")
_RACK = re.compile(r"^rack(\d+)$")
_BUNDLE = re.compile(r"^(.+)-(spine|core)(\d+)(?:#(\d+))?$")
"""A bundle: its lower switch's name (``_switch_name``), its upper switch's role and index, a cable."""
_CHIP = re.compile(r"^(node|rack|nvl)(\d+)\.nvswitch(\d+)$")
_TRAY = re.compile(r"^(rack|nvl)(\d+)\.nvswitch-tray(\d+)$")
_FEED = re.compile(r"^rack(\d+)\.feed([ab])$")
_MESH = re.compile(r"^node(\d+)\.mesh(\d+)-(\d+)$")
"""A direct-mesh link (all the links between two GPUs of a node): ``node5.mesh3-6``."""
_LEVEL2 = re.compile(r"^domain(\d+)\.l2switch(\d+)$")
"""A level-2 NVLink switch unit: its NVLink domain and its index there (``core.fabric.domainlevels``)."""


def _switch_name(name: str) -> tuple[str, int, int, int] | None:
    """``(role, plane, island, k)`` of a switch name: a device id (``Wiring.parse``), plane 0 when the name gives
    none (``leaf3``, ``i1.leaf3``); None if ``name`` names no switch."""
    return Wiring.parse(name if name.startswith("p") else "p0." + name)


class UnknownElement(InputError):
    """A name that is no element of the design; ``resolve_failures`` says it with the design's own examples, as the
    exports name them (``unknown_element``)."""

    def __init__(self, text: str):
        super().__init__(_("unknown element {name}").format(name=shown(text)))
        self.text = text


def _unknown(text: str, shape: Shape | None = None) -> InputError:
    return UnknownElement(text)


class UnknownNamed(InputError):
    """``unknown_element``'s error; ``text`` is the name it says (a surface under another naming scheme says it
    again with that scheme's examples)."""

    def __init__(self, message: str, text: str):
        super().__init__(message)
        self.text = text


def unknown_element(plan: Plan, text: str, naming=None) -> InputError:
    """The error for ``text``, no element of ``plan``: short, the name escaped, with examples the what-if takes as
    the exports name them under the naming scheme ``naming`` (``core.analysis.failure.examples.element_examples``;
    a design with pods: the pods' exports' names) and a tier and a count."""
    from core.analysis.failure.examples import element_examples

    tiers = tiers_for(plan)
    tier = next((t for t in ("global", "spine", "leaf", "node", "nic") if t in tiers), tiers[0])
    examples = element_examples(plan, naming=naming)  # a design with pods: the whole fabric's
    return UnknownNamed(_("unknown element {name}; name one as the exports do, like {examples}, or give a tier and "
                          "a count like {count}").format(name=shown(text), examples=", ".join(examples),
                                                         count=f"{tier}:2"), text)


class NamedError(InputError):
    """An ``InputError`` whose message gives element ids (``elements``: field -> id, in ``template``, the translated
    message, with its other ``fields``); ``said`` names them as the exports do (``gpu001 nvswitch1``, not
    ``node0.nvswitch0``) where the plan has the exports' names."""

    def __init__(self, template: str, elements: dict[str, str], **fields):
        super().__init__(template.format(**fields, **elements))
        self.template, self.elements, self.fields = template, elements, fields

    def said(self, name) -> InputError:
        """The error with each element id as ``name(id)`` says it."""
        return InputError(self.template.format(**self.fields, **{k: name(v) for k, v in self.elements.items()}))


def said(plan: Plan, exc: InputError, naming=None) -> InputError:
    """``exc`` with the element ids a ``NamedError`` gives as ``plan``'s exports name them (``export_namer`` under
    ``naming``); any other error, or a plan without the exports' names, as it is."""
    names = export_namer(plan, naming) if isinstance(exc, NamedError) else None
    return exc if names is None else exc.said(names.name)


def _no_nvswitch(text: str, shape: Shape) -> InputError:
    if not shape.nvl_chips:
        return InputError(_("{name}: this design's NVLink domain has no NVSwitch chips").format(name=shown(text)))
    if shape.nodes_per_domain == 1:
        return NamedError(_("unknown NVSwitch chip {name}; an HGX node has chips {first} to {last}"),
                          dict(first="node0.nvswitch0", last=f"node0.nvswitch{shape.nvl_chips - 1}"), name=shown(text))
    domain = shape.domain_name(0)
    return NamedError(_("unknown NVLink switch element {name}; a domain has chips {first_chip} to {last_chip} and "
                        "trays {first_tray} to {last_tray}"),
                      dict(first_chip=f"{domain}.nvswitch0", last_chip=f"{domain}.nvswitch{shape.nvl_chips - 1}",
                           first_tray=f"{domain}.nvswitch-tray0", last_tray=f"{domain}.nvswitch-tray{shape.trays - 1}"),
                      name=shown(text))


def _element(tier: str, key: tuple, shape: Shape) -> str:
    if tier == "plane":
        return f"p{key[0]}"
    if tier == "nic":
        return f"{Wiring.node_id(key[0])}.nic{key[1]}"
    if tier == "rack":
        return f"rack{key[0]}"
    if tier == "feed":
        return f"rack{key[0]}.feed{'AB'[key[1]]}"
    if tier == "nvswitch":
        return f"{shape.domain_name(key[0])}.nvswitch{key[1]}"
    if tier == "meshlink":
        return f"{Wiring.node_id(key[0])}.mesh{key[1]}-{key[2]}"
    if tier == "tray":
        return f"{shape.domain_name(key[0])}.nvswitch-tray{key[1]}"
    if tier == "nvlink2":
        return f"domain{key[0]}.l2switch{key[1]}"
    if tier == "link":
        kind, p, i, a, b, cable = key
        lower, upper = ("leaf", "spine") if kind == "ls" else ("spine", "core")
        return f"{shape.switch_id(lower, a, p, i)}-{upper}{b}" + ("" if cable is None else f"#{cable}")
    p, i, k = key
    return shape.switch_id(tier, k, p, i)

def _parse_bundle(m, text: str, shape: Shape) -> tuple[str, tuple]:
    """``("link", key)`` of a bundle name matched by ``_BUNDLE`` whose lower end is a leaf or a spine."""
    lower, p, i, a = _switch_name(m[1])
    upper, b, cable = m[2], int(m[3]), None if m[4] is None else int(m[4])
    if p >= shape.planes or i >= shape.islands or "spine" not in shape.roles:
        raise _unknown(text, shape)
    if (lower, upper) == ("leaf", "spine"):
        kind, cabled = "ls", a < shape.leaves and b in shape.spines_of_leaf(a) and b < shape.spines
    elif (lower, upper) == ("spine", "core") and "core" in shape.roles:
        kind, cabled = "sc", a < shape.spines and b in shape.cores_of_spine(a) and b < shape.cores
    else:
        raise _unknown(text, shape)
    if not cabled:
        raise InputError(_("{name}: no such bundle; the two switches are not cabled to each other in this "
                           "design").format(name=shown(text)))
    if cable is not None and cable >= _pair_links(shape, kind, a):
        raise cable_out_of_range(text, _pair_links(shape, kind, a))
    return "link", (kind, p, i, a, b, cable)


def cable_out_of_range(text: str, count: int, first: int = 0) -> InputError:
    """The error for a cable number past the ``count`` cables of the bundle the user named ``text`` (shown escaped),
    its cables numbered from ``first`` as the user numbers them (0: the what-if's ids; 1: the exports' hot-link
    names)."""
    return InputError(ngettext("{name}: the bundle has {count} cable, #{first} to #{last}",
                               "{name}: the bundle has {count} cables, #{first} to #{last}", count).format(
        name=shown(text, 80), count=count, first=first, last=count - 1 + first))


def parse_name(text: str, shape: Shape, tier: str | None = None) -> tuple[str, tuple]:
    """``(tier, key)`` of an element name; ``InputError`` for a name the design does not have."""
    name = text.strip().lower()
    switch = _switch_name(name)
    if switch:
        role, p, i, k = switch
        if p >= shape.planes or i >= shape.islands or k >= shape.count(role) or (tier and tier != role):
            raise _unknown(text, shape)
        return role, (p, i, k)
    m = _SU_RAIL.match(name)
    if m and not shape.tor and "spine" in shape.roles and shape.islands == 1:  # rail-optimized leaves
        p, g, r = int(m[1] or 0), int(m[2]) - 1, int(m[3]) - 1
        if p >= shape.planes or not (0 <= g < shape.groups) or not (0 <= r < shape.rails) or tier not in (None, "leaf"):
            raise _unknown(text, shape)
        return "leaf", (p, 0, shape.leaf_of(g, r))
    m = _PLANE.match(name)
    if m and tier in (None, "plane"):
        if int(m[1]) >= shape.planes:
            raise _unknown(text, shape)
        return "plane", (int(m[1]),)
    m = _RACK.match(name)
    if m and tier in (None, "rack"):
        if int(m[1]) >= shape.racks:
            raise _unknown(text, shape)
        return "rack", (int(m[1]),)
    m = _FEED.match(name)
    if m and tier in (None, "feed", "rack"):
        r, f = int(m[1]), "ab".index(m[2])
        if r >= shape.racks:
            raise _unknown(text, shape)
        if f >= shape.feeds:
            raise NamedError(_("{name}: the racks of this design have one power feed, {feed}"),
                             dict(feed=f"rack{r}.feedA"), name=shown(text))
        return "feed", (r, f)
    m = _NIC.match(name)
    if m and tier in (None, "nic"):
        if int(m[1]) >= shape.nodes or int(m[2]) >= shape.nics:
            raise _unknown(text, shape)
        return "nic", (int(m[1]), int(m[2]))
    m = _BUNDLE.match(name)
    lower = _switch_name(m[1]) if m else None
    if lower and lower[0] != "core" and tier in (None, "link"):
        return _parse_bundle(m, text, shape)
    m = _CHIP.match(name)
    if m and tier in (None, "nvswitch"):
        single = shape.nodes_per_domain == 1
        d, c = int(m[2]), int(m[3])
        if not shape.nvl_chips or (m[1] == "node") != single or c >= shape.nvl_chips or d >= shape.domains or \
                (not single and m[1] != shape.domain_name(0)[:-1]):
            raise _no_nvswitch(text, shape)
        return "nvswitch", (d, c)
    m = _MESH.match(name)
    if m and tier in (None, "meshlink"):
        n, a, b = int(m[1]), *sorted((int(m[2]), int(m[3])))
        if not shape.mesh_per_peer or n >= shape.nodes or a == b or b >= shape.mesh_gpus:
            raise NamedError(_("{name}: no such mesh link; this design's scale-up domain is {kind}, its mesh links "
                               "are named like {example}"), dict(example="node0.mesh0-1"), name=shown(text),
                             kind=_("a direct mesh of GPUs 1 to {last}").format(last=shape.mesh_gpus)
                             if shape.mesh_per_peer else _("not a direct mesh"))
        return "meshlink", (n, a, b)
    m = _TRAY.match(name)
    if m and tier in (None, "tray", "nvswitch"):
        d, t = int(m[2]), int(m[3])
        if not shape.trays or t >= shape.trays or d >= shape.domains or m[1] != shape.domain_name(0)[:-1]:
            raise _no_nvswitch(text, shape)
        return "tray", (d, t)
    m = _LEVEL2.match(name)
    if m and tier in (None, "nvlink2"):
        d, k = int(m[1]), int(m[2])
        if d >= len(shape.level2) or k >= shape.level2[d]:
            raise NamedError(_("unknown level-2 NVLink switch {name}; this design has {count} of them, like "
                               "{example}"), dict(example="domain0.l2switch0"), name=shown(text),
                             count=sum(shape.level2))
        return "nvlink2", (d, k)
    raise _unknown(text, shape)


def _worst_order(tier: str, shape: Shape):
    """Elements of ``tier`` in the order a count fails them: where they hurt most first."""
    pis = shape.pis()
    if tier == "leaf":
        for g in range(shape.groups):
            for lr in range(shape.leaves_per_group):  # one leaf per group top-of-rack and with one tier
                for p, i in pis:
                    yield (p, i, shape.leaf_of(g, lr))
    elif tier == "spine":
        for pod in range(shape.pods):
            for p, i in pis:
                for k in shape.spines_of_pod(pod):
                    yield (p, i, k)
    elif tier == "core":
        for p, i in pis:
            for k in range(shape.cores):
                yield (p, i, k)
    elif tier == "plane":
        for p in range(shape.planes):
            yield (p,)
    elif tier == "nic":
        for n in range(shape.nodes):
            for r in range(shape.nics):
                yield (n, r)
    elif tier == "rack":
        for k in range(shape.racks):
            yield (k,)
    elif tier == "feed":
        for k in range(shape.racks):
            for f in range(shape.feeds):
                yield (k, f)
    elif tier == "link":  # one leaf's bundles before the next leaf's, then spines' to cores
        for p, i, k in _worst_order("leaf", shape):
            for sp in shape.spines_of_leaf(k):
                yield ("ls", p, i, k, sp, None)
        if "core" in shape.roles:
            for p, i, k in _worst_order("spine", shape):
                for c in shape.cores_of_spine(k):
                    yield ("sc", p, i, k, c, None)
    elif tier == "nvswitch" and shape.nvl_chips:
        chips = sorted(range(shape.nvl_chips), key=lambda c: -shape.chip_links(c))
        if shape.nodes_per_domain == 1:  # each chip takes its node: one per node first
            for c in chips:
                for n in range(shape.nodes):
                    yield (n, c)
        else:
            for d in range(shape.domains):
                for c in chips:
                    yield (d, c)
    elif tier == "tray" and shape.trays:
        for d in range(shape.domains):
            for t in range(shape.trays):
                yield (d, t)
    elif tier == "meshlink" and shape.mesh_per_peer:  # links of one GPU first (its bandwidth falls fastest)
        pairs = [(0, b) for b in range(1, shape.mesh_gpus)] + [
            (a, b) for a in range(1, shape.mesh_gpus) for b in range(a + 1, shape.mesh_gpus)]
        for n in range(shape.nodes):
            for a, b in pairs:
                yield (n, a, b)
    elif tier == "nvlink2":  # one domain's units first: its second level thins fastest
        for d, units in enumerate(shape.level2):
            for k in range(units):
                yield (d, k)


def _tier_size(tier: str, shape: Shape) -> int:
    npi = shape.planes * shape.islands
    if tier in ("leaf", "spine", "core"):
        return shape.count(tier) * npi
    if tier == "rack":
        return shape.racks
    if tier == "feed":
        return shape.racks * shape.feeds
    if tier == "link":  # bundles: a leaf's to each of its pod's spines, a spine's to each core of its group
        return npi * (shape.leaves * len(shape.spines_of_leaf(0)) + shape.spines * shape.cores_per_group)
    if tier == "nvswitch":
        return shape.domains * shape.nvl_chips
    if tier == "tray":
        return shape.domains * shape.trays
    if tier == "meshlink":
        return shape.nodes * shape.mesh_gpus * (shape.mesh_gpus - 1) // 2
    if tier == "nvlink2":
        return sum(shape.level2)
    return shape.planes if tier == "plane" else shape.nodes * shape.nics


def tiers_for(plan: Plan) -> tuple[str, ...]:
    """The tiers ``plan`` has elements of (a one-tier fabric has no spines, an HGX node no trays, ...; another
    family than the folded Clos: ``core.analysis.failure.graphwhatif``'s tiers)."""
    names = failure_names(plan.fabric.family)
    if names == "node-to-node":
        from core.analysis.failure import toruswhatif

        return toruswhatif.tiers_of(plan)
    if names == "graph":
        from core.analysis.failure import graphwhatif

        return graphwhatif.tiers_of(plan)
    shape = Shape.of(plan)
    return tuple(t for t in TIERS if _tier_size(t, shape) > 0)


def resolve_failures(plan: Plan, failures, naming=None) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every element the specs name or choose, by id or by the exports' name under the
    naming scheme ``naming`` (``engine_specs``; None: the default names); ``InputError`` for bad specs (another
    family than the folded Clos: ``core.analysis.failure.graphwhatif``'s elements)."""
    failures = list(failures)
    specs = engine_specs(plan, failures, naming)
    try:
        return _resolved(plan, specs)
    except UnknownElement as exc:  # said as typed (sw-leaf099), not as the id its name reads as (p0.leaf98)
        def element(spec) -> str:
            return str(spec).partition(":")[2] if ":" in str(spec) else str(spec)

        typed = {element(spec): element(text) for spec, text in zip(specs, failures)}
        raise unknown_element(plan, typed.get(exc.text, exc.text), naming) from None
    except InputError as exc:
        raise as_typed(said(plan, exc, naming), failures, specs) from None


def as_typed(exc: InputError, failures, specs) -> InputError:
    """``exc`` (raised reading ``specs``, the ids of the typed ``failures``, ``engine_specs``) with each id it echoes
    as the user typed it: ``'leaf001 -> spine040': no such bundle``, not ``'p0.leaf0-spine39'``."""
    text = str(exc)
    for typed, spec in zip(failures, specs):
        if typed != spec:
            text = text.replace(shown(str(spec).partition(":")[2].strip() if ":" in str(spec) else str(spec).strip()),
                                shown(str(typed).partition(":")[2].strip() if ":" in str(typed) else str(typed).strip()))
    return exc if text == str(exc) else InputError(text)


def _resolved(plan: Plan, failures) -> list[tuple[str, tuple, bool]]:
    """``resolve_failures`` of ids; ``UnknownElement`` for a name that is no element."""
    names = failure_names(plan.fabric.family)
    if names == "node-to-node":
        from core.analysis.failure import toruswhatif

        return toruswhatif.resolve(plan, failures)
    if names == "graph":
        from core.analysis.failure import graphwhatif

        return graphwhatif.resolve(plan, failures)
    shape = Shape.of(plan)
    return _resolve(failures, TIERS, lambda rest, tier: parse_name(rest, shape, tier),
                    lambda t: _tier_size(t, shape), lambda t: _worst_order(t, shape))


def chosen_elements(plan: Plan, failures, naming=None) -> list[str]:
    """The element ids the tier-and-count specs among ``failures`` choose where they hurt most on the folded Clos
    ``plan`` (``resolve_failures``'s chosen elements, as the what-if names them: ``leaf:1`` -> ``p0.leaf0``), in the
    order chosen; ``InputError`` as ``resolve_failures``."""
    shape = Shape.of(plan)
    return [_element(tier, key, shape) for tier, key, chosen in resolve_failures(plan, failures, naming) if chosen]


def export_namer(plan: Plan, naming=None):
    """The exports' names of ``plan``'s failure elements (``core.analysis.failure.names.ElementNames``: the Hand-off
    tab's, Slurm's, NetBox's and the cabling plan's names: ``leaf001``, ``gpu006 nic3``, ``R02-05``, 1-based) under
    the naming scheme ``naming`` (a ``core.fabric.naming.NamingScheme``, the design's hand-off naming: ``sw-leaf001``;
    None: the default names) that the failure what-if and single points of failure read and say
    (``resolve_failures``, ``core.figures.topology.element_name``); None for a design with pods (pod 1 alone: its
    engine ids; the whole fabric's names are ``failure_namer``'s)."""
    from core.analysis.failure.names import element_names

    return element_names(plan, naming)


def failure_namer(plan: Plan, naming=None):
    """The exports' names of the failure elements every failure view of ``plan`` says and reads (the CLI's
    ``failure`` and ``spof``, the Resilience page, the review pack) under the naming scheme ``naming`` (None: the
    default names): ``export_namer``'s, or for a design with pods the whole fabric's
    (``core.analysis.failure.podnames.PodElementNames``: ``spine001``, ``pod2-leaf002``, ``R05-01 feedA``; None when
    its pods cannot be planned together)."""
    if getattr(plan.design, "pods", None):
        from core.analysis.failure.podnames import pod_element_names

        return pod_element_names(plan, naming)
    return export_namer(plan, naming)


def engine_specs(plan: Plan, failures, naming=None) -> list[str]:
    """The specs ``failures`` with each element named by the exports (``export_namer`` under ``naming``:
    ``leaf001``, ``tier:gpu006 nic3``) as its id (``p0.leaf0``, ``nic:node5.nic2``); any other spec unchanged."""
    out, names = [], None
    for spec in failures:
        text = str(spec).strip()
        tier, sep, rest = text.partition(":") if ":" in text else ("", "", text)
        if not rest.strip() or rest.strip().isdigit():
            out.append(spec)
            continue
        names = names or export_namer(plan, naming)
        engine = names.parse(rest) if names is not None else None
        out.append(spec if engine is None else f"{tier}{sep}{engine}")
    return out


def _resolve(failures, tiers: tuple[str, ...], parse, size, order,
             aliases: dict[str, str] | None = None) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of the specs ``failures`` over ``tiers``: ``parse(name, tier or None)`` gives a
    named element's ``(tier, key)``, ``size(tier)`` the tier's elements, ``order(tier)`` its keys in the order a
    count fails them; ``aliases``: a family's own tier words (``core.fabric.families.tier_aliases``: a classic
    Dragonfly's ``router``) besides ``TIER_ALIASES``; ``InputError`` for bad specs."""
    named: list[tuple[str, tuple]] = []
    counts: list[tuple[str, int]] = []
    aliases = {**TIER_ALIASES, **(aliases or {})}
    for spec in failures:
        text = str(spec).strip()
        tier, _sep, rest = text.partition(":") if ":" in text else ("", "", text)
        tier = aliases.get(tier.strip().lower(), tier.strip().lower())
        if tier and tier not in tiers:
            known = tiers + ("tor",) + tuple(k for k in aliases if k not in TIER_ALIASES)
            raise InputError(_("unknown tier {tier}; known: {known}").format(tier=shown(tier),
                                                                           known=", ".join(known)))
        rest = rest.strip()
        if tier and rest.isdigit():
            count = int(rest)
            if count < 1:
                raise InputError(_("fail at least 1 element, got {value}").format(value=shown(text)))
            counts.append((tier, count))
        else:
            named.append(parse(rest, tier or None))
    out: list[tuple[str, tuple, bool]] = []
    seen = set()
    for tier, key in named:
        if (tier, key) not in seen:
            seen.add((tier, key))
            out.append((tier, key, False))
    for tier, count in counts:
        total = size(tier)
        taken = sum(1 for t, _k in seen if t == tier)
        if count + taken > total or count > MAX_FAILURES:
            raise InputError(ngettext("cannot fail {count} {tier} element: the design has {size} ({taken} already "
                                      "named)", "cannot fail {count} {tier} elements: the design has {size} ({taken} "
                                      "already named)", count).format(count=count, tier=tier, size=total,
                                                                      taken=taken))
        for key in order(tier):
            if count == 0:
                break
            if (tier, key) in seen:
                continue
            seen.add((tier, key))
            out.append((tier, key, True))
            count -= 1
    return out
