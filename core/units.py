"""The one bandwidth format and the money axes: every page, chart, table, export header and the review
pack show bandwidth and money through this module (tests/test_units.py greps for any other).

Bandwidth. The unit system is chosen once, by the user (the link's ``ui_bw``: ``gbyte`` -> "GB/s",
``gbit`` -> "Gb/s"), and passed down as ``unit``. Values arrive in Gb/s (1e9 bits/s); callers convert the
engine's other fields with :func:`from_tbits` (``*_tbits_*``) and :func:`from_gbytes` (``*_gbytes_*``).
One scaling rule everywhere: the value in the chosen unit, with the prefix G, T (from 1,000) or P (from
1,000,000) that keeps it below 1,000 -- for a single number its own size, for an axis or a table column the
largest value in it (so the column shares one prefix). Network figures are per direction; a label says
so. Numbers: three significant figures below 100, whole numbers with separators from 100.

Power, shares and table numbers. :func:`power` writes an electrical power (``687 kW``, ``1.24 MW``, ``1.20 MW``:
three significant figures like money), :func:`kw` its number alone for a template that names ``kW``; :func:`percent`
a share, a probability or a utilisation such as MFU (``75.1%``, a share of capex ``6.62%``); :func:`days` a duration
in days; :func:`milliseconds` a latency and :func:`microseconds` a collective's time (``µs``, never ``us``);
:func:`metres` a length inside its bin; :func:`cell` an engine table's number; :func:`alike` numbers set side by side
for comparison (a row or column across designs: the most decimals any of them needs, the one place more places are
written than a number alone gets); ``EXCEL_PERCENT`` and ``EXCEL_KW`` the XLSX number formats reading as
:func:`percent` and :func:`kw`. tests/test_units.py greps for hand-made power, percentages (``{x:.0%}``) and
microseconds.

Money. ``core.i18n.usd`` is the one money format (English ``$1.10 B`` / ``$853 M`` / ``$49,983``,
Chinese ``11.0亿美元`` / ``4.998万美元``); Plotly axes get their tick labels from it
(:func:`money_axis`), hover texts get it as ``customdata``, and XLSX cells a number format that reads
the same way (:func:`excel_money_format`). Amounts are in US dollars; the session's currency
(``core.i18n.money_context``) is applied where they are written: by ``usd`` and by the axis's tick placement.
"""

from __future__ import annotations

import math
import re

from core.i18n import N_, _, currencies, currency, current, fx_rate, in_currency, pgettext, usd
from core.i18n import number as number_text

BANDWIDTH_UNITS = ("GB/s", "Gb/s")
LINK_UNITS = {"gbyte": "GB/s", "gbit": "Gb/s"}
"""The link's ``ui_bw`` value -> the unit (also the CLI's ``--units``)."""
DEFAULT_LINK_UNIT = "gbyte"
"""The unit shown until the user asks for another: bytes (the web's sidebar toggle off, the CLI's default)."""
_PREFIXES = ((1e6, "P"), (1e3, "T"))


def check_unit(unit: str) -> str:
    if unit not in BANDWIDTH_UNITS:
        raise ValueError(f"unit must be one of {BANDWIDTH_UNITS}")
    return unit


def from_tbits(tbits: float) -> float:
    """Tb/s -> Gb/s."""
    return tbits * 1000


def from_gbytes(gbytes: float) -> float:
    """GB/s (bytes) -> Gb/s (bits)."""
    return gbytes * 8


def scale(max_gbits: float, unit: str, prefix: bool = True) -> tuple[float, str]:
    """(divisor of Gb/s, unit label) putting ``max_gbits`` in the G, T or P unit of ``unit`` that keeps it
    below 1,000 (always G if not ``prefix``): an axis, a column and its labels share it."""
    per = 8 if check_unit(unit) == "GB/s" else 1
    letter = unit[1]
    value = max_gbits / per
    if prefix:
        for size, name in _PREFIXES:
            if abs(value) >= size:
                return per * size, f"{name}{letter}/s"
    return per, f"G{letter}/s"


def number(value: float) -> str:
    """Three significant figures at most below 100, whole numbers with separators from 100."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if 0 < abs(value) < 1e-3:  # decimals, not ``7.3e-05`` beside ``0.000146`` in one column
        return f"{value:.{2 - math.floor(math.log10(abs(value)))}f}".rstrip("0")
    text = f"{value:.1f}" if abs(value) >= 10 else f"{value:.3g}"
    return text[:-2] if text.endswith(".0") else text


def _places(value: float) -> int:
    """The decimals :func:`number` writes ``value`` with, its trailing zeros kept: none from 100, one from 10, three
    significant figures below."""
    if abs(value) >= 100 or not value:
        return 0
    return 1 if abs(value) >= 10 else 2 - math.floor(math.log10(abs(value)))


def alike(values: list[float]) -> list[str]:
    """Numbers set side by side for comparison (a table's row or column across designs), each with as many
    decimals as :func:`number` gives the one that needs the most, and separators: ``3.22`` beside ``3.10`` (not
    ``3.1``), ``152.8`` beside ``98.4``, ``1,962`` beside ``1,968``; "unbounded" without bound (:func:`unbounded`).
    So none loses a figure it shows alone and none has fewer decimals than its neighbour; a number alone (a card,
    a sentence) is :func:`number`'s."""
    places = max((_places(v) for v in values if not unbounded(v)), default=0)
    return [_(UNBOUNDED) if unbounded(v) else f"{v:,.{places}f}" for v in values]


def ratio(value: float) -> str:
    """A ratio such as an oversubscription, ``1.33:1`` (three significant figures): the one ratio format."""
    return f"{value:.3g}:1"


def power_scale(top_kw: float) -> tuple[float, str]:
    """(divisor of kW, unit) of a power ``top_kw`` [kW]: MW from 1,000 kW, else kW. A chart chooses it once from
    its largest value, so its axis and every bar label share one unit (:func:`power_in`)."""
    return (1000.0, "MW") if abs(top_kw) >= 1000 else (1.0, "kW")


def _power_number(value: float) -> str:
    """A power's number, three significant figures as money writes them (``$5.00 M``): :func:`number`, but with the
    zeros that rounding put there (1,195.8 kW is ``1.20`` MW, 43.05 kW ``43.0`` kW); a value those figures hold
    exactly reads as entered (a 60 kW rack limit ``60``, 1,000 kW ``1`` MW)."""
    text = number(value)
    if abs(value) >= 100 or not value or abs(value) < 1e-3 or float(text) == value:
        return text
    return f"{value:#.3g}".rstrip(".")  # 99.96 -> "100."


def power_in(kw: float, scale: tuple[float, str], unit: bool = True) -> str:
    """A power given in kW, written in the unit ``scale`` (:func:`power_scale`) chose: ``0.41 MW``, ``20.5 MW``,
    ``0.410 MW`` for 409.6 kW (:func:`_power_number`); without ``unit`` the number alone (a bar's label under an
    axis that names the unit)."""
    divisor, name = scale
    return _power_number(kw / divisor) + (f" {name}" if unit else "")


def power(kw: float) -> str:
    """An electrical power given in kW, three significant figures like money: ``687 kW``, ``41 kW`` (exactly),
    ``43.0 kW`` (43.05), ``1.24 MW``, ``1.20 MW`` (1,195.8 kW), ``23.5 MW`` (MW from 1,000 kW, :func:`power_scale` of
    its own size): the one power format of cards, charts, tables, the pack and the CLI."""
    return power_in(kw, power_scale(kw))


def kw(kw: float) -> str:
    """The number alone of a power in kW, as :func:`power` writes it below 1 MW (``41``, ``40.8``, ``43.0``,
    ``1,241``): for a template that names the unit itself (``"{it} kW IT"``) or a column headed [kW]."""
    return _power_number(kw)


def metres(m: float, below: float = math.inf) -> str:
    """A length [m] to one decimal (``18.1``), or as many more (up to three) as keep it under ``below``, the top
    of the length bin it was sorted into: 19.99 m in a 10-20 m bin reads ``19.99``, not ``20.0``."""
    for digits in (1, 2, 3):
        text = f"{m:,.{digits}f}"
        if m >= below or float(text.replace(",", "")) < below:
            break
    return text


def cell(value: int | float) -> str:
    """A number in a table of engine values (the training step's communication table on the Performance page and in
    the review pack): a whole count with separators (``5,120``), a measure to four significant figures
    (``687.2``, ``0.01234``), separators from 1,000 (``1,235``)."""
    if isinstance(value, int) or abs(value) >= 1000:
        return number_text(value)
    return f"{value:,.4g}"


UNBOUNDED = N_("unbounded")
"""The word of a number without bound (:func:`unbounded`), in place of ``inf``."""


def unbounded(value: float) -> bool:
    """Whether a number is without bound, infinite or undefined (NaN): a queue that never drains, a pool's load over
    no capacity; shown as ``UNBOUNDED`` by :func:`milliseconds`, :func:`percent` and the Inference page's cells."""
    return value != value or value == math.inf


def percent(fraction: float, signed: bool = False) -> str:
    """A share or a probability given as a fraction (0.751), in percent to three significant figures: ``75.1%``,
    ``63%``, ``0.44%``, ``0%`` (a Monte Carlo estimate or a share has no fourth digit), but never ``100%`` below one:
    as many decimals (up to three) as keep it under (99.977% reads ``99.98%``, a bisection left after a failure), and
    ``>99.999%`` above those (a spares coverage of 0.99999999); ``signed`` a change or an error with its sign
    (``+4.2%``, ``-12%``, ``0%``); "unbounded" without bound (:func:`unbounded`: a load over no capacity, not
    ``inf%``)."""
    if unbounded(fraction):
        return _(UNBOUNDED)
    value = fraction * 100
    text = f"{number(value)}%"
    for digits in range(1, 5):
        if not (value < 100 <= float(text[:-1].replace(",", ""))):
            break
        text = f"{value:.{digits}f}%" if digits < 4 else ">99.999%"
    return _with_sign(text) if signed else text


def _with_sign(text: str) -> str:
    """A formatted change with its sign: ``+`` before one that is neither negative nor zero as written (``0%``,
    ``0``, ``0.00``), which keep none."""
    return text if text.startswith("-") or not text.strip("0.,%") else "+" + text


def days(value: float, signed: bool = False) -> str:
    """A duration in days, as :func:`number` writes it (``330``, ``8.26``, ``2.94``): the one days format of the
    Performance card, the charts' bar labels and hover, the two-fabric table, Compare, the review pack and the CLI;
    ``signed`` a difference with its sign (``+0.53``, ``-12.4``, ``0``); the template names the unit."""
    text = number(value)
    return _with_sign(text) if signed else text


def seconds(value: float) -> str:
    """A step time [s] with three decimals and separators (``2.129``, ``1,234.500``): the one format of a training
    step in the tables that set two designs or two states side by side (Performance's two fabrics, Resilience's
    what-if, Sweep's points, ``python -m core failure``; Compare's deltas), so a column never mixes two and three
    decimals and a difference in milliseconds shows; a step alone (the Performance card, a chart's bar label;
    Compare's row, its cells as the card's beside an exact delta, ``core.figures.compare.row_cells``)
    is :func:`number`'s three significant figures, as every card (the Performance card's help gives this form too,
    so "6 s" above a table's 6.003 reads as one number); the header names the unit."""
    return f"{value:,.3f}"


def gibibytes(value: float) -> str:
    """A memory size [GiB] to one decimal with separators (``77.7``, ``1,024.0``): the one format of memory per GPU
    on the Performance page's caption and in ``python -m core train``; the template names the unit."""
    return f"{value:,.1f}"


def milliseconds(seconds: float) -> str:
    """A latency given in seconds, in milliseconds as :func:`number` writes it (``1,984 ms``, ``23.4 ms``), or
    "unbounded" (:func:`unbounded`: a queue that never drains): the one latency format of the Inference cards and
    the CLI."""
    if unbounded(seconds):
        return _(UNBOUNDED)
    return f"{number(seconds * 1e3)} ms"


MICROSECOND = "µs"
"""The microsecond's symbol (U+00B5, as Go and nccl-tests' docs write it), in every language: a header that names
the unit writes ``[µs]``; tests/test_units.py forbids ``us`` as a shown unit."""


def microseconds(us: float, signed: bool = False) -> str:
    """A time given in microseconds, as :func:`number` writes it (``26,338 µs``, ``23.5 µs``; ``signed``: ``+3.5
    µs``, ``-1.2 µs``): the one microsecond format of the collectives' table, charts and hovers, the calibration
    line, the review pack and the CLI."""
    sign = ("+" if us > 0 else "-" if us < 0 else "") if signed else ("-" if us < 0 else "")
    return f"{sign}{number(abs(us))} {MICROSECOND}"


def bandwidth(gbits: float, unit: str) -> str:
    """A bandwidth given in Gb/s, in ``unit`` with its own prefix: ``50 GB/s``, ``1.6 TB/s``, ``400 Gb/s``."""
    divisor, label = scale(gbits, unit)
    return f"{number(gbits / divisor)} {label}"


def bandwidth_in(gbits: float, divisor: float) -> str:
    """The number alone, in a unit chosen by :func:`scale` (a table column, a bar label)."""
    return number(gbits / divisor)


def signed_bandwidth(gbits: float, unit: str) -> str:
    """A change of bandwidth: ``+1.6 TB/s``, ``-400 Gb/s``, ``0 GB/s``."""
    text = bandwidth(abs(gbits), unit)
    return ("-" if gbits < 0 else "+" if gbits > 0 else "") + text


# --- money ------------------------------------------------------------------------------------------------
def money_ticks(top: float, bottom: float = 0.0, count: int = 5) -> list[float]:
    """About ``count`` round tick values from ``bottom`` to ``top`` [USD] (1, 2, 2.5 or 5 x 10^n apart)."""
    span = top - bottom
    if span <= 0:
        return [bottom]
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(bottom / step) * step
    ticks, value = [], first
    while value <= top + step * 1e-9:
        ticks.append(0.0 if abs(value) < step * 1e-9 else value)
        value += step
    return ticks


def span(low: str, high: str) -> str:
    """A range's two ends, already written, as one text: ``1 to 1,024``, ``$1.55 M to $2.84 M``; in Chinese ``1 至
    1,024``, ``155.4万美元 至 284.4万美元`` (a space on each side of 至, as after any amount): the one range rule,
    which the ranges below (``money_range``, ``number_range``, ``percent_range``) and a range whose ends have
    their own format write through; a sentence takes it whole as its ``{range}`` (which no space tidying may touch
    afterwards), never ``{low} to {high}`` of its own."""
    return pgettext("a range", "{low} to {high}").format(low=low, high=high)


def money_range(low: float, high: float, exact: bool = False) -> str:
    """A range of amounts [USD], each as ``usd`` writes it (``exact``: whole dollars, a price book's), through
    :func:`span`: ``$1.55 M to $2.84 M``, ``155.4万美元 至 284.4万美元``: the capex card's help and the Cost & power
    cards, the spares card, the cost chart's hover, the review pack and ``python -m core plan`` and ``catalog``."""
    return span(usd(low, exact=exact), usd(high, exact=exact))


def length_bin_name(low_m: float, high_m: float) -> str:
    """A cable-length bin's name, from ``low_m`` to ``high_m`` [m]: ``<= 3 m`` (from 0), ``10-20 m``, ``> 500 m``
    (without a top): the one name of a bin in the cable-length table and chart, the media table and the cabling
    summary, the same in every language (an id a chart sorts by and an export keeps, not a range in a sentence:
    :func:`span` writes those)."""
    if low_m <= 0:
        return f"<= {high_m:g} m"
    if math.isinf(high_m):
        return f"> {low_m:g} m"
    return f"{low_m:g}-{high_m:g} m"


def number_range(low: float, high: float) -> str:
    """A range of numbers, each as :func:`number` writes it, through :func:`span`: ``1 to 1,024``, ``0 至
    1,000,000`` (the values a link setting accepts); the template names the unit."""
    return span(number(low), number(high))


def percent_range(low: float, high: float, signed: bool = False) -> str:
    """A range of shares, each as :func:`percent` writes it (``signed``: errors, ``-12% to +4.2%``), through
    :func:`span`: a training estimate's expected error band."""
    return span(percent(low, signed), percent(high, signed))


def money_column(values: list[float | None]) -> list[str]:
    """Amounts [USD] set one under another in a table column (the Designer's bill, the spares and remedy tables, the
    price book, Compare's money rows across designs, the review pack's bill), each as ``usd`` writes it, but with
    the decimals picked once for the column: in Chinese every amount in 万 or 亿 with as many as the one that needs
    the most (``4.630万美元`` beside ``4.617万美元``, not ``4.63万美元``; ``usd``'s ``places``), but never more than
    its own four figures (three in 亿) give (``334.0万美元`` beside ``5.022万美元``, not ``334.043万美元``: no
    figure is made up and a column stays as wide), as an English column keeps its trailing zeros (``$1.10 M``);
    amounts below 1万 stay whole dollars. No amount (None, NaN) is ``-``. An amount alone (a card, a sentence) is
    ``usd``'s."""
    texts = [usd(v) for v in values]
    if current() != "zh":
        return texts
    places = max((len(found.group(1)) for t in texts if (found := _DECIMALS.search(t))), default=0)
    return [usd(v, places=places) if _DECIMALS.search(t) or _LARGE.search(t) else t for v, t in zip(values, texts)]


_DECIMALS = re.compile(r"\.(\d+)")
"""A written amount's decimals (``usd``'s text)."""
_LARGE = re.compile("[万亿]")
"""A Chinese amount written in 万 or 亿."""


MONEY_UNIT = N_("USD")
"""A money axis's title when it is only the unit: the currency in the page's language (美元 in Chinese, as the
amounts on the axis; ``in_currency`` names the session's currency)."""


def money_unit() -> str:
    """``MONEY_UNIT`` in the current language and currency (``USD`` / ``美元``; ``CNY`` / ``元``)."""
    return in_currency(_(MONEY_UNIT))


def money_axis(top: float, bottom: float = 0.0, **extra) -> dict:
    """A Plotly axis [USD] whose tick labels are ``core.i18n.usd`` texts without trailing zeros (``$1.5 B``,
    ``6万美元``; Plotly's own d3 formats write ``$1.00G``): ``fig.update_layout(yaxis=money_axis(max(values),
    title=...))``."""
    rate = fx_rate()  # round ticks in the shown currency, placed at their value in US dollars (the data's)
    ticks = [tick / rate for tick in money_ticks(top * rate, bottom * rate)]
    return dict(tickmode="array", tickvals=ticks, ticktext=[usd(v, trim=True) for v in ticks], **extra)


EXCEL_PERCENT = "[>=0.1]0.0%;[>=0.01]0.00%;0.000%"
"""An XLSX number format for a share held as a fraction, reading as :func:`percent` writes it (three significant
figures: ``75.1%``, ``6.82%``, ``0.443%``); Excel keeps a trailing zero ``percent`` drops (``6.80%``)."""
EXCEL_KW = "[>=100]#,##0;[>=10]0.0;0.00"
"""An XLSX number format for a power held in kW under a header or unit cell that names kW, reading as :func:`kw`
writes it (``1,264``, ``43.0``, ``4.10``): the card's three significant figures, in kW; Excel keeps a trailing
zero ``kw`` drops for a value those figures hold exactly (``41.0``)."""


def excel_money_format(language: str | None = None) -> str:
    """An XLSX number format reading like ``core.i18n.usd`` in ``language`` (default: the current one) and the
    session's currency (``core.i18n.currency()``), for a cell holding the amount in that currency (US dollars
    times ``core.i18n.fx_rate()``): ``$1.10 B`` / ``$853.1 M`` / ``$49,983``; ``11.00亿美元`` / ``5118.0万美元`` /
    ``9,500美元``; ``CN¥7.82 B``, ``€42,748``, ``3.552万元``. Excel scales by thousands only, so 亿 and 万 use
    the literal-point trick (``0!.00,,`` is value / 1e8 to two decimals)."""
    entry = currencies()[currency()]
    if (language or current()) == "zh":
        unit = entry["zh_unit"]
        return f'[>=100000000]0!.00,,"亿{unit}";[>=10000]0!.0,"万{unit}";#,##0"{unit}"'
    symbol = entry["symbol"]
    return f'[>=1000000000]"{symbol}"#,##0.00,,," B";[>=1000000]"{symbol}"#,##0.0,," M";"{symbol}"#,##0'
