"""Serving-simulator exports of a deployment, by name: the inputs a serving simulator takes.

The design exports (``core.formats.exports``) take a plan; these take a plan and a serving
``Deployment`` (``core.perf.serving``) and fill the simulator's inputs from the planner's estimate
of that deployment, so the simulator emulates the prediction:

* ``inference-sim``: llm-d inference-sim configuration YAML (``core.formats.inference_sim``);
* ``vidur``: Vidur's command line (``core.formats.vidur``).

``serving_exports()`` maps a name to a ``ServingExport`` (its renderer, file suffix, MIME type and
label); ``serving_export_text(plan, dep, name)`` is the whole file. ``python -m core serve ...
--export NAME`` and the Inference page's download read them, so a new format is one module in
``core/formats/`` defining ``SERVING_EXPORTS`` and its name in ``SERVING_FORMAT_MODULES``. A format
that cannot express a deployment raises ``InputError`` saying what it lacks and the way out.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from core.formats.filenames import export_file_name
from core.perf.serving import Deployment, ServingEstimate, estimate
from core.perf.training import PRESETS, ModelSpec
from core.plan import Plan


@dataclass(frozen=True)
class ServingExport:
    """One serving-simulator export format."""

    name: str
    """Format name on the command line (``--export NAME``)."""
    render: Callable[[Plan, ServingEstimate], str]
    """``render(plan, est) -> str``: the whole file for the estimate's deployment (``est.deployment``)."""
    suffix: str
    """File name suffix, with the dot (``.yaml``)."""
    mime: str
    label: str
    """What it is, in English, marked for translation with ``N_`` (translate where shown)."""


SERVING_FORMAT_MODULES: tuple[str, ...] = ("inference_sim", "vidur")
"""Modules of ``core.formats`` that define ``SERVING_EXPORTS`` (a tuple of ``ServingExport``), in menu order."""

HF_MODEL_IDS: dict[str, str] = {
    "llama3-8b": "meta-llama/Meta-Llama-3-8B",
    "llama3-70b": "meta-llama/Meta-Llama-3-70B",
    "llama3-405b": "meta-llama/Llama-3.1-405B",
    "deepseek-v3": "deepseek-ai/DeepSeek-V3",
    "deepseek-r1": "deepseek-ai/DeepSeek-R1",
    "llama3.3-70b": "meta-llama/Llama-3.3-70B-Instruct",
    "qwen3-235b-a22b": "Qwen/Qwen3-235B-A22B",
    "qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B",
    "gpt-oss-120b": "openai/gpt-oss-120b",
    "gpt-oss-20b": "openai/gpt-oss-20b",
    "qwen3-8b": "Qwen/Qwen3-8B",
    "qwen3-32b": "Qwen/Qwen3-32B",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-v0.1",
    "mixtral-8x22b": "mistralai/Mixtral-8x22B-v0.1",
    "nemotron4-340b": "nvidia/Nemotron-4-340B-Base",
}
"""Model preset (``core.perf.training.PRESETS`` key) -> its Hugging Face model id, the name serving simulators
take (the repositories the presets' ``source`` cites; Nemotron-4 340B's weights are published as a NeMo checkpoint).
GPT-3 175B has none (its weights were never published)."""


def hf_model_id(model: ModelSpec) -> str | None:
    """The Hugging Face id of ``model`` when it is a preset unchanged (``HF_MODEL_IDS``), else ``None``."""
    for key, preset in PRESETS.items():
        if preset == model and key in HF_MODEL_IDS:
            return HF_MODEL_IDS[key]
    return None


def serving_exports() -> dict[str, ServingExport]:
    """Every serving export format, by name, in menu order."""
    found: dict[str, ServingExport] = {}
    for module in SERVING_FORMAT_MODULES:
        for export in importlib.import_module(f"core.formats.{module}").SERVING_EXPORTS:
            found[export.name] = export
    return found


def serving_export_text(plan: Plan, dep: Deployment, name: str, est: ServingEstimate | None = None) -> str:
    """The whole export ``name`` of deployment ``dep`` on ``plan`` as one string.

    Parameters
    ----------
    plan : Plan
    dep : Deployment
    name : str
        A key of ``serving_exports()``.
    est : ServingEstimate, optional
        ``estimate(plan, dep)`` when the caller has it already (computed here otherwise).

    Raises
    ------
    InputError
        The format cannot express the deployment (the message says what it lacks and the way out).
    DesignError
        The deployment does not fit the plan (``core.perf.serving.estimate``).
    """
    return serving_exports()[name].render(plan, est if est is not None else estimate(plan, dep))


def serving_export_file_name(plan: Plan, name: str) -> str:
    """The download name of serving export ``name``: ``fabric-h100-256-ib-inference-sim.yaml``."""
    return export_file_name(plan, name, serving_exports()[name].suffix)
