"""One quantity, one name and one format on every surface that shows it, en and zh: the capex per GPU (the cards,
Compare, the sweep, the workbook), the injection per GPU (the Designer's card and ``python -m core plan``), a range
of amounts (the capex card's help and ``plan``'s cost row)."""

from __future__ import annotations

import pytest

import html

from core import units, vocab
from core.analysis import compare, sweep
from core.design import Design
from core.figures import keynumbers as kn
from core.formats import report
from core.i18n import _, language
from core.plan import plan
from tests.conftest import run_cli

METRIC = next(m for m in compare.metrics() if m.key == "capex_per_gpu_usd")

WORDS = {"en": ("Capex per GPU", "injection per GPU", "Injection per GPU"),
         "zh": ("每 GPU 资本支出", "每 GPU 注入带宽", "每 GPU 注入带宽")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_capex_per_gpu_has_one_name(lang):
    p = plan(Design(nodes=4))
    with language(lang):
        cards = {k.key: k.label for k in kn.key_numbers(p.summary())}
        cost_cards = {k.key: k.label for k in kn.cost_key_numbers(p)}
        compare_label = compare.metric_label(METRIC)
        sweep_label = _(sweep.METRICS["capex_per_gpu_usd"].label)
    name = WORDS[lang][0]
    assert cards["capex_per_gpu"] == cost_cards["capex_per_gpu"] == name
    assert compare_label.startswith(name) and sweep_label.startswith(name)
    assert METRIC.label == sweep.METRICS["capex_per_gpu_usd"].label == vocab.CAPEX_PER_GPU_USD


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plan_names_the_injection_as_the_card_and_writes_the_cards_range(lang, capsys):
    p = plan(Design(nodes=4))
    with language(lang):
        card = next(k for k in kn.key_numbers(p.summary(), "GB/s") if k.key == "scaleout")
        capex = next(k for k in kn.key_numbers(p.summary(), "GB/s") if k.key == "capex")
        money_range = units.money_range(p.cost.capex_usd_low, p.cost.capex_usd_high)
    code, out, _err = run_cli(capsys, "--lang", lang, "plan", "--nodes", "4")
    assert code in (0, None)
    line = next(text for text in out.splitlines() if "50 GB/s" in text and "900 GB/s" in text)
    word, name = WORDS[lang][1:]
    assert card.help.startswith(name) and f"{word} {card.value}" in line
    assert "scale-out" not in line and "横向扩展" not in line
    assert money_range in capex.help and money_range in out  # one range, its spaces kept on the CLI too
    assert money_range == {"en": "$1.55 M to $2.84 M", "zh": "155.4万美元 至 284.4万美元"}[lang]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_train_writes_the_split_as_the_pages(lang, capsys):
    """``train``'s head and chosen split spell the split as the Performance page's caption (``tp 4 x pp 8``; zh
    ``tp 4 × pp 8``), never ``tp 4 pp 8`` nor ``TP 4 PP 8``."""
    from core.perf.jobform import split_words

    code, out, _err = run_cli(capsys, "--lang", lang, "train")
    assert code in (0, None)
    head, chosen = out.splitlines()[:2]
    with language(lang):
        caption_split = split_words(tp=4, pp=8, cp=1, dp=1)
    assert caption_split == {"en": "tp 4 x pp 8 x cp 1 x dp 1", "zh": "tp 4 × pp 8 × cp 1 × dp 1"}[lang]
    assert caption_split in head and caption_split[:len("tp 4 x pp 8")] in chosen
    assert not any(wrong in head + chosen for wrong in ("TP ", "PP ", "tp 4 pp 8"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_says_why_the_global_batch_is_not_the_default(lang):
    """GB200 two-level NVLink (576 GPUs): the fitted job's tp x pp is 32, so dp 18, and the default global batch
    1,024 is rounded up to 57 x 18 = 1,026 (a batch splits over the replicas): the rule is right, and Compare's job
    caption and the review pack now say why, as the Performance page does (``batch_note``)."""
    from core.analysis import compare as cmp
    from core.formats.joblink import DEFAULTS
    from core.perf import jobform

    design = Design(gpu="GB200-NVL72", nodes=144, nvlink_domain_gpus=144)
    column = cmp.compare([("x", design)], settings=DEFAULTS, fit=set(jobform.FITTED), defaults=DEFAULTS).columns[0]
    assert column.job["gbs"] == 1026
    with language(lang):
        caption = jobform.job_caption(column.job, column.plan)
        note = jobform.batch_note(column.plan, column.job)
    assert note and caption.endswith(note)
    assert {"en": "global batch 1,026. Global batch 1,026 = 57 x micro-batch 1 x dp 18",
            "zh": "全局批大小 1,026。"}[lang] in caption
    assert jobform.job_caption({**column.job, "gbs": 1008}, column.plan).endswith("global batch 1,008")
    with language(lang):
        pack = report.design_report_html(column.plan, name="", share_link="")
    assert html.escape(note) in pack
