"""What counts as a string of the other language on a page (used by the language tests).

Chinese pages may keep proper nouns, part names, units and abbreviations in Latin letters
(``ALLOWED``); any other English word that appears in the message catalog's English texts is a
leak. English pages may hold no CJK character except the language switch's own label.
"""

from __future__ import annotations

import re
from functools import lru_cache

from babel.messages.pofile import read_po

from core.i18n import LOCALE_DIR

PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / "messages.po"
# identifiers (node_ports, CX7) are one token; hyphenated names (all-reduce, nccl-tests) are checked whole
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’]*(?:-[A-Za-z0-9_]+)*")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
ALLOWED_CJK_ON_ENGLISH = ("简体中文",)

# proper nouns, part and protocol names, units, abbreviations: stay as written in Chinese text
ALLOWED = {w.lower() for w in """
GPU GPUs NIC NICs NVLink NVSwitch NVLS InfiniBand IB Ethernet RoCE RoCEv2 HDR NDR XDR EDR HDR100 NDR200
DGX HGX SuperPOD BasePOD NVL NVL72 NVL36 ConnectX BlueField Spectrum Quantum SN SuperNIC NVIDIA Mellanox
Hopper Blackwell Rubin Ampere Volta Grace H100 H200 B200 B300 GB200 GB300 A100 V100 MI300X AMD Broadcom
Tomahawk Jericho Arista Cisco Juniper Meta Alibaba DeepSeek Llama GPT Megatron PyTorch Al Fares Kim
Gb s GB TB Tb W kW MW kWh MWh USD US m km ms us ns µs Gbps Tbps PB EB B KiB MiB GiB TiB KB MB
TCO BOM PUE DAC AOC ACC LACC AEC SMF MMF OM OM3 OM4 OM5 OS2 SR SR4 DR DR4 FR FR4 LR QSFP OSFP QSFP112
NCCL SHARP SHARPv3 LL LL128 Simple Ring Tree CollNet PAT PXN PCIe NUMA CPU HBM FLOP FLOPs TFLOP PFLOP
EFLOP TFLOPS FP8 FP16 BF16 FP32 FP4 TF32 MXFP8 NVFP4 MFU HFU TP DP PP EP CP SP ZeRO FSDP MoE
busbw algbw all-reduce allreduce all-gather allgather reduce-scatter reducescatter all-to-all alltoall
broadcast reduce AllReduce AllGather ReduceScatter AlltoAll
ToR Pod SU HBD CLI JSON URL CSV XLSX PDF HTML Slurm NetBox Streamlit Plotly PNG SVG API MCP
GraphML draw.io drawio mxGraph ASTRA-sim SimAI YAML Chromium Vera
token tokens Gb/s GB/s x e g vs id ids auto ECMP VP nccl-tests nccl
p2p send recv Cedar English IT Clos Dragonfly Dragonfly+ Valiant
UFM BMC ISL PDU PDUs MLAG NFS GbE OOB CNY EUR CFETS
KV TTFT TPOT Vidur llm-d inference-sim gpt-oss
ibnetdiscover ibsim lldpctl lldpd LLDP GUID OpenSM
RCCL HCCL RHD NHR UEC UEC-ready RDMA CloudEngine Pollara Pensando Thor Gaudi Ascend NPU H3C Huawei Ruijie Intel
xGMI ROCm CANN UB devicetype-library
OCS TPU
AWS Amazon Google EFA EFAv2 EFAv3 EFAv4 SRD GPUDirect-TCPX GPUDirect-TCPXO TCPX TCPXO gVNIC
Adam ZeRO-Offload
""".split()}


def _link_keys() -> set[str]:
    """The share link's keys (``n``, ``ng``, ``sw`` ...): warnings list them as typed."""
    from core.formats import sharelink

    return {key.lower() for key in sharelink.KEYS}


@lru_cache(maxsize=1)
def english_vocabulary() -> frozenset[str]:
    """Every word of the catalog's English texts (lower case), less the allowed ones."""
    with PO.open("rb") as handle:
        catalog = read_po(handle)
    words = set()
    for message in catalog:
        if "catalog note" in message.auto_comments:  # data: its words are names and citations as often as English
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else (message.id,)
        for text in ids:
            words |= {w.lower() for w in WORD.findall(re.sub(r"\{[^}]*\}", " ", text or ""))}
    return frozenset(w for w in words if w not in ALLOWED | _link_keys() and len(w) > 1 and w.isalpha())


@lru_cache(maxsize=1)
def product_names() -> tuple[str, ...]:
    """The catalog's product names as published ("NVIDIA Quantum-2 QM9700 NDR InfiniBand switch"), the second NVLink
    level's parts included (``core.fabric.domainlevels.bill_entries``: every part a bill can name), longest first:
    proper names, quoted as they are in either language."""
    from core.fabric.domainlevels import bill_entries

    names = set()
    for _kind, entry in bill_entries():
        for field in ("name", "gpu_name"):
            value = getattr(entry, field, None)
            if isinstance(value, str) and value:
                names.add(value)
    # the published measurements' citations (the Performance page's reference points), quoted as published
    import tomllib

    from core.catalog import CATALOG_DIR

    with (CATALOG_DIR / "collectives.toml").open("rb") as handle:
        for point in tomllib.load(handle).get("reference", []):
            for field in ("source", "label"):
                if isinstance(point.get(field), str) and point[field]:
                    names.add(point[field])
    return tuple(sorted(names, key=len, reverse=True))


@lru_cache(maxsize=1)
def preset_sources() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The published designs' sources (``core.presets``), quoted as published in either language: (documents and
    the tables or figures cited, publishers), each whole and longest first (two documents may share a long start)."""
    from core.presets import load_presets

    documents = {text for p in load_presets() for text in (p.source.document, p.source.where)}
    publishers = {p.source.publisher for p in load_presets()}
    return tuple(sorted(documents, key=len, reverse=True)), tuple(sorted(publishers, key=len, reverse=True))


SHORT_NAME_CHARS = 12
"""The shortest start of a product name that ``_strip_cut_names`` takes for the name (a chart axis's part name)."""


def _strip_cut_names(text: str, names: tuple[str, ...]) -> str:
    """``text`` without product names a chart shortened (``core.figures.cost.part_label``): a start of a name of
    ``SHORT_NAME_CHARS`` or more ending in an ellipsis, or a name's part before its first comma."""
    for name in names:
        head = name.split(", ")[0]
        if len(head) >= SHORT_NAME_CHARS and head != name:
            text = re.sub(rf"{re.escape(head)}(?![\w-])", " ", text)
    for match in reversed(list(re.finditer(r"[^\n…]{%d,}…" % SHORT_NAME_CHARS, text))):
        cut = match.group(0)[:-1].lstrip()
        starts = [0] + [i + 1 for i, char in enumerate(cut) if char == " "]
        for start in starts:
            if len(cut) - start >= SHORT_NAME_CHARS and any(n.startswith(cut[start:]) for n in names):
                text = text[:match.start() + (len(match.group(0)) - 1 - len(cut)) + start] + " " + text[match.end():]
                break
    return text


def _strip_quoted(text: str, name: str) -> str:
    """``text`` without ``name`` and without any cut-off start of it of 30 characters or more (a hover text
    may show a long citation shortened)."""
    text = text.replace(name, " ")
    if len(name) < 30:
        return text
    start = text.find(name[:30])
    while start >= 0:
        end = start + 30
        while end < len(text) and end - start < len(name) and text[end] == name[end - start]:
            end += 1
        text = text[:start] + " " + text[end:]
        start = text.find(name[:30])
    return text


def english_leaks(text: str) -> list[str]:
    """English words in ``text`` that a Chinese page should not show (empty when clean)."""
    vocabulary = english_vocabulary()
    found = set()
    text = text.replace("Fabric planner", " ")
    documents, publishers = preset_sources()
    for name in documents:  # before the product names, which the documents' titles contain
        text = text.replace(name, " ")
    for name in product_names():
        text = _strip_quoted(text, name)
    text = _strip_cut_names(text, product_names())
    for name in publishers:  # after them: "NVIDIA" starts many a product name
        text = text.replace(name, " ")
    for token in WORD.findall(text):
        if token.lower() in ALLOWED:
            continue
        found |= {part for part in token.split("-") if part.lower() in vocabulary}
    return sorted(found)


_PLOTLY_VISIBLE = {"text", "name", "hovertemplate", "hovertext", "ticktext", "labels", "texttemplate"}
_SKIPPED_FIELDS = {"id", "form_id", "key", "user_key", "type", "element_type", "tag", "css_class", "icon", "url",
                  "mime", "file_name"}
_TITLE_ATTRIBUTE = re.compile(r"""\b(?:title|aria-label|alt)\s*=\s*("([^"]*)"|'([^']*)')""")


def html_text(markup: str) -> str:
    """The visible text of HTML: its text and its tooltips (``title=``), not its tags and attributes, nor the
    invisible zero width joiners that keep a URL in a text from becoming a link (``core.text.unlinked``)."""
    markup = re.sub(r"<style>.*?</style>", " ", markup, flags=re.S)  # a style sheet is not shown (a caption's own)
    tips = [m.group(2) or m.group(3) or "" for m in _TITLE_ATTRIBUTE.finditer(markup)]
    return (re.sub(r"<[^>]*>", " ", markup) + " " + " ".join(tips)).replace("\u200d", "")


def proto_text(message) -> list[str]:
    """Every string value of a protobuf message (labels, help, options, bodies), not its field names."""
    found = []
    for field, value in message.ListFields():
        if field.name in _SKIPPED_FIELDS:
            continue
        values = list(value) if getattr(field, "is_repeated", False) or isinstance(value, (list, tuple)) \
            or type(value).__name__.startswith("Repeated") else [value]
        for item in values:
            if field.type == field.TYPE_STRING:
                found.append(html_text(item) if "<" in item else item)
            elif field.type == field.TYPE_MESSAGE:
                found += proto_text(item)
    return found


def plotly_text(spec, key: str = "") -> list[str]:
    """The texts a reader sees in a Plotly figure's JSON (titles, names, hover, annotations, tables), not
    its ids and keywords (``legendgroup``, ``type: scatter``)."""
    found = []
    if isinstance(spec, dict):
        for name, value in spec.items():
            if name in ("header", "cells") and isinstance(value, dict):
                found += plotly_text(value.get("values"), "text")
            elif name == "title" and isinstance(value, dict):
                found += plotly_text(value.get("text"), "text")
            elif name == "title" and isinstance(value, str):
                found.append(value)
            else:
                found += plotly_text(value, name)
    elif isinstance(spec, list):
        for item in spec:
            found += plotly_text(item, key)
    elif isinstance(spec, str) and key in _PLOTLY_VISIBLE:
        found.append(re.sub(r"%\{[^}]*\}|<[^>]*>", " ", spec))
    return found


def chinese_leaks(text: str) -> list[str]:
    """CJK characters on an English page (empty when clean)."""
    for allowed in ALLOWED_CJK_ON_ENGLISH:
        text = text.replace(allowed, "")
    return sorted(set(CJK.findall(text)))
