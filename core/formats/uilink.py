"""The app's display settings in a share link: the ``ui_`` extension of the share-link codec.

``ui_bw`` the bandwidth unit (``gbyte``: GB/s, the default; ``gbit``: Gb/s), ``ui_cur`` the display currency
(``USD`` by default, ``core.i18n.currencies``) and ``ui_fx`` its rate per US dollar (only when it is not the
published one). The web app reads and writes them (``webui.state``); the engine writes them where it writes a link
to the app, so a review pack in yuan opens the page in yuan (``core.cli.report.share_link``).
"""

from __future__ import annotations

from core import i18n
from core.formats import sharelink
from core.i18n import N_, _
from core.units import span

BW_UNITS = {"GB/s": "gbyte", "Gb/s": "gbit"}
"""A bandwidth unit -> its ``ui_bw`` value."""


def _rate_words() -> str:
    return _("units of the currency per US dollar: {ranges}").format(ranges=", ".join(
        f"{code} {span(format(entry['low'], 'g'), format(entry['high'], 'g'))}" for code, entry in i18n.currencies().items()
        if code != i18n.DEFAULT_CURRENCY))


UI = sharelink.register_extension("ui_", [
    sharelink.Param("bw", N_("bandwidth unit"), sharelink.parse_choice(["gbyte", "gbit"]), str, "gbyte",
                    N_("gbyte (GB/s) or gbit (Gb/s)")),
    sharelink.Param("cur", N_("currency"), sharelink.parse_choice(list(i18n.currencies())), str,
                    i18n.DEFAULT_CURRENCY, ", ".join(i18n.currencies())),
    sharelink.Param("fx", N_("exchange rate"), sharelink.parse_float(0.0, 1e6, low_open=True),
                    sharelink.format_number, None, _rate_words),
])


def money_link_values() -> dict:
    """The link's ``ui_cur`` and ``ui_fx`` values of this run's money: the rate only when it is not the published one."""
    code, rate = i18n.currency(), i18n.fx_rate()
    return {"cur": code, "fx": None if rate == i18n.check_rate(code, None) else rate}


def display_params(unit: str) -> dict[str, str]:
    """The ``ui_`` link keys of the display in bandwidth ``unit`` ("GB/s" or "Gb/s") and this run's money, as the
    app writes them (defaults left out)."""
    return UI.encode({"bw": BW_UNITS[unit], **money_link_values()})
