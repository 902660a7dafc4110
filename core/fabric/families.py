"""Topology families beyond the folded Clos: which module sizes and wires each one.

A family is one module of ``core.fabric`` with ``FAMILY`` (its id, also its ``Design.topology`` value and
``FabricPlan.family``) and these functions:

* ``size(resolved) -> FabricPlan`` (closed form, ``DesignError`` with ways out);
* ``wiring(fabric, nodes, nics)``: an object with ``core.fabric.wiring.Wiring``'s interface;
* ``bisection_gbits(resolved, fabric, injection, leaf_up)`` and ``hop_counts(wiring)``;
* ``summary(fabric, bandwidth)``: its entry of ``Plan.summary()``;
* ``ways_out(design)``: its candidate design changes for ``core.plan.ways_out``;
* ``GRAPH_MODELS``: the analyses that work on its wiring's graph (``"spof"``, ``"availability"``, ``"load"``);
  the others say they do not model it (``require_model``); ``graph_model`` tells a consumer to run its graph
  analysis instead of the folded Clos's closed forms (``clos_tiers``);
* ``CLOSED_MODELS``: the analyses that model it in closed form of its own (a torus's ``"spof"``, ``"availability"``,
  ``"load"`` over its rings); ``require_model`` lets them through;
* ``BOM_MODELS``: the analyses that read its bill of materials row by row, each device role its own row
  (``"spares"``: ``core.analysis.sparing``); ``require_model`` refuses the others, on the page and the CLI alike;
* optionally ``capacities_gbits(resolved, fabric)``: its stages' capacities when it has no leaves (the torus;
  ``core.fabric.bandwidth.tier_capacities_gbits`` asks for it).
* optionally ``cabled_ports(fabric)``: NIC ports of each node its links use, per plane, when some stay unused
  (``cabled_nics``: a torus cables ``width x neighbours`` of them).
* optionally ``job_hops(fabric, nodes)``: hops between the farthest of a job's consecutive nodes, when its levels
  are not leaf groups (``job_hops``: the torus).

Optional declarations a consumer reads instead of naming a family (``docs/architecture.md``, "How to add a
topology family"):

* ``LINK_CLASS_LABELS``: words of link classes only it has (``link_class_label``);
* ``UNMODELLED``: what an analysis of the folded Clos's closed forms says on it (``require_clos``);
* ``summary_rows(summary)``: the plan CLI's ``(label, text)`` rows of its ``Plan.summary()`` entry
  (``summary_rows``);
* ``load_notes(fabric, pattern, routing, worst)``: its sentences under a link-load result between its groups
  (``load_notes``: the classic Dragonfly's closed forms of uniform and adversarial traffic);
* ``switch_class_ports(fabric, group)``: a switch group's ports by link class, when a role's ports serve more
  than one class above it (``core.cost``);
* ``LINK_CLASS_SWITCH``: the switch role at the ends of a switch-to-switch class only it has
  (``core.physical.media``);
* ``LINK_CLASS_ENDS``: ``"node"`` for a class only it has whose two ends are nodes' NIC cages, no switch (a
  torus's): its media are chosen by the NICs (``core.physical.media.family_node_classes``), no switch field read;
* ``GROUPS``: groups joined by global links (``core.plan``'s ways out; ``global_groups``: the link load's routing
  between groups);
* ``WORDS``: its own msgids where a surface's words are a folded Clos's (``words``: the drawing's rows, legend and
  view (``view:*``: its subtitle and the draw.io title),
  the key numbers' switch card, the sidebar's sizing inputs, the Resilience page's element names; ``tier_aliases``:
  its one-word tier names taken by the failure specs);
* ``link_counts(fabric)``: its links in classes ``FabricPlan``'s fields do not count, all planes (``link_counts``:
  the summary's links and the key numbers' links card);
* ``tier_words(fabric, counts=False)``: its switch tiers in words (``tier_words``: the Designer's caption, the
  drawing's title), instead of ``N tiers``;
* ``EXPORT_WORDS``: the English words the exports write of its switches where a folded Clos's say leaf (``export_word``:
  NetBox's role, the Slurm tree's comments: a classic Dragonfly's routers), untranslated as the exports are;
* ``RAIL_LEAVES``: True when its leaves are rail leaves, each group's one per rail (``rail_leaves``: the bill's
  leaf row);
* ``FIXED_FIELDS``: the fields a search takes at the base design's values besides its ``IGNORED_FIELDS``, refused
  away from their defaults (``unsearched_fields``: the optimizer tries each of its designs once);
* ``DESIGN_FIELDS``: the ``Design`` fields only it reads (``unused_fields``: the CLI and the Designer say one set on
  another topology is ignored, not lose it silently);
* ``IGNORED_FIELDS``: the folded Clos's ``Design`` fields it does not read (a torus's switch models, leaf
  oversubscription and tiers: it has no switch; a Dragonfly's tiers, sized by the family; ``ignored_fields``) and
  ``IGNORED_WHY``, why, in words: set, they are said to be ignored as another family's ``DESIGN_FIELDS`` are
  (``unused_fields``, ``ignored_said``), a sweep of one says it does nothing (``swept_ignored``), the sidebar shows
  their inputs off (``ignored_input``), a search holds them (``unsearched_fields``), without leaf oversubscription
  there is no leaf what-if (``leaf_whatif``), and ``core.design.resolve_design`` does not read a torus's switch models;
* ``HOP_NAMES``: what its hop counts count, by ``PLAN_HOPS`` name, where the folded Clos's names (rails,
  scalable units, pods) are not its own (``hops_key``: a torus's ``hops_node_neighbour``, ``hops_node_farthest``);
* ``FAILURE_NAMES``: the failure-spec language that names its elements (``failure_names``: ``"node-to-node"``,
  the torus's nodes, NICs and neighbour bundles), instead of the graph what-if's (its switches, link bundles, NICs);
* ``FAILURE_CLOSED_FORM``: the module (a dotted name, imported by ``core.analysis.failure.whatif``) whose
  ``what_if_closed(plan, failures, job)`` is its failure what-if in closed form over its groups
  (``core.analysis.failure.dragonflywhatif``, ``classicwhatif``), instead of the what-if on its graph.

``core.fabric.sizing.size_fabric``, ``core.fabric.wiring.wiring_of``, ``core.fabric.bandwidth`` and ``core.plan``
dispatch here; the folded Clos (``clos``: rail-optimized, top-of-rack, rail-only) is theirs. Every other term of
``core.vocab.TOPOLOGY`` is a family whose module is ``core.fabric.<id, dashes as underscores>``: a new family
adds its module, its ``core.vocab.TOPOLOGY`` term and its tests.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

from core import vocab  # ground floor: vocabularies
from core.i18n import N_

CLOS = "clos"
CLOS_TOPOLOGIES = ("rail-optimized", "top-of-rack", "rail-only")
"""``Design.topology`` values of the folded Clos (sized by ``core.fabric.sizing``)."""
FAMILIES = {t: f"core.fabric.{t.replace('-', '_')}" for t in vocab.TOPOLOGY.ids if t not in CLOS_TOPOLOGIES}
"""Family id -> module: every topology term that is not a folded Clos."""


def family(name: str) -> ModuleType | None:
    """The module of family ``name`` (a ``Design.topology`` or ``FabricPlan.family``); None for the folded Clos."""
    path = FAMILIES.get(name)
    return importlib.import_module(path) if path else None


def node_to_node(name: str) -> bool:
    """Whether family ``name`` (a ``FabricPlan.family`` or ``Design.topology``) joins its nodes node to node,
    without switches (``core.vocab.NODE_TO_NODE``: the torus)."""
    return name in vocab.NODE_TO_NODE


HOPS_PREFIX = {False: "hops_", True: "hops_node_"}
"""Whether a family joins its nodes node to node (``node_to_node``) -> the prefix of its hop counts' keys in the
plan JSON and Compare's: switches crossed on a switched fabric, links crossed between nodes on a torus (so no torus
count is read as switch hops)."""
PLAN_HOPS = ("same_rail", "same_rail_other_su", "cross_rail", "cross_pod")
"""The plan JSON's hop counts (``FabricBandwidth.hops_<name>``), each under ``hops_key``."""


def hops_key(name: str | None, hops: str) -> str:
    """The key of hop count ``hops`` (``max``, a ``PLAN_HOPS`` name) on family ``name`` (a ``FabricPlan.family`` or
    ``Design.topology``): ``hops_same_rail`` on a switched fabric; on a family that declares ``HOP_NAMES`` its own
    name, ``hops_node_neighbour`` and ``hops_node_farthest`` on a torus (which has no rails, scalable units or pods;
    the counts that name one key are the same count, so the plan JSON holds it once)."""
    own = getattr(family(name), "HOP_NAMES", {}) if name else {}
    return HOPS_PREFIX[node_to_node(name)] + own.get(hops, hops)


def switch_tiers(name: str, tiers: int) -> int:
    """Switch tiers of a fabric of family ``name`` (a ``FabricPlan.family`` or ``Design.topology``) sized with
    ``tiers`` (its ``FabricPlan.tiers``) as a design's count says them (``Plan.summary()``'s ``tiers``, the Optimize
    page's column), the words ``tier_words`` says: 0 for a family without switches (``node_to_node``: a torus), the
    family's ``SWITCH_TIERS`` where it declares them (a classic Dragonfly's one router tier), else ``tiers``."""
    return 0 if node_to_node(name) else getattr(family(name), "SWITCH_TIERS", tiers)


def cabled_nics(fabric, nics: int) -> int:
    """NIC ports of each node cabled into ``fabric`` (a ``FabricPlan``), per plane: its family's ``cabled_ports``
    hook (a torus leaves the ports over its neighbours unused), else all ``nics`` (the node's NICs per plane)."""
    hook = getattr(family(fabric.family), "cabled_ports", None)
    return min(nics, hook(fabric)) if hook else nics


def job_hops(fabric, nodes: int) -> int | None:
    """Hops on the farthest path between a job's ``nodes`` consecutive nodes on ``fabric`` (a ``FabricPlan``) when
    its family counts them itself (its ``job_hops(fabric, nodes)``: a torus's links between the job's farthest
    nodes, node to node); None where the fabric's levels (leaf group, pod, group) give them (``hop_counts``)."""
    hook = getattr(family(fabric.family), "job_hops", None)
    return hook(fabric, nodes) if hook else None


def failure_names(name: str) -> str:
    """Which failure-spec language names the elements of family ``name`` (a ``FabricPlan.family``): ``"tiers"`` for
    the folded Clos (its tiers in closed form, ``core.analysis.failure.spec``), else its module's ``FAILURE_NAMES``
    (``"node-to-node"``: ``core.analysis.failure.toruswhatif``), else ``"graph"`` (``graphwhatif``'s: the switches,
    link bundles and NICs of its wiring). The failure examples, tiers and what-if dispatch on it, not on a family
    id."""
    module = family(name)
    return "tiers" if module is None else getattr(module, "FAILURE_NAMES", "graph")


def clos_tiers(name: str) -> bool:
    """Whether family ``name`` (a ``FabricPlan.family`` or a wiring's ``family``) is the folded Clos's tiers (leaf,
    spine, core: sized by ``core.fabric.sizing``, wired by ``core.fabric.wiring.Wiring``), so a consumer's closed
    forms over those tiers apply: the GraphML export's element count, the leaf-spine lengths counted per pair of
    rack cells, the hottest links named by the exports' naming scheme, the as-built check of port labels, the
    optimizer's floor of the switch-to-switch links within a copper reach from where the layout stands its spines
    (``core.cost._central_leaf_links``, ``_spine_core_links``). Every
    family module's fabric is read from its wiring and its declarations instead (its bundles, ``group_blocks``,
    ``WORDS``), so a new family needs no consumer to name it."""
    return family(name) is None


def graph_model(name: str, model: str) -> bool:
    """Whether analysis ``model`` (``"spof"``, ``"load"``) runs on the graph of family ``name``'s wiring: its
    module lists it in ``GRAPH_MODELS``; the folded Clos's is in closed form over its tiers (False), as is any
    family's that does not list it (``require_model`` refuses it first)."""
    return model in getattr(family(name), "GRAPH_MODELS", ())


def global_groups(name: str) -> bool:
    """Whether family ``name`` joins groups by global links (its ``GROUPS``: a Dragonfly's), so a routing between
    groups (minimal or Valiant) applies; the folded Clos's pods and a torus have none."""
    return getattr(family(name), "GROUPS", False)


def rail_leaves(name: str) -> bool:
    """Whether family ``name``'s leaves are rail leaves, each group's one per rail (its ``RAIL_LEAVES``: a
    Dragonfly's routers), as a rail-optimized folded Clos's (the bill's leaf row says ``SU x rails``); False for the
    folded Clos, whose topology says it (``Design.topology``)."""
    return getattr(family(name), "RAIL_LEAVES", False)


def leaf_whatif(name: str) -> bool:
    """Whether the leaf-oversubscription what-if (``core.analysis.whatif``) applies to family ``name`` (a
    ``FabricPlan.family``): not where the family ignores the leaf oversubscription (``ignored_fields``: a torus has
    no leaves, a classic Dragonfly's routers split their ports by the global ratio)."""
    return "oversubscription" not in ignored_fields(name)


def oversubscription_input(name: str | None) -> tuple[str | None, str | None]:
    """The sidebar's leaf-oversubscription input on family ``name`` (a ``Design.topology``; None: none), translated:
    ``(label, off)``, its label in the family's ``WORDS`` (None: the field's own) and why it has no effect (None:
    it has, ``ignored_input``): where the family ignores the field (a torus, a classic Dragonfly) the input is off,
    labelled in its words (``input:oversubscription``) or the shared ones."""
    off = ignored_input(name, "oversubscription")
    label = words(name, "input:oversubscription", None if off is None else N_("Oversubscription (not used by this "
                                                                             "topology)"))
    return label, off


def ignored_input(name: str | None, field: str) -> str | None:
    """Why the sidebar's input of ``Design`` field ``field`` is off on family ``name`` (a ``Design.topology``; None:
    none), translated: None where the family reads it, else its ``WORDS``' ``input:<field>:off`` or the sentence
    the CLI says (``ignored_said``). The one rule of which inputs are off is ``ignored_fields``."""
    if name is None or field not in ignored_fields(name):
        return None
    return words(name, f"input:{field}:off", None) or ignored_said(name, field)


def group_hops(same: int, other: int, valiant: int) -> str:
    """A Dragonfly's switch hops in words, translated (both families' readouts, the plan CLI's rows): in a group
    (``same``), across groups (``other``, minimal) and under Valiant routing (``valiant``); with one group
    (``valiant`` 0: ``core.fabric.dragonfly.Hops``) only in it, no route between groups to count."""
    from core.i18n import _

    if not valiant:
        return _("in its one group {same}").format(same=same)
    return _("in a group {same}, across groups {other}, Valiant up to {valiant}").format(same=same, other=other,
                                                                                          valiant=valiant)


def group_hops_summary(bandwidth) -> dict[str, int]:
    """A Dragonfly's switch hops as ``Plan.summary()`` gives them (both families' entries), from ``bandwidth`` (a
    ``core.fabric.bandwidth.Bandwidth``): in a group, across groups and Valiant; with one group (``hops_valiant``
    0) none across groups, 0 as Valiant's (``group_hops`` says only the hops in it)."""
    return {"hops_same_group": bandwidth.hops_cross_rail,
            "hops_other_group": bandwidth.hops_cross_pod if bandwidth.hops_valiant else 0,
            "hops_valiant": bandwidth.hops_valiant}


def leaf_whatif_note(plan) -> str:
    """The note under the leaf-oversubscription what-if of ``plan`` (a ``Plan``) that its family declares in its
    ``WORDS`` (``note:leaf_whatif``: why the rows rank otherwise than on a folded Clos), filled with the design's
    groups, end-to-end and leaf ratios; "" when it declares none, or with one group (no global links to cut)."""
    from core import units

    text = words(plan.fabric.family, "note:leaf_whatif", None)
    if text is None or plan.fabric.pod_count < 2:
        return ""
    bw = plan.bandwidth
    return text.format(others=f"{plan.fabric.pod_count - 1:,}", ratio=units.ratio(bw.oversubscription),
                       leaf=units.ratio(bw.leaf_oversubscription))


def require_model(fabric, model: str, what: str) -> None:
    """Raise ``InputError`` (as ``require_clos``) when ``fabric``'s family is not a folded Clos and does not list
    ``model`` (``"spof"``, ``"availability"``, ``"load"``) in its ``GRAPH_MODELS`` or (``"spares"``) in its
    ``BOM_MODELS``: ``what`` is the analysis in words."""
    module = family(fabric.family)
    if module is None or model in module.GRAPH_MODELS or model in getattr(module, "BOM_MODELS", ()) \
            or model in getattr(module, "CLOSED_MODELS", ()):
        return
    require_clos(fabric, what)


def require_clos(fabric, what: str) -> None:
    """Raise ``InputError`` when ``fabric`` (a ``FabricPlan``) is not a folded Clos: ``what`` (an analysis, in words)
    is a closed form of the Clos's tiers and would be wrong on another family's links."""
    if fabric.family == CLOS:
        return
    from core.errors import InputError
    from core.i18n import _

    unmodelled = getattr(family(fabric.family), "UNMODELLED", None)
    if unmodelled is not None:
        raise InputError(_(unmodelled).format(what=what))
    raise InputError(_("{what}: closed forms of the folded Clos (leaf, spine and core tiers) that do not model "
                       "{family} yet (its global links between groups). Compare with the same design as "
                       "rail-optimized, or take the topology (GraphML export) to a graph tool.").format(
        what=what, family=vocab.TOPOLOGY.label(fabric.family)))


def bisection_share_without(resolved, fabric, lost_links: int) -> float:
    """Share of the bisection of ``fabric`` (a ``FabricPlan`` of a family with global links; its module's
    ``bisection_gbits``) left when ``lost_links`` global links across the cut fail (1.0 while another stage, the
    injection or the leaves' uplinks, is the narrower)."""
    from core.fabric.bandwidth import tier_capacities_gbits  # it dispatches to the family's module

    bisection = family(fabric.family).bisection_gbits
    caps = tier_capacities_gbits(resolved, fabric)
    args = resolved, fabric, caps["injection"], caps.get("leaf_up", 0.0)
    healthy = bisection(*args)
    return bisection(*args, lost_links=lost_links) / healthy if healthy else 1.0


CLASS_FIELDS = {"node-leaf": "node_leaf_links", "leaf-spine": "leaf_spine_links", "spine-core": "spine_core_links",
                "global": "global_links", "torus": "torus_links"}
"""Link class -> the ``FabricPlan`` field counting its links in one plane (the classes the folded Clos, Dragonfly+
and torus wire); a family's other classes are its ``link_counts`` hook's (a classic Dragonfly's ``local``)."""


def class_link_counts(fabric) -> dict[str, int]:
    """Links of every link class of ``fabric`` (a ``FabricPlan``), all planes: ``CLASS_FIELDS``' and its family's
    ``link_counts`` (``core.cost.class_links`` prices each class its wiring declares;
    ``tests/test_family_capabilities.py`` checks every class any family wires is here)."""
    return {**{c: getattr(fabric, name) * fabric.planes for c, name in CLASS_FIELDS.items()}, **link_counts(fabric)}


def link_counts(fabric) -> dict[str, int]:
    """Links of ``fabric`` (a ``FabricPlan``) in classes its fields do not count, by class, all planes: its
    family's ``link_counts`` hook (a Dragonfly's local links); none for the others."""
    hook = getattr(family(fabric.family), "link_counts", None)
    return hook(fabric) if hook else {}


def words(name: str | None, key: str, default: str | None) -> str | None:
    """In the current language, the msgid family ``name`` (a ``FabricPlan.family`` or ``Design.topology``; None:
    none) declares for ``key`` in its ``WORDS``, else ``default`` (a msgid: mark it with ``N_`` where it is
    written, never inside a ``_()`` call, which the extractor would not look into; None: None). A family that
    declares None for ``key`` has no such thing (a tier it lacks: no key-number card): None."""
    from core.i18n import _

    module = family(name) if name else None
    msgid = getattr(module, "WORDS", {}).get(key, default)
    return None if msgid is None else _(msgid)


def counted(name: str | None, key: str, count: int) -> str | None:
    """``count`` things in the current language in the words family ``name`` declares for ``key`` in its
    ``COUNTED`` (a function of the count: its plural forms, ``ngettext``), else None (the surface's own words):
    a classic Dragonfly's scalable units and routers crossed where a Clos counts leaf groups and switch hops."""
    module = family(name) if name else None
    said = getattr(module, "COUNTED", {}).get(key)
    return None if said is None else said(count)


def export_word(name: str | None, key: str, default: str) -> str:
    """The English word family ``name`` declares for ``key`` in its ``EXPORT_WORDS`` (``role:leaf``, ``leaf``,
    ``leaves``), else ``default``: what the English exports (NetBox's roles, the Slurm tree's comments) call it."""
    module = family(name) if name else None
    return getattr(module, "EXPORT_WORDS", {}).get(key, default)


SWITCH_LABELS = {"leaf": N_("Leaf switches"), "spine": N_("Spine switches"), "core": N_("Core switches")}
"""A folded Clos's switch tiers by name (English, marked); a family's own words replace them (``switch_label``)."""

LEVEL2_SWITCHES_LABEL = N_("NVLink level 2 switch units")
"""The switch units of a second NVLink level by name (English, marked): the compute fabric's switch total holds them
(``Plan.level2_switches``), so the rows that list the tiers list them too (Compare, the XLSX Summary)."""


def switch_label(name: str | None, tier: str) -> str | None:
    """Switch tier ``tier`` ("leaf", "spine", "core") of family ``name`` by name, translated: the family's
    ``card:<tier>`` (a classic Dragonfly's "Routers"), None for a tier it lacks (its spine and core, a torus's every
    tier), else ``SWITCH_LABELS``'. The key-number cards, the XLSX Summary and the Compare rows read it."""
    return words(name, f"card:{tier}", SWITCH_LABELS[tier])


def ignored_fields(name: str | None) -> tuple[str, ...]:
    """The folded Clos's ``Design`` fields family ``name`` (a ``Design.topology``) does not read: its module's
    ``IGNORED_FIELDS`` (a torus's switch models, leaf oversubscription and tiers); none for the others."""
    return tuple(getattr(family(name), "IGNORED_FIELDS", ())) if name else ()


def reads(name: str, field: str) -> bool:
    """Whether family ``name`` (a ``Design.topology``) reads ``Design`` field ``field``: not one it ignores
    (``ignored_fields``), nor one only other families read (their ``DESIGN_FIELDS``: ``global_ratio`` on a torus)."""
    if field in ignored_fields(name):
        return False
    own = getattr(family(name), "DESIGN_FIELDS", ())
    return field in own or not any(field in getattr(family(f), "DESIGN_FIELDS", ()) for f in FAMILIES)


IGNORED_TEXT = N_("The setting {field} has no effect on a {topology}: {why}, so it is ignored (leave the field out, "
                  "or choose another topology)")
"""What the CLI, the Designer and a sweep say of a field the design's own family ignores (``ignored_said``): "The
setting {field}" a subject for any label, plural too ("The setting Tiers has"), as ``unused_fields``' sentence."""


def ignored_said(name: str, field: str) -> str | None:
    """What the CLI, the Designer and a sweep say, translated, of ``Design`` field ``field`` set on family ``name`` (a
    ``Design.topology``) when the family ignores it (``ignored_fields``; why: its module's ``IGNORED_WHY``), the
    field named by its label and the topology by its word, each spaced as a word set in a Chinese sentence
    (``core.i18n.embedded``: 对 Dragonfly 无效); None when it reads it."""
    if field not in ignored_fields(name):
        return None
    from core.design import FIELDS
    from core.i18n import _, embedded

    return _(IGNORED_TEXT).format(field=embedded(FIELDS[field].title()),
                                  topology=embedded(vocab.TOPOLOGY.word(name)), why=_(family(name).IGNORED_WHY))


def unused_fields(design) -> list[str]:
    """Sentences, translated, for each field of ``design`` set away from its default that only other families read
    (their ``DESIGN_FIELDS``), so its topology ignores it: ``torus_dims`` on a rail-optimized design,
    ``global_ratio`` (read by both Dragonflies) on a torus, one sentence naming every family that reads it; then
    each field its own family ignores (``ignored_fields``: a leaf switch on a torus)."""
    from core.design import FIELDS, Design, or_list
    from core.i18n import _, embedded

    default = Design()
    readers: dict[str, list[str]] = {}  # field -> the families that read it, in vocab order
    for name in FAMILIES:
        for field in getattr(family(name), "DESIGN_FIELDS", ()):
            readers.setdefault(field, []).append(vocab.TOPOLOGY.label(name))
    out = [_("The setting {field} is used only by the {family} topology; this design is {topology}, so it is ignored "
             "(set the topology to {family}, or leave the field out)").format(  # a subject for any label: plural too
        field=embedded(FIELDS[field].title()), family=embedded(or_list(names)),  # its declared label, as
        topology=embedded(vocab.TOPOLOGY.label(design.topology)))  # ``ignored_said``; each set between Chinese words
        for field, names in readers.items()
        if not reads(design.topology, field) and getattr(design, field) != getattr(default, field)]
    return out + [ignored_said(design.topology, field) for field in ignored_fields(design.topology)
                  if getattr(design, field) != getattr(default, field)]


def swept_ignored(design, field: str) -> str | None:
    """What a sweep of ``Design`` field ``field`` on ``design`` says when its family ignores it
    (``ignored_said``: oversubscription on a torus or a classic Dragonfly, every point the same), translated; None
    when it is read."""
    return ignored_said(design.topology, field)


def unsearched_fields(name: str) -> tuple[str, ...]:
    """The ``Design`` fields a search of family ``name`` (a ``Design.topology``) does not vary: those it does not
    read (its module's ``IGNORED_FIELDS``) and its ``FIXED_FIELDS`` (others it ignores, or refuses away from their
    defaults), so a search tries each of its designs once, at the base design's values of these
    (``core.analysis.optimize.candidate_designs``: a torus once per fabric, port speed and NIC); none for the
    folded Clos."""
    return tuple(dict.fromkeys((*ignored_fields(name), *getattr(family(name), "FIXED_FIELDS", ()))))


def tier_aliases(name: str) -> dict[str, str]:
    """Family ``name``'s own single-word failure tier names (its ``WORDS``' ``tier:<tier>`` msgids, English as the
    failure-spec language is: a classic Dragonfly's ``router``) -> the tier, for ``--fail router:1``; none for a
    family that declares none (the folded Clos)."""
    declared_words = getattr(family(name), "WORDS", {})
    return {msgid.lower(): key.partition(":")[2] for key, msgid in declared_words.items()
            if key.startswith("tier:") and msgid and " " not in msgid}


def tier_words(fabric, counts: bool = False) -> str:
    """``fabric``'s switch tiers in words, translated: its family's ``tier_words`` hook (with ``counts``: the
    switches and links counted, as a drawing's title says them), else ``N tiers``."""
    hook = getattr(family(fabric.family), "tier_words", None)
    if hook is not None:
        return hook(fabric, counts)
    from core.plurals import tiers

    return tiers(fabric.tiers)


def declared(name: str) -> dict:
    """The union of the dict ``name`` every family module declares (``LINK_CLASS_SWITCH``, ``LINK_CLASS_LABELS``);
    families that declare none add nothing. A fresh dict of ``_declared``'s items."""
    return dict(_declared(name))


@lru_cache(maxsize=None)
def _declared(name: str) -> tuple:
    """``declared``'s items, gathered once per name (the family modules and their constants do not change)."""
    out: dict = {}
    for key in FAMILIES:
        out.update(getattr(family(key), name, {}))
    return tuple(out.items())


def link_class_label(kind: str, labels: dict) -> str:
    """The msgid of link class ``kind``: ``labels`` (a consumer's words of the Clos's classes) or the
    ``LINK_CLASS_LABELS`` of the family that has it; ``kind`` itself if none does."""
    return labels.get(kind) or declared("LINK_CLASS_LABELS").get(kind, kind)


def load_notes(fabric, pattern: str, routing: str, worst: dict[str, float]) -> list[str]:
    """What ``fabric``'s family says under a link-load result of ``pattern`` routed ``routing`` between its groups
    (its ``load_notes`` hook, translated; none without one): ``worst`` is the model's most loaded link per tier (a
    share of its capacity, adaptive routing)."""
    hook = getattr(family(fabric.family), "load_notes", None)
    return hook(fabric, pattern, routing, worst) if hook is not None else []


def summary_rows(summary: dict) -> list[tuple[str, str]]:
    """The plan CLI's ``(label, text)`` rows of the families' entries of ``summary`` (``Plan.summary()``), by
    their modules' ``summary_rows`` hooks."""
    out: list[tuple[str, str]] = []
    for name in FAMILIES:
        hook = getattr(family(name), "summary_rows", None)
        if hook is not None:
            out += hook(summary)
    return out
