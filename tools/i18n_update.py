"""Update the translation catalog from the code: ``python -m tools.i18n_update [PART.po ...]``.

``python -m tools.i18n_update --compile`` only compiles the ``.po`` to the ``.mo`` (``make run``). Not
``pybabel compile``: its python-format check reads Plotly's hover templates (``%{y:.1f}% of``) as
%-formats and fails; tests/test_i18n.py checks the ``{name}`` placeholders instead.

1. Extracts every message (``_``, ``N_``, ``ngettext``, ``pgettext`` in the code; the hardware
   catalog's notes, ``tools/babel_toml.py``) as ``babel.cfg`` says.
2. Merges them into ``assets/locales/zh/LC_MESSAGES/messages.po``: new messages are added
   untranslated, messages no longer in the code are dropped, translations are kept.
3. Fills translations from the given ``.po`` files (a translator's batch), where they are not empty.
4. Compiles ``messages.mo``; prints how many messages are still untranslated.

``make i18n`` runs it. Safe to run from several shells at once (a file lock serializes them).
"""

from __future__ import annotations

import fcntl
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "assets" / "locales" / "zh" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")
KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2)}


def extract() -> Catalog:
    """Every message the code and the catalog notes hold, as a template catalog."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    with (ROOT / "babel.cfg").open(encoding="utf-8") as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    template = Catalog(project="fabric-planner", fuzzy=False)
    for _filename, _lineno, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        template.add(message, None, auto_comments=comments, context=context)
    return template


def load(path: Path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale="zh_Hans_CN")


def update(parts: list[Path]) -> tuple[int, int]:
    """Steps 2-4; returns (messages, untranslated)."""
    template = extract()
    catalog = load(PO)
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    for part in parts:
        for message in load(part):
            if not message.id or not message.string:
                continue
            existing = catalog.get(message.id, context=message.context)
            if existing is not None:
                if isinstance(message.string, (list, tuple)):
                    existing.string = tuple(message.string)
                else:
                    existing.string = message.string
                existing.flags.discard("fuzzy")
    with PO.open("wb") as handle:
        write_po(handle, catalog, width=0, omit_header=False, sort_output=True, include_lineno=False,
                 ignore_obsolete=True)
    with MO.open("wb") as handle:
        write_mo(handle, catalog, use_fuzzy=False)
    messages = [m for m in catalog if m.id]
    untranslated = [m for m in messages if not (all(m.string) if isinstance(m.string, (list, tuple)) else m.string)]
    return len(messages), len(untranslated)


def compile_only() -> None:
    """``messages.po`` -> ``messages.mo`` (what ``make run`` and ``make test`` need; no extraction)."""
    catalog = load(PO)
    with MO.open("wb") as handle:
        write_mo(handle, catalog, use_fuzzy=False)


def main(argv: list[str]) -> int:
    if argv == ["--compile"]:
        compile_only()
        return 0
    lock = (ROOT / "assets" / "locales" / ".lock").open("w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        total, missing = update([Path(a) for a in argv])
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
    print(f"{total} messages, {missing} untranslated -> {PO.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
