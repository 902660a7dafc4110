"""The Performance page's settings in a share link: the ``perf_`` extension of the share-link codec.

Keys are short and stable (links in the wild depend on them): ``perf_op`` collectives,
``perf_model`` training model, ``perf_tp`` ... ; ``perf_cmp`` the comparison (a preset fabric or
``url``), ``perf_cmpl`` the compared design's share link (at most ``MAX_COMPARE_LINK`` characters),
``perf_rt`` the routing class (``auto`` = the design's), ``perf_pl`` the rank placement,
``perf_sharp`` InfiniBand SHARP (off by default, as in a stock NCCL), ``perf_nccl`` the NCCL release
modelled (one of ``NCCL_RELEASES``; the current stock release by default), ``perf_zg`` gradient
sharding (ZeRO-2 / FSDP, off by default), ``perf_zero`` the ZeRO stage (``auto`` = from ``perf_zg``:
1 or 2; 0-3, 3 = FSDP full sharding), ``perf_off`` CPU offload (``none`` or ``optimizer``: ZeRO-Offload), ``perf_cpc`` the context-parallel exchange (ring or all-to-all); ``perf_model=custom`` with ``perf_arch`` a model by its shape
(``core.perf.modelshape``: ``layers:80,hidden:8192,...``; empty = the default preset's shape). ``JOB.decode(params)`` gives every value
(defaults where absent or bad; the job's defaults are ``core.perf.training``'s ``DEFAULT_*``, and the model, tp,
pp and global batch a link leaves out are fitted to the design by ``core.perf.jobform.fitted_defaults``) and one warning per bad value; ``JOB.encode(values)`` writes only
what differs from the defaults.
"""

from __future__ import annotations

from typing import get_args

from core.design import MAX_PODS
from core.errors import InputError
from core.formats import sharelink
from core.i18n import N_, _
from core.units import span
from core.perf.collectives import OPS
from core.perf.congestion import PLACEMENTS, ROUTINGS
from core.perf.constants import load_constants
from core.perf.modelshape import CUSTOM, MAX_SHAPE_CHARS, decode_shape, encode_shape
from core.perf.training import (CP_COMMS, DEFAULT_GLOBAL_BATCH, DEFAULT_MODEL, DEFAULT_PP, DEFAULT_SEQ_LEN, DEFAULT_TP,
                                MAX_GLOBAL_BATCH, OFFLOADS, PRESETS, ZERO_STAGES, Precision)

COMPARE_FABRICS = {
    "eth2": (N_("Ethernet RoCE 2:1"), dict(fabric="ethernet", oversubscription=2.0)),
    "eth1": (N_("Ethernet RoCE 1:1"), dict(fabric="ethernet", oversubscription=1.0)),
    "ib1": (N_("InfiniBand 1:1"), dict(fabric="infiniband", oversubscription=1.0)),
    "ib2": (N_("InfiniBand 2:1"), dict(fabric="infiniband", oversubscription=2.0)),
}
"""Second fabric the Performance page compares the job on: key -> (label, design changes); the labels say the
oversubscription as a ratio, short enough for the select's column at 1,024 px ("InfiniBand, non-" was cut).
The label is English, marked ``N_``: show it as ``_(COMPARE_FABRICS[key][0])``."""
def default_comparison(fabric: str, family: str = "clos") -> str:
    """The ``COMPARE_FABRICS`` key a design on ``fabric`` (``Resolved.fabric``) of family ``family`` (its
    ``FabricPlan.family``) is compared with while the user has not picked one: the other transport (InfiniBand
    designs against Ethernet RoCE 2:1, 1:1 on a family without leaves; every other fabric, a cloud's too, against
    non-blocking InfiniBand), never the design's own fabric."""
    return compare_choice("eth2" if fabric == "infiniband" else "ib1", family)


def compare_choices(family: str) -> tuple[str, ...]:
    """The ``COMPARE_CHOICES`` on a fabric of family ``family`` (a ``FabricPlan.family``): all of them where it has
    leaves to oversubscribe (``core.fabric.families.leaf_whatif``); else (a torus) the non-blocking ones and the
    share link, since the 2:1 rows would re-plan the same fabric as the 1:1 ones."""
    from core.fabric.families import leaf_whatif

    if leaf_whatif(family):
        return COMPARE_CHOICES
    return tuple(k for k in COMPARE_CHOICES if k == COMPARE_LINK or COMPARE_FABRICS[k][1]["oversubscription"] == 1.0)


def compare_choice(key: str | None, family: str) -> str:
    """``key`` (a ``COMPARE_CHOICES`` key, None: none) as one of ``compare_choices(family)``: a row the family cannot
    have becomes the same fabric's non-blocking one (``eth2`` -> ``eth1`` on a torus)."""
    choices = compare_choices(family)
    if key in choices:
        return key
    fabric = COMPARE_FABRICS.get(key, ("", {"fabric": "infiniband"}))[1]["fabric"]
    return next(k for k in choices if k != COMPARE_LINK and COMPARE_FABRICS[k][1]["fabric"] == fabric)


def compare_label(key: str, family: str) -> str:
    """The comparison row ``key``'s label, translated: ``COMPARE_FABRICS``' (its ratio too) where the family has
    leaves to oversubscribe, else the fabric's name alone (a torus: no ratio to choose)."""
    from core.fabric.families import leaf_whatif
    from core.vocab import FABRIC

    label, changes = COMPARE_FABRICS[key]
    return _(label) if leaf_whatif(family) else FABRIC.label(changes["fabric"])


COMPARE_LINK = "url"
"""``perf_cmp`` value: compare with the design of a pasted share link (``perf_cmpl``)."""
COMPARE_CHOICES = (*COMPARE_FABRICS, COMPARE_LINK)
MAX_COMPARE_LINK = 4000
"""Longest share link [characters] the comparison accepts (the link keeps it in ``perf_cmpl``)."""


def parse_compare_link(text: str) -> str:
    """A pasted share link (a whole URL or just its query), kept as given; bounded in length."""
    value = text.strip()
    if len(value) > MAX_COMPARE_LINK:
        raise sharelink.ParamError(_("longer than {limit} characters").format(limit=f"{MAX_COMPARE_LINK:,}"))
    if value and "=" not in value:
        raise sharelink.ParamError(_("not a share link"))
    return value


def parse_shape(text: str) -> str:
    """A custom model's shape (``core.perf.modelshape``), checked and written back in its canonical form."""
    if not text.strip():
        return ""
    try:
        return encode_shape(decode_shape(text))
    except InputError as exc:
        raise sharelink.ParamError(str(exc)) from None


ZERO_CHOICES = ("auto", *(str(z) for z in ZERO_STAGES))
"""``perf_zero`` values: ``auto`` (from ``perf_zg``) or a ZeRO stage."""


def parse_ops(text: str) -> tuple[str, ...]:
    """``"all-reduce,all-to-all"`` -> the collectives, in order, without repeats."""
    values = tuple(dict.fromkeys(v.strip().lower() for v in text.split(",") if v.strip()))
    if not values or any(v not in OPS for v in values):
        raise sharelink.ParamError(_("not a list of collectives"))
    return values


LIMITS = {"seq": (128, 1_048_576), "gbs": (1, MAX_GLOBAL_BATCH), "mbs": (1, 64), "tp": (1, 64), "pp": (1, 128),
          "cp": (1, 64), "ep": (1, 1024), "vp": (1, 64)}
"""Accepted range of each whole-number setting (the link and the page's inputs share it)."""


def _range(low: float, high: float, words: str | None = None):
    """``accepted`` of a numeric setting, worded when a warning is shown (in the language of that request)."""
    def describe() -> str:
        shown = span(f"{low:,}", f"{high:,}")
        return _(words).format(range=shown) if words is not None else shown
    return describe


def _whole(key: str, name: str, default: int) -> sharelink.Param:
    low, high = LIMITS[key]
    return sharelink.Param(key, name, sharelink.parse_int(low, high), str, default, _range(low, high))


NCCL_RELEASES: tuple[str, ...] = load_constants().nccl.releases
"""NCCL releases the page offers (collectives.toml ``[nccl] releases``; the first is the default)."""

P = sharelink.Param
JOB = sharelink.register_extension("perf_", [
    P("op", N_("collectives"), parse_ops, ",".join, ("all-reduce",),
      lambda: _("comma-separated: {collectives}").format(collectives=", ".join(OPS))),
    P("all", N_("show every algorithm"), sharelink.parse_choice(["1", "0"]), str, "1",
      lambda: _("{first} or {second}").format(first="1", second="0")),
    P("jg", N_("collective GPUs (0 = all)"), sharelink.parse_int(0, 1_000_000), str, 0, _range(0, 1_000_000)),
    P("model", N_("model"), sharelink.parse_choice([*PRESETS, CUSTOM]), str, DEFAULT_MODEL,
      ", ".join([*PRESETS, CUSTOM])),
    P("arch", N_("custom model"), parse_shape, str, "",
      lambda: _("name:value pairs such as {example}, at most {limit} characters").format(
          example="layers:32,hidden:4096,ffn:14336,heads:32,kv_heads:8,vocab:128256", limit=MAX_SHAPE_CHARS)),
    _whole("seq", N_("sequence length"), DEFAULT_SEQ_LEN),
    _whole("gbs", N_("global batch"), DEFAULT_GLOBAL_BATCH),
    _whole("mbs", N_("micro-batch"), 1),
    P("prec", N_("precision"), sharelink.parse_choice(list(get_args(Precision))), str, "bf16",
      lambda: ", ".join(get_args(Precision))),
    _whole("tp", N_("tensor parallel"), DEFAULT_TP),
    _whole("pp", N_("pipeline parallel"), DEFAULT_PP),
    _whole("cp", N_("context parallel"), 1),
    _whole("ep", N_("expert parallel"), 1),
    _whole("vp", N_("virtual pipeline stages"), 1),
    P("tg", N_("training GPUs (0 = all that fit)"), sharelink.parse_int(0, 1_000_000), str, 0,
      _range(0, 1_000_000)),
    P("tok", N_("tokens to train [T]"), sharelink.parse_float(0.001, 1000.0), sharelink.format_number, 1.0,
      _range(0.001, 1000, N_("{range} (trillions)"))),
    P("eff", N_("achievable FLOP/s fraction (0 = default)"), sharelink.parse_float(0.0, 1.0),
      sharelink.format_number, 0.0, _range(0, 1)),
    P("cmp", N_("comparison fabric"), sharelink.parse_choice(list(COMPARE_CHOICES)), str, "eth2",
      ", ".join(COMPARE_CHOICES)),
    P("cmpl", N_("comparison design (a share link)"), parse_compare_link, str, "",
      lambda: _("a share link of at most {limit} characters").format(limit=f"{MAX_COMPARE_LINK:,}")),
    P("rt", N_("routing"), sharelink.parse_choice(list(ROUTINGS)), str, "auto", ", ".join(ROUTINGS)),
    P("pl", N_("rank placement"), sharelink.parse_choice(list(PLACEMENTS)), str, "topo", ", ".join(PLACEMENTS)),
    P("sharp", N_("InfiniBand SHARP"), sharelink.parse_choice(["1", "0"]), str, "0",
      lambda: _("{first} or {second}").format(first="1", second="0")),
    P("zg", N_("gradient sharding (ZeRO-2 / FSDP)"), sharelink.parse_choice(["1", "0"]), str, "0",
      lambda: _("{first} or {second}").format(first="1", second="0")),
    P("cpc", N_("context-parallel exchange"), sharelink.parse_choice(list(CP_COMMS)), str, "ring",
      ", ".join(CP_COMMS)),
    P("zero", N_("ZeRO stage"), sharelink.parse_choice(list(ZERO_CHOICES)), str, "auto", ", ".join(ZERO_CHOICES)),
    P("off", N_("CPU offload"), sharelink.parse_choice(list(OFFLOADS)), str, "none", ", ".join(OFFLOADS)),
    P("pod", N_("pod the job runs on (a design with pods)"), sharelink.parse_int(1, MAX_PODS + 1), str, 1,
      _range(1, MAX_PODS + 1)),
    P("nccl", N_("NCCL release"), sharelink.parse_choice(list(NCCL_RELEASES)), str, NCCL_RELEASES[0],
      ", ".join(NCCL_RELEASES)),
])
DEFAULTS = {p.key: p.default for p in JOB.params}


def compare_design(text: str):
    """The design of a pasted share link (a whole URL or its query string) and the link's warnings.

    ``InputError`` when there is nothing to read or the link is too long; every bad value inside
    the link is a warning (``sharelink.decode``), worded in the language of the request. Returns
    ``(design, warnings)``.
    """
    from urllib.parse import parse_qsl, urlsplit

    from core.errors import InputError

    value = (text or "").strip()
    if not value:
        raise InputError(_("Paste a share link of the design to compare with."))
    try:
        value = parse_compare_link(value)
    except sharelink.ParamError as exc:
        raise InputError(_("The comparison link is {problem}.").format(problem=str(exc))) from None
    query = urlsplit(value).query if "?" in value else value.lstrip("?#")
    params: dict[str, str] = {}
    for key, item in parse_qsl(query, keep_blank_values=True, max_num_fields=sharelink.MAX_LINK_PARAMS + 1):
        params[key] = item
    if not params:
        raise InputError(_("The comparison link is {problem}.").format(problem=_("not a share link")))
    return sharelink.decode(params)
