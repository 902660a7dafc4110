"""Every export format of 131,072-GPU designs: time and size per format (within 10 s each, or
aggregated with the reason stated in the file).

Run: ``python benchmarks/bench_exports.py`` (``make bench`` runs it too). Each format is written to a null
sink (streamed, as ``python -m core export`` writes it), timed with ``benchmarks/timing.py`` after the plan
is built; the first run of a format is included (nothing is cached between runs of a writer). A format
over the 10 s budget fails the script unless its output says it is aggregated.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed  # noqa: E402

from core.design import Design  # noqa: E402
from core.fabric.naming import NamingScheme  # noqa: E402
from core.formats.exports import exports  # noqa: E402
from core.plan import plan  # noqa: E402

BUDGET_MS = 10_000
AGGREGATION_MARKERS = ("aggregated view", "servers grouped per scalable unit", "aggregated:")
"""How a file says it is aggregated (draw.io title, GraphML ``aggregated`` graph attribute, others' notes)."""
CONFIGS = {
    "B300 XDR Q3400 rail-optimized": Design(gpu="B300", gpus=131_072, switch="Q3400"),
    "GB200 NVL72 800G Q3400": Design(gpu="GB200-NVL72", gpus=131_072, switch="Q3400", port_speed_gbps=800),
}


class _Sink(io.TextIOBase):
    """Counts characters and keeps the first few KiB (to look for an aggregation note)."""

    def __init__(self):
        self.chars = 0
        self.head = []

    def write(self, text):
        self.chars += len(text)
        if sum(len(h) for h in self.head) < 8192:
            self.head.append(text)
        return len(text)


def main() -> int:
    status = 0
    print(f"{'design':32} {'format':12} {'median ms':>10} {'max ms':>9} {'MB':>8}  note")
    for name, design in CONFIGS.items():
        p = plan(design)
        for fmt, export in exports().items():
            sinks = []

            def run():
                sink = _Sink()
                export.write(p, sink, NamingScheme())
                sinks.append(sink)

            try:
                median, worst = timed(run, repeat=3)
            except Exception as exc:  # another helper's format still in progress
                print(f"{name:32} {fmt:12} failed: {type(exc).__name__}: {str(exc)[:80]}")
                status = 1
                continue
            head = "".join(sinks[-1].head).lower()
            aggregated = any(marker in head for marker in AGGREGATION_MARKERS)
            note = "aggregated (stated in the file)" if aggregated else ""
            if worst > BUDGET_MS and not aggregated:
                note = "OVER BUDGET"
                status = 1
            print(f"{name:32} {fmt:12} {median:10.0f} {worst:9.0f} {sinks[-1].chars / 1e6:8.2f}  {note}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
