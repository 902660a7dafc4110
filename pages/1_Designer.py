"""Designer: key numbers, topology, bandwidth, cost & power of the design in the sidebar."""

import functools

import streamlit as st

from core.figures.keynumbers import cards_html, cost_key_numbers, key_numbers, size_caption
from webui import cached, state

def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    cur: state.Current = st.session_state["fp_current"]
    unit = cur.unit

    st.title("Fabric planner")
    if cur.plan is not None:
        s = cur.plan.summary()
        st.caption(
            f"{size_caption(cur.plan)} · {state.FABRICS[s['fabric']]} "
            f"{s['port_speed_gbps']}G · {state.TOPOLOGIES[s['topology']].lower()} · {s['tiers']} tier(s) · "
            f"{s['planes']} plane(s) · switch {s['switch_model']} · NIC {s['nic_model']} · prices are estimates"
        )
    state.show_warnings(cur)
    if cur.plan is None:
        state.show_error(cur)
        return

    plan = cur.plan
    key = cur.design.model_dump_json()
    for note in plan.resolved.notes:  # e.g. nodes rounded up to whole NVL72 racks
        st.info(note)

    # --- key numbers ---------------------------------------------------------------------------------
    numbers = key_numbers(plan.summary(), unit)
    st.markdown(cards_html(numbers), unsafe_allow_html=True)  # escaped in core; shows before the charts load

    tabs = st.tabs(["Topology", "Bandwidth", "Cost & power"], key=state.TAB_KEY, bind="query-params")

    # --- topology ---------------------------------------------------------------------------------
    with tabs[0]:
        if tabs[0].open:
            sel_key = "_fp_selected"
            selected = st.session_state.get(sel_key)
            if selected and selected[0] != key:
                selected = None
            left, right = st.columns([3, 2], gap="medium")
            with left:
                fig, aggregated, elements = cached.topology(key, selected[1] if selected else None, unit)
                st.plotly_chart(
                    fig, key="topology_chart", on_select=functools.partial(cached.on_topology_select, key),
                    selection_mode=("points",), config={"displaylogo": False, "scrollZoom": True},
                )
                hint = "Click a switch to highlight its links; click a legend entry to hide or show a tier."
                if selected:
                    c1, c2 = st.columns([4, 1])
                    c1.caption(f"Highlighted: **{selected[2]}**. {hint}")
                    c2.button("Clear highlight", on_click=lambda: st.session_state.pop(sel_key, None))
                else:
                    st.caption(hint + f" {elements:,} drawn elements" + (" (aggregated)" if aggregated else "") + ".")
            with right:
                st.plotly_chart(cached.scaleup(key, unit), key="scaleup_chart", config={"displaylogo": False})
            with st.expander("How the fabric was sized", expanded=False):
                for line in plan.fabric.explanation:
                    st.markdown(f"- {line}")
                st.dataframe(cached.switch_groups(key), hide_index=True, width="stretch")

    # --- bandwidth --------------------------------------------------------------------------------
    with tabs[1]:
        if tabs[1].open:
            c1, c2 = st.columns(2)
            c1.plotly_chart(cached.bandwidth_hierarchy(key, unit), key="bw_hierarchy", config={"displaylogo": False})
            c2.plotly_chart(cached.tier_capacity(key, unit), key="bw_tiers", config={"displaylogo": False})
            st.plotly_chart(cached.oversubscription(key, unit), key="bw_oversub", config={"displaylogo": False})
            bw = plan.bandwidth
            st.markdown(
                f"**Oversubscription** leaf {bw.leaf_oversubscription:g}:1, spine {bw.spine_oversubscription:g}:1, "
                f"end to end {bw.oversubscription:.3g}:1 · **hops** (switches crossed) same rail "
                f"{bw.hops_same_rail}, cross rail {bw.hops_cross_rail}, cross pod {bw.hops_cross_pod} · "
                f"**NVLink : scale-out** {bw.scaleup_to_scaleout_ratio:.3g} : 1 per GPU (one direction, bits)"
            )
            st.dataframe(cached.sweep_table(key, unit), hide_index=True, width="stretch")

    # --- cost & power -----------------------------------------------------------------------------
    with tabs[2]:
        if tabs[2].open:
            c1, c2 = st.columns(2)
            c1.plotly_chart(cached.capex(key), key="capex_chart", config={"displaylogo": False})
            c2.plotly_chart(cached.power(key), key="power_chart", config={"displaylogo": False})
            st.markdown(cards_html(cost_key_numbers(plan)), unsafe_allow_html=True)
            st.markdown("#### Bill of materials")
            st.dataframe(
                cached.bom_table(key), hide_index=True, width="stretch",
                column_config={
                    "category": st.column_config.TextColumn("category", width="small"),
                    "item": st.column_config.TextColumn("item", width="large"),
                    "where": st.column_config.TextColumn(
                        "where", help="Switch role, or the link end and link class a transceiver or cable serves"),
                    "quantity": st.column_config.NumberColumn("qty", format="localized"),
                    "unit_price_usd": st.column_config.NumberColumn("unit USD", format="dollar"),
                    "extended_price_usd": st.column_config.NumberColumn("total USD", format="dollar"),
                    "unit_power_w": st.column_config.NumberColumn("unit W", format="localized"),
                    "extended_power_w": st.column_config.NumberColumn("total W", format="localized"),
                    "why": st.column_config.TextColumn("why (how the count was derived)", width="large"),
                    "price_basis": st.column_config.TextColumn("price basis"),
                    "catalog_id": st.column_config.TextColumn("catalog id"),
                },
            )
            downloads = st.container(horizontal=True)  # buttons as wide as their labels
            # bytes, not callables, and no rerun on click: a deferred file is dropped by the next rerun, so
            # quick successive clicks lost downloads ("MediaFileStorageError: Deferred file ... not found")
            downloads.download_button("BOM as CSV", data=cached.bom_csv(key), file_name="fabric-bom.csv",
                                      mime="text/csv", on_click="ignore", key="dl_csv")
            downloads.download_button("BOM as XLSX", data=cached.bom_xlsx(key), file_name="fabric-bom.xlsx",
                                      mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                                      on_click="ignore", key="dl_xlsx")
            downloads.download_button("Design as JSON", data=cur.design.to_json(), file_name="design.json",
                                      mime="application/json", on_click="ignore", key="dl_json",
                                      help="python -m core plan --design design.json reads it")


main()
