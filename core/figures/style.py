"""Shared look of every figure: fonts, tier, rail and category colours, and the base layout.

Text is measured by its visible width (``text_width``): a CJK character counts as two Latin
letters, and Chinese breaks between any two characters (not only at spaces), so ``wrap_title`` and
``wrap_text`` fit Chinese titles to the same column as English ones.
"""

from __future__ import annotations

import math
import re
import unicodedata

import plotly.graph_objects as go

from core.i18n import N_, current
from core.text import MONEY_WORD, PRODUCT, UNIT_WORD, unlinked

TIER_Y = {"server": 0.0, "leaf": 1.0, "spine": 2.0, "core": 3.0}
TIER_COLOURS = {"server": "#5d6d7e", "leaf": "#2e86c1", "spine": "#117a65", "core": "#7d3c98"}
TIER_NAMES = {"server": N_("Servers"), "leaf": N_("Leaf"), "spine": N_("Spine"), "core": N_("Core")}
"""Axis labels of the topology diagram's tiers (translate where shown: ``_(TIER_NAMES[role])``)."""
RAIL_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#ad494a", "#637939", "#7b4173", "#3182bd", "#e6550d", "#31a354",
)
HIGHLIGHT = "#f39c12"
CJK_FONTS = '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei"'
"""Faces with Chinese glyphs (Debian: fonts-noto-cjk; macOS: PingFang; Windows: YaHei), after the Latin ones."""
FONT_FAMILY = f"Inter, Segoe UI, Helvetica, Arial, {CJK_FONTS}, sans-serif"
"""The figures' font stack: the Latin faces first (as before), then ``CJK_FONTS``, so a Chinese
title never shows empty boxes."""
FONT = dict(family=FONT_FAMILY, size=13)
CATEGORY_COLOURS = {"compute": "#5d6d7e", "NIC": "#2e86c1", "switch": "#117a65", "transceiver": "#d35400",
                    "cable": "#7d3c98", "facility overhead": "#bdc3c7"}


def sep() -> str:
    """The separator between the items of a list in running text: ``", "`` (en) / ``"、"`` (zh)."""
    return "、" if current() == "zh" else ", "


def plain(text: object) -> str:
    """``text`` as Plotly shows it literally, the one escaper of Plotly text: ``&``, ``<`` and ``>`` as entities,
    so a user-given name in a title, legend, axis label or hover text is never read as Plotly's HTML subset
    (``<a href>``, ``<span style>``, ``<b>``, ``<br>``); ``%{`` as ``&#37;{``, so a name inside a hover or text
    template is never evaluated as one of its fields (``%{x}``, ``%{customdata}``); ``$`` as ``&#36;``, so it is
    never typeset as LaTeX where MathJax is loaded; bare URLs broken (``core.text.unlinked``: a printed chart is
    read by PDF viewers, which link them). Plotly turns the entities back into the characters when it draws.
    Use it wherever a name the user typed or a link gave reaches a figure."""
    value = unlinked(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return value.replace("%{", "&#37;{").replace("$", "&#36;")


def rail_colour(rail: int) -> str:
    return RAIL_COLOURS[rail % len(RAIL_COLOURS)] if rail is not None and rail >= 0 else TIER_COLOURS["leaf"]


TITLE_CHARS = 36
"""Most visible characters per title line: a chart in half of a 1,024 px page still shows every word.

Counted in Latin letters: a CJK character is two (see ``text_width``), so a Chinese line holds 18."""
TITLE_SIZE = 15
"""A chart title's font size [px]."""
SUBTITLE_SIZE = 12.5
"""A chart subtitle's font size [px] (Plotly's ``title.subtitle``): as readable at 1,024 px as the page's captions;
a ``<sup>`` line of the title, which Plotly draws at 70% (10.5 px), was too small to read."""
SUBTITLE_COLOUR = "#4d5656"
SUBTITLE_WIDTH = TITLE_SIZE / SUBTITLE_SIZE
"""How many more characters a subtitle line holds than a title line of the same width."""
TITLE_CHARS_WIDE = 70
"""Most visible characters per title line of a chart as wide as a 1,024 px page's main area."""
TITLE_CHARS_THREE_FIFTHS = 46
"""Most visible characters per title line of a chart in three fifths of a 1,024 px page (the Designer's
topology beside the scale-up drawing)."""
SLOT_CHARS = {"full": TITLE_CHARS_WIDE, "three_fifths": TITLE_CHARS_THREE_FIFTHS, "half": TITLE_CHARS,
              "two_fifths": 28}
"""Where a chart is drawn (the share of the main area's width its column takes) -> most visible characters per
title line there at 1,024 px, the narrowest supported window: the one rule a title wraps by. Plotly never wraps
and the server never knows how wide a chart is drawn, so a wider window shows the same lines."""
_TAG = re.compile(r"<[A-Za-z/][^<>]*>|&#?\w+;")
_TOKEN = re.compile(r"<[A-Za-z/][^<>]*>|&#?\w+;|.", re.S)
"""One token of a word: an HTML tag (no width), an entity (one character wide) or one character."""
NO_LINE_START = set("，。、；：！？）】」』》〉％…·,.;:!?)]}%")
"""Punctuation that never begins a line: it stays with the character before it."""
NO_LINE_END = set("（【「『《〈([{")
"""Punctuation that never ends a line: it goes with the character after it."""


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _measure(text: str, tag: int) -> int:
    width = 0
    for token in _TOKEN.findall(text):
        if len(token) > 1:
            width += tag if token.startswith("<") else 1
        else:
            width += 2 if _wide(token) else 1
    return width


def text_width(text: str) -> int:
    """Visible width of ``text`` in Latin letters: HTML tags count nothing, an entity one, a CJK
    (East Asian wide or full-width) character two."""
    return _measure(text, 0)


def _visible(word: str) -> int:
    """The width wrapping uses: ``text_width``, but a tag counts one (the margin the titles always had)."""
    return _measure(word, 1)


_WORD = re.compile(r"(?:<[A-Za-z/][^<>]*>|[^ ])+")
"""A word: a run of characters and whole HTML tags (``<span style='...'>`` holds spaces)."""


def _pieces(word: str) -> list[str]:
    """A space-free word cut where a line may break: before and after every CJK character
    (Chinese breaks anywhere), never inside a Latin run; tags stay with their text, closing
    punctuation with what precedes it and opening punctuation with what follows."""
    pieces: list[str] = []
    latin = False  # the last piece is a Latin run that the next Latin character extends
    pending = ""  # opening tags and punctuation waiting for the next piece
    for token in _TOKEN.findall(word):
        if len(token) > 1 and token.startswith("<"):  # a tag
            if pieces and (latin or token.startswith("</")) and not pending:
                pieces[-1] += token
            else:
                pending += token
        elif len(token) == 1 and _wide(token):
            if token in NO_LINE_START and pieces:
                pieces[-1] += pending + token
            elif token in NO_LINE_END:
                pending += token
                continue
            else:
                pieces.append(pending + token)
            pending, latin = "", False
        elif pieces and not pending and (latin or token in NO_LINE_START):  # Latin (or an entity) goes on
            pieces[-1] += token
        else:  # a Latin character (or an entity) after a CJK character starts a piece
            pieces.append(pending + token)
            pending, latin = "", True
    if pending:
        if pieces:
            pieces[-1] += pending
        else:
            pieces.append(pending)
    return _amounts_whole(pieces)


def _amounts_whole(pieces: list[str]) -> list[str]:
    """``pieces`` with each Chinese amount of money (``7.51亿美元``: ``core.text.MONEY_WORD`` after a number) one
    piece: Chinese breaks between any two characters, and ``7.51亿美`` / ``元`` was a line end."""
    ends, at = [], 0
    for piece in pieces:
        at += len(piece)
        ends.append(at)
    spans = [(m.start(), m.end()) for m in _AMOUNT_ZH.finditer("".join(pieces))]
    out: list[str] = []
    for i, piece in enumerate(pieces):
        start = ends[i] - len(piece)
        if out and any(a <= start < b for a, b in spans):
            out[-1] += piece
        else:
            out.append(piece)
    return out


BREAK_AFTER = set("，、：；。！？）】」』》")
"""Chinese punctuation after which a line breaks best (a wrap prefers it to cutting a phrase)."""
STRONG_BREAK_AFTER = set("，：；。！？")
"""Of those, the ones ending a clause: a wrap prefers them to an enumeration comma (、) or a bracket."""
BREAK_BEFORE = set("（【「『《")
"""Chinese opening brackets before which a line breaks best."""
GOOD_BREAK_SHARE = 1 / 3
"""A line ends at the last good break (``_good_break``) when that leaves it at least this full."""


def _edge(piece: str, last: bool) -> str:
    """The last (or first) visible character of ``piece``; ``""`` when it has none."""
    tokens = [t for t in _TOKEN.findall(piece) if not (len(t) > 1 and t.startswith("<"))]
    return (tokens[-1] if last else tokens[0])[-1 if last else 0] if tokens else ""


_AMOUNT_ZH = re.compile(r"(?<=\d)" + MONEY_WORD.pattern)


def _splits_amount(before: str, gap: int, after: str) -> bool:
    """Whether a break between ``before`` and ``after`` would split an amount: a number from its unit
    (``core.text.UNIT_WORD``, ``100`` / ``GB/s``) or a Chinese amount of money (``core.text.MONEY_WORD``,
    ``7.51亿美`` / ``元``), as ``core.text.unbroken`` keeps them whole in a browser."""
    left, right = _TAG.sub("", before)[-4:], _TAG.sub("", after)[:4]
    if gap:
        return left[-1:].isdigit() and bool(UNIT_WORD.match(right))
    return any(m.start() <= len(left) < m.end() for m in _AMOUNT_ZH.finditer(left + right))


def _good_break(before: str, gap: int, after: str) -> bool:
    """A break between ``before`` and ``after`` that cuts no phrase: after Chinese punctuation, before
    an opening bracket, or at a space between Latin text (English words). Between two CJK characters
    or at the space around a number inside Chinese text a line may break too, but only when no good
    break is near; never inside an amount (``_splits_amount``)."""
    a, b = _edge(before, True), _edge(after, False)
    if _splits_amount(before, gap, after):
        return False  # a number and its unit stay together
    return a in BREAK_AFTER or b in BREAK_BEFORE or (gap == 1 and not _wide(a) and not _wide(b))


def _cut(items: list[tuple[int, str]], width: int, join) -> int:
    """Where to end the line ``items[:-1]`` (``items[-1]`` does not fit): at the last clause end
    (``STRONG_BREAK_AFTER``), else the last good break (``_good_break``), that leaves the line at
    least ``GOOD_BREAK_SHARE`` full; else the last break that splits no amount (``_splits_amount``: ``双向 100`` /
    ``GB/s`` was cut so), else just before ``items[-1]``. English has only spaces
    between its words, so it always breaks before the word that does not fit."""
    least = GOOD_BREAK_SHARE * width
    whole = [j for j in range(1, len(items)) if not _splits_amount(items[j - 1][1], items[j][0], items[j][1])]
    breaks = [j for j in whole if _good_break(items[j - 1][1], items[j][0], items[j][1])
              and _visible(join(items[:j])) >= least]
    strong = [j for j in breaks if _edge(items[j - 1][1], True) in STRONG_BREAK_AFTER]
    return (strong or breaks or whole[-1:] or [len(items) - 1])[-1]


_GLUE = "\ue000"
"""Stands for a space inside a product (``core.text.PRODUCT``) while a line is wrapped: one character wide, never in
a title (private use), so the product is one word and the space comes back after."""


def _wrap_words(text: str, width: int) -> list[str]:
    text = PRODUCT.sub(lambda m: m.group(0).replace(" ", _GLUE), text)  # "2 x 72 GPUs" stays on one line
    return [line.replace(_GLUE, " ") for line in _wrap_lines(text, width)]


def _wrap_lines(text: str, width: int) -> list[str]:
    lines: list[str] = []
    line: list[tuple[int, str]] = []  # (space before it?, piece) of the line being filled

    def join(items):
        return "".join((" " if gap and i else "") + piece for i, (gap, piece) in enumerate(items))

    for word in _WORD.findall(text):
        for i, piece in enumerate(_pieces(word)):
            gap = 1 if i == 0 else 0  # a space between words; none between the pieces of one word
            if line and _visible(join(line)) + gap + _visible(piece) > width:
                cut = _cut(line + [(gap, piece)], width, join)
                lines.append(join(line[:cut]))
                line = [(0, p) for _, p in line[cut:][:1]] + line[cut + 1:]
                line.append((gap if line else 0, piece))
            else:
                line.append((gap, piece))
    return lines + ([join(line)] if line else [])


def wrap_title(title: str, width: int = TITLE_CHARS) -> tuple[str, int]:
    """A Plotly title broken into lines of at most ``width`` visible characters (Plotly never wraps).

    Widths are ``text_width``s (a CJK character counts two); Chinese breaks between characters.
    Segments separated by ``<br>`` are wrapped on their own; a ``<sup>...</sup>`` segment (a
    subtitle, ``base_layout`` draws it in ``SUBTITLE_SIZE``) gets ``SUBTITLE_WIDTH`` x the width and keeps
    ``<sup>`` on every line. Returns (text, number of lines).
    """
    out = []
    for segment in title.split("<br>"):
        if segment.startswith("<sup>") and segment.endswith("</sup>"):
            inner = segment[5:-6]
            out += [f"<sup>{line}</sup>" for line in _wrap_words(inner, int(width * SUBTITLE_WIDTH))]
        else:
            out += _wrap_words(segment, width)
    return "<br>".join(out), len(out)


def wrap_text(text: str, width: int) -> str:
    """Annotation text wrapped to ``width`` visible characters per line (existing ``<br>`` kept)."""
    return "<br>".join(line for segment in text.split("<br>") for line in _wrap_words(segment, width))


def title_margin(lines: int) -> int:
    """Top margin [px] that fits ``lines`` title lines."""
    return max(60, 30 + 22 * lines)


def split_title(text: str) -> tuple[str, str]:
    """A wrapped title (``wrap_title``) as (its title lines, its ``<sup>`` lines without the tags), each joined
    by ``<br>``: Plotly's ``title.text`` and ``title.subtitle.text``."""
    lines = text.split("<br>")
    sub = [line for line in lines if line.startswith("<sup>") and line.endswith("</sup>")]
    return "<br>".join(line for line in lines if line not in sub), "<br>".join(line[5:-6] for line in sub)


def title_dict(text: str) -> dict:
    """The ``layout.title`` of a wrapped title ``text`` (``wrap_title``): the title lines in ``TITLE_SIZE``, the
    ``<sup>`` lines as Plotly's subtitle in ``SUBTITLE_SIZE`` (none: no subtitle)."""
    main, sub = split_title(text)
    out = dict(text=main)
    if sub:
        out["subtitle"] = dict(text=sub, font=dict(size=SUBTITLE_SIZE, color=SUBTITLE_COLOUR))
    return out


def full_title(title) -> str:
    """A figure's ``layout.title`` (a dict or Plotly's object) back as one text, its subtitle's lines as
    ``<sup>`` lines after the title's: what ``wrap_title`` wrapped."""
    get = title.get if isinstance(title, dict) else (lambda key: getattr(title, key, None))
    text, subtitle = get("text") or "", get("subtitle")
    sub = (subtitle.get("text") if isinstance(subtitle, dict) else getattr(subtitle, "text", None)) or ""
    return "<br>".join([*([text] if text else []), *(f"<sup>{line}</sup>" for line in sub.split("<br>") if line)])


def base_layout(fig: go.Figure, title: str, height: int, slot: str = "half") -> go.Figure:
    """Title at the left (wrapped for ``slot``, see ``SLOT_CHARS`` and ``wrap_title``; its ``<sup>`` lines a
    readable subtitle, ``title_dict``), transparent background, the shared font. The title as given is kept in
    ``layout.meta`` (``RAW_TITLE``), so a page drawing the chart in another slot wraps it again (``fit_title``)."""
    text, lines = wrap_title(title, SLOT_CHARS[slot])
    fig.update_layout(
        meta={RAW_TITLE: title},
        title=dict(**title_dict(text), x=0.0, xanchor="left", font=dict(size=TITLE_SIZE), yref="container", y=1.0,
                   yanchor="top", pad=dict(t=14)),
        height=height + 21 * max(0, lines - 2), margin=dict(l=10, r=10, t=title_margin(lines), b=10), font=FONT,
        paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)",
    )
    return fig


RAW_TITLE = "fp_title"
"""The key of ``layout.meta`` holding a chart's title before wrapping (``base_layout``)."""


def fit_title(layout: dict, slot: str) -> dict:
    """A figure's plain ``layout`` (``to_dict()``'s) with its title wrapped for ``slot`` (``SLOT_CHARS``) from the
    title ``base_layout`` kept, its height and top margin changed by what the new line count adds or saves; the
    same dict when the title already fits (or the figure kept none). Never changes ``layout``."""
    raw = (layout.get("meta") or {}).get(RAW_TITLE) if isinstance(layout.get("meta"), dict) else None
    title = layout.get("title")
    if not raw or not isinstance(title, dict):
        return layout
    text, lines = wrap_title(raw, SLOT_CHARS[slot])
    old = full_title(title)
    if text == old:
        return layout
    was = len(old.split("<br>"))
    out = {**layout, "title": {**{k: v for k, v in title.items() if k != "subtitle"}, **title_dict(text)}}
    if "subtitle" in title and "subtitle" in out["title"]:  # keep the subtitle's font
        out["title"]["subtitle"] = {**title["subtitle"], "text": out["title"]["subtitle"]["text"]}
    if isinstance(layout.get("height"), (int, float)):
        out["height"] = layout["height"] + 21 * (max(0, lines - 2) - max(0, was - 2))
    margin = layout.get("margin") or {}
    if "t" in margin:
        out["margin"] = {**margin, "t": max(title_margin(lines), margin["t"] - title_margin(was) + title_margin(lines))}
    return out


def line_width(links: int, max_links: int) -> float:
    """Line width by link count, in four steps (1 to 6 px)."""
    if max_links <= 1:
        return 1.5
    share = math.log1p(links) / math.log1p(max_links)
    return (1.0, 2.0, 3.5, 6.0)[min(3, int(share * 4))]



def _merge(into: dict, props: dict) -> None:
    """Deep-merge ``props`` into ``into`` as Plotly's ``update_layout`` does (nested dicts update)."""
    for key, value in props.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


class FigureSpec:
    """A Plotly figure built from plain dicts and turned into a ``go.Figure`` once, without validation.

    The diagram figures draw thousands of points in dozens of traces; building them through
    ``go.Scatter`` and ``update_layout`` validates every value (about 40 ms per topology diagram
    on this machine, most of a Designer rerun), while the same figure from dicts costs about 3 ms.
    Same method names as ``go.Figure`` (``add_trace`` takes a dict, e.g. ``scatter(...)``), so
    ``base_layout`` works on both; ``tests/test_figures.py`` checks the JSON is what the validated
    figure gives.
    """

    def __init__(self) -> None:
        self.data: list[dict] = []
        self.layout: dict = {}

    def add_trace(self, trace: dict) -> None:
        self.data.append(trace)

    def update_layout(self, **props) -> None:
        _merge(self.layout, props)

    def add_annotation(self, **props) -> None:
        self.layout.setdefault("annotations", []).append(props)

    @property
    def margin_top(self) -> int:
        return self.layout.get("margin", {}).get("t", 0)

    def figure(self) -> go.Figure:
        return go.Figure({"data": self.data, "layout": self.layout}, _validate=False)


def scatter(**props) -> dict:
    """A scatter trace as a dict (for ``FigureSpec.add_trace``)."""
    return {"type": "scatter", **props}
