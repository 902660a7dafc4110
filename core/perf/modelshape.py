"""A custom model by its shape: the fields the CLI, the Performance page and its share link take, declared once.

``SHAPE_FIELDS`` lists every ``ModelSpec`` field a person can set (name, kind, bounds, help text); the CLI's
options (``--layers`` ... ``--v-head-dim``), the page's inputs and the link's ``perf_arch`` value are made
from it. ``build_model`` turns the values given into a ``ModelSpec`` (the attention kind MHA / GQA / MLA
checked against the dimensions given), ``encode_shape`` / ``decode_shape`` write and read the link's compact
form ``layers:80,hidden:8192,...`` (field names as ``ModelSpec`` spells them). Every bad value is an
``InputError`` naming the field and what it accepts.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError

from core.errors import InputError, shown
from core.i18n import N_, _
from core.units import span
from core.perf.training import ACTIVATION_MATRICES, ModelSpec

ATTENTION_KINDS = ("mha", "gqa", "mla")
"""Attention kinds: multi-head (as many key/value heads as heads), grouped-query, multi-head latent (DeepSeek)."""
ATTENTION_LABELS = {"mha": N_("multi-head (MHA)"), "gqa": N_("grouped-query (GQA)"),
                    "mla": N_("multi-head latent (MLA)")}
ACTIVATION_LABELS = {"swiglu": N_("SwiGLU (3 matrices)"), "gelu": N_("GELU (2 matrices)"),
                     "relu2": N_("squared ReLU (2 matrices)")}
CUSTOM = "custom"
"""The model name (and the link's ``perf_model`` value) of a model given by its shape."""
MAX_SHAPE_CHARS = 600
"""Longest ``perf_arch`` value [characters] the link accepts."""


@dataclass(frozen=True)
class ShapeField:
    """One setting of a custom model: ``name`` as ``ModelSpec`` spells it, ``kind`` (int, bool or choice),
    bounds of an int, ``group`` (core: needed; attention; moe), ``help`` (English, marked)."""

    name: str
    kind: str
    help: str
    group: str = "core"
    low: int = 0
    high: int = 1_000_000

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


SHAPE_FIELDS: tuple[ShapeField, ...] = (
    ShapeField("layers", "int", N_("transformer layers"), low=1, high=1000),
    ShapeField("hidden", "int", N_("hidden size"), low=64, high=200_000),
    ShapeField("ffn", "int", N_("MLP width"), low=1),
    ShapeField("heads", "int", N_("attention heads"), low=1, high=4096),
    ShapeField("kv_heads", "int", N_("key/value heads (default: as many as heads)"), "attention", 1, 4096),
    ShapeField("vocab", "int", N_("vocabulary"), low=1, high=10_000_000),
    ShapeField("activation", "choice", N_("MLP activation: swiglu (3 matrices), gelu or relu2 (2 matrices)"),
               "mlp"),
    ShapeField("tied_embeddings", "bool", N_("input and output embeddings share weights"), "mlp"),
    ShapeField("head_size", "int", N_("per-head dimension when not hidden / heads"), "attention", 0, 4096),
    ShapeField("attention", "choice", N_("attention kind: mha, gqa or mla (default from the heads given)"),
               "attention"),
    ShapeField("q_lora_rank", "int", N_("MLA: query low-rank dimension (0 = full query projection)"), "attention"),
    ShapeField("kv_lora_rank", "int", N_("MLA: key/value latent dimension"), "attention"),
    ShapeField("qk_nope_dim", "int", N_("MLA: per-head query/key dimension without position encoding"), "attention",
               0, 4096),
    ShapeField("qk_rope_dim", "int", N_("MLA: per-head query/key dimension with rotary position encoding"),
               "attention", 0, 4096),
    ShapeField("v_head_dim", "int", N_("MLA: per-head value dimension"), "attention", 0, 4096),
    ShapeField("sliding_window", "int", N_("tokens a sliding-window attention layer attends to (0 = none)"),
               "attention", 0, 10_000_000),
    ShapeField("sliding_layers", "int", N_("layers with sliding-window attention"), "attention", 0, 1000),
    ShapeField("dropout", "bool", N_("dropout after attention and MLP (its masks are kept for backward)"), "mlp"),
    ShapeField("moe_layers", "int", N_("layers whose MLP is a mixture of experts (default: every layer after the "
                                       "first dense ones)"), "moe", 0, 1000),
    ShapeField("experts", "int", N_("routed experts per MoE layer"), "moe", 0, 100_000),
    ShapeField("top_k", "int", N_("experts per token"), "moe", 0, 1024),
    ShapeField("shared_experts", "int", N_("always-on shared experts"), "moe", 0, 1024),
    ShapeField("moe_ffn", "int", N_("expert MLP width"), "moe"),
    ShapeField("first_dense_layers", "int", N_("dense layers before the first MoE layer"), "moe", 0, 1000),
)
"""Every setting of a custom model, in the order the CLI's help, the page and the link list them."""
FIELDS = {f.name: f for f in SHAPE_FIELDS}
REQUIRED = ("layers", "hidden", "ffn", "heads", "vocab")
"""Settings a custom model cannot do without."""
CHOICES = {"activation": tuple(ACTIVATION_MATRICES), "attention": ATTENTION_KINDS}
CHOICE_LABELS = {"activation": ACTIVATION_LABELS, "attention": ATTENTION_LABELS}
"""Each choice's words (English, marked: show ``_(CHOICE_LABELS[field][value])``)."""


def _value(f: ShapeField, raw) -> object:
    """``raw`` (text or a value) as ``f`` takes it; ``InputError`` naming the field and what it accepts."""
    if f.kind == "bool":
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise InputError(_("custom model: {field} is {value}; use 1 or 0").format(field=f.name, value=shown(raw)))
    if f.kind == "choice":
        text = str(raw).strip().lower()
        if text not in CHOICES[f.name]:
            raise InputError(_("custom model: {field} is {value}; use one of {choices}").format(
                field=f.name, value=shown(raw), choices=", ".join(CHOICES[f.name])))
        return text
    try:
        number = int(str(raw).strip()) if not isinstance(raw, int) or isinstance(raw, bool) else raw
    except ValueError:
        number = None
    if number is None or not f.low <= number <= f.high:
        raise InputError(_("custom model: {field} is {value}; use a whole number from {range}").format(
            field=f.name, value=shown(raw), range=span(f"{f.low:,}", f"{f.high:,}")))
    return number


def build_model(values: dict, name: str = CUSTOM) -> ModelSpec:
    """The ``ModelSpec`` of a custom model from ``values`` (``SHAPE_FIELDS`` names; None or absent = not given).

    Defaults: ``kv_heads`` = ``heads`` (MHA, also for MLA); ``moe_layers`` = every layer after
    ``first_dense_layers`` when ``experts`` is given; ``moe_ffn`` = ``ffn``. ``attention``, when given, is checked
    against the rest: mha needs kv_heads = heads, gqa fewer key/value heads, mla its latent dimensions.
    ``InputError`` names the field and the fix.
    """
    given = {k: _value(FIELDS[k], v) for k, v in values.items() if k in FIELDS and v is not None and v != ""}
    unknown = [k for k in values if k not in FIELDS]
    if unknown:
        raise InputError(_("custom model: unknown setting {name}; settings: {names}").format(
            name=shown(unknown[0]), names=", ".join(FIELDS)))
    missing = [FIELDS[k].option for k in REQUIRED if k not in given]
    if missing:
        raise InputError(_("a custom model needs {needed}; missing: {missing}").format(
            needed=" ".join(FIELDS[k].option for k in REQUIRED), missing=", ".join(missing)))
    attention = given.pop("attention", None)
    given.setdefault("kv_heads", given["heads"])
    if given.get("experts"):
        given.setdefault("moe_layers", given["layers"] - given.get("first_dense_layers", 0))
        given.setdefault("moe_ffn", given["ffn"])
    _check_attention(attention, given)
    try:
        return ModelSpec(name=name, **given)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error.get("loc", ()))
        problem = error["msg"].removeprefix("Value error, ")
        raise InputError(_("custom model: {problem}").format(
            problem=f"{where}: {problem}" if where else problem)) from None


def _check_attention(attention: str | None, given: dict) -> None:
    """``InputError`` when the attention kind given does not match the dimensions given."""
    if attention == "mha" and given["kv_heads"] != given["heads"]:
        raise InputError(_("custom model: attention mha has as many key/value heads as heads ({heads}), not "
                           "kv_heads = {kv}; use attention gqa or leave kv_heads out").format(
            heads=given["heads"], kv=given["kv_heads"]))
    if attention == "gqa" and given["kv_heads"] >= given["heads"]:
        raise InputError(_("custom model: attention gqa needs fewer key/value heads than heads ({heads}); set "
                           "kv_heads").format(heads=given["heads"]))
    mla = ("kv_lora_rank", "qk_nope_dim", "qk_rope_dim", "v_head_dim")
    if attention == "mla" and not all(given.get(k) for k in mla):
        raise InputError(_("custom model: attention mla needs {needed}; missing: {missing}").format(
            needed=" ".join(FIELDS[k].option for k in mla),
            missing=", ".join(FIELDS[k].option for k in mla if not given.get(k))))
    if attention in ("mha", "gqa") and given.get("kv_lora_rank"):
        raise InputError(_("custom model: kv_lora_rank is latent attention's; use attention mla or leave it out"))


def shape_values(spec: ModelSpec) -> dict:
    """The ``SHAPE_FIELDS`` values of ``spec`` (``attention`` and ``activation`` spelled out)."""
    values = {f.name: getattr(spec, f.name) for f in SHAPE_FIELDS if f.name not in ("attention", "activation")}
    values["attention"] = spec.attention_kind
    values["activation"] = spec.mlp_kind
    if values["first_dense_layers"] is None:
        values["first_dense_layers"] = spec.layers - spec.moe_layers if spec.is_moe else 0
    return values


def encode_shape(spec: ModelSpec) -> str:
    """``spec`` in the link's compact form ``name:value,...`` (``SHAPE_FIELDS`` order; zeros and off left out,
    except the required fields)."""
    values = shape_values(spec)
    parts = []
    for f in SHAPE_FIELDS:
        value = values[f.name]
        if f.name in REQUIRED or (value and f.name != "attention"):
            parts.append(f"{f.name}:{int(value) if f.kind == 'bool' else value}")
    return ",".join(parts)


def decode_shape(text: str) -> ModelSpec:
    """The ``ModelSpec`` of a compact form (``encode_shape``); ``InputError`` naming the bad part."""
    if len(text) > MAX_SHAPE_CHARS:
        raise InputError(_("custom model: longer than {limit} characters").format(limit=MAX_SHAPE_CHARS))
    values: dict = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition(":")
        if not sep:
            raise InputError(_("custom model: {part} is not name:value").format(part=shown(part)))
        values[name.strip()] = value
    return build_model(values)
