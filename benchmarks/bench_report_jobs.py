"""The review pack as the app builds it: a job in a new worker process (``webui.jobs``), HTML and PDF.

Run: ``python benchmarks/bench_report_jobs.py``. Each job is a new process; its PDF is printed by the server's one
printer process, which keeps Chromium and plotly.js warm (``webui.jobs.Runner._print_service``). Compared with
each worker printing by itself (``PRINTED_KINDS`` emptied), which pays Chromium's launch and plotly.js's load in
every pack. The first pack of each way is shown apart (the printer's own start); then the median of ``REPEAT``
packs of 1,024-GPU designs (a different size each time, so no outcome is reused). Target: the PDF within 3 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.design import Design  # noqa: E402
from core.formats.report import chromium_problem  # noqa: E402
from webui import jobs, jobwork  # noqa: E402

REPEAT = 5
TARGET_S = 3.0


def _packs(shared: bool) -> list[float]:
    """Seconds of ``REPEAT`` + 1 packs built as app jobs, with or without the shared printer."""
    jobs.PRINTED_KINDS = frozenset({"report"}) if shared else frozenset()
    run = jobs.Runner(workers=1, queue=4)
    times = []
    try:
        for i in range(REPEAT + 1):
            key = Design(gpu="H100", gpus=1024 - 8 * i, name=f"bench {shared} {i}").model_dump_json()
            start = time.monotonic()
            job = run.submit("report", key, jobwork.design_report, (key, "Pod", "http://x/", "GB/s"))
            if not job.wait(180) or job.state != jobs.DONE or job.value[1] is None:
                raise RuntimeError(f"pack {i} did not finish: {job.state} {job.problem}")
            times.append(time.monotonic() - start)
    finally:
        run.close()
    return times


def main() -> None:
    if chromium_problem():
        print(f"skipped: {chromium_problem()}")
        return
    print("review pack as an app job (HTML + PDF), 1,024 GPUs [s]")
    for shared in (False, True):
        times = _packs(shared)
        median = statistics.median(times[1:])
        verdict = "PASS" if median <= TARGET_S else "MISS"
        print(f"  {'one printer for all jobs' if shared else 'each job its own Chromium':26s} first {times[0]:5.2f}"
              f"  median of {REPEAT} {median:5.2f}  target {TARGET_S:.1f} {verdict if shared else ''}")


if __name__ == "__main__":
    main()
