"""Every upload and link value is read in time linear in its size.

A design file holding one unterminated JSON string of escaped quotes (``{"name": "\\"\\"\\"...``) cost 2.2 s of CPU
at 24 kB, 12 s at 64 kB and 47 s at 128 kB: the JSON depth scan (``core.design._json_depth``) tried a string match
from every quote, each running to the end of the text. An override list ``QM9700:1,5,5,5,...`` grew one string in a
loop (0.87 s at 256 kB). Each shape below is timed in CPU time (best of 3) at 16, 64 and 256 kB on the upload path
(what the Designer's upload handler calls: ``design_from_bytes``, ``resolve_design``, the escaped echo) and on
every link decoder; four times the input may cost at most eight times the CPU (quadratic costs sixteen).
"""

from __future__ import annotations

import gc
import time

import pytest

from core.catalog import load_catalog
from core.design import resolve_design
from core.errors import DesignError, InputError
from core.i18n import as_sentence
from core.formats import comparelink, inferencelink, optimizelink, resiliencelink, sharelink, sweeplink  # noqa: F401
from core.formats.design_file import design_from_bytes
from webui import safe

CATALOG = load_catalog()
SIZES = (16_000, 64_000, 256_000)
GROWTH = 8.0
"""Most CPU time four times the input may cost (linear: 4, quadratic: 16); generous for a shared machine."""
FLOOR = 0.003
"""Times below this [s of CPU] are noise: a ratio is taken against at least this much."""


def _cpu(fn, repeat: int = 3) -> float:
    """Best CPU time of ``fn`` [s] over ``repeat`` runs, each with the garbage collector paused: a full collection
    of the heap other tests in this worker left behind (plan caches) would be charged to whichever call it fell
    in, and is no cost of the input."""
    best = float("inf")
    gc.freeze()  # the heap other tests left is not scanned: collecting it took seconds a call (1.7 GB workers)
    try:
        for _ in range(repeat):
            gc.collect()  # this test's own garbage only
            gc.disable()
            try:
                start = time.process_time()
                fn()
                best = min(best, time.process_time() - start)
            finally:
                gc.enable()
            if best > 0.5:  # far too slow already: no need to confirm it (old code fails in seconds, not minutes)
                break
    finally:
        gc.unfreeze()
    return best


def _grows_linearly(make, run) -> list[float]:
    """CPU times of ``run(make(size))`` at each of ``SIZES``; fails at the first size that grows faster than
    linearly (stopping there, so a quadratic path fails in seconds rather than minutes)."""
    times: list[float] = []
    previous = None
    for size in SIZES:
        data = make(size)
        times.append(_cpu(lambda: run(data)))
        if len(times) > 1 and times[-1] > GROWTH * max(times[-2], FLOOR) and times[-1] < 0.5:
            # A shared machine can stall one timing: measure both sizes again, longer, before judging (a quadratic
            # path costs 16x, far beyond the bound however often it is measured).
            times[-2] = _cpu(lambda: run(previous), repeat=9)
            times[-1] = _cpu(lambda: run(data), repeat=9)
        if len(times) > 1:
            assert times[-1] <= GROWTH * max(times[-2], FLOOR), (size, times)
        previous = data
    return times


# --- the upload path --------------------------------------------------------------------------------
def _upload(data: bytes) -> str:
    """What the Designer's upload handler does with a file (pages/1_Designer.py ``_on_upload``) and the escaped
    message it shows; pure (no session)."""
    try:
        design = design_from_bytes(data, "'hostile.json'")
        try:
            resolve_design(design, CATALOG)
        except DesignError:
            pass
    except InputError as exc:
        return safe.md("This file was not loaded; the design is unchanged. " + as_sentence(str(exc)))
    return "ok"


def _string_of(body: str, key: str = "name") -> str:
    return '{"' + key + '": "' + body


UPLOAD_SHAPES = {
    "escaped quotes, unterminated": lambda n: _string_of('\\"' * (n // 2)),
    "escaped quotes": lambda n: _string_of('\\"' * (n // 2)) + '"}',
    "escaped quotes under an unknown key": lambda n: _string_of('\\"' * (n // 2), "zz") + '"}',
    "escaped quotes as a key": lambda n: '{"' + '\\"' * (n // 2) + '": 1}',
    "backslashes, unterminated": lambda n: _string_of("\\\\" * (n // 2)),
    "backslash then quote, repeated": lambda n: '"\\' * (n // 2),
    "bare quotes": lambda n: '"' * n,
    "deep arrays": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "deep objects, unterminated": lambda n: '{"a":' * (n // 5),
    "long key": lambda n: '{"' + "k" * n + '": 1}',
    "many keys": lambda n: "{" + ",".join(f'"k{i}": 1' for i in range(n // 10)) + "}",
    "long unicode name": lambda n: _string_of("\u4e2d" * (n // 3)) + '"}',
    "markdown characters": lambda n: _string_of("<[*`_\\\\" * (n // 7)) + '"}',
    "unicode escapes": lambda n: _string_of("\\u4e2d" * (n // 6)),
    "huge number": lambda n: '{"nodes": ' + "9" * n + "}",
    "many list items": lambda n: '{"price_overrides": [' + "1," * (n // 2) + "1]}",
}


@pytest.mark.parametrize("shape", list(UPLOAD_SHAPES))
def test_upload_cost_grows_linearly(shape):
    make = UPLOAD_SHAPES[shape]
    _grows_linearly(lambda n: make(n).encode("utf-8")[:n], _upload)


def test_a_128_kb_hostile_upload_costs_under_a_fifth_of_a_second():
    """The issue's target: its file (128 kB, one unterminated string of escaped quotes) took 47 s of CPU."""
    data = UPLOAD_SHAPES["escaped quotes, unterminated"](128_000).encode()
    assert len(data) >= 128_000
    assert _cpu(lambda: _upload(data)) < 0.2
    message = _upload(data)
    assert "not valid JSON" in message and len(message) < 400


def test_the_depth_scan_still_sees_depth_through_strings():
    """The one-pass scan skips strings (brackets inside them do not count) and still stops deep nesting."""
    ok = b'{"name": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"{{{{{{{{{{{{{{{{{{{{{{{{{{", "nodes": 8}'
    assert design_from_bytes(ok, "f").name.startswith("[[[")
    with pytest.raises(InputError, match="nested more than 20"):
        design_from_bytes(b'{"a": ' + b"[" * 21 + b"]" * 21 + b"}", "f")
    with pytest.raises(InputError, match="nested more than 20"):
        design_from_bytes(b'{"a": "\\\\", "b": ' + b"[" * 21, "f")  # an escaped backslash ends its string
    with pytest.raises(InputError, match="not valid JSON"):
        design_from_bytes(b'{"a": "unterminated [[[[', "f")


# --- the link decoders --------------------------------------------------------------------------------
DESIGN_KEYS = list(sharelink.FIELDS)
LINK_VALUES = {
    "escaped quotes": lambda n: '\\"' * (n // 2),
    "backslashes": lambda n: "\\" * n,
    "markdown characters": lambda n: "<[*`_" * (n // 5),
    "unicode": lambda n: "\u4e2d" * n,
    "decimal commas": lambda n: "QM9700:1," + ",".join(["5"] * (n // 2)),
    "override items": lambda n: ",".join(["QM9700:1"] * (n // 9)),
    "separators": lambda n: "a;" * (n // 2),
    "rules": lambda n: "switch=N+1," * (n // 11),
    "digits": lambda n: "9" * n,
    "spaces": lambda n: " " * n,
}


def _every_decoder(value: str) -> None:
    sharelink.decode({key: value for key in DESIGN_KEYS}, CATALOG)
    for ext in sharelink.extensions().values():
        ext.decode({ext.prefix + p.key: value for p in ext.params})
    comparelink.decode({**{f"c1_{key}": value for key in DESIGN_KEYS}, "c1_name": value, "cmp_sz": value}, CATALOG)
    resiliencelink.decode({key: value for key in resiliencelink._KNOWN})
    sweeplink.decode({"sw_x": "n", "sw_xv": value, "sw_y": "gpn", "sw_yv": value})
    optimizelink.decode({optimizelink.SEARCH.prefix + p.key: value for p in optimizelink.SEARCH.params})
    sharelink.decode({value: "1"}, CATALOG)  # the value as a key, too
    for ext in sharelink.extensions().values():
        ext.decode({ext.prefix + value: "1"})


@pytest.mark.parametrize("shape", list(LINK_VALUES))
def test_link_decoding_cost_grows_linearly(shape):
    make = LINK_VALUES[shape]
    _grows_linearly(lambda n: make(n)[:n], _every_decoder)


def test_an_override_list_is_read_for_at_most_200_items():
    text = ",".join(f"QM9700:{i}" for i in range(5000))
    values, warnings = sharelink.parse_overrides_lenient(text, CATALOG)
    assert values == {"QM9700": 199.0}
    assert warnings[0].startswith("The list was cut: more than the 200 items")
    with pytest.raises(sharelink.ParamError, match="more than the 200 items"):
        sharelink.parse_overrides(text, CATALOG)
    with pytest.raises(sharelink.ParamError, match="use a point for decimals"):
        sharelink.parse_overrides("QM9700:1,5", CATALOG)  # a decimal comma is still one item


def test_the_designer_refuses_the_128_kb_hostile_upload_at_once():
    """Through the page (AppTest): one short escaped error, the design unchanged, and the run that reads the file
    costs little CPU (before: 47 s)."""
    from test_app_pages import app, shown

    at = app({"n": "64", "tab": "Hand-off"})
    before = at.session_state["fp_current"].design
    data = UPLOAD_SHAPES["escaped quotes, unterminated"](128_000).encode()
    start = time.process_time()
    at.file_uploader[0].set_value(("hostile.json", data, "application/json")).run()
    cost = time.process_time() - start
    assert not at.exception
    errors = [shown(e.value) for e in at.error]
    assert len(errors) == 1 and "not valid JSON" in errors[0] and len(errors[0]) < 400
    assert at.session_state["fp_current"].design == before
    assert cost < 2.0, cost  # the whole rerun of the page; the file itself is checked in under 0.2 s
