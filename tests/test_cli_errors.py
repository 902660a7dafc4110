"""Every sub-command of ``python -m core`` ends hostile input with one short line and exit code 2.

The sub-commands are read from the parser (``core.cli.build_parser``), so a new one is tested here without a
change; its options decide which hostile values it gets: a negative ``--seed``, absurd ``--planes`` and
``--min-planes``, a design file that does not exist, ``--output`` to ``/dev/full`` and to a folder, and stdout
on ``/dev/full``. Calls are in-process (``core.cli.main``) but for a few subprocess runs of the reported lines.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = {"--fail": "leaf:1", "--set": "nodes=1,2", "--stages": "16,32",
            "--nccl-tests": str(ROOT / "tests" / "nccl_all_reduce_example.txt"),
            "--ibnetdiscover": str(Path(__file__).parent / "golden" / "asbuilt" / "h100-64gpus.net"),
            "FILE.json": [str(ROOT / "tests" / "data" / "design-64.json")] * 2}
"""A valid value of each required option that has no choices, and of each required positional by its metavar (a
new one must be added here, see below)."""
SERVERS = {"mcp"}
"""Sub-commands that serve on stdin and stdout until the client closes them (tests/test_mcp.py)."""
SMALL = ["--gpus", "64"]
FAST = {"--oversubscription-grid": ["1"], "--single-model": [], "--fabric": ["infiniband"], "--max-tiers": ["1"],
        "--trials": ["20"]}
"""Options that keep a valid call quick, given to every sub-command that has them (a smaller search, fewer trials)."""
NEEDS = {"stages": ["--stages", "16,32"]}
"""Options a valid call of a sub-command needs that argparse does not require (``stages``: later stages or a growth
target, either)."""


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


COMMANDS = _subcommands()


def _options(sub: argparse.ArgumentParser) -> set[str]:
    return {o for a in sub._actions for o in a.option_strings}


def _base(sub: argparse.ArgumentParser) -> list[str]:
    """A valid call of the sub-command on a small design: its required options filled, 8 GPUs."""
    argv = []
    for action in sub._actions:
        if action.required and not action.option_strings:
            assert action.metavar in EXAMPLES, f"give {action.metavar} valid example values in EXAMPLES"
            argv += EXAMPLES[action.metavar]
        if not action.required or not action.option_strings:
            continue
        flag = action.option_strings[0]
        if action.choices:
            argv += [flag, list(action.choices)[0]]
        else:
            assert flag in EXAMPLES, f"give {flag} a valid example value in EXAMPLES"
            argv += [flag, EXAMPLES[flag]]
    for group in sub._mutually_exclusive_groups:  # one of them required: its first option
        if group.required:
            flag = group._group_actions[0].option_strings[0]
            argv += [flag, EXAMPLES[flag]]
    argv += NEEDS.get(sub.prog.rsplit(" ", 1)[-1], [])
    options = _options(sub)
    for flag, values in FAST.items():
        if flag in options:
            argv += [flag, *values]
    return argv + (SMALL if "--gpus" in options else [])


def _hostile(sub: argparse.ArgumentParser, folder: str) -> list[list[str]]:
    options, out = _options(sub), []
    if "--seed" in options:
        out += [["--seed", "-1"], ["--seed", str(2**70)]]
    if "--planes" in options:
        out.append(["--planes", "99"])
    if "--min-planes" in options:
        out.append(["--min-planes", "9"])
    if "--design" in options:
        out.append(["--design", os.path.join(folder, "no-such-design.json")])
    if "--output" in options:
        out += [["--output", "/dev/full"], ["--output", folder], ["--output", os.path.join(folder, "no", "x")]]
    out.append(["--no-such-option"])
    return out


def _run(capsys, argv: list[str], stdout=None) -> tuple[int, str]:
    capsys.readouterr()
    saved = sys.stdout
    if stdout is not None:
        sys.stdout = stdout
    try:
        code = main(argv)
    finally:
        sys.stdout = saved
    return code, capsys.readouterr().err


def _one_line(err: str, argv: list[str]) -> None:
    assert "Traceback" not in err, (argv, err)
    assert 1 <= len(err.strip().splitlines()) <= 2, (argv, err)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_hostile_arguments_exit_2_with_one_line(name, capsys, tmp_path):
    sub = COMMANDS[name]
    base = _base(sub)
    for extra in _hostile(sub, str(tmp_path)):
        argv = ["--lang", "en", name, *base, *extra]
        code, err = _run(capsys, argv)
        assert code == 2, (argv, code, err)
        _one_line(err, argv)


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - SERVERS))
def test_stdout_on_a_full_disk_exits_2_with_one_line(name, capsys):
    """The valid call succeeds into a file, and fails with one line when stdout is /dev/full."""
    sub = COMMANDS[name]
    argv = ["--lang", "en", name, *_base(sub)]
    if "--output" in _options(sub):
        argv += ["--output", os.devnull]
    with open(os.devnull, "w") as sink:
        code, err = _run(capsys, argv, stdout=sink)
    assert code == 0, (argv, err)
    if "--output" in _options(sub):
        return  # stdout takes one line at most; the --output cases are in the test above
    full = open("/dev/full", "w")
    try:
        code, err = _run(capsys, argv, stdout=full)
    finally:
        try:
            full.close()  # flushes what the failed write left in the buffer: fails again
        except OSError:
            pass
    assert code == 2, (argv, code, err)
    _one_line(err, argv)
    assert "No space left on device" in err


@pytest.mark.parametrize("name", [None, *sorted(COMMANDS)])
def test_help_on_a_full_disk_exits_2_with_one_line(name, capsys):
    """argparse swallowed the failed write of --help and exited 0."""
    argv = ["--lang", "en", *([name] if name else []), "--help"]
    full = open("/dev/full", "w")
    try:
        code, err = _run(capsys, argv, stdout=full)
    finally:
        try:
            full.close()
        except OSError:
            pass
    assert code == 2, (argv, err)
    _one_line(err, argv)


def test_a_write_error_is_said_in_the_users_language(capsys):
    code, err = _run(capsys, ["--lang", "zh", "export", "--format", "slurm", *SMALL, "--output", "/dev/full"])
    assert code == 2 and "Traceback" not in err and "/dev/full" in err
    assert "No space left on device" not in err  # the reason is translated


@pytest.mark.parametrize("argv", [
    ["optimize", "--gpus", "64", "--min-planes", "9"],
    ["availability", "--gpus", "64", "--seed", "-1"],
    ["export", "--format", "netbox-devices", "--gpus", "64", "--output", "/dev/full"],
    ["cabling", "--format", "csv", "--gpus", "64", "--output", "/dev/full"],
])
def test_reported_tracebacks_are_one_line_now(argv):
    """The four lines of the report, as a shell runs them."""
    done = subprocess.run([sys.executable, "-m", "core", "--lang", "en", *argv], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_workers_beyond_the_machine_are_cut_with_a_note(capsys, monkeypatch):
    from core.analysis import optimize

    monkeypatch.setattr(optimize, "usable_cpus", lambda: 2)
    with open(os.devnull, "w") as sink:
        code, err = _run(capsys, ["--lang", "en", "optimize", *_base(COMMANDS["optimize"]), "--workers", "100000"],
                         stdout=sink)
    assert code == 0 and "--workers 100000" in err and "using 2" in err and len(err.strip().splitlines()) == 1
    assert "CPUs this process may use" in " ".join(COMMANDS["optimize"].format_help().split())  # stated in --help


def _children(pid: int) -> set[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.add(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG is Linux's")
def test_workers_die_with_their_parent(tmp_path):
    """kill -9 of a search's parent: its worker processes are gone within 2 s (no orphans computing)."""
    script = ("import os, sys\nfrom core.analysis import optimize\noptimize.usable_cpus = lambda: 2\n"
              "optimize.PARALLEL_FROM = 1\nfrom core.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    parent = subprocess.Popen([sys.executable, "-c", script, "optimize", "--gpus", "4096", "--workers", "2"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, children = time.monotonic() + 60, set()
        while len(children) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.05)
            children = _children(parent.pid)
        assert len(children) >= 2, "the search started no workers"
        os.kill(parent.pid, 9)
        parent.wait(5)
        deadline = time.monotonic() + 2
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [c for c in children if _alive(c)]
        for c in left:
            os.kill(c, 9)
        assert not left, f"{len(left)} workers outlived their parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_budget_beyond_the_largest_design_answers_at_the_limit(monkeypatch):
    """``--budget-usd 1e13`` buys more than the 1,000,000-GPU limit of a design: the search answers with the limit
    after one search (counted, not timed) and never asks for a design past it (it failed on 1,000,008 GPUs)."""
    from core.analysis import optimize as engine
    from core.design import field_bounds

    asked: list[int] = []
    real = engine.optimize

    def counted(gpu, gpus, *args, **kwargs):
        asked.append(gpus)
        return real(gpu, gpus, *args, **kwargs)

    monkeypatch.setattr(engine, "optimize", counted)
    grid = engine.Grid(fabrics=("infiniband",), switches=("QM9700",), port_speeds=(200,), uplinks=("same",),
                       oversubscription=(1.0,), planes=(2,), plane_modes=("per-rail",),
                       topologies=("rail-optimized",), tiers=(3,), mixed_tiers=False)
    most = int(field_bounds("gpus")[1])
    envelope = engine.largest_within("H100", engine.Constraints(budget_usd=1e13), grid, workers=1)
    assert envelope.at_limit and envelope.gpus == most and envelope.result.best is not None
    assert asked == [most] and envelope.searches == 1  # the upper bound first, and nothing past it
    assert f"{most:,}" in envelope.next_reason and envelope.summary()["at_limit"] is True
    assert envelope.result.considered <= 4  # the grid's candidates, each evaluated once


def test_the_envelope_search_never_steps_past_the_limit(monkeypatch):
    """However the search moves (shrinking, bisecting, the next size up), every size it asks for is a design."""
    from core.analysis import optimize as engine
    from core.design import field_bounds

    asked: list[int] = []
    real = engine.optimize
    monkeypatch.setattr(engine, "optimize", lambda gpu, gpus, *a, **k: asked.append(gpus) or real(gpu, gpus, *a, **k))
    grid = engine.Grid(fabrics=("infiniband",), switches=("QM9700",), port_speeds=(400,), uplinks=("same",),
                       oversubscription=(1.0,), planes=(1,), plane_modes=("per-port",),
                       topologies=("rail-optimized",), tiers=(3,), mixed_tiers=False)
    envelope = engine.largest_within("H100", engine.Constraints(budget_usd=1e13), grid, workers=1)
    assert not envelope.at_limit and 0 < envelope.gpus < field_bounds("gpus")[1]
    assert max(asked) <= field_bounds("gpus")[1] and len(asked) <= engine.MAX_ENVELOPE_SEARCHES + 1
