"""One Chinese term per English term across the message catalog: a msgstr whose msgid holds a glossary term uses the
glossary's one translation and none of the others seen before (``GLOSSARY``); the review pack names a media kind
as the Racks tab does (``core.physical.media.KIND_LABELS``), in Chinese too."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from core.i18n import LOCALE_DIR, glossary

PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / "messages.po"

_TERMS = {term["en"]: term["zh"] for term in glossary()}
"""The house glossary's Chinese terms (``assets/glossary.toml``, shown on the Catalog page)."""

GLOSSARY = (
    # (English term in the msgid, the one Chinese term the msgstr holds, other translations it must not hold)
    (r"(?<![\w-])NICs?(?![\w-])", _TERMS["NIC"], r"(?<![\w（(-])NICs?(?![\w）)-])"),
    (r"(?<![\w-])MMF(?![\w-])|(?i:multi-?mode)", _TERMS["multimode (MMF)"], r"(?<![\w（(-])MMF(?![\w）)-])"),
    (r"(?<![\w-])SMF(?![\w-])|(?i:single-mode)", _TERMS["single-mode (SMF)"], r"(?<![\w（(-])SMF(?![\w）)-])"),
    # the glossary's 收敛比 less its 比: "oversubscribed" is 有收敛
    (r"(?i)(?<![\w-])oversubscri", _TERMS["oversubscription"].removesuffix("比"), r"超订|超额订阅|过载比"),
    # the end-to-end ratio: the glossary's 对分带宽比 (its bisection bandwidth's 对分带宽 and 比), never 对分比
    (r"(?i)bisection ratio", _TERMS["bisection ratio"], r"对分比"),
    # the collectives keep their English names (the glossary's "collective communication" lists them so)
    (r"(?i)all-reduce", "all-reduce", r"全归约|全规约|全局归约|全局规约"),
    (r"(?i)all-to-all", "all-to-all", r"全对全"),
    (r"(?i)send/recv", "send/recv", r"点对点收发"),  # beside all-gather and reduce-scatter in one column
    (r"(?i)central rows?\b", "中央机柜排", r"中心机柜排"),
    (r"(?i)\bone direction\b|\b1 dir\b", _TERMS["per direction / bidirectional"].split(" / ")[0], r"单方向"),
    (r"(?i)\bfirst[- ]level\b|\bfirst NVLink level", _TERMS["first / second NVLink level"].split(" / ")[0],
     r"(?<![第统单])一级"),
    (r"(?i)\blevel-2\b|\bsecond[- ]level\b|\bsecond NVLink level", _TERMS["first / second NVLink level"].split(" / ")[1],
     r"(?<!第)二级"),
    # a money label's unit: [USD] in English, [美元] in Chinese as the amounts' 万美元 / 亿美元
    (r"\[[^\]]*\bUSD\b[^\]]*\]|^[\w-]+(?: [\w-]+)? USD(?: \((?:high|low)\))?$", _TERMS["US dollar (unit labels)"],
     r"\[[^\]]*\bUSD\b|\S+ USD(?:（|$)"),
    # the "list" price basis: 标价, apart from 目录 = the tool's catalog (its 目录价格 = the catalog's prices)
    (r"(?i)\blist price|^list$|\blist = high|\blist \((?:the )?high|\bstreet, list\b", "标价", r"目录价(?!格)"),
    # a count of scalable units in a sizing line ("{sus} SU x 4"): the glossary's 可扩展单元, as the Dragonflies' lines
    (r"(?<![\w-])SU (?:x|=) ", _TERMS["scalable unit (SU)"], r"个 ?SU(?![\w）)])"),
    # NCCL's algorithm names as NCCL writes them (the glossary's "NCCL algorithm names")
    (r"(?i)(?<![\w-])nvls(?![\w-])", "NVLS", r"(?<![\w-])nvls(?![\w-])"),
    # ring and tree in running text as in the chart's legend ("all-reduce · ring / tree"): the Performance notes
    # said 环和树 under it
    (r"(?i)\bring(?: and|,) tree\b", "ring", r"环和树|环、树"),
    # a design with pods: its spines under every pod, one wording on every page (the Resilience note said 共享的
    # Q3400 beside 共用脊交换机 everywhere else)
    (r"(?i)\bshared spines\b", "共用脊交换机", r"共享的|共享脊|共用的脊"),
    # routing on shortest paths (Dragonfly, torus): one term beside Valiant's, never the shortest-path wording
    (r"(?i)\bminimal routing\b|\brouting is minimal\b", "最小路由", r"最短路由"),
    # the training job's settings and headline as the Performance page's boxes and card name them (Global batch,
    # Micro-batch, Step time): Compare's "Step time [s]" row read 步时间 beside the card's 单步耗时
    (r"(?i)\bglobal batch\b", "全局批大小", r"全局批量|全局批次"),
    (r"(?i)\bmicro-batch x dp\b|\bsmaller micro-batch\b|\blower the micro-batch\b", "微批大小", r"微批次"),
    (r"(?i)\bstep time\b", "单步耗时", r"单步时间|(?<!单)步时间|(?<![单每训])步时(?!间)"),
    # the training (or serving) job: 作业 on every page and in the pack (the pack's 训练任务 beside Compare's 作业)
    (r"(?i)\bjobs?\b", "作业", r"任务"),
    (r"(?i)\bcost of the run\b|\brun cost\b", "训练成本", r"运行成本"),  # the Performance card's, Compare's row
    # a price or capex range, as the Capex range card (资本支出区间) and the summary's (区间 {low} 至 {high})
    (r"(?i)\brange\s+to\b", "区间", r"范围"),  # "range {low} to {high}" without its placeholders
    # facility power (IT power x PUE): 设施 as the Designer's IT power card and the Cost & power tab (plan's summary
    # line read 机房总功耗 under the card's 设施总功耗)
    (r"(?i)\bfacility\b", "设施", r"机房总功耗|机房功耗"),
)
"""The glossary as the catalog is checked against it: a regular expression of the English term (placeholders
``{name}``, ``--flags`` and ``key=`` settings left out), the one Chinese term (the house glossary's where it has the
term; case-insensitive), and a regular expression of the translations it replaces. An abbreviation may stay in
brackets after its Chinese term (``多模（MMF）``, ``网卡（NIC）模式``)."""

OTHER_SENSE = {
    "All 24 200GbE ports are on the accelerator: 21 form the all-to-all among",  # a full mesh of cards (全互联)
    "uplinks_per_gpu = 9 [D]: 72 NVLinks out of an 8-GPU node",  # NVIDIA's all-to-all (mesh) bandwidth figure
    "Stopped {what} after {seconds} s, the limit per job",  # the web server's jobs (its worker pool): 任务
    "Stopped {what}: it needed more than {mb} MB of memory, the limit per job",
    "The server is busy: {running} jobs are running",
}
"""Msgids (their start) where a glossary word has another sense: not the collective but a full mesh; not the
training or serving job but the web server's unit of work."""


def _messages() -> list[tuple[str, str]]:
    with PO.open("rb") as handle:
        catalog = read_po(handle)
    out = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        strings = message.string if isinstance(message.string, (list, tuple)) else (message.string,)
        out += [(ids[0], text) for text in strings if text]
    return out


def _bare(text: str) -> str:
    """``text`` without placeholders (``{nic}``), command-line flags (``--nics-per-node``) and setting names
    (``oversubscription=1,2``)."""
    return re.sub(r"--[\w-]+|\b\w+=", " ", re.sub(r"\{[^}]*\}", " ", text))


@pytest.mark.parametrize("english,chinese,others", GLOSSARY, ids=[g[1] for g in GLOSSARY])
def test_one_translation_per_term(english, chinese, others):
    wrong = []
    for msgid, msgstr in _messages():
        if not re.search(english, _bare(msgid)) or any(msgid.startswith(s) for s in OTHER_SENSE):
            continue
        text = _bare(msgstr)
        if chinese.lower() not in text.lower() or re.search(others, text):
            wrong.append(f"{msgid[:80]!r} -> {msgstr[:80]!r}")
    assert not wrong, f"{len(wrong)} translation(s) not using {chinese!r}:\n" + "\n".join(wrong[:20])


def test_the_glossary_catches_a_stray_term():
    """The rule fails on the translations it replaces (so the test above can fail)."""
    for english, chinese, others in GLOSSARY:
        assert re.search(others, {"网卡": "每块 NIC 的端口", "多模": "MMF 光模块", "单模": "SMF 光模块",
                                  "all-reduce": "1 GiB 全归约", "all-to-all": "全对全", "收敛": "超订比",
                                  "中央机柜排": "中心机柜排", "单向": "对分带宽（单方向）", "第一级": "两个一级域",
                                  "第二级": "无二级交换机", "美元": "资本支出 [USD]", "NVLS": "nvls 算法",
                                  "标价": "目录价（区间高端）", "send/recv": "点对点收发",
                                  "可扩展单元": "6 个 SU × 4", "最小路由": "最短路由下达到线速的 100%",
                                  "对分带宽比": "对分比 1:1", "全局批大小": "全局批量 1,024", "微批大小": "微批次 × dp",
                                  "单步耗时": "步时间 [s]", "作业": "性能页的训练任务",
                                  "训练成本": "训练运行成本 [美元]", "区间": "（范围 1 至 2）",
                                  "设施": "按 PUE 1.3 计机房总功耗 43.2 MW",
                                  "ring": "环和树的流量只在相邻组之间", "共用脊交换机": "21 台共享的 Q3400"}[chinese])
    assert not re.search(GLOSSARY[0][2], "网卡（NIC）模式") and not re.search(GLOSSARY[0][2], "BlueField SuperNIC")


def test_the_packs_media_column_is_the_racks_tabs():
    from core.formats.report import lengths_html
    from core.i18n import language
    from core.physical.media import KIND_LABELS, MediaBin

    media = MediaBin(link_class="leaf-spine", low_m=5.0, high_m=10.0, links=8, max_m=9.0, mean_m=7.0,
                     route="in-row", kind="mmf", switch_module_id="OSFP-800G-2xSR4")
    with language("zh"):
        html = lengths_html([], [("", media)])
    assert "多模光模块" in html and ">MMF<" not in html
    assert KIND_LABELS["mmf"] in lengths_html([], [("", media)])


def test_the_pods_switch_words_name_switch_once():
    """The Designer's subtitle and the CLI headline say "switch {switch}"; the pods' words (leaf models, spine
    model) that fill it must not say switch again ("交换机 叶交换机 QM9700 + Q3400")."""
    from collections import defaultdict

    from core.analysis.whole import design_mixed, pods_models
    from core.design import Design
    from core.i18n import _, language

    for tiers in ("auto", 3):  # under shared spines, and pods' own spines under shared cores
        mixed = design_mixed(Design(gpu="H100", nodes=64, pods="B200:32:800", tiers=tiers))
        with language("zh"):
            switch = pods_models(mixed)["switch"]
            caption = _("{size} · {fabric} {speed}G · {topology} · {tiers} · {planes} · switch {switch} · NIC {nic}"
                        ).format_map(defaultdict(str, switch=switch))
        assert "QM9700 + Q3400" in switch and "Q3400" in switch
        assert not re.search(r"交换机\s*[叶脊核]?[心]?交换机", caption), caption


TIMES_X = re.compile(r"(?<![\w{}%:.\-（(])x(?![\w{}:\-）)])|(?<=[（(，\s])x(?= )")
"""A Latin ``x`` standing alone as a multiplication sign (``4 x 36``, ``tp x pp``, ``（x {count}）``); not ``x:1``,
``%{x}``, ``x{lanes}``, ``4x4x4`` or ``（x）`` (a dimension's name)."""


def test_one_multiplication_sign_in_chinese():
    """Chinese writes × ("512 × H100" in the pack), never x beside it ("每域 4 x 36 个 GPU" next to "6 个 SU ×4")."""
    wrong = [f"{msgid[:60]!r} -> {msgstr[:60]!r}" for msgid, msgstr in _messages() if TIMES_X.search(msgstr)]
    assert not wrong, f"{len(wrong)} translation(s) with x for ×:\n" + "\n".join(wrong[:20])
    for text in ("4 x 36 个 GPU", "tp x pp", "（x {count}）", "{replicas} x（tp"):
        assert TIMES_X.search(text), text
    for text in ("最大收敛比（x:1）", "%{x:,} 个 GPU", "PCIe Gen5 x16", "Gen{gen} x{lanes}", "4x4x4", "第 1 维（x）",
                 "{ports}x{speed}G"):
        assert not TIMES_X.search(text), text


def test_one_ceiling_sign_in_chinese():
    """Chinese writes a rounding up as ⌈a / b⌉ (the Clos sizing: "⌈29 / 9⌉ = 4 个 Pod"), never ceil(a / b) beside
    it (the Dragonfly+ sizing read "ceil(16 / 4) = 4 个组" one design away)."""
    wrong = [f"{msgid[:60]!r} -> {msgstr[:60]!r}" for msgid, msgstr in _messages() if "ceil(" in msgstr]
    assert not wrong, f"{len(wrong)} translation(s) with ceil( for ⌈⌉:\n" + "\n".join(wrong[:20])
