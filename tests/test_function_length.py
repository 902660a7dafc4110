"""No function or method in ``core`` is longer than ``MAX_LINES`` lines (a readable tree).

A function's length is counted from its ``def`` line to its last line (``end_lineno - lineno + 1``),
decorators excluded, docstring and nested functions included; a nested function counts in its own
right too. A longer function is split into named steps (small private functions whose docstrings say
what they compute).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
MAX_LINES = 150


def long_functions(source: str, filename: str = "<source>", limit: int = MAX_LINES) -> list[tuple[str, int, int]]:
    """``(qualified name, first line, lines)`` of every function or method of ``source`` over ``limit`` lines."""
    tree = ast.parse(source, filename=filename)
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                lines = child.end_lineno - child.lineno + 1
                if lines > limit:
                    found.append((name, child.lineno, lines))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def test_checker_finds_a_long_function_a_long_method_and_a_nested_one():
    body = "\n".join(f"    x{n} = {n}" for n in range(MAX_LINES - 1))  # def line + 149 = 150 lines: allowed
    ok = f"def fits():\n{body}\n"
    assert long_functions(ok) == []
    long_body = body + "\n    return x0"  # 151 lines
    source = (f"@decorator\ndef too_long():\n{long_body}\n\n"
              f"class Box:\n    def method(self):\n{long_body.replace(chr(10), chr(10) + '    ').replace('    x0 =', '        x0 =', 1)}\n\n"
              f"def outer():\n    def inner():\n{long_body.replace(chr(10), chr(10) + '    ').replace('    x0 =', '        x0 =', 1)}\n"
              f"    return inner\n")
    found = {name: lines for name, _line, lines in long_functions(source)}
    assert found["too_long"] == MAX_LINES + 1  # decorators do not count
    assert found["Box.method"] == MAX_LINES + 1
    assert found["outer.inner"] == MAX_LINES + 1
    assert found["outer"] == MAX_LINES + 3


def test_no_function_in_core_is_over_the_limit():
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 50
    over = [f"{path.relative_to(ROOT)}:{line} {name} ({lines} lines)"
            for path in files
            for name, line, lines in long_functions(path.read_text(encoding="utf-8"), str(path))]
    assert not over, f"functions over {MAX_LINES} lines (split them into named steps):\n" + "\n".join(over)
