"""``python -m core mcp``: a real MCP client session against the server, one process for the module.

Each tool's result is the command line's output for the same arguments; each tool's schema is a valid JSON
schema holding every option of its command (generated from the parser, so they cannot drift); a bad call is a
tool error with the command's short message, and the server keeps serving.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import sys
import threading
from pathlib import Path

import jsonschema
import pytest

from core.cli import main
from core.cli.mcp import TOOLS, command_parsers, options

ROOT = Path(__file__).resolve().parent.parent


class Client:
    """An MCP client session on a thread of its own, called synchronously from the tests."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.stop: asyncio.Event | None = None
        self.session = None
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._serve(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(60), "the MCP server did not start"
        if self.failure is not None:
            raise self.failure

    async def _serve(self) -> None:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self.stop = asyncio.Event()
        params = StdioServerParameters(command=sys.executable, args=["-m", "core", "--lang", "en", "mcp"],
                                       cwd=str(ROOT), env={**os.environ, "TMPDIR": str(self.folder)})
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self.session = session
                self.ready.set()
                await self.stop.wait()
        except BaseException as exc:  # noqa: BLE001 - said by the test that waits
            self.failure = exc
            self.ready.set()

    def run(self, coroutine, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def call(self, name: str, arguments: dict):
        return self.run(self.session.call_tool(name, arguments))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    c = Client(tmp_path_factory.mktemp("mcp"))  # the server's files go there, not into /tmp
    yield c
    c.close()


def cli(*argv: str) -> str:
    """The command line's stdout for ``argv`` (exit code 0 asserted)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--lang", "en", *argv]) == 0
    return out.getvalue()


def text(result) -> str:
    assert not result.is_error, result.content[0].text
    return result.content[0].text


def test_tools_and_their_schemas_hold_every_option_of_their_command(client):
    listed = {t.name: t for t in client.run(client.session.list_tools()).tools}
    assert list(listed) == list(TOOLS)
    parsers = command_parsers()
    for name, tool in listed.items():
        schema = tool.input_schema
        jsonschema.Draft202012Validator.check_schema(schema)
        assert tool.description == parsers[name].description
        flags = {flag for a in parsers[name]._actions for flag in a.option_strings} - {"-h", "--help"}
        assert flags, name
        for action in options(parsers[name]):
            assert action.dest in schema["properties"], (name, action.dest)
            described = schema["properties"][action.dest]["description"]
            assert described.startswith(max(action.option_strings, key=len) if action.option_strings
                                        else action.metavar), (name, described)
            flags -= set(action.option_strings)
            assert (action.dest in schema["required"]) == bool(action.required), (name, action.dest)
        assert not flags, (name, flags)
        assert len(schema["properties"]) == len(options(parsers[name])), name  # no two options share a name
        assert schema["additionalProperties"] is False
    plan = listed["plan"].input_schema["properties"]
    assert plan["gpus"]["type"] == "integer" and plan["gpus"]["minimum"] == 1
    from core.design import field_bounds

    low, high = field_bounds("oversubscription")[:2]  # a design field's bounds, as core.design declares them
    assert (plan["oversubscription"]["minimum"], plan["oversubscription"]["maximum"]) == (low, high)
    assert {"infiniband", "ethernet"} <= set(plan["fabric"]["enum"])
    assert {"2", 2} <= set(plan["tiers"]["enum"])  # a choice of digits is a JSON number too
    assert {"type": "object"} in [{"type": s["type"]} for s in plan["design"]["anyOf"]]
    assert listed["failure"].input_schema["properties"]["fail"]["type"] == "array"
    assert "fail" in listed["failure"].input_schema["required"]


@pytest.mark.parametrize("argv", [
    ("plan", "--gpus", "256", "--format", "json"),
    ("plan", "--gpus", "512", "--fabric", "ethernet", "--oversubscription", "2"),
    ("failure", "--gpus", "256", "--fail", "spine:1", "--fail", "leaf:1", "--format", "json"),
    ("failure", "--gpus", "128", "--fail", "spine:1", "--lang", "zh"),  # the table in the call's language
])
def test_a_call_gives_the_command_lines_output(client, argv):
    command, arguments = argv[0], {}
    parser = command_parsers()[command]
    by_flag = {flag: a for a in options(parser) for flag in a.option_strings}
    for flag, value in zip(argv[1::2], argv[2::2]):
        action = by_flag[flag]
        typed = int(value) if value.isdigit() else value
        if isinstance(action, argparse._AppendAction):
            arguments.setdefault(action.dest, []).append(typed)
        else:
            arguments[action.dest] = typed
    result = client.call(command, arguments)
    assert text(result) == cli(*argv)
    assert ("zh" in argv) == any("\u4e00" <= ch <= "\u9fff" for ch in text(result))
    if "json" in argv:
        assert result.structured_content == json.loads(cli(*argv))


def test_compare_takes_files_or_design_objects(client, tmp_path):
    first = json.loads(cli("plan", "--gpus", "256", "--format", "json"))["design"]
    second = {**first, "oversubscription": 2, "name": "two to one"}
    files = []
    for i, design in enumerate((first, second)):
        files.append(str(tmp_path / f"d{i}.json"))
        Path(files[-1]).write_text(json.dumps(design), encoding="utf-8")
    expected = cli("compare", *files, "--sizes", "1GiB", "--format", "json")
    assert text(client.call("compare", {"designs": files, "sizes": "1GiB", "format": "json"})) == expected
    inline = client.call("compare", {"designs": [first, second], "sizes": "1GiB", "format": "json"}).structured_content
    want = json.loads(expected)
    for column in (*inline["columns"], *want["columns"]):
        column.pop("file"), column.pop("name")
    assert inline == want
    assert want["columns"][1]["deltas"]["switches_total"]["verdict"] == "better"
    assert text(client.call("compare", {"designs": files})) == cli("compare", *files)


def test_optimize_on_a_small_grid(client):
    argv = ["--gpus", "64", "--topologies", "rail-optimized", "--oversubscription-grid", "1,2", "--single-model",
            "--fabric", "infiniband", "--workers", "1", "--format", "json"]
    got = client.call("optimize", {"gpus": 64, "topologies": "rail-optimized", "oversubscription_grid": "1,2",
                                   "single_model": True, "fabric": "infiniband", "workers": 1, "format": "json"})
    want = json.loads(cli("optimize", *argv))
    got = got.structured_content
    assert got.pop("seconds") >= 0 and want.pop("seconds") >= 0
    assert got == want and got["best"]["design"]["gpus"] == 64


def test_export_and_report_are_files(client, tmp_path):
    result = client.call("export", {"gpus": 64, "format": "slurm", "node_prefix": "node"})
    kinds = [c.type for c in result.content]
    assert kinds == ["text", "resource_link", "resource"]
    expected = cli("export", "--gpus", "64", "--format", "slurm", "--node-prefix", "node")
    path = Path(result.content[1].uri.removeprefix("file://"))
    assert path.parent.parent == client.folder
    assert path.read_text(encoding="utf-8") == expected == result.content[2].resource.text
    assert str(path) in result.content[0].text and path.suffix == ".conf"
    from core.formats.exports import exports

    assert result.content[1].mime_type == exports()["slurm"].mime
    target = tmp_path / "topology.conf"
    result = client.call("export", {"gpus": 64, "format": "slurm", "node_prefix": "node", "output": str(target)})
    assert target.read_text(encoding="utf-8") == expected and str(target) in text(result)

    result = client.call("report", {"gpus": 64, "name": "review"})
    link = result.content[1]
    assert [c.type for c in result.content] == ["text", "resource_link"]  # ~5 MB: linked, not inline
    assert link.mime_type == "text/html" and link.name.endswith("-report.html")
    html = Path(link.uri.removeprefix("file://")).read_text(encoding="utf-8")
    assert html == cli("report", "--gpus", "64", "--name", "review")
    assert link.size == len(html.encode("utf-8"))


def test_bad_calls_are_tool_errors_and_the_server_goes_on(client):
    cases = [
        ({"gpus": 64, "colour": "red"}, "'colour' was unexpected"),
        ({"gpus": "many"}, "gpus: 'many' is not of type 'integer'"),
        ({"gpus": 0}, "gpus: 0 is less than the minimum of 1"),
        ({"fabric": "token-ring"}, "fabric"),
        ({"gpu": "nope"}, "unknown system model 'nope'"),
        ({"gpus": 100000, "tiers": 1}, "cannot build this design: 1 tier of"),
        ({"design": str(ROOT / "no-such-design.json")}, "cannot read design file"),
    ]
    for arguments, message in cases:
        result = client.call("plan", arguments)
        assert result.is_error, arguments
        said = result.content[0].text
        assert message in said and "Traceback" not in said and len(said) <= 300 and "\n" not in said, said
    result = client.call("failure", {"gpus": 64})
    assert result.is_error and "fail" in result.content[0].text
    result = client.call("compare", {"designs": [{"gpus": 64}]})
    assert result.is_error and "two to 4 design files" in result.content[0].text
    result = client.call("no-such-tool", {})
    assert result.is_error and "plan" in result.content[0].text
    assert json.loads(text(client.call("plan", {"gpus": 64, "format": "json"})))["gpus"] == 64


def test_the_cli_lists_mcp():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["--lang", "en", "--help"])
    assert "mcp" in out.getvalue() and "compare" in out.getvalue()
