"""Designer: key numbers, topology, bandwidth, cost & power of the design in the sidebar."""

import functools

import streamlit as st

from core import i18n
from core.catalog import PRICE_BASIS_LABELS
from core.figures.cost import price_sensitivity_figure
from core.figures.keynumbers import cards_html, cost_key_numbers, key_numbers, size_caption
from core.i18n import _
from webui import cached, state


def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    cur: state.Current = st.session_state["fp_current"]
    unit = cur.unit
    lang = i18n.current()  # part of every cache key below: the cached figures and tables hold text

    st.title(_("Fabric planner"))
    if cur.plan is not None:
        s = cur.plan.summary()
        st.caption(
            _("{size} · {fabric} {speed}G · {topology} · {tiers} tier(s) · {planes} plane(s) · switch {switch} · "
              "NIC {nic} · {basis} prices (estimates, ranges on the Cost & power tab)").format(
                size=size_caption(cur.plan), fabric=_(state.FABRICS[s["fabric"]]), speed=s["port_speed_gbps"],
                topology=_(state.TOPOLOGIES[s["topology"]]).lower(), tiers=s["tiers"], planes=s["planes"],
                switch=s["switch_model"], nic=s["nic_model"], basis=_(PRICE_BASIS_LABELS[cur.plan.cost.price_basis]))
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

    # labels in this run's language; the link holds the tab's English name (webui.state.designer_tabs)
    tabs = state.designer_tabs()

    # --- topology ---------------------------------------------------------------------------------
    with tabs[0]:
        if tabs[0].open:
            sel_key = "_fp_selected"
            selected = st.session_state.get(sel_key)
            if selected and selected[0] != key:
                selected = None
            left, right = st.columns([3, 2], gap="medium")
            with left:
                fig, aggregated, elements = cached.topology(key, selected[1] if selected else None, unit, lang)
                st.plotly_chart(
                    fig, key="topology_chart", on_select=functools.partial(cached.on_topology_select, key),
                    selection_mode=("points",), config={"displaylogo": False, "scrollZoom": True},
                )
                hint = _("Click a switch to highlight its links; click a legend entry to hide or show a tier.")
                if selected:
                    c1, c2 = st.columns([4, 1])
                    # named in this run's language (the click callback ran before the language was set)
                    name = cached.vertex_label(key, selected[1], lang) if selected[1] else selected[2]
                    c1.caption(_("Highlighted: **{switch}**. {hint}").format(switch=name, hint=hint))
                    c2.button(_("Clear highlight"), on_click=lambda: st.session_state.pop(sel_key, None))
                else:
                    st.caption((_("{hint} {count} drawn elements (aggregated).") if aggregated else
                                _("{hint} {count} drawn elements.")).format(hint=hint, count=i18n.number(elements)))
            with right:
                st.plotly_chart(cached.scaleup(key, unit, lang), key="scaleup_chart", config={"displaylogo": False})
            with st.expander(_("How the fabric was sized"), expanded=False):
                for line in plan.fabric.explanation:
                    st.markdown(f"- {line}")
                st.dataframe(cached.switch_groups(key, lang), hide_index=True, width="stretch")

    # --- bandwidth --------------------------------------------------------------------------------
    with tabs[1]:
        if tabs[1].open:
            c1, c2 = st.columns(2)
            c1.plotly_chart(cached.bandwidth_hierarchy(key, unit, lang), key="bw_hierarchy",
                            config={"displaylogo": False})
            c2.plotly_chart(cached.tier_capacity(key, unit, lang), key="bw_tiers", config={"displaylogo": False})
            st.plotly_chart(cached.oversubscription(key, unit, lang), key="bw_oversub", config={"displaylogo": False})
            bw = plan.bandwidth
            st.markdown(
                _("**Oversubscription** leaf {leaf}:1, spine {spine}:1, end to end {total}:1 · **hops** (switches "
                  "crossed) same rail {same_rail}, cross rail {cross_rail}, cross pod {cross_pod} · **NVLink : "
                  "scale-out** {ratio} : 1 per GPU (one direction, bits)").format(
                    leaf=f"{bw.leaf_oversubscription:g}", spine=f"{bw.spine_oversubscription:g}",
                    total=f"{bw.oversubscription:.3g}", same_rail=bw.hops_same_rail, cross_rail=bw.hops_cross_rail,
                    cross_pod=bw.hops_cross_pod, ratio=f"{bw.scaleup_to_scaleout_ratio:.3g}")
            )
            st.dataframe(cached.sweep_table(key, unit, lang), hide_index=True, width="stretch")

    # --- cost & power -----------------------------------------------------------------------------
    with tabs[2]:
        if tabs[2].open:
            c1, c2 = st.columns(2)
            c1.plotly_chart(cached.capex(key, lang), key="capex_chart", config={"displaylogo": False})
            c2.plotly_chart(cached.power(key, lang), key="power_chart", config={"displaylogo": False})
            st.markdown(cards_html(cost_key_numbers(plan)), unsafe_allow_html=True)
            st.plotly_chart(price_sensitivity_figure(plan), key="sensitivity_chart", config={"displaylogo": False})
            st.markdown("#### " + _("Bill of materials"))
            st.caption(_("Part names are the catalog's, quoted as published; ids are in Catalog & assumptions."))
            header = cached.bom_headers()  # column id -> its header; the ids stay (tests and downloads use them)
            bom = cached.bom_table(key, lang)
            if lang != i18n.DEFAULT_LANGUAGE:  # other languages: the frame's own columns carry the headers too
                bom = bom.rename(columns=header)
            col = (lambda c: c) if lang == i18n.DEFAULT_LANGUAGE else header.get
            st.dataframe(
                bom, hide_index=True, width="stretch",
                column_config={
                    col("category"): st.column_config.TextColumn(header["category"], width="small"),
                    col("item"): st.column_config.TextColumn(header["item"], width="large"),
                    col("where"): st.column_config.TextColumn(
                        header["where"], help=_("Switch role, or the link end and link class a transceiver or "
                                                "cable serves")),
                    col("quantity"): st.column_config.NumberColumn(header["quantity"], format="localized"),
                    col("unit_price_usd"): st.column_config.NumberColumn(header["unit_price_usd"], format="dollar"),
                    col("extended_price_usd"): st.column_config.NumberColumn(header["extended_price_usd"],
                                                                             format="dollar"),
                    col("unit_power_w"): st.column_config.NumberColumn(header["unit_power_w"], format="localized"),
                    col("extended_power_w"): st.column_config.NumberColumn(header["extended_power_w"],
                                                                           format="localized"),
                    col("why"): st.column_config.TextColumn(header["why"], width="large"),
                    col("price_basis"): st.column_config.TextColumn(header["price_basis"]),
                    col("catalog_id"): st.column_config.TextColumn(header["catalog_id"]),
                },
            )
            reserved = cached.reserved_table(key, lang)
            if len(reserved):
                st.markdown("#### " + _("Reserved for growth"))
                st.caption(_("Not in the totals above: what growing to {nodes} nodes still buys, {usd} (the spines, "
                             "cores and leaf uplinks above are already sized for that size).").format(
                                 nodes=i18n.number(cur.design.grow_to), usd=i18n.usd(plan.reserved_network_capex_usd)))
                st.dataframe(
                    reserved.rename(columns=header) if lang != i18n.DEFAULT_LANGUAGE else reserved,
                    hide_index=True, width="stretch",
                    column_config={
                        col("category"): st.column_config.TextColumn(header["category"], width="small"),
                        col("item"): st.column_config.TextColumn(header["item"], width="large"),
                        col("quantity"): st.column_config.NumberColumn(header["quantity"], format="localized"),
                        col("unit_price_usd"): st.column_config.NumberColumn(header["unit_price_usd"],
                                                                             format="dollar"),
                        col("extended_price_usd"): st.column_config.NumberColumn(header["extended_price_usd"],
                                                                                 format="dollar"),
                        col("why"): st.column_config.TextColumn(header["why"], width="large"),
                        col("catalog_id"): st.column_config.TextColumn(header["catalog_id"]),
                    })
            downloads = st.container(horizontal=True)  # buttons as wide as their labels
            # bytes, not callables, and no rerun on click: a deferred file is dropped by the next rerun, so
            # quick successive clicks lost downloads ("MediaFileStorageError: Deferred file ... not found")
            downloads.download_button(_("BOM as CSV"), data=cached.bom_csv(key, lang), file_name="fabric-bom.csv",
                                      mime="text/csv", on_click="ignore", key="dl_csv")
            downloads.download_button(_("BOM as XLSX"), data=cached.bom_xlsx(key, lang), file_name="fabric-bom.xlsx",
                                      mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                                      on_click="ignore", key="dl_xlsx")
            downloads.download_button(_("Design as JSON"), data=cur.design.to_json(), file_name="design.json",
                                      mime="application/json", on_click="ignore", key="dl_json",
                                      help=_("{command} reads it").format(
                                          command="`python -m core plan --design design.json`"))


main()
