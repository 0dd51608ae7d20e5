"""Top-level keys a plain model type's transformers config class refuses null, before
SGLang 0.5.23 reads anything off the config (issue 23, s68c).

SGLang's `get_config` loads a config.json with transformers' `AutoConfig.from_pretrained`
(utils/hf_transformers/config.py:228). transformers 5.25's config classes are strict
dataclasses: a field annotated without `None` (`num_attention_heads: int`, DeepSeek-V3's
`kv_lora_rank: int`) refuses a written null (huggingface_hub's
StrictDataclassFieldValidationError), so the model does not load; a field annotated
`int | None` takes it (DeepSeek-V3's `v_head_dim`, Llama's `head_dim`: SGLang's ModelConfig
then meets what graphfit.inputs.sglang_mla_reads restates). `STRICT` lists, for the plain
types graphfit judges (graphfit.inputs.sglang_draft_layer_default.CLASS_LAYERS), the fields
annotated without `None` in transformers 5.25's models/<type>/configuration_<type>.py
(with the PretrainedConfig fields those classes redeclare); Exaone 4's `__post_init__`
(models/exaone4/configuration_exaone4.py:99-108) also fails on a null `sliding_window`
(its pattern set to 0, then `% 0`) or `sliding_window_pattern` where `layer_types` is not
written (`POST_INIT`). Measured through the oracle on every field of every listed class
(tests.oracle.test_sglang_strict_nulls_oracle). Only the file as written: the override args
are set on the loaded config afterwards (config.py:405-424).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# the fields every listed class annotates without None
_EVERY = ("hidden_size", "initializer_range", "intermediate_size", "max_position_embeddings",
          "num_attention_heads", "num_hidden_layers", "tie_word_embeddings", "use_cache",
          "vocab_size")


def _keys(*extra: str) -> frozenset[str]:
    return frozenset((*_EVERY, *extra))


STRICT: dict[str, frozenset[str]] = {
    "deepseek_v2": _keys("attention_bias", "first_k_dense_replace", "hidden_act", "kv_lora_rank",
                         "mlp_bias", "moe_intermediate_size", "n_routed_experts",
                         "n_shared_experts", "output_router_logits", "qk_nope_head_dim",
                         "qk_rope_head_dim", "rms_norm_eps", "routed_scaling_factor",
                         "v_head_dim"),
    "deepseek_v3": _keys("attention_bias", "hidden_act", "kv_lora_rank", "moe_intermediate_size",
                         "n_routed_experts", "n_shared_experts", "num_mtp_layers",
                         "output_router_logits", "qk_nope_head_dim", "qk_rope_head_dim",
                         "rms_norm_eps", "routed_scaling_factor"),
    "ernie4_5_moe": _keys("hidden_act", "moe_intermediate_size", "rms_norm_eps"),
    "exaone4": _keys("attention_dropout", "hidden_act", "num_key_value_heads", "rms_norm_eps"),
    "gemma": _keys("attention_bias", "attention_dropout", "head_dim", "hidden_act",
                   "num_key_value_heads", "rms_norm_eps"),
    "gemma2": _keys("attention_bias", "head_dim", "hidden_activation", "num_key_value_heads",
                    "query_pre_attn_scalar", "rms_norm_eps"),
    "gemma3_text": _keys("attention_bias", "head_dim", "hidden_activation", "num_key_value_heads",
                         "query_pre_attn_scalar", "rms_norm_eps"),
    "glm4": _keys("attention_bias", "attention_dropout", "head_dim", "hidden_act",
                  "num_key_value_heads", "rms_norm_eps"),
    "glm4_moe": _keys("attention_bias", "attention_dropout", "first_k_dense_replace",
                      "hidden_act", "moe_intermediate_size", "n_group", "n_routed_experts",
                      "n_shared_experts", "norm_topk_prob", "num_experts_per_tok",
                      "num_key_value_heads", "num_mtp_layers", "output_router_logits",
                      "rms_norm_eps", "routed_scaling_factor", "topk_group", "use_qk_norm"),
    "gpt_oss": _keys("attention_bias", "attention_dropout", "head_dim", "hidden_act",
                     "num_experts_per_tok", "num_key_value_heads", "num_local_experts",
                     "output_router_logits", "rms_norm_eps", "router_aux_loss_coef",
                     "swiglu_alpha", "swiglu_limit"),
    "granite": _keys("attention_bias", "attention_dropout", "attention_multiplier",
                     "embedding_multiplier", "hidden_act", "logits_scaling", "mlp_bias",
                     "residual_multiplier", "rms_norm_eps"),
    "hunyuan_v1_dense": _keys("attention_bias", "attention_dropout", "hidden_act",
                              "pretraining_tp", "rms_norm_eps"),
    "lfm2": _keys("block_auto_adjust_ff_dim", "block_ffn_dim_multiplier", "block_multiple_of",
                  "conv_L_cache", "conv_bias", "norm_eps", "num_key_value_heads"),
    "llama": _keys("attention_bias", "hidden_act", "mlp_bias", "rms_norm_eps"),
    "minimax_m2": _keys("attention_dropout", "head_dim", "hidden_act", "num_experts_per_tok",
                        "num_key_value_heads", "num_local_experts", "output_router_logits",
                        "rms_norm_eps", "router_aux_loss_coef", "router_jitter_noise"),
    "mistral": _keys("attention_dropout", "hidden_act", "num_key_value_heads", "rms_norm_eps"),
    "mixtral": _keys("attention_dropout", "hidden_act", "num_experts_per_tok",
                     "num_key_value_heads", "num_local_experts", "output_router_logits",
                     "rms_norm_eps", "router_aux_loss_coef", "router_jitter_noise"),
    "olmo2": _keys("attention_bias", "attention_dropout", "hidden_act", "rms_norm_eps"),
    "phi3": _keys("attention_dropout", "embd_pdrop", "hidden_act",
                  "original_max_position_embeddings", "resid_pdrop", "rms_norm_eps"),
    "qwen2": _keys("attention_dropout", "hidden_act", "max_window_layers", "rms_norm_eps",
                   "use_sliding_window"),
    "qwen2_moe": _keys("attention_dropout", "decoder_sparse_step", "hidden_act",
                       "max_window_layers", "moe_intermediate_size", "norm_topk_prob",
                       "num_experts", "num_experts_per_tok", "output_router_logits", "qkv_bias",
                       "rms_norm_eps", "router_aux_loss_coef", "shared_expert_intermediate_size",
                       "use_sliding_window"),
    "qwen3": _keys("attention_bias", "attention_dropout", "head_dim", "hidden_act",
                   "max_window_layers", "rms_norm_eps", "use_sliding_window"),
    "qwen3_moe": _keys("attention_bias", "attention_dropout", "decoder_sparse_step", "hidden_act",
                       "moe_intermediate_size", "norm_topk_prob", "num_experts",
                       "num_experts_per_tok", "num_key_value_heads", "output_router_logits",
                       "rms_norm_eps", "router_aux_loss_coef", "use_sliding_window"),
    "qwen3_next": _keys("attention_bias", "attention_dropout", "decoder_sparse_step", "head_dim",
                        "hidden_act", "linear_conv_kernel_dim", "linear_key_head_dim",
                        "linear_num_key_heads", "linear_num_value_heads", "linear_value_head_dim",
                        "moe_intermediate_size", "norm_topk_prob", "num_experts",
                        "num_experts_per_tok", "num_key_value_heads", "output_router_logits",
                        "rms_norm_eps", "router_aux_loss_coef",
                        "shared_expert_intermediate_size"),
    "starcoder2": _keys("attention_dropout", "embedding_dropout", "hidden_act", "norm_epsilon",
                        "num_key_value_heads", "residual_dropout", "use_bias"),
}
# Exaone 4's `__post_init__` (configuration_exaone4.py:99-108): where `layer_types` is not
# written, a null `sliding_window` divides by a pattern of 0 (ZeroDivisionError), a null
# `sliding_window_pattern` is a TypeError
POST_INIT: dict[str, dict[str, str]] = {
    "exaone4": {"sliding_window": "ZeroDivisionError", "sliding_window_pattern": "TypeError"}}


def strict_null(written: Mapping[str, Any], kind: str) -> str | None:
    """Why transformers' config class of the plain type `kind` refuses the config.json
    `written` (as written) at SGLang's load (module docstring), or None."""
    key = next((k for k in sorted(STRICT.get(kind, ())) if k in written and written[k] is None),
               None)
    if key is not None:
        return (f"{key} null ({kind}): transformers refuses it at load (a strict field, "
                f"utils/hf_transformers/config.py:228)")
    if written.get("layer_types") is None and written.get("num_hidden_layers") != 0:
        for key, error in POST_INIT.get(kind, {}).items():
            if key in written and written[key] is None:
                return (f"{key} null ({kind}): transformers fails on it at load ({error}, "
                        f"configuration_{kind}.py:99-108)")
    return None


__all__ = ["POST_INIT", "STRICT", "strict_null"]
