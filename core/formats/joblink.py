"""The Performance page's settings in a share link: the ``perf_`` extension of the share-link codec.

Keys are short and stable (links in the wild depend on them): ``perf_op`` collectives,
``perf_model`` training model, ``perf_tp`` ... . ``JOB.decode(params)`` gives every value
(defaults where absent or bad) and one warning per bad value; ``JOB.encode(values)`` writes only
what differs from the defaults.
"""

from __future__ import annotations

from core.formats import sharelink
from core.perf.collectives import OPS
from core.perf.training import MAX_GLOBAL_BATCH, PRESETS

COMPARE_FABRICS = {
    "eth2": ("Ethernet RoCE, 2:1", dict(fabric="ethernet", oversubscription=2.0)),
    "eth1": ("Ethernet RoCE, non-blocking", dict(fabric="ethernet", oversubscription=1.0)),
    "ib1": ("InfiniBand, non-blocking", dict(fabric="infiniband", oversubscription=1.0)),
    "ib2": ("InfiniBand, 2:1", dict(fabric="infiniband", oversubscription=2.0)),
}
"""Second fabric the Performance page compares the job on: key -> (label, design changes)."""


def parse_ops(text: str) -> tuple[str, ...]:
    """``"all-reduce,all-to-all"`` -> the collectives, in order, without repeats."""
    values = tuple(dict.fromkeys(v.strip().lower() for v in text.split(",") if v.strip()))
    if not values or any(v not in OPS for v in values):
        raise sharelink.ParamError("not a list of collectives")
    return values


LIMITS = {"seq": (128, 1_048_576), "gbs": (1, MAX_GLOBAL_BATCH), "mbs": (1, 64), "tp": (1, 64), "pp": (1, 128),
          "cp": (1, 64), "ep": (1, 1024), "vp": (1, 64)}
"""Accepted range of each whole-number setting (the link and the page's inputs share it)."""


def _whole(key: str, name: str, default: int) -> sharelink.Param:
    low, high = LIMITS[key]
    return sharelink.Param(key, name, sharelink.parse_int(low, high), str, default, f"{low:,} to {high:,}")


P = sharelink.Param
JOB = sharelink.register_extension("perf_", [
    P("op", "collectives", parse_ops, ",".join, ("all-reduce",), "comma-separated: " + ", ".join(OPS)),
    P("all", "show every algorithm", sharelink.parse_choice(["1", "0"]), str, "1", "1 or 0"),
    P("jg", "collective GPUs (0 = all)", sharelink.parse_int(0, 1_000_000), str, 0, "0 to 1,000,000"),
    P("model", "model", sharelink.parse_choice(list(PRESETS)), str, "llama3-70b", ", ".join(PRESETS)),
    _whole("seq", "sequence length", 8192),
    _whole("gbs", "global batch", 512),
    _whole("mbs", "micro-batch", 1),
    P("prec", "precision", sharelink.parse_choice(["bf16", "fp8"]), str, "bf16", "bf16 or fp8"),
    _whole("tp", "tensor parallel", 8),
    _whole("pp", "pipeline parallel", 4),
    _whole("cp", "context parallel", 1),
    _whole("ep", "expert parallel", 1),
    _whole("vp", "virtual pipeline stages", 1),
    P("tg", "training GPUs (0 = all that fit)", sharelink.parse_int(0, 1_000_000), str, 0, "0 to 1,000,000"),
    P("tok", "tokens to train [T]", sharelink.parse_float(0.001, 1000.0), sharelink.format_number, 1.0,
      "0.001 to 1000 (trillions)"),
    P("eff", "achievable FLOP/s fraction (0 = default)", sharelink.parse_float(0.0, 1.0), sharelink.format_number,
      0.0, "0 to 1"),
    P("cmp", "comparison fabric", sharelink.parse_choice(list(COMPARE_FABRICS)), str, "eth2",
      ", ".join(COMPARE_FABRICS)),
])
DEFAULTS = {p.key: p.default for p in JOB.params}
