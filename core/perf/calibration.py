"""Calibrating the collective model on a cluster's own nccl-tests measurements.

Terms
-----
run
    One nccl-tests table (``MeasuredRun``): a collective on ``gpus`` ranks, the out-of-place time [us] at each
    message size [bytes] (``core.formats.nccltests`` reads it from a log).
model time
    What ``core.perf.collectives.sweep`` predicts for that collective, size and rank count on the design: the
    fastest algorithm and protocol of a stock NCCL, with the bundled constants as a calibration corrects them
    (``core.perf.constants.calibrated``).
parameters
    ``net`` (factor on the NIC efficiency), ``nvlink`` (factor on the NVLink and NVLS efficiency), ``lat``
    (latency added to every collective [us]); bounds ``core.design.CALIBRATION_BOUNDS``.

The fit, in named steps:

1. residuals ``r_i = ln(model time_i) - ln(measured time_i)`` over every size of every run (a relative error,
   so 8-byte and 8-GiB points weigh alike);
2. a parameter no run moves (``net`` when every run stays inside one NVLink domain; ``nvlink`` when the design's
   NVLink domain is one GPU) is not determined: it keeps its neutral value (1, or 0 us) and says so;
3. projected Levenberg-Marquardt on the others: the Jacobian by forward differences, each step clipped to the
   bounds, at most ``MAX_ITERATIONS`` steps;
4. uncertainty: the standard error of each fitted parameter from ``s^2 (J^T J)^-1`` at the optimum, ``s^2`` the
   residuals' variance (``sum r^2 / (points - parameters)``), as a relative error it is dimensionless.

The result (``CalibrationFit``) says the fitted ``core.design.Calibration``, each parameter's standard error,
the error before and after (root mean square of ``r``, as a percentage) and every point: measured, modelled
before and after, residual. Bad input (a run on more GPUs than the design, too few points) is an ``InputError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from core.design import CALIBRATION_BOUNDS, Calibration
from core.errors import InputError
from core.i18n import _
from core.perf.constants import calibrated
from core.units import microseconds

PARAMETERS = ("net", "nvlink", "lat")
"""The calibration's parameters, in fit order."""
NEUTRAL = {"net": 1.0, "nvlink": 1.0, "lat": 0.0}
"""A parameter's value when it corrects nothing."""
STEP = {"net": 1e-3, "nvlink": 1e-3, "lat": 0.05}
"""Smallest forward-difference steps of the Jacobian [x, x, us] (else 0.1% of the value)."""
MAX_ITERATIONS = 30
MAX_RUNS = 16
"""Most runs one fit takes."""


class MeasuredRun(BaseModel):
    """One nccl-tests table: ``op`` on ``gpus`` ranks, ``times_us`` [us, out-of-place] at ``sizes`` [bytes]."""

    model_config = ConfigDict(frozen=True)

    name: str = ""
    op: str
    gpus: int = Field(ge=1)
    sizes: tuple[float, ...]
    times_us: tuple[float, ...]
    hosts: int | None = None
    nccl_version: str | None = None
    skipped: int = 0
    """Rows of the log that could not be read (non-finite or non-positive)."""


@dataclass
class CalibrationFit:
    """A fitted calibration and how well the model matches the runs before and after."""

    calibration: Calibration
    stderr: dict[str, float | None]
    """Standard error of each parameter; None when the runs do not determine it (``determined``) or it sits on
    its bound."""
    determined: tuple[str, ...]
    """The parameters the runs move (the others keep their neutral value)."""
    rms_before_pct: float
    rms_after_pct: float
    points: list[dict] = field(default_factory=list)
    """Per point: run, op, gpus, size [bytes], measured_us, before_us, after_us, residual_pct (after)."""


def _text(values: dict[str, float]) -> str:
    return Calibration(**values).text()


def model_times(plan, run: MeasuredRun, values: dict[str, float]) -> np.ndarray:
    """Model time [us] of ``run``'s collective at each of its sizes on ``plan``, corrected by ``values``."""
    from core.perf.collectives import sweep

    result = sweep(plan, run.op, run.sizes, gpus=run.gpus, constants=calibrated(_text(values)))
    return np.asarray(result.best()[0], dtype=float)


def _residuals(plan, runs: list[MeasuredRun], values: dict[str, float]) -> np.ndarray:
    return np.concatenate([np.log(model_times(plan, run, values)) - np.log(np.asarray(run.times_us))
                           for run in runs])


def _check(plan, runs: list[MeasuredRun]) -> None:
    if not runs or len(runs) > MAX_RUNS:
        raise InputError(_("give 1 to {count} nccl-tests runs").format(count=MAX_RUNS))
    for run in runs:
        if run.gpus > plan.resolved.gpus:
            raise InputError(_("{run} ran on {gpus} GPUs, more than the design's {cluster}; plan the cluster it ran "
                               "on").format(run=run.name or run.op, gpus=f"{run.gpus:,}",
                                            cluster=f"{plan.resolved.gpus:,}"))
    if sum(len(run.sizes) for run in runs) < len(PARAMETERS) + 1:
        raise InputError(_("too few measured sizes to fit: give at least {count}").format(count=len(PARAMETERS) + 1))


def _jacobian(plan, runs, values, free, base) -> np.ndarray:
    columns = []
    for name in free:
        size = max(STEP[name], abs(values[name]) * 1e-3)
        step = size if values[name] + size <= CALIBRATION_BOUNDS[name][1] else -size
        moved = dict(values)
        moved[name] = values[name] + step
        columns.append((_residuals(plan, runs, moved) - base) / step)
    return np.stack(columns, axis=1)


def _clip(name: str, value: float) -> float:
    low, high = CALIBRATION_BOUNDS[name]
    return min(high, max(low, value))


def _solve(plan, runs, values: dict[str, float], free: list[str]) -> tuple[dict[str, float], np.ndarray]:
    """Projected Levenberg-Marquardt over the ``free`` parameters; the fitted values and the last Jacobian."""
    r = _residuals(plan, runs, values)
    damping = 1e-2
    jac = _jacobian(plan, runs, values, free, r)
    for _step in range(MAX_ITERATIONS):
        normal = jac.T @ jac
        step = np.linalg.solve(normal + damping * np.diag(np.diag(normal) + 1e-12), -jac.T @ r)
        trial = dict(values)
        for name, delta in zip(free, step):
            trial[name] = _clip(name, values[name] + float(delta))
        r_trial = _residuals(plan, runs, trial)
        if r_trial @ r_trial < r @ r:
            gain = r @ r - r_trial @ r_trial
            values, r, damping = trial, r_trial, max(damping / 3, 1e-6)
            jac = _jacobian(plan, runs, values, free, r)
            if gain < 1e-10:
                break
        else:
            damping *= 4
            if damping > 1e6:
                break
    return values, jac


def fit(plan, runs: list[MeasuredRun], name: str = "") -> CalibrationFit:
    """Fit ``net``, ``nvlink`` and ``lat`` to ``runs`` measured on the cluster ``plan`` describes.

    Parameters
    ----------
    plan : Plan
        The design of the measured cluster (its own calibration, if any, is ignored).
    runs : list of MeasuredRun
        nccl-tests tables (``core.formats.nccltests.parse``).
    name : str
        The calibration's name (shown wherever it is applied).
    """
    _check(plan, runs)
    start = dict(NEUTRAL)
    base = _residuals(plan, runs, start)
    moved = _jacobian(plan, runs, start, list(PARAMETERS), base)
    free = [p for p, column in zip(PARAMETERS, moved.T) if np.abs(column).max() > 1e-6]
    values, jac = _solve(plan, runs, start, free) if free else (start, np.zeros((len(base), 0)))
    after = _residuals(plan, runs, values)
    dof = max(1, len(after) - len(free))
    cov = (after @ after / dof) * np.linalg.pinv(jac.T @ jac) if free else np.zeros((0, 0))
    stderr = {p: (float(math.sqrt(max(0.0, cov[free.index(p), free.index(p)]))) if p in free and not _at_bound(p, values[p])
                  else None) for p in PARAMETERS}
    rounded = {p: float(f"{values[p]:.4g}") for p in PARAMETERS}
    return CalibrationFit(Calibration(**rounded, name=name), stderr, tuple(free), _rms_pct(base), _rms_pct(after),
                          _points(plan, runs, rounded))


def _at_bound(name: str, value: float) -> bool:
    """Whether a fitted value sits on its bound (its standard error then says nothing)."""
    return any(abs(value - bound) < 1e-9 for bound in CALIBRATION_BOUNDS[name])


def _rms_pct(residuals: np.ndarray) -> float:
    """Root mean square of log residuals as a percentage (exp(rms) - 1)."""
    return float((math.exp(math.sqrt(float(np.mean(residuals ** 2)))) - 1) * 100)


def _points(plan, runs: list[MeasuredRun], values: dict[str, float]) -> list[dict]:
    out = []
    for index, run in enumerate(runs):
        before, after = model_times(plan, run, NEUTRAL), model_times(plan, run, values)
        for size, measured, b, a in zip(run.sizes, run.times_us, before, after):
            out.append({"run": run.name or f"{index + 1}", "op": run.op, "gpus": run.gpus, "size": int(size),
                        "measured_us": measured, "before_us": float(b), "after_us": float(a),
                        "residual_pct": float((a / measured - 1) * 100)})
    return out


def calibration_label(design) -> str | None:
    """One line saying a design's estimates are calibrated and how, in the current language; None without one."""
    from core.design import parse_calibration

    if not design.calibration:
        return None
    cal = parse_calibration(design.calibration)
    return _("Calibrated to measurements{name}: scale-out efficiency x{net:.3g}, NVLink x{nvlink:.3g}, "
             "{lat} per collective").format(name=f" ({cal.name})" if cal.name else "", net=cal.net,
                                               nvlink=cal.nvlink, lat=microseconds(cal.lat, signed=True))
