"""The review pack: HTML and PDF generation time (median) and size, per design and language.

Run: ``python benchmarks/bench_report.py`` (``make bench`` runs it too). The plan is built first (not timed);
the HTML is timed over ``HTML_REPEAT`` calls (nothing in ``core.formats.report`` is cached, so every call
builds every figure, the sweeps, the SPOF list and the availability trials again); the PDF over
``PDF_REPEAT`` calls, each one a Chromium launch, page load, chart drawing and A4 print. Needs
``/usr/bin/chromium`` for the PDF rows (``make chromium``); without it they are skipped with a note.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed  # noqa: E402

from core.design import Design  # noqa: E402
from core.formats import report  # noqa: E402
from core.i18n import language  # noqa: E402
from core.plan import plan  # noqa: E402

HTML_REPEAT = 5
PDF_REPEAT = 3
LINK = "http://localhost:8501/?v=1"
CONFIGS = {
    "H100 x 4 nodes": Design(gpu="H100", nodes=4),
    "H100 16,384 GPUs, 3 tiers": Design(gpu="H100", gpus=16384, tiers="3"),
    "B300 131,072 GPUs": Design(gpu="B300", gpus=131_072, switch="Q3400"),
}


def main() -> None:
    pdf_ok = report.chromium_problem() is None
    print(f"review pack (core/formats/report.py), {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"median of {HTML_REPEAT} (HTML) / {PDF_REPEAT} (PDF) runs")
    for label, design in CONFIGS.items():
        for lang in ("en", "zh"):
            with language(lang):
                p = plan(design)
                html_holder: list[str] = []
                html_ms, html_max = timed(lambda: html_holder.append(
                    report.design_report_html(p, name=label, share_link=LINK)), HTML_REPEAT)
                size = len(html_holder[-1].encode("utf-8"))
                line = f"  {label:28s} {lang}  HTML {html_ms:7.0f} ms (max {html_max:6.0f}) {size / 1e6:5.2f} MB"
                if pdf_ok:
                    pdf_holder: list[bytes] = []
                    pdf_ms, pdf_max = timed(lambda: pdf_holder.append(
                        report.design_report_pdf(p, name=label, share_link=LINK)), PDF_REPEAT)
                    line += f"   PDF {pdf_ms:7.0f} ms (max {pdf_max:6.0f}) {len(pdf_holder[-1]) / 1e6:5.2f} MB"
                print(line, flush=True)
    if not pdf_ok:
        print("  PDF skipped: " + report.chromium_problem())


if __name__ == "__main__":
    main()
