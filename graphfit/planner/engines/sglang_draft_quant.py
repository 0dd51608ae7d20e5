"""The draft model loader's GPU and dtype checks on the draft's quantization.

SGLang's draft worker loads the draft through the same `_get_quantization_config` as the
target (model_loader/loader.py:214-270), on the draft's own ModelConfig: the GPU must reach the
built config class's minimum capability (:253-262) and the DRAFT's dtype must be one the class
takes (:263-270). graphfit checked both for the target only, so a line whose draft inherits a
flag the target's checkpoint upgraded, or whose draft dtype (its own config.json's) the class
does not take, was planned although its draft worker stops.

Why a module of its own: the method is the draft's (graphfit.inputs.sglang_draft_quant
restates it, SglangOptions.draft_quantization) and the dtype the draft's (`draft_dtype`, else
the target's); the tables are the target check's (sglang_quant_capability,
sglang_quant_dtype), whose messages name `--quantization`.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_quant_capability as capability
from graphfit.planner.engines import sglang_quant_dtype as loader_dtype


def check(config: EngineSettings) -> None:
    """Both loader checks for the draft (module docstring); nothing without a draft method."""
    method = config.draft_quantization
    if method is None or not config.has_drafter:
        return
    try:
        capability.check(method, config.gpu_capability, config.sm100)
        loader_dtype.check(method, config.draft_dtype or config.dtype)
    except ConfigError as exc:
        why = str(exc).removeprefix("--quantization: ").removeprefix("--quantization ")
        raise ConfigError(f"the draft's quantization (its own model loader): {why}"
                          ) from None


__all__ = ["check"]
