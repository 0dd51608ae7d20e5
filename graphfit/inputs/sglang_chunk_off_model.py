"""Whether one of SGLang 0.5.23's model hooks turns chunked prefill off for the line's local
model (issue 23, s69a). Each declares `chunked_prefill_size=-1` over any given value, before
`check_server_args` reads it (arg_groups/model_hook.py):

* HRM-Text (`model_type` hrm_text or the HrmTextForCausalLM class) with `prefix_lm`, which
  defaults to True when config.json leaves it out (:768-781);
* EmbeddingGemma2Model, whose embedding spec sets `safe_disable_chunked_prefill`
  (configs/embedding_model_spec.py:181-200, 308-309; applied at model_hook.py:852-860);
* EmbeddingGemma, a `gemma3_text` config with `use_bidirectional_attention`
  (`is_embedding_gemma`, configs/model_config.py:2348-2357; model_hook.py:862-887);
* a multimodal model SGLang serves without chunked prefill (`is_multimodal` and not
  `is_multimodal_chunked_prefill_supported`, configs/model_config.py:820-828, 867-870,
  2553-2566; model_hook.py:1024-1032): one of those six classes, served as multimodal
  (graphfit.inputs.sglang_processor_path.served_multimodal: not `language_model_only`, nor
  `enable_multimodal` false);
* a Qwen3.5 decision checkpoint with noncausal full attention (:206-221) and a Clef / Kev
  checkpoint (:990-1021), read by graphfit.inputs.sglang_decision_heads (issue 23, s70a).

Why: graphfit judged the given chunk (or its memory default) against the page and PD
multiplexing where SGLang reads -1, so it refused lines SGLang starts (EmbeddingGemma2's
`--page-size 64 --chunked-prefill-size 96`) and left HRM-Text with `prefix_lm: false`
unjudged. The setting is written only for these models (True: the hook fires; False: its
condition fails); graphfit.planner.engines.sglang_server_chunk reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import local_config
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.sglang_decision_heads import heads
from graphfit.inputs.sglang_processor_path import served_multimodal

HRM_TEXT = "HrmTextForCausalLM"
EMBEDDING_GEMMA2 = "EmbeddingGemma2Model"
# configs/model_config.py:2555-2562
MULTIMODAL_UNCHUNKED = frozenset({
    "Grok1VForCausalLM", "Grok1AForCausalLM", "LlavaLlamaForCausalLM",
    "MllamaForConditionalGeneration", "MossVLForConditionalGeneration", "CLIPModel"})


def _names(data: Mapping[str, Any]) -> list[str]:
    names = data.get("architectures")
    return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []


def chunk_off(values: Mapping[str, Any], data: Mapping[str, Any]) -> bool | None:
    """True where a hook above fires on this config.json, False where the model is one of
    theirs and its condition fails, None for any other model."""
    names, model_type = _names(data), data.get("model_type")
    hooked: list[bool] = []
    if model_type == "hrm_text" or HRM_TEXT in names:
        hooked.append(bool(data.get("prefix_lm", True)))
    if EMBEDDING_GEMMA2 in names:
        hooked.append(True)
    if model_type == "gemma3_text":
        hooked.append(bool(data.get("use_bidirectional_attention", False)))
    if MULTIMODAL_UNCHUNKED & set(names):
        hooked.append(served_multimodal(values))
    model = values.get("model_path")
    found = heads(model) if isinstance(model, str) else None
    if found is not None and found.chunk_off:
        hooked.append(True)
    return any(hooked) if hooked else None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`model_chunk_off` for a local model one of these hooks reads (none otherwise)."""
    model = values.get("model_path")
    if not isinstance(model, str):
        return []
    data = local_config(model)
    if not isinstance(data, dict):
        return []
    off = chunk_off(values, data)
    if off is None:
        return []
    return [Setting("model_chunk_off", off, f"{model}/config.json", COMMAND_LINE)]


__all__ = ["EMBEDDING_GEMMA2", "HRM_TEXT", "MULTIMODAL_UNCHUNKED", "chunk_off", "settings"]
