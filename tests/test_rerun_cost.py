"""What keeps a Designer rerun cheap without changing what it shows (benchmarks/bench_load.py measures the cost)."""

from __future__ import annotations

import pytest

from core import figures
from core.design import Design
from core.fabric.bandwidth import tier_capacities_gbits
from core.analysis.whatif import oversubscription_sweep
from core.i18n import language
from core.plan import plan
from webui import cached

DESIGN = Design(gpu="H100", nodes=128)
KEY = DESIGN.model_dump_json()


def _fresh(name: str, p):
    """The figure ``name`` as core.figures builds it, uncached."""
    return {
        "topology": lambda: figures.topology_figure(p, selected=None, unit="GB/s"),
        "scaleup": lambda: figures.scaleup_figure(p, unit="GB/s"),
        "bandwidth_hierarchy": lambda: figures.bandwidth_hierarchy_figure(p, unit="GB/s"),
        "tier_capacity": lambda: figures.tier_capacity_figure(p, tier_capacities_gbits(p.resolved, p.fabric),
                                                              unit="GB/s"),
        "oversubscription": lambda: figures.oversubscription_figure(oversubscription_sweep(DESIGN),
                                                                    DESIGN.oversubscription, unit="GB/s"),
        "capex": lambda: figures.capex_figure(p),
        "power": lambda: figures.power_figure(p),
    }[name]()


CACHED = {
    "topology": lambda lang: cached.topology(KEY, None, "GB/s", lang)[0],
    "scaleup": lambda lang: cached.scaleup(KEY, "GB/s", lang),
    "bandwidth_hierarchy": lambda lang: cached.bandwidth_hierarchy(KEY, "GB/s", lang),
    "tier_capacity": lambda lang: cached.tier_capacity(KEY, "GB/s", lang),
    "oversubscription": lambda lang: cached.oversubscription(KEY, "GB/s", lang),
    "capex": lambda lang: cached.capex(KEY, lang),
    "power": lambda lang: cached.power(KEY, lang),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", sorted(CACHED))
def test_a_cached_figure_gives_its_plain_form_without_a_copy_per_run(name, lang):
    """st.plotly_chart calls to_dict() on every run: a cached figure hands back the one dict it made, whose JSON is
    the freshly built figure's."""
    fig = CACHED[name](lang)
    assert fig.to_dict() is fig.to_dict()
    with language(lang):
        fresh = _fresh(name, plan(DESIGN))
    assert fig.to_json() == fresh.to_json()


def test_a_number_is_formatted_once_per_language(monkeypatch):
    """The sidebar's size slider formats each of its steps on every run: babel works once per value and language."""
    import babel.numbers

    from core import i18n

    calls = []
    real = babel.numbers.format_decimal
    monkeypatch.setattr(babel.numbers, "format_decimal", lambda *a, **k: calls.append(a) or real(*a, **k))
    i18n._number.cache_clear()
    for _ in range(3):
        with language("en"):
            assert [i18n.number(v) for v in (1024, 131072)] == ["1,024", "131,072"]
            assert i18n.number(1234.5, 1) == "1,234.5" and i18n.number(1024.0) == "1,024"
        with language("zh"):
            assert i18n.number(1024) == "1,024"
    assert len(calls) == 5  # 1024, 131072, 1234.5 (1 digit) and 1024.0 in English; 1024 in Chinese
    import numpy as np

    with language("en"):
        assert i18n.number(np.array(1234.0)) == "1,234"  # not a cache key: formatted all the same
