import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("PYTHONPATH", str(ROOT))
# The job workers (webui.jobs) run at the server's priority here, not nice +10: a test waits for its job, and on a
# busy machine a niced worker waits behind every other process (the optimizer's page tests took 1.6 times as long).
os.environ.setdefault("FP_JOB_NICE", "0")


def run_cli(capsys, *argv):
    """Run ``python -m core`` in-process: (exit code, stdout, stderr)."""
    from core.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(*argv) -> dict:
    """Run ``python -m core ... --format json`` in-process and read its JSON (asserting exit code 0)."""
    import contextlib
    import io
    import json

    from core.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


# --- shared fixtures for the end-to-end browser tests --------------------------------------------
import subprocess  # noqa: E402

import pytest  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def served(log_name: str):
    """The app served by ``python -m webui.serve`` (as ``make run`` does) on a free port, its output in
    test-artifacts/``log_name``: yields its base URL, stops it afterwards."""
    from tests.serving import start

    try:
        proc, url = start(ARTIFACTS / log_name, ("--server.fileWatcherType", "none"))
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def server():
    """One served app for every browser test of this test process (each xdist worker has its own): starting a
    server and warming its first page costs seconds, paid once instead of once per test file. A test that needs a
    server of its own (its job workers, its shutdown) starts one: tests/test_e2e_jobs.py."""
    yield from served("streamlit-e2e.log")


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright (it cannot download its own browser here). One per test
    file, not per session: while Playwright's sync API is open it marks an asyncio loop as running in this thread,
    which would break the ``asyncio.run`` of later tests in the same process."""
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (make test installs it)")
    with playwright.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1100})
    p = context.new_page()
    yield p
    context.close()


# The CLI's default language follows the shell's locale (core.cli): tests expect English unless they say.
for _name in ("LC_ALL", "LC_MESSAGES", "LANG"):
    if os.environ.get(_name, "").lower().startswith("zh"):
        os.environ[_name] = "C.UTF-8"


@pytest.fixture(autouse=True, scope="session")
def _jobs_answer_in_the_run():
    """AppTest does not run a page's timers, so a page waits for its job (``webui.jobs``) within the run here;
    tests/test_jobs.py checks the progress path with the server's own wait."""
    from webui import jobs

    jobs.INLINE_WAIT_S = jobs.FIRST_WAIT_S = 300.0
    yield
