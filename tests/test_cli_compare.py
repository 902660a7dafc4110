"""``python -m core compare``: the Compare page's numbers (``core.analysis.compare.compare``) for design files."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from core.analysis.compare import compare
from core.cli import main
from core.design import Design


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def files(tmp_path):
    designs = {"small": {"gpus": 64}, "wide": {"gpus": 256, "name": "Wide one"},
               "oversubscribed": {"gpus": 256, "oversubscription": 2}, "broken": {"gpus": 100000, "tiers": 1}}
    paths = {}
    for name, data in designs.items():
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(data), encoding="utf-8")
    return {name: str(path) for name, path in paths.items()}


def test_json_is_the_pages_comparison(files):
    code, out, _err = _run("--lang", "zh", "compare", files["wide"], files["oversubscribed"], "--baseline", "2",
                           "--sizes", "1MiB", "--format", "json")
    assert code == 0
    data = json.loads(out)
    page = compare([("Wide one", Design(gpus=256, name="Wide one")),
                    ("oversubscribed", Design(gpus=256, oversubscription=2))], 1, sizes=(2**20,))
    assert data["baseline"] == 2 and data["sizes_bytes"] == [2**20]
    assert [c["name"] for c in data["columns"]] == ["Wide one", "oversubscribed"]
    for column, expected in zip(data["columns"], page.columns):
        assert column["values"] == pytest.approx(expected.values) and column["error"] is None
    keys = {m["key"] for m in data["metrics"]}
    assert {"capex_usd", "busbw_gbytes_1048576"} <= keys and "step_time_s" not in keys  # no job given
    assert data["metrics"][0]["label"] == "GPUs"  # English in every language
    first = data["columns"][0]["deltas"]
    assert first["switches_total"]["verdict"] == "worse" and data["columns"][1]["deltas"]["capex_usd"] is None
    assert first["capex_usd"]["absolute"] == pytest.approx(page.columns[0].values["capex_usd"]
                                                           - page.columns[1].values["capex_usd"])
    assert data["bom_changes"] and all(len(c["quantities"]) == 2 for c in data["bom_changes"])


def test_table_and_a_design_that_cannot_be_built(files):
    code, out, _err = _run("--lang", "en", "compare", files["small"], files["broken"])
    assert code == 0
    assert out.splitlines()[0].split() == ["metric", "1.", "small", "2.", "broken", "2.", "vs", "baseline"]
    assert "Capex, whole cluster [USD]" in out and "Step time" not in out
    assert "2. broken: cannot build this design: 1 tier of" in out
    code, out, _err = _run("--lang", "zh", "compare", files["small"], files["wide"])
    assert code == 0 and "相对基准" in out


@pytest.mark.parametrize("extra, message", [
    ((), "give two to 4 design files, got 1"),
    (("{wide}", "{wide}", "{wide}", "{wide}"), "give two to 4 design files, got 5"),
    (("{wide}", "--baseline", "3"), "--baseline 3 but only 2 designs"),
    (("{wide}", "--sizes", "1MiB,2MiB,4MiB,8MiB,16MiB"), "give one to 4 sizes"),
    (("{wide}", "--sizes", "huge"), "cannot read size"),
])
def test_bad_input_exits_2_with_one_line(files, extra, message):
    code, out, err = _run("--lang", "en", "compare", files["small"], *(e.format(**files) for e in extra))
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1, err
