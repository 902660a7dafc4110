"""The Inference page's deployment in a share link: the ``inf_`` extension of the share-link codec.

The page serves a model on the sidebar's design (``core.perf.serving``). Keys: ``inf_model`` a
``core.perf.training.PRESETS`` key, ``inf_mode`` aggregated | disaggregated, ``inf_prec`` the weights'
precision (bf16 | fp8 | fp4), ``inf_kvp`` the KV cache's (bf16 | fp8), ``inf_in`` / ``inf_out`` input and
output tokens per request, ``inf_hit`` the prefix-cache hit rate (0 to below 1), ``inf_load`` the load
(``none``: the busier pool at the default utilisation; ``rate``: ``inf_rate`` requests/s; ``conc``: ``inf_conc``
requests in flight), ``inf_ttft`` / ``inf_tpot`` the targets [ms] (0: none), and per pool (``p`` prefill,
``d`` decode) its nodes and split: ``inf_pn``, ``inf_ptp``, ``inf_pdp``, ``inf_pep``, ``inf_ppp``, ``inf_prx``
(redundant experts) and the same with ``d``; ``0`` = chosen by the page for the design (``webui.inference``).

The limits are the serving model's own (``Workload`` and ``PoolSplit``'s fields): a value the model would refuse
is one warning (``decode``) and the default is used; ``decode(encode(v))[0] == v``.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, get_args

from pydantic import BaseModel, ValidationError

from core.design import tidy_spaces
from core.formats import sharelink
from core.i18n import N_, _
from core.units import span
from core.perf.serving import AUTO_PRECISION, KvPrecision, Mode, PoolSplit, PrecisionSetting, Workload
from core.perf.servingform import AUTO, SPLIT_FIELDS
from core.perf.training import PRESETS

PREFIX = "inf_"
LOADS = ("none", "rate", "conc")
"""How the load is given: none (the default utilisation), a request rate, a concurrency."""
POOLS = ("p", "d")
"""Link letters of the prefill and the decode pool."""


def bounds(model: type[BaseModel], name: str) -> tuple[float, bool, float, bool]:
    """(lowest, whether it is excluded, highest, whether it is excluded) a pydantic field accepts, from its
    constraints (``ge``/``gt``, ``le``/``lt``)."""
    low, low_open, high, high_open = 0.0, False, 0.0, False
    for m in model.model_fields[name].metadata:
        if getattr(m, "ge", None) is not None or getattr(m, "gt", None) is not None:
            low_open = getattr(m, "ge", None) is None
            low = m.gt if low_open else m.ge
        if getattr(m, "le", None) is not None or getattr(m, "lt", None) is not None:
            high_open = getattr(m, "le", None) is None
            high = m.lt if high_open else m.le
    return low, low_open, high, high_open


FIELDS = {"in": (Workload, "input_tokens"), "out": (Workload, "output_tokens"), "hit": (Workload, "cache_hit"),
          "rate": (Workload, "rate"), "conc": (Workload, "concurrency"), "ttft": (Workload, "ttft_ms"),
          "tpot": (Workload, "tpot_ms"), **{pool + key: (PoolSplit, field) for pool in POOLS
                                            for key, field in SPLIT_FIELDS.items()}}
"""Numeric link key -> (model, field) whose constraints are its limits."""


def widget_limits(key: str) -> tuple[float, float]:
    """(least, most) an input box of numeric setting ``key`` offers: the field's limits, an excluded end moved in
    to the next float (every value the link accepts fits the box); 0 for the settings where 0 means "not set"
    (targets, pool nodes and splits)."""
    low, low_open, high, high_open = bounds(*FIELDS[key])
    if key in ("ttft", "tpot") or FIELDS[key][0] is PoolSplit:
        low, low_open = 0, False
    return (math.nextafter(low, math.inf) if low_open else low), (math.nextafter(high, -math.inf) if high_open
                                                                   else high)


def _text(value: float) -> str:
    """A limit as written in a warning: ``1,000,000``, ``0.5``."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"


def _accepted(model: type[BaseModel], name: str, zero: str = "") -> str:
    """The values field ``name`` of ``model`` accepts, in words of the current language (``zero``: what 0 means)."""
    low, low_open, high, high_open = bounds(model, name)
    template = (_("more than {low}, up to {high}") if low_open else
                _("{low} to less than {high}") if high_open else None)
    text = template.format(low=_text(low), high=_text(high)) if template else span(_text(low), _text(high))
    return tidy_spaces(_("{zero} or {range}").format(zero=zero, range=text)) if zero else text


def _field(model: type[BaseModel], name: str, whole: bool, zero_means: bool) -> Any:
    """A parser of one number that ``model`` validates as its field ``name`` (one truth for the limits); ``0`` is
    accepted as "not set" when ``zero_means``."""
    def parse(text: str):
        try:
            value = int(sharelink.number_text(text)) if whole else float(sharelink.number_text(text))
        except ValueError:
            raise sharelink.ParamError(_("not a whole number") if whole else _("not a number")) from None
        if zero_means and value == 0:
            return 0 if whole else 0.0
        try:
            model.model_validate({name: value})
        except ValidationError:
            raise sharelink.ParamError(_("out of range")) from None
        return value
    return parse


def _number(key: str, name: str, model, field: str, default, whole: bool, zero: str = "") -> sharelink.Param:
    """A numeric link parameter checked as ``model``'s ``field`` (``zero``: what 0 means, when it is allowed)."""
    fmt = str if whole else sharelink.format_number
    return sharelink.Param(key, name, _field(model, field, whole, bool(zero)), fmt, default,
                           lambda: _accepted(model, field, _(zero) if zero else ""))


def _choice(key: str, name: str, choices, default: str) -> sharelink.Param:
    """A link parameter that is one of ``choices`` (ids, the same in every language)."""
    return sharelink.Param(key, name, sharelink.parse_choice(list(choices)), str, default, ", ".join(choices))


AUTO_WORD = N_("0 (chosen for the design)")
NO_TARGET = N_("0 (no target)")
POOL_NAMES = {
    "p": {"n": N_("prefill nodes"), "tp": N_("prefill tp"), "dp": N_("prefill dp"), "ep": N_("prefill ep"),
          "pp": N_("prefill pp"), "rx": N_("prefill redundant experts")},
    "d": {"n": N_("decode nodes"), "tp": N_("decode tp"), "dp": N_("decode dp"), "ep": N_("decode ep"),
          "pp": N_("decode pp"), "rx": N_("decode redundant experts")},
}
DEFAULT_MODEL = "llama3.3-70b"


def _pool_params() -> list[sharelink.Param]:
    """Nodes and split of both pools, 0 = chosen for the design."""
    return [_number(pool + key, POOL_NAMES[pool][key], PoolSplit, field, AUTO, True, AUTO_WORD)
            for pool in POOLS for key, field in SPLIT_FIELDS.items()]


SERVING = sharelink.register_extension(PREFIX, [
    _choice("model", N_("served model"), PRESETS, DEFAULT_MODEL),
    _choice("mode", N_("serving mode"), get_args(Mode), "disaggregated"),
    _choice("prec", N_("weight precision"), get_args(PrecisionSetting), AUTO_PRECISION),
    _choice("kvp", N_("KV-cache precision"), get_args(KvPrecision), "bf16"),
    _number("in", N_("input tokens"), Workload, "input_tokens", 2000, True),
    _number("out", N_("output tokens"), Workload, "output_tokens", 500, True),
    _number("hit", N_("prefix-cache hit rate"), Workload, "cache_hit", 0.0, False),
    _choice("load", N_("load"), LOADS, "none"),
    _number("rate", N_("request rate [requests/s]"), Workload, "rate", 10.0, False),
    _number("conc", N_("concurrency [requests]"), Workload, "concurrency", 256, True),
    _number("ttft", N_("TTFT target [ms]"), Workload, "ttft_ms", 2000.0, False, NO_TARGET),
    _number("tpot", N_("TPOT target [ms]"), Workload, "tpot_ms", 50.0, False, NO_TARGET),
    *_pool_params(),
])
DEFAULTS = {p.key: p.default for p in SERVING.params}


def decode(params: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Every setting (the default where absent or refused) and one warning per refused value, in the current
    language."""
    return SERVING.decode(params)


def encode(values: Mapping[str, Any]) -> dict[str, str]:
    """The settings that differ from the defaults, as link parameters."""
    return SERVING.encode(values)


def owns(key: str) -> bool:
    """Whether link key ``key`` is one of the page's."""
    return key.startswith(PREFIX)
