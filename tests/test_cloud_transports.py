"""Cloud transports (AWS EFA, Google GPUDirect-TCPX/TCPXO) as fabric classes: the instances' published NICs,
the provider's fabric (not bought), the collective constants and their fit, the training estimate on them."""

import pytest

from core.catalog import load_catalog
from core.design import Design, resolve_nic_and_speed
from core.perf import constants as collective_constants
from core.perf.collectives import collective
from core.perf.jobform import alternative_design, fabric_label
from core.perf.placement import fabric_class, links
from core.perf.training import estimate, parse_job
from core.plan import plan

# (NIC id, NICs per node, Gb/s each, GPU): the instances as their providers publish them (nics.toml sources)
INSTANCES = {
    "aws-p5": ("EFA-P5", 32, 100, "H100"),         # p5.48xlarge: 3,200 Gbps EFAv2 over 32 network cards
    "aws-p5en": ("EFA-P5EN", 16, 200, "H200"),     # p5en.48xlarge: 3,200 Gbps EFAv3 over 16 network cards
    "aws-p6-b200": ("EFA-P6", 8, 400, "B200"),     # p6-b200.48xlarge: 3,200 Gbps EFAv4 over 8 network cards
    "gcp-a3-high": ("GVNIC-TCPX", 4, 200, "H100"),  # a3-highgpu-8g: 4 x 200 Gbps GPU NICs (GPUDirect-TCPX)
    "gcp-a3-mega": ("GVNIC-TCPXO", 8, 200, "H100"),  # a3-megagpu-8g: 8 x 200 Gbps GPU NICs (GPUDirect-TCPXO)
}
PER_GPU_GBPS = {"aws-p5": 400, "aws-p5en": 400, "aws-p6-b200": 400, "gcp-a3-high": 100, "gcp-a3-mega": 200}
"""Published scale-out bandwidth per GPU [Gb/s, one direction]: the instance's GPU network over its 8 GPUs."""


def cloud(instance: str, gpus: int = 64) -> Design:
    nic, count, speed, gpu = INSTANCES[instance]
    return Design(gpu=gpu, gpus=gpus, fabric="ethernet", nic=nic, nics_per_node=count, port_speed_gbps=speed)


TRANSPORTS = {"aws-p5": "efa", "aws-p5en": "efa", "aws-p6-b200": "efa", "gcp-a3-high": "tcpx", "gcp-a3-mega": "tcpxo"}


@pytest.mark.parametrize("instance", list(INSTANCES))
def test_instances_carry_their_published_per_gpu_bandwidth_and_transport(instance):
    p = plan(cloud(instance))
    r = p.resolved
    assert r.nics_per_node * r.port_speed_gbps / r.gpus_per_node == PER_GPU_GBPS[instance]
    assert fabric_class(p) == r.nic.transport == TRANSPORTS[instance]
    lk = links(p)
    fab = collective_constants.load_constants().fabric_constants(r.nic.transport)
    assert lk.nic_per_gpu_line == pytest.approx(PER_GPU_GBPS[instance] / 8)
    assert lk.nic_per_gpu == pytest.approx(PER_GPU_GBPS[instance] / 8 * fab.nic_efficiency)
    assert lk.sharp is None and lk.transport_latency_us == fab.transport_latency_us > 0


@pytest.mark.parametrize("instance", list(INSTANCES))
def test_the_providers_networks_are_not_bought(instance):
    p = plan(cloud(instance))
    assert {row.category for row in p.bom} == {"compute"}
    assert p.cost.network_capex_usd == 0
    assert any("cloud provider" in note for note in p.summary()["explanation"])
    bought = plan(Design(gpu=p.resolved.system.id, gpus=64, fabric="ethernet"))
    assert bought.cost.network_capex_usd > 0 and p.cost.capex_usd < bought.cost.capex_usd


def test_a_cloud_adapter_is_never_chosen_for_a_bought_design():
    catalog = load_catalog()
    for system in catalog.systems:
        for fabric in ("infiniband", "ethernet"):
            for speed in (None, 100, 200, 400):
                try:
                    nic, _speed, _notes = resolve_nic_and_speed(catalog, system, fabric, speed)
                except Exception:  # noqa: BLE001 - a speed no NIC runs: not this test's concern
                    continue
                assert nic.transport is None, (system.id, fabric, speed)


def test_efa_latency_fits_the_published_p6_points_and_holds_out_the_rest():
    """dstackai/dstack#3961: all_reduce_perf on 2x p6-b200.48xlarge, out-of-place time [us] by size [B]."""
    published = {8: 50.58, 16: 54.55, 32: 54.59, 64: 55.60, 128: 56.27, 256: 57.14}
    p = plan(cloud("aws-p6-b200", gpus=16))
    model = {size: collective(p, "all-reduce", size)["time_us"] for size in published}
    fit = [8, 16, 32, 64]
    mean_model = sum(model[s] for s in fit) / len(fit)
    mean_published = sum(published[s] for s in fit) / len(fit)
    assert mean_model == pytest.approx(mean_published, rel=0.02)  # the fit (transport_latency_us)
    for size in (128, 256):  # held out: every collective point within 10%
        assert model[size] == pytest.approx(published[size], rel=0.10), size


def test_a_faster_transport_never_slows_a_collective_or_a_step():
    p = plan(cloud("aws-p5", gpus=256))
    job = parse_job(dict(model="llama3-70b", seq_len=8192, tp=4, pp=4, global_batch=512, gpus=256))
    sizes = (8, 1 << 16, 1 << 24, 1 << 30)
    slow = [collective(p, "all-reduce", size)["time_us"] for size in sizes]
    slow_step = estimate(p, job).step_time_s
    bundled = collective_constants.load_constants()
    quicker = bundled.model_copy(update={"fabric": tuple(
        f.model_copy(update={"transport_latency_us": 0.0}) for f in bundled.fabric)})
    collective_constants.calibrated.cache_clear()
    collective_constants.for_library.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(collective_constants, "load_constants", lambda: quicker)
            fast = [collective(p, "all-reduce", size)["time_us"] for size in sizes]
            fast_step = estimate(p, job).step_time_s
    finally:
        collective_constants.calibrated.cache_clear()  # no constants of this test stay cached
        collective_constants.for_library.cache_clear()
    assert all(f <= s for f, s in zip(fast, slow)) and fast[0] < slow[0]
    assert fast_step <= slow_step
    # more bandwidth per GPU (A3 Mega's 8 NICs against A3 High's 4) never slows the step
    high, mega = plan(cloud("gcp-a3-high", gpus=256)), plan(cloud("gcp-a3-mega", gpus=256))
    assert estimate(mega, job).step_time_s <= estimate(high, job).step_time_s


def test_labels_and_the_fabric_comparison_name_the_transport():
    p = plan(cloud("gcp-a3-mega"))
    assert "GPUDirect-TCPXO" in fabric_label(p)
    on_prem = alternative_design(p.design, {"fabric": "infiniband"}, "ethernet")
    assert on_prem.nic is None and on_prem.nics_per_node is None and plan(on_prem).resolved.nic.transport is None


def test_a_cloud_adapter_on_infiniband_is_refused_with_its_fabric():
    from core.errors import InputError

    with pytest.raises(InputError, match="EFA-P5"):
        plan(Design(gpu="H100", gpus=64, fabric="infiniband", nic="EFA-P5", nics_per_node=32, port_speed_gbps=100))


def test_efa_sprays_packets_and_tcpx_hashes_flows():
    """EFA's SRD spreads a flow's packets over every path (Shalev et al., IEEE Micro 2020): adaptive-routing class;
    GPUDirect-TCPX/TCPXO run TCP flows: static ECMP. An oversubscribed stand-in fabric keeps more on EFA."""
    from core.perf import congestion

    efa = plan(cloud("aws-p5", gpus=1024).model_copy(update={"oversubscription": 2.0}))
    tcpx = plan(cloud("gcp-a3-mega", gpus=1024).model_copy(update={"oversubscription": 2.0}))
    assert congestion.routing_class(efa.resolved) == "srd" and congestion.routing_class(tcpx.resolved) == "ecmp"
    for kind in ("srd", "ecmp"):
        assert congestion.tier_share(kind, 0.5, 2.0, 32, 2) <= congestion.tier_share("srd", 0.5, 2.0, 32, 2)
    assert congestion.tier_share("srd", 0.5, 2.0, 32, 1) == congestion.tier_share("ib-ar", 0.5, 2.0, 32, 1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_performance_page_on_a_cloud_design_speaks_one_language(lang):
    """The Performance page on an AWS P5 design: the transport named, the bought fabric compared, one language."""
    import tests.test_i18n_pages as pages

    at = pages.run({"g": "H100", "ng": "256", "f": "eth", "nm": "EFA-P5", "nic": "32", "ps": "100"}, lang,
                   pages.PERF_PAGE)
    texts = pages.page_texts(at)
    assert not pages.leaks(texts, lang), pages.leaks(texts, lang)
    shown = "\n".join(texts) + "".join(str(d.value) for d in at.dataframe)
    assert "AWS EFA" in shown and "AWS SRD" in shown


def test_designer_switch_cards_of_a_cloud_design_say_the_provider_not_counts():
    """The Designer's switch cards agree with the BOM: a cloud design buys no switch, so they say the provider's
    (with the stand-in's size in their help), while a bought design shows its counts."""
    from core.figures.keynumbers import key_numbers
    from core.presets import find_preset

    cloud_plan = plan(find_preset("aws-p5-efa").design)
    cards = {k.key: k for k in key_numbers(cloud_plan.summary())}
    assert not [r for r in cloud_plan.bom if r.category == "switch"]
    assert all(cards[f"switches_{t}"].value == "provider's" and "AWS EFA" in cards[f"switches_{t}"].help
               for t in ("leaf", "spine", "core"))
    bought = {k.key: k for k in key_numbers(plan(Design(gpu="H100", gpus=512)).summary())}
    assert bought["switches_leaf"].value.replace(",", "").isdigit()


def test_plan_cli_says_the_provider_instead_of_switch_counts(capsys):
    from tests.conftest import run_cli

    code, out, _err = run_cli(capsys, "--lang", "en", "plan", "--preset", "aws-p5-efa")
    row = next(line for line in out.splitlines() if line.startswith("switches"))
    assert code == 0 and "cloud provider's (AWS EFA)" in row and "leaf 32" not in row


def test_spof_of_a_cloud_design_lists_only_the_instances_parts():
    """The single points of a cloud design leave out the provider's fabric, racks and power (the BOM buys none of
    them; no remedy could be bought) and say so; a bought design of the same shape still lists its leaves' uplink
    bundles and feeds."""
    from core.analysis.spof import INSTANCE_TIERS, single_points
    from core.presets import find_preset

    design = find_preset("aws-p5-efa").design
    cloud_result = single_points(plan(design))
    assert all(e.tier in INSTANCE_TIERS for e in cloud_result.elements)
    assert [d.tier for d in cloud_result.degrading] == ["nvswitch"]
    assert "cloud provider's (AWS EFA)" in cloud_result.notes[0]
    bought = single_points(plan(design.model_copy(update={"nic": None, "nics_per_node": None,
                                                          "port_speed_gbps": 400})))
    assert {"link", "feed"} <= {d.tier for d in bought.degrading}
    assert not any("cloud provider" in n for n in bought.notes)


def test_cloud_design_transceivers_card_says_the_provider():
    """The Transceivers card agrees with the Links card and the bill: none bought, the provider's."""
    from core.figures.keynumbers import key_numbers
    from core.presets import find_preset

    cards = {k.key: k for k in key_numbers(plan(find_preset("aws-p5-efa").design).summary())}
    assert cards["transceivers"].value == cards["links"].value == "provider's"
    bought = {k.key: k for k in key_numbers(plan(Design(gpu="H100", gpus=512)).summary())}
    assert bought["transceivers"].value.replace(",", "").isdigit()
