"""Bill of materials, cost and power.

One ``BomRow`` per item with its quantity, unit price [USD], unit power [W]
and ``why``: the count explained in words. Prices come from the catalog's price book: each
entry has a low / typical / high price (``core.catalog``), and ``Design.price_basis`` picks the
point a design is priced at (``street`` = typical, ``list`` = high, ``hyperscale`` = low); every row
also carries the low and high unit prices, so capex is a point with a low-high range
(``CostSummary.capex_usd_low`` / ``capex_usd_high``). ``price_sensitivity`` ranks the prices that move
capex most. ``Design.price_overrides`` and
``Design.power_overrides`` replace them (read canonicalised, as ``ResolvedDesign.price_overrides``
and ``ResolvedDesign.power_overrides``, so an alias such as ``quantum-2`` applies to ``QM9700``).

Cables and optics follow each link's length (``core.physical``): the layout places every device in a
rack, ``core.physical.lengths`` gives each link's length from its ends' positions (routing and slack
rule there) binned per link class, and ``core.physical.media`` picks the media of each bin by reach
in the order ``Design.cable_media`` sets (``auto``: passive copper, active copper, multimode, then
single-mode optics; ``aoc`` adds active optical cables before multimode; ``optics`` no copper;
``smf`` single-mode only). The BOM lists cables per link class and length bin, transceivers per
link class and module type, each with a ``why`` naming the links, the bin and the media.

Languages: a ``BomRow``'s ``item`` and ``why`` are text in the language of the request
(``core.i18n``; ``item`` is always the catalog name first, then where the row sits in parentheses,
``"<name> (leaf)"``, full-width in Chinese, so display code can split the two). These fields are keys,
English in every language, for grouping and logic; show them translated with ``_()``:
``category`` (``CATEGORY_LABELS``: compute, NIC, switch, transceiver, cable), ``price_basis``
(``core.catalog.PRICE_BASIS_LABELS``: list, street, estimate, override), ``end`` (switch, node)
and ``catalog_id`` (never translated). Link classes and media in texts: ``LINK_CLASS_LABELS``,
``core.vocab.CABLE_MEDIA``.
"""

from __future__ import annotations

import math
from collections import namedtuple
from functools import lru_cache, partial
from typing import Literal, NamedTuple

import pandas as pd
from pydantic import BaseModel, ConfigDict

from core import plurals, units, vocab
from core.catalog import PRICE_POINT, Catalog, System, form_factor_family
from core.design import ResolvedDesign
from core.errors import FabricPlannerError
from core.fabric import domainlevels
from core.fabric.families import cabled_nics, class_link_counts, declared, family as topology_family
from core.fabric.families import clos_tiers, rail_leaves, words as family_words
from core.fabric.sizing import ROLE_LABELS, FabricPlan
from core.fabric.wiring import wiring_of
from core.i18n import N_, _, as_sentence, ngettext, sentences
from core.i18n import current as current_language
from core.memo import FrozenDict, spoken, stage, view
from core.networks import ClusterNetworks, NetworkFabric, NetworkInputs, size_networks, sized_networks, network_name
from core.networks.model import LINK_KIND_LABELS, SWITCH_ROLE_LABELS
from core.networks.makers import optics_note
from core.physical.layout import Layout, place
from core.physical.lengths import LinkLengths, link_lengths
from core.physical.media import (
    KIND_LABELS,
    POLICIES,
    MediaBin,
    MediaNic,
    MediaSystem,
    cable_options,
    class_speeds,
    class_switches,
    select_media,
    transceiver_options,
)
from core.physical.racks import RackCatalog, load_racks
from core.spares import spare_rows

Category = Literal["compute", "NIC", "switch", "transceiver", "cable", "appliance"]
NETWORK_CATEGORIES = ("NIC", "switch", "transceiver", "cable")
CATEGORY_LABELS = {"compute": N_("compute"), "NIC": N_("NIC"), "switch": N_("switch"),
                   "transceiver": N_("transceiver"), "cable": N_("cable"), "appliance": N_("appliance")}
"""BOM category (a key) -> its name, English marked for translation: ``_(CATEGORY_LABELS[category])``. Its order
is the one order charts list categories in (``in_category_order``), whatever the BOM's rows are."""


def in_category_order(categories) -> list[str]:
    """``categories`` (BOM category keys) in ``CATEGORY_LABELS`` order, any other key after them as given: the
    capex and power bars of every design line up side by side."""
    given = list(dict.fromkeys(categories))
    return [c for c in CATEGORY_LABELS if c in given] + [c for c in given if c not in CATEGORY_LABELS]
LINK_CLASS_LABELS = {"node-leaf": N_("node-leaf"), "leaf-spine": N_("leaf-spine"), "spine-core": N_("spine-core"),
                     "global": N_("global"), "torus": N_("torus"), **declared("LINK_CLASS_LABELS")}
"""Link class (a key) -> its name in texts, marked for translation (a topology family's own classes from its
module, ``core.fabric.families.declared``)."""
HOURS_PER_YEAR = 8760

# Typical run lengths by link class [m]: no longer used to choose media (lengths come from the layout,
# core.physical.lengths); kept for the Catalog page's assumptions table and old scripts.
LINK_DISTANCE_M = {"in-rack": 2.0, "node-leaf": 30.0, "leaf-spine": 50.0, "spine-core": 150.0}



def in_compute_fabric(row) -> bool:
    """Whether a bill row (a ``BomRow`` or a floor's row) is the compute fabric's: a NIC, switch, transceiver or cable
    of the compute network, not of its management (``BomRow.management``: the UFM appliances' links). The one
    boundary of ``CostSummary.network_capex_usd`` ("Capex, compute fabric") and of the Links and Transceivers
    cards' counts."""
    return row.category in NETWORK_CATEGORIES and row.network == "compute" and not row.management

class BomRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    category: Category
    item: str
    catalog_id: str
    quantity: int
    unit_price_usd: float
    unit_power_w: float
    price_basis: str
    why: str
    end: Literal["", "switch", "node"] = ""
    """For transceivers: the end of the link they sit at."""
    network: Literal["compute", "storage", "inband", "oob"] = "compute"
    """The network the row belongs to (``core.networks``: storage, in-band, out-of-band; else compute)."""
    unit_price_low_usd: float | None = None
    """Lowest catalog unit price [USD]; None = the unit price (no range)."""
    unit_price_high_usd: float | None = None
    """Highest catalog unit price [USD]; None = the unit price (no range)."""
    spare: bool = False
    """A spare of the installed row of the same catalog id and place (``core.spares``, ``Design.spares``):
    on a shelf, so no power; listed after every installed row."""
    pod: int | None = None
    """The bill of a design with pods (``core.analysis.pods.MixedPlan.bom``): the number (1-based) of the pod whose
    devices the row buys; None for the shared layer (spines, or cores on three tiers) and in a design without pods."""
    management: bool = False
    """A row of the compute network's management: its UFM appliances and their links' cords and modules
    (``ClusterNetworks.compute_devices``/``compute_links``). In the compute network's totals (the By network table's
    compute row) but not the compute fabric's (``network_capex_usd``), as the Links and Transceivers cards leave
    those links out (``core.figures.keynumbers.unbilled_by_cards``)."""

    @property
    def extended_price_usd(self) -> float:
        return self.quantity * self.unit_price_usd

    @property
    def low_usd(self) -> float:
        """Unit price at the low end of its range [USD]."""
        return self.unit_price_usd if self.unit_price_low_usd is None else self.unit_price_low_usd

    @property
    def high_usd(self) -> float:
        """Unit price at the high end of its range [USD]."""
        return self.unit_price_usd if self.unit_price_high_usd is None else self.unit_price_high_usd

    @property
    def extended_power_w(self) -> float:
        return self.quantity * self.unit_power_w


class CostSummary(BaseModel):
    """Totals of a bill of materials, with power and energy."""

    model_config = ConfigDict(frozen=True)

    capex_usd: float
    capex_per_gpu_usd: float
    network_capex_usd: float
    capex_usd_low: float
    """Capex with every catalog price at the low end of its range [USD]."""
    capex_usd_high: float
    """Capex with every catalog price at the high end of its range [USD]."""
    network_capex_usd_low: float
    network_capex_usd_high: float
    price_basis: str = "street"
    """``Design.price_basis`` the point figures use (street, list, hyperscale)."""
    network_share: float
    it_kw: float
    network_kw: float
    facility_kw: float
    pue: float
    energy_usd_per_year: float
    tco_years: float
    tco_usd: float
    racks_compute: int
    scaleup_capex_usd: float = 0.0
    """Capex of the second NVLink level's switch units and cables [USD] (``domainlevels.level2_bom``): a part of
    ``network_capex_usd``, whose rows are the compute network's; 0 with one NVLink level."""
    spares_capex_usd: float = 0.0
    """Capex of the spare rows (``BomRow.spare``, ``Design.spares``) [USD]; included in ``capex_usd``."""
    spares_capex_usd_low: float = 0.0
    """The spare rows at their lowest catalog prices [USD]."""
    spares_capex_usd_high: float = 0.0
    """The spare rows at their highest catalog prices [USD]."""

    @property
    def compute_fabric_capex_usd(self) -> float:
        """Capex of the compute fabric alone [USD]: its switches, transceivers, cables and the nodes' compute
        NICs (BOM rows of ``NETWORK_CATEGORIES`` whose ``network`` is ``compute``, spares of those included).
        Not included: the GPU nodes themselves, racks, the UFM appliances and their links (``BomRow.management``),
        the storage fabric (switches and appliances) and the in-band and out-of-band management networks. The same figure as ``network_capex_usd``, named for
        what it is next to ``cluster_capex_usd``."""
        return self.network_capex_usd

    @property
    def cluster_capex_usd(self) -> float:
        """Capex of the whole cluster [USD]: every BOM row (GPU nodes, the compute fabric, the storage fabric
        and its appliances, the management networks, racks, spares); the same figure as ``capex_usd``."""
        return self.capex_usd


def holds_level2(costs) -> bool:
    """Whether any of ``costs`` (``CostSummary``s; None: a design that did not plan) counts a second NVLink level's
    parts in its compute fabric capex (``CostSummary.scaleup_capex_usd``): the one rule by which a row or column
    shared by several designs names the compute fabric with NVLink level 2 (``core.vocab.compute_fabric``'s
    ``level2``; Compare's rows and caption, Performance's two-fabric share column)."""
    return any(c is not None and c.scaleup_capex_usd for c in costs)


BOM_COLUMNS = [
    "category", "item", "catalog_id", "quantity", "unit_price_usd", "extended_price_usd",
    "unit_power_w", "extended_power_w", "price_basis", "why",
    "unit_price_low_usd", "unit_price_high_usd", "extended_price_low_usd", "extended_price_high_usd", "network",
    "spare", "management",
]
"""The BOM frame's columns (CSV and JSON downloads); ``unit_price_low_usd`` to ``extended_price_high_usd`` are
each row's price range [USD]; ``spare`` is true for the sparing policy's rows (``Design.spares``); ``management``
for the compute network's UFM appliances and their links (``BomRow.management``: not in the compute fabric's capex). The bill of a
design with pods adds ``pod`` (``bom_dataframe``)."""


def bom_dataframe(rows: tuple[BomRow, ...] | list[BomRow]) -> pd.DataFrame:
    """The bill of materials as a DataFrame with ``BOM_COLUMNS``; the bill of a design with pods (a row with
    ``BomRow.pod``) adds a last column ``pod``: the row's pod (1-based), or ``shared`` for the shared layer, as the
    Designer's pod column (``core.spares.pod_label``, in English)."""
    pods = any(row.pod is not None for row in rows)
    records = [
        {
            **row.model_dump(exclude={"pod"}),
            **({"pod": "shared" if row.pod is None else row.pod} if pods else {}),
            "extended_price_usd": row.extended_price_usd,
            "extended_power_w": row.extended_power_w,
            "unit_price_low_usd": row.low_usd,
            "unit_price_high_usd": row.high_usd,
            "extended_price_low_usd": row.quantity * row.low_usd,
            "extended_price_high_usd": row.quantity * row.high_usd,
        }
        for row in rows
    ]
    return pd.DataFrame.from_records(records, columns=BOM_COLUMNS + (["pod"] if pods else []))


def build_bom(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, layout: Layout | None = None,
              media: tuple[MediaBin, ...] | None = None, networks: ClusterNetworks | None = None,
              other_rows: tuple[BomRow, ...] | None = None) -> tuple[BomRow, ...]:
    """Every item of the design with its count explained.

    Switch-side transceivers are counted per switch: ``ceil(ports used / ports
    per cage)`` (a twin-port OSFP carries two 400G links). Node-side
    transceivers are counted per node: ``ceil(NIC ports / system's
    node_ports_per_transceiver)``. Fibre cords: one per optical link. With ``Design.spares`` on, the
    spare rows (``core.spares.spare_rows``, ``BomRow.spare``) follow the installed ones. On a cloud
    instance's adapters (``Nic.transport``) every network is the provider's: only the compute nodes remain.

    ``media``, ``networks`` and ``other_rows`` are inputs the caller may already have: the compute links' media
    bins (else from ``layout``, else from a layout placed here), the other networks (else sized here) and their
    rows (``other_network_rows(resolved, catalog, networks)``, else priced here).
    """
    rows: list[BomRow] = []
    add = priced_row_adder(resolved, rows)
    _fabric_rows(resolved, fabric, catalog, rows, add)

    # --- links: media per class and length bin (core.physical: lengths from the layout, media by reach) --
    networks = size_networks(resolved, fabric, catalog) if networks is None else networks
    if media is None:  # the layout holds the other networks' racks too, as Plan's does (same cable lengths)
        layout = layout or place(resolved, fabric, networks, catalog)
        media = fabric_media(catalog, resolved, fabric, layout)[1]
    rows += compute_link_rows(resolved, fabric, catalog, media)
    rows += other_network_rows(resolved, catalog, networks) if other_rows is None else other_rows
    rows = _bought(resolved, rows)
    # Design.spares (core.spares): the spare rows after every installed row
    rows += spare_rows(rows, resolved.design.spares, lambda: {e.id: e.name for _kind, e in catalog.all_entries()})
    return tuple(rows)


def _bought(resolved: ResolvedDesign, rows: list[BomRow]) -> list[BomRow]:
    """The rows bought: all of them, or on a cloud instance's adapters (``Nic.transport``) the compute nodes only
    (every network is the provider's)."""
    if resolved.nic.transport is None:
        return rows
    return [row for row in rows if row.category == "compute"]


def priced_row_adder(resolved: ResolvedDesign, rows: list, row=BomRow):
    """A function ``add(category, entry, quantity, why, item=None, end="", network="compute")`` that appends one
    priced bill row of catalog ``entry`` to ``rows``: ``quantity`` [units of the entry: switches, cables, modules],
    unit prices point, low and high [USD per unit] at ``resolved``'s price basis (a price override sets all
    three), unit power [W per unit] with its power overrides; nothing for a quantity of 0 or less. ``resolved``:
    a ``ResolvedDesign`` or anything with its ``Pricing`` view. ``row``: the rows' type (``BomRow``, or
    ``_FloorRow`` for a floor's rows, which only ``summarize_cost`` reads). ``core.analysis.podoptics`` prices a
    pod's optics with it."""
    price_overrides, power_overrides = resolved.price_overrides, resolved.power_overrides
    basis = design_price_basis(resolved)

    def add(category, entry, quantity, why, item=None, end="", network="compute", management=False):
        if quantity <= 0:
            return
        point, low, high = _prices(entry, price_overrides, basis)
        rows.append(
            row(
                category=category, item=item or entry.name, catalog_id=entry.id, quantity=quantity,
                unit_price_usd=point, unit_price_low_usd=low, unit_price_high_usd=high,
                unit_power_w=power_overrides.get(entry.id, entry.power_w),
                price_basis="override" if entry.id in price_overrides else entry.price_basis,
                why=why, end=end, network=network, management=management,
            )
        )

    return add


def _prices(entry, price_overrides, basis: str) -> tuple[float, float, float]:
    """(point at ``basis``, low, high) unit prices [USD] of a catalog entry; an override is all three."""
    if entry.id in price_overrides:
        value = price_overrides[entry.id]
        return value, value, value
    if isinstance(entry, System):
        return entry.price_at(basis), entry.node_price_low_usd, entry.node_price_high_usd
    return entry.price_at(basis), entry.price_low_usd, entry.price_high_usd



def _node_item(resolved) -> str:
    """The bill's node row: the catalog system's name, and where the plan builds racks other than the catalog's
    (``core.scaleup.other_rack``: GB200-NVL72's trays in NVL36 racks) that its trays sit in those, priced as the
    catalog's (the same tray; an NVL36 rack's extra switch-tray share is its own row)."""
    from core.scaleup import other_rack

    system = resolved.system
    rack = other_rack(system, resolved.nvlink_level1_nodes * resolved.gpus_per_node)
    if rack is None:
        return _("{name} node").format(name=system.name)
    return _("{name} node, in {rack} racks (priced as in the catalog's {system} rack)").format(
        name=system.name, rack=rack, system=system.id)


def _fabric_rows(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, rows: list, add) -> None:
    """The compute nodes', NICs' and compute fabric switches' rows of ``build_bom`` (``add``: ``priced_row_adder``):
    what a design's counts alone price, before any cable length is known (``cost_floor`` sums the same rows without
    their words: ``floor_units``)."""
    _node_rows(resolved, catalog, rows, add, fabric)
    # --- switches -----------------------------------------------------------------------
    planes = resolved.planes
    models = switch_models(resolved)  # the tier models, as the floor's unit rows price them (``floor_units``)
    switch, spine, core = models["leaf"], models["spine"], models["core"]
    plane_note = _(" x {planes} planes").format(planes=planes) if planes > 1 else ""
    # Islands (rail-only rails, per-rail planes) are side by side copies: a count of one island's shape times them
    rail_only = resolved.topology == "rail-only"
    every_note = ("" if fabric.islands <= 1 else (_(" x {rails} rails") if rail_only else _(
        " x {planes} planes")).format(rails=fabric.islands, planes=fabric.islands)) + plane_note
    for role, count in switch_counts(fabric):
        if role == "leaf" and fabric.tiers == 1:
            add("switch", switch, count, (
                _("1 switch holds all {ports} NIC ports") if not every_note else
                _("1 switch per rail holds all {ports} NIC ports of its rail: 1{plane_note} = {total}") if rail_only
                and fabric.islands > 1 else _("1 switch per plane holds all {ports} NIC ports: 1{plane_note} = {total}")
            ).format(ports=fabric.node_leaf_links // fabric.islands, plane_note=every_note, total=f"{count:,}"),
                item=_leaf_item(fabric, switch))
        elif role == "leaf":
            add("switch", switch, count, _leaf_why(resolved, fabric, every_note), item=_leaf_item(fabric, switch))
        elif role == "spine":
            add("switch", spine, count, _spine_why(fabric, every_note),
                item=_("{name} (spine)").format(name=spine.name))
        else:
            add("switch", core, count, _("{groups} core groups x {cores} cores{plane_note} = {total}").format(
                groups=fabric.core_groups, cores=fabric.cores_per_group, plane_note=every_note, total=f"{count:,}"),
                item=_("{name} (core)").format(name=core.name))
    domainlevels.level2_bom(resolved, add)  # the second NVLink level's switches and cables (core.fabric.domainlevels)


def switch_counts(fabric: FabricPlan) -> tuple[tuple[str, int], ...]:
    """The compute fabric's switch rows of the bill as (tier, switches in all planes), in the bill's order: none
    without switch groups (node to node, a torus), the leaves, the spines from two tiers on, the cores at three. The
    leaves are ``ResolvedDesign.switch``, the spines and cores their ``tier_switches`` (``switch_models``)."""
    if not fabric.switch_groups:
        return ()
    if fabric.tiers == 1:
        return (("leaf", fabric.leaf_count_total),)
    counts = (("leaf", fabric.leaf_count_total), ("spine", fabric.spine_count_total))
    return counts + (("core", fabric.core_count_total),) if fabric.tiers == 3 else counts


def switch_models(resolved: ResolvedDesign) -> dict:
    """The switch model of each tier of ``switch_counts``' rows: the leaves ``ResolvedDesign.switch``, the spines and
    cores their ``tier_switches``."""
    tiers = resolved.tier_switches
    return {"leaf": resolved.switch, "spine": tiers["spine"], "core": tiers["core"]}


def _node_rows(resolved: ResolvedDesign, catalog: Catalog, rows: list, add, fabric: FabricPlan | None = None) -> None:
    """The compute nodes' and NICs' rows of ``_fabric_rows`` (``add``: ``priced_row_adder``); without ``fabric`` (a
    floor's: ``floor_units``) the rows' sentences are left empty, never made, and the node row is a ``_FloorRow``
    (only their numbers count, which read no fabric)."""
    say, row = (_said, BomRow) if fabric is not None else (_unsaid, _FloorRow)
    system = resolved.system
    price_overrides, power_overrides = resolved.price_overrides, resolved.power_overrides
    basis = design_price_basis(resolved)
    power = lambda entry_id, value: power_overrides.get(entry_id, value)  # noqa: E731
    # The node's price and power include its standard NICs; list NICs separately and take those out.
    included_nic = catalog.nic(system.default_nic)
    included = system.default_nics_per_node
    nic_count = resolved.nodes * resolved.nics_per_node
    node_prices, nic_prices = _prices(system, price_overrides, basis), _prices(included_nic, price_overrides, basis)
    node_point, node_low, node_high = (max(0.0, n - included * c) for n, c in zip(node_prices, nic_prices))
    node_power = power(system.id, system.node_power_w)
    rows.append(
        row(
            category="compute", item=say(lambda: _node_item(resolved)), catalog_id=system.id,
            quantity=resolved.nodes,
            unit_price_usd=node_point, unit_price_low_usd=min(node_low, node_point),
            unit_price_high_usd=max(node_high, node_point),
            unit_power_w=max(0.0, node_power - included * power(included_nic.id, included_nic.power_w)),
            price_basis="override" if system.id in price_overrides else system.price_basis,
            why=say(lambda: (
                _("{gpus} GPUs / {gpus_per_node} per node = {nodes} nodes (node price and power less its {included} "
                  "standard {nic} NICs, listed below)") if resolved.nic.id == included_nic.id else
                _("{gpus} GPUs / {gpus_per_node} per node = {nodes} nodes (node price and power less its {included} "
                  "standard {nic} NICs; its {own} NICs are listed below)")).format(
                nodes=f"{resolved.nodes:,}", gpus_per_node=resolved.gpus_per_node, gpus=f"{resolved.gpus:,}",
                included=included, nic=included_nic.id, own=resolved.nic.id)),
        )
    )
    add("NIC", resolved.nic, nic_count, say(lambda: _nic_why(resolved, fabric, included)),
        item=say(lambda: _("{name} (node)").format(name=resolved.nic.name)))


def _leaf_item(fabric: FabricPlan, switch) -> str:
    """The leaf row's item, ``"<name> (leaf)"``, or with the family's own word for its leaves where it declares one
    (its ``WORDS``' ``tier:leaf``: a classic Dragonfly's ``"<name> (router)"``)."""
    own = family_words(fabric.family, "tier:leaf", None)
    return (_("{name} ({place})").format(name=switch.name, place=own) if own else
            _("{name} (leaf)").format(name=switch.name))


def role_words(role: str, family: str | None = None) -> str:
    """A switch role (``ROLE_LABELS``; another role as it is) in words, translated: in ``family``'s own where it
    declares them (its ``WORDS``' ``tier:<role>``: a classic Dragonfly's routers), else the folded Clos's. The
    bill's switch rows and the sizing tables (the Designer's, the review pack's) read it."""
    return family_words(family, f"tier:{role}", ROLE_LABELS.get(role, role))


def link_class_words(link_class: str, family: str | None = None) -> str:
    """A link class in words, translated: in ``family``'s own where it declares them (its ``WORDS``'
    ``link:<class>``: a classic Dragonfly's node-router links), else ``LINK_CLASS_LABELS``'s (the class itself
    when none names it): the bill, the Racks tab's lengths chart and the pack's lengths table."""
    default = LINK_CLASS_LABELS.get(link_class)
    return family_words(family, f"link:{link_class}", default) if default else link_class


def _nic_why(resolved: ResolvedDesign, fabric: FabricPlan, included: int) -> str:
    """The NIC row's sentence (``_fabric_rows``)."""
    planes = resolved.planes
    nic_why = (_("{nodes} nodes x {nics} NICs (rails) = {count}; each NIC has a port in each of {planes} planes")
               if planes > 1 else _("{nodes} nodes x {nics} NICs (rails) = {count}"))
    nic_why = nic_why.format(nodes=f"{resolved.nodes:,}", nics=resolved.nics_per_node, planes=planes,
                             count=f"{resolved.nodes * resolved.nics_per_node:,}")
    cabled = cabled_nics(fabric, resolved.nics_per_node)
    if cabled < resolved.nics_per_node:  # bought all the same: a torus cables width x neighbours of them
        unused = (_("; {cabled} of each node's cabled, {unused} unused (the node comes with them)")
                  if resolved.nics_per_node == included else
                  _("; {cabled} of each node's cabled, {unused} unused (fewer NICs per node would do)"))
        nic_why += unused.format(cabled=cabled, unused=resolved.nics_per_node - cabled)
    return nic_why


def _leaf_why(resolved: ResolvedDesign, fabric: FabricPlan, every_note: str) -> str:
    """The leaf row's sentence of a fabric of two or more tiers (``_fabric_rows``)."""
    if resolved.topology == "rail-optimized" or rail_leaves(fabric.family):  # a family's leaves are rail leaves
        return _("{sus} SU x {rails}{plane_note} = {total}").format(
            sus=fabric.group_count, rails=plurals.rails(fabric.leaves_per_group), plane_note=every_note,
            total=f"{fabric.leaf_count_total:,}")
    return _("ceil({nodes} nodes / {per_leaf} per leaf){plane_note} = {total}").format(
        nodes=resolved.nodes, per_leaf=fabric.nodes_per_group, plane_note=every_note,
        total=f"{fabric.leaf_count_total:,}")


def _spine_why(fabric: FabricPlan, every_note: str) -> str:
    """The spine row's sentence (``_fabric_rows``)."""
    total = f"{fabric.spine_count_total:,}"
    if (spines := family_words(fabric.family, "bom:spines", None)) is not None:  # a family's: Dragonfly+ groups
        return spines.format(groups=fabric.pod_count, spines=fabric.spines_per_pod, plane_note=every_note, total=total)
    if fabric.tiers == 2:  # every leaf reaches its island's spines: a leaf's uplinks / a pair's links, per island
        return _("{leaves} leaves x {uplinks} uplinks = {links} links, {pair} per leaf-spine pair: "
                 "{uplinks} / {pair}{plane_note} = {total} spines").format(
            leaves=fabric.leaf_count, uplinks=fabric.leaf_uplinks, links=f"{fabric.leaf_spine_links:,}",
            pair=fabric.links_per_leaf_spine_pair, total=total, plane_note=every_note)
    return ngettext("{pods} pod x {spines} spines{plane_note} = {total}",
                    "{pods} pods x {spines} spines{plane_note} = {total}",
                    fabric.pod_count).format(pods=fabric.pod_count, spines=fabric.spines_per_pod,
                                             plane_note=every_note, total=total)


_FloorRow = namedtuple("_FloorRow", BomRow.model_fields,
                       defaults=[f.default for f in BomRow.model_fields.values() if not f.is_required()])
"""A ``BomRow``'s fields without its validation (a tenth of its cost): ``cost_floor``'s rows, read only by
``summarize_cost`` and ``_bought``."""


def _said(sentence) -> str:
    """``sentence()``: a row's text (``_fabric_rows`` with words)."""
    return sentence()


def _unsaid(_sentence) -> str:
    """A sentence nobody reads (``_fabric_rows`` without words): empty, never made."""
    return ""


def cost_floor(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
               others: tuple[BomRow, ...] = (), lengths: tuple[LinkLengths, ...] | None = None,
               links_power_w: float = 0.0, links: bool = True, units: "FloorUnits | None" = None) -> "FloorTotals":
    """A lower bound on ``summarize_cost(resolved, build_bom(resolved, fabric, catalog, networks=networks))``'s
    capex, compute fabric capex [USD] and power [kW], without a layout: the summary of the bill's rows from counts
    alone (the compute nodes, the NICs, the compute fabric's switches, ``_fabric_rows``, and ``others``:
    ``other_network_rows(resolved, catalog, networks)``, the same for every design with those networks and prices,
    or ``network_floor_rows``: their totals in a few rows),
    the compute links' cables and transceivers at their floor (``links_floor``, with ``lengths``: the length bins of
    the design's rack arrangement, ``core.physical.lengths.arranged_link_lengths``; at ``links_power_w`` [W], a lower
    bound of their power, ``core.analysis.linkpower.links_power_floor``, else none) and no spares. Every row
    of a bill has a quantity, unit price and unit power of at least 0, so each total is at most the full bill's (up
    to the rounding of a sum, a millionth of a cent at a billion dollars; ``tests/test_optimize_bounds.py`` checks
    it against full plans). Without ``links`` the compute links count 0 (a lower floor that skips ``links_floor``,
    the most of its cost: the optimizer adds them only where that floor does not decide a candidate). ``units``:
    ``floor_units(resolved, catalog)`` when the caller has it (the optimizer's candidates of one resolution share
    it); the rows are the same, in the same order, their totals (``FloorTotals``) summed as ``summarize_cost`` sums
    them, onto the sums of the units' head made once (``FloorUnits.sums``)."""
    units = units or floor_units(resolved, catalog)
    rows = _counted_rows(units, fabric)
    if links:
        rows += _links_floor_rows(links_floor(resolved, fabric, catalog, lengths), links_power_w)
    return _floor_totals(resolved, _row_sums(_bought(resolved, [*rows, *others]), units.sums))


class FloorUnits(NamedTuple):
    """What ``cost_floor`` prices of a resolved design alone (``floor_units``), as ``_FloorRow``s in the bill's order
    (``_fabric_rows``): its compute nodes and NICs (``head``), one switch of each tier's model (``switches``, by
    ``switch_counts``' tier: a row of quantity 1, the design's fabric multiplying it) and the second NVLink level's
    rows (``tail``); ``sums``: ``_row_sums`` of the head's rows bought (``_bought``)."""

    head: tuple
    switches: dict
    tail: tuple
    sums: tuple


def floor_units(resolved: ResolvedDesign, catalog: Catalog) -> FloorUnits:
    """``cost_floor``'s rows that read no fabric plan (``FloorUnits``): the same rows ``_fabric_rows`` makes (its node,
    NIC and second-level rows, a switch row per tier model at one switch), without their words. Reads no tiers or
    oversubscription (``tests/test_optimize_speed.py``)."""
    rows: list = []
    add = priced_row_adder(resolved, rows, _FloorRow)
    _node_rows(resolved, catalog, rows, add)
    head = tuple(rows)
    switches = {}
    for role, model in switch_models(resolved).items():
        if model is not None:  # node to node (a torus): no switch model, no switch row
            rows.clear()
            add("switch", model, 1, "")
            switches[role] = rows[0]
    rows.clear()
    domainlevels.level2_bom(resolved, add)
    return FloorUnits(head, switches, tuple(rows), _row_sums(_bought(resolved, list(head))))


def _counted_rows(units: FloorUnits, fabric: FabricPlan) -> list:
    """``cost_floor``'s rows of the compute fabric switches and second NVLink level, after those of the nodes and
    NICs (``units.head``): each tier's switch row of ``units`` (``floor_units``) at ``fabric``'s count
    (``switch_counts``), then ``units.tail``; with the head, ``_fabric_rows``' rows without their words."""
    rows = []
    for role, count in switch_counts(fabric):
        if count > 0:  # as ``priced_row_adder``'s rows: none for no switch
            unit = units.switches[role]
            rows.append(_FloorRow._make((*unit[:_QUANTITY], count, *unit[_QUANTITY + 1:])))
    rows += units.tail
    return rows


_QUANTITY = _FloorRow._fields.index("quantity")
"""Where a ``_FloorRow``'s quantity is (``cost_floor`` sets it on a switch model's unit row)."""


def links_cost_floor(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog) -> "FloorTotals":
    """What ``cost_floor``'s compute links add to its totals (its capex, compute fabric capex and TCO: each total is
    a sum over the rows, so ``cost_floor(..., links=False)``'s plus this one's is ``cost_floor``'s, up to the
    rounding of a sum): their row alone (``links_floor`` from the rack geometry, no power), as bought."""
    return _floor_totals(resolved, _row_sums(_bought(resolved, _links_floor_rows(links_floor(resolved, fabric,
                                                                                           catalog)))))


def links_binned_raise(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                       lengths: tuple[LinkLengths, ...]) -> "FloorTotals":
    """What ``links_cost_floor``'s totals rise by when the link classes ``lengths`` bins are priced per length bin
    (``links_floor`` of those classes alone, with and without them) where that is the higher: each class's part of
    ``links_floor`` is a lower bound on that class's cables and transceivers either way (``link_rows`` buys each
    class's media and modules apart), so the higher is too. The rise's row alone, as bought (none when it is not
    higher)."""
    view, classes = LinksFloorInputs.of(resolved), tuple(x.link_class for x in lengths)
    more = links_floor_of(view, fabric, catalog, lengths, classes) - links_floor_of(view, fabric, catalog, None,
                                                                                  classes)
    return _floor_totals(resolved, _row_sums(_bought(resolved, _links_floor_rows(more))))


def _links_floor_rows(links: float, links_power_w: float = 0.0) -> list:
    """``cost_floor``'s one unnamed row (never shown) for the compute links' cables and transceivers at ``links``
    [USD] and ``links_power_w`` [W], or none when both are 0."""
    if links <= 0 and links_power_w <= 0:
        return []
    return [_FloorRow(category="cable", item="", catalog_id="", quantity=1, unit_price_usd=links,
                      unit_power_w=links_power_w, price_basis="estimate", why="")]


@lru_cache(maxsize=8)
def link_length_floors(racks: RackCatalog | None = None) -> tuple[float, float]:
    """(in a rack, between racks): the shortest a compute link can be [m] (``core.physical.lengths``' routing:
    run x (1 + slack) + two service loops). In a rack the run is at least ``in_rack_m``; between racks at least the
    two climbs to the tray (``2 x tray_above_rack_m``) and the distance between two rack centres, at least the
    narrowest preset's width (racks of a row stand side by side, rows a pitch of at least a rack's depth apart,
    columns of rows two end aisles apart: ``core.physical.layout``)."""
    racks = racks or load_racks()
    r = racks.routing
    apart = min(min(p.width_mm for p in racks.presets), min(p.depth_mm for p in racks.presets)) / 1000

    def length(run: float) -> float:
        return run * (1 + r.slack_fraction) + 2 * r.slack_end_m

    return length(r.in_rack_m), length(2 * r.tray_above_rack_m + apart)


def links_floor(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                lengths: tuple[LinkLengths, ...] | None = None) -> float:
    """A lower bound on the compute links' cables and transceivers in ``build_bom`` [USD, at the design's price
    basis], without their layout: per link class, each link at least the cheapest media ``Design.cable_media``
    allows (``media_prices``) at the shortest length it can have (``link_length_floors``). Every link between two
    racks is at least the between-racks length: the leaves stand in racks of their own (``core.physical.layout``),
    or with top-of-rack wiring in their group's first compute rack, holding at most ``nodes per rack`` of the
    group's nodes; spines, cores and a Dragonfly+'s spines stand in racks of each role of their own. Node-to-node
    links (a torus's) count 0. Each bin's media reaches its longest link, so each link's media reaches its length; optical links
    take their share of switch-side modules counted as ``link_rows`` does (``switch_module_counts``) and node-side
    modules per node, at the cheapest module ``pick_transceiver`` could take.

    With ``lengths`` (the ``LinkLengths`` of the design's rack arrangement, ``select_media``'s input) a class they
    bin is priced per bin (``_binned_floor``) rather than at the shortest length it can have. Cached by what it
    reads (``links_floor_of``: a view of the design, ``LinksFloorInputs``)."""
    return links_floor_of(LinksFloorInputs.of(resolved), fabric, catalog, lengths, None)


LinksFloorDesign = view("LinksFloorDesign", "cable_media price_basis rack_preset rack_kw rack_units")
LinksFloorSystem = view("LinksFloorSystem", "id gpus_per_node node_ports_per_transceiver node_power_w node_rack_units "
                                            "nodes_per_rack nvlink_domain_gpus")
LinksFloorInputs = view("LinksFloorInputs", "fabric port_speed_gbps uplink_gbps planes switch nodes nics_per_node "
                                            "nodes_per_rack nvlink_level1_nodes",
                        design=LinksFloorDesign, system=LinksFloorSystem, nic=MediaNic, tier_switches=FrozenDict,
                        price_overrides=FrozenDict, power_overrides=FrozenDict)
"""What ``links_floor`` reads of a resolved design (``core.memo.view``): its media, prices and switches, and what
``core.physical.layout.compute_rack_fit`` reads (the rack preset, power and units, nodes per rack and domain, node
power and height)."""


@stage(0.01, lambda _total: 32, errors=(FabricPlannerError,))
def links_floor_of(resolved: LinksFloorInputs, fabric: FabricPlan, catalog: Catalog,
                   lengths: tuple[LinkLengths, ...] | None, only: tuple[str, ...] | None) -> float:
    """``links_floor`` of the view of a resolved design (``LinksFloorInputs``), of the link classes ``only`` names
    (None: every class); cached by these arguments (``core.memo.stage``): candidates of a search that differ only in
    what it does not read share one entry."""
    binned = {x.link_class: x for x in lengths or ()}
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    classes = [(c, n) for c, n in class_links(fabric, wiring)
               if wiring.class_ends(c)[1][0] != "node" and n > 0  # node to node (a torus): no switch link
               and (only is None or c in only)]
    if not classes:
        return 0.0
    units = links_units_of(resolved, catalog)
    counts, _terms = switch_module_counts(resolved, fabric, wiring=wiring, at=units.speeds)

    def rack_fit() -> tuple | None:
        """``compute_rack_fit`` of the design (None when it raises)."""
        return units.rack_fit

    total = 0.0
    for c, links in classes:
        if c in binned and binned[c].links == links and binned[c].bins:
            total += _binned_floor(resolved, catalog, binned[c], counts[c], units.node_modules, units.speeds[c],
                                   units.switches[c], units.pricing)
            continue
        near = 0  # links that may stay in one rack
        if c == "node-leaf" and wiring.tor:
            per_rack = units.rack_fit[3] if units.rack_fit else resolved.nodes
            near = min(links, max(1, wiring.groups) * per_rack * resolved.nics_per_node * resolved.planes)
        far, short = units.classes[c]
        at_low, steps = short if near else far
        switch_share, node_share = counts[c] / links, units.node_modules / links

        def least(options: tuple) -> float:
            """The least one link costs [USD] of ``options`` (``media_prices``' at a length; 0: no media allowed)."""
            return min([cable if cable is not None else switch_share * module + fibre + node_share * node_module
                        for cable, module, fibre, node_module in options]) if options else 0.0

        # every link at least the least at its shortest length; then each cable reach a link may pass: the links
        # beyond it pay the step (those between racks are beyond every reach shorter than ``apart``, and at most
        # ``within`` of them are within a reach the rack geometry bounds)
        below = least(at_low)
        total += links * below
        within = _links_within(c, wiring)
        for reach, options in steps:
            above = least(options)
            if above > below:
                beyond = links - near if reach < units.apart else 0
                if within is not None:
                    beyond = max(beyond, links - within(resolved, fabric, wiring, reach, links, c, rack_fit))
                total += (above - below) * beyond
            below = above
    return total


class LinksUnits(NamedTuple):
    """What ``links_floor_of`` reads of a design's view alone (``links_units_of``): its classes' speeds
    (``class_speeds``) and switch models (``class_switches``), pricing (cable media policy, price overrides, price
    basis), node-side modules (``node_modules``: per node ``ceil(NICs x planes / ports per module)``), the compute
    racks' fit (``rack_fit``: ``compute_rack_fit``'s, None when it raises), the between-racks least length
    [m] (``apart``, ``link_length_floors``), and per link class with a switch end the ``_price_steps`` of a link
    between racks and, node-leaf only, of one that may stay in its rack (else None)."""

    speeds: dict
    switches: dict
    pricing: tuple
    node_modules: int
    rack_fit: tuple | None
    apart: float
    classes: dict


def _units_bytes(units: LinksUnits) -> int:
    """Upper bound of the memory of a ``LinksUnits`` [bytes]: 4 kB and 320 bytes a price option or step (measured
    at most 2.9 kB and 200 bytes; ``tests/test_memo.py``)."""
    steps = [s for far, near in units.classes.values() for s in (far, near) if s is not None]
    return 4096 + 320 * sum(1 + len(at) + sum(1 + len(options) for _reach, options in past) for at, past in steps)


@stage(0.03, _units_bytes, errors=(FabricPlannerError,))
def links_units_of(resolved: LinksFloorInputs, catalog: Catalog) -> LinksUnits:
    """``LinksUnits`` of the view of a resolved design (``LinksFloorInputs``); cached by these arguments
    (``core.memo.stage``): the candidates of a run (one resolution) share one entry. A class whose switch has no
    mode at its speed (``Switch.ports_per_cage`` raises) is left out (a fabric with such links raises when its
    modules are counted, ``switch_module_counts``)."""
    from core.physical.layout import compute_rack_fit

    speeds, switches = class_speeds(resolved), class_switches(resolved)
    short, apart = link_length_floors()
    policy, basis = resolved.design.cable_media, design_price_basis(resolved)
    overrides = tuple(sorted(resolved.price_overrides.items()))
    per_xcvr = max(resolved.system.node_ports_per_transceiver, resolved.planes)
    steps_of = _bundled_price_steps if catalog is _bundled() else partial(_price_steps, catalog)
    classes = {}
    for c, switch in switches.items():
        speed = speeds[c].port_speed_gbps
        try:
            cage_ports = switch.ports_per_cage(speed)
        except ValueError:
            continue
        node = (resolved.port_speed_gbps, per_xcvr, resolved.nic.cage_type) if c == "node-leaf" else None
        steps = partial(steps_of, resolved.fabric, speed, cage_ports, switch.cage_type, policy)
        classes[c] = (steps(apart, node, overrides, basis),
                      steps(short, node, overrides, basis) if c == "node-leaf" else None)
    try:
        fit = compute_rack_fit(resolved)
    except FabricPlannerError:
        fit = None
    return LinksUnits(speeds, switches, (policy, overrides, basis),
                      resolved.nodes * math.ceil(resolved.nics_per_node * resolved.planes / per_xcvr), fit, apart,
                      classes)


def _cable_reaches(catalog: Catalog, fabric: str, speed: int, policy: str, length_m: float) -> tuple[float, ...]:
    """The reaches [m] of the cables ``policy`` (``Design.cable_media``) allows for a link of ``fabric`` at ``speed``
    [Gb/s per port] at least ``length_m`` long (``cable_options``), ascending."""
    kinds = POLICIES.get(policy, POLICIES["auto"])
    return tuple(sorted({c.reach_m for c in cable_options(catalog, fabric, speed, kinds, length_m)}))


def _price_steps(catalog: Catalog, fabric: str, speed: int, cage_ports: int, cage_type: str, policy: str,
                 length_m: float, node: tuple | None, overrides: tuple, basis: str) -> tuple:
    """``links_floor``'s prices of one link class: ``(options, steps)``, ``options`` the media ``policy`` allows
    for a link at least ``length_m`` [m] long (``media_prices``, its modules reaching ``length_m``), ``steps`` each
    cable reach [m] beyond that (``_cable_reaches``, ascending) with the options of a link just longer than it.
    ``cage_type``: the switch's cage; ``node``: (port speed [Gb/s], ports per module, the NIC's cage) of a node-leaf
    class, else None; ``overrides`` and ``basis`` as ``media_prices``'."""
    if node is not None:
        node = (*node[:2], form_factor_family(node[2]))

    def options(at_m: float) -> tuple[tuple, ...]:
        return media_prices(catalog, fabric, speed, cage_ports, form_factor_family(cage_type), policy, at_m, length_m,
                            node, overrides, basis)

    return options(length_m), tuple((reach, options(math.nextafter(reach, math.inf)))
                                    for reach in _cable_reaches(catalog, fabric, speed, policy, length_m))


@lru_cache(maxsize=1024)
def _bundled_price_steps(*key) -> tuple:
    """``_price_steps`` of the bundled catalog (``core.catalog.load_catalog``: immutable), by its arguments."""
    return _price_steps(_bundled(), *key)


def _links_within(link_class: str, wiring):
    """The count ``links_floor`` bounds the links of ``link_class`` no longer than a reach by (``_node_links_within``,
    ``_tor_links_within``, ``_switch_links_within``: the arguments of the last), or None where it has none."""
    if link_class == "node-leaf":
        return _tor_links_within if wiring.tor else _node_links_within
    return _switch_links_within if link_class in _SWITCH_ENDS.get(wiring.family, ()) else None


def _binned_floor(resolved: ResolvedDesign, catalog: Catalog, lengths: LinkLengths, switch_modules: int,
                  node_modules: int, speed, switch, pricing: tuple) -> float:
    """A lower bound on one switch link class's cables and transceivers in ``link_rows`` [USD, at the design's
    price basis] from its length bins (``lengths``, as ``select_media`` reads them): each bin's links at the least
    of the cheapest cable ``Design.cable_media`` allows reaching the bin's longest link (``chosen_media``'s
    choice reaches it) and the least an optical link can cost. An optical link costs at least the cheapest fibre
    cord of any optical kind allowed plus its shares of ``switch_modules`` (``switch_module_counts``) and
    ``node_modules`` (node-side, node-leaf only) at the cheapest module of any allowed kind reaching the shortest
    bin's longest link: ``link_rows`` buys ``ceil(modules x optical links / links)`` of each side, however it
    shares them among bins and module types. ``pricing``: (cable media policy, price overrides, price basis);
    ``speed``: the class's ``LinkSpeed``, ``switch`` its switch model."""
    policy, overrides, basis = pricing
    gbps = speed.port_speed_gbps
    per_xcvr = max(resolved.system.node_ports_per_transceiver, resolved.planes)
    node = (resolved.port_speed_gbps, per_xcvr, form_factor_family(resolved.nic.cage_type)) \
        if lengths.link_class == "node-leaf" else None
    modules_m = min(b.max_m for b in lengths.bins)
    key = (resolved.fabric, gbps, switch.ports_per_cage(gbps), form_factor_family(switch.cage_type), policy)

    def options(length: float) -> tuple[tuple, ...]:
        args = (*key, length, modules_m, node, overrides, basis)
        return _bundled_media_prices(*args) if catalog is _bundled() else media_prices(catalog, *args)

    optical = [o for o in options(modules_m) if o[0] is None]
    links = lengths.links
    per_optical = (min(o[2] for o in optical) + switch_modules / links * min(o[1] for o in optical)
                   + (node_modules / links * min(o[3] for o in optical) if node else 0.0)) if optical else math.inf
    total = 0.0
    for b in lengths.bins:
        cables = [o[0] for o in options(b.max_m) if o[0] is not None]
        least = min(min(cables, default=math.inf), per_optical)
        total += b.links * (least if math.isfinite(least) else 0.0)
    return total


def _node_links_within(resolved: ResolvedDesign, fabric: FabricPlan, wiring, length_m: float, links: int,
                       _link_class: str, rack_fit) -> int:
    """At most how many of the ``links`` node-leaf links of a fabric whose leaves stand in racks without nodes
    (not top-of-rack) are ``length_m`` [m] long or shorter. A leaf reaches a node through the node's climb to the
    tray, the tray run between the racks and the leaf's climb (``core.physical.lengths``); in a rack of ``n``
    nodes of height ``h`` the ``i``-th closest to the top climbs at least ``(i + 1/2) h``; the racks of a line
    stand side by side (centres at least the narrowest width apart), the lines a pitch apart (at least the
    shallowest depth and the two half aisles, ``core.physical.layout``), so few racks are near any leaf
    (``_devices_within``); each node has ``links_per_node_leaf`` links to one leaf. ``rack_fit()``: the design's
    ``compute_rack_fit``, None when it raised. ``links`` when the wiring or the racks give no bound.

    A folded Clos of two or three tiers or a Dragonfly+ (``_SU_ROWS``) also bounds them SU by SU: a node links only
    to the leaves of its own group (``Wiring.leaf_of``), and an SU's leaf racks stand in one block amid its compute
    racks, the SU whole in one row (``core.physical.layout``: ``su_block``; rows hold whole SUs), so a node near
    enough to a leaf of its SU stands on that row within the reach of the block's end racks (``_devices_within`` on
    its own line), with all its links (``rails`` per plane and island) at most: per SU at most that many nodes'
    links, however many leaves the SU has."""
    per_node = getattr(wiring, "links_per_node_leaf", None)
    fit = rack_fit()
    if per_node is None or wiring.tor or fit is None:
        return links
    _preset, _kw, units, per_rack = fit
    height = _node_height(resolved, units, per_rack)
    nodes = _devices_within(height, per_rack, resolved.switch.rack_units, length_m)
    most = fabric.leaf_count_total * per_node * nodes
    if wiring.family in _SU_ROWS and wiring.tiers > 1:
        along = _devices_within(height, per_rack, resolved.switch.rack_units, length_m, own_line=True)
        node_links = wiring.rails * wiring.islands * fabric.planes * per_node
        most = min(most, max(1, wiring.groups) * along * node_links)
    return min(links, most)


_SU_ROWS = ("clos", "dragonfly")
"""Topology families whose scalable units stand whole in one row, each SU's leaves in one block of racks amid its
compute racks or, top of rack, in its first compute rack (``core.physical.layout``'s SU blocks; a Dragonfly+'s
groups are the pods of its folded Clos, ``core.fabric.dragonfly``), a node linked only to its SU's leaves."""


def _node_height(resolved: ResolvedDesign, units: int, per_rack: int) -> float:
    """The least height [m] a node of ``resolved`` takes in a compute rack of ``units`` [U] holding ``per_rack``."""
    return min(resolved.system.node_rack_units, units / max(1, per_rack)) * load_racks().routing.u_mm / 1000


def _tor_links_within(resolved: ResolvedDesign, fabric: FabricPlan, wiring, length_m: float, links: int,
                      _link_class: str, rack_fit) -> int:
    """At most how many of the ``links`` node-leaf links of a top-of-rack fabric (each leaf in its group's first
    compute rack, ``core.physical.layout``) are ``length_m`` [m] long or shorter: each leaf's links to the nodes
    of its own rack within the run an in-rack link that short may have (``in_rack_m`` and the height between the
    two ports' U centres: the ``i``-th node on either side of the leaf at least ``(i + 1/2)`` node heights and half
    the leaf's from it) and to the nodes of other racks (``_devices_within``), ``links_per_node_leaf`` each.
    ``rack_fit()``: the design's ``compute_rack_fit``, None when it raised. ``links`` when the wiring or the racks
    give no bound."""
    per_node = getattr(wiring, "links_per_node_leaf", None)
    fit = rack_fit()
    if per_node is None or fit is None:
        return links
    _preset, _kw, units, per_rack = fit
    routing = load_racks().routing
    leaf_units = min(resolved.switch.rack_units, resolved.tier_switches["leaf"].rack_units)
    node_m = _node_height(resolved, units, per_rack)
    height = (length_m - 2 * routing.slack_end_m) / (1 + routing.slack_fraction) - routing.in_rack_m \
        - leaf_units * routing.u_mm / 2000  # between the leaf's edge and a node's U centre
    in_rack = 0 if height < node_m / 2 else min(per_rack, 2 * (math.floor(height / node_m - 0.5) + 1))
    # an SU stands whole in one row (``_SU_ROWS``): its leaf reaches its nodes on that row
    own_line = wiring.family in _SU_ROWS and wiring.tiers > 1
    others = _devices_within(node_m, per_rack, leaf_units, length_m, own_line=own_line)
    return min(links, fabric.leaf_count_total * per_node * (in_rack + others))


_LEAF_SPINE = ("leaf", "spine", "leaf_count_total", "spine_count_total")
_SWITCH_ENDS = {"clos": {"leaf-spine": _LEAF_SPINE,
                         "spine-core": ("spine", "core", "spine_count_total", "core_count_total")},
                "dragonfly": {"leaf-spine": _LEAF_SPINE,
                              "global": ("spine", "spine", "spine_count_total", "spine_count_total")}}
"""Topology family -> its switch-to-switch link classes ``_switch_links_within`` bounds -> (lower role, upper role,
``FabricPlan`` fields counting each over every plane): a folded Clos's and a Dragonfly+'s (``core.fabric.dragonfly``:
its global links join the spines of two groups)."""


def _switch_links_within(resolved: ResolvedDesign, fabric: FabricPlan, wiring, length_m: float, links: int,
                         link_class: str, _rack_fit=None) -> int:
    """At most how many of the ``links`` links of a folded Clos's or a Dragonfly+'s switch-to-switch ``link_class``
    (``_SWITCH_ENDS``) are ``length_m`` [m] long or shorter. Its two ends stand in racks of different roles or
    groups, so a link leaves its rack, and all but a folded Clos's spine-core links leave their row
    (``core.physical.layout``: the leaves in their SU's rows, in leaf racks or top-of-rack in compute racks; a folded
    Clos's spines and cores in racks of their own role in the central rows; a Dragonfly+'s spines in a row of their
    group's own, and a row never holds two groups): one device of either end reaches at most ``_devices_within``'s
    count of devices of the other end (a rack holds at most the tallest preset's units of them), each by at most
    the most links a pair of them has (``Wiring.pair_links``, the most of ``Wiring.spine_core_pairs``, or a
    Dragonfly+'s global links per pair of groups, at most a spine's global ports). The least of the two ends'
    products, and ``links``; a folded Clos's leaf-spine links also at most ``_central_leaf_links`` (the rows near
    its spine rows, with ``rack_fit``: the design's ``compute_rack_fit``) and its spine-core links
    ``_spine_core_links`` (the spine racks next to the first core rack, on a reach too short to cross rows)."""
    lower, upper, lower_count, upper_count = _SWITCH_ENDS[wiring.family][link_class]
    if link_class == "global":
        per_pair = min(wiring.global_pair_links, wiring.global_ports)
    else:
        per_pair = wiring.pair_links if link_class == "leaf-spine" else max(wiring.spine_core_pairs, default=0)
    if per_pair <= 0:
        return links
    models, racks = resolved.tier_switches, load_racks()
    rows_apart = link_class != "spine-core"  # all but a folded Clos's spine-core links leave their row (above)
    tallest, u_m = max(p.rack_units for p in racks.presets), racks.routing.u_mm / 1000

    def reached(near: float, far: float) -> int:
        """Devices of ``far`` U within reach of one of ``near`` U."""
        return _devices_within(far * u_m, max(1, int(tallest // far)), near, length_m, rows_apart)

    a_units, b_units = models[lower].rack_units, models[upper].rack_units
    most = min(getattr(fabric, lower_count) * reached(a_units, b_units),
               getattr(fabric, upper_count) * reached(b_units, a_units)) * per_pair
    if most <= 0:  # none within: the bounds below (each at least 0) cannot lower it
        return 0
    if link_class == "leaf-spine" and clos_tiers(wiring.family) and not wiring.spines_with_pods:
        most = min(most, _central_leaf_links(resolved, fabric, wiring, length_m, _rack_fit))
    if link_class == "spine-core" and clos_tiers(wiring.family):
        most = min(most, _spine_core_links(resolved, fabric, wiring, length_m))
    return min(links, most)


def _spine_core_links(resolved: ResolvedDesign, fabric: FabricPlan, wiring, length_m: float) -> float:
    """At most how many of a folded Clos's spine-core links are ``length_m`` [m] long or shorter, from where the
    layout stands them (``core.physical.layout._central_racks``): every plane's spine racks in one run, then the
    cores' from a new rack, in the central rows, racks filled from U1 (``lowest_climb_u``). When what is left for the
    tray run is shorter than a line pitch and than two end aisles and a rack (``_hall_steps``), a spine reaches a core
    only along its own row, so only the spine racks within that run of the first core rack (the ``k``-th before it
    at least ``k`` rack widths away), each with at most ``network_rack_holds`` spines of ``Wiring.spine_up_ports``
    links each; ``math.inf`` (no bound) otherwise."""
    from core.physical.layout import lowest_climb_u, network_rack_holds

    racks = load_racks()
    width, pitch, apart = _hall_steps()
    climbs = sum(lowest_climb_u(resolved, fabric, role, 0, racks) for role in ("spine", "core"))
    budget = _tray_budget(length_m, 0) - climbs * racks.routing.u_mm / 1000
    if budget >= min(pitch, apart):
        return math.inf
    near = max(0, math.floor(budget / width + 1e-9))
    spine = resolved.tier_switches["spine"].rack_units
    return near * network_rack_holds(spine, racks) * wiring.spine_up_ports(fabric)


def _central_leaf_links(resolved: ResolvedDesign, fabric: FabricPlan, wiring, length_m: float, rack_fit) -> float:
    """At most how many of a folded Clos's leaf-spine links are ``length_m`` [m] long or shorter, from where the
    layout stands its spines (``core.physical.layout``): in central rows (``central_role_rows``), the leaves in the
    rows of their SUs (``su_row_leaves``), so a leaf reaches a spine only from a row near a spine row
    (``_rows_within``), each with its ``pair_links`` links to each of its spines (``Wiring.spines_of_leaf``).
    ``rack_fit()``: the design's ``compute_rack_fit``, None when it raised (then no bound: ``math.inf``)."""
    from core.physical.layout import central_role_rows, lowest_climb_u, su_row_leaves

    fit = rack_fit() if rack_fit is not None else None
    if fit is None:
        return math.inf
    racks = load_racks()
    climbs = sum(lowest_climb_u(resolved, fabric, role, fit[2], racks) for role in ("leaf", "spine"))
    near = _rows_within(length_m, climbs * racks.routing.u_mm / 1000)
    if not near:
        return 0
    leaves = min(fabric.leaf_count_total, central_role_rows(resolved, fabric, "spine", racks) * near
                 * su_row_leaves(wiring, fit[3], racks.hall.max_racks_per_row))
    return leaves * wiring.pair_links * len(wiring.spines_of_leaf(0))


@lru_cache(maxsize=4096)
def _devices_within(far_m: float, per_rack: int, near_units: float, length_m: float, rows_apart: bool = False,
                    own_line: bool = False) -> int:
    """At most how many devices ``far_m`` [m] high, ``per_rack`` at most in a rack, in racks other than its own, a
    link ``length_m`` [m] long or shorter can reach from one device of ``near_units`` [U] (the bundled racks'
    geometry and routing, ``load_racks``; cached by these arguments). The link climbs from both ports to the tray
    (the ``k``-th device from the top of a rack climbs at least ``(k + 1/2)`` of its height, the near one at
    least half its own) and runs along the trays by the Manhattan distance between the two racks: the racks of a
    line stand side by side (centres at least the narrowest width apart, the ``k``-th nearest on either side at
    least ``k`` widths), the lines a pitch apart (at least the shallowest depth and the two half aisles,
    ``core.physical.layout``). With ``rows_apart`` the far devices stand in other rows than the near one: on its
    own line only in another column's rows, beyond two end aisles. With ``own_line`` only the far devices on the near
    one's own line (a row of it) count."""
    width, pitch, apart = _hall_steps()
    first = apart if rows_apart else width  # the nearest on its own line
    budget = _tray_budget(length_m, near_units)

    def fit(left: float) -> int:
        """Far devices of one rack whose climb fits ``left`` [m]."""
        return 0 if left < far_m / 2 else min(per_rack, math.floor(left / far_m - 0.5) + 1)

    devices, line = 0, 0
    while budget - line * pitch >= far_m / 2:  # line 0: its own, the near rack excluded; then both sides
        start, step = (first, 0) if line == 0 else (0.0, 0)
        while budget - line * pitch - (start + step * width) >= far_m / 2:
            devices += (2 if line == 0 else 4) * fit(budget - line * pitch - (start + step * width))
            step += 1
        line += 1
        if own_line:
            break
    return devices


def _hall_steps() -> tuple[float, float, float]:
    """(width, pitch, apart) [m] of the bundled racks (``load_racks``, ``core.physical.layout``): at least the
    distance between neighbouring rack centres of a row (the narrowest width), between neighbouring lines of rows (the
    shallowest depth and the two half aisles), and between the centres of two racks of neighbouring rows on one line
    (each row's end aisle and at least a width: a row's span is at least one rack and its two end aisles)."""
    racks = load_racks()
    width = min(p.width_mm for p in racks.presets) / 1000
    pitch = min(p.depth_mm for p in racks.presets) / 1000 + (racks.hall.hot_aisle_mm + racks.hall.cold_aisle_mm) / 2000
    return width, pitch, width + 2 * racks.hall.end_aisle_mm / 1000


def _tray_budget(length_m: float, near_units: float) -> float:
    """The tray run and far climb [m] a link ``length_m`` [m] long or shorter may have from a device of
    ``near_units`` [U] (``core.physical.lengths``' routing: run x (1 + slack) + two service loops; the run climbs
    to the tray above both racks, at least half the near device's height)."""
    r = load_racks().routing
    return (length_m - 2 * r.slack_end_m) / (1 + r.slack_fraction) - 2 * r.tray_above_rack_m \
        - near_units * r.u_mm / 2000


@lru_cache(maxsize=1024)
def _rows_within(length_m: float, climbs_m: float) -> int:
    """At most how many rows other than its own hold a rack a link ``length_m`` [m] long or shorter reaches from a
    device when its two ends climb at least ``climbs_m`` [m] to the tops of their racks (``_devices_within``'s
    routing and hall): rows stand in
    columns (``core.physical.layout``: row ``i`` on line ``i mod rows per column`` of column ``i // rows per
    column``), so a rack reaches the rows of lines ``j`` pitches away (``j`` >= 0) in its own column (not its own
    row) and in the columns ``k`` >= 1 away, ``apart`` and ``k - 1`` more spans of a row (``_hall_steps``) beyond.
    Cached by these arguments."""
    width, pitch, apart = _hall_steps()
    budget = _tray_budget(length_m, 0) - climbs_m
    rows, line = 0, 0
    while budget - line * pitch >= 0:
        left = budget - line * pitch
        columns = 0 if left < apart else 1 + math.floor((left - apart) / apart)  # a span is at least ``apart``
        rows += (1 if line == 0 else 2) * (2 * columns + (line > 0))
        line += 1
    return rows


def _bundled() -> Catalog:
    from core.catalog import load_catalog

    return load_catalog()


def class_links(fabric: FabricPlan, wiring) -> list[tuple[str, int]]:
    """(link class, links over every plane) of each class of ``wiring`` (``core.fabric.wiring``): the links
    ``core.physical.lengths`` bins and ``link_rows`` counts (``tests/test_optimize_bounds.py`` checks the two), as
    ``core.fabric.families.class_link_counts`` counts every class of every family."""
    counts = class_link_counts(fabric)
    return [(c, counts[c]) for c in wiring.link_classes]


def media_prices(catalog: Catalog, fabric: str, speed: int, cage_ports: int, cage: str, policy: str, length_m: float,
                 modules_m: float, node: tuple | None, overrides: tuple, basis: str) -> tuple[tuple, ...]:
    """Per media kind ``policy`` (``Design.cable_media``) allows for a link of ``fabric`` at ``speed`` [Gb/s per
    port] at least ``length_m`` [m] long: ``(cable, None, None, None)``, the cheapest cable reaching it
    (``cable_options``), or ``(None, module, fibre, node module)``, the cheapest switch-side module reaching
    ``modules_m`` [m] for ``cage_ports`` links per ``cage`` (``transceiver_options``, strict on the media as
    ``choose_media``), fibre cord of the media, and with ``node`` (port speed [Gb/s], ports per module, the NIC's
    cage family) the cheapest node-side module of the media (0 without); unit prices [USD] at ``basis`` with
    ``overrides`` (``_prices``). A kind with nothing is left out."""
    prices = dict(overrides)
    price = lambda entry: _prices(entry, prices, basis)[0]  # noqa: E731
    out = []
    for kind in POLICIES.get(policy, POLICIES["auto"]):
        if kind in ("dac", "acc", "aoc"):
            cables = [price(c) for c in cable_options(catalog, fabric, speed, (kind,), length_m)]
            if cables:
                out.append((min(cables), None, None, None))
            continue
        modules = [price(t) for t in transceiver_options(catalog, fabric, speed, "switch", cage_ports, kind, cage,
                                                         strict=True) or () if t.reach_m >= modules_m]
        if not modules:
            continue
        fibres = [price(c) for c in catalog.cables if c.kind == "fiber" and c.media == kind]
        node_module = 0.0
        if node is not None:
            node_speed, per_xcvr, node_cage = node
            at_node = transceiver_options(catalog, fabric, node_speed, "node", per_xcvr, kind, node_cage) or ()
            node_module = min((price(t) for t in at_node), default=0.0)
        out.append((None, min(modules), min(fibres, default=0.0), node_module))
    return tuple(out)


@lru_cache(maxsize=4096)
def _bundled_media_prices(*key) -> tuple[tuple, ...]:
    """``media_prices`` of the bundled catalog (``core.catalog.load_catalog``: immutable), by its arguments."""
    return media_prices(_bundled(), *key)


def other_network_rows(resolved: ResolvedDesign, catalog: Catalog, networks: ClusterNetworks) -> tuple[BomRow, ...]:
    """The rows ``build_bom`` adds for ``networks`` (``network_rows``: storage, in-band and out-of-band networks,
    the compute fabric's UFM appliances and links), priced at ``resolved``'s price basis and overrides; each
    network's rows from their cached stage (``_group_rows``, by what they read)."""
    pricing, language = Pricing.of(resolved), current_language()
    return tuple(row for group in _network_groups(networks) for row in _group_rows(*group, pricing, catalog, language))


PricingDesign = view("PricingDesign", "price_basis")
Pricing = view("Pricing", "", design=PricingDesign, price_overrides=FrozenDict, power_overrides=FrozenDict)
"""What pricing a row reads of a resolved design (``priced_row_adder``): its price basis, price and power
overrides."""


def rows_bytes(rows: tuple[BomRow, ...]) -> int:
    """Upper bound of the memory of some BOM rows [bytes]: 1 kB a row and its text (measured at 0.9 kB with the
    text; ``tests/test_memo.py``)."""
    return 2048 + sum(1024 + 2 * (len(r.why) + len(r.item) + len(r.end)) for r in rows)


def priced_network_rows(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                        racks: tuple[int, int] | None = None) -> tuple[BomRow, ...]:
    """``other_network_rows`` of the design's other networks (``core.networks.size_networks``; ``racks``: those
    whose PDUs they serve, ``core.plan.as_built``'s), cached by what sizing and pricing them reads
    (``network_rows_of``): designs that differ elsewhere share one pricing."""
    return network_rows_of(NetworkInputs.of(resolved), NetworkFabric.of(fabric), Pricing.of(resolved), catalog,
                           current_language(), racks)


def network_floor_rows(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, least: bool = False,
                       racks: tuple[int, int] = (0, 0)) -> tuple:
    """``priced_network_rows`` summed for ``cost_floor`` (``summed_network_rows``): the same totals in a few rows,
    cached by the same views; raises as ``priced_network_rows`` does. ``racks``: those whose PDUs the out-of-band
    network serves (``core.plan.as_built``'s: the exact totals); by default none, a lower bound before the layout
    exists (the out-of-band switches for the PDUs' ports and the in-band network for their uplinks never fall as
    the PDUs grow).

    With ``least``: a lower bound on those totals shared by every fabric of the same leaf groups and islands, the
    networks sized for a fabric of at most one switch (as many as ``fabric`` when it has none). Only the out-of-band
    network reads the fabric's switch count (one management port per switch, ``size_oob``), and the in-band network
    reads the out-of-band switch count (their uplinks): each count, and so each row's quantity, never falls as the
    switch count grows, with the same models and prices; and nothing that raises reads the count (the storage
    fabric is sized from the fabric's shape alone), so it raises as the exact rows do
    (``tests/test_optimize_bounds.py`` checks both)."""
    return network_floor_rows_of(NetworkInputs.of(resolved), Pricing.of(resolved), fabric, catalog, least, racks)


def least_racks(resolved: ResolvedDesign) -> tuple[int, int]:
    """``(compute racks, other racks)`` at most as many as the layout builds (``core.plan.built_counts``), before it
    exists: a compute rack holds at most ``compute_rack_fit``'s nodes per rack, so at least ``ceil(nodes / that)``
    compute racks; other racks none. ``network_floor_rows``' PDUs for them are a lower bound on the exact rows' (the
    out-of-band switches for the PDUs' ports and the in-band network for their uplinks never fall as the PDUs
    grow); (0, 0) when the racks fit raises (the layout raises then too) or the networks are a cloud provider's
    (``Nic.transport``: ``core.plan.as_built`` sizes them for no built racks)."""
    from core.physical.layout import compute_rack_fit

    if resolved.nic.transport:
        return 0, 0
    try:
        per_rack = compute_rack_fit(resolved)[3]
    except FabricPlannerError:
        return 0, 0
    return math.ceil(resolved.nodes / max(1, per_rack)), 0


def network_floor_rows_of(network_inputs: NetworkInputs, pricing: Pricing, fabric: FabricPlan, catalog: Catalog,
                          least: bool = False, racks: tuple[int, int] = (0, 0)) -> tuple:
    """``network_floor_rows`` from the resolved design's views (``NetworkInputs``, ``Pricing``): the optimizer's, whose
    candidates of one resolution share them, made once (``core.analysis.optimize._Run``)."""
    view = NetworkFabric.of(fabric)
    if least:
        view = view._replace(switch_count_total=min(view.switch_count_total, 1))
    return summed_network_rows(network_inputs, view, pricing, catalog, current_language(), racks)


@stage(0.04, lambda rows: 512 + 384 * len(rows), errors=(FabricPlannerError,))
def summed_network_rows(network_inputs: NetworkInputs, fabric: NetworkFabric, pricing: Pricing, catalog: Catalog,
                        language: str, racks: tuple[int, int] | None = None) -> tuple:
    """``network_rows_of``'s rows summed per category, network, spare and management flag: one ``_FloorRow`` each (quantity 1,
    the rows' extended prices [USD: point, low, high] and power [W]), in the order each first appears; what
    ``summarize_cost`` reads of them, so a floor sums a few rows rather than every network's. Cached by these
    arguments (``core.memo.stage``; 0.3 kB a row measured)."""
    sums: dict[tuple, list[float]] = {}
    for r in network_rows_of(network_inputs, fabric, pricing, catalog, language, racks):
        total = sums.setdefault((r.category, r.network, r.spare, r.management), [0.0, 0.0, 0.0, 0.0])
        total[0] += r.quantity * r.unit_price_usd
        total[1] += r.quantity * r.low_usd
        total[2] += r.quantity * r.high_usd
        total[3] += r.quantity * r.unit_power_w
    return tuple(_FloorRow(category=category, item="", catalog_id="", quantity=1, unit_price_usd=point,
                           unit_power_w=watts, price_basis="estimate", why="", network=network,
                           unit_price_low_usd=low, unit_price_high_usd=high, spare=spare, management=management)
                 for (category, network, spare, management), (point, low, high, watts) in sums.items())


@stage(0.19, rows_bytes, errors=(FabricPlannerError,))
def network_rows_of(network_inputs: NetworkInputs, fabric: NetworkFabric, pricing: Pricing, catalog: Catalog,
                    language: str, racks: tuple[int, int] | None = None) -> tuple[BomRow, ...]:
    """The other networks' priced rows from the views of a resolved design and its fabric plan
    (``core.networks.sized_networks``) and its pricing (``Pricing``), in ``language``; cached by these arguments
    (``core.memo.stage``), each network's rows by what they read (``_group_rows``)."""
    with spoken(language):
        networks = sized_networks(network_inputs, fabric, catalog, language, racks)
        return tuple(row for group in _network_groups(networks)
                     for row in _group_rows(*group, pricing, catalog, language))


@stage(0.1, rows_bytes, errors=(FabricPlannerError,))
def _group_rows(network: str, devices: tuple, links: tuple, switches: tuple, pricing: Pricing, catalog: Catalog,
                language: str) -> tuple[BomRow, ...]:
    """``network_rows``' rows of one network (its devices, links and switches) priced at ``pricing``, in
    ``language``; cached by these arguments (``core.memo.stage``): designs whose fabrics differ only in what another
    network reads (the out-of-band network's switch count) share the storage and in-band rows."""
    with spoken(language):
        rows: list[BomRow] = []
        _rows_of(catalog, network, devices, links, switches, priced_row_adder(pricing, rows))
        return tuple(rows)


def _network_groups(networks: ClusterNetworks) -> list[tuple[str, tuple, tuple, tuple]]:
    """(network, devices, links, switches) of the compute fabric's UFM appliances and links and of each other
    network, in ``network_rows``' order."""
    groups = [("compute", networks.compute_devices, networks.compute_links, ())]
    return groups + [(n.network, n.devices, n.links, n.switches) for n in networks.sized()]


def network_rows(catalog: Catalog, networks: ClusterNetworks, add, rows: list[BomRow]) -> None:
    """The storage, in-band and out-of-band networks' rows (``core.networks``), and the compute fabric's
    UFM appliances and links: switches, appliances, cables and transceivers, each row tagged with its
    ``network``. ``add(category, entry, quantity, why, item=None, end="")`` prices a row as the compute
    fabric's are priced (overrides, price basis; ``network=`` tags the row); rack PDUs are the racks' and not bought here. The
    nodes' storage and in-band ports are on the node (the DGX's two dual-port ConnectX-7 / BlueField-3,
    H100 RA Figure 4), so no NIC rows."""
    for network, devices, links, switches in _network_groups(networks):
        _rows_of(catalog, network, devices, links, switches, add)


def _rows_of(catalog: Catalog, network: str, devices, links, switches, add) -> None:
    """``network_rows``' rows of one network: its switches, appliances, cables and transceivers (``add`` as there)."""
    def tagged(category: str, entry, quantity: int, why: str, item: str, end: str = "") -> None:
        # the compute network's own rows here are its management's: the UFM appliances and their links
        add(category, entry, quantity, why, item=item, end=end, network=network, management=network == "compute")

    label = network_name(network)
    for group in switches:
        entry = catalog.switch(group.model)
        used = _("{description}: {count} x {ports} of {radix} ports used").format(
            description=group.description, count=group.count, ports=group.ports_used, radix=group.radix)
        tagged("switch", entry, group.count,  # the maker's sentence after it: two sentences (core.i18n)
               sentences(as_sentence(used), group.choice) if group.choice else used,
               _("{name} ({place})").format(name=entry.name, place=_("{network}, {role}").format(
                   network=label, role=_(SWITCH_ROLE_LABELS[group.role]))))
    for device in devices:
        if not device.model:
            continue
        entry = catalog.appliance(device.model)
        tagged("appliance", entry, device.count, device.description,
               _("{name} ({place})").format(name=entry.name, place=label))
    for link in links:
        if link.cable and link.count:
            entry = catalog.cable(link.cable)
            tagged("cable", entry, link.count,
                   _("{links}: {description}").format(links=plurals.links(link.count), description=link.description),
                   _("{name} ({place})").format(name=entry.name, place=_("{network}, {link_class}").format(
                       network=label, link_class=link.label or _(LINK_KIND_LABELS.get(link.kind, link.kind)))))
        for use in link.transceivers:
            entry = catalog.transceiver(use.model)
            tagged("transceiver", entry, use.count, use.why,
                   _("{name} ({place})").format(name=entry.name, place=_("{network}, {link_class}").format(
                       network=label, link_class=link.label or _(LINK_KIND_LABELS.get(link.kind, link.kind)))),
                   end="" if use.end == "device" else use.end)


ROUTE_LABELS = {"in-rack": N_("in the rack"), "in-row": N_("within a row"), "across-rows": N_("across rows")}
"""Route of a length bin (``core.physical.lengths.ROUTES``) -> words, marked for translation."""


def _bin_words(b: MediaBin, link_class: str, span: str) -> str:
    """A length bin ``b`` in words: its links, ``link_class`` (the class in words, ``link_class_words``), route,
    ``span`` (``MediaBin.label``) and longest link [m]."""
    return _("{links} {link_class} links {route}, {span} (longest {longest} m)").format(
        links=f"{b.links:,}", link_class=link_class, route=_(ROUTE_LABELS[b.route]), span=span,
        longest=units.metres(b.max_m, b.high_m))  # the one length format, as the pack's media table


def apportion(total: int, weights: list[int]) -> list[int]:
    """``total`` (a count: transceivers, cables; any unit) split into whole counts in proportion to ``weights``
    (counts of the same kind, e.g. the links of each length bin), by the largest remainder: each share is
    ``floor(total x w / sum(weights))`` and the shares with the largest fractions get one more, ties to the
    earlier, so they sum to ``total``; all 0 when the weights sum to 0 or less."""
    whole = sum(weights)
    if whole <= 0:
        return [0 for _w in weights]
    shares = [total * w / whole for w in weights]
    out = [math.floor(x) for x in shares]
    for i in sorted(range(len(weights)), key=lambda i: (out[i] - shares[i], i))[: total - sum(out)]:
        out[i] += 1
    return out


LinkRowsDesign = view("LinkRowsDesign", "cable_media price_basis")
LinkRowsInputs = view("LinkRowsInputs", "fabric port_speed_gbps uplink_gbps planes switch nodes nics_per_node",
                      design=LinkRowsDesign, system=MediaSystem, tier_switches=FrozenDict, price_overrides=FrozenDict,
                      power_overrides=FrozenDict)
"""What ``link_rows`` and the pricing of its rows (``priced_row_adder``) read of a resolved design (``core.memo.view``)."""


def compute_link_rows(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog,
                      media: tuple[MediaBin, ...]) -> tuple[BomRow, ...]:
    """``link_rows``' priced rows of the compute links (``build_bom``), cached by what they read
    (``priced_link_rows``): a plan asked again prices its link rows once."""
    return priced_link_rows(LinkRowsInputs.of(resolved), fabric, catalog, media, current_language())


@stage(0.05, rows_bytes, errors=(FabricPlannerError,))
def priced_link_rows(resolved: LinkRowsInputs, fabric: FabricPlan, catalog: Catalog, media: tuple[MediaBin, ...],
                     language: str) -> tuple[BomRow, ...]:
    """``link_rows`` of the view of a resolved design (``LinkRowsInputs``) priced as ``build_bom`` prices them
    (``priced_row_adder``), in ``language``; cached by these arguments (``core.memo.stage``)."""
    with spoken(language):
        rows: list[BomRow] = []
        link_rows(resolved, fabric, catalog, media, add_row=priced_row_adder(resolved, rows))
        return tuple(rows)


def link_rows(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog, media: tuple[MediaBin, ...], *,
              add_row) -> None:
    """Cable and transceiver rows of the compute links from their media bins (``add_row`` as in ``build_bom``).

    Cables (DAC, ACC, AOC, fibre cords): one row per link class and length bin, one cable per link.
    Switch-side transceivers: per link class, counted per switch as before (``ceil(ports used / ports
    per cage)`` for every switch group), then shared among the optical bins by their link counts and
    listed by module type; node-side modules likewise (``nodes x ceil(NIC ports / ports per module)``).
    """
    switches = class_switches(resolved)
    speeds = {c: r.port_speed_gbps for c, r in class_speeds(resolved).items()}
    cage_ports = {c: switches[c].ports_per_cage(speeds[c]) for c in switches}
    policy = resolved.design.cable_media
    wiring = wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    counts, terms = switch_module_counts(resolved, fabric, words=True, wiring=wiring)
    family = fabric.family
    cables = {c.id: c for c in catalog.cables}
    modules = {t.id: t for t in catalog.transceivers}
    items = {"node-leaf": N_("{name} (switch side, node-leaf)"), "leaf-spine": N_("{name} (switch side, leaf-spine)"),
             "spine-core": N_("{name} (switch side, spine-core)"), "global": N_("{name} (switch side, global)")}
    order = ("node-leaf", "leaf-spine", "spine-core", "global", "torus")
    for link_class in (*order, *(c for c in wiring.link_classes if c not in order)):  # then a family's own
        bins = [b for b in media if b.link_class == link_class]
        if not bins:
            continue
        words = link_class_words(link_class, family)  # the class and each bin in words, once
        spans = [b.label() for b in bins]
        if wiring.class_ends(link_class)[1][0] == "node":  # node to node (a torus): a node module at each end of an optical link
            _torus_rows(bins, spans, cables, modules, add_row, policy, resolved.system.node_ports_per_transceiver)
            continue
        said = [_bin_words(b, words, span) for b, span in zip(bins, spans)]
        item = _("{name} ({link_class}, {span})")
        cable_why, policy_words = _("{bins}: {media}, {name} (reach {reach} m; cable media {policy})"), None
        for b, span, bin_words in zip(bins, spans, said):
            if b.cable_id:
                cable = cables[b.cable_id]
                policy_words = policy_words or vocab.CABLE_MEDIA.word(policy)
                add_row("cable", cable, b.links, cable_why.format(
                    bins=bin_words, media=_(KIND_LABELS[b.kind]), name=cable.id, reach=f"{cable.reach_m:g}",
                    policy=policy_words), item=item.format(name=cable.name, link_class=words, span=span))
        optical = [(b, span, bin_words) for b, span, bin_words in zip(bins, spans, said) if not b.cable_id]
        if not optical:
            continue
        class_links = sum(b.links for b in bins)
        optical_links = sum(b.links for b, _span, _w in optical)
        switch_total = math.ceil(counts[link_class] * optical_links / class_links) if class_links else 0
        per_bin = apportion(switch_total, [b.links for b, _span, _w in optical])
        by_module: dict[str, list] = {}
        for (b, span, _w), n in zip(optical, per_bin):
            by_module.setdefault(b.switch_module_id, []).append((b, span, n))
        for module_id, parts in by_module.items():
            module = modules[module_id]
            quantity = sum(n for _b, _span, n in parts)
            add_row("transceiver", module, quantity, sentences(
                    _("switch side, {link_class}: {terms} = {total} ({per_cage} per cage)").format(
                        link_class=words, terms=" + ".join(terms[link_class]),
                        total=f"{counts[link_class]:,}", per_cage=plurals.ports(cage_ports[link_class]))
                    + share_words(counts[link_class], class_links, optical_links, switch_total, quantity)
                    + length_words([(b, span) for b, span, _n in parts]), optics_note(module, switches[link_class])),
                    item=(_(items[link_class]).format(name=module.name) if link_class in items
                          and family_words(family, f"link:{link_class}", None) is None else
                          _("{name} (switch side, {link_class})").format(name=module.name, link_class=words)),
                    end="switch")
        if link_class == "node-leaf":
            _node_module_rows(resolved, [b for b, _span, _w in optical], class_links, modules, add_row)
        fibre_why = _("{bins}: {media}, {module} + fibre cord")
        for b, span, bin_words in optical:
            fiber = cables[b.fibre_id]
            add_row("cable", fiber, b.links, fibre_why.format(
                bins=bin_words, media=_(KIND_LABELS[b.kind]), module=b.switch_module_id),
                item=item.format(name=fiber.name, link_class=words, span=span))


def _node_module_rows(resolved: ResolvedDesign, optical: list[MediaBin], class_links: int, modules: dict,
                      add_row) -> None:
    """``link_rows``' node-side module rows of the node-leaf links: ``nodes x ceil(NIC ports / ports per module)``
    were every link optical, the ``optical`` bins' share of it (of ``class_links`` links), shared among them by
    their links and listed by module type."""
    planes = resolved.planes
    optical_links = sum(b.links for b in optical)
    per_node_ports = resolved.nics_per_node * planes
    per_xcvr = max(resolved.system.node_ports_per_transceiver, planes)  # a NIC's cage carries all its planes
    every = resolved.nodes * math.ceil(per_node_ports / per_xcvr)  # were every node-leaf link optical
    node_total = math.ceil(every * optical_links / class_links)
    node_bins = apportion(node_total, [b.links for b in optical])
    by_node: dict[str, int] = {}
    for b, n in zip(optical, node_bins):
        by_node[b.node_module_id] = by_node.get(b.node_module_id, 0) + n
    for module_id, quantity in by_node.items():
        node_xcvr = modules[module_id]
        add_row("transceiver", node_xcvr, quantity,
                _("node side: {nodes} nodes x ceil({ports} ports / {per_module} per module) = {total}").format(
                    nodes=f"{resolved.nodes:,}", ports=per_node_ports, per_module=per_xcvr, total=f"{every:,}")
                + share_words(every, class_links, optical_links, node_total, quantity),
                item=_("{name} (node side)").format(name=node_xcvr.name), end="node")


def switch_module_counts(resolved: ResolvedDesign, fabric: FabricPlan, words: bool = False, wiring=None,
                         at: dict | None = None) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Per link class, the switch-side modules if every link of the class were optical, counted per switch group
    (``ceil(ports used / ports per cage) x switches x planes``, both switch ends of a switch-switch link), and with
    ``words`` each group's term in words (``link_rows``' explanation; else empty lists). ``wiring`` and ``at``
    (``core.fabric.wiring.wiring_of`` and ``core.physical.media.class_speeds`` of the design) when the caller has
    them."""
    planes = resolved.planes
    speeds = {c: r.port_speed_gbps for c, r in (at or class_speeds(resolved)).items()}
    wiring = wiring or wiring_of(fabric, resolved.nodes, resolved.nics_per_node)
    classes = (*wiring.link_classes, "")  # a role's down links are of class i, its up links of class i + 1
    link_class_of = {role: (classes[i], classes[i + 1]) for i, role in enumerate(wiring.roles)}
    counts = {c: 0 for c in speeds}
    terms: dict[str, list[str]] = {c: [] for c in speeds}
    split = getattr(topology_family(fabric.family), "switch_class_ports", None)  # a family's ports by class
    models = resolved.tier_switches
    term = _("{count} {role} x ceil({ports}/{per_cage})") if words else ""
    roles: dict[str, str] = {}  # each role in words once, not once a group
    for group in fabric.switch_groups:
        down_class, up_class = link_class_of[group.role]
        by_class = split(fabric, group) if split else ((down_class, group.down_ports_used),
                                                        (up_class, group.up_ports_used))
        for link_class, ports in by_class:
            if link_class and ports:
                per_cage = models[group.role].ports_per_cage(speeds[link_class])
                counts[link_class] += math.ceil(ports / per_cage) * group.count * planes
                if words:
                    if group.role not in roles:
                        roles[group.role] = role_words(group.role, fabric.family)
                    terms[link_class].append(term.format(count=group.count * planes, role=roles[group.role],
                                                         ports=ports, per_cage=per_cage))
    return counts, terms


def share_words(total: int, class_links: int, optical_links: int, optical_total: int, quantity: int) -> str:
    """What a link class's transceiver row adds to its formula (``total``: the modules were every one of the class's
    ``class_links`` links optical) so that its ``why`` ends on its own quantity: the optical links' share
    (``ceil(total x optical / links) = optical_total``) when some links are copper, then ``of which {quantity}``
    when the class's optical modules are split over rows (module types chosen by the cable lengths); "" when the
    formula's result is the row's quantity."""
    text = ""
    if optical_links != class_links:
        text += _("; ceil({total} x {optical} / {links}) = {share} for the {optical} optical links of {links}").format(
            total=f"{total:,}", optical=f"{optical_links:,}", links=f"{class_links:,}", share=f"{optical_total:,}")
    if quantity != optical_total:
        text += _("; of which {quantity} of this type, by the cable lengths").format(quantity=f"{quantity:,}")
    return text


def length_words(parts: list[tuple[MediaBin, str]]) -> str:
    """A transceiver row's optical links by length, the end of its ``why``: ``; optics for 672 links by length:
    5-10 m 124, 10-20 m 436`` (Chinese ``；672 条链路用多模光模块，按长度：5-10 m 124 条、10-20 m 436 条``).
    ``parts``: the row's length bins, of one media kind, each with its span (``MediaBin.label``)."""
    spans = _(", ").join(_("{span} {links}").format(span=span, links=f"{b.links:,}") for b, span in parts)
    return _("; {media} for {links} links by length: {spans}").format(
        media=_(KIND_LABELS[parts[0][0].kind]), links=f"{sum(b.links for b, _span in parts):,}", spans=spans)


def _torus_rows(bins, spans: list[str], cables: dict, modules: dict, add_row, policy: str, node_ports: int = 1
                ) -> None:
    """Cable and transceiver rows of a torus's node-to-node links (``core.fabric.torus``): one cable per link
    of a cable bin; an optical link takes a fibre cord and a node port of a module at each end, ``node_ports``
    (``System.node_ports_per_transceiver``: 2 in a DGX's twin-port OSFP cage) and the module's logical ports
    sharing one module, as a twin-port copper cable carries two links. ``spans``: the bins' ``MediaBin.label``."""
    label = _(LINK_CLASS_LABELS["torus"])
    for b, span in zip(bins, spans):
        bin_words = _bin_words(b, label, span)
        if b.cable_id:
            cable = cables[b.cable_id]
            why = _("{bins}: {media}, {name} (reach {reach} m; cable media {policy})").format(
                bins=bin_words, media=_(KIND_LABELS[b.kind]), name=cable.id, reach=f"{cable.reach_m:g}",
                policy=vocab.CABLE_MEDIA.word(policy))
            add_row("cable", cable, b.links, why,
                    item=_("{name} ({link_class}, {span})").format(name=cable.name, link_class=label, span=span))
            continue
        module, fiber = modules[b.node_module_id], cables[b.fibre_id]
        per = max(1, min(node_ports, module.logical_ports))
        count = math.ceil(2 * b.links / per)
        why = (_("{bins}: 2 ends x {links} links = {count}, node to node").format(
            bins=bin_words, links=f"{b.links:,}", count=f"{count:,}") if per == 1 else
               _("{bins}: ceil(2 ends x {links} links / {per} ports per module) = {count}, a link end per node port "
                 "(the node's cage), node to node").format(bins=bin_words, links=f"{b.links:,}", per=per,
                                                           count=f"{count:,}"))
        add_row("transceiver", module, count, why,
                item=_("{name} (node side, {link_class})").format(name=module.name, link_class=label), end="node")
        add_row("cable", fiber, b.links, _("{bins}: {media}, {module} + fibre cord").format(
            bins=bin_words, media=_(KIND_LABELS[b.kind]), module=module.id),
            item=_("{name} ({link_class}, {span})").format(name=fiber.name, link_class=label, span=span))


def fabric_media(catalog: Catalog, resolved: ResolvedDesign, fabric: FabricPlan, layout: Layout
                 ) -> tuple[tuple[LinkLengths, ...], tuple[MediaBin, ...]]:
    """Lengths and media of every compute link class from ``layout`` (``core.physical``: every class the fabric's
    wiring has, a Dragonfly+'s global links included)."""
    lengths = link_lengths(resolved, fabric, layout)
    return lengths, select_media(catalog, resolved, lengths)


def design_price_basis(resolved: ResolvedDesign) -> str:
    """The design's ``price_basis`` (street, list, hyperscale); ``street`` when the design has none."""
    basis = getattr(resolved.design, "price_basis", "street")
    return basis if basis in PRICE_POINT else "street"


def summarize_cost(resolved: ResolvedDesign, rows: tuple[BomRow, ...]) -> CostSummary:
    """Capex, power and TCO totals of a bill of materials.

    TCO = capex + years x yearly energy cost, where energy = IT power x PUE x
    8,760 h x electricity price (``_energy``). Staff, space, maintenance and financing are
    not included. Spare rows (``BomRow.spare``) are in capex (and its network part when they are
    network parts) at no power; ``spares_capex_usd`` says how much of capex they are.
    """
    design = resolved.design
    capex, low, high, network_capex, network_low, network_high, it_w, network_w, spares, spares_low, spares_high, \
        scaleup = _row_sums(rows)
    facility_kw, energy, tco = _energy(design, capex, it_w)
    return CostSummary(
        capex_usd=capex,
        capex_per_gpu_usd=capex / resolved.gpus,
        network_capex_usd=network_capex,
        scaleup_capex_usd=scaleup,
        capex_usd_low=low,
        capex_usd_high=high,
        network_capex_usd_low=network_low,
        network_capex_usd_high=network_high,
        price_basis=design_price_basis(resolved),
        network_share=network_capex / capex if capex else 0.0,
        it_kw=it_w / 1000,
        network_kw=network_w / 1000,
        facility_kw=facility_kw,
        pue=design.pue,
        energy_usd_per_year=energy,
        tco_years=design.tco_years,
        tco_usd=tco,
        racks_compute=math.ceil(resolved.nodes / resolved.nodes_per_rack),
        spares_capex_usd=spares,
        spares_capex_usd_low=spares_low,
        spares_capex_usd_high=spares_high,
    )


_NO_SUMS = (0,) * 12
"""``_row_sums`` of no rows."""


def _row_sums(rows, sums: tuple = _NO_SUMS) -> tuple:
    """``summarize_cost``'s sums over ``rows`` (``BomRow``s or floor rows), each added up in row order onto ``sums``
    (those of the rows before them: the same sums as one pass over all the rows, so a floor sums the rows its
    candidates share once): capex, its low and high [USD], the compute fabric's capex, low and high [USD] (network_*:
    ``in_compute_fabric``; the storage and management networks, ``BomRow.network``, are in capex and power and split
    out by ``Plan.networks_summary()``), IT and compute fabric power [W], the spare rows' capex, low and high [USD]
    and the second NVLink level's capex [USD]."""
    capex, low, high, network_capex, network_low, network_high, it_w, network_w, spares, spares_low, spares_high, \
        scaleup = sums
    level2_ids = _level2_ids()
    for r in rows:
        quantity, point = r.quantity, r.unit_price_usd
        price = quantity * point
        price_low = quantity * (point if r.unit_price_low_usd is None else r.unit_price_low_usd)
        price_high = quantity * (point if r.unit_price_high_usd is None else r.unit_price_high_usd)
        power = quantity * r.unit_power_w
        capex += price
        low += price_low
        high += price_high
        it_w += power
        if in_compute_fabric(r):
            network_capex += price
            network_low += price_low
            network_high += price_high
            network_w += power
            scaleup += price if r.catalog_id in level2_ids else 0
        if r.spare:
            spares += price
            spares_low += price_low
            spares_high += price_high
    return (capex, low, high, network_capex, network_low, network_high, it_w, network_w, spares, spares_low,
            spares_high, scaleup)


@lru_cache(maxsize=1)
def _level2_ids() -> frozenset[str]:
    """``domainlevels.level2_part_ids()`` (of the bundled table: immutable), made once."""
    return domainlevels.level2_part_ids()


def _energy(design, capex: float, it_w: float) -> tuple[float, float, float]:
    """(facility power [kW], energy cost [USD per year], TCO [USD]) of ``design`` at ``capex`` [USD] and ``it_w``
    [W] of IT power: facility = IT power x PUE, energy = facility x 8,760 h x electricity price, TCO = capex +
    years x energy."""
    facility_kw = it_w / 1000 * design.pue
    energy = facility_kw * HOURS_PER_YEAR * design.electricity_usd_per_kwh
    return facility_kw, energy, capex + design.tco_years * energy


class FloorTotals(NamedTuple):
    """What a floor (``cost_floor``, ``links_cost_floor``, ``links_binned_raise``) gives of ``summarize_cost``'s
    summary of its rows, the same numbers without the summary: capex and compute fabric capex [USD], facility power
    [kW], TCO [USD] over ``tco_years`` [years]."""

    capex_usd: float
    network_capex_usd: float
    facility_kw: float
    tco_usd: float
    tco_years: float


def _floor_totals(resolved: ResolvedDesign, sums: tuple) -> FloorTotals:
    """``FloorTotals`` of rows whose ``_row_sums`` are ``sums``."""
    design = resolved.design
    facility_kw, _energy_usd, tco = _energy(design, sums[0], sums[6])
    return FloorTotals(sums[0], sums[3], facility_kw, tco, design.tco_years)


class PriceSwing(BaseModel):
    """How far one catalog price moves capex across its low-high range, all other prices held."""

    model_config = ConfigDict(frozen=True)

    catalog_id: str
    item: str
    """Catalog name of the part (the first BOM row's item, before its parenthesised place)."""
    category: Category
    quantity: int
    """Units of the part in the design (all its BOM rows)."""
    unit_low_usd: float
    unit_point_usd: float
    unit_high_usd: float
    capex_low_usd: float
    """Capex with this part at its low price [USD]."""
    capex_high_usd: float
    """Capex with this part at its high price [USD]."""

    @property
    def swing_usd(self) -> float:
        """capex_high_usd - capex_low_usd [USD]."""
        return self.capex_high_usd - self.capex_low_usd


def price_sensitivity(rows: tuple[BomRow, ...] | list[BomRow], top: int = 5) -> list[PriceSwing]:
    """The ``top`` catalog prices whose low-high range moves capex most (one-at-a-time, tornado style).

    Rows of the same catalog id (a module used at several link classes) are one price. Each part
    is swung from its low to its high unit price with every other row at its point price;
    overridden prices have no range and never appear. Ties break by catalog id.
    """
    capex = sum(r.extended_price_usd for r in rows)
    parts: dict[str, list[BomRow]] = {}
    for row in rows:
        parts.setdefault(row.catalog_id, []).append(row)
    swings = []
    for catalog_id, group in parts.items():
        point = sum(r.extended_price_usd for r in group)
        low = sum(r.quantity * r.low_usd for r in group)
        high = sum(r.quantity * r.high_usd for r in group)
        if high - low <= 0:
            continue
        first = group[0]
        quantity = sum(r.quantity for r in group)
        swings.append(PriceSwing(
            catalog_id=catalog_id, item=_item_name(first.item), category=first.category, quantity=quantity,
            unit_low_usd=low / quantity, unit_point_usd=point / quantity, unit_high_usd=high / quantity,
            capex_low_usd=capex - point + low, capex_high_usd=capex - point + high))
    swings.sort(key=lambda s: (-s.swing_usd, s.catalog_id))
    return swings[:top]


def _item_name(item: str) -> str:
    """A BOM item without its place: ``"<name> (leaf)"`` -> ``"<name>"`` (half- or full-width brackets); only the
    last bracket, so a name's own brackets stay (``"User (home) storage, NFS（带内管理网络）"``)."""
    pairs = {")": "(", "）": "（"}
    if item[-1:] not in pairs:
        return item
    depth = 0
    for index in range(len(item) - 1, -1, -1):
        depth += {item[-1]: 1, pairs[item[-1]]: -1}.get(item[index], 0)
        if depth == 0:
            return item[:index].rstrip() if index > 0 else item
    return item
