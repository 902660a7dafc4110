"""The review pack's sections of a design with pods (``Design.pods``) that read the whole fabric, as the Resilience
page does: the availability over every pod (``core.analysis.podavail`` through
``core.formats.resiliencelink.pods_availability_of``: the page's trials, seed, job size and rates). The single
points already read the whole fabric (``core.analysis.spof.single_points`` sends a design with pods to
``core.analysis.podspof``); the failure scenario is the page's whole-fabric what-if (``pods_failure_html``). The racks section is the whole hall (``core.physical.podlayout`` through
``MixedPlan.hall``), the numbers of the Designer's Racks tab (``core.figures.podracks``)."""

from __future__ import annotations

from typing import Mapping

from core import units
from core.errors import FabricPlannerError
from core.formats.podslurm import mixed_of
from core.i18n import _, ngettext, number



def pods_availability_html(plan, values: Mapping) -> tuple[str, object]:
    """The availability section's HTML of the design with pods of ``plan`` under the Resilience page's settings
    ``values`` and its ``PodsAvailability`` (None when the engine cannot compute it): the totals, a row per pod
    with the page's columns (GPUs, counts; the share of time every GPU of the pod is usable), the method."""
    from core.analysis.podavail import method_note
    from core.analysis.whole import design_mixed
    from core.formats.report import _h3, _monte_carlo_note, _p, _table
    from core.formats.resiliencelink import pods_availability_of

    try:
        a = pods_availability_of(design_mixed(plan.design), values)
    except FabricPlannerError:
        return "", None
    whole = a.job_gpus == a.gpus
    rows = [[_("share of time a job on every GPU can run") if whole else
             _("share of time a job on {gpus} GPUs can run").format(gpus=number(a.job_gpus)),
             units.percent(a.job_run_fraction)],
            [_("GPUs usable on average"), number(a.expected_gpus_available, 1)]]
    body = _h3(_("Availability")) + _table([_("measure"), _("value")], rows, {1})
    body += _table([_("Pod"), _("GPUs"), _("GPUs usable (expected)"), _("GPUs cut off (expected)"),
                    _("Every GPU usable")],
                   [[_("pod {pod}").format(pod=p.pod) + f" ({p.system})", number(p.gpus),
                     number(p.expected_gpus_available, 1), number(p.expected_gpus_cut_off, 1),
                     units.percent(p.all_available_fraction)] for p in a.pods], {1, 2, 3, 4})
    body += _monte_carlo_note(a.trials, values) + _p(_(method_note(a)).replace("`", ""), note=True)
    return body, a


def pods_physical_html(plan) -> str:
    """The racks section's HTML of the design with pods of ``plan``: the whole hall (every pod's racks and the shared
    spines'), its key numbers as the Racks tab's cards (``core.figures.podracks.hall_key_numbers``), its racks and
    rows, and every pod's cable lengths and media; "" when the pods cannot be planned together (the pods section
    says why)."""
    from core.figures.podracks import hall_key_numbers, hall_notes, pod_word, row_tags
    from core.formats.report import _list, _p, _table, lengths_html, racks_html

    mixed = mixed_of(plan)  # None without pods or when they cannot be planned together
    if mixed is None or mixed.hall is None:
        return ""
    layout = mixed.hall.layout
    body = "".join(_p(note) for note in hall_notes(mixed))
    body += _table([_("measure"), _("value"), ""], [[n.label, n.value, n.help] for n in hall_key_numbers(mixed)],
                   {1})
    racks = {k: v for k, v in layout.summary().items() if k != "power_limit_kw"}  # each pod's own: the cards say
    body += racks_html(layout, racks, row_tags(mixed))
    body += lengths_html([(pod_word(mixed, i), x) for i, classes in enumerate(mixed.lengths) for x in classes],
                         [(pod_word(mixed, i), m) for i, bins in enumerate(mixed.media) for m in bins])
    body += pods_nvlink_html(mixed)
    return body + _list([f"{pod_word(mixed, i)}: {note}" for i, p in enumerate(mixed.plans)
                         for note in p.layout.notes])


def pods_nvlink_html(mixed) -> str:
    """The level-2 NVLink cables of every pod of ``mixed`` (a ``MixedPlan``) that has a second NVLink level, as the
    Racks tab lists them (``core.physical.podlayout.pods_nvlink_summary``: per pod and link class the cables, the
    longest and mean length [m], media and part, measured in the hall) under the tab's words on where their switches
    stand (``core.figures.podracks.NVLINK_NOTE``), and the pods with one level; "" when no pod has a second level."""
    from core.figures.podracks import NVLINK_NOTE, pod_word
    from core.formats.report import _h3, _p, _table
    from core.physical.media import KIND_LABELS, NVLINK_CLASS_LABELS
    from core.physical.podlayout import pods_nvlink_summary

    rows = pods_nvlink_summary(mixed)
    if not rows:
        return ""
    listed = {i for i, _row in rows}
    others = ", ".join(pod_word(mixed, i) for i in range(len(mixed.plans)) if i not in listed)
    body = _h3(_("Level-2 NVLink cables")) + _p(_(NVLINK_NOTE), note=True)
    if others:
        body += _p(_("Every pod's level-2 NVLink cables, measured in the hall; {pods} not listed: one NVLink level, "
                     "inside each server or rack.").format(pods=others), note=True)
    return body + _table(
        [_("Pod"), _("link class"), _("cables"), _("longest [m]"), _("mean [m]"), _("media"), _("parts")],
        [[pod_word(mixed, i), _(NVLINK_CLASS_LABELS[row["link_class"]]), number(row["cables"]),
          number(row["longest_m"], 1), number(row["mean_m"], 1), _(KIND_LABELS[row["media"]]), row["part"]]
         for i, row in rows], {2, 3, 4}, {6: "id"})


def pods_words(plan) -> str | None:
    """The design with pods of ``plan`` in words (``core.designwords.design_words``): every pod's leaf models and
    the shared spines' model, every pod's port speed [Gb/s per direction] and NIC, as the Designer's subtitle names
    them (``core.analysis.whole.pods_models``), and the whole design's bisection ratio (``ratio_words``); None without pods or when the pods cannot be planned together."""
    from core.analysis.whole import pods_models, ratio_words
    from core.designwords import design_words

    mixed = mixed_of(plan)  # None without pods or when they cannot be planned together
    if mixed is None:
        return None
    r, models = plan.resolved, pods_models(mixed)
    design = r.design.model_copy(update={"fabric": r.fabric, "planes": plan.planes})  # as plan_words
    return design_words(design, mixed.fabric.tiers, leaf=models["leaves"], spine=models["spine"], nic=models["nic"],
                        speeds=models["speed"], transport=r.nic.transport, total=ratio_words(plan))


def pods_networks(plan, networks) -> list[tuple[str, object]]:
    """``[("", networks)]`` (``Plan.networks``) without pods; with pods every pod's own storage and in-band networks
    after its word (``pod 2``), then the whole design's out-of-band network (``pods_oob``) without a word, as the
    mixed bill buys them."""
    from core.analysis.podmgmt import mixed_networks
    from core.figures.podracks import pod_word

    mixed = mixed_of(plan)  # None without pods or when they cannot be planned together
    if mixed is None:
        return [("", networks)]
    whole = mixed_networks(mixed)
    out = [(pod_word(mixed, i), n.model_copy(update={"oob": None})) for i, n in enumerate(whole) if n is not None]
    oob = pods_oob(mixed, whole)
    return out + ([("", whole[0].model_copy(update={"storage": None, "inband": None, "oob": oob}))] if oob else [])


def pods_oob(mixed, whole) -> object | None:
    """The out-of-band network of the whole design of ``mixed`` (a ``MixedPlan``) as one ``NetworkSizing``: every
    pod's switches, devices and links of ``whole`` (``core.analysis.podmgmt.mixed_networks``: re-sized for the
    shared layer, the first pod's taking its management ports and PDUs), each described after its pod's word, its
    explanation every pod's lines after a first one with the totals (the By network table's); None without one."""
    from core.figures.podracks import pod_word

    pods = [(pod_word(mixed, i), n.oob) for i, n in enumerate(whole) if n is not None and n.oob is not None]
    if not pods:
        return None

    def tagged(word: str, items) -> tuple:
        return tuple(x.model_copy(update={"description": _("{pod}: {what}").format(pod=word, what=x.description)})
                     for x in items)

    switches = sum(g.count for _w, oob in pods for g in oob.switches)
    links = sum(oob.link_count for _w, oob in pods)
    first = pods[0][1]
    head = _("The whole design's out-of-band network: every pod's switches, the first pod's also serving the shared "
             "layer's management ports and its racks' PDUs; {switches} switches and {links} links in all.").format(
        switches=number(switches), links=number(links))
    return first.model_copy(update={
        "switches": sum((tagged(w, oob.switches) for w, oob in pods), ()),
        "devices": sum((tagged(w, oob.devices) for w, oob in pods), ()),
        "links": sum((tagged(w, oob.links) for w, oob in pods), ()),
        "explanation": (head, *(_("{pod}: {what}").format(pod=w, what=line) for w, oob in pods
                                for line in oob.explanation))})


def pods_sizing(plan, unit: str) -> tuple[list[str], list[list]] | None:
    """How the design with pods of ``plan`` was sized, for the review pack's Topology section: the sizing lines
    of every pod and of the shared layer (``core.analysis.pods.pods_lines`` without the totals; bandwidths per
    direction in ``unit``) and the role table's rows (every pod's leaves, on three tiers its own spines, then the
    shared spines or cores: count, ports used down and up, free, radix, cabling); None without pods or when the
    pods cannot be planned together (the pods section says why)."""
    from core.analysis.pods import pods_lines, pods_summary
    from core.fabric.sizing import ROLE_LABELS
    from core.figures.podracks import pod_word

    mixed = mixed_of(plan)  # None without pods or when they cannot be planned together
    if mixed is None:
        return None
    lines = [_("{label}: {note}").format(label=label, note=words)
             for label, words in pods_lines(pods_summary(mixed), unit)[:-2]]
    f, rows = mixed.fabric, []
    for i, p in enumerate(mixed.plans):
        for g in p.fabric.switch_groups:
            if g.role == "leaf" or (f.tiers == 3 and g.role == "spine"):
                rows.append([_("{pod}: {role}").format(pod=pod_word(mixed, i), role=_(ROLE_LABELS[g.role])),
                             number(g.count), number(g.down_ports_used), number(g.up_ports_used),
                             number(g.ports_free), number(g.radix), g.description])
    role, count, used, radix = (("core", f.cores, f.core_ports_used, f.core_radix) if f.tiers == 3 else
                                ("spine", f.spines, f.spine_ports_used, f.spine_radix))
    rows.append([_("shared: {role}").format(role=_(ROLE_LABELS[role])), number(count), number(used), number(0),
                 number(radix - used), number(radix),
                 ngettext("shared by {pods} pod", "shared by {pods} pods", len(f.pods)).format(pods=len(f.pods))])
    return lines, rows


class PodsScenario:
    """What the failure scenario of a design with pods cuts off, for the main risks: ``gpus_disconnected``, per pod
    the larger of its GPUs cut off on the whole fabric and inside it (the two what-ifs are apart: not added), summed
    over the pods."""

    def __init__(self, gpus_disconnected: int) -> None:
        self.gpus_disconnected = gpus_disconnected


def pods_failure_html(plan, specs, unit: str, naming=None) -> tuple[str, PodsScenario | None]:
    """The failure scenario's HTML of the design with pods of ``plan`` for the Resilience page's failed elements
    ``specs`` (its link's, as ``python -m core failure`` names them) and its ``PodsScenario``: the page's whole-fabric
    what-if (``core.formats.resiliencelink.check_pod_failures`` then ``core.analysis.podwhatif.whole_picks``, the
    page's reading; ``pods_what_if`` and ``loss_rows`` a column per pod as the page turns them, bandwidths per
    direction in ``unit``), then the failures inside the pods (``core.analysis.podinside.inside_what_if``, each its
    pod's own what-if) and the specs neither takes; ("", None) when the pods cannot be planned together. Every
    element is said as the page's chips and the pods' exports name it (``core.analysis.failure.podnames``:
    ``pod2-leaf002``, ``R05-01 feedA``) under the exports' naming scheme ``naming`` (None: the default names)."""
    from core.analysis.failure.podnames import PodElementNames
    from core.analysis.podinside import inside_what_if
    from core.analysis.podwhatif import loss_rows, pods_what_if, whatif_wiring, whole_picks
    from core.formats.report import _h3, _list, _p, _table
    from core.formats.resiliencelink import check_pod_failures

    mixed = mixed_of(plan)  # None without pods or when they cannot be planned together
    if mixed is None:
        return "", None
    good, whole, problems = check_pod_failures(plan, mixed, specs)
    picked, inside = whole_picks(mixed, good, whole)
    losses, results = pods_what_if(mixed, picked, naming), inside_what_if(mixed, inside, naming)
    rows = loss_rows(losses, unit, cores=mixed.fabric.tiers == 3)
    key = next(iter(rows[0]))
    said = PodElementNames(mixed, naming).name  # as the page's chips: the pods' exports' names
    body = _p(_("Failed on the Resilience page: {elements}.").format(
        elements=", ".join(said(e) for e in picked + inside) or "-"))
    body += _h3(_("Every pod's spines under the shared cores") if mixed.fabric.tiers == 3 else
                _("Every pod under the shared spines"))
    body += _table([key] + [row[key] for row in rows], [[name] + [row[name] for row in rows]
                                                        for name in rows[0] if name != key],
                   set(range(1, len(rows) + 1)))
    cut = {loss.pod: loss.gpus_cut_off for loss in losses}
    if results:
        gpus = {p.index + 1: p for p in mixed.fabric.pods}
        body += _h3(_("Inside one pod: NICs, racks and scale-up"))
        body += _table([_("Pod"), _("GPUs cut off"), _("GPUs degraded")],
                       [[_("pod {pod}").format(pod=pod) + f" ({gpus[pod].system})",
                         _("{lost} of {gpus}").format(lost=number(r.gpus_disconnected), gpus=number(gpus[pod].gpus)),
                         number(r.gpus_degraded)] for pod, r in results], {1, 2})
        body += _p(_("Each pod's own what-if (the pod's plan alone: below its leaves nothing is shared); the table of "
                     "every pod above does not add these."), note=True)
        for pod, r in results:
            cut[pod] = max(cut.get(pod, 0), r.gpus_disconnected)
    wiring = whatif_wiring(mixed)
    left_out = [spec for spec in good if wiring.whole_of_alone(spec) is None]  # as whole_failures leaves them
    if left_out:
        problems = [*problems, _("Not failed on the whole fabric: {elements} (name an element inside a pod under "
                                 "its prefix: {example}).").format(elements=", ".join(left_out),
                                                                    example=said("pod1.node5.nic2"))]
    body += _list(problems)
    return body, PodsScenario(sum(cut.values()))

