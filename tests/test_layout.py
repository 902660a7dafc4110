"""The engine's layout rules, checked from the import graph (docs/architecture.md).

``core`` is layered: each package may import only itself and the layers below it, and nothing in
``core`` imports Streamlit, ``webui`` or ``pages``. Imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"

# lowest first; a module may import its own layer and any layer before it
LAYERS = [
    ("core.i18n", "core.text", "core.progress"),
    ("core.units", "core.plurals"),
    ("core.errors", "core.memo", "core.processes"),
    ("core.vocab",),
    ("core.catalog", "core.spares", "core.scaleup", "core.hostlink"),
    ("core.design", "core.presets", "core.designwords"),
    ("core.fabric",),
    ("core.networks",),
    ("core.physical",),
    ("core.cost",),
    ("core.plan",),
    ("core.perf",),
    ("core.analysis",),
    ("core.figures",),
    ("core.formats",),
    ("core.cli", "core.__main__"),
]
FORBIDDEN_ANYWHERE = ("streamlit", "webui", "pages", "app")


def _layer(module: str) -> int:
    if module == "core":  # core/__init__.py: the package docstring, imports nothing
        return 0
    for index, names in enumerate(LAYERS):
        if any(module == name or module.startswith(name + ".") for name in names):
            return index
    raise AssertionError(f"{module} is in no layer of tests/test_layout.py; add its package to LAYERS")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[str]:
    """Every module ``path`` imports (absolute names; ``from core import x`` counts as ``core.x``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative imports are not used in core"
            if node.module == "core":
                found += [f"core.{alias.name}" for alias in node.names]
            elif node.module:
                found.append(node.module)
    return found


MODULES = sorted(CORE.rglob("*.py"))


def test_every_core_module_is_in_a_layer():
    assert MODULES
    for path in MODULES:
        _layer(_module_name(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_core_imports_only_downward(path):
    me = _module_name(path)
    mine = _layer(me)
    for name in _imports(path):
        top = name.split(".")[0]
        assert top not in FORBIDDEN_ANYWHERE, f"{me} imports {name}: core never imports the UI"
        if top == "core" and name != "core":
            assert _layer(name) <= mine, f"{me} (layer {LAYERS[mine][0]}) imports {name}, which sits above it"


def test_fabric_never_imports_perf_and_formats_never_import_the_ui():
    for path in (CORE / "fabric").rglob("*.py"):
        assert not any(n.startswith("core.perf") for n in _imports(path)), path
    for path in (CORE / "formats").rglob("*.py"):
        assert not any(n.split(".")[0] in FORBIDDEN_ANYWHERE for n in _imports(path)), path


def test_every_package_says_what_it_holds_and_may_import():
    for init in CORE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "May import" in doc, f"{init} needs a docstring saying what it may import"


def test_the_rule_catches_an_upward_import(tmp_path):
    """The checker itself fails on a bad import (so the tests above can fail)."""
    bad = tmp_path / "bad.py"
    bad.write_text("from core.perf.collectives import sweep\nimport streamlit\n")
    names = _imports(bad)
    assert _layer("core.perf.collectives") > _layer("core.fabric.sizing")
    assert "streamlit" in names and "core.perf.collectives" in names


def _module_level_imports(path: Path) -> set[str]:
    """Core modules ``path`` imports at module level (``from a.b import c`` counts as ``a.b`` and ``a.b.c``)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of ``graph`` (module -> modules it imports), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_core_modules_import_each_other_in_a_cycle():
    """Module-level imports between core modules form no cycle (the failure package's modules included)."""
    names = {_module_name(path): path for path in MODULES}
    graph = {me: {n for n in _module_level_imports(path) if n in names and n != me} for me, path in names.items()}
    assert "core.analysis.failure.whatif" in graph["core.analysis.failure"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]  # the checker works
    assert _cycle(graph) == []


def test_the_code_names_no_issue_numbers():
    """Comments and docstrings say what the code does, not which tracker issue asked for it."""
    import re

    pattern = re.compile(r"\bissue \d+", re.IGNORECASE)
    found = [f"{path.relative_to(ROOT)}:{number}" for folder in ("core", "webui", "pages", "tests", "benchmarks", "tools")
             for path in sorted((ROOT / folder).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if pattern.search(line) and path.name != "test_layout.py"]
    assert not found, found
    assert pattern.search("see issue 22") and not pattern.search("an issue with ports")  # the check itself


KNOWN_PRIVATE_IMPORTS = {
    ("core.fabric.domainlevels", "core.catalog", "_Priced"), ("core.formats.report", "core.figures.style", "_wide"),
    ("core.formats.podverify", "core.analysis.verify", "_ACTIONS"),
    ("core.formats.podverify", "core.analysis.verify", "_found_json"),
    ("core.formats.drawio", "core.figures.topology", "_layer_positions"),
    ("core.analysis.spof", "core.analysis.failure", "_element"),
    ("core.analysis.optimize", "core.fabric.sizing", "_leaf_split"),
}
"""Private names imported across packages before the rule below was written: they may go (made public), not grow."""


def _home(module: str) -> str:
    """The package whose modules share ``module``'s private names: its package, or itself for a module directly
    under ``core`` (``core.cost``'s private names are its own)."""
    parent = module.rpartition(".")[0]
    return module if parent == "core" or (CORE / Path(*module.split(".")[1:])).is_dir() else parent


def _private_imports(me: str, source: str) -> set[tuple[str, str, str]]:
    """``(importer, module, name)`` of every private name (``_x``; gettext's ``_`` aside) that module ``me`` (its
    ``source``) imports from a core module of another package than its own (``_home``)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("core"):
            home = _home(node.module)
            if me == home or me.startswith(home + "."):
                continue
            found |= {(me, node.module, a.name) for a in node.names
                      if a.name.startswith("_") and a.name != "_" and not a.name.startswith("__")}
    return found


def test_no_module_imports_a_private_name_of_another_package():
    """A name another package needs is public, with a docstring; a leading underscore means "this package only"."""
    found = set().union(*(_private_imports(_module_name(path), path.read_text(encoding="utf-8")) for path in MODULES))
    assert found <= KNOWN_PRIVATE_IMPORTS, sorted(found - KNOWN_PRIVATE_IMPORTS)
    # the check itself: another package's private name is caught, a sibling's or gettext's is not
    assert _private_imports("core.analysis.podoptics", "from core.cost import BomRow, _row_adder") == {
        ("core.analysis.podoptics", "core.cost", "_row_adder")}
    assert _private_imports("core.fabric.dragonfly", "from core.fabric.sizing import _tier") == set()
    assert _private_imports("core.cost", "from core.cost import _prices\nfrom core.i18n import _") == set()
    assert _private_imports("core.analysis.spof", "from core.analysis.failure import _element") == {
        ("core.analysis.spof", "core.analysis.failure", "_element")}
