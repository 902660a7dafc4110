"""The review pack: HTML and PDF generation time (median) and size, per design and language.

Run: ``python benchmarks/bench_report.py`` (``make bench`` runs it too). The plan is built first (not timed).
Every timed call builds every section again: the figures, the sweeps, the SPOF list and the availability
trials (the kept draws of ``core.analysis.availability`` are dropped before each call, as a new app worker
starts without them). The HTML is timed over ``HTML_REPEAT`` calls, the PDF over ``PDF_REPEAT``: the process
keeps one headless Chromium with plotly.js loaded (``report._Printer``), so the first PDF (``cold``: the
browser's launch and plotly.js's load, what each app worker pays once) is shown apart from the median of the
others. ``TARGETS``: what the 1,024-GPU and 131,072-GPU rows should stay within on a 2-core machine. Needs
``/usr/bin/chromium`` for the PDF rows (``make chromium``); without it they are skipped with a note.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed  # noqa: E402

from core.analysis import availability  # noqa: E402
from core.design import Design  # noqa: E402
from core.formats import report  # noqa: E402
from core.i18n import language  # noqa: E402
from core.plan import plan  # noqa: E402

HTML_REPEAT = 5
PDF_REPEAT = 5
LINK = "http://localhost:8501/?v=1"
CONFIGS = {
    "H100 x 4 nodes": Design(gpu="H100", nodes=4),
    "H100 1,024 GPUs": Design(gpu="H100", gpus=1024),
    "H100 16,384 GPUs, 3 tiers": Design(gpu="H100", gpus=16384, tiers="3"),
    "B300 131,072 GPUs": Design(gpu="B300", gpus=131_072, switch="Q3400"),
}
TARGETS = {"H100 1,024 GPUs": (1500, 3000), "B300 131,072 GPUs": (10_000, 10_000)}
"""Label -> (HTML, PDF) medians to stay within [ms]."""


def _fresh(fn):
    """``fn`` without the availability draws a previous call kept."""
    def call():
        cache_clear = getattr(getattr(availability, "_simulate", None), "cache_clear", None)
        if cache_clear is not None:
            cache_clear()
        return fn()
    return call


def _row(label: str, p, pdf_ok: bool) -> str:
    holder: list = []
    html_ms, html_max = timed(_fresh(lambda: holder.append(report.design_report_html(p, name=label, share_link=LINK))),
                              HTML_REPEAT)
    line = f"  HTML {html_ms:6.0f} ms (max {html_max:6.0f}) {len(holder[-1].encode('utf-8')) / 1e6:5.2f} MB"
    if pdf_ok:
        pdf = _fresh(lambda: holder.append(report.design_report_pdf(p, name=label, share_link=LINK)))
        start = time.perf_counter()
        pdf()
        cold = (time.perf_counter() - start) * 1e3
        pdf_ms, pdf_max = timed(pdf, PDF_REPEAT)
        line += f"   PDF {pdf_ms:6.0f} ms (max {pdf_max:6.0f}, cold {cold:6.0f}) {len(holder[-1]) / 1e6:5.2f} MB"
        if hasattr(report, "_PRINTER"):
            report._PRINTER.close()  # the next design starts cold again
    else:
        pdf_ms = float("nan")
    target = TARGETS.get(label)
    if target:
        ok = html_ms <= target[0] and (not pdf_ok or pdf_ms <= target[1])
        line += f"   target HTML {target[0]} / PDF {target[1]} ms: {'met' if ok else 'MISSED'}"
    return line


def main() -> None:
    pdf_ok = report.chromium_problem() is None
    print(f"review pack (core/formats/report.py), {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"median of {HTML_REPEAT} (HTML) / {PDF_REPEAT} (PDF, after a cold first) runs")
    for label, design in CONFIGS.items():
        for lang in ("en", "zh"):
            with language(lang):
                print(f"  {label:28s} {lang}" + _row(label, plan(design), pdf_ok), flush=True)
    if not pdf_ok:
        print("  PDF skipped: " + report.chromium_problem())


if __name__ == "__main__":
    main()
