"""SGLang 0.5.23's mamba state cache sized from GPU memory, run on CPU.

The line is resolved by SGLang's argument pipeline over a Qwen3-Next-shaped model directory
(tests/oracle/sglang_mamba_oracle writes one; `model_dir` here writes variants of its state
shape), the record published, and then SGLang's own `KVCacheConfigurator.
_profile_available_bytes` (kv_cache_configurator.py:2990-3060) -- which calls
`_handle_max_mamba_cache` (:3229-3410) -- and `resolve_max_num_reqs` (:3119-3172) run on a
stand-in holding the attributes they read. The state parameters are SGLang's own: its config
class for the directory (`model_config_of(...).hf_config`) and `mambaish_config`
(configs/hybrid_arch.py:145-155), so `mamba_cache_per_req` is SGLang's. The only measured
figure, the free memory after the weights load (`get_available_gpu_memory`), is replaced by
preload - weights, the same figure graphfit is given.
"""

from __future__ import annotations

import functools
import gc
import json
import tempfile
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

ARCHITECTURE = "Qwen3NextForCausalLM"
CONTEXT = 262144
# (num_hidden_layers, full_attention_interval, linear_num_key_heads, linear_num_value_heads,
#  linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim, mamba_ssm_dtype)
SHAPES = (
    (4, 4, 16, 32, 128, 128, 4, None),  # Qwen3-Next-80B's linear layer, 3 of them
    (8, 2, 2, 8, 64, 32, 4, "bfloat16"),  # 2 key heads: widened at TP 4
    (6, 3, 4, 4, 96, 64, 3, "float16"),
)


GRANITE = len(SHAPES)  # model_dir(GRANITE): a GraniteMoeHybrid with 3 mamba layers of 4
GRANITE_CONFIG = {
    "architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 4,
    "layer_types": ["mamba", "mamba", "attention", "mamba"], "num_attention_heads": 16,
    "num_key_value_heads": 4, "vocab_size": 49160, "max_position_embeddings": CONTEXT,
    "mamba_expand": 2, "mamba_n_heads": 32, "mamba_d_head": 64, "mamba_n_groups": 1,
    "mamba_d_state": 128, "mamba_d_conv": 4, "mamba_chunk_size": 256,
    "num_local_experts": 0, "torch_dtype": "bfloat16"}


# Nemotron-H (configs/nemotron_h.py): 3 mamba layers of 7 by the legacy pattern, 8 groups
# (widened at no TP of 1/2/4), the kernel under the file's `conv_kernel` key
NEMOTRON_CONFIG = {
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
    "hidden_size": 1024, "intermediate_size": 2048, "hybrid_override_pattern": "M-M*-M-",
    "num_hidden_layers": 7, "num_attention_heads": 16, "num_key_value_heads": 4,
    "head_dim": 64, "vocab_size": 32000, "max_position_embeddings": CONTEXT,
    "mamba_num_heads": 32, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128,
    "conv_kernel": 4, "expand": 2, "chunk_size": 128, "torch_dtype": "bfloat16"}
# Falcon-H1 (configs/falcon_h1.py): a mamba mixer in each of 4 layers, mamba_d_ssm given;
# FALCON_AUTO: mamba_d_ssm null (expand x hidden) and mamba_d_head "auto", fp16 states
FALCON_CONFIG = {
    "architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 4,
    "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
    "vocab_size": 32784, "max_position_embeddings": CONTEXT, "mamba_d_ssm": 1536,
    "mamba_n_heads": 24, "mamba_d_head": 64, "mamba_n_groups": 1, "mamba_d_state": 128,
    "mamba_d_conv": 4, "mamba_expand": 2, "mamba_chunk_size": 128, "torch_dtype": "bfloat16"}
FALCON_AUTO_CONFIG = {**FALCON_CONFIG, "mamba_d_ssm": None, "mamba_d_head": "auto",
                      "mamba_n_heads": 32, "mamba_n_groups": 2, "mamba_ssm_dtype": "float16"}
# Qwen3.5 with its vision tower (configs/qwen3_5.py): multimodal, so SGLang reserves its
# embedding cache (and a GPU feature-transport pool) before sizing the state cache
QWEN35_VL_CONFIG = {
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {
        "model_type": "qwen3_5_text", "hidden_size": 2048, "intermediate_size": 5632,
        "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 2,
        "head_dim": 256, "vocab_size": 151936, "max_position_embeddings": CONTEXT,
        "full_attention_interval": 4, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128,
        "linear_value_head_dim": 128, "linear_num_key_heads": 16,
        "linear_num_value_heads": 32, "rms_norm_eps": 1e-6, "rope_theta": 10000000,
        "torch_dtype": "bfloat16", "mamba_ssm_dtype": "bfloat16"},
    "vision_config": {
        "model_type": "qwen3_5", "depth": 2, "hidden_size": 256, "num_heads": 4,
        "intermediate_size": 512, "out_hidden_size": 2048, "patch_size": 16,
        "spatial_merge_size": 2, "temporal_patch_size": 2, "in_channels": 3},
    "image_token_id": 151655, "video_token_id": 151656, "vision_start_token_id": 151652,
    "vision_end_token_id": 151653, "tie_word_embeddings": False}
# Kimi-Linear (configs/kimi_linear.py:158-182): KDA layers 1, 2 and 4 of 4 (1-based numbers in
# `linear_attn_config.kda_layers`), 16 heads of 128: KimiLinearStateShape (mamba_utils.py:
# 323-367); its state dtype from the environment only (the config's is not read)
KIMI_CONFIG = {
    "architectures": ["KimiLinearForCausalLM"], "model_type": "kimi_linear",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 4,
    "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 64,
    "vocab_size": 32000, "max_position_embeddings": CONTEXT, "torch_dtype": "bfloat16",
    "mamba_ssm_dtype": "bfloat16", "kv_lora_rank": 512, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "mla_use_nope": True,
    "linear_attn_config": {"kda_layers": [1, 2, 4], "full_attn_layers": [3], "num_heads": 16,
                           "head_dim": 128, "short_conv_kernel_size": 4}}
# LFM2 (configs/lfm2.py:58-97): short-conv layers only a conv state (hidden / tp, L - 1),
# chunk size 1; LFM2_MOE (configs/lfm2_moe.py:48-84) the same state
LFM2_CONFIG = {
    "architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "hidden_size": 1024,
    "intermediate_size": 4096, "num_hidden_layers": 6, "num_attention_heads": 16,
    "num_key_value_heads": 8, "vocab_size": 65536, "max_position_embeddings": CONTEXT,
    "layer_types": ["conv", "conv", "full_attention", "conv", "full_attention", "conv"],
    "conv_L_cache": 3, "torch_dtype": "bfloat16"}
LFM2_MOE_CONFIG = {
    "architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe", "hidden_size": 768,
    "intermediate_size": 2048, "moe_intermediate_size": 512, "num_hidden_layers": 4,
    "num_attention_heads": 12, "num_key_value_heads": 4, "vocab_size": 65536,
    "max_position_embeddings": CONTEXT, "num_experts": 8, "num_experts_per_tok": 2,
    "num_dense_layers": 1,
    "layer_types": ["conv", "full_attention", "conv", "conv"], "conv_L_cache": 4,
    "torch_dtype": "bfloat16"}
# Kimi-K3 (configs/kimi_k3.py:79-124): Kimi-Linear's text config under `text_config`, with a
# vision tower (multimodal: the reservation). Its KimiK3VisionConfig keeps no layer count or
# width of its own, so SGLang's VLM fraction reads what the file adds (num_hidden_layers /
# hidden_size, memory_hook.py:440-441; 24 / 1024 when absent, which graphfit does not assume)
KIMI_K3_CONFIG = {
    "architectures": ["KimiK3ForConditionalGeneration"], "model_type": "kimi_k3",
    "text_config": {k: v for k, v in KIMI_CONFIG.items() if k != "architectures"},
    "vision_config": {"vt_num_hidden_layers": 2, "vt_hidden_size": 256,
                      "vt_num_attention_heads": 4, "vt_intermediate_size": 512,
                      "num_hidden_layers": 2, "hidden_size": 256, "text_hidden_size": 1024},
    "torch_dtype": "bfloat16"}
# Glm5Next (configs/glm5_next.py:77-337): KDA in the `layer_types` + `linear_num_heads`
# form (4 linear layers of 6, 16 heads of 128), MLA without RoPE (its DSA check); GLM5_ATTN:
# the top-level `linear_attn_config` form, whose kda_layers are 0-based (0, 1, 2 of 4) and
# win over layer_types
GLM5_TEXT = {
    "model_type": "glm5_next_text", "hidden_size": 1024, "intermediate_size": 2048,
    "moe_intermediate_size": 512, "num_hidden_layers": 6, "num_attention_heads": 16,
    "num_key_value_heads": 16, "vocab_size": 32000, "max_position_embeddings": CONTEXT,
    "n_routed_experts": 8, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
    "q_lora_rank": 512, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 0,
    "v_head_dim": 128, "pad_token_id": 0,
    "layer_types": ["linear_attention", "linear_attention", "full_attention",
                    "linear_attention", "linear_attention", "full_attention"],
    "linear_num_heads": 16, "linear_head_dim": 128, "linear_conv_kernel_dim": 4,
    "torch_dtype": "bfloat16"}
GLM5_CONFIG = {"architectures": ["Glm5NextForConditionalGeneration"], "model_type": "glm5_next",
               "text_config": GLM5_TEXT, "torch_dtype": "bfloat16",
               # SGLang counts the architecture multimodal (model_config.py:2406); graphfit
               # knows it from the vision tower (GlmOcrVisionConfig: depth as the layers)
               "vision_config": {"depth": 2, "hidden_size": 256, "num_heads": 4,
                                 "intermediate_size": 512, "out_hidden_size": 1024,
                                 "swiglu_limit": 7.0}}
GLM5_ATTN_CONFIG = {
    **GLM5_CONFIG,
    "text_config": {k: v for k, v in GLM5_TEXT.items() if k != "layer_types"}
    | {"num_hidden_layers": 4},
    "linear_attn_config": {"kda_layers": [0, 1, 2], "full_attn_layers": [3], "num_heads": 8,
                           "head_dim": 64, "short_conv_kernel_size": 3}}
# Glm5Next without a vision tower: still multimodal to SGLang by its architecture
# (model_config.py:2406), so the embedding cache is reserved (kv_cache_configurator.py:
# 202-219, 3034-3037), while the VLM fraction has no vision_config to read
# (memory_hook.py:431-433)
GLM5_TEXT_ONLY_CONFIG = {k: v for k, v in GLM5_CONFIG.items() if k != "vision_config"}
# LFM2-VL (configs/lfm2_vl.py:38-103): LFM2's conv state under text_config, a SigLIP2 tower;
# mamba-ish but not routed through the hybrid-mamba radix cache (overrides.py:369-399)
LFM2_VL_CONFIG = {
    "architectures": ["Lfm2VlForConditionalGeneration"], "model_type": "lfm2_vl",
    "text_config": {k: v for k, v in LFM2_CONFIG.items() if k != "architectures"},
    "vision_config": {"model_type": "siglip2_vision_model", "hidden_size": 256,
                      "num_hidden_layers": 2, "num_attention_heads": 4,
                      "intermediate_size": 512, "patch_size": 16, "num_patches": 256},
    "torch_dtype": "bfloat16"}
# Jet-Nemotron (configs/jet_nemotron.py:26-80): JetBlock layers 0, 1, 3 of 4, 8 heads of key
# dim 64 with values 1.5 x wider (96), conv 4, bfloat16 SSM states from the config
JET_CONFIG = {
    "architectures": ["JetNemotronForCausalLM"], "model_type": "jet_nemotron",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 4,
    "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 32000,
    "max_position_embeddings": CONTEXT, "hidden_act": "silu", "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0, "initializer_range": 0.02, "torch_dtype": "bfloat16",
    "layer_types": ["jet", "jet", "attn", "jet"], "mamba_ssm_dtype": "bfloat16",
    "efficient_attention_config": {"jet": {
        "mode": "chunk", "expand_v": 1.5, "num_heads": 8, "head_dim": 64, "norm_eps": 1e-5,
        "conv_size": 4, "dconv_generator_reduction": 8, "dconv_implementation": "triton"}}}
# Bailing hybrids (configs/bailing_hybrid.py:48-236), BailingHybridConfig by model_type:
# BAILING_LIGHTNING: no short conv, so the lightning layers' SSM-only state (H, D, D), 3
# linear layers of 4 (layer_group_size 4); BAILING_KDA: a
# short conv, so the KDA state, layers 0, 2 linear (layer_group_size 2)
BAILING_LIGHTNING_CONFIG = {
    "architectures": ["BailingMoeV2_5ForCausalLM"], "model_type": "bailing_hybrid",
    "hidden_size": 1024, "intermediate_size": 2048, "num_hidden_layers": 4,
    "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
    "vocab_size": 32000, "max_position_embeddings": CONTEXT, "layer_group_size": 4,
    "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256,
    "pad_token_id": 0, "eos_token_id": 1, "torch_dtype": "bfloat16"}
BAILING_KDA_CONFIG = {**BAILING_LIGHTNING_CONFIG, "head_dim": 128, "layer_group_size": 2,
                      "short_conv_kernel_size": 4, "num_attention_heads": 8}
# GigaChat3.5 (configs/gigachat35.py), reached only through the linear-attention registry:
# GDN layers from layer_types (3 of 4); GIGACHAT_FULL: from full_attention_layers (4 of 6),
# 4 key heads (widened at no TP of 1/2/4), the config's bfloat16 states
GIGACHAT_CONFIG = {
    "architectures": ["GigaChat35ForCausalLM"], "model_type": "gigachat3_5",
    "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 16,
    "num_key_value_heads": 16, "vocab_size": 32000, "max_position_embeddings": CONTEXT,
    "layer_types": ["linear_attention", "linear_attention", "full_attention",
                    "linear_attention"],
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
    "linear_num_key_heads": 8, "linear_num_value_heads": 16, "torch_dtype": "bfloat16"}
GIGACHAT_FULL_CONFIG = {
    **{k: v for k, v in GIGACHAT_CONFIG.items() if k != "layer_types"},
    "num_hidden_layers": 6, "full_attention_layers": [2, -1], "linear_num_key_heads": 4,
    "linear_value_head_dim": 64, "linear_conv_kernel_dim": 3, "mamba_ssm_dtype": "bfloat16"}
# Zaya (configs/zaya.py): CCA state layers are its attention layers, the even ones of 6;
# ZAYA_LIST: from `zaya_layers` ("a" entries, 2 of 5) with per-layer query-head lists and
# longer CCA windows (P = 2 + 1)
ZAYA_CONFIG = {
    "architectures": ["ZayaForCausalLM"], "model_type": "zaya", "hidden_size": 1024,
    "num_hidden_layers": 6, "num_attention_heads": 8, "num_key_value_heads": 4,
    "num_query_groups": 4, "head_dim": 128, "vocab_size": 32000,
    "max_position_embeddings": CONTEXT, "torch_dtype": "bfloat16"}
ZAYA_LIST_CONFIG = {
    **ZAYA_CONFIG, "num_hidden_layers": 80, "zaya_layers": ["a", 16, "a", 16, 8],
    "cca_num_q_heads": [0, 16, 0, 16, 0], "num_query_groups_list": [4, 0, 4, 0, 0],
    "head_dim": None, "kv_channels": 64, "cca_time0": 3, "cca_time1": 2,
    "hidden_size": 2048}
# Zaya with head counts its attention refuses at some TP widths (models/zaya.py:917-925,
# 460-471): ZAYA_ODD 6 query heads over 2 groups (TP 4 divides neither), ZAYA_GQA 8 over 3
# (not a multiple: refused at any width)
ZAYA_ODD_CONFIG = {**ZAYA_CONFIG, "num_attention_heads": 6, "num_key_value_heads": 2,
                   "num_query_groups": 2, "head_dim": 64}
ZAYA_GQA_CONFIG = {**ZAYA_CONFIG, "num_key_value_heads": 3, "num_query_groups": 3,
                   "head_dim": 64}
# Bailing hybrids transformers' field validation refuses in SGLang's parse on the pinned
# stack: a list layer_group_size, a null head_dim
BAILING_LIST_CONFIG = {**BAILING_LIGHTNING_CONFIG, "layer_group_size": [0, 1, 1, 0]}
BAILING_NULL_HEAD_CONFIG = {**BAILING_LIGHTNING_CONFIG, "head_dim": None}
# Qwen4-Exp (configs/qwen4_exp.py:15-175): Qwen3-Next's GDN state on the text config's
# `layer_types` (5 linear of 8), with PLE short-conv layers (priced apart, in the request
# pool) and an mHC count; a vision tower in the file
QWEN4_EXP_CONFIG = {
    "architectures": ["Qwen4ExpForConditionalGeneration"], "model_type": "qwen4_exp",
    "text_config": {
        **QWEN35_VL_CONFIG["text_config"], "model_type": "qwen4_exp_text", "hc_count": 4,
        "ple_layer_ids": [2, 3], "eos_token_id": 1, "num_experts": 8,
        "num_experts_per_tok": 2, "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention",
                        "full_attention", "linear_attention", "qwen_sparse_attention",
                        "linear_attention", "full_attention"]},
    "vision_config": {**QWEN35_VL_CONFIG["vision_config"], "model_type": "qwen4_exp"},
    "torch_dtype": "bfloat16"}
# ... without a vision tower: its config builds a default one (qwen4_exp.py:151-155)
QWEN4_EXP_BARE_CONFIG = {k: v for k, v in QWEN4_EXP_CONFIG.items() if k != "vision_config"}
# ... with one mHC stream (refused by its config, qwen4_exp.py:42-43), and PLE layers without
# the eos_token_id the N-gram embedding pads with (models/qwen4_exp.py:597) / with a list
QWEN4_EXP_HC1_CONFIG = {**QWEN4_EXP_CONFIG,
                        "text_config": {**QWEN4_EXP_CONFIG["text_config"], "hc_count": 1}}
QWEN4_EXP_NO_EOS_CONFIG = {**QWEN4_EXP_CONFIG, "text_config": {
    k: v for k, v in QWEN4_EXP_CONFIG["text_config"].items() if k != "eos_token_id"}}
QWEN4_EXP_EOS_LIST_CONFIG = {**QWEN4_EXP_CONFIG, "text_config": {
    **QWEN4_EXP_CONFIG["text_config"], "eos_token_id": [1, 2]}}
QWEN4_EXP_EOS_TEXT_CONFIG = {**QWEN4_EXP_CONFIG, "text_config": {
    **QWEN4_EXP_CONFIG["text_config"], "eos_token_id": "1", "ple_layer_ids": []}}
# Pure Mamba-1 / Falcon-Mamba (configs/mamba.py:27-81): every layer a mamba layer, the
# full-rank state `create_full_rank` (mamba_utils.py:245-290) of transformers' intermediate
# size expand x hidden_size, over the whole TP group; the dtype from the environment only
MAMBA1_CONFIG = {
    "architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 768,
    "num_hidden_layers": 4, "vocab_size": 50280, "state_size": 16, "expand": 2,
    "conv_kernel": 4, "torch_dtype": "bfloat16", "mamba_ssm_dtype": "bfloat16"}
FALCON_MAMBA_CONFIG = {
    "architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba",
    "hidden_size": 1024, "num_hidden_layers": 6, "vocab_size": 65024, "state_size": 16,
    "expand": 2, "conv_kernel": 3, "torch_dtype": "bfloat16"}
# Mamba-2 (configs/mamba2.py:22-57): `Mamba2StateShape.create` of the file's
# intermediate_size (transformers 5.25's Mamba2Config sets none, so a file without it is
# an AttributeError at SGLang's cache params: MAMBA2_BARE), 2 groups (widened at TP 4)
MAMBA2_CONFIG = {
    "architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": 1024,
    "num_hidden_layers": 4, "vocab_size": 32768, "state_size": 128, "expand": 2,
    "conv_kernel": 4, "num_heads": 32, "head_dim": 64, "n_groups": 2, "chunk_size": 128,
    "intermediate_size": 2048, "torch_dtype": "bfloat16"}
MAMBA2_BARE_CONFIG = {k: v for k, v in MAMBA2_CONFIG.items() if k != "intermediate_size"}
# MiniCPM-SALA (configs/minicpm.py:18-194): lightning layers by `mixer_types` (repeated over
# the layers), the SSM-only state (lightning_nkv, head_dim, head_dim); its override turns
# the radix cache off and refuses attention DP (arg_groups/model_overrides/minicpm.py:14-26)
MINICPM_CONFIG = {
    "architectures": ["MiniCPMSALAForCausalLM"], "model_type": "minicpm_sala",
    "hidden_size": 1024, "num_hidden_layers": 5, "num_attention_heads": 16,
    "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": CONTEXT,
    "mixer_types": ["lightning", "lightning_attn", "minicpm4"], "lightning_nh": 8,
    "lightning_nkv": 8, "lightning_head_dim": 64, "torch_dtype": "bfloat16"}
# Nemotron-H Nano VL V2 (configs/nano_nemotron_vl.py:42-116): a NemotronHConfig under
# `llm_config` (mamba2_config returns it, hybrid_arch.py:96-97), multimodal by its
# architecture; not routed through the hybrid-mamba radix cache
NEMOTRON_VL_CONFIG = {
    "architectures": ["NemotronH_Nano_VL_V2"], "model_type": "NemotronH_Nano_VL_V2",
    "llm_config": {k: v for k, v in NEMOTRON_CONFIG.items() if k != "architectures"}
    | {"architectures": ["NemotronHForCausalLM"]},
    "vision_config": {"model_type": "radio", "hidden_size": 256, "num_hidden_layers": 2,
                      "num_attention_heads": 4, "image_size": 224, "patch_size": 16},
    "force_image_size": 224, "patch_size": 16, "torch_dtype": "bfloat16",
    # stated, as the checkpoints do (the class default is a stubbed import on CPU)
    "norm_mean": [0.485, 0.456, 0.406], "norm_std": [0.229, 0.224, 0.225]}
# Nemotron-H Nano Omni V3 (configs/nano_nemotron_vl.py:180-186): the Nano VL V2 class under
# its own model_type, not in the radix-cache list (arg_groups/overrides.py:369-399)
NANO_OMNI_CONFIG = {**NEMOTRON_VL_CONFIG, "architectures": ["NemotronH_Nano_Omni_Reasoning_V3"],
                    "model_type": "NemotronH_Nano_Omni_Reasoning_V3"}
# the full Nemotron-H Omni V3 (configs/nano_nemotron_vl.py:189-198): Nano Omni V3's class
# under model_type nemotron_h_omni, its llm_config's layers_block_type in the new names
# (linear_attention / full_attention, aliased by its class, :33-39) and the vision tower's
# video_temporal_patch_size as transformers' own class requires it; OMNI_FULL_ODD without
# it (None against the top level's 2: transformers' validate_architecture refuses it)
OMNI_FULL_CONFIG = {
    **NEMOTRON_VL_CONFIG, "architectures": ["NemotronH_Omni_Reasoning_V3"],
    "model_type": "nemotron_h_omni",
    "vision_config": {**NEMOTRON_VL_CONFIG["vision_config"], "video_temporal_patch_size": 2},
    "llm_config": {
        **{k: v for k, v in NEMOTRON_CONFIG.items() if k != "hybrid_override_pattern"},
        "layers_block_type": ["linear_attention", "mlp", "linear_attention", "full_attention",
                              "mlp", "linear_attention", "moe"],
        "n_routed_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256}}
OMNI_FULL_ODD_CONFIG = {**OMNI_FULL_CONFIG, "vision_config": NEMOTRON_VL_CONFIG["vision_config"]}
# Inkling (configs/inkling.py): six bf16 conv states a layer over every layer (two full-KV,
# two sliding-window-KV, two stream wide, :217-256), the KV widths max(1, heads // TP) x
# head dim; 2 sliding-window KV heads of 128 (replicated past TP 2); its override's
# mamba_full_memory_ratio 0.1 and extra buffer (model_overrides/inkling.py:41-60)
INKLING_CONFIG = {
    "architectures": ["InklingForConditionalGeneration"], "model_type": "inkling_mm_model",
    "text_config": {
        "model_type": "inkling_model", "hidden_size": 1024, "intermediate_size": 2048,
        "num_hidden_layers": 6, "num_attention_heads": 16, "num_key_value_heads": 4,
        "head_dim": 64, "swa_num_key_value_heads": 2, "swa_head_dim": 128,
        "local_layer_ids": [0, 1, 3, 4], "sliding_window_size": 512, "use_sconv": True,
        "sconv_kernel_size": 4, "vocab_size": 32000, "max_position_embeddings": CONTEXT},
    "torch_dtype": "bfloat16"}
# ... a text config leaving most to the class defaults (1536 wide, 12 heads of 128, 4 KV
# heads, inkling.py:24-88), 5 layers, kernel 3, with a banded draft depth from mtp_config
# (:334-344); INKLING_MTP: the same file under the MTP architecture (served as the target it
# is multimodal by default, configs/model_config.py:690-702: the cap left unrestated)
INKLING_DEFAULTS_CONFIG = {
    "architectures": ["InklingForConditionalGeneration"], "model_type": "inkling_mm_model",
    "text_config": {"num_hidden_layers": 5, "local_layer_ids": [1, 2], "vocab_size": 32000,
                    "max_position_embeddings": CONTEXT, "sconv_kernel_size": 3},
    "mtp_config": {"n_layers": 2, "local_layer_ids": [1]}, "torch_dtype": "bfloat16"}
INKLING_MTP_CONFIG = {**INKLING_DEFAULTS_CONFIG,
                      "architectures": ["InklingForConditionalGenerationMTP"]}
# ... a hidden size TP 4 does not divide (--enable-scattered-sconv asserts it, :237-239)
INKLING_ODD_CONFIG = {**INKLING_CONFIG, "text_config": {
    **INKLING_CONFIG["text_config"], "hidden_size": 1026, "num_attention_heads": 18,
    "head_dim": 57}}
# ... a banded MTP head geometry the config asserts equal to the trunk's (:118-126)
INKLING_MTP_BAD_CONFIG = {**INKLING_CONFIG, "text_config": {
    **INKLING_CONFIG["text_config"], "num_nextn_predict_layers": 2,
    "mtp_local_layer_ids": [1], "mtp_swa_head_dim": 64}}
# InternS2-Preview (configs/interns2preview.py): a Qwen3.5-MoE config, its GDN text config
# under text_config, with a vision tower
INTERNS2_CONFIG = {
    **QWEN35_VL_CONFIG, "architectures": ["InternS2PreviewForConditionalGeneration"],
    "model_type": "intern_s2_preview",
    "text_config": {**QWEN35_VL_CONFIG["text_config"], "model_type": "qwen3_5_moe_text",
                    "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 512,
                    "shared_expert_intermediate_size": 512},
    "vision_config": {**QWEN35_VL_CONFIG["vision_config"], "model_type": "intern_s2_preview"}}
NEMOTRON, FALCON, FALCON_AUTO, QWEN35_VL = GRANITE + 1, GRANITE + 2, GRANITE + 3, GRANITE + 4
KIMI, LFM2, LFM2_MOE, KIMI_K3 = GRANITE + 5, GRANITE + 6, GRANITE + 7, GRANITE + 8
GLM5, GLM5_ATTN, JET = GRANITE + 9, GRANITE + 10, GRANITE + 11
BAILING_LIGHTNING, BAILING_KDA, GIGACHAT = GRANITE + 12, GRANITE + 13, GRANITE + 14
GIGACHAT_FULL, ZAYA, ZAYA_LIST = GRANITE + 15, GRANITE + 16, GRANITE + 17
GLM5_TEXT_ONLY, LFM2_VL = GRANITE + 18, GRANITE + 19
MAMBA1, FALCON_MAMBA, MAMBA2 = GRANITE + 20, GRANITE + 21, GRANITE + 22
MAMBA2_BARE = GRANITE + 23
MINICPM, NEMOTRON_VL, INTERNS2 = GRANITE + 24, GRANITE + 25, GRANITE + 26
ZAYA_ODD, ZAYA_GQA = GRANITE + 27, GRANITE + 28
QWEN4_EXP, BAILING_LIST, BAILING_NULL_HEAD = GRANITE + 29, GRANITE + 30, GRANITE + 31
QWEN4_EXP_BARE = GRANITE + 32  # undrawn: keep it after every drawn one
QWEN4_EXP_HC1, QWEN4_EXP_NO_EOS = GRANITE + 33, GRANITE + 34  # undrawn too
QWEN4_EXP_EOS_LIST, QWEN4_EXP_EOS_TEXT = GRANITE + 35, GRANITE + 36
NANO_OMNI = GRANITE + 37
OMNI_FULL, OMNI_FULL_ODD = GRANITE + 38, GRANITE + 39
INKLING, INKLING_DEFAULTS, INKLING_ODD = GRANITE + 40, GRANITE + 41, GRANITE + 42
INKLING_MTP_BAD, INKLING_MTP = GRANITE + 43, GRANITE + 44
OTHER_CONFIGS = {GRANITE: ("granite", GRANITE_CONFIG), NEMOTRON: ("nemotronh", NEMOTRON_CONFIG),
                 FALCON: ("falconh1", FALCON_CONFIG),
                 FALCON_AUTO: ("falconh1auto", FALCON_AUTO_CONFIG),
                 QWEN35_VL: ("qwen35vl", QWEN35_VL_CONFIG), KIMI: ("kimilinear", KIMI_CONFIG),
                 LFM2: ("lfm2", LFM2_CONFIG), LFM2_MOE: ("lfm2moe", LFM2_MOE_CONFIG),
                 KIMI_K3: ("kimik3", KIMI_K3_CONFIG), GLM5: ("glm5next", GLM5_CONFIG),
                 GLM5_ATTN: ("glm5nextattn", GLM5_ATTN_CONFIG), JET: ("jet", JET_CONFIG),
                 BAILING_LIGHTNING: ("bailinglightning", BAILING_LIGHTNING_CONFIG),
                 BAILING_KDA: ("bailingkda", BAILING_KDA_CONFIG),
                 GIGACHAT: ("gigachat35", GIGACHAT_CONFIG),
                 GIGACHAT_FULL: ("gigachat35full", GIGACHAT_FULL_CONFIG),
                 ZAYA: ("zaya", ZAYA_CONFIG), ZAYA_LIST: ("zayalist", ZAYA_LIST_CONFIG),
                 GLM5_TEXT_ONLY: ("glm5nexttext", GLM5_TEXT_ONLY_CONFIG),
                 LFM2_VL: ("lfm2vl", LFM2_VL_CONFIG),
                 MAMBA1: ("mamba1", MAMBA1_CONFIG),
                 FALCON_MAMBA: ("falconmamba", FALCON_MAMBA_CONFIG),
                 MAMBA2: ("mamba2", MAMBA2_CONFIG),
                 MAMBA2_BARE: ("mamba2bare", MAMBA2_BARE_CONFIG),
                 MINICPM: ("minicpmsala", MINICPM_CONFIG),
                 NEMOTRON_VL: ("nemotronhvl", NEMOTRON_VL_CONFIG),
                 INTERNS2: ("interns2", INTERNS2_CONFIG),
                 ZAYA_ODD: ("zayaodd", ZAYA_ODD_CONFIG), ZAYA_GQA: ("zayagqa", ZAYA_GQA_CONFIG),
                 QWEN4_EXP: ("qwen4exp", QWEN4_EXP_CONFIG),
                 BAILING_LIST: ("bailinglist", BAILING_LIST_CONFIG),
                 BAILING_NULL_HEAD: ("bailingnullhead", BAILING_NULL_HEAD_CONFIG)}
# directories model_dir writes that the generated lines do not draw (ALL_SHAPES leaves them
# out): Qwen4-Exp without a vision tower, whose cap graphfit leaves unrestated
UNDRAWN_CONFIGS = {QWEN4_EXP_BARE: ("qwen4expbare", QWEN4_EXP_BARE_CONFIG),
                   QWEN4_EXP_HC1: ("qwen4exphc1", QWEN4_EXP_HC1_CONFIG),
                   QWEN4_EXP_NO_EOS: ("qwen4expnoeos", QWEN4_EXP_NO_EOS_CONFIG),
                   QWEN4_EXP_EOS_LIST: ("qwen4expeoslist", QWEN4_EXP_EOS_LIST_CONFIG),
                   QWEN4_EXP_EOS_TEXT: ("qwen4expeostext", QWEN4_EXP_EOS_TEXT_CONFIG),
                   NANO_OMNI: ("nanoomni", NANO_OMNI_CONFIG),
                   OMNI_FULL: ("omnifull", OMNI_FULL_CONFIG),
                   OMNI_FULL_ODD: ("omnifullodd", OMNI_FULL_ODD_CONFIG),
                   INKLING: ("inkling", INKLING_CONFIG),
                   INKLING_DEFAULTS: ("inklingdefaults", INKLING_DEFAULTS_CONFIG),
                   INKLING_ODD: ("inklingodd", INKLING_ODD_CONFIG),
                   INKLING_MTP_BAD: ("inklingmtpbad", INKLING_MTP_BAD_CONFIG),
                   INKLING_MTP: ("inklingmtp", INKLING_MTP_CONFIG)}
ALL_SHAPES = len(SHAPES) + len(OTHER_CONFIGS)  # model_dir(0 .. ALL_SHAPES - 1)


@functools.cache
def model_dir(shape: int) -> str:
    if shape in OTHER_CONFIGS or shape in UNDRAWN_CONFIGS:
        name, data = OTHER_CONFIGS.get(shape) or UNDRAWN_CONFIGS[shape]
        directory = Path(tempfile.mkdtemp(prefix=f"graphfit-sglang-{name}-"))
        (directory / "config.json").write_text(json.dumps(data))
        return str(directory)
    layers, interval, k_heads, v_heads, k_dim, v_dim, kernel, dtype = SHAPES[shape]
    directory = Path(tempfile.mkdtemp(prefix=f"graphfit-sglang-qnext{shape}-"))
    config: dict[str, Any] = {
        "architectures": [ARCHITECTURE], "model_type": "qwen3_next", "hidden_size": 2048,
        "intermediate_size": 5632, "num_hidden_layers": layers, "num_attention_heads": 16,
        "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
        "max_position_embeddings": CONTEXT, "full_attention_interval": interval,
        "linear_conv_kernel_dim": kernel, "linear_key_head_dim": k_dim,
        "linear_value_head_dim": v_dim, "linear_num_key_heads": k_heads,
        "linear_num_value_heads": v_heads, "num_experts": 8, "num_experts_per_tok": 2,
        "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
        "torch_dtype": "bfloat16", "rms_norm_eps": 1e-6, "rope_theta": 10000000}
    if dtype is not None:
        config["mamba_ssm_dtype"] = dtype
    (directory / "config.json").write_text(json.dumps(config))
    return str(directory)


# `kvc.gc` while `sized` runs: a collector whose collect() frees nothing (see there)
_NO_GC = types.SimpleNamespace(collect=lambda *args: 0)


@dataclass(frozen=True)
class Sized:
    """What SGLang computed: the state cache size, its request pool, the static fraction it
    used and its mamba_cache_per_req."""

    cache_size: int
    pool: int
    mem_fraction_static: float
    per_request: int
    radix_off: bool = False  # SGLang's resolved disable_radix_cache (get_memory())


def sized(r: so.Resolved, preload_gb: float, weights_gb: float,
          token_capacity: int = 10**8, gpu_gb: float | None = None) -> Sized | str:
    """SGLang's state cache and pool for this rank, or the text of its refusal. Whether KV is
    sized after capture is SGLang's own answer on the resolved arguments
    (`is_post_capture_kv_active`, kv_pool_runtime.py:34-48, on CUDA; the variable
    SGLANG_ENABLE_POST_CAPTURE_KV_SIZING as os.environ holds it); `gpu_gb`: the device's
    memory `get_device_memory_capacity` reports then (runtime_context.py:1817)."""
    with sglang_stubs.imports():
        from sglang.srt.arg_groups.overrides import (
            model_config_of,
            post_capture_kv_sizing_planned,
        )
        from sglang.srt.configs.hybrid_arch import (
            hybrid_gdn_config,
            hybrid_kda_config,
            mambaish_config,
        )
        from sglang.srt.mem_cache import kv_cache_configurator as kvc
        from sglang.srt.runtime_context import get_memory, get_parallel, get_schedule
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    # one process stands for the rank: no WORLD group to reduce over (the measured figure
    # is replaced below anyway)
    world = types.SimpleNamespace(cpu_group=None)
    with so.published(r), get_parallel().override(world_group=world):
        mc = model_config_of(r.record)
        try:
            cfg = mambaish_config(mc)
        except AssertionError as exc:  # Inkling's scattered-sconv assertion (inkling.py:237)
            return f"AssertionError: {exc}"
        this = types.SimpleNamespace(
            attn_dp_size=max(1, r.attn_dp_size), pp_size=get_parallel().pp_size,
            mambaish_config=cfg,
            model_config=types.SimpleNamespace(
                context_len=CONTEXT, num_hidden_layers=mc.num_hidden_layers,
                is_multimodal=mc.is_multimodal),
            spec_algorithm=SpeculativeAlgorithm.from_string(r.speculative_algorithm),
            hybrid_gdn_config=hybrid_gdn_config(mc), hybrid_kda_config=hybrid_kda_config(mc),
            extra_mamba_cache_bytes_per_req=0, fused_entry_bytes=lambda kind: None,
            post_capture_kv_active=bool(post_capture_kv_sizing_planned(r.record)),
            device="cuda", gpu_id=0)
        cls = kvc.KVCacheConfigurator
        this._calculate_mamba_ratio = functools.partial(cls._calculate_mamba_ratio, this)
        this._handle_max_mamba_cache = functools.partial(cls._handle_max_mamba_cache, this)
        parallel = get_parallel()
        if type(cfg).__name__ == "ZayaConfig" and parallel.attn_tp_size != parallel.tp_size:
            # the model's own assertion at load, before the cache is sized (models/zaya.py:
            # 911-916), on SGLang's own resolved parallel state
            return "AssertionError: attention DP is not supported for ZAYA1"
        if type(cfg).__name__ == "ZayaConfig":
            # its attention's and CCA's head-count assertions at load (models/zaya.py:917-925,
            # then 460-471), on SGLang's own ZayaConfig (the per-layer lists resolved by it)
            # and resolved TP width
            heads, groups, tp = cfg.num_attention_heads, cfg.num_query_groups, parallel.tp_size
            if heads % tp or groups % tp:
                return f"AssertionError: head counts ({heads}, {groups}) not divisible by {tp}"
            if heads % groups:
                return "AssertionError: num_q_heads must be a multiple of num_k_heads"
        text = getattr(mc.hf_config, "text_config", None)
        if type(text).__name__ == "Qwen4ExpTextConfig" and text.ple_layer_ids:
            # its PLE N-gram embedding's `int(config.eos_token_id)` at load (models/
            # qwen4_exp.py:597), on SGLang's own text config
            try:
                int(getattr(text, "eos_token_id", None))  # type: ignore[arg-type]
            except (TypeError, ValueError) as exc:
                return f"{type(exc).__name__}: {exc}"
        measured, capacity = kvc.get_available_gpu_memory, kvc.get_device_memory_capacity
        kvc.get_available_gpu_memory = lambda *a, **k: preload_gb - weights_gb
        # its `gc.collect()` before measuring (kv_cache_configurator.py:2999) frees the weight
        # loader's CUDA temporaries; here it only walks the test process's Python heap (0.3 s
        # a line, more in a full run) while the measured figure is the one given above
        kvc.gc = _NO_GC
        kvc.get_device_memory_capacity = lambda *a, **k: (  # MiB, as nvidia-smi reports
            None if gpu_gb is None else gpu_gb * 1024)
        try:
            try:
                per_request = int(cfg.mamba2_cache_params.mamba_cache_per_req)
                cls._profile_available_bytes(this, preload_gb)
                pool = int(cls.resolve_max_num_reqs(this, token_capacity))
            except (RuntimeError, ValueError, AssertionError, AttributeError) as exc:
                return f"{type(exc).__name__}: {exc}"
        finally:
            kvc.get_available_gpu_memory = measured
            kvc.get_device_memory_capacity = capacity
            kvc.gc = gc
        schedule = get_schedule()
        return Sized(int(schedule.max_mamba_cache_size), pool,
                     float(schedule.mem_fraction_static), per_request,
                     bool(get_memory().disable_radix_cache))


SSM_ENV = "SGLANG_MAMBA_SSM_DTYPE"  # --mamba-ssm-dtype writes it (serving_hook.py:439-440)


# the other variables the memory solve reads (graphfit.inputs.sglang_mamba_env): each is read
# when SGLang prices the state or sizes the cache (mamba_utils.py:68, distributed/utils.py:118,
# kv_cache_configurator.py:210-212), so they stay set through `sized`
OTHER_ENV = ("SGLANG_MAMBA_CONV_DTYPE", "SGLANG_PP_LAYER_PARTITION",
             "SGLANG_VLM_CACHE_SIZE_MB", "SGLANG_MM_FEATURE_CACHE_MB")


def resolve(argv: tuple[str, ...], gpu_gb: float, shape: int,
            env_ssm: str | None = None,
            env: tuple[tuple[str, str], ...] = ()) -> so.Resolved | so.Rejected:
    """SGLang's resolution of one line in a fresh process's environment: what a previous
    line's flags (or `env`) wrote into os.environ is dropped first; `env_ssm`:
    the line's own SGLANG_MAMBA_SSM_DTYPE (read when the state shape is priced, after the
    flag has overwritten it); `env`: its other variables (OTHER_ENV)."""
    import os

    os.environ.pop(SSM_ENV, None)
    for name in OTHER_ENV:
        os.environ.pop(name, None)
    for name, value in env:
        assert name in OTHER_ENV, name
        os.environ[name] = value
    # and the transport a previous line's --mm-feature-transport wrote (serving_hook.py:
    # 940-942), which a line without the flag would read back as the legacy switch (:811-821)
    os.environ.pop("SGLANG_USE_CUDA_IPC_TRANSPORT", None)
    if env_ssm is not None:
        os.environ[SSM_ENV] = env_ssm
    return so.resolve(argv, gpu_mem_gb=gpu_gb, model=model_dir(shape))
