"""The Cost tab's charts read the same way on every design: the capex and power bars in one category order
(``core.cost.CATEGORY_LABELS``), and the power chart in one unit on its axis, bar labels and title."""

from __future__ import annotations

import pytest

from core.cost import CATEGORY_LABELS, in_category_order
from core.design import Design
from core.figures.cost import capex_figure, category_name, power_figure
from core.i18n import language
from core.plan import plan


DESIGNS = {
    "default": Design(gpu="H100", gpus=32),
    "large": Design(gpu="H100", gpus=16384),
    "torus": Design(gpu="H100", gpus=512, topology="torus"),
}


def test_category_order_is_the_declared_one_whatever_comes_first():
    assert in_category_order(["switch", "cable", "compute", "other", "NIC"]) == ["compute", "NIC", "switch", "cable",
                                                                                 "other"]


@pytest.mark.parametrize("name", list(DESIGNS))
def test_capex_and_power_bars_follow_the_one_order(name):
    p = plan(DESIGNS[name])
    order = [category_name(c) for c in CATEGORY_LABELS]
    capex = list(capex_figure(p).data[0].x)
    power = list(power_figure(p).data[0].x)
    assert capex == [c for c in order if c in capex]
    assert power[:-1] == [c for c in order if c in power[:-1]]  # the facility overhead last


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name, unit", [("default", "kW"), ("large", "MW")])
def test_power_chart_has_one_unit(name, unit, lang):
    with language(lang):
        fig = power_figure(plan(DESIGNS[name]))
    bar = fig.data[0]
    assert fig.layout.yaxis.title.text == unit
    assert all(t.endswith(" " + unit) for t in bar.customdata), bar.customdata  # the hover says the unit
    labels = [t for t in bar.text if t]  # a bar's label is its number in the axis's unit, no unit of its own
    assert labels and not any("W" in t for t in labels), labels
    other = {"kW": "MW", "MW": "kW"}[unit]
    assert f"[{unit}]" in fig.layout.title.text and f" {other}" not in fig.layout.title.text
    top = max(bar.y)
    assert top < 1000  # the axis in the unit the labels use: 20.5 (MW), not 20,500 (kW)
    assert bar.text[list(bar.y).index(top)].startswith(f"{top:.3g}"[:3])


def test_power_chart_title_says_the_it_power_as_the_card_does():
    """GB200 in 144-GPU NVLink domains, 144 nodes: every bar under 1,000 kW, the IT power 1,264 kW (NVL36 racks'
    extra first-level switch trays included): the title says 1.26 MW, as the card."""
    from core import units

    p = plan(Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144))
    fig = power_figure(p)
    assert 1000 <= p.cost.it_kw and units.power(p.cost.it_kw) == "1.26 MW"
    assert f"IT {units.power(p.cost.it_kw)}, facility {units.power(p.cost.facility_kw)}" in fig.layout.title.text.replace("<br>", " ")
    assert fig.layout.yaxis.title.text == "MW" and max(fig.data[0].y) < 1
