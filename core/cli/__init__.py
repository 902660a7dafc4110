"""Command line: ``python -m core plan|catalog|collective|train``, one module per sub-command.

Each sub-command module has ``register(subparsers)``, which adds its parser and sets its handler
(``run(args) -> str``, the text to print); ``common`` holds what they share (design options,
number parsers, exit codes). Exit codes: 0 success, 2 bad input (unknown model, bad number,
unknown option, a design file that is not a design), 3 a design that cannot be built (the message
says what would work: only ways out ``core.plan`` checked by re-planning). An error is one line on
stderr; bad input is at most ~300 characters and echoes at most 40 characters of what was typed.

May import: anything in ``core``; nothing in ``core`` imports this package.
"""

from __future__ import annotations

import argparse
import sys

from core.cli import catalog, collective, plan, train
from core.cli.common import EXIT_DESIGN, EXIT_INPUT, Parser
from core.errors import DesignError, InputError

COMMANDS = (plan, catalog, collective, train)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m core",
        description="fabric planner: size GPU cluster networks, count every part, estimate cost and power.",
        epilog="Units: network speeds in Gb/s per direction; NVLink in GB/s (bidir = both directions summed); "
               "prices in USD are estimates from assets/catalog unless overridden.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        sys.stdout.write(args.handler(args))
        return 0
    except InputError as exc:  # messages echo input through core.errors.shown; one line, always
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return EXIT_INPUT
    except DesignError as exc:
        print("cannot build this design: " + " ".join(str(exc).split()), file=sys.stderr)
        return EXIT_DESIGN
