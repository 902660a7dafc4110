"""The engine speaks the request's language: domain errors (message, suggestion, way-out phrases),
input errors, sizing explanations, BOM texts, topology labels and what-if headers are Chinese under
``language("zh")`` and English (unchanged) by default; numbers never depend on the language."""

from __future__ import annotations

import re

import pytest

from core.analysis.whatif import oversubscription_sweep, sweep_display_table
from core.catalog import KIND_LABELS, PRICE_BASIS_LABELS, load_catalog
from core import vocab
from core.cost import CATEGORY_LABELS, LINK_CLASS_LABELS
from core.design import Design, load_design_json, parse_design, resolve_design
from core.errors import DesignError, FabricPlannerError, InputError, shown
from core.fabric.sizing import ROLE_LABELS
from core.fabric.topology import aggregated_graph
from core.i18n import _, language
from core.plan import plan, ways_out
from tests.i18n_check import chinese_leaks, english_leaks

CATALOG = load_catalog()
NAMES = {entry.id: entry.name for _kind, entry in CATALOG.all_entries()}

DESIGNS = [
    {"nodes": 128},                                                     # two tiers, rail-optimized SUs
    {"nodes": 33, "topology": "top-of-rack"},                           # ToR, a partial leaf
    {"nodes": 2000, "tiers": 3},                                        # three tiers, pods, cores, partial pod
    {"nodes": 2000, "topology": "top-of-rack", "nics_per_node": 4},     # ToR pods
    {"gpu": "GB200", "nodes": 33},                                      # rounded up to whole NVL72 racks
    {"gpu": "B300", "fabric": "ethernet", "nodes": 64, "planes": 2},    # speed note, planes
    {"nodes": 4, "cable_media": "aoc"},                                 # one tier, AOC media
    {"nodes": 40, "cable_media": "copper", "oversubscription": 3.0},    # copper, fewer down ports note
    {"nodes": 100, "tiers": 3, "oversubscription": 2.0},                # tiers above what is needed
]

BAD_INPUT = [
    '{"nodes": 0}', '{"nodes": 1, "gpus": 2}', '{"tco_years": 0}', '{"topology": "x"}', '{"tiers": 7}',
    '{"tiers": true}', '{"foo": 1}', '{"gpu": ""}', '{"price_overrides": {"zz": 1}}',
    '{"price_overrides": {"QM9700": -1}}', '{"nodes": "4"}', '{"nodes": 1.5}', '[1]', '{"a": 1, "a": 2}',
    '{"nodes": 1', '{"nodes": ' + "9" * 50 + "}", '{"gpu": "h900"}', '{"switch": "zz"}',
    '{"switch": "SN5600"}', '{"port_speed_gbps": 123}', '{"nvlink_domain_gpus": 3}',
    '{"power_overrides": {"": 1}}', '{"price_overrides": {"qm9700": 1, "QM9700": 2}}',
    '{"fabric": "x", "cable_media": "y", "pue": 9, "planes": 99, "nodes": -1, "gpus_per_node": 99, "tiers": "q"}',
    "[" * 30 + "]" * 30, '{"nodes": 4} x',
]

UNBUILDABLE = [
    {"nodes": 100000, "tiers": 1},
    {"nodes": 20000, "switch": "QM8700", "port_speed_gbps": 200},
    {"nodes": 16384},
    {"planes": 8},
    {"nodes": 300, "tiers": 2},
]

# what a Chinese message may carry in Latin letters on purpose: values the user typed or must type
# (quoted), design field names and file paths, the CLI command that lists catalog ids
_QUOTED = re.compile(r"'[^']*'")
_IDENTIFIER = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b[\w./-]+\.toml\b")
_FIELD = re.compile(r"(^|；)[a-z_.0-9]+：")
_WORD = re.compile(r"[A-Za-z_]+")
DESIGN_FIELDS = set(Design.model_fields)
ECHOED = {"True", "False", "None"}  # a value the user gave, echoed as the engine read it


def _clean(text: str) -> str:
    text = text.replace("python -m core catalog", "")
    text = _QUOTED.sub("", text)
    text = _FIELD.sub(r"\1", text)
    text = _IDENTIFIER.sub("", text)
    return _WORD.sub(lambda m: "" if m.group() in DESIGN_FIELDS | ECHOED else m.group(), text)


def _texts(design: dict) -> list[str]:
    """Every text the engine builds for ``design`` in the current language (catalog names left out)."""
    result = plan(Design.model_validate(design))
    texts = list(result.resolved.notes) + list(result.fabric.explanation)
    texts += [g.description for g in result.fabric.switch_groups]
    for row in result.bom:
        texts.append(row.why)
        name = NAMES[row.catalog_id]
        assert row.item.startswith(name), row.item  # the catalog name first, then where the row sits
        texts.append(row.item[len(name):])
    texts += [data["label"] for _v, data in aggregated_graph(result).nodes(data=True)]
    return texts


def _input_error(text: str) -> str:
    with pytest.raises(InputError) as info:
        design = parse_design(load_design_json(text))
        resolve_design(design)
    return str(info.value)


def _design_error(design: dict) -> DesignError:
    with pytest.raises(DesignError) as info:
        plan(Design.model_validate(design))
    return info.value


@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: "-".join(f"{k}={v}" for k, v in d.items()))
def test_plan_texts_are_chinese_in_chinese_and_english_in_english(design):
    with language("zh"):
        zh = _texts(design)
    en = _texts(design)
    assert len(zh) == len(en)
    for zh_text, en_text in zip(zh, en):
        assert "{" not in zh_text and "{" not in en_text, (zh_text, en_text)  # every placeholder filled
        assert not english_leaks(zh_text), (zh_text, english_leaks(zh_text))
        assert not chinese_leaks(en_text), en_text
        if re.search(r"[A-Za-z]{3}", en_text.replace("SU", "")):  # a text with words is translated
            assert zh_text != en_text, en_text


def test_english_explanations_stay_as_before():
    result = plan(Design(nodes=128))
    assert result.fabric.explanation[0] == (
        "Rail-optimized: a scalable unit is 32 nodes (one leaf down port each at 1:1), with one leaf per rail "
        "(8 rails): 4 SU x 8 = 32 leaves.")
    leaf = next(r for r in result.bom if r.category == "switch")
    assert leaf.item.endswith(" (leaf)") and leaf.why == "4 SU x 8 rails = 32"
    with language("zh"):
        zh = plan(Design(nodes=128))
    assert zh.fabric.explanation[0] == ("轨道优化：一个可扩展单元为 32 个节点（1:1 时每节点占一个叶交换机下行端口），"
                                        "每条轨道一台叶交换机（8 条轨道）：4 个可扩展单元 × 8 = 32 台叶交换机。")
    assert next(r for r in zh.bom if r.category == "switch").item.endswith("（叶交换机）")


@pytest.mark.parametrize("design", DESIGNS[:5], ids=str)
def test_numbers_and_keys_do_not_depend_on_the_language(design):
    en = plan(Design.model_validate(design))
    with language("zh"):
        zh = plan(Design.model_validate(design))
    en_summary, zh_summary = en.summary(), zh.summary()
    assert en_summary.pop("explanation") != zh_summary.pop("explanation")
    assert en_summary == zh_summary  # counts, bandwidth, cost, ids: the same
    en_bom, zh_bom = en.bom_frame(), zh.bom_frame()
    for column in ("category", "catalog_id", "quantity", "unit_price_usd", "extended_price_usd", "price_basis"):
        assert list(en_bom[column]) == list(zh_bom[column])
    assert set(en_bom["category"]) <= set(CATEGORY_LABELS)
    assert set(en_bom["price_basis"]) <= set(PRICE_BASIS_LABELS)
    assert [g.role for g in en.fabric.switch_groups] == [g.role for g in zh.fabric.switch_groups]


def test_the_plan_cache_keys_the_language():
    design = Design(nodes=96)
    first_en = plan(design)
    with language("zh"):
        zh = plan(design)
    again_en = plan(design)
    assert chinese_leaks(" ".join(again_en.fabric.explanation)) == []
    assert again_en.fabric.explanation == first_en.fabric.explanation
    assert zh.fabric.explanation != first_en.fabric.explanation
    assert not english_leaks(" ".join(zh.fabric.explanation))
    with language("zh"):
        assert plan(design) is zh  # still cached, per language


@pytest.mark.parametrize("design", UNBUILDABLE, ids=str)
def test_design_errors_and_their_ways_out_in_both_languages(design):
    en = _design_error(design)
    with language("zh"):
        zh = _design_error(design)
        fixes_again = ways_out(Design.model_validate(design))
    assert [c for _p, c in en.fixes] == [c for _p, c in zh.fixes]  # the same ways out, as data
    assert [p for p, _c in zh.fixes] == [p for p, _c in fixes_again]
    for error, stop in ((en, "."), (zh, "。")):
        assert error.suggestion.endswith(stop) if error.fixes else not error.suggestion
        suggestion = error.suggestion.lower()
        for phrase, _changes in error.fixes:
            assert phrase.lower() in suggestion, (phrase, error.suggestion)  # a button's text is in the sentence
    assert not chinese_leaks(str(en))
    assert not english_leaks(_clean(str(zh))), (str(zh), english_leaks(_clean(str(zh))))
    assert "。 " not in str(zh) and "{" not in str(zh)
    assert sorted(re.findall(r"\d[\d,]*", en.message)) == sorted(re.findall(r"\d[\d,]*", zh.message))  # same numbers


def test_english_design_error_text_is_unchanged():
    error = _design_error({"nodes": 16384})
    assert str(error).startswith("16,384 nodes (131,072 GPUs) need more than three tiers of QM9700 at 400 Gb/s; "
                                 "three tiers hold at most 8,192 nodes (65,536 GPUs) per plane. Run the ports at "
                                 "800 Gb/s, or plan at most 8,192 nodes (65,536 GPUs)")
    with language("zh"):
        zh = _design_error({"nodes": 16384})
    assert zh.message == ("16,384 个节点（131,072 个 GPU）需要三层以上的 QM9700（400 Gb/s）；三层每个网络平面最多容纳 "
                          "8,192 个节点（65,536 个 GPU）。")
    assert zh.suggestion.startswith("端口速率改为 800 Gb/s，或最多规划 8,192 个节点（65,536 个 GPU）")


@pytest.mark.parametrize("text", BAD_INPUT, ids=range(len(BAD_INPUT)))
def test_input_errors_in_both_languages(text):
    en = _input_error(text)
    with language("zh"):
        zh = _input_error(text)
    assert not chinese_leaks(en), en
    assert "{" not in zh and len(zh) <= 400
    assert not english_leaks(_clean(zh)), (zh, english_leaks(_clean(zh)))
    assert zh != en


def test_input_error_details():
    with language("zh"):
        assert _input_error('{"tco_years": 0}') == "tco_years：必须大于 0 且不超过 30（实际为 0）"
        assert _input_error('{"tiers": 7}') == "tiers：必须是 'auto'、1、2 或 3（实际为 7）"
        assert _input_error('{"nodes": 1') == "设计文件不是有效的 JSON：此处应为逗号 ','（第 1 行第 12 列）"
        assert _input_error('{"switch": "SN5600"}') == "交换机 SN5600 是以太网交换机，但设计的网络是 InfiniBand 网络"
        assert shown(10 ** 5000) == "<约 5,000 位的数字>"
    assert _input_error('{"tiers": 7}') == "tiers: must be 'auto', 1, 2 or 3 (got 7)"
    assert _input_error('{"switch": "zz"}').startswith("unknown switch model 'zz'; known: ")
    assert shown(10 ** 5000) == "<a number of about 5,000 digits>"


def test_whatif_table_headers_and_notes():
    frame = oversubscription_sweep(Design(nodes=64))
    en = sweep_display_table(frame, "Gb/s")
    assert list(en.columns) == ["leaf oversubscription", "bisection ratio", "buildable", "cross-fabric per GPU [Gb/s]",
                                "bisection [Tb/s]", "tiers", "switches", "compute fabric capex per GPU [USD]", "note"]
    with language("zh"):
        zh = sweep_display_table(frame, "GB/s")
        blocked = oversubscription_sweep(Design(nodes=100000, tiers=1), values=(1.0, 2.0))
    assert not english_leaks(" ".join(zh.columns)), list(zh.columns)
    assert "每 GPU 跨网络带宽 [GB/s]" in zh.columns and "对分带宽 [TB/s]" in zh.columns
    assert list(zh.iloc[:, 0]) == list(en.iloc[:, 0])  # values are the same
    assert not blocked["feasible"].any()
    for note in blocked["note"]:
        assert note and not english_leaks(_clean(note)), note


def test_labels_marked_for_display_are_translated():
    labels = [*KIND_LABELS.values(), *PRICE_BASIS_LABELS.values(), *CATEGORY_LABELS.values(),
              *LINK_CLASS_LABELS.values(), *[t.word for t in vocab.CABLE_MEDIA], *ROLE_LABELS.values()]
    with language("zh"):
        shown_labels = [_(label) for label in labels]
    for english, chinese in zip(labels, shown_labels):
        assert not english_leaks(chinese), (english, chinese)
        assert chinese != english or english in ("aoc",), english  # AOC keeps its name
    assert _(CATEGORY_LABELS["NIC"]) == "NIC"  # English: the key itself


def test_every_engine_error_is_a_fabric_planner_error_in_chinese():
    with language("zh"):
        for design in UNBUILDABLE:
            with pytest.raises(FabricPlannerError):
                plan(Design.model_validate(design))
