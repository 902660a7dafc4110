"""The XLSX workbook for a review: summary, bill of materials, the design as a table, other networks.

``design_xlsx(plan, *, name, share_link, when) -> bytes`` writes (openpyxl), in the current language
(``core.i18n``; sheet names, headers, labels and categories translated, part names and ids as
published):

* **Summary**: design name, date (UTC), share link, the key numbers with their units, totals by BOM
  category (quantity, capex at the design's price basis, low and high end of the catalog price
  ranges, power), capex low / typical / high and power (IT, network, facility with PUE).
* **BOM**: the Designer's bill of materials (``bom_table``) with number formats (USD, W, whole numbers
  with thousands separators), column widths, a frozen header, an autofilter and a totals row whose
  values equal ``plan.cost`` (capex, low, high) and the IT power [W]. Totals are values, not
  formulas, so every reader (pandas, a mail preview) sees them.
* **Design**: every ``Design`` field, defaults included, as setting / value / JSON key; a setting left
  to the engine says what it picked (``auto (QM9700)``).
* **Growth stages** when the design has ``stages`` or ``grow_to`` beyond its nodes: one row per step
  (``core.analysis.stages.stage_rows``, the Racks & cabling tab's and the review pack's rows).
* **One sheet per other network** (storage, in-band, out-of-band management) when the plan has
  ``networks`` (``core.networks``): its BOM rows as the BOM sheet writes them and its sizing as the review pack
  shows it (``core.formats.networkwords``).

Money is in the session's currency (``core.i18n.money_context``): the cells hold the amounts converted from US
dollars at ``core.i18n.fx_rate()`` with that currency's number format, the headers name it, and the Summary
states the currency, the rate and its date (``core.i18n.money_note``).

The BOM CSV download stays the engine's frame (``Plan.bom_frame``) with English column ids, for scripts.
"""

from __future__ import annotations

import io
import re
from datetime import datetime, timezone

import pandas as pd
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter

from core.cost import CATEGORY_LABELS
from core import vocab
from core.design import FIELDS
from core import scaleup, units
from core.units import excel_money_format
from core.formats.filenames import design_slug
from core.fabric.families import LEVEL2_SWITCHES_LABEL, reads, tier_words
from core.figures.billitems import bom_headers, item_and_where
from core.figures.cost import networks_note
from core.formats.networkwords import sizing_explanation, sizing_headline, sizing_tables
from core.networks import network_name
from core.figures.keynumbers import CAPEX, fabric_capex_words, fabric_share_words, per_pod_value, switch_cards
from core.i18n import N_, _, fx_rate, in_currency, money_note
from core.spares import policy_words

# --- the BOM as people read it ---------------------------------------------------------------------
BOM_COLUMNS = ["category", "item", "where", "quantity", "unit_price_usd", "extended_price_usd", "why",
               "unit_power_w", "extended_power_w", "price_basis", "catalog_id"]
"""Columns of the people's BOM table (the Designer's table and the XLSX), ids."""

OTHER_NETWORKS = ("storage", "inband", "oob")


def category_label(category: str) -> str:
    """A BOM category in the current language (``compute`` -> 计算)."""
    return _(CATEGORY_LABELS[category]) if category in CATEGORY_LABELS else category


def bom_table(plan, *, ranges: bool = False) -> pd.DataFrame:
    """The BOM as the Designer shows it: what, where, how many and the price first; ids and power last.

    The engine's item text is the catalog name plus where the row sits (``(leaf)``, ``(switch side,
    node-leaf)``, ``(node side)``); that suffix becomes the ``where`` column. Columns keep their ids
    (``bom_headers()`` labels them); category and price basis are in the current language.
    ``ranges``: also each row's total at the low and high end of its price range [USD], and the
    ``network`` column when a row is not on the compute fabric.
    """
    frame = plan.bom_frame().copy()
    split = [item_and_where(item, catalog_id) for item, catalog_id in zip(frame["item"], frame["catalog_id"])]
    frame["item"] = [item for item, _where in split]
    frame["where"] = [where for _item, where in split]
    frame["category"] = [category_label(c) for c in frame["category"]]
    frame["price_basis"] = [vocab.PRICE_BASES.label(b) for b in frame["price_basis"]]
    columns = list(BOM_COLUMNS)
    if ranges:
        columns[6:6] = ["extended_price_low_usd", "extended_price_high_usd"]
        networks = [getattr(row, "network", "compute") for row in plan.bom]
        if any(n != "compute" for n in networks):
            frame["network"] = [network_name(n, "bill") for n in networks]
            columns.insert(1, "network")
    if any(row.pod is not None for row in plan.bom):  # the bill of a design with pods: whose devices a row buys
        from core.spares import pod_label

        frame["pod"] = [pod_label(row.pod) for row in plan.bom]
        columns.insert(columns.index("where") + 1, "pod")
    return frame[columns]


# --- cell formats -----------------------------------------------------------------------------------
USD = "usd"
"""Money: written as ``core.units.excel_money_format()`` of the workbook's language (``$1.10 B``, ``$853.1 M``,
``$49,983``; ``11.00亿美元``, ``5118.0万美元``), read as ``core.i18n.usd`` writes it on the pages."""
WATTS = '#,##0" W"'
KILOWATTS = '#,##0.0" kW"'
WHOLE = "#,##0"
PERCENT = units.EXCEL_PERCENT
_FORMATS = {"quantity": WHOLE, "unit_price_usd": USD, "extended_price_usd": USD, "extended_price_low_usd": USD,
            "extended_price_high_usd": USD, "unit_power_w": WATTS, "extended_power_w": WATTS}
_WIDTHS = {"category": 12, "network": 22, "item": 46, "where": 26, "quantity": 10, "unit_price_usd": 13,
           "extended_price_usd": 16, "extended_price_low_usd": 16, "extended_price_high_usd": 16, "why": 80,
           "unit_power_w": 11, "extended_power_w": 14, "price_basis": 12, "catalog_id": 24}
_TOTALLED = ("quantity", "extended_price_usd", "extended_price_low_usd", "extended_price_high_usd",
             "extended_power_w")
BOLD = Font(bold=True)


def number_format(fmt: str) -> str:
    """The Excel number format of ``fmt``: the money format of the current language for ``USD``."""
    return excel_money_format() if fmt == USD else fmt
TITLE = Font(bold=True, size=14)
HEADER_FILL = PatternFill("solid", fgColor="DDE3EA")
TOTAL_FILL = PatternFill("solid", fgColor="F1F3F5")
WRAP = Alignment(wrap_text=True, vertical="top")
TOP = Alignment(vertical="top")

SHEET_NAMES = {"summary": N_("Summary"), "bom": N_("Bill of materials"), "design": N_("Design"),
               "growth": N_("Growth stages")}
"""Sheet id -> its name (marked; at most 31 characters in every language, Excel's limit)."""


def sheet_name(text: str) -> str:
    """An Excel-safe sheet name: no ``[]:*?/\\``, at most 31 characters."""
    return re.sub(r"[\[\]:*?/\\]", " ", text)[:31].strip() or "Sheet"


def _header(ws, row: int, labels: list[str]) -> None:
    for col, label in enumerate(labels, start=1):
        cell = ws.cell(row=row, column=col, value=in_currency(label))
        cell.font = BOLD
        cell.fill = HEADER_FILL
        cell.alignment = WRAP


def _cell(ws, row: int, column: int, value):
    """Write ``value``; text is always text: a part name, note or link starting with ``=`` is never
    stored as a formula a spreadsheet would run."""
    cell = ws.cell(row=row, column=column, value=value)
    if isinstance(value, str) and cell.data_type == "f":
        cell.data_type = "s"
    return cell


# --- sheets ----------------------------------------------------------------------------------------
def _bom_sheet(ws, frame: pd.DataFrame, plan_totals: dict[str, float] | None, start: int = 1) -> int:
    """A BOM frame (``bom_table(..., ranges=True)``) as a formatted table with a totals row, its header on row
    ``start``; returns the totals row."""
    headers = bom_headers()
    columns = list(frame.columns)
    _header(ws, start, [headers.get(c, c) for c in columns])
    for r, values in enumerate(frame.itertuples(index=False), start=start + 1):
        for c, (column, value) in enumerate(zip(columns, values), start=1):
            if isinstance(value, float) and column == "quantity":
                value = int(value)
            cell = _cell(ws, r, c, (value.item() if hasattr(value, "item") else value))
            if column in _FORMATS:
                cell.number_format = number_format(_FORMATS[column])
            cell.alignment = WRAP if column in ("why", "item", "where") else TOP
    total_row = start + len(frame) + 1
    label = ws.cell(row=total_row, column=1, value=_("Total"))
    label.font = BOLD
    for c, column in enumerate(columns, start=1):
        cell = ws.cell(row=total_row, column=c)
        cell.fill = TOTAL_FILL
        if column in _TOTALLED:
            total = (plan_totals or {}).get(column)
            if total is None:
                total = float(frame[column].sum())
            cell.value = int(total) if column == "quantity" else total
            cell.number_format = number_format(_FORMATS[column])
            cell.font = BOLD
    for c, column in enumerate(columns, start=1):
        ws.column_dimensions[get_column_letter(c)].width = _WIDTHS.get(column, 14)
    ws.freeze_panes = f"A{start + 1}"
    ws.auto_filter.ref = f"A{start}:{get_column_letter(len(columns))}{start + len(frame)}"
    ws.row_dimensions[start].height = 30
    return total_row


def _bom_totals(plan) -> dict[str, float]:
    """The BOM sheet's totals row: ``plan.cost``'s capex (at the basis, low, high) and the IT power [W]."""
    cost = plan.cost
    return {"quantity": sum(row.quantity for row in plan.bom), "extended_price_usd": cost.capex_usd,
            "extended_price_low_usd": cost.capex_usd_low, "extended_price_high_usd": cost.capex_usd_high,
            "extended_power_w": cost.it_kw * 1000.0}


def _planned(plan, field: str):
    """What the engine uses for a field the design leaves to it (``None`` = nothing to say)."""
    r, fabric = plan.resolved, plan.fabric
    tiers = r.tier_switches
    found = {
        "nodes": r.nodes, "gpus": r.gpus, "gpus_per_node": r.gpus_per_node, "nvlink_generation": r.nvlink_generation,
        "nvlink_domain_gpus": r.nvlink_domain_gpus, "fabric": r.fabric, "port_speed_gbps": r.port_speed_gbps,
        "nics_per_node": r.nics_per_node, "nic": r.nic.id, "switch": r.switch.id,
        "leaf_switch": tiers["leaf"].id if "leaf" in tiers else None,
        "spine_switch": tiers["spine"].id if "spine" in tiers and fabric.tiers >= 2 else None,
        "core_switch": tiers["core"].id if "core" in tiers and fabric.tiers >= 3 else None, "uplink_speed_gbps": r.uplink_gbps,
        "nodes_per_rack": r.nodes_per_rack, "tiers": fabric.tiers,
        "su_nodes": fabric.nodes_per_group if r.topology != "top-of-rack" else None,
        "pod_sus": fabric.groups_per_pod if fabric.tiers == 3 else None,
    }
    return found.get(field)


def _value_text(field: str, value) -> str | int | float:
    """A design value as the settings show it (``core.design.FIELDS``: vocabulary labels, units)."""
    surface = FIELDS[field]
    if field == "spares":
        return policy_words(value)
    if isinstance(value, bool) or (surface.vocab is not None and isinstance(value, str)):
        return surface.value_label(value)
    if isinstance(value, dict):
        return ", ".join(f"{key}: {number:g}" for key, number in sorted(value.items())) or _("none")
    if surface.kind == "speed" and isinstance(value, int):
        return surface.value_label(value)
    return value


def _setting_text(field: str, value) -> str:
    """A design value as text (``_value_text``; a number without a trailing ``.0``: ``2``, ``0.5``)."""
    text = _value_text(field, value)
    return f"{text:g}" if isinstance(text, float) else str(text)


def design_rows(plan) -> list[tuple[str, str | int | float, str]]:
    """(setting, value, JSON key) for every ``Design`` field, defaults included; ``auto`` says what was picked; a
    field the design's topology does not read (``core.fabric.families.reads``: a Dragonfly+ global ratio on a
    rail-optimized design) says so, after its value if it was set. Settings are named by each field's declaration
    (``core.design.FIELDS``)."""
    design = plan.design
    default = type(design)()
    rows = []
    for field, surface in FIELDS.items():
        value = getattr(design, field)
        if not reads(design.topology, field):
            shown_value = _("not used by this topology") if value == getattr(default, field) else _(
                "{value} (not used by this topology)").format(value=_setting_text(field, value))
        elif field == "gpus" and value is None and design.nodes is not None:
            shown_value = _("from nodes ({choice})").format(choice=f"{plan.resolved.gpus:,}")
        elif field == "nodes" and value is None:
            shown_value = _("from GPUs ({choice})").format(choice=f"{plan.resolved.nodes:,}")
        elif field == "grow_to" and value is None:
            shown_value = _("no growth")
        elif value is None or value == "auto":
            picked = _planned(plan, field)
            if picked is not None:
                picked = _value_text(field, picked)
            shown_value = _("auto ({choice})").format(choice=picked) if picked is not None else _("auto")
        else:
            shown_value = _value_text(field, value)
        rows.append((surface.title(), shown_value, field))
    return rows


def _design_sheet(ws, plan) -> None:
    _header(ws, 1, [_("setting"), _("value"), _("JSON key")])
    for r, (label, value, field) in enumerate(design_rows(plan), start=2):
        ws.cell(row=r, column=1, value=label).alignment = TOP
        cell = _cell(ws, r, 2, value)
        cell.alignment = Alignment(horizontal="left", vertical="top", wrap_text=True)
        if isinstance(value, float):
            cell.number_format = "0.###"
        ws.cell(row=r, column=3, value=field).font = Font(color="6B7280")
    ws.column_dimensions["A"].width = 36
    ws.column_dimensions["B"].width = 44
    ws.column_dimensions["C"].width = 26
    ws.freeze_panes = "A2"


def _bandwidth_row(label: str, gbits: float, unit: str) -> tuple[str, float, str, str]:
    """A bandwidth row of the Summary in ``unit`` ("GB/s" or "Gb/s") with its own prefix, as on the cards."""
    divisor, unit_label = units.scale(gbits, unit)
    return label, round(gbits / divisor, 3), unit_label, "#,##0.0##"


def _per_pod_row(label: str, pods: list | None, gbits: float, value: float, unit: str) -> tuple:
    """A per-GPU bandwidth row: ``value`` [Gb/s] as a number (``_bandwidth_row``); a design whose pods differ gives
    every pod's as the cards do (``per_pod_value``: ``50 GB/s / 100 GB/s``, each ``pods`` value times ``gbits``)."""
    if pods and len(set(pods)) > 1:
        return label, per_pod_value(pods, gbits, value, unit), "", None
    return _bandwidth_row(label, value, unit)


def _switch_rows(plan, s: dict) -> list[tuple]:
    """The switch rows: one per tier the family has a card for (``switch_cards``: a torus none), its model when it
    has switches; a second NVLink level's switch units, which the total holds; the total, with the family's tier
    words when it has no switch tier (``node to node, no switches``)."""
    sw, cards = s["switches"], switch_cards(s.get("topology"))
    rows = [(label, sw[t], s["switch_models"].get(t, s["switch_model"]) if sw[t] else "", WHOLE) for t, label in cards]
    if sw.get("nvlink_level2"):
        rows.append((_(LEVEL2_SWITCHES_LABEL), sw["nvlink_level2"], "", WHOLE))
    total = _("Switches in total ({fabric})").format(fabric=vocab.compute_fabric(level2=bool(sw.get("nvlink_level2"))))
    return rows + [(total, sw["total"], "" if cards else tier_words(plan.fabric), WHOLE)]


def key_number_rows(plan, unit: str = "GB/s") -> list[tuple[str, float | int | str, str, str | None]]:
    """(label, value, unit, cell format) of the Summary's key numbers; values are numbers where they can be;
    bandwidth in ``unit`` ("GB/s" or "Gb/s", the user's ``ui_bw``). A design with pods (``plan`` its whole plan)
    says every pod's speeds as the cards and the plan command do."""
    from core.analysis.whole import design_models

    s = plan.summary()
    links, xcvr, bw, cost, power = s["links"], s["transceivers"], s["bandwidth"], s["cost"], s["power"]
    fabric = vocab.fabric_label(s["fabric"], plan.resolved.nic.transport)
    speed = design_models(plan.design).get("speed", s["port_speed_gbps"])
    rows = [
        (_("GPUs"), s["gpus"], "", WHOLE),
        (_("Nodes"), s["nodes"], "", WHOLE),
        (_("GPU model"), s["gpu_model"], "", None),
        (_("Fabric"), f"{fabric} {speed}G", "", None),
        (_("Topology"), vocab.TOPOLOGY.label(s["topology"]), "", None),
        (_("Tiers"), s["tiers"], "", WHOLE),
        (_("Planes"), s["planes"], "", WHOLE),
        *_switch_rows(plan, s),
        (_("Links"), sum(links.values()), "", WHOLE),
        (_("Transceivers"), xcvr["switch_side"] + xcvr["node_side"], "", WHOLE),
        _per_pod_row(_("{link} per GPU (both directions)").format(link=scaleup.link_word(plan.resolved.system)),
                     bw.get("nvlink_gbytes_per_gpu_bidir_pods"), 8, units.from_gbytes(bw["nvlink_gbytes_per_gpu_bidir"]),
                     unit),
        _per_pod_row(vocab.injection("row"), bw.get("scaleout_gbits_per_gpu_pods"), 1,
                     bw["scaleout_gbits_per_gpu"], unit),
        _bandwidth_row(_("Bisection bandwidth (one direction)"), units.from_tbits(bw["bisection_tbits_one_direction"]),
                       unit),
        (_("Bisection ratio (1:1 = non-blocking)"), units.ratio(bw['oversubscription']), "", None),
        (_("Price basis"), vocab.PRICE_BASES.label(cost["price_basis"]), "", None),
        (_(CAPEX), cost["capex_usd"], "USD", USD),  # the capex card's label
        (_("Capex, low end of the price ranges"), cost["capex_usd_low"], "USD", USD),
        (_("Capex, high end of the price ranges"), cost["capex_usd_high"], "USD", USD),
        *([(_("Spares (in the capex above, no power)"), cost["spares_capex_usd"], "USD", USD)]
          if cost.get("spares", "off") != "off" else []),
        (_(vocab.CAPEX_PER_GPU), cost["capex_per_gpu_usd"], "USD", USD),  # as Compare's row, its unit in a column
        (fabric_capex_words(cost)[0], cost["network_capex_usd"], "USD", USD),
        *([(_("of which NVLink level 2"), cost["scaleup_capex_usd"], "USD", USD)]
          if cost.get("scaleup_capex_usd") else []),
        (fabric_share_words(cost)[0], cost["network_share"], "", PERCENT),
        (_("IT power"), power["it_kw"], "kW", units.EXCEL_KW),
        (_("Network power"), power["network_kw"], "kW", units.EXCEL_KW),
        (_("Facility power (PUE {pue})").format(pue=f"{power['pue']:g}"), power["facility_kw"], "kW", units.EXCEL_KW),
        (_("Energy per year"), cost["energy_usd_per_year"], "USD", USD),
        (_("TCO ({years} years)").format(years=f"{cost['tco_years']:g}"), cost["tco_usd"], "USD", USD),
        (_("Compute racks"), plan.cost.racks_compute, "", WHOLE),
    ]
    racks = s.get("racks")
    if isinstance(racks, dict) and racks.get("total") is not None:
        rows.append((_("Racks in total"), racks["total"], "", WHOLE))
    return rows


def category_totals(plan) -> list[tuple[str, int, float, float, float, float]]:
    """(category, quantity, capex [USD] at the basis, low, high, power [W]) per BOM category, catalog order."""
    totals: dict[str, list[float]] = {}
    for row in plan.bom:
        t = totals.setdefault(row.category, [0, 0.0, 0.0, 0.0, 0.0])
        t[0] += row.quantity
        t[1] += row.extended_price_usd
        t[2] += row.quantity * row.low_usd
        t[3] += row.quantity * row.high_usd
        t[4] += row.extended_power_w
    order = [c for c in CATEGORY_LABELS if c in totals] + [c for c in totals if c not in CATEGORY_LABELS]
    return [(category, int(totals[category][0]), *totals[category][1:]) for category in order]


def _summary_sheet(ws, plan, *, name: str, share_link: str | None, when: datetime,
                   bandwidth_unit: str = "GB/s") -> None:
    _cell(ws, 1, 1, name).font = TITLE
    ws.cell(row=2, column=1, value=_("Date")).font = BOLD
    ws.cell(row=2, column=2, value=when.strftime("%Y-%m-%d %H:%M UTC"))
    ws.cell(row=3, column=1, value=_("Share link")).font = BOLD
    if share_link:
        cell = _cell(ws, 3, 2, share_link)
        if share_link.startswith(("http://", "https://")):
            cell.hyperlink = share_link
            cell.font = Font(color="1D4ED8", underline="single")
    else:
        ws.cell(row=3, column=2, value="-")
    ws.cell(row=4, column=1, value=_("Prices")).font = BOLD
    ws.cell(row=4, column=2, value=_("catalog estimates at {basis} prices; ranges below (sources on the Catalog "
                                     "& assumptions page)").format(basis=vocab.PRICE_BASES.label(plan.cost.price_basis)))
    ws.cell(row=5, column=1, value=_("Currency")).font = BOLD
    ws.cell(row=5, column=2, value=money_note())

    row = 6
    ws.cell(row=row, column=1, value=_("Key numbers")).font = TITLE
    row += 1
    _header(ws, row, [_("metric"), _("value"), _("unit or model")])
    for label, value, unit, fmt in key_number_rows(plan, bandwidth_unit):
        row += 1
        ws.cell(row=row, column=1, value=label)
        cell = ws.cell(row=row, column=2, value=value)
        cell.alignment = Alignment(horizontal="right")
        if fmt:
            cell.number_format = number_format(fmt)
        ws.cell(row=row, column=3, value=in_currency(unit))

    row += 2
    ws.cell(row=row, column=1, value=_("Totals by category")).font = TITLE
    row += 1
    _header(ws, row, [_("category"), _("qty"), _("capex USD"), _("capex USD (low)"), _("capex USD (high)"),
                      _("power W")])
    for category, quantity, usd, low, high, watts in category_totals(plan):
        row += 1
        ws.cell(row=row, column=1, value=category_label(category))
        for col, (value, fmt) in enumerate(((quantity, WHOLE), (usd, USD), (low, USD), (high, USD),
                                            (watts, WATTS)), start=2):
            ws.cell(row=row, column=col, value=value).number_format = number_format(fmt)
    row += 1
    cost = plan.cost
    ws.cell(row=row, column=1, value=_("Total")).font = BOLD
    for col, (value, fmt) in enumerate(((sum(r.quantity for r in plan.bom), WHOLE), (cost.capex_usd, USD),
                                        (cost.capex_usd_low, USD), (cost.capex_usd_high, USD),
                                        (cost.it_kw * 1000.0, WATTS)), start=2):
        cell = ws.cell(row=row, column=col, value=value)
        cell.number_format = number_format(fmt)
        cell.font = BOLD
        cell.fill = TOTAL_FILL

    networks = plan.summary().get("networks")
    if isinstance(networks, dict) and networks:
        row += 2
        ws.cell(row=row, column=1, value=_("Networks")).font = TITLE
        row += 1
        _header(ws, row, [_("network"), _("switches"), _("links"), _("transceivers"), _("capex USD"), _("power kW")])
        for network, numbers in networks.items():
            if not isinstance(numbers, dict):
                continue
            row += 1
            ws.cell(row=row, column=1, value=network_name(network, "bill"))  # the Designer's By network names
            for col, (key, fmt) in enumerate((("switches", WHOLE), ("links", WHOLE), ("transceivers", WHOLE),
                                              ("capex_usd", USD), ("power_kw", "#,##0.0")), start=2):
                value = numbers.get(key)
                if isinstance(value, dict):
                    value = sum(v for v in value.values() if isinstance(v, (int, float)))
                ws.cell(row=row, column=col, value=value).number_format = number_format(fmt)
        if networks_note(plan):  # what the compute row counts that the Links and Transceivers rows above do not
            row += 1
            ws.cell(row=row, column=1, value=networks_note(plan))

    for col, width in zip("ABCDEF", (42, 22, 22, 18, 18, 16)):
        ws.column_dimensions[col].width = width


def _network_sheet(ws, plan, network: str, sizing) -> None:
    """One other network: its bill rows as the BOM sheet writes them (``bom_table``: the item and where it sits
    apart, the price ranges) with their totals, then its sizing as the review pack shows it
    (``core.formats.networkwords``: the headline, the switches, devices and links, how it was sized). On a cloud
    instance's adapters (``Nic.transport``) the networks are the provider's: no bill rows, the sizing only."""
    ws.cell(row=1, column=1, value=network_name(network).capitalize()).font = TITLE
    table = bom_table(plan, ranges=True)
    frame = table[[getattr(r, "network", "compute") == network for r in plan.bom]].drop(columns="network",
                                                                                          errors="ignore")
    row = _bom_sheet(ws, frame, None, start=3) + 2 if len(frame) else 3
    ws.cell(row=row, column=1, value=_("Sizing")).font = BOLD
    ws.cell(row=row + 1, column=1, value=sizing_headline(network, sizing))
    row += 3
    for sizing_table in sizing_tables(sizing):
        _header(ws, row, sizing_table.headers)
        for r, values in enumerate(sizing_table.rows, start=row + 1):
            for c, (value, kind) in enumerate(zip(values, sizing_table.kinds), start=1):
                cell = _cell(ws, r, c, value)
                cell.number_format = WHOLE if kind == "count" else cell.number_format
                cell.alignment = WRAP if kind == "why" else TOP
        row += len(sizing_table.rows) + 2
    for r, sentence in enumerate(sizing_explanation(sizing), start=row):
        _cell(ws, r, 1, sentence)


def _growth_sheet(book: Workbook, plan) -> None:
    """The growth stages (``core.analysis.stages.stage_rows``, the Racks & cabling tab's rows) when the design has
    ``stages`` or ``grow_to`` beyond its nodes: counts as whole numbers, the capex added as money [USD], the
    columns' scope under the rows (``STAGES_SCOPE``); a design whose stages cannot be planned gets the reason in one
    cell."""
    from core.analysis.stages import STAGE_COLUMNS, STAGES_SCOPE, growth, has_stages, stage_headers, stage_rows
    from core.errors import FabricPlannerError

    if not has_stages(plan.design, plan.resolved.nodes):
        return
    ws = book.create_sheet(sheet_name(_(SHEET_NAMES["growth"])))
    try:
        rows = stage_rows(growth(plan.design))
    except FabricPlannerError as exc:
        _cell(ws, 1, 1, str(exc))
        return
    formats = {"count": WHOLE, "usd": USD}
    _header(ws, 1, list(stage_headers().values()))
    for r, row in enumerate(rows, start=2):
        for c, (column, value) in enumerate(row.items(), start=1):
            cell = _cell(ws, r, c, value)
            kind = STAGE_COLUMNS[column][1]
            if kind in formats:
                cell.number_format = number_format(formats[kind])
            cell.alignment = TOP
    _cell(ws, len(rows) + 3, 1, _(STAGES_SCOPE))
    for c, column in enumerate(STAGE_COLUMNS, start=1):
        ws.column_dimensions[get_column_letter(c)].width = 16 if column in ("step", "capex") else 13
    ws.freeze_panes = "A2"
    ws.row_dimensions[1].height = 30


def design_xlsx(plan, *, name: str | None = None, share_link: str | None = None,
                when: datetime | None = None, unit: str = "GB/s") -> bytes:
    """The review workbook of ``plan`` (see the module docstring) in the current language, as XLSX bytes;
    bandwidth in ``unit`` ("GB/s" or "Gb/s"), money in the language's format (``number_format``).

    ``name``: the design's name on the Summary (default ``design_slug(plan)``); ``share_link``: the link
    that restores the design; ``when``: the date written (default now, UTC).
    """
    book = Workbook()
    summary = book.active
    summary.title = sheet_name(_(SHEET_NAMES["summary"]))
    _summary_sheet(summary, plan, name=name or design_slug(plan), share_link=share_link,
                   when=(when or datetime.now(timezone.utc)).astimezone(timezone.utc), bandwidth_unit=unit)
    _bom_sheet(book.create_sheet(sheet_name(_(SHEET_NAMES["bom"]))), bom_table(plan, ranges=True), _bom_totals(plan))
    _design_sheet(book.create_sheet(sheet_name(_(SHEET_NAMES["design"]))), plan)
    _growth_sheet(book, plan)
    networks = getattr(plan, "networks", None)
    if networks is not None:
        for network in OTHER_NETWORKS:
            sizing = getattr(networks, network, None)
            if sizing is not None:
                _network_sheet(book.create_sheet(sheet_name(network_name(network).capitalize())), plan, network,
                               sizing)
    _convert_money(book)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _convert_money(book: Workbook) -> None:
    """Every money cell of ``book`` (number format ``number_format(USD)``), written in US dollars, as the amount in
    the session's currency (times ``core.i18n.fx_rate()``), which its number format names."""
    rate, money = fx_rate(), number_format(USD)
    if rate == 1.0:
        return
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                if cell.number_format == money and isinstance(cell.value, (int, float)) and not isinstance(
                        cell.value, bool):
                    cell.value = cell.value * rate
