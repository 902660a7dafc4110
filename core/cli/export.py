"""``python -m core export --format NAME``: write one export of a design (Slurm, GraphML, draw.io, ...).

Every format registered in ``core.formats.exports`` (``exports()``, also ones added later) is a ``--format``
choice. Output goes to stdout, or to ``--output FILE``, streamed as the writer produces it; the file is
written in English and the same in every ``--lang``, as the Designer's download in either language
(``core.formats.exports.FILE_LANGUAGE``); a design a format refuses is said in ``--lang``. Device names follow
``--node-prefix``, ``--switch-prefix`` and ``--min-digits`` (``core.fabric.naming.NamingScheme``). Bad flags and
values exit with code 2 and one line; a design that cannot be built exits with 3.
"""

from __future__ import annotations

import argparse
import sys

from core.cli.common import add_design_options, check_output, design_from_args, positive_int
from core.errors import InputError
from core.fabric.naming import NamingError, NamingScheme, naming_scheme
from core.formats.exports import exports
from core.i18n import _


def register(subparsers) -> None:
    """Add the ``export`` sub-command."""
    formats = exports()
    parser = subparsers.add_parser(
        "export", help=_("write an export of a design (Slurm topology, GraphML, draw.io, ...)"),
        description=_("Write one export of a design to stdout or a file. Formats: {formats}.").format(
            formats=", ".join(formats)))
    add_design_options(parser)
    g = parser.add_argument_group(_("export"))
    g.add_argument("--format", required=True, choices=list(formats), metavar="NAME",
                   help=_("export format, one of: {formats}").format(formats=", ".join(formats)))
    g.add_argument("--output", "-o", metavar="FILE",
                   help=_("write to FILE instead of stdout (replaced if it exists)"))
    add_naming_options(g)
    parser.set_defaults(handler=run)


def add_naming_options(group) -> None:
    """``--node-prefix``, ``--switch-prefix``, ``--min-digits``: the naming scheme (``naming_from_args``)."""
    defaults = NamingScheme()
    group.add_argument("--node-prefix", default=defaults.node_prefix, metavar="PREFIX",
                       help=_("prefix of server host names (default {default}: {example})").format(
                           default=defaults.node_prefix, example="gpu001"))
    group.add_argument("--switch-prefix", default=defaults.switch_prefix, metavar="PREFIX",
                       help=_("prefix put before every switch name (default none: {example})").format(
                           example="leaf001"))
    group.add_argument("--min-digits", type=positive_int, default=defaults.min_digits, metavar="N",
                       help=_("least zero padding of device numbers, 1 to 8 (default {default})").format(
                           default=defaults.min_digits))


def naming_from_args(args: argparse.Namespace, plan=None) -> NamingScheme:
    """The naming scheme of the flags, checked as a whole (``core.fabric.naming.naming_scheme``; with ``plan``, its
    other networks too): a bad prefix, two devices of one name or a name too long is an ``InputError`` naming the
    flag."""
    try:
        return naming_scheme(args.node_prefix, args.switch_prefix, args.min_digits, plan)
    except NamingError as exc:
        raise InputError(_("{option}: {problem}").format(option="--" + exc.field.replace("_", "-"),
                                                         problem=exc)) from None


def run(args: argparse.Namespace) -> str:
    """Plan the design and stream the export; returns ``""`` (everything is already written)."""
    from core.plan import plan

    naming_from_args(args)  # a bad prefix is said before the work
    design = design_from_args(args)
    result = plan(design)  # a design that cannot be built raises here, before any output
    naming = naming_from_args(args, result)  # and names that collide in this design (its other networks)
    export = exports()[args.format]
    if args.output:
        check_output(args.output)
        with open(args.output, "w", encoding="utf-8", newline="\n") as handle:
            export.write(result, handle, naming)  # a failed write (full disk, ...): core.cli._fail says it
        return ""
    export.write(result, sys.stdout, naming)  # a closed pipe (`... | head`) or a full disk: core.cli._fail
    return ""
