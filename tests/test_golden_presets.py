"""Golden: every published design (``assets/catalog/presets.toml``) plans and reproduces the numbers its source
prints. The sources are in the data, one per preset (publisher, document, table or figure, date, URL), and each
number names where it is printed; a failing case says which preset, number and source it is.

The other golden files (test_golden_superpod.py, test_golden_networks.py, test_golden_field.py) read their
designs from the same presets, so a design is written once.
"""

from __future__ import annotations

import pytest

from core.design import Design
from core.errors import InputError
from core.plan import plan
from core.presets import METRICS, Preset, find_preset, load_presets, load_presets_from, metric_value, reproduced

pytestmark = pytest.mark.golden

PRESETS = load_presets()
BRIEF = ("superpod-h100-1su", "superpod-h100-4su", "superpod-b200-1su", "superpod-b300-xdr-1su", "superpod-gb200-1su",
         "deepseek-mpft", "meta-24k-roce", "alibaba-hpn-segment", "alibaba-hpn-pod", "bytedance-megascale",
         "rail-only", "tor-fat-tree")


def test_the_gallery_holds_the_published_designs():
    ids = [p.id for p in PRESETS]
    assert set(BRIEF) <= set(ids) and len(ids) == len(set(ids))
    for preset in PRESETS:
        assert preset.source.url.startswith("https://") and preset.source.where and preset.published


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_preset_reproduces_its_published_numbers(preset: Preset):
    summary = plan(preset.design).summary()
    for number, engine, ok in reproduced(preset, summary):
        assert ok, (f"{preset.id}: {number.metric} = {engine}, but {preset.source.publisher} prints {number.value} "
                    f"({number.where}; {preset.source.document}, {preset.source.where})")


def test_a_wrong_published_number_fails():
    """The comparison can fail: the same preset with one number changed does not match."""
    preset = find_preset("superpod-h100-1su")
    wrong = preset.model_copy(update={"published": tuple(
        n.model_copy(update={"value": n.value + 1}) if n.metric == "switches.leaf" else n for n in preset.published)})
    rows = reproduced(wrong, plan(wrong.design).summary())
    assert [n.metric for n, _engine, ok in rows if not ok] == ["switches.leaf"]


def test_tolerance_is_relative_and_only_where_stated():
    meta = find_preset("meta-24k-roce")
    ratio = next(n for n in meta.published if n.metric == "bandwidth.oversubscription")
    assert ratio.tolerance == 0.005 and ratio.matches(6.98) and not ratio.matches(6.9)
    exact = next(n for n in meta.published if n.metric == "gpus")
    assert exact.matches(24576) and not exact.matches(24577) and not exact.matches(None)


def test_every_metric_is_a_summary_path():
    summary = plan(Design(gpu="H100", nodes=127)).summary()
    for metric in METRICS:
        assert metric_value(summary, metric) is not None or metric == "pods", metric


def test_preset_fields_are_the_ones_the_file_sets():
    deepseek = find_preset("deepseek-mpft")
    assert deepseek.fields == {"gpu": "H800", "nodes": 2048, "switch": "QM9700", "nic": "CX7",
                               "plane_mode": "per-rail", "planes": 8}
    assert Design(**deepseek.fields) == deepseek.design


def test_unknown_preset_names_the_known_ones():
    with pytest.raises(InputError) as info:
        find_preset("<b>nope</b>")
    assert "'<b>nope</b>'" in str(info.value) and "deepseek-mpft" in str(info.value)
    assert find_preset("  DeepSeek-MPFT ").id == "deepseek-mpft"


@pytest.mark.parametrize("text,problem", [
    ('[[preset]]\nid = "x"\n', "title"),
    ('[[preset]]\nid = "Bad Id"\ntitle = "t"\nnotes = "n"\n[preset.source]\npublisher = "p"\ndocument = "d"\n'
     'where = "w"\nurl = "https://x"\n[preset.design]\ngpu = "H100"\n[[preset.published]]\nmetric = "gpus"\n'
     'value = 32\nwhere = "w"\n', "id"),
    ('[[preset]]\nid = "x"\ntitle = "t"\nnotes = "n"\n[preset.source]\npublisher = "p"\ndocument = "d"\n'
     'where = "w"\nurl = "https://x"\n[preset.design]\nnodes = "4"\n[[preset.published]]\nmetric = "gpus"\n'
     'value = 32\nwhere = "w"\n', "nodes"),
    ('[[preset]]\nid = "x"\ntitle = "t"\nnotes = "n"\n[preset.source]\npublisher = "p"\ndocument = "d"\n'
     'where = "w"\nurl = "https://x"\n[preset.design]\ngpu = "H100"\n[[preset.published]]\nmetric = "cost"\n'
     'value = 32\nwhere = "w"\n', "metric"),
])
def test_a_bad_presets_file_is_refused_with_the_field(tmp_path, text, problem):
    path = tmp_path / "presets.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_presets_from(path)
    assert problem in str(info.value)
