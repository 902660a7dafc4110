"""The Inference page's time chart (core.figures.serving.time_figure): each bar's total sits right of the bar, an
"unbounded" total's word in the middle of its hatched bar on a white box (it sat right of the parts drawn, over the
hatch, and was cut at the panel's edge: "unbounde"), inside the panel's range."""

from __future__ import annotations

import copy
import math

import pytest

from core.design import Design
from core.figures.serving import UNBOUNDED, time_figure
from core.i18n import _
from core.formats import inferencelink as link
from core.perf import servingform
from core.plan import plan


def _unbounded_step(estimate):
    """``estimate`` with its decode step stretched without bound, as ``serving.shared_step_s`` makes it where
    chunked prefill would take all of the GPUs' time: the figure's rule for an unbounded total, in either panel (an
    overloaded pool now runs saturated, its time per output token bounded, so the engine's own overloaded
    deployments leave the time per output token bounded)."""
    out = copy.deepcopy(estimate)
    out.decode.step.overhead_s = math.inf
    out.tpot_s = math.inf
    return out


def test_every_total_label_sits_right_of_its_bar_inside_the_panel():
    p = plan(Design())
    bounded = servingform.estimate_on(p, link.DEFAULTS)
    unbounded = servingform.estimate_on(p, {**link.DEFAULTS, "load": "rate", "rate": 10_000.0})
    assert math.isinf(unbounded.ttft_s) and math.isfinite(bounded.ttft_s)
    fig = time_figure({"bounded": bounded, "unbounded": unbounded})
    for x, y in (("x", "y"), ("x2", "y2")):
        bars = [t for t in fig.data if t.type == "bar" and t.xaxis == x and t.name != _(UNBOUNDED)]
        ends = [sum(t.x[i] for t in bars) for i in range(2)]
        (label,) = [t for t in fig.data if t.type == "scatter" and t.xaxis == x]
        assert list(label.x) == pytest.approx(ends)  # at each bar's end, never at 0 over a bar
        assert label.textposition == "middle right"
        top = fig.layout["xaxis" + x[1:]].range[1]
        assert top >= 1.3 * max(ends) - 1e-9  # room right of the longest bar for its label
    (ttft,) = [t for t in fig.data if t.type == "scatter" and t.xaxis == "x2"]
    assert ttft.text[1] == "" and ttft.x[1] > 0  # the hatch says it, not the total's label
    # the unbounded time reads as the longest bar: hatched from its drawn parts to the panel's right edge
    (rest,) = [t for t in fig.data if t.type == "bar" and t.xaxis == "x2" and t.name == _(UNBOUNDED)]
    assert rest.x[0] == 0 and ttft.x[1] + rest.x[1] == pytest.approx(fig.layout.xaxis2.range[1])
    assert rest.marker.pattern.shape == "/"
    assert not [t for t in fig.data if t.type == "bar" and t.xaxis == "x" and t.name == _(UNBOUNDED)] or \
        math.isinf(unbounded.tpot_s)


def test_an_unbounded_time_per_output_token_is_hatched_to_the_panels_edge():
    """An unbounded decode step's overhead part (``_unbounded_step``) was drawn as an infinite part, so the panel's
    range was infinite, the hatched bar NaN and the bounded bars' labels cut at the edge."""
    p = plan(Design())
    bounded = servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated"})
    unbounded = _unbounded_step(servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated", "load": "rate",
                                                           "rate": 10_000.0}))
    assert math.isinf(unbounded.tpot_s) and math.isfinite(bounded.tpot_s)
    fig = time_figure({"bounded": bounded, "unbounded": unbounded})
    right = fig.layout.xaxis.range[1]
    assert math.isfinite(right) and right == pytest.approx(1.3 * bounded.tpot_s * 1e3)
    (label,) = [t for t in fig.data if t.type == "scatter" and t.xaxis == "x"]
    (rest,) = [t for t in fig.data if t.type == "bar" and t.xaxis == "x" and t.name == _(UNBOUNDED)]
    assert label.text[1] == "" and math.isfinite(label.x[1]) and label.x[1] > 0
    assert rest.x[0] == 0 and label.x[1] + rest.x[1] == pytest.approx(right)
    assert all(math.isfinite(x) for t in fig.data for x in t.x)


@pytest.mark.parametrize("language, word", [("en", "unbounded"), ("zh", "无上限")])
def test_the_unbounded_word_sits_in_the_middle_of_its_hatch_never_at_the_edge(language, word):
    """The word was the total's label right of the parts drawn: over the hatch and, where those parts were the
    panel's longest bar, cut at its right edge ("unbounde"). It is one annotation per hatched bar, centred in it (at
    least 0.3 of 1.3 of the panel wide) on a white box, in both panels."""
    from core.i18n import language as in_language

    p = plan(Design())
    bounded = servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated"})
    unbounded = _unbounded_step(servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated", "load": "rate",
                                                           "rate": 10_000.0}))
    with in_language(language):
        fig = time_figure({"unbounded": unbounded, "bounded": bounded})
        name = _(UNBOUNDED)
    words = [a for a in fig.layout.annotations if word in a.text]
    assert sorted((a.xref, a.yref, a.y) for a in words) == [("x", "y", "unbounded"), ("x2", "y2", "unbounded")]
    for a in words:
        (rest,) = [t for t in fig.data if t.type == "bar" and t.xaxis == a.xref and t.name == name]
        start = sum(t.x[0] for t in fig.data if t.type == "bar" and t.xaxis == a.xref and t.name != name)
        right = fig.layout["xaxis" + a.xref[1:]].range[1]
        assert a.x == pytest.approx(start + rest.x[0] / 2) and rest.x[0] >= 0.3 / 1.3 * right - 1e-9
        assert a.bgcolor == "#ffffff" and not a.showarrow
    assert not [t for t in fig.data if t.type == "scatter" for text in t.text if word in text]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_unbounded_entry_is_in_the_legend_once_per_figure(language):
    """Both panels unbounded (the time per output token, ``_unbounded_step``, and to first token): the legend
    listed "unbounded: the load exceeds what it serves" once per panel; once per figure now, one group for both."""
    from core.i18n import language as in_language

    p = plan(Design())
    bounded = servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated"})
    unbounded = _unbounded_step(servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated", "load": "rate",
                                                           "rate": 10_000.0}))
    assert math.isinf(unbounded.tpot_s) and math.isinf(unbounded.ttft_s)
    with in_language(language):
        fig = time_figure({"bounded": bounded, "unbounded": unbounded})
        hatched = [t for t in fig.data if t.type == "bar" and t.name == _(UNBOUNDED)]
    assert {t.xaxis for t in hatched} == {"x", "x2"}
    assert [t.showlegend is not False for t in hatched].count(True) == 1
    assert {t.legendgroup for t in hatched} == {"unbounded"}
    names = [t.name for t in fig.data if t.showlegend is not False and t.type == "bar"]
    assert len(names) == len(set(names))  # no part named twice either


def test_a_panel_of_unbounded_bars_alone_shows_no_scale():
    """Every design's time to first token unbounded in each of its parts, the panel draws nothing but hatches: its
    axis showed 0 to 1.2 ms (the 1 ms stand-in range) under bars that have no time; no tick labels there now, the
    drawn panel keeps its. (An overloaded deployment's own prefill and first decode step are bounded now, its queue
    alone unbounded: drawn, so the stand-in sets every part unbounded.)"""
    p = plan(Design())
    over = {**link.DEFAULTS, "mode": "aggregated", "load": "rate", "rate": 10_000.0}
    a, b = servingform.estimate_on(p, over), servingform.estimate_on(p, {**over, "rate": 20_000.0})
    for e in (a, b):
        e.ttft_parts = dict.fromkeys(e.ttft_parts, math.inf)
    fig = time_figure({"a": a, "b": b})
    assert fig.layout.xaxis2.showticklabels is False and fig.layout.xaxis.showticklabels is not False
    fig = time_figure({"a": a, "bounded": servingform.estimate_on(p, {**link.DEFAULTS, "mode": "aggregated"})})
    assert fig.layout.xaxis2.showticklabels is not False
