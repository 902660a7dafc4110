"""Golden tests: the engine reproduces published reference designs.

Sources (read through stored copies; see assets/catalog for URLs):

* NVIDIA DGX SuperPOD with DGX H100, RA-11333-001 V11 (2023-09-22):
  Table 4 "Compute fabric component count" (network-fabrics page) and Table 3
  "Larger SuperPOD component counts" (dgx-superpod-architecture page),
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/latest/
* NVIDIA DGX SuperPOD with DGX B200, RA-11334-001 V08 (2025-04-24): the same two tables,
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/
* NVIDIA DGX SuperPOD with DGX B300 and Quantum-X800 (XDR), RA-11339-001 V01 (2025-07-23): Table 3
  "Example Compute Fabric Components", https://docs.nvidia.com/dgx-superpod/reference-architecture/
  scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
* NVIDIA DGX SuperPOD with DGX B300 and Spectrum-X (twin planes), RA-11337-001 V01 (2025-05-29): Table 3,
  https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300/latest/
* Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network Architecture",
  SIGCOMM 2008, section 3: k-ary fat tree, k^3/4 hosts, k pods of k/2 + k/2 switches, (k/2)^2 cores.
"""

import pytest

from core.design import Design
from core.plan import plan
from core.presets import find_preset

pytestmark = pytest.mark.golden


def superpod(preset: str, **changes) -> Design:
    """The published design ``preset`` (assets/catalog/presets.toml, which also pins its own SU's numbers) with
    ``changes``: the other rows of the same table are the same design at another size."""
    return Design(**{**find_preset(preset).fields, **changes})


# H100/B200 Table 4: one DGX removed for UFM (nodes = 32*SU - 1). Node-leaf cables in the RA include
# 4 UFM links (252 = 248 + 4); the engine models compute nodes only, so 4 fewer here.
SUPERPOD_NDR_TABLE4 = [
    # SUs, nodes, GPUs, leaf, spine, compute+UFM cables, spine-leaf cables
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


@pytest.mark.parametrize("gpu", ["H100", "B200"])
@pytest.mark.parametrize("sus,nodes,gpus,leaf,spine,compute_ufm_cables,leaf_spine_cables", SUPERPOD_NDR_TABLE4)
def test_superpod_ndr_table4(gpu, sus, nodes, gpus, leaf, spine, compute_ufm_cables, leaf_spine_cables):
    result = plan(superpod("superpod-h100-1su", gpu=gpu, nodes=nodes))
    s = result.summary()
    assert s["gpus"] == gpus
    assert s["tiers"] == 2
    assert s["scalable_units"] == sus
    assert s["switches"]["leaf"] == leaf
    assert s["switches"]["spine"] == spine
    assert s["switches"]["core"] == 0
    assert s["links"]["node_leaf"] == compute_ufm_cables - 4  # the RA's 4 UFM cables are not compute links
    assert s["links"]["leaf_spine"] == leaf_spine_cables


def test_superpod_h100_4su_appendix_transceivers():
    """H100 RA Appendix A, Table 8 (4 SU, 127 nodes): 1,536 switch OSFP transceivers (48 switches x 32
    cages, every cage populated) and 508 system OSFP transceivers (127 DGX x 4 twin-port cages)."""
    result = plan(superpod("superpod-h100-4su", cable_media="optics"))
    t = result.transceiver_counts()
    assert result.summary()["switches"]["total"] == 48
    assert t["switch_side"] == 1536
    assert t["node_side"] == 508


# "Larger SuperPOD component counts" (B200 RA; the H100 RA prints the same numbers with two misprints:
# its last row says 56 SU where 2,048 nodes / 32 per SU = 64 SU (the PDF and the B200 RA print 64), and it
# prints 1,024 / 2,048 spine-core cables for the 4 and 8 SU rows whose core column is "-": two-tier
# fabrics have no spine-core cables, as the B200 RA prints. We test the correct values.)
SUPERPOD_NDR_LARGER = [
    # SUs, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]


@pytest.mark.parametrize("gpu", ["H100", "B200"])
@pytest.mark.parametrize("sus,nodes,gpus,leaf,spine,core,node_leaf,leaf_spine,spine_core", SUPERPOD_NDR_LARGER)
def test_superpod_ndr_larger(gpu, sus, nodes, gpus, leaf, spine, core, node_leaf, leaf_spine, spine_core):
    s = plan(superpod("superpod-h100-1su", gpu=gpu, nodes=nodes)).summary()
    assert (s["gpus"], s["scalable_units"]) == (gpus, sus)
    assert s["tiers"] == (3 if core else 2)
    assert (s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["core"]) == (leaf, spine, core)
    assert (s["links"]["node_leaf"], s["links"]["leaf_spine"], s["links"]["spine_core"]) == (
        node_leaf, leaf_spine, spine_core)


# B300 + Quantum-X800 (Q3400, 144 x 800G): SU = 72 DGX B300. The 18 SU row prints 9,216 GPUs, but
# 1,296 nodes x 8 GPUs = 10,368, which is also what the row's own cable columns print: we test 10,368.
SUPERPOD_B300_XDR = [
    (1, 72, 576, 8, 4, 576, 576),
    (2, 144, 1152, 16, 8, 1152, 1152),
    (4, 288, 2304, 32, 18, 2304, 2304),
    (8, 576, 4608, 64, 36, 4608, 4608),
    (18, 1296, 10368, 144, 72, 10368, 10368),
]


@pytest.mark.parametrize("sus,nodes,gpus,leaf,spine,node_leaf,leaf_spine", SUPERPOD_B300_XDR)
def test_superpod_b300_xdr(sus, nodes, gpus, leaf, spine, node_leaf, leaf_spine):
    s = plan(superpod("superpod-b300-xdr-1su", nodes=nodes)).summary()
    assert (s["gpus"], s["scalable_units"], s["tiers"]) == (gpus, sus, 2)
    assert (s["switches"]["leaf"], s["switches"]["spine"], s["switches"]["core"]) == (leaf, spine, 0)
    assert (s["links"]["node_leaf"], s["links"]["leaf_spine"]) == (node_leaf, leaf_spine)


# B300 + Spectrum-X twin planes: each GPU has 2 x 400GbE, one per plane; SN5600-class switches run as
# 128 x 400G. The table's switch counts are totals over both planes (8 leaves + 4 spines per plane per SU);
# its cable columns equal the 400G links of one plane (= GPU count), so per plane is what we compare.
SUPERPOD_B300_SPECTRUM_X = [
    (1, 64, 512, 16, 8, 512, 512),
    (2, 128, 1024, 32, 16, 1024, 1024),
    (4, 256, 2048, 64, 32, 2048, 2048),
    (8, 512, 4096, 128, 64, 4096, 4096),
    (16, 1024, 8192, 256, 128, 8192, 8192),
]


@pytest.mark.parametrize("sus,nodes,gpus,leaf,spine,node_leaf,leaf_spine", SUPERPOD_B300_SPECTRUM_X)
def test_superpod_b300_spectrum_x(sus, nodes, gpus, leaf, spine, node_leaf, leaf_spine):
    s = plan(superpod("superpod-b300-spectrum-x-1su", nodes=nodes)).summary()
    assert (s["gpus"], s["scalable_units"], s["tiers"]) == (gpus, sus, 2)
    assert (s["switches"]["leaf"], s["switches"]["spine"]) == (leaf, spine)
    assert s["links"]["node_leaf"] // 2 == node_leaf
    assert s["links"]["leaf_spine"] // 2 == leaf_spine
    assert s["bandwidth"]["scaleout_gbits_per_gpu"] == 800  # 2 planes x 400G


@pytest.mark.parametrize("switch,speed,radix", [("QM9700", 400, 64), ("SN5600", 400, 128), ("QM8700", 200, 40)])
def test_fat_tree_formulas(switch, speed, radix):
    """k-ary fat tree (Al-Fares 2008): k^2/2 hosts with 3k/2 switches in two tiers; k^3/4 hosts with
    5k^2/4 switches, (k/2)^2 of them core, in three. One NIC per node, top-of-rack leaves of k/2 hosts."""
    fabric = "infiniband" if switch.startswith("QM") else "ethernet"
    base = {**find_preset("tor-fat-tree").fields, "fabric": fabric, "switch": switch, "port_speed_gbps": speed,
            "nodes_per_rack": radix // 2}
    base.pop("nodes")
    two = plan(Design(nodes=radix**2 // 2, **base)).summary()
    assert two["tiers"] == 2 and two["switches"]["total"] == 3 * radix // 2
    assert plan(Design(nodes=radix**2 // 2 + 1, **base)).summary()["tiers"] == 3
    three = plan(Design(nodes=radix**3 // 4, **base)).summary()
    assert three["tiers"] == 3
    assert three["switches"]["total"] == 5 * radix**2 // 4
    assert three["switches"]["core"] == (radix // 2) ** 2
