"""Catalog & assumptions: every catalog table with sources and dates, the engine's formulas, the price basis,
the glossary."""

import inspect
import math

import pandas as pd
import streamlit as st

from core import vocab
from core import cost, hostlink, i18n
from core.catalog import PRICE_BASIS_MEANINGS, VENDOR_LABELS, load_catalog
from core.fabric import bandwidth, domainlevels, sizing, topology
from core.figures import scaleup
from core.figures import topology as topology_figures
from core.i18n import N_, _
from core.perf import training_calibration
from core.units import percent
from webui import state, tablefit
from webui import tables as tables_fmt

# NB: a bare string at the top level of a page is shown by Streamlit ("magic"): comments only here
CITATIONS = ("source", "price_source", "power_source")  # columns quoted as published (never translated)
LONG_TEXT = (*CITATIONS, "notes")


# catalog field -> its column header in other languages (English shows the field name itself, as
# assets/catalog and the CLI write it)
COLUMN_LABELS = {
    "id": N_("catalog id"),
    "aliases": N_("aliases"),
    "name": N_("name"),
    "source": N_("source"),
    "as_of": N_("checked on"),
    "notes": N_("notes"),
    "gpu_name": N_("GPU name"),
    "architecture": N_("architecture"),
    "scaleup_kind": N_("scale-up kind"),
    "scaleup_name": N_("scale-up technology"),
    "scaleup_switch_racks": N_("scale-up switch racks per domain"),
    "nvlink_generation": N_("NVLink generation"),
    "nvlink_links_per_gpu": N_("NVLink links per GPU"),
    "nvlink_gbytes_per_gpu_bidir": N_("NVLink per GPU, both directions [GB/s]"),
    "nvswitch_chips_per_domain": N_("NVSwitch chips per domain"),
    "nvswitch_generation": N_("NVSwitch generation"),
    "gpus_per_node": N_("GPUs per node"),
    "nvlink_domain_gpus": N_("GPUs per NVLink domain"),
    "hbm_gbytes": N_("HBM [GB]"),
    "hbm_tbytes_per_s": N_("HBM bandwidth [TB/s]"),
    "dense_bf16_tflops": N_("dense BF16 [TFLOP/s]"),
    "gpu_power_w": N_("GPU power [W]"),
    "node_power_w": N_("node power [W]"),
    "node_price_usd": N_("node price [USD]"),
    "node_price_low_usd": N_("lowest node price [USD]"),
    "node_price_high_usd": N_("highest node price [USD]"),
    "price_low_usd": N_("lowest unit price [USD]"),
    "price_high_usd": N_("highest unit price [USD]"),
    "price_basis": N_("price basis"),
    "price_source": N_("price source"),
    "power_source": N_("power source"),
    "node_rack_units": N_("node height [U]"),
    "nodes_per_rack": N_("nodes per rack"),
    "default_fabric": N_("default fabric"),
    "default_nic": N_("default NIC"),
    "default_nics_per_node": N_("default NICs per node"),
    "default_port_speed_gbps": N_("default port speed [Gb/s]"),
    "node_ports_per_transceiver": N_("node ports per transceiver"),
    "price_usd": N_("unit price [USD]"),
    "power_w": N_("power [W]"),
    "fabrics": N_("fabrics"),
    "port_speeds_gbps": N_("port speeds [Gb/s]"),
    "ethernet_port_speeds_gbps": N_("Ethernet port speeds [Gb/s]"),
    "ports": N_("ports"),
    "cage_type": N_("cage type"),
    "split_ports": N_("split ports"),
    "host_interface": N_("host interface"),
    "pcie_gen": N_("PCIe generation"),
    "pcie_lanes": N_("most PCIe lanes"),
    "nic_pcie_gen": N_("PCIe generation to each NIC"),
    "nic_pcie_lanes": N_("PCIe lanes to each NIC"),
    "nic_pcie_source": N_("NIC link source"),
    "nic_pcie_as_of": N_("NIC link checked"),
    "fabric": N_("fabric type"),
    "generation": N_("generation"),
    "asic": N_("switch chip"),
    "role": N_("role"),
    "port_modes": N_("port modes"),
    "cages": N_("cages"),
    "capacity_tbps": N_("switching capacity [Tb/s]"),
    "rack_units": N_("height [U]"),
    "form_factor": N_("form factor"),
    "logical_ports": N_("logical ports"),
    "port_speed_gbps": N_("port speed [Gb/s]"),
    "media": N_("media"),
    "connector": N_("connector"),
    "reach_m": N_("reach [m]"),
    "end": N_("fitted at"),
    "kind": N_("cable kind"),
    "speed_gbps": N_("speed [Gb/s]"),
    "link_gbytes_per_direction": N_("per link, one direction [GB/s]"),
    "max_links_per_gpu": N_("most links per GPU"),
    "gpu_gbytes_bidir": N_("per GPU, both directions [GB/s]"),
    "vendor": N_("maker"),
    "ultra_ethernet": N_("Ultra Ethernet (UEC)"),
    "default_grid": N_("in the optimizer's default grid"),
    "collective_library": N_("collective library"),
}
# catalog key values (fabric, media, module end, cable kind, switch role) in other languages (English shows
# the value as the catalog writes it); connectors (lc, mpo) keep their names
VALUE_LABELS = {
    "infiniband": "InfiniBand", "ethernet": N_("Ethernet"), "copper": N_("copper"),
    "aoc": N_("active optical cable (AOC)"), "smf": N_("single-mode fibre (SMF)"),
    "mmf": N_("multi-mode fibre (MMF)"), "acc": N_("active copper cable (ACC)"),
    "dac": N_("direct-attach copper (DAC)"), "fiber": N_("fibre"), "integrated": N_("built into the cable"),
    "any": N_("either end"), "node": N_("node end"), "switch": N_("switch end"),
    "fabric": N_("compute fabric"), "management": N_("management network"),
}


def column_labels() -> dict[str, str]:
    """Catalog field -> its column header in the current language."""
    if i18n.current() == i18n.DEFAULT_LANGUAGE:
        return {}
    return {field: _(label) for field, label in COLUMN_LABELS.items()}


def value_labels() -> dict[str, str]:
    """Catalog key value -> its name in the current language."""
    if i18n.current() == i18n.DEFAULT_LANGUAGE:
        return {}
    return {value: _(label) for value, label in {**VALUE_LABELS, **VENDOR_LABELS}.items()}


KEY_COLUMNS = ("fabrics", "default_fabric", "fabric", "media", "connector", "end", "kind", "role", "vendor")  # value_labels
KINDS = ("systems", "nics", "switches", "transceivers", "cables", "nvlink")
TAB_LABELS = {"systems": N_("GPU systems"), "nics": N_("NICs"), "switches": N_("Switches"),
              "transceivers": N_("Transceivers"), "cables": N_("Cables"), "nvlink": N_("NVLink generations"),
              "appliances": N_("Appliances")}  # price book rows only (networks.toml)
IN_RACK = N_("in-rack")


def series(items: list[str]) -> str:
    """A list of counts in running text: ``9 estimate, 2 street`` / ``估算 9 项、市场价 2 项``."""
    return ("、" if i18n.current() == "zh" else ", ").join(items)


@st.cache_resource(show_spinner=False)
def tables(language: str) -> dict[str, pd.DataFrame]:
    """Every catalog table as shown, in ``language`` (notes, price basis and key values translated; the column
    ids stay: the page labels them)."""
    catalog = load_catalog()
    out = {}
    with i18n.language(language):
        values = value_labels()
        for kind in KINDS:
            rows = []
            for entry in getattr(catalog, kind):
                row = entry.model_dump(mode="json")
                if "port_modes" in row:
                    row["port_modes"] = ", ".join(f"{m['ports']}x{m['speed_gbps']}G" for m in row["port_modes"])
                for k, v in list(row.items()):
                    if k in KEY_COLUMNS:
                        v = [values.get(x, x) for x in v] if isinstance(v, (list, tuple)) else values.get(v, v)
                    if isinstance(v, (list, tuple)):
                        v = ", ".join(map(str, v))
                    row[k] = v
                if row.get("price_basis"):
                    row["price_basis"] = vocab.PRICE_BASES.label(row["price_basis"])
                if row.get("notes"):
                    row["notes"] = _(row["notes"])  # the catalog's notes are in the translation catalog
                rows.append(row)
            frame = pd.DataFrame(rows)
            first = [c for c in ("id", "generation", "name", "architecture") if c in frame]
            last = [c for c in ("price_basis", "price_source", "power_source", "source", "as_of", "notes")
                    if c in frame]
            out[kind] = frame[first + [c for c in frame if c not in first + last] + last]
    return out


PRICE_BOOK_COLUMNS = {"kind": N_("kind"), "id": N_("catalog id"), "name": N_("name"),
                      "low_usd": N_("low [USD]"), "typical_usd": N_("typical [USD]"), "high_usd": N_("high [USD]"),
                      "price_basis": N_("price basis"), "price_source": N_("price source")}


@st.cache_resource(show_spinner=False)
def price_book(language: str) -> pd.DataFrame:
    """Every catalog price as its low / typical / high range with its basis and sources, in ``language``
    (kinds and bases translated, sources quoted as published), widest range first within each kind."""
    with i18n.language(language):
        rows = []
        for kind, entry in domainlevels.bill_entries():  # the second NVLink level's parts too
            low, typical, high = ((entry.node_price_low_usd, entry.node_price_usd, entry.node_price_high_usd)
                                  if kind == "systems" else (entry.price_low_usd, entry.price_usd, entry.price_high_usd))
            rows.append({"kind": _(TAB_LABELS[kind]), "id": entry.id, "name": entry.name, "low_usd": low,
                         "typical_usd": typical, "high_usd": high, "price_basis": vocab.PRICE_BASES.label(entry.price_basis),
                         "price_source": entry.price_source})
    return pd.DataFrame(rows, columns=list(PRICE_BOOK_COLUMNS))


@st.cache_resource(show_spinner=False)
def calibration_results() -> list:
    """Every published training run, estimated now by the engine (``core.perf.training_calibration``; about a
    second, once per server process: its plans are cached)."""
    return training_calibration.evaluate_all()


def calibration_section(lang: str) -> None:
    """The training estimate against every published run: which set a constant, which are held out, the error."""
    results = calibration_results()
    within, held, fit = training_calibration.held_out_summary(results)
    st.markdown("#### " + _("Training estimate: calibration against published runs"))
    st.markdown(_(
        "The training estimate (Performance page, `train` command) is run now on every published training run it "
        "is checked against: {fit} runs set a constant of the compute model, {held} are held out and set nothing. "
        "Held-out runs within {target}: {within} of {held}; each miss says why. Error = estimated / published "
        "throughput - 1 (positive: the estimate is faster).").format(
        fit=fit, held=held, within=within, target=percent(training_calibration.HELD_OUT_TARGET)))
    with i18n.language(lang):
        rows = training_calibration.calibration_rows(results)
    headers = {c: _(label) for c, label in training_calibration.CALIBRATION_COLUMNS.items()}
    frame = pd.DataFrame(rows, columns=list(headers)).rename(columns=headers)
    st.dataframe(frame, hide_index=True, width="stretch", height=420, column_config={
        headers["run"]: st.column_config.TextColumn(  # every run whole: at 250 px the system was cut off
            headers["run"], width=tables_fmt.fitting_width(frame[headers["run"]], headers["run"], math.inf), pinned=True),
        headers["moe"]: st.column_config.CheckboxColumn(headers["moe"]),
        **{headers[c]: st.column_config.TextColumn(headers[c], width="large") for c in ("note", "source")}})
    st.caption(_("Sources are quoted as published; the constants and the reasons for misses are quoted as "
                 "the catalog of training runs writes them. The same table, with the published runs not "
                 "expressible yet: docs/training-calibration.md."))


def glossary_table() -> pd.DataFrame:
    """The field's terms (``core.i18n.glossary``), the definition in the current language."""
    zh = i18n.current() == "zh"
    return pd.DataFrame([
        {_("English term"): t["en"], _("Chinese"): t["zh"], _("other names"): t["zh_alt"],
         _("definition"): t["zh_definition"] if zh else t["en_definition"], _("source"): t["source"]}
        for t in i18n.glossary()])


# formula sections: id, title, a summary shown in languages other than English (the docstrings are English),
# and the code objects whose documentation is shown
SECTIONS = [
    ("sizing", N_("Fabric sizing (core/fabric/sizing.py)"),
     N_("The fabric is a folded Clos network (leaf and spine switches, plus core switches in three tiers), sized "
        "per plane in closed form. A leaf splits its k ports into down and up ports for the oversubscription o: "
        "down = floor(k·o / (o + 1)), up = ceil(down / o). A rail-optimized scalable unit holds as many nodes as a "
        "leaf has down ports, one leaf per rail; a top-of-rack group is the nodes of one leaf. Every leaf spreads "
        "its uplinks evenly over the spines it connects to, every spine over its core group, and no switch uses "
        "more ports than it has. One tier serves k / (NICs per node) nodes; two tiers serve (k / leaves per group) "
        "× nodes per group; three tiers serve k × groups per pod × nodes per group. Among the balanced choices the "
        "fewest tiers win, then the fewest switches."),
     [sizing, sizing.down_up_split, sizing.max_nodes, sizing.size_fabric]),
    ("bandwidth", N_("Bandwidth (core/fabric/bandwidth.py)"),
     N_("NVLink is counted in GB/s (bytes), the network in Gb/s or Tb/s (bits), one direction unless a name says "
        "both. The capacity of each fabric stage (injection: all NIC ports; leaf uplinks; spine uplinks) is summed "
        "over all planes, an uplink counting only as far as its switch has traffic to fill it. The bisection "
        "bandwidth is half the smallest of these capacities (half the injection when every node reaches every "
        "other through one set of leaves); with a partial last scalable unit it is a conservative estimate, "
        "checked against a max-flow min-cut in the tests. The end-to-end oversubscription is half the injection "
        "divided by the bisection; the cross-fabric bandwidth per GPU is the scale-out bandwidth per GPU divided "
        "by it. Hops count the switches a path crosses."),
     [bandwidth, bandwidth.tier_capacities_gbits, bandwidth.bisection_gbits, bandwidth.Bandwidth, hostlink]),
    ("cost", N_("Bill of materials, cost and power (core/cost.py)"),
     N_("Every BOM row has a quantity, a unit price [USD] and a unit power [W] from the catalog (or your "
        "overrides) and says in words how the count was derived. Switch-side transceivers are counted per switch: "
        "ceil(ports used / ports per cage); node-side transceivers per node: ceil(NIC ports / ports per "
        "transceiver); one fibre cord per optical link. The cable media follow the link class: by default copper "
        "inside a rack, transceivers and fibre elsewhere. TCO = capex + years × IT power × PUE × 8,760 h × "
        "electricity price; staff, space, maintenance and financing are not included."),
     [cost, cost.build_bom, cost.summarize_cost]),
    ("diagram", N_("Diagram (core/fabric/topology.py, core/figures/)"),
     N_("The diagram draws plane 1 switch by switch while it stays within the drawing budget; larger designs are "
        "drawn aggregated by scalable unit, pod and rail, so the picture stays the same size at any cluster size. "
        "The scale-up view shows one NVLink domain: each GPU's L links are spread evenly over the C NVSwitch chips "
        "(L // C each, the first L % C chips one more); systems without NVSwitch show direct GPU-to-GPU links."),
     [topology, topology_figures, scaleup.scaleup_figure]),
]


def main() -> None:
    cur: state.Current = st.session_state["fp_current"]
    lang = i18n.current()
    english = lang == "en"
    st.title(_("Catalog & assumptions"))
    state.show_warnings(cur)
    st.markdown(_(
        "Every number the Designer shows comes from these tables and formulas. Each entry names its **source** "
        "and the date it was checked; each price names its **basis** and its own source."))

    st.markdown("#### " + _("Price basis"))
    basis = pd.Series([e.price_basis for _kind, e in domainlevels.bill_entries()]).value_counts()
    labels = {b: vocab.PRICE_BASES.label(b) for b in vocab.PRICE_BASES.ids}
    meaning = {b: _(text) for b, text in PRICE_BASIS_MEANINGS.items()}
    lines = [
        _("**{basis}**: {meaning}.").format(basis=labels["list"], meaning=meaning["list"]),
        _("**{basis}**: {meaning}.").format(basis=labels["street"], meaning=meaning["street"]),
        _("**{basis}**: {meaning} (real hyperscale contract prices are not public).").format(
            basis=labels["hyperscale"], meaning=meaning["hyperscale"]),
        _("**{estimate}**: no public price found; the figure is an assumption explained in its price source.").format(
            estimate=labels["estimate"]),
    ]
    counts = series([_("{count} {basis}").format(count=n, basis=vocab.PRICE_BASES.label(b)) for b, n in basis.items()])
    st.markdown(
        "- " + "\n- ".join(lines) + "\n\n"
        + _("In this catalog: {counts}. Prices are in USD per unit and are **estimates unless the basis says "
            "{list}**. Override any of them in the Designer's *{advanced}* section (catalog id:USD); overridden rows "
            "show basis `{override}` in the BOM.").format(counts=counts, list=labels["list"], advanced=_("Advanced"),
                                                        override=labels["override"])
    )

    headers = column_labels()
    for tab, (kind, frame) in zip(st.tabs([_(TAB_LABELS[k]) for k in KINDS]), tables(lang).items()):
        with tab:
            st.caption(_("{count} entries from the catalog; units as in the column names (GB/s bytes for scale-up "
                         "links, Gb/s bits per direction for ports, W, USD, m).").format(count=len(frame)))
            # headers for display only (English: the field names themselves)
            st.dataframe(frame.rename(columns=headers), hide_index=True, width="stretch",
                         height=min(36 * (len(frame) + 1) + 4, 720),
                         column_config={headers.get("id", "id"): st.column_config.TextColumn(  # GB300-NVL72 whole
                                            headers.get("id", "id"), width="medium", pinned=True),
                                        **{headers.get(c, c): st.column_config.TextColumn(headers.get(c, c), width="large")
                                           for c in LONG_TEXT if c in frame}})
    st.caption(_("Sources (of the entry, its price and its power), product names and specifications are quoted "
                 "as published."))

    st.markdown("#### " + _("Price book"))
    st.markdown(_(
        "Every price is a range: **low** is the lowest public price found (volume, white-box, hyperscale-class "
        "deals), **typical** the street price a cluster buyer is quoted, **high** the list price or the highest "
        "quote found. The Designer's *{advanced}* section sets the **price basis** of a design: {street} prices "
        "at typical, {list} at high and {hyperscale} at low; capex is always shown with the whole low-high range, "
        "and the Cost & power tab shows which five prices move it most. Ranges marked as a band in the price "
        "source are assumptions, not quotes.").format(advanced=_("Advanced"), street=labels["street"],
                                                       list=labels["list"], hyperscale=labels["hyperscale"]))
    book_headers = {} if english else {c: _(label) for c, label in PRICE_BOOK_COLUMNS.items()}
    prices = ("low_usd", "typical_usd", "high_usd")
    # the one money format (core.i18n.usd), as in the BOM; the header names the shown currency in every language
    book = tables_fmt.money(price_book(lang).rename(columns=book_headers), [book_headers.get(c, c) for c in prices])
    shown, config = tablefit.price_book_columns(book, lambda c: book_headers.get(c, c),
                                                {c: _(PRICE_BOOK_COLUMNS[c]) for c in prices})
    st.dataframe(book[shown], hide_index=True, width="stretch", height=420, column_config=config)

    calibration_section(lang)

    st.markdown("#### " + _("Glossary"))
    st.caption(_("The terms this app uses in English and Chinese, with the other names Chinese documents use and "
                 "where the Chinese term was checked (the source codes are explained below the table)."))
    # a static table (every row, long definitions wrapped), not one of the catalog's data frames
    st.table(glossary_table(), hide_index=True, alt=_("Glossary: the terms in English and Chinese"))
    st.caption(_("Glossary sources"))
    st.table(pd.DataFrame([{_("Code"): f"[{code}]", _("Source (quoted as published)"): text}
                           for code, text in i18n.glossary_sources().items()]), hide_index=True)

    st.markdown("#### " + _("Formulas the engine uses"))
    st.caption(_("Shown from the engine's own documentation (core/), so this page cannot drift from the code."))
    for section, title, summary, objects in SECTIONS:
        with st.expander(_(title)):
            if not english:  # the docstrings are English: a summary first, then the source text
                st.markdown(_(summary))
                st.caption(_("Below: the engine's source documentation, in English as written in the code."))
            for obj in objects:
                doc = inspect.getdoc(obj) or ""
                name = getattr(obj, "__name__", "")
                if english:
                    if inspect.ismodule(obj):
                        st.markdown(doc)
                    else:
                        st.markdown(f"**`{name}`**")
                        st.code(doc, language=None)
                else:  # quoted whole: the module or function name heads its (English) documentation
                    st.code(f"# {name}\n{doc}", language=None)
            if section == "bandwidth":
                st.markdown(_("Per-field definitions of `Bandwidth`:"))
                st.code("\n".join(f"{k}: {(v.description or '')}" for k, v in bandwidth.Bandwidth.model_fields.items()
                                  ), language=None)
            if section == "cost":
                links = {"in-rack": IN_RACK, **cost.LINK_CLASS_LABELS}
                lengths = series([f"{_(links.get(k, k))} {v:g}" for k, v in cost.LINK_DISTANCE_M.items()])
                st.markdown(_("Typical run lengths by link class used to pick media with enough reach [m]: "
                              "{lengths}").format(lengths=lengths))


main()
