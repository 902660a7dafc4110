"""Refusals around pods on planes: the ways out of per-port planes a NIC cannot reach (per-rail planes, a NIC with a
port in every plane, each checked on every pod), and a buildable design a command does not handle (``NotHandledError``:
"not available for this design", exit 4, never "cannot build this design")."""
from __future__ import annotations

import pytest

from core.analysis.pods import mixed_plan
from core.cli import main as cli_main
from core.design import Design
from core.errors import DesignError, NotHandledError
from core.fabric.pods import planes_refused, size_pods
from core.plan import plan

IB = Design(gpu="H100", nodes=64, pods="B200:32:800", planes=2)
ETH = Design(gpu="H100", nodes=64, fabric="ethernet", port_speed_gbps=400, planes=2, pods="B200:32:400")


@pytest.mark.parametrize("design, phrases", [
    (IB, ["use per-rail planes", "use 1 plane"]),
    (ETH, ["use per-rail planes", "use the CX8 NIC (2 x 400G)", "use 1 plane"]),
])
def test_per_port_planes_ways_out_build_every_pod(design, phrases):
    with pytest.raises(DesignError) as info:
        plan(design)
    error = info.value
    assert "a per-port plane takes a port of every NIC" in error.message
    assert [next((p for p in phrases if phrase.startswith(p)), None) for phrase, _c in error.fixes] == phrases
    for _phrase, changes in error.fixes:  # a way out builds the whole design: every pod, not only the first
        assert mixed_plan(design.model_copy(update=changes)).fabric.planes in (1, 2)


def test_planes_refused_advice_by_plane_mode():
    rail = planes_refused(size_pods(IB.model_copy(update={"plane_mode": "per-rail"})))
    port = planes_refused(size_pods(ETH.model_copy(update={"nic": "CX8"})))
    assert isinstance(rail, NotHandledError) and isinstance(port, NotHandledError)
    assert "times the speed" not in rail.suggestion and "same port speed" in rail.suggestion
    assert "times the speed" in port.suggestion and "without pods" in port.suggestion


def test_cli_says_not_available_and_exits_4(capsys):
    code = cli_main(["export", "--nodes", "64", "--pods", "GB200-NVL72:72", "--format", "simai"])  # two domain sizes
    err = capsys.readouterr().err
    assert code == 4 and err.startswith("not available for this design: ") and "cannot build" not in err
    assert cli_main(["plan", "--gpus", "131072", "--gpu", "H100"]) == 3  # a design that cannot be built: still 3
    assert capsys.readouterr().err.startswith("cannot build this design: ")


def test_performance_default_comparison_of_per_port_pods_builds():
    """The Performance page's default comparison fabric (InfiniBand 1:1 for an Ethernet design) of the per-port
    Ethernet CX8 pods design: CX8 has one port on InfiniBand, so the comparison takes the first way out (per-rail
    planes, the same 2 planes) and says so; a design that builds as asked has no sentence."""
    from core.formats.joblink import COMPARE_FABRICS, default_comparison
    from core.perf.jobform import alternative_plan, buildable_alternative

    design = ETH.model_copy(update={"nic": "CX8"})
    changes = COMPARE_FABRICS[default_comparison("ethernet")][1]
    changed, note = buildable_alternative(design, changes, "ethernet")
    assert changed.fabric == "infiniband" and changed.plane_mode == "per-rail" and changed.planes == 2
    assert "use per-rail planes" in note and "CX8 has 1 port" in note
    assert alternative_plan(design, changes, "ethernet").planes == 2
    assert buildable_alternative(IB.model_copy(update={"planes": 1}), COMPARE_FABRICS["eth2"][1], "infiniband")[1] == ""


BAD_PODS = ["--pods", "B300:32:800,B300:99999:800"]  # pod 3 does not fit two tiers under the shared spines


@pytest.mark.parametrize("command", [
    ["plan"], ["availability"], ["train"], ["serve"], ["load"], ["spof"], ["collective"], ["stages"],
    ["failure", "--fail", "p0.leaf0"], ["report", "-o", "{out}"], ["export", "--format", "slurm", "-o", "{out}"],
    ["cabling", "-o", "{out}"]])
def test_every_command_refuses_pods_that_cannot_be_built(command, tmp_path, capsys):
    """One rule (``core.analysis.whole.plan_with_pods`` through ``core.cli.common.design_from_args``): a design
    whose pods cannot be built is refused by every command with the pods' error and its way out, exit 3; none works
    on the first pod's design without them, and no file is written."""
    out = tmp_path / "out"
    code = cli_main([part.format(out=out) for part in command] + BAD_PODS)
    streams = capsys.readouterr()
    assert code == 3 and not out.exists() and not streams.out
    assert streams.err.startswith("cannot build this design: Pod 3 (B300, 99,999 nodes) does not fit two tiers")
    assert "give pod 3 at most 144 nodes, and put the rest in another pod, or drop pod 3." in streams.err


def test_plan_with_pods_is_the_plan_once_the_pods_build():
    from core.analysis.whole import plan_with_pods

    good = Design(gpu="H100", nodes=64, pods="B200:32:800")
    assert plan_with_pods(good) is plan(good)  # the first pod's plan, as every page and command reads it
    bad = Design(gpu="H100", nodes=4, pods="B300:32:800,B300:99999:800")
    plan(bad)  # the first pod alone builds: the base design is no way to see the pods fail
    with pytest.raises(DesignError) as info:
        plan_with_pods(bad)
    # 1,296 nodes fit two tiers alone but not the shared spines beside pod 2: the way out gives pod 3 the most nodes
    # with which the spines balance at every smaller count too (1-144; 145-216 do not, size_pods), or drops it
    assert info.value.fixes == (("give pod 3 at most 144 nodes", {"pods": "B300:32:800,B300:144:800"}),
                                ("drop pod 3", {"pods": "B300:32:800"}))
    for _phrase, changes in info.value.fixes:
        assert plan_with_pods(bad.model_copy(update=dict(changes))).resolved.nodes == 4


def test_the_fewer_nodes_way_out_builds_under_the_shared_spines_by_hand():
    """leftperf 6: the first way out said "give pod 3 at most 1,296 nodes" (two tiers alone) though 1,296 does not
    build beside pod 2 under the shared spines. Sized one count at a time: 1-144 build, 145 does not, so 144 is the
    most that "at most" holds for; applied, the design sizes with its three pods."""
    from core.analysis.whole import design_mixed
    from core.fabric.pods import size_pods

    bad = Design(gpu="H100", nodes=4, pods="B300:32:800,B300:99999:800")
    sizes = {n: _sizes_with(bad, n) for n in (1, 100, 144, 145, 216, 1296)}
    assert sizes == {1: True, 100: True, 144: True, 145: False, 216: False, 1296: False}
    with pytest.raises(DesignError) as info:
        size_pods(bad)
    assert info.value.suggestion == ("Pods sit on two tiers: give pod 3 at most 144 nodes, and put the rest in "
                                     "another pod, or drop pod 3.")
    fixed = bad.model_copy(update=info.value.fixes[0][1])
    assert [pod.nodes for pod in size_pods(fixed).pods] == [4, 32, 144]
    assert design_mixed(fixed) is not None


def _sizes_with(design: Design, nodes: int) -> bool:
    from core.fabric.pods import size_pods

    try:
        size_pods(design.model_copy(update={"pods": f"B300:32:800,B300:{nodes}:800"}))
    except DesignError:
        return False
    return True


def test_a_compare_column_whose_pods_cannot_be_built_is_its_error_not_the_first_pod():
    """The Compare page captioned such a column with the first pod's design ("32 x H100 in 4 nodes") and hid its
    error: the column has no plan, its error and way out are the pods' (as every surface's)."""
    from core.analysis.compare import compare

    result = compare([("good", Design(gpu="H100", nodes=4)), ("bad", Design(gpu="H100", nodes=4, pods=BAD_PODS[1]))])
    good, bad = result.columns
    assert good.plan is not None and bad.plan is None and not bad.values and not bad.notes
    assert bad.error_message.startswith("Pod 3 (B300, 99,999 nodes) does not fit two tiers")
    assert bad.way_out.endswith("or drop pod 3.")


@pytest.mark.parametrize("pods, kept", [("B300:32:801", None), ("B200:8,B300:32:801@1", "B200:8")])
def test_an_extra_pods_speed_no_nic_runs_names_the_pod_and_drops_it(pods, kept):
    """A pod typed in the sidebar or a design file at a speed no NIC of the fabric runs said only "no InfiniBand NIC
    in the catalog runs at 801 Gb/s" (which pod?) and offered no way out; it names the pod, and the way out drops
    it, as for a pod of an unknown system."""
    from core.i18n import language

    design = Design(gpu="H100", nodes=64, pods=pods)
    with pytest.raises(DesignError) as raised:
        mixed_plan(design)
    bad = pods.split(",")[-1]
    assert str(raised.value).startswith(f"The extra pod {bad}: No InfiniBand NIC in the catalog runs at 801 Gb/s")
    (phrase, changes), = raised.value.fixes
    assert phrase == f"drop the extra pod {bad}" and changes == {"pods": kept}
    mixed_plan(design.model_copy(update=changes)) if changes["pods"] else plan(design.model_copy(update=changes))
    with language("zh"), pytest.raises(DesignError) as raised:
        mixed_plan(design)
    assert str(raised.value).startswith(f"额外 Pod {bad}：目录中没有能以 801 Gb/s 运行的 InfiniBand 网卡")
