"""End to end: the Performance page in real headless Chromium against ``streamlit run app.py``."""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    entry = "app.py" if (ROOT / "app.py").exists() else "pages/3_Performance.py"
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", entry, "--server.headless", "true", "--server.port", str(port),
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if urllib.request.urlopen(base + "/_stcore/health", timeout=1).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.25)
        else:
            pytest.fail("streamlit did not start")
        yield base, entry
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_performance_page_in_chromium(server):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed (make chromium)")
    base, entry = server
    path = "/performance" if entry == "app.py" else "/"
    url = f"{base}{path}?v=1&n=128&perf_model=gpt3-175b&perf_tp=4&perf_pp=8&perf_seq=2048&perf_gbs=256"
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1500, "height": 1000})
            pg.goto(url, wait_until="domcontentloaded")
            pg.wait_for_selector("text=Bus bandwidth vs message size", timeout=60_000)
            # The first page load of a fresh server shows Streamlit's "Page not found" dialog for any
            # st.navigation url_path (seen on /catalog too; reported to the app's owner); close it.
            dialog = pg.get_by_role("dialog")
            if dialog.count() and "Page not found" in dialog.inner_text():
                pg.keyboard.press("Escape")
                dialog.wait_for(state="detached", timeout=10_000)
            pg.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=60_000)
            pg.wait_for_selector("[data-testid='stMetricValue']", timeout=30_000)
            assert pg.locator("[data-testid='stException']").count() == 0
            assert "Traceback" not in pg.content()
            metrics = pg.locator("[data-testid='stMetricLabel']").all_inner_texts()
            assert any("Step time" in m for m in metrics)
            assert "perf_model=gpt3-175b" in pg.url
            # change a setting: the link follows
            box = pg.get_by_label("PP", exact=True)
            box.fill("16")
            box.press("Enter")
            pg.wait_for_function("window.location.search.includes('perf_pp=16')", timeout=30_000)
            pg.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 4", timeout=60_000)
            assert pg.locator("[data-testid='stException']").count() == 0
            ARTIFACTS.mkdir(exist_ok=True)
            pg.screenshot(path=str(ARTIFACTS / "performance_e2e.png"), full_page=True)
        finally:
            browser.close()
