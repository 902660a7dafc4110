"""The Performance page's settings in a browser session: link -> session -> widgets, and back.

Streamlit deletes a widget's state when a run does not draw it (another page was shown), so the
settings live in ``st.session_state[STORE]`` (a plain dict, never a widget key) and the widgets
are re-seeded from it whenever their keys are missing. The store is read from the link once per
session (``init``), follows every widget change (``remember``), and is what the share link
writes (``webui.state.canonical_params``).

``FITTED_STORE`` records the settings the user has not set (model, tp, pp, global batch, the compared fabric):
those are refitted to the design whenever it changes (``core.perf.jobform.fitted_defaults``,
``core.formats.joblink.default_comparison``).
"""

from __future__ import annotations

import streamlit as st

from core.errors import FabricPlannerError
from core.formats.joblink import DEFAULTS, JOB, default_comparison
from core.perf import jobform
from core.perf.jobform import FITTED, fitted_defaults
from core.perf.modelshape import CUSTOM, SHAPE_FIELDS, shape_values
from core.plan import Plan

STORE = "fp_job"
FITTED_STORE = "fp_job_fitted"
FITTED_FOR = "fp_job_fitted_for"
W = "perf_w_"  # widget key prefix
COMPARED = "cmp"
"""The comparison setting, fitted to the design's fabric while the user has not picked one
(``core.formats.joblink.default_comparison``)."""


def init(params: dict) -> list[str]:
    """First run of the session: the link's ``perf_`` values become the store. Returns link warnings."""
    ss = st.session_state
    if STORE in ss:
        return []
    values, warnings = JOB.decode(params)
    ss[STORE] = values
    # values the link did not set are defaults, refitted to the design (see fit)
    ss[FITTED_STORE] = {k: None for k in (*FITTED, COMPARED) if JOB.prefix + k not in params}
    return warnings



def link_values() -> dict | None:
    """The settings the share link carries: those the user or the link set. A setting still fitted to the
    design (``FITTED_STORE``) is left out, so whoever opens the link fits it to the design the same way."""
    ss = st.session_state
    store = ss.get(STORE)
    if store is None:
        return None
    fitted = ss.get(FITTED_STORE) or {}
    return {k: v for k, v in store.items() if not (k in fitted and (fitted[k] is None or fitted[k] == v))}


def seed_widgets(cluster_gpus: int) -> None:
    """Give every widget whose state Streamlit dropped its stored value back; GPU counts are cut to the
    design's ``cluster_gpus`` (it may have shrunk since they were set)."""
    ss = st.session_state
    for key, value in ss[STORE].items():
        if W + key not in ss:
            ss[W + key] = (list(value) if key == "op" else (value == "1") if key in ("all", "sharp", "zg") else value)
    for key in ("jg", "tg"):
        ss[W + key] = min(int(ss.get(W + key) or 0), cluster_gpus)
    if any(SHAPE_W + f.name not in ss for f in SHAPE_FIELDS):
        for name, value in stored_shape().items():
            ss.setdefault(SHAPE_W + name, value)


SHAPE_W = W + "arch_"
"""Key prefix of the custom model's inputs (one per ``core.perf.modelshape.SHAPE_FIELDS``)."""


def stored_shape() -> dict:
    """The custom model's settings as its inputs show them: the stored ``arch``, or (empty or bad) the default
    preset's shape."""
    try:
        spec = jobform.model_of({"model": CUSTOM, "arch": st.session_state[STORE].get("arch", "")})
    except FabricPlannerError:
        spec = jobform.model_of({"model": CUSTOM, "arch": ""})
    return shape_values(spec)


def fit(plan: Plan) -> None:
    """Keep the settings the user has not changed fitted to the current design; a value the user or
    the link set is left alone (it may not fit: the page then says why)."""
    ss = st.session_state
    store = ss[STORE]
    fitted = {k: v for k, v in (ss.get(FITTED_STORE) or {}).items() if v is None or store.get(k) == v}
    design_key = plan.design.model_dump_json()
    if fitted and (None in fitted.values() or ss.get(FITTED_FOR) != design_key):
        job = set(fitted) - {COMPARED}
        chosen = {**(fitted_defaults(plan, store, job, DEFAULTS) if job else {}),
                  COMPARED: default_comparison(plan.resolved.fabric, plan.fabric.family)}
        for key in fitted:
            store[key] = fitted[key] = chosen[key]
            ss[W + key] = chosen[key]
    ss[FITTED_STORE] = fitted
    ss[FITTED_FOR] = design_key


def remember(current: dict) -> None:
    """The widgets' values after this run become the stored settings."""
    st.session_state[STORE] = dict(current)


def sync_url_standalone() -> None:
    """Run as a page of its own (AppTest of the page file): write the perf_ keys into the URL."""
    wanted = JOB.encode(link_values())
    qp = st.query_params
    current = qp.to_dict()
    changes = {k: v for k, v in wanted.items() if current.get(k) != v}
    if changes:
        qp.update(changes)
    for key in current:
        if key.startswith(JOB.prefix) and key not in wanted:
            del qp[key]


def stored_arch() -> str:
    """The stored custom model's shape (kept while a preset is chosen, so going back to the custom model keeps it)."""
    return str(st.session_state[STORE].get("arch", ""))
