"""Mixed pods on the Designer: the sidebar's pod list and its "add a pod" form, and the pods section
(``core.analysis.pods``: each pod's leaves, the shared spine layer, the slower pod's bound, the mixed bill)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.analysis.pods import mixed_links, mixed_plan, pods_summary
from core.catalog import load_catalog
from core.cost import bom_dataframe
from core.design import FIELDS, Design, check_pods
from core.errors import FabricPlannerError, InputError
from core import units
from core.i18n import _, language as speaking
from webui import safe, tables

CATALOG = load_catalog()
K = "w_"  # the sidebar's widget key prefix (webui.state.K)
ADD = {"system": K + "pod_add_system", "nodes": K + "pod_add_nodes", "speed": K + "pod_add_speed",
       "stage": K + "pod_add_stage"}
"""Session keys of the "add a pod" form (not design fields: the pod list is)."""
AUTO = "auto"
CABLE_COLUMNS = ["link_class", "a_device", "a_port", "z_device", "z_port", "gbps"]
"""Columns of the mixed cabling CSV (``core.analysis.pods.mixed_links``; speed per direction [Gb/s])."""


def _add_pod() -> None:
    """Append the form's pod to the pod list (``Design.pods``, ``check_pods``'s form); a list that would break a
    rule stays as it was, with the rule said under the form."""
    ss = st.session_state
    speed = ss.get(ADD["speed"], AUTO)
    item = f"{ss[ADD['system']]}:{int(ss[ADD['nodes']])}" + ("" if speed == AUTO else f":{speed}") + (
        f"@{int(ss[ADD['stage']])}" if ss.get(ADD["stage"]) else "")
    try:
        ss[K + "pods"] = check_pods(",".join(x for x in (ss.get(K + "pods") or "", item) if x)) or ""
        ss.pop("_fp_pod_problem", None)
    except InputError as exc:
        ss["_fp_pod_problem"] = str(exc)


def pod_widgets() -> None:
    """The pod list, the "add a pod" form and the final-stage spine switch, in the "Advanced fabric" expander
    (their values are read with every other widget's: ``webui.state._design_data``)."""
    ss = st.session_state
    st.text_input(FIELDS["pods"].title(), key=K + "pods", placeholder=_("e.g. {example}").format(
        example="B200:32:800@1"), help=_("Pods of other GPU systems under the same spine layer, as "
                                         "SYSTEM:NODES[:GBPS][@STAGE] separated by commas; the design above is the "
                                         "first pod. Each pod has its own leaves; the spines are shared."))
    with st.container(border=True):
        st.caption(_("Add a pod"))
        ss.setdefault(ADD["system"], ss.get(K + "gpu", CATALOG.systems[0].id))  # the design's own to start with
        st.selectbox(_("GPU model"), [s.id for s in CATALOG.systems], key=ADD["system"])
        c1, c2 = st.columns(2)
        c1.number_input(_("Nodes"), min_value=1, max_value=100_000, value=32, step=1, key=ADD["nodes"])
        c2.selectbox(_("Port speed"), [AUTO, 100, 200, 400, 800, 1600], key=ADD["speed"],
                     format_func=lambda v: _("auto") if v == AUTO else f"{v}G")
        st.number_input(_("Stage"), min_value=0, max_value=16, value=0, step=1, key=ADD["stage"],
                        help=_("The growth stage that adds the pod (0: built now)."))
        st.button(_("Add pod"), on_click=_add_pod, key="fp_pod_add")  # a button is no value to restore
        if ss.get("_fp_pod_problem"):
            st.warning(safe.md(ss["_fp_pod_problem"]))
    st.toggle(FIELDS["pods_final"].title(), key=K + "pods_final",
              help=_("With pods added at later stages: install the spine layer for the final stage from the start, "
                     "so adding a stage moves no cable (the Racks & cabling tab's growth stages)."))


@st.cache_resource(max_entries=16, show_spinner=False)
def _mixed(key: str, language: str):
    """(pods summary, mixed BOM frame, compute cabling frame) of the design ``key`` (in ``language``): its pods
    build together (the sidebar planned it with them, ``core.analysis.whole.plan_with_pods``, or said why not)."""
    with speaking(language):
        mixed = mixed_plan(Design.model_validate_json(key))
        cables = pd.DataFrame(list(mixed_links(mixed)), columns=CABLE_COLUMNS)
        return pods_summary(mixed), bom_dataframe(mixed.bom), cables


def pods_section(design: Design, key: str, language: str) -> None:
    """The mixed pods under the key numbers: a row per pod, the shared spine layer, the bound across pods, the
    mixed totals and the mixed bill as CSV (nothing for a design without ``pods``)."""
    if not design.pods:
        return
    summary, bom, cables = _mixed(key, language)
    from core.analysis.pods import pods_title

    with st.expander(pods_title(summary), expanded=True):
        from webui import state  # the sidebar's bandwidth unit (state imports this module for its widgets)

        unit = state.bandwidth_unit()
        _pods_panel(summary, unit)
        st.download_button(_("Download the mixed bill of materials (CSV)"), bom.to_csv(index=False).encode("utf-8"),
                           file_name="mixed-bom.csv", mime="text/csv", key="pods_bom_csv")
        st.download_button(_("Download the compute cabling of every pod (CSV)"),
                           cables.to_csv(index=False).encode("utf-8"), file_name="mixed-cabling.csv", mime="text/csv",
                           key="pods_cabling_csv")


def _pods_panel(summary: dict, unit: str) -> None:
    """The pods tab, on two tiers or three alike: a caption of how the pods are sized, a column per pod (its leaves,
    on three tiers its own spines, its uplinks; bandwidths in ``unit``), then the shared layer's, the bound across
    pods' and the mixed totals' lines (``core.analysis.pods.pods_lines``, as the CLI and the review pack say them)."""
    from core.analysis.podcoreplan import three_tiers_note
    from core.analysis.pods import pods_lines

    three = "cores" in summary  # pods on three tiers (core.fabric.podcore)
    st.caption(three_tiers_note() if three else _(
        "The numbers above are the whole design's: every pod's nodes and leaves, the shared spines and the mixed "
        "bill. Each pod has its own leaves sized for its nodes and NIC speed; the spine layer is shared and sized "
        "for the sum of their uplinks."))
    rows = []
    for p in summary["pods"]:
        row = {_("Pod"): p["pod"], _("GPU model"): p["system"],
               **({_("Stage"): p["stage"]} if summary.get("stages", 1) > 1 else {}),  # one stage: no column
               _("Nodes"): p["nodes"], _("GPUs"): p["gpus"], _("Leaves"): p["leaves"], _("Leaf switch"): p["leaf_switch"],
               _("Port speed"): f"{p['port_speed_gbps']}G", _("Uplinks per leaf"): p["uplinks_per_leaf"],
               _("Uplink speed"): f"{p['uplink_speed_gbps']}G"}
        row.update({_("Spines"): p["spines"], _("Spine switch"): p["spine_switch"]} if three else
                   {_("Uplinks per spine port"): p["uplinks_per_spine_port"]})
        row[_("Per GPU across the fabric")] = units.bandwidth(p.get("cross_gbps_per_gpu", p["gbps_per_gpu"]), unit)
        row[_("All-reduce of 1 GiB on the pod (bus bandwidth)")] = units.bandwidth(
            units.from_gbytes(p["allreduce_busbw_gbytes"]), unit)
        rows.append(row)
    tables.show_turned(rows, _("Pod"))  # a column per pod: thirteen fields across were cut at 1,024 px
    for label, words in pods_lines(summary, unit)[len(summary["pods"]):]:
        st.markdown(_("{label}: {note}").format(label=f"**{safe.md(label[:1].upper() + label[1:])}**",
                                                note=safe.md(words)))  # a full-width colon in Chinese


@st.cache_resource(max_entries=16, show_spinner=False)
def pod_keys(key: str, language: str) -> list[tuple[str, str]]:
    """(heading, design JSON) of each pod of the design ``key`` planned alone (``MixedPlan.plans``: its system,
    NICs, leaves and racks), for the views that show a pod at a time (scale-up, bandwidth); empty without
    pods or when they cannot be planned together (the pods section says why). Headings in ``language``."""
    with speaking(language):
        design = Design.model_validate_json(key)
        if not design.pods:
            return []
        try:
            mixed = mixed_plan(design)
        except FabricPlannerError:
            return []
        return [(_("Pod {pod}: {system}, {nodes} nodes, leaves at {speed}G").format(
            pod=pod.index + 1, system=pod.system, nodes=f"{pod.nodes:,}", speed=pod.port_speed_gbps),
            p.design.model_dump_json()) for pod, p in zip(mixed.fabric.pods, mixed.plans)]


@st.cache_resource(max_entries=32, show_spinner=False)
def explanation(key: str, language: str) -> tuple[str, ...]:
    """How the fabric of the design ``key`` was sized (``FabricPlan.explanation``), in ``language`` (a pod's design
    JSON from ``pod_keys``: that pod planned alone)."""
    from core.plan import plan

    with speaking(language):
        return tuple(plan(Design.model_validate_json(key)).fabric.explanation)
