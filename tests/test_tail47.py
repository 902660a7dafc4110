"""Small contradictions left by session 47's fixes (tail47): one rule per thing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_counted_noun_of_core_plurals_has_no_second_copy():
    """``core.plurals.nodes`` is the node plural; the Performance caption (jobform) and the topology figure's server
    labels kept their own ``ngettext("{count} node", ...)`` (and the torus title its links, the Optimize words their
    tiers and switches): one noun, one message, one count format."""
    words = re.findall(r'ngettext\(("[^"]+")', (ROOT / "core" / "plurals.py").read_text(encoding="utf-8"))
    assert '"{count} node"' in words
    copies = [f"{path.relative_to(ROOT)}: {word}" for path in sorted([*ROOT.glob("core/**/*.py"), *ROOT.glob("pages/*.py")])
              if path.name != "plurals.py" for word in words
              if f"ngettext({word}" in path.read_text(encoding="utf-8")]
    assert not copies, copies
