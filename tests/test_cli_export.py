"""``python -m core export``: every registered format, golden files, naming flags, bad input.

Golden files live in ``tests/golden/exports/`` (one small design per format: ``h100-4`` = 4 x DGX H100 on
one QM9700, ``h100-64-2su`` = two rail-optimized SUs of 32 DGX H100, ``gb200-nvl72-36`` = two NVL72 racks).
After an intended change to an export, regenerate them with

    FP_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_cli_export.py -k golden

and review the diff (``git diff tests/golden/exports``) before committing.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

from conftest import run_cli as run
from core.design import Design
from core.formats.exports import exports, write_export
from core.plan import plan

GOLDEN = Path(__file__).resolve().parent / "golden" / "exports"
CASES = {
    "h100-4": ["--gpu", "h100", "--nodes", "4"],
    "h100-64-2su": ["--gpu", "h100", "--nodes", "64"],
    "gb200-nvl72-36": ["--gpu", "gb200-nvl72", "--nodes", "36"],
}
MINE = ("slurm", "slurm-block", "slurm-yaml", "graphml", "drawio")
GOLDEN_CASES = [(case, fmt) for case in CASES for fmt in MINE
                if not (case == "gb200-nvl72-36" and fmt in ("graphml", "drawio"))]


@pytest.mark.parametrize("case,fmt", GOLDEN_CASES)
def test_golden(capsys, case, fmt):
    code, out, err = run(capsys, "export", *CASES[case], "--format", fmt)
    assert code == 0, err
    suffix = exports()[fmt].suffix
    path = GOLDEN / (f"{case}.{fmt}" + ("" if suffix == f".{fmt}" else suffix))  # h100-4.graphml, h100-4.slurm.conf
    if os.environ.get("FP_UPDATE_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(out, encoding="utf-8")
    assert path.exists(), f"missing golden file {path.name}; see this module's docstring"
    assert out == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", list(exports()))
def test_every_registered_format_works(capsys, fmt, tmp_path):
    """Also formats other modules register later: stdout and --output give the same text."""
    code, out, err = run(capsys, "export", "--gpu", "h100", "--nodes", "64", "--format", fmt)
    assert code == 0, err
    assert out.strip() and err == ""
    target = tmp_path / f"out{exports()[fmt].suffix}"
    code, written, err = run(capsys, "export", "--gpu", "h100", "--nodes", "64", "--format", fmt, "-o", str(target))
    assert code == 0 and written == "" and err == ""
    assert target.read_text(encoding="utf-8") == out


def test_output_is_english_in_every_language(capsys):
    for fmt in MINE:
        _code, english, _err = run(capsys, "export", "--gpu", "h100", "--nodes", "64", "--format", fmt)
        code, chinese, _err = run(capsys, "--lang", "zh", "export", "--gpu", "h100", "--nodes", "64", "--format", fmt)
        assert code == 0 and chinese == english, fmt


FILE_DESIGNS = (Design(gpu="H100", nodes=64), Design(gpu="H100", gpus=512, topology="torus"),
                Design(gpu="H100", nodes=64, pods="B200:32:400"), Design(gpu="H100", gpus=1024, fabric="ethernet"))


@pytest.mark.parametrize("design", FILE_DESIGNS, ids=["clos", "torus", "pods", "ethernet"])
def test_every_file_is_english_from_the_page_in_every_language(design):
    """The Designer's download (``export_text`` in the page's language) is the same bytes in Chinese as in English
    for every registered format (``core.formats.exports.FILE_LANGUAGE``): the Prometheus rules and the ibsim net
    file followed the page's language while the CLI wrote English. A design a format refuses is said in the page's
    language (the greyed-out button's reason)."""
    from core.errors import FabricPlannerError
    from core.formats.exports import export_text
    from core.i18n import language

    p = plan(design)
    for name in exports():
        said = {}
        for lang in ("en", "zh"):
            with language(lang):
                try:
                    said[lang] = export_text(p, name)
                except FabricPlannerError as exc:
                    said[lang] = exc
        if isinstance(said["en"], FabricPlannerError):
            assert str(said["zh"]) != str(said["en"]) and re.search("[\u4e00-\u9fff]", str(said["zh"])), name
        else:
            assert said["zh"] == said["en"], name


def test_the_cli_writes_the_pages_file_and_refuses_in_its_language(capsys):
    """``--lang zh export`` writes the bytes the Chinese page downloads; its refusal is Chinese (the CLI wrapped the
    whole export in English, so ``--lang zh`` printed "错误：ibsim simulates InfiniBand subnets ...")."""
    from core.formats.exports import export_text
    from core.i18n import language

    for fmt in ("prometheus", "ibsim"):
        code, out, _err = run(capsys, "--lang", "zh", "export", "--gpu", "h100", "--nodes", "64", "--format", fmt)
        with language("zh"):
            assert code == 0 and out == export_text(plan(Design(gpu="H100", nodes=64)), fmt), fmt
    code, out, err = run(capsys, "--lang", "zh", "export", "--fabric", "ethernet", "--format", "ibsim")
    assert code == 2 and out == "" and "InfiniBand 子网" in err and "simulates" not in err, err


def test_naming_flags(capsys):
    code, out, _err = run(capsys, "export", "--gpu", "h100", "--nodes", "64", "--format", "slurm",
                          "--node-prefix", "dgx", "--switch-prefix", "ib-", "--min-digits", "4")
    assert code == 0
    assert "SwitchName=ib-su0001 Nodes=dgx[0001-0032]" in out
    assert "#   ib-su0001 = ib-leaf[0001-0008] (8 rails of SU 1)" in out


def test_design_file_and_flags(capsys, tmp_path):
    design = tmp_path / "d.json"
    design.write_text(Design(gpu="H100", nodes=64).model_dump_json(exclude_defaults=True))
    code, from_file, _ = run(capsys, "export", "--design", str(design), "--format", "slurm")
    _code, from_flags, _ = run(capsys, "export", "--gpu", "h100", "--nodes", "64", "--format", "slurm")
    assert code == 0 and from_file == from_flags


@pytest.mark.parametrize("argv,needle", [
    (["--format", "visio"], "invalid choice"),
    ([], "--format"),
    (["--format", "slurm", "--node-prefix", "9gpu"], "--node-prefix"),
    (["--format", "slurm", "--node-prefix", ""], "--node-prefix"),
    (["--format", "slurm", "--switch-prefix", "a b"], "--switch-prefix"),
    (["--format", "slurm", "--min-digits", "9"], "--min-digits"),
    (["--format", "slurm", "--min-digits", "0"], "--min-digits"),
    (["--format", "slurm", "--nodes", "4", "--gpus", "8"], "--nodes or --gpus"),
    (["--format", "slurm", "--gpu", "h999"], "h999"),
    (["--format", "slurm", "--output", "/no/such/folder/x.conf"], "no such folder"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, needle):
    code, out, err = run(capsys, "export", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and len(err) < 320 and needle in err
    assert "Traceback" not in err


def test_output_to_a_folder_is_refused(capsys, tmp_path):
    code, _out, err = run(capsys, "export", "--format", "slurm", "--output", str(tmp_path))
    assert code == 2 and "folder" in err


def test_impossible_design_exits_3_and_writes_nothing(capsys, tmp_path):
    target = tmp_path / "t.conf"
    code, out, err = run(capsys, "export", "--gpu", "h100", "--gpus", "131072", "--format", "slurm", "-o", str(target))
    assert code == 3 and out == "" and "cannot build" in err and not target.exists()


def test_help_lists_the_formats(capsys):
    with pytest.raises(SystemExit):
        run(capsys, "export", "--help")
    out = capsys.readouterr().out
    for name in exports():
        assert name in out


class _CountingWriter(io.StringIO):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def write(self, text):
        self.calls += 1
        return super().write(text)


@pytest.mark.parametrize("fmt", MINE)
def test_writers_stream(fmt):
    """Writers write as they go (many small writes), never one string of the whole file at the end."""
    p = plan(Design(gpu="H100", nodes=1000))
    out = _CountingWriter()
    write_export(p, fmt, out)
    text = out.getvalue()
    assert out.calls > 10
    assert max(len(line) for line in text.splitlines()) < 200_000
