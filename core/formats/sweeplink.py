"""The Sweep page's settings in a share link (the ``sw_`` extension), and the value lists people type.

Keys: ``sw_x`` the swept setting (a ``core.analysis.sweep.SETTINGS`` key, default ``oversubscription``),
``sw_xv`` its values, ``sw_y`` / ``sw_yv`` a second setting for a heatmap (empty: none), ``sw_m`` the
metric (a ``METRICS`` key, default ``capex_per_gpu_usd``), ``sw_sz`` the all-reduce size of the busbw
metric (default 1GiB). The design is the ordinary share link's; the training job of the job metrics
is the Performance page's ``perf_`` keys (``core.formats.joblink``).

A value list (``parse_values``) is comma-, semicolon- or space-separated (``1,1.5,2,3``; full-width
digits and commas read too), or a range ``start:stop:step`` with both ends included
(``64:512:64``). Commas always separate values here: ``1,024`` is two values, write ``1024``.

``decode(params)`` never raises on user input: a bad value is one warning (escaped, at most 40
characters of it echoed) and the default is used; values that do not fit the chosen setting fall back
to that setting's ``DEFAULT_VALUES``. ``decode(encode(s))[0] == s``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Mapping

from core.analysis.sweep import CATEGORICAL, MAX_POINTS, METRICS, SETTINGS, check_values
from core.errors import InputError, shown
from core.formats import sharelink
from core.i18n import N_, _
from core.perf.sizes import format_size, parse_size

GIB = 1 << 30
MAX_TEXT = 1000
"""Longest value list read [characters]."""

DEFAULT_VALUES: dict[str, tuple] = {
    "nodes": (16, 32, 64, 128, 256, 512, 1024),
    "gpus": (256, 512, 1024, 2048, 4096, 8192),
    "oversubscription": (1.0, 1.5, 2.0, 3.0),
    "spine_oversubscription": (1.0, 2.0, 3.0, 4.0),
    "port_speed": (200, 400, 800),
    "uplink_speed": (400, 800),
    "planes": (1, 2, 4),
    "nics_per_node": (2, 4, 8),
    "global_ratio": (0.5, 1.0, 2.0),
    "group_leaves": (8, 16, 32),
    "torus_dims": ("4x4x4", "2x4x8", "8x8"),  # shapes of 64 nodes (512 GPUs of 8: the torus's example link)
    "nvlink_domain": (72, 144, 288, 576),
    "nvlink_rack": (36, 72),
}
"""Values a setting sweeps when none are given (categorical settings not listed: every choice, the ``Design``
field's declared values for fabric, topology, tiers and plane mode)."""


def default_values(setting: str) -> tuple:
    if setting in DEFAULT_VALUES:
        return DEFAULT_VALUES[setting]
    return tuple(SETTINGS[setting].values() or ())[:MAX_POINTS]


_SPLIT = re.compile(r"[,;\s]+")
_RANGE = re.compile(r"^([^:]+):([^:]+):([^:]+)$")


def parse_values(setting: str, text: str) -> tuple:
    """The values of ``setting`` in ``text`` (see the module docstring), typed and checked; ``InputError``
    naming what is wrong."""
    if setting not in SETTINGS:
        raise InputError(_("{setting} cannot be swept; choose one of {settings}.").format(
            setting=shown(setting), settings=", ".join(SETTINGS)))
    if len(text) > MAX_TEXT:
        raise InputError(_("a value list of at most {count} characters").format(count=MAX_TEXT))
    normal = unicodedata.normalize("NFKC", text).strip()
    match = _RANGE.match(normal.replace(" ", ""))
    if match and SETTINGS[setting].kind != CATEGORICAL:
        try:
            start, stop, step = (float(v) for v in match.groups())
        except ValueError:
            raise InputError(_("{text} is not a range start:stop:step").format(text=shown(text))) from None
        if step <= 0 or stop < start:
            raise InputError(_("a range start:stop:step needs start <= stop and a step above 0"))
        count = int((stop - start) / step + 1e-9) + 1
        if count > MAX_POINTS:
            raise InputError(_("at most {count} values of {setting}, not {given}").format(
                count=MAX_POINTS, setting=setting, given=count))
        items: list[Any] = [round(start + i * step, 10) for i in range(count)]
    else:
        items = [item for item in _SPLIT.split(normal) if item]
    return check_values(setting, items)


def format_values(values) -> str:
    return ",".join(sharelink.format_number(v) if isinstance(v, (int, float)) else str(v) for v in values)


def _parse_setting(optional: bool):
    def parse(text: str) -> str:
        text = text.strip()
        if optional and not text:
            return ""
        if text not in SETTINGS:
            raise sharelink.ParamError(_("not a setting that can be swept"))
        return text
    return parse


def _parse_metric(text: str) -> str:
    if text.strip() not in METRICS:
        raise sharelink.ParamError(_("not a sweep metric"))
    return text.strip()


def _parse_text(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise sharelink.ParamError(_("longer than {count} characters").format(count=MAX_TEXT))
    return text


def _parse_size(text: str) -> int:
    try:
        return parse_size(text)
    except InputError as exc:
        raise sharelink.ParamError(str(exc)) from None


P = sharelink.Param
SWEEP = sharelink.register_extension("sw_", [
    P("x", N_("swept setting"), _parse_setting(False), str, "oversubscription", lambda: ", ".join(SETTINGS)),
    P("xv", N_("values of the swept setting"), _parse_text, str, "",
      lambda: _("values separated by commas, or start:stop:step")),
    P("y", N_("second swept setting"), _parse_setting(True), str, "",
      lambda: _("empty (none) or one of {settings}").format(settings=", ".join(SETTINGS))),
    P("yv", N_("values of the second setting"), _parse_text, str, "",
      lambda: _("values separated by commas, or start:stop:step")),
    P("m", N_("sweep metric"), _parse_metric, str, "capex_per_gpu_usd", lambda: ", ".join(METRICS)),
    P("sz", N_("all-reduce message size"), _parse_size, format_size, GIB, "1 B to 1 TiB, e.g. 1GiB"),
])


def decode(params: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The sweep's settings: ``x``, ``xv`` (typed values), ``y`` ("" for none), ``yv``, ``m``, ``sz``; and one
    warning per bad value (in the current language)."""
    raw, warnings = SWEEP.decode(params)
    values = {"x": raw["x"], "y": raw["y"], "m": raw["m"], "sz": raw["sz"]}
    if values["y"] == values["x"]:
        warnings.append(_("Link parameter 'sw_y' ({name}) = '{value}' was ignored: it is the first swept setting "
                          "too.").format(name=_("second swept setting"), value=values["y"]))
        values["y"] = ""
    for axis, key in (("x", "xv"), ("y", "yv")):
        setting = values[axis]
        if not setting:
            values[key] = ()
            continue
        text = raw[key]
        if not text.strip():
            values[key] = default_values(setting)
            continue
        try:
            values[key] = parse_values(setting, text)
        except InputError as exc:
            shown_text = text if len(text) <= 40 else text[:40] + "..."
            warnings.append(_("Link parameter '{key}' ({name}) = '{value}' was ignored: {problem}. Accepted: "
                              "{accepted}.").format(key="sw_" + key, name=_(SWEEP.params[1 if axis == "x" else 3].name),
                                                   value=shown_text, problem=str(exc),
                                                   accepted=_("values separated by commas, or start:stop:step")))
            values[key] = default_values(setting)
    return values, warnings


def encode(values: Mapping[str, Any]) -> dict[str, str]:
    """The settings that differ from the defaults, as link parameters (values written whenever a setting is)."""
    raw = {"x": values["x"], "y": values.get("y") or "", "m": values["m"], "sz": values.get("sz", GIB),
           "xv": format_values(values.get("xv") or ()), "yv": format_values(values.get("yv") or ())}
    if tuple(values.get("xv") or ()) == tuple(default_values(values["x"])):
        raw["xv"] = ""
    if raw["y"] and tuple(values.get("yv") or ()) == tuple(default_values(raw["y"])):
        raw["yv"] = ""
    return SWEEP.encode(raw)


def defaults() -> dict[str, Any]:
    return decode({})[0]
