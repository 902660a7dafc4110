"""Wording fixes of review46: each rule said once and the same way wherever it shows (CLI help, errors, exports,
the pages' texts)."""

from __future__ import annotations

from core.cli import build_parser


def test_top_level_help_says_inputs_in_gbit_and_outputs_in_gbyte():
    """The epilog named every network speed Gb/s while the readable outputs default to GB/s: it now says which
    flags take Gb/s (the fields declared in Gb/s) and that outputs are GB/s unless --units gbit."""
    from core.design import FIELDS

    text = " ".join(build_parser().format_help().split())
    assert "network speeds in Gb/s" not in text
    assert "GB/s (bytes) by default" in text and "--units gbit" in text
    for surface in FIELDS.values():
        if surface.unit == "Gb/s":
            assert surface.flag in text
