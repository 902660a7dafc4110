"""``python -m core mcp``: the engine's main commands as a Model Context Protocol server on stdio (docs/mcp.md).

One tool per command of ``TOOLS`` (``plan``, ``compare``, ``optimize``, ``failure``, ``export``, ``report``). A
tool's input schema is generated from the command's own argparse parser (``input_schema``): one property per
option, named by its ``dest`` (``--oversubscription`` -> ``oversubscription``; a design field's name as
``core.design`` declares it), with the option's help as its description, its choices as ``enum``, its
default, whether it is required, and a JSON type from the function that reads it (``READER_TYPES``; any
other reader takes a string, as the command line does), with a design field's bounds. A design file option (metavar
``common.DESIGN_FILE``) takes a path or the design itself as a JSON object (``plan``'s ``design`` output),
which the server writes to a file of its own. Nothing else is declared here: a new option of a command is a
new property of its tool.

A call turns its arguments into the command line (``argv_of``) and runs ``core.cli.main`` on it, the CLI's
own code path (its parsing, limits, language and error messages), with stdout and stderr captured:

* JSON output (give ``format: "json"``; the human table is the default, as on the command line) is returned
  as text and as structured content;
* a command that writes a file (``export``, ``report``) without ``output`` writes it into the server's
  folder (``mcp_folder``; kept after the server stops) and returns its path, a ``resource_link`` to it and,
  for text of at most ``INLINE_BYTES``, the text itself as an embedded resource; with ``output`` the
  command writes that file itself;
* a failed call (an argument the schema refuses, a value the command refuses, a design that cannot be
  built) is a tool error (``isError``) whose text is the command's one-line message; the server keeps
  running. Calls run one at a time in a worker thread (the captured streams are the process's).

May import: anything in ``core`` and ``core.cli``, and the ``mcp`` package (only when the server starts).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import mimetypes
import os
import sys
import tempfile
import threading
import traceback
from pathlib import Path

from core.cli.common import (
    DESIGN_FILE,
    fraction,
    leaf_ratio,
    non_negative_int,
    number,
    on_off,
    one_line,
    positive_float,
    positive_int,
    ratio,
    seed,
    size,
    tokens,
)
from core.design import FIELDS, field_bounds
from core.errors import InputError, os_reason, shown
from core.i18n import _, current, number as number_text

TOOLS = ("plan", "compare", "optimize", "failure", "export", "report")
"""The commands served as tools, in the order ``tools/list`` gives them."""

INLINE_BYTES = 64 * 1024
"""Largest text file [bytes] a file command also returns inline, ~16k tokens of an assistant's context (a review
pack's HTML, ~5 MB, is only linked; so is binary data, a PDF, whose base64 would fill the context for nothing)."""

_NUMBER_TEXT = ["number", "string"]
READER_TYPES = {
    positive_int: "integer", non_negative_int: "integer", seed: "integer", int: "integer",
    number: "number", positive_float: "number", fraction: "number", float: "number", on_off: "boolean",
    ratio: _NUMBER_TEXT, leaf_ratio: _NUMBER_TEXT, size: _NUMBER_TEXT, tokens: _NUMBER_TEXT,
}
"""The JSON type of the value each CLI reader reads (a ratio, size or token count is a number or text like
``3:1``, ``1GiB``, ``15T``); a reader not listed here takes a string. Ranges are the readers' to check (their
messages), except a design field's bounds, which its declaration gives (``core.design.field_bounds``)."""

SERVER_NAME = "fabric-planner"


def register(subparsers) -> None:
    """Add the ``mcp`` sub-command."""
    parser = subparsers.add_parser(
        "mcp", help=_("serve the main commands to assistants (Model Context Protocol, stdio)"),
        description=_("Serve plan, compare, optimize, failure, export and report as tools of a Model Context "
                      "Protocol server on stdin and stdout, for assistants and automation. Each "
                      "tool takes the command's options; a call runs the command."))
    parser.set_defaults(handler=run)


def _subcommands() -> argparse._SubParsersAction:  # noqa: SLF001
    """The CLI's sub-commands (``core.cli.build_parser``) in the current language."""
    from core.cli import build_parser

    return next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """The sub-command parsers of ``TOOLS`` in the current language, by command name."""
    sub = _subcommands()
    return {name: sub.choices[name] for name in TOOLS}


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's options and positionals, without ``--help``."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]  # noqa: SLF001


def _flag(action: argparse.Action) -> str:
    """The option as typed: its long form (``--output``, not ``-o``), or the positional's metavar."""
    return max(action.option_strings, key=len) if action.option_strings else str(action.metavar or action.dest)


def _value_schema(action: argparse.Action) -> dict:
    """The schema of one value of ``action``: a design file path or object, a choice, or its reader's type."""
    if action.metavar == DESIGN_FILE:
        return {"anyOf": [{"type": "string", "description": _("path of a design JSON file")},
                          {"type": "object", "description": _("the design itself (plan's design output)")}]}
    if action.choices is not None:  # a choice typed as digits ("2" tiers) is a JSON number too
        choices = list(action.choices)
        choices += [int(c) for c in choices if isinstance(c, str) and c.isdigit() and int(c) not in choices]
        kinds = sorted({"integer" if isinstance(c, int) else "string" for c in choices})
        return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": choices}
    schema = {"type": READER_TYPES.get(action.type, "string")}
    if action.dest in FIELDS and schema["type"] != "string":  # a design field: its declared bounds
        low, high, low_open, high_open = field_bounds(action.dest)
        if low is not None:
            schema["exclusiveMinimum" if low_open else "minimum"] = low
        if high is not None:
            schema["exclusiveMaximum" if high_open else "maximum"] = high
    return schema


def option_schema(action: argparse.Action) -> dict:
    """The JSON schema of one option: its value's schema (an array for a repeated option or positionals), its
    help and flag as the description, its default."""
    if isinstance(action, argparse._StoreTrueAction):  # noqa: SLF001
        schema = {"type": "boolean"}
    elif isinstance(action, argparse._AppendAction) or action.nargs in ("+", "*"):  # noqa: SLF001
        schema = {"type": "array", "items": _value_schema(action)}
        if action.nargs == "+" or (action.required and action.option_strings):
            schema["minItems"] = 1
    else:
        schema = _value_schema(action)
    metavar = f" {action.metavar}" if action.metavar and action.option_strings else ""
    help_text = (action.help or "").replace("%%", "%")
    schema["description"] = f"{_flag(action)}{metavar}: {help_text}".strip().rstrip(":")
    default = action.default
    if default is not None and default is not argparse.SUPPRESS and not isinstance(action, argparse._StoreTrueAction):
        with contextlib.suppress(TypeError, ValueError):
            schema["default"] = json.loads(json.dumps(default, allow_nan=False))
    return schema


def input_schema(parser: argparse.ArgumentParser) -> dict:
    """The tool's input schema: every option of ``parser`` (``option_schema``), its required ones, nothing else."""
    actions = options(parser)
    return {"type": "object", "properties": {a.dest: option_schema(a) for a in actions},
            "required": [a.dest for a in actions if a.required], "additionalProperties": False}


def _text(value) -> str:
    """A JSON value as the command line types it (``on``/``off`` for a boolean)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return repr(value) if isinstance(value, float) else str(value)


def argv_of(command: str, parser: argparse.ArgumentParser, arguments: dict, folder: Path) -> list[str]:
    """The command line of a call: ``command --option=value ... -- positionals``; a design given as an object
    is written to a file in ``folder`` first."""
    argv, positionals = [command], []
    for action in options(parser):
        if action.dest not in arguments:
            continue
        value = arguments[action.dest]
        if isinstance(action, argparse._StoreTrueAction):  # noqa: SLF001
            argv += [_flag(action)] if value else []
            continue
        values = [_design_path(v, folder) if action.metavar == DESIGN_FILE else _text(v)
                  for v in (value if isinstance(value, list) else [value])]
        if action.option_strings:
            argv += [f"{_flag(action)}={v}" for v in values]
        else:
            positionals += values
    return argv + (["--", *positionals] if positionals else [])


def _design_path(value, folder: Path) -> str:
    """A design file path as given, or the design object written to a new file in ``folder``."""
    if not isinstance(value, dict):
        return str(value)
    handle, path = tempfile.mkstemp(prefix="design-", suffix=".json", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(value, out)
    return path


def validation_error(schema: dict, arguments: dict) -> str | None:
    """The first problem of ``arguments`` against ``schema`` in one short line, or None."""
    import jsonschema

    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(arguments))
    if error is None:
        return None
    where = ".".join(str(p) for p in error.absolute_path)
    return one_line(f"{where}: {error.message}" if where else error.message)


def run_cli(argv: list[str]) -> tuple[int, bytes, str]:
    """``core.cli.main(argv)`` with stdout (bytes, for a PDF too) and stderr captured: (exit code, stdout,
    stderr). An unexpected exception is exit code 1 with a one-line message; its traceback goes to the real
    stderr (the server's log), never to the client."""
    from core.cli import main

    out_bytes, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", newline="\n", write_through=True)
    real_stderr = sys.stderr
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:  # --help and the like: not for tools, but never the end of the server
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # noqa: BLE001 - a bug must not end the server; the log has the traceback
        traceback.print_exc(file=real_stderr)
        code = 1
        err.write(_("internal error: {kind}").format(kind=type(exc).__name__))
    out.flush()
    return code, out_bytes.getvalue(), err.getvalue()


def mcp_folder() -> Path:
    """The server's folder for design objects and files written without ``output`` (created once)."""
    global _FOLDER
    if _FOLDER is None:
        _FOLDER = Path(tempfile.mkdtemp(prefix="fabric-planner-mcp-"))
    return _FOLDER


_FOLDER: Path | None = None
_LOCK = threading.Lock()
_COUNTER = [0]


def _new_file(command: str, arguments: dict, parser: argparse.ArgumentParser) -> tuple[str, str]:
    """A new file name in the server's folder for a file command's output (``3-slurm.conf``, ``4-report.pdf``,
    after ``core.formats``' suffixes) and its MIME type."""
    from core.formats.exports import exports
    from core.formats.filenames import KINDS

    _COUNTER[0] += 1
    fmt = arguments.get("format") or parser.get_default("format") or "html"  # report: no format and no .pdf is HTML
    if command == "export":
        export = exports()[fmt]
        return f"{_COUNTER[0]}-{fmt}{export.suffix}", export.mime
    name = f"{_COUNTER[0]}{KINDS.get(f'{command}-{fmt}', '.txt')}"
    return name, _mime(name)


def _mime(name: str) -> str:
    """The MIME type of a file name (``application/octet-stream`` when its suffix says nothing)."""
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def call(command: str, arguments: dict, parser: argparse.ArgumentParser, language: str) -> dict:
    """Run one tool call (one at a time): ``{"error": text}``, or ``{"text", "json", "notes"}`` for a command that
    prints, ``{"text", "file", "mime"}`` for one that writes a file (the module docstring)."""
    with _LOCK, tempfile.TemporaryDirectory(prefix="call-", dir=mcp_folder()) as scratch:
        argv = ["--lang", language, *argv_of(command, parser, arguments, Path(scratch))]
        code, data, errors = run_cli(argv)
        if code != 0:
            return {"error": one_line(errors or _("failed with exit code {code}").format(code=code))}
        notes = errors.strip()
        if any(a.dest == "output" for a in options(parser)):
            path = arguments.get("output")
            if path:
                mime = _mime(path)
            else:
                name, mime = _new_file(command, arguments, parser)
                path = str(mcp_folder() / name)
                Path(path).write_bytes(data)
            written = _("wrote {path} ({size} bytes)").format(path=path, size=number_text(os.path.getsize(path)))
            return {"text": "\n".join(filter(None, [written, notes])), "file": path, "mime": mime}
        text = data.decode("utf-8")
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        return {"text": text, "json": parsed if isinstance(parsed, dict) else None, "notes": notes}


def tool_result(outcome: dict):
    """The ``CallToolResult`` of ``call``'s outcome."""
    import mcp_types as types

    if "error" in outcome:
        return types.CallToolResult(content=[types.TextContent(text=outcome["error"])], is_error=True)
    content = [types.TextContent(text=outcome["text"])]
    if outcome.get("notes"):
        content.append(types.TextContent(text=outcome["notes"]))
    path = outcome.get("file")
    if path is not None:
        file = Path(path)
        uri, mime = file.resolve().as_uri(), outcome["mime"]
        content.append(types.ResourceLink(uri=uri, name=file.name, mime_type=mime, size=file.stat().st_size))
        data = file.read_bytes() if file.stat().st_size <= INLINE_BYTES else b""
        with contextlib.suppress(UnicodeDecodeError):
            if data:
                content.append(types.EmbeddedResource(resource=types.TextResourceContents(
                    uri=uri, mime_type=mime, text=data.decode("utf-8"))))
    return types.CallToolResult(content=content, structured_content=outcome.get("json"))


def tools() -> list:
    """The ``Tool`` of every command in ``TOOLS``: name, title (its one-line help), description, schema."""
    import mcp_types as types

    sub, out = _subcommands(), []
    helps = {c.dest: c.help for c in sub._choices_actions}  # noqa: SLF001 - the one-line help --help lists
    for name in TOOLS:
        parser = sub.choices[name]
        writes = any(a.dest == "output" for a in options(parser))
        out.append(types.Tool(name=name, title=helps.get(name), description=parser.description,
                              input_schema=input_schema(parser),
                              annotations=types.ToolAnnotations(read_only_hint=not writes, destructive_hint=writes,
                                                                idempotent_hint=True, open_world_hint=False)))
    return out


def server():
    """The low-level MCP ``Server`` with the tools of ``TOOLS`` in the current language."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    language = current()
    listed = tools()
    parsers = command_parsers()
    schemas = {t.name: t.input_schema for t in listed}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name not in parsers:
            return tool_result({"error": _("unknown tool {name}; the tools are {names}").format(
                name=shown(params.name), names=", ".join(TOOLS))})
        problem = validation_error(schemas[params.name], arguments)
        if problem is not None:
            return tool_result({"error": _("error: {message}").format(message=problem)})
        try:
            outcome = await anyio.to_thread.run_sync(call, params.name, arguments, parsers[params.name], language)
            return tool_result(outcome)
        except Exception as exc:  # noqa: BLE001 - e.g. the server's folder is full: said, and the server goes on
            traceback.print_exc(file=sys.stderr)
            return tool_result({"error": _("internal error: {kind}").format(kind=type(exc).__name__)})

    return Server(SERVER_NAME, instructions=_(
        "Plan GPU cluster networks: size a design, compare designs, find the cheapest one that meets constraints, "
        "fail parts of it, export it and write its review pack. Give format json for machine-readable results."),
                  on_list_tools=list_tools, on_call_tool=call_tool)


def run(args: argparse.Namespace) -> str:
    """Serve on stdin/stdout until the client closes them; returns ``""``."""
    import anyio
    from mcp.server.stdio import stdio_server

    if sys.stdin is None or sys.stdout is None:  # started with a standard stream closed (`<&-`)
        raise InputError(_("cannot serve on stdin and stdout: {reason}").format(
            reason=os_reason(OSError(errno.EBADF, os.strerror(errno.EBADF)))))
    app = server()

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await app.run(read_stream, write_stream, app.create_initialization_options())

    try:
        anyio.run(serve)
    except BaseExceptionGroup as group:  # stdin or stdout unusable (closed, not readable): one line, exit 2
        failed = group.subgroup(lambda exc: isinstance(exc, OSError))
        if failed is None:
            raise
        while isinstance(failed, BaseExceptionGroup):
            failed = failed.exceptions[0]
        raise InputError(_("cannot serve on stdin and stdout: {reason}").format(reason=os_reason(failed))) from None
    return ""
