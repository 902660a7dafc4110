"""Heavy work in a real server and headless Chromium (``webui.jobs``): a search shows its progress and then its
answer, a closed tab stops its job within 2 s, and the server stops on SIGTERM within 5 s while a search runs."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ARTIFACTS, served
from tests.serving import start

pytestmark = pytest.mark.e2e

LONG_SEARCH = "/optimize?v=1&g=B300&n=2048&opt_run=1"  # 16,384 B300 GPUs, the default grid: 10-20 s of CPU here
SHORT_SEARCH = "/optimize?v=1&n=32&opt_run=1&opt_pl=1&opt_fab=infiniband"


def _children(pid: int) -> list[int]:
    """Children of every thread of ``pid`` (the forkserver is started by the job monitor's thread)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _workers(server_pid: int) -> list[int]:
    """The job workers of the server: children of its forkserver."""
    found = []
    for child in _children(server_pid):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"forkserver" in cmd:
            found += _children(child)
    return found


def _started(pid: int) -> str | None:
    """When process ``pid`` started (``/proc/<pid>/stat`` field 22, clock ticks since boot), None when it is gone:
    with the pid, the identity of one process (a pid freed by an exit can be taken by a new process)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


_BORN: dict[int, str | None] = {}
"""The start time of each process ``_alive`` was first asked about."""


def _alive(pid: int) -> bool:
    """Whether the process first seen with ``pid`` still runs (not a zombie, not another process with its pid)."""
    born = _BORN.setdefault(pid, _started(pid))
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().split(") ", 1)[1]
    except OSError:
        return False
    return fields[0] != "Z" and fields.split()[19] == born


def _server_pid(port: int) -> int:
    """The pid listening on ``port`` (the fixture's server is a child of this test process)."""
    for child in _children(os.getpid()):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"webui.serve" in cmd and str(port).encode() in cmd:
            return child
    raise AssertionError("no server process")


def _start_server() -> tuple[subprocess.Popen, str]:
    try:
        return start(ARTIFACTS / "streamlit-jobs.log")
    except RuntimeError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def server():
    """A server of this file's own (the browser tests share one, ``conftest.server``): these tests find its job
    workers, which a search of an earlier test must not have left."""
    yield from served("streamlit-e2e-jobs.log")


def _wait_for_worker(server_pid: int, seconds: float = 60) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        workers = _workers(server_pid)
        if workers:
            return workers[0]
        time.sleep(0.1)
    raise AssertionError("no job worker started")


def test_a_search_shows_its_progress_then_its_answer(server, page):
    page.goto(server + SHORT_SEARCH)
    page.get_by_text("Cheapest design for").wait_for(timeout=90_000)  # the fragment reran the page when done
    assert page.get_by_text("Searching the designs").count() == 0


def test_a_closed_tab_stops_its_search_within_two_seconds(server, browser):
    server_pid = _server_pid(int(server.rsplit(":", 1)[1]))
    context = browser.new_context()
    tab = context.new_page()
    tab.goto(server + LONG_SEARCH)
    tab.get_by_text("Searching the designs").wait_for(timeout=60_000)  # the page shows what runs
    assert tab.get_by_role("button", name="Cancel").count() == 1
    worker = _wait_for_worker(server_pid)
    assert _alive(worker)  # its start time noted: a later process with its pid is not this worker
    context.close()
    t0 = time.monotonic()
    while _alive(worker) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    stopped = time.monotonic() - t0
    assert not _alive(worker) and stopped < 2.0, f"the worker ran {stopped:.1f} s after the tab closed"


def test_the_server_stops_on_sigterm_within_five_seconds_while_a_search_runs(browser):
    proc, url = _start_server()
    try:
        context = browser.new_context()
        tab = context.new_page()
        tab.goto(url + LONG_SEARCH)
        tab.get_by_text("Searching the designs").wait_for(timeout=60_000)
        worker = _wait_for_worker(proc.pid)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        assert time.monotonic() - t0 < 5.0
        deadline = time.monotonic() + 2.0
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker)
        context.close()
    finally:
        proc.kill()
    log = (ARTIFACTS / "streamlit-jobs.log").read_text(errors="replace")
    # a worker never runs the app (Streamlit's page module is not the workers' main module)
    assert "missing ScriptRunContext" not in log and "bootstrapping phase" not in log and "ERROR" not in log, log[-2000:]
