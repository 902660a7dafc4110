"""AppTest of the Designer's Hand-off tab: downloads named after the design (their bytes), every registered
export, the naming scheme in the link, large designs built on a press, and the design upload: a valid file
restores the design and the key numbers; wrong, hostile and oversized files are refused and change nothing."""

from __future__ import annotations

import io
import json
import re

import openpyxl
import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from core.design import MAX_DESIGN_FILE_BYTES, Design
from core.figures.keynumbers import key_numbers
from core.formats.exports import exports
from core.i18n import _, language, sentences
from core.plan import plan
from i18n_check import english_leaks
from test_app_pages import app, metrics, shown

HANDOFF = {"tab": "Hand-off"}


@pytest.fixture
def files(monkeypatch) -> dict[str, bytes]:
    """Every file a download button was given in the run: file name -> bytes."""
    found: dict[str, bytes] = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        if filename and isinstance(path_or_data, (bytes, str)):
            found[filename] = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return found


def labels(at) -> list[str]:
    return [b.label for b in at.get("download_button")]


def test_handoff_tab_offers_every_file_named_after_the_design(files):
    at = app({"n": "256", **HANDOFF})
    assert not at.exception
    shown_labels = labels(at)
    assert shown_labels[:3] == ["BOM as CSV", "BOM as XLSX", "Design as JSON"]
    assert sorted(shown_labels[3:]) == sorted(exports())  # whatever formats are registered (two columns)
    assert "fabric-h100-2048-ib-bom.csv" in files and "fabric-h100-2048-ib.xlsx" in files
    design = Design.from_json(files["fabric-h100-2048-ib.json"].decode())
    assert plan(design).summary()["gpus"] == 2048
    book = openpyxl.load_workbook(io.BytesIO(files["fabric-h100-2048-ib.xlsx"]))
    assert book.sheetnames[:3] == ["Summary", "Bill of materials", "Design"]
    link = book["Summary"]["B3"].value
    assert link.startswith("http") and "n=256" in link  # the share link of the design on screen
    for name, export in exports().items():
        data = files[f"fabric-h100-2048-ib-{name}{export.suffix}"]
        assert data  # every export wrote something
    assert files["fabric-h100-2048-ib-bom.csv"].startswith(b"category,item,catalog_id")


def test_naming_scheme_goes_into_the_exports_and_the_link(files):
    at = app({"n": "16", **HANDOFF})
    at.text_input(key="ho_nm_np").set_value("node").run()
    at.text_input(key="ho_nm_sp").set_value("sw-").run()
    at.number_input(key="ho_nm_nd").set_value(4).run()
    assert not at.exception
    assert at.query_params["nm_np"] == ["node"] or at.query_params["nm_np"] == "node"
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert params["nm_np"] == "node" and params["nm_sp"] == "sw-" and params["nm_nd"] == "4"
    assert any("`node0001`" in c.value and "`sw-leaf0001`" in c.value for c in at.caption)
    if "slurm" in exports():
        text = files["fabric-h100-128-ib-slurm.conf"].decode()
        assert "node[0001-0016]" in text and "sw-leaf" in text
    # a bad prefix is said and not kept
    at.text_input(key="ho_nm_np").set_value("1 bad; rm").run()
    assert any("a prefix starts with a letter" in shown(w.value) for w in at.warning)
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert params["nm_np"] == "node"


def test_naming_from_a_link_and_a_bad_link_value():
    at = app({"n": "16", "nm_np": "host", "nm_nd": "2", **HANDOFF})
    assert not at.exception and at.text_input(key="ho_nm_np").value == "host"
    assert any("`host01`" in c.value for c in at.caption)
    bad = app({"n": "16", "nm_np": "<b>x</b>", "nm_nd": "99"})
    text = " ".join(shown(w.value) for w in bad.warning)
    assert "nm_np" in text and "nm_nd" in text and "<b>x</b>" in text  # named and shown as typed


def test_large_designs_build_each_export_when_its_download_is_pressed():
    """Above the eager limit each export is a download whose file a worker builds on the press (``webui.jobs``,
    tests/test_jobs.py checks the bytes); nothing is built while the page is drawn."""
    at = app({"g": "GB200-NVL72", "n": "2304", **HANDOFF})  # 9,216 GPUs: above the eager limit
    assert not at.exception
    names = list(exports())
    if not names:
        pytest.skip("no export formats registered")
    assert labels(at)[:3] == ["BOM as CSV", "BOM as XLSX", "Design as JSON"] and sorted(labels(at)[3:]) == sorted(names)
    assert any("each file is built when you press its button" in c.value for c in at.caption)
    from webui import jobs

    assert not any(k.startswith("export|") for k in jobs.runner()._outcomes)  # nothing built yet


def _upload(at, name: str, data: bytes):
    at.file_uploader[0].set_value((name, data, "application/json")).run()
    return at


def test_valid_upload_restores_the_design_and_the_key_numbers():
    at = app({"n": "16", **HANDOFF})
    design = Design(gpu="B200", gpus=2048, oversubscription=2.0, cable_media="optics", price_overrides={"QM9700": 25000.0},
                    pue=1.4, grow_to=512)
    _upload(at, "fabric-b200-2048-ib.json", design.to_json().encode())
    assert not at.exception and not at.error
    assert any("Loaded" in shown(s.value) for s in at.success)
    current = at.session_state["fp_current"]
    expected = plan(design)
    assert current.plan.summary() == expected.summary()
    numbers = metrics(at)
    for card in key_numbers(expected.summary(), "GB/s"):
        assert numbers[card.label] == card.value
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert params["g"] == "B200" and params["n"] == "256" and params["os"] == "2" and params["px"] == "QM9700:25000"
    # the same file again (a fresh uploader) loads again
    at.session_state["w_nodes"] = 4
    at.run()
    _upload(at, "fabric-b200-2048-ib.json", design.to_json().encode())
    assert at.session_state["fp_current"].plan.summary() == expected.summary()


def test_an_older_file_without_version_loads():
    at = app({"n": "16", **HANDOFF})
    _upload(at, "old.json", json.dumps({"gpu": "H100", "nodes": 127, "switch": "QM9700"}).encode())
    s = at.session_state["fp_current"].plan.summary()
    assert s["switches"]["leaf"] == 32 and s["switches"]["spine"] == 16  # DGX SuperPOD H100 RA Table 4, 4 SU


HOSTILE = {
    "oversized.json": (b'{"nodes": 8' + b" " * MAX_DESIGN_FILE_BYTES + b"}", "larger than 1 MB"),
    "latin1.json": ('{"gpu": "H100", "nodes": 8, "x": "café"}'.encode("latin-1"), "not UTF-8"),
    "deep.json": (b"[" * 100_000 + b"]" * 100_000, "nested more than"),
    "huge.json": (b'{"nodes": 1' + b"0" * 10_000 + b"}", "digit number"),
    "unknown.json": (b'{"nodes": 8, "rm_rf": true}', "is not a design field"),
    "xss.json": (b'{"gpu": "<img src=x onerror=alert(1)>[click](//evil.example)", "nodes": 8}', "unknown system model"),
    "future.json": (b'{"version": 99, "nodes": 8}', "newer than this app reads"),
    "list.json": (b"[1, 2, 3]", "must hold a JSON object"),
    "bom.csv.json": (b"category,item,quantity\nswitch,QM9700,4\n", "not valid JSON"),
    "bad-number.json": (b'{"nodes": -4}', "nodes"),
    "bad-override.json": (b'{"nodes": 8, "price_overrides": {"NOT-A-PART": 5}}', "not a catalog id"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_wrong_hostile_and_oversized_files_are_refused_and_change_nothing(name):
    data, words = HOSTILE[name]
    at = app({"n": "64", "os": "2", **HANDOFF})
    before = at.session_state["fp_current"].plan.summary()
    params = dict(at.query_params.items())
    _upload(at, name, data)
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "This file was not loaded; the design is unchanged." in shown(errors[0])
    assert words.lower() in shown(errors[0]).lower(), shown(errors[0])  # the engine's clause, now a sentence
    assert len(errors[0]) < 3000
    assert at.session_state["fp_current"].plan.summary() == before
    assert dict(at.query_params.items()) == params
    # user text is escaped markdown: no link, no image, no HTML
    assert "<img" not in errors[0].replace("\\<img", "") and "](" not in errors[0].replace("\\]\\(", "")
    at.run()  # the message is said once; the design stays
    assert not at.error and at.session_state["fp_current"].plan.summary() == before


def test_a_file_the_engine_cannot_build_loads_with_its_ways_out_and_the_upload_stays_reachable():
    at = app({"n": "16", **HANDOFF})
    _upload(at, "three.json", Design(nodes=512, tiers=2).to_json().encode())  # QM9700 2 tiers hold 32 x 64 / 2 ...
    assert not at.exception
    cur = at.session_state["fp_current"]
    if cur.plan is not None:
        pytest.skip("this design builds in the current catalog")
    assert any(b.label == "Set tiers to auto" for b in at.button)
    assert at.file_uploader  # a good file is a way out too
    _upload(at, "ok.json", Design(nodes=64).to_json().encode())
    assert at.session_state["fp_current"].plan.summary()["nodes"] == 64


def test_a_file_whose_pods_cannot_be_built_is_the_designs_error_not_the_first_pod():
    """Review45 4.1: a file with a pod too large for two tiers loaded as the 4-node first pod, its hand-off files
    saying they cover every pod; it is the design's error now (core.analysis.whole.plan_with_pods), with its way out."""
    at = app({"n": "16", **HANDOFF})
    _upload(at, "pods.json", Design(nodes=4, pods="B300:32:800,B300:99999:800").to_json().encode())
    assert not at.exception
    cur = at.session_state["fp_current"]
    assert cur.plan is None and "Pod 3 (B300, 99,999 nodes)" in str(cur.error)
    assert not at.get("download_button") and not any("covers every pod" in str(c.value) for c in at.caption)
    assert any(b.label == "Drop pod 3" for b in at.button) and at.file_uploader


@pytest.mark.slow
def test_review_pack_is_built_on_a_press_and_kept(files):
    at = app({"n": "16", **HANDOFF})
    assert "Review pack (HTML)" not in labels(at)  # nothing built on a plain rerun
    at.button(key="ho_report_build").click().run(timeout=240)
    assert not at.exception and not at.error
    assert {"Review pack (HTML)", "Review pack (PDF)"} <= set(labels(at))
    assert files["fabric-h100-128-ib-report.pdf"][:5] == b"%PDF-"
    html = files["fabric-h100-128-ib-report.html"].decode()
    assert "<html" in html.lower() and "n=16" in html  # carries the share link
    at.run()
    assert "Review pack (PDF)" in labels(at)  # kept for this design: a later rerun does not drop it


def test_handoff_tab_in_chinese():
    at = app({"n": "64", "lang": "zh", "tab": "Hand-off"})
    assert not at.exception
    with language("zh"):
        wanted = [_("BOM as CSV"), _("BOM as XLSX"), _("Design as JSON")]
        heading = "#### " + _("Exports for operations teams")
        tab = _("Hand-off")
    assert labels(at)[:3] == wanted and any(m.value == heading for m in at.markdown)
    assert tab in [t.label for t in at.tabs] and tab != "Hand-off"
    assert at.file_uploader[0].label == "设计 JSON 文件"  # the size limit is Streamlit's own line under it
    # this tab's own words (the export formats' descriptions are their modules', checked with them)
    with language("zh"):
        hints = {e.label_for(plan(Design(nodes=64))) for e in exports().values()}
    texts = [m.value for m in at.main.markdown if m.value.startswith("#")]
    texts += [c.value for c in at.main.caption if c.value not in hints]
    for widget in (*at.main.text_input, *at.main.number_input, *at.file_uploader, *at.main.button,
                   *at.main.get("download_button")[:3]):
        texts += [widget.label, widget.help or ""]
    text = re.sub(r"fabric-[a-z0-9-]+|`[^`]*`|python -m core plan --design design.json", " ", "\n".join(texts))
    leaks = english_leaks(re.sub(r"\\(.)", r"\1", text))
    assert not leaks, leaks


@pytest.mark.parametrize(("lang", "data", "expected"), [
    ("en", b"category,item\n", "This file was not loaded; the design is unchanged. Design file is not valid JSON: "
                               "Expecting value at line 1 column 1."),
    ("en", b'{"nodes": 8, "unknown_key": 1}', "This file was not loaded; the design is unchanged. 'unknown_key' is "
                                              "not a design field."),
    ("zh", b'{"nodes": 8, "unknown_key": 1}', None),
])
def test_an_upload_error_reads_as_sentences(lang, data, expected):
    """The page's sentence, then the engine's message as a sentence of its own (capital letter, full stop), not
    "... unchanged. design file is not valid JSON..." nor "unknown_key: is not a design field"."""
    at = app({"n": "64", "lang": lang, **HANDOFF})
    with language(lang):
        _upload(at, "bad.json", data)
    message = shown(at.error[0].value)
    if expected is not None:
        assert message == expected
        return
    with language("zh"):
        assert message == sentences(_("This file was not loaded; the design is unchanged."), _(
            "{field} is not a design field").format(field="'unknown_key'") + "。")


def test_upload_and_naming_messages_speak_the_page_language():
    """Callbacks run before the run sets its language: their messages still come in the session's."""
    at = app({"n": "64", "lang": "zh", "tab": "Hand-off"})
    with language("zh"):  # AppTest formats select values with format_func in this thread
        _upload(at, "bad.json", b'{"gpu": "NOPE", "nodes": 8}')
    message = shown(at.error[0].value)
    with language("zh"):
        assert message.startswith(_("This file was not loaded; the design is unchanged."))
    assert "unknown system model" not in message and "NOPE" in message
    with language("zh"):
        at.text_input(key="ho_nm_np").set_value("9x").run()
    assert not english_leaks(shown(at.warning[-1].value).replace("9x", "")), at.warning[-1].value


def test_handoff_tab_in_english_shows_no_chinese():
    from i18n_check import chinese_leaks
    from test_i18n import page_text

    at = app({"n": "64", "lang": "en", "tab": "Hand-off"})
    assert not at.exception and not chinese_leaks(page_text(at))


def test_naming_that_would_give_two_devices_one_name_is_refused_on_every_surface():
    """`nm_np=leaf` named servers like the leaf switches (NetBox got 8 to 128 duplicate devices): the link says
    which value was dropped and the exports use the default names; typed in the tab, it is said and not kept;
    a prefix that only this design's other networks take (`pdu`) is an error in the tab, with the default names."""
    at = app({"n": "16", "nm_np": "leaf", **HANDOFF})
    assert not at.exception
    text = " ".join(shown(w.value) for w in at.warning)
    assert "nm_np='leaf'" in text and "default names" in text
    assert any("`gpu001`" in c.value for c in at.caption)  # the default naming, not leaf001 twice
    at.text_input(key="ho_nm_np").set_value("LEAF").run()
    assert any("names two kinds of devices alike" in shown(w.value) for w in at.warning)
    assert not any("`LEAF001`" in c.value for c in at.caption)
    at = app({"n": "16", "nm_np": "pdu", **HANDOFF})
    assert not at.exception
    assert any("pdu001" in shown(e.value) and "default names" in shown(e.value) for e in at.error)
    assert any("`gpu001`" in c.value for c in at.caption)


def test_an_export_greyed_out_says_why_beside_it():
    """A format that cannot express the design (SimAI of pods whose NVLink domains differ) is greyed out with its
    reason as its caption, not the description of a file it does not write."""
    at = app({"n": "64", "pods": "GB200-NVL72:72", **HANDOFF})
    assert not at.exception
    simai = next(b for b in at.get("button") if b.label == "simai")
    assert simai.disabled
    assert any("SimAI reads one NVLink domain size" in c.value for c in at.caption)


def test_the_chinese_pods_caption_has_no_space_after_a_full_stop():
    """The Hand-off's caption on a design with pods whose every file covers every pod is two sentences joined by
    ``core.i18n.sentences``: "。格式" in Chinese (it was joined with a space by hand: "。 格式")."""
    at = app({"n": "64", "pods": "B300:32:800", "lang": "zh", **HANDOFF})
    assert not at.exception
    with language("zh"):
        first = _("A design with pods: every file covers every pod (names pod1-, pod2-, ...) and the shared spines.")
    (caption,) = [c.value for c in at.caption if c.value.startswith(first)]
    assert "。 " not in caption and len(caption) > len(first)
