"""Bill of materials, cost and power.

One ``BomRow`` per item with its quantity, unit price [USD], unit power [W]
and ``why``: the count explained in words. Prices come from the catalog and
are estimates unless their basis says list; ``Design.price_overrides`` and
``Design.power_overrides`` replace them (read canonicalised, as ``ResolvedDesign.price_overrides``
and ``ResolvedDesign.power_overrides``, so an alias such as ``quantum-2`` applies to ``QM9700``).

Cable media per link class (``Design.cable_media``):

* ``auto``: copper (DAC, or active copper where the speed has no passive DAC)
  for in-rack links (top-of-rack node-leaf), transceivers + fibre elsewhere.
* ``copper``: copper for every node-leaf link (leaves placed within copper
  reach); transceivers + fibre between switches.
* ``aoc``: active optical cables for node-leaf and leaf-spine; transceivers +
  fibre for spine-core.
* ``optics``: transceivers + fibre for every link.

Languages: a ``BomRow``'s ``item`` and ``why`` are text in the language of the request
(``core.i18n``; ``item`` is always the catalog name first, then where the row sits in parentheses,
``"<name> (leaf)"``, full-width in Chinese, so display code can split the two). These fields are keys,
English in every language, for grouping and logic; show them translated with ``_()``:
``category`` (``CATEGORY_LABELS``: compute, NIC, switch, transceiver, cable), ``price_basis``
(``core.catalog.PRICE_BASIS_LABELS``: list, street, estimate, override), ``end`` (switch, node)
and ``catalog_id`` (never translated). Link classes and media in texts: ``LINK_CLASS_LABELS``,
``MEDIA_LABELS``.
"""

from __future__ import annotations

import math
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict

from core.catalog import Cable, Catalog, Transceiver, form_factor_family
from core.design import ResolvedDesign, fabric_word, tidy_spaces
from core.errors import DesignError
from core.fabric.sizing import ROLE_LABELS, FabricPlan
from core.i18n import N_, _

Category = Literal["compute", "NIC", "switch", "transceiver", "cable"]
NETWORK_CATEGORIES = ("NIC", "switch", "transceiver", "cable")
CATEGORY_LABELS = {"compute": N_("compute"), "NIC": N_("NIC"), "switch": N_("switch"),
                   "transceiver": N_("transceiver"), "cable": N_("cable")}
"""BOM category (a key) -> its name, English marked for translation: ``_(CATEGORY_LABELS[category])``."""
LINK_CLASS_LABELS = {"node-leaf": N_("node-leaf"), "leaf-spine": N_("leaf-spine"), "spine-core": N_("spine-core")}
"""Link class (a key) -> its name in texts, marked for translation."""
MEDIA_LABELS = {"auto": N_("auto"), "copper": N_("copper"), "aoc": N_("aoc"), "optics": N_("optics")}
"""``Design.cable_media`` value -> its name in texts, marked for translation."""
HOURS_PER_YEAR = 8760

# Typical run lengths by link class [m]; used to pick media with enough reach.
LINK_DISTANCE_M = {"in-rack": 2.0, "node-leaf": 30.0, "leaf-spine": 50.0, "spine-core": 150.0}


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

    @property
    def extended_price_usd(self) -> float:
        return self.quantity * self.unit_price_usd

    @property
    def extended_power_w(self) -> float:
        return self.quantity * self.unit_power_w


class CostSummary(BaseModel):
    """Totals of a bill of materials, with power and energy."""

    model_config = ConfigDict(frozen=True)

    capex_usd: float
    capex_per_gpu_usd: float
    network_capex_usd: float
    network_share: float
    it_kw: float
    network_kw: float
    facility_kw: float
    pue: float
    energy_usd_per_year: float
    tco_years: float
    tco_usd: float
    racks_compute: int


BOM_COLUMNS = [
    "category", "item", "catalog_id", "quantity", "unit_price_usd", "extended_price_usd",
    "unit_power_w", "extended_power_w", "price_basis", "why",
]


def bom_dataframe(rows: tuple[BomRow, ...] | list[BomRow]) -> pd.DataFrame:
    """The bill of materials as a DataFrame with ``BOM_COLUMNS``."""
    records = [
        {
            **row.model_dump(),
            "extended_price_usd": row.extended_price_usd,
            "extended_power_w": row.extended_power_w,
        }
        for row in rows
    ]
    return pd.DataFrame.from_records(records, columns=BOM_COLUMNS)


def _pick_transceiver(
    catalog: Catalog, resolved: ResolvedDesign, end: str, ports: int, distance_m: float, media: str | None = None,
    cage: str = "",
) -> Transceiver:
    """Cheapest transceiver for ``end`` carrying ``ports`` links at the design's speed.

    Preference: a module with exactly ``ports`` logical ports at the design's
    speed made for this end; then the same made for the other end (a DGX's
    twin-port cage takes the switch's twin-port module); then any module of
    equal total bandwidth. A module of the ``cage`` family (OSFP, QSFP56, ...)
    is preferred, even one run below its top speed. Within that, ``media`` (smf/mmf) is kept when
    given so both ends of a link match, and the reach must cover
    ``distance_m`` [m]; if nothing reaches, the longest-reach module is used.
    """
    speed = resolved.port_speed_gbps
    usable = [t for t in catalog.transceivers if resolved.fabric in t.fabrics]
    exact = [t for t in usable if t.logical_ports == ports and t.port_speed_gbps == speed]
    tiers = [
        [t for t in exact if t.end in (end, "any")],
        exact,
        [t for t in usable if t.end in (end, "any") and t.logical_ports * t.port_speed_gbps == ports * speed],
        [t for t in usable if t.end in (end, "any") and t.port_speed_gbps == speed],
    ]
    options = next((tier for tier in tiers if tier), [])
    if cage:
        # keep the module that fits the cage: an OSFP NIC takes an OSFP module, run at a lower
        # speed if need be (a 400G OSFP runs NDR200), rather than a QSFP56 of the exact speed
        fitting = [t for t in options if form_factor_family(t.form_factor) == cage]
        if not fitting:
            fitting = [t for t in usable if form_factor_family(t.form_factor) == cage
                       and t.end in (end, "any") and t.logical_ports == ports and t.port_speed_gbps >= speed]
            fitting = [t for t in fitting if t.port_speed_gbps == min(f.port_speed_gbps for f in fitting)]
        options = fitting or options
    if not options:
        message = (_("the catalog has no {fabric} transceiver for {ports}x{speed}G at the switch end") if end == "switch"
                   else _("the catalog has no {fabric} transceiver for {ports}x{speed}G at the node end"))
        raise DesignError(
            tidy_spaces(message.format(fabric=fabric_word(resolved.fabric), ports=ports, speed=speed)),
            _("Add one to assets/catalog/optics.toml or choose another port speed."),
        )
    if media and any(t.media == media for t in options):
        options = [t for t in options if t.media == media]
    reaching = [t for t in options if t.reach_m >= distance_m]
    if reaching:
        return min(reaching, key=lambda t: (t.price_usd, t.reach_m))
    return max(options, key=lambda t: (t.reach_m, -t.price_usd))


def _pick_cable(catalog: Catalog, resolved: ResolvedDesign, kinds: tuple[str, ...], distance_m: float) -> Cable | None:
    """Cheapest cable of ``kinds`` at the design's speed with enough reach, else None."""
    options = [
        c for c in catalog.cables
        if c.kind in kinds and resolved.fabric in c.fabrics and c.speed_gbps == resolved.port_speed_gbps
        and c.reach_m >= distance_m
    ]
    return min(options, key=lambda c: (c.price_usd, c.reach_m)) if options else None


def _fiber(catalog: Catalog, transceiver: Transceiver, distance_m: float) -> Cable:
    """Cheapest fibre cord matching the transceiver's media and connector, long enough if possible."""
    options = [c for c in catalog.cables if c.kind == "fiber" and c.media == transceiver.media
               and c.connector == transceiver.connector]
    if not options:
        raise DesignError(
            _("the catalog has no {media} {connector} fibre cord for {transceiver}").format(
                media=transceiver.media.upper(), connector=transceiver.connector.upper(), transceiver=transceiver.id),
            _("Add one to assets/catalog/optics.toml."))
    reaching = [c for c in options if c.reach_m >= distance_m]
    return min(reaching or options, key=lambda c: c.price_usd)


def build_bom(resolved: ResolvedDesign, fabric: FabricPlan, catalog: Catalog) -> tuple[BomRow, ...]:
    """Every item of the design with its count explained.

    Switch-side transceivers are counted per switch: ``ceil(ports used / ports
    per cage)`` (a twin-port OSFP carries two 400G links). Node-side
    transceivers are counted per node: ``ceil(NIC ports / system's
    node_ports_per_transceiver)``. Fibre cords: one per optical link.
    """
    design = resolved.design
    system = resolved.system
    nic = resolved.nic
    switch = resolved.switch
    planes = resolved.planes
    price_overrides, power_overrides = resolved.price_overrides, resolved.power_overrides
    price = lambda entry_id, value: price_overrides.get(entry_id, value)  # noqa: E731
    power = lambda entry_id, value: power_overrides.get(entry_id, value)  # noqa: E731
    rows: list[BomRow] = []

    def add(category, entry, quantity, why, item=None, end=""):
        if quantity <= 0:
            return
        rows.append(
            BomRow(
                category=category, item=item or entry.name, catalog_id=entry.id, quantity=quantity,
                unit_price_usd=price(entry.id, entry.price_usd), unit_power_w=power(entry.id, entry.power_w),
                price_basis="override" if entry.id in price_overrides else entry.price_basis,
                why=why, end=end,
            )
        )

    # --- compute and NICs -------------------------------------------------------------
    # The node's price and power include its standard NICs; list NICs separately and take those out.
    included_nic = catalog.nic(system.default_nic)
    included = system.default_nics_per_node
    nic_count = resolved.nodes * resolved.nics_per_node
    node_price = price(system.id, system.node_price_usd)
    node_power = power(system.id, system.node_power_w)
    rows.append(
        BomRow(
            category="compute", item=_("{name} node").format(name=system.name), catalog_id=system.id,
            quantity=resolved.nodes,
            unit_price_usd=max(0.0, node_price - included * price(included_nic.id, included_nic.price_usd)),
            unit_power_w=max(0.0, node_power - included * power(included_nic.id, included_nic.power_w)),
            price_basis="override" if system.id in price_overrides else system.price_basis,
            why=_("{nodes} nodes x {gpus_per_node} GPUs = {gpus} GPUs (node price and power less its {included} "
                  "standard {nic} NICs, listed below)").format(
                nodes=f"{resolved.nodes:,}", gpus_per_node=resolved.gpus_per_node, gpus=f"{resolved.gpus:,}",
                included=included, nic=included_nic.id),
        )
    )
    nic_why = (_("{nodes} nodes x {nics} NICs (rails); each NIC has a port in each of {planes} planes") if planes > 1
               else _("{nodes} nodes x {nics} NICs (rails)"))
    add("NIC", nic, nic_count, nic_why.format(nodes=f"{resolved.nodes:,}", nics=resolved.nics_per_node, planes=planes))

    # --- switches -----------------------------------------------------------------------
    plane_note = _(" x {planes} planes").format(planes=planes) if planes > 1 else ""
    if fabric.tiers == 1:
        add("switch", switch, planes, _("one switch per plane holds all {ports} NIC ports{plane_note}").format(
            ports=fabric.node_leaf_links, plane_note=plane_note), item=_("{name} (leaf)").format(name=switch.name))
    else:
        if resolved.topology == "rail-optimized":
            leaf_why = _("{sus} SU x {rails} rails{plane_note}").format(
                sus=fabric.group_count, rails=fabric.leaves_per_group, plane_note=plane_note)
        else:
            leaf_why = _("ceil({nodes} nodes / {per_leaf} per leaf){plane_note}").format(
                nodes=resolved.nodes, per_leaf=fabric.nodes_per_group, plane_note=plane_note)
        add("switch", switch, fabric.leaf_count_total, leaf_why, item=_("{name} (leaf)").format(name=switch.name))
        if fabric.tiers == 2:
            spine_why = _("{leaves} leaves x {uplinks} uplinks = {links} links, {pair} per leaf-spine pair: "
                          "{spines} spines{plane_note}").format(
                leaves=fabric.leaf_count, uplinks=fabric.leaf_uplinks, links=f"{fabric.leaf_spine_links:,}",
                pair=fabric.links_per_leaf_spine_pair, spines=fabric.spine_count, plane_note=plane_note)
        else:
            spine_why = _("{pods} pods x {spines} spines{plane_note}").format(
                pods=fabric.pod_count, spines=fabric.spines_per_pod, plane_note=plane_note)
        add("switch", switch, fabric.spine_count_total, spine_why, item=_("{name} (spine)").format(name=switch.name))
        if fabric.tiers == 3:
            add("switch", switch, fabric.core_count_total,
                _("{groups} core groups x {cores} cores{plane_note}").format(
                    groups=fabric.core_groups, cores=fabric.cores_per_group, plane_note=plane_note),
                item=_("{name} (core)").format(name=switch.name))

    # --- links: media per class -----------------------------------------------------------
    media = design.cable_media
    node_leaf_in_rack = resolved.topology == "top-of-rack" or fabric.tiers == 1 and resolved.nodes <= resolved.nodes_per_rack
    classes = [("node-leaf", fabric.node_leaf_links * planes, "in-rack" if node_leaf_in_rack else "node-leaf")]
    if fabric.tiers >= 2:
        classes.append(("leaf-spine", fabric.leaf_spine_links * planes, "leaf-spine"))
    if fabric.tiers == 3:
        classes.append(("spine-core", fabric.spine_core_links * planes, "spine-core"))

    optical: list[tuple[str, int, float, bool]] = []  # (link class, links, distance [m], no AOC/copper?)
    for link_class, links, distance_key in classes:
        distance = LINK_DISTANCE_M[distance_key]
        use_copper = link_class == "node-leaf" and (media == "copper" or (media == "auto" and distance_key == "in-rack"))
        use_aoc = media == "aoc" and link_class in ("node-leaf", "leaf-spine")
        cable = None
        if use_copper:
            cable = _pick_cable(catalog, resolved, ("dac", "acc"), LINK_DISTANCE_M["in-rack"])
        elif use_aoc:
            cable = _pick_cable(catalog, resolved, ("aoc",), distance)
        if cable is not None:
            add("cable", cable, links, _("{links} {link_class} links, one {kind} each ({media} media)").format(
                links=f"{links:,}", link_class=_(LINK_CLASS_LABELS[link_class]), kind=cable.kind.upper(),
                media=_(MEDIA_LABELS[media])))
        else:
            optical.append((link_class, links, distance, use_copper or use_aoc))
    if not optical:
        return tuple(rows)

    # optics per link class: a module family with the reach that class needs, the same at both ends
    ports_per_cage = switch.ports_per_cage(resolved.port_speed_gbps)
    switch_cage = form_factor_family(switch.cage_type)
    modules = {link_class: _pick_transceiver(catalog, resolved, "switch", ports_per_cage, distance, cage=switch_cage)
               for link_class, _links, distance, _note in optical}
    counts = {link_class: 0 for link_class in modules}
    why_parts: dict[str, list[str]] = {link_class: [] for link_class in modules}
    for group in fabric.switch_groups:
        down_class, up_class = {"leaf": ("node-leaf", "leaf-spine"), "spine": ("leaf-spine", "spine-core"),
                                "core": ("spine-core", "")}[group.role]
        for link_class, ports in ((down_class, group.down_ports_used), (up_class, group.up_ports_used)):
            if link_class in modules and ports:
                counts[link_class] += math.ceil(ports / ports_per_cage) * group.count * planes
                why_parts[link_class].append(_("{count} {role} x ceil({ports}/{per_cage})").format(
                    count=group.count * planes, role=_(ROLE_LABELS[group.role]), ports=ports, per_cage=ports_per_cage))
    items = {"node-leaf": N_("{name} (switch side, node-leaf)"), "leaf-spine": N_("{name} (switch side, leaf-spine)"),
             "spine-core": N_("{name} (switch side, spine-core)")}
    for link_class, module in modules.items():
        add("transceiver", module, counts[link_class],
            _("switch side, {link_class}: {terms} ({per_cage} port(s) per cage)").format(
                link_class=_(LINK_CLASS_LABELS[link_class]), terms=" + ".join(why_parts[link_class]),
                per_cage=ports_per_cage),
            item=_(items[link_class]).format(name=module.name), end="switch")
    if "node-leaf" in modules:
        per_node_ports = resolved.nics_per_node * planes
        per_xcvr = max(system.node_ports_per_transceiver, planes)  # a NIC's cage carries all its planes
        node_xcvr = _pick_transceiver(catalog, resolved, "node", per_xcvr, LINK_DISTANCE_M["node-leaf"],
                                      media=modules["node-leaf"].media, cage=form_factor_family(nic.cage_type))
        per_node = math.ceil(per_node_ports / per_xcvr)
        add("transceiver", node_xcvr, resolved.nodes * per_node,
            _("node side: {nodes} nodes x ceil({ports} ports / {per_module} per module)").format(
                nodes=f"{resolved.nodes:,}", ports=per_node_ports, per_module=per_xcvr),
            item=_("{name} (node side)").format(name=node_xcvr.name), end="node")
    fiber_items = {"node-leaf": N_("{name} (node-leaf)"), "leaf-spine": N_("{name} (leaf-spine)"),
                   "spine-core": N_("{name} (spine-core)")}
    for link_class, links, distance, no_cable in optical:
        fiber = _fiber(catalog, modules[link_class], distance)
        why = (_("{links} {link_class} optical links, one fibre cord each (no AOC/copper at this speed in the "
                 "catalog)") if no_cable else _("{links} {link_class} optical links, one fibre cord each"))
        add("cable", fiber, links, why.format(links=f"{links:,}", link_class=_(LINK_CLASS_LABELS[link_class])),
            item=_(fiber_items[link_class]).format(name=fiber.name))
    return tuple(rows)


def summarize_cost(resolved: ResolvedDesign, rows: tuple[BomRow, ...]) -> CostSummary:
    """Capex, power and TCO totals of a bill of materials.

    TCO = capex + years x yearly energy cost, where energy = IT power x PUE x
    8,760 h x electricity price. Staff, space, maintenance and financing are
    not included.
    """
    design = resolved.design
    capex = sum(r.extended_price_usd for r in rows)
    network_capex = sum(r.extended_price_usd for r in rows if r.category in NETWORK_CATEGORIES)
    it_w = sum(r.extended_power_w for r in rows)
    network_w = sum(r.extended_power_w for r in rows if r.category in NETWORK_CATEGORIES)
    facility_kw = it_w / 1000 * design.pue
    energy = facility_kw * HOURS_PER_YEAR * design.electricity_usd_per_kwh
    return CostSummary(
        capex_usd=capex,
        capex_per_gpu_usd=capex / resolved.gpus,
        network_capex_usd=network_capex,
        network_share=network_capex / capex if capex else 0.0,
        it_kw=it_w / 1000,
        network_kw=network_w / 1000,
        facility_kw=facility_kw,
        pue=design.pue,
        energy_usd_per_year=energy,
        tco_years=design.tco_years,
        tco_usd=capex + design.tco_years * energy,
        racks_compute=math.ceil(resolved.nodes / resolved.nodes_per_rack),
    )
