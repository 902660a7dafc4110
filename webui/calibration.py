"""The Performance page's calibration: upload nccl-tests logs, fit the model to them, apply the fit to the design.

Thin: the reading is ``core.formats.nccltests``, the fit ``core.perf.calibration``, the chart
``core.figures.perf.calibration_figure``; applying it sets the design's ``calibration`` field
(``webui.state.FIELD_STORES``), so the sidebar's design, the link (``cal=``), every page and the review pack use it.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import FabricPlannerError
from core.figures.perf import calibration_figure
from core.i18n import _
from core.units import percent
from core.perf.constants import test_tool
from core.scaleup import other_words
from webui import charts, safe, state

RESULT = "fp_cal_fit"
"""The last fit of this session: (design key, the fit)."""
AUTO_OP = "auto"
OPS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "broadcast")
MAX_FILES = 8


def _fit(design, files, op: str) -> None:
    from core.formats import nccltests
    from core.perf.calibration import fit
    from core.plan import plan

    runs = []
    for upload in files[:MAX_FILES]:
        data = upload.getvalue()[: nccltests.MAX_BYTES + 1].decode("utf-8", errors="replace")
        try:
            runs.append(nccltests.parse(data, op=None if op == AUTO_OP else op, name=upload.name))
        except FabricPlannerError as exc:
            raise type(exc)(_("{path}: {problem}").format(path=upload.name, problem=str(exc))) from None
    bare = design.model_copy(update={"calibration": None})
    name = ", ".join(upload.name for upload in files[:2])[:60]
    st.session_state[RESULT] = (bare.model_dump_json(), fit(plan(bare), runs, name=name))


def _apply(text: str | None) -> None:
    st.session_state[state.FIELD_STORES["calibration"]] = text


def _result_table(result, system) -> pd.DataFrame:
    """The fitted factors and their standard errors; the scale-up factor named after ``system``'s links."""
    words = other_words(system)
    scaleup = _("NVLink efficiency factor") if words is None else _("{link} efficiency factor").format(link=words[0])
    rows = []
    for key, label in (("net", _("scale-out efficiency factor")), ("nvlink", scaleup),
                       ("lat", _("latency added [µs]"))):
        error = result.stderr[key]
        rows.append({_("parameter"): label, _("value"): f"{getattr(result.calibration, key):g}",
                     _("standard error"): f"{error:.3g}" if error is not None else
                     (_("not determined by these runs") if key not in result.determined else _("at its bound"))})
    return pd.DataFrame(rows)


def section(cur) -> None:
    """The calibration expander of the Performance page, on the sidebar's design ``cur``."""
    design = cur.design
    applied = design.calibration
    tool = test_tool(cur.plan.resolved.system.collective_library)  # nccl-tests, rccl-tests, hccl_test
    with st.expander(_("Calibrate on your measurements ({tool})").format(tool=tool), expanded=bool(applied)):
        if applied:
            st.info(safe.md(_("This design is calibrated ({text}): every collective, training and serving estimate "
                              "on every page and the review pack use it.").format(text=applied)))
            st.button(_("Remove the calibration"), on_click=_apply, args=(None,), key="cal_remove")
        st.caption(_("Upload nccl-tests output measured on the cluster this design describes (all_reduce_perf, "
                     "all_gather_perf, reduce_scatter_perf, alltoall_perf; any release's table). The fit finds the "
                     "scale-out and NVLink efficiency and a fixed latency that bring the model onto your numbers.")
                   if other_words(cur.plan.resolved.system) is None else
                   _("Upload nccl-tests-format output measured on the cluster this design describes (all_reduce_perf, "
                     "all_gather_perf, reduce_scatter_perf, alltoall_perf). The fit finds the scale-out and {link} "
                     "efficiency and a fixed latency that bring the model onto your numbers.").format(
                       link=cur.plan.resolved.system.scaleup_name))
        c1, c2 = st.columns([3, 1])
        files = c1.file_uploader(_("nccl-tests logs (at most {count}, 4 MB each)").format(count=MAX_FILES),
                                 accept_multiple_files=True, key="cal_files", max_upload_size=4)
        op = c2.selectbox(_("Collective"), [AUTO_OP, *OPS], key="cal_op",
                          format_func=lambda v: _("as the log says") if v == AUTO_OP else v)
        if files and st.button(_("Fit the model"), key="cal_fit", type="primary"):
            try:
                _fit(design, files, op)
            except FabricPlannerError as exc:
                st.error(safe.md(str(exc)))
        kept = st.session_state.get(RESULT)
        if not kept or kept[0] != design.model_copy(update={"calibration": None}).model_dump_json():
            return
        result = kept[1]
        st.markdown(safe.md(_("Error {before} before, {after} after (root mean square over {count} points).").format(
            before=percent(result.rms_before_pct / 100), after=percent(result.rms_after_pct / 100),
            count=len(result.points))))
        st.dataframe(_result_table(result, cur.plan.resolved.system), hide_index=True, width="stretch")
        charts.chart(calibration_figure(result.points), "full", key="cal_chart", config={"displaylogo": False})
        if result.calibration.text() != applied:
            st.button(_("Apply to the design"), on_click=_apply, args=(result.calibration.text(),), key="cal_apply",
                      type="primary")
