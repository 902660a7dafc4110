"""Failure what-if: fail switches, planes or NICs of a planned design and compare with the healthy one.

``what_if(plan, failures)`` takes a ``core.plan.Plan`` and failure specs and returns a
``FailureResult``; the plan is never changed (frozen models; a degraded *copy* feeds the
collective and training models). Element names are those of ``core.fabric.topology.fabric_graph``:

* ``p0.leaf3``, ``p0.spine1``, ``p0.core2`` (``p<plane>.i<island>.leaf3`` with islands: rail-only,
  per-rail planes); ``leaf3`` alone means plane 0 (island 0); ``su2-rail4`` is the rail-4 leaf of
  scalable unit 2 (both 1-based, plane 0) in rail-optimized fabrics; a top-of-rack leaf is its rack's ToR;
* ``p1``: a whole plane;
* ``node5.nic2``: NIC 2 of node 5 (all its ports, one per plane);
* ``rack3``: rack 3 (0-based) without power: its nodes and, top-of-rack, its ToR switches;
* ``rack3.feedA`` / ``rack3.feedB``: one power feed of rack 3. The rack presets take two feeds with N+N
  supplies (``[[power_feed]]`` in ``assets/catalog/racks.toml``, sourced or an assumption), so one feed lost
  loses nothing (the result says "redundant"); both feeds are ``rack3``; a one-feed preset loses the rack;
* ``p0.leaf3-spine1`` / ``p0.spine2-core5``: the bundle of parallel links between a leaf and a spine, or a
  spine and a core (``#2``: cable 2 of the bundle, 0-based, alone);
* ``node5.nvswitch1``: NVSwitch chip 1 of node 5's HGX baseboard; ``rack3.nvswitch7`` and
  ``rack3.nvswitch-tray2``: chip 7 and switch tray 2 (its chips) of the NVLink domain of several nodes in
  rack 3 (an NVL72: 9 trays of 2 chips; ``nvl3.`` instead of ``rack3.`` when a rack holds several domains).

A spec is ``tier:count`` (``spine:2``: that many elements of the tier, chosen where they hurt most:
a leaf group's leaves before the next group's, so nodes are cut off soonest; a pod's spines before the
next pod's; a core group's cores before the next; a node's NICs before the next node's; one leaf's
uplink bundles before the next leaf's; one NVLink domain's switch chips (or trays) before the next,
except on HGX baseboards, where each chip takes its node; a rack's feeds before the next rack's; named in
``FailureResult.failed``) or ``tier:name`` / ``name``. Tiers: ``leaf`` (alias ``tor``), ``spine``,
``core``, ``plane``, ``nic``, ``rack``, ``link``, ``nvswitch``, ``tray``, ``feed``.

NVLink switches (sources in ``NVSWITCH_SOURCES``):

* **HGX / DGX baseboard** (one node per NVLink domain): NVIDIA Fabric Manager's default
  ``NVSWITCH_FAILURE_MODE=0`` "aborts and leaves the system uninitialized, and all CUDA application launches
  will fail" when an NVSwitch fails; only HGX A100 has a degraded mode (its peer disabled too, "5/6" of the
  bandwidth), and several failures fall back to mode 0. So a lost chip takes its node's GPUs out: they count
  as cut off.
* **Multi-node domain** (NVL72): every GPU has one link to each switch chip (GB200 SuperPOD RA), so a GPU keeps
  ``(links - links on the lost chips) / links`` of its NVLink bandwidth, ``(18 - k) / 18`` with ``k`` of 18
  chips lost; a tray is 2 chips. Assumed: the NVLink partition runs in NMX's Adaptive Bandwidth resiliency
  mode ("all of the GPUs will be able to communicate with one-another in a degraded bandwidth capacity"; in
  Full Bandwidth mode "a loss of a switch" makes the partition unhealthy), and NCCL keeps NVLS on the
  remaining chips at the same share (not documented). With every chip lost the domain's nodes no longer
  forward to each other over NVLink. The collectives and the step time run at the slowest domain's pace: the
  degraded copy's NVLink bandwidth per GPU is the worst connected domain's.

Method (closed form over the fabric's symmetry; no per-GPU or per-link loop, so it costs the same at
131,072 GPUs as at 64; ``tests/test_failure.py`` checks it against networkx reachability and max-flow):

* **Cut off**: switch components per plane (and island) are found at pod / leaf granularity (a leaf
  reaches its plane's spines while one of them lives; pods join through core groups with a live core
  and live spine j in both); nodes (and NVLink domains of several nodes, which forward over NVLink)
  join the components their live ports reach. GPUs outside the component holding the most nodes are
  cut off.
* **Degraded**: a GPU of a connected node whose NIC lost a port (a dead NIC, leaf, plane, or a leaf cut
  off from the rest). When the NIC lost every port, NCCL forwards the GPU's traffic over NVLink to a NIC
  on another rail (PXN: "inter-node communication using a non-local NIC, using NVLink and an intermediate
  GPU", NCCL environment-variable docs, ``NCCL_PXN_DISABLE``, on by default since NCCL 2.12):
  ``gpus_via_pxn``. Nodes of one multi-node NVLink domain (NVL72 trays) are assumed to forward to each
  other the same way, so a tray without a live NIC is degraded, not cut off, while its rack reaches the
  fabric.
* **Bisection** (one direction): per stage (NIC injection, leaf uplinks, spine uplinks) and per plane,
  the worst balanced cut puts every failed leaf, NIC and (with several pods) spine on one side; failed
  spines of a two-tier fabric and failed cores sit above the cut and reduce both sides. The bisection
  is the sum over planes of each plane's smallest stage, as ``core.fabric.bandwidth.bisection_gbits``
  (exact when the failures fit in one half, as the max-flow tests check).
* **busbw**: ``core.perf.collectives.collective`` all-reduce and all-to-all of ``BUSBW_BYTES`` on the connected GPUs of a
  degraded copy of the plan whose NIC rate is the slowest connected node's surviving share (a collective
  runs at the pace of its slowest rank; PXN moves a lost rail's share onto another NIC) and whose leaf
  and spine oversubscription are the worst live switch's.
* **Step time**: ``core.perf.training.estimate`` of the job on the same degraded copy.
* **ECMP**: a live switch whose uplinks lost some (not all) of their next hops while others of its tier
  kept all of theirs: its flows hash onto fewer paths (upward groups, ``unit`` ``switches``); a live switch
  that lost cables of its uplink bundles hashes over fewer links (``unit`` ``links``).
* **Link bundles**: a whole bundle lost takes that next hop from the leaf (or spine); the leaf's component
  is found by a union over the plane's spines and cores, with the untouched leaves of a pod (and the
  untouched spines of a core group) as one block each, so the cost stays per pod, not per link. A lost
  cable lowers the leaf's (spine's) live uplinks, hence its stage of the bisection and the degraded copy's
  oversubscription.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from core.errors import DesignError, InputError, shown
from core.fabric.bandwidth import tier_capacities_gbits
from core.i18n import N_, _, ngettext
from core.plan import Plan

TIERS = ("leaf", "spine", "core", "plane", "nic", "rack", "link", "nvswitch", "tray", "feed")
TIER_ALIASES = {"tor": "leaf", "bundle": "link", "nvlink-switch": "nvswitch"}
TIER_LABELS = {"leaf": N_("leaf"), "spine": N_("spine"), "core": N_("core"), "plane": N_("plane"), "nic": N_("NIC"),
               "rack": N_("rack"), "link": N_("link bundle"), "nvswitch": N_("NVSwitch chip"),
               "tray": N_("NVLink switch tray"), "feed": N_("rack power feed")}
NVSWITCH_SOURCES = (
    "NVIDIA Fabric Manager User Guide, 'NVSwitch Failure', bare metal: NVSWITCH_FAILURE_MODE=0 'FM aborts and "
    "leaves the system uninitialized, and all CUDA application launches will fail with a cudaErrorSystemNotReady "
    "status'; =1 (DGX/HGX A100 only) 'the NVSwitch will be disabled with its peer NVSwitch. This will reduce the "
    "available bandwidth to 5/6' (https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html)",
    "GB200 SuperPOD RA network fabrics: 18 compute trays, 9 NVLink switch trays of 2 NVLink switch chips, each "
    "GPU's 18 links one to each chip (https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-"
    "infrastructure-gb200/latest/network-fabrics.html), as systems.toml cites",
    "NMX Manager documentation, Partition Health: Adaptive Bandwidth mode 'all of the GPUs will be able to "
    "communicate with one-another in a degraded bandwidth capacity'; Full Bandwidth mode: 'a loss of a switch' "
    "makes the partition UNHEALTHY (https://docs.nvidia.com/networking/display/nmxmv8511000/partition+health)",
)
"""Where the NVSwitch failure rules come from (module docstring)."""
NVL_TRAYS = 9
"""NVLink switch trays of a multi-node domain whose chip count is a multiple of 9: GB200/GB300 NVL72 (18 chips,
2 per tray, GB200 SuperPOD RA) and Vera Rubin NVL72 (36 chips, 4 per tray, nvlink.toml's stored copies);
any other multi-node domain is taken as one chip per tray."""
STAGES = ("injection", "leaf_up", "spine_up")
STAGE_LABELS = {"injection": N_("NIC injection"), "leaf_up": N_("leaf uplinks"), "spine_up": N_("spine uplinks")}
BUSBW_BYTES = 1 << 30
"""Message size of the all-reduce busbw figure (1 GiB, large enough to be bandwidth-bound)."""
MAX_FAILURES = 10_000
"""Most elements one what-if fails."""


class FailureResult(BaseModel):
    """The failed design against the healthy one. Bandwidths one direction; Tb/s = 1e12 bit/s, GB/s = 1e9 byte/s."""

    model_config = ConfigDict(frozen=True)

    failed: tuple[dict, ...]
    """``{"element", "tier", "chosen", "redundant"}``: ``chosen`` when picked by a ``tier:count`` spec;
    ``redundant`` when its loss lost nothing (a rack feed whose other feed lives)."""
    gpus: int
    nodes: int
    gpus_disconnected: int
    nodes_disconnected: int
    gpus_degraded: int
    """GPUs of connected nodes whose NIC lost at least one port."""
    gpus_via_pxn: int
    """Of those, GPUs whose NIC lost every port: their traffic crosses NVLink to another rail's NIC (PXN)."""
    bisection_tbits_one_direction: float
    healthy_bisection_tbits_one_direction: float
    stages_tbits: dict
    """Per stage: ``{"healthy", "remaining"}`` bisection-side capacity [Tb/s, one direction] (the damaged half)."""
    busbw_gbytes: float | None
    healthy_busbw_gbytes: float | None
    busbw_method: str
    alltoall_busbw_gbytes: float | None = None
    healthy_alltoall_busbw_gbytes: float | None = None
    """All-to-all of ``BUSBW_BYTES`` on the same GPUs and degraded copy [GB/s]."""
    step_time_s: float | None = None
    healthy_step_time_s: float | None = None
    days_to_train: float | None = None
    """Days to train the job's ``tokens_to_train`` at ``step_time_s`` (``TrainingEstimate.days_to_train``) [days]."""
    healthy_days_to_train: float | None = None
    ecmp_unbalanced: tuple[dict, ...] = ()
    """``{"tier", "switches", "healthy_paths", "remaining_paths", "unit"}`` per tier and remaining next-hop
    count; ``unit`` ``switches`` (next-hop switches) or ``links`` (cables of the uplink bundles)."""
    gpus_nvlink_degraded: int = 0
    """GPUs of connected NVLink domains that lost NVLink switch chips (lower NVLink bandwidth)."""
    nvlink_gbytes_per_gpu_one_direction: float | None = None
    healthy_nvlink_gbytes_per_gpu_one_direction: float | None = None
    """NVLink line rate per GPU [GB/s, one direction]: the worst connected domain's, and healthy."""
    domain_busbw_gbytes: float | None = None
    healthy_domain_busbw_gbytes: float | None = None
    """All-reduce of ``BUSBW_BYTES`` inside one NVLink domain (a tensor-parallel group) [GB/s]: the worst
    connected domain, and healthy (None without a multi-GPU NVLink domain)."""
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """Machine-readable keys (English), as ``python -m core failure --format json`` prints them."""
        return {
            "failed": list(self.failed),
            "gpus": self.gpus,
            "nodes": self.nodes,
            "gpus_disconnected": self.gpus_disconnected,
            "nodes_disconnected": self.nodes_disconnected,
            "gpus_degraded": self.gpus_degraded,
            "gpus_via_pxn": self.gpus_via_pxn,
            "bisection_tbits_one_direction": round(self.bisection_tbits_one_direction, 6),
            "stages_tbits_one_direction": {k: {kk: round(vv, 6) for kk, vv in v.items()}
                                           for k, v in self.stages_tbits.items()},
            "busbw_gbytes": None if self.busbw_gbytes is None else round(self.busbw_gbytes, 3),
            "busbw_bytes": BUSBW_BYTES,
            "busbw_method": self.busbw_method,
            "alltoall_busbw_gbytes": None if self.alltoall_busbw_gbytes is None else round(self.alltoall_busbw_gbytes, 3),
            "step_time_s": None if self.step_time_s is None else round(self.step_time_s, 6),
            "days_to_train": _r(self.days_to_train, 4),
            "ecmp_unbalanced": list(self.ecmp_unbalanced),
            "gpus_nvlink_degraded": self.gpus_nvlink_degraded,
            "nvlink_gbytes_per_gpu_one_direction": _r(self.nvlink_gbytes_per_gpu_one_direction, 3),
            "domain_busbw_gbytes": _r(self.domain_busbw_gbytes, 3),
            "healthy": {
                "bisection_tbits_one_direction": round(self.healthy_bisection_tbits_one_direction, 6),
                "busbw_gbytes": None if self.healthy_busbw_gbytes is None else round(self.healthy_busbw_gbytes, 3),
                "alltoall_busbw_gbytes": None if self.healthy_alltoall_busbw_gbytes is None
                else round(self.healthy_alltoall_busbw_gbytes, 3),
                "step_time_s": None if self.healthy_step_time_s is None else round(self.healthy_step_time_s, 6),
                "days_to_train": _r(self.healthy_days_to_train, 4),
                "nvlink_gbytes_per_gpu_one_direction": _r(self.healthy_nvlink_gbytes_per_gpu_one_direction, 3),
                "domain_busbw_gbytes": _r(self.healthy_domain_busbw_gbytes, 3),
            },
            "notes": list(self.notes),
        }


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


# --------------------------------------------------------------------------------------
# The fabric's shape, one plane and island (counts from FabricPlan)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    tiers: int
    planes: int
    islands: int
    rails: int
    """NICs per node in one island."""
    nics: int
    nodes: int
    gpus_per_node: int
    nodes_per_domain: int
    nodes_per_rack: int
    leaves: int
    spines: int
    cores: int
    groups: int
    nodes_per_group: int
    leaves_per_group: int
    groups_per_pod: int
    pods: int
    spines_per_pod: int
    cores_per_group: int
    tor: bool
    port_gbps: float
    up_gbps: float
    leaf_uplinks: int
    pair_links: int
    spine_uplinks: tuple[int, ...]
    """Uplinks of each spine, per pod."""
    spine_core_pairs: tuple[int, ...] = ()
    """Links between a spine and each core of its group, per pod."""
    nvl_chips: int = 0
    """NVSwitch chips per NVLink domain (0: no NVSwitch)."""
    nvl_links: int = 0
    """NVLink links per GPU."""
    feeds: int = 2
    """Power feeds per compute rack (``[[power_feed]]`` of racks.toml)."""

    @staticmethod
    def of(plan: Plan) -> "Shape":
        f, r = plan.fabric, plan.resolved
        islands = f.islands
        pods = f.pod_count if f.tiers == 3 else 1
        nvl = plan.nvlink_summary() if r.nvlink_domain_gpus > 1 else {"nvswitch_chips": 0, "links_per_gpu": 0}
        return Shape(
            spine_core_pairs=tuple(f.spine_core_pair_links(p) for p in range(pods)) if f.tiers == 3 else (),
            nvl_chips=int(nvl["nvswitch_chips"] or 0), nvl_links=int(nvl["links_per_gpu"] or 0),
            feeds=rack_power_feeds(plan)[0],
            tiers=f.tiers, planes=f.planes, islands=islands, rails=r.nics_per_node // islands, nics=r.nics_per_node,
            nodes=r.nodes, gpus_per_node=r.gpus_per_node,
            nodes_per_domain=max(1, r.nvlink_domain_gpus // r.gpus_per_node), nodes_per_rack=max(1, r.nodes_per_rack),
            leaves=f.leaf_count // islands, spines=f.spine_count // islands, cores=f.core_count // islands,
            groups=f.group_count, nodes_per_group=f.nodes_per_group, leaves_per_group=f.leaves_per_group,
            groups_per_pod=max(1, f.groups_per_pod), pods=pods, spines_per_pod=f.spines_per_pod,
            cores_per_group=f.cores_per_group, tor=f.topology == "top-of-rack", port_gbps=f.port_speed_gbps,
            up_gbps=f.uplink_speed_gbps or f.port_speed_gbps, leaf_uplinks=f.leaf_uplinks,
            pair_links=f.links_per_leaf_spine_pair,
            spine_uplinks=tuple(f.spine_uplinks_in_pod(p) for p in range(pods)) if f.tiers == 3 else (),
        )

    # names ---------------------------------------------------------------------------
    def prefix(self, p: int, i: int) -> str:
        return f"p{p}." if self.islands == 1 else f"p{p}.i{i}."

    def group_nodes(self, g: int) -> int:
        if self.tiers == 1:
            return self.nodes
        return max(0, min(self.nodes_per_group, self.nodes - g * self.nodes_per_group))

    def leaf_of(self, g: int, lr: int) -> int:
        """Leaf (within a plane and island) of local rail ``lr`` of group ``g``."""
        if self.tiers == 1:
            return 0
        return g if self.tor else g * self.leaves_per_group + lr

    def group_of_leaf(self, k: int) -> int:
        return 0 if self.tiers == 1 else k // self.leaves_per_group

    def pod_of_group(self, g: int) -> int:
        return g // self.groups_per_pod if self.tiers == 3 else 0

    def leaf_down_ports(self, k: int) -> int:
        nodes = self.group_nodes(self.group_of_leaf(k))
        return nodes * (self.rails if (self.tor or self.tiers == 1) else 1)

    @property
    def racks(self) -> int:
        return -(-self.nodes // self.nodes_per_rack)

    # NVLink domains ------------------------------------------------------------------
    @property
    def domains(self) -> int:
        return -(-self.nodes // self.nodes_per_domain)

    @property
    def trays(self) -> int:
        """NVLink switch trays per multi-node domain (0 on HGX baseboards)."""
        if self.nodes_per_domain == 1 or not self.nvl_chips:
            return 0
        return NVL_TRAYS if self.nvl_chips % NVL_TRAYS == 0 else self.nvl_chips

    def chips_of_tray(self, t: int) -> range:
        per = self.nvl_chips // max(1, self.trays)
        return range(t * per, (t + 1) * per)

    def chip_links(self, c: int) -> int:
        """Links of one GPU to chip ``c``: ``links // chips`` each, the remainder on the outer chips first
        (0, last, 1, ...), so the HGX H100 baseboard's 18 links over 4 chips are 5 / 4 / 4 / 5 (Fabric Manager User
        Guide: "four NVLinks that connect to two of the NVSwitches, and five NVLinks that connect to the remaining
        two"; which two is not stated), HGX A100 2 to each of 6, HGX B200 9 to each of 2, NVL72 1 to each of 18."""
        chips, links = self.nvl_chips, self.nvl_links
        base, extra = divmod(links, chips)
        outer = list(dict.fromkeys(x for pair in zip(range(chips), reversed(range(chips))) for x in pair))
        return base + (1 if c in outer[:extra] else 0)

    def domain_name(self, d: int) -> str:
        if self.nodes_per_domain == 1:
            return f"node{d}"
        return f"rack{d}" if self.nodes_per_rack == self.nodes_per_domain else f"nvl{d}"

    def domain_gpus(self, d: int) -> int:
        return (min(self.nodes, (d + 1) * self.nodes_per_domain) - d * self.nodes_per_domain) * self.gpus_per_node

    def pod_of_spine(self, k: int) -> int:
        return k // self.spines_per_pod if self.tiers == 3 else 0

    def spines_of_leaf(self, k: int) -> range:
        if self.tiers == 3:
            pod = self.pod_of_group(self.group_of_leaf(k))
            return range(pod * self.spines_per_pod, (pod + 1) * self.spines_per_pod)
        return range(self.spines)

    def cores_of_spine(self, k: int) -> range:
        j = k % self.spines_per_pod
        return range(j * self.cores_per_group, (j + 1) * self.cores_per_group)

    def pis(self):
        return [(p, i) for p in range(self.planes) for i in range(self.islands)]


@dataclass
class Dead:
    leaves: set = field(default_factory=set)  # (p, i, k)
    spines: set = field(default_factory=set)
    cores: set = field(default_factory=set)
    planes: set = field(default_factory=set)
    nics: dict = field(default_factory=dict)  # node -> set of NICs (0 .. nics-1)
    bundles: dict = field(default_factory=dict)  # (p, i, leaf, spine) -> set of lost cables
    core_bundles: dict = field(default_factory=dict)  # (p, i, spine, core) -> set of lost cables
    chips: dict = field(default_factory=dict)  # multi-node NVLink domain -> set of lost switch chips
    nodes_without_nvswitch: set = field(default_factory=set)  # HGX nodes that lost an NVSwitch chip
    feeds: dict = field(default_factory=dict)  # rack -> set of lost feeds (0 = A, 1 = B)
    racks_down: set = field(default_factory=set)  # racks without power (named, or every feed lost)


# --------------------------------------------------------------------------------------
# Rack power feeds (racks.toml [[power_feed]])
# --------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _feed_table() -> dict:
    from core.catalog import CATALOG_DIR, read_toml

    rows = read_toml(CATALOG_DIR / "racks.toml", N_("catalog file")).get("power_feed", [])
    out = {}
    for row in rows:
        if not (row.get("source") and row.get("as_of")) or int(row.get("power_feeds", 0)) not in (1, 2):
            raise InputError(_("racks.toml: power_feed {preset} needs power_feeds 1 or 2, a source and as_of").format(
                preset=shown(str(row.get("preset")))))
        out[str(row["preset"])] = (int(row["power_feeds"]), str(row.get("psu_redundancy", "")))
    return out


def _feeds_for(preset: str) -> tuple[int, str]:
    """``(power feeds, supply redundancy)`` of a rack preset; two feeds N+N when the table has no row."""
    return _feed_table().get(preset, (2, "N+N"))


def rack_power_feeds(plan: Plan) -> tuple[int, str]:
    """Power feeds of the design's compute racks and how their supplies share them."""
    if plan.layout is not None:
        preset = plan.layout.preset
    else:
        from core.physical.layout import choose_preset

        preset = choose_preset(plan.resolved).id
    return _feeds_for(preset)


# --------------------------------------------------------------------------------------
# Parsing failure specs
# --------------------------------------------------------------------------------------
_SWITCH = re.compile(r"^(?:p(\d+)\.)?(?:i(\d+)\.)?(leaf|spine|core)(\d+)$")
_SU_RAIL = re.compile(r"^(?:p(\d+)\.)?su(\d+)-rail(\d+)$")
_PLANE = re.compile(r"^p(\d+)$")
_NIC = re.compile(r"^node(\d+)\.nic(\d+)$")
_RACK = re.compile(r"^rack(\d+)$")
_BUNDLE = re.compile(r"^(?:p(\d+)\.)?(?:i(\d+)\.)?(leaf|spine)(\d+)-(spine|core)(\d+)(?:#(\d+))?$")
_CHIP = re.compile(r"^(node|rack|nvl)(\d+)\.nvswitch(\d+)$")
_TRAY = re.compile(r"^(rack|nvl)(\d+)\.nvswitch-tray(\d+)$")
_FEED = re.compile(r"^rack(\d+)\.feed([ab])$")


def _unknown(text: str, shape: Shape) -> InputError:
    return InputError(_("unknown element {name}; name a switch like {example}, a plane p0-p{last}, a NIC like "
                        "node0.nic0, a link bundle like {bundle}, a rack or its feed like {feed}, or give a "
                        "tier and a count like spine:2").format(
        name=shown(text), example=shape.prefix(0, 0) + "leaf0", last=shape.planes - 1,
        bundle=shape.prefix(0, 0) + "leaf0-spine0", feed="rack0.feedA"))


def _no_nvswitch(text: str, shape: Shape) -> InputError:
    if not shape.nvl_chips:
        return InputError(_("{name}: this design's NVLink domain has no NVSwitch chips").format(name=shown(text)))
    if shape.nodes_per_domain == 1:
        return InputError(_("unknown NVSwitch chip {name}; an HGX node has chips {first} to {last}, like "
                            "{example}").format(name=shown(text), first="nvswitch0",
                                                last=f"nvswitch{shape.nvl_chips - 1}", example="node0.nvswitch0"))
    return InputError(_("unknown NVLink switch element {name}; a domain has chips 0 to {chips} and trays 0 to "
                        "{trays}, like {chip} or {tray}").format(
        name=shown(text), chips=shape.nvl_chips - 1, trays=shape.trays - 1,
        chip=f"{shape.domain_name(0)}.nvswitch0", tray=f"{shape.domain_name(0)}.nvswitch-tray0"))


def _element(tier: str, key: tuple, shape: Shape) -> str:
    if tier == "plane":
        return f"p{key[0]}"
    if tier == "nic":
        return f"node{key[0]}.nic{key[1]}"
    if tier == "rack":
        return f"rack{key[0]}"
    if tier == "feed":
        return f"rack{key[0]}.feed{'AB'[key[1]]}"
    if tier == "nvswitch":
        return f"{shape.domain_name(key[0])}.nvswitch{key[1]}"
    if tier == "tray":
        return f"{shape.domain_name(key[0])}.nvswitch-tray{key[1]}"
    if tier == "link":
        kind, p, i, a, b, cable = key
        lower, upper = ("leaf", "spine") if kind == "ls" else ("spine", "core")
        return f"{shape.prefix(p, i)}{lower}{a}-{upper}{b}" + ("" if cable is None else f"#{cable}")
    p, i, k = key
    return f"{shape.prefix(p, i)}{tier}{k}"


def _pair_links(shape: Shape, kind: str, a: int) -> int:
    """Cables of one bundle: leaf-spine, or spine ``a``-core."""
    return shape.pair_links if kind == "ls" else shape.spine_core_pairs[shape.pod_of_spine(a)]


def _parse_bundle(m, text: str, shape: Shape) -> tuple[str, tuple]:
    p, i, lower, a, upper, b = int(m[1] or 0), int(m[2] or 0), m[3], int(m[4]), m[5], int(m[6])
    cable = None if m[7] is None else int(m[7])
    if p >= shape.planes or i >= shape.islands or shape.tiers == 1:
        raise _unknown(text, shape)
    if (lower, upper) == ("leaf", "spine"):
        kind, cabled = "ls", a < shape.leaves and b in shape.spines_of_leaf(a) and b < shape.spines
    elif (lower, upper) == ("spine", "core") and shape.tiers == 3:
        kind, cabled = "sc", a < shape.spines and b in shape.cores_of_spine(a) and b < shape.cores
    else:
        raise _unknown(text, shape)
    if not cabled:
        raise InputError(_("{name}: no such bundle; the two switches are not cabled to each other in this "
                           "design").format(name=shown(text)))
    if cable is not None and cable >= _pair_links(shape, kind, a):
        raise InputError(_("{name}: the bundle has {count} cables, #0 to #{last}").format(
            name=shown(text), count=_pair_links(shape, kind, a), last=_pair_links(shape, kind, a) - 1))
    return "link", (kind, p, i, a, b, cable)


def parse_name(text: str, shape: Shape, tier: str | None = None) -> tuple[str, tuple]:
    """``(tier, key)`` of an element name; ``InputError`` for a name the design does not have."""
    name = text.strip().lower()
    m = _SWITCH.match(name)
    if m:
        p, i, role, k = int(m[1] or 0), int(m[2] or 0), m[3], int(m[4])
        count = {"leaf": shape.leaves, "spine": shape.spines, "core": shape.cores}[role]
        if p >= shape.planes or i >= shape.islands or k >= count or (tier and tier != role):
            raise _unknown(text, shape)
        return role, (p, i, k)
    m = _SU_RAIL.match(name)
    if m and not shape.tor and shape.tiers > 1 and shape.islands == 1:
        p, g, r = int(m[1] or 0), int(m[2]) - 1, int(m[3]) - 1
        if p >= shape.planes or not (0 <= g < shape.groups) or not (0 <= r < shape.rails) or tier not in (None, "leaf"):
            raise _unknown(text, shape)
        return "leaf", (p, 0, shape.leaf_of(g, r))
    m = _PLANE.match(name)
    if m and tier in (None, "plane"):
        if int(m[1]) >= shape.planes:
            raise _unknown(text, shape)
        return "plane", (int(m[1]),)
    m = _RACK.match(name)
    if m and tier in (None, "rack"):
        if int(m[1]) >= shape.racks:
            raise _unknown(text, shape)
        return "rack", (int(m[1]),)
    m = _FEED.match(name)
    if m and tier in (None, "feed", "rack"):
        r, f = int(m[1]), "ab".index(m[2])
        if r >= shape.racks:
            raise _unknown(text, shape)
        if f >= shape.feeds:
            raise InputError(_("{name}: the racks of this design have one power feed, {feed}").format(
                name=shown(text), feed=f"rack{r}.feedA"))
        return "feed", (r, f)
    m = _NIC.match(name)
    if m and tier in (None, "nic"):
        if int(m[1]) >= shape.nodes or int(m[2]) >= shape.nics:
            raise _unknown(text, shape)
        return "nic", (int(m[1]), int(m[2]))
    m = _BUNDLE.match(name)
    if m and tier in (None, "link"):
        return _parse_bundle(m, text, shape)
    m = _CHIP.match(name)
    if m and tier in (None, "nvswitch"):
        single = shape.nodes_per_domain == 1
        d, c = int(m[2]), int(m[3])
        if not shape.nvl_chips or (m[1] == "node") != single or c >= shape.nvl_chips or d >= shape.domains or \
                (not single and m[1] != shape.domain_name(0)[:-1]):
            raise _no_nvswitch(text, shape)
        return "nvswitch", (d, c)
    m = _TRAY.match(name)
    if m and tier in (None, "tray", "nvswitch"):
        d, t = int(m[2]), int(m[3])
        if not shape.trays or t >= shape.trays or d >= shape.domains or m[1] != shape.domain_name(0)[:-1]:
            raise _no_nvswitch(text, shape)
        return "tray", (d, t)
    raise _unknown(text, shape)


def _worst_order(tier: str, shape: Shape):
    """Elements of ``tier`` in the order a count fails them: where they hurt most first."""
    pis = shape.pis()
    if tier == "leaf":
        for g in range(shape.groups if shape.tiers > 1 else 1):
            lrs = [0] if (shape.tor or shape.tiers == 1) else range(shape.leaves_per_group)
            for lr in lrs:
                for p, i in pis:
                    yield (p, i, shape.leaf_of(g, lr))
    elif tier == "spine":
        per_pod = shape.spines_per_pod if shape.tiers == 3 else shape.spines
        for pod in range(shape.pods if shape.tiers == 3 else 1):
            for p, i in pis:
                for j in range(per_pod):
                    yield (p, i, pod * per_pod + j)
    elif tier == "core":
        for p, i in pis:
            for k in range(shape.cores):
                yield (p, i, k)
    elif tier == "plane":
        for p in range(shape.planes):
            yield (p,)
    elif tier == "nic":
        for n in range(shape.nodes):
            for r in range(shape.nics):
                yield (n, r)
    elif tier == "rack":
        for k in range(shape.racks):
            yield (k,)
    elif tier == "feed":
        for k in range(shape.racks):
            for f in range(shape.feeds):
                yield (k, f)
    elif tier == "link" and shape.tiers > 1:  # one leaf's bundles before the next leaf's, then spines' to cores
        for p, i, k in _worst_order("leaf", shape):
            for sp in shape.spines_of_leaf(k):
                yield ("ls", p, i, k, sp, None)
        if shape.tiers == 3:
            for p, i, k in _worst_order("spine", shape):
                for c in shape.cores_of_spine(k):
                    yield ("sc", p, i, k, c, None)
    elif tier == "nvswitch" and shape.nvl_chips:
        chips = sorted(range(shape.nvl_chips), key=lambda c: -shape.chip_links(c))
        if shape.nodes_per_domain == 1:  # each chip takes its node: one per node first
            for c in chips:
                for n in range(shape.nodes):
                    yield (n, c)
        else:
            for d in range(shape.domains):
                for c in chips:
                    yield (d, c)
    elif tier == "tray" and shape.trays:
        for d in range(shape.domains):
            for t in range(shape.trays):
                yield (d, t)


def _tier_size(tier: str, shape: Shape) -> int:
    per_pi = {"leaf": shape.leaves, "spine": shape.spines, "core": shape.cores}
    npi = shape.planes * shape.islands
    if tier in per_pi:
        return per_pi[tier] * npi
    if tier == "rack":
        return shape.racks
    if tier == "feed":
        return shape.racks * shape.feeds
    if tier == "link":
        if shape.tiers == 1:
            return 0
        per_leaf = shape.spines_per_pod if shape.tiers == 3 else shape.spines
        return npi * (shape.leaves * per_leaf + (shape.spines * shape.cores_per_group if shape.tiers == 3 else 0))
    if tier == "nvswitch":
        return shape.domains * shape.nvl_chips
    if tier == "tray":
        return shape.domains * shape.trays
    return shape.planes if tier == "plane" else shape.nodes * shape.nics


def tiers_for(plan: Plan) -> tuple[str, ...]:
    """The tiers ``plan`` has elements of (a one-tier fabric has no spines, an HGX node no trays, ...)."""
    shape = Shape.of(plan)
    return tuple(t for t in TIERS if _tier_size(t, shape) > 0)


def resolve_failures(plan: Plan, failures) -> list[tuple[str, tuple, bool]]:
    """``(tier, key, chosen)`` of every element the specs name or choose; ``InputError`` for bad specs."""
    shape = Shape.of(plan)
    named: list[tuple[str, tuple]] = []
    counts: list[tuple[str, int]] = []
    for spec in failures:
        text = str(spec).strip()
        tier, _sep, rest = text.partition(":") if ":" in text else ("", "", text)
        tier = TIER_ALIASES.get(tier.strip().lower(), tier.strip().lower())
        if tier and tier not in TIERS:
            raise InputError(_("unknown tier {tier}; known: {known}").format(tier=shown(tier),
                                                                           known=", ".join(TIERS + ("tor",))))
        rest = rest.strip()
        if tier and rest.isdigit():
            count = int(rest)
            if count < 1:
                raise InputError(_("fail at least 1 element, got {value}").format(value=shown(text)))
            counts.append((tier, count))
        else:
            named.append(parse_name(rest, shape, tier or None))
    out: list[tuple[str, tuple, bool]] = []
    seen = set()
    for tier, key in named:
        if (tier, key) not in seen:
            seen.add((tier, key))
            out.append((tier, key, False))
    for tier, count in counts:
        size = _tier_size(tier, shape)
        taken = sum(1 for t, _k in seen if t == tier)
        if count + taken > size or count > MAX_FAILURES:
            raise InputError(_("cannot fail {count} {tier} elements: the design has {size} ({taken} already "
                               "named)").format(count=count, tier=tier, size=size, taken=taken))
        for key in _worst_order(tier, shape):
            if count == 0:
                break
            if (tier, key) in seen:
                continue
            seen.add((tier, key))
            out.append((tier, key, True))
            count -= 1
    return out


def _rack_down(dead: Dead, rack: int, shape: Shape) -> None:
    """The rack's power lost: its nodes (every NIC) and, top-of-rack, its ToRs."""
    dead.racks_down.add(rack)
    first = rack * shape.nodes_per_rack
    for n in range(first, min(shape.nodes, first + shape.nodes_per_rack)):
        dead.nics.setdefault(n, set()).update(range(shape.nics))
        if shape.tor and shape.tiers > 1:
            for p, i in shape.pis():
                dead.leaves.add((p, i, shape.leaf_of(n // shape.nodes_per_group, 0)))


def _dead_of(elements, shape: Shape) -> Dead:
    dead = Dead()
    for tier, key, _chosen in elements:
        if tier == "leaf":
            dead.leaves.add(key)
        elif tier == "spine":
            dead.spines.add(key)
        elif tier == "core":
            dead.cores.add(key)
        elif tier == "plane":
            dead.planes.add(key[0])
        elif tier == "rack":
            _rack_down(dead, key[0], shape)
        elif tier == "feed":
            dead.feeds.setdefault(key[0], set()).add(key[1])
        elif tier == "link":
            kind, p, i, a, b, cable = key
            cables = set(range(_pair_links(shape, kind, a))) if cable is None else {cable}
            target = dead.bundles if kind == "ls" else dead.core_bundles
            target.setdefault((p, i, a, b), set()).update(cables)
        elif tier in ("nvswitch", "tray"):
            chips = [key[1]] if tier == "nvswitch" else list(shape.chips_of_tray(key[1]))
            if shape.nodes_per_domain == 1:  # Fabric Manager's default: the baseboard stays uninitialised
                dead.nodes_without_nvswitch.add(key[0])
                dead.nics.setdefault(key[0], set()).update(range(shape.nics))
            else:
                dead.chips.setdefault(key[0], set()).update(chips)
        else:
            dead.nics.setdefault(key[0], set()).add(key[1])
    for rack, lost in dead.feeds.items():
        if len(lost) >= shape.feeds:
            _rack_down(dead, rack, shape)
    return dead


# --------------------------------------------------------------------------------------
# Connectivity
# --------------------------------------------------------------------------------------
class _Union:
    def __init__(self):
        self.parent: dict = {}

    def find(self, x):
        parent = self.parent
        parent.setdefault(x, x)
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


class _Fabric:
    """Switch-level state of a failed design, answered per leaf at pod / leaf granularity."""

    def __init__(self, shape: Shape, dead: Dead):
        self.shape, self.dead = shape, dead
        self.dead_spines_per_pi: dict = {}
        self.dead_spines_per_pod: dict = {}  # (p, i, pod) -> count
        for p, i, k in dead.spines:
            self.dead_spines_per_pi[(p, i)] = self.dead_spines_per_pi.get((p, i), 0) + 1
            pod = k // shape.spines_per_pod if shape.tiers == 3 else 0
            self.dead_spines_per_pod[(p, i, pod)] = self.dead_spines_per_pod.get((p, i, pod), 0) + 1
        self.dead_cores_per_group: dict = {}
        for p, i, k in dead.cores:
            j = k // max(1, shape.cores_per_group)
            self.dead_cores_per_group[(p, i, j)] = self.dead_cores_per_group.get((p, i, j), 0) + 1
        self.pod_root: dict = {}  # (p, i) -> {pod: root} for touched planes in three tiers
        if shape.tiers == 3:
            touched = {(p, i) for p, i, _k in dead.spines} | {(p, i) for p, i, _k in dead.cores}
            for pi in touched:
                self.pod_root[pi] = self._pod_components(*pi)
        # link bundles: cables lost per leaf (to which spine) and per spine (to which core, from which leaf)
        self.leaf_lost: dict = {}  # (p, i, leaf) -> [(spine, cables lost)]
        self.spine_down_lost: dict = {}  # (p, i, spine) -> [(leaf, cables lost)]
        self.spine_up_lost: dict = {}  # (p, i, spine) -> [(core, cables lost)]
        self.cut_leaf_spine: set = set()  # (p, i, leaf, spine) whose whole bundle is lost
        self.cut_spine_core: set = set()
        for (p, i, a, b), cables in dead.bundles.items():
            self.leaf_lost.setdefault((p, i, a), []).append((b, len(cables)))
            self.spine_down_lost.setdefault((p, i, b), []).append((a, len(cables)))
            if len(cables) >= shape.pair_links:
                self.cut_leaf_spine.add((p, i, a, b))
        for (p, i, a, b), cables in dead.core_bundles.items():
            self.spine_up_lost.setdefault((p, i, a), []).append((b, len(cables)))
            if len(cables) >= _pair_links(shape, "sc", a):
                self.cut_spine_core.add((p, i, a, b))
        self.bundle_root: dict = {}  # (p, i) -> {("L", pod) | ("k", leaf): root} where whole bundles are lost
        for pi in {(p, i) for p, i, _a, _b in self.cut_leaf_spine} | {(p, i) for p, i, _a, _b in self.cut_spine_core}:
            if pi[0] not in dead.planes:
                self.bundle_root[pi] = self._bundle_components(*pi)

    def leaf_alive(self, p: int, i: int, k: int) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.leaves

    def spine_alive(self, p, i, k) -> bool:
        return p not in self.dead.planes and (p, i, k) not in self.dead.spines

    def live_uplinks(self, p: int, i: int, k: int) -> int:
        """Uplinks of leaf ``k`` to live spines (the leaf itself assumed alive)."""
        s = self.shape
        if s.tiers == 1:
            return 0
        pod = s.pod_of_group(s.group_of_leaf(k))
        dead = (self.dead_spines_per_pod.get((p, i, pod), 0) if s.tiers == 3 else self.dead_spines_per_pi.get((p, i), 0))
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        lost = sum(n for sp, n in self.leaf_lost.get((p, i, k), ()) if self.spine_alive(p, i, sp))
        return (per - dead) * s.pair_links - lost

    def live_spine_uplinks(self, p: int, i: int, k: int) -> int:
        """Cables of spine ``k`` to live cores of its group (the spine itself assumed alive)."""
        s = self.shape
        pair = s.spine_core_pairs[s.pod_of_spine(k)]
        alive = [c for c in s.cores_of_spine(k) if (p, i, c) not in self.dead.cores]
        lost = sum(n for c, n in self.spine_up_lost.get((p, i, k), ()) if (p, i, c) not in self.dead.cores)
        return len(alive) * pair - lost

    def _bundle_components(self, p: int, i: int) -> dict:
        """Switch components of a plane that lost whole bundles (module docstring: blocks per pod / core group)."""
        s, dead = self.shape, self.dead
        union = _Union()
        pods = s.pods if s.tiers == 3 else 1
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        cut_leaves: dict = {}
        for pp, ii, a, b in self.cut_leaf_spine:
            if (pp, ii) == (p, i):
                cut_leaves.setdefault(a, set()).add(b)
        dead_here = {k for pp, ii, k in dead.leaves if (pp, ii) == (p, i)}
        out: dict = {}
        for pod in range(pods):
            spines = [sp for sp in range(pod * per, (pod + 1) * per) if self.spine_alive(p, i, sp)]
            groups = range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod)) if s.tiers == 3 \
                else range(s.groups)
            leaves = len(groups) * s.leaves_per_group
            mine = {k for k in cut_leaves if s.tiers < 3 or s.pod_of_group(s.group_of_leaf(k)) == pod}
            dead_pod = {k for k in dead_here if s.tiers < 3 or s.pod_of_group(s.group_of_leaf(k)) == pod}
            if leaves - len(mine | dead_pod) > 0 and spines:
                for sp in spines:
                    union.union(("L", pod), ("s", sp))
                out[("L", pod)] = ("L", pod)
            for k in mine - dead_pod:
                union.find(("k", k))
                for sp in spines:
                    if sp not in cut_leaves[k]:
                        union.union(("k", k), ("s", sp))
                out[("k", k)] = ("k", k)
        if s.tiers == 3:
            cut_spines: dict = {}
            for pp, ii, a, b in self.cut_spine_core:
                if (pp, ii) == (p, i):
                    cut_spines.setdefault(a, set()).add(b)
            for j in range(s.spines_per_pod):
                cores = [c for c in range(j * s.cores_per_group, (j + 1) * s.cores_per_group)
                         if (p, i, c) not in dead.cores]
                if not cores:
                    continue
                live = [pod * s.spines_per_pod + j for pod in range(s.pods)
                        if self.spine_alive(p, i, pod * s.spines_per_pod + j)]
                untouched = [sp for sp in live if sp not in cut_spines]
                if untouched:
                    for c in cores:
                        union.union(("C", j), ("c", c))
                    for sp in untouched:
                        union.union(("C", j), ("s", sp))
                for sp in live:
                    for c in cores:
                        if sp in cut_spines and c not in cut_spines[sp]:
                            union.union(("s", sp), ("c", c))
        return {key: union.find(key) for key in out}

    def _pod_components(self, p: int, i: int) -> dict:
        s = self.shape
        union = _Union()
        for pod in range(s.pods):
            union.find(pod)
        for j in range(s.spines_per_pod):
            if self.dead_cores_per_group.get((p, i, j), 0) >= s.cores_per_group:
                continue
            alive_pods = [pod for pod in range(s.pods) if (p, i, pod * s.spines_per_pod + j) not in self.dead.spines]
            for pod in alive_pods[1:]:
                union.union(alive_pods[0], pod)
        return {pod: union.find(pod) for pod in range(s.pods)}

    def label(self, p: int, i: int, k: int):
        """The switch component leaf ``k`` of plane ``p``, island ``i`` belongs to (None: leaf dead)."""
        if not self.leaf_alive(p, i, k):
            return None
        s = self.shape
        if s.tiers == 1:
            return ("f", p, i)
        pod = s.pod_of_group(s.group_of_leaf(k))
        if s.tiers == 2:
            if self.dead_spines_per_pi.get((p, i), 0) >= s.spines:
                return ("l", p, i, k)
        elif self.dead_spines_per_pod.get((p, i, pod), 0) >= s.spines_per_pod:
            return ("l", p, i, k)
        bundles = self.bundle_root.get((p, i))
        if bundles is not None:
            root = bundles.get(("k", k)) or bundles.get(("L", pod))
            return ("b", p, i, root) if root is not None else ("l", p, i, k)
        if s.tiers == 2:
            return ("f", p, i)
        roots = self.pod_root.get((p, i))
        return ("f", p, i, roots[pod] if roots else 0)


@dataclass
class _Unit:
    """Nodes that see the fabric alike: ``count`` nodes with the same ports."""

    count: int
    ports: list  # (p, i, nic, label or None)
    labels: frozenset


def _node_ports(fab: _Fabric, g: int, dead_nics: set) -> list:
    s = fab.shape
    ports = []
    for p, i in s.pis():
        for lr in range(s.rails):
            nic = lr * s.islands + i
            if nic in dead_nics:
                ports.append((p, i, nic, None))
                continue
            ports.append((p, i, nic, fab.label(p, i, s.leaf_of(g, lr))))
    return ports


def _units(fab: _Fabric) -> list[tuple[list[_Unit], int, int | None]]:
    """Pieces that share NVLink: ``(units, nodes, NVLink domain or None)``; a piece's labels are the union
    of its units'.

    A node count below zero means that many separate nodes alike (no NVLink between them). Groups whose
    leaves all live and reach their plane's spines see the fabric alike (per pod): their ports are
    computed once, and with one node per NVLink domain their nodes form one piece per pod. A multi-node
    domain that lost every NVLink switch chip falls apart into its nodes.
    """
    s, dead = fab.shape, fab.dead
    group_count = s.groups if s.tiers > 1 else 1
    npg = s.nodes_per_group if s.tiers > 1 else s.nodes
    dead_leaf_groups = {s.group_of_leaf(k) for _p, _i, k in dead.leaves}
    dead_leaf_groups |= {s.group_of_leaf(k) for _p, _i, k, _b in fab.cut_leaf_spine}
    isolated_pods = set()
    if s.tiers == 2:
        if any(n >= s.spines for n in fab.dead_spines_per_pi.values()):
            isolated_pods.add(0)
    elif s.tiers == 3:
        isolated_pods = {pod for (_p, _i, pod), n in fab.dead_spines_per_pod.items() if n >= s.spines_per_pod}
    broken_by_group: dict[int, list] = {}
    for node in dead.nics:
        broken_by_group.setdefault(node // npg if s.tiers > 1 else 0, []).append(node)
    clean: dict = {}

    def clean_ports(g):
        pod = s.pod_of_group(g)
        key = g if (g in dead_leaf_groups or pod in isolated_pods) else ("pod", pod)
        if key not in clean:
            clean[key] = _node_ports(fab, g, set())
        return key, clean[key]

    def make(ports, count):
        return _Unit(count, ports, frozenset(x[3] for x in ports if x[3] is not None))

    pieces = []
    if s.nodes_per_domain == 1:
        merged: dict = {}
        for g in range(group_count):
            n = s.group_nodes(g)
            broken = broken_by_group.get(g, ())
            if n - len(broken) > 0:
                key, ports = clean_ports(g)
                merged[key] = (ports, merged.get(key, (ports, 0))[1] + n - len(broken))
            for node in broken:
                pieces.append(([make(_node_ports(fab, g, dead.nics[node]), 1)], 1, None))
        for ports, count in merged.values():
            pieces.append(([make(ports, count)], -count, None))  # negative: that many separate nodes
        return pieces
    d = s.nodes_per_domain
    units_of: dict = {}
    split = {dom for dom, chips in dead.chips.items() if len(chips) >= s.nvl_chips}
    spans = []
    for first in range(0, s.nodes, d):
        last = min(s.nodes, first + d)
        if first // d in split:
            spans.extend((n, n + 1, first // d) for n in range(first, last))
        else:
            spans.append((first, last, first // d))
    for first, last, domain in spans:
        units = []
        node = first
        while node < last:
            g = node // npg if s.tiers > 1 else 0
            end = min(last, (g + 1) * npg) if s.tiers > 1 else last
            broken = [x for x in broken_by_group.get(g, ()) if node <= x < end]
            if end - node - len(broken) > 0:
                key, ports = clean_ports(g)
                if key not in units_of:
                    units_of[key] = make(ports, 0)
                units.append(_Unit(end - node - len(broken), ports, units_of[key].labels))
            for x in broken:
                units.append(make(_node_ports(fab, g, dead.nics[x]), 1))
            node = end
        pieces.append((units, last - first, domain))
    return pieces


# --------------------------------------------------------------------------------------
# The analysis
# --------------------------------------------------------------------------------------
@dataclass
class Analysis:
    """Raw numbers of one failed state (``what_if`` wraps them with the perf models)."""

    nodes_disconnected: int
    gpus_degraded: int
    gpus_via_pxn: int
    worst_port_fraction: float
    stages_gbits: dict  # stage -> (healthy side, remaining side) [Gb/s]
    bisection_gbits: float
    healthy_bisection_gbits: float
    ecmp: list
    worst_leaf_up_fraction: float
    worst_spine_up_fraction: float
    nvlink_fraction: float = 1.0
    """NVLink bandwidth per GPU left in the worst connected NVLink domain (1: no switch chip lost)."""
    gpus_nvlink_degraded: int = 0
    """GPUs of connected NVLink domains that lost switch chips."""
    nodes_without_nvswitch: int = 0
    """HGX nodes that lost an NVSwitch chip (their GPUs are counted cut off)."""
    redundant: tuple = ()
    """Failed elements whose loss lost nothing (a rack feed whose partner lives)."""


def _gpu_nics(shape: Shape) -> list[tuple[int, ...]]:
    gpn, nics = shape.gpus_per_node, shape.nics
    if nics >= gpn:
        return [tuple(range(g * nics // gpn, (g + 1) * nics // gpn)) for g in range(gpn)]
    return [(g * nics // gpn,) for g in range(gpn)]


def analyse(plan: Plan, elements) -> Analysis:
    shape = Shape.of(plan)
    dead = _dead_of(elements, shape)
    fab = _Fabric(shape, dead)
    pieces = _units(fab)

    # components: labels joined by pieces; pieces with no live port stand alone
    union = _Union()
    for units, _n, _d in pieces:
        labels = [lab for u in units for lab in u.labels]
        for lab in labels[1:]:
            union.union(labels[0], lab)
    size: dict = {}
    for units, n, _d in pieces:
        labels = [lab for u in units for lab in u.labels]
        if labels:  # a piece with no live port reaches no switch: cut off, never the main component
            root = union.find(labels[0])
            size[root] = size.get(root, 0) + abs(n)
    main = max(size, key=size.get) if size else None
    main_nodes = size.get(main, 0) if main is not None else 0
    nodes_disconnected = shape.nodes - main_nodes

    gpu_nics = _gpu_nics(shape)
    degraded = pxn = 0
    worst_fraction = 1.0
    total_ports = shape.nics * shape.planes
    nvlink_fraction = 1.0
    nvl_degraded: dict = {}
    for units, _n, domain in pieces:
        labels = [lab for u in units for lab in u.labels]
        if main is None or not labels or union.find(labels[0]) != main:
            continue  # the piece (node, or NVLink domain of nodes) is cut off
        if domain is not None and domain in dead.chips:
            lost_links = sum(shape.chip_links(c) for c in dead.chips[domain])
            nvlink_fraction = min(nvlink_fraction, max(0.0, 1 - lost_links / max(1, shape.nvl_links)))
            nvl_degraded[domain] = nvl_degraded.get(domain, 0) + sum(u.count for u in units) * shape.gpus_per_node
        for u in units:
            lost = {}
            for _p, _i, nic, lab in u.ports:
                ok = lab is not None and union.find(lab) == main
                lost.setdefault(nic, [0, 0])
                lost[nic][0] += 0 if ok else 1
                lost[nic][1] += 1
            bad = sum(lost[n][0] for n in lost)
            worst_fraction = min(worst_fraction, 1 - bad / max(1, total_ports))
            for nics in gpu_nics:
                if any(lost[n][0] for n in nics):
                    degraded += u.count
                    if all(lost[n][0] == lost[n][1] for n in nics):
                        pxn += u.count

    stages, bisection, healthy = _bisection(plan, shape, fab)
    ecmp, leaf_frac, spine_frac = _ecmp(shape, fab)
    redundant = tuple((t, k) for t, k, _c in elements if t == "feed" and k[0] not in dead.racks_down)
    return Analysis(nodes_disconnected, degraded, pxn, worst_fraction, stages, bisection, healthy, ecmp,
                    leaf_frac, spine_frac, nvlink_fraction, sum(nvl_degraded.values()),
                    len(dead.nodes_without_nvswitch), redundant)


def _bisection(plan: Plan, shape: Shape, fab: _Fabric):
    """Per stage and plane: the healthy half and the damaged half [Gb/s, one direction] (module docstring)."""
    caps = tier_capacities_gbits(plan.resolved, plan.fabric)
    npi = shape.planes * shape.islands
    relevant = ["injection"]
    if shape.tiers >= 2 and shape.groups > 1:
        relevant.append("leaf_up")
        if shape.tiers == 3 and shape.pods > 1:
            relevant.append("spine_up")
    dead = fab.dead
    unit = "pod" if "spine_up" in relevant else ("group" if "leaf_up" in relevant else "node")
    half_units = {"pod": shape.pods, "group": shape.groups, "node": shape.nodes}[unit] // 2
    s = shape

    def unit_of_node(n):
        g = n // s.nodes_per_group if s.tiers > 1 else 0
        return ("pod", s.pod_of_group(g)) if unit == "pod" else (("group", g) if unit == "group" else ("node", n))

    def unit_of_leaf(k):
        g = s.group_of_leaf(k)
        return ("pod", s.pod_of_group(g)) if unit == "pod" else ("group", g)

    # damage per (pi, stage, unit) beyond what both halves share
    damage: dict = {}

    def hurt(pi, stage, u, gbits):
        if gbits > 0:
            damage.setdefault((pi, stage), {}).setdefault(u, 0.0)
            damage[(pi, stage)][u] += gbits

    shared: dict = {}  # (pi, stage) -> factor both halves keep
    two_tier_shared = shape.tiers == 2 or (shape.tiers == 3 and shape.pods == 1)
    full_down = (s.nodes_per_group * (s.rails if s.tor else 1)) * s.port_gbps if s.tiers > 1 else 0

    def leaf_usable(down_gbps, up_links):
        return min(down_gbps, up_links * s.up_gbps)

    for pi in s.pis():
        p, i = pi
        if p in dead.planes:
            for stage in relevant:
                shared[(pi, stage)] = 0.0
            continue
        if "leaf_up" in relevant and two_tier_shared:
            pod_key = (p, i, 0) if shape.tiers == 3 else None
            dead_sp = fab.dead_spines_per_pod.get(pod_key, 0) if pod_key else fab.dead_spines_per_pi.get(pi, 0)
            per = s.spines_per_pod if shape.tiers == 3 else s.spines
            live = (per - dead_sp) * s.pair_links
            base = leaf_usable(full_down, s.leaf_uplinks)
            shared[(pi, "leaf_up")] = leaf_usable(full_down, live) / base if base else 1.0
        if "spine_up" in relevant:
            factors = []
            for j in range(s.spines_per_pod):
                alive = s.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
                up = s.spine_uplinks[0]
                down = s.groups_per_pod * s.leaves_per_group * s.pair_links
                factors.append(min(down, up * alive / s.cores_per_group) / min(down, up) if min(down, up) else 1.0)
            shared[(pi, "spine_up")] = sum(factors) / len(factors)

    # injection: every lost port of a node (NIC dead, its leaf or plane dead)
    lost_nodes: dict = {}
    for p, i, k in dead.leaves:
        if p in dead.planes:
            continue
        g = s.group_of_leaf(k)
        first = g * s.nodes_per_group if s.tiers > 1 else 0
        per_node = s.rails if (s.tor or s.tiers == 1) else 1
        for n in range(first, first + s.group_nodes(g)):
            lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
            lost_nodes[n][(p, i)] += per_node
    for n, nics in dead.nics.items():
        for nic in nics:
            i = nic % s.islands
            lr = nic // s.islands
            g = n // s.nodes_per_group if s.tiers > 1 else 0
            for p in range(s.planes):
                if p in dead.planes or (p, i, s.leaf_of(g, lr)) in dead.leaves:
                    continue
                lost_nodes.setdefault(n, {}).setdefault((p, i), 0)
                lost_nodes[n][(p, i)] += 1
    for n, per_pi in lost_nodes.items():
        for pi, ports in per_pi.items():
            hurt(pi, "injection", unit_of_node(n), ports * s.port_gbps)

    # leaf uplinks: a dead leaf, a leaf with fewer live down ports, or (with pods) fewer live spines
    if "leaf_up" in relevant:
        touched = {(p, i, k) for p, i, k in dead.leaves}
        for n, nics in dead.nics.items():
            g = n // s.nodes_per_group
            for nic in nics:
                for p in range(s.planes):
                    touched.add((p, nic % s.islands, s.leaf_of(g, nic // s.islands)))
        touched |= set(fab.leaf_lost)
        if not two_tier_shared:
            for (p, i, pod), _c in fab.dead_spines_per_pod.items():
                for g in range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod)):
                    for lr in range(s.leaves_per_group):
                        touched.add((p, i, s.leaf_of(g, lr)))
        for p, i, k in touched:
            pi = (p, i)
            if p in dead.planes:
                continue
            down = s.leaf_down_ports(k) * s.port_gbps
            factor = shared.get((pi, "leaf_up"), 1.0)
            base = leaf_usable(down, s.leaf_uplinks) * factor
            if not fab.leaf_alive(p, i, k):
                now = 0.0
            else:
                g = s.group_of_leaf(k)
                first = g * s.nodes_per_group
                lost = 0
                for n in range(first, first + s.group_nodes(g)):
                    for nic in dead.nics.get(n, ()):
                        if nic % s.islands == i and s.leaf_of(g, nic // s.islands) == k:
                            lost += 1
                live_down = down - lost * s.port_gbps
                now = leaf_usable(live_down, fab.live_uplinks(p, i, k))
            hurt(pi, "leaf_up", unit_of_leaf(k), max(0.0, base - now))

    # spine uplinks (three tiers, several pods): a dead spine, or a spine whose leaves lost down capacity
    if "spine_up" in relevant:
        touched_spines = set(dead.spines) | set(fab.spine_up_lost) | set(fab.spine_down_lost)
        for p, i, k in dead.leaves:
            pod = s.pod_of_group(s.group_of_leaf(k))
            for j in range(s.spines_per_pod):
                touched_spines.add((p, i, pod * s.spines_per_pod + j))
        for p, i, k in touched_spines:
            if p in dead.planes:
                continue
            pi = (p, i)
            pod, j = divmod(k, s.spines_per_pod)
            pod_groups = min(s.groups_per_pod, s.groups - pod * s.groups_per_pod)
            down_links = pod_groups * s.leaves_per_group * s.pair_links
            alive = s.cores_per_group - fab.dead_cores_per_group.get((p, i, j), 0)
            up = s.spine_uplinks[pod] * alive / s.cores_per_group
            base = min(down_links, up) * s.up_gbps
            if (p, i, k) in dead.spines:
                now = 0.0
            else:
                dead_leaves = sum(1 for g in range(pod * s.groups_per_pod, pod * s.groups_per_pod + pod_groups)
                                  for lr in range(s.leaves_per_group) if (p, i, s.leaf_of(g, lr)) in dead.leaves)
                lost_down = sum(n for leaf, n in fab.spine_down_lost.get((p, i, k), ()) if fab.leaf_alive(p, i, leaf))
                lost_up = sum(n for c, n in fab.spine_up_lost.get((p, i, k), ()) if (p, i, c) not in dead.cores)
                now = min(down_links - dead_leaves * s.pair_links - lost_down, up - lost_up) * s.up_gbps
            hurt(pi, "spine_up", ("pod", pod), max(0.0, base - now))

    stages = {}
    total = 0.0
    healthy_total = 0.0
    per_stage_remaining = {st: 0.0 for st in relevant}
    for pi in s.pis():
        values = []
        for stage in relevant:
            half = caps[stage] / npi / 2
            kept = half * shared.get((pi, stage), 1.0)
            hurts = damage.get((pi, stage), {})
            # the worst cut: the most damaged units (up to half of them) on one side
            worst = sorted(hurts.values(), reverse=True)[:max(1, half_units)]
            side = max(0.0, kept - sum(worst))
            per_stage_remaining[stage] += side
            values.append(side)
        total += min(values)
        healthy_total += min(caps[stage] / npi / 2 for stage in relevant)
    for stage in relevant:
        stages[stage] = (caps[stage] / 2, per_stage_remaining[stage])
    return stages, total, healthy_total


def _ecmp(shape: Shape, fab: _Fabric):
    """Upward ECMP groups that lost some next hops; the worst live leaf's and spine's uplink share left."""
    s, dead = shape, fab.dead
    rows: dict = {}
    leaf_frac = spine_frac = 1.0
    if s.tiers >= 2:
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        if s.tiers == 2:
            for (p, i), n_dead in fab.dead_spines_per_pi.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = s.leaves - sum(1 for q, j, _k in dead.leaves if (q, j) == (p, i))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
        else:
            for (p, i, pod), n_dead in fab.dead_spines_per_pod.items():
                if p in dead.planes or n_dead >= per:
                    continue
                live = sum(1 for g in range(pod * s.groups_per_pod, min(s.groups, (pod + 1) * s.groups_per_pod))
                           for lr in range(s.leaves_per_group) if fab.leaf_alive(p, i, s.leaf_of(g, lr)))
                key = ("leaf", per, per - n_dead)
                rows[key] = rows.get(key, 0) + live
                leaf_frac = min(leaf_frac, (per - n_dead) / per)
    if s.tiers == 3:
        for (p, i, j), n_dead in fab.dead_cores_per_group.items():
            if p in dead.planes or n_dead >= s.cores_per_group:
                continue
            live = sum(1 for pod in range(s.pods) if fab.spine_alive(p, i, pod * s.spines_per_pod + j))
            key = ("spine", s.cores_per_group, s.cores_per_group - n_dead)
            rows[key] = rows.get(key, 0) + live
            spine_frac = min(spine_frac, (s.cores_per_group - n_dead) / s.cores_per_group)
    out = [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r, "unit": "switches"}
           for (t, h, r), n in sorted(rows.items()) if n]
    # lost cables of uplink bundles: the switch hashes over fewer links
    links: dict = {}
    if s.tiers >= 2:
        per = s.spines_per_pod if s.tiers == 3 else s.spines
        for p, i, k in fab.leaf_lost:
            if not fab.leaf_alive(p, i, k):
                continue
            healthy, live = per * s.pair_links, fab.live_uplinks(p, i, k)
            if 0 < live < healthy:
                links[("leaf", healthy, live)] = links.get(("leaf", healthy, live), 0) + 1
                leaf_frac = min(leaf_frac, live / healthy)
    if s.tiers == 3:
        for p, i, k in fab.spine_up_lost:
            if not fab.spine_alive(p, i, k):
                continue
            healthy = s.spine_core_pairs[s.pod_of_spine(k)] * s.cores_per_group
            live = fab.live_spine_uplinks(p, i, k)
            if 0 < live < healthy:
                links[("spine", healthy, live)] = links.get(("spine", healthy, live), 0) + 1
                spine_frac = min(spine_frac, live / healthy)
    out += [{"tier": t, "switches": n, "healthy_paths": h, "remaining_paths": r, "unit": "links"}
            for (t, h, r), n in sorted(links.items())]
    return out, leaf_frac, spine_frac


# --------------------------------------------------------------------------------------
# what_if
# --------------------------------------------------------------------------------------
def degraded_plan(plan: Plan, worst_port_fraction: float, leaf_up_fraction: float, spine_up_fraction: float,
                  nvlink_fraction: float = 1.0) -> Plan:
    """A copy of ``plan`` with the failed state's slowest NIC share, worst switch oversubscription and NVLink.

    The NIC rate per port is scaled by ``worst_port_fraction`` (the slowest connected node's surviving
    ports: a collective runs at its slowest rank's pace, and PXN puts a lost rail's share on another NIC);
    leaf and spine oversubscription are divided by the worst live switch's surviving uplink share; the
    NVLink bandwidth per GPU is scaled by ``nvlink_fraction`` (the worst connected NVLink domain's surviving
    links; at 0 the domain has no NVLink left and GPUs talk over PCIe and the NICs).
    ``plan`` itself is not changed.
    """
    update = {"port_speed_gbps": plan.resolved.port_speed_gbps * worst_port_fraction}
    if nvlink_fraction < 1:
        update["nvlink_gbytes_per_gpu_bidir"] = plan.resolved.nvlink_gbytes_per_gpu_bidir * nvlink_fraction
        if nvlink_fraction <= 0:
            update["nvlink_domain_gpus"] = 1
    resolved = plan.resolved.model_copy(update=update)
    bw = plan.bandwidth
    bandwidth = bw.model_copy(update={
        "leaf_oversubscription": bw.leaf_oversubscription / max(leaf_up_fraction, 1e-9),
        "spine_oversubscription": bw.spine_oversubscription / max(spine_up_fraction, 1e-9)})
    return plan.model_copy(update={"resolved": resolved, "bandwidth": bandwidth})


def _busbw(plan: Plan, gpus: int, op: str = "all-reduce") -> float | None:
    from core.perf.collectives import collective

    if gpus < 2:
        return None
    return float(collective(plan, op, BUSBW_BYTES, gpus=gpus)["busbw_gbytes"])


def _step(plan: Plan, job, gpus_available: int):
    """(the job's ``TrainingEstimate`` on ``plan`` or None, why not or None)."""
    from core.perf.training import estimate

    gpus = job.gpus or plan.resolved.gpus
    if gpus > gpus_available:
        return None, _("the job's {gpus} GPUs no longer fit: {left} GPUs are still connected").format(
            gpus=f"{gpus:,}", left=f"{gpus_available:,}")
    try:
        return estimate(plan, job), None
    except DesignError as exc:
        return None, str(exc)


def what_if(plan: Plan, failures, job=None) -> FailureResult:
    """Fail ``failures`` (specs: ``tier:count``, ``tier:name`` or a name; module docstring) on ``plan``.

    ``job`` (a ``core.perf.training.TrainingJob``) adds the training step time, healthy and failed.
    Raises ``InputError`` for an unknown element or tier, or more failures than the tier has.
    """
    failures = list(failures)
    if not failures:
        raise InputError(_("name at least one element to fail, like spine:1 or {example}").format(
            example=Shape.of(plan).prefix(0, 0) + "leaf0"))
    shape = Shape.of(plan)
    elements = resolve_failures(plan, failures)
    a = analyse(plan, elements)
    gpus = plan.resolved.gpus
    connected_gpus = gpus - a.nodes_disconnected * shape.gpus_per_node
    notes = []
    if a.gpus_via_pxn:
        notes.append(_("{gpus} GPUs lost every port of their NIC: NCCL's PXN sends their traffic over NVLink to a "
                       "NIC on another rail, which then carries two GPUs' share.").format(gpus=f"{a.gpus_via_pxn:,}"))
    notes.extend(_scaleup_notes(a, shape))
    degraded = degraded_plan(plan, a.worst_port_fraction, a.worst_leaf_up_fraction, a.worst_spine_up_fraction,
                             a.nvlink_fraction)
    domain = plan.resolved.nvlink_domain_gpus
    healthy_nvl = plan.resolved.nvlink_gbytes_per_gpu_bidir / 2 if domain > 1 else None
    healthy_domain = _busbw(plan, domain) if domain > 1 else None
    if a.nvlink_fraction < 1:
        nvl = healthy_nvl * a.nvlink_fraction
        domain_busbw = _busbw(degraded, domain)
    else:
        nvl, domain_busbw = healthy_nvl, healthy_domain
    healthy_busbw = _busbw(plan, gpus)
    busbw = _busbw(degraded, connected_gpus) if a.worst_port_fraction > 0 else None
    healthy_a2a = _busbw(plan, gpus, "all-to-all")
    a2a = _busbw(degraded, connected_gpus, "all-to-all") if a.worst_port_fraction > 0 else None
    method = ("core.perf all-reduce (and all-to-all) of 1 GiB on the connected GPUs; NIC rate scaled to the slowest connected "
              f"node's surviving ports ({a.worst_port_fraction:.3f}); leaf/spine oversubscription divided by the "
              f"worst live switch's surviving uplinks ({a.worst_leaf_up_fraction:.3f} / "
              f"{a.worst_spine_up_fraction:.3f})")
    healthy_run = failed_run = None
    if job is not None:
        healthy_run, _why = _step(plan, job, gpus)
        failed_run, why = _step(degraded, job, connected_gpus)
        if why:
            notes.append(why)
    redundant = set(a.redundant)
    return FailureResult(
        failed=tuple({"element": _element(t, k, shape), "tier": t, "chosen": c, "redundant": (t, k) in redundant}
                     for t, k, c in elements),
        gpus=gpus, nodes=shape.nodes,
        gpus_disconnected=a.nodes_disconnected * shape.gpus_per_node, nodes_disconnected=a.nodes_disconnected,
        gpus_degraded=a.gpus_degraded, gpus_via_pxn=a.gpus_via_pxn,
        bisection_tbits_one_direction=a.bisection_gbits / 1000,
        healthy_bisection_tbits_one_direction=a.healthy_bisection_gbits / 1000,
        stages_tbits={k: {"healthy": v[0] / 1000, "remaining": v[1] / 1000} for k, v in a.stages_gbits.items()},
        busbw_gbytes=busbw, healthy_busbw_gbytes=healthy_busbw, busbw_method=method,
        alltoall_busbw_gbytes=a2a, healthy_alltoall_busbw_gbytes=healthy_a2a,
        step_time_s=failed_run and failed_run.step_time_s, healthy_step_time_s=healthy_run and healthy_run.step_time_s,
        days_to_train=failed_run and failed_run.days_to_train,
        healthy_days_to_train=healthy_run and healthy_run.days_to_train, ecmp_unbalanced=tuple(a.ecmp),
        gpus_nvlink_degraded=a.gpus_nvlink_degraded, nvlink_gbytes_per_gpu_one_direction=nvl,
        healthy_nvlink_gbytes_per_gpu_one_direction=healthy_nvl, domain_busbw_gbytes=domain_busbw,
        healthy_domain_busbw_gbytes=healthy_domain, notes=tuple(notes),
    )


def _scaleup_notes(a: Analysis, shape: Shape) -> list[str]:
    """What the NVLink-switch and power-feed failures did, in words (module docstring for the rules)."""
    notes = []
    if a.nodes_without_nvswitch:
        notes.append(ngettext(
            "{nodes} node lost an NVSwitch chip: with Fabric Manager's default NVSWITCH_FAILURE_MODE=0 its "
            "baseboard stays uninitialised and CUDA cannot start, so its GPUs count as cut off (only HGX A100 "
            "has a degraded mode, at 5/6 of the NVLink bandwidth).",
            "{nodes} nodes lost an NVSwitch chip: with Fabric Manager's default NVSWITCH_FAILURE_MODE=0 their "
            "baseboards stay uninitialised and CUDA cannot start, so their GPUs count as cut off (only HGX A100 "
            "has a degraded mode, at 5/6 of the NVLink bandwidth).", a.nodes_without_nvswitch).format(
            nodes=f"{a.nodes_without_nvswitch:,}"))
    if a.gpus_nvlink_degraded:
        notes.append(_("{gpus} GPUs are in NVLink domains that lost switch chips: every GPU has one link to each "
                       "chip, so the worst domain keeps {share} of its NVLink bandwidth per GPU. Assumed: the NVLink "
                       "partition runs in NMX's Adaptive Bandwidth resiliency mode (in Full Bandwidth mode a lost "
                       "switch makes the partition unhealthy) and NCCL keeps NVLS on the remaining chips.").format(
            gpus=f"{a.gpus_nvlink_degraded:,}", share=f"{a.nvlink_fraction:.1%}"))
    for _tier, key in a.redundant:
        notes.append(_("{element}: redundant, no element lost (the rack's other power feed carries its N+N "
                       "supplies).").format(element=_element("feed", key, shape)))
    return notes


__all__ = ["FailureResult", "NVSWITCH_SOURCES", "Shape", "TIERS", "analyse", "degraded_plan", "parse_name",
           "rack_power_feeds", "resolve_failures", "tiers_for", "what_if"]
