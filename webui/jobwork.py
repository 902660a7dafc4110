"""The work ``webui.jobs`` runs in worker processes: one module-level function per heavy operation (a worker
receives the function by reference), each taking plain, picklable arguments (a design or settings as JSON) and
returning the engine's result; an engine error is raised (the job's outcome is then that error).

Importing this module is the worker server's preload: it imports the engine and loads the bundled catalog
once, so each job's process starts with both ready. It never imports Streamlit.
"""

from __future__ import annotations

import json

from core import progress
from core.analysis import failure, loadpods, spof, stages
from core.analysis import sweep as sw
from core.analysis.optimize import largest_within, optimize
from core.catalog import load_catalog
from core.design import Design
from core.errors import InputError
from core.fabric.naming import NamingScheme
from core.formats import optimizelink
from core.formats import report
from core.formats.exports import export_text
from core.perf import congestion, jobform
from core.plan import plan

load_catalog()  # preloaded: every job's process has the catalog parsed
try:  # the review pack's printer: importing Playwright takes 0.5-2 s, paid once by the server, not by every pack
    import playwright.sync_api  # noqa: F401
except ImportError:  # no Playwright: the pack's PDF says how to install it
    pass


def _plan(key: str):
    return plan(Design.model_validate_json(key))


def optimize_search(key: str):
    """The Optimize page's search of ``key`` (its settings, the sidebar's design and GPU count, the Inference page's
    settings for a serving target, as JSON):
    ``OptimizeResult``, or ``Envelope`` in envelope mode. What the search has found so far goes to the page as it
    goes (``core.progress.publish``: the candidates decided, the best and the front so far)."""
    data = json.loads(key)
    values, base = data["values"], Design.model_validate_json(data["design"])
    if values["mode"] == "envelope":
        return largest_within(base.gpu, optimizelink.constraints(values, data.get("serving")),
                              grid=optimizelink.grid(values, base.topology), workers=1,
                              objective=values["obj"],
                              base=base, max_gpus=data.get("max_gpus"), on_progress=progress.publish)
    return optimize(base.gpu, data["gpus"], optimizelink.constraints(values, data.get("serving")),
                    grid=optimizelink.grid(values, base.topology), workers=1,
                    strict=False,
                    objective=values["obj"], base=base, on_progress=progress.publish)


def sweep(spec_json: str):
    """The Sweep page's sweep of the spec ``spec_json``; an ``InputError`` (a point set that cannot be swept) is
    returned, not raised, as the page shows it in place of the chart."""
    try:
        return sw.sweep(sw.SweepSpec.model_validate_json(spec_json))
    except InputError as exc:
        return exc


def _job_of(p, settings_json: str | None):
    """The Performance page's job on ``p`` (None when there is none or it does not fit the design)."""
    if not settings_json:
        return None
    try:
        return jobform.job_from_settings(p, json.loads(settings_json))
    except Exception:  # noqa: BLE001 - a job that does not fit: no step time, said on the page
        return None


def what_if(key: str, failures: tuple[str, ...], settings_json: str | None, naming: str = ""):
    """``failure.what_if`` of the design ``key`` with ``failures``, with the Performance page's job; its notes name
    elements under the naming scheme ``naming`` (JSON; "": the default names)."""
    p = _plan(key)
    settings = json.loads(settings_json) if settings_json else {}
    scheme = NamingScheme.model_validate_json(naming) if naming else None
    with congestion.assumptions(settings.get("rt", "auto"), settings.get("pl", "topo")):
        return failure.what_if(p, list(failures), job=_job_of(p, settings_json), naming=scheme)


def single_points(key: str):
    return spof.single_points(_plan(key))


def availability(key: str, job_gpus: int, rates: tuple):
    """The Resilience page's availability of the design ``key`` (``resiliencelink.availability_of``: the review
    pack's too) for a job of ``job_gpus`` GPUs (0: every GPU) under the failure-rate overrides ``rates``."""
    from core.formats.resiliencelink import availability_of

    return availability_of(_plan(key), {"jg": job_gpus, "rate": rates})


def pods_availability(key: str, job_gpus: int, rates: tuple):
    """The Resilience page's whole-fabric availability of the design with pods ``key``
    (``resiliencelink.pods_availability_of``) for a job of ``job_gpus`` GPUs (0: every GPU of every pod)."""
    from core.analysis.pods import mixed_plan
    from core.formats.resiliencelink import pods_availability_of

    return pods_availability_of(mixed_plan(Design.model_validate_json(key)), {"jg": job_gpus, "rate": rates})


def link_load(key: str, pattern: str, placement: str, group: int, settings_json: str | None,
              global_routing: str = "minimal"):
    """The Resilience page's link load of the design ``key`` (every pod of a design with pods,
    ``core.analysis.loadpods.design_link_load``)."""
    p = _plan(key)
    job = _job_of(loadpods.design_job_plan(p), settings_json) if pattern == "job" else None  # with pods: every pod's
    return loadpods.design_link_load(p, pattern, placement, group=group or None, seed=0, job=job,
                                     global_routing=global_routing)


def growth(key: str, naming: str = ""):
    """``stages.growth`` of the design ``key`` (what each growth stage buys and which cables move) and its
    re-terminated cables as the cabling plans name them under the naming scheme ``naming`` (JSON; "": the default
    names; ``core.formats.stagecabling.named_moves``)."""
    from core.formats.stagecabling import named_moves

    design = Design.model_validate_json(key)
    deltas = stages.growth(design)
    return deltas, named_moves(design, deltas, NamingScheme.model_validate_json(naming) if naming else None)


def export_bytes(key: str, name: str, naming: str) -> bytes:
    """Export ``name`` of the design ``key`` under the naming scheme ``naming`` (JSON), UTF-8."""
    return export_text(_plan(key), name, NamingScheme.model_validate_json(naming)).encode("utf-8")


def design_report(key: str, name: str, link: str, unit: str, options: str = "{}") -> tuple[bytes, bytes | None, str]:
    """The design's review pack: (HTML, PDF or None, why there is no PDF), from one computation of its sections.
    ``options`` (JSON): ``cover`` (the ``core.formats.report.Cover`` fields), ``job`` (the Performance page's
    settings), ``resilience`` (the Resilience page's values), ``compare_link`` (the Compare page's link), ``naming``
    (the exports' naming scheme's fields, the failure views' names; absent: the default names)."""
    data = json.loads(options)
    naming = NamingScheme(**data["naming"]) if data.get("naming") else None
    html, pdf, problem = report.design_report_files(
        _plan(key), name=name, share_link=link, unit=unit, cover=report.Cover(**data.get("cover") or {}),
        job=data.get("job"), resilience=data.get("resilience"), compare_link=data.get("compare_link") or "",
        naming=naming)
    return html.encode("utf-8"), pdf, problem


def comparison_report(comparison, name: str, link: str, unit: str, cover_json: str = "{}") -> tuple[bytes, bytes | None,
                                                                                                str]:
    """A comparison's review pack (``comparison``: ``core.analysis.compare.Comparison``; ``cover_json``: the
    ``core.formats.report.Cover`` fields): (HTML, PDF or None, why there is no PDF)."""
    html, pdf, problem = report.comparison_report_files(comparison, name=name, share_link=link, unit=unit,
                                                        cover=report.Cover(**json.loads(cover_json)))
    return html.encode("utf-8"), pdf, problem
