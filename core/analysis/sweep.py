"""Sweep one or two design settings against one metric, the other settings fixed.

``sweep(SweepSpec(...)) -> SweepResult``: every point is the base design with the swept setting(s)
changed, planned by ``core.plan.plan`` (cached there) and measured exactly as a single design is:
the key numbers from ``Plan.summary()`` (``core.analysis.compare.key_values``), the all-reduce busbw
at a size through ``core.perf.collectives`` (``compare.busbw_values``) and the training job's step
time and days through ``core.perf.training`` (``compare.training_values``; the job's free settings,
``core.perf.jobform.FITTED``, are fitted once to the *base* design as the Performance page fits them,
then held fixed, so every point runs the same job). A point the engine cannot build keeps the
engine's own message (``DesignError`` / ``InputError``) as its ``reason`` and no value.

Settings (``SETTINGS``) are numeric (line chart: nodes, GPUs, oversubscription, port and uplink speed,
planes, NICs per node, spine oversubscription) or categorical (grouped bars: switch, fabric, topology,
tiers, GPU model, NIC, plane mode). A new fabric also drops the base's switch and port speed, as the
Performance page's fabric comparison does (``jobform.alternative_design``), and its NIC, tier switches
and uplink speed (``FABRIC_SPECIFIC``); a switch model of the other fabric brings its fabric along; a
node count replaces a GPU count and the other way round.

Metrics (``METRICS``) carry their unit in the key: ``*_usd`` US dollars, ``*_kw`` kilowatts,
``bisection_tbits`` Tb/s one direction, ``scaleout_gbits_per_gpu`` (injection per GPU) Gb/s one direction,
``oversubscription`` the bisection ratio (1.0 = non-blocking), ``busbw_gbytes`` all-reduce bus bandwidth
[GB/s] (nccl-tests' definition) at ``SweepSpec.size`` bytes, ``step_time_s`` seconds, ``days_to_train``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from core.analysis import compare as cmp
from core.catalog import load_catalog
from core.design import FIELDS, Design, field_bounds, parse_design
from core import progress, vocab
from core.errors import DesignError, FabricPlannerError, InputError
from core.i18n import N_, _, in_currency
from core.units import span
from core.perf.sizes import format_size
from core.plan import Plan, plan as make_plan

MAX_POINTS = 64
"""Most values of one swept setting."""
MAX_CELLS = 400
"""Most points of a two-setting sweep (a 20 x 20 heatmap)."""
GIB = 1 << 30

NUMERIC, CATEGORICAL = "numeric", "categorical"


@dataclass(frozen=True)
class Setting:
    """A design setting that can be swept.

    key      its name on the command line and in links (``--set KEY=...``); the ``Design`` field it sets
             is ``field``.
    label    English, marked ``N_``; show ``_(label)``.
    kind     ``numeric`` (line chart) or ``categorical`` (grouped bars).
    whole    numeric values are whole numbers.
    choices  the values of a categorical setting (a function: some come from the catalog); None: the ``Design``
             field's declared values (its ``Literal``), or for a field of free text (``torus_dims``) any value the
             design accepts (a point it refuses keeps the engine's reason).

    A numeric setting's bounds are its ``Design`` field's (``bounds``): one truth, declared beside the field.
    """

    key: str
    field: str
    label: str
    kind: str
    whole: bool = True
    choices: Callable[[], tuple[str, ...]] | None = None

    @property
    def bounds(self) -> tuple[float, float, bool]:
        """(low, high, low_open) of a numeric value: the ``Design`` field's bounds (``core.design.field_bounds``);
        a whole number above an open bound starts at the next whole number."""
        low, high, low_open, _high_open = field_bounds(self.field)
        if self.whole and low_open:
            return math.floor(low) + 1, high, False
        return low, high, low_open

    def values(self) -> tuple[str, ...] | None:
        """The values of a categorical setting: ``choices``, else its ``Design`` field's declared ones (None: free
        text, ``torus_dims``)."""
        if self.choices is not None:
            return self.choices()
        return field_choices(self.field)


def field_choices(field: str) -> tuple[str, ...] | None:
    """The values a ``Design`` field declares (its ``Surface``'s vocabulary, as the CLI's choices: ``tiers`` ``auto``,
    ``1``, ...), as text; None for a field of free text."""
    surface = FIELDS[field]
    return None if surface.vocab is None else tuple(str(v) for v in surface.vocab.ids)


def _systems() -> tuple[str, ...]:
    return tuple(s.id for s in load_catalog().systems)


def _switches() -> tuple[str, ...]:
    return tuple(s.id for s in load_catalog().switches)


def _nics() -> tuple[str, ...]:
    return tuple(n.id for n in load_catalog().nics)


SETTINGS: dict[str, Setting] = {s.key: s for s in (
    Setting("nodes", "nodes", N_("Nodes"), NUMERIC),
    Setting("gpus", "gpus", N_("GPUs"), NUMERIC),
    Setting("oversubscription", "oversubscription", N_("Leaf oversubscription [:1]"), NUMERIC, False),
    Setting("spine_oversubscription", "spine_oversubscription", N_("Spine oversubscription [:1]"), NUMERIC, False),
    Setting("port_speed", "port_speed_gbps", N_("Port speed [Gb/s]"), NUMERIC),
    Setting("uplink_speed", "uplink_speed_gbps", N_("Uplink speed [Gb/s]"), NUMERIC),
    Setting("planes", "planes", N_("Planes"), NUMERIC),
    Setting("nics_per_node", "nics_per_node", N_("NICs per node"), NUMERIC),
    Setting("switch", "switch", N_("Switch model"), CATEGORICAL, choices=_switches),
    Setting("fabric", "fabric", N_("Fabric"), CATEGORICAL),
    Setting("topology", "topology", N_("Topology"), CATEGORICAL),
    Setting("tiers", "tiers", N_("Tiers"), CATEGORICAL),
    Setting("gpu", "gpu", N_("GPU model"), CATEGORICAL, choices=_systems),
    Setting("nic", "nic", N_("NIC model"), CATEGORICAL, choices=_nics),
    Setting("plane_mode", "plane_mode", N_("Plane mode"), CATEGORICAL),
    # the families' sizing inputs (their DESIGN_FIELDS): both Dragonflies', a torus's, two NVLink levels'
    Setting("global_ratio", "global_ratio", N_("Dragonfly global ratio"), NUMERIC, False),
    Setting("group_leaves", "group_leaves", N_("Leaves per Dragonfly+ group"), NUMERIC),
    Setting("torus_dims", "torus_dims", N_("Torus dimensions"), CATEGORICAL),
    Setting("nvlink_domain", "nvlink_domain_gpus", N_("NVLink domain [GPUs]"), NUMERIC),
    Setting("nvlink_rack", "nvlink_rack_gpus", N_("First NVLink level [GPUs]"), NUMERIC),
)}
"""The settings a sweep can vary, by key; bounds and categorical values are the ``Design`` fields' (``Setting``)."""


@dataclass(frozen=True)
class SweepMetric:
    """A metric a sweep can plot: ``key`` (unit in the name), English ``label`` (marked), ``better``
    (``higher`` / ``lower``), ``kind`` as in ``core.analysis.compare.Metric``, ``needs``: ``plan`` (the key
    numbers), ``busbw`` (a collective at ``SweepSpec.size``), ``job`` (the training job) or ``serving`` (the
    Inference page's deployment, ``SweepSpec.serving``)."""

    key: str
    label: str
    better: str
    kind: str
    needs: str = "plan"


METRICS: dict[str, SweepMetric] = {m.key: m for m in (
    SweepMetric("capex_usd", N_("Capex [USD]"), cmp.LOWER, "usd"),
    SweepMetric("capex_per_gpu_usd", vocab.CAPEX_PER_GPU_USD, cmp.LOWER, "usd"),
    SweepMetric("network_capex_usd", vocab.COMPUTE_FABRIC_WORDS[False]["capex_usd"], cmp.LOWER, "usd"),
    SweepMetric("network_share", vocab.COMPUTE_FABRIC_WORDS[False]["share"], cmp.LOWER, "share"),
    SweepMetric("it_kw", N_("IT power [kW]"), cmp.LOWER, "kw"),
    SweepMetric("facility_kw", N_("Facility power [kW]"), cmp.LOWER, "kw"),
    SweepMetric("tco_usd", N_("TCO [USD]"), cmp.LOWER, "usd"),
    SweepMetric("bisection_tbits", N_("Bisection, one direction"), cmp.HIGHER, "tbits"),
    SweepMetric("scaleout_gbits_per_gpu", vocab.INJECTION_WORDS["metric"], cmp.HIGHER, "gbits"),
    SweepMetric("oversubscription", N_("Bisection ratio (1:1 = non-blocking)"), cmp.LOWER, "ratio"),
    SweepMetric("switches_total", N_("Switches in total"), cmp.LOWER, "count"),
    SweepMetric("links", N_("Links"), cmp.LOWER, "count"),
    SweepMetric("transceivers", N_("Transceivers"), cmp.LOWER, "count"),
    SweepMetric("tiers", N_("Tiers"), cmp.LOWER, "count"),
    SweepMetric("hops_max", N_("Most switch hops"), cmp.LOWER, "count"),
    SweepMetric("hops_node_max", N_("Most node-to-node hops (no switches)"), cmp.LOWER, "count"),
    SweepMetric("busbw_gbytes", N_("All-reduce busbw"), cmp.HIGHER, "gbytes", "busbw"),
    SweepMetric("step_time_s", N_("Step time [s]"), cmp.LOWER, "seconds", "job"),
    SweepMetric("tokens_per_s", N_("Tokens/s"), cmp.HIGHER, "count", "job"),
    SweepMetric("days_to_train", N_("Days to train"), cmp.LOWER, "days", "job"),
    SweepMetric("run_cost_usd", N_("Cost of the run [USD]"), cmp.LOWER, "usd", "job"),
    *(SweepMetric(m.key, m.label, m.better, m.kind, "serving") for m in cmp.SERVING_METRICS),
)}


def metric_label(key: str, size: int = GIB) -> str:
    """The metric's name in the current language (busbw names its message size)."""
    if key == "busbw_gbytes":
        return _("All-reduce busbw at {size}").format(size=format_size(int(size)))
    return in_currency(_(METRICS[key].label))  # a money metric in the shown currency


def setting_label(key: str) -> str:
    return _(SETTINGS[key].label)


Value = int | float | str


class Axis(BaseModel):
    """One swept setting and its values, in the order given (typed: whole numbers, numbers or choice ids)."""

    model_config = ConfigDict(frozen=True)
    setting: str
    values: tuple[Value, ...] = Field(min_length=1)


class SweepSpec(BaseModel):
    """What to sweep.

    base     the design every point starts from.
    x, y     the swept settings (``y`` None: one setting, a line or bar chart; else a heatmap).
    metric   a ``METRICS`` key.
    size     message size of ``busbw_gbytes`` [bytes].
    job      the training job's settings (``core.formats.joblink`` keys) for the job metrics; ``fit``
             are the settings (of ``jobform.FITTED``) fitted to the base design, ``defaults`` the link
             defaults they are fitted from (``core.formats.joblink.DEFAULTS``).
    routing  ``rt``/``pl``/``sharp`` of the job (``compare.busbw_values``), default the job's.
    serving  the Inference page's settings (``core.formats.inferencelink`` values) for the serving metrics.
    """

    model_config = ConfigDict(frozen=True)
    base: Design
    x: Axis
    y: Axis | None = None
    metric: str = "capex_per_gpu_usd"
    size: int = Field(default=GIB, ge=1, le=1 << 40)
    job: dict[str, Any] | None = None
    fit: tuple[str, ...] = ()
    defaults: dict[str, Any] | None = None
    serving: dict[str, Any] | None = None


class SweepPoint(BaseModel):
    """One point: the swept values, the metric's value or why there is none, and the design."""

    model_config = ConfigDict(frozen=True)
    x: Value
    y: Value | None = None
    value: float | None = None
    reason: str | None = None
    """The engine's message when the design cannot be built (or the metric cannot be computed on it)."""
    design: Design | None = None
    """The design of this point (None when the swept value itself is not a valid design)."""
    same_as: int | None = None
    """Index in ``SweepResult.points`` of the first earlier point whose plan is built the same (``built``): the
    swept setting changes nothing here (leaf oversubscription on a one-tier fabric); None otherwise."""
    planned: bool = False
    """Without a value: True when the design was built and only the metric has no value on it (a Clos's node-to-node
    hops, a job that does not fit), so the point is not said to be one that cannot be built."""


class SweepResult(BaseModel):
    """Every point of a sweep, x-major (for each x, every y)."""

    model_config = ConfigDict(frozen=True)
    spec: SweepSpec
    points: tuple[SweepPoint, ...]
    job: dict[str, Any] | None = None
    """The job the job metrics ran (settings fitted to the base design), None for other metrics."""

    @property
    def values(self) -> list[float | None]:
        return [p.value for p in self.points]

    def grid(self) -> list[list[SweepPoint]]:
        """Rows by y, columns by x (a one-setting sweep is one row)."""
        ys = self.spec.y.values if self.spec.y else (None,)
        by = {(p.x, p.y): p for p in self.points}
        return [[by[(x, y)] for x in self.spec.x.values] for y in ys]

    @property
    def feasible(self) -> int:
        return sum(p.value is not None for p in self.points)

    @property
    def buildable(self) -> int:
        """Points whose design was built, with a value or without one (``SweepPoint.planned``)."""
        return sum(p.value is not None or p.planned for p in self.points)

    @property
    def repeats(self) -> int:
        """Points that build the same design as an earlier point (``SweepPoint.same_as``)."""
        return sum(p.same_as is not None for p in self.points)


def check_values(key: str, values: Sequence[Value]) -> tuple[Value, ...]:
    """``values`` of setting ``key`` typed and checked (bounds, choices, no repeats, at most ``MAX_POINTS``);
    ``InputError`` naming the setting and what it accepts."""
    if key not in SETTINGS:
        raise InputError(_("{setting} cannot be swept; choose one of {settings}.").format(
            setting=repr(str(key)[:40]), settings=", ".join(SETTINGS)))
    s = SETTINGS[key]
    if not values:
        raise InputError(_("give at least one value of {setting}").format(setting=key))
    if len(values) > MAX_POINTS:
        raise InputError(_("at most {count} values of {setting}, not {given}").format(
            count=MAX_POINTS, setting=key, given=len(values)))
    out: list[Value] = []
    for value in values:
        if s.kind == CATEGORICAL:
            choices = s.values()
            text = str(value).strip()
            if choices is None:  # free text (torus dimensions): the design checks each point
                if not text:
                    raise InputError(_("give at least one value of {setting}").format(setting=key))
                out.append(text[:40])
                continue
            found = {c.casefold(): c for c in choices}.get(text.casefold())
            if found is None:
                raise InputError(_("{value} is not a value of {setting}; choose from {choices}.").format(
                    value=repr(text[:40]), setting=key, choices=", ".join(choices)))
            out.append(found)
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InputError(_("{value} is not a number ({setting})").format(
                value=repr(str(value)[:40]), setting=key)) from None
        if s.whole and not number.is_integer():
            raise InputError(_("{setting} takes whole numbers, not {value}").format(setting=key, value=f"{number:g}"))
        low, high, low_open = s.bounds
        if not (low < number if low_open else low <= number) or number > high:
            top = f"{high:,.0f}" if high >= 1000 else f"{high:g}"
            message = (_("{setting} must be above {low} and at most {high}, not {value}") if low_open else
                       _("{setting} must be from {range}, not {value}"))
            raise InputError(message.format(setting=key, low=f"{low:g}", value=f"{number:g}", high=top,
                                            range=span(f"{low:g}", top)))
        out.append(int(number) if s.whole else number)
    if len(set(out)) != len(out):
        raise InputError(_("a value of {setting} is given twice").format(setting=key))
    return tuple(out)


def design_at(base: Design, changes: Mapping[str, Value], base_fabric: str | None = None) -> Design:
    """``base`` with each swept setting (``SETTINGS`` key -> value) set; ``InputError`` when that is not a
    valid design. A new fabric drops the base's switch and port speed (``jobform.alternative_design``); a switch
    brings its fabric only to a topology that reads it (``ignored_fields``)."""
    data = base.model_dump(exclude_defaults=True)
    fields: dict[str, Any] = {}
    for key, value in changes.items():
        s = SETTINGS[key]
        if key == "tiers":
            value = value if value == "auto" else int(value)
        fields[s.field] = value
        if key == "nodes":
            data.pop("gpus", None)
        elif key == "gpus":
            data.pop("nodes", None)
        elif key == "switch":
            for tier in ("leaf_switch", "spine_switch", "core_switch"):
                data.pop(tier, None)
    from core.fabric.families import ignored_fields

    topology = fields.get("topology", data.get("topology", base.topology))
    if "switch" in fields and "fabric" not in fields and "switch" not in ignored_fields(topology):
        # a switch of the other fabric brings its fabric along, on a topology that reads the switch (a torus
        # ignores it, so it changes nothing there, as ``plan --switch`` on a torus)
        switch = next((sw for sw in load_catalog().switches if sw.id == fields["switch"]), None)
        if switch is not None and switch.fabric != (base_fabric or base.fabric):
            fields["fabric"] = switch.fabric
    if "fabric" in fields and fields["fabric"] != (base_fabric or base.fabric):
        for key in FABRIC_SPECIFIC:
            data.pop(key, None)
    data.update(fields)
    return parse_design(data)


FABRIC_SPECIFIC = ("switch", "port_speed_gbps", "leaf_switch", "spine_switch", "core_switch", "nic", "uplink_speed_gbps")
"""Design fields a new fabric drops (the Performance page's ``jobform.alternative_design`` drops the first two; a
NIC, tier switches and an uplink speed are of one fabric too). A field swept at the same time is set after."""


DEFAULT_SETTINGS = ("oversubscription", "global_ratio", "nodes")
"""The settings a sweep starts from, in order: the first the design's topology reads (``default_setting``)."""


def default_setting(design: Design) -> str:
    """The setting a sweep of ``design`` starts from: the first of ``DEFAULT_SETTINGS`` its topology reads
    (``core.fabric.families.reads``): the leaf oversubscription, a classic Dragonfly's global ratio, a torus's
    nodes, so the first sweep never plans one design at every point."""
    from core.fabric.families import reads

    return next(key for key in DEFAULT_SETTINGS if reads(design.topology, SETTINGS[key].field))


def ignored_said(base: Design, axes: Sequence[Axis | None]) -> list[str]:
    """What a sweep says, translated, of each swept setting that a topology of the sweep ignores (``swept_ignored``:
    a torus's oversubscription, tiers, switch), for the base's topology and every topology swept on an axis, so
    ``topology=torus,rail-optimized`` by ``oversubscription=1,2`` says the torus points are the same; each once."""
    from core.fabric.families import swept_ignored

    swept = [a for a in axes if a is not None]
    topologies = dict.fromkeys([base.topology, *(v for a in swept if a.setting == "topology" for v in a.values)])
    out: list[str] = []
    for axis in swept:
        for topology in topologies:
            said = swept_ignored(base.model_copy(update={"topology": topology}), SETTINGS[axis.setting].field)
            if said and said not in out:
                out.append(said)
    return out


def measure(p: Plan, metric: str, size: int = GIB, job: Mapping | None = None,
            serving: Mapping | None = None) -> float:
    """The value of ``metric`` on plan ``p`` (the job metrics need ``job``, settings already fitted; the serving
    metrics ``serving``, the Inference page's settings)."""
    m = METRICS[metric]
    if m.needs == "serving":
        if serving is None:
            raise InputError(_("the metric {metric} needs the Inference page's deployment").format(metric=metric))
        values = cmp.serving_values(p, serving)
        if metric not in values:
            raise DesignError(_("the load is more than the deployment can serve: no finite {metric}").format(
                metric=metric_label(metric)), _("Lower the load or relax the targets on the Inference page."))
        return float(values[metric])
    if m.needs == "plan":
        summary = p.summary()
        if metric == "facility_kw":
            return float(summary["power"]["facility_kw"])
        values = cmp.key_values(summary)
        if metric not in values:  # the other kind of hops (cmp.HOPS_KEYS): a torus has no switch to count
            other = next(k for k in cmp.HOPS_KEYS.values() if k in values)
            raise InputError(_("{metric}: this design has none; sweep {other} instead").format(
                metric=metric_label(metric), other=metric_label(other)))
        return float(values[metric])
    if m.needs == "busbw":
        return float(cmp.busbw_values(p, [int(size)], job or {})[cmp.busbw_key(int(size))])
    if job is None:
        raise InputError(_("the metric {metric} needs a training job").format(metric=metric))
    return float(cmp.training_values(p, job)[metric])


def base_job(spec: SweepSpec, planner: Callable[[Design], Plan] = make_plan) -> dict | None:
    """The job every point runs: ``spec.job`` with ``spec.fit`` fitted to the base design (as the Performance
    page fits them to its design); the job as given when the base design cannot be built."""
    if spec.job is None:
        return None
    try:
        return cmp.job_settings(planner(spec.base), spec.job, spec.fit, spec.defaults)
    except FabricPlannerError:
        return dict(spec.job)


def sweep(spec: SweepSpec, planner: Callable[[Design], Plan] = make_plan) -> SweepResult:
    """Plan and measure every point of ``spec`` (see the module docstring)."""
    if spec.metric not in METRICS:
        raise InputError(_("{metric} is not a sweep metric; choose one of {metrics}.").format(
            metric=repr(str(spec.metric)[:40]), metrics=", ".join(METRICS)))
    xs = check_values(spec.x.setting, spec.x.values)
    ys = check_values(spec.y.setting, spec.y.values) if spec.y else (None,)
    if spec.y and spec.y.setting == spec.x.setting:
        raise InputError(_("sweep two different settings, not {setting} twice").format(setting=spec.x.setting))
    if len(xs) * len(ys) > MAX_CELLS:
        raise InputError(_("at most {cells} points in a two-setting sweep, not {count}").format(
            cells=MAX_CELLS, count=len(xs) * len(ys)))
    needs = METRICS[spec.metric].needs
    job = base_job(spec, planner) if needs == "job" else None
    if needs == "job" and job is None:
        raise InputError(_("the metric {metric} needs a training job").format(metric=spec.metric))
    try:
        base_fabric = planner(spec.base).resolved.fabric
    except FabricPlannerError:
        base_fabric = spec.base.fabric
    points: list[SweepPoint] = []
    first: dict[tuple, int] = {}  # a built design -> the first point building it
    for x in xs:
        for y in ys:
            changes = {spec.x.setting: x}
            if spec.y:
                changes[spec.y.setting] = y
            point, key = _point(spec, changes, x, y, base_fabric, job, planner)
            earlier = None if key is None else first.setdefault(key, len(points))
            if earlier is not None and earlier != len(points):
                point = point.model_copy(update={"same_as": earlier})
            points.append(point)
            progress.report(len(points), len(xs) * len(ys))
    return SweepResult(spec=spec.model_copy(update={"x": Axis(setting=spec.x.setting, values=xs),
                                                    "y": Axis(setting=spec.y.setting, values=ys) if spec.y else None}),
                       points=tuple(points), job=job)


def built(p: Plan) -> tuple:
    """What a plan builds, to find points of a sweep that are one design: its bill (part, quantity, unit price),
    its fabric and its bandwidth as planned (the design's own fields left out: a setting the plan ignores, leaf
    oversubscription on a one-tier fabric, gives the same key)."""
    return (tuple((r.catalog_id, r.quantity, r.unit_price_usd) for r in p.bom), p.fabric.model_dump_json(),
            p.bandwidth.model_dump_json())


def _point(spec: SweepSpec, changes: dict, x: Value, y: Value | None, base_fabric: str | None,
           job: Mapping | None, planner: Callable[[Design], Plan]) -> tuple[SweepPoint, tuple | None]:
    """The point at ``changes`` and what its plan builds with the metric's value (``built``; None without a
    value)."""
    try:
        design = design_at(spec.base, changes, base_fabric)
    except FabricPlannerError as exc:
        return SweepPoint(x=x, y=y, reason=str(exc)), None
    try:
        p = planner(design)
    except FabricPlannerError as exc:
        return SweepPoint(x=x, y=y, reason=str(exc), design=design), None
    try:
        value = measure(p, spec.metric, spec.size, job if job is not None else (spec.job or {}), spec.serving)
    except FabricPlannerError as exc:
        return SweepPoint(x=x, y=y, reason=str(exc), design=design, planned=True), None
    return SweepPoint(x=x, y=y, value=value, design=design), (*built(p), value)


def csv_rows(result: SweepResult) -> list[dict[str, Any]]:
    """The sweep as machine-readable rows, one per point in ``points``' order (English keys: the setting names, the
    metric key, ``feasible`` (a value), ``planned`` (the point's design was built, with a value or without one:
    ``SweepResult.buildable``), ``same_as`` (the index in these rows, from 0, of the earlier point that builds the
    same design, ``SweepPoint.same_as``; None for a design of its own), ``reason``). The figures' ``download_rows``
    adds the page's note in words."""
    spec = result.spec
    rows = []
    for p in result.points:
        row: dict[str, Any] = {spec.x.setting: p.x}
        if spec.y:
            row[spec.y.setting] = p.y
        row[spec.metric] = p.value
        row["feasible"] = p.value is not None
        row["planned"] = p.value is not None or p.planned
        row["same_as"] = p.same_as
        row["reason"] = p.reason or ""
        rows.append(row)
    return rows
