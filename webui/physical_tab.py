"""The Designer's "Racks & cabling" tab: racks, rows and the hall, cable lengths and the media they take, and
what each growth stage buys and which cables move.

Thin: reads the plan (``Plan.layout``, ``Plan.lengths``, ``Plan.media``) and draws ``core.figures.racks``
(cached per design and language in ``webui.cached``-style ``st.cache_resource`` functions here).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.analysis.failure.spec import export_namer
from core.analysis.stages import (POD_STAGES_ONLY, STAGE_COLUMNS, cut_note, has_stages, stage_headers, stage_rows,
                                  stages_note)
from core.cost import LINK_CLASS_LABELS, ROUTE_LABELS
from core.design import Design
from core.figures import racks as rack_figures
from core.figures.keynumbers import cards_html, rack_key_numbers
from core.errors import FabricPlannerError
from core.formats.stagecabling import RACKS_NOTE
from core.i18n import N_, _, language as speaking, sentences
from core.physical.cabling import nvlink_summary
from core.physical.media import KIND_LABELS, NVLINK_CLASS_LABELS
from core.physical.racks import load_racks
from core.plan import plan as plan_of
from core.units import metres, number, percent
from webui import charts, jobs, safe, tablefit
from webui.cached import naming_json, scheme_of_json
from webui.tables import money, show_wide

CONFIG = {"displaylogo": False}


def _plan(key: str):
    return plan_of(Design.model_validate_json(key))


@st.cache_resource(max_entries=32, show_spinner=False)
def _figures(key: str, language: str, naming: str = ""):
    """(floor plan, rack elevations, cable lengths) figures of the design ``key`` in ``language``, its devices
    named under the exports' naming ``naming`` (``webui.cached.naming_json``; empty: the default names)."""
    with speaking(language):
        p = _plan(key)
        names = export_namer(p, scheme_of_json(naming))  # the devices as the exports and the single points name them (gpu002, leaf001)
        systems = {p.resolved.system.id: p.resolved.gpus_per_node}  # the floor plan says nodes as nodes
        return (rack_figures.floor_plan_figure(p.layout, gpus_per_node=systems),
                rack_figures.rack_elevation_figure(p.layout, name=names.device_name if names else None),
                rack_figures.lengths_figure(p.lengths, p.media, p.fabric.family))


@st.cache_data(max_entries=32, show_spinner=False)
def media_table(key: str, language: str) -> pd.DataFrame:
    """One row per link class and length bin: links, longest, route, media and part."""
    with speaking(language):
        return pd.DataFrame(_media_rows(_plan(key).media))


def _media_rows(media) -> list[dict]:
    """One row per media bin (``core.physical.media.MediaBin``), headers in the current language."""
    return [{
        _("Link class"): _(LINK_CLASS_LABELS[m.link_class]), _("Length"): m.label(), _("Links"): m.links,
        _("Longest [m]"): metres(m.max_m, m.high_m), _("Mean [m]"): metres(m.mean_m), _("Route"): _(ROUTE_LABELS[m.route]),
        _("Media"): _(KIND_LABELS[m.kind]), _("Part"): m.cable_id or m.switch_module_id, _("Reach [m]"): m.reach_m,
    } for m in media]


def physical_tab(cur, key: str, lang: str) -> None:
    """Racks & cabling: key numbers, floor plan, rack elevations, cable lengths and media."""
    plan = cur.plan
    if plan.layout is None:
        st.info(_("No rack layout for this design."))
        return
    if plan.design.pods and _hall(key, lang) is not None:  # a design with pods: the whole hall (pods_racks)
        pods_racks(key, lang)
        nvlink_section(key, lang)
        growth_section(cur, key)
        return
    st.markdown(cards_html(rack_key_numbers(plan)), unsafe_allow_html=True)
    for note in plan.layout.notes:
        st.caption(note)
    floor, elevation, lengths = _figures(key, lang, naming_json(plan))
    charts.chart(floor, "full", key="floor_plan_chart", config=CONFIG)
    charts.chart(elevation, "full", key="rack_elevation_chart", config=CONFIG)
    lengths_caption()
    if plan.lengths:
        charts.chart(lengths, "full", key="cable_lengths_chart", config=CONFIG)
        media = media_table(key, lang)
        media_order, media_config = tablefit.media_columns(media)  # what a buyer needs first fits 1,024 px
        show_wide(media, hide_index=True, width="stretch", column_order=media_order, column_config=media_config)
    nvlink_section(key, lang)
    growth_section(cur, key)


def lengths_caption() -> None:
    """The cable lengths' heading and how a length is measured (``core.physical.lengths``' routing rule)."""
    st.markdown("#### " + _("Cable lengths and media"))
    routing = load_racks().routing
    st.caption(_("Each link's length runs from its port up to the overhead tray ({tray} m above the rack), along "
                 "the trays by the Manhattan distance between the racks, and down to the other port; inside a "
                 "rack {in_rack} m plus the height difference. Slack: +{slack} and {end} m at each end. "
                 "Media by reach follow the cable media setting (Advanced).").format(
                     tray=f"{routing.tray_above_rack_m:g}", in_rack=f"{routing.in_rack_m:g}",
                     slack=percent(routing.slack_fraction), end=f"{routing.slack_end_m:g}"))


def _hall(key: str, language: str):
    """(key numbers, floor plan, rack elevations, cable lengths, media rows, each pod's layout notes, the hall's
    words) of the hall of the design with pods ``key`` (``core.figures.podracks``), in ``language``; None when its
    pods cannot be planned together (the pods section says why)."""
    from core.analysis.whole import design_mixed
    from core.figures.podracks import hall_figures, hall_key_numbers, hall_notes, pod_word

    with speaking(language):
        try:
            mixed = design_mixed(Design.model_validate_json(key))
        except FabricPlannerError:
            return None
        if mixed is None or mixed.hall is None:
            return None
        rows = [{_("Pod"): pod_word(mixed, i), **row} for i, media in enumerate(mixed.media)
                for row in _media_rows(media)]
        return (hall_key_numbers(mixed), *hall_figures(mixed), pd.DataFrame(rows),
                tuple(f"{pod_word(mixed, i)}: {note}" for i, p in enumerate(mixed.plans) for note in p.layout.notes),
                tuple(hall_notes(mixed)))


def pods_racks(key: str, lang: str) -> None:
    """The hall of a design with pods: its key numbers, floor plan, rack elevations, the cable lengths of every pod's
    link classes and their media (``_hall``)."""
    numbers, floor, elevation, lengths, media, notes, hall_words = _hall(key, lang)
    st.markdown(cards_html(numbers), unsafe_allow_html=True)
    for note in notes + hall_words:
        st.caption(note)
    charts.chart(floor, "full", key="floor_plan_chart", config=CONFIG)
    charts.chart(elevation, "full", key="rack_elevation_chart", config=CONFIG)
    lengths_caption()
    charts.chart(lengths, "full", key="cable_lengths_chart", config=CONFIG)
    show_wide(media, hide_index=True, width="stretch",
              column_config={_("Links"): st.column_config.NumberColumn(format="localized")})


def _nvlink_row(row: dict) -> dict:
    """A level-2 NVLink table row of ``nvlink_summary``'s ``row``, headers in the current language."""
    return {_("Link class"): _(NVLINK_CLASS_LABELS[row["link_class"]]), _("Cables"): row["cables"],
            _("Longest [m]"): row["longest_m"], _("Mean [m]"): row["mean_m"],
            _("Media"): _(KIND_LABELS[row["media"]]), _("Part"): row["part"]}


@st.cache_data(max_entries=32, show_spinner=False)
def nvlink_table(key: str, language: str) -> pd.DataFrame:
    """One row per level-2 NVLink link class: cables, longest and mean length, media and part; a design with pods:
    per pod and link class, measured in the whole hall (``core.physical.podlayout.pods_nvlink_summary``)."""
    with speaking(language):
        design = Design.model_validate_json(key)
        if design.pods:
            from core.analysis.whole import design_mixed
            from core.figures.podracks import pod_word
            from core.physical.podlayout import pods_nvlink_summary

            try:
                mixed = design_mixed(design)
            except FabricPlannerError:
                return pd.DataFrame()
            return pd.DataFrame([{_("Pod"): pod_word(mixed, i), **_nvlink_row(row)}
                                 for i, row in pods_nvlink_summary(mixed)])
        return pd.DataFrame([_nvlink_row(row) for row in nvlink_summary(_plan(key))])


def nvlink_section(key: str, lang: str) -> None:
    """The second NVLink level's cables (``core.physical.cabling.nvlink_summary``); nothing with one level."""
    table = nvlink_table(key, lang)
    if table.empty:
        return
    st.markdown("#### " + _("Level-2 NVLink cables"))
    pods = _("Pod") in table.columns
    if pods:  # a design with pods: the switches stand in their own pod's rows of the hall
        from core.figures.podracks import NVLINK_NOTE

        st.caption(_(NVLINK_NOTE))
    else:
        st.caption(_("From each rack's NVLink switch trays (or each node's NVLink cages) to the level-2 NVLink "
                     "switches, which stand in network racks of the central rows (an assumption: NVIDIA published no "
                     "floor plan for them); an NVL36x2 pair is cabled rack to rack. Every cable is in the cabling plan "
                     "export."))
    others = _none_listed(key, lang, table) if pods else ""
    if others:  # the pods with one NVLink level
        st.caption(_("Every pod's level-2 NVLink cables, measured in the hall; {pods} not listed: one NVLink level, "
                     "inside each server or rack.").format(pods=others))
    show_wide(table, hide_index=True, width="stretch",
              column_config={_("Cables"): st.column_config.NumberColumn(format="localized")})


def _none_listed(key: str, language: str, table: pd.DataFrame) -> str:
    """The pods of the design with pods ``key`` that the level-2 NVLink ``table`` does not list ("" when none)."""
    from core.analysis.whole import design_mixed
    from core.figures.podracks import pod_word

    with speaking(language):
        mixed = design_mixed(Design.model_validate_json(key))
        listed = set(table[_("Pod")])
        words = [pod_word(mixed, i) for i in range(len(mixed.plans)) if pod_word(mixed, i) not in listed]
    return ", ".join(words)


MOVE_TITLES = {
    "step": N_("Step [nodes]"), "cable_id": N_("Cable ID"), "kept_end": N_("End that stays"), "before": N_("Before"),
    "after": N_("After"), "new_cable_id": N_("Cable ID after"), "kept_rack": N_("Rack of the end that stays"),
    "before_rack": N_("Rack before"), "after_rack": N_("Rack after"), "link_class": N_("Link class"),
}
"""Column titles of the re-terminated cables (``core.formats.stagecabling.MOVE_COLUMNS``)."""


def _naming_json(cur) -> str:
    """The exports' naming scheme the session keeps (the Hand-off tab's; ``webui.state.NAMING_STORE``) as JSON; ""
    for the default names or a scheme this design refuses (the Hand-off tab says why)."""
    from core.fabric.naming import NamingError, naming_scheme
    from webui.state import NAMING_STORE

    store = st.session_state.get(NAMING_STORE)
    if not store:
        return ""
    try:
        return naming_scheme(store["np"], store["sp"], int(store["nd"]), cur.plan).model_dump_json()
    except (NamingError, KeyError, ValueError):
        return ""


def growth_section(cur, key: str) -> None:
    """Growth stages (``Design.stages`` and ``grow_to``): per step what is bought and which cables move, the
    re-terminated cables listed and downloadable (a job: ``webui.jobs``)."""
    if not has_stages(cur.design, cur.plan.resolved.nodes):
        return
    st.markdown("#### " + _("Growth stages"))
    note = stages_note(cur.design)  # a design with pods: the whole design's stages, its pods'
    if note is None:
        st.info(_(POD_STAGES_ONLY).format(example="B200:32@1"))
        return
    st.caption(note)
    from webui import jobwork  # the jobs' functions (the engine, Playwright): imported when a job is asked for

    naming = _naming_json(cur)
    finished, found = jobs.result("stages", key + naming, jobwork.growth, key, naming, what=_("Planning the stages"))
    if not finished:
        return
    if isinstance(found, FabricPlannerError):
        st.warning(safe.md(str(found)))
        return
    deltas, named = found
    headers = stage_headers()
    numbers = {headers[c]: st.column_config.NumberColumn(format="localized")
               for c, (_header, kind) in STAGE_COLUMNS.items() if kind == "count"}
    rows = [{headers[c]: v for c, v in row.items()} for row in stage_rows(deltas)]
    amounts = [headers[c] for c, (_h, kind) in STAGE_COLUMNS.items() if kind == "usd"]  # a column's decimals once
    show_wide(money(pd.DataFrame(rows), amounts), hide_index=True, width="stretch", column_config=numbers)
    if named:
        titles = {column: _(title) for column, title in MOVE_TITLES.items()}
        moves = [{**{titles[c]: v for c, v in m._asdict().items()},
                  titles["link_class"]: _(LINK_CLASS_LABELS[m.link_class])} for m in named]
        listed, total = len(named), sum(d.cables_moved for d in deltas)
        title = _("Re-terminated cables ({count})").format(count=number(total)) if listed == total else _(
            "Re-terminated cables (first {listed} of {total})").format(listed=number(listed), total=number(total))
        with st.expander(title):
            st.caption(sentences(
                _("Named as the cabling plan names them (the Hand-off tab's names): the cable ID before and after "
                  "the step (without pods, the IDs of the cabling plan with a stage column, which says which stage "
                  "lays or re-terminates each cable; with pods, each stage's own plan's) and the racks of its "
                  "ends."), _(RACKS_NOTE), cut_note(deltas)))
            frame = pd.DataFrame(moves)
            st.dataframe(frame, hide_index=True, width="stretch")
            st.download_button(_("Download as CSV"), frame.to_csv(index=False).encode("utf-8"),
                               file_name="re-terminated-cables.csv", mime="text/csv", key="stages_csv")
