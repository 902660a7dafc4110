"""One bandwidth format and one money format.

``core.i18n.usd`` writes every amount of money and ``core.units`` every bandwidth, in the unit the
user chose once (``ui_bw``); a grep over the display code finds any other hand-written format.
"""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

from core import units
from core.i18n import language, usd

ROOT = Path(__file__).resolve().parent.parent


# --- money ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, en, zh", [
    (0, "$0", "0美元"),
    (0.4, "$0", "0美元"),
    (-0.4, "$0", "0美元"),
    (999, "$999", "999美元"),
    (1e3, "$1,000", "1,000美元"),
    (9_994, "$9,994", "9,994美元"),
    (49_983, "$49,983", "4.998万美元"),
    (994_999, "$994,999", "99.5万美元"),
    (999_999.6, "$1.00 M", "100万美元"),
    (1e6, "$1.00 M", "100万美元"),
    (8_534_000, "$8.53 M", "853.4万美元"),
    (51_180_000, "$51.2 M", "5,118万美元"),
    (853_064_232, "$853 M", "8.53亿美元"),
    (999_700_000, "$1.00 B", "10亿美元"),
    (1e9, "$1.00 B", "10亿美元"),
    (1.1e9, "$1.10 B", "11亿美元"),
    (1.2345e12, "$1,234 B", "12,345亿美元"),
    (-1.1e9, "-$1.10 B", "-11亿美元"),
    (-49_983, "-$49,983", "-4.998万美元"),
    (-853_064_232, "-$853 M", "-8.53亿美元"),
    (67_900, "$67,900", "6.79万美元"),  # the review's 6.790万美元: Chinese drops the decimals' trailing zeros
    (2e9, "$2.00 B", "20亿美元"),  # English keeps three significant figures
])
def test_money_format_both_languages(value, en, zh):
    assert usd(value) == en
    with language("zh"):
        assert usd(value) == zh


def test_money_deltas_carry_their_sign():
    assert usd(1.1e9, signed=True) == "+$1.10 B" and usd(-1.1e9, signed=True) == "-$1.10 B"
    assert usd(0, signed=True) == "$0"
    with language("zh"):
        assert usd(49_983, signed=True) == "+4.998万美元"
    assert usd(float("nan")) == usd(None) == "-"


def test_money_axis_ticks_are_the_money_format():
    axis = units.money_axis(1.2e9, title="USD")
    assert axis["tickvals"][0] == 0 and axis["tickvals"][-1] <= 1.2e9
    assert axis["ticktext"] == [usd(v, trim=True) for v in axis["tickvals"]]
    assert "$1 B" in axis["ticktext"] and "tickformat" not in axis and "tickprefix" not in axis
    with language("zh"):  # no needless decimals: 6万美元, not 6.000万美元
        assert usd(6e4, trim=True) == "6万美元" and usd(6.05e5, trim=True) == "60.5万美元" and usd(6e4) == "6万美元"
    assert usd(1.5e9, trim=True) == "$1.5 B" and usd(49_983, trim=True) == "$49,983"
    with language("zh"):
        assert units.money_axis(1.2e9)["ticktext"][-1].endswith("亿美元")


def test_excel_money_format_per_language():
    assert units.excel_money_format("en").count('" B"') == 1 and '" M"' in units.excel_money_format("en")
    assert "亿美元" in units.excel_money_format("zh") and "万美元" in units.excel_money_format("zh")
    with language("zh"):
        assert units.excel_money_format() == units.excel_money_format("zh")


# --- bandwidth --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("gbits, unit, text", [
    (0, "GB/s", "0 GB/s"),
    (0.5, "Gb/s", "0.5 Gb/s"),
    (400, "GB/s", "50 GB/s"),
    (400, "Gb/s", "400 Gb/s"),
    (1e3, "Gb/s", "1 Tb/s"),
    (8e3, "GB/s", "1 TB/s"),
    (1e6, "Gb/s", "1 Pb/s"),
    (409_600, "GB/s", "51.2 TB/s"),
    (409_600, "Gb/s", "410 Tb/s"),
    (8e9, "GB/s", "1,000 PB/s"),
])
def test_bandwidth_format(gbits, unit, text):
    assert units.bandwidth(gbits, unit) == text


def test_bandwidth_scale_and_deltas():
    assert units.scale(409_600, "GB/s") == (8000, "TB/s")
    assert units.scale(409_600, "Gb/s") == (1000, "Tb/s")
    assert units.scale(409_600, "Gb/s", prefix=False) == (1, "Gb/s")
    assert units.signed_bandwidth(-400, "GB/s") == "-50 GB/s" and units.signed_bandwidth(8e3, "Gb/s") == "+8 Tb/s"
    with pytest.raises(ValueError):
        units.bandwidth(1, "TB/s")


# --- no hand-written formats outside the formatters --------------------------------------------------------
SCANNED = [*sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "webui").glob("*.py")),
           *sorted((ROOT / "core" / "figures").glob("*.py")), ROOT / "core" / "formats" / "report.py"]
EXEMPT_FILES = {"core/units.py",  # the formatter itself
                "pages/2_Catalog.py"}  # the raw catalog: its columns are named with the catalog's own units
ALLOWED = {
    # a port type is named by its line rate (400G Ethernet), not a bandwidth figure of the design
    ("webui/state.py", 'f"{s} Gb/s"'), ("webui/state.py", 'f"{default_speed} Gb/s"'),
    ("webui/state.py", 'f"{speed} Gb/s"'), ("webui/state.py", 'f"{v} Gb/s"'),
    ("webui/state.py", '"NICs that run {speed} Gb/s on this fabric; a NIC\'s ports bound the planes."'),
    # the older link's constraint, in its own unit (the busbw box speaks the sidebar's unit)
    ("pages/7_Optimize.py", '"Min. bisection per GPU [GB/s]"'),
    # the Plotly escaper turns a typed '$' into its entity (never typeset), not a money format
    ("core/figures/style.py", '"$"'),
}
RULES = [
    (re.compile(r"[TP][bB]/s"), "a T/P-prefixed bandwidth unit"),
    (re.compile(r"(\}|\d)\s*G[bB]/s"), "a number followed by GB/s or Gb/s"),
    (re.compile(r"\[\s*G[bB]/s"), "a header with a hard-coded GB/s or Gb/s"),
    (re.compile(r"\$%?\{"), "a number after a dollar sign"),
    (re.compile(r"\$,|,\.\d*s\b.*\$|\$[^\"']*\.\d*s\}"), "a d3 money format"),
    (re.compile(r"\}\s*USD\b(?!/)"), "a number followed by USD"),  # a rate (USD/kWh) is not an amount
    (re.compile(r"US\$|美元"), "a hand-written dollar name"),
]


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        if isinstance(node, (ast.Module, ast.ClassDef)):  # attribute docstrings: a string right after an assignment
            for a, b in zip(node.body, node.body[1:]):
                if isinstance(a, (ast.Assign, ast.AnnAssign)) and isinstance(b, ast.Expr) \
                        and isinstance(b.value, ast.Constant):
                    ids.add(id(b.value))
    return ids


def hand_written_formats(source: str, name: str = "<source>", rules: list | None = None) -> list[str]:
    """Every string literal (not a docstring) or keyword in ``source`` that formats money or bandwidth by hand
    (or breaks one of ``rules``, pairs of a pattern and what it finds, instead)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    encoded = [line.encode("utf-8") for line in lines]

    def segment(node) -> str:  # ast.get_source_segment, without re-splitting the file for every literal
        first = starts[node.lineno - 1] + len(encoded[node.lineno - 1][:node.col_offset].decode("utf-8"))
        last = starts[node.end_lineno - 1] + len(encoded[node.end_lineno - 1][:node.end_col_offset].decode("utf-8"))
        return source[first:last]

    skip = _docstrings(tree)
    inner = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    money = rules is None
    found = []
    for node in ast.walk(tree):
        if money and isinstance(node, ast.keyword) and node.arg == "tickprefix":
            found.append(f"{name}:{node.lineno}: tickprefix (Plotly's own money format)")
        if money and isinstance(node, ast.keyword) and node.arg == "format" and isinstance(node.value, ast.Constant) \
                and node.value.value == "dollar":
            found.append(f"{name}:{node.lineno}: format='dollar' (Streamlit's own money format)")
        if not (isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in skip or id(node) in inner:
            continue
        text = segment(node)
        if (name, text) in ALLOWED:
            continue
        if money and isinstance(node, ast.Constant) and node.value == "$":
            found.append(f"{name}:{node.lineno}: a bare '$' (a prefix or a hand-made amount)")
        for pattern, what in RULES if money else rules:
            if pattern.search(text):
                found.append(f"{name}:{node.lineno}: {what}: {text[:80]}")
    return found


def test_the_grep_finds_hand_written_formats():
    bad = [
        'x = f"{v:,.2f} Tb/s"', 'x = "bisection [TB/s]"', 'x = f"{v:,.0f} Gb/s"', 'x = _("busbw [GB/s]")',
        'x = f"${v:,.0f}"', 'x = "%{y}: $%{y:,.0f}"', 'x = dict(tickformat="$,.3s")', 'x = dict(tickprefix="$")',
        'x = f"{v:,.0f} USD"', 'x = "US$" + str(v)', 'x = f"{v}万美元"', 'x = C(format="dollar")',
        'x = "$" + str(v)', 'x = "{a} GB/s".format(a=1)',
    ]
    for snippet in bad:
        assert hand_written_formats(snippet), snippet
    good = ['"""A docstring may say Tb/s and $1.10 B."""', 'x = units.bandwidth(v, unit)', 'x = usd(v)',
            'x = _("Capex [USD]")', 'x = _("{label} [{unit}, one direction]")', 'x = f"{v:.1%}"']
    for snippet in good:
        assert not hand_written_formats(snippet), snippet


def test_no_hand_written_money_or_bandwidth_formats():
    found = []
    for path in SCANNED:
        name = path.relative_to(ROOT).as_posix()
        if name not in EXEMPT_FILES:
            found += hand_written_formats(path.read_text(encoding="utf-8"), name)
    assert not found, "\n".join(found)



# --- one ratio format ---------------------------------------------------------------------------------------
RATIO_SCANNED = [*SCANNED, *sorted((ROOT / "core" / "formats").glob("*.py")), ROOT / "core" / "perf" / "jobform.py",
                 ROOT / "core" / "analysis" / "whatif.py", ROOT / "core" / "designwords.py", ROOT / "core" / "plan.py",
                 ROOT / "core" / "perf" / "collectives.py"]
RATIO_RULES = [(re.compile(r"(\}|%\{[^}]*\})\s*[:：]\s*1(?!\d)"), "a number followed by ':1' (core.units.ratio)")]
"""A ratio such as an oversubscription is written by ``core.units.ratio`` (``1.92:1``), never by a template or an
f-string that puts ``:1`` after a number (``f"{v:g}:1"`` printed ``1.92481:1``)."""


def test_the_grep_finds_hand_written_ratios():
    for snippet in ['x = f"{v:g}:1"', 'x = _("taper {taper}:1").format(taper=1)', 'x = "%{x:g}:1 -> %{y}"',
                    'x = _("**{link} : scale-out** {ratio} : 1 per GPU")']:
        assert hand_written_formats(snippet, rules=RATIO_RULES), snippet
    for snippet in ['x = units.ratio(v)', 'x = N_("InfiniBand 2:1")', 'x = _("(1:1 = non-blocking)")',
                    'x = _("{ratio} at the leaf")']:
        assert not hand_written_formats(snippet, rules=RATIO_RULES), snippet


def test_no_hand_written_ratios():
    assert units.ratio(1.924812) == "1.92:1" and units.ratio(2) == "2:1"
    found = []
    for path in dict.fromkeys(RATIO_SCANNED):
        name = path.relative_to(ROOT).as_posix()
        if name not in EXEMPT_FILES:
            found += hand_written_formats(path.read_text(encoding="utf-8"), name, rules=RATIO_RULES)
    assert not found, "\n".join(found)


# --- the review pack and the workbook take the unit as a parameter -----------------------------------------
def _section(html: str, ident: str) -> str:
    part = html[html.index(f'data-section="{ident}"'):]
    return part[:part.index("</section>")]


@pytest.fixture(scope="module")
def small_plan():
    from core.design import Design
    from core.plan import plan

    return plan(Design(nodes=64))


@pytest.mark.parametrize("unit, other", [("Gb/s", r"\d\s*[GTP]B/s"), ("GB/s", r"\d\s*[GTP]b/s")])
def test_review_pack_and_workbook_use_the_unit_asked_for(small_plan, unit, other):
    from core.formats import report, xlsx

    html = report.design_report_html(small_plan, name="units", share_link="https://example.test/", unit=unit)
    for ident in ("key-numbers", "bandwidth"):
        text = _section(html, ident)
        assert not re.findall(other, text), (ident, re.findall(r".{0,40}" + other, text)[:5])
        assert "T" + unit[1:] in text, ident  # the bisection (card, table header), in the same system
    rows = {label: shown for label, _v, shown, _f in xlsx.key_number_rows(small_plan, unit) if "/s" in shown}
    assert len(rows) == 3 and all(shown[1:] == unit[1:] for shown in rows.values()), rows


def test_small_bandwidths_are_decimals_not_exponents():
    """The Performance page's collectives table showed algbw ``7.3e-05 GB/s`` beside busbw ``0.000146 GB/s``."""
    assert units.number(7.3e-05) == "0.000073"
    assert units.number(0.000146) == "0.000146"
    assert units.number(-1.234e-06) == "-0.00000123"
    assert units.bandwidth(units.from_gbytes(7.3e-05), "GB/s") == "0.000073 GB/s"
    assert units.number(0.0) == "0" and units.number(0.5) == "0.5" and units.number(12.34) == "12.3"


def test_the_performance_pages_design_labels_write_the_ratio_once():
    """The placement sentence names the runs by these labels; an end-to-end ratio such as 1.924812 read
    "1.92481:1" there."""
    from types import SimpleNamespace

    from core.perf import jobform
    plan = SimpleNamespace(resolved=SimpleNamespace(nic=SimpleNamespace(transport=None), fabric="infiniband", gpus=768,
                                                    system=SimpleNamespace(id="H100")),
                           bandwidth=SimpleNamespace(oversubscription=1.924812))
    with language("en"):
        assert jobform.fabric_label(plan) == "This design (InfiniBand, 1.92:1)"
        assert jobform.linked_label(plan) == "Linked design (768 x H100, InfiniBand, 1.92:1)"


# --- one power format ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw, text", [
    (1241.3, "1.24 MW"), (1613.7, "1.61 MW"), (23_482.7, "23.5 MW"), (30_527.5, "30.5 MW"), (687.1, "687 kW"),
    (41.0, "41 kW"), (40.8, "40.8 kW"), (96.7, "96.7 kW"), (0, "0 kW"), (1000, "1 MW"), (150_000, "150 MW"),
])
def test_power_format_three_significant_figures(kw, text):
    """IT power read "1 MW" for 1,241.3 kW (a 19 % rounding) on the key card, the cost chart and the pack."""
    assert units.power(kw) == text
    assert units.kw(41.0) == "41" and units.kw(30_527.5) == "30,528" and units.kw(40.84) == "40.8"


@pytest.mark.parametrize("fraction, text", [(0.63, "63%"), (0.751, "75.1%"), (0.99, "99%"), (0.0, "0%"),
                                            (0.0044, "0.44%"), (1.0, "100%")])
def test_percent_three_significant_figures(fraction, text):
    assert units.percent(fraction) == text


POWER_SCANNED = [*RATIO_SCANNED, *sorted((ROOT / "core" / "cli").glob("plan*.py")), ROOT / "core" / "cli" / "pods.py",
                 *sorted((ROOT / "core" / "cli").glob("*availability.py")),
                 ROOT / "core" / "analysis" / "pods.py", ROOT / "core" / "scaleup.py", ROOT / "core" / "cost.py",
                 ROOT / "core" / "physical" / "layout.py", ROOT / "core" / "analysis" / "optimize.py"]
POWER_RULES = [
    (re.compile(r"(\}|\d)\s*MW\b"), "a number followed by MW (core.units.power)"),
    (re.compile(r"\{[^{}]*:[^{}]*\}\s*kW\b"), "a format spec followed by kW (core.units.power / kw)"),
    (re.compile(r"\{[^{}]*:[^{}]*\.[2-9]%\}"), "a percentage with two decimals (core.units.percent)"),
]
POWER_FORMATTERS = {"kw", "_kw", "power", "power_text"}


def kw_template_values(source: str, name: str = "<source>") -> list[str]:
    """Every ``_("... {x} kW ...").format(x=VALUE)`` in ``source`` whose VALUE is not written by ``core.units.kw``
    (or ``power``): a hand-made ``f"{v:,.1f}"`` beside a ``kw(v)`` printed "limit 41.0 kW" next to "of 41 kW"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"):
            continue
        texts = [a.value for n in ast.walk(node.func.value) if isinstance(n, ast.Call)
                 for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        fields = {m for text in texts for m in re.findall(r"\{(\w+)\}\s*kW\b", text)}
        for keyword in node.keywords:
            if keyword.arg in fields:
                value = keyword.value
                func = value.func if isinstance(value, ast.Call) else None
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called not in POWER_FORMATTERS:
                    found.append(f"{name}:{keyword.lineno}: {keyword.arg}= not by core.units.kw")
    return found


def test_the_grep_finds_hand_written_power():
    for snippet in ['x = f"{v / 1000:.0f} MW"', 'x = f"{v:,.1f} kW"', 'x = f"{a.share:.2%}"']:
        assert hand_written_formats(snippet, rules=POWER_RULES), snippet
    for snippet in ['x = _("limit {kw} kW").format(kw=f"{v:g}")', 'x = _("IT {it} kW").format(it=number(v, 1))']:
        assert kw_template_values(snippet), snippet
    for snippet in ['x = units.power(v)', 'x = _("limit {kw} kW").format(kw=units.kw(v))', 'x = f"{v:.1%}"',
                    'x = _("{rack}, {share:.0%} of its {limit} kW limit").format(limit=kw(v), share=s)']:
        assert not hand_written_formats(snippet, rules=POWER_RULES) and not kw_template_values(snippet), snippet


def test_the_it_power_card_says_its_help_in_its_own_format():
    """16,384 H100: the IT power card reads MW, and its help writes the IT, network and facility power by the same
    ``core.units.power`` (MW from 1,000 kW, three significant figures), never "1,241 kW" beside "1.24 MW"."""
    from core.design import Design
    from core.figures.keynumbers import key_numbers
    from core.plan import plan

    s = plan(Design(gpu="H100", gpus=16384)).summary()
    card = {k.key: k for k in key_numbers(s)}["it_power"]
    assert card.value == units.power(s["power"]["it_kw"]) and card.value.endswith(" MW")
    assert card.help.startswith(f"{card.value} IT (compute fabric {units.power(s['power']['network_kw'])}); facility "
                                f"{units.power(s['power']['facility_kw'])} at PUE"), card.help


def test_no_hand_written_power():
    found = []
    for path in dict.fromkeys(POWER_SCANNED):
        name = path.relative_to(ROOT).as_posix()
        if name not in EXEMPT_FILES:
            text = path.read_text(encoding="utf-8")
            found += hand_written_formats(text, name, rules=POWER_RULES) + kw_template_values(text, name)
    assert not found, "\n".join(found)


# --- the CLI's plan and the mixed pods' lines speak the one bandwidth unit ---------------------------------
BANDWIDTH_RULES = RULES[:3]
CLI_SCANNED = [ROOT / "core" / "cli" / "plan.py", ROOT / "core" / "cli" / "pods.py", ROOT / "core" / "analysis" / "pods.py",
               ROOT / "core" / "scaleup.py"]


def test_plan_and_pods_lines_have_no_hand_written_bandwidth():
    """``pods_lines`` printed "363.011 GB/s" and "153.6 Tb/s" in the pack a page after its cards' "19.2 TB/s"; the
    scale-up sentence "450.0 GB/s" with the unit switch on bits."""
    found = []
    for path in CLI_SCANNED:
        found += hand_written_formats(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix(),
                                      rules=BANDWIDTH_RULES)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("flag, other", [("gbyte", r"\d\s*[GTP]b/s"), ("gbit", r"\d\s*[GTP]B/s")])
def test_cli_plan_speaks_one_bandwidth_unit(flag, other):
    from core.cli import main

    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["plan", "--nodes", "64", "--pods", "B200:32:800", "--format", "table", "--units", flag])
    text = out.getvalue()
    assert not re.findall(other, text), re.findall(r".{0,30}" + other, text)[:5]
    assert "InfiniBand" in text and "infiniband" not in text  # the display word, as the Designer's subtitle
    assert "(s)" not in text and "1 plane," in text


# --- counted nouns, not "(s)" --------------------------------------------------------------------------------
NOT_YET_COUNTED = 0
"""Messages that still write ``(s)``: only ever fewer (each one moved to ``core.plurals`` lowers this)."""


def test_no_message_counts_with_s_in_brackets():
    """Users read "1 plane(s)", "2 tier(s)", "4 link(s) per spine-core pair", "1 micro-batches per step"."""
    from tools.i18n_update import extract

    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in extract() if m.id}
    bracketed = sorted(i for i in ids if re.search(r"[A-Za-z}]\(s\)", i) and "http(s)" not in i)
    assert len(bracketed) <= NOT_YET_COUNTED, bracketed
    for seen in ("{planes} plane(s)", "switches in {tiers} tier(s)", "tier(s) · oversubscription", "per spine-core pair",
                 "scalable unit(s) =", "per cage", "micro-batches per"):
        assert not [i for i in bracketed if seen in i], seen
    from core import plurals
    from core.i18n import language

    assert plurals.planes(1) == "1 plane" and plurals.planes(2) == "2 planes"
    assert plurals.micro_batches(1) == "1 micro-batch" and plurals.links(4) == "4 links"
    with language("zh"):
        assert plurals.planes(2) == "2 个网络平面"


def test_a_longest_cable_stays_inside_its_length_bin():
    """The pack's media table read "10.0-20.0 m ... longest 20.0" for a 19.99 m cable."""
    assert units.metres(19.99, 20) == "19.99" and units.metres(49.96, 50) == "49.96" and units.metres(18.1, 20) == "18.1"
    assert units.metres(85.02) == "85.0" and units.metres(20.0, 20) == "20.0"


def test_engine_table_cells_are_one_format():
    """The Performance page's communication table showed "5120", "1024", "687.195" where the pack printed
    "5,120", "1,024", "687.2": both now write ``core.units.cell``."""
    assert units.cell(5120) == "5,120" and units.cell(687.195) == "687.2" and units.cell(1234.5) == "1,234"
    source = (ROOT / "pages" / "3_Performance.py").read_text(encoding="utf-8")
    assert "units.cell(v)" in source.split("communication_rows(here", 1)[1].split("st.subheader", 1)[0]


# --- one percent format and one microsecond format, everywhere text is shown ----------------------------------
SHOWN_SCANNED = [*sorted((ROOT / "core").rglob("*.py")), *sorted((ROOT / "pages").glob("*.py")),
                 *sorted((ROOT / "webui").glob("*.py"))]
PERCENT_RULES = [(re.compile(r"\{[^{}]*:[^{}]*%\}"), "a percent format spec such as {x:.0%} (core.units.percent)")]
MICROSECOND_RULES = [
    (re.compile(r"(\}|\d)\s*us\b|\[\s*us\s*\]"), "'us' as a unit (core.units.microseconds, [µs] in a header)"),
    (re.compile(r"(\}|\d)\s*[µμ]s\b"), "a number followed by µs (core.units.microseconds)"),
    (re.compile("\u03bc"), "the Greek mu (the micro sign U+00B5 is core.units.MICROSECOND)"),
]
"""A share is written by ``core.units.percent`` (the KV-cache card wrote ``f"{load:.1%}"``, the pod table
``{:.0%}``: 12.3% there, 12% here for one kind of number) and a microsecond time by ``core.units.microseconds``
(the CLI, the hovers and the headers wrote ``us`` where the docs wrote ``µs``)."""


def test_the_grep_finds_hand_written_percentages_and_microseconds():
    for snippet in ['x = f"{v:.1%}"', 'x = _("{share:.0%} of it").format(share=s)', 'x = f"{e:+.1%}"',
                    'x = "%{y:.0%}"', 'x = f"{s:.4%}"']:
        assert hand_written_formats(snippet, rules=PERCENT_RULES), snippet
    for snippet in ['x = f"{t:,.1f} us"', 'x = _("time [us]")', 'x = "%{y:,.1f} us"', 'x = f"{t:.3g} µs"',
                    'x = "time [\u03bcs]"', 'x = _("{lat:+.3g} us per collective")']:
        assert hand_written_formats(snippet, rules=MICROSECOND_RULES), snippet
    for snippet in ['x = units.percent(v)', 'x = _("{share} of it").format(share=percent(s))', 'x = "100%"',
                    'x = units.microseconds(t)', 'x = _("time [µs]")', 'x = ("us", 10**3)', 'x = "status"',
                    'x = _("lat=MICROSECONDS")', 'x = _("{n} users")']:
        assert not hand_written_formats(snippet, rules=PERCENT_RULES + MICROSECOND_RULES), snippet


def streamlit_percent_columns(source: str, name: str = "<source>") -> list[str]:
    """Every ``format="percent"`` keyword in ``source``: Streamlit's own percentage (``3.13%`` and ``101.56%`` in the
    load tab's tier table where the CLI printed ``3.12%`` and ``102%``)."""
    return [f"{name}:{node.lineno}: format='percent' (Streamlit's own percentage; core.units.percent)"
            for node in ast.walk(ast.parse(source)) if isinstance(node, ast.keyword) and node.arg == "format"
            and isinstance(node.value, ast.Constant) and node.value.value == "percent"]


def test_no_hand_written_percentages_or_microseconds():
    assert units.microseconds(26_337.6) == "26,338 µs" and units.microseconds(3.5, signed=True) == "+3.5 µs"
    assert units.microseconds(-1.25, signed=True) == "-1.25 µs" and units.microseconds(0, signed=True) == "0 µs"
    assert units.percent(0.042, signed=True) == "+4.2%" and units.percent(-0.12, signed=True) == "-12%"
    assert units.percent(0, signed=True) == "0%" and units.percent(0.99977) == "99.98%" and units.percent(1) == "100%"
    assert units.percent(0.999_999_99) == ">99.999%" and units.percent(0.99999) == "99.999%"
    found = []
    for path in SHOWN_SCANNED:
        name = path.relative_to(ROOT).as_posix()
        if name != "core/units.py":  # the Catalog page too: its columns' units are the catalog's, its shares not
            text = path.read_text(encoding="utf-8")
            found += hand_written_formats(text, name, rules=PERCENT_RULES + MICROSECOND_RULES)
            found += streamlit_percent_columns(text, name)
    assert not found, "\n".join(found)
    assert streamlit_percent_columns('x = st.column_config.NumberColumn(format="percent")')


def test_a_number_without_bound_reads_unbounded_in_every_format():
    """An overloaded pool's utilisation (its load over no capacity) was "inf%" in the Inference page's split table
    and ``serve``'s pool line, beside the cards' and the chart's "unbounded": one rule (``units.unbounded``) for
    the percent and the latency formats; zh 无上限."""
    from core.i18n import language

    inf, nan = float("inf"), float("nan")
    assert units.unbounded(inf) and units.unbounded(nan) and not units.unbounded(1e308)
    assert units.percent(inf) == units.percent(nan) == units.milliseconds(inf) == "unbounded"
    assert units.percent(inf, signed=True) == "unbounded" and units.percent(1.5) == "150%"
    with language("zh"):
        assert units.percent(inf) == units.milliseconds(nan) == "无上限"


def test_a_step_time_beside_another_has_three_decimals_everywhere():
    """Compare wrote a step of 6.003 s as "6" (``units.number``) beside its delta "+0.003" and the Performance
    page's two-fabric table's 6.003: a step set beside another is ``units.seconds`` in every table (an axis tick
    stays round)."""
    from core.figures.compare import format_value

    assert format_value(6.003, "seconds") == units.seconds(6.003) == "6.003"
    assert format_value(239.478, "seconds") == "239.478" and format_value(6.0, "seconds", tick=True) == "6"


def test_numbers_set_side_by_side_share_the_most_decimals_any_needs():
    """``units.alike``: a row across designs writes each number with the decimals ``number`` gives the one that
    needs the most, so none loses a figure and none has fewer decimals than its neighbour."""
    assert units.alike([3.2205, 3.1045]) == ["3.22", "3.10"]
    assert units.alike([1962.2, 1968.4]) == ["1,962", "1,968"]
    assert units.alike([152.83, 98.44]) == ["152.8", "98.4"]
    assert units.alike([16.2, 18.06]) == ["16.2", "18.1"]
    assert units.alike([0.0123, 0.5]) == ["0.0123", "0.5000"]
    assert units.alike([0.0, 0.0]) == ["0", "0"]
    assert units.alike([math.inf, 2.5]) == ["unbounded", "2.50"]
