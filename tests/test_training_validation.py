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
