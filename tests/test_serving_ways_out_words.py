"""Serving's ways out speak the project's formats (review45 3.1): money by the one money format, times by
``core.units.milliseconds``, and a heading that says the deployment misses its targets (the design is fine)."""

import re

import pytest

from core.cli import main
from core.i18n import money_context, usd

ARGS = ["serve", "--input-tokens", "1000000", "--output-tokens", "1", "--format", "table"]


@pytest.fixture(scope="module")
def en_zh():
    import contextlib
    import io

    out = {}
    for lang in ("en", "zh"):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            out[lang] = (main(["--lang", lang, *ARGS]), err.getvalue())
    return out


def test_the_heading_says_the_deployment_misses_its_targets(en_zh):
    code, text = en_zh["en"]
    assert code == 3
    assert text.startswith("the deployment misses its targets: No split prefills a 1,000,000-token prompt")
    assert "cannot build this design" not in text


def test_times_have_thousands_separators_and_money_the_money_format(en_zh):
    _code, text = en_zh["en"]
    assert "within the TTFT target of 2,000 ms" in text
    assert re.search(r"the fastest takes \d{1,3}(,\d{3})+ ms", text)
    assert re.search(r"relax the targets to TTFT \d{1,3}(,\d{3})+ ms and TPOT 50 ms", text)
    assert "USD" not in text and "e+0" not in text
    cost = re.search(r"requests/s, (\S+ \S+) per million output tokens", text).group(1)
    assert cost.startswith("$") and cost.endswith(" M")
    amount = float(cost[1:-2]) * 1e6
    with money_context("USD"):
        assert usd(amount, cents=True) == cost


def test_chinese_ways_out_write_money_in_wan(en_zh):
    code, text = en_zh["zh"]
    assert code == 3 and "万美元" in text and "USD" not in text and "e+0" not in text
