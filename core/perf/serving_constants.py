"""The serving model's constants, read from ``assets/catalog/serving.toml``.

Bytes per stored value by precision, achievable fractions of peak compute and HBM bandwidth by GPU
architecture, the memory reserve, the decode step's overhead and overlap, the prefill batch, the
expert-parallel all-to-all (DeepEP) and the KV-cache transfer. Every value in the file carries its
source; this module validates it (pydantic, ``extra="forbid"``) and answers look-ups.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, read_toml
from core.errors import InputError
from core.i18n import N_, _

SERVING_FILE = CATALOG_DIR / "serving.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PrecisionBytes(_Strict):
    """Bytes per weight and per KV-cache value [B] by precision."""

    weight_bytes_bf16: float = Field(gt=0)
    weight_bytes_fp8: float = Field(gt=0)
    weight_bytes_fp4: float = Field(gt=0)
    kv_bytes_bf16: float = Field(gt=0)
    kv_bytes_fp8: float = Field(gt=0)
    source: str

    def weight(self, precision: str) -> float:
        """Bytes per weight at ``precision`` [B]."""
        return getattr(self, f"weight_bytes_{precision}")

    def kv(self, precision: str) -> float:
        """Bytes per KV-cache value at ``precision`` (bf16 or fp8) [B]."""
        return getattr(self, f"kv_bytes_{precision}")


class ServingEfficiency(_Strict):
    """Achievable fractions for one GPU architecture: of dense peak in prefill and in a compute-bound decode
    step, and of HBM bandwidth in a memory-bound decode step."""

    architecture: str
    prefill: float = Field(gt=0, le=1)
    decode_compute: float = Field(gt=0, le=1)
    hbm: float = Field(gt=0, le=1)
    source: str
    as_of: str


class MemoryReserve(_Strict):
    reserve_fraction: float = Field(ge=0, lt=1)
    default_utilisation: float = Field(gt=0, lt=1)
    """Load of the busier pool when the workload gives neither a rate nor a concurrency."""
    source: str


class DecodeConstants(_Strict):
    step_overhead_us: float = Field(ge=0)
    overlap: float = Field(ge=0, le=1)
    source: str


class PrefillConstants(_Strict):
    tokens_per_batch: int = Field(ge=1)
    overlap: float = Field(ge=0, le=1)
    source: str


class ExpertParallelConstants(_Strict):
    """DeepEP-style dispatch/combine: fixed cost [us] and the RDMA share of the NIC line rate."""

    low_latency_dispatch_base_us: float = Field(ge=0)
    low_latency_combine_base_us: float = Field(ge=0)
    normal_base_us: float = Field(ge=0)
    rdma_efficiency: float = Field(gt=0, le=1)
    dispatch_bytes_per_value: float = Field(gt=0)
    combine_bytes_per_value: float = Field(gt=0)
    source: str


class KvTransferConstants(_Strict):
    base_latency_us: float = Field(ge=0)
    efficiency: float = Field(gt=0, le=1)
    frontend_gbps_per_node: float = Field(gt=0)
    """Front-end network per node when no storage network is planned [Gb/s, per direction]."""
    source: str


class Meta(_Strict):
    as_of: str
    note: str


class ServingConstants(_Strict):
    meta: Meta
    precision: PrecisionBytes
    efficiency: tuple[ServingEfficiency, ...]
    memory: MemoryReserve
    decode: DecodeConstants
    prefill: PrefillConstants
    expert_parallel: ExpertParallelConstants
    kv_transfer: KvTransferConstants

    def efficiency_of(self, architecture: str) -> ServingEfficiency:
        """The fractions for ``architecture``; ``InputError`` when the file has none."""
        for e in self.efficiency:
            if e.architecture == architecture:
                return e
        raise InputError(_("no serving efficiency for GPU architecture {arch} in {path}").format(
            arch=architecture, path=SERVING_FILE.name))


@lru_cache(maxsize=1)
def load_serving_constants() -> ServingConstants:
    """The validated contents of ``assets/catalog/serving.toml`` (read once)."""
    return ServingConstants.model_validate(read_toml(SERVING_FILE, N_("serving constants")))
