"""The mixed pods of ``python -m core plan --pods ...``: one pod per line, the shared spine layer and the totals
(``core.analysis.pods.pods_lines``)."""

from __future__ import annotations

from core.analysis.pods import pods_lines
from core.cli.common import row
from core.i18n import _


def pods_table(summary: dict, unit: str = "GB/s") -> str:
    """The ``plan`` table's section of a mixed design from ``core.analysis.pods.pods_summary``: a heading, then
    ``pods_lines`` as rows, bandwidths in ``unit`` ("GB/s" or "Gb/s")."""
    lines = [_("Mixed pods under one core layer (the totals above are the whole design's):") if "cores" in summary
             else _("Mixed pods under one spine layer (the totals above are the whole design's):")]
    lines += [row(label, text) for label, text in pods_lines(summary, unit)]
    return "\n".join(lines) + "\n"
