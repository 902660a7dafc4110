"""The command line and the share-link codec in both languages.

* ``python -m core --lang zh ...``: help, the table output of every sub-command and every error are
  Chinese (no English word of the catalog's texts left, ``tests/i18n_check.py``); ``--lang en``
  shows no Chinese; the numbers are the same in both.
* ``--format json`` (and ``csv``) is byte-identical in both languages: scripts never see the locale.
* ``--lang`` defaults from ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``; a bad value is exit code 2.
* Share-link and Performance-link warnings, override, design-file and number-entry messages are
  in the language of the request; ``lang`` in a link is never warned about and never encoded.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import run_cli
from core.catalog import load_catalog
from core.cli import COMMANDS, requested_language
from core.cli.common import default_language, display_width, row
from core.design import Design

COMMAND_NAMES = tuple(module.__name__.rsplit(".", 1)[1] for module in COMMANDS)
"""Every sub-command's name (its module's), read from the CLI's own list."""
from core.errors import InputError
from core.formats import joblink, sharelink
from core.formats.design_file import read_design_file
from core.formats.entry import parse_whole
from core.i18n import language
from tests.i18n_check import chinese_leaks, english_leaks


@pytest.fixture(autouse=True)
def english_shell(monkeypatch):
    """Every test starts from a shell that says nothing about its language (default: English)."""
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)


def _run(capsys, *argv):
    return run_cli(capsys, *argv)


def _catalog_words() -> list[str]:
    """Catalog ids and product names: written as the catalog writes them in either language."""
    catalog = load_catalog()
    words = []
    for kind in ("systems", "nics", "switches", "transceivers", "cables"):
        for entry in getattr(catalog, kind):
            words += [entry.id, getattr(entry, "name", "")]
    return sorted((w for w in words if w), key=len, reverse=True)


def _identifier_words() -> list[str]:
    """What is typed as is in either language: link keys and values, collectives, algorithms, presets."""
    from core.perf.collectives import ALGORITHMS, OPS
    from core.perf.modelshape import CUSTOM
    from core.perf.training import PRESETS

    keys = list(sharelink.KEYS) + [joblink.JOB.prefix + p.key for p in joblink.JOB.params]
    values = ["auto", "copper", "aoc", "optics", "eth", "ib", "rail", "tor", "infiniband", "ethernet",
              "rail-optimized", "top-of-rack", "selective", "full", "none", "bf16", "fp8", "json", "table", "csv",
              "tp", "pp", "cp", "dp", "ep", "vp", "UTF-8"]
    return [*keys, *values, *OPS, *ALGORITHMS, *PRESETS, CUSTOM, *joblink.COMPARE_FABRICS]


def _without_names(text: str) -> str:
    """``text`` less what stays as written in Chinese too: catalog ids and product names, options
    (``--nodes``), echoed input (``'many'``), link keys and values, collective and model ids."""
    for word in _catalog_words():
        text = text.replace(word, " ")
    text = re.sub(r"'[^']*'|--[\w-]+|python -m core|ceil\(gpus / gpus-per-node\)", " ", text)
    for word in sorted(_identifier_words(), key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", text)
    return text


DESIGNS = [
    ["--gpus", "1024"],
    ["--gpus", "1000", "--gpus-per-node", "8", "--tiers", "3"],
    ["--gpu", "gb200-nvl72", "--nodes", "36"],
    ["--gpu", "b300", "--fabric", "ethernet", "--switch", "sn5600", "--port-speed", "400", "--planes", "2",
     "--nodes", "64", "--topology", "top-of-rack", "--oversubscription", "2"],
]
COMMANDS = (
    [["plan", *d] for d in DESIGNS]
    + [["collective", "--gpus", "250"], ["collective", "--gpus", "256", "--op", "all-to-all", "--algorithm", "direct"],
       ["collective", "--gpu", "gb200-nvl72", "--nodes", "36", "--size", "64MiB"]]
    + [["train", "--gpus", "1024"],
       ["train", "--gpus", "1024", "--model", "deepseek-v3", "--ep", "8", "--pp", "16", "--vp", "2",
        "--recompute", "full"],
       ["train", "--gpus", "1000", "--tp", "4", "--cp", "2", "--pp", "1", "--model", "llama3-8b", "--job-gpus", "992",
        "--global-batch", "992"],
       ["train", "--gpus", "512", "--layers", "12", "--hidden", "2048", "--ffn", "8192", "--heads", "16",
        "--kv-heads", "4", "--vocab", "32000"]]
    + [["serve", "--gpus", "128", "--ttft-ms", "2000", "--tpot-ms", "100", "--explain", "--no-fabric"],
       ["serve", "--model", "deepseek-v3", "--nodes", "16", "--prefill-nodes", "4", "--prefill-dp", "32",
        "--prefill-ep", "32",
        "--decode-nodes", "8", "--decode-dp", "64", "--decode-ep", "64", "--rate", "20"]]
)


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:3]))
def test_table_output_speaks_one_language(capsys, argv):
    code, zh, err = _run(capsys, "--lang", "zh", *argv)
    assert code == 0, err
    assert chinese_leaks(zh), zh
    assert not english_leaks(_without_names(zh)), (english_leaks(_without_names(zh)), zh)
    code, en, err = _run(capsys, "--lang", "en", *argv)
    assert code == 0, err
    assert not chinese_leaks(en), en
    # the same numbers, whatever the words around them; money is the cards' compact money in each language's
    # steps ($51.2 M / 5,118万美元, core.i18n.usd), so amounts are counted, not compared digit by digit
    numbers = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
    money_en, money_zh = re.compile(r"[-+]?\$[\d,.]+(?: [MB])?"), re.compile(r"[-+]?[\d,.]+(?:亿|万)?美元")
    body = " ".join(line for line in zh.splitlines() if not line.startswith("  - "))
    body_en = " ".join(line for line in en.splitlines() if not line.startswith("  - "))
    assert len(money_zh.findall(body)) == len(money_en.findall(body_en))
    assert Counter(numbers.findall(money_zh.sub(" ", body))) == Counter(numbers.findall(money_en.sub(" ", body_en)))


def test_catalog_table_translates_its_own_text(capsys):
    code, zh, _ = _run(capsys, "--lang", "zh", "catalog")
    assert code == 0
    assert "[GPU 系统]" in zh and "[交换机]" in zh and "（估算；" in zh and "/节点" in zh
    lines = [line for line in zh.splitlines() if not line.startswith("  ")]  # headings; entries carry names
    assert not english_leaks("\n".join(lines))
    code, en, _ = _run(capsys, "catalog")
    assert code == 0 and not chinese_leaks(en)
    assert "[systems]" in en and "  QM9700: " in en and "$43,000 (street; $36,000 to $50,000), 747 W" in en  # price book 2026-12


def test_english_table_is_unchanged(capsys):
    code, out, _ = _run(capsys, "plan", "--gpus", "1024")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == ("1,024 x H100 GPUs in 128 nodes; InfiniBand 400G, rail-optimized, 2 tiers, "
                        "1 plane, switch QM9700")
    assert lines[1] == "switches      leaf 32  spine 16  core 0  total 48"
    # price book 2026-12; capex includes the storage and management networks (core.networks), named as the cards
    assert lines[5] == ("scale-up      NVLink, switch-based domain of 8 accelerators, 18 links each into 4 switch "
                        "chips: 450 GB/s to any peer (one direction); collectives by NCCL.")
    # (512 node-side modules at the flat-top MMA4Z00-NS-FLT, $1,249: +512 x $370 = +$189,440, +$185 per GPU)
    assert lines[6].startswith("cost          capex $51.4 M ($50,168 per GPU; compute fabric $6.40 M = 12.4%)")
    code, out, _ = _run(capsys, "collective", "--gpus", "250")
    assert any(line.startswith("all algorithms ring ") for line in out.splitlines())
    code, out, _ = _run(capsys, "train", "--gpus", "1024")
    assert "memory/GPU    weights " in out and " GiB of 80 GiB" in out


def test_chinese_table_lines_up(capsys):
    code, out, _ = _run(capsys, "--lang", "zh", "plan", "--gpus", "1024")
    starts = {display_width(line) - display_width(line[len(line.split()[0]):].lstrip(" ")) for line in
              out.splitlines()[1:7]}
    assert starts == {14}, out
    assert row("交换机数", "x") == "交换机数" + " " * 6 + "x"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_dragonfly_plan_lines_up(lang, capsys):
    """The Dragonfly+ row's label fits the label column (it read "Dragonfly+ groups", 17 columns, its text one
    space after it and three columns right of every other row's)."""
    code, out, _ = _run(capsys, "--lang", lang, "plan", "--gpus", "4096", "--topology", "dragonfly")
    lines = [line for line in out.splitlines()[1:8] if not line.startswith(" ")]
    starts = {display_width(line) - display_width(line[len(line.split()[0]):].lstrip(" ")) for line in lines}
    assert code == 0 and any(line.startswith("Dragonfly+ ") for line in lines) and starts == {14}, out


@pytest.mark.parametrize("argv", [
    ["plan", "--nodes", "64", "--format", "json"],
    ["plan", "--gpu", "gb200-nvl72", "--nodes", "36", "--format", "json"],
    ["plan", "--nodes", "64", "--format", "csv"],
    ["collective", "--gpus", "250", "--format", "json"],
    ["train", "--gpus", "1024", "--model", "deepseek-v3", "--ep", "8", "--pp", "16", "--recompute", "full",
     "--format", "json"],
    ["catalog", "--format", "json"],
    ["serve", "--nodes", "16", "--ttft-ms", "2000", "--tpot-ms", "100", "--explain", "--no-fabric", "--format", "json"],
], ids=lambda a: " ".join(a))
def test_machine_output_is_the_same_in_both_languages(capsys, argv):
    code, en, _ = _run(capsys, "--lang", "en", *argv)
    assert code == 0
    code, zh, _ = _run(capsys, "--lang", "zh", *argv)
    assert code == 0
    assert zh == en
    assert not chinese_leaks(zh)
    if "json" in argv:
        json.loads(zh)


def test_lang_after_the_sub_command_and_in_either_case(capsys):
    code, out, _ = _run(capsys, "plan", "--gpus", "64", "--lang", "zh")
    assert code == 0 and "交换机数" in out
    code, out, _ = _run(capsys, "--lang=ZH", "plan", "--gpus", "64")
    assert code == 0 and "交换机数" in out
    code, out, _ = _run(capsys, "--lang", "zh", "plan", "--gpus", "64", "--lang", "en")
    assert code == 0 and "switches" in out and not chinese_leaks(out)
    code, out, _ = _run(capsys, "--lan", "zh", "plan", "--gpus", "64")  # an abbreviation argparse accepts
    assert code == 0 and "交换机数" in out


@pytest.mark.parametrize("value", ["xx", "fr", "", "zh_CN"])
def test_unknown_language_is_exit_2(capsys, value):
    code, out, err = _run(capsys, "--lang", value, "plan")
    assert code == 2 and not out
    assert err.startswith("error: argument --lang: unknown language") and "zh, en" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("environment, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "zh_TW.UTF-8"}, "zh"), ({"LANG": "zh"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"), ({"LANG": "C.UTF-8"}, "en"), ({"LANG": "fr_FR.UTF-8"}, "en"), ({}, "en"),
    ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"), ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US"}, "zh"),
    ({"LC_ALL": "zh_CN.GB18030@euro", "LC_MESSAGES": "en_US"}, "zh"), ({"LC_ALL": "", "LANG": "zh_CN"}, "zh"),
])
def test_default_language_from_the_shell(environment, expected):
    assert default_language(environment) == expected


def test_shell_language_is_the_default(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, out, _ = _run(capsys, "plan", "--gpus", "64")
    assert code == 0 and "交换机数" in out
    code, out, _ = _run(capsys, "--lang", "en", "plan", "--gpus", "64")
    assert code == 0 and not chinese_leaks(out)
    code, _, err = _run(capsys, "plan", "--nodes", "0")
    assert code == 2 and err.startswith("错误：")


def test_requested_language_scan():
    assert requested_language(["--lang", "zh", "plan"]) == "zh"
    assert requested_language(["plan", "--lang=en"]) == "en"
    assert requested_language(["--lang", "xx"]) is None
    assert requested_language(["plan", "--", "--lang", "zh"]) is None
    assert requested_language(["plan", "--lang"]) is None


ERRORS = [
    (["plan", "--gpu", "h900"], 2),
    (["plan", "--nodes", "-4"], 2),
    (["plan", "--nodes", "many"], 2),
    (["plan", "--frobnicate"], 2),
    (["plan", "--fabric", "token-ring"], 2),
    (["plan", "--oversubscription", "0.2"], 2),
    (["plan", "--oversubscription", "a:b"], 2),
    (["plan", "--price", "QM9700=cheap"], 2),
    (["plan", "--price", "QM9700=1,5"], 2),
    (["plan", "--price", "nothing=3"], 2),
    (["plan", "--price", "QM9700"], 2),
    (["plan", "--pue", "-1"], 2),
    (["plan", "--gpu", " "], 2),
    (["plan", "--design", "/nonexistent.json"], 2),
    (["plan", "--nodes", "4", "--gpus", "32"], 2),
    (["plan", "--nodes"], 2),
    (["plan"] + ["--nodes", "1"] * 2 + ["extra"], 2),
    (["collective", "--size", "lots"], 2),
    (["collective", "--size", "x" * 30], 2),
    (["train", "--tokens", "-1T"], 2),
    (["train", "--tokens", "many"], 2),
    (["train", "--efficiency", "2"], 2),
    (["train", "--efficiency", "x"], 2),
    (["train", "--layers", "4"], 2),
    ([], 2),
    (["plan", "--gpu", "gb200-nvl72", "--nodes", "36", "--fabric", "ethernet", "--planes", "2"], 3),
    (["train", "--gpus", "1000", "--model", "deepseek-v3", "--ep", "8", "--pp", "4"], 3),
]


@pytest.mark.parametrize("argv, exit_code", ERRORS, ids=lambda a: " ".join(a) if isinstance(a, list) else "")
def test_errors_speak_the_chosen_language(capsys, argv, exit_code):
    code, out, zh = _run(capsys, "--lang", "zh", *argv)
    assert code == exit_code and not out
    assert len(zh.strip().splitlines()) == 1
    assert zh.startswith("错误：" if exit_code == 2 else "无法构建此设计："), zh
    assert not english_leaks(_without_names(zh)), (english_leaks(_without_names(zh)), zh)
    code, out, en = _run(capsys, "--lang", "en", *argv)
    assert code == exit_code
    assert en.startswith("error: " if exit_code == 2 else "cannot build this design: ") and not chinese_leaks(en)


def test_json_error_is_in_the_chosen_language(capsys):
    code, out, err = _run(capsys, "--lang", "zh", "plan", "--gpu", "gb200-nvl72", "--nodes", "36",
                          "--fabric", "ethernet", "--planes", "2", "--format", "json")
    assert code == 3 and not out and err.startswith("无法构建此设计：")


def _choice_words() -> set[str]:
    """Every value an option accepts as typed (``choices`` of every action of every sub-command) and the
    ids they list in their help: ``air-15``, ``topo``, ``netbox-cables``, ... stay as typed in any language."""
    import argparse

    from core.cli import build_parser

    words: set[str] = set()

    def walk(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif action.choices:
                words.update(str(c) for c in action.choices)

    walk(build_parser())
    from core.analysis.sweep import SETTINGS
    from core.formats.exports import exports
    from core.physical.racks import load_racks

    words |= {p.id for p in load_racks().presets} | set(exports()) | set(SETTINGS) | {"start:stop:step"}
    return {w for w in words if w and not w.isdigit()}


def _help_words(text: str) -> str:
    """Help text without what stays as typed: options, metavars, choices, commands, paths, examples."""
    text = re.sub(r"(?<=\w)-\n\s*(?=\w)", "-", text)  # an id argparse wrapped at its hyphen
    text = re.sub(r"python -m core|ceil\(gpus / gpus-per-node\)|⌈gpus / gpus-per-node⌉|assets/\S+|https?://\S+", " ", text)
    text = text.replace("draw.io", " ")
    text = re.sub(r"(?<![\w-])-[\w-]+(?:=\S+)?", " ", text)
    text = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", text)
    text = re.sub(r"\b[A-Z][A-Z0-9_.]+\b", " ", text)
    for word in (*COMMAND_NAMES, "fabric planner", "bidir", "tp", "pp", "cp",
                 "h100", "nccl-tests", "zh", "en"):
        text = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", text)
    for word in sorted(_choice_words(), key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", text)
    return _without_names(text)


@pytest.mark.parametrize("command", [[], *([name] for name in COMMAND_NAMES)], ids=str)
def test_help_speaks_the_chosen_language(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        _run(capsys, "--lang", "zh", *command, "--help")
    assert exit_info.value.code == 0
    zh = capsys.readouterr().out
    assert zh.startswith("用法：") and "选项：" in zh
    assert not english_leaks(_help_words(zh)), (english_leaks(_help_words(zh)), zh)
    with pytest.raises(SystemExit):
        _run(capsys, "--lang", "en", *command, "--help")
    en = capsys.readouterr().out
    assert en.startswith("usage: ") and "options:" in en and not chinese_leaks(en)


# --- share links ---------------------------------------------------------------------------------
BAD_LINKS = [
    {"n": "many"}, {"g": "h900"}, {"f": "token-ring"}, {"ps": "123"}, {"sw": "SN5600"}, {"sw": "Q3400", "ps": "400"},
    {"os": "0.2"}, {"yrs": "0"}, {"ti": "7"}, {"cm": "fiber"}, {"nvd": "12"}, {"n": "4", "ng": "32"},
    {"px": "QM9700:cheap,nothing:3,QM9700:1,5"}, {"pw": "QM9700"}, {"v": "9"}, {"zz": "1"},
    {"n": ["1", "2"]}, {"n": []}, {f"x{i}": "1" for i in range(8)}, {"ps": "800", "f": "eth", "g": "B300"},
    {"px": ",".join(f"bad{i}:1" for i in range(13))},
]


@pytest.mark.parametrize("params", BAD_LINKS, ids=lambda p: ",".join(list(p)[:3]))
def test_link_warnings_speak_the_chosen_language(params):
    with language("zh"):
        _, zh = sharelink.decode(params)
    with language("en"):
        design, en = sharelink.decode(params)
    assert zh and len(zh) == len(en)
    for warning in zh:
        assert chinese_leaks(warning) and not english_leaks(_without_names(warning)), warning
    for warning in en:
        assert not chinese_leaks(warning), warning
    with language("zh"):
        assert sharelink.decode(params)[0] == design  # the language changes the words only


def test_english_link_warnings_are_unchanged():
    _, warnings = sharelink.decode({"n": "many", "zz": "1"})
    assert warnings == [
        "Link parameter 'n' (Nodes) = 'many' was ignored: not a whole number. "
        "Accepted: a whole number from 1 to 1,000,000.",
        "Link parameter 'zz' is unknown and was ignored. Known: " + ", ".join(sharelink.KEYS) + ".",
    ]
    _, warnings = sharelink.decode({"px": "QM9700:cheap"})
    assert warnings == ["Link parameter 'px' (Price overrides [USD]): Price override 'QM9700:cheap' was ignored: "
                        "'cheap' for QM9700 is not a number. Accepted: comma-separated catalog ID:USD pairs, "
                        "0 to 1e9 USD each, e.g. QM9700:30000."]


@pytest.mark.parametrize("value", ["zh", "en", "fr", "", "x" * 100])
def test_lang_in_a_link_is_never_warned_about(value):
    design = Design(gpu="B200", nodes=64)
    for code in ("en", "zh"):
        with language(code):
            decoded, warnings = sharelink.decode({**sharelink.encode(design), sharelink.LANG_KEY: value})
        assert decoded == design and warnings == []
        with language(code):
            assert sharelink.LANG_KEY not in sharelink.encode(design)
    assert sharelink.LANG_KEY == "lang"


def test_performance_link_warnings_speak_the_chosen_language():
    params = {"perf_op": "all-gossip", "perf_tp": "65", "perf_prec": "fp4", "perf_tok": "x", "perf_all": "2",
              "perf_cmp": "ib9", "perf_zz": "1", "perf_model": "gpt-9"}
    with language("zh"):
        zh_values, zh = joblink.JOB.decode(params)
    en_values, en = joblink.JOB.decode(params)
    assert zh_values == en_values and len(zh) == len(en) == len(params)
    for warning in zh:
        assert chinese_leaks(warning) and not english_leaks(_without_names(warning)), warning
    assert not any(chinese_leaks(w) for w in en)
    assert "Link parameter 'perf_tp' (tensor parallel) = '65' was ignored: out of range. Accepted: 1 to 64." in en
    assert "Link parameter 'perf_prec' (precision) = 'fp4' was ignored: not one of the choices. " \
           "Accepted: bf16, fp8, fp8-128, mxfp8, nvfp4." in en


def test_compare_fabric_labels_translate():
    from core.i18n import _

    with language("zh"):
        labels = [_(label) for label, _changes in joblink.COMPARE_FABRICS.values()]
    # "InfiniBand 1:1" is a name and a ratio (nothing to translate); the Ethernet labels carry a word
    assert all(chinese_leaks(label) for label in labels if not label.startswith("InfiniBand")), labels
    assert any(label.startswith("InfiniBand") for label in labels)
    assert not any(english_leaks(label) for label in labels)


def test_override_parser_messages_translate():
    with language("zh"):
        with pytest.raises(sharelink.ParamError) as info:
            sharelink.parse_overrides("QM9700:1,5")
    assert "小数点" in str(info.value) and not english_leaks(_without_names(str(info.value)))
    with language("zh"):
        values, warnings = sharelink.parse_overrides_lenient("QM9700:100,junk,nothing:4", unit="W")
    assert values == {"QM9700": 100.0} and len(warnings) == 2
    assert all(w.startswith("功耗覆盖项") and not english_leaks(_without_names(w)) for w in warnings)


# --- typed numbers and design files --------------------------------------------------------------
@pytest.mark.parametrize("text", ["abc", "1.5", "0", "9" * 60, "1,5"])
def test_whole_number_messages_translate(text):
    with language("zh"):
        with pytest.raises(InputError) as zh:
            parse_whole(text, 1, 100)
        with pytest.raises(InputError) as named:
            parse_whole(text, 1, 100, "GPU 数")
    with pytest.raises(InputError) as en:
        parse_whole(text, 1, 100)
    assert str(zh.value).startswith("数值 ") and str(named.value).startswith("GPU 数 ")
    assert not english_leaks(str(zh.value)) and "1 至 100" in str(zh.value)
    assert str(en.value).startswith("value ") and not chinese_leaks(str(en.value))


def test_design_file_messages_translate(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 1_000_001)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"gpu": "H100\xff"}')
    for path in (tmp_path / "missing.json", tmp_path, big, latin, "bad\0name"):
        with language("zh"):
            with pytest.raises(InputError) as zh:
                read_design_file(path)
        with pytest.raises(InputError) as en:
            read_design_file(path)
        assert str(zh.value).startswith(("无法读取设计文件", "设计文件")), str(zh.value)
        assert not english_leaks(_without_names(str(zh.value))), str(zh.value)
        assert not chinese_leaks(str(en.value))
    with pytest.raises(InputError) as en:
        read_design_file(tmp_path / "missing.json")
    assert "No such file or directory" in str(en.value)


def test_train_communication_rows_join_chinese_words_without_a_space(capsys):
    """The communication rows' level is a Chinese word past the NVLink domain (网络, 叶交换机): 经网络, not 经 网络
    (``core.design.tidy_spaces``), while 经 NVLink keeps its space."""
    code, out, _ = _run(capsys, "--lang", "zh", "train", "--nodes", "64", "--model", "llama3-70b")
    levels = [line.rsplit("，", 1)[-1] for line in out.splitlines() if "组大小" in line]
    assert code == 0 and "经 NVLink" in levels and any(level.startswith("经") and "NVLink" not in level
                                                      for level in levels)
    assert not any(re.search(r"[\u4e00-\u9fff] [\u4e00-\u9fff]", level) for level in levels), levels
