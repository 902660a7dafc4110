"""``python -m core train`` chooses the split: published jobs without --tp/--pp/--ep.

* Llama 3 405B on 16,384 H100 over RoCE (arXiv 2407.21783 Table 4: TP 8, PP 16, 2,048 sequences):
  with Meta's schedule and sharding (--vp 8 --balanced-stages --shard-gradients) the search lands on
  the published TP 8 x PP 16; without them it still finds a split that fits and says which.
* DeepSeek-V3 on 2,048 H800 (arXiv 2412.19437): a mixture-of-experts model needs expert parallelism
  to fit at all; without --ep the search tries ep too and --explain lists it.
"""

import json

from conftest import run_cli as run

LLAMA_16K = ("train", "--model", "llama3-405b", "--gpus", "16384", "--fabric", "ethernet", "--global-batch", "2048")
META = ("--vp", "8", "--balanced-stages", "--shard-gradients")
DEEPSEEK = ("train", "--model", "deepseek-v3", "--gpu", "H800", "--gpus", "2048")


def test_llama3_405b_on_16k_without_a_split_picks_one_that_fits(capsys):
    code, out, _ = run(capsys, *LLAMA_16K, "--format", "json")
    data = json.loads(out)
    chosen = data["split_choice"]["chosen"]
    assert code == 0 and chosen["fits"] and chosen["memory_gb"] < 80 * 1.0
    assert (data["parallelism"]["tp"], data["parallelism"]["pp"]) == (chosen["tp"], chosen["pp"])


def test_llama3_405b_with_metas_schedule_picks_the_published_split(capsys):
    code, out, _ = run(capsys, *LLAMA_16K, *META, "--explain")
    assert code == 0
    assert "tp 8 x pp 16 chosen: the fastest of" in out
    assert "  tp  8 pp 16  dp 128, global batch 2,048" in out  # the published DP 128
    assert "  tp  8 pp  8  dp 256" in out and "slower" in out  # the runner-up and why it loses
    assert "does not fit" in out


def test_llama3_405b_explain_json_lists_every_split_with_its_reason(capsys):
    code, out, _ = run(capsys, *LLAMA_16K, *META, "--explain", "--format", "json")
    choice = json.loads(out)["split_choice"]
    assert code == 0 and choice["rule"] == "fastest step among the splits that fit"
    fits = [c for c in choice["considered"] if c["fits"]]
    assert choice["chosen"]["step_time_s"] == min(c["step_time_s"] for c in fits)
    assert all(c["problem"] for c in choice["considered"] if not c["fits"])


def test_deepseek_v3_without_ep_searches_expert_parallelism(capsys):
    code, out, _ = run(capsys, *DEEPSEEK, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["parallelism"]["ep"] > 1 and data["split_choice"]["chosen"]["ep"] == data[
        "parallelism"]["ep"]
    code, text, _ = run(capsys, *DEEPSEEK, "--explain")
    assert code == 0 and " ep " in text.splitlines()[1] and "chosen: the fastest of" in text
    assert "  tp  8 pp  4 ep   1  does not fit" in text  # the page's default split without experts sharded


def test_deepseek_v3_published_setup_is_among_the_fitting_splits(capsys):
    """tp 1, pp 16, ep 64, FP8, DualPipe, seq 4,096, 15,360 sequences (DeepSeek-V3 report sec. 3.2, 3.3)."""
    code, out, _ = run(capsys, *DEEPSEEK, "--precision", "fp8", "--schedule", "dualpipe", "--seq-len", "4096",
                       "--global-batch", "15360", "--explain", "--format", "json")
    considered = json.loads(out)["split_choice"]["considered"]
    published = [c for c in considered if (c["tp"], c["pp"], c["ep"]) == (1, 16, 64)]
    assert code == 0 and len(published) == 1 and published[0]["fits"]


def test_a_given_ep_is_kept_and_a_dense_model_is_not_searched_over_ep(capsys):
    code, out, _ = run(capsys, *DEEPSEEK, "--ep", "64", "--format", "json")
    assert code == 0 and json.loads(out)["parallelism"]["ep"] == 64
    assert {c["ep"] for c in json.loads(run(capsys, *DEEPSEEK, "--ep", "64", "--explain", "--format", "json")[1])[
        "split_choice"]["considered"]} == {64}
    code, out, _ = run(capsys, "train", "--model", "llama3-70b", "--gpus", "1024", "--explain")
    assert code == 0 and " ep " not in out.splitlines()[1]


def test_the_table_shows_the_pages_memory_group_and_token_count(capsys):
    """16,384 B300 (``?v=1&g=B300&n=2048``): the optimizer state is 0.0499 GiB per GPU; the page's caption reads it
    ``0.0`` (``units.gibibytes`` of the estimate), and so must the table (it read ``0.1``, a rounding of the JSON's
    ``0.05``). The data-parallel group reads ``1,024`` as in the page's table (``units.cell``), and the tokens to
    train are one count, ``1,000,000,000,000``, in the table and in the Days card's help (which read ``1e+12``)."""
    from core.design import Design
    from core.figures.keynumbers import training_key_numbers
    from core.formats.report import report_job_settings
    from core.perf import jobform
    from core.plan import plan
    from core.units import cell, gibibytes

    p = plan(Design(gpu="B300", nodes=2048))
    settings = report_job_settings(p)
    estimate = jobform.estimate_under(p, jobform.job_from_settings(p, settings), settings)
    code, out, _ = run(capsys, "train", "--gpu", "B300", "--nodes", "2048")
    assert code == 0
    memory = next(line for line in out.splitlines() if line.startswith("memory/GPU"))
    caption = jobform.memory_caption(estimate, "m", settings)
    for part, value in estimate.memory_gb.items():
        assert f"{part} {gibibytes(value)}" in memory and f"{part} {gibibytes(value)}" in caption
    dp = next(line for line in out.splitlines() if line.strip().startswith("DP "))
    assert f"group {cell(estimate.dp)}" in " ".join(dp.split())
    days_help = next(k.help for k in training_key_numbers(estimate) if k.key == "days")
    tokens = days_help.split(" tokens")[0]
    assert f"to train      {tokens} tokens:" in out
