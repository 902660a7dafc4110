"""A training estimate on an accelerator no published run calibrates says so (the Performance page's sentence, the
CLI's text and its JSON), and one on a calibrated family does not."""

from __future__ import annotations

import json

import pytest

from core.catalog import load_catalog
from core.perf.training_calibration import error_band_sentence
from core.perf.training_constants import load_training_catalog
from tests.conftest import run_cli


def test_only_families_without_runs_are_not_validated():
    catalog = load_training_catalog()
    systems = load_catalog().systems
    assert all(catalog.calibrated(s.architecture) for s in systems if s.vendor == "NVIDIA" and s.architecture in
               ("Hopper", "Blackwell", "Ampere"))
    for s in systems:
        sentence = error_band_sentence(s.architecture, "bf16", False)
        assert ("Not validated on" in sentence) == (not catalog.calibrated(s.architecture)), s.id
    assert not catalog.calibrated("CDNA 3") and "Not validated on CDNA 3" in error_band_sentence("CDNA 3", "bf16", False)


@pytest.mark.parametrize(("gpu", "validated"), [("MI300X", False), ("H100", True)])
def test_train_cli_says_whether_the_estimate_is_validated(capsys, gpu, validated):
    code, out, _err = run_cli(capsys, "--lang", "en", "train", "--gpu", gpu, "--gpus", "512", "--format", "json")
    assert code == 0 and json.loads(out)["expected_error"]["validated"] is validated
    code, out, _err = run_cli(capsys, "--lang", "en", "train", "--gpu", gpu, "--gpus", "512")
    assert code == 0 and ("Not validated on" in out) is not validated


def test_a_family_a_published_run_backs_is_the_one_the_badge_calls_validated():
    """One truth: the families of the published runs (assets/catalog/training_runs.toml, fit or held out) are the
    calibrated ones, so a run added for an AMD, Intel or Huawei family cannot leave its "Not validated" sentence
    standing (nor a family's sentence drop without a run). None backs one today: tests/test_serving_golden_vendors.py
    says which MLPerf results were looked at and why the estimate cannot express them."""
    from core.perf.training_calibration import stored_results

    catalog = load_training_catalog()
    backed = {row["architecture"] for row in stored_results()}
    assert all(catalog.calibrated(family) for family in backed)
    others = {s.architecture for s in load_catalog().systems if s.vendor != "NVIDIA"}
    assert others and not others & backed and not any(catalog.calibrated(family) for family in others)
