"""The pod a job runs on, for a design with pods (``Design.pods``): one choice for the Performance and Inference
pages, kept with the job's settings (the link's ``perf_pod``, ``core.formats.joblink``), and the words saying which
pod's system the estimates use and the bound across pods (``core.analysis.whole.pod_plan``)."""

from __future__ import annotations

import streamlit as st

from core.analysis.whole import pod_count, pod_plan
from core.errors import FabricPlannerError
from core.fabric.pods import pod_specs
from core.i18n import N_, _
from webui import safe
from webui.jobstate import STORE, W

KEY = W + "pod"
"""The selectbox's session key (the job widgets' prefix and the link's key ``pod``)."""


def _keep() -> None:
    """The chosen pod into the job's stored settings (the Inference page draws no other job widget)."""
    st.session_state.setdefault(STORE, {})["pod"] = st.session_state[KEY]


HELP = {"job": N_("A job runs on one pod of the design: its GPU system, NICs and leaves."),
        "deployment": N_("A deployment runs on one pod of the design: its GPU system, NICs and leaves.")}
"""The choice's help by workload (``core.analysis.whole.RUNS_ON``'s keys)."""


def pick_pod(plan, unit: str, workload: str = "job"):
    """A design with pods: the "Runs on pod" choice and the words under it; returns the plan the ``workload`` runs
    on ("job" or "deployment": ``core.analysis.whole.RUNS_ON``; the pod planned alone); the bandwidth in the words
    in ``unit`` ("GB/s" or "Gb/s", the page's). Without pods ``plan`` itself, nothing drawn. Pods that cannot be planned together
    are a warning, and the first pod alone is used."""
    design = plan.design
    count = pod_count(design)
    if count < 2:
        return plan
    ss = st.session_state
    stored = int((ss.get(STORE) or {}).get("pod", 1))
    if ss.get(KEY) not in range(1, count + 1):
        ss[KEY] = stored if 1 <= stored <= count else 1
    specs = pod_specs(design)
    pod = st.columns([3, 2])[0].selectbox(_("Runs on pod"), list(range(1, count + 1)), key=KEY, on_change=_keep,
                       format_func=lambda i: _("pod {pod}: {system} x {nodes} nodes").format(
                           pod=i, system=specs[i - 1].system, nodes=f"{specs[i - 1].nodes:,}"),
                       help=_(HELP[workload]))
    _keep()
    try:
        chosen, words = pod_plan(plan, int(pod), unit, workload)
    except FabricPlannerError as exc:
        st.warning(safe.md(str(exc)))
        return plan
    st.caption(safe.md(words))
    return chosen
