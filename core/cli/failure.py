"""``python -m core failure``: fail switches, link bundles, NVLink switches, planes, NICs or rack power of the design
and compare with the healthy one."""

from __future__ import annotations

import argparse

from core import plurals
from core.cli.common import (
    SPLIT_HELP, add_design_options, add_format_option, design_from_args, display_width, pad, positive_int, row,
    split_job, to_json,
)
from core.cli.bwunit import add_units_option, bandwidth_unit
from core.design import tidy_spaces
from core.errors import InputError
from core.i18n import _, ngettext
from core.scaleup import other_words
from core.units import bandwidth, from_gbytes, from_tbits, seconds


def register(subparsers) -> None:
    """Add the ``failure`` sub-command."""
    from core.analysis.failure import count_tiers  # the tiers the failure-spec language declares

    parser = subparsers.add_parser(
        "failure", help=_("what if switches, links, NVLink switches, planes, NICs or rack power fail"),
        description=_("Fail elements of the design and compare with the healthy design: GPUs cut off and "
                      "degraded, remaining bisection per tier, NVLink bandwidth, all-reduce busbw, training "
                      "step time."))
    add_design_options(parser)
    g = parser.add_argument_group(_("failures"))
    g.add_argument("--fail", action="append", required=True, metavar="TIER:COUNT|TIER:NAME",
                   help=_("fail elements: a tier and a count {counts} (chosen where they hurt most) or a name as "
                          "the exports print it {names} (quoted when it holds a space; the engine's ids such as "
                          "p0.leaf3 node5.nic2 rack3 work too); repeat the option. A design with pods: shared spines or cores and the pods' "
                          "switches and bundles ({pods}) fail on the whole fabric, a pod's NIC, rack or scale-up part "
                          "({inside}) on its pod").format(pods="spine001 pod2-leaf002 core001 'pod2-spine001 -> core002' "
                                                                   "pod2.p0.leaf1",
                                                         inside="'pod2-gpu006 nic3' R05-02 'R05-02 feedA' "
                                                                "pod2.node5.nic2",
                       counts="[" + " ".join(f"{tier}:1" for tier in count_tiers()) + "]",  # every family's
                       names="[leaf004 leaf:leaf004 p2-spine002 su1-rail3 'plane 2' 'gpu006 nic3' R02-05 "
                             "'R02-05 feedA' 'leaf004 -> spine002' 'leaf004 -> spine002 #3' 'spine003 -> core006' "
                             "'spine001 -> spine021' 'gpu006 nvswitch2' nvl004-nvsw3]")
                   + "; " + _("a hot link as the load command prints it (quoted: \"leaf002 -> spine003 #1\") fails "
                             "that cable, or the server's NIC."))
    j = parser.add_argument_group(_("training job (optional: adds the step time)"))
    j.add_argument("--model", type=str.lower, help=_("model preset, e.g. llama3-70b"))
    j.add_argument("--job-gpus", type=positive_int, metavar="N", help=_("GPUs of the job (default: every GPU)"))
    for name in ("tp", "pp"):
        j.add_argument(f"--{name}", type=positive_int, help=_(SPLIT_HELP).format(name=name.upper()))
    from core.cli.export import add_naming_options

    add_naming_options(parser.add_argument_group(_("device names (as the exports name them)")))
    add_format_option(parser)
    add_units_option(parser)
    parser.set_defaults(handler=run)


def _job(args, planned):
    """The ``--model`` job on ``planned`` at the split ``train`` takes (``split_job``), None without a model."""
    if not args.model:
        return None
    from core.perf.training import model_preset, parse_job

    job = parse_job(dict(model=model_preset(args.model), gpus=args.job_gpus))
    return split_job(planned, job, tp=args.tp, pp=args.pp)


def render_table(out: dict, system=None, unit: str = "GB/s", typed: list[tuple[str, str]] | None = None,
                 name=None, family: str | None = None) -> str:
    """The human summary of ``FailureResult.to_json()`` (``out``) in the current language, bandwidths in ``unit``
    ("GB/s" or "Gb/s", ``--units``; ``core.units.bandwidth``); the scale-up rows named after ``system``'s links
    (None: NVLink's words); ``typed``: the ``--fail`` specs as typed and read (``core.formats.linknames
    .typed_failures``: echoed as typed, the element in brackets), else the elements; ``name``: an element id's exports'
    name (``core.analysis.failure.spec.export_namer``'s, a design with pods' ``_pod1_alone``), said for the elements
    a count chose; ``family``: the design's (a ``FabricPlan.family``), whose own words say the degraded GPUs where it
    declares them (a torus's rings, ``failure:degraded``)."""
    from core.analysis.failure.nvlink2 import level2_scope
    from core.analysis.failure.whatif import degraded_words
    from core.fabric.families import counted
    from core.formats.linknames import typed_failures

    def _tb(tbits: float) -> str:
        return bandwidth(from_tbits(tbits), unit)

    def _gb(gbytes: float) -> str:
        return bandwidth(from_gbytes(gbytes), unit)

    def mark(f: dict) -> str:
        return (" *" if f["chosen"] else "") + (" (=)" if f.get("redundant") else "")

    typed = typed or [(f["element"], f["element"]) for f in out["failed"]]
    lines = [_("failed: {elements}").format(elements=_(", ").join(typed_failures(
        typed, out["failed"], mark, name=name)))]
    if any(f["chosen"] for f in out["failed"]):
        lines.append(_("(* chosen where the failure hurts most)"))
    if any(f.get("redundant") for f in out["failed"]):
        lines.append(_("(= redundant: no element lost)"))
    lines.append(row(_("cut off"), _("{gpus} of {total} GPUs ({nodes})").format(
        gpus=f"{out['gpus_disconnected']:,}", total=f"{out['gpus']:,}", nodes=plurals.nodes(out["nodes_disconnected"]))))
    words = other_words(system)  # the scale-up's link and domain when it is not NVLink
    lines.append(row(_("degraded"), counted(family, "failure:degraded", out["gpus_degraded_any"]) or degraded_words(
        out["gpus_degraded"], out["gpus_via_pxn"], out["gpus_nvlink_degraded"], out["gpus_degraded_any"], system)))
    lines.append(row(_("bisection"), _("{now} of {healthy}, one direction").format(
        now=_tb(out["bisection_tbits_one_direction"]), healthy=_tb(out["healthy"]["bisection_tbits_one_direction"]))))
    from core.analysis.failure import STAGE_LABELS

    for stage, values in out["stages_tbits_one_direction"].items():
        if not values["healthy"]:  # a stage the design does not have (a classic Dragonfly's routers: no uplinks)
            continue
        lines.append(row("  " + _(STAGE_LABELS[stage]), _("{now} of {healthy} (the damaged half)").format(
            now=_tb(values["remaining"]), healthy=_tb(values["healthy"]))))
    healthy_busbw = out["healthy"]["busbw_gbytes"]
    if out["busbw_gbytes"] is not None and healthy_busbw is not None:
        lines.append(row(_("busbw"), _("all-reduce 1 GiB: {now} (healthy {healthy})").format(
            now=_gb(out["busbw_gbytes"]), healthy=_gb(healthy_busbw))))
        if out["alltoall_busbw_gbytes"] is not None and out["healthy"]["alltoall_busbw_gbytes"] is not None:
            lines.append(row("", _("all-to-all 1 GiB: {now} (healthy {healthy})").format(
                now=_gb(out["alltoall_busbw_gbytes"]), healthy=_gb(out["healthy"]["alltoall_busbw_gbytes"]))))
    else:
        lines.append(row(_("busbw"), _("no all-reduce across the connected GPUs")))
    nvl, healthy_nvl = out["nvlink_gbytes_per_gpu_one_direction"], out["healthy"]["nvlink_gbytes_per_gpu_one_direction"]
    if out["gpus_nvlink_degraded"] and nvl is not None and healthy_nvl is not None:
        lines.append(row(_("NVLink") if words is None else words[0],
                         ngettext("{gpus} GPU at {now} per GPU, one direction (healthy {healthy})",
                                  "{gpus} GPUs at {now} per GPU, one direction (healthy {healthy})",
                                  out["gpus_nvlink_degraded"])
                         .format(gpus=f"{out['gpus_nvlink_degraded']:,}", now=_gb(nvl), healthy=_gb(healthy_nvl))))
        if out["nvlink_level2_of"]:  # the figures are the second level's: say so, and the first level's beside
            lines.append(row("", level2_scope(out["nvlink_level2_of"], system.gpus_per_node if system else 1,
                                              _gb(out["healthy"]["nvlink_inside_gbytes_per_gpu_one_direction"]))))
        if out["domain_busbw_gbytes"] is not None and out["healthy"]["domain_busbw_gbytes"] is not None:
            text = (_("all-reduce 1 GiB inside one NVLink domain: {now} (healthy {healthy})") if words is None
                    else _("all-reduce 1 GiB inside one {domain}: {now} (healthy {healthy})"))
            lines.append(row("", tidy_spaces(text.format(
                domain=words[1] if words else "", now=_gb(out["domain_busbw_gbytes"]),
                healthy=_gb(out["healthy"]["domain_busbw_gbytes"])))))
    if out["step_time_s"] is not None:
        lines.append(row(_("step time"), _("{now} s (healthy {healthy} s)").format(
            now=seconds(out['step_time_s']), healthy=seconds(out['healthy']['step_time_s']))))
    for group in out["ecmp_unbalanced"]:
        from core.analysis.failure import TIER_LABELS

        links = group.get("unit") == "links"
        lines.append(row(_("ECMP"), (ngettext(
            "{switches} {tier} switch hashes over {remaining} of {healthy} uplink cables",
            "{switches} {tier} switches hash over {remaining} of {healthy} uplink cables", group["switches"])
            if links else ngettext(
            "{switches} {tier} switch hashes over {remaining} of {healthy} uplink paths",
            "{switches} {tier} switches hash over {remaining} of {healthy} uplink paths", group["switches"])).format(
            switches=f"{group['switches']:,}", tier=_(TIER_LABELS[group["tier"]]), remaining=group["remaining_paths"],
            healthy=group["healthy_paths"])))
    return "\n".join(lines) + "\n"


def _pod_spec(names, spec: str) -> str:
    """A ``--fail`` spec of a design with pods with an element named by the pods' exports as its whole-fabric id
    (``names``: ``core.analysis.failure.podnames.PodElementNames``; ``pod2-leaf002`` -> ``pod2.p0.leaf1``,
    ``leaf:pod2-leaf002`` -> ``leaf:pod2.p0.leaf1``); any other spec unchanged."""
    tier, sep, rest = spec.partition(":") if ":" in spec else ("", "", spec)
    element = names.parse(rest) if rest.strip() and not rest.strip().isdigit() else None
    return spec if element is None else f"{tier}{sep}{element}"


def _whole_fabric(design, failed: list[str], fmt: str, unit: str = "Gb/s",
                  typed: list[tuple[str, str]] | None = None, names=None, chosen=()) -> str | None:
    """A design with pods whose ``failed`` are all shared spines and pods' leaves (``spine0``, ``pod2.p0.leaf1``; pods
    on three tiers: shared cores, pods' spines and leaves and their bundles, ``core0``, ``pod2.p0.spine0-core1``)
    or failures inside one pod (``pod2.node5.nic2``: ``core.analysis.podinside``, each its pod's own what-if):
    what each pod loses on the whole fabric (``core.analysis.podwhatif``), as text (bandwidths in ``unit``) or JSON,
    each element echoed as typed with its name or id in brackets (``names``: the pods' exports' names,
    ``core.analysis.failure.podnames``; ``chosen``: the elements a tier and a count chose, marked `` *``); None
    otherwise (the what-if then analyses pod 1 alone)."""
    from core.analysis.podinside import inside_spec, inside_what_if
    from core.analysis.podwhatif import is_whole_element, loss_rows, pods_what_if
    from core.analysis.whole import design_mixed
    from core.formats.linknames import typed_failures

    mixed = design_mixed(design)
    inside = [e for e in failed if mixed is not None and inside_spec(mixed, e) is not None]
    if mixed is None:
        return None
    others = [e for e in failed if e not in inside and not is_whole_element(mixed, e)]
    if any(e.strip().lower().startswith("pod") for e in others):  # a pod's id it lacks: the whole fabric's error
        pods_what_if(mixed, [next(e for e in others if e.strip().lower().startswith("pod"))],
                     None if names is None else names.naming)
    if others:
        return None
    naming = None if names is None else names.naming  # the exports' naming (--node-prefix, --switch-prefix)
    losses = pods_what_if(mixed, [e for e in failed if e not in inside], naming)
    results = inside_what_if(mixed, inside, naming)
    if fmt == "json":
        return to_json({"failed": failed, "pods": [loss.model_dump() for loss in losses],
                        **({"inside": [{"pod": pod, "gpus_cut_off": r.gpus_disconnected,
                                        "gpus_degraded": r.gpus_degraded, "gpus_degraded_any": r.degraded_gpus,
                                        "notes": list(r.notes)}
                                       for pod, r in results]} if results else {}),
                        "units": "Gb/s per direction"}) + "\n"
    named = [{"element": e, "chosen": e in chosen} for e in failed]
    echoed = typed_failures(typed or [(e, e) for e in failed], named,  # as typed, an element's id or name in brackets
                            lambda f: " *" if f["chosen"] else "", name=None if names is None else names.name)
    lines = [_("failed: {elements}").format(elements=_(", ").join(echoed))]
    if chosen:
        lines.append(_("(* chosen where the failure hurts most)"))
    rows = loss_rows(losses, unit, cores=mixed.fabric.tiers == 3)
    width = max(display_width(name) for name in rows[0]) + 2
    for entry in rows:
        label, *rest = entry.items()
        lines.append(label[1])
        lines += ["  " + pad(name, width) + value for name, value in rest]
    for pod, result in results:  # each pod's own what-if (core.analysis.podinside)
        lines.append(_("pod {pod}, inside: {lost} GPUs cut off, {degraded} degraded").format(
            pod=pod, lost=f"{result.gpus_disconnected:,}", degraded=f"{result.degraded_gpus:,}"))
        lines += ["  " + note for note in result.notes]
    return "\n".join(lines) + "\n"


def _pods_counted(design, planned, args, typed, names, scheme) -> str | None:
    """``_whole_fabric`` of a design with pods, each tier and count among ``args.fail`` (``leaf:1``) first read as
    the elements it chooses on pod 1 (``core.analysis.podwhatif.pod1_counts``, the rule the Resilience page reads
    too), echoed as typed with its elements in brackets and said (``count_notes``); None when the what-if is pod 1's
    fabric alone (``_whole_fabric``: an element the whole fabric does not have)."""
    from core.analysis.podwhatif import count_notes, pod1_counts
    from core.analysis.whole import design_mixed

    mixed = design_mixed(design)
    counts = dict(pod1_counts(mixed, args.fail, scheme)) if names is not None else {}
    failed = [e for spec in args.fail for e in counts.get(spec.strip().lower(), [spec])]
    chosen = {e for elements in counts.values() for e in elements}
    out = _whole_fabric(design, failed, args.format, bandwidth_unit(args), typed, names, chosen)
    if out is None or not counts or args.format == "json":
        return out
    return out + "".join(note + "\n" for note in count_notes(mixed, counts.items(), scheme))


def _pod1_alone(design, names, result, naming=None):
    """A design with pods whose failure what-if is pod 1's fabric alone: ``result`` with the note that says so
    (``POD1_NOTE``, its examples the whole fabric's elements under the design's naming: ``pod_examples``) first, and
    the name of one of pod 1's elements as the pods' exports name it (``pod1-sw-leaf001``, never pod 1 alone's id
    ``p0.leaf0``: ``PodsWiring.whole_of_alone``, then ``names``); when ``names`` is None (the pods cannot be planned
    together) both by the naming rule the pods' exports follow under ``naming`` (``core.fabric.naming.pod_scheme``:
    ``spine001, pod2-leaf002``, ``pod1-leaf001``), never engine ids."""
    from core.analysis.podwhatif import POD1_NOTE, pod_examples, whatif_wiring
    from core.analysis.whole import design_mixed

    if names is None:  # its pods cannot be planned together: the names the pods' exports give them, by their rule
        from core.analysis.failure.names import ElementNames
        from core.fabric.naming import Namer, pod_scheme
        from core.plan import plan

        planned = plan(design)
        examples = [Namer.of(planned, naming).switch("spine", 0), Namer.of(planned, pod_scheme(naming, 2)).switch(
            "leaf", 1)]
        return (result.model_copy(update={"notes": (_(POD1_NOTE).format(examples=", ".join(examples)),
                                                    *result.notes)}),
                ElementNames(planned, pod_scheme(naming, 1)).name)
    mixed = design_mixed(design)
    wiring = whatif_wiring(mixed)
    note = _(POD1_NOTE).format(examples=", ".join(pod_examples(mixed, names)))
    return (result.model_copy(update={"notes": (note, *result.notes)}),
            lambda element: names.name(wiring.whole_of_alone(element) or element))


def run(args: argparse.Namespace) -> str:
    from core.analysis.failure import what_if
    from core.cli.export import naming_from_args
    from core.plan import plan

    design = design_from_args(args)
    naming_from_args(args)  # a bad prefix is said before the work
    planned = plan(design)
    scheme = naming_from_args(args, planned)  # the exports' names under the design's naming (sw-leaf001, n001)
    from core.formats.linknames import canonical_failures

    args.fail, renamed = canonical_failures(planned, args.fail, scheme)  # leaf001 -> router001, said once
    typed = [(spec, spec) for spec in args.fail]  # echoed as typed (a hot link: its element in brackets)
    if any("->" in spec for spec in args.fail):  # a hot link as the load analysis names it: its element
        from core.formats.linknames import failure_specs

        args.fail = failure_specs(planned, args.fail, scheme)
        typed = [(text, spec) for (text, _same), spec in zip(typed, args.fail)]
    names = None
    if design.pods:  # the pods' exports' names (pod2-leaf002, spine001, R05-01 feedA) as their whole-fabric ids
        from core.analysis.failure.podnames import pod_element_names

        names = pod_element_names(planned, scheme)
        if names is not None:
            args.fail = [_pod_spec(names, spec) for spec in args.fail]
            typed = [(text, spec) for (text, _same), spec in zip(typed, args.fail)]
    try:
        whole = _pods_counted(design, planned, args, typed, names, scheme) if design.pods else None
    except InputError as exc:  # echoed as typed (pod2-leaf099, not pod2.p0.leaf98)
        from core.analysis.failure.spec import as_typed

        raise as_typed(exc, [text for text, _spec in typed], args.fail) from None
    if whole is not None:
        return whole
    result = what_if(planned, args.fail, job=_job(args, planned), naming=scheme)
    if design.pods:  # not every failed element is a shared spine or a pod's leaf: pod 1's fabric alone, said
        result, name = _pod1_alone(design, names, result, scheme)
    else:
        from core.analysis.failure.spec import export_namer

        name = export_namer(planned, scheme).name
    data = result.to_json()
    if args.format == "json":
        return to_json(data) + "\n"
    text = render_table(data, planned.resolved.system, bandwidth_unit(args), typed, name, planned.fabric.family)
    return text + "".join(note + "\n" for note in (*result.notes, *([renamed] if renamed else [])))
