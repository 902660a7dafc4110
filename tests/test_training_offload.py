"""CPU offload of the optimizer (ZeRO-Offload): GPU and host memory, the host traffic and its overlap, the split
search, the CLI, the share link and the Performance page."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from core.cli import main
from core.design import Design
from core.formats.joblink import DEFAULTS, JOB
from core.perf import jobform, training
from core.perf.training import (OFFLOADS, OutOfMemory, choose_split, comm_collective_label, estimate,
                                load_training_catalog, optimizer_shard_params, parallelism_label, parse_job)
from core.plan import plan


def _job(**kw):
    base = dict(model="llama3-8b", gpus=64, tp=1, pp=1, seq_len=4096, global_batch=64)
    return parse_job({**base, **kw})


@pytest.fixture(scope="module")
def h100():
    return plan(Design(gpu="H100", gpus=64))


def test_offload_moves_the_optimizer_to_the_host(h100):
    on, off = estimate(h100, _job(offload="optimizer")), estimate(h100, _job())
    assert on.memory_gb["optimizer"] == 0 < off.memory_gb["optimizer"]
    assert {k: v for k, v in on.memory_gb.items() if k != "optimizer"} == \
        {k: v for k, v in off.memory_gb.items() if k != "optimizer"}
    assert on.summary()["offload"] == "optimizer" and off.summary()["offload"] == "none"


def test_host_traffic_gradients_overlapped_parameters_and_adam_not(h100):
    est = estimate(h100, _job(offload="optimizer"))
    down, up = [c for c in est.comm if c.kind == "Offload"]
    off = load_training_catalog().offload
    host = off.host_of("H100")
    shard = optimizer_shard_params(est.job, est.dp)
    assert shard == pytest.approx(est.job.model.dense_params / 64)  # ZeRO-1: sharded over the 64 dp ranks
    link = host.link_gbytes * off.link_efficiency * 1e9
    assert down.time_s == pytest.approx(shard * 2 / link) and down.overlap > 0.5 and down.exposed_s < down.time_s
    adam = shard * off.adam_bytes_per_param / (host.memory_gbytes_per_s * off.memory_efficiency * 1e9)
    assert up.time_s == pytest.approx(adam + shard * 2 / link) and up.exposed_s == pytest.approx(up.time_s)
    base = estimate(h100, _job())
    assert est.step_time_s > base.step_time_s  # the CPU step and the copy back are not hidden


def test_grace_hosts_offload_faster_than_pcie_hosts():
    """NVLink-C2C to a Grace CPU (GB200) against PCIe Gen5 to x86 (H100): the same shard's host step is faster."""
    off = load_training_catalog().offload
    assert off.host_of("GB200-NVL72").link_gbytes > 3 * off.host_of("H100").link_gbytes
    assert off.host_of("MI300X").systems == ("*",)


def test_host_memory_is_checked(monkeypatch):
    p = plan(Design(gpu="H100", gpus=64))
    job = _job(zero_stage=0, offload="optimizer", recompute="full")
    # 8B unsharded x 16 B = 128 GB per GPU of host memory: within DGX H100's 256 GB per GPU
    assert 100 < optimizer_shard_params(job, 64) * 16 / 1e9 < 256
    estimate(p, job)
    cat = load_training_catalog()
    small = cat.model_copy(update={"offload": cat.offload.model_copy(update={
        "host": tuple(h.model_copy(update={"memory_gbytes": 64.0}) for h in cat.offload.host)})})
    monkeypatch.setattr(training, "load_training_catalog", lambda: small)
    with pytest.raises(OutOfMemory) as err:
        estimate(p, job)
    assert "host memory" in err.value.message and "ZeRO" in err.value.suggestion
    estimate(p, _job(zero_stage=1, offload="optimizer", recompute="full"))  # sharded over 64 ranks: 2 GB


def test_the_split_search_keeps_the_offload():
    p = plan(Design(gpu="H100", gpus=64))
    choice = choose_split(p, _job(offload="optimizer"), search_zero=True)
    assert choice.best.estimate.job.offload == "optimizer"
    assert choice.best.estimate.memory_gb["optimizer"] == 0


@settings(max_examples=15, deadline=None)
@given(zero=st.sampled_from([0, 1, 2, 3]), tp=st.sampled_from([1, 2, 4, 8]), gpus=st.sampled_from([8, 64]))
def test_offloading_never_raises_gpu_memory(zero, tp, gpus):
    """The memory model itself (``_memory``, before the check against the HBM): offload only takes away."""
    job = _job(zero_stage=zero, tp=tp, gpus=gpus, recompute="full")
    dp = gpus // tp
    a = training._memory(job, dp, 64 // dp or 1)
    b = training._memory(job.model_copy(update={"offload": "optimizer"}), dp, 64 // dp or 1)
    assert sum(b.parts.values()) <= sum(a.parts.values())
    assert b.parts["optimizer"] == 0


def test_cli_offload(capsys):
    assert main(["train", "--gpu", "H100", "--gpus", "64", "--model", "llama3-8b", "--tp", "1", "--pp", "1",
                 "--offload", "optimizer", "--format", "json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["offload"] == "optimizer" and s["memory_gb"]["optimizer"] == 0
    rows = [c for c in s["communication"] if c["parallelism"] == "Offload"]
    assert [c["collective"] for c in rows] == ["gradients to host", "CPU Adam + parameters to GPU"]
    assert rows[0]["hidden_fraction"] > 0.5 and rows[1]["hidden_fraction"] == 0
    assert main(["train", "--gpu", "H100", "--gpus", "64", "--model", "llama3-8b", "--tp", "1", "--pp", "1",
                 "--offload", "optimizer"]) == 0
    assert "CPU offload" in capsys.readouterr().out
    assert main(["train", "--gpu", "H100", "--offload", "gradients"]) == 2
    assert "--offload" in capsys.readouterr().err


def test_link_key_round_trips_and_a_bad_value_warns():
    values = {**DEFAULTS, "off": "optimizer"}
    params = JOB.encode(values)
    assert params["perf_off"] == "optimizer"
    decoded, warnings = JOB.decode(params)
    assert not warnings and decoded["off"] == "optimizer"
    decoded, warnings = JOB.decode({"perf_off": "<b>gpu</b>"})
    assert decoded["off"] == "none" and len(warnings) == 1 and "perf_off" in warnings[0]
    p = plan(Design(gpu="H100", gpus=64))
    job = jobform.job_from_settings(p, {**DEFAULTS, "off": "optimizer", "model": "llama3-8b", "tp": 1, "pp": 1,
                                        "tg": 64, "gbs": 64})
    assert job.offload == "optimizer" and set(OFFLOADS) == {"none", "optimizer"}


def test_labels_are_translated():
    from core.i18n import language

    with language("zh"):
        assert parallelism_label("Offload") not in ("Offload", "CPU offload")
        assert comm_collective_label("gradients to host") != "gradients to host"
        assert comm_collective_label("CPU Adam + parameters to GPU") != "CPU Adam + parameters to GPU"


def test_performance_page_reads_and_writes_the_offload():
    from streamlit.testing.v1 import AppTest

    from tests.test_performance_page import PAGE

    at = AppTest.from_file(PAGE, default_timeout=90)
    for key, value in {"n": "8", "perf_model": "llama3-8b", "perf_tp": "1", "perf_pp": "1", "perf_gbs": "64",
                       "perf_seq": "4096", "perf_off": "optimizer"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.selectbox(key="perf_w_off").value == "optimizer"
    table = "".join(str(d.value) for d in at.dataframe)
    assert "gradients to host" in table and "CPU Adam + parameters to GPU" in table
    at.selectbox(key="perf_w_off").set_value("none").run()
    assert not at.exception and "perf_off" not in at.query_params


def test_offload_is_a_way_out_when_the_optimizer_does_not_fit():
    from core.errors import DesignError
    from core.perf.training import estimate_or_ways_out

    p = plan(Design(gpu="H100", gpus=8))
    job = _job(gpus=8, global_batch=8, zero_stage=0)  # 8B unsharded: 90 GiB of optimizer state per GPU
    with pytest.raises(DesignError) as err:
        estimate_or_ways_out(p, job)
    changes = [c for _phrase, c in err.value.fixes]
    assert {"offload": "optimizer"} in changes
    estimate(p, job.model_copy(update={"offload": "optimizer"}))
