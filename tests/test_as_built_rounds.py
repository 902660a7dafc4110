"""``core.plan.as_built``'s rounds: the other networks' sizing in closed form, the same fixed point (round48).

* The in-band <-> out-of-band fixed point of ``core.networks`` runs on counts in closed form
  (``management.inband_switch_count``, ``oob_switch_count``): they are the switch counts of the sizings built.
* The other networks change only an arrangement's management and storage racks
  (``core.physical.layout.device_rack_count``, read by the central racks' arrangement): the racks of any devices are
  the arrangement's of others less theirs plus these.
* A cold plan (``core.memo.uncached``) is the cached one.
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
