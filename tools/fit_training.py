"""Fit the training compute constants to the published runs marked ``fit`` in assets/catalog/training_runs.toml.

    python -m tools.fit_training            # print the fitted [compute] shape terms and [[kernels]] fractions

A coordinate descent on the mean squared log error of the fit runs (each constant multiplied by 0.8 / 1.25, then
0.9 / 1.1, then 0.95 / 1.05 while the error falls), starting from the values in assets/catalog/training.toml.
It prints the values and every run's error; the values are copied into training.toml by hand (rounded), and
``python -m tools.training_calibration`` then records the errors. ``memory_fraction`` and the precisions'
``cast_bytes`` are physical, not fitted.
"""

from __future__ import annotations

import math
import sys

import core.perf.compute as compute
from core.perf.training_calibration import evaluate, load_runs
from core.perf.training_constants import TrainingCatalog, load_training_catalog

SHAPE_TERMS = ("gemm_width_half", "expert_tokens_half", "attention_chunk_half", "elementwise_bytes",
               "activation_bytes", "moe_bytes")
STEPS = ((0.8, 1.25), (0.9, 1.1), (0.95, 1.05))


def with_params(base: TrainingCatalog, params: dict[str, float]) -> TrainingCatalog:
    """``base`` with ``params`` applied: shape terms by name, kernel fractions as ``Architecture.precision`` or
    ``Architecture.attention``."""
    shape = base.compute.model_copy(update={k: v for k, v in params.items() if k in SHAPE_TERMS})
    kernels = []
    for entry in base.kernels:
        gemm, attention = dict(entry.gemm), entry.attention
        for key, value in params.items():
            arch, _sep, field = key.rpartition(".")
            if arch == entry.architecture:
                if field == "attention":
                    attention = value
                else:
                    gemm[field] = value
        kernels.append(entry.model_copy(update={"gemm": gemm, "attention": attention}))
    return base.model_copy(update={"compute": shape, "kernels": tuple(kernels)})


def fit_loss(base: TrainingCatalog, params: dict[str, float]) -> float:
    """Mean squared log throughput error of the fit runs under ``params``."""
    catalog = with_params(base, params)
    compute.load_training_catalog = lambda: catalog  # the compute model reads its constants through this name
    try:
        errors = [math.log1p(evaluate(run).error) for run in load_runs().run if run.role == "fit"]
    finally:
        compute.load_training_catalog = load_training_catalog
    return sum(e * e for e in errors) / len(errors)


def initial_params(base: TrainingCatalog) -> dict[str, float]:
    """The free constants and their current values: the shape terms and the fractions of every architecture that
    a fit run uses."""
    archs = {evaluate(run).architecture for run in load_runs().run if run.role == "fit"}
    params = {k: float(getattr(base.compute, k)) for k in SHAPE_TERMS}
    for entry in base.kernels:
        if entry.architecture in archs:
            params[f"{entry.architecture}.attention"] = entry.attention
            params.update({f"{entry.architecture}.{p}": v for p, v in entry.gemm.items()})
    return params


def main() -> int:
    """Fit and print the constants and the fit runs' errors."""
    base = load_training_catalog()
    params = initial_params(base)
    best = fit_loss(base, params)
    for steps in STEPS:
        for key in list(params):
            for factor in steps:
                trial = {**params, key: params[key] * factor}
                if "." in key and not key.endswith(".attention") and trial[key] > 1:
                    continue
                loss = fit_loss(base, trial)
                if loss < best - 1e-7:
                    best, params = loss, trial
    for key, value in params.items():
        print(f"{key} = {value:.4g}")
    print(f"rms log error of the fit runs: {math.sqrt(best):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
