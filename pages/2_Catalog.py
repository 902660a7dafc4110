"""Catalog & assumptions: every catalog table with sources and dates, the engine's formulas, the price basis."""

import inspect

import pandas as pd
import streamlit as st

from core import cost
from core.fabric import bandwidth, sizing, topology
from core.figures import scaleup
from core.figures import topology as topology_figures
from core.catalog import load_catalog
from webui import state

cur: state.Current = st.session_state["fp_current"]
st.title("Catalog & assumptions")
state.show_warnings(cur)
st.markdown(
    "Every number the Designer shows comes from these tables and formulas. Each entry names its **source** "
    "and the date it was checked (**as_of**); each price names its **basis** and its own source."
)

catalog = load_catalog()


@st.cache_resource(show_spinner=False)
def tables() -> dict[str, pd.DataFrame]:
    out = {}
    for kind in ("systems", "nics", "switches", "transceivers", "cables", "nvlink"):
        rows = []
        for entry in getattr(catalog, kind):
            row = entry.model_dump(mode="json")
            if "port_modes" in row:
                row["port_modes"] = ", ".join(f"{m['ports']}x{m['speed_gbps']}G" for m in row["port_modes"])
            for k, v in list(row.items()):
                if isinstance(v, (list, tuple)):
                    row[k] = ", ".join(map(str, v))
            rows.append(row)
        frame = pd.DataFrame(rows)
        first = [c for c in ("id", "generation", "name", "architecture") if c in frame]
        last = [c for c in ("price_basis", "price_source", "power_source", "source", "as_of", "notes") if c in frame]
        out[kind] = frame[first + [c for c in frame if c not in first + last] + last]
    return out


st.markdown("#### Price basis")
basis = pd.Series([e.price_basis for _, e in catalog.all_entries()]).value_counts()
st.markdown(
    "- **list**: the vendor's published list price.\n"
    "- **street**: a reseller or reported purchase price.\n"
    "- **estimate**: no public price found; the figure is an assumption explained in `price_source`.\n\n"
    "In this catalog: " + ", ".join(f"{n} {b}" for b, n in basis.items()) + ". "
    "Prices are in USD per unit and are **estimates unless the basis says list**. Override any of them in the "
    "Designer's *Advanced* section (catalog id:USD); overridden rows show basis `override` in the BOM."
)

labels = {"systems": "GPU systems", "nics": "NICs", "switches": "Switches", "transceivers": "Transceivers",
          "cables": "Cables", "nvlink": "NVLink generations"}
for tab, (kind, frame) in zip(st.tabs(list(labels.values())), tables().items()):
    with tab:
        st.caption(f"{len(frame)} entries from assets/catalog; units as in the column names "
                   "(GB/s bytes for NVLink, Gb/s bits per direction for ports, W, USD, m).")
        st.dataframe(frame, hide_index=True, width="stretch", height=min(36 * (len(frame) + 1) + 4, 720),
                     column_config={c: st.column_config.TextColumn(c, width="large")
                                    for c in ("source", "price_source", "power_source", "notes") if c in frame})

st.markdown("#### Formulas the engine uses")
st.caption("Shown from the engine's own documentation (core/), so this page cannot drift from the code.")
sections = [
    ("Fabric sizing (core/fabric/sizing.py)", [sizing, sizing.down_up_split, sizing.max_nodes, sizing.size_fabric]),
    ("Bandwidth (core/fabric/bandwidth.py)", [bandwidth, bandwidth.tier_capacities_gbits, bandwidth.bisection_gbits,
                                       bandwidth.Bandwidth]),
    ("Bill of materials, cost and power (core/cost.py)", [cost, cost.build_bom, cost.summarize_cost]),
    ("Diagram (core/fabric/topology.py, core/figures/)", [topology, topology_figures, scaleup.scaleup_figure]),
]
for title, objects in sections:
    with st.expander(title):
        for obj in objects:
            doc = inspect.getdoc(obj) or ""
            name = getattr(obj, "__name__", "")
            if inspect.ismodule(obj):
                st.markdown(doc)
            else:
                st.markdown(f"**`{name}`**")
                st.code(doc, language=None)
        if title.startswith("Bandwidth"):
            st.markdown("Per-field definitions of `Bandwidth`:")
            st.code("\n".join(f"{k}: {(v.description or '')}" for k, v in bandwidth.Bandwidth.model_fields.items()
                              ), language=None)
        if title.startswith("Bill"):
            st.markdown("Typical run lengths by link class used to pick media with enough reach [m]: "
                        + ", ".join(f"{k} {v:g}" for k, v in cost.LINK_DISTANCE_M.items()))
