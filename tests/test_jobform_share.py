"""The Performance page's two-fabric table names its share column as the capex cards name that share
(``core.vocab.compute_fabric``): on a GB200 design with a second NVLink level the share holds its parts and says so."""

from __future__ import annotations

import pytest

from core.design import Design
from core.figures.keynumbers import fabric_share_words
from core.formats.joblink import DEFAULTS
from core.i18n import _, language
from core.perf import jobform
from core.plan import plan, shown_share
from core import units

GB200 = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
"""GB200 NVL72 with two NVLink levels: its compute fabric share holds the second level's parts."""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("design, level2", [(GB200, True), (Design(nodes=64), False)])
def test_the_share_column_is_named_as_the_cards(design, level2, lang):
    p = plan(design)
    settings = {**DEFAULTS, "gbs": 1008 if level2 else DEFAULTS["gbs"]}  # dp 18 on 144 GB200s
    job = jobform.job_from_settings(p, settings)
    with language(lang):
        row = jobform.comparison_rows([("a", jobform.estimate_under(p, job, settings), p)])[0]
        label = fabric_share_words(p.summary()["cost"])[0]
        assert row[label] == units.percent(shown_share(p.cost.network_share))
        assert (_("NVLink level 2") in label if lang == "en" else "第二级" in label) == level2
        assert _("network share") not in row
