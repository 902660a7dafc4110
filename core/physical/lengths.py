"""Cable lengths from the positions of a link's two ends, and their distribution per link class.

Routing rule (constants in ``assets/catalog/racks.toml`` ``[routing]``, each sourced or an assumption):

* **same rack**: ``|height difference| + in_rack_m`` (the run between the two ports' U centres,
  ``u_mm`` per U, plus the crossing to the side cable manager);
* **different racks** (same row or across rows): up from the port to the top of its rack and
  ``tray_above_rack_m`` to the overhead tray, along the trays by the Manhattan distance between the
  two racks (along the row, then across rows, rack centres), and down to the other port;
* **slack**: the run x ``(1 + slack_fraction)`` + ``2 x slack_end_m`` (a service loop at each end).

``length_m(layout, a, z)`` is one link's length [m] (device ids as ``Layout.position`` takes them;
the cabling plan uses it). ``link_lengths(resolved, fabric, layout)`` gives, per link class
(node-leaf, leaf-spine, spine-core), the links' lengths binned by ``BIN_EDGES_M``: a bin holds its link count,
longest and mean length and whether most of its links stay in a rack, in a row or cross rows. Counts over the bins
add up to the fabric's link counts (summed over planes).

**Repeating blocks.** Planning (``placed_link_lengths``, from the arrangement's ``RackPlaces``) does not measure
every link: the node-leaf links once per SU template, counted once per SU of it (``_node_leaf_blocks``); a
Dragonfly's links inside its groups once per class of groups that stand alike (``_group_blocks``); a Clos's
leaf-spine links per pair of rack cells (plane, pod, rack) with their counts per port height (``_cell_pairs``); the
other classes (spine-core, a rail-only fabric's) once per kind of link, a class of rack
pairs (distance along the trays, route) times a pair of port heights, counted in integers (``_compacted``: still a
pass over the links, but no length per link; a Clos's spine-core links and its islands' leaf-spine links per piece
of a range of consecutive switches, ``_ranged``: the same counts); the Dragonflies' global links per distance between
two groups and pair of group places when the groups stand alike (``_pair_blocks``: a pass over the pairs of groups,
not their links). A layout built whole,
and ``link_arrays``, measure every link of the fabric's bundles (``core.fabric.wiring.Wiring.bundle_arrays``): the
reference the blocks equal (``tests/test_physical_closed.py``). Two rules make them equal in every bit: the run
along the trays is added in whole micrometres and rounded once (``_tray_m``: the same for a block wherever it stands),
and a bin's mean and the total are those of its exact length sum (``_exact_sums``), correctly rounded, whatever the
grouping (from float sums where an error bound shows they round alike: ``_decided_means``).
"""

from __future__ import annotations

import math
from functools import partial
from fractions import Fraction

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict

from core.design import ResolvedDesign, ResolvedFields, resolved_of
from core.fabric.families import clos_tiers
from core.fabric.sizing import FabricPlan
from core.fabric.wiring import Wiring, wiring_of
from core.memo import bypassed, spoken, stage, text_bytes
from core.physical.layout import Arrangement, Layout, RackPlaces, arrange_drafted, drafted_racks, su_places
from core.physical.racks import RackCatalog, Routing, load_racks
from core.units import length_bin_name

BIN_EDGES_M = (0.0, 3.0, 5.0, 10.0, 20.0, 30.0, 50.0, 100.0, 500.0, math.inf)
"""Length bins [m]: <=3, 3-5, 5-10, 10-20, 20-30, 30-50, 50-100, 100-500, over 500."""
ROUTES = ("in-rack", "in-row", "across-rows")


class LengthBin(BaseModel):
    model_config = ConfigDict(frozen=True)

    low_m: float
    high_m: float
    """Upper edge [m] (``inf`` for the last bin)."""
    links: int
    max_m: float
    mean_m: float
    route: str
    """Where most links of the bin run: in-rack, in-row or across-rows."""

    def label(self) -> str:
        """``"<= 3 m"``, ``"10-20 m"``, ``"> 500 m"`` (``core.units.length_bin_name``: the same in every language)."""
        return length_bin_name(self.low_m, self.high_m)


class LinkLengths(BaseModel):
    """Lengths of one link class (all planes)."""

    model_config = ConfigDict(frozen=True)

    link_class: str
    links: int
    bins: tuple[LengthBin, ...]
    max_m: float
    mean_m: float
    total_m: float


_END_PREFIXES = ("node", "p")
"""Device id prefixes whose positions the compute links read (nodes and every plane's switches)."""


class LinkEnds:
    """Vectorised device lookup: prefix + index arrays -> rack index, U centre.

    From a ``Layout``, or from the ``Arrangement`` it is built from or its ``RackPlaces`` (``RackPlaces.arrays``: the
    same positions and device tables of the fabric's devices, without building the layout's racks); a ``Layout``
    whose racks are not built yet is read through its arrangement (``Layout.arrangement``)."""

    def __init__(self, layout: Layout | Arrangement | RackPlaces):
        self._tables: dict[str, tuple] = {}
        self._located: dict[tuple, tuple] = {}  # ``locate_all``'s and ``heights_all``'s, by their arguments
        if isinstance(layout, Layout) and layout.arrangement is not None:  # racks not built: read the arrangement
            layout = layout.arrangement
        if isinstance(layout, (Arrangement, RackPlaces)):
            self.layout = None
            places = layout.places(_END_PREFIXES) if isinstance(layout, Arrangement) else layout
            self.x, self.y, self.top, self.row, self._tables = places.arrays()
            return
        self.layout = layout
        self.x = np.array([r.x_m for r in layout.racks])
        self.y = np.array([r.y_m for r in layout.racks])
        self.top = np.array([r.u_total for r in layout.racks], dtype=float)
        self.row = np.array([r.row for r in layout.racks])

    @property
    def x_um(self) -> np.ndarray:
        """Rack centres along the rows [whole micrometres] (``_grid``)."""
        if "_x_um" not in self.__dict__:
            self._x_um = _grid(self.x)
        return self._x_um

    @property
    def y_um(self) -> np.ndarray:
        """Row lines across the hall [whole micrometres] (``_grid``)."""
        if "_y_um" not in self.__dict__:
            self._y_um = _grid(self.y)
        return self._y_um

    def table(self, prefix: str):
        if prefix not in self._tables:
            starts, refs = self.layout.index[prefix]
            slots = [self.layout.racks[r].slots[s] for r, s in refs]
            self._tables[prefix] = (np.array(starts), np.array([r for r, _s in refs]),
                                    np.array([s.first_u for s in slots], dtype=float),
                                    np.array([s.height_u for s in slots], dtype=float))
        return self._tables[prefix]

    def locate(self, prefix: str, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        starts, racks, first, height = self.table(prefix)
        k = np.searchsorted(starts, index, side="right") - 1
        centre = first[k] + (index - starts[k]) * height[k] + height[k] / 2 - 1  # U centre, from the rack floor
        return racks[k], centre

    def locate_all(self, prefixes: list[str], count: int) -> tuple[np.ndarray, np.ndarray]:
        """``locate`` of devices ``0 .. count-1`` of every prefix: (rack indices, U centres), each of shape
        (prefixes, count), so a link's end is one look-up (``[which, index]``) instead of a search (the same
        formula and operands as ``locate``, so the same numbers). Kept for the next class asking the same (a rail-only
        fabric's spines end its leaf-spine and its spine-core links), read-only."""
        key = (tuple(prefixes), count)
        found = self._located.get(key)
        if found is not None:
            return found
        index = np.arange(count)
        racks = np.empty((len(prefixes), count), dtype=np.int64)
        centres = np.empty((len(prefixes), count), dtype=float)
        for row, prefix in enumerate(prefixes):
            racks[row], centres[row] = self.locate(prefix, index)
        racks.setflags(write=False)
        centres.setflags(write=False)
        self._located[key] = racks, centres
        return racks, centres

    def heights_all(self, prefixes: list[str], count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``locate_all``'s devices, flattened (prefix-major), with ``_heights`` of them: (rack indices, U centres,
        the distinct (rack height, U centre) pairs, each device's place among them), kept for the next class asking
        the same (a Clos's spines end its leaf-spine and its spine-core links), read-only."""
        key = ("heights", tuple(prefixes), count)
        found = self._located.get(key)
        if found is None:
            racks, centres = (m.ravel() for m in self.locate_all(prefixes, count))
            heights, of_height = _heights(self.top[racks], centres)
            heights.setflags(write=False)
            of_height.setflags(write=False)
            found = self._located[key] = racks, centres, heights, of_height
        return found


def pair_lengths(ends: LinkEnds, routing, ra, ua, rb, ub) -> tuple[np.ndarray, np.ndarray]:
    """Lengths [m] and route codes (0 in-rack, 1 in-row, 2 across rows) of links between (rack, U centre) pairs."""
    same = ra == rb
    run = _run(routing, ends.top[ra], ua, ends.top[rb], ub, _tray_m(ends, ra, rb), same)
    route = np.where(ends.row[ra] == ends.row[rb], 1, 2)
    route[same] = 0
    return run, route


def _run(routing, top_a, ua, top_b, ub, tray_m, same) -> np.ndarray:
    """Lengths [m] of links between ports at U centres ``ua``, ``ub`` of racks ``top_a``, ``top_b`` U high, the run
    along the trays ``tray_m`` [m] apart (``_tray_m``), ``same``: in one rack (the routing rule of the module
    docstring; one code for every link and every kind of link, so equal inputs give equal lengths)."""
    in_rack, run = _vertical(routing, top_a, ua, top_b, ub)
    return _finish(routing, run, tray_m, in_rack, same)


def _vertical(routing, top_a, ua, top_b, ub) -> tuple[np.ndarray, np.ndarray]:
    """(the run inside one rack [m], the climbs from both ports to the trays added [m]) of ``_run``."""
    u_m = routing.u_mm / 1000
    # the same operations in the same order as one expression per term, in place (fewer temporary arrays)
    in_rack = np.subtract(ua, ub)
    np.abs(in_rack, out=in_rack)
    in_rack *= u_m
    in_rack += routing.in_rack_m
    run = np.subtract(top_a, ua)  # up from the port to the tray at end a
    run *= u_m
    run += routing.tray_above_rack_m
    up_b = np.subtract(top_b, ub)
    up_b *= u_m
    up_b += routing.tray_above_rack_m
    run += up_b
    return in_rack, run


def _finish(routing, run: np.ndarray, tray_m, in_rack: np.ndarray, same) -> np.ndarray:
    """``_run`` from its climbs ``run`` (changed in place), the trays and the in-rack runs (``_vertical``)."""
    run += tray_m  # (up_a + up_b) + along the trays
    np.copyto(run, in_rack, where=same)
    run *= 1 + routing.slack_fraction
    run += 2 * routing.slack_end_m
    return run


def _grid(metres: np.ndarray) -> np.ndarray:
    """Positions [m] as whole micrometres (int64): every rack width, depth and aisle of the rack catalog is whole
    millimetres, so the positions lie on that grid and their differences are exact (the same for every copy of a
    repeating block wherever it stands)."""
    return np.rint(np.asarray(metres, dtype=float) * 1e6).astype(np.int64)


def _tray_m(ends: "LinkEnds", ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    """The run along the trays [m] between racks ``ra`` and ``rb``: the Manhattan distance between the rack centres
    (along the row, then across rows), added exactly in micrometres and rounded once to metres, so it depends only
    on how far apart the racks stand (not on where: ``_grid``)."""
    along = np.subtract(ends.x_um[ra], ends.x_um[rb])
    np.abs(along, out=along)
    across = np.subtract(ends.y_um[ra], ends.y_um[rb])
    np.abs(across, out=across)
    along += across
    return along / 1e6


def length_m(layout: Layout, a: str, z: str, racks: RackCatalog | None = None) -> float:
    """Length [m] of the cable between devices ``a`` and ``z`` (ids as ``Layout.position`` takes them)."""
    routing = (racks or load_racks()).routing
    ends = LinkEnds(layout)
    pa, pz = layout.slot_of(a), layout.slot_of(z)
    rack_i = {r.name: i for i, r in enumerate(layout.racks)}

    def point(found):
        rack, slot, offset = found
        return np.array([rack_i[rack.name]]), np.array([slot.first_u + offset * slot.height_u + slot.height_u / 2 - 1])

    (ra, ua), (rb, ub) = point(pa), point(pz)
    return float(pair_lengths(ends, routing, ra, ua, rb, ub)[0][0])


def link_arrays(resolved: ResolvedDesign, fabric: FabricPlan, layout: Layout | Arrangement,
                racks: RackCatalog | None = None) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per link class: (lengths [m], links per entry, route codes) arrays over the fabric's links (``layout``:
    a ``Layout`` or the ``Arrangement`` of ``core.physical.layout.arrange``, the same numbers)."""
    return _link_arrays(_wiring(resolved, fabric), layout if isinstance(layout, LinkEnds) else LinkEnds(layout),
                        (racks or load_racks()).routing)


def _wiring(resolved: ResolvedDesign, fabric: FabricPlan) -> Wiring:
    """The fabric's ``Wiring``: all ``_link_arrays`` reads of the design and fabric plan (its link pattern)."""
    return wiring_of(fabric, resolved.nodes, resolved.nics_per_node)


def _link_arrays(wiring: Wiring, ends: LinkEnds, routing, places: RackPlaces | None = None
                 ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """``link_arrays`` over prepared ends: every bundle of ``wiring`` (``Wiring.bundle_arrays``) in every plane
    and island at once, plane then island (as one loop over them would append them), each to its own devices
    (prefix ``p{plane}.`` or ``p{plane}.i{island}.``, ``Wiring.prefix``); the servers are in every plane. With the
    ``places`` the ends were read from, the node-leaf links come per SU template times its SUs (``_node_leaf_blocks``:
    the same lengths and links, one entry per distinct link of a template instead of one per link) and the links
    inside the Dragonfly groups per class of groups that stand alike (``_group_links``) and the links between them per
    distance and pair of group places (``_pair_links``); without them (a layout built
    whole) every link is measured, the reference the blocks equal (``tests/test_physical_closed.py``)."""
    prefixes = [wiring.prefix(plane, island) for plane, island in wiring.plane_islands()]
    out = {}
    for link_class in wiring.link_classes:
        found = None if places is None else _node_leaf_blocks(wiring, ends, routing, places, prefixes) \
            if link_class == "node-leaf" else _group_links(wiring, link_class, ends, routing, prefixes) \
            if not clos_tiers(wiring.family) else _clos_links(wiring, link_class, ends, routing, prefixes)
        if found is None and places is not None:
            found = _pair_links(wiring, link_class, ends, routing, prefixes)
        if found is None and places is not None and link_class in _RANGED and clos_tiers(wiring.family):
            found = _ranged(ends, routing, prefixes, *wiring.bundle_ranges(link_class))
        if found is None:
            a_role, a, b_role, b, links = wiring.bundle_arrays(link_class)
            if places is not None and len(a) * len(prefixes) > _FEW_LINKS:
                found = _compacted(ends, routing, prefixes, a_role, a, b_role, b, links)
            if found is None and len(a):
                found = _measured(ends, routing, prefixes, a_role, a, b_role, b, links)
        if found is not None:
            out[link_class] = found
    return out


_FEW_LINKS = 4096
"""Bundles of a class (all planes) up to which counting them per kind (``_compacted``) costs more than measuring
each."""


def _measured(ends: LinkEnds, routing, prefixes: list[str], a_role: str, a: np.ndarray, b_role: str, b: np.ndarray,
              links: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths [m], links, route codes) of the bundles ``a``-``b`` (device indices of roles ``a_role``, ``b_role``)
    in every plane and island of ``prefixes``, plane-major; a server (role ``node``) is the same in every plane."""
    copies = len(prefixes)
    large = len(a) > 4096  # many ends: one look-up table per role (``locate_all``), else a search per end

    def at(role: str, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rack, U centre) of device ``index`` of ``role`` in every plane and island, plane-major."""
        names = ["node"] if role == "node" else [p + role for p in prefixes]
        if large:
            racks, centres = ends.locate_all(names, int(index.max()) + 1)
            racks, centres = racks[:, index].ravel(), centres[:, index].ravel()
        else:
            located = [ends.locate(name, index) for name in names]
            racks = np.concatenate([r for r, _c in located])
            centres = np.concatenate([c for _r, c in located])
        return (np.tile(racks, copies), np.tile(centres, copies)) if role == "node" else (racks, centres)

    (ra, ua), (rb, ub) = at(a_role, a), at(b_role, b)
    length, route = pair_lengths(ends, routing, ra, ua, rb, ub)
    return length, np.tile(links, copies), route


def _clos_links(wiring: Wiring, link_class: str, ends: LinkEnds, routing, prefixes: list[str]):
    """A folded Clos's leaf-spine links as ``_cell_pairs`` counts them (the rule of ``Wiring.bundle_arrays``: each
    leaf to every spine of its pod, ``pair_links`` each; one pod with two tiers); ``None`` for another class or with
    islands (a rail-only fabric's or per-rail planes' leaves and spines are one or two per rack and island: counting
    link by link, ``_compacted``, is as fast) and for the spine-core links (spines and cores one per height of a
    rack: the same)."""
    if link_class != "leaf-spine" or wiring.tiers < 2 or wiring.islands > 1 or not (wiring.leaves and wiring.spines):
        return None
    leaf = np.arange(wiring.leaves)
    pods = wiring.pod_of_group(wiring.group_of_leaf(leaf)) if wiring.tiers == 3 else np.zeros_like(leaf)
    spine = np.arange(wiring.spines)
    spine_pods = spine // wiring.spines_per_pod if wiring.tiers == 3 else np.zeros_like(spine)
    return _cell_pairs(ends, routing, prefixes, ("leaf", pods, np.full(len(leaf), wiring.pair_links)),
                       ("spine", spine_pods))


def _cells(ends: LinkEnds, prefixes: list[str], role: str, groups: np.ndarray, span: int, links=None):
    """The devices of ``role`` (every plane and island) gathered into cells (plane and group, rack): the cells'
    plane-groups and racks, in order, the heights (rack height, U centre) and each cell's count per height (times
    ``links`` when given)."""
    copies = len(prefixes)
    racks, _centres, heights, of_height = ends.heights_all([p + role for p in prefixes], len(groups))
    group = (np.arange(copies)[:, None] * span + groups).ravel()
    cells, of_cell = np.unique(group * len(ends.top) + racks, return_inverse=True)
    weights = None if links is None else np.tile(links, copies).astype(float)
    counts = np.bincount(of_cell * len(heights) + of_height, weights=weights,
                         minlength=len(cells) * len(heights)).reshape(len(cells), len(heights))
    cell_group, cell_rack = np.divmod(cells, len(ends.top))
    return cell_group, cell_rack, heights, counts


def _count_types(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's count type (cells of one rack draft count alike) and the distinct counts, of ``_cells``' counts
    (rows compared as bytes: ``np.unique`` of one opaque value per row)."""
    rows = np.ascontiguousarray(counts)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    distinct, of_type = np.unique(keys, return_inverse=True)
    return of_type.ravel(), distinct.view(rows.dtype).reshape(len(distinct), rows.shape[1])


def _cell_pairs(ends: LinkEnds, routing, prefixes: list[str], a_end: tuple, b_end: tuple):
    """(lengths [m], links, route codes) of links that join, in every plane and island, each device of role A to
    every device of role B of its group, ``links`` links each: ``a_end`` (role A, each device's group, its links to
    each partner), ``b_end`` (role B, each device's group).

    Counted, not enumerated: both ends' devices are gathered into cells (plane, group, rack) with a count per height
    (``_cells``, ``_count_types``). All links between two cells of a group join the same two racks (one class of
    rack pairs: distance along the trays, route); their heights are the product of the two cells' counts, the same
    for cells of the same count types. So the cell pairs are counted per (class, A type, B type), each pair of
    types' products reduced once to the climbs (or in-rack runs) they make, and each (class, climbs) is measured
    once by the one rule (``_vertical``, ``_finish``). The work grows with the racks, not the links. ``None``
    (count link by link) when the cell pairs, or the pairs of types times the height pairs, outnumber a quarter of
    the links (cells of one device each)."""
    span = int(max(a_end[1].max(), b_end[1].max())) + 1  # groups per plane and island
    group_a, rack_a, heights_a, counts_a = _cells(ends, prefixes, a_end[0], a_end[1], span, a_end[2])
    group_b, rack_b, heights_b, counts_b = _cells(ends, prefixes, b_end[0], b_end[1], span)
    first = np.searchsorted(group_b, group_a, side="left")  # each A cell's partners: the B cells of its group
    partners = np.searchsorted(group_b, group_a, side="right") - first
    pairs = int(partners.sum())
    if pairs > 1 << 20:
        return None
    ai = np.repeat(np.arange(len(group_a)), partners)
    bi = first[ai] + (np.arange(pairs) - np.repeat(np.cumsum(partners) - partners, partners))
    links = float(np.dot(counts_a.sum(axis=1)[ai], counts_b.sum(axis=1)[bi]))  # not ``@``: its BLAS threads cost ms
    if pairs * 4 > links:
        return None  # few links per pair of cells: counting link by link is as fast
    (type_a, types_a), (type_b, types_b) = _count_types(counts_a), _count_types(counts_b)
    pa, pb = rack_a[ai], rack_b[bi]
    classes, of_class = _pair_classes(ends, pa, pb)
    # the climbs and in-rack runs of every height pair, and their distinct values (the kinds of link of a class)
    in_rack, in_rack_of, climbs, climbs_of, kinds = _height_kinds(routing, heights_a, heights_b)
    # cell pairs per (class, A type, B type, inside one rack or not)
    triple = ((of_class * len(types_a) + type_a[ai]) * len(types_b) + type_b[bi]) * 2 + (pa == pb)
    times = np.bincount(triple)
    used = np.flatnonzero(times)
    rest, inside = np.divmod(used, 2)
    rest, tb = np.divmod(rest, len(types_b))
    cls, ta = np.divmod(rest, len(types_a))
    # each pair of types' products, by kind: (pair of types, kind) -> links
    type_pairs, of_pair = np.unique((ta * len(types_b) + tb) * 2 + inside, return_inverse=True)
    if len(type_pairs) * len(heights_a) * len(heights_b) * 4 > links:
        return None  # many kinds of cells (one device each): counting link by link is as fast
    pta, ptb, pin = type_pairs // 2 // len(types_b), type_pairs // 2 % len(types_b), type_pairs % 2
    products = (types_a[pta][:, :, None] * types_b[ptb][:, None, :]).reshape(len(type_pairs), -1)
    kind_of = np.where(pin[:, None] == 1, in_rack_of[None, :], climbs_of[None, :])
    by_kind = np.bincount((np.arange(len(type_pairs))[:, None] * kinds + kind_of).ravel(), weights=products.ravel(),
                          minlength=len(type_pairs) * kinds).reshape(len(type_pairs), kinds)
    # per class, the sum of its (pair of types, kind) links times their cell pairs: the rows of a class are one run
    # (``used`` is ordered by class first, and every class has cell pairs), summed run by run in place of a table of
    # every row's index (whole numbers below 2^53: exact in any order)
    weighted = by_kind[of_pair]
    weighted *= times[used][:, None]
    totals = np.add.reduceat(weighted, np.searchsorted(cls, np.arange(len(classes))), axis=0).ravel()
    return _class_lengths(routing, totals, classes, kinds, climbs, in_rack)


def _compacted(ends: LinkEnds, routing, prefixes: list[str], a_role: str, a: np.ndarray, b_role: str, b: np.ndarray,
               links: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``_measured`` of many links as one entry per kind of link: a link's length and route depend only on how far
    apart and how its two racks stand (distance along the trays, same rack, same row: a class of rack pairs) and on
    how high each end's rack is and its port's U centre (a height pair). The links are counted per (class, height
    pair) in integers (``np.bincount``), each kind measured once by the same rule (``_run``): the same lengths,
    routes and links as link by link. ``None`` (measure link by link) when the tables would be larger than a few
    times the links (a classic Dragonfly's global links between thousands of router racks)."""
    copies = len(prefixes)

    def devices(role: str, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """(rack, the place of its (rack height, U centre) among ``heights``, ``heights``: ``LinkEnds.heights_all``)
        of every device of ``role`` (all planes and islands, plane-major; a server once, the same in every plane) and
        the devices of each plane and island."""
        names = ["node"] if role == "node" else [p + role for p in prefixes]
        count = int(index.max()) + 1
        racks, _centres, heights, of_height = ends.heights_all(names, count)
        return racks, of_height, heights, count

    (rack_a, of_a, heights_a, count_a), (rack_b, of_b, heights_b, count_b) = devices(a_role, a), devices(b_role, b)
    (racks_a, at_a), (racks_b, at_b) = _distinct(rack_a, len(ends.top)), _distinct(rack_b, len(ends.top))
    most = max(4 * copies * len(a), 1 << 16)  # the tables' cells: beyond, link by link is faster
    if len(racks_a) * len(racks_b) > most:
        return None
    # the height pairs: the in-rack runs and the climbs (_vertical) of every pair of (rack height, U centre), and
    # the distinct values of each
    in_rack, in_rack_of, climbs, climbs_of, kinds = _height_kinds(routing, heights_a, heights_b)
    span = 1 << (len(heights_a) * len(heights_b) - 1).bit_length()  # height pairs, up to a power of two
    bits = span.bit_length() - 1
    # each link's pair of racks and height pair as one number, pair << bits | height pair, a piece of _PIECE links
    # at a time into arrays made once (fresh arrays of every link cost more in page faults than in arithmetic): one
    # pass marks the rack pairs used, a second counts the links per kind
    pieces = partial(_link_pieces, (at_a * len(racks_b) << bits) + of_a * len(heights_b), count_a, a,
                     (at_b << bits) + of_b, count_b, b, copies)
    seen = np.zeros(len(racks_a) * len(racks_b), dtype=bool)
    for piece, _first in pieces():
        seen[np.right_shift(piece, bits, out=piece)] = True
    used = np.flatnonzero(seen)
    pair_a, pair_b = racks_a[used // len(racks_b)], racks_b[used % len(racks_b)]
    # classes of the rack pairs the links join: (distance along the trays [um], route), as _tray_m and _lengths say
    classes, of_used = _pair_classes(ends, pair_a, pair_b)
    if len(classes) * kinds > most:
        return None
    class_of = np.zeros(len(racks_a) * len(racks_b), dtype=np.int32)  # (classes x kinds <= most: 32 bits hold it)
    class_of[used] = of_used * kinds
    # the kind of each height pair (climbs), and past ``span`` of each in one rack (in-rack runs) for the rack pairs
    # inside one rack (``shift``)
    table = np.zeros(2 * span, dtype=np.int64)
    table[:len(climbs_of)], table[span:span + len(in_rack_of)] = climbs_of, in_rack_of
    inside = np.flatnonzero(pair_a == pair_b)
    shift = None
    if len(inside):
        shift = np.zeros(len(seen), dtype=np.int32)
        shift[used[inside]] = span
    ones = bool(len(links)) and bool((links == links[0]).all())  # one count per bundle: counted, then times it
    counts = np.zeros(len(classes) * kinds, dtype=np.int64 if ones else float)
    pair, other = np.empty(min(len(a), _PIECE), dtype=np.int64), np.empty(min(len(a), _PIECE), dtype=np.int64)
    small = np.empty(min(len(a), _PIECE), dtype=np.int32)
    for piece, first in pieces():
        # (take's mode "clip": every index is in range, and no copy of its output is made first, as "raise" does)
        p, o, o32 = np.right_shift(piece, bits, out=pair[:len(piece)]), other[:len(piece)], small[:len(piece)]
        np.bitwise_and(piece, span - 1, out=piece)  # the height pair
        if shift is not None:
            piece += np.take(shift, p, out=o32, mode="clip")
        key = np.take(table, piece, out=o, mode="clip")
        key += np.take(class_of, p, out=o32, mode="clip")  # the kind of link
        # whole link counts, so a piece's sums added to the totals are exact whatever the order (not np.add.at)
        counts += np.bincount(key, None if ones else links[first:first + len(key)], minlength=len(counts))
    if ones:
        counts *= int(links[0])
    return _class_lengths(routing, counts, classes, kinds, climbs, in_rack)


_RANGED = ("leaf-spine", "spine-core")
"""The classes whose bundles a folded Clos's wiring gives as ranges (``Wiring.bundle_ranges``: ``_ranged``)."""
_RANGE_PIECES = 3
"""``_ranged`` counts per piece when the pieces are at most one in this many bundles (else link by link)."""
_RANGE_CELLS = 1
"""... and when its rows' cells (rows x B heights) are at most this many times the bundles."""


def _ranged(ends: LinkEnds, routing, prefixes: list[str], a_role: str, a: np.ndarray, b_role: str, first: np.ndarray,
            count: np.ndarray, links: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``_compacted`` of the bundles from each device ``a`` of role ``a_role`` to ``count`` consecutive devices of
    role ``b_role`` from ``first`` (``Wiring.bundle_ranges``), ``links`` each, in every plane and island of
    ``prefixes``: the same (class, kind) counts, so the same lengths, routes and links, counted per piece of a range
    rather than link by link.

    The B devices fall into runs: consecutive devices in one rack whose heights (``_heights``: rack height, U
    centre) are consecutive too (a rack's devices of one role, one slot above the other). A range is cut into the
    runs it meets (a piece: one rack pair, the A device's height, the B heights ``h .. h + n - 1``), and the pieces
    alike (class of rack pairs, A height, first B height, length) are merged, their links added, before each is
    spread over its B heights: the work grows with the pieces (a range meets one to three racks) and the distinct
    pieces (classes x heights), not with the links. ``None`` (count link by link, ``_compacted``) for a server end,
    few bundles, or pieces as many as a third of the bundles or the rows' cells as many as the bundles."""
    copies, bundles = len(prefixes), int(count.sum()) * len(prefixes)
    if a_role == "node" or b_role == "node" or bundles <= _FEW_LINKS:
        return None
    if not (count > 0).all():  # (ranges of no device: none cut)
        keep = count > 0
        a, first, count, links = a[keep], first[keep], count[keep], links[keep]
    count_a, count_b = int(a.max()) + 1, int((first + count).max())
    rack_a, _centre_a, heights_a, of_a = ends.heights_all([p + a_role for p in prefixes], count_a)
    rack_b, _centre_b, heights_b, of_b = ends.heights_all([p + b_role for p in prefixes], count_b)
    # the runs of B devices (every plane's and island's, one after the other): a new run where the rack changes or
    # the height is not the next one
    cut = np.ones(len(rack_b), dtype=bool)
    cut[1:] = (rack_b[1:] != rack_b[:-1]) | (of_b[1:] != of_b[:-1] + 1)
    run_of = np.cumsum(cut) - 1
    run_first = np.flatnonzero(cut)
    run_last = np.append(run_first[1:], len(rack_b))  # (past the run's last device)
    # each range in every plane and island (plane-major), cut into the runs it meets
    copy = np.repeat(np.arange(copies, dtype=np.int64), len(a))
    dev_a = copy * count_a + np.tile(a, copies)
    low = copy * count_b + np.tile(first, copies)
    high = low + np.tile(count, copies)
    r0 = run_of[low]
    runs = run_of[high - 1] - r0 + 1
    pieces = int(runs.sum())
    if pieces * _RANGE_PIECES > bundles:
        return None  # ranges of one or two devices a piece: link by link is as fast
    # each piece: its range's run r0 + k, from its range's first B device or its run's first, to the range's last or
    # the run's last (in place: fewer arrays of every piece)
    run = np.repeat(r0 - (np.cumsum(runs) - runs), runs)
    run += np.arange(pieces)
    start = np.repeat(low, runs)
    np.maximum(start, run_first[run], out=start)
    size = np.repeat(high, runs)
    np.minimum(size, run_last[run], out=size)
    size -= start
    dev = np.repeat(dev_a, runs)
    n_a, n_b = len(heights_a), len(heights_b)
    # the rows: the pieces' classes of rack pairs (_pair_keys) and A heights, found together in one pass
    key = _pair_keys(ends, rack_a[dev], rack_b[start])
    key *= n_a
    key += of_a[dev]
    codes, rows = pd.factorize(key, sort=False)
    class_key, height_a = np.divmod(rows, n_a)
    classes, cls = np.unique(class_key, return_inverse=True)
    # the kinds of link of every height pair, as _compacted: the climbs and in-rack runs (_vertical), distinct
    in_rack, in_rack_of, climbs, climbs_of, kinds = _height_kinds(routing, heights_a, heights_b)
    width = n_b + 1
    if len(classes) * kinds > max(4 * bundles, 1 << 16) or len(rows) * width > _RANGE_CELLS * bundles:
        return None
    # the pieces of one row added up per B height: each piece's links from its first B height on, taken off past its
    # last (a difference along the row), then summed; whole numbers, and each row's differences add up to 0, so one
    # running sum over the rows one after the other is every row's own
    weight = np.repeat(np.tile(links, copies), runs)
    at = codes * width
    at += of_b[start]
    table = np.zeros(len(rows) * width, dtype=np.int64)
    np.add.at(table, at, weight)
    at += size
    np.subtract.at(table, at, weight)
    np.cumsum(table, out=table)
    # each cell's kind: its row's A height's row of the height pairs' kinds (climbs, or in-rack runs inside one rack);
    # a row's last cell counts no link
    kind_of = np.zeros((n_a, width), dtype=np.int64)
    kind_of[:, :n_b] = climbs_of.reshape(n_a, n_b)
    kind = kind_of[height_a]
    inside = classes[cls] % 3 == 0  # rows of links inside one rack: their in-rack runs
    if inside.any():
        kind[inside, :n_b] = in_rack_of.reshape(n_a, n_b)[height_a[inside]]
    kind += (cls * kinds)[:, None]
    counts = np.bincount(kind.ravel(), weights=table, minlength=len(classes) * kinds)
    return _class_lengths(routing, counts, classes, kinds, climbs, in_rack)


def _pair_classes(ends: LinkEnds, pa: np.ndarray, pb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The classes of the rack pairs ``pa``-``pb`` (rack indices): (distance along the trays [um], route: 0 inside one
    rack, 1 along a row, 2 across rows), as ``_tray_m`` and ``_lengths`` say; (the distinct classes as
    ``tray_um * 3 + route``, ``_pair_keys``, and each pair's place among them)."""
    return _unique_inverse(_pair_keys(ends, pa, pb))


def _pair_keys(ends: LinkEnds, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
    """The class of each rack pair ``pa``-``pb`` (rack indices) as one whole number: its distance along the trays
    [um] (``_tray_m``'s) x 3 + its route code (0 inside one rack, 1 along a row, 2 across rows), in place."""
    key = ends.x_um[pa]
    key -= ends.x_um[pb]
    np.abs(key, out=key)
    across = ends.y_um[pa]
    across -= ends.y_um[pb]
    np.abs(across, out=across)
    key += across
    key *= 3
    key += 2
    key -= ends.row[pa] == ends.row[pb]
    key -= pa == pb
    return key


def _height_kinds(routing, heights_a: np.ndarray, heights_b: np.ndarray):
    """The kinds of link of every height pair (``heights_a`` x ``heights_b``, A-major: ``_heights``' complex (rack
    height, U centre) values): the distinct in-rack runs and climbs (``_vertical``) and each pair's place among each;
    (in_rack, in_rack_of, climbs, climbs_of, kinds), kinds the larger count."""
    ha, hb = np.repeat(heights_a, len(heights_b)), np.tile(heights_b, len(heights_a))
    in_rack, climbs = _vertical(routing, ha.real, ha.imag, hb.real, hb.imag)
    in_rack, in_rack_of = np.unique(in_rack, return_inverse=True)
    climbs, climbs_of = np.unique(climbs, return_inverse=True)
    return in_rack, in_rack_of, climbs, climbs_of, max(len(in_rack), len(climbs))


_PIECE = 1 << 15
"""Links ``_compacted`` reads at a time (scratch arrays of 256 kB)."""


def _unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of whole numbers (the classes of rack pairs): the same
    arrays, the distinct values found by hashing (``pandas.factorize``) and only they sorted, not every value (several
    times faster for thousands of values of a few hundred kinds); a few values sorted as before."""
    if len(values) < _UNIQUE_SORTED or not np.issubdtype(values.dtype, np.integer):
        return np.unique(values, return_inverse=True)
    codes, found = pd.factorize(values, sort=False)
    order = np.argsort(found)
    rank = np.empty(len(found), dtype=np.intp)
    rank[order] = np.arange(len(found))
    return found[order], rank[codes]


_UNIQUE_SORTED = 1024
"""Values up to which ``_unique_inverse`` sorts them all (hashing costs more than sorting a few)."""


def _distinct(values: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` of whole numbers ``0 .. count-1`` (rack indices), by marking them in
    a table of ``count`` instead of sorting: the distinct values in order and each value's place among them."""
    seen = np.zeros(count, dtype=bool)
    seen[values] = True
    place = np.cumsum(seen) - 1
    return np.flatnonzero(seen), place[values]


def _heights(top: np.ndarray, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(top + 1j * centre, return_inverse=True)``: the distinct (rack height, U centre) pairs of some
    devices, ordered by height then centre, as complex numbers, and each device's place among them. Heights and
    centres are whole or half units (``LinkEnds.locate``: a slot's first U, plus whole slots, plus half a slot,
    less one), so each pair is one small whole number, ``2 x height x span + 2 x centre``, marked in a table
    (``_distinct``) instead of sorted; the same pairs in the same order (few devices, or other values: sorted as
    before)."""
    doubled_top, doubled_centre = top * 2, centre * 2
    if (len(top) < _HEIGHTS_SORTED or not (np.isfinite(doubled_top).all() and np.isfinite(doubled_centre).all())
            or doubled_top.min() < 0 or doubled_centre.min() < 0
            or (doubled_top.max() + 1) * 2 * (doubled_centre.max() + 1) > _HEIGHT_KEYS
            or (doubled_top != np.floor(doubled_top)).any() or (doubled_centre != np.floor(doubled_centre)).any()):
        return np.unique(top + 1j * centre, return_inverse=True)
    span = 1 << int(doubled_centre.max()).bit_length()  # above every doubled centre
    limit = span * (int(doubled_top.max()) + 1)
    keys = doubled_top.astype(np.int64) * span + doubled_centre.astype(np.int64)
    found, place = _distinct(keys, limit)
    return (found // span) / 2 + 1j * ((found % span) / 2), place


_HEIGHTS_SORTED = 1024
"""Devices up to which ``_heights`` sorts (a table of every key costs more than sorting a few: about the same at 1,024)."""
_HEIGHT_KEYS = 1 << 20
"""Most keys ``_heights`` marks in a table (about 2 x (2 x rack height + 1) x (2 x U centre + 1): racks of up to
about 250 U)."""


def _link_pieces(of_a: np.ndarray, count_a: int, a: np.ndarray, of_b: np.ndarray, count_b: int, b: np.ndarray,
                 copies: int):
    """``of_a[device of a] + of_b[device of b]`` of every link ``a``-``b`` in every plane and island, plane-major
    (``of_a``: a value per device of every plane and island, ``count_a`` devices each, or one plane's when it has
    ``count_a`` values, a server's, the same in every plane; likewise ``of_b``), in pieces of at most ``_PIECE`` links
    of one plane and island: each piece with the place of its first link among ``a``, in one array made once and
    filled again for the next piece (read a piece before asking for the next)."""
    n = len(a)
    step = max(1, min(n, _PIECE))
    out = np.empty(step, dtype=np.result_type(of_a, of_b))
    scratch = np.empty(step, dtype=out.dtype)
    for k in range(copies):
        table_a = of_a[k * count_a:(k + 1) * count_a] if len(of_a) > count_a else of_a
        table_b = of_b[k * count_b:(k + 1) * count_b] if len(of_b) > count_b else of_b
        for first in range(0, n, step):
            last = min(n, first + step)
            piece = np.take(table_a, a[first:last], out=out[:last - first], mode="clip")  # (in range: no copy)
            piece += np.take(table_b, b[first:last], out=scratch[:last - first], mode="clip")
            yield piece, first


def _class_lengths(routing, counts: np.ndarray, classes: np.ndarray, kinds: int, climbs: np.ndarray,
                   in_rack: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lengths [m], links, route codes) of the nonzero ``counts``, indexed ``class x kinds + kind``: a class is a
    tray distance [um] x 3 + its route code (``classes``), a kind the index of its climb (``climbs`` [m], for links
    between racks) or of its in-rack run (``in_rack`` [m], for links in one rack)."""
    found = np.flatnonzero(counts)
    cls, kind = np.divmod(found, kinds)
    routes = (classes[cls] % 3).astype(np.int64)
    same = routes == 0
    run = np.where(same, 0.0, climbs[np.minimum(kind, len(climbs) - 1)])
    lengths = _finish(routing, run, (classes[cls] // 3) / 1e6, in_rack[np.minimum(kind, len(in_rack) - 1)], same)
    return lengths, counts[found].astype(np.int64), routes


def _node_leaf_blocks(wiring, ends: LinkEnds, routing, places: RackPlaces | None, prefixes: list[str]):
    """The node-leaf links of every SU as its template's (``RackPlaces.instances``): the links of one SU of each
    template, measured (``_measured``), each counted as many times as SUs share the template; ``None`` when the
    links cannot be read that way (``_node_leaf_sus``)."""
    found = _node_leaf_sus(wiring, places)
    return None if found is None else _su_links(routing, *found, tuple(prefixes))


def _node_leaf_sus(wiring, places: RackPlaces | None) -> tuple[tuple, int] | None:
    """(per SU template in the order of its first SU: its key (nodes, leaves), its racks as ``RackPlaces.templates``
    holds them and its SUs; the links from a node to each of its leaves) of the node-leaf links, or ``None`` when
    they cannot be read per SU template (no places, no SU templates, a wiring whose node-leaf links are not its
    groups' nodes to its groups' leaves).

    The SUs of a template have their racks side by side in one row, the same racks and the same devices in them
    numbered from the SU's first node and leaf, and each node's leaves are its own SU's (``Wiring.nodes_of_group``,
    ``leaves_of_group``): so every SU's node-leaf links join the same slots of the same racks, the same distances
    apart (``_tray_m``: exact, wherever the SU stands), and have the same lengths, routes and link counts."""
    clos = getattr(wiring, "clos", wiring)
    if places is None or not places.instances or not isinstance(clos, Wiring) or "node-leaf" not in clos.link_classes:
        return None
    sus: dict[tuple, list] = {}
    for key, _rack, first, leaf_start, count, _racks, _dn, _dl, copies, *_steps in places.instances:
        found = sus.get(key)  # the first SU of each template (runs in rack order of their first copies)
        if found is None:
            sus[key] = [first, leaf_start, count * copies]
        else:
            found[2] += count * copies
    if sum(key[0] * x[2] for key, x in sus.items()) != clos.nodes:
        return None  # pragma: no cover - every node in one SU
    templates = dict(places.templates)
    for (count, n_leaves), (first, leaf_start, _times) in sus.items():
        g = clos.group_of_node(first)
        nodes, leaves = clos.nodes_of_group(g), clos.leaves_of_group(g)
        if nodes.start != first or len(nodes) != count or list(leaves) != list(range(leaf_start,
                                                                                      leaf_start + n_leaves)):
            return None  # pragma: no cover - an SU's first node and leaf are its group's, its leaves one after the other
    return tuple((key, templates[key], times) for key, (_first, _leaf, times) in sus.items()), clos.links_per_node_leaf


def _su_links(routing, sus: tuple, per_node: int, prefixes: tuple[str, ...]):
    """(lengths [m], links, route codes) of the node-leaf links of the SUs ``sus`` (``_node_leaf_sus``: per template
    its key, racks and SUs), ``per_node`` links from a node to each of its leaves, in every plane and island of
    ``prefixes``: one SU of each template measured (``su_node_leaf``), its links counted once per SU."""
    parts = []
    for (count, n_leaves), template, times in sus:
        length, route = su_node_leaf(routing, template, count, n_leaves, prefixes)
        parts.append((length, np.full(len(length), per_node * times, dtype=np.int64), route))
    return tuple(np.concatenate(column) for column in zip(*parts))


def _class_bytes(found: LinkLengths) -> int:
    """Upper bound of the memory of one class's link lengths [bytes] (``_lengths_bytes``)."""
    return _lengths_bytes((found,))


@stage(0.02, _class_bytes)
def node_leaf_lengths(routing: Routing, sus: tuple, per_node: int, prefixes: tuple[str, ...]) -> LinkLengths:
    """The node-leaf class's ``LinkLengths`` of the SUs ``sus`` (``_node_leaf_sus``, ``_su_links``), cached by these
    arguments (``core.memo.stage``): the designs whose SUs stand alike (the same templates, as many SUs of each)
    share it, however their spines and cores stand (``su_node_leaf_lengths``; ``placed_link_lengths`` bins the same
    entries with its other classes, ``_node_leaf_blocks``)."""
    return bin_lengths("node-leaf", *_su_links(routing, sus, per_node, prefixes))


def su_node_leaf_lengths(resolved: ResolvedDesign, fabric: FabricPlan, racks: RackCatalog | None = None
                         ) -> LinkLengths | None:
    """The node-leaf class's ``LinkLengths`` of every rack arrangement of the design (``placed_link_lengths`` reads
    it from the SUs' templates alone, ``_node_leaf_blocks``), from its SUs before any arrangement
    (``core.physical.layout.su_places``: the other networks' devices and the central racks never stand in an SU's
    racks); None when the class is not read per SU template (``_node_leaf_sus``: measured link by link then).
    Raises as arranging the racks does (``core.physical.layout.compute_rack_fit``)."""
    racks = racks or load_racks()
    wiring = _wiring(resolved, fabric)
    pattern = getattr(type(wiring), "pattern", None)  # as ``arranged_link_lengths`` reads it
    wiring = wiring if pattern is None else pattern(wiring)
    if "node-leaf" not in wiring.link_classes:
        return None
    sus = _node_leaf_sus(wiring, su_places(resolved, fabric, _END_PREFIXES, racks))
    if sus is None:
        return None
    prefixes = tuple(wiring.prefix(plane, island) for plane, island in wiring.plane_islands())
    return node_leaf_lengths(racks.routing, *sus, prefixes)


def _su_bytes(found: tuple) -> int:
    """Upper bound of the memory of an SU's node-leaf lengths and routes [bytes]: two arrays of 8 bytes an entry, each
    counted twice as ``core.memo.deep_sizeof`` counts an array (``tests/test_memo.py``), and their objects."""
    return 1024 + 32 * len(found[0])


@stage(0.05, _su_bytes)
def su_node_leaf(routing: Routing, template: tuple, count: int, n_leaves: int, prefixes: tuple[str, ...]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(lengths [m], route codes) of the node-leaf links of one SU of its template's racks (``template``: each rack's
    height [U], width [m] and slots, as ``RackPlaces.templates`` holds them; ``count`` nodes numbered from 0, each
    to every one of the ``n_leaves`` leaves numbered from 0, rail by rail as ``Wiring.bundle_arrays``, in every plane
    and island of ``prefixes``), the SU's racks side by side in one row as in any hall (``_node_leaf_blocks``: the
    distances along the trays are exact, ``_tray_m``, so the same wherever the SU stands); cached by these arguments
    (``core.memo.stage``: the candidates of a search whose SUs stand alike share them)."""
    key = (count, n_leaves)
    alone = RackPlaces(row_span=0.0, end_aisle=0.0, pitch=0.0, per_column=1, rows=(((len(template),), 1),),
                       instances=((key, 0, 0, 0, 1, len(template), 0, 0, 1, 0, 0, 0),),
                       templates=((key, template),), singles=())
    node = np.tile(np.arange(count), n_leaves)  # rail by rail, as bundle_arrays
    leaf = np.repeat(np.arange(n_leaves, dtype=np.int64), count)
    length, _links, route = _measured(LinkEnds(alone), routing, list(prefixes), "node", node, "leaf", leaf,
                                      np.ones(len(node), dtype=np.int64))
    return length.copy(), route.copy()  # arrays of their own (not views of the tables they were read from)


def _group_links(wiring, link_class: str, ends: LinkEnds, routing, prefixes: list[str]):
    """The links inside the groups as ``_group_blocks`` measures them, as the family's wiring declares them
    (``Wiring.group_blocks``: a Dragonfly+ group's leaf-spine links, a classic Dragonfly group's local links);
    ``None`` for any other class or family (measured link by link)."""
    declared = getattr(wiring, "group_blocks", None)
    blocks = declared(link_class) if declared is not None else None
    if blocks is None:
        return None
    groups, a_end, b_end, pattern = blocks
    return _group_blocks(ends, routing, prefixes, groups, a_end, b_end, pattern)


def _group_blocks(ends: LinkEnds, routing, prefixes: list[str], groups: int, a_end: tuple[str, int, int],
                  b_end: tuple[str, int, int], pattern) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(lengths [m], links, route codes) of the links inside ``groups`` groups of devices, one group measured for each
    class of groups that stand alike, its links counted once per group of the class.

    ``a_end``, ``b_end``: (role, devices per group, devices of the role in one plane and island); group ``p`` has
    devices ``p x size ..`` of each end (the last group may have fewer); ``pattern(a count, b count)`` gives its
    links as (A offsets, B offsets, links per bundle) within the group, the same rule for every group. Two groups
    of full size stand alike when, in every plane and island, each of their devices is in a rack the same distance
    (along, across, in micrometres), rows and racks away from their first device's rack, as high, at the same U
    centre: then each of their links joins the same slots the same distance apart, and has the same length and
    route (``_lengths``, ``_tray_m``). ``None`` (measure link by link) when few groups stand alike."""
    copies = len(prefixes)
    located = {}
    for role, _size, total in (a_end, b_end):
        if role not in located and total:
            located[role] = ends.locate_all([p + role for p in prefixes], total)
    full = min([groups] + [total // size for _role, size, total in (a_end, b_end) if size])
    blocks: list[tuple[int, int]] = []  # (the group measured, groups of its class)
    if full:
        racks0 = located[a_end[0]][0][0, : full * a_end[1]: a_end[1]][:, None]  # each group's first device's rack
        features = []
        for role, size, _total in dict.fromkeys([a_end, b_end]):
            racks, centres = (m[:, : full * size].reshape(copies, full, size).transpose(1, 0, 2).reshape(full, -1)
                              for m in located[role])
            features += [ends.x_um[racks] - ends.x_um[racks0], ends.y_um[racks] - ends.y_um[racks0],
                         ends.row[racks] - ends.row[racks0], racks - racks0,
                         np.ascontiguousarray(ends.top[racks]).view(np.int64),
                         np.ascontiguousarray(centres).view(np.int64)]
        alike: dict[bytes, list[int]] = {}  # a class's features -> [its first group, its groups]
        for p, row in enumerate(np.hstack(features)):
            found = alike.setdefault(row.tobytes(), [p, 0])
            found[1] += 1
        if len(alike) * 4 > full:
            return None  # few groups alike: link by link is as fast
        blocks += map(tuple, alike.values())
    blocks += [(p, 1) for p in range(full, groups)]
    parts = []
    for p, times in blocks:
        (a_role, a_size, a_total), (b_role, b_size, b_total) = a_end, b_end
        a = np.arange(p * a_size, min(a_total, (p + 1) * a_size))
        b = np.arange(p * b_size, min(b_total, (p + 1) * b_size))
        i, j, links = pattern(len(a), len(b))
        if len(i):
            parts.append(_measured(ends, routing, prefixes, a_role, a[i], b_role, b[j],
                                   np.asarray(links, dtype=np.int64) * times))
    return tuple(np.concatenate(column) for column in zip(*parts)) if parts else None


def _pair_links(wiring, link_class: str, ends: LinkEnds, routing, prefixes: list[str]):
    """The links between groups as ``_pair_blocks`` counts them, as the family's wiring declares them
    (``Wiring.pair_blocks``: both Dragonflies' global links), plane by plane; ``None`` for any other class or family,
    for few links (``_FEW_LINKS``: measuring each costs less) or where a plane's groups do not stand alike (measured
    link by link)."""
    declared = getattr(wiring, "pair_blocks", None)
    blocks = declared(link_class) if declared is not None else None
    if blocks is None or int((blocks[1] - blocks[3]).sum()) * len(prefixes) <= _FEW_LINKS:
        return None
    parts = []
    for prefix in prefixes:
        found = _pair_blocks(ends, routing, prefix, *blocks)
        if found is None:
            return None
        parts.append(found)
    return tuple(np.concatenate(column) for column in zip(*parts))


def _pair_blocks(ends: LinkEnds, routing, prefix: str, role: str, groups: int, size: int, d: np.ndarray,
                 offset_a: np.ndarray, offset_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(lengths [m], links, route codes) of the links between groups of one plane and island (``prefix``): for every
    entry of ``d``, ``offset_a``, ``offset_b`` and every group ``G`` below ``groups - d``, one link from device
    ``G x size + offset_a`` of ``role`` to device ``(G + d) x size + offset_b`` (``Wiring.pair_blocks``).

    Counted per distance between the groups and pair of group places, not link by link: when every group stands
    as the first (each device in a rack the same distance along and across, in micrometres, and rows from the
    group's first device's rack, as high, at the same U centre) and no rack holds devices of two groups, a link's
    run along the trays is ``|dX + x_b - x_a| + |dY + y_b - y_a|`` (``dX``, ``dY``: between the two groups' first
    racks; ``x_a``, ``x_b``: its devices' offsets in their groups, exact whole micrometres, ``_tray_m``), it stays in
    a row when ``dRow + row_b - row_a`` is 0, and its heights are the first group's: so its length and route depend
    only on its entry and (``dX``, ``dY``, ``dRow``). The group pairs are counted per (distance, ``dX``, ``dY``,
    ``dRow``) in one pass over the pairs of groups (not their links), and each (kind, entry) measured once by the one
    rule (``_run``). ``None`` (measure link by link) when the groups do not stand so."""
    if groups < 2 or not len(d):
        return None
    racks, centres = (m[0].reshape(groups, size) for m in ends.locate_all([prefix + role], groups * size))
    base = racks[:, 0]
    x, y = ends.x_um[racks] - ends.x_um[base][:, None], ends.y_um[racks] - ends.y_um[base][:, None]
    row, top = ends.row[racks] - ends.row[base][:, None], ends.top[racks]
    if not all((m == m[0]).all() for m in (x, y, row, top, centres)):
        return None  # groups that stand otherwise
    if len(_distinct(racks.ravel(), len(ends.top))[0]) != groups * len(_distinct(racks[0], len(ends.top))[0]):
        return None  # a rack shared by two groups: a link could run inside it
    # the first racks' places along and across the rows, and the distinct differences between every two of each;
    # the rows apart as far as the devices' own rows could make up (``reach``; farther is alike: never one row)
    columns, column_of = np.unique(ends.x_um[base], return_inverse=True)
    lines, line_of = np.unique(ends.y_um[base], return_inverse=True)
    dx, dx_of = np.unique(columns[None, :] - columns[:, None], return_inverse=True)
    dy, dy_of = np.unique(lines[None, :] - lines[:, None], return_inverse=True)
    dx_of, dy_of = dx_of.reshape(len(columns), len(columns)), dy_of.reshape(len(lines), len(lines))
    reach = int(np.abs(row[0]).max()) * 2 + 1
    # every pair of groups G < G' as (distance, dX, dY, dRow), counted
    first, second = np.triu_indices(groups, 1)
    key = (second - first) * len(dx) + dx_of[column_of[first], column_of[second]]
    key *= len(dy)
    key += dy_of[line_of[first], line_of[second]]
    key *= 2 * reach + 1
    key += np.clip(ends.row[base][second] - ends.row[base][first], -reach, reach) + reach
    span = groups * len(dx) * len(dy) * (2 * reach + 1)
    if span <= 16 * len(key):
        times = np.bincount(key, minlength=span)
        kinds = np.flatnonzero(times)
        times = times[kinds]
    else:
        codes, kinds = pd.factorize(key, sort=False)
        times = np.bincount(codes, minlength=len(kinds))
    rest, delta_row = np.divmod(kinds, 2 * reach + 1)
    rest, which_dy = np.divmod(rest, len(dy))
    distance, which_dx = np.divmod(rest, len(dx))
    # each kind with every entry of its distance (the entries sorted by distance)
    order = np.argsort(d, kind="stable")
    per = np.bincount(d, minlength=groups)
    starts = np.cumsum(per) - per
    reps = per[distance]
    kind = np.repeat(np.arange(len(kinds)), reps)
    entry = order[starts[distance][kind] + (np.arange(len(kind)) - np.repeat(np.cumsum(reps) - reps, reps))]
    oa, ob = offset_a[entry], offset_b[entry]
    tray_um = np.abs(dx[which_dx[kind]] + x[0, ob] - x[0, oa]) + np.abs(dy[which_dy[kind]] + y[0, ob] - y[0, oa])
    route = np.where(delta_row[kind] - reach + row[0, ob] - row[0, oa] == 0, 1, 2)
    same = np.zeros(len(kind), dtype=bool)
    length = _run(routing, top[0, oa], centres[0, oa], top[0, ob], centres[0, ob], tray_um / 1e6, same)
    return length, times[kind].astype(np.int64), route


def bin_lengths(link_class: str, lengths: np.ndarray, weights: np.ndarray, routes: np.ndarray) -> LinkLengths:
    """``LinkLengths`` of one class from per-entry lengths [m], link counts and route codes.

    Per bin (``BIN_EDGES_M``: bin b holds lengths in (edge b, edge b+1], the first also what is not
    longer than 0): links, longest and link-weighted mean length, and the route most of its links take.
    Counts and the longest are exact; the means (a bin's sum over its links, correctly rounded, then to the
    centimetre) and the total (to the decimetre) are those of the exact length sums (``_exact_sums``; taken from
    float sums where those are shown to round alike, ``_rounded_means``), so they do not depend on how the links are
    grouped into entries: one entry per link or one per repeating block with its links. (``_classes_binned`` of
    this one class.)"""
    return _classes_binned(((link_class, lengths, weights, routes),))[0]


def _classes_binned(classes: tuple) -> tuple[LinkLengths, ...]:
    """``bin_lengths`` of each of ``classes`` (link class, lengths [m], link counts, route codes), all in one pass:
    each class's bins are bins of their own (class x bins + bin), so the counts, the longest and the figures of the
    exact sums are each class's alone, with as many numpy calls for several classes as for one."""
    if not classes:
        return ()
    kept = []
    for link_class, lengths, weights, routes in classes:
        keep = weights > 0
        kept.append((lengths, weights, routes) if keep.all() else (lengths[keep], weights[keep], routes[keep]))
    sizes = [len(found[0]) for found in kept]
    lengths, weights, routes = (np.concatenate(column) if len(kept) > 1 else column[0] for column in zip(*kept))
    bins_n = len(_EDGES) - 1
    count = bins_n * len(kept)
    which = _bin_of(lengths)
    if len(kept) > 1:
        which += np.repeat(np.arange(0, count, bins_n), sizes)
    ones = bool((weights == 1).all())  # one link per entry: counts are the entries
    slots = which * len(ROUTES) + routes
    by_route = (np.bincount(slots, minlength=count * len(ROUTES)).astype(float) if ones else
                np.bincount(slots, weights=weights, minlength=count * len(ROUTES))).reshape(count, len(ROUTES))
    # whole link counts add up exactly in any order: a bin's links are its routes' links
    links = (by_route.sum(axis=1) if np.issubdtype(weights.dtype, np.integer) else
             np.bincount(which, weights=weights, minlength=count))
    bounds = np.cumsum([0] + sizes).tolist()
    means, mean_m, total_m = _rounded_means(which, count, lengths, weights, links, bounds)
    longest = _bin_max(which, count, lengths)
    present = np.flatnonzero(links > 0).tolist()
    routes_of = np.argmax(by_route, axis=1).tolist()
    out = []
    for k, (link_class, *_arrays) in enumerate(classes):
        bins = []  # built without validation: every field is already of its type (Python floats, ints, strings)
        for b in (b for b in present if k * bins_n <= b < (k + 1) * bins_n):
            edge = b - k * bins_n
            bins.append(LengthBin.model_construct(
                low_m=float(_EDGES[edge]), high_m=float(_EDGES[edge + 1]), links=int(links[b]),
                max_m=round(float(longest[b]), 2), mean_m=means[b], route=ROUTES[routes_of[b]]))
        low, high = bounds[k], bounds[k + 1]
        total = int(weights[low:high].sum())
        out.append(LinkLengths.model_construct(
            link_class=link_class, links=total, bins=tuple(bins),
            max_m=round(float(lengths[low:high].max()), 2) if total else 0.0,
            mean_m=mean_m[k] if total else 0.0, total_m=total_m[k]))
    return tuple(out)


def _rounded_means(which: np.ndarray, count: int, lengths: np.ndarray, weights: np.ndarray, links: np.ndarray,
                   bounds: list[int]) -> tuple[list, list, list]:
    """``_classes_binned``' rounded figures of the exact length sums (``_exact_sums``): each bin's mean [m] to the
    centimetre (``None`` for a bin of no link), and each class's mean of all to the centimetre and total [m] to the
    decimetre (``links``: each bin's links; ``bounds``: where each class's entries begin and, last, end; a class's
    bins are ``count / classes`` one after the other); from float sums where they decide them
    (``_decided_means``), else from the exact sums."""
    decided = _decided_means(which, count, lengths, weights, links, bounds)
    if decided is not None:
        return decided
    length_sums, scale = _exact_sums(which, count, lengths, weights)
    means = [round(_ratio(length_sums[b], scale, links[b]), 2) if links[b] > 0 else None for b in range(count)]
    bins_n = count // (len(bounds) - 1)
    mean_m, total_m = [], []
    for k in range(len(bounds) - 1):
        length_total = sum(length_sums[k * bins_n:(k + 1) * bins_n])
        weight_sum = weights[bounds[k]:bounds[k + 1]].sum(dtype=np.float64)
        mean_m.append(round(_ratio(length_total, scale, weight_sum), 2) if weight_sum else 0.0)
        total_m.append(round(_ratio(length_total, scale, 1), 1))
    return means, mean_m, total_m


_SUM_ERROR = 2.0 ** -52
"""Twice the unit roundoff of a float (2^-53): ``_decided_means``' bound on a float sum's error, per addend."""


def _decided_means(which: np.ndarray, count: int, lengths: np.ndarray, weights: np.ndarray, links: np.ndarray,
                   bounds: list[int] | None = None) -> tuple[list, list, list] | None:
    """``_rounded_means`` from float sums, or ``None`` where they do not decide it (``bounds``: where each class's
    entries begin and, last, end; one class of all the entries when not given).

    A bin's float sum of ``lengths x weights`` (``np.bincount``: one rounding per product and per addition) is within
    ``n x 2^-53`` of the exact sum, relative to it (n entries, lengths not negative, whole weights): so the exact sum
    lies in the float sum +- ``(N + 4) x 2^-52`` of it (N: all the entries, at least each bin's; twice the bound, so
    the rounding of the bound itself is covered too), widened by one float each side. A rounded mean (the sum over
    the links, correctly rounded, then to the centimetre: what ``_ratio`` and ``round`` give the exact sum) never
    falls as the sum grows, so when both ends of that interval give the same figure, the exact sum gives it too:
    that figure. ``None`` when the ends differ for any figure (a mean within about N x 10^-16 of its own size from a
    rounding boundary: the exact sums, ``_exact_sums``, decide), and for what ``_exact_sums`` does not sum exactly
    (lengths not finite, weights not whole) or lengths below 0 or weights beyond 2^35."""
    if not len(lengths) or not (lengths.min() >= 0 and lengths.max() < math.inf):  # (NaN: neither)
        return None
    if not np.issubdtype(weights.dtype, np.integer) and (weights != np.floor(weights)).any():
        return None
    if float(weights.sum()) >= 2.0 ** 35:
        return None
    sums = np.bincount(which, weights=lengths * weights, minlength=count)
    error = sums * ((len(lengths) + 4) * _SUM_ERROR)  # (every bin's entries at most all of them)
    low = np.maximum(np.nextafter(sums - error, -math.inf), 0.0)  # (a sum of lengths not below 0: not -0.0)
    high = np.nextafter(sums + error, math.inf)
    means: list = [None] * count
    for b in np.flatnonzero(links > 0).tolist():
        n = float(links[b])
        means[b] = round(float(low[b]) / n, 2)
        if round(float(high[b]) / n, 2) != means[b]:
            return None
    bounds = bounds or [0, len(lengths)]
    bins_n = count // (len(bounds) - 1)
    lows, highs = low.tolist(), high.tolist()
    mean_m, total_m = [], []
    for k in range(len(bounds) - 1):
        weight_sum = float(weights[bounds[k]:bounds[k + 1]].sum())
        total_low = max(math.nextafter(math.fsum(lows[k * bins_n:(k + 1) * bins_n]), -math.inf), 0.0)
        total_high = math.nextafter(math.fsum(highs[k * bins_n:(k + 1) * bins_n]), math.inf)
        mean_m.append(round(total_low / weight_sum, 2) if weight_sum else 0.0)
        total_m.append(round(total_low, 1))
        if weight_sum and round(total_high / weight_sum, 2) != mean_m[k] or round(total_high, 1) != total_m[k]:
            return None
    return means, mean_m, total_m


def _bin_max(which: np.ndarray, count: int, lengths: np.ndarray) -> np.ndarray:
    """The longest of ``lengths`` [m] in each bin ``0 .. count-1`` (``which``: each length's bin; ``-inf`` for an
    empty bin): ``np.maximum.at`` of them, as one ``np.maximum.reduceat`` over the lengths ordered by bin (the same
    maxima, NaN too; ``ufunc.at`` takes several times longer on thousands of lengths)."""
    counts = np.bincount(which, minlength=count)
    present = np.flatnonzero(counts)
    longest = np.full(count, -np.inf)
    if len(present):
        starts = (np.cumsum(counts) - counts)[present]
        longest[present] = np.maximum.reduceat(lengths[np.argsort(which, kind="stable")], starts)
    return longest


def _ratio(total: int | float, scale: int, links) -> float:
    """``total / scale / links`` correctly rounded: ``total / scale`` an exact sum of ``_exact_sums`` (a whole
    numerator, or a float where the sum could not be exact)."""
    if isinstance(total, float):
        return total / scale / float(links)
    return total / (scale * int(links))  # whole numbers: Python's true division rounds correctly


def _exact_sums(groups: np.ndarray, count: int, values: np.ndarray, weights: np.ndarray) -> tuple[list, int]:
    """The exact sum of ``values x weights`` in each group ``0 .. count-1`` (``groups``: each entry's group), as
    (whole numerators, their common denominator, a power of two) (float sums over 1 where a value is not finite or
    a weight not whole), vectorised: each value is its 53-bit significand times a power of two (``np.frexp``), the
    significand split in parts (two of 27 bits, three of 18 when the weights add up to 2^26 or more); per group and
    exponent each part times the weight is summed by ``np.bincount`` (floats holding whole numbers below 2^53:
    exact), and the parts and exponents are put together in integers. The sums do not depend on the order or
    grouping of the entries."""
    weights = np.asarray(weights)
    if not len(values):
        return [0] * count, 1
    if not np.isfinite(values).all() or (not np.issubdtype(weights.dtype, np.integer)
                                         and (weights != np.floor(weights)).any()):
        return np.bincount(groups, weights=values * weights, minlength=count).tolist(), 1
    weight_sum = float(weights.sum())
    if weight_sum >= 2.0 ** 35:  # beyond any fabric's links: one entry at a time
        sums = [Fraction(0)] * count
        for g, value, weight in zip(groups.tolist(), values.tolist(), weights.tolist()):
            sums[g] += Fraction(value) * int(weight)
        scale = max(x.denominator for x in sums)  # powers of two
        return [int(x * scale) for x in sums], scale
    significand, exponent = np.frexp(values)
    whole = (significand * 2.0 ** 53).astype(np.int64)  # values = whole x 2^(exponent - 53), exactly
    low = int(exponent.min())
    span = int(exponent.max()) - low + 1
    key = groups * span + (exponent - low) if span > 1 else groups
    ones = bool((weights == 1).all())
    bits = 27 if weight_sum < 2.0 ** 26 else 18  # parts x (sum of weights) below 2^53
    mask = (1 << bits) - 1
    parts = []
    for k in range(-(-53 // bits)):
        part = (whole >> (k * bits)) & mask if k else whole & mask
        parts.append(np.bincount(key, weights=part if ones else part * weights, minlength=count * span)
                     .reshape(count, span))
    lift = max(0, low - 53)  # value x 2^(53 - low + lift) = whole x 2^(e + lift), a whole number
    present = parts[0] + parts[1]
    for part in parts[2:]:
        present += part
    found_g, found_e = np.nonzero(present)
    numerators = [0] * count
    columns = [part[found_g, found_e].tolist() for part in parts]
    for i, (g, e) in enumerate(zip(found_g.tolist(), found_e.tolist())):
        whole_sum = 0
        for k, column in enumerate(columns):
            whole_sum += int(column[i]) << (k * bits)
        numerators[g] += whole_sum << (e + lift)
    return numerators, 2 ** (53 - low + lift)


_EDGES = np.array(BIN_EDGES_M)
_INNER_EDGES = _EDGES[1:-1]


def _bin_of(lengths: np.ndarray) -> np.ndarray:
    """The bin of each length [m]: how many inner edges lie below it (``np.searchsorted(_INNER_EDGES, lengths,
    side="left")``, NaN last), as one comparison per edge: the same indices, several times faster on unsorted
    lengths (a few edges, many lengths)."""
    below = np.zeros(len(lengths), dtype=np.int8)
    above = np.empty(len(lengths), dtype=bool)
    for edge in _INNER_EDGES.tolist():
        np.greater(lengths, edge, out=above)
        below += above
    which = below.astype(np.intp)
    unknown = np.isnan(lengths)
    if unknown.any():
        which[unknown] = len(_INNER_EDGES)
    return which


def link_lengths(resolved: ResolvedDesign, fabric: FabricPlan, layout: Layout | Arrangement,
                 racks: RackCatalog | None = None) -> tuple[LinkLengths, ...]:
    """Length distribution of every compute-fabric link class (all planes), in class order (``layout``: a
    ``Layout`` or its ``Arrangement``). A layout whose racks are not built (``Layout.arrangement``, as ``place``
    gives it) and an arrangement are measured through ``placed_link_lengths`` (cached by where the racks and devices
    stand); a layout built whole, link by link from its racks (the same numbers)."""
    arrangement = layout if isinstance(layout, Arrangement) else getattr(layout, "arrangement", None)
    if arrangement is not None:
        return arranged_link_lengths(resolved, fabric, arrangement, racks)
    return _binned(link_arrays(resolved, fabric, layout, racks))


def _binned(arrays: dict) -> tuple[LinkLengths, ...]:
    """``bin_lengths`` of every class of ``arrays`` (link class -> lengths [m], links, route codes), in one pass
    (``_classes_binned``)."""
    return _classes_binned(tuple((c, *found) for c, found in arrays.items()))


def arranged_link_lengths(resolved: ResolvedDesign, fabric: FabricPlan, arrangement: Arrangement,
                          racks: RackCatalog | None = None) -> tuple[LinkLengths, ...]:
    """``link_lengths`` of an ``Arrangement`` (``core.physical.layout.arrange``), no racks built, cached by what it
    reads (``placed_link_lengths``, keyed by the wiring's link pattern, ``Wiring.pattern``): designs whose racks
    stand in the same places and whose links join the same devices share one computation (the optimizer's
    candidates that differ in switch model, power, speed or port counts but not in where things are)."""
    if not isinstance(arrangement, Arrangement):
        raise TypeError("arranged_link_lengths takes an Arrangement (core.physical.layout.arrange)")
    wiring = _wiring(resolved, fabric)
    pattern = getattr(type(wiring), "pattern", None)  # the link pattern alone where the family's wiring gives its
    # own (not one falling through to the Clos inside it: a classic Dragonfly's would lose its local links)
    return placed_link_lengths((racks or load_racks()).routing, wiring if pattern is None else pattern(wiring),
                               arrangement.places(_END_PREFIXES))


def _lengths_bytes(lengths: tuple[LinkLengths, ...]) -> int:
    """Upper bound of the memory of some link lengths [bytes]: 1 kB per class and bin (measured at 0.54 kB;
    ``tests/test_memo.py``)."""
    return 1024 * (1 + sum(1 + len(x.bins) for x in lengths))


def _arrangement_bytes(found: "Arrangement") -> int:
    """Upper bound of the memory of an arrangement [bytes]: 2 kB, 256 B a template rack and 512 B a run of SUs or
    central racks and a block of rows (the optimizer's 1,458 arrangements of the default grid for 16,384 H100
    measured at 4-41 kB, median 20 kB, at most 0.8 of this; ``tests/test_memo.py``)."""
    return (2048 + 256 * sum(map(len, found.templates.values()))
            + 512 * (len(found.instances) + len(found.singles) + len(found.rows)) + text_bytes(found.notes))


def _placed_bytes(found: tuple) -> int:
    """Upper bound of the memory of an arrangement and its link lengths [bytes] (``_arrangement_bytes``,
    ``_lengths_bytes``)."""
    return _arrangement_bytes(found[0]) + _lengths_bytes(found[1])


def _racks_bytes(found: tuple) -> int:
    """Upper bound of the memory of an arrangement and its compute racks [bytes] (``_arrangement_bytes``)."""
    return _arrangement_bytes(found[0]) + 64


ARRANGED_RACKS_SHARE = 0.12
"""``arranged_racks``' share of the stage caches: one optimizer search's arrangements (the default grid for 16,384
H100 arranges 427, 13 MB by ``_racks_bytes``, its drafts 7.6 MB: ``core.plan.as_built`` arranges once a candidate,
its rounds count the racks; at 0.03 it kept 125 of them, so a search asked again arranged every one afresh)."""


@stage(ARRANGED_RACKS_SHARE, _racks_bytes)
def arranged_racks(resolved: ResolvedFields, fabric: FabricPlan, devices: tuple, racks: RackCatalog,
                   language: str) -> tuple[Arrangement, int]:
    """``arrange``'s arrangement of the resolved design of ``resolved`` (``core.design.resolved_of``) with the other
    networks' devices ``devices`` (``core.physical.layout.devices_to_place``), its notes in ``language``, and its
    compute racks (``Arrangement.counts``), cached by these arguments (``core.memo.stage``): what
    ``core.plan.as_built`` arranges once its rounds counted the racks (the racks, not the cable lengths: those are
    measured once, by ``arranged_lengths``), of the design's drafts (``core.physical.layout.drafted_racks``)."""
    with spoken(language):
        arrangement = arrange_drafted(drafted_racks(resolved, fabric, racks, language), list(devices), racks)
    return arrangement, arrangement.counts()["compute"]


@stage(0.05, _placed_bytes)
def arranged_lengths(resolved: ResolvedFields, fabric: FabricPlan, devices: tuple, racks: RackCatalog,
                     language: str) -> tuple[Arrangement, tuple[LinkLengths, ...], int]:
    """``arranged_racks``' arrangement and compute racks with its ``arranged_link_lengths``: a plan's racks and cable
    lengths, cached by these arguments (``core.memo.stage``; an arrangement is read, never changed, once made)."""
    arrangement, compute = arranged_racks(resolved, fabric, devices, racks, language)
    return arrangement, arranged_link_lengths(resolved_of(resolved), fabric, arrangement, racks), compute


def placed_lengths(resolved: ResolvedFields, fabric: FabricPlan, devices: tuple, racks: RackCatalog, language: str,
                   arranged: Arrangement | None = None) -> tuple[Arrangement, tuple[LinkLengths, ...], int]:
    """``arranged_lengths`` of these arguments; ``arranged``: the caller's ``arranged_racks`` arrangement of the same
    arguments (``core.plan.as_built``'s last round), measured as it is, not arranged again, while the stages run
    afresh (``core.memo.uncached``: ``arranged_lengths`` would ask ``arranged_racks`` again, and it would compute
    again); with the caches, the cached stage (its answer kept whole: no rack places key built)."""
    if arranged is None or not bypassed():
        return arranged_lengths(resolved, fabric, devices, racks, language)
    return (arranged, arranged_link_lengths(resolved_of(resolved), fabric, arranged, racks),
            arranged.counts()["compute"])


@stage(0.10, _lengths_bytes)
def placed_link_lengths(routing: Routing, wiring: Wiring, places: RackPlaces) -> tuple[LinkLengths, ...]:
    """Length distribution of every link class of ``wiring`` (all planes) between the devices at ``places``
    (``core.physical.layout.RackPlaces``, of the compute links' devices), routed by ``routing``; cached by these
    arguments (``core.memo.stage``). Every class's bins in one pass (``_binned``), the node-leaf class's entries
    per SU template (``_node_leaf_blocks``: the entries ``node_leaf_lengths`` bins, so the same bins)."""
    return _binned(_link_arrays(wiring, LinkEnds(places), routing, places))
