"""vLLM's own config objects -> EngineConfig field values (for `EngineConfig.from_vllm`).

Duck-typed on `VllmConfig` (vllm/config/vllm.py) and the configs it holds, reading only
attributes, so graphfit never imports vLLM:

* `scheduler_config.max_num_seqs`, `.max_num_batched_tokens`;
* `model_config.max_model_len`, `.dtype` (a torch dtype or its name), `.get_hidden_size()`
  (else `hf_text_config.hidden_size`), `.uses_mrope` / `.is_multimodal_model` (the
  multimodal buffers), `.mrope_num_dims`, `.enforce_eager`;
* `compilation_config.cudagraph_mode` (a CUDAGraphMode enum, its name or its int),
  `.cudagraph_capture_sizes` (the list vLLM resolved: graphfit takes it as explicit sizes),
  `.max_cudagraph_capture_size`;
* `speculative_config.method`, `.num_speculative_tokens`, `.draft_model_config` (its hidden
  size sizes the drafter's hidden_states rows);
* `cache_config.block_size`; `attention_config.backend` (the attention backend, whose
  cudagraph support levels the engine model knows); `parallel_config` is accepted and not
  needed;
* `use_v2_model_runner` and `performance_mode` on the VllmConfig itself.

A missing attribute leaves graphfit's default; `overrides` win over everything read.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.enums import CUDAGraphMode, SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.vllm.split import SPLIT_FIELDS

_MODES = {0: CUDAGraphMode.NONE, 1: CUDAGraphMode.PIECEWISE, 2: CUDAGraphMode.FULL}


def spec_method(name: str) -> SpecMethod:
    """vLLM 0.33's method names (config/speculative.py): the model-specific `*_mtp` names are
    MTP; anything else graphfit does not model (custom_class)."""
    key = name.strip().lower()
    if key.endswith("_mtp"):
        return SpecMethod.MTP
    for method in SpecMethod:
        # UNO is SGLang's LoRA self-draft (graphfit.planner.engines.sglang_uno), not vLLM's
        if method not in (SpecMethod.NONE, SpecMethod.UNO) and method.value == key:
            return method
    raise ConfigError(f"speculative_config.method: {name!r} is not modelled")


def cudagraph_mode(value: Any) -> CUDAGraphMode:
    """vLLM's CUDAGraphMode member, its name, or its int (0 NONE, 1 PIECEWISE, 2 FULL)."""
    name = getattr(value, "name", value)
    if isinstance(name, str) and name.upper() in CUDAGraphMode.__members__:
        return CUDAGraphMode[name.upper()]
    if isinstance(value, int) and value in _MODES:
        return _MODES[value]
    raise ConfigError(f"compilation_config.cudagraph_mode: {value!r} is not a mode")


def _get(obj: Any, name: str) -> Any:
    return getattr(obj, name, None) if obj is not None else None


def _dtype(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).removeprefix("torch.").lower()
    return {"half": "float16", "float": "float32", "bf16": "bfloat16"}.get(text, text)


def _hidden_size(model_config: Any) -> int | None:
    getter = _get(model_config, "get_hidden_size")
    if callable(getter):
        try:
            value = getter()
        except Exception:
            value = None
        if isinstance(value, int):
            return value
    for holder in (_get(model_config, "hf_text_config"), _get(model_config, "hf_config")):
        value = _get(holder, "hidden_size")
        if isinstance(value, int):
            return value
    return None


def fields_from_vllm(vllm_config: Any) -> dict[str, Any]:
    """EngineConfig keyword arguments read from a VllmConfig-like object."""
    if vllm_config is None:
        raise ConfigError("from_vllm: expected a VllmConfig, got None")
    scheduler = _get(vllm_config, "scheduler_config")
    model = _get(vllm_config, "model_config")
    compilation = _get(vllm_config, "compilation_config")
    spec = _get(vllm_config, "speculative_config")
    cache = _get(vllm_config, "cache_config")
    out: dict[str, Any] = {"engine": "vllm"}

    def put(name: str, value: Any) -> None:
        if value is not None:
            out[name] = value

    put("max_num_seqs", _get(scheduler, "max_num_seqs"))
    put("max_num_batched_tokens", _get(scheduler, "max_num_batched_tokens"))
    put("max_model_len", _get(model, "max_model_len"))
    put("dtype", _dtype(_get(model, "dtype")))
    put("hidden_size", _hidden_size(model))
    put("block_size", _get(cache, "block_size"))
    mrope = bool(_get(model, "uses_mrope"))
    if mrope or bool(_get(model, "is_multimodal_model")):
        out["multimodal"] = True
        dims = _get(model, "mrope_num_dims")
        if mrope and isinstance(dims, int):
            out["mrope_dims"] = dims
    mode = _get(compilation, "cudagraph_mode")
    if mode is not None:
        out["cudagraph_mode"] = cudagraph_mode(mode)
    if bool(_get(model, "enforce_eager")):
        out["cudagraph_mode"] = CUDAGraphMode.NONE
    release = release_of(vllm_config)
    if release is not None:
        out["engine_version"] = release
    sizes = _get(compilation, "cudagraph_capture_sizes")
    if split_sizes(compilation):
        # 0.34 records every graph's tokens there, derived from the split fields (as set, or
        # as resolved: each kind's list and its max, config/vllm.py:2681-2688), which are read
        # too: with both, vLLM (and graphfit) keeps the recorded list only when the split
        # fields derive it (a resolved config resolved again, config/vllm.py:2706-2720)
        for name in SPLIT_FIELDS:
            value = _get(compilation, name)
            if value is not None:
                out[name] = (tuple(int(s) for s in value) if name.endswith("_sizes")
                             else int(value))
    if sizes and out.get("cudagraph_mode") is not CUDAGraphMode.NONE:
        out["cudagraph_capture_sizes"] = tuple(sorted(set(int(s) for s in sizes)))
        top = _get(compilation, "max_cudagraph_capture_size")
        if top:
            out["max_cudagraph_capture_size"] = int(top)
    if spec is not None and _get(spec, "num_speculative_tokens"):
        method = _get(spec, "method")
        out["spec_method"] = spec_method(str(method)) if method else SpecMethod.DRAFT_MODEL
        out["num_speculative_tokens"] = int(_get(spec, "num_speculative_tokens"))
        draft = _hidden_size(_get(spec, "draft_model_config"))
        if draft is not None and draft != out.get("hidden_size"):
            out["draft_hidden_size"] = draft
        if out["spec_method"] in (SpecMethod.DFLASH, SpecMethod.DSPARK):
            hf = _get(_get(spec, "draft_model_config"), "hf_config")
            if hf is not None:
                out["draft_aux_layers"] = len(aux_layer_ids(hf))
    backend = _get(_get(vllm_config, "attention_config"), "backend")
    if backend is not None:  # an AttentionBackendEnum member (its levels: the engine model)
        out["attention_backend"] = str(getattr(backend, "name", backend))
    if spec is not None and out.get("spec_method") is SpecMethod.DSPARK:
        draft_hf = _get(_get(spec, "draft_model_config"), "hf_config")
        anchor = _get(draft_hf, "sample_from_anchor")
        if isinstance(anchor, bool):
            out["dspark_sample_from_anchor"] = anchor
    runner = _get(vllm_config, "use_v2_model_runner")
    if runner is not None:
        out["runner"] = "v2" if runner else "v1"
    performance = _get(vllm_config, "performance_mode")
    if isinstance(performance, str):
        out["performance_mode"] = performance
    return out


def aux_layer_ids(hf_config: Any) -> tuple[Any, ...]:
    """The target layers a draft config names for its aux hidden states, looked up as
    `get_eagle3_aux_layers_from_config` does (v1/worker/gpu/spec_decode/eagle/eagle3_utils.py:
    103-140 in 0.34, the same in 0.33): eagle_aux_hidden_state_layer_ids, then
    dflash_config.target_layer_ids, dspark_target_layer_ids, target_layer_ids, then
    dflash_config / eagle_config layer_ids. Only their count matters to the buffers."""
    layer_ids = _get(hf_config, "eagle_aux_hidden_state_layer_ids")
    if not layer_ids:
        dflash = _get(hf_config, "dflash_config")
        if isinstance(dflash, dict):
            layer_ids = dflash.get("target_layer_ids")
    for name in ("dspark_target_layer_ids", "target_layer_ids"):
        if not layer_ids:
            layer_ids = _get(hf_config, name)
    for name in ("dflash_config", "eagle_config"):
        nested = _get(hf_config, name)
        if not layer_ids and isinstance(nested, dict):
            layer_ids = nested.get("layer_ids")
    return tuple(layer_ids) if layer_ids and isinstance(layer_ids, (list, tuple)) else ()


def split_sizes(compilation: Any) -> bool:
    """Whether a compilation config has 0.34's split capture sizes (resolved or set):
    `prefill_cudagraph_capture_token_sizes` / `decode_cudagraph_capture_request_sizes`
    (config/compilation.py in 0.34; config/vllm.py:2558-2737 resolves them)."""
    return any(_get(compilation, name) is not None for name in (
        "prefill_cudagraph_capture_token_sizes", "decode_cudagraph_capture_request_sizes"))


def release_of(vllm_config: Any) -> str | None:
    """The modelled vLLM release a running vLLM is: the imported `vllm.__version__` (local
    build suffixes dropped) when graphfit models it, else 0.34.0 when the config has 0.34's
    split capture sizes; None (the default release) otherwise."""
    from graphfit.planner.engines.registry import versions

    module = sys.modules.get("vllm")
    found = getattr(module, "__version__", None)
    if isinstance(found, str):
        bare = found.split("+")[0]
        if bare in versions("vllm"):
            return bare
    if split_sizes(_get(vllm_config, "compilation_config")):
        return "0.34.0"
    return None


def recorded_sizes(vllm_config: Any) -> tuple[int, ...] | None:
    """The token counts a 0.34 config recorded (`cudagraph_capture_sizes` after
    `_split_cudagraph_capture_sizes`); None before 0.34 or without graphs."""
    compilation = _get(vllm_config, "compilation_config")
    sizes = _get(compilation, "cudagraph_capture_sizes")
    if not split_sizes(compilation) or sizes is None:
        return None
    return tuple(sorted(set(int(s) for s in sizes)))


def merged(read: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """What was read, with the caller's overrides on top."""
    return {**read, **overrides}
