"""Progress reports (``core.progress``): silent without a listener, nested spans, and the engine's reports reaching
the app's job runner (``webui.jobs``) from a worker: a sweep and an optimizer search end at 100%."""

from __future__ import annotations

from core import progress
from core.analysis import sweep as sw
from core.design import Design
from webui import jobs, jobwork


def test_reports_go_to_the_listener_within_spans():
    seen: list[float] = []
    progress.report(1, 2)  # nobody listens: nothing happens
    with progress.reporting(seen.append):
        progress.report(1, 4)
        with progress.span(0.5, 1.0):
            progress.report(1, 2)
            with progress.span(0.0, 0.5):
                progress.report(2, 2)
        progress.report(5, 4)  # more than the total: 100%
        progress.report(1, 0)  # no total: ignored
    assert seen == [0.25, 0.75, 0.75, 1.0]
    progress.report(1, 1)
    assert len(seen) == 4


def test_a_sweep_and_a_search_report_their_progress_to_the_runner():
    run = jobs.Runner(workers=1, queue=2)
    try:
        spec = sw.SweepSpec(base=Design(gpu="H100", nodes=32), x=sw.Axis(setting="oversubscription",
                                                                          values=(1.0, 2.0, 3.0)))
        sweep = run.submit("sweep", "sw", jobwork.sweep, (spec.model_dump_json(),))
        assert sweep.wait(120) and sweep.state == jobs.DONE and sweep.fraction() == 1.0
        never = run.submit("sweep", "none", sorted, ([2, 1],))
        assert never.wait(60) and never.fraction() is None  # a job that does not report has no share
    finally:
        run.close()


def test_the_optimizer_reports_each_family_in_order():
    from core.analysis.optimize import Constraints, Grid, optimize

    seen: list[float] = []
    with progress.reporting(seen.append):
        optimize("H100", 256, Constraints(), Grid(oversubscription=(1.0, 2.0), planes=(1,)), workers=1)
    assert len(seen) > 3 and seen == sorted(seen) and seen[-1] == 1.0
