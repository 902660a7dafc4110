"""Download file names, after the design: ``fabric-h100-2048-ib.xlsx``, ``fabric-h100-2048-ib-bom.csv``.

``design_slug(plan)`` is ``fabric-<system>-<GPUs>-<fabric>``: the system id in lower case (``h100``,
``gb200-nvl72``), the GPU count the plan builds (digits, no separators) and ``ib`` (InfiniBand) or
``roce`` (Ethernet RoCE); a design with pods: every pod's system and GPU (``fabric-h100-b200-768-ib``). Only ``a-z``, ``0-9`` and ``-``, at most ``MAX_SLUG`` characters, so the name is
safe on every file system and in a ``Content-Disposition`` header. ``file_name(plan, kind)`` adds what
the file holds and its suffix; every download of the app and the CLI's default names use it.
"""

from __future__ import annotations

import re
import unicodedata

MAX_SLUG = 60
"""Longest slug [characters]."""

FABRIC_SLUGS = {"infiniband": "ib", "ethernet": "roce"}
"""Fabric id -> its short form in file names."""

KINDS = {
    "xlsx": ".xlsx", "bom-csv": "-bom.csv", "json": ".json",
    "report-html": "-report.html", "report-pdf": "-report.pdf",
}
"""What a download holds -> what follows the slug (exports use ``-<format name><suffix>``)."""

_UNSAFE = re.compile(r"[^a-z0-9]+")


def slug_part(text: str) -> str:
    """``text`` as a file-name part: ASCII lower case, runs of anything else turned into one ``-``."""
    ascii_text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    return _UNSAFE.sub("-", ascii_text.lower()).strip("-")


def design_slug(plan) -> str:
    """``fabric-h100-2048-ib``: system, GPU count and fabric of a ``core.plan.Plan``; a design with pods names the
    whole design, every pod's system and every GPU (``fabric-h100-b200-768-ib``)."""
    resolved = plan.resolved
    systems, gpus = [resolved.system.id], resolved.gpus
    if getattr(plan.design, "pods", None):
        from core.analysis.whole import design_mixed
        from core.errors import FabricPlannerError

        try:
            mixed = design_mixed(plan.design)
        except FabricPlannerError:  # pods that cannot be planned together: named after the first pod
            mixed = None
        if mixed is not None:
            systems, gpus = list(dict.fromkeys(pod.system for pod in mixed.fabric.pods)), mixed.fabric.gpus
    parts = ["fabric", "-".join(slug_part(s) for s in systems if slug_part(s)) or "gpu", str(int(gpus)),
             FABRIC_SLUGS.get(resolved.fabric, slug_part(resolved.fabric) or "net")]
    return "-".join(parts)[:MAX_SLUG].strip("-")


def file_name(plan, kind: str) -> str:
    """The download name of ``kind`` (a key of ``KINDS``) for ``plan``: ``fabric-h100-2048-ib-bom.csv``."""
    return design_slug(plan) + KINDS[kind]


def export_file_name(plan, name: str, suffix: str) -> str:
    """The download name of export format ``name`` (``core.formats.exports``): ``fabric-h100-2048-ib-slurm.conf``."""
    safe_suffix = "." + slug_part(suffix) if slug_part(suffix) else ""
    return f"{design_slug(plan)}-{slug_part(name) or 'export'}{safe_suffix}"
