"""Designer: key numbers, topology, bandwidth, cost & power and the hand-offs of the design in the sidebar."""

import functools
import importlib.util
import json

import streamlit as st

from core import i18n, spares, units
from core.analysis.whole import bisection_note, design_mixed, ratio_words, whole_plan, whole_summary
from core.design import MAX_DESIGN_FILE_BYTES, Design, resolve_design
from core.errors import DesignError, FabricPlannerError, InputError, shown
from core.fabric.families import leaf_whatif, leaf_whatif_note, node_to_node
from core.fabric.naming import NamingError, NamingScheme, naming_scheme
from core.figures.bandwidth import bandwidth_readout, clos_readout
from core.figures.cost import networks_figure, networks_note, networks_rows, price_sensitivity_figure
from core.figures.keynumbers import cards_html, cost_key_numbers, key_numbers, whatif_capex_note
from core.figures.style import sep
from core.figures.subtitle import design_line
from core.formats import filenames
from core.formats.design_file import design_from_bytes
from core.formats.exports import exports, pod_coverage
from core.formats.nameexamples import name_examples
from core.i18n import N_, _
from webui import cached, charts, jobs, pagestate, safe, state, tablefit, tables
from webui.physical_tab import physical_tab
from webui.pods import explanation, pod_keys, pods_section

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
# Up to this many GPUs every export is built when the Hand-off tab shows (all of them take well under a
# second at 4,096 GPUs, once per design: cached); above it each is built when its button is pressed.
EAGER_EXPORT_GPUS = 4096
UPLOAD_COUNTER = "_fp_upload_n"  # a new uploader key after each file, so the same file can be loaded again
UPLOAD_RESULT = "_fp_upload_result"
REPORT_ASKED = "_fp_handoff_report"  # the review pack the user asked for: (what, design key, language, link, unit)


def main() -> None:
    """The page, top to bottom; returns early (instead of st.stop) so app.py can still draw the share box."""
    cur: state.Current = st.session_state["fp_current"]
    unit = cur.unit
    lang = i18n.locale()  # part of every cache key below: the cached figures and tables hold text and money

    st.title(_("Fabric planner"))
    if cur.plan is not None:
        st.caption(design_line(cur.plan))  # the design and its price basis (core.figures.subtitle)
    state.show_warnings(cur)
    if cur.plan is None:
        state.show_error(cur)
        with st.expander(_("Load a design file"), expanded=UPLOAD_RESULT in st.session_state):
            _upload_box(cur, heading=False)  # a way out too: a file that builds
        return

    plan = cur.plan
    key = cur.design.model_dump_json()
    for note in plan.resolved.notes:  # e.g. nodes rounded up to whole NVL72 racks
        st.info(safe.md(note))

    # --- key numbers ---------------------------------------------------------------------------------
    numbers = key_numbers(whole_summary(plan), unit)  # a design with pods: its totals (core.analysis.whole)
    st.markdown(cards_html(numbers), unsafe_allow_html=True)  # escaped in core; shows before the charts load
    pods_section(cur.design, key, lang)  # mixed pods under one spine layer (webui.pods)

    # labels in this run's language; the link holds the tab's English name (webui.state.designer_tabs)
    tabs = dict(zip(state.DESIGNER_TABS, state.designer_tabs()))  # by English name (helpers may add tabs)

    # --- topology ---------------------------------------------------------------------------------
    pods = pod_keys(key, lang)  # a design with pods: (heading, design JSON) of each pod planned alone
    with tabs["Topology"]:
        if tabs["Topology"].open:
            sel_key = "_fp_selected"
            selected = st.session_state.get(sel_key)
            if selected and selected[0] != key:
                selected = None
            left, right = st.columns([3, 2], gap="medium")
            with left:
                fig, aggregated, elements = cached.topology(key, selected[1] if selected else None, unit, lang,
                                                            cached.naming_json(plan))
                charts.chart(
                    fig, "three_fifths", key="topology_chart",
                    on_select=functools.partial(cached.on_topology_select, key),
                    selection_mode=("points",), config={"displaylogo": False, "scrollZoom": True},
                )
                hint = (_("Click a legend entry to hide or show a dimension's links.") if node_to_node(plan.fabric.family)
                        else _("Click a switch to highlight its links; click a legend entry to hide or show a tier."))
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
                for i, (heading, pod_key) in enumerate(pods or [("", key)]):  # a design with pods: each pod's
                    if heading:
                        st.markdown("**" + safe.md(heading) + "**")
                    charts.chart(cached.scaleup(pod_key, unit, lang), "two_fifths", key=f"scaleup_chart{i or ''}",
                                    config={"displaylogo": False})
            with st.expander(_("How the fabric was sized"), expanded=False):
                for i, (heading, pod_key) in enumerate(pods or [("", key)]):  # a design with pods: each pod's leaves
                    if heading:
                        st.markdown("**" + safe.md(heading) + "**")
                    for line in explanation(pod_key, lang):
                        st.markdown(f"- {line}")
                    groups = cached.switch_groups(pod_key, lang)
                    if not groups.empty:  # a torus has no switch groups: no empty table under its lines
                        st.dataframe(groups, hide_index=True, width="stretch")
                if pods:
                    st.caption(_("Each pod is sized alone; its spines in these lines and tables stand for its share of "
                                 "the shared spine layer, which the Mixed pods box above sizes."))

    # --- bandwidth --------------------------------------------------------------------------------
    with tabs["Bandwidth"]:
        if tabs["Bandwidth"].open:
            for i, (heading, pod_key) in enumerate(pods or [("", key)]):  # a design with pods: a section per pod
                if heading:
                    st.markdown("#### " + safe.md(heading))
                c1, c2 = st.columns(2)
                charts.chart(cached.bandwidth_hierarchy(pod_key, unit, lang), "half", c1, key=f"bw_hierarchy{i or ''}",
                                config={"displaylogo": False})
                charts.chart(cached.tier_capacity(pod_key, unit, lang), "half", c2, key=f"bw_tiers{i or ''}",
                                config={"displaylogo": False})
            bw = whole_plan(plan).bandwidth  # pod 1's leaves, with the hops between pods and the design's ratio
            readout, longest = clos_readout("readout:bandwidth", plan)  # "cross pod" with pods, else "farthest pair"
            text = bandwidth_readout(plan.fabric.family, plan.resolved.system, bw, unit, "readout:bandwidth", readout,
                                     total=ratio_words(plan), longest=longest)  # with pods: the whole design's, as the CLI's
            if pods:  # the whole design's readout, then pod 1's what-if under its heading
                st.markdown(text)
                st.caption(bisection_note(design_mixed(plan.design), unit))
                st.markdown("#### " + _("Oversubscription of pod 1"))
            whatif = leaf_whatif(plan.fabric.family)  # a family without leaves (a torus) has none to vary
            if whatif:
                charts.chart(cached.oversubscription(key, unit, lang), "full", key="bw_oversub",
                                config={"displaylogo": False})
            if not pods:
                st.markdown(text)
            if whatif:
                sweep_frame = cached.sweep_table(key, unit, lang)
                sweep_order, sweep_config = tablefit.sweep_columns(sweep_frame, unit)  # fits 1,024 px
                st.dataframe(sweep_frame, hide_index=True, width="stretch", column_order=sweep_order,
                             column_config=sweep_config)
                notes = (leaf_whatif_note(plan),  # a family whose rows rank otherwise (a Dragonfly+'s global cut)
                         whatif_capex_note(plan))  # NVLink level 2 in it
                for note in filter(None, notes):
                    st.caption(safe.md(note))

    # --- cost & power -----------------------------------------------------------------------------
    with tabs["Cost & power"]:
        if tabs["Cost & power"].open:
            c1, c2 = st.columns(2)
            charts.chart(cached.capex(key, lang), "half", c1, key="capex_chart", config={"displaylogo": False})
            charts.chart(cached.power(key, lang), "half", c2, key="power_chart", config={"displaylogo": False})
            st.markdown(cards_html(cost_key_numbers(whole_plan(plan))), unsafe_allow_html=True)
            _spares_control(cur)
            charts.chart(price_sensitivity_figure(whole_plan(plan)), "full", key="sensitivity_chart",
                         config={"displaylogo": False})
            st.markdown("#### " + _("Bill of materials"))
            st.caption(_("Part names are the catalog's, quoted as published; ids are in Catalog & assumptions."))
            header = cached.bom_headers()  # column id -> its header; the ids stay (tests and downloads use them)
            bom = cached.bom_table(key, lang)
            if i18n.current() != i18n.DEFAULT_LANGUAGE:  # other languages: the frame's own columns carry the headers too
                bom = bom.rename(columns=header)
            col = (lambda c: c) if i18n.current() == i18n.DEFAULT_LANGUAGE else header.get
            bom = tables.money(bom, [col("unit_price_usd"), col("extended_price_usd")])
            bom_order, bom_config = tablefit.bom_columns(bom, header, col)  # the item to its total fit 1,024 px
            row_px = tablefit.wrapped_row_px(bom[col("why")], tablefit.BOM_WHY_PX)  # the why wraps
            st.dataframe(bom, hide_index=True, width="stretch", column_order=bom_order, column_config=bom_config,
                         row_height=row_px, height=tablefit.wrapped_table_px(len(bom), row_px))
            reserved = cached.reserved_table(key, lang)
            if len(reserved):
                st.markdown("#### " + _("Reserved for growth"))
                st.caption(_("Not in the totals above: what growing to {nodes} nodes still buys, {usd} (the spines, "
                             "cores and leaf uplinks above are already sized for that size).").format(
                                 nodes=i18n.number(cur.design.grow_to), usd=i18n.usd(plan.reserved_network_capex_usd)))
                reserved = tables.money(reserved.rename(columns=header) if i18n.current() != i18n.DEFAULT_LANGUAGE else reserved,
                                        [col("unit_price_usd"), col("extended_price_usd")])
                row_px = tablefit.wrapped_row_px(reserved[col("why")], tablefit.BOM_WHY_PX)
                st.dataframe(
                    reserved, hide_index=True, width="stretch", row_height=row_px,
                    height=tablefit.wrapped_table_px(len(reserved), row_px),
                    column_config={
                        col("category"): st.column_config.TextColumn(header["category"], width="small"),
                        col("item"): st.column_config.TextColumn(header["item"], width="medium"),
                        col("quantity"): st.column_config.NumberColumn(header["quantity"], format="localized"),
                        col("unit_price_usd"): tables.money_column(header["unit_price_usd"],
                                                                   reserved[col("unit_price_usd")]),
                        col("extended_price_usd"): tables.money_column(header["extended_price_usd"],
                                                                       reserved[col("extended_price_usd")]),
                        col("why"): st.column_config.TextColumn(header["why"], width=tablefit.BOM_WHY_PX),
                        col("catalog_id"): st.column_config.TextColumn(header["catalog_id"]),
                    })
            if plan.networks is not None and any(plan.networks.sized()):  # storage and management (core.networks)
                st.markdown("#### " + _("By network"))
                charts.chart(networks_figure(plan), "full", key="networks_chart", config={"displaylogo": False})
                tables.show_turned(networks_rows(plan), _("Network"))  # six columns across scrolled at 1,024 px
                if networks_note(plan):
                    st.caption(networks_note(plan))
            downloads = st.container(horizontal=True)  # buttons as wide as their labels
            # bytes, not callables, and no rerun on click: a deferred file is dropped by the next rerun, so
            # quick successive clicks lost downloads ("MediaFileStorageError: Deferred file ... not found")
            _bom_downloads(downloads, cur, key, lang)
            st.caption(_("The review pack, the exports operations teams import (Slurm, NetBox, simulators) and "
                         "loading a design file are on the Hand-off tab."))

    # --- racks & cabling (webui/physical_tab.py) ------------------------------------------------
    if "Racks & cabling" in tabs:
        with tabs["Racks & cabling"]:
            if tabs["Racks & cabling"].open:
                physical_tab(cur, key, lang)

    # --- hand-off ---------------------------------------------------------------------------------
    if "Hand-off" in tabs:
        with tabs["Hand-off"]:
            if tabs["Hand-off"].open:
                handoff_tab(cur, key, lang)


# --- spares (Design.spares, core.spares): a design setting set here, not in the sidebar -------------
SPARES_MODES = {"off": N_("off"), "default": N_("catalog default"), "custom": N_("custom per category")}
SPARES_LABELS = {"switch": N_("Switches"), "transceiver": N_("Transceivers"), "cable": N_("Cables"), "NIC": N_("NICs")}
SPARES_W = "w_sp_"  # widget keys; the design's value is in state.SPARES_STORE (the sidebar reads it)
SPARES_NOTICE = "_fp_sp_notice"


def _custom_policy() -> dict[str, str]:
    """The custom policy the category fields hold (the catalog's rule where a field is not set yet)."""
    ss = st.session_state
    return {c: str(ss.get(SPARES_W + c) or rule) for c, rule in spares.default_policy().items()}


def _on_spares_mode() -> None:
    ss = st.session_state
    mode = ss[SPARES_W + "mode"]
    ss[state.SPARES_STORE] = spares.format_policy(_custom_policy()) if mode == "custom" else mode


def _on_spares_rule(category: str) -> None:
    ss = st.session_state
    text = str(ss.get(SPARES_W + category) or "")
    before = spares.setting_policy(ss.get(state.SPARES_STORE, "off")) or {}
    try:
        ss[SPARES_W + category] = spares.rule_text(*spares.parse_rule(category, text))
    except InputError:
        ss[SPARES_NOTICE] = _("Sparing rule {value} is not a percentage (2%) or N+k (N+1); the previous rule "
                              "applies.").format(value=safe.md(text[:40]))
        ss[SPARES_W + category] = before.get(category) or spares.default_policy()[category]
    ss[state.SPARES_STORE] = spares.format_policy(_custom_policy())


def _spares_control(cur: state.Current) -> None:
    """Spares in the BOM and capex: off, the catalog's policy or a rule per category (percent or N+k). The
    design holds it (share link ``sp``, design file ``spares``, CLI ``--spares``); the widgets follow it."""
    ss = st.session_state
    setting = cur.design.spares
    mode = setting if setting in ("off", "default") else "custom"
    policy = {**spares.default_policy(), **(spares.setting_policy(setting) or {})}
    ss[SPARES_W + "mode"] = mode
    for category, rule in policy.items():  # the design is the truth (a callback has already written it)
        ss[SPARES_W + category] = rule
    catalog_words = spares.policy_words(spares.format_policy(spares.default_policy()))
    cols = st.columns([2, 1, 1, 1, 1] if mode == "custom" else [2, 4])
    cols[0].selectbox(
        _("Spares"), list(SPARES_MODES), key=SPARES_W + "mode", on_change=_on_spares_mode,
        format_func=lambda m: _(SPARES_MODES[m]),
        help=_("Spare switches, transceivers, cables and NICs as their own BOM rows, costed at the installed row's "
               "price, no power (on a shelf): a percentage of the installed count rounded up, or N+k (k per model "
               "and tier). Catalog default: {policy} (assumed: no operator publishes a sparing policy). In the "
               "share link as `sp`.").format(policy=catalog_words))
    if mode == "custom":
        for col, category in zip(cols[1:], spares.SPARED_CATEGORIES):
            col.text_input(_(SPARES_LABELS[category]), key=SPARES_W + category, max_chars=12,
                           on_change=_on_spares_rule, args=(category,), help=_("e.g. 2% or N+1"))
    problem = ss.pop(SPARES_NOTICE, None)
    if problem:
        st.error(problem)
    if mode != "off":
        cost = cur.plan.cost
        spare_rows = [r for r in cur.plan.bom if r.spare]
        st.caption(_("Capex includes {usd} of spares ({rows} BOM rows at the end of the bill of materials; range "
                     "{range}); the Resilience page shows how well they cover failures.").format(
                         usd=i18n.usd(cost.spares_capex_usd), rows=i18n.number(len(spare_rows)),
                         range=units.money_range(cost.spares_capex_usd_low, cost.spares_capex_usd_high)))


def _share_link() -> str:
    """The link of what is on screen (the share box shows the same), for the files that carry it."""
    return state.share_url(state.DESIGNER_PATH, state.canonical_params(state.DESIGNER_PATH))


def _bom_downloads(box, cur: state.Current, key: str, lang: str, prefix: str = "dl") -> None:
    """BOM CSV (for scripts: the engine's columns), XLSX (for a review) and the design file, named after the design."""
    plan = cur.plan
    box.download_button(_("BOM as CSV"), data=cached.bom_csv(key, lang),
                        file_name=filenames.file_name(plan, "bom-csv"), mime="text/csv", on_click="ignore",
                        key=f"{prefix}_csv", help=_("The engine's column names and ids, for scripts."))
    box.download_button(_("BOM as XLSX"), data=cached.bom_xlsx(key, lang, _share_link(), cur.unit),
                        file_name=filenames.file_name(plan, "xlsx"), mime=XLSX_MIME, on_click="ignore",
                        key=f"{prefix}_xlsx",
                        help=_("For a review: summary, BOM with totals, the design as a table."))
    name = filenames.file_name(plan, "json")
    box.download_button(_("Design as JSON"), data=cur.design.to_json(), file_name=name,
                        mime="application/json", on_click="ignore", key=f"{prefix}_json",
                        help=_("{command} reads it, and so does this page's Hand-off tab.").format(
                            command="`python -m core plan --design design.json`"))


# --- the hand-off tab ------------------------------------------------------------------------------
def handoff_tab(cur: state.Current, key: str, lang: str) -> None:
    """Files for people (review pack, XLSX), for scripts and operations (CSV, design JSON, exports) and
    loading a design file back."""
    plan = cur.plan
    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown("#### " + _("For a review"))
        st.caption(_("Files named after the design ({name}); prices are catalog estimates.").format(
            name=filenames.design_slug(plan)))
        files = st.container(horizontal=True)
        _bom_downloads(files, cur, key, lang, prefix="ho")
        _review_pack(cur, key, lang)
    with right:
        _upload_box(cur)
    st.divider()
    scheme = _exports(cur, key, lang)
    st.divider()
    from webui import verify_view  # here, not at the top: a tab that is not shown imports nothing for it

    verify_view.section(cur.plan, scheme)


def _review_pack(cur: state.Current, key: str, lang: str) -> None:
    """The review pack (``core.formats.report``), built on a button press by a worker process (``webui.jobs``)
    and kept by the server's bounded job cache, not by the session. It carries this session's Performance job,
    Resilience settings and comparison (``_pack_options``) and the cover's fields typed here."""
    if importlib.util.find_spec("core.formats.report") is None:
        return
    from core.formats.report import COVER_TEXT_CHARS, EDITIONS
    from webui import jobwork  # the jobs' functions (the engine, Playwright): imported when the Hand-off tab shows

    plan = cur.plan
    link = _share_link()
    c1, c2 = st.columns(2)
    c3, c4 = st.columns([1, 2])  # a row of their own: at 1,024 px four columns broke "customer" mid-word
    cover = {"customer": c1.text_input(_("Customer"), key="ho_report_customer", max_chars=COVER_TEXT_CHARS),
             "author": c2.text_input(_("Prepared by"), key="ho_report_author", max_chars=COVER_TEXT_CHARS),
             "version": c3.text_input(_("Version"), key="ho_report_version", max_chars=COVER_TEXT_CHARS,
                                      placeholder="v1.0"),
             "edition": c4.radio(_("Edition"), EDITIONS, key="ho_report_edition", horizontal=True,
                                 format_func=lambda e: {"customer": _("customer"), "internal": _("internal")}[e],
                                 help=_("Customer: sources as clean citations, each price with its basis and range. "
                                        "Internal: the catalog's research notes as recorded."))}
    options = json.dumps({"cover": cover, **_pack_options(plan, lang)}, sort_keys=True, default=list)
    wanted = ("report", key, lang, link, cur.unit, options)
    if st.button(_("Build the review pack (HTML and PDF)"), key="ho_report_build",
                 help=_("Cover with an executive summary, key numbers, diagrams, charts, the BOM, the Performance "
                        "page's job, the Resilience page's failure scenario, assumptions and sources; it takes a few "
                        "seconds (the PDF is printed by a headless browser).")):
        st.session_state[REPORT_ASKED] = wanted
    if st.session_state.get(REPORT_ASKED) != wanted:
        return
    name = plan.design.name or ""  # the cover's title: the design's name, else a title in words from the design
    finished, value = jobs.result("report", json.dumps([key, name, link, cur.unit, options]), jobwork.design_report,
                                  key, name, link, cur.unit, options, what=_("Building the review pack"))
    if not finished:
        return
    if isinstance(value, FabricPlannerError):
        st.error(safe.md(_("The review pack could not be built: {problem}").format(problem=value)))
        return
    html, pdf, problem = value
    row = st.container(horizontal=True)
    row.download_button(_("Review pack (HTML)"), data=html, file_name=filenames.file_name(plan, "report-html"),
                        mime="text/html", on_click="ignore", key="ho_report_html")
    if pdf:
        row.download_button(_("Review pack (PDF)"), data=pdf, file_name=filenames.file_name(plan, "report-pdf"),
                            mime="application/pdf", on_click="ignore", key="ho_report_pdf")
    else:
        st.warning(safe.md(_("The review pack could not be built: {problem}").format(problem=problem)))


def _pack_options(plan, lang: str) -> dict:
    """This session's state the review pack shows: the Performance page's job (the settings the user or the link
    set; the rest is fitted to the design as that page fits it), the Resilience page's settings (failed elements,
    a hot link kept as typed read back as its element; job size, failure rates) and the Compare page's link when it
    holds a comparison."""
    from core.formats import resiliencelink
    from core.formats.linknames import scheme_of
    from webui import jobstate

    ss = st.session_state
    params = ss.get(state.RESILIENCE_LINK)  # the Resilience page's settings, else those of the session's link
    if params is None:
        params = {k: v for k, v in (ss.get(pagestate.LINK_STORE) or {}).items() if resiliencelink.prefix_of(k)}
    resilience, _warnings = resiliencelink.decode(params)
    scheme = scheme_of(ss.get(state.NAMING_STORE), plan)  # the hand-off naming: the failure views' names too
    pairs, _warnings = resiliencelink.read_hot_links(plan, resilience["fail"], scheme)
    resilience["fail"] = tuple(dict.fromkeys(spec for _typed, spec in pairs))
    compare = ss.get(state.COMPARE_LINK) or {}
    return {"job": jobstate.link_values(), "resilience": resilience,
            **({"naming": scheme.model_dump()} if scheme is not None else {}),
            "compare_link": state.share_url(state.COMPARE_PATH, {**compare, state.LANG_KEY: lang}) if compare else ""}


# --- loading a design file ---------------------------------------------------------------------------
def _in_session_language(callback):
    """Run a widget callback in the session's language (callbacks run before app.py sets this run's)."""
    @functools.wraps(callback)
    def run(*args):
        code = st.session_state.get(state.LANG_WIDGET)
        with i18n.language(code if code in i18n.LANGUAGES else i18n.DEFAULT_LANGUAGE):
            return callback(*args)
    return run


@_in_session_language
def _on_upload(widget: str) -> None:
    """A design file was chosen: read it (size, UTF-8, JSON, version, fields, catalog ids) and, if it is a
    design, put it into the sidebar as a share link is applied; else keep the design and say why."""
    ss = st.session_state
    upload = ss.get(widget)
    if upload is None:
        return
    name = shown(upload.name, 60)
    try:
        if upload.size > MAX_DESIGN_FILE_BYTES:
            raise InputError(_("design file {name} is larger than 1 MB ({bytes} bytes), the most a design file may "
                               "be").format(name=name, bytes=f"{MAX_DESIGN_FILE_BYTES:,}"))
        design = design_from_bytes(upload.getvalue(), name)
        try:
            resolve_design(design, state.CATALOG)  # unknown model or override id -> InputError, before applying
        except DesignError:
            pass  # a design the engine cannot build still loads: the page says why and offers the ways out
    except InputError as exc:
        ss[UPLOAD_RESULT] = ("error", str(exc), None, [])
    else:
        ss[UPLOAD_RESULT] = ("ok", name, design.model_dump_json(), state.apply_design(design))
    ss[UPLOAD_COUNTER] = ss.get(UPLOAD_COUNTER, 0) + 1  # an empty uploader again (the message names the file)


def _comparable(design: Design, nodes: int | None) -> dict:
    """A design's fields with its size as nodes (the sidebar keeps nodes, a file may give GPUs)."""
    data = design.model_dump()
    if nodes is not None:
        data.update(nodes=nodes, gpus=None)
    return data


def _upload_box(cur: state.Current, heading: bool = True) -> None:
    ss = st.session_state
    if heading:
        st.markdown("#### " + _("Load a design file"))
    widget = f"ho_upload_{ss.get(UPLOAD_COUNTER, 0)}"
    st.file_uploader(
        _("Design JSON file"), type=["json"], key=widget, on_change=_on_upload, args=(widget,),
        max_upload_size=1,
        help=_("A design file as this app writes it (Design as JSON) and {command} reads it; it replaces the "
               "design in the sidebar and the link. Files of at most 1 MB ({bytes} bytes).").format(
                   command="`python -m core plan --design design.json`", bytes=f"{MAX_DESIGN_FILE_BYTES:,}"))
    result = ss.pop(UPLOAD_RESULT, None)  # said once, on the run right after the file was chosen
    if not result:
        return
    if result[0] == "error":
        st.error(safe.md(i18n.sentences(_("This file was not loaded; the design is unchanged."),
                                        i18n.as_sentence(result[1]))))
        return
    _kind, name, loaded, warnings = result
    loaded_design = Design.model_validate_json(loaded)
    nodes = cur.plan.resolved.nodes if cur.plan is not None else cur.design.nodes if cur.design else None
    missed = [] if cur.design is None else [field for field, value in _comparable(loaded_design, nodes).items()
                                            if _comparable(cur.design, nodes).get(field) != value]
    if missed or warnings:  # the fields, then the codec's warnings: a few lines, each short (one rule for links)
        st.warning(safe.md(_("Loaded {name}, but these settings could not be set in the sidebar:").format(name=name))
                   + "\n\n" + pagestate.bullets(([", ".join(missed)] if missed else []) + warnings))
    else:
        st.success(safe.md(_("Loaded {name}: the sidebar and the link now hold its design.").format(name=name)))


# --- exports for operations teams ----------------------------------------------------------------
NAMING_WIDGETS = {"np": "ho_nm_np", "sp": "ho_nm_sp", "nd": "ho_nm_nd"}


@_in_session_language
def _on_naming_change() -> None:
    """Keep a valid naming scheme in the session store (the link's ``nm_`` keys); a bad one is said, not kept."""
    ss = st.session_state
    values = {"np": str(ss.get(NAMING_WIDGETS["np"], "")).strip(), "sp": str(ss.get(NAMING_WIDGETS["sp"], "")).strip(),
              "nd": int(ss.get(NAMING_WIDGETS["nd"], 3) or 3)}
    try:
        naming_scheme(values["np"], values["sp"], values["nd"])  # the settings as a whole (core.fabric.naming)
    except NamingError as exc:
        ss["_fp_naming_problem"] = _("{problem}. The exports keep {node} and {switch}.").format(
            problem=exc, node=ss.get(state.NAMING_STORE, {}).get("np", "gpu"),
            switch=ss.get(state.NAMING_STORE, {}).get("sp", "") or _("no switch prefix"))
        return
    ss[state.NAMING_STORE] = values


def _naming(cur: state.Current) -> NamingScheme:
    ss = st.session_state
    store = ss.setdefault(state.NAMING_STORE, {"np": "gpu", "sp": "", "nd": 3})
    for field, widget in NAMING_WIDGETS.items():  # a tab not shown drops its widgets' state: set it again
        if widget not in ss:
            ss[widget] = store.get(field, state.NAMING.params[list(NAMING_WIDGETS).index(field)].default)
    c1, c2, c3 = st.columns(3)
    c1.text_input(_("Node name prefix"), key=NAMING_WIDGETS["np"], on_change=_on_naming_change, max_chars=16,
                  help=_("Servers are named prefix + number: gpu001, gpu002, ..."))
    c2.text_input(_("Switch name prefix"), key=NAMING_WIDGETS["sp"], on_change=_on_naming_change, max_chars=16,
                  help=_("Put before every switch name (sw- gives sw-leaf01); may be empty."))
    c3.number_input(_("Digits"), min_value=1, max_value=8, step=1, key=NAMING_WIDGETS["nd"],
                    on_change=_on_naming_change, help=_("Least zero padding of the numbers (more when needed)."))
    problem = ss.pop("_fp_naming_problem", None)
    if problem:
        st.warning(safe.md(problem))
    try:  # with this design's devices too (its storage and management networks)
        scheme = naming_scheme(store["np"], store["sp"], int(store["nd"]), cur.plan)
    except NamingError as exc:
        st.error(safe.md(_("{problem}. The exports use the default names instead.").format(problem=exc)))
        scheme = NamingScheme()
    examples = name_examples(cur.plan, scheme)  # a design with pods: the whole design's names
    st.caption(_("Names in every export: {examples}, ... (every export and the cabling plan use the same "
                 "ones).").format(examples=", ".join(f"`{e}`" for e in examples)))
    return scheme


def _exports(cur: state.Current, key: str, lang: str) -> NamingScheme | None:
    """Every registered export format (``core.formats.exports``): built now for small designs; for large ones
    built when its button is pressed, by a worker process (``webui.jobs``), and streamed to the browser, not kept
    in the session. UTF-8 files named after the design. Returns the naming scheme the exports use."""
    registry = {name: export for name, export in exports().items() if export.fits(cur.plan)}
    st.markdown("#### " + _("Exports for operations teams"))
    if not registry:
        st.caption(_("No export formats are installed."))
        return None
    scheme = _naming(cur)
    naming = scheme.model_dump_json()
    plan = cur.plan
    if plan.design.pods:
        whole, alone = pod_coverage(plan)
        if alone:
            st.caption(_("A design with pods: the files {whole} cover every pod (names pod1-, pod2-, ...) and the "
                         "shared spines; the files {alone} describe pod 1 ({system}) alone.").format(
                whole=sep().join(whole) or "-", alone=sep().join(alone), system=plan.resolved.system.id))
        else:
            st.caption(i18n.sentences(_("A design with pods: every file covers every pod (names pod1-, pod2-, ...) "
                                        "and the shared spines."),
                                      _("A format that cannot say a pod's own GPUs or rates says so in its "
                                        "description.")))
    eager = plan.resolved.gpus <= EAGER_EXPORT_GPUS
    if not eager:
        st.caption(_("{gpus} GPUs: each file is built when you press its button (large files take a few "
                     "seconds, longer while the server is busy).").format(gpus=i18n.number(plan.resolved.gpus)))
    columns = st.columns(2, gap="medium")
    session = jobs.session_id()
    for i, (name, export) in enumerate(registry.items()):
        row = columns[i % 2].container(horizontal=True, vertical_alignment="center", wrap=False)
        file_name = filenames.export_file_name(plan, name, export.suffix)
        hint = export.label_for(plan)
        if not eager:
            row.download_button(name, data=functools.partial(_export_job, key, name, naming, lang, session),
                                file_name=file_name, mime=export.mime, on_click="ignore", key=f"ho_export_{name}",
                                help=file_name)
            row.caption(hint)
            continue
        data = _export_or_problem(key, name, naming, lang)
        if isinstance(data, bytes):
            row.download_button(name, data=data, file_name=file_name, mime=export.mime, on_click="ignore",
                                key=f"ho_export_{name}", help=f"{file_name}, {_size(len(data))}")
        else:
            row.button(name, key=f"ho_export_{name}", disabled=True, help=safe.md(data))
            hint = safe.md(data)  # greyed out: why, in place of what the file would hold
        row.caption(hint)
    return scheme


def _export_job(key: str, name: str, naming: str, lang: str, session: str | None) -> bytes:
    """A large design's export, built by a worker when its download is pressed (Streamlit calls this on a
    thread of its own); an export that cannot be written for the design is a short text file saying why."""
    from webui import jobwork

    try:
        return jobs.run_now("export", json.dumps([key, name, naming]), jobwork.export_bytes, key, name, naming,
                            session=session, language=lang)
    except (InputError, DesignError, jobs.Busy, jobs.Stopped) as exc:
        return (str(exc) + "\n").encode("utf-8")


def _export_or_problem(key: str, name: str, naming: str, lang: str):
    """The export's bytes, or the reason (text) it cannot be written for this design."""
    try:
        return cached.export_bytes(key, name, naming, lang)
    except (InputError, DesignError) as exc:
        return str(exc)


def _size(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f} MB"
    if count >= 1_000:
        return f"{count / 1_000:.0f} kB"
    return f"{count} B"


main()
