"""The Designer's "Racks & cabling" tab: racks, rows and the hall, cable lengths and the media they take.

Thin: reads the plan (``Plan.layout``, ``Plan.lengths``, ``Plan.media``) and draws ``core.figures.racks``
(cached per design and language in ``webui.cached``-style ``st.cache_resource`` functions here).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.cost import LINK_CLASS_LABELS, ROUTE_LABELS
from core.design import Design
from core.figures import racks as rack_figures
from core.figures.keynumbers import cards_html, rack_key_numbers
from core.i18n import _, language as speaking
from core.physical.media import KIND_LABELS
from core.physical.racks import load_racks
from core.plan import plan as plan_of

CONFIG = {"displaylogo": False}


def _plan(key: str):
    return plan_of(Design.model_validate_json(key))


@st.cache_resource(max_entries=32, show_spinner=False)
def _figures(key: str, language: str):
    """(floor plan, rack elevations, cable lengths) figures of the design ``key`` in ``language``."""
    with speaking(language):
        p = _plan(key)
        return (rack_figures.floor_plan_figure(p.layout), rack_figures.rack_elevation_figure(p.layout),
                rack_figures.lengths_figure(p.lengths, p.media))


@st.cache_data(max_entries=32, show_spinner=False)
def media_table(key: str, language: str) -> pd.DataFrame:
    """One row per link class and length bin: links, longest, route, media and part."""
    with speaking(language):
        p = _plan(key)
        rows = [{
            _("Link class"): _(LINK_CLASS_LABELS[m.link_class]), _("Length"): m.label(), _("Links"): m.links,
            _("Longest [m]"): m.max_m, _("Mean [m]"): m.mean_m, _("Route"): _(ROUTE_LABELS[m.route]),
            _("Media"): _(KIND_LABELS[m.kind]), _("Part"): m.cable_id or m.switch_module_id,
            _("Reach [m]"): m.reach_m,
        } for m in p.media]
        return pd.DataFrame(rows)


def physical_tab(cur, key: str, lang: str) -> None:
    """Racks & cabling: key numbers, floor plan, rack elevations, cable lengths and media."""
    plan = cur.plan
    if plan.layout is None:
        st.info(_("No rack layout for this design."))
        return
    st.markdown(cards_html(rack_key_numbers(plan)), unsafe_allow_html=True)
    for note in plan.layout.notes:
        st.caption(note)
    floor, elevation, lengths = _figures(key, lang)
    st.plotly_chart(floor, key="floor_plan_chart", config=CONFIG)
    st.plotly_chart(elevation, key="rack_elevation_chart", config=CONFIG)
    st.markdown("#### " + _("Cable lengths and media"))
    routing = load_racks().routing
    st.caption(_("Each link's length runs from its port up to the overhead tray ({tray} m above the rack), along "
                 "the trays by the Manhattan distance between the racks, and down to the other port; inside a "
                 "rack {in_rack} m plus the height difference. Slack: +{slack:.0%} and {end} m at each end. "
                 "Media by reach follow the cable media setting (Advanced).").format(
                     tray=f"{routing.tray_above_rack_m:g}", in_rack=f"{routing.in_rack_m:g}",
                     slack=routing.slack_fraction, end=f"{routing.slack_end_m:g}"))
    if plan.lengths:
        st.plotly_chart(lengths, key="cable_lengths_chart", config=CONFIG)
        st.dataframe(media_table(key, lang), hide_index=True, width="stretch",  # 2,048 links, as on every page
                     column_config={_("Links"): st.column_config.NumberColumn(format="localized")})
