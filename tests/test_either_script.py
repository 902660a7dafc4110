"""Numbers typed in either script: full-width digits, colons and commas, and thousands separators where
unambiguous, in share links, CLI flags and the sidebar's count box."""

from __future__ import annotations

import pytest

from conftest import run_cli
from core.formats import sharelink
from core.formats.entry import number_text, parse_whole
from core.errors import InputError


@pytest.mark.parametrize("text,expected", [
    ("１２８", "128"), ("20,000", "20000"), ("1 024", "1024"), ("１，０２４", "1024"), (" 64 ", "64"),
    ("２：１", "2:1"), ("1,5", "1,5"), ("12,34", "12,34"), ("1e3", "1e3"),
])
def test_number_text(text, expected):
    assert number_text(text) == expected


def test_ambiguous_commas_are_not_thousands():
    with pytest.raises(InputError):
        parse_whole("1,5", 1, 100)
    assert parse_whole("1,500", 1, 10_000) == 1500


def test_share_links_read_full_width_and_thousands():
    design, warnings = sharelink.decode({"v": "1", "n": "１２８", "os": "２", "kwh": "０.１２"})
    assert not warnings and design.nodes == 128 and design.oversubscription == 2.0
    assert design.electricity_usd_per_kwh == pytest.approx(0.12)
    design, warnings = sharelink.decode({"v": "1", "n": "2,048"})
    assert not warnings and design.nodes == 2048
    design, warnings = sharelink.decode({"v": "1", "n": "1,5"})
    assert warnings and design.nodes != 15


def test_cli_flags_read_full_width_and_thousands(capsys):
    code, out, err = run_cli(capsys, "plan", "--gpu", "h100", "--nodes", "１，０２４", "--oversubscription", "２：１",
                             "--format", "json")
    assert code == 0, err
    import json

    summary = json.loads(out)
    assert summary["nodes"] == 1024 and summary["design"]["oversubscription"] == 2.0
    code, _, err = run_cli(capsys, "plan", "--nodes", "1,5")
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_override_decimal_comma_is_refused_not_half_applied():
    values, warnings = sharelink.parse_overrides_lenient("QM9700:1,5")
    assert values == {} and len(warnings) == 1 and "use a point for decimals" in warnings[0]
    values, warnings = sharelink.parse_overrides_lenient("QM9700:20 000, CX7:1,500")
    assert values == {"QM9700": 20000.0, "CX7": 1500.0} and not warnings
