"""AppTest of the as-built check on the Designer's Hand-off tab (webui.verify_view): an uploaded ibnetdiscover file
with a pulled cable gives the matched share, the fault and its price in fix order and the faults' CSV; a hostile
file is one escaped message; the words are Chinese in Chinese."""

from __future__ import annotations

import re

from core.design import Design
from core.formats.exports import export_text
from core.i18n import _, language
from core.plan import plan
from i18n_check import english_leaks
from test_app_pages import app

PARAMS = {"g": "H100", "n": "64", "tab": "Hand-off"}


def _pulled() -> bytes:
    """The 64-node plan's ibsim file with node 0's NIC 0 cable pulled (both ends)."""
    text = export_text(plan(Design(gpu="H100", nodes=64)), "ibsim")
    return text.replace('[1]\t"gpu001 mlx5_0"[1]\n', "").replace('Hca\t1 "gpu001 mlx5_0"\n[1]\t"leaf001"[1]\n',
                                                                "").encode()


def test_upload_shows_the_faults_priced_in_fix_order():
    at = app(PARAMS)
    assert not at.exception
    at.file_uploader(key="vf_w_file").set_value(("fabric.net", _pulled(), "text/plain")).run()
    assert not at.exception and not at.error
    numbers = {m.label: m.value for m in at.metric}
    assert numbers["Matched"] == "99.9%" and numbers["Missing"] == "1" and numbers["Miswired"] == "0"
    table = at.dataframe[0].value
    assert list(table["Fault"]) == ["missing link"] and list(table["Action"]) == ["connect"]
    back = table["All-reduce back"][0]  # in the sidebar's unit, as every bandwidth (core.units)
    assert back.endswith("GB/s") and float(back.split()[0]) > 0
    assert table["Planned"][0].startswith("gpu001 nic1/port1 - leaf001")
    assert table["Found"][0] == ""
    assert any("healthy" in c.value for c in at.caption)
    assert any(c.value.replace("\\", "") == "per rail: nic1 1" for c in at.caption)
    assert any(c.value.replace("\\", "") == "per leaf: leaf001 1" for c in at.caption)
    csv_button = at.get("download_button")[-1]
    assert csv_button.label == "Faults as CSV"


def test_hostile_file_is_one_escaped_message_and_zh_words():
    at = app(PARAMS)
    hostile = b'Switch 64 "<script>' + b"x" * 100_000 + b'"\n'
    at.file_uploader(key="vf_w_file").set_value(("x.net", hostile, "text/plain")).run()
    assert not at.exception and len(at.error) == 1 and "<script>" not in at.error[0].value
    assert len(at.error[0].value) < 500 and not at.dataframe
    zh = app({**PARAMS, "lang": "zh"})
    with language("zh"):  # AppTest formats the radio's value with its format_func in this thread
        zh.file_uploader(key="vf_w_file").set_value(("fabric.net", _pulled(), "text/plain")).run()
        assert not zh.exception
        assert _("Check the built fabric") in [m.value.removeprefix("#### ") for m in zh.markdown]
    texts = [m.label for m in zh.metric] + list(zh.dataframe[0].value.columns)
    texts += [w.label for w in zh.file_uploader] + [zh.radio(key="vf_w_kind").label]
    leaks = english_leaks(re.sub(r"\[[^]]*\]", " ", "\n".join(texts)))
    assert not leaks, leaks


def test_a_swap_shows_both_found_ends():
    at = app(PARAMS)
    text = export_text(plan(Design(gpu="H100", nodes=64)), "ibsim")
    swapped = text.replace('[4]\t"gpu004 mlx5_0"[1]', '[4]\t"gpu005 mlx5_0"[1]', 1).replace(
        '[5]\t"gpu005 mlx5_0"[1]', '[5]\t"gpu004 mlx5_0"[1]', 1).replace(
        'Hca\t1 "gpu004 mlx5_0"\n[1]\t"leaf001"[4]', 'Hca\t1 "gpu004 mlx5_0"\n[1]\t"leaf001"[5]').replace(
        'Hca\t1 "gpu005 mlx5_0"\n[1]\t"leaf001"[5]', 'Hca\t1 "gpu005 mlx5_0"\n[1]\t"leaf001"[4]')
    at.file_uploader(key="vf_w_file").set_value(("fabric.net", swapped.encode(), "text/plain")).run()
    table = at.dataframe[0].value
    assert list(table["Fault"]) == ["wrong port", "wrong port"]
    assert sorted(table["Found"]) == ["leaf001 4 - gpu005 nic1/port1", "leaf001 5 - gpu004 nic1/port1"]


def test_a_design_with_pods_is_checked_against_the_whole_fabric():
    """The whole fabric's net file (every pod, the shared spines) with one of pod 2's cables pulled: one missing
    link named by the exports' names, priced on the whole fabric (bandwidth into the shared spines)."""
    import io

    from core.analysis.whole import design_mixed
    from core.formats.podibsim import write_mixed_ibsim

    from test_verify_pods import _without

    buffer = io.StringIO()
    write_mixed_ibsim(design_mixed(Design(gpu="H100", nodes=64, pods="B200:32:800")), buffer)
    text = _without(buffer.getvalue(), "pod2-leaf001", "spine001")
    at = app({**PARAMS, "pods": "B200:32:800"})
    at.file_uploader(key="vf_w_file").set_value(("fabric.net", text.encode(), "text/plain")).run()
    assert not at.exception and not at.error
    numbers = {m.label: m.value for m in at.metric}
    assert numbers["Missing"] == "1" and numbers["Extra"] == "0" and numbers["Miswired"] == "0", numbers
    table = next(d.value for d in at.dataframe if "Fault" in d.value.columns)
    assert table["Planned"][0].startswith("pod2-leaf") and " - spine001 " in table["Planned"][0]
    assert "Into the shared spines back" in table.columns
    assert any("checked against the whole fabric" in i.value for i in at.info)
