"""The Inference page's glue without Streamlit: the settings' deployment on the sidebar's design
(``core.perf.servingform``), the same deployment on the designs it compares (``ALTERNATIVES``) and the serving
search's answers (``core.perf.serving_search``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from core.catalog import load_catalog
from core.design import Design
from core.errors import FabricPlannerError
from core.formats import inferencelink as link
from core.i18n import N_, _
from core.perf import jobform
from core.formats.serving_exports import serving_export_text, serving_exports
from core.perf.serving import Deployment, ServingEstimate
from core.perf.servingform import estimate_on, given_split, same_gpus, workload
from core.plan import Plan, plan as make_plan
from core.scaleup import link_word

from core.perf import serving_search as SEARCH
"""The serving search (``core.perf.serving_search``), under a name of its own so tests can stand in for it."""

ALTERNATIVES = {
    "nvl72": (N_("GB200-NVL72, as many GPUs in whole racks"), {"gpu": "GB200-NVL72"}),
    "h100ib": (N_("H100, InfiniBand non-blocking"), {"gpu": "H100", "fabric": "infiniband", "oversubscription": 1.0}),
    "h100roce": (N_("H100, Ethernet RoCE non-blocking"), {"gpu": "H100", "fabric": "ethernet",
                                                          "oversubscription": 1.0}),
}
"""Designs the page serves the same deployment on beside the sidebar's: key -> (label, design changes); the GPU
count is the sidebar's (``alternative_design``), rounded up to whole systems (an NVL72 rack: 72 GPUs for 32)."""


def alternative_design(design: Design, key: str, current_fabric: str, gpus: int) -> Design:
    """The sidebar's ``design`` as alternative ``key`` (``ALTERNATIVES``) with its ``gpus`` GPUs."""
    changes = {**ALTERNATIVES[key][1], "gpus": gpus, "nodes": None}
    return jobform.alternative_design(design, changes, current_fabric)


def alternative_keys(design: Design, current_fabric: str, gpus: int) -> list[str]:
    """The ``ALTERNATIVES`` that differ from ``design`` itself (an H100 InfiniBand design is not compared with
    itself)."""
    keys = []
    for key, (_label, changes) in ALTERNATIVES.items():
        same = design.gpu == changes["gpu"] and changes.get("fabric", current_fabric) == current_fabric \
            and changes.get("oversubscription", design.oversubscription) == design.oversubscription
        if not same:
            keys.append(key)
    return keys


def compared_rate(here: ServingEstimate, values: Mapping[str, Any]) -> float:
    """The request rate [requests/s] every design is served to compare them (``on_other``, the page's caption):
    ``here``'s served rate, or where ``here`` is overloaded (it serves less than asked, saturated) the rate asked
    (``values``), so each design is compared at the load the settings ask."""
    return values["rate"] if here.overloaded else here.rate


def on_other(plan: Plan, other: Plan, values: Mapping[str, Any], here: ServingEstimate,
             network: str = "fabric") -> ServingEstimate:
    """The settings served on design ``other`` (``plan`` itself for this design's own bar) over ``network`` at
    ``here``'s request rate (the same load on each design). With the
    split left to the page (every pool field 0), the split is the one the page and ``python -m core serve`` choose
    for ``other`` itself at that rate (``servingform.estimate_on``: the serving search), so a bar differs from this
    design's by the design, not by a split chosen another way; with a split the user fixed, that split on the same
    GPUs per pool as ``here`` (``same_gpus``); the rate: ``compared_rate``."""
    rate = compared_rate(here, values)
    if any(given_split(values, pool) for pool in ("p", "d")):
        return estimate_on(other, values, network, nodes=same_gpus(plan, other, here.deployment), rate=rate)
    return estimate_on(other, {**values, "load": "rate", "rate": rate}, network)


@dataclass
class Served:
    """The settings' deployment on a design (``here``), without its compute fabric (``without``; ``None`` when
    ``here`` failed) and on the ``ALTERNATIVES`` (``others``: (label, result)); each result an estimate or the
    error the serving model (or the design) raised."""

    here: ServingEstimate | FabricPlannerError
    without: ServingEstimate | FabricPlannerError | None = None
    others: list[tuple[str, ServingEstimate | FabricPlannerError]] = field(default_factory=list)
    max_rate: float | None = None
    """The largest request rate within the targets with ``here``'s split [requests/s] (None: none)."""
    ratio: float | None = None
    """Prefill:decode nodes that balance ``here``'s pools (None: aggregated)."""
    exports: dict[str, str | FabricPlannerError] = field(default_factory=dict)
    """``here`` as each serving simulator's input (``core.formats.serving_exports``), or why it cannot be."""
    links: dict[str, str] = field(default_factory=dict)
    """Each of ``others``' labels -> its system's scale-up link name (``core.scaleup.link_word``)."""
    mine: dict[str, ServingEstimate | FabricPlannerError] = field(default_factory=dict)
    """This design's bars beside ``others`` ("this design" and, without the compute fabric, "this design, no
    compute fabric": labels in the current language), served as ``others`` are (``on_other`` on ``plan`` itself:
    ``python -m core serve --rate`` at ``here``'s rate), so every bar follows one rule at one rate; ``here`` is
    the page's own deployment (with no load set, the largest rate within the targets on all the nodes)."""


def _shown(rate: float | None) -> float | None:
    """A largest rate as the page shows it: rounded down to its digits (``serving_search.shown_rate``), the load the
    page estimates at."""
    return None if rate is None else SEARCH.shown_rate(rate)


def _attempt(compute) -> ServingEstimate | FabricPlannerError:
    try:
        return compute()
    except FabricPlannerError as exc:
        return exc


def serve(design: Design, plan: Plan, values: Mapping[str, Any]) -> Served:
    """The settings ``values`` served on ``plan`` (the sidebar's ``design``), without the compute fabric, and on each
    alternative design that differs from it at ``here``'s request rate (``on_other``: the same load on each, with
    the split that design's own search chooses; a design that cannot keep up shows an unbounded time; labels in the
    current language), this design's own bars beside them served the same way (``Served.mine``); with
    the search's largest load and balanced ratio for its split, and its simulator exports."""
    here = _attempt(lambda: estimate_on(plan, values))
    if isinstance(here, FabricPlannerError):
        return Served(here)
    r = plan.resolved
    others, links = [], {}
    for key in alternative_keys(design, r.fabric, r.gpus):
        links[_(ALTERNATIVES[key][0])] = link_word(load_catalog().system(ALTERNATIVES[key][1]["gpu"]))
        def other(key=key):
            alt = make_plan(alternative_design(design, key, r.fabric, r.gpus))
            return on_other(plan, alt, values, here)
        others.append((_(ALTERNATIVES[key][0]), _attempt(other)))
    dep = here.deployment
    exports = {name: _attempt(lambda name=name: serving_export_text(plan, dep, name, here)) for name in serving_exports()}
    mine = {_("this design"): _attempt(lambda: on_other(plan, plan, values, here)),
            _("this design, no compute fabric"): _attempt(lambda: on_other(plan, plan, values, here, "frontend"))}
    return Served(here, _attempt(lambda: estimate_on(plan, values, network="frontend")), others,
                  max_rate=_shown(SEARCH.max_rate(plan, dep)),
                  ratio=SEARCH.balanced_ratio(plan, dep) if dep.mode == "disaggregated" else None, exports=exports,
                  links=links, mine=mine)


# --- the serving search ----------------------------------------------------------------------------------------
def search(plan: Plan, values: Mapping[str, Any]):
    """The cheapest deployment of the settings' model and workload on ``plan`` that meets the targets
    (``serving_search.search``'s result; ``.best`` None when none does)."""
    return SEARCH.search(plan, values["model"], workload(values), mode=values["mode"], precision=values["prec"],
                         kv_precision=values["kvp"])


def split_values(dep: Deployment) -> dict[str, Any]:
    """Settings (``inferencelink`` keys) that fix ``dep``'s mode, pool nodes and splits (a search's best)."""
    out: dict[str, Any] = {"mode": dep.mode}
    pools = {"d": dep.decode} if dep.mode == "aggregated" else {"p": dep.prefill, "d": dep.decode}
    for pool, split in pools.items():
        for key, name in link.SPLIT_FIELDS.items():
            out[pool + key] = getattr(split, name)
    return out
