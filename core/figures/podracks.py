"""The Racks tab of a design with pods: the whole hall (``core.analysis.pods.MixedPlan.hall``: every pod's rows and
the shared spines' racks), its key numbers and the cable lengths of every link class of every pod, drawn with
``core.figures.racks``' figures (pure Plotly, texts in the current language)."""

from __future__ import annotations

from types import SimpleNamespace

import plotly.graph_objects as go

from core.figures.keynumbers import KeyNumber, rack_key_numbers
from core.figures.racks import MAX_RACK_TYPES, floor_plan_figure, rack_elevation_figure, series_lengths_figure
from core.physical.racks import preset_label
from core.i18n import N_, _, ngettext
from core.units import kw

HALL_NOTE = N_("Every pod's racks stand in one hall, pod by pod: each pod's rows as the pod alone would have them, "
               "without its own spines (its management, storage and any level-2 NVLink racks stay in its own "
               "central rows); the shared spines' racks stand in rows of their own in the middle of the hall, "
               "after the first half of the pods' rows, and every pod's leaf-spine cables run to them. The lengths, "
               "their media and the mixed bill's cables and optics are this hall's.")
"""How the hall of a design with pods is laid out (the Racks tab's and the review pack's words;
``core.physical.podlayout``)."""
HALL_NOTE_THREE = N_("Every pod's racks stand in one hall, pod by pod: each pod's rows as the pod alone would have "
                     "them, with its own spines and without its own cores (its management, storage and any level-2 "
                     "NVLink racks stay in its own central rows); the shared cores' racks stand in rows of their own "
                     "in the middle of the hall, after the first half of the pods' rows, and every pod's spine-core "
                     "cables run to them. The lengths, their media and the mixed bill's cables and optics are this "
                     "hall's.")
"""How the hall of a design with pods on three tiers is laid out (``HALL_NOTE``'s words for the shared cores)."""
NVLINK_NOTE = N_("From each rack's NVLink switch trays (or each node's NVLink cages) to the level-2 NVLink switches, "
                 "which stand in network racks of their own pod's central rows, among the pod's rows, not with the "
                 "shared spines (an assumption: NVIDIA published no floor plan for them); an NVL36x2 pair is cabled "
                 "rack to rack. Measured in the hall; every cable is in the cabling plan export.")
"""Where a design with pods' level-2 NVLink switches stand and how their cables are measured (the Racks tab's and
the review pack's words; ``core.physical.podlayout.pods_nvlink_summary``)."""


def pod_word(mixed, pod: int) -> str:
    """``pod 2`` for the pod at position ``pod`` of ``mixed.fabric.pods`` (its 1-based number)."""
    return _("pod {pod}").format(pod=mixed.fabric.pods[pod].index + 1)


def row_tags(mixed) -> dict[int, str]:
    """0-based hall row -> whose racks stand in it: its pods (``pod 2``) or the shared spines (three tiers: cores)."""
    shared = _("shared cores") if mixed.fabric.tiers == 3 else _("shared spines")
    return {row: ", ".join(pod_word(mixed, i) for i in pods) if pods else shared
            for row, pods in enumerate(mixed.hall.pods_of_rows)}


def hall_notes(mixed) -> list[str]:
    """The hall's words in the current language: how it is laid out (``HALL_NOTE``, ``HALL_NOTE_THREE`` for pods on
    three tiers) and, when the first pod adds out-of-band switches for the shared layer's management or another pod
    for its racks' PDUs as built (``core.analysis.podmgmt.extra_oob_switches``), where they stand."""
    from core.analysis.podmgmt import extra_oob_switches

    notes = [_(HALL_NOTE_THREE if mixed.fabric.tiers == 3 else HALL_NOTE)]
    extra = extra_oob_switches(mixed)[2]
    if extra:
        notes.append(ngettext(
            "{count} out-of-band switch is added to {pod}'s management network for the shared switches and their "
            "racks' PDUs; it stands in the shared rows' racks.",
            "{count} out-of-band switches are added to {pod}'s management network for the shared switches and their "
            "racks' PDUs; they stand in the shared rows' racks.", extra).format(count=extra, pod=pod_word(mixed, 0)))
    for i in range(1, len(mixed.plans)):  # a pod whose own switches have too few ports for its racks' PDUs as built
        extra = extra_oob_switches(mixed, i)[2]
        if extra:
            notes.append(ngettext(
                "{count} out-of-band switch is added to {pod}'s management network for its racks' PDUs as the hall "
                "builds them; it stands in the shared rows' racks.",
                "{count} out-of-band switches are added to {pod}'s management network for its racks' PDUs as the "
                "hall builds them; they stand in the shared rows' racks.", extra).format(count=extra,
                                                                                    pod=pod_word(mixed, i)))
    return notes


def hall_figures(mixed) -> tuple[go.Figure, go.Figure, go.Figure]:
    """(floor plan, rack elevations, cable lengths) of the hall of ``mixed``: every row tagged with its pods, every
    distinct rack of every pod and of the shared spines (up to 8 and 4 more per extra pod), a bar per pod and link class (``MixedPlan.lengths``,
    hover: the media of ``MixedPlan.media``)."""
    hall = mixed.hall
    series = [(pod_word(mixed, i), item, media)
              for i, (classes, media) in enumerate(zip(mixed.lengths, mixed.media)) for item in classes]
    most = MAX_RACK_TYPES + 4 * (len(mixed.plans) - 1)  # each pod's own compute, leaf and other racks
    systems = {p.resolved.system.id: p.resolved.gpus_per_node for p in mixed.plans}  # the floor plan says nodes
    return (floor_plan_figure(hall.layout, row_tags(mixed), systems), rack_elevation_figure(hall.layout, most),
            series_lengths_figure(series))


def hall_key_numbers(mixed) -> list[KeyNumber]:
    """The hall's cards (``core.figures.keynumbers.rack_key_numbers`` of the whole hall and every pod's lengths),
    the nodes per rack given pod by pod (each pod's racks follow its own system and rack limits), the rows as the
    hall stands them (``core.physical.podlayout``: the pods' rows pod by pod, the shared spines' rows between them),
    not a single fabric's."""
    hall = mixed.hall
    lengths = [item for classes in mixed.lengths for item in classes]
    numbers = rack_key_numbers(SimpleNamespace(layout=hall.layout, lengths=lengths))
    per_pod = " / ".join(f"{p.layout.nodes_per_rack:,}" for p in mixed.plans)
    words = _("; ").join(_("{pod}: {limit} kW, {units}U ({preset})").format(
        pod=pod_word(mixed, i), limit=kw(p.layout.power_limit_kw), units=p.layout.rack_units,
        preset=preset_label(p.layout.preset)) for i, p in enumerate(mixed.plans))
    return [KeyNumber(n.key, n.label, per_pod, words) if n.key == "nodes_per_rack" else
            KeyNumber(n.key, n.label, n.value, _rows_words(hall)) if n.key == "rows" else n for n in numbers]


def _rows_words(hall) -> str:
    """The Rows card's words of a ``core.physical.podlayout.PodsHall``: its pods' rows (each pod's scalable units
    and its own central rows, named by the kinds of racks in them) and the shared spines' rows in the middle."""
    central = {row.index for row in hall.layout.rows if row.kind == "central" and hall.pods_of_rows[row.index]}
    kinds = {s.kind for rack in hall.layout.racks if rack.row in central for s in rack.slots}
    names = [name for kind, name in (("management", _("management")), ("storage", _("storage")),
                                     ("nvlink2", _("level-2 NVLink"))) if kind in kinds]
    pods, spines = sum(1 for t in hall.pods_of_rows if t), sum(1 for t in hall.pods_of_rows if not t)
    shared = (ngettext("{spines} row of shared cores in the middle", "{spines} rows of shared cores in the middle",
                       spines) if any(s.kind == "core" for r in hall.layout.racks for s in r.slots) else
              ngettext("{spines} row of shared spines in the middle", "{spines} rows of shared spines in the middle",
                       spines))
    first = (_("{pods} rows of the pods, pod by pod (each pod's scalable units and its own central rows of {kinds} "
               "racks)").format(pods=f"{pods:,}", kinds=_(", ").join(names)) if names else
             _("{pods} rows of the pods, pod by pod").format(pods=f"{pods:,}"))
    return _("; ").join((first, shared.format(spines=f"{spines:,}")))
