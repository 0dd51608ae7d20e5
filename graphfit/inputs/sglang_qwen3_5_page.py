"""The page size Qwen3-Next / Qwen3.5's model override writes on SM100 (issue 23 s44m):
`_qwen3_5_hybrid_overrides` (arg_groups/model_overrides/qwen3_5.py:17-49), when the line gives
no `--attention-backend` on an SM100 GPU, writes the backend (triton, or trtllm_mha:
graphfit.inputs.sglang_unified_backends.sm100_qwen3_5_backend) and with it page size 64 for
trtllm_mha, else 1, over the line's `--page-size` (:46-49). It runs inside
`handle_model_specific_adjustments` (pipeline.py:225) before the mamba radix cache's checks
read the page size (`validate_mamba_no_buffer`, mamba_hook.py:156-157;
`_mamba_radix_cache_resolution`, overrides.py:453-486, wants paging only above 1).

Why: graphfit kept the line's page size, so it refused `--page-size 64` with no_buffer that
SGLang serves (the override resets it to 1) and planned no_buffer with speculation that SGLang
refuses (trtllm_mha's 64), and it resolved "auto" from the wrong page size. Read on a pasted
line once the GPU is named and the model's config.json is local; otherwise the line's page
size stands (the SM100 default backend is unknown there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import Resolved

WHERE = "model_overrides/qwen3_5.py:46-49"


def override_page(line: Mapping[str, Any], gpu_given: object) -> int | None:
    """The page size the override writes for this line, None where it does not write one
    (not SM100, `--attention-backend` given, another model) or graphfit cannot tell."""
    from graphfit.inputs.model_config import config_path, load_config
    from graphfit.inputs.sglang_draft_default import generic_base_backend, gpu_kind
    from graphfit.inputs.sglang_unified_backends import sm100_qwen3_5_backend
    from graphfit.planner.engines.sglang_arch_overrides import QWEN3_5

    model = line.get("model_path")
    if gpu_kind(gpu_given) != "sm100" or line.get("attention_backend") \
            or not isinstance(model, str):
        return None
    path = config_path(model)
    if path is None:
        return None
    names = load_config(path).get("architectures")
    if not (isinstance(names, list) and names and names[0] in QWEN3_5):
        return None
    generic = generic_base_backend(line, gpu_given)
    if generic is None:
        return None
    return 64 if sm100_qwen3_5_backend(line, generic) == "trtllm_mha" else 1


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """`page_size` as the override writes it (module docstring); the line unchanged
    elsewhere."""
    page = override_page(line, gpu_given)
    if page is None or resolved.values.get("page_size", 1) == page:
        return resolved
    said = (f"Qwen3-Next / Qwen3.5's SM100 override: page size {page} over the line's "
            f"({WHERE})")
    return replace(resolved,
                   values=MappingProxyType({**resolved.values, "page_size": page}),
                   origins=MappingProxyType({**resolved.origins, "page_size": said}),
                   notes=(*resolved.notes, said))


__all__ = ["override_page", "settle"]
