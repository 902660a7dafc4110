"""App benchmark: median AppTest rerun after one control change, against a bare-page floor.

Run: ``python benchmarks/bench_app.py`` (``make bench`` runs every benchmark).

* floor: a bare Streamlit page with one slider and one small Plotly chart,
  measured in the same process and run, so machine speed cancels out.
* Designer at 1,024 GPUs (128 H100 nodes) and at 131,072 GPUs (16,384 B300
  nodes): "warm" moves the node slider back and forth between two values
  (engine results and figures cached, as when a user drags back and forth);
  "cold" types a new node count each time (nothing cached for that design).
* Inference page at 1,024 GPUs (128 H100 nodes): "warm" changes the input tokens back and forth (the page's
  results cached per design, settings and language), "cold" types new ones (the serving estimate on the design,
  the no-fabric what-if, the alternative designs and the figure computed again; the plans are cached).
* drawn elements: markers + line segments of the topology diagram at several sizes.

Targets (2-core machine): 1,024 GPUs <= 200 ms, 131,072 GPUs <= 400 ms, <= 2,000 elements; the Inference page
within 10x the floor.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from core import figures  # noqa: E402
from core.design import Design  # noqa: E402
from core.plan import plan  # noqa: E402

ENTRY = str(ROOT / "tests" / "apptest_entry.py")
FLOOR = '''
import plotly.graph_objects as go
import streamlit as st
n = st.slider("n", 1, 100, 10, key="n")
st.plotly_chart(go.Figure(go.Scatter(x=list(range(n)), y=[i * i for i in range(n)])))
'''
REPEATS = 15


def _time(at: AppTest, change) -> float:
    start = time.perf_counter()
    change(at)
    at.run()
    elapsed = time.perf_counter() - start
    if at.exception:
        raise RuntimeError(at.exception[0].message)
    return elapsed * 1000


def floor() -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.py"
        path.write_text(FLOOR)
        at = AppTest.from_file(str(path), default_timeout=60).run()
        values = [20, 30]
        return [_time(at, lambda a, v=values[i % 2]: a.slider(key="n").set_value(v)) for i in range(REPEATS)]


def designer(params: dict, a: int, b: int, cold_start: int) -> tuple[list[float], list[float]]:
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update(params)
    at.run()
    for value in (b, a):  # first visit of both values fills the caches
        _time(at, lambda x, v=value: x.select_slider(key="w_count").set_value(v))
    warm = [_time(at, lambda x, v=(b if i % 2 == 0 else a): x.select_slider(key="w_count").set_value(v))
            for i in range(REPEATS)]
    cold = [_time(at, lambda x, v=cold_start + i: x.text_input(key="w_count_exact").input(str(v)))
            for i in range(REPEATS)]
    return warm, cold


def inference(params: dict) -> tuple[list[float], list[float]]:
    at = AppTest.from_file(ENTRY, default_timeout=60)
    at.query_params.update(params)
    at.run()
    at.switch_page("../pages/8_Inference.py").run()
    _time(at, lambda x: x.number_input(key="inf_w_in").set_value(4000))  # the alternative designs' plans
    warm = [_time(at, lambda x, v=(2000 if i % 2 == 0 else 4000): x.number_input(key="inf_w_in").set_value(v))
            for i in range(REPEATS)]
    cold = [_time(at, lambda x, v=3000 + i: x.number_input(key="inf_w_in").set_value(v)) for i in range(REPEATS)]
    return warm, cold


def main() -> None:
    rows = []
    base = floor()
    rows.append(("floor: bare page, 1 slider + 1 Plotly chart", statistics.median(base), "-"))
    warm, cold = designer({"n": "128"}, 128, 96, 100)
    rows.append(("Designer 1,024 GPUs, slider move (warm)", statistics.median(warm), "<= 200"))
    rows.append(("Designer ~1,024 GPUs, new node count (cold)", statistics.median(cold), "<= 200"))
    warm, cold = designer({"g": "B300", "n": "16384"}, 16384, 12288, 16300)
    rows.append(("Designer 131,072 GPUs, slider move (warm)", statistics.median(warm), "<= 400"))
    rows.append(("Designer ~131,072 GPUs, new node count (cold)", statistics.median(cold), "<= 400"))
    warm, cold = inference({"n": "128"})
    rows.append(("Inference 1,024 GPUs, input tokens back (warm)", statistics.median(warm), f"<= {10 * rows[0][1]:.0f}"))
    rows.append(("Inference 1,024 GPUs, new input tokens (cold)", statistics.median(cold), f"<= {10 * rows[0][1]:.0f}"))

    print(f"{'measurement':52} {'median ms':>10} {'over floor':>11} {'target ms':>10}")
    for name, median, target in rows:
        print(f"{name:52} {median:10.1f} {median - rows[0][1]:11.1f} {target:>10}")
    print()
    print(f"{'topology diagram':52} {'elements':>10} {'aggregated':>11} {'target':>10}")
    for label, design in [("8 GPUs", Design(gpus=8)), ("2 nodes", Design(nodes=2)), ("1,024 GPUs", Design(gpus=1024)),
                          ("8,192 GPUs", Design(gpus=8192)), ("131,072 GPUs (B300)", Design(gpu="B300", gpus=131072)),
                          ("1,000,000 GPUs (TH6 200G)", Design(gpus=1_000_000, fabric="ethernet",
                                                               port_speed_gbps=200, switch="TH6"))]:
        p = plan(design)
        fig = figures.topology_figure(p)
        aggregated = figures.is_aggregated(p)
        print(f"{label:52} {figures.count_drawn_elements(fig):10,} {str(aggregated):>11} {'<= 2,000':>10}")


if __name__ == "__main__":
    main()
