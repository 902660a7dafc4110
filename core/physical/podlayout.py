"""The hall of a design with pods: every pod's racks and the shared spine layer's on one floor, and the length of
every compute link between them.

``pods_hall(wiring, layouts, spine, spine_watts) -> PodsHall``. Each pod planned alone has its own rack layout
(``core.physical.layout``: its scalable units in rows, its spines, management and storage racks in central rows);
the whole design stands in one hall by these rules:

* **Pods' rows, in pod order.** Each pod keeps the rows of its own layout (its plan alone's, or arranged again
  around its in-band network when that grows on the whole design: ``core.analysis.pods``) in their order, every rack
  with the same devices at the same U, side by side from the row's start as before, except its own spines (a pod
  planned alone has some; a design with pods has none: ``core.fabric.pods``): a rack that held only them is gone,
  and a row that held only such racks too. A pod's management and storage racks, and its level-2 NVLink switches'
  racks, stay in its own central rows among its own rows (each pod keeps its own networks, as the mixed bill counts
  them; the hall's words: ``core.figures.podracks``).
* **Shared spines in the middle.** The ``N`` shared spines (``core.fabric.podwiring``: ``spine0`` ...) fill network
  racks (the network rack preset) from U1 up, as many per rack as its usable U and power limit take
  (``core.physical.layout.how_many``), in rows of at most ``hall.max_racks_per_row`` racks; these rows stand in the
  middle of the hall's rows (after the first half of the pods' rows, as a one-fabric layout puts its central rows
  in the middle of its scalable units' rows), so a pod's rows can stand on both sides of them. On several planes
  every plane's shared spines (``p1.spine0``), plane after plane, fill the racks in turn.
* **Pods on three tiers** (``core.fabric.podcore``): each pod keeps its own spines in its own central rows and
  loses its own cores (the design has none); the ``shared cores`` (``core0`` ...) fill the middle rows' network
  racks as the shared spines would, so a pod's spine-core cables run across rows to them.
* **Extra out-of-band switches** (``ExtraSwitches``: the first pod's, for the shared layer's management ports and
  its racks' PDUs, and any pod's whose own switches have too few ports for its racks' PDUs as built,
  ``core.analysis.podmgmt``): above the shared switches in the shared racks' free U and power, rack by rack, group
  by group, the rest in network racks of their own after them in the shared rows; the first pod's count depends on
  the shared racks (their PDUs), so it is placed last and settled by repeating until it holds.
* **Floor.** The one-fabric layout's floor rule over the hall's rows: the row pitch is the largest of the pods'
  (rack depth plus half the aisles), every row starts after an end aisle, rows stand in columns of
  ``core.physical.layout.rows_per_column`` rows (row span: the longest row plus two end aisles); a rack's centre is
  its column's start plus the widths of the racks before it in its row plus half its own. Racks are named
  ``R{row}-{position}`` over the whole hall (1-based, zero-padded), as one layout names them.

Device ids are the whole fabric's (``core.fabric.podwiring.PodsWiring``): a pod's device is its own id after the
pod prefix (``pod2.node3``, ``pod2.p0.leaf1``, ``pod2.storage.leaf0``), a shared spine ``spine0``. ``PodsHall.layout``
is a ``core.physical.layout.Layout`` of them all (its ``position``, the floor plan and rack drawings, the cable
lengths read it as any layout); ``PodsHall.views`` holds per pod a ``Layout`` of its own racks only, under its own
ids, at their places and names in the hall (a pod's cabling plan and NetBox devices read it as its plan alone reads
its own layout).

**Lengths.** ``pods_link_arrays`` measures every compute link of the wiring (``PodsWiring.bundles``: each pod's
node-leaf links and every pod leaf's links to every shared spine; on three tiers each pod's own leaf-spine links
and every pod spine's links to the cores of its group) between its two ends' places in the hall by
``core.physical.lengths``' routing rule, per pod and link class; ``pods_link_lengths`` bins them
(``core.physical.lengths.bin_lengths``). A pod's node-leaf links stay in its scalable unit's row, so their lengths
are those of the pod alone; its leaf-spine links run to the shared spines' rows, rows away, not to the pod's own
central rows. Building the hall is O(racks + devices' slots); measuring is O(bundles), vectorised per device prefix.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple, Sequence

import numpy as np

from core.catalog import Switch
from core.fabric.podwiring import PodsWiring
from core.physical.layout import Layout, Rack, Row, Slot, how_many, rows_per_column
from core.physical.lengths import LinkEnds, LinkLengths, bin_lengths, pair_lengths
from core.physical.racks import RackCatalog, load_racks

_SPINE_PREFIX = PodsWiring.spine_id(0)[:-1]
"""Slot prefix of the shared spines (``spine``: ``PodsWiring.spine_id`` without its number)."""
_CORE_PREFIX = PodsWiring.core_id(0)[:-1]
"""Slot prefix of the shared cores of pods on three tiers (``core``: ``PodsWiring.core_id`` without its number)."""
_ID = re.compile(r"^(.*?)(\d+)$")
LINK_CLASSES = ("node-leaf", "leaf-spine", "spine-core")
"""The compute link classes of a design with pods, in order (spine-core: pods on three tiers)."""


def shared_kind(wiring: PodsWiring) -> str:
    """The switch kind of the hall's shared layer (and the slot kind a pod alone has that the hall drops):
    ``spine``, or ``core`` for pods on three tiers."""
    return "core" if wiring.three_tiers else "spine"


@dataclass(frozen=True)
class PodsHall:
    """Every pod's racks and the shared spines' in one hall (module docstring)."""

    layout: Layout
    """The whole hall under the whole fabric's device ids (``pod2.node3``, ``spine0``); its compute rack preset,
    power limit, height and nodes per rack are the first pod's (each pod's own are its own layout's), its notes
    every pod's."""
    views: tuple[Layout, ...]
    """Per pod (``MixedFabric.pods`` order) its own racks in the hall under its own ids (``node3``, ``p0.leaf1``)."""
    pods_of_rows: tuple[tuple[int, ...], ...]
    """Per hall row the positions of the pods whose racks stand in it (empty: a row of shared spines or cores)."""
    rack_names: tuple[dict, ...]
    """Per pod: the name of each of its racks in its layout alone -> its name in the hall."""
    spine_racks: int
    """Racks of the shared rows: the shared spines' (three tiers: cores') and the extra out-of-band switches' own."""


def _spine_racks(wiring: PodsWiring, spine: Switch, watts: float, racks: RackCatalog) -> list[tuple]:
    """``(preset, u_total, kw_limit, slots)`` of the shared spines' (three tiers: cores') network racks:
    ``how_many`` switches of ``spine`` (``watts`` [W] each) a rack takes by usable U and power, filled from U1 up,
    switch by switch, plane by plane."""
    kind = shared_kind(wiring)
    base, total = (_CORE_PREFIX, wiring.fabric.cores) if wiring.three_tiers else (_SPINE_PREFIX, wiring.fabric.spines)
    preset = racks.network
    usable = preset.rack_units - min(preset.reserved_u, preset.rack_units - 1)
    per_rack = min(how_many(usable, spine.rack_units, 10**6), how_many(preset.power_kw * 1000, watts, 10**6))
    per_rack = max(1, per_rack)  # a spine taller or hungrier than a network rack stands alone in one (drawn over)
    out, slots, room = [], [], per_rack
    for q in range(wiring.planes):  # plane by plane (core.fabric.podwiring: p1.spine0), a rack may hold two planes'
        prefix, first = wiring.shared_prefix(q) + base, 0
        while first < total:
            count = min(room, total - first)
            slots.append(Slot(kind, spine.id, prefix, first, count, 1 + math.ceil((per_rack - room) * spine.rack_units),
                              spine.rack_units, watts))
            first, room = first + count, room - count
            if room == 0:
                out.append((preset, preset.rack_units, preset.power_kw, tuple(slots)))
                slots, room = [], per_rack
    if slots:
        out.append((preset, preset.rack_units, preset.power_kw, tuple(slots)))
    return out


class ExtraSwitches(NamedTuple):
    """Out-of-band switches the shared layer's management adds to the first pod's network
    (``core.analysis.podmgmt.extra_switches``): model, whole-fabric id prefix (``pod1.oob.switch``), first index,
    height [U], power [W] each, and their count as a function of the shared layer's racks (whose PDUs they serve)."""

    model: str
    prefix: str
    first: int
    height_u: float
    watts: float
    count_of: Callable[[int], int]


def _room(slots: tuple, usable: float, kw_limit: float, extra: ExtraSwitches, most: int) -> tuple[int, int]:
    """``(how many, first U)`` of ``extra``'s switches (at most ``most``) a rack of ``slots`` takes above them in
    its ``usable`` U and its power limit ``kw_limit`` [kW]."""
    used_u = sum(s.count * s.height_u for s in slots)
    used_w = sum(s.count * s.watts_each for s in slots)
    fits = min(how_many(max(0.0, usable - math.ceil(used_u)), extra.height_u, most),
               how_many(max(0.0, kw_limit * 1000 - used_w), extra.watts, most))
    return max(0, fits), math.ceil(used_u) + 1


def _with_extras(shared: list[tuple], extra: ExtraSwitches, racks: RackCatalog) -> list[tuple]:
    """The shared layer's racks (``_spine_racks``' tuples) with ``extra``'s switches in them: in each rack's free U
    and power in turn, the rest in network racks of their own after them; their count is ``extra.count_of`` the
    racks this makes (a rack of their own adds PDUs to serve, so the count is settled by repeating until it holds)."""
    preset = racks.network
    usable = preset.rack_units - min(preset.reserved_u, preset.rack_units - 1)
    added = 0
    for _attempt in range(64):
        count, out, start = extra.count_of(len(shared) + added), [], extra.first
        for rack_preset, u_total, kw_limit, slots in shared:
            take, first_u = _room(slots, usable, kw_limit, extra, count - (start - extra.first))
            if take:
                slots = slots + (Slot("management", extra.model, extra.prefix, start, take, first_u, extra.height_u,
                                      extra.watts),)
                start += take
            out.append((rack_preset, u_total, kw_limit, slots))
        left = count - (start - extra.first)
        per_rack = max(1, _room((), usable, preset.power_kw, extra, max(1, left))[0])
        if math.ceil(left / per_rack) <= added:
            break
        added = math.ceil(left / per_rack)
    while left > 0:
        take = min(per_rack, left)
        out.append((preset, preset.rack_units, preset.power_kw, (Slot(
            "management", extra.model, extra.prefix, start, take, 1, extra.height_u, extra.watts),)))
        start, left = start + take, left - take
    return out


def _pod_rows(i: int, wiring: PodsWiring, layout: Layout) -> list[list[tuple[Rack, tuple, tuple]]]:
    """The rows of pod ``i``'s own ``layout`` without its own spines (three tiers: its own cores): per row, per rack
    kept, (the rack, its slots under the pod's own ids, the same under the whole fabric's ids); a rack that held
    them among other devices keeps the others (its power [kW] and U used without them)."""
    dropped = shared_kind(wiring)
    rows: list[list] = [[] for _row in layout.rows]
    for rack in layout.racks:
        own = tuple(s for s in rack.slots if s.kind != dropped)
        if own:
            if len(own) < len(rack.slots):
                gone = [s for s in rack.slots if s.kind == dropped]
                rack = rack._replace(kw=rack.kw - sum(s.count * s.watts_each for s in gone) / 1000,
                                     u_used=rack.u_used - sum(s.count * s.height_u for s in gone))
            whole = tuple(s._replace(prefix=wiring.local_id(i, s.prefix)) for s in own)
            rows[rack.row].append((rack, own, whole))
    return [row for row in rows if row]


def kept_racks(wiring: PodsWiring, i: int, layout: Layout) -> list[Rack]:
    """The racks of pod ``i``'s own ``layout`` the hall keeps (``_pod_rows``: all but those that held only its own
    spines, three tiers: its own cores), before the hall stands them (their kinds as ``PodsHall.views`` has them)."""
    return [rack for row in _pod_rows(i, wiring, layout) for rack, _own, _whole in row]


def _index(racks: Sequence[Rack]) -> dict:
    """``Layout.index`` of ``racks``: device prefix -> (sorted starts, (rack index, slot index) refs)."""
    found: dict[str, list] = {}
    for rack_i, rack in enumerate(racks):
        for slot_i, slot in enumerate(rack.slots):
            found.setdefault(slot.prefix, []).append((slot.start, rack_i, slot_i))
    out = {}
    for prefix, entries in found.items():
        entries.sort()
        out[prefix] = ([e[0] for e in entries], [(e[1], e[2]) for e in entries])
    return out


def pods_hall(wiring: PodsWiring, layouts: Sequence[Layout], spine: Switch, spine_watts: float,
              racks: RackCatalog | None = None, extra: Sequence[ExtraSwitches] = ()) -> PodsHall:
    """The hall of a design with pods (module docstring).

    Parameters
    ----------
    wiring : PodsWiring
        The mixed fabric's wiring (its pods and shared spine count, and the device ids).
    layouts : sequence of Layout
        Each present pod's layout planned alone (``MixedPlan.plans``' ``layout``), in ``wiring.fabric.pods`` order.
    spine : Switch
        The shared layer's model (its height [U]): the shared spines', or on three tiers the shared cores'.
    spine_watts : float
        Power of one shared spine (core) [W] (the catalog's or the design's override).
    racks : RackCatalog, optional
        Rack presets and hall rules (default the shipped ones).
    extra : sequence of ExtraSwitches, optional
        The out-of-band switches the pods' management adds (the first pod's for the shared layer, a pod's for its
        racks' PDUs as built), placed in the shared racks in this order (module docstring); a count that depends on
        the shared racks is settled after the others'.

    Returns
    -------
    PodsHall
        The hall's ``Layout`` under the whole fabric's ids, each pod's view, the pods of each row and the rack names.
    """
    racks = racks or load_racks()
    pod_rows = [(i, row) for i, layout in enumerate(layouts) for row in _pod_rows(i, wiring, layout)]
    spine_racks = _spine_racks(wiring, spine, spine_watts, racks)
    for group in extra:
        spine_racks = _with_extras(spine_racks, group, racks)
    most = racks.hall.max_racks_per_row
    spine_rows = [[(None, slots, slots, preset, u_total, kw_limit) for preset, u_total, kw_limit, slots
                   in spine_racks[k:k + most]] for k in range(0, len(spine_racks), most)]
    presets = {}

    def entry(rack: Rack, own: tuple, whole: tuple) -> tuple:
        preset = presets.get(rack.preset) or presets.setdefault(rack.preset, racks.preset(rack.preset))
        return rack, own, whole, preset, rack.u_total, rack.kw_limit

    hall_rows = [(i, [entry(*found) for found in row]) for i, row in pod_rows]
    half = len(hall_rows) // 2
    hall_rows = hall_rows[:half] + [(None, row) for row in spine_rows] + hall_rows[half:]
    return _placed(hall_rows, layouts, racks, len(spine_racks))


def _placed(hall_rows: list, layouts: Sequence[Layout], racks: RackCatalog, spine_racks: int) -> PodsHall:
    """The ``PodsHall`` of ``hall_rows`` (per row its pod position, None for shared spines, and its racks as
    ``(pod rack or None, own slots, whole slots, preset, U, kW limit)``) on the floor (module docstring)."""
    pitch = max(layout.row_pitch_m for layout in layouts)
    end_aisle = racks.hall.end_aisle_mm / 1000
    widths = [sum(found[3].width_mm / 1000 for found in row) for _pod, row in hall_rows]
    row_span = max(widths, default=0.0) + 2 * end_aisle
    per_column = rows_per_column(len(hall_rows), row_span, pitch)
    digits_row = max(2, len(str(len(hall_rows))))
    digits_pos = max(2, len(str(max((len(row) for _pod, row in hall_rows), default=1))))
    whole_racks: list[Rack] = []
    views: list[list[Rack]] = [[] for _layout in layouts]
    names: list[dict] = [{} for _layout in layouts]
    rows: list[Row] = []
    for row_i, (pod, row) in enumerate(hall_rows):
        column, line = divmod(row_i, per_column)
        x0, x = column * row_span + end_aisle, 0.0
        for pos, (rack, own, whole, preset, u_total, kw_limit) in enumerate(row):
            width = preset.width_mm / 1000
            name = f"R{row_i + 1:0{digits_row}d}-{pos + 1:0{digits_pos}d}"
            kind = rack.kind if rack is not None else (  # a rack of extra out-of-band switches alone: management
                "management" if all(s.kind == "management" for s in whole) else "network")
            kw = rack.kw if rack is not None else sum(s.count * s.watts_each for s in whole) / 1000
            used = rack.u_used if rack is not None else sum(s.count * s.height_u for s in whole)
            placed = Rack(name, kind, row_i, pos, u_total, used, kw, kw_limit, preset.id, whole,
                          x0 + x + width / 2, line * pitch)
            x += width
            whole_racks.append(placed)
            if rack is not None:
                views[pod].append(placed._replace(slots=own))
                names[pod][rack.name] = name
        kind = "compute" if any(found[0] is not None and found[0].kind == "compute" for found in row) else "central"
        rows.append(Row(index=row_i, kind=kind, racks=len(row), length_m=x))
    columns = math.ceil(len(hall_rows) / per_column) if hall_rows else 1
    length, width = columns * row_span, min(len(hall_rows), per_column) * pitch
    first = layouts[0]
    notes = tuple(dict.fromkeys(note for layout in layouts for note in layout.notes))  # each pod's, once

    def layout_of(placed: list[Rack]) -> Layout:
        return Layout.model_construct(preset=first.preset, power_limit_kw=first.power_limit_kw, rack_units=first.rack_units,
                      nodes_per_rack=first.nodes_per_rack, node_kw=first.node_kw, racks=tuple(placed),
                      rows=tuple(rows), row_pitch_m=pitch, floor_area_m2=length * width, hall_length_m=length,
                      hall_width_m=width, notes=notes, index=_index(placed))

    return PodsHall(layout=layout_of(whole_racks), views=tuple(layout_of(v) for v in views),
                    pods_of_rows=tuple(() if pod is None else (pod,) for pod, _row in hall_rows),
                    rack_names=tuple(names), spine_racks=spine_racks)


def _ends(ids: list[str], ends: LinkEnds) -> tuple[np.ndarray, np.ndarray]:
    """(rack indices, U centres) of the devices ``ids`` in the hall (``core.physical.lengths``' look-up), one
    vectorised look-up per device prefix."""
    prefixes, numbers = zip(*((m[1], int(m[2])) for m in map(_ID.match, ids)))
    numbers = np.array(numbers, dtype=np.int64)
    rack_of = np.empty(len(ids), dtype=np.int64)
    centre = np.empty(len(ids), dtype=float)
    by_prefix: dict[str, list[int]] = {}
    for k, prefix in enumerate(prefixes):
        by_prefix.setdefault(prefix, []).append(k)
    for prefix, at in by_prefix.items():
        at = np.array(at, dtype=np.int64)
        rack_of[at], centre[at] = ends.locate(prefix, numbers[at])
    return rack_of, centre


def pods_link_arrays(hall: PodsHall, wiring: PodsWiring, racks: RackCatalog | None = None
                     ) -> dict[tuple[int, str], tuple[np.ndarray, np.ndarray, np.ndarray, list, list]]:
    """Per (pod position, link class): every bundle's length [m] (slack included), links, route code (0 in-rack,
    1 in-row, 2 across rows: ``core.physical.lengths.ROUTES``) and its two ends' ids, over ``wiring.bundles()``
    (module docstring)."""
    routing = (racks or load_racks()).routing
    found: dict[tuple[int, str], tuple[list, list, list]] = {}
    for bundle in wiring.bundles():
        pod = wiring.parse(bundle.a)[0]
        a_ids, b_ids, counts = found.setdefault((pod, bundle.kind), ([], [], []))
        a_ids.append(bundle.a)
        b_ids.append(bundle.b)
        counts.append(bundle.count)
    ends = LinkEnds(hall.layout)
    out = {}
    for key in sorted(found, key=lambda k: (k[0], LINK_CLASSES.index(k[1]))):
        a_ids, b_ids, counts = found[key]
        (ra, ua), (rb, ub) = _ends(a_ids, ends), _ends(b_ids, ends)
        length, route = pair_lengths(ends, routing, ra, ua, rb, ub)
        out[key] = (length, np.array(counts, dtype=np.int64), route, a_ids, b_ids)
    return out


def pods_link_lengths(hall: PodsHall, wiring: PodsWiring, racks: RackCatalog | None = None
                      ) -> tuple[tuple[LinkLengths, ...], ...]:
    """Per pod (``wiring.fabric.pods`` order) the length distribution of each of its link classes in the hall
    (``LINK_CLASSES`` order; ``core.physical.lengths.bin_lengths`` of ``pods_link_arrays``): counts add up to the
    wiring's links."""
    arrays = pods_link_arrays(hall, wiring, racks)
    return tuple(tuple(bin_lengths(c, *arrays[i, c][:3]) for c in LINK_CLASSES if (i, c) in arrays)
                 for i in range(len(wiring.fabric.pods)))


def pods_nvlink_summary(mixed) -> list[tuple[int, dict]]:
    """Every pod's level-2 NVLink cables in the hall: ``(pod position, row)`` per pod and link class, ``row`` as
    ``core.physical.cabling.nvlink_summary`` gives it (lengths [m] between the pod's own racks where they stand in
    the hall, ``PodsHall.views``); a pod with one NVLink level has none. ``mixed``: a ``MixedPlan``."""
    from types import SimpleNamespace

    from core.physical.cabling import nvlink_summary

    views = mixed.hall.views if mixed.hall is not None else tuple(p.layout for p in mixed.plans)
    return [(i, row) for i, (p, view) in enumerate(zip(mixed.plans, views))
            for row in nvlink_summary(SimpleNamespace(resolved=p.resolved, layout=view))]
