"""A design in words, the one way: ``2-tier QM9700 InfiniBand, rail-optimized, 2:1 at the leaf, 400G ports, 1
plane`` (the optimizer's labels, the review pack's title and design line all say a design with ``design_words``).

Order: the tiers and the switch model(s) with the fabric, the topology, the leaf's oversubscription and, where the
whole fabric's bisection ratio is another, that ratio (``1:1 at the leaf, bisection ratio 1.5:1``: a Dragonfly+'s
global links), or non-blocking when both are 1:1 (``taper_words``), the port speed (and the uplinks' when they run
faster: a breakout), the NIC when one is named, the planes (and their mode when more than one). Switch and NIC
models are catalog ids, as the sidebar and the catalog name them. Text in the current language (``core.i18n``).
"""

from __future__ import annotations

from core import units, vocab
from core.i18n import N_, _, ngettext, pgettext

TIERED = N_("{count}-tier {family}")
"""The words that start a sized design's description, its switch tiers in digits as every other surface counts
them (``core.plurals.tiers``: the Designer's and the CLI's headline "1 tier", zh "1 层") before its switch family
(``switch_family``); a design that was not sized (0 tiers) says the family alone."""
SWITCH_FAMILY = N_("{switches} {fabric}")
"""A switch family in words (``switch_family``): the switch model(s), then the fabric."""


def switch_family(switches: str, fabric: str) -> str:
    """A switch family (its switch model or models, the fabric's name: ``vocab.fabric_label``) in words, the one
    order of a design's description (the optimizer's headline and labels, the review pack's title) and the
    optimizer's per-family table: ``TH5 Ethernet RoCE``, ``QM9700 InfiniBand``; without switches (a torus) the
    fabric alone."""
    return _(SWITCH_FAMILY).format(switches=switches, fabric=fabric) if switches else fabric



def design_words(design, tiers: int, *, leaf: str | None = None, spine: str | None = None,
                 nic: str | None = None, uplink_gbps: int | None = None, dims: tuple[int, ...] = (),
                 transport: str | None = None, speeds: str | None = None, total: str | None = None,
                 leaves: bool = True) -> str:
    """``design`` (a ``core.design.Design``) with ``tiers`` switch tiers in words. ``leaf`` and ``spine``: the
    switch models of the tiers (default: the design's ``leaf_switch``/``spine_switch``, else its ``switch``);
    ``nic``: the NIC model to name (default: the design's, none when it leaves the choice to the engine);
    ``uplink_gbps``: the leaf uplinks' speed (default: the design's, none when it runs at the port speed);
    ``transport``: a cloud instance's transport (``Nic.transport``), named in place of the fabric kind;
    ``speeds``: the port speeds [Gb/s per direction] in words (``400 / 800``: a design with pods; default the
    design's port speed); ``total``: the end-to-end bisection ratio in words (``core.units.ratio``; a design with
    pods: ``core.analysis.whole.ratio_words``), which the words name where it is not the leaf's (``taper_words``);
    None: the leaf's alone (a design not planned); ``leaves``: whether the family has leaves whose oversubscription
    the design sets (``Plan.leaf_ratio``; False: a classic Dragonfly's routers, no "at the leaf" ratio).
    A torus has no switches: its dimensions (``dims``, else the design's ``torus_dims``; none when neither, as an
    optimizer candidate's, which the sizing chooses) and fabric are said instead of tiers, switch models and
    oversubscription. No label starts with a space or holds two in a row (``tests/test_optimize_words.py``)."""
    from core.design import tidy_spaces

    d = design
    fabric = vocab.fabric_label(d.fabric, transport)
    if d.topology in vocab.NODE_TO_NODE:
        size = "x".join(map(str, dims)) if dims else d.torus_dims
        shape = _("{dims} {fabric} torus, node to node without switches").format(dims=size, fabric=fabric) if size \
            else _("{fabric} torus, node to node without switches").format(fabric=fabric)  # dimensions not chosen
        ratio = None
    else:
        leaf = leaf or d.leaf_switch or d.switch or ""
        spine = spine or d.spine_switch or leaf
        switches = leaf if spine == leaf or tiers == 1 else \
            _("{leaf} leaves and {spine} spines").format(leaf=leaf, spine=spine)
        shape = switch_family(switches, fabric)
        shape = _(TIERED).format(count=tiers, family=shape) if tiers else shape  # not sized: no tier count to say
        ratio = taper_words(d.oversubscription, total, leaves)
    uplink = uplink_gbps if uplink_gbps is not None else d.uplink_speed_gbps
    speed = _("{speed}G ports").format(speed=speeds or d.port_speed_gbps) \
        if speeds or not uplink or uplink == d.port_speed_gbps else \
        _("{speed}G ports, {up}G uplinks").format(speed=d.port_speed_gbps, up=uplink)
    planes = ngettext("{planes} plane", "{planes} planes", d.planes).format(planes=d.planes)
    if d.planes > 1:
        planes = _("{planes} ({mode})").format(planes=planes, mode=vocab.PLANE_MODE.word(d.plane_mode))
    nic = nic or d.nic
    parts = [shape, *([] if ratio is None else [vocab.TOPOLOGY.word(d.topology), ratio]), speed,
             *([_("NIC {nic}").format(nic=nic)] if nic else []), planes]
    text = pgettext("between the settings of a design label", ", ").join(parts)
    return tidy_spaces(" ".join(text.split()))  # a part left empty (no switch model, no dimensions): no stray space


def taper_words(leaf: float, total: str | None, leaves: bool = True) -> str:
    """A design's oversubscription in words, the one rule: ``non-blocking`` when the leaf ratio ``leaf`` (the
    design's down:up, ``Design.oversubscription``) and the end-to-end bisection ratio ``total`` (in words; None:
    not known, the leaf's) are both 1:1; ``2:1 at the leaf`` when the whole fabric is as the leaf; else both,
    ``1:1 at the leaf, bisection ratio 1.5:1`` (a Dragonfly+ whose global links taper, a design with pods whose
    faster pod's NICs outrun the cut), so a title never says non-blocking beside a 1.5:1 bisection ratio.
    ``leaves`` False (a family without leaves to oversubscribe, ``Plan.leaf_ratio``: a classic Dragonfly): the
    bisection ratio alone, or non-blocking at 1:1, never a leaf setting the family ignores."""
    if not leaves:
        return _("non-blocking") if total in (None, units.ratio(1.0)) else \
            _("bisection ratio {ratio}").format(ratio=total)
    own = units.ratio(max(1.0, leaf))
    at_leaf = _("{ratio} at the leaf").format(ratio=own)
    if total is None or total == own:
        return at_leaf if leaf > 1 else _("non-blocking")
    return pgettext("between the settings of a design label", ", ").join(
        [at_leaf, _("bisection ratio {ratio}").format(ratio=total)])


def plan_words(plan) -> str:
    """The planned design in words (``design_words`` with the models the engine chose, the switch tiers as every
    surface counts them (``Plan.switch_tiers``: a classic Dragonfly's one router tier), the plan's bisection ratio
    end to end, and a leaf ratio only where the family has leaves (``Plan.leaf_ratio``))."""
    r = plan.resolved
    tiers = r.tier_switches
    design = r.design.model_copy(update={"fabric": r.fabric, "port_speed_gbps": r.port_speed_gbps,
                                         "planes": plan.planes})  # per-rail: the islands (Plan.planes)
    return design_words(design, plan.switch_tiers, leaf=r.switch.id, spine=tiers["spine"].id, nic=r.nic.id,
                        uplink_gbps=r.uplink_gbps, dims=tuple(plan.fabric.torus_dims or ()), transport=r.nic.transport,
                        total=units.ratio(plan.bandwidth.oversubscription), leaves=plan.leaf_ratio)
