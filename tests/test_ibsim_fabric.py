"""review45 4.2: the ibsim net file (an InfiniBand subnet simulator) is refused for an Ethernet RoCE fabric with the
ways out, on the command line and in ``export_text``; the Designer's Hand-off tab does not offer it there (the
format's ``applies``); its header says "1 switch" for one switch (ngettext)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from core.design import Design
from core.errors import InputError
from core.formats.exports import export_text
from core.i18n import language
from core.plan import plan
from tests.pagetest import ENTRY


def test_ibsim_is_refused_on_ethernet_with_the_ways_out(capsys):
    from tests.conftest import run_cli

    with pytest.raises(InputError, match="InfiniBand") as found:
        export_text(plan(Design(fabric="ethernet")), "ibsim")
    assert "--format graphml" in str(found.value) and "--fabric infiniband" in str(found.value)
    code, out, err = run_cli(capsys, "export", "--format", "ibsim", "--fabric", "ethernet")
    assert code != 0 and not out and "Ethernet RoCE" in err
    with pytest.raises(InputError):  # a design with pods on Ethernet too
        export_text(plan(Design(fabric="ethernet", nodes=64, pods="B200:32:800")), "ibsim")


def test_ibsim_header_counts_one_switch_in_the_singular():
    text = export_text(plan(Design()), "ibsim")
    assert text.startswith("# fabric planner: 32 GPUs, 4 nodes of 8 NICs, 1 switch, as an ibsim fabric file\n")
    two = export_text(plan(Design(nodes=64)), "ibsim")
    assert ", 24 switches, as an ibsim" in two.splitlines()[0]  # 16 leaves and 8 spines
    with language("zh"):  # the file is English from the Chinese page too (core.formats.exports.FILE_LANGUAGE)
        assert export_text(plan(Design(nodes=64)), "ibsim") == two


@pytest.mark.parametrize("fabric, offered", [("eth", False), ("ib", True)])
def test_hand_off_offers_ibsim_only_for_infiniband(fabric, offered):
    at = AppTest.from_file(ENTRY, default_timeout=180)
    at.query_params.update({"v": "1", "f": fabric, "tab": "Hand-off"})
    at.run()
    assert not at.exception
    keys = [b.key for b in at.get("download_button")]
    assert any(k and k.startswith("ho_export_") for k in keys)
    assert ("ho_export_ibsim" in keys) is offered
