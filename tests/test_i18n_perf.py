"""core.perf speaks the request's language: the Performance page's notes, tables, captions and the
engine's errors are Chinese under ``language("zh")`` (no English words of the catalog) and English,
unchanged, by default; switching the language changes no number."""

from __future__ import annotations

import re

import pytest

from core.design import Design
from core.errors import DesignError, FabricPlannerError, InputError
from core.i18n import _, language
from core.perf import jobform
from core.perf.collectives import OPS, algorithm_label, collective, level_label, load_constants, size_sweep, sweep
from core.perf.placement import place
from core.perf.sizes import parse_size
from core.perf.training import (PRESETS, comm_collective_label, estimate, memory_label, parallelism_label,
                                parse_job)
from core.plan import plan
from tests.i18n_check import CJK, chinese_leaks, english_leaks

DESIGNS = {
    "h100 ib": Design(gpu="H100", nodes=128),
    "a100 2 nodes": Design(gpu="A100", nodes=2),
    "gb200 nvl72": Design(gpu="GB200", nodes=72),
    "h100 ethernet": Design(gpu="H100", nodes=64, fabric="ethernet"),
}
DEFAULTS = {"model": "llama3-70b", "seq": 8192, "gbs": 1024, "mbs": 1, "prec": "bf16", "tp": 8, "pp": 4, "cp": 1,
            "ep": 1, "vp": 1, "tg": 0, "tok": 1.0, "eff": 0.0}
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
# Names the Chinese text keeps on purpose, removed before the leak check:
# * NCCL's operation names: hyphenated, so the checker's word split sees "all", "to", "scatter";
# * the tool nccl-tests ("tests");
# * ECMP and VP (the page's setting label), abbreviations like TP/PP that tests/i18n_check.py's
#   ALLOWED does not list yet.
KEPT = re.compile(r"\b(?:" + "|".join(re.escape(op) for op in sorted(OPS, key=len, reverse=True))
                  + r"|nccl-tests|ECMP|vp)\b")


def leaks_zh(text: str) -> list[str]:
    return english_leaks(KEPT.sub(" ", text))


def numbers(text: str) -> list[str]:
    """The numbers of ``text``, sorted (a translation may put them in another order)."""
    return sorted(NUMBER.findall(text))


def _settings(p, **changes) -> dict:
    settings = dict(DEFAULTS)
    settings.update(jobform.fitted_defaults(p, settings, set(jobform.FITTED), DEFAULTS))
    settings.update(changes)
    return settings


def _notes(p, gpus):
    sweeps = [sweep(p, op, size_sweep(8, 2**34, 16), gpus=gpus) for op in ("all-reduce", "all-to-all")]
    r = p.resolved
    refs = load_constants().references(r.system.id, gpus, "all-reduce", r.nics_per_node)
    notes = " ".join(jobform.placement_notes(sweeps, gpus, r.system.id, refs))
    for ref in refs:  # labels and citations are quoted as published
        notes = notes.replace(f"{ref.label}: {ref.source}", " ")
    return notes, refs


# ---- notes -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,gpus", [("h100 ib", 8), ("h100 ib", 9), ("h100 ib", 1024), ("gb200 nvl72", 288),
                                       ("a100 2 nodes", 16), ("h100 ethernet", 512)])
def test_placement_notes_in_each_language(name, gpus):
    p = plan(DESIGNS[name])
    with language("zh"):
        zh, refs = _notes(p, gpus)
    en, _refs = _notes(p, gpus)
    assert CJK.search(zh) and not leaks_zh(zh), leaks_zh(zh)
    assert not chinese_leaks(en)
    assert "{" not in zh and "{" not in en
    assert numbers(zh) == numbers(en)
    if gpus == 8:
        assert refs and "红色标记" in zh and "Red markers" in en
    if gpus == 9:  # a partly filled last domain says so in both
        assert "最后一个域只有 1 个" in zh and "the last holds 1" in en


# ---- tables ------------------------------------------------------------------------------------------
def _cells(rows: list[dict]) -> str:
    return " ".join(str(v) for row in rows for v in row.values() if isinstance(v, str))


def test_collective_table_headers_and_cells():
    p = plan(DESIGNS["h100 ib"])
    with language("zh"):
        zh = jobform.collective_rows(p, OPS, 1024)
        zh_headers = [_(c) for c in jobform.COLLECTIVE_COLUMNS]
    en = jobform.collective_rows(p, OPS, 1024)
    assert list(en[0]) == ["collective", "size", "fastest", "time [µs]", "algbw [GB/s]", "busbw [GB/s]"]
    assert list(zh[0]) == zh_headers and all(CJK.search(h) for h in zh_headers)
    assert not leaks_zh(" ".join(zh[0]) + " " + _cells(zh))
    same = [k for k in ("collective", "size", "time [µs]", "algbw [GB/s]", "busbw [GB/s]")]
    assert [[r[_c] for _c in zh_headers if _c != zh_headers[2]] for r in zh] == [
        [r[k] for k in same] for r in en]  # ids, sizes and numbers unchanged
    fastest = [r[zh_headers[2]] for r in zh]
    assert fastest == [re.sub(r"^(hierarchical|direct) \((.*)\)$", lambda m: {"hierarchical": "分层", "direct": "直接"}[
        m[1]] + f"（{m[2]}）", r["fastest"]) for r in en]  # full-width after Chinese (core.i18n.bracketed)
    # 'hierarchical' is no longer a default (not an NCCL algorithm); its label is checked below
    assert "直接（Simple）" in fastest
    with language("zh"):
        assert algorithm_label("hierarchical") == "分层"


def test_communication_and_comparison_tables():
    p = plan(DESIGNS["h100 ib"])
    other = plan(DESIGNS["h100 ethernet"])
    settings = _settings(p, model="deepseek-v3", tp=8, pp=8, ep=8, cp=2, gbs=1024)
    job = jobform.job_from_settings(p, settings)
    with language("zh"):
        here_zh = estimate(p, job)
        comm_zh = jobform.communication_rows(here_zh)
        cmp_zh = jobform.comparison_rows([(jobform.fabric_label(p), here_zh, p), ("以太网", here_zh, other)])
        number_columns = [_(c) for c in jobform.COMPARISON_NUMBER_COLUMNS]
    here = estimate(p, job)
    comm_en = jobform.communication_rows(here)
    cmp_en = jobform.comparison_rows([(jobform.fabric_label(p), here, p), ("Ethernet", here, other)])
    kinds = {row["parallelism"] for row in comm_en}
    assert {"TP", "CP", "DP", "DP (experts)", "EP", "PP"} <= kinds
    assert "DP（专家）" in {row["并行方式"] for row in comm_zh}
    assert "send/recv（环形注意力）" in _cells(comm_zh)  # collective names stay English, as all-gather does
    for rows in (comm_zh, cmp_zh):
        assert all(CJK.search(h) or h == "tokens/s" for h in rows[0])
        assert not leaks_zh(" ".join(rows[0]) + " " + _cells(rows)), leaks_zh(" ".join(rows[0]) + _cells(rows))
    for rows in (comm_en, cmp_en):
        assert not chinese_leaks(" ".join(rows[0]) + " " + _cells(rows[:1]))
    assert list(cmp_en[0]) == ["fabric", "switch", "routing", "step [s]", "tokens/s", "communicating", "days", "run cost [USD]",
                               "cluster capex [USD]", "Compute fabric share of capex"]
    assert set(number_columns) <= set(cmp_zh[0])
    assert cmp_zh[0]["网络"] == "本设计（InfiniBand，1:1）" and cmp_en[0]["fabric"] == "This design (InfiniBand, 1:1)"
    numeric = [[v for v in row.values() if isinstance(v, (int, float))] for row in comm_en]
    assert numeric == [[v for v in row.values() if isinstance(v, (int, float))] for row in comm_zh]
    assert here.summary() | {"warnings": []} == here_zh.summary() | {"warnings": []}


def test_memory_caption_and_warning():
    p = plan(DESIGNS["gb200 nvl72"])
    settings = _settings(p, model="llama3-405b", tp=8, pp=4)  # 126 layers over 4 stages: a warning
    job = jobform.job_from_settings(p, settings)
    name = PRESETS["llama3-405b"].name
    with language("zh"):
        est = estimate(p, job)
        zh = jobform.memory_caption(est, name, settings)
    en = jobform.memory_caption(estimate(p, job), name, settings)
    assert est.warnings and "层无法均分" in zh and "do not split evenly" in en
    assert "权重" in zh and "优化器状态" in zh and "weights" in en
    assert not leaks_zh(zh), leaks_zh(zh)
    assert not chinese_leaks(en) and "{" not in zh
    assert numbers(zh) == numbers(en)
    # the GPU's memory is the capacity the parts fit in ("of 186 GiB"), not their total (共 186 GiB read as a sum)
    assert "（共" not in zh and "GiB 显存中" in zh, zh


# ---- errors ------------------------------------------------------------------------------------------
def _job(**changes):
    return parse_job({"model": "llama3-8b", "gpus": 16, "tp": 8, **changes})


A100 = DESIGNS["a100 2 nodes"]
ERRORS = {  # every one reachable from the web page or a link (the CLI-only ones are checked below)
    "too many gpus": lambda: estimate(plan(A100), _job(gpus=17)),
    "dp mismatch": lambda: estimate(plan(A100), _job(dp=4)),
    "split": lambda: estimate(plan(A100), _job(gpus=12)),
    "model parallel": lambda: estimate(plan(A100), _job(gpus=4)),
    "heads": lambda: estimate(plan(A100), _job(tp=3, gpus=15)),
    "stages": lambda: estimate(plan(A100), _job(tp=1, pp=16, vp=4)),
    "sequence": lambda: estimate(plan(A100), _job(tp=2, cp=3, gpus=12, seq_len=8192)),
    "dense": lambda: estimate(plan(A100), _job(ep=2)),
    "global batch": lambda: estimate(plan(A100), _job(global_batch=7)),
    "global batch small": lambda: estimate(plan(A100), _job(tp=1, global_batch=8)),
    "micro-batch": lambda: estimate(plan(A100), _job(tp=1, micro_batch=100_000, global_batch=1_000_000)),
    "memory": lambda: estimate(plan(A100), _job(model="llama3-405b")),
    "fp8": lambda: estimate(plan(A100), _job(precision="fp8")),
    "job too big": lambda: jobform.job_from_settings(plan(A100), {**DEFAULTS, "tp": 64}),
    "placement": lambda: place(plan(A100), 64, 2),
    "nvls old": lambda: collective(plan(A100), "all-reduce", "1GiB", algorithm="nvls"),
    "nvls op": lambda: collective(plan(DESIGNS["h100 ib"]), "all-gather", "1GiB", algorithm="nvls"),
    "sharp one domain": lambda: collective(plan(DESIGNS["h100 ib"]), "all-reduce", "1GiB", gpus=8, algorithm="sharp"),
    "hierarchical": lambda: collective(plan(DESIGNS["h100 ib"]), "all-reduce", "1GiB", gpus=8,
                                       algorithm="hierarchical"),
    "not implemented": lambda: collective(plan(DESIGNS["h100 ib"]), "broadcast", "1GiB", algorithm="hierarchical"),
    "size": lambda: parse_size("12 parsecs"),
    "size too big": lambda: parse_size("2TiB"),
    "size fraction": lambda: parse_size("1.5"),
    "size negative": lambda: parse_size("-5"),
    "ranks": lambda: place(plan(A100), 1),
}


def _raise(make) -> FabricPlannerError:
    with pytest.raises(FabricPlannerError) as info:
        make()
    return info.value


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_in_each_language(name):
    with language("zh"):
        zh = _raise(ERRORS[name])
    en = _raise(ERRORS[name])
    assert type(zh) is type(en)
    assert CJK.search(str(zh)) and not leaks_zh(str(zh)), leaks_zh(str(zh))
    assert not chinese_leaks(str(en))
    assert numbers(str(zh)) == numbers(str(en))
    if isinstance(en, DesignError):
        assert en.suggestion and zh.suggestion and CJK.search(zh.suggestion)


def test_cli_only_errors_keep_flags_and_keys():
    """The CLI's messages keep its flag and the custom architecture's keys (what the user types)."""
    eth = plan(DESIGNS["h100 ethernet"])
    with language("zh"):
        sharp = _raise(lambda: collective(eth, "all-reduce", "1GiB", algorithm="sharp"))
        heads = _raise(lambda: parse_job({"model": {"layers": 2, "hidden": 128, "ffn": 10, "heads": 3,
                                                    "kv_heads": 2, "vocab": 10}}))
        unknown = _raise(lambda: sweep(eth, "all-sum", [8]))
    assert "--fabric infiniband" in str(sharp) and "以太网" in str(sharp)
    assert "kv_heads" in str(heads) and "整数倍" in str(heads)
    assert isinstance(unknown, InputError) and "未知的集合通信操作 'all-sum'" in str(unknown)


def test_forced_algorithm_notes():
    p = plan(DESIGNS["h100 ethernet"])
    with language("zh"):
        zh = sweep(p, "all-reduce", [2**20], algorithms=("ring", "sharp")).notes
    en = sweep(p, "all-reduce", [2**20], algorithms=("ring", "sharp")).notes
    assert en == ["sharp needs an InfiniBand switch with SHARP and a job spanning NVLink domains"]
    assert len(zh) == 1 and CJK.search(zh[0]) and not leaks_zh(zh[0])


# ---- labels ------------------------------------------------------------------------------------------
def test_display_labels():
    from core.perf.algorithms import NCCL_NAMES

    ids = {"algorithm": ["ring", "tree", "nvls", "pat", "sharp", "hierarchical", "direct", "p2p"],
           "level": ["nvlink", "leaf", "spine", "core", "fabric"],
           "memory": ["weights", "gradients", "optimizer", "activations"],
           "kind": ["TP", "CP", "PP", "DP", "DP (experts)", "EP"],
           "collective": ["all-gather + reduce-scatter", "send/recv (ring attention)", "send/recv", "all-to-all"]}
    functions = {"algorithm": algorithm_label, "level": level_label, "memory": memory_label,
                 "kind": parallelism_label, "collective": comm_collective_label}
    for kind, values in ids.items():
        label = functions[kind]
        # English shows the ids as before, but NCCL's names as NCCL writes them (NVLS, PAT)
        assert [label(v) for v in values] == [NCCL_NAMES.get(v, v) if kind == "algorithm" else v for v in values]
        with language("zh"):
            shown = [label(v) for v in values]
            assert label("unknown-id") == "unknown-id"
        assert not leaks_zh(" ".join(shown)), (kind, shown)
    with language("zh"):
        assert algorithm_label("hierarchical") == "分层" and algorithm_label("ring") == "ring"
        assert algorithm_label("nvls") == "NVLS" and algorithm_label("pat") == "PAT"
        assert level_label("leaf") == "叶交换机" and level_label("nvlink") == "NVLink"
        assert memory_label("optimizer") == "优化器状态"
