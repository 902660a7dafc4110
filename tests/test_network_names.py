"""The networks are named in one table, ``core.networks.NETWORK_WORDS``, that every form reads through
``core.networks.network_name``: the Designer's By network chart and table, the CLI's key numbers, the XLSX and the
review pack. A second table of network names (a dict from the network keys to marked words) fails here."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import openpyxl

from core.design import Design
from core.figures.cost import networks_rows, networks_table
from core.figures.keynumbers import key_numbers
from core.formats import xlsx
from core.formats.report import design_report_html
from core.i18n import _, language
from core.networks import NETWORK_WORDS, NETWORKS, network_name
from core.plan import plan

ROOT = Path(__file__).resolve().parent.parent
DECLARATION = ROOT / "core" / "networks" / "model.py"


def _marked(node: ast.AST) -> bool:
    """A value a table of names holds: a string marked for translation (``N_("...")``, ``_("...")``)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("N_", "_")
            and bool(node.args) and isinstance(node.args[0], ast.Constant))


def name_tables(source: str) -> list[int]:
    """The lines of the dicts in ``source`` that name three networks or more (network keys to marked words)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            named = [k.value for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and k.value in NETWORKS and _marked(v)]
            if len(named) >= 3:
                lines.append(node.lineno)
    return lines


def test_the_rule_catches_a_second_table():
    second = ('NAMES = {"compute": N_("compute"), "storage": N_("storage network"), "inband": N_("in-band"), '
              '"oob": N_("oob")}')
    assert name_tables(second) == [1]
    assert name_tables('COLOURS = {"compute": "#5d6d7e", "storage": "#2e86c1", "inband": "#117a65"}') == []


def test_no_second_table_of_network_names():
    found = []
    for folder in ("core", "webui", "pages", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != DECLARATION:
                found += [f"{path.relative_to(ROOT)}:{line}" for line in name_tables(path.read_text())]
    found += [f"app.py:{line}" for line in name_tables((ROOT / "app.py").read_text())]
    assert not found, f"network names declared again (read core.networks.network_name instead): {found}"


def test_every_form_names_the_networks_alike():
    p = plan(Design(gpu="H100", nodes=64, management=True))
    for lang in ("en", "zh"):
        with language(lang):
            names = [network_name(n, "bill") for n in p.summary()["networks"]]
            assert len(names) == 4 and names[1] == network_name("storage")
            assert list(networks_table(p)[_("Network")]) == names
            assert [r[_("Network")] for r in networks_rows(p)] == [network_name(n, "short") for n in NETWORK_WORDS]
            text = str(key_numbers(p.summary()))
            assert all(name in text for name in names), (lang, text)
            pack = design_report_html(p, name="t", share_link="")
            assert all(name in pack for name in names), lang
            book = openpyxl.load_workbook(io.BytesIO(xlsx.design_xlsx(p)))
            assert network_name("storage").capitalize() in book.sheetnames, (lang, book.sheetnames)
            cells = {c for ws in book.worksheets for row in ws.iter_rows(values_only=True) for c in row}
            assert set(names) <= cells, lang
            assert lang != "en" or not {"storage network", "in-band management network"} & cells  # the XLSX's own
