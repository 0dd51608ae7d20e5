"""A MiniMax-M3 TARGET model whose attention layers SGLang 0.5.23 cannot build: the
`qk_norm_type` rule of `MiniMaxM3Attention` (models/minimax_m3.py:858-909), restated so a line
SGLang would never start is refused with SGLang's reason instead of planned.

Both target classes build every decoder layer's attention with that constructor:
`MiniMaxM3SparseForCausalLM` -> `MiniMaxM3Model` (minimax_m3.py:2000, 1866-1879) ->
`MiniMaxM3DecoderLayer` (:1714-1721), and the VL wrapper
`MiniMaxM3SparseForConditionalGeneration` the same `MiniMaxM3Model` on `config.text_config`
(models/minimax_m3_vl.py:137-142; with `--encoder-only` it builds no text model, :129-135).
The constructor reads `qk_norm_type` with default "per_layer" (minimax_m3.py:776; no HF config
class defines it: MiniMaxM2Config in transformers 5.25 has no such attribute, and the VL
config's text config falls back to a bare PretrainedConfig or that class,
configs/minimax_vl.py:10-23). At attention TP > 1 the per_layer branch calls
`MiniMaxM2RMSNormTP(hidden, eps=...)` without its required `num_heads`
(minimax_m3.py:858-865, models/minimax_m2.py:291): a TypeError on every rank, so the server
never starts. A name outside per_layer / per_head / multi_head raises ValueError at any TP
(:909). The attention TP size is `tp // attn_dp // attn_cp` (runtime_context.py:73-76), so the
same per_layer model starts at TP 2 with attention DP 2 and fails at TP 4 with attention DP 2.

Not restated here: a sparse-attention layer (`sparse_attention_config`) asserts per_head at
any TP (minimax_m3.py:779-783); which of the two errors a per_layer sparse model raises first
depends on its first layer's kind, and both refuse the line, but the assertion alone (attention
TP 1) is left to SGLang (module tests generate dense models only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.sglang_draft import overridden, override_args
from graphfit.inputs.sglang_spec_dp import attention_dp_size
from graphfit.planner.core.errors import ConfigError, excerpt

CAUSAL = "MiniMaxM3SparseForCausalLM"  # minimax_m3.py:2274
VL = "MiniMaxM3SparseForConditionalGeneration"  # minimax_m3_vl.py:68
QK_NORMS = ("per_layer", "per_head", "multi_head")  # minimax_m3.py:858-909


def attention_tp(values: Mapping[str, Any]) -> int:
    """`derive_attn_tp_size` (runtime_context.py:73-76): tp // attn_dp // attn_cp."""
    tp = _positive(values.get("tp_size") or values.get("tp"))
    return tp // attention_dp_size(values) // _positive(values.get("attn_cp_size"))


def problem(data: Mapping[str, Any], attn_tp: int, encoder_only: bool = False) -> str | None:
    """Why SGLang's MiniMax-M3 target class fails to build on this config.json (module
    docstring), as one line; None when this rule has nothing to say (another architecture,
    an encoder-only VL server, or a norm SGLang builds)."""
    names = data.get("architectures")
    arch = names[0] if isinstance(names, list) and names else None
    if arch not in (CAUSAL, VL) or (arch == VL and encoder_only):
        return None
    text = data.get("text_config") if arch == VL else data
    if not isinstance(text, dict):
        return None  # the wrapper's own config problems are not this rule's
    norm = text.get("qk_norm_type", "per_layer")  # minimax_m3.py:776
    if norm not in QK_NORMS:
        return (f"SGLang cannot build {arch}: Invalid qk_norm_type: {excerpt(norm, 20)} "
                f"(ValueError, models/minimax_m3.py:909)")
    if norm == "per_layer" and attn_tp > 1:
        return (f"SGLang cannot build {arch} at attention TP {attn_tp}: the per_layer QK "
                f"norm calls MiniMaxM2RMSNormTP without num_heads (TypeError, "
                f"models/minimax_m3.py:858-865)")
    return None


def line(values: Mapping[str, Any]) -> None:
    """The line's target (`model_path`, local config.json with `--json-model-override-args`
    applied as the target's ModelConfig does, model_config.py:612-626): ConfigError with
    SGLang's reason where its model class cannot be built."""
    model = values.get("model_path")
    data = local_config(str(model)) if isinstance(model, str) else None
    if data is None:
        return
    overrides = override_args(values.get("json_model_override_args"))
    data = overridden(data, overrides) if overrides else data
    said = problem(data, attention_tp(values), values.get("encoder_only") is True)
    if said is not None:
        raise ConfigError(said)


def _positive(value: Any) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return 1
    return number if number > 0 else 1


__all__ = ["attention_tp", "line", "problem"]
