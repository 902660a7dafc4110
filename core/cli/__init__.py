"""Command line: ``python -m core [--lang zh|en] plan|catalog|collective|train|serve|...``, one module per sub-command.

Each sub-command module has ``register(subparsers)``, which adds its parser and sets its handler
(``run(args) -> str``, the text to print); ``common`` holds what they share (design options,
number parsers, exit codes). Exit codes: 0 success, 2 bad input (unknown model, bad number,
unknown option, a design file that is not a design, an unknown ``--lang``, a value the engine's
models refuse) or a failed write (``--output`` or stdout: a full disk, no permission, a folder, a
missing folder), 3 a design that cannot be built (the message says what would work: only ways out
``core.plan`` checked by re-planning). ``_fail`` is the one place that turns every sub-command's
errors into one line on stderr and its exit code, so a new sub-command gets it for free; bad input is
at most ~300 characters and echoes at most 40 characters of what was typed. A pipe closed by its
reader on stdout (``... | head``) ends quietly with 0: the reader stopped on purpose.

Languages: ``--lang zh|en`` (before or after the sub-command; default from ``LC_ALL``,
``LC_MESSAGES``, ``LANG``) sets the language before anything is built, so help, the human
(``--format table``) output and every error are in it. Machine output (``--format json``, ``csv``)
is English and the same in every language, so scripts do not depend on the shell's locale.

Money: ``--currency USD|CNY|EUR`` and ``--fx-rate RATE`` (units per US dollar; default the published rate of
``assets/catalog/currency.toml``) set the currency of the human output's money (``core.i18n.money_context``);
machine output stays in US dollars, as its ``*_usd`` keys say.

May import: anything in ``core``; nothing in ``core`` imports this package.
"""

from __future__ import annotations

import argparse
import os
import sys

from pydantic import ValidationError

from core.cli import availability, catalog, collective, compare, export, failure, optimize, plan, report, spof, train
from core.cli import cabling
from core.cli import load
from core.cli import sweep
from core.cli import stages
from core.cli import serve
from core.cli import calibrate
from core.cli import mcp
from core.cli import presets
from core.cli import verify
from core.cli.common import (
    EXIT_DESIGN,
    EXIT_NOT_HANDLED,
    EXIT_INPUT,
    Parser,
    accelerator_context,
    argparse_language,
    default_language,
    language_choice,
    one_line,
    typed_float,
)
from core.design import FIELDS, describe_validation_error
from core.units import span
from core.errors import DesignError, InputError, NotHandledError, SettingError, TargetError, os_reason, shown
from core.i18n import (
    DEFAULT_CURRENCY, DEFAULT_LANGUAGE, LANGUAGES, _, check_rate, currencies, current, language, money_context, money_note,
)

COMMANDS = (plan, compare, catalog, collective, train, availability, optimize, failure, spof, export, report, cabling, load,
            sweep, stages, serve, calibrate, verify, presets, mcp)
MACHINE_FORMATS = ("json", "csv")
"""``--format`` values for scripts: computed and written in English whatever ``--lang`` says."""


def _add_language_option(parser: argparse.ArgumentParser, default) -> None:
    parser.add_argument("--lang", type=language_choice, default=default, metavar="{zh,en}",
                        help=_("language of help, messages and table output (default: from LC_ALL, "
                               "LC_MESSAGES or LANG; now {language}); json and csv output stay English")
                        .format(language=current()))


def _add_money_options(parser: argparse.ArgumentParser, default) -> None:
    """``--currency`` and ``--fx-rate``: the currency of the table output's money (json and csv stay in USD)."""
    parser.add_argument("--currency", type=str.upper, choices=list(currencies()), default=default,
                        help=_("currency of the money in table output (default USD, the catalog's); json and csv "
                               "stay in USD"))
    parser.add_argument("--fx-rate", type=typed_float, default=default, metavar="RATE",
                        help=_("units of --currency per US dollar (default: the published rate in "
                               "assets/catalog/currency.toml)"))


def build_parser() -> argparse.ArgumentParser:
    """The CLI's parser, its help in the current language (``core.i18n.language``)."""
    parser = Parser(
        prog="python -m core",
        description=_("fabric planner: size GPU cluster networks, count every part, estimate cost and power."),
        epilog=_("Units: port speeds given ({flags}) in Gb/s per direction; bandwidths shown in GB/s (bytes) by "
                 "default, --units gbit for Gb/s; NVLink bidir = both directions summed; prices in USD are estimates "
                 "from assets/catalog unless overridden.").format(
            flags=", ".join(s.flag for s in FIELDS.values() if s.unit == "Gb/s")),
    )
    _add_language_option(parser, current())
    _add_money_options(parser, None)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser,
                                metavar=_("command"))  # a missing one is named in the reader's language
    for command in COMMANDS:
        command.register(sub)
    for subparser in sub.choices.values():  # --lang after the sub-command too; absent -> the global one
        _add_language_option(subparser, argparse.SUPPRESS)
        _add_money_options(subparser, argparse.SUPPRESS)
    return parser


def requested_language(argv: list[str]) -> str | None:
    """The ``--lang`` value in ``argv`` if it is a language the CLI speaks (the last one counts).

    Read before the parser is built, so that its help and messages are in that language; a bad
    value is left for the parser to refuse (exit code 2).
    """
    found = None
    for position, item in enumerate(argv):
        if item == "--":
            break
        if item == "--lang" and position + 1 < len(argv):
            found = argv[position + 1]
        elif item.startswith("--lang="):
            found = item.split("=", 1)[1]
    code = found.strip().lower() if found is not None else None
    return code if code in LANGUAGES else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    code = requested_language(argv) or default_language()
    with language(code), argparse_language():
        return _main(argv)


def _main(argv: list[str]) -> int:
    args = None
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit:  # --help printed: a failed write of it is said like any other
            sys.stdout.flush()
            raise
        if args.lang != current():  # given in a way the scan did not see (an abbreviation): parse again in it
            with language(args.lang), argparse_language():
                return _main(argv)
        sys.stdout.write(_output(args))
        sys.stdout.flush()  # a full disk or a closed pipe on stdout is said here, not at the interpreter's exit
        return 0
    except BrokenPipeError as exc:
        if getattr(exc, "filename", None) is None and not getattr(args, "output", None):
            # `... | head`: the reader stopped on purpose; nothing is wrong, nothing more to say
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 0
        return _fail(exc, args)
    except (InputError, DesignError, ValidationError, OSError) as exc:
        return _fail(exc, args)


def _fail(exc: Exception, args: argparse.Namespace | None) -> int:
    """The one place every sub-command's error becomes one line on stderr and an exit code: bad input (a flag,
    a value the engine refuses, a write to ``--output`` or stdout that fails: a full disk, no permission, a
    folder, a closed pipe) exits 2, a design that cannot be built 3, a buildable design the command does not handle
    (``NotHandledError``) 4. A new sub-command gets this for free."""
    if isinstance(exc, SettingError):  # a setting the design cannot run: name the option and the fix
        print(_("error: --{option}: {message}").format(option=exc.field.replace("_", "-"),
                                                       message=" ".join(str(exc).split())), file=sys.stderr)
        return EXIT_INPUT
    if isinstance(exc, NotHandledError):  # the design can be built; this command or format does not handle it
        print(_("not available for this design: {message}").format(message=" ".join(str(exc).split())),
              file=sys.stderr)
        return EXIT_NOT_HANDLED
    if isinstance(exc, TargetError):  # the design is fine; the deployment asked of it misses its targets
        print(_("the deployment misses its targets: {message}").format(message=" ".join(str(exc).split())),
              file=sys.stderr)
        return EXIT_DESIGN
    if isinstance(exc, (InputError, DesignError)):  # the engine's own messages: echoes already cut (core.errors)
        print((_("cannot build this design: {message}") if isinstance(exc, DesignError) else _("error: {message}"))
              .format(message=" ".join(str(exc).split())), file=sys.stderr)
        return EXIT_DESIGN if isinstance(exc, DesignError) else EXIT_INPUT
    if isinstance(exc, ValidationError):  # a value the engine's models refuse (e.g. more planes than a design has)
        message = _("error: {message}").format(message=describe_validation_error(exc))
    else:  # OSError: writing (or opening) a file or stdout failed
        output = getattr(args, "output", None)
        if exc.filename is not None and str(exc.filename) != str(output):
            message = _("error: cannot open {file}: {reason}").format(file=shown(str(exc.filename)),
                                                                    reason=os_reason(exc))
        else:
            message = _("error: cannot write {file}: {reason}").format(
                file=shown(str(output)) if output is not None else _("the output"), reason=os_reason(exc))
    print(one_line(message), file=sys.stderr)
    return EXIT_INPUT


def _output(args: argparse.Namespace) -> str:
    """The handler's text; machine formats are computed in English (an error, again in the user's language)."""
    if getattr(args, "format", None) not in MACHINE_FORMATS:
        code = args.currency or DEFAULT_CURRENCY
        try:
            rate = check_rate(code, args.fx_rate)
        except ValueError:
            entry = currencies()[code]
            raise InputError(_("--fx-rate {value} is not a rate of {code}: from {range} per US dollar").format(
                value=shown(getattr(args.fx_rate, "typed", str(args.fx_rate))), code=code,
                range=span(f"{entry['low']:g}", f"{entry['high']:g}"))) from None
        with money_context(code, rate), accelerator_context(args):
            text = args.handler(args)
            # the rate and its date, under the output whose money it converted
            return text if code == DEFAULT_CURRENCY else text.rstrip("\n") + "\n" + money_note() + "\n"
    if current() == DEFAULT_LANGUAGE:
        return args.handler(args)
    try:
        with language(DEFAULT_LANGUAGE):
            return args.handler(args)
    except (InputError, DesignError):
        return args.handler(args)  # raises the same error, worded in the user's language
