"""No page draws a stray value: Streamlit's "magic" writes the value of any expression statement of a page script
that is not a call (``x if c else y``, ``a or b``, a name) to the page ("None" under a tab); a page script's
expression statements are calls, docstrings, ``yield`` or ``await`` only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def stray_values(source: str) -> list[int]:
    """Line numbers of the expression statements Streamlit's magic would draw."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and not isinstance(node.value, (ast.Call, ast.Yield, ast.YieldFrom, ast.Await)):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                continue  # a docstring (magic shows only the module's first one when configured; ours are off)
            out.append(node.lineno)
    return out


def test_the_rule_sees_a_conditional_expression_statement():
    assert stray_values("def f(a):\n    g(a) if a else h(a)\n    a or g(a)\n    g(a)\n    '''doc'''\n") == [2, 3]


def test_no_page_script_has_a_stray_value():
    found = {path.name: lines for path in SCRIPTS if (lines := stray_values(path.read_text()))}
    assert not found, found
