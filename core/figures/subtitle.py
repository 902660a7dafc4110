"""The design in one line, as the Designer's title shows it and every page that names a design repeats it: its size
(``core.figures.keynumbers.size_caption``), fabric and port speed, topology, tiers, planes, switch and NIC models; a
design with pods names every pod's (``core.analysis.whole.design_models``: both speeds, leaf and spine models, NICs);
a fabric without switches (a torus) its words (``core.designwords.plan_words``). ``design_line`` adds the price basis
the design's money is at, as every page that shows its money names it."""

from __future__ import annotations

from core import plurals, vocab
from core.analysis.whole import design_models, whole_plan
from core.designwords import plan_words
from core.fabric.families import node_to_node, tier_words
from core.figures.keynumbers import size_caption
from core.i18n import _, after_full_width
from core.plan import Plan


def design_subtitle(plan) -> str:
    """``plan``'s design in one line of the current language (module docstring), e.g. ``768 GPUs in 2 pods (H100 +
    B200, 96 nodes) · InfiniBand 400 / 800G · fat-tree · 2 tiers · 1 plane · switch QM9700 + Q3400 leaves, Q3400
    spines · NIC ...``; ``plan`` is a design's plan or its whole plan (``core.analysis.whole.whole_plan``)."""
    size = size_caption(whole_plan(plan))
    if node_to_node(plan.fabric.family):  # no switch and no tier: the torus in words (core.designwords)
        return after_full_width(_("{size} · {design}").format(size=size, design=plan_words(plan)))
    s = Plan.summary(plan)  # the design's own fields (a whole plan's summary holds the totals)
    models = design_models(plan.design)  # a design with pods: every pod's switches, NICs and speeds
    return after_full_width(_("{size} · {fabric} {speed}G · {topology} · {tiers} · {planes} · switch {switch} · NIC "
                              "{nic}").format(
        size=size, fabric=vocab.fabric_label(s["fabric"], plan.resolved.nic.transport),
        speed=models.get("speed", s["port_speed_gbps"]), topology=vocab.TOPOLOGY.word(s["topology"]),
        tiers=models.get("tiers") or tier_words(plan.fabric), planes=plurals.planes(s["planes"]), switch=models.get("switch", s["switch_model"]),
        nic=models.get("nic", s["nic_model"])))


def design_line(plan) -> str:
    """``plan``'s ``design_subtitle`` and the price basis of its money (list or street prices, estimates), e.g.
    ``32 x H100 in 4 nodes · ... · NIC CX7 · list prices (estimates, ranges on the Cost & power tab)``: the line
    the Designer's title and each Compare column show, so two designs at different prices never read the same."""
    basis = vocab.PRICE_BASIS.label(plan.cost.price_basis)
    return _("{subtitle} · {basis} prices (estimates, ranges on the Cost & power tab)").format(
        subtitle=design_subtitle(plan), basis=basis)
