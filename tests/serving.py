"""The app served for a test or a benchmark, as ``make run`` serves it (``python -m webui.serve``, production
mode, localhost only) on a free port: ``start`` returns the process and its base URL once it accepts
connections. One launcher for the browser tests (``conftest.server``), the job, soak and load runs."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(log: Path, options: tuple[str, ...] = (), wait_s: float = 60.0) -> tuple[subprocess.Popen, str]:
    """Serve the app with the extra Streamlit ``options``, its output in ``log``; (process, base URL).
    Raises ``RuntimeError`` when it exits or does not listen within ``wait_s``."""
    port = free_port()
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "webui.serve", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", *options],
        cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MODE": "production"})
    try:
        wait_for_port(port, proc, "the server", log, wait_s)
    except RuntimeError:
        proc.kill()
        raise
    return proc, f"http://127.0.0.1:{port}"


def wait_for_port(port: int, proc: subprocess.Popen, what: str, log: Path, wait_s: float = 60.0) -> None:
    """Return once ``proc`` (``what``) listens on ``port``; ``RuntimeError`` when it exits or does not in time."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{what} did not listen on port {port} within {wait_s:.0f} s; see {log}")
