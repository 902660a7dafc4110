"""First paint of a fresh visit: seconds from navigation until the key numbers, then the charts, show.

Starts one server (``python -m webui.serve``, as ``make run``), warms it with one visit, then opens
``VISITS`` fresh browser contexts (no cache, a new session each) on the Designer with a different
design each time and records, from a MutationObserver in the page, when the first key-number card
and the first Plotly chart became visible. Prints medians; localhost only, bounded in count and time.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import start_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
VISITS = 5
OBSERVER = """
  window.__fp = {cards: null, chart: null, text: null};
  const seen = () => {
    const now = performance.now();
    const card = document.querySelector("[data-testid='stMetricValue']");
    if (window.__fp.cards === null && card && card.offsetParent) window.__fp.cards = now;
    if (window.__fp.text === null && document.querySelector("h1")) window.__fp.text = now;
    if (window.__fp.chart === null && document.querySelector(".js-plotly-plot")) window.__fp.chart = now;
  };
  document.addEventListener("DOMContentLoaded", () =>
    new MutationObserver(seen).observe(document.body, {subtree: true, childList: true, attributes: true}));
"""


def main() -> dict:
    from playwright.sync_api import sync_playwright

    server, base = start_server()  # the load benchmark's: webui.serve on a free localhost port
    try:
        rows = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for visit in range(VISITS + 1):  # the first visit warms the server's imports and caches
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()
                page.add_init_script(OBSERVER)
                page.goto(f"{base}/?v=1&n={120 + visit}", wait_until="commit")
                page.wait_for_selector(".js-plotly-plot", timeout=90_000)
                page.wait_for_timeout(300)
                marks = page.evaluate("window.__fp")
                if visit:
                    rows.append({k: (v / 1000 if v is not None else None) for k, v in marks.items()})
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    result = {key: statistics.median(r[key] for r in rows if r[key] is not None) for key in ("text", "cards", "chart")}
    result["visits"] = len(rows)
    return result


if __name__ == "__main__":
    out = main()
    print(f"first paint, median of {out['visits']} fresh visits on a warm server: title {out['text']:.2f} s, "
          f"key numbers {out['cards']:.2f} s, first chart {out['chart']:.2f} s")
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "bench_first_paint.json").write_text(json.dumps(out, indent=2))
