"""No dead functions in the engine: every module-level function of ``core/`` is named somewhere else in the
repository (called, imported, registered or documented), so nothing is kept that nothing uses."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".venv", ".git", "node_modules"}


def _dead(texts: dict[str, str], engine: list[str]) -> list[tuple[str, str]]:
    """(file, function) of the undecorated module-level functions of the ``engine`` files whose name occurs
    once in all of ``texts`` (file -> text): their own definition."""
    words: Counter = Counter()
    for text in texts.values():
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return [(path, node.name) for path in engine for node in ast.parse(texts[path]).body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list
            and words[node.name] <= 1]


def test_every_engine_function_is_used():
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8", errors="ignore") for p in ROOT.rglob("*")
             if p.is_file() and p.suffix in (".py", ".md", ".toml") and not SKIP & set(p.relative_to(ROOT).parts)}
    engine = sorted(path for path in texts if path.startswith("core/") and path.endswith(".py"))
    assert len(engine) > 100
    assert not _dead(texts, engine)


def test_the_check_finds_a_planted_dead_function():
    texts = {"core/planted.py": "def used(x):\n    return x\n\n\ndef never_called(y):\n    return y\n",
             "core/user.py": "from core.planted import used\n\nused(1)\n"}
    assert _dead(texts, ["core/planted.py", "core/user.py"]) == [("core/planted.py", "never_called")]
