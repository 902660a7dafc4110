"""Languages: every user-visible string in English and Simplified Chinese (gettext catalogs, Babel).

The ground floor of ``core`` (imports nothing of the project). Code writes its messages in English
and wraps them: ``_("Leaf switches")``; with placeholders ``_("{count} leaf switches").format(
count=n)`` (never an f-string inside ``_()``: the catalog key must be the literal text). Strings
defined at import time (table headers, dict labels) are marked with ``N_("...")`` and translated
where they are shown: ``_(LABEL)``.

The catalog is ``assets/locales/zh/LC_MESSAGES/messages.po`` (the English text is the key);
``make locales`` extracts the messages from the code and the hardware catalog's notes into
``assets/locales/messages.pot``, merges them into the ``.po`` and compiles the ``.mo`` that this
module loads (compiled in memory from the ``.po`` when the ``.mo`` is missing or older).

The language is per request: a ``ContextVar`` that the web app sets at the start of every run
(each browser session runs in its own thread) and the CLI sets from ``--lang``. Anything cached
across requests that holds translated text must have ``current()`` in its key.

Numbers are formatted per locale with Babel (``number``), money by ``usd``, the one money format;
Chinese writes large amounts in 万 / 亿 (10^4 / 10^8), e.g. ``1.2亿美元``. Which currency money is shown in
is per request too (``money_context`` / ``set_currency``: US dollars, renminbi or euros at a stated rate);
amounts are counted in US dollars everywhere and converted by ``usd`` as it writes them. A cache holding money
text keys on ``locale()`` (language and currency) instead of ``current()``.
"""

from __future__ import annotations

import contextlib
import gettext as _gettext
import io
import re
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Iterator

LANGUAGES = {"en": "English", "zh": "简体中文"}
"""Language codes the app speaks -> the name of each in itself (the switch's labels)."""
DEFAULT_LANGUAGE = "en"
BABEL_LOCALES = {"en": "en_US", "zh": "zh_Hans_CN"}
HTML_LANG = {"en": "en", "zh": "zh-CN"}
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "assets" / "locales"

_language: ContextVar[str] = ContextVar("fabric_planner_language", default=DEFAULT_LANGUAGE)


def N_(message: str) -> str:
    """Mark ``message`` for translation without translating it (for text defined at import time)."""
    return message


@lru_cache(maxsize=None)
def _translations(language: str) -> _gettext.NullTranslations:
    if language == DEFAULT_LANGUAGE:
        return _gettext.NullTranslations()
    folder = LOCALE_DIR / language / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as handle:
            return _gettext.GNUTranslations(handle)
    if not po.exists():  # pragma: no cover - a broken checkout
        return _gettext.NullTranslations()
    from babel.messages.mofile import write_mo  # only when the .mo was not built (make locales)
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return _gettext.GNUTranslations(buffer)


def current() -> str:
    """The language of this request: ``"en"`` or ``"zh"``."""
    return _language.get()


def set_language(language: str) -> None:
    """Speak ``language`` (a key of ``LANGUAGES``) for the rest of this request (thread / context)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose from {', '.join(LANGUAGES)}")
    _language.set(language)


@contextlib.contextmanager
def language(code: str) -> Iterator[None]:
    """``with language("zh"): ...`` speaks ``code`` inside the block only; ``code`` may be a ``locale()`` key
    (``"zh@CNY=7.1072"``), which also shows money in its currency at its rate in the block."""
    code, _at, money = code.partition("@")
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; choose from {', '.join(LANGUAGES)}")
    token = _language.set(code)
    try:
        if money:
            name, _equals, rate = money.partition("=")
            with money_context(name, float(rate)):
                yield
        else:
            yield
    finally:
        _language.reset(token)


def locale() -> str:
    """This request's language and money in one text: ``"en"`` / ``"zh"`` in US dollars, else with the currency
    and its rate (``"zh@CNY=7.1072"``). What is cached across requests, or run in another process, keys on it
    and runs in it (``with language(locale_key): ...``)."""
    code, rate = _money.get()
    return current() if code == DEFAULT_CURRENCY else f"{current()}@{code}={rate!r}"


def _(message: str) -> str:
    """``message`` (English) in the current language; itself when no translation exists."""
    return _translations(_language.get()).gettext(message)


gettext = _


def ngettext(singular: str, plural: str, count: int) -> str:
    """The singular or plural form for ``count`` in the current language (Chinese has one form)."""
    return _translations(_language.get()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` translated in ``context``, for one English word that needs two translations."""
    return _translations(_language.get()).pgettext(context, message)


# --- choosing the language ---------------------------------------------------------------------
_LANG_RANGE = re.compile(r"^\s*([A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$")


def from_locale(accept: str | None) -> str | None:
    """The app's language for a browser locale or ``Accept-Language`` header, None if neither fits.

    ``"zh-CN"``, ``"zh-Hans"``, ``"zh-TW"`` -> ``"zh"`` (the app has Simplified Chinese only, which
    Traditional-Chinese readers read better than English); ``"en-GB"`` -> ``"en"``;
    ``"fr-FR,zh;q=0.8,en;q=0.5"`` -> ``"zh"`` (highest q the app speaks); ``"fr"`` -> None.
    """
    if not accept:
        return None
    ranked = []
    for position, item in enumerate(str(accept)[:400].split(",")[:20]):
        match = _LANG_RANGE.match(item.split(".")[0].split("@")[0] if ";" not in item else item)
        if not match:
            continue
        try:
            quality = float(match.group(2)) if match.group(2) else 1.0
        except ValueError:
            continue
        primary = match.group(1).split("-")[0].split("_")[0].lower()
        if primary in LANGUAGES and quality > 0:
            ranked.append((-quality, position, primary))
    return min(ranked)[2] if ranked else None


# --- numbers and money -------------------------------------------------------------------------
def babel_locale(code: str | None = None) -> str:
    return BABEL_LOCALES[code or current()]


def number(value: float, digits: int = 0) -> str:
    """``value`` with the locale's grouping and ``digits`` decimals: ``12,345`` / ``1,234.5``."""
    try:
        return _number(value, digits, babel_locale())
    except TypeError:  # a value that cannot be a cache key (a 0-d array): formatted as it is
        return _number.__wrapped__(value, digits, babel_locale())


@lru_cache(maxsize=4096, typed=True)
def _number(value: float, digits: int, locale: str) -> str:
    """``number``, remembered: the sidebar's size slider formats each of its ~100 steps on every run."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return format_decimal(value, format=pattern, locale=locale)


def _significant(value: float, digits: int) -> str:
    """``value`` (>= 0) with ``digits`` significant figures, trailing zeros kept, separators from 1,000:
    ``1.10``, ``85.3``, ``853``, ``1,234`` (three digits)."""
    for decimals in range(digits - 1, 0, -1):
        text = f"{value:.{decimals}f}"
        if float(text) < 10 ** (digits - decimals):  # 9.996 rounds to 10.00: one decimal fewer
            return text
    return f"{value:,.0f}"


# --- the display currency -----------------------------------------------------------------------
CURRENCY_FILE = Path(__file__).resolve().parent.parent / "assets" / "catalog" / "currency.toml"
DEFAULT_CURRENCY = "USD"
"""The catalog's currency: every price and amount in the engine is in US dollars."""


@lru_cache(maxsize=1)
def currencies() -> dict[str, dict]:
    """The display currencies (``assets/catalog/currency.toml``): code -> ``rate`` (units of the currency per
    US dollar, as published), ``date`` and ``source`` of that rate, ``symbol`` (English), ``zh_unit``
    (Chinese), and the range ``low``-``high`` a rate the user sets may take."""
    import tomllib

    with CURRENCY_FILE.open("rb") as handle:
        return {code: dict(entry) for code, entry in tomllib.load(handle)["currency"].items()}


CURRENCY_NAMES = {"USD": N_("US dollar (USD)"), "CNY": N_("Chinese yuan (CNY)"), "EUR": N_("Euro (EUR)")}
"""Each currency's name, for the currency switch."""
RATE_SOURCES = {"cfets": N_("CFETS central parity rate"),
                "cfets-cross": N_("cross rate of the CFETS central parity rates")}
"""``source`` of a published rate in ``currency.toml`` -> what it is, in words."""

_money: ContextVar[tuple[str, float]] = ContextVar("fabric_planner_currency", default=(DEFAULT_CURRENCY, 1.0))


def check_rate(code: str, rate: float | None) -> float:
    """``rate`` (units of ``code`` per US dollar) if the currency accepts it, the published rate if None.

    Raises ValueError for an unknown currency, or a rate that is not a finite number from the currency's ``low``
    to its ``high`` (US dollars: 1 only).
    """
    entry = currencies().get(code)
    if entry is None:
        raise ValueError(f"unknown currency {code!r}; choose from {', '.join(currencies())}")
    if rate is None:
        return float(entry["rate"])
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not entry["low"] <= rate <= entry["high"]:
        raise ValueError(f"the {code} rate must be a number from {entry['low']:g} to {entry['high']:g} per USD")
    return float(rate)


def set_currency(code: str, rate: float | None = None) -> None:
    """Show money in ``code`` (a key of ``currencies()``) at ``rate`` units per US dollar (None: the published
    rate) for the rest of this request; ValueError as ``check_rate``."""
    _money.set((code, check_rate(code, rate)))


@contextlib.contextmanager
def money_context(code: str, rate: float | None = None) -> Iterator[None]:
    """``with money_context("CNY", 7.2): ...`` shows money in ``code`` at ``rate`` per US dollar in the block."""
    token = _money.set((code, check_rate(code, rate)))
    try:
        yield
    finally:
        _money.reset(token)


def currency() -> str:
    """The currency money is shown in this request: ``"USD"``, ``"CNY"`` or ``"EUR"``."""
    return _money.get()[0]


def fx_rate() -> float:
    """Units of the shown currency per US dollar (1 for US dollars)."""
    return _money.get()[1]


def money_note() -> str:
    """One sentence stating the currency money is shown in, the rate and its date (or that the user set it)."""
    code, rate = _money.get()
    if code == DEFAULT_CURRENCY:
        return _("Money in US dollars (USD), the catalog's currency.")
    entry = currencies()[code]
    if rate == entry["rate"]:
        return _("Money in {code} at 1 USD = {rate} {code} ({source}, {date}); the catalog's prices are in USD."
                 ).format(code=code, rate=f"{rate:g}", source=_(RATE_SOURCES[entry["source"]]), date=entry["date"])
    return _("Money in {code} at 1 USD = {rate} {code} (a rate set by the user); the catalog's prices are in USD."
             ).format(code=code, rate=f"{rate:g}")


def in_currency(label: str) -> str:
    """A money label (``Capex [USD]``, ``资本支出 [美元]``) with its currency written as the shown one
    (``Capex [CNY]``, ``资本支出 [元]``): the labels name US dollars, in which the engine counts."""
    code = currency()
    if code == DEFAULT_CURRENCY:
        return label
    return re.sub(r"\bUSD\b", code, label).replace("美元", currencies()[code]["zh_unit"])


def usd(value: float, signed: bool = False, exact: bool = False, trim: bool = False, cents: bool = False,
        places: int | None = None) -> str:
    """The one money format, in the current language and currency (cards, axes, hover, tables, report, CLI text);
    it takes US dollars and prints the session's currency (below).

    English: whole dollars below a million (``$49,983``), three significant figures in millions from
    1e6 (``$8.53 M``, ``$853 M``) and in billions from 1e9 (``$1.10 B``, ``$1,234 B``); an amount that
    rounds to 1.00 of the larger unit is written in it (``$999,700`` is ``$1.00 M``).
    Chinese: whole dollars below 1 万 (``9,500美元``), four significant figures in 万 from 1e4
    (``4.998万美元``, ``5,118万美元``) and three in 亿 from 1e8 (``11.2亿美元``), without the decimals' trailing
    zeros (``6.79万美元``, ``11亿美元``, as Chinese writes amounts; English keeps ``$1.10 B``).
    Negative amounts carry a minus sign (``-$1.10 B``, ``-4.998万美元``); ``signed`` adds ``+`` to positive
    ones (deltas). Amounts that round to zero dollars are ``$0`` / ``0美元``; no amount (None, NaN) is ``-``.
    ``exact``: whole dollars at any size (``$51,182,676`` / ``51,182,676美元``), for a price book (the CLI's
    ``catalog``); every headline amount, the CLI's included, is the compact money of the cards. ``trim``: without the decimals'
    trailing zeros, for axis ticks, whose values are round (``$1.5 B``, ``$1 B``; ``6万美元``, ``60.5万美元``).
    ``cents``: amounts below $100 with two decimals, two significant figures below 10 cents (``$12.40``,
    ``$0.20``, ``0.034美元``), for prices per unit such as a million tokens. ``places``: a Chinese amount in 万 or
    亿 with this many decimals, its trailing zeros kept (``4.630万美元``), but never more than its own figures give
    (``511.8万美元``): a table column's, which ``core.units.money_column`` picks once for the column; English
    ignores it (its three figures keep their zeros).

    ``value`` is in US dollars (the engine's and the catalog's currency); the text is in the session's currency
    (``money_context``): ``value`` times ``fx_rate()``, written with the currency's English symbol (``$``,
    ``CN¥``, ``€``: ``CN¥3.55 M``, ``€42,748``) or Chinese unit (``美元``, ``元``, ``欧元``: ``4.998万元``,
    ``11亿欧元``), in the same steps.
    """
    if value is None or value != value or value in (float("inf"), float("-inf")):
        return "-"
    code, rate = _money.get()
    value = value * rate
    entry = currencies()[code]
    symbol, unit = entry["symbol"], entry["zh_unit"]
    magnitude = abs(value)
    if cents and 0 < magnitude < 100:
        text = f"{magnitude:.2f}" if magnitude >= 0.1 else f"{magnitude:.2g}"
        sign = "-" if value < 0 else ("+" if signed else "")
        return sign + (text + unit if current() == "zh" else symbol + text)
    zh = current() == "zh"
    steps = () if exact else ((1e8, 3, "亿" + unit), (1e4, 4, "万" + unit)) if zh else ((1e9, 3, " B"), (1e6, 3, " M"))
    body = None
    for size, digits, suffix in steps:
        text = _significant(magnitude / size, digits)
        if float(text.replace(",", "")) >= 1:  # from what rounds to 1.00 of the unit: $995,000 is $1.00 M
            if zh and places is not None:  # a column's decimals, at most this amount's figures'
                text = f"{magnitude / size:,.{min(places, len(text.partition('.')[2]))}f}"
            elif (trim or zh) and "." in text:
                text = text.rstrip("0").rstrip(".")
            body = text + suffix
            break
    if body is None:
        magnitude = round(magnitude)
        body = f"{magnitude:,.0f}" + (unit if zh else "")
    sign = "-" if value < 0 and magnitude else ("+" if signed and value > 0 and magnitude else "")
    if zh:
        return sign + body
    return sign + symbol + body


_FULL_WIDTH_ENDS = ("。", "！", "？", "；", "：", "）", "」", "”")


def ends_full_width(text: str) -> bool:
    """Whether ``text`` ends in a full-width sentence mark or colon (``。``, ``：``...): what follows takes no space."""
    return str(text).endswith(_FULL_WIDTH_ENDS)


def sentences(*texts: str) -> str:
    """Sentences in running text: one space after an English sentence, none after a Chinese one (``。其成本``,
    not ``。 其成本``); empty texts are left out. The one sentence join of captions and notes."""
    out = ""
    for text in (str(t) for t in texts if t):
        out += ("" if not out or out.endswith(_FULL_WIDTH_ENDS) else " ") + text
    return out


_SPACE_AFTER_FULL_WIDTH = re.compile("(?<=[" + "".join(_FULL_WIDTH_ENDS) + "]) ")


def after_full_width(text: str) -> str:
    """``text`` without the space a template left right after a full-width mark (``…个 GPU） · InfiniBand`` ->
    ``…个 GPU）· InfiniBand``): the mark's glyph carries its own space, as ``sentences`` joins after one."""
    return _SPACE_AFTER_FULL_WIDTH.sub("", str(text))


_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？")


def as_sentence(text: str) -> str:
    """An engine message, a clause as the command line prints it after ``error:`` (``design file is not valid
    JSON: ...``), as a sentence of running text: its first letter capitalised, a full stop at its end (``。`` in
    Chinese) unless it has one."""
    text = str(text).strip()
    if not text:
        return text
    if text[0].isascii() and text[0].islower():
        text = text[0].upper() + text[1:]
    if text.endswith(_SENTENCE_ENDS):
        return text
    return text + ("。" if current() == "zh" else ".")


_LATIN_END, _LATIN_START = re.compile(r"[A-Za-z0-9%$+]$"), re.compile(r"^[A-Za-z0-9$]")
"""A Chinese text's Latin letters and digits at an end of a list item: the catalog writes a space between them and a
Chinese word (``{kind} 和 {other}``, ``2 层``, ``Dragonfly+ 拓扑``), so ``join`` does too."""


_HAN_END = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]$")
"""A text ending in a Chinese character (``bracketed``)."""


def bracketed(text: object, inside: object) -> str:
    """``text`` with ``inside`` in brackets after it, the one rule where code, not a message, puts them together:
    ``ring (LL)``, ``+$1.2 M (+2.2%)``; in Chinese after a Chinese character full-width brackets and no space
    (``分层（LL）``, ``+53.39万美元（+2.2%）``), as the translations write them (``架顶（ToR）``)."""
    text = str(text)
    if current() == "zh" and _HAN_END.search(text):
        return f"{text}（{inside}）"
    return f"{text} ({inside})"


def embedded(text: object) -> str:
    """``text`` set between two Chinese words of a sentence (a template's ``其中{swept}设为``): in Chinese a space on
    a side where it has a Latin letter or a digit (``其中 NVLink 域设为``, ``其中叶层收敛比设为``), as ``join``; in
    English unchanged (its template spaces its words)."""
    text = str(text)
    if current() != "zh":
        return text
    return (" " if _LATIN_START.match(text) else "") + text + (" " if _LATIN_END.search(text) else "")


def join(items: list[str]) -> str:
    """A list in running text: ``a, b and c`` (en) / ``a、b 和 c``, ``2 层和 134 台交换机`` (zh: a space between
    和 and a Latin letter or a digit, as the catalog writes it)."""
    items = [str(item) for item in items]
    if len(items) <= 1:
        return "".join(items)
    if current() == "zh":
        head, last = "、".join(items[:-1]), items[-1]
        return (head + (" " if _LATIN_END.search(head) else "") + "和"
                + (" " if _LATIN_START.match(last) else "") + last)
    return ", ".join(items[:-1]) + " and " + items[-1]


# --- the glossary --------------------------------------------------------------------------------
GLOSSARY_FILE = Path(__file__).resolve().parent.parent / "assets" / "glossary.toml"


@lru_cache(maxsize=1)
def glossary() -> tuple[dict[str, str], ...]:
    """The field's terms (``assets/glossary.toml``): dicts with ``en``, ``zh``, ``zh_alt``,
    ``en_definition``, ``zh_definition`` and ``source`` (where the Chinese term was checked)."""
    keys = ("en", "zh", "zh_alt", "en_definition", "zh_definition", "source")
    return tuple({key: str(term.get(key, "")) for key in keys} for term in _glossary_data()["term"])


@lru_cache(maxsize=1)
def _glossary_data() -> dict:
    import tomllib

    with GLOSSARY_FILE.open("rb") as handle:
        return tomllib.load(handle)


def glossary_sources() -> dict[str, str]:
    """What each glossary source code (``[seed]``, ``[NVC]`` ...) stands for, quoted as written."""
    return {str(code): str(text) for code, text in _glossary_data().get("sources", {}).items()}
