"""The documentation: README.md is a front door, docs/ holds the rest, and both say what the code does.

* README.md stays at most 8 KB, its set-up is the two commands ``make run`` and ``make test`` with the
  facts the Makefile needs, and its page tour shows one existing screenshot per page.
* Every relative link and image in README.md and docs/*.md points at an existing file, and every
  ``#anchor`` at a heading of that file (GitHub's heading ids).
* docs/cli.md's option lists are the commands' own ``--help`` (``python -m tools.cli_doc`` writes them).
* Limits and defaults the docs state are the code's.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_LIMIT = 8192

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[(?:[^\]\n]|\][^(\n])*?\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_HTML_SRC = re.compile(r"""<(?:img|a)\b[^>]*\b(?:src|href)=["']([^"']+)["']""", re.I)


def _prose(text: str) -> str:
    """``text`` without fenced blocks and code spans (links inside them are not links)."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(text: str) -> list[str]:
    """Targets of every markdown link and image, and of HTML ``img``/``a`` tags, outside code."""
    prose = _prose(text)
    return _LINK.findall(prose) + _HTML_SRC.findall(prose)


def heading_ids(text: str) -> set[str]:
    """GitHub's ids of the headings of a markdown text (lower case, punctuation dropped, spaces to '-', repeats -1, -2)."""
    ids: set[str] = set()
    seen: dict[str, int] = {}
    for line in _FENCE.sub("", text).splitlines():
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def _relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("//")


def broken_links(path: Path) -> list[str]:
    """The relative links and images of ``path`` whose file (or heading) does not exist."""
    bad = []
    for target in links(path.read_text(encoding="utf-8")):
        if not _relative(target):
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            bad.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in heading_ids(dest.read_text(encoding="utf-8")):
            bad.append(f"{target} (no such heading in {dest.name})")
    return bad


def section(text: str, title: str) -> str:
    """The text under the ``## title...`` heading, up to the next ``## `` heading."""
    match = re.search(rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def setup_commands(text: str) -> list[str]:
    """The commands of the first code block of the README's set-up section, comments dropped."""
    block = re.search(r"^```[^\n]*\n(.*?)^```", section(text, "Set-up"), re.S | re.M)
    assert block, "the set-up section has no code block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.split("#", 1)[0].strip()]


def test_readme_is_a_front_door_of_at_most_8_kb():
    size = len(README.read_bytes())
    assert size <= README_LIMIT, (f"README.md is {size:,} bytes, more than {README_LIMIT:,}: "
                                  "move the detail to docs/ and link it")


def test_readme_set_up_is_make_run_and_make_test():
    text = README.read_text(encoding="utf-8")
    assert setup_commands(text) == ["make run", "make test"]
    setup = section(text, "Set-up")
    for fact in ("Python 3.11", "`make`", "python3-venv", "PYTHON=python3.11"):  # what the Makefile needs
        assert fact in setup, fact


def test_readme_serves_where_the_makefile_does():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    host = re.search(r"^HOST \?= (\S+)$", makefile, re.M).group(1)
    port = re.search(r"^PORT \?= (\S+)$", makefile, re.M).group(1)
    python = re.search(r"^PYTHON \?= (\S+)$", makefile, re.M).group(1)
    assert re.search(r"^(run|test):", makefile, re.M)
    assert f"http://{host}:{port}" in section(README.read_text(encoding="utf-8"), "Set-up")
    assert python == "python3"  # the README's "If `python3` is another version" hint


def test_readme_tours_every_page_with_a_screenshot():
    tour = section(README.read_text(encoding="utf-8"), "A tour of the pages")
    images = [target for target in links(tour) if target.lower().endswith(".png")]
    pages = sorted((ROOT / "pages").glob("[0-9]_*.py"))
    assert len(images) == len(pages) == len(set(images)), (images, [p.name for p in pages])
    for image in images:
        assert (ROOT / image).is_file(), image


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_images_exist(path):
    assert broken_links(path) == []


def test_link_checker_finds_a_broken_link(tmp_path):
    """The checker itself: a missing file, a missing heading and a missing image are reported; code is not."""
    (tmp_path / "other.md").write_text("# Title\n\n## A section: with & punctuation\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-section-with--punctuation) [gone](missing.md) ![pic](img/none.png)\n"
                    "[bad anchor](other.md#nowhere) [web](https://example.com/x.md) `[code](nothing.md)`\n"
                    "```\n[fenced](nothing.md)\n```\n", encoding="utf-8")
    assert broken_links(page) == ["missing.md (no such file)", "img/none.png (no such file)",
                                  "other.md#nowhere (no such heading in other.md)"]


def test_cli_reference_is_the_commands_own_help():
    from tools import cli_doc

    assert cli_doc.write(check=True), "docs/cli.md is not in step with the CLI's --help: run python -m tools.cli_doc"
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    from core.cli import COMMANDS, build_parser  # every sub-command has its section
    parser = build_parser()
    commands = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices  # noqa: SLF001
    assert len(commands) == len(COMMANDS)
    for name in commands:
        assert f"### `{name}`" in text, name


def test_docs_state_the_codes_limits():
    """Numbers the docs quote are the code's (a changed limit fails here until the docs say it)."""
    from core.analysis import compare, optimize
    from core.figures import sweep, topology
    from core.formats import design_file
    from core.perf import constants, sizes, training_constants

    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    model = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
    designer = (ROOT / "pages" / "1_Designer.py").read_text(encoding="utf-8")
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))

    assert f"uploads are limited to {config['server']['maxUploadSize']} MB" in guide
    assert f"websocket messages to {config['server']['maxMessageSize']} MB" in guide
    assert config["runner"]["postScriptGC"] is False and "garbage collection after every rerun is off" in guide
    assert design_file.MAX_DESIGN_FILE_BYTES == 1_000_000 and "(JSON, at most 1 MB)" in guide
    flat = " ".join(guide.split())
    eager = int(re.search(r"^EAGER_EXPORT_GPUS = (\d+)", designer, re.M).group(1))
    assert f"Up to {eager:,} GPUs the exports are built when the tab opens" in flat
    assert f"Past about {topology.FULL_GRAPH_LIMIT:,} drawn elements" in flat
    assert f"the drawing budget is {topology.DRAW_BUDGET:,} elements" in flat
    assert f"Up to {'four' if compare.MAX_DESIGNS == 4 else compare.MAX_DESIGNS} designs" in flat
    assert f"at most {optimize.MAX_ENVELOPE_SEARCHES} searches" in flat
    assert f"span {sweep.LOG_SPAN}x or more" in flat
    model_flat = " ".join(model.split())
    assert sizes.MAX_SIZE_BYTES == 2**40 and "up to 1 TiB" in model_flat
    assert f"default the current {constants.load_constants().nccl.default_version}" in model_flat
    tolerance = training_constants.load_training_catalog().memory.tolerance
    assert f"within {tolerance:.0%} of the usable HBM" in model_flat
