"""``--units``: the bandwidth unit of a command's readable output, the same choice as the web's sidebar toggle (the
link's ``ui_bw``, ``core.units.LINK_UNITS``), bytes by default as there."""

from __future__ import annotations

import argparse

from core.i18n import _
from core.units import DEFAULT_LINK_UNIT, LINK_UNITS


def add_units_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--units gbyte|gbit`` (default ``gbyte``, as the web) to ``parser``."""
    parser.add_argument("--units", choices=list(LINK_UNITS), default=DEFAULT_LINK_UNIT,
                        help=_("bandwidth unit of the readable output: gbyte (GB/s, the default, as the web app) or "
                               "gbit (Gb/s); network bandwidths are per direction"))


def bandwidth_unit(args: argparse.Namespace) -> str:
    """The unit ``--units`` asked for ("GB/s" or "Gb/s", ``core.units.bandwidth``'s ``unit``)."""
    return LINK_UNITS[getattr(args, "units", None) or DEFAULT_LINK_UNIT]
