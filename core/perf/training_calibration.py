"""The training estimate against published runs: which set a constant, which are held out, and the error of each.

The runs are in ``assets/catalog/training_runs.toml`` (document, table and release of each, the design and job
that express it, the published value). ``evaluate_all`` runs the estimator on each; ``tools/training_calibration``
writes the results to ``assets/catalog/training_calibration.json`` (read by ``error_band``, so the Performance
page does not re-run 60 estimates) and ``docs/training-calibration.md``; tests/test_training_calibration.py checks
that both agree with a fresh evaluation.

The error of a run is (estimated throughput / published throughput) - 1: positive when the estimate is faster
than the published run. Step times and MFU are turned into throughput the same way (a step 10% longer than
published is an error of 1 / 1.1 - 1 = -9.1%).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, load_catalog, read_toml
from core.errors import InputError
from core.i18n import N_, _, number, sentences
from core.perf.training_constants import load_training_catalog
from core.units import percent, percent_range

RUNS_FILE = CATALOG_DIR / "training_runs.toml"
RESULTS_FILE = CATALOG_DIR / "training_calibration.json"
HELD_OUT_TARGET = 0.15
"""Largest error a held-out run may have without a ``miss`` that says why (issue target: within 15%)."""
Measure = Literal["tokens_per_s_per_gpu", "step_s", "mfu"]


class PublishedRun(BaseModel):
    """One published training run: where it is published, how the estimator expresses it, what it measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    release: str
    """Key of ``[meta]``: the document (a ``{table}`` in it is filled from ``table``)."""
    table: str
    role: Literal["fit", "held-out"]
    sets: str = ""
    """For a fit run: the constants it set."""
    design: dict
    job: dict
    measure: Measure
    value: float = Field(gt=0)
    miss: str = ""
    """For a held-out run beyond ``HELD_OUT_TARGET``: why the estimate misses it."""


class PendingRun(BaseModel):
    """A published run the estimator cannot express yet (listed, not evaluated): tokens/s per GPU and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    release: str
    table: str
    value: float = Field(ge=0)
    reason: str


class RunsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    meta: dict[str, str]
    run: tuple[PublishedRun, ...]
    pending: tuple[PendingRun, ...] = ()

    def source(self, run: "PublishedRun | PendingRun") -> str:
        """The run's document, table and release as one citation."""
        return self.meta[run.release].replace("{table}", run.table).replace("{model}", run.table).replace(
            "{system}", run.table)


@lru_cache(maxsize=1)
def load_runs(path: Path = RUNS_FILE) -> RunsFile:
    """The published runs (validated; ``InputError`` names the problem)."""
    data = read_toml(path, N_("published training runs file"))
    try:
        runs = RunsFile.model_validate(data)
    except ValueError as exc:
        raise InputError(_("{file} is invalid: {error}").format(file=path.name, error=exc)) from exc
    missing = {r.release for r in runs.run + runs.pending} - set(runs.meta)
    if missing:
        raise InputError(_("{file}: no [meta] entry for {releases}").format(file=path.name,
                                                                         releases=", ".join(sorted(missing))))
    return runs


@dataclass
class RunResult:
    """A published run and what the estimator gives for it (in the run's measure)."""

    run: PublishedRun
    got: float
    error: float
    """Estimated / published throughput - 1 (positive: the estimate is faster)."""
    architecture: str
    precision: str
    moe: bool
    """The run's model is a mixture of experts."""


def throughput_error(measure: str, got: float, published: float) -> float:
    """(estimated / published throughput) - 1 for a value in ``measure`` (a step time is inverse throughput)."""
    return published / got - 1 if measure == "step_s" else got / published - 1


def evaluate(run: PublishedRun) -> RunResult:
    """Estimate ``run`` on its design and job (``DesignError`` if it no longer fits)."""
    from core.design import Design
    from core.perf.training import estimate, parse_job
    from core.plan import plan

    design = Design(**run.design)
    est = estimate(plan(design), parse_job({**run.job, "gpus": run.design["gpus"]}))
    got = {"tokens_per_s_per_gpu": est.tokens_per_s / est.gpus, "step_s": est.step_time_s, "mfu": est.mfu}[run.measure]
    system = load_catalog().system(design.gpu)
    return RunResult(run, got, throughput_error(run.measure, got, run.value), system.architecture, est.job.precision,
                     est.job.model.is_moe)


def evaluate_all() -> list[RunResult]:
    """Every published run, evaluated now."""
    return [evaluate(run) for run in load_runs().run]


def results_table(results: list[RunResult]) -> list[dict]:
    """JSON-ready rows of ``results`` (errors rounded to 0.1%), as ``RESULTS_FILE`` stores them."""
    return [{"id": r.run.id, "role": r.run.role, "architecture": r.architecture, "precision": r.precision,
             "moe": r.moe,
             "measure": r.run.measure, "published": r.run.value, "estimate": round(r.got, 4 if r.got < 10 else 1),
             "error": round(r.error, 3)} for r in results]


CALIBRATION_COLUMNS = {
    "run": N_("published run"), "role": N_("role"), "error": N_("error"), "measure": N_("measure"),
    "published": N_("published"), "estimate": N_("estimate"), "architecture": N_("GPU family"),
    "precision": N_("precision"), "moe": N_("mixture of experts"), "note": N_("constant it set, or why it misses"),
    "source": N_("source"),
}
"""The columns of ``calibration_rows`` and their headers (English marked ``N_``), the error first after the run."""
ROLE_LABELS = {"fit": N_("sets a constant"), "held-out": N_("held out")}
MEASURE_LABELS = {"tokens_per_s_per_gpu": N_("tokens/s per GPU"), "step_s": N_("step time [s]"), "mfu": "MFU"}


def shown_value(measure: str, value: float) -> str:
    """A published or estimated value as the tables show it, in the current language's number format: MFU in
    percent, a step time [s] with two decimals, tokens/s per GPU whole."""
    if measure == "mfu":
        return f"{number(value * 100, 1)}%"
    return number(value, 2 if measure == "step_s" else 0)


def calibration_rows(results: list[RunResult]) -> list[dict]:
    """Every published run as the Catalog page lists it, in the current language: its role (sets a constant or is
    held out), GPU family, precision, what was measured (``MEASURE_LABELS``), the published and the estimated value
    in that measure (``shown_value``), the error (estimated / published throughput - 1, signed percent), the constant a fit run set or
    why a held-out run misses (``miss``; empty within ``HELD_OUT_TARGET``), and its citation (quoted as
    published). Keys as ``CALIBRATION_COLUMNS``, and the run's catalog ``id``."""
    runs = load_runs()
    return [{"id": r.run.id, "run": run_label(r.run), "role": _(ROLE_LABELS[r.run.role]), "architecture": r.architecture,
             "precision": r.precision.upper(), "moe": r.moe, "measure": _(MEASURE_LABELS[r.run.measure]),
             "published": shown_value(r.run.measure, r.run.value), "estimate": shown_value(r.run.measure, r.got),
             "error": percent(r.error, signed=True),
             "note": r.run.sets if r.run.role == "fit" else r.run.miss, "source": runs.source(r.run)}
            for r in results]


def run_label(run: PublishedRun) -> str:
    """A published run in words, for a reader rather than the catalog's id: its model and its GPUs [count] and
    system (``"Llama 3 70B on 64 GPUs (GB300-NVL72)"``); the precision and the document are columns of their own."""
    from core.perf.training import model_preset

    model = run.job.get("model")
    try:
        name = model.get("name", "") if isinstance(model, dict) else model_preset(str(model)).name
    except InputError:
        name = str(model)
    return _("{model} on {gpus} GPUs ({system})").format(model=name or run.id, gpus=number(run.design.get("gpus", 0)),
                                                    system=run.design.get("gpu", ""))


def held_out_summary(results: list[RunResult]) -> tuple[int, int, int]:
    """(held-out runs within ``HELD_OUT_TARGET``, held-out runs, runs that set a constant) of ``results``."""
    held = [r for r in results if r.run.role == "held-out"]
    return sum(abs(r.error) <= HELD_OUT_TARGET for r in held), len(held), len(results) - len(held)


@lru_cache(maxsize=1)
def stored_results() -> tuple[dict, ...]:
    """The rows of ``RESULTS_FILE`` (written by ``python -m tools.training_calibration``)."""
    try:
        return tuple(json.loads(RESULTS_FILE.read_text(encoding="utf-8"))["runs"])
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(_("{file} is missing or invalid: {error}").format(file=RESULTS_FILE.name, error=exc)) from exc


def error_band(architecture: str, precision: str, moe: bool) -> tuple[float, float, int, str]:
    """Expected error of the training estimate for a GPU architecture, precision and model kind (dense or
    mixture-of-experts), from the held-out runs.

    Returns (lowest, highest error, number of runs, scope): the held-out runs of this architecture, precision and
    kind; if there are fewer than two, those of the architecture and kind, then those of the kind, then all.
    Errors are estimated / published throughput - 1 (``throughput_error``); the known misses count (their notes
    say why), so the band is what a user of this family can expect, not only what the model explains.
    """
    held = [row for row in stored_results() if row["role"] == "held-out"]
    scopes = (("precision", lambda r: r["architecture"] == architecture and r["precision"] == precision),
              ("architecture", lambda r: r["architecture"] == architecture),
              ("kind", lambda r: True),
              ("all", None))
    for scope, keep in scopes:
        rows = held if keep is None else [r for r in held if r["moe"] == moe and keep(r)]
        if len(rows) >= 2 or keep is None:
            errors = [r["error"] for r in rows]
            return min(errors), max(errors), len(errors), scope
    raise AssertionError("unreachable")


def _nouns(architecture: str) -> str:
    """What the catalog's accelerators of ``architecture`` are called, plural ("GPUs", "NPUs";
    ``core.scaleup.accelerator_noun``)."""
    from core.scaleup import accelerator_noun

    system = next((s for s in load_catalog().systems if s.architecture == architecture), None)
    return accelerator_noun(system, plural=True)


def error_band_sentence(architecture: str, precision: str, moe: bool) -> str:
    """One sentence for the Performance page and the CLI: the expected error band of the training estimate for
    this GPU family, precision and model kind (``error_band``), and where the published runs are listed."""
    low, high, count, scope = error_band(architecture, precision, moe)
    kind = _("mixture-of-experts") if moe else _("dense")
    where = {"precision": _("held-out published runs of {kind} models on {family} {nouns} at {precision}"),
             "architecture": _("held-out published runs of {kind} models on {family} {nouns} (none at {precision})"),
             "kind": _("held-out published runs of {kind} models (none on {family} {nouns})"),
             "all": _("held-out published runs (none of {kind} models)")}[scope]
    text = _("Expected error of this estimate: {range} in throughput, from {count} {where} (every run and "
             "its error: the training calibration table on the Catalog page).").format(
        range=percent_range(low, high, signed=True), count=count,
        where=where.format(kind=kind, family=architecture, precision=precision.upper(), nouns=_nouns(architecture)))
    catalog = load_training_catalog()
    if not catalog.calibrated(architecture):
        text = sentences(text, _("Not validated on {family}: no published training run calibrates it, and its "
                                 "compute shares are borrowed from {borrowed} GPUs.").format(
            family=architecture, borrowed=catalog.architecture_compute(architecture).architecture))
    return text


__all__ = ["CALIBRATION_COLUMNS", "MEASURE_LABELS", "ROLE_LABELS", "calibration_rows", "held_out_summary", "run_label", "shown_value",
           "HELD_OUT_TARGET", "PendingRun", "PublishedRun", "RunResult", "error_band", "error_band_sentence", "evaluate",
           "evaluate_all", "load_runs", "results_table", "stored_results", "throughput_error"]
