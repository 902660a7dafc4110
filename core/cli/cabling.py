"""``python -m core cabling --format csv|xlsx``: the port-to-port cabling plan of a design.

CSV streams to stdout or ``--output FILE`` as the rows come (English ids, the same in every ``--lang``);
XLSX (a summary sheet and the plan, ``core.formats.cabling.write_xlsx``) is binary and needs ``--output``.
Device names follow ``--node-prefix``, ``--switch-prefix`` and ``--min-digits``
(``core.fabric.naming.NamingScheme``). Bad flags and values exit with code 2 and one line; a design that
cannot be built exits with 3.
"""

from __future__ import annotations

import argparse
import sys

from core.cli.common import add_design_options, check_output, design_from_args
from core.cli.export import add_naming_options, naming_from_args
from core.errors import InputError
from core.i18n import DEFAULT_LANGUAGE, _, language


def register(subparsers) -> None:
    """Add the ``cabling`` sub-command."""
    parser = subparsers.add_parser(
        "cabling", help=_("write the port-to-port cabling plan of a design (CSV or XLSX)"),
        description=_("Write the port-to-port cabling plan: one row per cable with both ends' rack, U, device "
                      "and port, media, length and transceivers. CSV goes to stdout or a file; XLSX needs "
                      "--output."))
    add_design_options(parser)
    g = parser.add_argument_group(_("cabling plan"))
    g.add_argument("--format", choices=["csv", "xlsx"], default="csv",
                   help=_("csv (default; streamed, English ids) or xlsx (summary sheet and the plan; needs --output)"))
    g.add_argument("--output", "-o", metavar="FILE",
                   help=_("write to FILE instead of stdout (replaced if it exists)"))
    add_naming_options(g)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> str:
    """Plan the design and write the cabling plan; returns ``""`` (everything is already written)."""
    from core.formats.cabling import write_csv, write_xlsx
    from core.plan import plan

    if args.format == "xlsx" and not args.output:
        raise InputError(_("--format xlsx writes a binary file: give --output FILE.xlsx"))
    naming_from_args(args)  # a bad prefix is said before the work
    result = plan(design_from_args(args))  # a design that cannot be built raises here, before any output
    naming = naming_from_args(args, result)  # and names that collide in this design (its other networks)
    if args.output:
        check_output(args.output)
        if args.format == "xlsx":
            write_xlsx(result, args.output, naming)  # sheet titles in the --lang language
            return ""
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle, language(DEFAULT_LANGUAGE):
            write_csv(result, handle, naming)  # a failed write (full disk, ...): core.cli._fail says it
        return ""
    with language(DEFAULT_LANGUAGE):  # a closed pipe (`... | head`) or a full disk: core.cli._fail
        write_csv(result, sys.stdout, naming)
    return ""
