"""The Designer's way-out buttons: every button offered on an error builds (the engine's own ways out,
``DesignError.fixes``, are tested in tests/test_input_hardening.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest


ENTRY = str(Path(__file__).with_name("apptest_entry.py"))


@pytest.mark.parametrize("params", [
    {"v": "1", "n": "100000", "ti": "1"},
    {"v": "1", "n": "20000", "sw": "QM8700", "ps": "200"},
    {"v": "1", "ng": "1000000", "gpn": "7", "ti": "3"},
    {"v": "1", "n": "16384"},
    {"v": "1", "pl": "8"},
    {"v": "1", "pm": "rail"},
], ids=["tiers", "switch", "cap", "three-tiers", "planes", "per-rail-one-plane"])
def test_every_button_on_the_error_page_builds(params):
    at = AppTest.from_file(ENTRY, default_timeout=90)
    at.query_params.update(params)
    at.run()
    assert at.error
    keys = [b.key for b in at.button if b.key and b.key.startswith("fix_")]
    assert "fix_reset" in keys
    assert len(keys) >= 2  # over the GPU cap too: the most nodes that build
    for key in keys:
        fresh = AppTest.from_file(ENTRY, default_timeout=90)
        fresh.query_params.update(params)
        fresh.run()
        fresh.button(key=key).click().run()
        assert not fresh.exception
        assert not fresh.error, (key, [e.value for e in fresh.error])
