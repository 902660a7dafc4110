"""The scale-up drawing's layout (core/figures/scaleup.py): one rule for its switch labels, no blank around it."""

from __future__ import annotations

import pytest

from core.design import Design
from core.figures import scaleup_figure
from core.figures.scaleup_levels import DRAWING_PX
from core.plan import plan

DESIGNS = {  # the two pods of ?n=64&pods=B200:32:800 and of ?n=64&pods=GB200-NVL72:72:800
    "H100 HGX (4 NVSwitch chips)": Design(gpu="H100", nodes=64),
    "B200 HGX (2 NVSwitch chips)": Design(gpu="B200", nodes=32),
    "GB200 NVL72 (9 NVSwitch trays)": Design(gpu="GB200-NVL72", nodes=72),
}


def _switches(fig):
    return next(t for t in fig.data if t.marker.symbol == "diamond")


@pytest.mark.parametrize("name", DESIGNS)
def test_switch_labels_are_their_numbers_in_every_domain(name):
    """Pods of two domains showed "NVSwitch 1, NVSwitch 2" (B200, two chips) beside "1 2 3 4" (H100): every domain's
    switches are numbered alike, from 1; the hover names each."""
    trace = _switches(scaleup_figure(plan(DESIGNS[name])))
    numbers = [t for t in trace.text if t]
    assert numbers == [str(n) for n in range(1, len(trace.text) + 1)]
    assert all("NVSwitch" in h for h in trace.hovertext)


@pytest.mark.parametrize("name", DESIGNS)
def test_the_figure_is_its_title_drawing_and_caption(name):
    """A fixed 560 px left 100 px of blank above and below the drawing in the Designer's two-fifths column: the
    figure is its title, a ``DRAWING_PX`` drawing and its caption, and the drawing's range holds little more than
    its two rows (1 and 0) and their numbers."""
    fig = scaleup_figure(plan(DESIGNS[name]))
    margin = fig.layout.margin
    assert fig.layout.height == margin.t + DRAWING_PX + margin.b
    low, high = fig.layout.yaxis.range
    assert -0.25 <= low < 0 and 1 < high <= 1.2
    assert scaleup_figure(plan(DESIGNS[name]), height=560).layout.height == 560  # the review pack's


@pytest.mark.parametrize("design", [*DESIGNS.values(), Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144),
                                    Design(gpu="GB200-NVL72", gpus=1152, nvlink_domain_gpus=576),
                                    Design(gpu="H100", gpus=256, nvlink_domain_gpus=256)],
                         ids=[*DESIGNS, "NVL36 x 4", "NVL576", "DGX H100 256"])
def test_the_numbers_above_the_top_row_are_inside_the_drawing(design):
    """The two-level drawing's first-level domains are numbered above their squares, and the numbers were cut in
    half at the figure's top (``?g=GB200-NVL72&n=144&nvd=144``): the room above the top row [px] holds half a
    marker, a line of text and plotly's gap."""
    fig = scaleup_figure(plan(design))
    low, high = fig.layout.yaxis.range
    above = (high - 1) * DRAWING_PX / (high - low)
    for trace in fig.data:
        if trace.textposition == "top center" and any(trace.text or ()) and 1.0 in tuple(trace.y):
            assert above >= trace.marker.size / 2 + trace.textfont.size + 4, (above, trace.marker.size)
