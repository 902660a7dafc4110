"""Heavy work off the script thread (``webui.jobs``): a job's answer, its limits (time, memory, a closed page,
the queue), cancel and supersede, the outcome cache bounded in bytes, workers that die with the server, and the
pages' progress path (a page that does not wait shows what runs, with Cancel, and then the answer)."""

from __future__ import annotations

import functools
import operator
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from core.analysis import spof
from core.design import Design
from core.errors import FabricPlannerError
from core.formats.exports import export_text
from core.fabric.naming import NamingScheme
from core.plan import plan
from webui import jobs, jobwork

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def runner(monkeypatch):
    closed: set[str] = set()
    run = jobs.Runner(workers=1, queue=2, cache_bytes=1 << 20, session_open=lambda s: s not in closed)
    run.closed_sessions = closed
    yield run
    run.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is gone for our purpose
        return f.read().split(") ", 1)[1][0] != "Z"


def _until_running(job, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while job.state != jobs.RUNNING and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.state == jobs.RUNNING


def test_a_job_answers_in_a_worker_and_its_outcome_is_kept(runner):
    key = Design(gpu="H100", nodes=16).model_dump_json()
    job = runner.submit("spof", "k", jobwork.single_points, (key,))
    assert job.wait(60) and job.state == jobs.DONE
    assert job.value == spof.single_points(plan(Design(gpu="H100", nodes=16)))
    assert runner.find("k") is job and runner.submit("spof", "k", jobwork.single_points, (key,)) is job
    assert runner.stats()["kept"] == 1 and runner.stats()["kept_bytes"] == job.size > 0


def test_an_export_built_by_a_worker_is_the_engines(runner):
    design = Design(gpu="H100", nodes=16)
    naming = NamingScheme().model_dump_json()
    job = runner.submit("export", "e", jobwork.export_bytes, (design.model_dump_json(), "slurm", naming))
    assert job.wait(60) and job.state == jobs.DONE
    assert job.value == export_text(plan(design), "slurm", NamingScheme()).encode("utf-8")


def test_an_engine_error_is_the_outcome(runner):
    bad = Design(gpu="H100", nodes=16).model_dump_json()
    job = runner.submit("load", "l", jobwork.link_load, (bad, "no-such-pattern", "node", 0, None))
    assert job.wait(60) and job.state == jobs.DONE  # the engine's error is the answer, the page shows it
    assert isinstance(job.value, FabricPlannerError) and "no-such-pattern" in str(job.value)


def test_a_job_past_its_time_is_stopped_and_says_the_limit(runner, monkeypatch):
    monkeypatch.setitem(jobs.LIMITS, "sweep", jobs.Limit(1.0, 1024, "the sweep"))
    t0 = time.monotonic()
    job = runner.submit("sweep", "slow", time.sleep, (30,))
    assert job.wait(10) and time.monotonic() - t0 < 5
    assert job.state == jobs.STOPPED and "after 1 s" in job.problem and "command line" in job.problem
    assert runner.find("slow") is job  # kept: a reload does not run it again
    runner.forget("slow")
    assert runner.find("slow") is None


def test_a_job_past_its_memory_is_stopped(runner, monkeypatch):
    monkeypatch.setitem(jobs.LIMITS, "sweep", jobs.Limit(60.0, 200, "the sweep"))
    job = runner.submit("sweep", "big", operator.mul, (b"x", 900 << 20))  # 900 MB, touched
    assert job.wait(30)
    assert job.state == jobs.STOPPED and "200 MB" in job.problem and job.peak_rss < 900 << 20


def test_a_closed_page_stops_its_job_within_two_seconds(runner):
    job = runner.submit("sweep", "s", time.sleep, (30,), session="tab-1")
    _until_running(job)
    pid = job.process.pid
    runner.closed_sessions.add("tab-1")
    t0 = time.monotonic()
    assert job.wait(5)
    assert time.monotonic() - t0 < 2.0 and job.state == jobs.STOPPED and "closed" in job.problem
    time.sleep(0.2)
    assert not _alive(pid)
    assert runner.find("s") is None  # not kept: the next visitor runs it


def test_cancel_supersede_and_the_queue_limit(runner):
    first = runner.submit("sweep", "a", time.sleep, (30,), session="s1")
    newer = runner.submit("sweep", "b", time.sleep, (30,), session="s1")  # same session, same kind
    assert first.wait(5) and first.state == jobs.STOPPED and "settings changed" in first.problem
    _until_running(newer)
    other = runner.submit("optimize", "c", time.sleep, (30,), session="s2")
    third = runner.submit("optimize", "d", time.sleep, (30,), session="s3")
    assert runner.position(third) == 2 and runner.position(other) == 1  # one worker: b runs, c and d wait
    with pytest.raises(jobs.Busy, match="busy"):
        runner.submit("optimize", "e", time.sleep, (30,), session="s4")
    runner.cancel(newer)
    assert newer.wait(5) and "Cancelled" in newer.problem
    runner.cancel(other)
    runner.cancel(third)


def test_the_outcome_cache_is_bounded_in_bytes(runner):
    for i in range(5):  # 300 kB each, 1 MB kept at most
        job = runner.submit("sweep", f"m{i}", operator.mul, (b"y", 300_000))
        assert job.wait(30) and job.state == jobs.DONE
    stats = runner.stats()
    assert stats["kept_bytes"] <= 1 << 20 and stats["kept"] == 3
    assert runner.find("m0") is None and runner.find("m4") is not None


def test_workers_die_with_the_server(tmp_path):
    """kill -9 of the server process: its forkserver and every running worker are gone within 2 s."""
    script = tmp_path / "serve.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from webui import jobs
        if __name__ == "__main__":
            run = jobs.Runner(workers=2, queue=2)
            a = run.submit("sweep", "a", time.sleep, (60,))
            b = run.submit("sweep", "b", time.sleep, (60,))
            while a.process is None or b.process is None:
                time.sleep(0.05)
            print(a.process.pid, b.process.pid, flush=True)
            time.sleep(60)
    """))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(5)
        deadline = time.monotonic() + 2.0
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(p) for p in pids)
    finally:
        proc.kill()


def test_a_page_that_does_not_wait_shows_the_job_and_then_its_answer(monkeypatch):
    """The Sweep page with no wait: a progress line and Cancel; once the job is done, the chart."""
    from tests import pagetest

    monkeypatch.setattr(jobs, "INLINE_WAIT_S", 0.0)
    monkeypatch.setattr(jobs, "FIRST_WAIT_S", 0.0)
    run = jobs.runner()

    def keys() -> set[str]:
        return {*run._outcomes, *(j.key for j in (*run._running, *run._queued))}

    before = keys()  # other tests of this process may have left sweeps
    at = pagetest.open_page("../pages/5_Sweep.py", {"v": "1", "n": "64", "sw_xv": "1,2,3,4"})
    shown = " ".join(e.proto.text for e in at.get("progress")) + " ".join(b.label for b in at.button)
    if at.get("plotly_chart"):  # the job was already done (a fast machine): nothing to see
        pytest.skip("the sweep finished before the page was drawn")
    assert "Planning the points" in shown and "Cancel" in shown
    mine = [k for k in keys() - before if k.startswith("sweep|")]
    assert len(mine) == 1, (mine, run.stats())
    job = run.find(mine[0])
    assert job.wait(120), (job.state, run.stats())
    at.run()
    assert not at.exception and at.get("plotly_chart"), (job.state, job.problem, [e.value for e in at.warning],
                                                          [e.proto.text for e in at.get("progress")],
                                                          [e.value for e in at.markdown][:8], [e.value for e in at.info], [e.value for e in at.error])


def test_the_optimize_page_refuses_a_search_beyond_its_size_at_once():
    """65,536 GPUs: a search would take minutes and over 1 GB; the page says the limit and the CLI command."""
    from tests import pagetest

    t0 = time.process_time()
    at = pagetest.open_page("../pages/7_Optimize.py", {"v": "1", "n": "8192", "opt_run": "1"})
    text = " ".join(e.value for e in at.error).replace("\\", "")  # shown through webui.safe.md
    assert "up to 32,768 GPUs" in text and "65,536" in text and "python -m core optimize --design design.json" in text
    run = jobs.runner()
    asked = [j.key for j in (*run._running, *run._queued, *run._outcomes.values())]
    assert not any(k.startswith("optimize|") and '"gpus": 65536' in k for k in asked)  # no search was started
    assert time.process_time() - t0 < 10


def test_a_session_runs_one_job_at_a_time_and_others_go_first():
    run = jobs.Runner(workers=2, queue=4)
    try:
        first = run.submit("sweep", "a", time.sleep, (30,), session="s1")
        second = run.submit("spof", "b", time.sleep, (30,), session="s1")  # another kind, same session: waits
        other = run.submit("load", "c", time.sleep, (30,), session="s2")  # another session: takes the free worker
        _until_running(first)
        _until_running(other)
        assert second.state == jobs.QUEUED
        run.cancel(first)
        _until_running(second)
    finally:
        run.close()


@functools.lru_cache(maxsize=1)
def _outcomes():
    from core.analysis import availability as avail
    from core.analysis import failure, load
    from core.analysis.optimize import Constraints, Grid, optimize

    p = plan(Design(gpu="H100", nodes=64))
    spec = sw_spec()
    from core.analysis import sweep as sw

    return {
        "optimize": optimize("H100", 512, Constraints(), Grid(oversubscription=(1.0, 2.0)), workers=1),
        "sweep": sw.sweep(spec), "spof": spof.single_points(p), "failure": failure.what_if(p, ["p0.leaf1"]),
        "availability": avail.availability(p, trials=200, seed=0), "load": load.link_load(p, "ring", "node", seed=0),
        "plan": p,
    }


def sw_spec():
    from core.analysis import sweep as sw

    return sw.SweepSpec(base=Design(gpu="H100", nodes=64), x=sw.Axis(setting="oversubscription", values=(1.0, 2.0)))


@pytest.mark.parametrize("name", ["optimize", "sweep", "spof", "failure", "availability", "load", "plan"])
def test_an_outcomes_size_bound_holds(name):
    """``outcome_bytes`` (the job cache's size of an outcome, from its pickle) bounds what it takes in memory."""
    import pickle

    from tests.heldmemory import held_by

    value = _outcomes()[name]
    data = pickle.dumps(("ok", value), protocol=pickle.HIGHEST_PROTOCOL)
    loaded, held = held_by(lambda: pickle.loads(data))
    assert loaded[1] is not None
    assert held <= jobs.outcome_bytes(loaded[1], len(data)), (name, held, len(data))
    assert jobs.outcome_bytes(b"x" * 1000, 1030) < 3000  # a file counts its length


def test_a_download_goes_before_waiting_searches():
    run = jobs.Runner(workers=1, queue=4)
    try:
        running = run.submit("optimize", "o1", time.sleep, (30,), session="s1")
        _until_running(running)
        search = run.submit("optimize", "o2", time.sleep, (30,), session="s2")
        export = run.submit("export", "x", time.sleep, (30,), session="s3")
        run.cancel(running)
        _until_running(export)
        assert search.state == jobs.QUEUED
    finally:
        run.close()


def test_review_packs_print_through_one_warm_printer(runner):
    """Each job is a new process; its PDF goes to the server's one printer process, which keeps Chromium warm, so a
    second pack does not pay Chromium's launch and plotly.js again; the printer stops with the server."""
    from core.formats.report import chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    times = []
    for nodes in (4, 8):
        key = Design(gpu="H100", nodes=nodes).model_dump_json()
        started = time.monotonic()
        job = runner.submit("report", f"r{nodes}", jobwork.design_report, (key, "Pod", "http://x/", "GB/s"))
        assert job.wait(120) and job.state == jobs.DONE, job.problem
        html, pdf, problem = job.value
        assert pdf is not None and pdf.startswith(b"%PDF") and not problem and html.startswith(b"<!DOCTYPE html>")
        times.append(time.monotonic() - started)
    process, address = runner._printer[0], runner._printer[1]
    assert process.is_alive() and os.path.exists(address)
    assert times[1] < times[0]  # the second pack found Chromium and plotly.js loaded
    pid = process.pid
    runner.close()
    assert not _alive(pid) and not os.path.exists(address)


def test_a_job_prints_by_itself_when_the_printer_is_gone(runner):
    from core.formats.report import chromium_problem

    if chromium_problem():
        pytest.skip(chromium_problem())
    key = Design(gpu="H100", nodes=4).model_dump_json()
    job = runner.submit("report", "a", jobwork.design_report, (key, "Pod", "http://x/", "GB/s"))
    assert job.wait(120) and job.state == jobs.DONE
    runner._printer[0].kill()
    runner._printer[0].join(5)
    job = runner.submit("report", "b", jobwork.design_report, (Design(gpu="H100", nodes=8).model_dump_json(), "Pod",
                                                                "http://x/", "GB/s"))
    assert job.wait(120) and job.state == jobs.DONE and job.value[1].startswith(b"%PDF")
    assert runner._printer[0].is_alive()  # a new printer was started for it
