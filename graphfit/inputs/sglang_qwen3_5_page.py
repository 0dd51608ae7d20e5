"""The page size Qwen3-Next / Qwen3.5's (and Qwen4-Exp's) model override writes on SM100
(issue 23 s44m; Qwen4-Exp s45m):
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
size stands (the SM100 default backend is unknown there).

Qwen4-Exp's override restates the same SM100 branch (model_overrides/qwen4_exp.py:57-71:
triton or trtllm_mha on the same test, page 64 / 1) and then, for a compressed QSA indexer
(`parse_qsa_profile`, layers/attention/qsa/config.py:78-88: `indexer_n_heads` in the text
config), writes page size 64 over any line and GPU (qwen4_exp.py:89-96)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import Resolved

WHERE = "model_overrides/qwen3_5.py:46-49"
WHERE_QWEN4 = "model_overrides/qwen4_exp.py:57-71"
WHERE_QSA = "model_overrides/qwen4_exp.py:89-96"


def _qsa(data: Mapping[str, Any]) -> bool:
    """A compressed QSA indexer: `indexer_n_heads` set on the text config (or the top level
    without one), as `parse_qsa_profile` reads it (qsa/config.py:78-88)."""
    text = data.get("text_config")
    source = text if isinstance(text, Mapping) else data
    return source.get("indexer_n_heads") is not None


def _written(line: Mapping[str, Any], gpu_given: object) -> tuple[int, str] | None:
    """(page size, where) the override writes, or None (module docstring)."""
    from graphfit.inputs.model_config import config_path, load_config
    from graphfit.inputs.sglang_draft_default import generic_base_backend, gpu_kind
    from graphfit.inputs.sglang_unified_backends import sm100_qwen3_5_backend
    from graphfit.planner.engines.sglang_arch_overrides import QWEN3_5, QWEN4_EXP

    model = line.get("model_path")
    if not isinstance(model, str):
        return None
    path = config_path(model)
    if path is None:
        return None
    data = load_config(path)
    names = data.get("architectures")
    arch = names[0] if isinstance(names, list) and names else None
    if arch not in QWEN3_5 | QWEN4_EXP:
        return None
    if arch in QWEN4_EXP and _qsa(data):
        return 64, WHERE_QSA  # the QSA page over the SM100 branch's and the line's
    if gpu_kind(gpu_given) != "sm100" or line.get("attention_backend"):
        return None
    generic = generic_base_backend(line, gpu_given)
    if generic is None:
        return None
    page = 64 if sm100_qwen3_5_backend(line, generic) == "trtllm_mha" else 1
    return page, WHERE if arch in QWEN3_5 else WHERE_QWEN4


def override_page(line: Mapping[str, Any], gpu_given: object) -> int | None:
    """The page size the override writes for this line, None where it does not write one
    (not SM100, `--attention-backend` given, another model) or graphfit cannot tell."""
    written = _written(line, gpu_given)
    return None if written is None else written[0]


# the ServerArgs fields `override_page` reads (the line's flags as given, and what SGLang's
# generic default reads: graphfit.inputs.sglang_draft_default._default_inputs)
LIVE_KEYS = ("model_path", "attention_backend", "prefill_attention_backend",
             "decode_attention_backend", "speculative_algorithm", "speculative_eagle_topk",
             "page_size", "kv_cache_dtype", "enable_deterministic_inference",
             "rl_on_policy_target", "mamba_radix_cache_strategy", "disable_radix_cache",
             "disaggregation_mode")


def live(server_args: Any, gpu_given: object) -> int | None:
    """`override_page` on a ServerArgs (the live path with a named GPU, issue 23 s45m): its
    fields hold the flags as given (resolution declares into `_resolved_overrides`,
    arg_groups/overrides.py:110-134), which is what the override reads; "auto", the KV
    dtype field's default, is a line without `--kv-cache-dtype`."""
    line = {key: server_args.get(key) if isinstance(server_args, Mapping)
            else getattr(server_args, key, None) for key in LIVE_KEYS}
    if str(line.get("kv_cache_dtype") or "").strip().lower() == "auto":
        line["kv_cache_dtype"] = None
    return override_page(line, gpu_given)


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """`page_size` as the override writes it (module docstring); the line unchanged
    elsewhere."""
    written = _written(line, gpu_given)
    if written is None or resolved.values.get("page_size", 1) == written[0]:
        return resolved
    page, where = written
    whose = ("Qwen4-Exp's compressed QSA" if where == WHERE_QSA else
             "Qwen4-Exp's SM100" if where == WHERE_QWEN4 else "Qwen3-Next / Qwen3.5's SM100")
    said = f"{whose} override: page size {page} over the line's ({where})"
    return replace(resolved,
                   values=MappingProxyType({**resolved.values, "page_size": page}),
                   origins=MappingProxyType({**resolved.origins, "page_size": said}),
                   notes=(*resolved.notes, said))


__all__ = ["LIVE_KEYS", "live", "override_page", "settle"]
