"""Side-by-side comparison of up to four designs: their numbers, deltas against a baseline, BOM differences.

Pure data, no Streamlit: the Compare page (``pages/4_Compare.py``) and tests call it. Every number of
a column is the single-design number (``Plan.summary()``, ``core.perf.collectives.sweep``,
``core.perf.training.estimate`` via ``core.perf.jobform``), so a delta is exactly the difference of
two single-design numbers.

Whether higher or lower is better is data here (``Metric.better``), never decided by the page.
Units are in the metric keys and kinds: ``*_usd`` US dollars, ``*_kw`` kilowatts, ``bisection_tbits``
terabits per second one direction, ``scaleout_gbits_per_gpu`` (injection per GPU) Gb/s one direction,
``busbw_gbytes`` all-reduce bus bandwidth in GB/s (nccl-tests' definition); ``oversubscription`` is the
bisection ratio (``core.fabric.bandwidth.bisection_ratio``, 1.0 = non-blocking). Bandwidth labels carry no
unit: the display (``core.figures.compare.format_value``) writes each value with the user's unit.
No row is "bisection per GPU" (bisection / all GPUs): it is half the injection on a non-blocking fabric and
reads as 2:1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Collection, Iterable, Mapping, Sequence

from core import vocab
from core.cost import CATEGORY_LABELS, holds_level2
from core.design import Design
from core.errors import FabricPlannerError, joined
from core.fabric.families import (HOPS_PREFIX, LEVEL2_SWITCHES_LABEL, PLAN_HOPS, SWITCH_LABELS, hops_key,
                                   switch_label)
from core.i18n import N_, _, in_currency
from core.perf import congestion, jobform
from core.perf.collectives import sweep
from core.perf.sizes import format_size
from core.plan import Plan, plan as make_plan

MAX_DESIGNS = 4
"""At most this many designs side by side."""
DEFAULT_SIZES = (2**20, 2**30)
"""All-reduce message sizes [bytes] compared by default: 1 MiB and 1 GiB."""
MAX_SIZES = 4
"""At most this many all-reduce sizes."""

HIGHER, LOWER = "higher", "lower"


@dataclass(frozen=True)
class Metric:
    """One row of the comparison.

    key     stable id (also the column of ``values``); its unit is in the name.
    label   English, marked ``N_``; show ``_(label)``.
    better  ``"higher"``, ``"lower"`` or None (neither: a size, not a merit).
    kind    how to show it: ``count``, ``usd``, ``ratio``, ``share``, ``kw``, ``tbits``, ``gbytes``,
            ``seconds``, ``days``.
    """

    key: str
    label: str
    better: str | None
    kind: str
    group: str


GROUPS = {"design": N_("Design"), "cost": N_("Cost and power"), "collectives": N_("Collectives"),
          "training": N_("Training job"), "serving": N_("Inference deployment")}
"""Row groups (English, marked)."""

_KEY_METRICS = (
    Metric("gpus", N_("GPUs"), None, "count", "design"),
    *(Metric(f"switches_{tier}", SWITCH_LABELS[tier], LOWER, "count", "design") for tier in ("leaf", "spine", "core")),
    Metric("switches_nvlink_level2", LEVEL2_SWITCHES_LABEL, LOWER, "count", "design"),
    Metric("switches_total", N_("Switches in total"), LOWER, "count", "design"),
    Metric("tiers", N_("Tiers"), LOWER, "count", "design"),
    Metric("links", N_("Links"), LOWER, "count", "design"),
    Metric("transceivers", N_("Transceivers"), LOWER, "count", "design"),
    Metric("bisection_tbits", N_("Bisection, one direction"), HIGHER, "tbits", "design"),
    Metric("scaleout_gbits_per_gpu", vocab.INJECTION_WORDS["metric"], HIGHER, "gbits", "design"),
    Metric("oversubscription", N_("Bisection ratio (1:1 = non-blocking)"), LOWER, "ratio", "design"),
    Metric("hops_max", N_("Most switch hops"), LOWER, "count", "design"),
    Metric("hops_node_max", N_("Most node-to-node hops (no switches)"), LOWER, "count", "design"),
    Metric("capex_usd", N_("Capex, whole cluster [USD]"), LOWER, "usd", "cost"),
    Metric("capex_usd_low", N_("Capex, low end [USD]"), LOWER, "usd", "cost"),
    Metric("capex_usd_high", N_("Capex, high end [USD]"), LOWER, "usd", "cost"),
    Metric("capex_per_gpu_usd", vocab.CAPEX_PER_GPU_USD, LOWER, "usd", "cost"),
    Metric("network_capex_usd", vocab.COMPUTE_FABRIC_WORDS[False]["capex_usd"], LOWER, "usd", "cost"),
    Metric("network_share", vocab.COMPUTE_FABRIC_WORDS[False]["share"], LOWER, "share", "cost"),
    Metric("it_kw", N_("IT power"), LOWER, "kw", "cost"),  # the cells say kW or MW, as the card
    Metric("tco_usd", N_("TCO [USD]"), LOWER, "usd", "cost"),
)
_TRAINING_METRICS = (
    Metric("step_time_s", N_("Step time"), LOWER, "seconds", "training"),  # the cells say s, as the card
    Metric("tokens_per_s", N_("Tokens/s"), HIGHER, "count", "training"),
    Metric("days_to_train", N_("Days to train"), LOWER, "days", "training"),
    Metric("run_cost_usd", N_("Cost of the run [USD]"), LOWER, "usd", "training"),
)
SERVING_METRICS = (
    Metric("ttft_ms", N_("Time to first token [ms]"), LOWER, "ms", "serving"),
    Metric("tpot_ms", N_("Time per output token [ms]"), LOWER, "ms", "serving"),
    Metric("serving_tokens_per_s_per_gpu", N_("Output tokens/s per GPU in decode"), HIGHER, "count", "serving"),
    Metric("usd_per_million_tokens", N_("Cost per million output tokens [USD]"), LOWER, "usd_cents", "serving"),
)


def busbw_key(size: int) -> str:
    return f"busbw_gbytes_{int(size)}"


def metrics(sizes: Sequence[int] = DEFAULT_SIZES) -> tuple[Metric, ...]:
    """Every row, in order: key numbers, all-reduce busbw at each of ``sizes`` [bytes], the training job, the
    inference deployment."""
    busbw = tuple(Metric(busbw_key(s), "", HIGHER, "gbytes", "collectives") for s in sizes)
    return (*_KEY_METRICS, *busbw, *_TRAINING_METRICS, *SERVING_METRICS)


HOPS_KEYS = {flag: prefix + "max" for flag, prefix in HOPS_PREFIX.items()}
"""Whether a family joins its nodes node to node (``core.fabric.families.node_to_node``, the torus) -> the key of
its most hops: switches crossed on a switched fabric, links crossed between nodes on a torus (a row of each, so no
torus count of node hops is read as switch hops)."""

FABRIC_KINDS = {"network_capex_usd": "capex_usd", "network_share": "share"}
"""The compute fabric's money rows -> their ``vocab.compute_fabric`` label kind."""


def level2_in(plans: Iterable[Plan | None]) -> bool:
    """Whether a compute-fabric capex of ``plans`` (None: a design that did not plan) holds a second NVLink level's
    parts (``CostSummary.scaleup_capex_usd``): the one rule of the compute fabric rows' names (``metric_label``'s
    ``level2``, ``Comparison.level2``) and of the page's words on them (``capex_rows_words``)."""
    return holds_level2(None if p is None else p.cost for p in plans)


CAPEX_ROWS = {
    False: N_("Capex has two rows: the whole cluster (every BOM row: GPU nodes, compute fabric, storage fabric, "
              "management networks) and the compute fabric alone (its switches, transceivers, cables and NICs), so a "
              "fabric change shows apart from what it changes elsewhere."),
    True: N_("Capex has two rows: the whole cluster (every BOM row: GPU nodes, compute fabric, storage fabric, "
             "management networks) and the {fabric} (the scale-out fabric's switches, transceivers, cables and NICs and "
             "the second NVLink level's switch units, modules and fibres), so a fabric change shows apart from what "
             "it changes elsewhere."),
}
"""What the Compare page says of its two capex rows, by whether the compute fabric row holds a second NVLink level
(``level2_in``): its scope named as the row and the capex cards name it (``vocab.compute_fabric``)."""


def capex_rows_words(designs: Iterable[Design]) -> str:
    """``CAPEX_ROWS`` in the current language for the compared ``designs`` (each as compared: a design with pods by
    its totals, ``core.analysis.whole.whole_plan``; one that does not plan says so in its column, not here)."""
    from core.analysis.whole import whole_plan

    plans = []
    for design in designs:
        try:
            plans.append(whole_plan(make_plan(design)))
        except FabricPlannerError:  # its column says why
            continue
    level2 = level2_in(plans)
    return _(CAPEX_ROWS[level2]).format(fabric=vocab.compute_fabric("word", True))


SWITCH_KEYS = {f"switches_{tier}": tier for tier in ("leaf", "spine", "core")}
"""The switch rows -> their tier: named as each compared design's family names it (``switch_label``)."""


def metric_label(metric: Metric, level2: bool = False, families: Sequence[str] = ()) -> str:
    """The metric's name in the current language; ``level2`` when a compared design's compute-fabric figures hold
    a second NVLink level's parts (``Comparison.level2``): their rows then say so, as the Designer's cards do;
    ``families``: the compared designs' (``Comparison.families``), whose words name a switch row
    (``core.fabric.families.switch_label``: a classic Dragonfly's "Routers"; two families' words: "Leaf switches /
    Routers")."""
    if metric.key in SWITCH_KEYS and families:
        labels = [switch_label(f, SWITCH_KEYS[metric.key]) for f in families]
        return " / ".join(dict.fromkeys(label for label in labels if label is not None)) or _(metric.label)
    if metric.key in FABRIC_KINDS:
        return in_currency(vocab.compute_fabric(FABRIC_KINDS[metric.key], level2))
    if metric.key.startswith("busbw_gbytes_"):
        return _("All-reduce busbw at {size}").format(size=format_size(int(metric.key.rsplit("_", 1)[1])))
    return in_currency(_(metric.label))  # a money metric in the shown currency


def key_values(summary: Mapping) -> dict[str, float]:
    """The key numbers of one design from its ``Plan.summary()`` (the CLI's plan JSON)."""
    sw, bw, cost = summary["switches"], summary["bandwidth"], summary["cost"]
    topology = str(summary.get("topology"))  # a torus's hops are links between nodes (core.fabric.families.hops_key)
    hops = [bw.get(hops_key(topology, name)) for name in PLAN_HOPS]
    return {
        "gpus": summary["gpus"],
        "switches_leaf": sw["leaf"], "switches_spine": sw["spine"], "switches_core": sw["core"],
        "switches_nvlink_level2": sw.get("nvlink_level2", 0), "switches_total": sw["total"], "tiers": summary["tiers"],
        "links": sum(summary["links"].values()),
        "transceivers": summary["transceivers"]["switch_side"] + summary["transceivers"]["node_side"],
        "bisection_tbits": bw["bisection_tbits_one_direction"],
        "scaleout_gbits_per_gpu": bw["scaleout_gbits_per_gpu"],
        "oversubscription": bw["oversubscription"],
        hops_key(topology, "max"): max((h for h in hops if isinstance(h, (int, float))), default=0),
        "capex_usd": cost["capex_usd"], "capex_usd_low": cost["capex_usd_low"], "capex_usd_high": cost["capex_usd_high"],
        "capex_per_gpu_usd": cost["capex_per_gpu_usd"], "network_capex_usd": cost["network_capex_usd"],
        "network_share": cost["network_share"], "it_kw": summary["power"]["it_kw"], "tco_usd": cost["tco_usd"],
    }


def busbw_values(plan: Plan, sizes: Sequence[int], settings: Mapping | None = None) -> dict[str, float]:
    """All-reduce busbw [GB/s] of the fastest NCCL default algorithm on every GPU of ``plan`` at each size,
    under the job's routing and placement (``settings`` ``rt``/``pl``; SHARP off as in a stock NCCL unless
    ``sharp`` is "1")."""
    settings = settings or {}
    if not sizes:
        return {}
    with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
        s = sweep(plan, "all-reduce", [int(x) for x in sizes], gpus=plan.resolved.gpus,
                  **jobform.sharp_option(str(settings.get("sharp", "0")) == "1" and
                                         plan.resolved.fabric == "infiniband"))
        t, _a, _p = s.best()
        return {busbw_key(size): float(b) for size, b in zip(sizes, s.busbw(t))}


def serving_values(plan: Plan, settings: Mapping) -> dict[str, float]:
    """TTFT and TPOT [ms], output tokens/s per GPU and the cost per million output tokens [USD] of the Inference
    page's deployment (``settings``: its ``core.formats.inferencelink`` values) on ``plan``, at the load the page
    shows it at (``core.perf.servingform.estimate_on``); raises when it does not fit. A time without bound (the
    load is more than the deployment serves) is left out."""
    from core.perf.servingform import estimate_on

    e = estimate_on(plan, settings)
    values = {"ttft_ms": e.ttft_s * 1e3, "tpot_ms": e.tpot_s * 1e3,
              "serving_tokens_per_s_per_gpu": e.output_tokens_per_s_per_gpu,
              "usd_per_million_tokens": e.usd_per_million_output_tokens}
    return {k: v for k, v in values.items() if math.isfinite(v)}


def training_values(plan: Plan, settings: Mapping) -> dict[str, float]:
    """Step time [s], tokens/s, days to train and the run's cost [USD] of the job ``settings`` (the
    Performance page's settings, ``core.formats.joblink`` keys) on ``plan``; raises when it does not fit."""
    job = jobform.job_from_settings(plan, settings)
    e = jobform.estimate_under(plan, job, settings)
    return {"step_time_s": e.step_time_s, "tokens_per_s": e.tokens_per_s, "days_to_train": e.days_to_train,
            "run_cost_usd": e.cost_usd}


@dataclass
class Column:
    """One design of the comparison and everything computed for it."""

    name: str
    design: Design
    plan: Plan | None = None
    error_message: str | None = None
    """Why the design cannot be planned (then ``values`` is empty): the error's message."""
    way_out: str = ""
    """What would work instead: the error's suggestion ("" when it has none), shown below its message."""
    values: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Why some values are missing (e.g. the training job does not fit this design); ``all_notes`` adds the pods'."""
    mixed: object | None = None
    """A design with pods: its ``core.analysis.pods.MixedPlan`` (``all_notes`` says how its numbers are taken)."""
    job: dict | None = None
    """The training job's settings on this design (``job_settings``)."""
    pods: dict[str, list[float]] = field(default_factory=dict)
    """A design with pods: a per-GPU metric's every pod's value, in pod order (``scaleout_gbits_per_gpu``: the
    summary's ``scaleout_gbits_per_gpu_pods``), shown as the Designer's cards show it; ``values`` keeps the
    slowest pod's for the deltas."""
    pod_systems: list[str] = field(default_factory=list)
    """A design with pods: each pod's system (``H100``), in pod order: the pods' bars are labelled by it."""

    @property
    def error(self) -> str | None:
        """Why the design cannot be planned, as the engine says it: the message and the way out in one text
        (``core.errors.joined``); None when it is planned."""
        return None if self.error_message is None else joined(self.error_message, self.way_out)

    def all_notes(self, unit: str) -> list[str]:
        """``notes``, after the pods' sentence for a design with pods (``core.analysis.whole.pods_note``, its
        bandwidth in ``unit``: "GB/s" or "Gb/s", the user's), in the current language."""
        if self.mixed is None:
            return list(self.notes)
        from core.analysis.whole import pods_note

        return [pods_note(self.mixed, unit), *self.notes]


@dataclass(frozen=True)
class Delta:
    absolute: float
    percent: float | None
    """None when the baseline is 0."""
    verdict: str
    """``better``, ``worse``, ``same`` or ``neutral`` (the metric has no better direction, or pods that moved
    both ways)."""
    pods: tuple[float, ...] | None = None
    """A per-pod metric where either design has pods (``Column.pods``): each pod's difference from the baseline's
    (its pod of the same number, or its one value), in pod order; None otherwise. ``absolute`` is then the
    slowest pod's (``Column.values``)."""


def delta(value: float, base: float, better: str | None, rel_tol: float = 1e-9) -> Delta:
    """``value`` against ``base``: difference, percent of ``base`` and whether it is better."""
    diff = value - base
    percent = diff / base * 100 if base else None
    if math.isclose(value, base, rel_tol=rel_tol, abs_tol=1e-12):
        verdict = "same"
    elif better is None:
        verdict = "neutral"
    else:
        verdict = "better" if (diff > 0) == (better == HIGHER) else "worse"
    return Delta(diff, percent, verdict)


def pods_delta(values: Sequence[float], bases: Sequence[float], scalar: Delta, better: str | None) -> Delta:
    """``scalar`` (the slowest pods' delta) when every pod of ``values`` equals its baseline pod (``bases``: the
    baseline's pods, or its one value for every pod), else each pod's difference (``Delta.pods``): better or worse
    when every pod that moved moved that way, neutral when they moved both ways. Pods past the shorter list are
    compared with its last."""
    count = max(len(values), len(bases))
    diffs = tuple(values[min(i, len(values) - 1)] - bases[min(i, len(bases) - 1)] for i in range(count))
    moved = [d for d in diffs if not math.isclose(d, 0.0, abs_tol=1e-9)]
    if not moved:
        return scalar
    signs = {d > 0 for d in moved}
    verdict = "neutral" if better is None or len(signs) > 1 else \
        "better" if signs == {True} and better == HIGHER or signs == {False} and better != HIGHER else "worse"
    return Delta(scalar.absolute, scalar.percent, verdict, diffs)


@dataclass
class Comparison:
    columns: list[Column]
    baseline: int
    sizes: tuple[int, ...]
    rows: tuple[Metric, ...]

    @property
    def families(self) -> tuple[str, ...]:
        """The planned designs' families (``FabricPlan.family``), in column order: ``metric_label``'s ``families``."""
        return _families(self.columns)

    @property
    def level2(self) -> bool:
        """Whether a compared design's compute-fabric capex holds a second NVLink level's parts
        (``CostSummary.scaleup_capex_usd``): ``metric_label``'s ``level2``."""
        return level2_in(c.plan for c in self.columns)

    def deltas(self) -> list[dict[str, Delta | None]]:
        """Per column, per metric key: its delta against the baseline column (None where either is missing;
        the baseline column's own deltas are all None)."""
        base, base_pods = self.columns[self.baseline].values, self.columns[self.baseline].pods
        out = []
        for i, col in enumerate(self.columns):
            row = {}
            for m in self.rows:
                if i == self.baseline or m.key not in col.values or m.key not in base:
                    row[m.key] = None
                else:
                    row[m.key] = delta(col.values[m.key], base[m.key], m.better)
                    if m.key in col.pods or m.key in base_pods:  # a pod that differs is not "="
                        row[m.key] = pods_delta(col.pods.get(m.key) or [col.values[m.key]],
                                                base_pods.get(m.key) or [base[m.key]], row[m.key], m.better)
            out.append(row)
        return out


def job_settings(p: Plan, settings: Mapping, fit: Collection[str] = (), defaults: Mapping | None = None) -> dict:
    """The job's settings on ``p``: ``settings`` with the keys in ``fit`` (those the user left alone, a subset of
    ``core.perf.jobform.FITTED``) chosen to fit ``p`` as the Performance page chooses them for its design
    (``jobform.fitted_defaults`` from ``defaults``, the link defaults ``core.formats.joblink.DEFAULTS``;
    ``settings`` when None), so a column shows what the Performance page shows for that design."""
    out = dict(settings)
    free = set(fit) & set(jobform.FITTED)
    if free:
        out.update(jobform.fitted_defaults(p, out, free, defaults if defaults is not None else settings))
    return out


EDITABLE = ("nodes", "fabric", "oversubscription")
"""Design fields a column's quick controls change (``edited``)."""


def edited(design: Design, changes: Mapping, current_fabric: str) -> Design:
    """``design`` with ``changes`` to the fields in ``EDITABLE``; a new fabric (``current_fabric``: the one the
    engine resolved for ``design``) gets its own switch and port speed (``core.perf.jobform.alternative_design``);
    a node count replaces a GPU count. ``InputError`` when the result is not a valid design."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise ValueError(f"not editable here: {', '.join(sorted(unknown))}")
    if "nodes" in changes:
        design = design.model_copy(update={"gpus": None})
    return jobform.alternative_design(design, dict(changes), current_fabric)


def _evaluate(name: str, design: Design, sizes: Sequence[int], settings: Mapping | None,
              planner: Callable[[Design], Plan], fit: Collection[str] = (),
              defaults: Mapping | None = None, serving: Mapping | None = None) -> Column:
    col = Column(name, design)
    try:
        planned = planner(design)
        if design.pods:  # compared by its totals (core.analysis.whole); pods that cannot be joined are its error,
            from core.analysis.whole import design_mixed, whole_plan  # no plan of the first pod alone

            col.mixed = design_mixed(design)
            planned = whole_plan(planned)
        col.plan = planned
    except FabricPlannerError as exc:
        col.error_message, col.way_out = getattr(exc, "message", None) or str(exc), getattr(exc, "suggestion", "")
        return col
    summary = col.plan.summary()
    col.values.update(key_values(summary))
    if summary["bandwidth"].get("scaleout_gbits_per_gpu_pods"):
        col.pods["scaleout_gbits_per_gpu"] = list(summary["bandwidth"]["scaleout_gbits_per_gpu_pods"])
        col.pod_systems = [pod["system"] for pod in summary["mixed_pods"]["pods"]]
    try:
        col.values.update(busbw_values(col.plan, sizes, settings))
    except FabricPlannerError as exc:
        col.notes.append(_("Collectives: {problem}").format(problem=str(exc)))
    if settings is not None:
        try:
            col.job = job_settings(col.plan, settings, fit, defaults)
            col.values.update(training_values(col.plan, col.job))
        except FabricPlannerError as exc:
            col.notes.append(_("Training job: {problem}").format(problem=str(exc)))
    if serving is not None:
        try:
            col.values.update(serving_values(col.plan, serving))
        except FabricPlannerError as exc:
            col.notes.append(_("Inference deployment: {problem}").format(problem=str(exc)))
    return col


def _families(columns) -> tuple[str, ...]:
    """The planned columns' families (``FabricPlan.family``), in column order (a column whose plan failed: none)."""
    return tuple(c.plan.fabric.family for c in columns if c.plan is not None)


def compare(designs: Sequence[tuple[str, Design]], baseline: int = 0, settings: Mapping | None = None,
            sizes: Sequence[int] = DEFAULT_SIZES, planner: Callable[[Design], Plan] = make_plan,
            fit: Collection[str] = (), defaults: Mapping | None = None,
            serving: Mapping | None = None) -> Comparison:
    """Plan and measure each ``(name, design)``; ``baseline`` is the index the deltas are taken against
    (cut into range). ``settings``: the training job, the Performance page's settings (None = no training
    rows); ``fit``: the settings fitted to each design from ``defaults`` (``job_settings``); ``serving``: the
    Inference page's settings (None = no inference rows, ``serving_values``). At most ``MAX_DESIGNS``
    designs and ``MAX_SIZES`` sizes (``ValueError`` above: the codec and page bound them first)."""
    if len(designs) > MAX_DESIGNS:
        raise ValueError(f"at most {MAX_DESIGNS} designs")
    if len(sizes) > MAX_SIZES:
        raise ValueError(f"at most {MAX_SIZES} sizes")
    sizes = tuple(int(s) for s in sizes)
    columns = [_evaluate(name, design, sizes, settings, planner, fit, defaults, serving) for name, design in designs]
    baseline = min(max(0, int(baseline)), max(0, len(columns) - 1))
    families = _families(columns)
    rows = tuple(m for m in metrics(sizes)  # the hops row of a kind no design has (switch or node hops) left out
                 if (m.key not in HOPS_KEYS.values() or any(m.key in c.values for c in columns))
                 and (m.key != "switches_nvlink_level2" or any(c.values.get(m.key) for c in columns))
                 and not (m.key in SWITCH_KEYS and families  # a tier no compared family has (no spine, no core)
                          and all(switch_label(f, SWITCH_KEYS[m.key]) is None for f in families)))
    return Comparison(columns, baseline, sizes, rows)


# --- bill of materials ------------------------------------------------------------------------------
BOM_DIFF_COLUMNS = (N_("category"), N_("item"), N_("where"), N_("catalog id"), N_("change"), N_("why"))
"""Headers of the BOM difference table besides the per-design quantity and price columns (English, marked)."""


@dataclass(frozen=True)
class BomChange:
    category: str
    item: str
    catalog_id: str
    end: str
    quantities: tuple[int, ...]
    """Quantity in each column (0 where the design has none)."""
    extended_usd: tuple[float, ...]
    """Extended price [USD] in each column."""
    why: str
    """The BOM's reason for the item, from the first design that has it."""

    def quantity_change(self, column: int, baseline: int) -> int:
        return self.quantities[column] - self.quantities[baseline]

    def usd_change(self, column: int, baseline: int) -> float:
        return self.extended_usd[column] - self.extended_usd[baseline]


def bom_changes(plans: Sequence[Plan | None], baseline: int = 0) -> list[BomChange]:
    """Every BOM item (category, catalog id, item text with its role, link end) whose quantity differs between the designs, in
    each design's quantity and extended price; a design that could not be planned counts as empty.
    Sorted by the largest price swing against the baseline."""
    keyed: dict[tuple[str, str, str, str], dict] = {}
    for i, p in enumerate(plans):
        for row in (p.bom if p is not None else ()):
            key = (row.category, row.catalog_id, row.item, row.end)
            entry = keyed.setdefault(key, {"item": row.item, "why": row.why, "q": [0] * len(plans),
                                           "usd": [0.0] * len(plans)})
            entry["q"][i] += row.quantity
            entry["usd"][i] += row.extended_price_usd
    changes = [BomChange(cat, item, cid, end, tuple(e["q"]), tuple(e["usd"]), e["why"])
               for (cat, cid, item, end), e in keyed.items() if len(set(e["q"])) > 1 or len(set(e["usd"])) > 1]
    base = min(max(0, baseline), max(0, len(plans) - 1))
    return sorted(changes, key=lambda c: -max((abs(c.usd_change(i, base)) for i in range(len(plans))), default=0))


def category_capex(p: Plan) -> dict[str, float]:
    """Capex [USD] per BOM category (``core.cost.CATEGORY_LABELS`` keys)."""
    out = {c: 0.0 for c in CATEGORY_LABELS}
    for row in p.bom:
        out[row.category] += row.extended_price_usd
    return out


def change_text(change: BomChange, column: int, baseline: int) -> str:
    """``+128 (+$2,560,000)`` style words for one item's change against the baseline, in the current language."""
    dq = change.quantity_change(column, baseline)
    du = change.usd_change(column, baseline)
    if change.quantities[baseline] == 0:
        return _("new: {quantity} ({usd})").format(quantity=f"{dq:+,}", usd=_signed_usd(du))
    if change.quantities[column] == 0:
        return _("removed: {quantity} ({usd})").format(quantity=f"{dq:+,}", usd=_signed_usd(du))
    return f"{dq:+,} ({_signed_usd(du)})"


def _signed_usd(amount: float) -> str:
    sign = "+" if amount >= 0 else "-"
    return f"{sign}${abs(amount):,.0f}"
