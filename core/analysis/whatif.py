"""What-if sweeps: re-plan a design with one choice varied, through the engine.

The pages plot these; every number comes from ``core.plan.plan``.

Languages: ``oversubscription_sweep`` is data with English column keys (``SWEEP_COLUMNS``); its
``note`` is the engine's message in the language of the request, so cache it by
``core.i18n.current()`` too. ``sweep_display_table`` has translated column headers.
"""

from __future__ import annotations

import pandas as pd

from core import units, vocab
from core.design import Design
from core.errors import DesignError, InputError
from core.i18n import _, embedded, in_currency, usd
from core.plan import plan

OVERSUBSCRIPTION_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)

SWEEP_COLUMNS = [
    "oversubscription", "feasible", "cross_fabric_gbits_per_gpu", "scaleout_gbits_per_gpu",
    "bisection_tbits", "leaf_oversubscription", "effective_oversubscription", "switches", "network_capex_usd",
    "network_capex_per_gpu_usd", "scaleup_capex_usd", "tiers", "note",
]


def oversubscription_sweep(design: Design, values: tuple[float, ...] = OVERSUBSCRIPTION_STEPS) -> pd.DataFrame:
    """Re-plan ``design`` at each leaf oversubscription in ``values`` (plus the design's own).

    Returns one row per value (sorted) with ``SWEEP_COLUMNS``: per-GPU
    cross-fabric bandwidth [Gb/s, one direction] (scale-out per GPU divided by
    the effective end-to-end oversubscription), bisection [Tb/s], switch count
    (all planes, and a second NVLink level's switch units, as the capex holds them) and network capex [USD]. A value the engine cannot build has
    ``feasible=False`` and the engine's message in ``note``. A buildable value whose leaves do not reach that
    ratio says so in ``note`` (``_achieved_note``): the leaf ratio they build (``leaf_oversubscription``: whole
    ports, the leaves' down ports capped by the scalable units) and, when it is the design of a lower value, "same
    design as" that value. ``effective_oversubscription`` is the design's bisection ratio end to end, which can
    differ from the leaves' for another reason than ports (a Dragonfly+'s global links, a tapered spine): the
    display table's own column, never a note.
    """
    rows = []
    for value in sorted({float(v) for v in values} | {float(design.oversubscription)}):
        variant = design.model_copy(update={"oversubscription": value})
        try:
            result = plan(variant)
        except (DesignError, InputError) as exc:
            rows.append({"oversubscription": value, "feasible": False, "note": str(exc)})
            continue
        bw = result.bandwidth
        rows.append({
            "oversubscription": value,
            "feasible": True,
            "cross_fabric_gbits_per_gpu": bw.cross_fabric_gbits_per_gpu,
            "scaleout_gbits_per_gpu": bw.scaleout_gbits_per_gpu,
            "bisection_tbits": bw.bisection_tbits_one_direction,
            "leaf_oversubscription": leaf_built(result),
            "effective_oversubscription": bw.oversubscription,
            "switches": result.fabric.switch_count_total + result.level2_switches,  # as the capex: NVLink level 2
            "network_capex_usd": result.cost.network_capex_usd,
            "network_capex_per_gpu_usd": result.cost.network_capex_usd / result.resolved.gpus,
            "scaleup_capex_usd": result.cost.scaleup_capex_usd,  # a second NVLink level's part of the capex
            "tiers": result.fabric.tiers,
            "note": _achieved_note(value, leaf_built(result), rows),
        })
    return pd.DataFrame.from_records(rows, columns=SWEEP_COLUMNS)


def leaf_built(result) -> float:
    """The leaf ratio the plan ``result`` builds: all NIC ports' injection over the leaves' uplinks as far as their
    nodes fill them (``core.fabric.bandwidth.tier_capacities_gbits``: whole ports, a partial scalable unit's leaf
    counting its nodes' share), 1:1 without leaf uplinks (one tier). The leaf stage alone: a Clos's bisection ratio
    is this times the spines' taper, a Dragonfly+'s is its global links' whatever the leaves (1.5:1 over 1:1
    leaves at 4,096 H100 GPUs)."""
    from core.fabric.bandwidth import tier_capacities_gbits

    capacities = tier_capacities_gbits(result.resolved, result.fabric)
    up = capacities.get("leaf_up", 0.0)
    return capacities["injection"] / up if up else 1.0


def _achieved_note(asked: float, leaf: float, rows: list[dict]) -> str:
    """The note of a leaf oversubscription ``asked`` whose leaves build ``leaf`` (``leaf_built``): "" when it is ``asked`` within 2 % (whole ports: 2.98:1 is the 3:1 asked), or the
    leaves have spare uplinks (below 1:1, read as 1:1); else the ratio they build, and the lowest earlier value of
    ``rows`` (the sweep so far, by value) whose leaves build the same, as "same design as". The leaves' ratio, not the
    end to end one: a Dragonfly+'s global links set its bisection ratio whatever the leaves (its own column)."""
    built = max(1.0, leaf)
    if abs(built - asked) <= 0.02 * asked:
        return ""
    same = _same_as(leaf, rows)
    if same is not None:
        return _("same design as {ratio}: the leaves build {achieved}").format(
            ratio=units.ratio(same), achieved=units.ratio(built))
    return _("the leaves build {achieved} (whole ports and scalable units)").format(achieved=units.ratio(built))


def _same_as(leaf: float, rows) -> float | None:
    """The lowest value of ``rows`` (sweep rows so far, by value) whose leaves build the ratio ``leaf``: the same
    design; None when no earlier row does."""
    return next((r["oversubscription"] for r in rows if r.get("feasible")
                 and abs(r["leaf_oversubscription"] - leaf) <= 1e-9 * leaf), None)


def _short_notes(frame: pd.DataFrame) -> list[str]:
    """The display table's notes: beside a ratio cell that already reads ``asked → built``, only what it does not
    say: "same design as" the lowest value building it, else why the ratio moved (whole ports and scalable units);
    a value the engine cannot build keeps the engine's message."""
    rows = frame.to_dict("records")
    notes = []
    for i, row in enumerate(rows):
        if not row["feasible"] or not row["note"]:
            notes.append(row["note"] or "")
            continue
        same = _same_as(row["leaf_oversubscription"], rows[:i])
        notes.append(_("same design as {ratio}").format(ratio=units.ratio(same)) if same is not None
                     else _("whole ports and scalable units"))
    return notes


def capex_level2(frame: pd.DataFrame) -> bool:
    """Whether a row of the sweep ``frame`` has a capex that holds a second NVLink level's parts."""
    return "scaleup_capex_usd" in frame and bool((frame["scaleup_capex_usd"].fillna(0) > 0).any())


def capex_fabric(frame: pd.DataFrame) -> str:
    """The name of what the sweep's capex per GPU holds, as the cards name it (``vocab.compute_fabric``): the
    compute fabric, and NVLink level 2 when a row's capex holds a second NVLink level's parts (``capex_level2``)."""
    return embedded(vocab.compute_fabric("word", capex_level2(frame)))  # between Chinese words: spaced at its Latin end


def bisection_scale(frame: pd.DataFrame, unit: str) -> tuple[float, str]:
    """(divisor of Gb/s, unit) of the what-if table's bisection column in ``unit`` ("GB/s" or "Gb/s"), picked
    once by ``units.scale`` from the largest bisection the sweep built: ``800 GB/s`` stays in GB/s as the cards
    write it, 12.8 TB/s in TB/s."""
    feasible = frame["bisection_tbits"][frame["feasible"]] if len(frame) else frame["bisection_tbits"]
    return units.scale(float(max(feasible, default=0)) * 1000, unit)


def sweep_display_table(frame: pd.DataFrame, unit: str) -> pd.DataFrame:
    """The oversubscription sweep as shown to people, bandwidth in ``unit`` ("GB/s" bytes or "Gb/s" bits).

    Cross-fabric bandwidth is per GPU, one direction; bisection is one direction in TB/s or Tb/s. A leaf ratio the
    leaves do not reach reads ``4:1 → 2.67:1`` (asked, built at the leaf; ``oversubscription_sweep``'s note), its
    note only what the cell does not say (``_short_notes``: "same design as 1:1"), short enough to be read whole;
    the bisection ratio end to end has its own column (``1.5:1`` on a Dragonfly+ whose leaves are 1:1).
    """
    scale = 1 / 8 if unit == "GB/s" else 1  # the sweep is in bits
    divisor, bisection_unit = bisection_scale(frame, unit)
    # a value the leaves do not reach (its note says so): the ratio asked -> the leaves' ratio built
    built = [f"{units.ratio(v)} → {units.ratio(max(1.0, e))}" if ok and note else units.ratio(v) for v, e, ok, note
             in zip(frame["oversubscription"], frame["leaf_oversubscription"], frame["feasible"], frame["note"])]
    return pd.DataFrame({
        _("leaf oversubscription"): built,
        _("bisection ratio"): [units.ratio(e) if ok else "" for e, ok in zip(frame["effective_oversubscription"],
                                                                              frame["feasible"])],
        _("buildable"): frame["feasible"],
        _("cross-fabric per GPU [{unit}]").format(unit=unit): (frame["cross_fabric_gbits_per_gpu"] * scale).round(1),
        _("bisection [{unit}]").format(unit=bisection_unit): [units.bandwidth_in(v * 1000, divisor)
                                                              for v in frame["bisection_tbits"]],
        _("tiers"): frame["tiers"],
        _("switches"): frame["switches"],
        in_currency(_("{fabric} capex per GPU [USD]").format(fabric=capex_fabric(frame))): [
            usd(v) for v in frame["network_capex_per_gpu_usd"]],
        _("note"): _short_notes(frame),
    })
