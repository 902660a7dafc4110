"""The failure what-if: ``what_if(plan, failures)`` and its ``FailureResult`` (``core.analysis.failure``).

The failed state (``connectivity.analyse``) feeds a degraded copy of the plan (``degraded_plan``), whose
collectives (``BUSBW_BYTES``) and training step are compared with the healthy plan's.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from core.analysis.failure.connectivity import Analysis, analyse
from core.analysis.failure.nvlink2 import level2_loss, level2_notes, step_note
from core.analysis.failure.shape import Shape
from core.analysis.failure.spec import _element, resolve_failures
from core.errors import DesignError, InputError
from core.fabric.families import failure_names, family
from core.i18n import N_, _, ngettext
from core.plan import Plan
from core.scaleup import other_words
from core.units import percent

BUSBW_BYTES = 1 << 30
"""Message size of the all-reduce busbw figure (1 GiB, large enough to be bandwidth-bound)."""


class FailureResult(BaseModel):
    """The failed design against the healthy one. Bandwidths one direction; Tb/s = 1e12 bit/s, GB/s = 1e9 byte/s."""

    model_config = ConfigDict(frozen=True)

    failed: tuple[dict, ...]
    """``{"element", "tier", "chosen", "redundant"}``: ``chosen`` when picked by a ``tier:count`` spec;
    ``redundant`` when its loss lost nothing (a rack feed whose other feed lives)."""
    gpus: int
    nodes: int
    gpus_disconnected: int
    nodes_disconnected: int
    gpus_degraded: int
    """GPUs of connected nodes whose NIC lost at least one port."""
    gpus_degraded_any: int | None = None
    """GPUs of connected nodes with less bandwidth of any kind, each once: a NIC port lost (``gpus_degraded``) or
    less NVLink at either level (``gpus_nvlink_degraded``); None where a what-if counts no NVLink loss (then it is
    ``gpus_degraded``): read ``degraded_gpus``."""
    gpus_via_pxn: int
    """Of those, GPUs whose NIC lost every port: their traffic crosses NVLink to another rail's NIC (PXN)."""
    bisection_tbits_one_direction: float
    healthy_bisection_tbits_one_direction: float
    stages_tbits: dict
    """Per stage: ``{"healthy", "remaining"}`` bisection-side capacity [Tb/s, one direction] (the damaged half)."""
    busbw_gbytes: float | None
    healthy_busbw_gbytes: float | None
    busbw_method: str
    alltoall_busbw_gbytes: float | None = None
    healthy_alltoall_busbw_gbytes: float | None = None
    """All-to-all of ``BUSBW_BYTES`` on the same GPUs and degraded copy [GB/s]."""
    step_time_s: float | None = None
    healthy_step_time_s: float | None = None
    days_to_train: float | None = None
    """Days to train the job's ``tokens_to_train`` at ``step_time_s`` (``TrainingEstimate.days_to_train``) [days]."""
    healthy_days_to_train: float | None = None
    ecmp_unbalanced: tuple[dict, ...] = ()
    """``{"tier", "switches", "healthy_paths", "remaining_paths", "unit"}`` per tier and remaining next-hop
    count; ``unit`` ``switches`` (next-hop switches) or ``links`` (cables of the uplink bundles)."""
    gpus_nvlink_degraded: int = 0
    """GPUs of connected NVLink domains that lost NVLink switch chips (lower NVLink bandwidth)."""
    nvlink_gbytes_per_gpu_one_direction: float | None = None
    healthy_nvlink_gbytes_per_gpu_one_direction: float | None = None
    """NVLink line rate per GPU [GB/s, one direction]: the worst connected domain's, and healthy."""
    nvlink_level2_of: int = 0
    """With a level-2 NVLink loss, the GPUs of one first-level domain (a rack's 36, a node's 8): the NVLink figures
    are then a GPU's bandwidth to the other first-level domains of its domain, over the second level
    (``nvlink2.level2_scope``); 0: within its first-level domain."""
    nvlink_inside_gbytes_per_gpu_one_direction: float | None = None
    """With ``nvlink_level2_of``, a GPU's healthy NVLink inside its first-level domain [GB/s, one direction]."""
    domain_busbw_gbytes: float | None = None
    healthy_domain_busbw_gbytes: float | None = None
    """All-reduce of ``BUSBW_BYTES`` inside one NVLink domain (a tensor-parallel group) [GB/s]: the worst
    connected domain, and healthy (None without a multi-GPU NVLink domain)."""
    notes: tuple[str, ...] = ()

    @property
    def degraded_gpus(self) -> int:
        """The "GPUs degraded" the card, the CLI and the pack say: ``gpus_degraded_any``, else ``gpus_degraded``."""
        return self.gpus_degraded if self.gpus_degraded_any is None else self.gpus_degraded_any

    def to_json(self) -> dict:
        """Machine-readable keys (English), as ``python -m core failure --format json`` prints them."""
        return {
            "failed": list(self.failed),
            "gpus": self.gpus,
            "nodes": self.nodes,
            "gpus_disconnected": self.gpus_disconnected,
            "nodes_disconnected": self.nodes_disconnected,
            "gpus_degraded": self.gpus_degraded,
            "gpus_degraded_any": self.degraded_gpus,
            "gpus_via_pxn": self.gpus_via_pxn,
            "bisection_tbits_one_direction": round(self.bisection_tbits_one_direction, 6),
            "stages_tbits_one_direction": {k: {kk: round(vv, 6) for kk, vv in v.items()}
                                           for k, v in self.stages_tbits.items()},
            "busbw_gbytes": None if self.busbw_gbytes is None else round(self.busbw_gbytes, 3),
            "busbw_bytes": BUSBW_BYTES,
            "busbw_method": self.busbw_method,
            "alltoall_busbw_gbytes": None if self.alltoall_busbw_gbytes is None else round(self.alltoall_busbw_gbytes, 3),
            "step_time_s": None if self.step_time_s is None else round(self.step_time_s, 6),
            "days_to_train": _r(self.days_to_train, 4),
            "ecmp_unbalanced": list(self.ecmp_unbalanced),
            "gpus_nvlink_degraded": self.gpus_nvlink_degraded,
            "nvlink_gbytes_per_gpu_one_direction": _r(self.nvlink_gbytes_per_gpu_one_direction, 3),
            "domain_busbw_gbytes": _r(self.domain_busbw_gbytes, 3),
            "nvlink_level2_of": self.nvlink_level2_of,
            "healthy": {
                "bisection_tbits_one_direction": round(self.healthy_bisection_tbits_one_direction, 6),
                "busbw_gbytes": None if self.healthy_busbw_gbytes is None else round(self.healthy_busbw_gbytes, 3),
                "alltoall_busbw_gbytes": None if self.healthy_alltoall_busbw_gbytes is None
                else round(self.healthy_alltoall_busbw_gbytes, 3),
                "step_time_s": None if self.healthy_step_time_s is None else round(self.healthy_step_time_s, 6),
                "days_to_train": _r(self.healthy_days_to_train, 4),
                "nvlink_gbytes_per_gpu_one_direction": _r(self.healthy_nvlink_gbytes_per_gpu_one_direction, 3),
                "nvlink_inside_gbytes_per_gpu_one_direction": _r(self.nvlink_inside_gbytes_per_gpu_one_direction, 3),
                "domain_busbw_gbytes": _r(self.healthy_domain_busbw_gbytes, 3),
            },
            "notes": list(self.notes),
        }


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def degraded_plan(plan: Plan, worst_port_fraction: float, leaf_up_fraction: float, spine_up_fraction: float,
                  nvlink_fraction: float = 1.0, level2_gbytes: float | None = None) -> Plan:
    """A copy of ``plan`` with the failed state's slowest NIC share, worst switch oversubscription and NVLink.

    The NIC rate per port is scaled by ``worst_port_fraction`` (the slowest connected node's surviving
    ports: a collective runs at its slowest rank's pace, and PXN puts a lost rail's share on another NIC);
    leaf and spine oversubscription are divided by the worst live switch's surviving uplink share; the
    NVLink bandwidth per GPU is scaled by ``nvlink_fraction`` (the worst connected NVLink domain's surviving
    links; at 0 the domain has no NVLink left and GPUs talk over PCIe and the NICs). ``level2_gbytes`` (None: as
    built) is the bandwidth per GPU the worst two-level domain's surviving level-2 NVLink switches leave toward its
    other racks (``nvlink2.Level2Loss.worst_gbytes``): the collectives whose ranks span racks of the domain
    (``core.perf.placement.spans_level2``) run at it; at 0 the domain splits into its first-level domains.
    ``plan`` itself is not changed.
    """
    r = plan.resolved
    update = {"port_speed_gbps": r.port_speed_gbps * worst_port_fraction}
    if level2_gbytes is not None and level2_gbytes > 0:
        update["nvlink_level2_gbytes_per_gpu"] = level2_gbytes
    elif level2_gbytes is not None:  # no level-2 switch left: NVLink domains of one rack
        update.update(nvlink_domain_gpus=r.nvlink_level1_gpus, nvlink_rack_gpus=0, nvlink_domain_sizes=())
    if nvlink_fraction < 1:
        update["nvlink_gbytes_per_gpu_bidir"] = r.nvlink_gbytes_per_gpu_bidir * nvlink_fraction
        if nvlink_fraction <= 0:
            update["nvlink_domain_gpus"] = 1
    resolved = r.model_copy(update=update)
    bw = plan.bandwidth
    bandwidth = bw.model_copy(update={
        "leaf_oversubscription": bw.leaf_oversubscription / max(leaf_up_fraction, 1e-9),
        "spine_oversubscription": bw.spine_oversubscription / max(spine_up_fraction, 1e-9)})
    return plan.model_copy(update={"resolved": resolved, "bandwidth": bandwidth})


def _busbw(plan: Plan, gpus: int, op: str = "all-reduce") -> float | None:
    from core.perf.collectives import collective

    if gpus < 2:
        return None
    return float(collective(plan, op, BUSBW_BYTES, gpus=gpus)["busbw_gbytes"])


def _step(plan: Plan, job, gpus_available: int):
    """(the job's ``TrainingEstimate`` on ``plan`` or None, why not or None)."""
    from core.perf.training import estimate

    gpus = job.gpus or plan.resolved.gpus
    if gpus > gpus_available:
        return None, _("the job's {gpus} GPUs no longer fit: {left} GPUs are still connected").format(
            gpus=f"{gpus:,}", left=f"{gpus_available:,}")
    try:
        return estimate(plan, job), None
    except DesignError as exc:
        return None, str(exc)


def _steps(plan: Plan, degraded: Plan, job, gpus: int, connected: int, notes: list[str]):
    """(healthy, failed) ``TrainingEstimate`` of ``job`` (None, None without a job): on ``plan`` with its ``gpus`` and
    on the ``degraded`` copy with the ``connected`` GPUs; why the failed one is missing is added to ``notes``."""
    healthy_run, failed_run, _split = _best_steps(plan, [degraded], job, gpus, connected, notes)
    return healthy_run, failed_run


def _best_steps(plan: Plan, copies: list[Plan], job, gpus: int, connected: int, notes: list[str],
                clamp: bool = False):
    """(healthy, failed ``TrainingEstimate`` of ``job``, whether the failed one is the split copy's though level-2
    bandwidth is left) ((None, None, False) without a job): on ``plan`` with its ``gpus`` and on the fastest of the
    degraded ``copies`` (``_copies``) with the ``connected`` GPUs; why the failed one is missing is added to ``notes``.
    ``clamp`` (a level-2 NVLink loss): a failed step faster than the healthy one is the healthy one (a failure never
    speeds the job up; the split copy's hierarchical collectives are not in the healthy model)."""
    if job is None:
        return None, None, False
    healthy_run, _why = _step(plan, job, gpus)
    runs, why = [], None
    for copy in copies:
        run, why = _step(copy, job, connected)
        runs.append(run)
    timed = [run for run in runs if run is not None]
    if not timed:
        if why:
            notes.append(why)
        return healthy_run, None, False
    failed_run = min(timed, key=lambda run: run.step_time_s)
    if clamp and healthy_run is not None and failed_run.step_time_s < healthy_run.step_time_s:
        return healthy_run, healthy_run, False
    return healthy_run, failed_run, len(copies) > 1 and failed_run is runs[-1] and failed_run is not runs[0]


def _copies(plan: Plan, a: Analysis, loss) -> list[Plan]:
    """The degraded copies of ``plan`` (``degraded_plan``) whose best figure a failed figure is: one without a level-2
    NVLink loss; with one, the copy at the level-2 bandwidth left and the split copy (every level-2 unit lost: the
    racks reach each other over the scale-out network, which NCCL would use when it is faster than the little left),
    only the split copy when nothing is left. So a figure never gets better as more level-2 units fail."""
    args = (plan, a.worst_port_fraction, a.worst_leaf_up_fraction, a.worst_spine_up_fraction, a.nvlink_fraction)
    if loss is None:
        return [degraded_plan(*args)]
    split = degraded_plan(*args, 0.0)
    return [degraded_plan(*args, loss.worst_gbytes), split] if loss.worst_gbytes > 0 else [split]


def _best_busbw(copies: list[Plan], gpus: int, healthy: float | None, op: str = "all-reduce",
                clamp: bool = False) -> float | None:
    """The highest busbw of ``op`` on ``gpus`` GPUs over the degraded ``copies`` (``_copies``) [GB/s]; ``clamp`` (a
    level-2 NVLink loss): at most the ``healthy`` figure (a failure never beats the healthy design)."""
    values = [value for value in (_busbw(copy, gpus, op) for copy in copies) if value is not None]
    if not values:
        return None
    best = max(values)
    return min(best, healthy) if clamp and healthy is not None else best


def _nothing_failed(example: str) -> InputError:
    """The ``InputError`` of a what-if without failures (``example``: a leaf's name)."""
    return InputError(_("name at least one element to fail, like spine:1 or {example}").format(example=example))


def degraded_words(nic: int, pxn: int, nvlink: int, total: int, system=None) -> str:
    """The "GPUs degraded" of a what-if in words (``FailureResult.degraded_gpus``: ``total``), the one text the CLI's
    row and the Resilience page's card say: ``nic`` GPUs lost a NIC port (``pxn`` of them every port: PXN, or another
    library's peer over ``system``'s scale-up links), and ``nvlink`` have less NVLink (either level), a GPU in both
    counted once."""
    words = other_words(system)  # the scale-up's link and domain when it is not NVLink
    text = (ngettext("{gpus} GPU lost a NIC port ({pxn} over PXN via NVLink)",
                     "{gpus} GPUs lost a NIC port ({pxn} over PXN via NVLink)", nic) if words is None
            else ngettext("{gpus} GPU lost a NIC port ({pxn} through a peer over {link})",
                          "{gpus} GPUs lost a NIC port ({pxn} through a peer over {link})", nic)).format(
        link=words[0] if words else "", gpus=f"{nic:,}", pxn=f"{pxn:,}")
    if not nvlink:
        return text
    less = ngettext("{gpus} GPU has less {link} bandwidth", "{gpus} GPUs have less {link} bandwidth", nvlink).format(
        gpus=f"{nvlink:,}", link=words[0] if words else "NVLink")
    return _("{total} in all, a GPU in both counted once: {nic}; {nvlink}").format(
        total=f"{total:,}", nic=text, nvlink=less)


def _pxn_note(gpus: int, system=None) -> str:
    """The note on ``gpus`` GPUs whose NIC lost every port (NCCL's PXN; another library's peer over ``system``'s
    scale-up links)."""
    words = other_words(system)
    if words is not None:
        return ngettext("{gpus} GPU lost every port of its NIC: the collective library sends its traffic over "
                        "{link} to a peer's NIC on another rail, which then carries two GPUs' share.",
                        "{gpus} GPUs lost every port of their NIC: the collective library sends their traffic over "
                        "{link} to a peer's NIC on another rail, which then carries two GPUs' share.", gpus).format(
            gpus=f"{gpus:,}", link=words[0])
    return ngettext("{gpus} GPU lost every port of its NIC: NCCL's PXN sends its traffic over NVLink to a NIC on "
                    "another rail, which then carries two GPUs' share.",
                    "{gpus} GPUs lost every port of their NIC: NCCL's PXN sends their traffic over NVLink to a "
                    "NIC on another rail, which then carries two GPUs' share.", gpus).format(gpus=f"{gpus:,}")


def _healthy_nvlink(plan: Plan) -> tuple[float | None, float | None]:
    """(NVLink per GPU [GB/s, one direction], all-reduce busbw of ``BUSBW_BYTES`` in one NVLink domain [GB/s]) of
    the healthy ``plan``; None without a multi-GPU NVLink domain."""
    domain = plan.resolved.nvlink_domain_gpus
    if domain <= 1:
        return None, None
    return plan.resolved.nvlink_gbytes_per_gpu_bidir / 2, _busbw(plan, domain)


STAND_IN_NOTE = N_("On a cloud instance's adapters ({transport}) the switches and links here are the stand-in Clos "
                   "the collective model counts hops on, not the provider's network, which is not bought and whose "
                   "redundancy is not published: a failure here shows what it would do to that stand-in.")


def stand_in_note(plan: Plan) -> str:
    """``STAND_IN_NOTE`` in the request's language on a cloud instance's adapters (``Nic.transport``), else ""."""
    transport = plan.resolved.nic.transport
    if not transport:
        return ""
    from core import vocab

    return _(STAND_IN_NOTE).format(transport=vocab.TRANSPORT.label(transport))


def method_of(plan: Plan) -> str:
    """How ``what_if`` measures ``plan``: ``"tiers"`` (closed form over the folded Clos's symmetry), ``"groups"``
    (closed form over a family's groups, the module its ``FAILURE_CLOSED_FORM`` names: a Dragonfly+'s
    ``core.analysis.failure.dragonflywhatif``, a classic Dragonfly's ``classicwhatif``) or ``"graph"`` (on the
    family's graph: ``graphwhatif``, ``toruswhatif``)."""
    if failure_names(plan.fabric.family) == "tiers":
        return "tiers"
    return "groups" if getattr(family(plan.fabric.family), "FAILURE_CLOSED_FORM", None) else "graph"


def what_if(plan: Plan, failures, job=None, naming=None) -> FailureResult:
    """Fail ``failures`` (specs: ``tier:count``, ``tier:name`` or a name; module docstring) on ``plan``.

    ``job`` (a ``core.perf.training.TrainingJob``) adds the training step time, healthy and failed.
    Raises ``InputError`` for an unknown element or tier, or more failures than the tier has. An element may be
    named by its id or as the exports name it under the naming scheme ``naming`` (None: the default names;
    ``core.analysis.failure.spec.engine_specs``), and the notes and errors name elements so.
    """
    from core.analysis.failure.spec import UnknownElement, as_typed, engine_specs, said, unknown_element

    failures = list(failures)
    specs = engine_specs(plan, failures, naming)
    try:
        return _what_if(plan, specs, job, naming)
    except UnknownElement as exc:
        raise unknown_element(plan, exc.text, naming) from None
    except InputError as exc:
        raise as_typed(said(plan, exc, naming), failures, specs) from None


def _what_if(plan: Plan, failures: list, job=None, naming=None) -> FailureResult:
    """``what_if`` of specs by id; ``UnknownElement`` for a name that is no element."""
    if failure_names(plan.fabric.family) == "node-to-node":  # node to node: its own graph what-if
        from core.analysis.failure.toruswhatif import what_if_torus

        return what_if_torus(plan, failures, job)
    if method_of(plan) == "groups":  # the family's own closed form, in the module it names
        import importlib

        return importlib.import_module(family(plan.fabric.family).FAILURE_CLOSED_FORM).what_if_closed(
            plan, failures, job)
    if method_of(plan) == "graph":  # the closed forms are the Clos's: another family is measured on its graph
        from core.analysis.failure.graphwhatif import what_if_graph

        return what_if_graph(plan, failures, job)
    if not failures:
        raise _nothing_failed(Shape.of(plan).prefix(0, 0) + "leaf0")
    shape = Shape.of(plan)
    elements = resolve_failures(plan, failures, naming)
    a = analyse(plan, elements)
    gpus = plan.resolved.gpus
    connected_gpus = gpus - a.nodes_disconnected * shape.gpus_per_node
    notes = [note for note in (stand_in_note(plan),) if note]
    if a.gpus_via_pxn:
        notes.append(_pxn_note(a.gpus_via_pxn, plan.resolved.system))
    from core.analysis.failure.spec import export_namer

    names = export_namer(plan, naming)  # a note names an element as the exports do (R02-05 feedA)
    notes.extend(_scaleup_notes(a, shape, (lambda e: e) if names is None else names.name))
    notes.extend(level2_notes(plan, elements, None if names is None else names.scheme))  # the second NVLink level
    loss = level2_loss(plan, elements)
    copies = _copies(plan, a, loss)  # with a level-2 loss: the leftover's and the split's, each figure the better
    clamp = loss is not None
    domain = plan.resolved.nvlink_domain_gpus
    healthy_nvl, healthy_domain = _healthy_nvlink(plan)
    nvl = healthy_nvl * a.nvlink_fraction if a.nvlink_fraction < 1 else healthy_nvl
    # the domain's all-reduce crosses its racks: the degraded copy's second level bounds it too (the NVLink domain's
    # own figure: the level-2 copy only, not the split's scale-out path). A domain split into its racks (every level-2
    # unit lost) is no NVLink domain of that size any more: no figure ("-"), as its note says
    split = loss is not None and loss.worst_gbytes <= 0
    domain_busbw = (healthy_domain if a.nvlink_fraction >= 1 and loss is None
                    else None if split else _busbw(copies[0], domain))
    inside = healthy_nvl if loss is not None else None  # the first level's, before the row reads the second's
    nvl, healthy_nvl, gpus_nvl = _with_level2(loss, nvl, healthy_nvl, a.gpus_nvlink_degraded)
    healthy_busbw = _busbw(plan, gpus)
    busbw = _best_busbw(copies, connected_gpus, healthy_busbw, clamp=clamp) if a.worst_port_fraction > 0 else None
    healthy_a2a = _busbw(plan, gpus, "all-to-all")
    a2a = (_best_busbw(copies, connected_gpus, healthy_a2a, "all-to-all", clamp)
           if a.worst_port_fraction > 0 else None)
    method = ("core.perf all-reduce (and all-to-all) of 1 GiB on the connected GPUs; NIC rate scaled to the slowest connected "
              f"node's surviving ports ({a.worst_port_fraction:.3f}); leaf/spine oversubscription divided by the "
              f"worst live switch's surviving uplinks ({a.worst_leaf_up_fraction:.3f} / "
              f"{a.worst_spine_up_fraction:.3f})")
    if loss is not None:
        method += ("; level-2 NVLink loss: the better of the level-2 bandwidth left and the split domain's scale-out "
                   "path, at most the healthy figure")
    healthy_run, failed_run, over_network = _best_steps(plan, copies, job, gpus, connected_gpus, notes, clamp)
    if loss is not None and failed_run is not None:  # which of its collectives cross the second NVLink level
        notes.append(step_note(plan, failed_run, loss, over_network))
    redundant = set(a.redundant)
    return FailureResult(
        failed=tuple({"element": _element(t, k, shape), "tier": t, "chosen": c, "redundant": (t, k) in redundant}
                     for t, k, c in elements),
        gpus=gpus, nodes=shape.nodes,
        gpus_disconnected=a.nodes_disconnected * shape.gpus_per_node, nodes_disconnected=a.nodes_disconnected,
        gpus_degraded=a.gpus_degraded, gpus_degraded_any=_degraded_any(a, loss, gpus_nvl), gpus_via_pxn=a.gpus_via_pxn,
        bisection_tbits_one_direction=a.bisection_gbits / 1000,
        healthy_bisection_tbits_one_direction=a.healthy_bisection_gbits / 1000,
        stages_tbits={k: {"healthy": v[0] / 1000, "remaining": v[1] / 1000} for k, v in a.stages_gbits.items()},
        busbw_gbytes=busbw, healthy_busbw_gbytes=healthy_busbw, busbw_method=method,
        alltoall_busbw_gbytes=a2a, healthy_alltoall_busbw_gbytes=healthy_a2a,
        step_time_s=failed_run and failed_run.step_time_s, healthy_step_time_s=healthy_run and healthy_run.step_time_s,
        days_to_train=failed_run and failed_run.days_to_train,
        healthy_days_to_train=healthy_run and healthy_run.days_to_train, ecmp_unbalanced=tuple(a.ecmp),
        gpus_nvlink_degraded=gpus_nvl, nvlink_gbytes_per_gpu_one_direction=nvl,
        healthy_nvlink_gbytes_per_gpu_one_direction=healthy_nvl, domain_busbw_gbytes=domain_busbw,
        nvlink_level2_of=plan.resolved.nvlink_level1_gpus if inside else 0,
        nvlink_inside_gbytes_per_gpu_one_direction=inside,
        healthy_domain_busbw_gbytes=healthy_domain, notes=tuple(notes),
    )


def _degraded_any(a: Analysis, loss, gpus_nvl: int) -> int:
    """GPUs with a NIC port lost or less NVLink (``gpus_nvl``: either level, each GPU once), each once: the NIC's
    GPUs inside the racks whose NVLink fell (``Analysis.nic_degraded_by_domain`` of the racks that lost switch chips
    and of the two-level domains that lost level-2 units) are not counted again. A direct mesh's GPUs are not matched
    to their NICs: one that lost a mesh link and a NIC port counts twice (switch domains are matched)."""
    racks = a.nvlink_domains_degraded | (loss.racks if loss is not None else frozenset())
    both = sum(a.nic_degraded_by_domain.get(rack, 0) for rack in racks)
    return a.gpus_degraded + gpus_nvl - both


def _with_level2(loss, nvl, healthy_nvl, gpus_degraded):
    """(NVLink per GPU of the worst domain, its healthy value [GB/s, one direction], GPUs with less NVLink) with the
    second NVLink level's losses (``nvlink2.level2_loss``, the rule its notes use) added to the first level's: with a
    level-2 loss the worst domain's figure is its bandwidth per GPU to its other racks (healthy: the level-2
    bandwidth, ``min(first level, uplinks x link rate)``; failed: the lower of the level-2 bandwidth left and the
    first level's, a GPU's traffic to other racks leaving over its own links); the GPUs of the
    domains that lost level-2 units are added, a GPU hit at both levels once."""
    if loss is None or healthy_nvl is None:
        return nvl, healthy_nvl, gpus_degraded
    return min(nvl, loss.worst_gbytes), loss.healthy_gbytes, gpus_degraded + loss.gpus - loss.both_gpus


def _scaleup_notes(a: Analysis, shape: Shape, name=lambda element: element) -> list[str]:
    """What the NVLink-switch and power-feed failures did, in words (module docstring for the rules); ``name``: an
    element id's name as the exports print it (``core.analysis.failure.names.ElementNames.name``)."""
    notes = []
    if a.nodes_without_nvswitch:
        notes.append(ngettext(
            "{nodes} node lost an NVSwitch chip: with Fabric Manager's default NVSWITCH_FAILURE_MODE=0 its "
            "baseboard stays uninitialised and CUDA cannot start, so its GPUs count as cut off (only HGX A100 "
            "has a degraded mode, at 5/6 of the NVLink bandwidth).",
            "{nodes} nodes lost an NVSwitch chip: with Fabric Manager's default NVSWITCH_FAILURE_MODE=0 their "
            "baseboards stay uninitialised and CUDA cannot start, so their GPUs count as cut off (only HGX A100 "
            "has a degraded mode, at 5/6 of the NVLink bandwidth).", a.nodes_without_nvswitch).format(
            nodes=f"{a.nodes_without_nvswitch:,}"))
    if a.gpus_mesh_degraded:
        notes.append(_("{gpus} GPUs lost direct {name} mesh links: the worst keeps {share} of its scale-up bandwidth "
                       "per GPU, and a ring or all-to-all over its mesh runs at its pace (the library routes around "
                       "the lost pair through other peers).").format(
            gpus=f"{a.gpus_mesh_degraded:,}", name=shape.scaleup_name, share=percent(a.nvlink_fraction)))
    if a.gpus_nvlink_degraded > a.gpus_mesh_degraded and shape.scaleup_name != "NVLink":
        notes.append(_("{gpus} GPUs are in {name} domains that lost switch chips: the worst domain keeps {share} of "
                       "its scale-up bandwidth per GPU.").format(
            gpus=f"{a.gpus_nvlink_degraded - a.gpus_mesh_degraded:,}", name=shape.scaleup_name,
            share=percent(a.nvlink_fraction)))
    elif a.gpus_nvlink_degraded > a.gpus_mesh_degraded:
        notes.append(_("{gpus} GPUs are in NVLink domains that lost switch chips: every GPU has one link to each "
                       "chip, so the worst domain keeps {share} of its NVLink bandwidth per GPU. Assumed: the NVLink "
                       "partition runs in NMX's Adaptive Bandwidth resiliency mode (in Full Bandwidth mode a lost "
                       "switch makes the partition unhealthy) and NCCL keeps NVLS on the remaining chips.").format(
            gpus=f"{a.gpus_nvlink_degraded - a.gpus_mesh_degraded:,}", share=percent(a.nvlink_fraction)))
    for _tier, key in a.redundant:
        notes.append(_("{element}: redundant, no element lost (the rack's other power feed carries its N+N "
                       "supplies).").format(element=name(_element("feed", key, shape))))
    return notes
