"""The as-built check on the Designer's Hand-off tab (thin: an upload -> core.formats' readers ->
core.analysis.verify -> a summary, the faults in fix order and their CSV).

The same check as ``python -m core verify``: one as-built file (ibnetdiscover output, LLDP JSON or the NetBox
cables CSV), an optional name mapping, speeds compared or not. It runs in the page for designs of up to
``MAX_GPUS`` GPUs (the diff and pricing of a 2,048-GPU fabric take about half a second) and files of up to the
server's upload limit (2 MB, ``.streamlit/config.toml``); larger ones are pointed to the command line. Bad files get one escaped message and change nothing.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core import i18n, units
from core.analysis.verify import ACTION_LABELS, KINDS, faults_csv, verify
from core.errors import FabricPlannerError
from core.fabric.naming import NamingScheme
from core.formats import ibnetdiscover, lldp, netbox
from core.formats.exports import on_infiniband
from core.formats.asbuilt import read_mapping
from core.formats.filenames import design_slug
from core.formats.slurm import node_groups
from core.i18n import N_, _
from webui import safe, state

W = "vf_w_"
"""Widget key prefix."""
MAX_GPUS = 4096
"""Largest design checked in the page (the command line has no limit)."""
SOURCES = {"ibnetdiscover": N_("ibnetdiscover output (InfiniBand)"), "lldp": N_("LLDP JSON (Ethernet)"),
           "netbox": N_("NetBox cables CSV")}
READERS = {"ibnetdiscover": ibnetdiscover.read_ibnetdiscover, "lldp": lldp.read_lldp, "netbox": netbox.read_cables}
SHOWN_ROWS = 500
"""Faults the table shows (the CSV has every one)."""


def _bandwidth(gbits: float) -> str:
    """A bandwidth [Gb/s] in the sidebar's unit (``core.units``, one format everywhere)."""
    return units.bandwidth(gbits, state.bandwidth_unit())


def _ends(ends: dict | None, a: str = "a_name", b: str = "b_name") -> str:
    """A link's two ends as ``device port - device port`` (the planned ends by their exported names)."""
    if not ends:
        return ""
    return f"{ends[a]} {ends['a_port']} - {ends[b]} {ends['b_port']}"


def _rows(out: dict) -> pd.DataFrame:
    """The faults in fix order, one row each, with their impact (a design with pods: the bandwidth into the shared
    spines, ``core.formats.podverify``)."""
    faults = {f["id"]: f for f in (*out["missing"], *out["extra"], *out["miswired"])}
    rows = []
    for fix in out["fixes"][:SHOWN_ROWS]:
        fault = faults[fix["fault"]]
        impact = fault["impact"]
        row = {_("Fix"): fix["rank"], _("Action"): _(ACTION_LABELS[fix["action"]]),
               _("Fault"): _(KINDS[fault["kind"]]), _("Planned"): _ends(fault["planned"]),
               _("Found"): _ends(fault["found"], "a", "b")}
        if "spine_gbps_back" in fix:
            row.update({_("Into the shared spines back"): _bandwidth(fix["spine_gbps_back"]),
                        _("GPUs cut off"): impact.get("gpus_cut_off"), _("GPUs degraded"): impact.get("gpus_degraded"),
                        _("Into the shared spines lost"): _bandwidth(impact.get("spine_gbps_lost") or 0)})
        else:
            row.update({_("All-reduce back"): _bandwidth(units.from_gbytes(fix["allreduce_busbw_back_gbytes"] or 0)),
                        _("GPUs cut off"): impact.get("gpus_cut_off"), _("GPUs degraded"): impact.get("gpus_degraded"),
                        _("Bisection lost"): _bandwidth(units.from_tbits(impact.get("bisection_lost_tbits") or 0)),
                        _("Slurm switches"): " ".join(fault["where"]["slurm_switches"])})
        rows.append(row)
    return pd.DataFrame(rows)


def _summary(out: dict) -> None:
    cov, impact = out["coverage"], out["impact"]
    columns = st.columns(4)
    columns[0].metric(_("Matched"), units.percent(cov['matched_share']),
                      help=_("{matched} of {planned} planned links").format(
                          matched=i18n.number(cov["matched_links"]), planned=i18n.number(cov["planned_links"])))
    for column, key, label in ((columns[1], "missing", _("Missing")), (columns[2], "extra", _("Extra")),
                               (columns[3], "miswired", _("Miswired"))):
        column.metric(label, i18n.number(len(out[key])))
    healthy = impact.get("healthy")
    if "spine_gbps_lost" in impact:  # a design with pods: the whole fabric
        st.caption(safe.md(_("All faults together: {cut} GPUs cut off, {degraded} degraded, {lost} into the shared "
                             "spines lost (per direction).").format(
            cut=i18n.number(impact["gpus_cut_off"]), degraded=i18n.number(impact["gpus_degraded"]),
            lost=_bandwidth(impact["spine_gbps_lost"]))))
    elif healthy and healthy.get("allreduce_busbw_gbytes") is not None:
        now = impact.get("allreduce_busbw_gbytes")
        st.caption(safe.md(_("All faults together: {cut} GPUs cut off, {degraded} degraded, {bisection} of "
                             "bisection lost; all-reduce 1 GiB {now} (healthy {healthy}).").format(
            cut=i18n.number(impact["gpus_cut_off"]), degraded=i18n.number(impact["gpus_degraded"]),
            bisection=_bandwidth(units.from_tbits(impact["bisection_lost_tbits"])),
            now="-" if now is None else _bandwidth(units.from_gbytes(now)),
            healthy=_bandwidth(units.from_gbytes(healthy["allreduce_busbw_gbytes"])))))
    for key, label in (("per_rack", _("per rack")), ("per_leaf", _("per leaf")), ("per_rail", _("per rail"))):
        counts = list(out["summary"][key].items())
        if counts:
            st.caption(safe.md(f"{label}: " + ", ".join(f"{name} {count}" for name, count in counts[:16])
                               + (" ..." if len(counts) > 16 else "")))
    for note in out["notes"]:
        st.info(safe.md(note))


def summary_gpus(plan) -> int:
    """GPUs of ``plan``'s design: every pod's for a design with pods (its mixed plan; pod 1's when the pods cannot
    be planned together)."""
    from core.analysis.whole import design_mixed

    try:
        mixed = design_mixed(plan.design)
    except FabricPlannerError:
        mixed = None
    return plan.resolved.gpus if mixed is None else mixed.fabric.gpus


def section(plan, scheme: NamingScheme | None = None) -> None:
    """The as-built check of ``plan`` (its devices named by ``scheme``, as the exports name them)."""
    st.markdown("#### " + _("Check the built fabric"))
    st.caption(_("Upload what the fabric reports: every difference from the cabling plan, each priced with the "
                 "failure what-if, in the order to fix them."))
    infiniband = on_infiniband(plan)
    sources = [k for k in SOURCES if infiniband or k != "ibnetdiscover"]  # InfiniBand's own tool: not on Ethernet
    if st.session_state.get(W + "kind", sources[0]) not in sources:  # kept from an InfiniBand design
        del st.session_state[W + "kind"]
    kind = st.radio(_("As-built file"), sources, format_func=lambda k: _(SOURCES[k]), horizontal=True,
                    key=W + "kind")
    upload = st.file_uploader(_("As-built file (at most 2 MB here, about 2,048 GPUs of ibnetdiscover output; "
                                "larger files on the command line)") if infiniband else
                              _("As-built file (at most 2 MB here, about 2,048 GPUs; larger files on the command "
                                "line)"), key=W + "file")
    mapping = st.file_uploader(_("Name mapping (optional CSV: found name or GUID, planned device)"),
                               type=["csv", "txt"], key=W + "map")
    skip = st.checkbox(_("Do not compare link speeds (a simulator reports its own)"), key=W + "skip")
    if upload is None:
        return
    gpus = summary_gpus(plan)
    if gpus > MAX_GPUS:
        st.info(_("{gpus} GPUs: run the check on the command line ({command}).").format(
            gpus=i18n.number(gpus), command="python -m core verify"))
        return
    try:
        names = read_mapping(mapping.getvalue()) if mapping is not None else {}
        found = READERS[kind](upload.getvalue())
        if plan.design.pods:  # the whole fabric: every pod under the shared spines
            from core.formats.podverify import verify_pods
            from core.analysis.whole import design_mixed

            out = verify_pods(design_mixed(plan.design), found, names, scheme, skip_speed=skip)
        else:
            out = verify(plan, found, names, scheme, skip_speed=skip, slurm=node_groups(plan, scheme))
    except FabricPlannerError as exc:
        st.error(safe.md(exc))
        return
    _summary(out)
    if out["fixes"]:
        st.dataframe(_rows(out), hide_index=True)
        st.download_button(_("Faults as CSV"), data=faults_csv(out), file_name=f"{design_slug(plan)}-faults.csv",
                           mime="text/csv", on_click="ignore", key=W + "csv")
    else:
        st.success(_("Every planned link was found as planned."))
