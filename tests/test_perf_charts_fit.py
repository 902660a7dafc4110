"""The Performance page's two-axis and two-panel charts keep their axis titles clear at 1,024 px: the Scaling
chart's legend stands under the x axis (at the right it sat on the right axis's title), and the two panels of
"Same job, two fabrics" leave the right panel's money ticks and title room before the left panel."""

from __future__ import annotations

from core.figures.perf import comparison_figure, scaling_figure

ROWS = [{"gpus": g, "scaling_efficiency": 1 - 0.01 * i, "tokens_per_s": 1000.0 * g, "comm_fraction": 0.05 + 0.01 * i}
        for i, g in enumerate((16, 32, 64, 128))]


def test_the_scaling_legend_is_under_the_axis_not_on_the_right_axis():
    fig = scaling_figure(ROWS)
    legend = fig.layout.legend
    assert fig.layout.yaxis2.side == "right" and fig.layout.yaxis2.title.text  # a right axis with a title
    assert legend.orientation == "h" and legend.y < 0 and legend.x <= 0.0  # so the legend is not beside it
    assert fig.layout.margin.b >= 60


def test_the_two_fabrics_panels_leave_room_for_the_right_axis():
    fig = comparison_figure([{"label": "This design (InfiniBand, 1:1)", "days": 21.8, "cost_usd": 357_263.0},
                             {"label": "Ethernet RoCE 2:1", "days": 23.0, "cost_usd": 380_000.0}])
    gap = fig.layout.xaxis2.domain[0] - fig.layout.xaxis.domain[1]
    assert gap >= 0.2  # at 1,024 px about 110 px: "$400 k" ticks and the currency title
    assert fig.layout.yaxis2.title.text


def test_the_scaling_axis_holds_an_efficiency_above_100_percent():
    rows = [{**row, "scaling_efficiency": eff} for row, eff in zip(ROWS, (1.0, 1.04, 1.12, 0.97))]
    low, high = scaling_figure(rows).layout.yaxis.range
    assert low <= 92 and high >= 112  # every point inside the plot, none cut at its top
    assert tuple(scaling_figure(ROWS).layout.yaxis.range) == (80, 102)  # the usual range when none is above 100%
