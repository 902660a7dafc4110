"""The export formats operations teams import, by name: one module per format, registered here.

``exports()`` maps a format name (``slurm``, ``graphml``, ...) to an ``Export``: its module's writer,
the file name suffix and MIME type, and a one-line description. ``python -m core export --format
NAME`` and the Designer's download buttons both read it, so a new format is one module in
``core/formats/`` defining ``EXPORTS = (Export(...), ...)`` and its name in ``FORMAT_MODULES``.

A writer is ``write(plan, out, naming) -> None``: it writes text to ``out`` (a text stream) as it
goes, so a 131,072-GPU design streams instead of building one huge string; ``naming`` is the
``core.fabric.naming.NamingScheme`` the user set.

Every file is written in one language, ``FILE_LANGUAGE`` (English), whatever the request's: machines and the people
who run them read these files, so a design gives the same bytes from the Designer's download in any language and
from ``python -m core export`` in any ``--lang``. A writer whose file holds words (draw.io, ASTRA-sim, the
Prometheus rules, the ibsim net file) writes them inside ``in_file_language()``, after saying any design it refuses
in the request's language (``core.errors``: the Designer's greyed-out button, the CLI's error line).
"""

from __future__ import annotations

import importlib
import io
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Callable, TextIO

from core.fabric.naming import NamingScheme
from core.i18n import DEFAULT_LANGUAGE, _, language

FILE_LANGUAGE = DEFAULT_LANGUAGE
"""The language of every export file, whatever the request's (module docstring)."""


def in_file_language() -> AbstractContextManager[None]:
    """The words a writer puts in its file, inside this, are in ``FILE_LANGUAGE`` (module docstring)."""
    return language(FILE_LANGUAGE)


@dataclass(frozen=True)
class Export:
    """One export format."""

    name: str
    """Format name on the command line (``--format NAME``)."""
    write: Callable[..., None]
    """``write(plan, out: TextIO, naming: NamingScheme) -> None``."""
    suffix: str
    """File name suffix, with the dot (``.conf``)."""
    mime: str
    label: str
    """What it is, in English, marked for translation with ``N_`` (translate where shown)."""
    applies: Callable[..., bool] | None = None
    """``applies(plan) -> bool``: whether the format fits the design (an InfiniBand simulator only for an
    InfiniBand fabric); None: every design. The Designer offers only the formats that fit; the command line
    writes any it is asked for."""
    describe: Callable[..., str] | None = None
    """``describe(plan) -> str``: what the file holds for this design, in the current language (the exporters it
    reads, the domain it blocks); None: ``label`` translated."""
    every_pod: bool = False
    """Whether the file of a design with pods holds every pod and the shared spines (else it describes pod 1
    alone); the Designer's Hand-off tab lists which (``pod_coverage``)."""

    def fits(self, plan) -> bool:
        """Whether the format fits ``plan`` (``applies``)."""
        return self.applies is None or self.applies(plan)

    def label_for(self, plan) -> str:
        """What the file holds for ``plan``, in the current language (``describe``, else ``label``)."""
        return self.describe(plan) if self.describe is not None else _(self.label)


def on_infiniband(plan) -> bool:
    """Whether ``plan``'s compute fabric is InfiniBand (``Export.applies`` of InfiniBand-only formats)."""
    return plan.resolved.fabric == "infiniband"


FORMAT_MODULES: tuple[str, ...] = ("slurm", "graphml", "drawio", "astrasim", "simai", "netbox", "cabling",
                                   "prometheus", "ibsim")
"""Modules of ``core.formats`` that define ``EXPORTS`` (a tuple of ``Export``), in menu order."""


def exports() -> dict[str, Export]:
    """Every export format, by name, in menu order."""
    found: dict[str, Export] = {}
    for module in FORMAT_MODULES:
        for export in importlib.import_module(f"core.formats.{module}").EXPORTS:
            found[export.name] = export
    return found


def pod_coverage(plan) -> tuple[list[str], list[str]]:
    """``(names of the formats fitting ``plan`` whose file holds every pod, names of those describing pod 1
    alone)`` for a design with pods (``Export.every_pod``), in menu order."""
    fitting = [export for export in exports().values() if export.fits(plan)]
    return [e.name for e in fitting if e.every_pod], [e.name for e in fitting if not e.every_pod]


def export_text(plan, name: str, naming: NamingScheme | None = None) -> str:
    """The whole export ``name`` of ``plan`` as one string (for downloads and tests)."""
    buffer = io.StringIO()
    exports()[name].write(plan, buffer, naming or NamingScheme())
    return buffer.getvalue()


def write_export(plan, name: str, out: TextIO, naming: NamingScheme | None = None) -> None:
    """Stream export ``name`` of ``plan`` to ``out``."""
    exports()[name].write(plan, out, naming or NamingScheme())
