"""The training model's hardware constants, read from ``assets/catalog/training.toml``.

The compute model's constants (``[compute]`` shape terms, ``[[precision]]`` recipes, ``[[kernels]]`` shares of peak
per architecture and precision, read by ``core.perf.compute``), the older achievable fraction by architecture
(``[[efficiency]]``: now only the serving model's dense / MoE ratio), the pipeline schedules' forward/backward split
and DualPipe's shape, and the memory model's tolerance. Every value in the
file carries its source; this module validates it (pydantic, ``extra="forbid"``) and answers
look-ups. The overlap fractions and bytes per parameter stay in ``collectives.toml`` ``[training]``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from core.catalog import CATALOG_DIR, read_toml
from core.errors import InputError
from core.i18n import _

TRAINING_FILE = CATALOG_DIR / "training.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ArchitectureEfficiency(_Strict):
    """Achievable fraction of dense peak for one GPU architecture."""

    architecture: str
    dense_bf16: float = Field(gt=0, le=1)
    dense_fp8: float = Field(gt=0, le=1)
    moe_bf16: float = Field(gt=0, le=1)
    moe_fp8: float = Field(gt=0, le=1)
    source: str
    as_of: str


class ArchitectureCompute(_Strict):
    """What one GPU architecture's kernels sustain: the share of the dense peak a large GEMM reaches at each
    precision (a precision missing here is one the architecture has no kernels for), and FlashAttention's share
    of the BF16 peak at a long chunk (counted in model FLOPs: causal attention is not halved)."""

    architecture: str
    gemm: dict[str, float]
    """Precision name (``[[precision]]``) -> fraction of that precision's dense peak a large GEMM sustains."""
    attention: float = Field(gt=0, le=2)
    source: str
    as_of: str


class PrecisionRecipe(_Strict):
    """One training precision: which dense peak its GEMMs run at and what its casts cost."""

    name: str
    peak: str = Field(pattern="^(bf16|fp8|fp4)$")
    """``System.peak_tflops`` key of the tensor cores its GEMMs use."""
    cast_bytes: float = Field(ge=0)
    """HBM bytes moved per element of a GEMM input or output gradient to quantize it (forward and backward)."""
    label: str
    source: str


class ComputeShape(_Strict):
    """How the GEMM and attention shapes and the memory-bound kernels set a micro-batch's time (``core.perf.compute``)."""

    gemm_width_half: float = Field(gt=0)
    expert_tokens_half: float = Field(gt=0)
    attention_chunk_half: float = Field(ge=0)
    elementwise_bytes: float = Field(ge=0)
    activation_bytes: float = Field(ge=0)
    moe_bytes: float = Field(ge=0)
    memory_fraction: float = Field(gt=0, le=1)
    source: str


class ScheduleConstants(_Strict):
    forward_share: float = Field(gt=0, lt=1)
    backward_input_share: float = Field(gt=0, lt=1)
    backward_weight_share: float = Field(gt=0, lt=1)
    share_source: str
    dualpipe_parameter_copies: int = Field(ge=1)
    dualpipe_extra_microbatches: int = Field(ge=0)
    dualpipe_ep_overlap: float = Field(ge=0, le=1)
    dualpipe_source: str
    dispatch_sm_share: float = Field(ge=0, lt=1)
    """Share of a GPU's streaming multiprocessors the expert dispatch kernels hold while they run: compute that
    overlaps them runs that much slower."""
    dispatch_sm_source: str


class MemoryConstants(_Strict):
    tolerance: float = Field(ge=0, lt=0.5)
    tolerance_source: str
    logits_bytes_per_vocab: float = Field(ge=0)
    logits_source: str
    lse_bytes_per_head: float = Field(ge=0)
    lse_source: str
    capacity_unit_bytes: float = Field(gt=0)
    """Bytes in one unit of the catalog's ``hbm_gbytes`` (2^30: HBM is sold in GiB); memory is counted in it."""
    capacity_unit_source: str
    sharded_gradient_bytes_per_param: float = Field(gt=0)
    """Gradient bytes per parameter when gradients are sharded (FSDP / ZeRO-2; fp32 as Llama 3)."""
    sharded_gradient_source: str


class OffloadHost(_Strict):
    """What a GPU of the listed systems has on the host side for CPU offload (ZeRO-Offload)."""

    systems: tuple[str, ...]
    """System ids (``systems.toml``); ``*`` = any system not listed elsewhere."""
    link_gbytes: float = Field(gt=0)
    """GPU-host link per GPU [GB/s, per direction], line rate."""
    memory_gbytes: float = Field(gt=0)
    """Host memory per GPU [GB]."""
    memory_gbytes_per_s: float = Field(gt=0)
    """Host memory bandwidth per GPU [GB/s], line rate."""
    source: str


class OffloadConstants(_Strict):
    """CPU offload of the optimizer (ZeRO-Offload, Ren et al., USENIX ATC 2021, arXiv 2101.06840)."""

    host_bytes_per_param: float = Field(gt=0)
    """Host memory per offloaded parameter [B]: fp32 master weight, Adam m and v, fp32 gradient."""
    adam_bytes_per_param: float = Field(gt=0)
    """Host memory traffic of one CPU Adam update per parameter [B]."""
    link_efficiency: float = Field(gt=0, le=1)
    memory_efficiency: float = Field(gt=0, le=1)
    source: str
    host: tuple[OffloadHost, ...]

    def host_of(self, system_id: str) -> OffloadHost:
        """The ``host`` entry listing ``system_id``, else the ``*`` entry."""
        for entry in self.host:
            if system_id in entry.systems:
                return entry
        return next(entry for entry in self.host if "*" in entry.systems)


class Meta(_Strict):
    as_of: str
    note: str


class TrainingCatalog(_Strict):
    meta: Meta
    efficiency: tuple[ArchitectureEfficiency, ...]
    compute: ComputeShape
    precision: tuple[PrecisionRecipe, ...]
    kernels: tuple[ArchitectureCompute, ...]
    schedule: ScheduleConstants
    memory: MemoryConstants
    offload: OffloadConstants

    def architecture_efficiency(self, architecture: str) -> ArchitectureEfficiency:
        """The entry for ``architecture`` (case-insensitive); unknown ones get the newest known entry."""
        for entry in self.efficiency:
            if entry.architecture.casefold() == architecture.casefold():
                return entry
        return self.efficiency[-1]

    def architecture_compute(self, architecture: str) -> ArchitectureCompute:
        """The kernel fractions of ``architecture`` (case-insensitive); unknown ones get the newest known entry."""
        for entry in self.kernels:
            if entry.architecture.casefold() == architecture.casefold():
                return entry
        return self.kernels[-1]

    def calibrated(self, architecture: str) -> bool:
        """Whether ``architecture`` has kernel fractions of its own (fitted to its published runs); False when
        ``architecture_compute`` borrows the newest known entry's (AMD, Intel and Huawei accelerators today)."""
        return any(entry.architecture.casefold() == architecture.casefold() for entry in self.kernels)

    def recipe(self, precision: str) -> PrecisionRecipe:
        """The ``[[precision]]`` entry named ``precision``; ``InputError`` listing the known ones otherwise."""
        for entry in self.precision:
            if entry.name == precision:
                return entry
        raise InputError(_("unknown precision {precision}; known: {known}").format(
            precision=precision, known=", ".join(p.name for p in self.precision)))

    def compute_efficiency(self, architecture: str, precision: str, moe: bool) -> float:
        """Default achievable fraction of dense peak for this architecture, precision and model kind."""
        entry = self.architecture_efficiency(architecture)
        return getattr(entry, f"{'moe' if moe else 'dense'}_{'fp8' if precision == 'fp8' else 'bf16'}")


def load_training_catalog_from(path: Path) -> TrainingCatalog:
    """Load and validate a training constants file; ``InputError`` names the problem."""
    data = read_toml(path, _("training constants file"))
    try:
        catalog = TrainingCatalog.model_validate(data)
    except ValueError as exc:
        raise InputError(_("{file} is invalid: {error}").format(file=path.name, error=exc)) from exc
    s = catalog.schedule
    if abs(s.forward_share + s.backward_input_share + s.backward_weight_share - 1) > 1e-3:
        raise InputError(_("{file}: the forward and backward shares must add up to 1").format(file=path.name))
    return catalog


@lru_cache(maxsize=1)
def load_training_catalog() -> TrainingCatalog:
    """The bundled training constants (cached, immutable)."""
    return load_training_catalog_from(TRAINING_FILE)


__all__ = ["ArchitectureCompute", "ArchitectureEfficiency", "ComputeShape", "PrecisionRecipe", "TrainingCatalog", "load_training_catalog", "load_training_catalog_from"]
