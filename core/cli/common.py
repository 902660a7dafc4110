"""What every sub-command shares: the argparse parser class, number parsers, design options.

Every parser here raises ``argparse.ArgumentTypeError`` (argparse turns it into one line and exit
code 2); ``design_from_args`` builds the ``Design`` from ``--design FILE`` and the flags. Every
message echoes user input through ``core.errors.shown`` (at most 40 characters), and the parser's
own messages (unknown option, invalid choice) are cut the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import math
import os
import re
import sys
import unicodedata
from typing import Iterator, Mapping

from core.catalog import load_catalog
from core import vocab
from core.design import (FIELDS, MAX_DESIGN_FILE_BYTES, Design, Surface, field_bounds, field_range, field_type,
                         parse_design)
from core.errors import SHOWN_LIMIT, InputError, shown
from core.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, _, current, from_locale, ngettext, sentences
from core.formats.entry import normalize, number_text
from core.formats.design_file import read_design_file
from core.presets import find_preset
from core.scaleup import in_noun
from core.perf.sizes import parse_size

EXIT_INPUT = 2
EXIT_DESIGN = 3
EXIT_NOT_HANDLED = 4
"""A design that can be built but the command (or its format) does not handle (``core.errors.NotHandledError``)."""
MAX_ERROR_CHARS = 300
"""Longest error line the CLI prints."""

_LONG_WORD = re.compile(r"\S{%d,}" % (SHOWN_LIMIT + 11))  # longer than a shown() value with its quotes

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Where the shell says its language, first set one wins (POSIX order)."""


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The CLI's language when ``--lang`` is not given: from ``LC_ALL``, ``LC_MESSAGES`` or ``LANG``.

    ``zh_CN.UTF-8`` (or ``zh_TW``, ``zh``) -> ``"zh"``; anything else (``C.UTF-8``, ``en_US``,
    ``fr_FR``, unset) -> ``"en"``.
    """
    environ = os.environ if environ is None else environ
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable)
        if value:
            return from_locale(value.split(".")[0].split("@")[0]) or DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def language_choice(text: str) -> str:
    """``--lang``: one of the app's languages (``zh``, ``en``), case-insensitive."""
    code = text.strip().lower()
    if code not in LANGUAGES:
        raise argparse.ArgumentTypeError(_("unknown language {value}; choose from {choices}").format(
            value=shown(text), choices=", ".join(sorted(LANGUAGES, reverse=True))))
    return code


# argparse's own texts (usage line, group titles, its error messages), translated while the CLI runs
_ARGPARSE_TEXTS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("invalid %(type)s value: %(value)r"), N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("the following arguments are required: %s"), N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"), N_("ignored explicit argument %r"), N_("unrecognized arguments: %s"),
    N_("unexpected option string: %s"), N_("%(prog)s: error: %(message)s\n"),
)


@contextlib.contextmanager
def argparse_language() -> Iterator[None]:
    """argparse speaks the current language inside the block (its ``_`` looked up in our catalog).

    English leaves argparse as it is; the module global is restored on the way out.
    """
    if current() == DEFAULT_LANGUAGE:
        yield
        return
    original = argparse._
    argparse._ = _
    try:
        yield
    finally:
        argparse._ = original


def display_width(text: str) -> int:
    """Terminal columns of ``text`` (a Chinese character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


LABEL_WIDTH = 14
"""Columns of the label in front of each line of the human (table) output."""


_ACCELERATOR: contextvars.ContextVar = contextvars.ContextVar("cli_accelerator", default=None)
"""The system whose chips the human output counts (``accelerator_context``); None: GPUs."""


@contextlib.contextmanager
def accelerator_context(args: argparse.Namespace) -> Iterator[None]:
    """Within it, ``said`` and ``row`` call the accelerator by the noun of the design's system in ``args``
    ("NPU" for Ascend, ``core.scaleup.in_noun``); a command without a design, or one whose design does not
    build (the handler says why), or one that varies the system (``sweep --set gpu=...``), keeps "GPU"."""
    system = None
    varied = {item[0] for item in (getattr(args, "sweep_x", None), getattr(args, "sweep_y", None)) if item}
    if "gpu" not in varied and all(hasattr(args, name) for name in ("gpu", "design", "preset", "gpus", "nodes")):
        try:
            system = load_catalog().system(design_from_args(args, quiet=True).gpu)  # the command warns
        except Exception:  # noqa: BLE001 - the handler reports the same bad input in its own words
            system = None
    token = _ACCELERATOR.set(system)
    try:
        yield
    finally:
        _ACCELERATOR.reset(token)


def said(text: str) -> str:
    """``text`` (a label or headline about the design's own chips) with "GPU" as the design's accelerator noun
    (``accelerator_context``); unchanged outside one or for a GPU system."""
    return in_noun(text, _ACCELERATOR.get())


def row(label: str, text: str) -> str:
    """``label`` padded to ``LABEL_WIDTH`` terminal columns (at least one space), then ``text``; both with the
    design's accelerator noun (``said``)."""
    label, text = said(label), said(text)
    return label + " " * max(1, LABEL_WIDTH - display_width(label)) + text


def pad(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal columns (as ``f"{text:<width}"`` for ASCII)."""
    return text + " " * max(0, width - display_width(text))


def separator() -> str:
    """Between the items of a list in the human output: ``, `` (en) / ``，`` (zh)."""
    return "，" if current() == "zh" else ", "


def one_line(message: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``message`` on one line, every word that echoes over 40 characters cut, at most ``limit`` characters.

    For text argparse writes itself (``ambiguous option: --p=...``), which may quote user input whole.
    """
    text = " ".join(message.split())
    text = _LONG_WORD.sub(lambda m: m.group()[:SHOWN_LIMIT] + "...", text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Parser(argparse.ArgumentParser):
    """argparse that reports bad input as one short line and exit code 2."""

    def error(self, message: str) -> None:  # pragma: no cover - exercised via CLI tests
        prefix = len(_("error: {message}").format(message=""))  # the CLI's error handler adds it
        raise InputError(one_line(message, MAX_ERROR_CHARS - prefix))

    def _check_value(self, action, value) -> None:
        # argparse's own message quotes the value whole
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(action, _("invalid choice: {value} (choose from {choices})").format(
                value=shown(value), choices=choices))

    def _print_message(self, message: str, file=None) -> None:
        # argparse swallows a failed write (a full disk under --help); the CLI's error handler says it instead
        if message:
            (file or sys.stderr).write(message)

    def format_help(self) -> str:
        text = super().format_help()
        if current() == "zh":  # argparse ends each section heading with its own ':'
            text = re.sub(r"(?m)^(\S[^\n]*):$", r"\1：", text)
        return text

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(_("unrecognized arguments: {arguments}").format(arguments=shown(' '.join(extras))))
        return parsed


def positive_int(text: str) -> int:
    text = number_text(text)  # 1,024 and full-width digits read too
    try:
        value = int(text)
    except ValueError:
        if text.strip().isdigit():  # more digits than Python reads (4,300)
            raise argparse.ArgumentTypeError(_("{value} is far too large").format(value=shown(text))) from None
        raise argparse.ArgumentTypeError(
            _("expected a whole number, got {value}").format(value=shown(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be at least 1, got {value}").format(value=shown(value)))
    return value


def non_negative_int(text: str) -> int:
    """A whole number from 0 (``0`` turns a count off, e.g. ``--storage-ports-per-node 0``)."""
    if number_text(text).strip() == "0":
        return 0
    return positive_int(text)


MAX_SEED = 2**32 - 1
"""Largest ``--seed`` (the random generators take any whole number from 0; this is the usual 32-bit range)."""


def seed(text: str) -> int:
    """``--seed``: a whole number from 0 to ``MAX_SEED``."""
    value = non_negative_int(text) if not number_text(text).strip().startswith("-") else -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(_("must be a whole number from 0 to {most}, got {value}").format(
            most=f"{MAX_SEED:,}", value=shown(text)))
    return value


def on_off(text: str) -> bool:
    """``on`` or ``off`` (also yes/no, true/false, 1/0)."""
    folded = normalize(text).strip().lower()
    if folded in ("on", "yes", "true", "1"):
        return True
    if folded in ("off", "no", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(_("expected on or off, got {value}").format(value=shown(text)))


def ratio(text: str, minimum: float = 1.0) -> float:
    """``X`` or ``X:Y`` (down:up) with positive finite numbers, at least ``minimum`` (e.g. ``2``, ``3:1``,
    ``２：１``)."""
    parts = normalize(text).split(":")
    try:
        numbers = [float(part) for part in parts] if len(parts) <= 2 else None
    except ValueError:
        numbers = None
    if numbers is None or not all(math.isfinite(n) and n > 0 for n in numbers):
        raise argparse.ArgumentTypeError(
            _("expected a ratio X or X:Y of positive numbers, like 2 or 3:1, got {value}").format(value=shown(text)))
    value = numbers[0] / numbers[1] if len(numbers) == 2 else numbers[0]
    if not (math.isfinite(value) and value >= minimum - 1e-12):
        if minimum == 1.0:
            raise argparse.ArgumentTypeError(_("must be at least 1 (down:up), got {value}").format(value=shown(text)))
        raise argparse.ArgumentTypeError(_("must be at least {minimum} (down:up), got {value}").format(
            minimum=f"{minimum:g}", value=shown(text)))
    return value


def positive_float(text: str) -> float:
    """A finite number above 0 (``40``, ``40.8``, full-width digits too)."""
    value = number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(_("must be above 0, got {value}").format(value=shown(text)))
    return value


def leaf_ratio(text: str) -> float:
    """The leaf's down:up ratio: like ``ratio`` but from 0.25 (1:4, more uplink than downlink)."""
    return ratio(text, 0.25)


def number(text: str) -> float:
    try:
        value = float(number_text(text))
    except ValueError:
        raise argparse.ArgumentTypeError(_("expected a number, got {value}").format(value=shown(text))) from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(_("must be a finite number >= 0, got {value}").format(value=shown(text)))
    return value


class Typed(float):
    """A number read from a flag that keeps the text typed (``typed``), so a message echoes what the user wrote
    (``--fx-rate -1`` says ``'-1'``, not the parsed ``'-1.0'``)."""

    typed: str


def typed_float(text: str) -> Typed:
    """A float flag (any sign; its range is checked where it is used) that remembers its text (``Typed``)."""
    try:
        value = Typed(float(number_text(text)))
    except ValueError:
        raise argparse.ArgumentTypeError(_("expected a number, got {value}").format(value=shown(text))) from None
    value.typed = text
    return value


def model_name(text: str) -> str:
    """A catalog model id as typed; an empty or blank value is an error (it would silently mean auto)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(_("must name a catalog model, got an empty value "
                                           "(leave the option out for the default)"))
    return text


DESIGN_FILE = "FILE.json"
"""Metavar of every option that names a design file (``--design``, ``compare``'s files): the MCP server
(``core.cli.mcp``) takes a design object there too."""


def add_design_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that takes a design (help in the current language)."""
    g = parser.add_argument_group(_("design (defaults come from the GPU system in the catalog)"))
    g.add_argument("--design", metavar=DESIGN_FILE,
                   help=_("read the design from a JSON file of at most 1 MB ({bytes} bytes); "
                          "options below override it").format(bytes=f"{MAX_DESIGN_FILE_BYTES:,}"))
    g.add_argument("--preset", metavar="ID",
                   help=_("start from a published design ({command} lists them with their sources); the options "
                          "below override its fields").format(command="python -m core presets"))
    groups = {"design": g, "advanced": parser.add_argument_group(
        _("advanced fabric (defaults: one switch model, one speed, the current rules)")),
        "networks": parser.add_argument_group(
            _("storage and management networks (defaults: the DGX SuperPOD reference architecture)"))}
    for field, surface in FIELDS.items():
        reader = _option_reader(field, surface)
        helptext = surface.help_text()
        if reader.get("type") is not None and getattr(reader["type"], "field_range", None):
            helptext = _("{help}; {range}").format(help=helptext, range=reader["type"].field_range)
        groups[surface.group].add_argument(surface.flag, dest=field, metavar=surface.metavar, help=helptext,
                                           **reader)


POD_OPTION = {"deployment": N_("pod the deployment runs on (a design with pods)")}
"""``--pod``'s help by workload (``core.analysis.whole.RUNS_ON``'s keys); a job's is the job link's ``perf_pod``
words."""


def add_pod_option(parser: argparse.ArgumentParser, workload: str = "job") -> None:
    """``--pod N``: the pod a ``workload`` ("job" or "deployment") runs on in a design with pods, as the Performance
    and Inference pages' pod picker (the job link's ``perf_pod``, ``core.formats.joblink``: its default, and a job's
    words; a deployment's ``POD_OPTION``); a pod past the last is pod 1, said on stderr by ``job_plan``."""
    from core.formats.joblink import JOB

    param = next(p for p in JOB.params if p.key == "pod")
    parser.add_argument("--pod", type=positive_int, default=param.default, metavar="N",
                        help=_(POD_OPTION.get(workload, param.name)))


def job_plan(design: Design, pod: int, unit: str, workload: str = "job"):
    """The plan a ``workload`` ("job" or "deployment", ``core.analysis.whole.RUNS_ON``) on pod ``pod`` of ``design``
    runs on and the sentences saying so (``None`` without pods; its bandwidth in ``unit``, ``--units``):
    ``core.analysis.whole.pod_plan`` of the design's plan, the pod charged its GPUs' share of the whole design's
    TCO as the pages charge it. Raises what planning raises."""
    from core.analysis.whole import design_mixed, pod_count, pod_plan, runs_on
    from core.plan import plan

    count = pod_count(design)
    if pod > count:  # a pod past the last: said, not silently pod 1 (or nothing, without pods)
        message = _("--pod {pod}: this design has no pods, so the option has no effect").format(pod=pod) \
            if count == 1 else sentences(ngettext("--pod {pod}: this design has {count} pod.",
                                                  "--pod {pod}: this design has {count} pods.", count).format(
                pod=pod, count=count), runs_on(design_mixed(design).fabric.pods[0], 0, workload))
        print(_("warning: {message}").format(message=message), file=sys.stderr)
    return pod_plan(plan(design), pod, unit, workload)


SPLIT_HELP = N_("{name} degree (default: the fastest split that fits)")
"""Help of a ``--tp`` / ``--pp`` that ``split_job`` fills in (``python -m core train`` says the same, naming its
``--explain``)."""


def split_job(planned, job, *, tp: int | None, pp: int | None, ep: int | None = None):
    """``job`` (a ``core.perf.training.TrainingJob`` with its ``gpus`` and the model) at the split
    ``python -m core train`` takes on ``planned``: the tp and pp not given (None) the fastest that fits
    (``core.perf.training.default_split``; a mixture of experts' ep too when ``ep`` is None), the global batch
    rounded up to a multiple of micro-batch x dp (``fitting_split``), so ``failure`` and ``load --pattern job``
    time the step ``train`` times. When no split fits: ``job`` at the split the search starts from, whose estimate
    then says why."""
    from core.errors import DesignError
    from core.perf.training import default_split, fitting_split

    job = job.model_copy(update={"tp": tp or 1, "pp": pp or 1, "ep": ep or 1})
    search_ep = ep is None and job.model.is_moe
    if tp is None or pp is None or search_ep:
        try:
            return default_split(planned, job, tp=tp, pp=pp, search_ep=search_ep).best.estimate.job
        except DesignError:
            pass
    split = fitting_split(planned, job.model, cp=job.cp, micro_batch=job.micro_batch, vp=job.vp, job_gpus=job.gpus,
                          tp=tp, pp=pp, default_global_batch=job.global_batch)
    return job.model_copy(update=split)


_READERS = {"positive_int": positive_int, "non_negative_int": non_negative_int, "number": number,
            "positive_float": positive_float}
"""Parsers a ``Surface.cli`` may name."""


def _option_reader(field: str, surface: Surface) -> dict:
    """``add_argument`` keywords that read a design option: from its declaration (vocabulary, kind, type, bounds)."""
    if surface.kind in ("overrides", "spares"):
        return {"action": "append", "default": []}  # --price a=1 --price b=2; --spares a=1% --spares b=N+1
    if surface.cli is not None:
        return {"type": _READERS[surface.cli]}
    if surface.vocab is vocab.ON_OFF:
        return {"type": on_off}
    if surface.vocab is not None:
        return {"type": str.lower, "choices": [str(value) for value in surface.vocab.ids]}
    if surface.kind in ("system", "switch", "nic"):
        return {"type": model_name}
    if surface.kind == "rack_preset":
        return {"type": str.lower}
    if surface.kind in ("text", "stages", "calibration", "domains", "dims", "pods"):
        return {"type": str}
    if surface.kind == "ratio":
        low = field_bounds(field)[0]
        return {"type": leaf_ratio if low < 1 else ratio}
    if field_type(field) is int:
        return {"type": non_negative_int if field_bounds(field)[0] == 0 else positive_int}
    if field_type(field) is float and field_range(field):
        return {"type": _ranged_number(field)}
    return {"type": number}


def _ranged_number(field: str):
    """A reader of the number of bounded ``Design`` field ``field``: what is outside its range (or not finite) is
    refused with its range in the words of its validation and its help (``core.design.field_range``)."""
    low, high, low_open, high_open = field_bounds(field)

    def read(text: str) -> float:
        try:
            value = float(number_text(text))
        except ValueError:
            raise argparse.ArgumentTypeError(_("expected a number, got {value}").format(value=shown(text))) from None
        inside = math.isfinite(value) and (low is None or (value > low if low_open else value >= low)) and (
            high is None or (value < high if high_open else value <= high))
        if not inside:
            raise argparse.ArgumentTypeError(_("{problem} (got {value})").format(problem=field_range(field),
                                                                               value=shown(text)))
        return value

    read.field_range = field_range(field)  # the help states it (add_design_options)
    return read


def design_args(design: Design) -> list[str]:
    """The CLI options that give ``design`` (the values that differ from ``Design()``), from each field's
    declaration: ``design_from_args(parser.parse_args(design_args(d))) == d``."""
    base, args = Design(), []
    for field, surface in FIELDS.items():
        value = getattr(design, field)
        if value == getattr(base, field) and not (field == "nodes" and design.gpus is None and value is not None
                                                  and value != base.nodes):
            continue
        if value is None:
            continue
        if surface.kind == "overrides":
            args += [f"{surface.flag}={key}={number!r}" for key, number in sorted(value.items())]
        elif surface.vocab is vocab.ON_OFF:
            args.append(f"{surface.flag}={int(value)}")
        else:
            args.append(f"{surface.flag}={value!r}" if isinstance(value, float) else f"{surface.flag}={value}")
    return args


def add_format_option(parser: argparse.ArgumentParser, choices: tuple[str, ...] = ("json", "table"),
                      helptext: str | None = None) -> None:
    """``--format``: ``table`` (the default) is for people, in the chosen language; ``json`` is for
    scripts: English keys and texts, the same in every language."""
    parser.add_argument("--format", choices=list(choices), default="table",
                        help=helptext or _("table: readable summary (in the --lang language); "
                                           "json: machine-readable, the same in every language"))


def _overrides(pairs: list[str], what: str) -> dict[str, float]:
    """``--price``/``--power`` ID=NUMBER pairs, each read by the share-link codec's override parser."""
    from core.formats.sharelink import ParamError, parse_overrides

    result: dict[str, float] = {}
    for pair in pairs:
        if "=" not in pair and ":" not in pair:
            raise InputError(_("--{option} takes ID=NUMBER, got {value}").format(option=what, value=shown(pair)))
        try:
            result.update(parse_overrides(pair, unit="USD" if what == "price" else "W"))
        except ParamError as exc:
            raise InputError(_("--{option}: {problem}").format(option=what, problem=exc)) from None
    return result


def design_from_args(args: argparse.Namespace, quiet: bool = False) -> Design:
    """The design of ``--preset ID`` or ``--design FILE`` and the options that override it (``parsed_design``). A
    design with pods is planned with them here (``core.analysis.whole.plan_with_pods``): one whose pods cannot be
    built raises its ``DesignError`` for every command, never letting one work on the first pod's design without
    them. ``quiet``: without the warnings ``parsed_design`` writes."""
    design = parsed_design(args, quiet)
    if design.pods:  # pods that cannot be built together: every command refuses the design (its ways out), as plan
        from core.analysis.whole import plan_with_pods

        plan_with_pods(design)
    return design


def parsed_design(args: argparse.Namespace, quiet: bool = False) -> Design:
    """Build the design from ``--preset ID`` or ``--design FILE`` and the options that override it, as given: read
    and checked field by field, not planned (``design_from_args`` plans a design with pods). A field its topology
    does not read (``core.fabric.families.unused_fields``) is said on stderr unless ``quiet``."""
    data: dict = {}
    if getattr(args, "preset", None) is not None:
        if args.design:
            raise InputError(_("give --preset or --design, not both"))
        data = dict(find_preset(args.preset).fields)
    if args.design:
        data = read_design_file(args.design).model_dump(exclude_defaults=True)
    for field, surface in FIELDS.items():
        value = getattr(args, field)
        if surface.kind == "overrides" and value:
            data[field] = {**data.get(field, {}), **_overrides(value, surface.flag.lstrip("-"))}
        elif surface.kind == "spares" and value:  # --spares a=1% --spares b=N+1 is one policy
            data[field] = ",".join(value)
        elif surface.kind not in ("overrides", "spares") and value is not None:
            data[field] = value
    if args.nodes is not None and args.gpus is not None:
        raise InputError(_("give --nodes or --gpus, not both"))
    if args.nodes is not None:
        data.pop("gpus", None)
    if args.gpus is not None:
        data.pop("nodes", None)
    design = parse_design(data)
    load_catalog().system(design.gpu)  # unknown model -> InputError now, not later
    from core.fabric.families import unused_fields

    for message in () if quiet else unused_fields(design):  # a field its topology ignores: said, not lost
        print(_("warning: {message}").format(message=message), file=sys.stderr)
    return design


def size(text: str) -> int:
    if len(text.strip()) > 24:  # no size is that long ("1.5GiB", "1073741824")
        raise argparse.ArgumentTypeError(
            _("cannot read size {value}; use a number with B, KiB, MiB, GiB, KB, MB or GB (e.g. 1GiB)").format(
                value=shown(text)))
    try:
        return parse_size(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def tokens(text: str) -> float:
    """``1T``, ``15e12``, ``300B`` (decimal: K, M, B/G, T)."""
    scale = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
    body = text.strip()
    factor = 1.0
    if body and body[-1].casefold() in scale:
        factor, body = scale[body[-1].casefold()], body[:-1]
    try:
        value = float(body) * factor
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected a token count like 1T or 15e12, got {value}").format(value=shown(text))) from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            _("token count must be positive and finite, got {value}").format(value=shown(text)))
    return value


def fraction(text: str) -> float:
    try:
        value = float(number_text(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected a number between 0 and 1, got {value}").format(value=shown(text))) from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(_("must be above 0 and at most 1, got {value}").format(value=shown(text)))
    return value


def check_output(target: str) -> None:
    """Refuse an ``--output`` path whose folder does not exist or that is a folder, before any work; a write that
    fails later (a full disk, no permission) is said by the CLI's one error handler (``core.cli._fail``)."""
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise InputError(_("cannot write {file}: no such folder").format(file=shown(target)))
    if os.path.isdir(target):
        raise InputError(_("cannot write {file}: it is a folder").format(file=shown(target)))


def to_json(data) -> str:
    """JSON output of every sub-command: non-finite numbers are a bug, never printed as Infinity or NaN."""
    return json.dumps(data, indent=2, allow_nan=False)


def cluster_note(requested: int | None, cluster: int, used: int) -> str:
    """Say when the cluster differs from the GPUs the job uses (e.g. rounded up to whole nodes)."""
    if requested is not None and cluster != requested and used == requested:
        return _("; the cluster has {cluster} GPUs ({requested} rounded up to whole nodes)").format(
            cluster=f"{cluster:,}", requested=f"{requested:,}")
    if cluster != used:
        return _("; the cluster has {cluster} GPUs").format(cluster=f"{cluster:,}")
    return ""
