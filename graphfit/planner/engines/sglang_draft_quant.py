"""The draft model's quantization as its own ModelConfig settles it, then the draft model
loader's GPU and dtype checks on it.

SGLang's draft worker loads the draft through the same `_get_quantization_config` as the
target (model_loader/loader.py:214-270), on the draft's own ModelConfig: the GPU must reach the
built config class's minimum capability (:253-262) and the DRAFT's dtype must be one the class
takes (:263-270). graphfit checked both for the target only, so a line whose draft inherits a
flag the target's checkpoint upgraded, or whose draft dtype (its own config.json's) the class
does not take, was planned although its draft worker stops.

A quantized draft checkpoint (SglangOptions.draft_quant_config) first goes through the draft
ModelConfig's `_verify_quantization` (configs/model_config.py:2056-2160), which differs from the
target's in two places: an explicit `nvfp4_online` on a ModelOpt FP4 / mixed draft checkpoint
is kept and skips the override loop (:2085-2089, 2093-2096), and a flag that clashes with the
checkpoint is not refused but replaced by the checkpoint's own method (:2122-2137; the ROCm
exception for Qwen3.5 MTP drafts does not apply on CUDA). So `--quantization fp8` with an AWQ
draft loads the draft as awq (or awq_marlin where its override answers), and AWQ's GPU and
dtype bars then apply to the draft.

Why a module of its own: the method is the draft's (graphfit.inputs.sglang_draft_quant
restates the flag and reads the checkpoint, SglangOptions.draft_quantization /
draft_quant_config), the override answers depend on the GPU only the planner knows, and the
dtype is the draft's (`draft_dtype`, else the target's); the tables are the target check's
(sglang_quant_overrides, sglang_quant_capability, sglang_quant_dtype), whose messages name
`--quantization`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_quant_capability as capability
from graphfit.planner.engines import sglang_quant_dtype as loader_dtype
from graphfit.planner.engines import sglang_quant_overrides as overrides
from graphfit.planner.engines.sglang_quantization import COMPATIBLE, KNOWN_METHODS

# the ModelOpt checkpoints an explicit nvfp4_online draft flag is kept over
# (preserve_online_draft_quantization, model_config.py:2085-2089)
ONLINE_KEPT_OVER = ("modelopt_fp4", "modelopt_mixed")


def draft_method(flag: str | None, cfg: Mapping[str, Any], gpu: int | None) -> str:
    """The draft ModelConfig's quantization for the flag it was given (`flag`, lower case,
    None: none) on a checkpoint whose quantization config is `cfg`, on a GPU of compute
    capability `gpu` (module docstring). ConfigError where SGLang refuses (an override that
    crashes, a method SGLang does not know) or the answer hangs on an unknown GPU."""
    method = overrides.method_of(cfg, flag or "")  # :2076-2078
    quant = flag
    preserve = quant == "nvfp4_online" and method in ONLINE_KEPT_OVER
    if not preserve:  # the loop is skipped for requantization flags too (:2093)
        answer = overrides.override(cfg, quant, gpu)
        if answer:
            method = quant = answer
    if quant is None:
        quant = method  # :2106-2107
    elif quant != method and not preserve and method not in COMPATIBLE.get(quant, ()):
        quant = method  # the draft takes its checkpoint's method (:2122-2137)
    if quant not in KNOWN_METHODS:
        raise ConfigError(f"Unknown quantization method: {quant}, the draft checkpoint's "
                          f"(configs/model_config.py:2150-2155)")
    return quant


def _method(config: EngineSettings) -> str | None:
    """The method the draft's loader builds: the flag as restated for an unquantized draft,
    else `draft_method` on the draft checkpoint's config."""
    text = config.draft_quant_config
    if text is None:
        return config.draft_quantization
    cfg = overrides.quant_config(text) or {}
    if config.gpu_capability is not None:
        return draft_method(config.draft_quantization, cfg, config.gpu_capability)
    # an unknown GPU (a figure in GiB): the method where every GPU side of the overrides'
    # bars (SM75 for AWQ under moe_wna16, SM80 for Marlin) gives the same; else not checked
    answers = {draft_method(config.draft_quantization, cfg, assumed)
               for assumed in (70, overrides.AWQ_MIN_CAPABILITY,
                               overrides.MARLIN_MIN_CAPABILITY)}
    return answers.pop() if len(answers) == 1 else None


def settled_method(config: EngineSettings) -> str | None:
    """The method the draft's loader builds (`_method`), None where graphfit cannot tell it
    or SGLang refuses it first (`check` says so); issue 23 s68d: read by the Qwen3.5 MTP
    draft's DeepEPMoE rule (sglang_draft_deepep)."""
    try:
        return _method(config)
    except ConfigError:
        return None


def check(config: EngineSettings) -> None:
    """The draft's method, then both loader checks for it (module docstring); nothing
    without a draft method."""
    if not config.has_drafter:
        return
    try:
        method = _method(config)
        if method is None:
            return
        capability.check(method, config.gpu_capability, config.sm100)
        loader_dtype.check(method, config.draft_dtype or config.dtype)
    except ConfigError as exc:
        why = str(exc).removeprefix("--quantization: ").removeprefix("--quantization ")
        raise ConfigError(f"the draft's quantization (its own model loader): {why}"
                          ) from None


__all__ = ["ONLINE_KEPT_OVER", "check", "draft_method", "settled_method"]
