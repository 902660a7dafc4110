"""The Compare page (``pages/4_Compare.py`` runs ``main()``): up to four designs side by side, deltas against a
baseline, BOM differences, charts (session store -> core.analysis.compare -> core.figures.compare).

The page's code lives here, imported once per process, rather than in the page file: Streamlit compiles a page
script (with its "magic" AST pass) on every run where no script cache is kept (AppTest builds a new one per run;
about 30 ms for this page on the 2-core machine, a third of a rerun), the server once per process.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from core import units, vocab
from core import i18n
from core.analysis import compare as cmp
from core.design import MAX_GPUS, MAX_NAME_CHARS, Design, clean_name, most_nodes
from core.errors import FabricPlannerError, InputError
from core.figures import compare as figs
from core.figures.subtitle import design_line
from core.formats import comparelink, sharelink
from core.formats.joblink import DEFAULTS
from core.i18n import _
from core.perf.jobform import FITTED, job_caption
from core.plan import plan as make_plan
from core.perf.sizes import format_size
from webui import charts, inferencestate, jobs, jobstate, jobwork, pagestate, safe, state, tables

STORE = "fp_cmp"  # {"entries": [{"id", "name", "design" (JSON)}], "baseline": int, "sizes": [bytes], "next": int}
LINK = state.COMPARE_LINK  # the comparison's keys for the share link (webui.state.canonical_params adds them)
W = "cmp_w_"  # widget key prefix
SIZE_CHOICES = (64 * 2**10, 2**20, 16 * 2**20, 256 * 2**20, 2**30, 4 * 2**30, 16 * 2**30)
PAGE_PATH = "compare"


def _standalone_language() -> None:
    if "fp_current" not in st.session_state:
        chosen = i18n.from_locale(st.query_params.get("lang"))
        if chosen:
            i18n.set_language(chosen)


PAGE_LINK = pagestate.PageLink(STORE, comparelink.decode, lambda key: bool(comparelink.prefix_of(key)),
                               params_key="fp_cmp_params", warn_key="fp_cmp_warn")
"""The comparison in the link (``webui.pagestate``)."""


def _from_link(comparison: comparelink.Comparison, _params) -> dict:
    """The session's comparison as kept: its designs as JSON; with none in the link, the sidebar's design."""
    store = {"entries": [{"id": i, "name": e.name, "design": e.design.model_dump_json()}
                         for i, e in enumerate(comparison.entries)],
             "baseline": comparison.baseline, "sizes": list(comparison.sizes), "next": len(comparison.entries)}
    cur = st.session_state.get("fp_current")
    if not comparison.entries and cur is not None and cur.design is not None:  # start from the Designer's
        _add(store, "", cur.design)
    return store


def _store() -> dict:
    """The comparison of this session; read from the session's first link at the page's first run (a comparison
    link opened on another page still counts)."""
    return PAGE_LINK.values(_from_link)


def _comparison(store: dict) -> comparelink.Comparison:
    return comparelink.Comparison([comparelink.Entry(e["name"], Design.model_validate_json(e["design"]))
                                   for e in store["entries"]], store["baseline"], tuple(store["sizes"]))


def _set_design(entry: dict, design: Design) -> None:
    """Keep ``design`` as ``entry``'s, named as the column is (a column's name is its design's name)."""
    entry["design"] = design.model_copy(update={"name": entry["name"]}).model_dump_json()


def _add(store: dict, name: str, design: Design) -> None:
    """A column for ``design`` named ``name``, else the design's own name, else "Design N"."""
    entry = {"id": store["next"], "name": clean_name(name) or clean_name(design.name) or
             comparelink.default_name(len(store["entries"]))}
    _set_design(entry, design)
    store["entries"].append(entry)
    store["next"] += 1


def _on_add_current() -> None:
    cur = st.session_state.get("fp_current")
    store = st.session_state[STORE]
    if cur is None or cur.design is None or len(store["entries"]) >= cmp.MAX_DESIGNS:
        return
    _add(store, "", cur.design)


def _on_paste() -> None:
    ss = st.session_state
    store = ss[STORE]
    text = ss.get(W + "paste") or ""
    if len(store["entries"]) >= cmp.MAX_DESIGNS:
        ss["fp_cmp_problem"] = _("A comparison holds at most {count} designs; remove one first.").format(
            count=cmp.MAX_DESIGNS)
        return
    try:
        params = comparelink.parse_link(text)
        if comparelink.has_columns(params):  # a comparison link: all of its designs, or none
            pasted, warnings = comparelink.decode(params)
            room = cmp.MAX_DESIGNS - len(store["entries"])
            if len(pasted.entries) > room:
                raise InputError(_("The pasted comparison holds {count} designs and there is room for {room}; "
                                   "remove designs first.").format(count=len(pasted.entries), room=room))
            for e in pasted.entries:
                _add(store, e.name, e.design)
        else:
            design, warnings = comparelink.design_from_link(text)
            _add(store, ss.get(W + "paste_name") or "", design)
    except InputError as exc:
        ss["fp_cmp_problem"] = str(exc)  # the pasted text stays in the box
        return
    ss["fp_cmp_notes"] = warnings
    ss[W + "paste"] = ""
    ss[W + "paste_name"] = ""


def _entry(store: dict, ident: int) -> dict | None:
    return next((e for e in store["entries"] if e["id"] == ident), None)


def _on_duplicate(ident: int) -> None:
    store = st.session_state[STORE]
    entry = _entry(store, ident)
    if entry is None or len(store["entries"]) >= cmp.MAX_DESIGNS:
        return
    _add(store, _("{name} (copy)").format(name=entry["name"]), Design.model_validate_json(entry["design"]))


def _on_remove(ident: int) -> None:
    store = st.session_state[STORE]
    index = next((i for i, e in enumerate(store["entries"]) if e["id"] == ident), None)
    if index is None:
        return
    del store["entries"][index]
    if store["baseline"] == index or store["baseline"] >= len(store["entries"]):
        store["baseline"] = 0
    elif store["baseline"] > index:
        store["baseline"] -= 1
    st.session_state.pop(W + "base", None)


def _on_name(ident: int) -> None:
    entry = _entry(st.session_state[STORE], ident)
    if entry is not None:
        entry["name"] = clean_name(st.session_state.get(W + f"name_{ident}")) or entry["name"]
        _set_design(entry, Design.model_validate_json(entry["design"]))


def _on_apply_link(ident: int) -> None:
    ss = st.session_state
    entry = _entry(ss[STORE], ident)
    if entry is None:
        return
    try:
        design, warnings = comparelink.design_from_link(ss.get(W + f"link_{ident}") or "")
    except InputError as exc:
        ss["fp_cmp_problem"] = _("{name}: {problem}").format(name=entry["name"], problem=str(exc))
        return
    _set_design(entry, design)
    ss["fp_cmp_notes"] = [_("{name}: {warning}").format(name=entry["name"], warning=w) for w in warnings]


def _on_quick(ident: int, field: str) -> None:
    """One of a column's quick controls (nodes, fabric, oversubscription) changed: the column's design follows."""
    ss = st.session_state
    entry = _entry(ss[STORE], ident)
    if entry is None:
        return
    design = Design.model_validate_json(entry["design"])
    value = ss.get(W + f"{field}_{ident}")
    try:
        current = make_plan(design).resolved.fabric
    except FabricPlannerError:
        current = design.fabric or "infiniband"
    try:
        _set_design(entry, cmp.edited(design, {field: value}, current))
    except InputError as exc:
        ss["fp_cmp_problem"] = _("{name}: {problem}").format(name=entry["name"], problem=str(exc))


def _quick_controls(ident: int, entry: dict, column) -> None:
    """Nodes, fabric and leaf oversubscription of a column, seeded from its design whenever it changes."""
    ss = st.session_state
    design = column.design
    fabric = column.plan.resolved.fabric if column.plan is not None else (design.fabric or "infiniband")
    nodes = column.plan.resolved.nodes if column.plan is not None else (design.nodes or 1)
    # views of the design, set from it on every run (so a language switch, whose labels differ, keeps them)
    ss[W + f"nodes_{ident}"] = int(nodes)
    ss[W + f"fabric_{ident}"] = fabric
    ss[W + f"oversubscription_{ident}"] = float(design.oversubscription)
    resolved = column.plan.resolved if column.plan is not None else None
    most = (most_nodes(resolved.gpus_per_node, resolved.nvlink_level1_nodes) if resolved is not None
            else MAX_GPUS)  # the planner's one size limit (core.design)
    st.number_input(_("Nodes"), min_value=1, max_value=most, step=1, key=W + f"nodes_{ident}",
                    on_change=_on_quick, args=(ident, "nodes"))
    st.selectbox(_("Fabric"), list(vocab.FABRIC.ids), key=W + f"fabric_{ident}", format_func=vocab.FABRIC.label,
                 on_change=_on_quick, args=(ident, "fabric"))
    st.select_slider(_("Oversubscription (leaf down:up)"), key=W + f"oversubscription_{ident}",
                     options=sorted({*state.LEAF_OVERSUB_STEPS, float(design.oversubscription)}),
                     format_func=units.ratio, on_change=_on_quick, args=(ident, "oversubscription"))


def _design_link(design: Design) -> str:
    """The design's own share link (a normal Designer link, in this run's language)."""
    return state.share_url(state.DESIGNER_PATH, {**sharelink.encode(design), state.LANG_KEY: i18n.current()})


def _on_base() -> None:
    st.session_state[STORE]["baseline"] = int(st.session_state[W + "base"])


def _on_sizes() -> None:
    chosen = [int(s) for s in st.session_state.get(W + "sizes") or []][: cmp.MAX_SIZES]
    st.session_state[STORE]["sizes"] = sorted(chosen) or list(cmp.DEFAULT_SIZES)


def _job_settings() -> tuple[dict, set[str]]:
    """The Performance page's job (the session's, else the link's) and the settings the user left alone,
    which are fitted to each design as the Performance page fits them to its design."""
    ss = st.session_state
    jobstate.init(pagestate.link_params())
    store = dict(ss[jobstate.STORE])
    fitted = ss.get(jobstate.FITTED_STORE) or {}
    return store, {k for k in FITTED if k in fitted and (fitted[k] is None or fitted[k] == store.get(k))}


@st.cache_resource(max_entries=32, show_spinner=False)
def _compare(key: str, baseline: int, language: str) -> cmp.Comparison:
    """``core.analysis.compare.compare`` of the comparison ``key`` (JSON: names, designs, sizes, job, fitted
    keys, the Inference page's settings) in ``language``; cached (nothing mutates a Comparison)."""
    data = json.loads(key)
    with i18n.language(language):
        designs = [(name, Design.model_validate_json(design)) for name, design in data["designs"]]
        return cmp.compare(designs, baseline, data["settings"], tuple(data["sizes"]), fit=set(data["free"]),
                           defaults=DEFAULTS, serving=data["serving"])


@st.cache_resource(max_entries=32, show_spinner=False)
def _figures(key: str, language: str, unit: str):
    """The three charts (they do not depend on the baseline, so a baseline change redraws none); bandwidth in
    ``unit``."""
    result = _compare(key, 0, language)
    with i18n.language(language):
        return figs.cost_figure(result), figs.bandwidth_figure(result, unit=unit), figs.days_figure(result)


def _column_header(index: int, name: str) -> str:
    return f"{index + 1}. {name}"


def _colour(verdict: str | None) -> str:
    return {"better": "color: #1e8449; font-weight: 600", "worse": "color: #c0392b; font-weight: 600"}.get(
        verdict or "", "")


def _tables(result: cmp.Comparison, unit: str):
    rows, verdicts = figs.comparison_rows(result, unit)
    frame = pd.DataFrame(rows)
    colours = pd.DataFrame(verdicts).map(_colour) if verdicts else None
    styled = frame.style.apply(lambda _f: colours, axis=None) if colours is not None else frame
    # each column as wide as its widest cell: the grid sizes a column by its first rows, which cut the longer
    # labels and deltas further down ("Capex, compute fabric and NVLink level", "Inference deployme"); the group
    # and the metric stay in view when the designs scroll sideways
    config = {column: st.column_config.TextColumn(column, width=tables.fitting_width(frame[column].tolist(), column),
                                                  pinned=i < 2) for i, column in enumerate(frame.columns)}
    st.dataframe(styled, hide_index=True, width="stretch", column_config=config,
                 height=min(35 * (len(rows) + 1) + 3, 1400))  # 35 px a row and the header


@st.cache_resource(max_entries=32, show_spinner=False)
def _results(key: str, baseline: int, language: str, unit: str) -> None:
    """The numbers table, the BOM difference and the three charts of the comparison ``key`` against ``baseline``
    in ``language``, bandwidth in ``unit``.

    Cached with its elements: Streamlit records the elements a cached function draws and replays their messages
    on a hit (https://docs.streamlit.io/develop/concepts/architecture/caching, "Using Streamlit commands in cached
    functions"), so a rerun that changes nothing here (a column's controls, the review pack, the language back)
    sends the same tables and charts without styling the table or serialising three figures again. No widget in
    here (a cached function must not hold one)."""
    result = _compare(key, baseline, language)
    with i18n.language(language):
        st.subheader(_("Numbers"))
        _tables(result, unit)
        st.caption(_("Training rows: the Performance page's job on each design; the model, tp, pp and global batch "
                     "you have not set there are fitted to each design as that page fits them (each column names its "
                     "split). Costs are estimates from the catalog's price book."))
        st.caption(_("Inference rows: the Inference page's deployment on each design, at the load that page shows it "
                     "at (its settings; pools and splits left at 0 chosen for each design)."))
        if len(result.columns) > 1:
            st.subheader(_("Bill of materials: what changes"))
            bom = figs.bom_rows(result)
            if bom:
                st.dataframe(pd.DataFrame(bom), hide_index=True, width="stretch")
            else:
                st.caption(_("The designs have the same bill of materials."))
        st.subheader(_("Charts"))
        cost, bandwidth, days = _figures(key, language, unit)
        g1, g2 = st.columns(2)  # a bar per design: half the width holds them
        charts.chart(cost, "half", g1, key="cmp_cost_chart", config={"displaylogo": False})
        charts.chart(days, "half", g2, key="cmp_days_chart", config={"displaylogo": False})
        # a bar group per metric, a design with pods a group per pod: at half the width their names turned
        # upright in Chinese at 1,024 px and slanted at 1,280 px
        charts.chart(bandwidth, "full", key="cmp_bw_chart", config={"displaylogo": False})


def main() -> None:
    _standalone_language()
    st.title(_("Compare designs"))
    ss = st.session_state
    store = _store()
    PAGE_LINK.show_warnings(_("Some values in the comparison link were not applied; the rest is shown."),
                            dismiss_key=W + "dismiss")
    cur = ss.get("fp_current")
    if cur is not None:
        state.show_warnings(cur)  # the link's design keys (an unknown key such as c1), as on every page
    st.caption(i18n.sentences(
        _("Up to {count} designs side by side: add the Designer's design, paste a share link, or duplicate "
          "a column and edit it. Deltas are against the baseline column; green is better, red worse.").format(
              count=cmp.MAX_DESIGNS),
        cmp.capex_rows_words(Design.model_validate_json(e["design"]) for e in store["entries"])))

    full = len(store["entries"]) >= cmp.MAX_DESIGNS
    c1, c2, c3, c4 = st.columns([1.3, 2.2, 1.2, 0.8], vertical_alignment="bottom")
    c1.button(_("Add the Designer's design"), key=W + "add", on_click=_on_add_current,
              disabled=full or cur is None or cur.design is None, width="stretch")
    c2.text_input(_("Share link of a design"), key=W + "paste", max_chars=comparelink.MAX_LINK,
                  placeholder=sharelink.example_link(cur.design if cur is not None else None),
                  help=_("Copy the link of any design (the Share box of the app) and paste it here."))
    c3.text_input(_("Name"), key=W + "paste_name", max_chars=MAX_NAME_CHARS,
                  placeholder=comparelink.default_name(len(store["entries"])))
    c4.button(_("Add link"), key=W + "add_link", on_click=_on_paste, disabled=full, width="stretch")
    if full:
        st.caption(_("A comparison holds at most {count} designs; remove one to add another.").format(
            count=cmp.MAX_DESIGNS))
    problem = ss.pop("fp_cmp_problem", None)
    if problem:
        st.error(safe.md(problem))
    for note in sharelink.capped_warnings(ss.pop("fp_cmp_notes", None) or []):
        st.warning(safe.md(_("Pasted link: {warning}").format(warning=note)))

    entries = store["entries"]
    if not entries:
        st.info(_("No designs yet: add the Designer's design or paste a share link."))
        _remember(store)
        return

    # --- settings: baseline, sizes -----------------------------------------------------------------------
    store["baseline"] = min(store["baseline"], len(entries) - 1)
    ss[W + "base"] = store["baseline"]
    names = [e["name"] for e in entries]
    s1, s2 = st.columns([1, 2])
    s1.selectbox(_("Baseline"), list(range(len(entries))), key=W + "base", on_change=_on_base,
                 format_func=lambda i: _column_header(i, names[i]) if i < len(names) else str(i + 1),
                 help=_("Every delta is this design's number subtracted from the other design's."))
    options = sorted({*SIZE_CHOICES, *store["sizes"]})
    ss[W + "sizes"] = list(store["sizes"])
    s2.multiselect(_("All-reduce sizes"), options, key=W + "sizes", on_change=_on_sizes, format_func=format_size,
                   max_selections=cmp.MAX_SIZES,
                   help=_("Message sizes of the all-reduce rows (busbw on every GPU of each design, NCCL's "
                          "fastest default algorithm)."))

    # --- the columns -------------------------------------------------------------------------------------
    settings, free = _job_settings()
    lang = i18n.locale()  # the cache key: language and currency
    key = json.dumps({"designs": [(e["name"], e["design"]) for e in entries], "sizes": list(store["sizes"]),
                      "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()},
                      "free": sorted(free), "serving": dict(inferencestate.LINK.values())}, sort_keys=True)
    result, unit = _compare(key, store["baseline"], lang), state.bandwidth_unit()
    cols = st.columns(len(entries))
    for index, (col, entry, column) in enumerate(zip(cols, entries, result.columns)):
        ident = entry["id"]
        with col:
            badge = " · " + _("baseline") if index == store["baseline"] else ""
            st.markdown(f"**{safe.md(_column_header(index, entry['name']))}**{safe.md(badge)}")
            if column.plan is not None:
                st.caption(design_line(column.plan))  # the Designer's line: the design and its price basis
            else:
                st.error(safe.with_way_out(safe.md(_("This design cannot be built: {problem}").format(
                    problem=column.error_message)), safe.md(column.way_out)))
            if column.job is not None and "days_to_train" in column.values:
                st.caption(job_caption(column.job, column.plan))
            for note in column.all_notes(unit):
                st.caption(safe.md(note))
            b1, b2 = st.columns(2)
            b1.button(_("Duplicate"), key=W + f"dup_{ident}", on_click=_on_duplicate, args=(ident,),
                      disabled=len(entries) >= cmp.MAX_DESIGNS, width="stretch")
            b2.button(_("Remove"), key=W + f"rm_{ident}", on_click=_on_remove, args=(ident,), width="stretch")
            st.link_button(_("Open in Designer"), _design_link(column.design), width="stretch")

    # --- one editor for the column chosen (one set of controls keeps reruns quick with four designs) ----------
    with st.expander(_("Edit a design"), expanded=False):
        idents = [e["id"] for e in entries]
        if ss.get(W + "edit") not in idents:
            ss[W + "edit"] = idents[0]
        labels = {e["id"]: _column_header(i, e["name"]) for i, e in enumerate(entries)}
        ident = st.selectbox(_("Design to edit"), idents, key=W + "edit", format_func=lambda i: labels.get(i, str(i)))
        index = idents.index(ident)
        entry, column = entries[index], result.columns[index]
        e1, e2 = st.columns([1, 2])
        with e1:
            if W + f"name_{ident}" not in ss:
                ss[W + f"name_{ident}"] = entry["name"]
            st.text_input(_("Name"), key=W + f"name_{ident}", max_chars=MAX_NAME_CHARS,
                          on_change=_on_name, args=(ident,))
            _quick_controls(ident, entry, column)
        with e2:
            query = _design_link(column.design)
            if W + f"link_{ident}" not in ss or ss.get(W + f"link_for_{ident}") != entry["design"]:  # follows the design
                ss[W + f"link_{ident}"] = query
                ss[W + f"link_for_{ident}"] = entry["design"]
            st.text_area(_("Design link"), key=W + f"link_{ident}", max_chars=comparelink.MAX_LINK, height=150,
                         help=_("Edit the design's link keys (e.g. `n=128`, `f=eth`, `os=2`) or paste another design's "
                                "link, then apply."))
            st.button(_("Apply"), key=W + f"apply_{ident}", on_click=_on_apply_link, args=(ident,))

    # --- numbers, BOM, charts: drawn once per comparison, baseline and language, replayed after ------------
    _results(key, store["baseline"], lang, unit)
    _review_pack(store, key, result, lang, unit)
    _remember(store)


PACK = "fp_cmp_pack"  # the review pack asked for: (comparison key, baseline, language, unit, cover JSON)


def _review_pack(store: dict, key: str, result: cmp.Comparison, lang: str, unit: str) -> None:
    """The comparison as a review pack (HTML and PDF, core.formats.report): built on a click by a worker process
    (``webui.jobs``; the PDF takes a Chromium launch), for this comparison, baseline and language (a change shows
    the button again)."""
    from core.formats.report import COVER_TEXT_CHARS

    ss = st.session_state
    st.subheader(_("Review pack"))
    c1, c2, c3 = st.columns([3, 3, 2])
    cover = json.dumps({"customer": c1.text_input(_("Customer"), key=W + "pack_customer", max_chars=COVER_TEXT_CHARS),
                        "author": c2.text_input(_("Prepared by"), key=W + "pack_author", max_chars=COVER_TEXT_CHARS),
                        "version": c3.text_input(_("Version"), key=W + "pack_version", max_chars=COVER_TEXT_CHARS,
                                                 placeholder="v1.0")}, sort_keys=True)
    wanted = (key, store["baseline"], lang, unit, cover)
    if ss.get(PACK) != wanted:
        st.caption(_("The comparison as one self-contained HTML file and as an A4 PDF: the numbers with deltas, what "
                     "changes in the bill of materials, the charts and one section per design."))
        if not st.button(_("Build the review pack (HTML and PDF)"), key=W + "pack"):
            return
        ss[PACK] = wanted
    link = state.share_url(PAGE_PATH, {**comparelink.encode(_comparison(store)), state.LANG_KEY: i18n.current()})
    name = _("Comparison of {count} designs").format(count=len(result.columns))
    finished, pack = jobs.result("report", json.dumps([key, store["baseline"], link, unit, cover]),
                                 jobwork.comparison_report, result, name, link, unit, cover,
                                 what=_("Building the review pack"))
    if not finished:
        return
    if isinstance(pack, FabricPlannerError):
        st.error(safe.md(_("The review pack could not be built: {problem}").format(problem=pack)))
        return
    html, pdf, problem = pack
    row = st.container(horizontal=True)
    row.download_button(_("Review pack (HTML)"), data=html, file_name="fabric-comparison.html",
                        mime="text/html", on_click="ignore", key=W + "pack_html")
    if pdf is not None:
        row.download_button(_("Review pack (PDF)"), data=pdf, file_name="fabric-comparison.pdf",
                            mime="application/pdf", on_click="ignore", key=W + "pack_pdf")
    else:
        st.warning(safe.md(problem))


def _remember(store: dict) -> None:
    """The comparison's link keys, for the share link (``webui.state.canonical_params``) or, run on its own,
    for the address bar."""
    ss = st.session_state
    params = comparelink.encode(_comparison(store))
    ss[LINK] = params
    if "fp_current" not in ss:  # run as a page of its own (AppTest of the page file)
        qp = st.query_params
        for key in list(qp.to_dict()):
            if comparelink.prefix_of(key) and key not in params:
                del qp[key]
        qp.update(params)
