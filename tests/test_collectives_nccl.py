"""The NCCL release as a model input, NCCL's double binary tree by domain count, and the tree's own
contention.

Sources: NVIDIA/nccl src/graph/trees.cc (ncclGetBtree / ncclGetDtree) and src/graph/tuning.cc at the
tags named in assets/catalog/collectives.toml; NVIDIA/nccl#2035 (NVLS-tree on Blackwell beyond 2
nodes, fixed in 2.30.3); NVIDIA/nccl#1801 (tree vs ring on 3 GB200 partitions). The published
points themselves are in tests/test_collectives_golden.py.
"""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import main as cli_main
from core.design import Design
from core.errors import DesignError, InputError
from core.perf import congestion
from core.perf.collectives import collective, sweep
from core.perf.constants import load_constants, nccl_version_of, parse_nccl_version
from core.perf.placement import _btree, _dtree_parents, contention, dtree_max_degree, place, tree_crossing
from core.plan import plan

GiB, MiB = 2**30, 2**20
GB200_1440 = plan(Design(gpu="GB200-NVL72", gpus=1440))
GB200_NVL8 = plan(Design(gpu="GB200-NVL72", gpus=72, nvlink_domain_gpus=8))


# --- NCCL's trees ------------------------------------------------------------------------------------
@pytest.mark.parametrize("nranks", [2, 3, 4, 5, 7, 8, 12, 31, 64, 100, 255, 256, 1000])
def test_btree_is_a_spanning_tree_rooted_at_0(nranks):
    """The port of ncclGetBtree: every rank but 0 has one parent, which lists it as a child; no cycles."""
    children = {r: [c for c in _btree(nranks, r)[1:] if c != -1] for r in range(nranks)}
    assert _btree(nranks, 0)[0] == -1
    for r in range(1, nranks):
        parent = _btree(nranks, r)[0]
        assert 0 <= parent < nranks and r in children[parent]
    assert sum(len(c) for c in children.values()) == nranks - 1
    seen, stack = set(), [0]
    while stack:
        r = stack.pop()
        assert r not in seen
        seen.add(r)
        stack.extend(children[r])
    assert seen == set(range(nranks))


@pytest.mark.parametrize("nranks", [2, 3, 4, 6, 9, 16, 33])
def test_second_tree_is_a_spanning_tree_too(nranks):
    parents = [_dtree_parents(nranks, r)[1] for r in range(nranks)]
    assert parents.count(-1) == 1
    root = parents.index(-1)
    for r in range(nranks):  # every rank reaches the root
        hops, x = 0, r
        while x != root:
            x, hops = parents[x], hops + 1
            assert hops <= nranks


def test_double_tree_degree_by_domain_count():
    """2 domains: root of one tree, leaf of the other (2 neighbours); 3: 3; from 4 on: 4 (interior in one
    tree, leaf in the other), so the busiest domain sends S x degree / 2."""
    assert [dtree_max_degree(m) for m in (1, 2, 3, 4, 5, 8, 17, 1440)] == [0, 2, 3, 4, 4, 4, 4, 4]
    assert dtree_max_degree(100_000) == 4


def test_tree_on_three_domains_moves_one_and_a_half_arrays():
    """Forced tree on 3 GB200 partitions: algbw = 2/3 of the NICs (x NCCL's .92), not 1/2 (NVIDIA/nccl#1801)."""
    s = sweep(GB200_NVL8, "all-reduce", [64 * GiB], gpus=24, algorithms=("tree",), nccl_version="2.27.3")
    egress = 8 * (400 / 8) * load_constants().fabric_constants("infiniband").nic_efficiency  # 8 NICs per partition
    algbw = float(s.algbw(s.curves["tree"].time_us)[0])
    assert algbw == pytest.approx(egress * 2 / 3 * 0.92, rel=0.03)


@pytest.mark.parametrize("block", [2, 3, 4, 8, 16, 18, 32, 64])
def test_tree_crossing_matches_nccls_trees_at_any_alignment(block):
    """The closed form against the exact average over NCCL's two trees of 4,096 ranks, each edge of length d
    crossing a block boundary at a random offset with probability min(1, d / block)."""
    from core.perf.placement import dtree_parents
    nranks = 4096
    r = np.arange(nranks)
    total = 0.0
    for parents in dtree_parents(nranks):
        has = parents != -1
        total += np.minimum(1.0, np.abs(parents[has] - r[has]) / block).sum()
    exact = total / (2 * (nranks - 1))
    assert tree_crossing(block) == pytest.approx(exact, rel=0.06)
    assert tree_crossing(block) >= 1 / block  # a tree never crosses less than a ring


def test_tree_contention_uses_its_own_flows():
    """Scattered ranks on plain RoCE (static ECMP): the tree's 4 flows per port spread better than the
    ring's 2, so the tree keeps more; with adaptive routing flow counts do not matter."""
    roce = plan(Design(gpu="H100", nodes=1024, fabric="ethernet"))
    p = place(roce)
    with congestion.assumptions("auto", "scatter"):
        ring, tree = contention(roce, p, "ring"), contention(roce, p, "tree")
    assert tree > ring and 0 < ring < 1
    ib = plan(Design(gpu="H100", nodes=512, oversubscription=2.0))
    with congestion.assumptions("auto", "scatter"):
        assert contention(ib, place(ib), "tree") == pytest.approx(contention(ib, place(ib), "ring"), rel=0.05)


# --- NCCL's choice between ring and tree -------------------------------------------------------------
def test_nccl_chooses_the_ring_beyond_two_domains_although_the_tree_is_faster():
    """NVIDIA/nccl#1801: on 3 partitions NCCL picked the ring; NCCL_ALGO=TREE was faster."""
    s = sweep(GB200_NVL8, "all-reduce", [16 * GiB], gpus=24, algorithms=("ring", "tree"), nccl_version="2.27.3")
    _, algorithm, _ = s.best()
    assert algorithm[0] == "ring"
    assert s.curves["tree"].time_us[0] < s.curves["ring"].time_us[0]
    assert not s.curves["tree"].nccl_picks[0]


def test_tree_still_wins_small_messages_by_latency():
    s = sweep(plan(Design(gpu="A100", nodes=64)), "all-reduce", [64 * 1024], gpus=512)
    assert s.best()[1][0] == "tree"


# --- the NCCL release ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [("2.26.2", (2, 26, 2)), ("v2.26.2-1", (2, 26, 2)), ("2.28", (2, 28, 0)),
                                           (" 2.30.7 ", (2, 30, 7))])
def test_parse_nccl_version(text, expected):
    assert parse_nccl_version(text) == expected


@pytest.mark.parametrize("text,reason", [("abc", "cannot read NCCL version"), ("2", "cannot read"),
                                         ("2.26.2<script>", "cannot read"), ("1.9.0", "outside the releases"),
                                         ("2.31.0", "outside the releases"), ("3.0", "outside")])
def test_bad_nccl_versions_are_input_errors(text, reason):
    with pytest.raises(InputError, match=reason):
        nccl_version_of(text, load_constants())


def test_default_release_is_the_catalogs():
    c = load_constants()
    assert nccl_version_of(None, c) == parse_nccl_version(c.nccl.default_version) == (2, 30, 7)
    s = sweep(GB200_NVL8, "all-reduce", [GiB], gpus=24)
    assert s.nccl_version == "2.30.7"


def test_every_release_row_set_covers_every_architecture():
    c = load_constants()
    for version in ("2.18.0", "2.26.2", "2.27.7", "2.28.3", "2.29.7", "2.30.3", "2.30.7"):
        v = parse_nccl_version(version)
        names = [c.channel_caps(cc, v).name for cc in (7.0, 8.0, 9.0, 10.0, 10.3)]
        assert names == ["Volta", "Ampere", "Hopper", "Blackwell", "Blackwell"], version


def test_blackwell_tree_cap_changed_in_2_28():
    """tuning.cc perChMaxTreeBws Blackwell N4: 2 x 36.0 in 2.26/2.27, 24.0 from 2.28.3."""
    c = load_constants()
    assert c.channel_caps(10.0, (2, 27, 3)).tree[2] == 72.0 and c.channel_caps(10.0, (2, 28, 3)).tree[2] == 24.0
    old = sweep(GB200_NVL8, "all-reduce", [16 * GiB], gpus=24, algorithms=("tree",), nccl_version="2.27.3")
    new = sweep(GB200_NVL8, "all-reduce", [16 * GiB], gpus=24, algorithms=("tree",), nccl_version="2.30.7")
    assert new.curves["tree"].time_us[0] > 2 * old.curves["tree"].time_us[0]


def test_blackwell_nvls_tree_beyond_three_domains_before_2_30_3():
    """NVIDIA/nccl#2035: slow before 2.30.3 from 4 nodes on; left out (with a note), not guessed."""
    old = sweep(GB200_1440, "all-reduce", [GiB], gpus=1440, nccl_version="2.26.2")
    assert "nvls" not in old.curves and any("2035" in n for n in old.notes)
    new = sweep(GB200_1440, "all-reduce", [GiB], gpus=1440, nccl_version="2.30.3")
    assert "nvls" in new.curves and not new.notes
    two_racks = sweep(plan(Design(gpu="GB200-NVL72", gpus=144)), "all-reduce", [GiB], gpus=144,
                      nccl_version="2.26.2")
    assert "nvls" in two_racks.curves  # 2 domains were fine (2 nodes ==> 800GBps+)
    hopper = sweep(plan(Design(gpu="H100", nodes=8)), "all-reduce", [8 * GiB], gpus=64, nccl_version="2.26.2")
    assert hopper.best()[1][0] == "nvls"  # the fix was for Blackwell only


def test_forcing_the_slow_nvls_tree_is_a_design_error_with_a_way_out():
    with pytest.raises(DesignError) as err:
        collective(GB200_1440, "all-reduce", "1GiB", gpus=1440, algorithm="nvls", nccl_version="2.29.7")
    assert "2035" in str(err.value) and "2.30.3" in err.value.suggestion
    assert collective(GB200_1440, "all-reduce", "1GiB", gpus=1440, algorithm="nvls",
                      nccl_version="2.30.3")["algorithm"] == "nvls"


def test_ring_steps_pay_the_network_overhead_across_domains():
    """tuning.cc: intraLat = max(hwLat NVLink, netOverhead) for multi-node rings: LL steps cost 1.0 us, not 0.6."""
    one = sweep(GB200_1440, "all-reduce", [8.0], gpus=72, algorithms=("ring",))
    many = sweep(GB200_1440, "all-reduce", [8.0], gpus=1440, algorithms=("ring",))
    c = load_constants().proto("LL")
    assert one.curves["ring"].protocol[0] == "LL"
    per_step_multi = (float(many.curves["ring"].time_us[0]) - c.ring_base_latency_us) / (2 * 1439)
    assert per_step_multi >= 1.0


plans = st.sampled_from([GB200_1440, GB200_NVL8, plan(Design(gpu="A100", nodes=6, nics_per_node=4)),
                         plan(Design(gpu="H100", gpus=512, fabric="ethernet", oversubscription=2.0))])
versions = st.sampled_from(["2.18.5", "2.26.2", "2.27.3", "2.28.3", "2.29.7", "2.30.3", "2.30.7"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(p=plans, v=versions, frac=st.floats(0.05, 1.0), a=st.floats(3, 34), b=st.floats(3, 34))
def test_time_grows_with_size_in_every_release(p, v, frac, a, b):
    n = max(2, int(round(frac * p.resolved.gpus)))
    lo, hi = sorted((2**a, 2**b))
    t, _, _ = sweep(p, "all-reduce", [lo, hi], gpus=n, nccl_version=v).best()
    assert t[0] <= t[1] * (1 + 1e-9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(v=versions, e=st.floats(20, 34))
def test_busbw_below_the_line_rate_without_in_switch_reduction(v, e):
    s = sweep(GB200_NVL8, "all-reduce", [2**e], gpus=24, algorithms=("ring", "tree"), nccl_version=v)
    t, _, _ = s.best()
    line = 8 * 400 / 8  # 8 GPUs x 400 Gb/s NICs of one partition [GB/s]: a ring's busbw bound
    tree_bound = line * 2 / 3 * 2 * 23 / 24  # the tree's algbw bound on 3 domains, as busbw
    assert float(s.busbw(t)[0]) <= max(line, tree_bound) * (1 + 1e-9)


# --- the command line --------------------------------------------------------------------------------
def test_cli_nccl_version(capsys):
    code = cli_main(["collective", "--gpu", "GB200-NVL72", "--gpus", "1440", "--size", "1GiB",
                     "--nccl-version", "2.26.2"])
    out = capsys.readouterr().out
    assert code == 0 and "NCCL" in out and "2.26.2" in out and "2035" in out
    code = cli_main(["collective", "--gpu", "GB200-NVL72", "--gpus", "1440", "--size", "1GiB",
                     "--nccl-version", "2.26.2", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["nccl_version"] == "2.26.2" and "notes" not in data and data["algorithm"] != "nvls"


def test_cli_bad_nccl_version_exits_2(capsys):
    code = cli_main(["collective", "--gpu", "H100", "--nodes", "2", "--nccl-version", "2.99"])
    captured = capsys.readouterr()
    assert code == 2 and "NCCL" in captured.err and "Traceback" not in captured.err


def test_nccl_release_block_sets_the_default_for_nested_calls():
    """Training estimates call ``sweep`` without a version: an enclosing ``nccl_release`` sets it."""
    from core.perf.collectives import nccl_release
    with nccl_release("2.26.2"):
        inside = sweep(GB200_1440, "all-reduce", [GiB], gpus=1440)
        explicit = sweep(GB200_1440, "all-reduce", [GiB], gpus=1440, nccl_version="2.30.7")
    outside = sweep(GB200_1440, "all-reduce", [GiB], gpus=1440)
    assert inside.nccl_version == "2.26.2" and "nvls" not in inside.curves
    assert explicit.nccl_version == outside.nccl_version == "2.30.7" and "nvls" in outside.curves
    with pytest.raises(InputError):
        with nccl_release("9.9"):
            pass


@pytest.mark.parametrize("nranks", list(range(2, 70)) + [255, 256, 257, 1000, 1440])
def test_vectorised_trees_equal_the_port_of_trees_cc(nranks):
    from core.perf.placement import dtree_parents
    first, second = dtree_parents(nranks)
    assert [int(x) for x in first] == [_btree(nranks, r)[0] for r in range(nranks)]
    assert [int(x) for x in second] == [_dtree_parents(nranks, r)[1] for r in range(nranks)]


# --- the Performance page's NCCL release (link key perf_nccl) ---------------------------------------
def test_perf_nccl_link_round_trip():
    from core.formats import joblink
    assert joblink.NCCL_RELEASES[0] == load_constants().nccl.default_version
    for release in joblink.NCCL_RELEASES:
        values, warnings = joblink.JOB.decode(joblink.JOB.encode(dict(joblink.DEFAULTS, nccl=release)))
        assert not warnings and values["nccl"] == release
    assert "perf_nccl" not in joblink.JOB.encode(dict(joblink.DEFAULTS))  # the default stays out of links
    values, warnings = joblink.JOB.decode({"perf_nccl": "<img src=x>"})
    assert values["nccl"] == joblink.NCCL_RELEASES[0] and len(warnings) == 1 and "perf_nccl" in warnings[0]


def test_performance_page_models_the_chosen_release():
    """perf_nccl=2.26.2 on 20 NVL72 racks: the page's sweep leaves NVLS-tree out and says why; the
    widget change goes back into the link; afterwards the default release holds again."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    page = str(Path(__file__).resolve().parent.parent / "pages" / "3_Performance.py")
    at = AppTest.from_file(page, default_timeout=90)
    at.query_params["g"] = "GB200-NVL72"
    at.query_params["n"] = "360"
    at.query_params["perf_nccl"] = "2.26.2"
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="perf_w_nccl").value == "2.26.2"
    assert any("2035" in str(c.value) for c in at.caption)
    at.selectbox(key="perf_w_nccl").set_value("2.30.7").run()
    assert not at.error and "perf_nccl" not in at.query_params
    assert not any("2035" in str(c.value) for c in at.caption)
    assert sweep(GB200_1440, "all-reduce", [GiB], gpus=1440).nccl_version == "2.30.7"  # nothing leaked
