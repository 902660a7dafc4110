"""A chart title never breaks a product (``core.text.PRODUCT``: ``2 x 72 GPUs``) across lines (review F6: the GB200
scale-up title wrapped "(2 x" / "72 GPUs)" at 1,280 px, en and zh)."""

from __future__ import annotations

import pytest

from core.figures.style import wrap_title
from core.i18n import _, language

TITLE = "Scale-up: NVLink {generation} domain of {gpus} GPUs in two levels ({racks} x {level1} GPUs)"


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", range(20, 72, 2))
def test_a_product_stays_on_one_line(lang, width):
    with language(lang):
        title = _(TITLE).format(generation=5, gpus=144, racks=2, level1=72)
        lines = wrap_title(title, width)[0].split("<br>")
    assert any("2 x 72" in line or "2 × 72" in line for line in lines), lines  # zh writes ×
    if lang == "en":
        assert any("2 x 72 GPUs" in line for line in lines), lines
    assert "".join(lines).replace(" ", "") == title.replace(" ", "")  # nothing lost, no stand-in left
