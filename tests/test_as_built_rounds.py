"""``core.plan.as_built``'s rounds: the other networks' sizing in closed form, the same fixed point (round48).

* The in-band <-> out-of-band fixed point of ``core.networks`` runs on counts in closed form
  (``management.inband_switch_count``, ``oob_switch_count``): they are the switch counts of the sizings built.
* The other networks change only an arrangement's management and storage racks
  (``core.physical.layout.device_rack_count``, read by the central racks' arrangement): the racks of any devices are
  the arrangement's of others less theirs plus these.
* A cold plan (``core.memo.uncached``) is the cached one.
* The rounds count the racks from the arrangement's drafts (``core.plan.rack_counts``, ``Drafts.counts``) and arrange
  once (arr50): the counts are the arrangement's (a property over designs and devices, a planted error found) and the
  answer is that of the rounds that arranged each time.
"""

from __future__ import annotations

import pytest

from core.catalog import load_catalog
from core.design import Design, resolve_design
from core.errors import DesignError, InputError
from core.fabric.sizing import size_fabric
from core.memo import uncached
from core.networks import size_networks
from core.networks.management import (head_nodes, inband_ports, inband_switch, inband_switch_count, nfs_systems,
                                      oob_switch_count, size_inband, size_oob)
from core.networks.storage import scalable_units
from core.physical.layout import arrange_devices, device_rack_count, devices_to_place
from core.physical.racks import load_racks
from core import plan as plan_module
from core.plan import built_counts

DESIGNS = {
    "one switch": dict(gpu="H100", nodes=2),
    "rail-optimized 64": dict(gpu="H100", nodes=64),
    "top-of-rack ethernet": dict(gpu="H100", nodes=64, topology="top-of-rack", fabric="ethernet"),
    "GB200 NVL72": dict(gpu="GB200-NVL72", nodes=72),
    "3-tier 1100": dict(gpu="H100", nodes=1100, switch="QM9700", tiers=3),
    "rail-only 16384": dict(gpu="H100", gpus=16384, topology="rail-only", oversubscription=0.5, su_nodes=16,
                            pod_sus=16, tiers=3),
    "Dragonfly+ 4096": dict(gpu="H100", gpus=4096, switch="QM9700", topology="dragonfly"),
    "classic Dragonfly 2048": dict(gpu="H100", gpus=2048, switch="QM9700", topology="classic-dragonfly"),
    "per-rail planes": dict(gpu="H800", gpus=2048, switch="QM9700", plane_mode="per-rail", planes=8),
    "SN5600 16384": dict(gpu="H100", gpus=16384, fabric="ethernet", switch="SN5600"),
    "no storage": dict(gpu="H100", nodes=256, storage="none"),
    "no management": dict(gpu="H100", nodes=256, management=False),
    "torus": dict(gpu="B300", gpus=512, topology="torus"),
}


def _planned(kwargs):
    catalog = load_catalog()
    resolved = resolve_design(Design(**kwargs), catalog)
    return resolved, size_fabric(resolved), catalog


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_closed_form_counts_are_the_built_sizings(name):
    """Over out-of-band switch counts 0-2,000 and both rack counts, the in-band network's switches and the
    out-of-band switches counted in closed form are those of ``size_inband`` and ``size_oob``."""
    resolved, fabric, catalog = _planned(DESIGNS[name])
    sus = scalable_units(resolved, fabric)
    heads, nfs = head_nodes(sus), nfs_systems(resolved.nodes)
    _choice, radix = inband_switch(resolved, catalog)
    for oob in (0, 1, 2, 7, 48, 49, 300, 2000):
        assert inband_switch_count(sum(inband_ports(resolved, heads, nfs, oob)), radix) == \
            size_inband(resolved, catalog, heads, nfs, oob).switch_count
    for built in (None, (3, 2), (4096, 608)):
        for others in (0, 5, 90):
            kwargs = dict(sus=sus, other_switches=others, heads=heads, ufms=4, storage_systems=3, nfs=nfs, built=built)
            assert oob_switch_count(resolved, fabric, catalog, **kwargs) == \
                size_oob(resolved, fabric, catalog, **kwargs)[0].switch_count


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_devices_add_only_their_own_racks(name):
    """An arrangement's racks are those of the arrangement without the other networks' devices plus the racks
    ``device_rack_count`` gives them, for the plan's devices and for twice and half as many out-of-band and in-band
    switches."""
    try:
        resolved, fabric, catalog = _planned(DESIGNS[name])
    except (DesignError, InputError):
        pytest.skip("refused")
    racks = load_racks()
    bare = built_counts(arrange_devices(resolved, fabric, [], racks))
    devices = devices_to_place(resolved, size_networks(resolved, fabric, catalog))
    for scale in (1, 2, 0.5):
        scaled = [d.model_copy(update={"count": max(1, int(d.count * scale))})
                  if d.prefix.startswith(("oob.", "inband.")) else d for d in devices]
        built = built_counts(arrange_devices(resolved, fabric, scaled, racks))
        assert built == (bare[0], bare[1] + device_rack_count(scaled, racks))


@pytest.mark.parametrize("name", ["rail-only 16384", "3-tier 1100", "top-of-rack ethernet", "SN5600 16384",
                                  "Dragonfly+ 4096"])
def test_a_cold_plan_is_the_cached_plan(name):
    """Every stage afresh or from the caches: the same plan."""
    design, catalog = Design(**DESIGNS[name]), load_catalog()
    warm = plan_module._plan(design, catalog)
    with uncached():
        cold = plan_module._plan(design, catalog)
    assert cold.networks == warm.networks and cold.layout == warm.layout and cold.bom == warm.bom
    assert cold.cost == warm.cost and cold.lengths == warm.lengths and cold.media == warm.media


# --- the rounds count the racks from the drafts (arr50): the arrangement made once --------------------------------

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from core.physical.layout import NetDevice, arrange_drafted, draft_racks  # noqa: E402

HALLS = st.fixed_dictionaries({
    "gpu": st.sampled_from(["H100", "B300", "GB200-NVL72"]),
    "gpus": st.sampled_from([8, 64, 512, 2048, 16384, 131072]) | st.integers(8, 40000).map(lambda n: n - n % 8),
    "topology": st.sampled_from(["rail-optimized", "top-of-rack", "rail-only", "dragonfly", "classic-dragonfly"]),
    "planes": st.integers(1, 2),
    "fabric": st.sampled_from(["infiniband", "ethernet"]),
})
DEVICES = st.lists(st.tuples(st.sampled_from(["storage", "management"]), st.integers(1, 3000),
                             st.sampled_from([1.0, 2.0, 4.0]), st.sampled_from([100.0, 466.0, 2000.0])), max_size=8)


def _drafted(kwargs):
    try:
        resolved = resolve_design(Design(**kwargs), load_catalog())
        return resolved, draft_racks(resolved, size_fabric(resolved), load_racks())
    except (DesignError, InputError):
        return None


def _counted_as_arranged(resolved, drafts, extra) -> bool:
    """The racks ``as_built``'s rounds count (``Drafts.counts`` and ``device_rack_count``) are those of the
    arrangement made of the same drafts and devices."""
    racks = load_racks()
    compute, other = drafts.counts()
    built = built_counts(arrange_drafted(drafts, extra, racks))
    return built == (compute, other + device_rack_count(extra, racks))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HALLS, DEVICES)
def test_the_drafts_count_the_arranged_racks(kwargs, devices):
    """Over designs of 8-131,072 GPUs of every family and any other networks' devices, the racks counted from the
    drafts (``Drafts.counts``: each SU template's racks times its SUs, the central runs, a Dragonfly+'s group spines
    times its groups alike) and the devices' management and storage racks are the arrangement's."""
    found = _drafted(kwargs)
    assume(found is not None)
    extra = [NetDevice(prefix=f"{kind}.d{i}", count=count, height_u=height, watts_each=watts, kind=kind, model="M")
             for i, (kind, count, height, watts) in enumerate(devices)]
    assert _counted_as_arranged(*found, extra)


def test_a_planted_count_error_is_found(monkeypatch):
    """The property fails with a planted error: a Dragonfly+'s group spines counted once, not once per group alike."""
    from core.physical import layout

    resolved, drafts = _drafted(dict(gpu="H100", gpus=16384, switch="QM9700", topology="dragonfly"))
    assert _counted_as_arranged(resolved, drafts, [])

    def planted(self):
        runs = [(d, run[3]) for run in self.su_runs for d in self.templates[run[0]]]
        runs += [(d, t) for d, t, _s in map(layout._run_of, self.central)]
        runs += [(d, t) for g in self.groups for d, t, _s in g[3]]  # the error: times, not times x alike
        compute = sum(t for d, t in runs if d.kind == "compute")
        return compute, sum(t for _d, t in runs) - compute

    monkeypatch.setattr(layout.Drafts, "counts", planted)
    assert not _counted_as_arranged(resolved, drafts, [])


def _rounds_arranged(resolved, fabric, catalog):
    """``as_built`` as it was before its rounds counted the racks: each round's racks those of an arrangement, arranged
    again whenever the devices changed (the reference the counted rounds must equal)."""
    racks = load_racks()
    networks = size_networks(resolved, fabric, catalog)
    placed = tuple(devices_to_place(resolved, networks))
    arrangement = arrange_devices(resolved, fabric, list(placed), racks)
    if networks.oob is None or resolved.nic.transport:
        return networks, built_counts(arrangement), None
    sized_for = None
    for _round in range(plan_module.AS_BUILT_ROUNDS):
        counted = built_counts(arrangement)
        if counted == sized_for:
            break
        sized = size_networks(resolved, fabric, catalog, counted)
        devices = tuple(devices_to_place(resolved, sized))
        if devices != placed:
            arrangement, placed = arrange_devices(resolved, fabric, list(devices), racks), devices
        networks, sized_for = sized, counted
    return networks, built_counts(arrangement), sized_for


@pytest.mark.parametrize("name", list(DESIGNS))
def test_the_counted_rounds_are_the_arranged_rounds(name):
    """``as_built`` (its rounds counted, one arrangement) gives the networks, the racks and the racks sized for of
    the rounds that arranged the racks each time the devices changed, afresh and from the caches."""
    try:
        resolved, fabric, catalog = _planned(DESIGNS[name])
    except (DesignError, InputError):
        pytest.skip("refused")
    expected = _rounds_arranged(resolved, fabric, catalog)
    for run in (uncached, None):
        if run is None:
            found = plan_module.as_built(resolved, fabric, catalog)
        else:
            with run():
                found = plan_module.as_built(resolved, fabric, catalog)
        assert (found.networks, built_counts(found.arrangement), found.racks) == expected


# --- each round sizes only what the racks change (built51) ------------------------------------------------------

def _as_built_is_whole_rounds(kwargs) -> bool | None:
    """Whether ``as_built`` (its rounds, ``core.plan.built_networks``, sizing only the in-band and out-of-band networks
    from the parts made once, ``core.networks.networks_for``, and counting the racks) gives the networks, the racks
    and the racks sized for of the rounds that size every network whole and arrange the racks each time
    (``_rounds_arranged``), both afresh; None for a design refused."""
    try:
        resolved, fabric, catalog = _planned(kwargs)
        with uncached():
            expected = _rounds_arranged(resolved, fabric, catalog)
            found = plan_module.as_built(resolved, fabric, catalog)
    except (DesignError, InputError):
        return None
    return (found.networks, built_counts(found.arrangement), found.racks) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HALLS)
def test_the_rounds_from_the_parts_are_the_whole_sizings(kwargs):
    """Over designs of 8-131,072 GPUs of every family: the networks sized once from their racks-independent parts
    (``core.networks.network_parts``) for each round's racks are the whole sizings of every round
    (``size_networks``), the fixed point the same."""
    same = _as_built_is_whole_rounds(kwargs)
    assume(same is not None)
    assert same


def test_a_planted_rounds_error_is_found(monkeypatch):
    """The property fails with a planted error: the rounds' networks sized for the estimated racks, not for the
    racks counted (``networks_for`` given no racks)."""
    from core.networks import networks_for

    design = dict(gpu="H100", gpus=131072, fabric="ethernet", switch="SN5600", port_speed_gbps=400)
    assert _as_built_is_whole_rounds(design)
    monkeypatch.setattr(plan_module, "networks_for", lambda resolved, fabric, catalog, parts, racks=None:
                        networks_for(resolved, fabric, catalog, parts))
    assert not _as_built_is_whole_rounds(design)
