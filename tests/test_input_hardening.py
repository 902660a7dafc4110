"""Hostile and sloppy input: design files, CLI flags, override lists and share links.

Contract (core/cli/__init__.py): bad input exits 2 with ONE line on stderr of at most ~300
characters, any echoed input cut to at most 40 characters, and never a traceback.
"""

import argparse
import json
import math
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_cli as run
from core.catalog import load_catalog
from core.design import MAX_GPUS, Design, offered_port_speeds, parse_design, resolve_nic_and_speed
from core.errors import DesignError, InputError, shown
from core.formats import sharelink
from core.formats.design_file import MAX_DESIGN_FILE_BYTES, read_design_file
from core.plan import plan

CATALOG = load_catalog()
FILLER = "Z"  # hostile inputs are built from it; no message may echo more than 40 of them in a row
BIG = FILLER * 100_000


def assert_one_short_line(code: int, out: str, err: str, expected_code: int = 2) -> None:
    assert code == expected_code, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:500]
    assert len(lines[0]) <= 300, lines[0][:500]
    assert FILLER * 41 not in err


# --- the truncation helper -----------------------------------------------------------------------
def test_shown_truncates_repr_like():
    assert shown("abc") == "'abc'"
    assert shown(12) == "12"
    assert shown("x" * 40) == "'" + "x" * 40 + "'"
    assert shown("x" * 1000) == "'" + "x" * 40 + "...'"  # at most 40 characters of the input
    assert shown("x" * 1000, limit=20) == "'" + "x" * 20 + "...'"
    assert shown("a\nb") == "'a\\nb'"  # one line
    huge = 10 ** 5000  # repr() of this raises ValueError (Python's int digit limit)
    assert len(shown(huge)) <= 45
    nested: list = []
    for _ in range(10_000):
        nested = [nested]
    assert len(shown(nested)) <= 45
    assert len(shown({"k" * 100: ["v" * 100]})) <= 45


# --- item 1: design files never trace back ------------------------------------------------------
def _write(tmp_path, name: str, content: bytes | str) -> str:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return str(path)


HOSTILE_FILES = {
    "deep-array": "[" * 100_000 + "]" * 100_000,
    "deep-in-object": '{"gpu": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "moderately-deep": '{"gpu": ' + "[" * 500 + "]" * 500 + "}",
    "latin-1": b'{"gpu": "\xe9"}',
    "5000-digit-int": '{"nodes": ' + "9" * 5000 + "}",
    "4000-digit-int": '{"nodes": ' + "9" * 4000 + "}",
    "huge-float": '{"pue": 1e999}',
    "nan": '{"pue": NaN}',
    "huge-string-gpu": json.dumps({"gpu": BIG}),
    "huge-string-switch": json.dumps({"switch": BIG}),
    "huge-field-name": json.dumps({BIG: 1}),
    "huge-topology": json.dumps({"topology": BIG}),
    "huge-override-id": json.dumps({"price_overrides": {BIG: 1}}),
    "nested-gpu": json.dumps({"gpu": [[[BIG]]]}),
    "not-an-object": json.dumps([BIG]),
    "bool-nodes": '{"nodes": true}',
    "string-nodes": '{"nodes": "4"}',
    "string-pue": '{"pue": "1.5"}',
    "float-nodes": '{"nodes": 4.5}',
    "bool-tiers": '{"tiers": true}',
    "bool-override": '{"price_overrides": {"QM9700": true}}',
    "empty-switch": '{"switch": ""}',
    "blank-gpu": '{"gpu": "   "}',
    "duplicate-key": '{"nodes": 4, "nodes": 8}',
    "too-large": "{" + " " * MAX_DESIGN_FILE_BYTES + "}",
    "bad-json": "{" + FILLER * 1000,
    "nul-bytes": b"\x00" * 1000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_hostile_design_file_exits_2_with_one_short_line(tmp_path, capsys, name):
    path = _write(tmp_path, name + ".json", HOSTILE_FILES[name])
    assert_one_short_line(*run(capsys, "plan", "--design", path))


def test_dev_zero_is_refused_without_reading_it_all(capsys):
    started = time.perf_counter()
    code, out, err = run(capsys, "plan", "--design", "/dev/zero")
    assert time.perf_counter() - started < 5
    assert_one_short_line(code, out, err)
    assert "1 MB" in err


def test_design_file_at_the_limit_is_read_and_one_byte_more_is_not(tmp_path):
    body = '{"nodes": 8}'
    exact = _write(tmp_path, "exact.json", body + " " * (MAX_DESIGN_FILE_BYTES - len(body)))
    assert read_design_file(exact) == Design(nodes=8)
    over = _write(tmp_path, "over.json", body + " " * (MAX_DESIGN_FILE_BYTES - len(body) + 1))
    with pytest.raises(InputError, match="1 MB"):
        read_design_file(over)


def test_design_file_errors_name_the_problem(tmp_path):
    cases = {
        "latin-1": ("not UTF-8", b'{"gpu": "\xe9"}'),
        "deep": ("nested", "[" * 100_000 + "]" * 100_000),
        "digits": ("nodes", '{"nodes": ' + "9" * 5000 + "}"),
        "duplicate": ("nodes", '{"nodes": 4, "nodes": 8}'),
    }
    for name, (needle, content) in cases.items():
        with pytest.raises(InputError, match=needle):
            read_design_file(_write(tmp_path, name + ".json", content))


def test_plan_help_states_the_file_limit_and_override_bounds(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "plan", "--help")
    out = capsys.readouterr().out
    assert "1 MB" in out
    assert "1e9" in out.replace("1,000,000,000", "1e9") and "1e7" in out.replace("10,000,000", "1e7")


def test_bad_design_path_is_short(capsys):
    assert_one_short_line(*run(capsys, "plan", "--design", "/nonexistent/" + BIG))
    assert_one_short_line(*run(capsys, "plan", "--design", "/"))


HOSTILE_FLAGS = [
    ["plan", "--oversubscription", "2:1:3"],
    ["plan", "--oversubscription", BIG],
    ["plan", "--oversubscription", "inf"],
    ["plan", "--spine-oversubscription", "2:1:3"],
    ["plan", "--spine-oversubscription", ":"],
    ["plan", "--gpu", ""],
    ["plan", "--gpu", "   "],
    ["plan", "--switch", ""],
    ["plan", "--switch", "  "],
    ["plan", "--gpu", BIG],
    ["plan", "--switch", BIG],
    ["plan", "--nodes", "9" * 5000],
    ["plan", "--nodes", BIG],
    ["plan", "--pue", BIG],
    ["plan", "--pue", "nan"],
    ["plan", "--tco-years", "inf"],
    ["plan", "--tco-years", "0"],
    ["plan", "--price", BIG],
    ["plan", "--price", "QM9700=" + "9" * 5000],
    ["plan", "--price", "H100=1e308"],
    ["plan", "--price", BIG + "=3"],
    ["plan", "--power", "QM9700=1e8"],
    ["plan", "--power", "QM9700=" + BIG],
    ["plan", "--fabric", BIG],
    ["plan", "--tiers", BIG],
    ["plan", "--format", BIG],
    ["plan", BIG],
    ["plan", "--" + BIG],
    ["plan", "--p=" + BIG],
    ["plan", "--nodes", "4", BIG, BIG],
    [BIG],
    ["collective", "--size", BIG],
    ["collective", "--size", "9" * 5000],
    ["collective", "--op", BIG],
    ["train", "--tokens", BIG],
    ["train", "--efficiency", BIG],
    ["train", "--seq-len", BIG],
    ["train", "--tokens", "9" * 5000],
    ["train", "--efficiency", "9" * 5000],
    ["train", "--model", BIG],
    ["plan", "--port-speed", "9" * 5000],
    ["plan", "--port-speed", "99999999999"],
    ["catalog", "--kind", BIG],
]


@pytest.mark.parametrize("argv", HOSTILE_FLAGS, ids=lambda a: " ".join(x[:12] for x in a))
def test_hostile_flags_exit_2_with_one_short_line(capsys, argv):
    assert_one_short_line(*run(capsys, *argv))


# --- item 2: strict types in design files ----------------------------------------------------------
@pytest.mark.parametrize("data,field", [
    ({"nodes": True}, "nodes"),
    ({"gpus": False}, "gpus"),
    ({"planes": True}, "planes"),
    ({"pue": True}, "pue"),
    ({"nodes": "4"}, "nodes"),
    ({"oversubscription": "2"}, "oversubscription"),
    ({"tiers": True}, "tiers"),
    ({"power_overrides": {"QM9700": True}}, "power_overrides"),
    ({"price_overrides": {"QM9700": "100"}}, "price_overrides"),
])
def test_booleans_and_digit_strings_are_not_numbers(data, field):
    with pytest.raises(InputError, match=field):
        parse_design(data)


def test_valid_number_forms_still_accepted():
    assert parse_design({"oversubscription": 2}).oversubscription == 2.0  # a JSON whole number for a float
    assert parse_design({"tiers": "2"}).tiers == 2  # the CLI's --tiers passes text
    assert parse_design({"tiers": 3}).tiers == 3 and parse_design({"tiers": "auto"}).tiers == "auto"


# --- item 3: overrides: one rule for files, flags and links; finite results ----------------------
def test_unknown_override_id_in_a_file_is_an_input_error(tmp_path, capsys):
    path = _write(tmp_path, "d.json", json.dumps({"price_overrides": {"NOPE-42": 5}}))
    code, out, err = run(capsys, "plan", "--design", path)
    assert_one_short_line(code, out, err)
    assert "NOPE-42" in err
    path = _write(tmp_path, "p.json", json.dumps({"power_overrides": {"NOPE-43": 5}}))
    code, out, err = run(capsys, "plan", "--design", path)
    assert code == 2 and "NOPE-43" in err


def test_override_aliases_in_a_file_are_canonicalised_and_applied(tmp_path, capsys):
    path = _write(tmp_path, "d.json", json.dumps({"price_overrides": {"qm9700": 1234.0},
                                                  "power_overrides": {"quantum-2": 7.0}}))
    code, out, err = run(capsys, "plan", "--design", path, "--nodes", "64", "--format", "json")
    assert code == 0, err
    rows = [r for r in json.loads(out)["bom"] if r["catalog_id"] == "QM9700"]
    assert rows and all(r["unit_price_usd"] == 1234.0 and r["unit_power_w"] == 7.0 for r in rows)


def test_the_same_id_twice_under_two_names_is_refused():
    with pytest.raises(InputError, match="QM9700"):
        plan(Design(price_overrides={"qm9700": 1.0, "QM9700": 2.0}))


@pytest.mark.parametrize("argv,needle", [
    (["--price", "H100=1e308"], "1,000,000,000"),
    (["--price", "H100=1e10"], "1,000,000,000"),
    (["--power", "QM9700=1e8"], "10,000,000"),
    (["--price", "QM9700=inf"], "1,000,000,000"),
])
def test_override_bounds_on_flags(capsys, argv, needle):
    code, out, err = run(capsys, "plan", *argv)
    assert_one_short_line(code, out, err)
    assert needle in err


def test_override_bounds_in_files(tmp_path, capsys):
    for data in ({"price_overrides": {"H100": 2e9}}, {"power_overrides": {"H100": 2e7}}):
        code, out, err = run(capsys, "plan", "--design", _write(tmp_path, "d.json", json.dumps(data)))
        assert_one_short_line(code, out, err)
    assert parse_design({"price_overrides": {"H100": 1e9}, "power_overrides": {"H100": 1e7}})


def test_cli_json_never_prints_non_finite_numbers(capsys, monkeypatch):
    from core.plan import Plan

    original = Plan.summary
    monkeypatch.setattr(Plan, "summary", lambda self: {**original(self), "bad": math.inf})
    with pytest.raises(ValueError):
        run(capsys, "plan", "--format", "json")


def _leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


IDS = [e.id for _, e in CATALOG.all_entries()]


@st.composite
def valid_designs(draw):
    system = draw(st.sampled_from(CATALOG.systems))
    extreme = st.sampled_from([0.0, 1e9])
    price = st.dictionaries(st.sampled_from(IDS), st.one_of(extreme, st.floats(0, 1e9)), max_size=4)
    power = st.dictionaries(st.sampled_from(IDS), st.one_of(st.sampled_from([0.0, 1e7]), st.floats(0, 1e7)),
                            max_size=4)
    return Design(
        gpu=system.id, nodes=draw(st.integers(1, 20_000)),
        fabric=draw(st.sampled_from([None, "infiniband", "ethernet"])),
        topology=draw(st.sampled_from(["rail-optimized", "top-of-rack"])),
        oversubscription=draw(st.floats(1, 16)), spine_oversubscription=draw(st.floats(1, 16)),
        cable_media=draw(st.sampled_from(["auto", "copper", "aoc", "optics"])),
        pue=draw(st.floats(1, 3)), electricity_usd_per_kwh=draw(st.floats(0, 2)),
        tco_years=draw(st.floats(0, 30, exclude_min=True)),
        price_overrides=draw(price), power_overrides=draw(power),
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_designs())
def test_plan_summary_is_always_finite(design):
    try:
        result = plan(design)
    except (DesignError, InputError):
        return
    summary = result.summary()
    numbers = [v for v in _leaves(summary) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    assert all(math.isfinite(v) for v in numbers), summary
    json.dumps(summary, allow_nan=False)
    frame = result.bom_frame()
    assert all(math.isfinite(v) for v in frame.select_dtypes("number").to_numpy().ravel())


# --- item 4: ratios and empty model names -----------------------------------------------------------
def test_ratio_accepts_exactly_x_or_x_colon_y():
    from core.cli.common import ratio

    assert ratio("2") == 2.0 and ratio("3:1") == 3.0 and ratio("1.5") == 1.5 and ratio(" 4 : 2 ") == 2.0
    for text in ("2:1:3", ":", "2:", ":1", "2:0", "0:1", "-2:-1", "inf", "nan", "1e999:1", "inf:inf", "", "a:b"):
        with pytest.raises(argparse.ArgumentTypeError):
            ratio(text)


def test_oversubscription_2_1_3_is_refused(capsys):
    code, out, err = run(capsys, "plan", "--oversubscription", "2:1:3")
    assert_one_short_line(code, out, err)
    assert "2:1:3" in err


def test_empty_model_names_are_refused(capsys):
    for flag in ("--gpu", "--switch"):
        code, out, err = run(capsys, "plan", flag, " ")
        assert_one_short_line(code, out, err)
        assert flag in err


# --- item 5: override lists: thousands separators, full-width text, lenient parsing -----------------
def test_thousands_separators_are_accepted():
    assert sharelink.parse_overrides("QM9700:20,000, CX7:1,500", CATALOG) == {"QM9700": 20000.0, "CX7": 1500.0}
    assert sharelink.parse_overrides("QM9700:1,234,567.5", CATALOG) == {"QM9700": 1234567.5}
    assert sharelink.parse_overrides("QM9700:20,000,CX7:15", CATALOG) == {"QM9700": 20000.0, "CX7": 15.0}
    assert sharelink.parse_overrides("QM9700=30000,CX7=1500", CATALOG) == {"QM9700": 30000.0, "CX7": 1500.0}


def test_full_width_text_is_normalised():
    assert sharelink.parse_overrides("QM9700：２００００", CATALOG) == {"QM9700": 20000.0}
    assert sharelink.parse_overrides("ＱＭ９７００：１，５００，　ＣＸ７：３", CATALOG) == {"QM9700": 1500.0,
                                                                                          "CX7": 3.0}


def test_lenient_parsing_applies_the_good_items_and_warns_per_bad_item():
    values, warnings = sharelink.parse_overrides_lenient("QM9700:20,000, NOPE:5, CX7:cheap, CX8:7, junk",
                                                         CATALOG, "USD")
    assert values == {"QM9700": 20000.0, "CX8": 7.0}
    assert len(warnings) == 3
    assert "NOPE" in warnings[0] and "cheap" in warnings[1] and "junk" in warnings[2]
    assert all(len(w) <= 200 for w in warnings)


def test_lenient_parsing_of_100kb_stays_short():
    for text in (BIG, "QM9700:" + BIG, ",".join([FILLER * 50] * 2000), BIG + ":1", "QM9700:1e308"):
        values, warnings = sharelink.parse_overrides_lenient(text, CATALOG, "USD")
        assert values == {}
        assert 1 <= len(warnings) <= 12  # the cut list (over 200 items), 10 bad items, "N more"
        assert all(len(w) <= 200 and FILLER * 41 not in w for w in warnings)


def test_strict_parsing_raises_with_a_short_message():
    for text in (BIG, "QM9700:" + BIG, "QM9700:1," + BIG):
        with pytest.raises(sharelink.ParamError) as info:
            sharelink.parse_overrides(text, CATALOG)
        assert len(str(info.value)) <= 200 and FILLER * 41 not in str(info.value)


def test_a_link_with_one_bad_override_item_applies_the_others():
    design, warnings = sharelink.decode({"n": "64", "px": "QM9700:20,000,NOPE:5,CX7:1,500", "pw": "CX7：２０"})
    assert design.price_overrides == {"QM9700": 20000.0, "CX7": 1500.0}
    assert design.power_overrides == {"CX7": 20.0}
    assert len(warnings) == 1 and "'px'" in warnings[0] and "NOPE" in warnings[0]
    assert design.nodes == 64


# --- item 6: a link the sidebar offers reopens as the same design --------------------------------
def _offered_designs():
    for system in CATALOG.systems:
        nodes = max(1, system.nvlink_domain_gpus // system.gpus_per_node)
        for fabric in ("infiniband", "ethernet"):
            for speed in (None, *offered_port_speeds(CATALOG, fabric)):
                try:
                    _, effective, _ = resolve_nic_and_speed(CATALOG, system, fabric, speed)
                except InputError:
                    continue
                for switch in CATALOG.fabric_switches(fabric, effective):
                    yield Design(gpu=system.id, nodes=nodes, fabric=fabric, port_speed_gbps=speed, switch=switch.id)


def test_b300_ethernet_sn5400_link_reopens_without_warning():
    design, warnings = sharelink.decode({"v": "1", "g": "B300", "n": "18", "f": "eth", "sw": "SN5400"})
    assert warnings == []
    assert design.switch == "SN5400" and plan(design).resolved.switch.id == "SN5400"


def test_every_offered_combination_round_trips_through_a_link():
    designs = list(_offered_designs())
    assert len(designs) > 50
    for design in designs:
        decoded, warnings = sharelink.decode(sharelink.encode(design))
        assert warnings == [], (design, warnings)
        assert decoded == design
        assert plan(decoded).resolved.switch.id == design.switch


def test_resolve_nic_and_speed_is_the_engine_rule():
    b300 = CATALOG.system("B300")
    nic, speed, notes = resolve_nic_and_speed(CATALOG, b300, "ethernet", None)
    assert (nic.id, speed) == ("CX8", 400) and notes
    assert resolve_nic_and_speed(CATALOG, b300, "infiniband", None)[1] == 800
    with pytest.raises(InputError):
        resolve_nic_and_speed(CATALOG, b300, "ethernet", 1600)


# --- item 7: link hygiene -----------------------------------------------------------------------------
def test_a_link_with_too_many_parameters_warns_and_applies_the_rest():
    params = {f"junk{i}": "1" for i in range(1500)}
    params.update({"n": "64", "pue": "1.5"})
    design, warnings = sharelink.decode(params)
    assert design.nodes == 64 and design.pue == 1.5
    assert any("1,502 parameters" in w for w in warnings)
    assert len(warnings) <= 20


def test_repeated_keys_warn_and_the_last_value_counts():
    design, warnings = sharelink.decode({"g": ["B200", "H100"], "n": "64"})
    assert design.gpu == "H100" and design.nodes == 64
    assert len(warnings) == 1 and "'g'" in warnings[0] and "2 times" in warnings[0]
    design, warnings = sharelink.decode({"n": [], "pue": "1.5"})
    assert design.pue == 1.5 and len(warnings) == 1 and "'n'" in warnings[0]


# --- item 8: messages and ways out -----------------------------------------------------------------
def test_too_many_rails_names_the_limit():
    with pytest.raises(DesignError) as info:
        plan(Design(gpu="H100", gpus_per_node=72))
    text = str(info.value)
    assert "at most 0 nodes" not in text
    assert "72" in text and "64" in text


def test_tier_limit_counts_nodes_and_gpus():
    with pytest.raises(DesignError) as info:
        plan(Design(nodes=64, tiers=1))
    assert "this design has 64 nodes (512 GPUs)" in str(info.value)


def test_range_errors_read_well():
    with pytest.raises(InputError) as info:
        parse_design({"tco_years": 0})
    assert str(info.value) == "tco_years: must be above 0 and at most 30 (got 0)"
    with pytest.raises(InputError) as info:
        parse_design({"oversubscription": 0.2})  # below 1 is allowed (more uplink than downlink), to 0.25
    assert str(info.value) == "oversubscription: must be from 0.25 to 16 (got 0.2)"
    with pytest.raises(InputError) as info:
        parse_design({"nodes": 0})
    assert str(info.value) == "nodes: must be from 1 to 1,000,000 (got 0)"


def test_tco_years_0_on_the_cli(capsys):
    code, out, err = run(capsys, "plan", "--tco-years", "0")
    assert_one_short_line(code, out, err)
    assert "--tco-years: must be above 0 and at most 30 (got '0')" in err  # the range its help and validation say


FAILING_DESIGNS = {
    "too many nodes for 2 tiers": Design(nodes=512, tiers=2),
    "too many nodes for 1 tier": Design(nodes=64, tiers=1),
    "too many nodes for 3 tiers of QM9700": Design(gpus=131_072, switch="QM9700"),
    "too many nodes for 3 tiers of QM8700": Design(gpu="A100", nodes=5000, switch="QM8700"),
    "nodes beyond any switch": Design(gpus=MAX_GPUS),
    "top-of-rack with too many NICs": Design(gpu="H100", gpus_per_node=48, topology="top-of-rack"),
    "top-of-rack, small switch": Design(gpu="A100", nodes=64, gpus_per_node=24, topology="top-of-rack",
                                        switch="QM8700"),
    "too many rails": Design(gpu="H100", gpus_per_node=72),
    "too many planes": Design(planes=2),
    "too many planes on Ethernet": Design(gpu="B300", fabric="ethernet", port_speed_gbps=400, planes=4),
}


def _apply(design: Design, change: dict) -> Design:
    data = design.model_dump(exclude_defaults=True)
    data.update(change)
    return Design.model_validate({k: v for k, v in data.items() if v is not None})


@pytest.mark.parametrize("name", sorted(FAILING_DESIGNS))
def test_every_way_out_builds(name):
    design = FAILING_DESIGNS[name]
    with pytest.raises(DesignError) as info:
        plan(design)
    exc = info.value
    assert exc.fixes, f"{name}: no way out offered: {exc}"
    suggestion = exc.suggestion.lower()
    for phrase, change in exc.fixes:
        assert phrase.lower() in suggestion
        fixed = _apply(design, change)
        assert fixed != design
        plan(fixed)  # raises if the suggestion does not work
    # the text suggests nothing beyond the fixes: the phrases joined by ", or " are the whole suggestion
    rest = suggestion
    for phrase, _ in exc.fixes:
        rest = rest.replace(phrase.lower(), "", 1)
    assert set(rest) <= set(" ,.or"), exc.suggestion


def test_no_larger_radix_switch_is_offered_when_none_fits():
    with pytest.raises(DesignError) as info:
        plan(Design(gpus=MAX_GPUS))
    assert "larger-radix" not in str(info.value)
    assert all("switch" not in change for _, change in info.value.fixes)
