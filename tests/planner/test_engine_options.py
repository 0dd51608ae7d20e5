"""Engine-neutral config + per-engine options objects (issue 20): each engine's options are
validated at construction, the flat compatibility keywords build the same config (and so the
same plan) as the options object, another engine's options are refused, and plan documents
written before options objects (graphfit.plan/2) are still read."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphfit.inputs.engine_file import load_engine_file
from graphfit.planner import EngineConfig, plan
from graphfit.planner.config import KEYWORDS, LEGACY_KEYWORDS
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.options import EngineOptions, NoOptions
from graphfit.planner.engines import registry
from graphfit.planner.engines.base import options_type
from graphfit.planner.engines.sglang_options import SglangOptions
from graphfit.planner.engines.trtllm_options import TrtllmOptions
from graphfit.planner.engines.vllm.options import VllmOptions
from graphfit.testing import engine_configs
from tests.helpers import ROOT, run_cli

DATA = Path(__file__).parent / "data"
OPTIONS = (VllmOptions, SglangOptions, TrtllmOptions)

# values each option takes (valid) and values it must refuse
VALID: dict[str, st.SearchStrategy[Any]] = {
    "runner": st.sampled_from([None, "v1", "v2", "V1", "V2"]),
    "ceiling_family": st.sampled_from(["default", "blackwell", "BLACKWELL"]),
    "performance_mode": st.sampled_from(["balanced", "interactivity", "throughput"]),
    "attention_backend": st.none() | st.sampled_from(["flash_attn", " FLASHINFER ", "x"]),
    "attention_cudagraph_support": st.sampled_from(
        [None, "NEVER", "UNIFORM_SINGLE_TOKEN_DECODE", "UNIFORM_BATCH", "ALWAYS"]),
    "drafter_attention_cudagraph_support": st.sampled_from([None, "ALWAYS", "NEVER"]),
    "dspark_sample_from_anchor": st.booleans(),
    "gpu_memory_gb": st.none() | st.floats(0.5, 4096) | st.integers(1, 4096),
    "tp_size": st.integers(1, 64),
    "attn_dp_size": st.integers(1, 64),
    "attn_cp_size": st.integers(1, 64),
    "two_batch_overlap": st.booleans(),
    "moe_a2a_backend": st.sampled_from(["none", "deepep", "mooncake", "nixl",
                                        "ascend_fuseep", "ascend_tp", "DeepEP", "mori",
                                        "pplx", "megamoe", "MegaMoE", "deepep_v2",
                                        "flashinfer", "flashinfer_megamoe"]),
    "draft_len_schedule": st.none() | st.lists(st.integers(1, 4096), min_size=1, max_size=6),
    # vLLM 0.34's split sizes: any integers (vLLM drops those outside its range), [] too
    "prefill_cudagraph_capture_token_sizes": st.none() | st.lists(st.integers(-8, 9000)),
    "decode_cudagraph_capture_request_sizes": st.none() | st.lists(st.integers(-8, 9000)),
    "max_prefill_cudagraph_capture_tokens": st.none() | st.integers(0, 10**6),
    "max_decode_cudagraph_capture_requests": st.none() | st.integers(0, 10**6),
    "max_decode_cudagraph_capture_tokens": st.none() | st.integers(1, 10**6),
    "draft_aux_layers": st.none() | st.integers(0, 64),
    "max_beam_width": st.integers(1, 16),
    "parallel_draft": st.booleans(),
    "prefill_cuda_graph_backend": st.sampled_from(["disabled", "piecewise", "breakable",
                                                   " Piecewise "]),
    "prefill_capture_num_tokens": st.none() | st.lists(st.integers(-8, 9000), max_size=6),
    "torch_compile": st.booleans(),
    "cuda_graph_mode": st.sampled_from(["decode", " Decode ", "encode"]),
    "encode_num_tokens": st.none() | st.lists(st.integers(1, 9000), min_size=1, max_size=6),
    "encode_seq_lens": st.none() | st.lists(st.integers(1, 9000), min_size=1, max_size=6),
    "encoder_graph_batch_sizes": st.none() | st.lists(st.integers(1, 512), min_size=1,
                                                      max_size=6),
    "encoder_graph_padding": st.booleans(),
    "encoder_graph_num_tokens": st.none() | st.lists(st.integers(1, 9000), min_size=1,
                                                     max_size=6),
    "encoder_graph_seq_lens": st.none() | st.lists(st.integers(1, 9000), min_size=1,
                                                   max_size=6),
    "encoder_max_batch_size": st.none() | st.integers(1, 4096),
    "encoder_max_num_tokens": st.none() | st.integers(1, 10**6),
    "encode_only": st.booleans(),
    "encoder_fixed_slots": st.booleans(),
    "encoder_feature_spec": st.none() | st.tuples(
        st.lists(st.integers(1, 480000), min_size=1, max_size=3),
        st.sampled_from(["float32", "bfloat16", "float16"]), st.integers(1, 4096)),
    "mm_encoder_graphs": st.none() | st.lists(st.tuples(
        st.sampled_from(["image", "video", "audio"]),
        st.lists(st.tuples(st.integers(1, 8192), st.integers(1, 8)).filter(
            lambda p: p[0] >= p[1]), min_size=1, max_size=4), st.booleans()),
        max_size=3, unique_by=lambda m: m[0]),
    "mm_encoder_inputs": st.none() | st.lists(st.tuples(
        st.sampled_from(["image", "video", "audio"]),
        st.lists(st.tuples(st.sampled_from(["x", "cos", "sin"]),
                           st.lists(st.integers(1, 4096), max_size=2),
                           st.sampled_from(["bfloat16", "float32"])),
                 min_size=1, max_size=3, unique_by=lambda i: i[0])),
        max_size=3, unique_by=lambda m: m[0]),
    "tensor_parallel_size": st.integers(1, 64),
    "enable_attention_dp": st.booleans(),
    "cuda_graph_backend_prefill": st.sampled_from([None, "breakable", "full", "disabled",
                                                   " FULL "]),
    "cuda_graph_max_bs_prefill": st.none() | st.integers(1, 65536),
    "cuda_graph_bs_prefill": st.none() | st.lists(st.integers(1, 8192), min_size=1,
                                                  max_size=6),
    "chunked_prefill_size": st.none() | st.integers(1, 65536),
    "full_prefill_max_req": st.none() | st.integers(1, 4096),
    "disaggregation_mode": st.sampled_from(["null", "prefill", "decode", "Decode"]),
    "pp_size": st.integers(1, 16),
    "max_total_tokens": st.none() | st.integers(2, 10**7),
    "multi_layer_eagle": st.booleans(),
    "mtp_draft_backend": st.sampled_from([None, "fa3", "FA4", " flashinfer ", "triton",
                                          "hybrid_linear_attn", "trtllm_mha"]),
    "single_cg_draft": st.booleans(),
    "speculative_adaptive": st.booleans(),
    "frozen_kv_mtp": st.booleans(),
    "dspark_samples_anchor": st.booleans(),
    "dflash_domino": st.booleans(),
    "dflash_selector_top_k": st.none() | st.integers(1, 64),
    "dspark_proposal": st.sampled_from(["sampling", "greedy", "eager", " Greedy "]),
    "dspark_mid_fold": st.booleans(),
    "dspark_post_forward_graph": st.booleans(),
    "ragged_verify_mode": st.sampled_from(["static", "compact", "cap-accept", "other"]),
    "dspark_target_layers": st.none() | st.integers(1, 8),
    "dflash_lilicorr_top_k": st.none() | st.integers(1, 64),
    "dflash_lilicorr_head": st.none() | st.tuples(st.integers(0, 8192), st.integers(1, 64),
                                                  st.integers(1, 512)),
    "dflash_eager_sampler": st.booleans(),
    "mem_fraction_static": st.none() | st.floats(0.01, 0.99),
    "sm90": st.sampled_from([None, True, False]),
    "vision_layers": st.none() | st.integers(1, 200),
    "vision_hidden_size": st.none() | st.integers(1, 16384),
    "max_mamba_cache_size": st.none() | st.integers(1, 10**6),
    "disable_radix_cache": st.booleans(),
    "mamba_radix_cache_strategy": st.sampled_from(["auto", "no_buffer", "extra_buffer",
                                                   "extra_buffer_lazy", " Extra_Buffer "]),
    "disable_overlap_schedule": st.booleans(),
    "page_size": st.integers(1, 256),
    "mamba_state_shape": st.none() | st.lists(st.integers(1, 4096), min_size=6, max_size=6)
    .map(lambda v: [*v, 4]) | st.just([3, 1024, 1, 1, 1024, 0, 3])  # LFM2: conv only
    | st.just([3, 0, 0, 16, 64, 64, 1])  # Bailing lightning: SSM only
    | st.just([3, 1280, 1, 1, 1, 0, 3, 1024]),  # Zaya: + a whole conv state
    "mamba_ssm_dtype": st.sampled_from([None, "float32", "bfloat16", " Float16 "]),
    "mamba_full_memory_ratio": st.none() | st.floats(0.01, 10),
    "weights_gb": st.none() | st.floats(0, 200),
    "preload_avail_gb": st.none() | st.floats(0.5, 200),
    "mamba_memory_slots": st.none() | st.integers(1, 10**6),
    "linear_attn_backend": st.sampled_from(["triton", "flashinfer", " Helion ", "cutedsl"]),
    "mamba_track_interval": st.integers(1, 4096),
    "mamba_chunk_size": st.none() | st.sampled_from([64, 128, 256]),
    "mamba_layer_map": st.none() | st.lists(st.sampled_from([0, 1]), min_size=1, max_size=64)
    .map(lambda v: [*v, 1]),
    "mm_feature_transport": st.sampled_from([None, "cpu", "cuda_ipc", " CUDA_VMM "]),
    "mamba_conv_dtype": st.sampled_from([None, "float32", "bfloat16", " Float16 "]),
    "pp_layer_partition": st.sampled_from([None, "", "2,2", "x,1", "None"]),
    "vlm_cache_size_mb": st.none() | st.integers(0, 1 << 20),
    "mm_feature_cache_mb": st.none() | st.integers(0, 1 << 20),
    "enable_pd_role_switch": st.booleans(),
    "enable_unified_memory": st.booleans(),
    "enable_dp_lm_head": st.booleans(),
    "dp_spec_prefill_coordination": st.booleans(),
    "deepep_mode": st.sampled_from(["auto", "normal", "low_latency", "Normal"]),
    # megamoe: the alias of --moe-a2a-backend megamoe (mega_moe_hook.py:259-276)
    "moe_runner_backend": st.sampled_from(["auto", "deep_gemm", "triton", "Flashinfer_Cutlass",
                                           "megamoe"]),
    "speculative_moe_a2a_backend": st.sampled_from([None, "none", "deepep", "Mooncake",
                                                    "megamoe"]),
    "vit": st.none() | st.tuples(
        st.sampled_from([
            [["family", "qwen2_5_vl"], ["hidden_size", 1280], ["num_heads", 16],
             ["window_size", 112], ["fullatt_blocks", [7, 15]], ["max_context_len", 4096]],
            [["family", "qwen3_vl"], ["hidden_size", 64], ["num_heads", 4], ["tp", 2]]]),
        st.lists(st.tuples(st.integers(1, 2), st.integers(1, 6), st.integers(1, 6)).map(
            lambda g: [g[0], 2 * g[1], 2 * g[2]]), min_size=1, max_size=3),
        st.integers(1, 2)).map(lambda v: [*v[0], ["images", v[1]], ["max_images", v[2]]])
    | st.integers(1, 4).map(lambda n: {"family": "internvl", "hidden_size": 64,
                                       "num_heads": 4, "tokens_per_tile": 257,
                                       "images": [[1, 1, 1]], "max_images": n}),
    "sm100": st.sampled_from([None, True, False]),
    "quant_method": st.sampled_from([None, "modelopt_fp4", "fp8", "mxfp8"]),
    "quant_algo": st.sampled_from([None, "NVFP4", "FP8", "MIXED_PRECISION"]),
    "megamoe_tokens_per_rank": st.integers(-10**6, 10**6),  # any sign (s63k)
    "mori_dispatch_tokens_per_rank": st.integers(-10**6, 10**6),
    "pplx_dispatch_tokens_per_rank": st.integers(-10**6, 10**6),
    "deepep_v2_dispatch_tokens_per_rank": st.integers(-10**6, 10**6),
    "flashinfer_dispatch_tokens_per_rank": st.none() | st.integers(-10**6, 10**6),
    "moe_fp4_checkpoint": st.sampled_from([None, True, False]),
    "megamoe_combine_dtype": st.sampled_from(["bf16", "mxfp8", "nvfp4", " NVFP4", "fp32"]),
    "megamoe_fc2_reduce": st.booleans(),
    "nvfp4_w4a16": st.booleans(),
    "post_capture_kv_sizing": st.none() | st.booleans(),
    "post_capture_declined": st.booleans(),
    "checkpoint_quant_method": st.sampled_from([None, "modelopt_fp4", "fp8", "w4afp8"]),
    "checkpoint_quant_config": st.sampled_from([None, {"quant_method": "awq", "bits": 4},
                                                '{"quant_method": "fp8"}']),
    "gpu_capability": st.sampled_from([None, 75, 80, 90, 100]),
    "decode_attention_backend": st.sampled_from([None, "aiter", "FA3", " triton "]),
    "draft_attention_backend": st.sampled_from([None, "aiter", "flashinfer"]),
    "mooncake_protocol": st.sampled_from(["rdma", "efa", "EFA", ""]),
    "disaggregation_transfer_backend": st.sampled_from(["mooncake", "nixl", "mooncake_tcp"]),
    "dynamic_chunking": st.booleans(),
    "max_prefill_tokens": st.integers(1, 10**6),
    "hybrid_swa": st.none() | st.booleans(),
    "checkpoint_fp8_experts": st.none() | st.booleans(),
    "kimi_mxfp4_pack": st.none() | st.booleans(),
    "dsa_index_kpool": st.sampled_from([1, 2, 4]),
    "mamba_head_counts": st.sampled_from([None, (8, 4), [16, 16], (1, 1)]),
    "enable_eplb": st.booleans(),
    "ep_num_redundant_experts": st.sampled_from([0, 2, 32]),
    "init_expert_location": st.sampled_from(["trivial", "/tmp/location.json"]),
    "jit_deepgemm": st.booleans(),
    "hf_config_quant": st.sampled_from([None, "absent", {"quant_algo": "MXFP8"}]),
    "inkling_conv_state": st.sampled_from([None, (6, 4, 4, 64, 2, 128, 1024),
                                           [16, 2, 1, 1, 1, 1, 1]]),
    "enable_scattered_sconv": st.booleans(),
    "prefill_max_requests": st.none() | st.integers(1, 4096),
    "ep_size": st.integers(1, 16),
    "ep_join_mode": st.sampled_from([None, "scale", "recover"]),
    "ep_dispatch_algorithm": st.sampled_from([None, "dynamic", "fake", "lp", "static"]),
    "moe_block_experts": st.none() | st.lists(st.integers(1, 512), max_size=4).map(tuple),
    "prefill_attention_backend": st.sampled_from([None, "fa3", "FA4", " flashinfer "]),
    "disable_lazy_compaction": st.booleans(),
    "unified_switches": st.sampled_from([None, (), ("dcp",), ["enable_lmcache", "dcp"],
                                         ("hicache_storage_file", "decode_offload_kvcache")]),
    "moe_dp_size": st.integers(1, 16),
    "elastic_ep_backend": st.sampled_from([None, "mooncake", "NIXL", "none"]),
    "node_rank": st.integers(0, 8),
    "ep_join_rank_offset": st.integers(-4, 16),
    "max_ep_size": st.none() | st.integers(-2, 64),
    "elastic_ep_initial_size": st.none() | st.integers(-2, 64),
    "eplb_algorithm": st.sampled_from(["auto", "deepseek", "elasticity_aware"]),
    "draft_vocab_size": st.none() | st.integers(1, 1 << 20),
    "draft_dtype": st.sampled_from([None, "float16", " BFloat16 ", "float32"]),
    "draft_extend_hidden_size": st.none() | st.integers(1, 1 << 16),
    "swa_full_tokens_ratio": st.none() | st.floats(0.001, 1.0),
    "swa_prefix_tails": st.none() | st.integers(0, 4096),
    "disaggregation_decode_extra_slots": st.none() | st.integers(-512, 512),
    "disaggregation_decode_enable_radix_cache": st.booleans(),
    "dsv4_pool_shape": st.none() | st.tuples(
        st.tuples(st.integers(1, 512), st.integers(1, 128), st.integers(1, 256),
                  st.integers(1, 1024), st.integers(0, 1)),
        st.lists(st.sampled_from([0, 1, 2, 4, 128]), min_size=1, max_size=8),
        st.lists(st.integers(0, 8), max_size=4)),
    "dsv4_state_dtype": st.sampled_from([None, "float32", "bf16", " BF16 ", "fp8"]),
    "dsv4_env_unmodelled": st.sampled_from([None, "online c128 (SGLANG_OPT_USE_ONLINE_COMPRESS)"]),
    "dcp_size": st.integers(1, 16),
    "dcp_comm_backend": st.sampled_from([None, "a2a", "AG_RS", " fi_a2a "]),
    "unified_linear": st.sampled_from([None, (None, "triton", "triton"),
                                       ["flashinfer", "cutedsl", "flashinfer"]]),
    "asymmetric_kv": st.sampled_from([None, True, False]),
    "hook_cudagraph_mode": st.sampled_from([None, "NONE", "full", " Full_And_Piecewise "]),
    "hook_prefill_backend": st.sampled_from([None, "breakable", "FULL", "disabled"]),
    "enable_waterfill": st.booleans(),
    "dwdp_size": st.integers(-2, 16),
    "enable_aiter_allreduce_fusion": st.booleans(),
    "enable_deterministic_inference": st.booleans(),
    "rl_on_policy_target": st.sampled_from([None, "fsdp"]),
    "attention_backend_flag": st.sampled_from([None, "trtllm_mha", " FA3 "]),
    "context_parallel_size": st.integers(1, 64),
    "cp_type": st.sampled_from([None, "ulysses", " STAR ", "Ring", "helix"]),
    "moe_expert_parallel_size": st.none() | st.integers(1, 64),
    "dp_replicas": st.integers(1, 16),
    "enable_hisparse": st.booleans(),
    "dsv4_attn_backend": st.sampled_from([None, "auto", "flashmla", "flashmla_mega", "trtllm"]),
    "enable_encoder_swa_bounded_replay": st.booleans(),
    "moe_tensor_parallel_size": st.none() | st.integers(1, 64),
    "moe_cluster_parallel_size": st.none() | st.integers(1, 64),
    "moe_a2a_workspace_mb": st.sampled_from([None, "64", " 1_024 ", "x", "0"]),
    "moe_a2a_token": st.sampled_from([None, (7168, 8, 2), [4096, 2, 2]]),
    "inkling_draft_conv_state": st.sampled_from([None, (6, 4, 4, 64, 2, 128, 1024),
                                                 [1, 2, 1, 1, 1, 1, 1]]),
    "nnodes": st.integers(1, 16),
    "draft_quantization": st.sampled_from([None, "fp8", "mxfp8", "w4afp8"]),
    "kv_cache_dtype": st.sampled_from([None, "auto", "fp8_e4m3", "bfloat16", "bf16", "nvfp4"]),
    "draft_quant_config": st.sampled_from([None, '{"quant_method": "fp8"}',
                                           {"quant_method": "awq", "bits": 4}]),
    "enable_mixed_chunk": st.booleans(),
    "enable_lora": st.booleans(),
    "enable_session_radix_cache": st.booleans(),
    "minimax_sparse_kv": st.sampled_from([None, (4, 4, 128, 64, 0, 0, 2, 0, 1, 2, 1),
                                          [2, 1, 64, 128, 1, 1, 0, 1, 0, 1],
                                          (2, 4, 128, 64, 0, 0, 2, 0, 0, 0, 1, 3, 2, 8, 128,
                                           96, 3, 1, 0),
                                          (2, 4, 128, 64, 0, 0, 2, 0, 0, 0, 1, 4, 1)]),
    "dspark_draft_layers": st.none() | st.integers(1, 8),
    "prefill_cp_strategy": st.sampled_from([None, "zigzag", "interleave"]),
    "dspark_early_verify_metadata": st.booleans(),
    "draft_moe_class": st.sampled_from([None, "Qwen3MoeForCausalLMMTP", "MixtralForCausalLM",
                                        "DeepseekV3ForCausalLMNextN",
                                        "BailingMoeForCausalLMNextN",
                                        "Qwen3NextForCausalLMMTP",  # s62d
                                        "Qwen3_5ForCausalLMMTP"]),  # s63d
    "mnnvl_fabric": st.sampled_from([None, True, False]),
    "prefill_cp_hook_backend": st.sampled_from([None, "fa3", "trtllm_mha"]),
    "nixl_dispatch_tokens_per_rank": st.integers(-10**6, 10**6),  # any sign (s60k)
    "mooncake_dispatch_tokens_per_rank": st.integers(-10**6, 10**6),
    "moe_a2a_force_method": st.sampled_from([None, "", "NVLinkOneSided", "DeepEP", "x y"]),
    "moe_configurable": st.sampled_from([None, "", "1", "0"]),
    "trtllm_moe_backend": st.sampled_from([None, "CUTLASS", "WIDEEP", "AUTO"]),
    "moe_load_balancer": st.booleans(),
    "moe_comm_force_method": st.sampled_from([None, "", "nvlink_one_sided", "DEEPEP"]),
    "nvfp4_moe_layers": st.sampled_from([None, "first", "later", "none"]),
    "prefill_cp_family": st.sampled_from([None, "DSA", "MLA"]),
    "prefill_cp_given": st.sampled_from([None, (1, 1, 1, 1, "none"), (2, 1, 4, 8, "deepep")]),
    "cp_tp_group_sharing": st.booleans(),
    "moe_eplb_experts": st.sampled_from([None, 1, 8, 128]),
    "moe_auto_checkpoint": st.sampled_from([None, ("GptOssForCausalLM", "none"),
                                            ["", "unknown"], ("X", "fp8_block"),
                                            ("X", "w4a16_nvfp4"), ("X", "other")]),
    "speculative_moe_runner_backend": st.sampled_from([None, "triton", "deep_gemm",
                                                       "lora_triton"]),  # s63d
    "sm_version": st.sampled_from([None, 80, 90, 103, 120]),
    "enable_layernorm_sp": st.booleans(),
    "enable_megamoe_for_layernorm_sp": st.booleans(),
    "moe_nvfp4_dispatch": st.sampled_from([None, True, False]),
    "lora_backend": st.sampled_from([None, "csgmv", "triton_v2"]),  # s65d
    "lora_paths_given": st.booleans(),
    "max_lora_rank": st.sampled_from([None, 0, 8]),
    "lora_target_modules_given": st.booleans(),
    "max_loras_per_batch": st.sampled_from([8, 0, -1, 2]),  # s66l
    "enable_lora_overlap_loading": st.booleans(),
    "max_loaded_loras": st.sampled_from([None, 0, 16]),
    "lora_paths_count": st.sampled_from([0, 3]),
    "lora_target_all_mixed": st.booleans(),
    "lora_drain_wait_threshold": st.sampled_from([0.0, -1.0, 0.5, 2]),
    "enable_pdmux": st.booleans(),
    "lora_experimental_opti": st.booleans(),
    "overlap_plan_stream": st.booleans(),
    "lora_paths_invalid": st.sampled_from([None, "Invalid type for --lora-paths: <class 'str'>"]),
    "lora_disabled": st.booleans(),
    "draft_build_failure": st.sampled_from([None, "AttributeError: no attribute 'x'"]),
    "enable_torch_compile": st.booleans(),  # s67b
    "pp_spec": st.booleans(),
    "server_flag_refusals": st.sampled_from([None, (("ports", "gRPC (ValueError, x:1)"),)]),
    "dsa_checkpoint": st.sampled_from([None, True, False]),
    "dense_model": st.booleans(),  # s68m
    "disable_attn_tp_gather": st.booleans(),  # s68l
    "gpu_rocm": st.booleans(),
    "moe_dense_tp_size": st.sampled_from([None, 1, 2]),  # s68p
    "draft_mtp_unquantized": st.sampled_from([None, "modelopt_fp4", "modelopt_mixed", "quark"]),
    "target_build_failure": st.sampled_from([None, "TypeError: argument of type 'NoneType'"]),
    "model_chunk_off": st.sampled_from([None, True, False]),  # s69a
    "dsa_backends": st.sampled_from([None, ("flashmla_kv", None),
                                     (None, "triton"), ("tilelang", "aiter")]),  # s69b
    "nvfp4_ckpt_fp8_nextn_moe": st.booleans(),  # s69d
    "moe_disable_alltoallv": st.sampled_from([None, "", "1", "0", " 1"]),  # s69o
    "moe_can_use_deep_ep": st.sampled_from([None, "", "1", "0", "true"]),  # s69o
    "dsa_learnable_sink": st.sampled_from([None, True, False]),  # s69m
    "gelu_moe_target": st.booleans(),  # s69l
    "moe_a2a_dtype": st.sampled_from([None, "bfloat16", "float16", "untyped"]),  # s70f
    "draft_mtp_experts_algo": st.sampled_from([None, "unlisted", "FP8", "NVFP4"]),  # s70d
    "mori_ep_v2": st.sampled_from([None, True, False]),  # s70j
    "mori_recv_bound": st.booleans(),  # s70j
    "context_length_read": st.booleans(),  # s70l
    "draft_nextn_unquantized": st.sampled_from([None, "ignore", "quark"]),  # s70p
    "mori_use_aiter": st.booleans(),  # s70s
    "mori_sdma": st.booleans(),  # s70s
}
INVALID: dict[str, st.SearchStrategy[Any]] = {
    "vit": st.sampled_from([
        "qwen", 3, [["family", "nope"], ["images", [[1, 2, 2]]]],
        [["images", [[1, 2, 2]]]],  # no tower
        [["family", "qwen3_vl"], ["hidden_size", 64], ["num_heads", 4],
         ["images", [[1, 3, 3]]]],  # not whole merge blocks
        {"family": "qwen3_vl", "hidden_size": 64, "num_heads": 4, "images": []},
        [["family", "qwen3_vl"], ["hidden_size", 64], ["num_heads", 4], ["colour", 1],
         ["images", [[1, 2, 2]]]],
        [["family", "qwen3_vl"], ["hidden_size", 64], ["num_heads", 4],
         ["images", [[1, 2, 2], [1, 2, 4], [1, 4, 4], [1, 4, 2]]], ["max_images", 8]],
    ]),
    "runner": st.sampled_from(["v3", "", 2, True, 1.5]),
    "ceiling_family": st.sampled_from(["hopper", None, 0]),
    "performance_mode": st.sampled_from(["fast", None, 1]),
    "attention_backend": st.sampled_from(["", "   ", 3, True]),
    "attention_cudagraph_support": st.sampled_from(["SOMETIMES", 1, False]),
    "drafter_attention_cudagraph_support": st.sampled_from(["NO", 2]),
    "dspark_sample_from_anchor": st.sampled_from([None, "yes", 1, 0]),
    "gpu_memory_gb": st.sampled_from([0, -1, True, "80", float("nan")]),
    "tp_size": st.integers(-5, 0) | st.sampled_from([True, 1.0, "2", None]),
    "attn_dp_size": st.integers(-5, 0) | st.sampled_from([False, "1"]),
    "attn_cp_size": st.integers(-5, 0) | st.sampled_from([2.0, None]),
    "two_batch_overlap": st.sampled_from([None, "true", 1]),
    "moe_a2a_backend": st.sampled_from([None, 1, "", "nccl", "flashinfer_mega"]),
    "draft_len_schedule": st.sampled_from(["4", [], [0], [1, -2], {1: 2}, 7]),
    "prefill_cudagraph_capture_token_sizes": st.sampled_from(["8", [1.5], [True], {1: 2}, 3]),
    "decode_cudagraph_capture_request_sizes": st.sampled_from(["8", ["1"], [None], 4]),
    "max_prefill_cudagraph_capture_tokens": st.sampled_from([-1, True, "8", 1.0]),
    "max_decode_cudagraph_capture_requests": st.sampled_from([-1, False, "8"]),
    "max_decode_cudagraph_capture_tokens": st.sampled_from([0, -3, True, "8"]),
    "draft_aux_layers": st.sampled_from([-1, True, "2", 1.0]),
    "max_beam_width": st.integers(-3, 0) | st.sampled_from([True, "2", None]),
    "parallel_draft": st.sampled_from([None, "true", 1]),
    "prefill_cuda_graph_backend": st.sampled_from(["full", "", None, 1, True]),
    "prefill_capture_num_tokens": st.sampled_from(["8", [1.5], [True], {1: 2}, 3, [None]]),
    "torch_compile": st.sampled_from([None, "true", 1]),
    "cuda_graph_mode": st.sampled_from(["prefill", "", None, 1, True]),
    "encode_num_tokens": st.sampled_from(["8", [], [0], [1.5], {1: 2}]),
    "encode_seq_lens": st.sampled_from(["8", [], [-1], [True], 3]),
    "encoder_graph_batch_sizes": st.sampled_from(["8", [], [0], [1.5], {1: 2}]),
    "encoder_graph_padding": st.sampled_from([None, "true", 1]),
    "encoder_graph_num_tokens": st.sampled_from(["8", [], [-1], [True], 3]),
    "encoder_graph_seq_lens": st.sampled_from(["8", [], [0], [1.5]]),
    "encoder_max_batch_size": st.sampled_from([0, -1, True, "8"]),
    "encoder_max_num_tokens": st.sampled_from([0, -5, False, 2.0]),
    "encode_only": st.sampled_from([None, "true", 1]),
    "encoder_fixed_slots": st.sampled_from([None, "yes", 0]),
    "encoder_feature_spec": st.sampled_from([[], "x", [[], "float32", 1], [[8], "fp99", 1],
                                             [[8], "float32", 0], [[0], "float32", 4],
                                             [8, "float32", 4]]),
    "mm_encoder_graphs": st.sampled_from(["x", [["image"]], [["image", [[4, 8]], True]],
                                          [["image", [[8, 1]], 1]], [["a", [], True]] * 2]),
    "mm_encoder_inputs": st.sampled_from(["x", [["image", []]], [["image", [["x", [0],
                                          "float32"]]]], [["image", [["x", [4], "fp99"]]]]]),
    "tensor_parallel_size": st.sampled_from([0, -2, True, "4", 2.0]),
    "enable_attention_dp": st.sampled_from([None, "true", 1]),
    "cuda_graph_backend_prefill": st.sampled_from(["piecewise", "", 1, True]),
    "cuda_graph_max_bs_prefill": st.sampled_from([0, -1, True, "8"]),
    "cuda_graph_bs_prefill": st.sampled_from(["8", [], [0], {1: 2}]),
    "chunked_prefill_size": st.sampled_from([False, 2.0, "8", 2**64]),
    "full_prefill_max_req": st.sampled_from([0, True, "4"]),
    "disaggregation_mode": st.sampled_from(["both", None, 1, ""]),
    "pp_size": st.integers(-3, 0) | st.sampled_from([True, None]),
    "max_total_tokens": st.sampled_from([1, 0, True, "100"]),
    "multi_layer_eagle": st.sampled_from([None, "true", 1]),
    "mtp_draft_backend": st.sampled_from(["", "fa-3", 3, True, "x" * 41, ["fa3"]]),
    "single_cg_draft": st.sampled_from([None, "true", 1]),
    "speculative_adaptive": st.sampled_from([None, "true", 1]),
    "frozen_kv_mtp": st.sampled_from([None, "true", 1]),
    "dspark_samples_anchor": st.sampled_from([None, "false", 0]),
    "dflash_domino": st.sampled_from([None, "true", 1]),
    "dflash_selector_top_k": st.sampled_from([0, -1, True, "8", 2.0]),
    "dspark_proposal": st.sampled_from(["", "folded", None, 1, True]),
    "dspark_mid_fold": st.sampled_from([None, "true", 1]),
    "dspark_post_forward_graph": st.sampled_from([None, "true", 1]),
    "ragged_verify_mode": st.sampled_from([None, 1, True, "x" * 65]),
    "dspark_target_layers": st.sampled_from([0, -1, True, "5", 2.5]),
    "dflash_lilicorr_top_k": st.sampled_from([0, -1, True, "8", 2.0]),
    "dflash_lilicorr_head": st.sampled_from([(0, 0, 8), (64, 4), (-1, 4, 8), "64,4,8",
                                             (64, True, 8), (64, 4, 8.0)]),
    "dflash_eager_sampler": st.sampled_from([None, "true", 1]),
    "mem_fraction_static": st.sampled_from([0, 1, 1.5, -0.2, True, "0.8", float("nan")]),
    "sm90": st.sampled_from(["true", 1, 0, "hopper"]),
    "vision_layers": st.sampled_from([0, -1, True, "24", 2.0]),
    "vision_hidden_size": st.sampled_from([0, True, "1024", 1.5]),
    "max_mamba_cache_size": st.sampled_from([0, -1, True, "100", 1.5]),
    "disable_radix_cache": st.sampled_from([None, "true", 1]),
    "mamba_radix_cache_strategy": st.sampled_from(["lazy", "", None, 1, True]),
    "disable_overlap_schedule": st.sampled_from([None, "true", 0]),
    "page_size": st.integers(-3, 0) | st.sampled_from([True, None, "16"]),
    "mamba_state_shape": st.sampled_from(["4", [1, 2, 3], [0, 1, 1, 1, 1, 1, 4],
                                          [1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, True, 4],
                                          [1, 1, 1, 1, 1, -1, 4], [1, 1, 0, 1, 1, 0, 4],
                                          [1, 0, 0, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1, 4, 0, 1],
                                          [1, 0, 1, 1, 1, 1, 1]]),
    "mamba_ssm_dtype": st.sampled_from(["fp8", "", 1, True]),
    "mamba_full_memory_ratio": st.sampled_from([0, -0.5, True, "0.9", float("nan")]),
    "weights_gb": st.sampled_from([-1, True, "10", float("inf"), float("nan")]),
    "preload_avail_gb": st.sampled_from([0, -1, True, "80", float("nan")]),
    "mamba_memory_slots": st.sampled_from([0, -1, True, "100", 1.5]),
    "linear_attn_backend": st.sampled_from(["cuda", "", None, 1, True]),
    "mamba_track_interval": st.integers(-3, 0) | st.sampled_from([True, None, "256"]),
    "mamba_chunk_size": st.sampled_from([0, -1, True, "64", 1.5]),
    "mamba_layer_map": st.sampled_from(["1", [], [0, 0], [1, 2], [1, True], (0.0, 1)]),
    "mm_feature_transport": st.sampled_from(["", "gpu", 1, True]),
    "mamba_conv_dtype": st.sampled_from(["fp8", "", 1, True]),
    "pp_layer_partition": st.sampled_from([1, (2, 2), True, [1]]),
    "vlm_cache_size_mb": st.sampled_from([-1, True, "100", 1.5]),
    "mm_feature_cache_mb": st.sampled_from([-1, True, "1024", 2.0]),
    "enable_pd_role_switch": st.sampled_from([None, "true", 1]),
    "enable_unified_memory": st.sampled_from([None, "false", 0]),
    "enable_dp_lm_head": st.sampled_from([None, "true", 1]),
    "dp_spec_prefill_coordination": st.sampled_from([None, "false", 0]),
    "deepep_mode": st.sampled_from([None, 1, "", "fast", "lowlatency"]),
    "moe_runner_backend": st.sampled_from([None, 2, "", " "]),
    "speculative_moe_a2a_backend": st.sampled_from([1, "", "nccl", "deepep_v2"]),
    "sm100": st.sampled_from(["true", 1, 0, "blackwell"]),
    "quant_method": st.sampled_from(["", " ", 4, True]),
    "quant_algo": st.sampled_from(["", 4, False]),
    "megamoe_tokens_per_rank": st.sampled_from([None, True, "8192", 1.5]),
    "mori_dispatch_tokens_per_rank": st.sampled_from([None, "4096"]),
    "pplx_dispatch_tokens_per_rank": st.sampled_from([None, 2.0]),
    "deepep_v2_dispatch_tokens_per_rank": st.sampled_from([None, "128"]),
    "flashinfer_dispatch_tokens_per_rank": st.sampled_from(["4096", True]),
    "moe_fp4_checkpoint": st.sampled_from(["true", 1, 0]),
    "megamoe_combine_dtype": st.sampled_from([None, 16, True]),
    "megamoe_fc2_reduce": st.sampled_from([None, "1", 1]),
    "nvfp4_w4a16": st.sampled_from([None, "yes", 0]),
    "post_capture_kv_sizing": st.sampled_from(["1", 0, "true"]),
    "post_capture_declined": st.sampled_from([None, "1", 0]),
    "checkpoint_quant_method": st.sampled_from(["", " ", 4, True]),
    "checkpoint_quant_config": st.sampled_from(["", "[1]", 4, ["fp8"], {"x": float("nan")}]),
    "gpu_capability": st.sampled_from([True, 9, "80", 8.0]),
    "decode_attention_backend": st.sampled_from(["", "fa-3", 3, True, "x" * 41]),
    "draft_attention_backend": st.sampled_from(["", "ai ter", 1.5, ["aiter"]]),
    "mooncake_protocol": st.sampled_from([None, 1, True]),
    "disaggregation_transfer_backend": st.sampled_from([None, "tcp", "MOONCAKE", 1]),
    "dynamic_chunking": st.sampled_from([None, "1", 0]),
    "max_prefill_tokens": st.sampled_from([None, 0, -1, "16k", True]),
    "hybrid_swa": st.sampled_from(["yes", 1, 0]),
    "checkpoint_fp8_experts": st.sampled_from(["yes", 1, "true"]),
    "kimi_mxfp4_pack": st.sampled_from([0, "no", "False"]),
    "dsa_index_kpool": st.sampled_from([0, -1, True, 2.0, "4", None]),
    "mamba_head_counts": st.sampled_from(["8,4", (8,), (8, 0), (8, True), [4.0, 2], (1, 2, 3),
                                             (None, 4)]),
    "enable_eplb": st.sampled_from([None, "1", 0]),
    "ep_num_redundant_experts": st.sampled_from([None, -1, True, "2"]),
    "init_expert_location": st.sampled_from([None, "", " ", 3]),
    "jit_deepgemm": st.sampled_from([None, "yes", 1]),
    "hf_config_quant": st.sampled_from(["", "[1]", 4, ["fp8"]]),
    "inkling_conv_state": st.sampled_from(["6,4", (6, 4), (6, 1, 4, 64, 2, 128, 1024),
                                           (6, 4, 0, 64, 2, 128, 1024),
                                           (6, 4, True, 64, 2, 128, 1024)]),
    "enable_scattered_sconv": st.sampled_from([1, "yes", None]),
    "prefill_max_requests": st.sampled_from([0, -1, True, 2.0, "4"]),
    "ep_size": st.sampled_from([0, -2, True, 2.0, "2", None]),
    "ep_join_mode": st.sampled_from(["", "scaled", 1]),
    "ep_dispatch_algorithm": st.sampled_from(["", "auto", 0]),
    "moe_block_experts": st.sampled_from(["8", [0], [True], [2.0], 3]),
    "prefill_attention_backend": st.sampled_from(["", "fa-3", 3, True, "x" * 41]),
    "disable_lazy_compaction": st.sampled_from([1, "yes", None]),
    "unified_switches": st.sampled_from(["dcp", ("lmcache",), (1,), 3, ("dcp", None)]),
    "moe_dp_size": st.sampled_from([0, -2, True, 2.0, "2", None]),
    "elastic_ep_backend": st.sampled_from(["", "ray", 1]),
    "node_rank": st.sampled_from([-1, True, 1.0, "1", None]),
    "ep_join_rank_offset": st.sampled_from([True, 1.0, "1", None]),
    "max_ep_size": st.sampled_from([True, 2.0, "2"]),
    "elastic_ep_initial_size": st.sampled_from([True, 2.0, "2"]),
    "eplb_algorithm": st.sampled_from(["", " ", 3, None, "x" * 65]),
    "draft_vocab_size": st.sampled_from([0, -1, True, "32000", 2.0]),
    "draft_dtype": st.sampled_from(["", "fp8", "half", 1, True]),
    "draft_extend_hidden_size": st.sampled_from([0, -1, True, "4096", 1.5]),
    "swa_full_tokens_ratio": st.sampled_from([0, -0.1, 1.5, True, "0.5", float("nan")]),
    "swa_prefix_tails": st.sampled_from([-1, True, "4", 1.5]),
    "disaggregation_decode_extra_slots": st.sampled_from([True, "8", 2.0]),
    "disaggregation_decode_enable_radix_cache": st.sampled_from([None, "true", 1]),
    "dsv4_pool_shape": st.sampled_from(["x", [1, 2, 3], [[1, 1, 1, 1], [4], []],
                                        [[1, 1, 1, 1, 2], [4], []], [[1, 1, 1, 1, 0], [3], []],
                                        [[1, 1, 1, 1, 0], [], []], [[0, 1, 1, 1, 0], [4], []],
                                        [[1, 1, 1, 1, 0], [True], []]]),
    "dsv4_state_dtype": st.sampled_from([1, True, "x" * 201]),
    "dsv4_env_unmodelled": st.sampled_from([1, False, ["x"]]),
    "dcp_size": st.sampled_from([0, -2, True, 2.0, "2", None]),
    "dcp_comm_backend": st.sampled_from(["", "nccl", 1, True]),
    "unified_linear": st.sampled_from(["triton", ("triton", "triton"), (None, None, "triton"),
                                       ("triton", "triton", "cuda"), ("x", "triton", "triton")]),
    "asymmetric_kv": st.sampled_from([1, "yes"]),
    "hook_cudagraph_mode": st.sampled_from(["", "graphs", 1, True]),
    "hook_prefill_backend": st.sampled_from(["", "piecewise", 2, False]),
    "enable_waterfill": st.sampled_from([1, "true", None]),
    "dwdp_size": st.sampled_from([True, 2.0, "2", None]),
    "enable_aiter_allreduce_fusion": st.sampled_from([1, "true", None]),
    "enable_deterministic_inference": st.sampled_from([1, "true", None]),
    "rl_on_policy_target": st.sampled_from(["", " ", 3, "megatron"]),
    "attention_backend_flag": st.sampled_from(["", 3, True, "no such"]),
    "context_parallel_size": st.sampled_from([0, -2, True, "2", 2.0]),
    "cp_type": st.sampled_from(["zigzag", "", 3, True]),
    "moe_expert_parallel_size": st.sampled_from([0, -1, True, "4", 2.0]),
    "dp_replicas": st.sampled_from([0, -2, True, 2.0, "2", None]),
    "enable_hisparse": st.sampled_from([None, 1, "true"]),
    "dsv4_attn_backend": st.sampled_from(["", "mega", 3, True]),
    "enable_encoder_swa_bounded_replay": st.sampled_from([None, 1, "true"]),
    "moe_tensor_parallel_size": st.sampled_from([0, -1, True, "4", 2.0]),
    "moe_cluster_parallel_size": st.sampled_from([0, -1, True, "4", 2.0]),
    "moe_a2a_workspace_mb": st.sampled_from(["", 64, True, b"64"]),
    "moe_a2a_token": st.sampled_from([(7168, 8), (0, 8, 2), (7168, True, 2), "7168,8,2"]),
    "inkling_draft_conv_state": st.sampled_from(["6,4", (6, 4), (6, 1, 4, 64, 2, 128, 1024),
                                                 (6, 4, 0, 64, 2, 128, 1024)]),
    "nnodes": st.sampled_from([0, -2, True, 2.0, "2", None]),
    "draft_quantization": st.sampled_from(["", 3, True, "x" * 41]),
    "kv_cache_dtype": st.sampled_from(["", "fp8", "FP8_E4M3", 3, True]),
    "draft_quant_config": st.sampled_from(["[1]", 3, True, "not json"]),
    "enable_mixed_chunk": st.sampled_from([1, "true", None]),
    "enable_lora": st.sampled_from([1, "true", None]),
    "enable_session_radix_cache": st.sampled_from([1, "true", None]),
    "minimax_sparse_kv": st.sampled_from(["4,4", (4, 4, 128), (4, 0, 128, 64, 0, 0, 2, 1),
                                          (4, 4, 128, 64, 0, 0, 2, 3), (4, 4, True, 64, 0, 0, 2),
                                          (4, 4, 128, 64, 0, 0, -1),
                                          (4, 4, 128, 64, 0, 0, 2, 1, 3, 2, 8, 128, 96, 5, 1, 0),
                                          (4, 4, 128, 64, 0, 0, 2, 1, 3, 0, 8, 128, 96, 0, 1,
                                           0),
                                          (4, 4, 128, 64, 0, 0, 2, 1, 0, 1, 4, 1, 2)]),
    "dspark_draft_layers": st.sampled_from([0, -1, True, "5", 2.5]),
    "prefill_cp_strategy": st.sampled_from(["ring", 1, True, "ZIGZAG"]),
    "dspark_early_verify_metadata": st.sampled_from([1, "yes", None]),
    "draft_moe_class": st.sampled_from(["LlamaForCausalLM", 1, ""]),
    "mnnvl_fabric": st.sampled_from([1, 0, "true", "yes"]),
    "prefill_cp_hook_backend": st.sampled_from(["", 1, True, "x" * 41]),
    "nixl_dispatch_tokens_per_rank": st.sampled_from([None, 2.0, True]),
    "mooncake_dispatch_tokens_per_rank": st.sampled_from([None, "128", 2**80]),
    "moe_a2a_force_method": st.sampled_from([1, True, b"DeepEP"]),
    "moe_configurable": st.sampled_from([1, True, b"1"]),
    "trtllm_moe_backend": st.sampled_from(["", 1, True]),
    "moe_load_balancer": st.sampled_from([None, 1, "true"]),
    "moe_comm_force_method": st.sampled_from([1, True, b"ALLGATHER"]),
    "nvfp4_moe_layers": st.sampled_from([1, True, "FIRST", ""]),
    "prefill_cp_family": st.sampled_from(["NSA", 1, ""]),
    "prefill_cp_given": st.sampled_from([(1, 1, 1, 1), (0, 1, 1, 1, "none"),
                                         (1, 1, 1, 1, 2), "x", (True, 1, 1, 1, "none")]),
    "cp_tp_group_sharing": st.sampled_from([1, None, "true"]),
    "moe_eplb_experts": st.sampled_from([0, True, "8"]),
    "moe_auto_checkpoint": st.sampled_from([("X",), ("X", "fp8_qdq"), (1, "none"), "X,none",
                                            ("X", "W4A16_NVFP4")]),
    "speculative_moe_runner_backend": st.sampled_from(["", " ", 1, True]),  # s63d
    "sm_version": st.sampled_from([0, True, "90", 9.0]),
    "enable_layernorm_sp": st.sampled_from([None, 1, "true"]),
    "enable_megamoe_for_layernorm_sp": st.sampled_from([None, 0, "false"]),
    "moe_nvfp4_dispatch": st.sampled_from([0, "true", 1.0]),
    "lora_backend": st.sampled_from(["", " ", 1, "x" * 41]),  # s65d
    "lora_paths_given": st.sampled_from([None, 1, "true"]),
    "max_lora_rank": st.sampled_from([-1, True, "8", 1.5]),
    "lora_target_modules_given": st.sampled_from([None, 0, "false"]),
    "max_loras_per_batch": st.sampled_from([None, True, "8", 1.5]),  # s66l
    "enable_lora_overlap_loading": st.sampled_from([None, 1, "true"]),
    "max_loaded_loras": st.sampled_from([False, "16", 2.0]),
    "lora_paths_count": st.sampled_from([-1, None, True]),
    "lora_target_all_mixed": st.sampled_from([None, 0]),
    "lora_drain_wait_threshold": st.sampled_from([None, True, "0", float("nan"), float("inf")]),
    "enable_pdmux": st.sampled_from([None, 1]),
    "lora_experimental_opti": st.sampled_from(["1", 0]),
    "overlap_plan_stream": st.sampled_from([None, "true"]),
    "lora_paths_invalid": st.sampled_from(["", 3, "x" * 161, "a\nb"]),  # s67l
    "lora_disabled": st.sampled_from([None, 0, "false"]),
    "draft_build_failure": st.sampled_from(["", 3, "x" * 201]),
    "enable_torch_compile": st.sampled_from([None, 1]),  # s67b
    "pp_spec": st.sampled_from(["1", 0]),
    "server_flag_refusals": st.sampled_from([(("port", "x"),), (("ports", ""),), 3,
                                             (("ports", "a"), ("pipeline", "b"))]),  # s68b
    "dsa_checkpoint": st.sampled_from([1, "true"]),
    "dense_model": st.sampled_from([None, 1]),  # s68m
    "disable_attn_tp_gather": st.sampled_from([None, "true"]),  # s68l
    "gpu_rocm": st.sampled_from([1, "false"]),
    "moe_dense_tp_size": st.sampled_from([0, True, "1"]),  # s68p
    "draft_mtp_unquantized": st.sampled_from(["fp8", "", 3]),
    "target_build_failure": st.sampled_from(["", 3, "x" * 201]),
    "model_chunk_off": st.sampled_from([1, "true"]),  # s69a
    "dsa_backends": st.sampled_from([("fa3",), ("fa2", None), "flashmla_kv"]),  # s69b
    "nvfp4_ckpt_fp8_nextn_moe": st.sampled_from([None, 1, "true"]),  # s69d
    "moe_disable_alltoallv": st.sampled_from([1, True, b"1"]),  # s69o
    "moe_can_use_deep_ep": st.sampled_from([1, True, b"1"]),  # s69o
    "dsa_learnable_sink": st.sampled_from([1, "true"]),  # s69m
    "gelu_moe_target": st.sampled_from([None, 1, "true"]),  # s69l
    "moe_a2a_dtype": st.sampled_from(["bf16", "", 2]),  # s70f
    "draft_mtp_experts_algo": st.sampled_from(["", 3, "x" * 41]),  # s70d
    "mori_ep_v2": st.sampled_from([1, "true"]),  # s70j
    "mori_recv_bound": st.sampled_from([None, 1, "true"]),  # s70j
    "context_length_read": st.sampled_from([None, 1, "true"]),  # s70l
    "draft_nextn_unquantized": st.sampled_from(["", 3, "modelopt_fp4"]),  # s70p
    "mori_use_aiter": st.sampled_from([None, 1, "true"]),  # s70s
    "mori_sdma": st.sampled_from([None, 1, "true"]),  # s70s
}


@pytest.fixture(scope="module", autouse=True)
def _tiny_spec() -> None:
    """A described engine (tiny-spec) registered for the tests that name it."""
    load_engine_file(ROOT / "examples" / "engines" / "tiny_spec.toml")


def test_every_option_has_valid_and_invalid_values_here() -> None:
    assert set(VALID) == set(INVALID) == set(LEGACY_KEYWORDS)
    assert sorted(LEGACY_KEYWORDS) == sorted(n for cls in OPTIONS for n in cls.names())


@st.composite
def _options(draw: st.DrawFn) -> tuple[type[EngineOptions], dict[str, Any]]:
    cls = draw(st.sampled_from(OPTIONS))
    names = draw(st.sets(st.sampled_from(cls.names())))
    return cls, {name: draw(VALID[name]) for name in sorted(names)}


@given(_options())
def test_valid_options_build_and_round_trip(case: tuple[type[EngineOptions], dict[str, Any]]
                                            ) -> None:
    cls, values = case
    options = cls(**values)
    assert cls.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    assert options.replace() == options
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.tp_size = 3  # type: ignore[attr-defined]


@given(st.sampled_from(sorted(INVALID)).flatmap(
    lambda name: st.tuples(st.just(name), INVALID[name])))
def test_invalid_options_are_a_config_error_naming_the_field(case: tuple[str, Any]) -> None:
    name, value = case
    owner = LEGACY_KEYWORDS[name]
    with pytest.raises(ConfigError, match=f"^{name}: "):
        owner(**{name: value})
    # the flat keyword is refused with the same message, whatever the engine
    with pytest.raises(ConfigError, match=f"^{name}: "):
        EngineConfig(max_num_seqs=8, engine=owner.engine, **{name: value})


def test_unknown_option_keys_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"unknown key.*'rnner'.*vLLM"):
        VllmOptions.from_dict({"rnner": "v1"})
    with pytest.raises(ConfigError, match=r"'tp' not among SglangOptions"):
        SglangOptions().replace(tp=2)
    with pytest.raises(ConfigError, match=r"unknown key.*'runner'"):
        EngineConfig(max_num_seqs=8, engine="trtllm", options={"runner": "v1"})


def test_every_registered_engine_names_an_options_class() -> None:
    for engine in registry.engines():
        for version in registry.versions(engine):
            cls = options_type(registry.engine_model(engine, version))
            assert issubclass(cls, EngineOptions)
            config = EngineConfig(max_num_seqs=8, engine=engine, engine_version=version)
            assert type(config.options) is cls, (engine, version)
    assert options_type(registry.engine_model("sglang")) is SglangOptions
    assert options_type(registry.engine_model("trtllm")) is TrtllmOptions
    assert options_type(registry.engine_model("vllm", "0.33.0")) is VllmOptions


@given(engine_configs())
def test_flat_keywords_and_the_options_object_build_the_same_config(config: EngineConfig
                                                                    ) -> None:
    """The compatibility form (every option a flat keyword) and the new form (one options
    object) are the same config, so the same plan."""
    data = config.to_dict()
    options = data.pop("options")
    flat = EngineConfig(**data, **options)
    new = EngineConfig(**data, options=type(config.options)(**options))
    as_dict = EngineConfig(**data, options=options)
    assert flat == new == as_dict == config
    for name in type(config.options).names():
        assert getattr(flat, name) == getattr(config.options, name)
    first, second = plan(flat), plan(new)
    assert first.capture_sizes == second.capture_sizes
    assert [(b.name, b.capacity) for c in first.components.values() for b in c.buffers] == \
        [(b.name, b.capacity) for c in second.components.values() for b in c.buffers]


def test_the_flat_form_plans_what_the_options_form_plans() -> None:
    old = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                       engine_version="0.33.0", runner="v1", attention_backend="FLASH_ATTN",
                       ceiling_family="blackwell")
    new = EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                       engine_version="0.33.0", options=VllmOptions(
                           runner="v1", attention_backend="FLASH_ATTN",
                           ceiling_family="blackwell"))
    assert old == new and plan(old).capture_sizes == plan(new).capture_sizes
    assert (old.runner.value, old.attention_backend) == ("v1", "FLASH_ATTN")
    sg_old = EngineConfig(engine="sglang", max_num_seqs=33, tp_size=4, attn_dp_size=2,
                          gpu_memory_gb=80)
    sg_new = EngineConfig(engine="sglang", max_num_seqs=33,
                          options=SglangOptions(tp_size=4, attn_dp_size=2, gpu_memory_gb=80))
    assert sg_old == sg_new and plan(sg_old).capture_sizes == plan(sg_new).capture_sizes


def test_the_compatibility_form_warns_at_the_callers_line() -> None:
    """Flat engine keywords still build the same config, with one CompatibilityFormWarning
    attributed to the line that used them (through dataclasses.replace too) naming the
    options class; graphfit's flat readers (from_dict, config.replace) and reads stay silent."""
    from graphfit.planner.config import CompatibilityFormWarning

    with pytest.warns(CompatibilityFormWarning, match=r"EngineConfig\(runner=\): .*"
                      r"options=VllmOptions") as caught:
        config = EngineConfig(max_num_seqs=8, engine_version="0.33.0", runner="v1")
    assert [w.filename for w in caught] == [__file__]
    assert config == EngineConfig(max_num_seqs=8, engine_version="0.33.0",
                                  options=VllmOptions(runner="v1"))
    with pytest.warns(CompatibilityFormWarning, match="SglangOptions") as caught:
        dataclasses.replace(EngineConfig(engine="sglang", max_num_seqs=8), tp_size=2)
    assert [w.filename for w in caught] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.runner.value == "v1" and config.tp_size == 1
        assert config.replace(runner="v2").runner.value == "v2"
        flat = {**config.to_dict(), **config.to_dict()["options"]}
        del flat["options"]
        assert EngineConfig.from_dict(flat) == config
        EngineConfig(max_num_seqs=8, options={"runner": "v1"}, engine_version="0.33.0")


def test_another_engines_options_object_is_refused_naming_both() -> None:
    with pytest.raises(ConfigError, match=r"options: VllmOptions are vLLM's options, but "
                                          r"engine is sglang \(it takes SglangOptions\)"):
        EngineConfig(engine="sglang", max_num_seqs=8, options=VllmOptions())
    with pytest.raises(ConfigError, match=r"SglangOptions are SGLang's .* engine is vllm"):
        EngineConfig(max_num_seqs=8, options=SglangOptions(tp_size=2))
    with pytest.raises(ConfigError, match=r"TrtllmOptions .* engine is tiny-spec .*NoOptions"):
        EngineConfig(engine="tiny-spec", max_num_seqs=8, options=TrtllmOptions())
    with pytest.raises(ConfigError, match="options: expected VllmOptions"):
        EngineConfig(max_num_seqs=8, options=3)  # type: ignore[arg-type]
    assert EngineConfig(engine="tiny-spec", max_num_seqs=8).options == NoOptions()


def test_another_engines_flat_keyword_keeps_its_default() -> None:
    for engine, name, value in (("sglang", "runner", "v2"), ("trtllm", "tp_size", 2),
                                ("vllm", "draft_len_schedule", [4]),
                                ("tiny-spec", "attention_backend", "FLASH_ATTN"),
                                ("vllm", "gpu_memory_gb", 80)):
        with pytest.raises(ConfigError, match=f"^{name}: not an input of the {engine} model"):
            EngineConfig(max_num_seqs=8, engine=engine, **{name: value})
    # at its default, or the value a config of this engine reports, it is accepted
    sg = EngineConfig(engine="sglang", max_num_seqs=8, runner="v1", ceiling_family="default")
    assert sg.runner.value == "v1" and sg.attention_backend is None
    vl = EngineConfig(max_num_seqs=8, tp_size=1, draft_len_schedule=None)
    assert (vl.tp_size, vl.draft_len_schedule, vl.gpu_memory_gb) == (1, None, None)


def test_replace_keeps_working_in_both_forms() -> None:
    config = EngineConfig(max_num_seqs=8, engine_version="0.33.0")
    v1 = dataclasses.replace(config, runner="v1")
    assert v1.runner.value == "v1" and v1.options.runner is v1.runner  # type: ignore[attr-defined]
    assert config.replace(runner="v1") == v1
    assert config.replace(options=VllmOptions(runner="v1")) == v1
    sg = config.replace(engine="sglang", ladder="auto", tp_size=2)
    assert type(sg.options) is SglangOptions and sg.tp_size == 2
    assert sg.replace(engine="vllm", ladder="auto").options == EngineConfig(max_num_seqs=8).options
    with pytest.raises(ConfigError, match="unknown field"):
        config.replace(runr="v1")


def test_keywords_are_the_fields_and_the_compatibility_keywords() -> None:
    fields = {f.name for f in dataclasses.fields(EngineConfig)}
    assert fields | set(LEGACY_KEYWORDS) == KEYWORDS
    assert not fields & set(LEGACY_KEYWORDS)  # each name lives in one place
    with pytest.raises(ConfigError, match="unknown key"):
        EngineConfig.from_dict({"max_num_seqs": 8, "runnr": "v1"})


def test_the_moved_enums_keep_their_old_import_path() -> None:
    import graphfit
    from graphfit.planner.core import enums as core
    from graphfit.planner.engines.vllm import enums as vllm

    for name in ("AttentionSupport", "CeilingFamily", "PerformanceMode", "Runner"):
        assert getattr(core, name) is getattr(vllm, name) is getattr(graphfit, name)
    with pytest.raises(AttributeError):
        core.Nope  # type: ignore[attr-defined]  # noqa: B018


# -- plan documents -------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
def test_a_plan_2_document_is_still_read(engine: str, tmp_path: Path) -> None:
    """Files `graphfit plan --json` wrote before options objects (schema graphfit.plan/2):
    every engine's fields flat in config. The vLLM one was written by commit f8c8545, before
    0.34's split-size fields existed (read at their defaults); the SGLang and TensorRT-LLM
    ones by the last /2 writer (commit 1d0c0ff, with their prefill, PD-role and beam fields),
    since the plans of those engines changed in between (a stale plan is refused, rightly).
    They are re-checked as written; the same document in /3 form is what graphfit writes."""
    path = DATA / f"plan2-{engine}.json"
    old = json.loads(path.read_text())
    assert old["schema"] == "graphfit.plan/2" and "options" not in old["config"]
    code, out, err = run_cli(["check", "--plan", str(path)])
    assert code == 0 and "SAFE" in out, err
    # the config it holds is the one the /3 document holds under options
    config = EngineConfig.from_dict(old["config"])
    for name in type(config.options).names():
        value = getattr(config.options, name)
        written = old["config"].get(name, type(config.options).default(name))
        assert written == getattr(value, "value", list(value) if isinstance(
            value, tuple) else value)
    # an edit is still found, in the flat form too
    tampered = {**old, "ladder": {**old["ladder"], "num_graphs": old["ladder"]["num_graphs"] + 1}}
    (tmp_path / "t.json").write_text(json.dumps(tampered))
    code, out, err = run_cli(["check", "--plan", str(tmp_path / "t.json")])
    assert code == 2 and "error:" in err


def test_a_plan_2_document_with_another_engines_field_set_is_refused(tmp_path: Path) -> None:
    old = json.loads((DATA / "plan2-vllm.json").read_text())
    old["config"]["tp_size"] = 2  # SGLang's, never written for vLLM
    (tmp_path / "p.json").write_text(json.dumps(old))
    code, out, err = run_cli(["check", "--plan", str(tmp_path / "p.json")])
    assert code == 2 and out == "" and "tp_size" in err, err
    assert len(err.strip().splitlines()) == 1


def test_the_plan_3_document_writes_the_options_object() -> None:
    code, out, err = run_cli(["plan", "--json", "--engine", "sglang",
                              "--max-running-requests", "16", "--tp-size", "2"])
    assert code == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "graphfit.plan/3"
    config = doc["config"]
    assert list(config)[-1] == "options" and config["options"] == {
        "gpu_memory_gb": None, "tp_size": 2, "attn_dp_size": 1, "attn_cp_size": 1,
        "two_batch_overlap": False, "cuda_graph_backend_prefill": None,
        "cuda_graph_max_bs_prefill": None, "cuda_graph_bs_prefill": None,
        "chunked_prefill_size": None, "full_prefill_max_req": None,
        "disaggregation_mode": "null", "pp_size": 1, "max_total_tokens": None,
        "multi_layer_eagle": False, "mtp_draft_backend": None, "single_cg_draft": True,
        "frozen_kv_mtp": False, "dflash_domino": False,
        "dflash_selector_top_k": None,
        "speculative_adaptive": False,
        "mem_fraction_static": None,
        "sm90": None, "vision_layers": None, "vision_hidden_size": None,
        "max_mamba_cache_size": None, "disable_radix_cache": False,
        "mamba_radix_cache_strategy": "auto", "disable_overlap_schedule": False,
        "page_size": 1, "moe_a2a_backend": "none", "dspark_samples_anchor": True,
        "mamba_state_shape": None,
        "mamba_ssm_dtype": None, "mamba_full_memory_ratio": None, "weights_gb": None,
        "preload_avail_gb": None, "mamba_memory_slots": None,
        "linear_attn_backend": "triton", "mamba_track_interval": 256,
        "mamba_chunk_size": None, "mamba_layer_map": None, "mm_feature_transport": None,
        "mamba_conv_dtype": None, "pp_layer_partition": None, "vlm_cache_size_mb": None,
        "mm_feature_cache_mb": None, "enable_pd_role_switch": False,
        "enable_unified_memory": False, "enable_dp_lm_head": False,
        "dp_spec_prefill_coordination": False, "deepep_mode": "auto",
        "moe_runner_backend": "auto", "speculative_moe_a2a_backend": None,
        "dspark_proposal": "sampling", "dspark_mid_fold": False,
        "dspark_post_forward_graph": False, "ragged_verify_mode": "static",
        "dspark_target_layers": None,
        "dflash_lilicorr_top_k": None,
        "dflash_lilicorr_head": None,
        "dflash_eager_sampler": False, "vit": None,
        "sm100": None, "quant_method": None, "quant_algo": None,
        "megamoe_tokens_per_rank": 8192, "mori_dispatch_tokens_per_rank": 4096,
        "pplx_dispatch_tokens_per_rank": 128, "deepep_v2_dispatch_tokens_per_rank": 128,
        "flashinfer_dispatch_tokens_per_rank": None, "moe_fp4_checkpoint": False,
        "megamoe_combine_dtype": "bf16", "megamoe_fc2_reduce": False, "nvfp4_w4a16": False,
        "post_capture_kv_sizing": None, "post_capture_declined": False,
        "checkpoint_quant_method": None, "checkpoint_quant_config": None,
        "gpu_capability": None, "decode_attention_backend": None,
        "draft_attention_backend": None, "mooncake_protocol": "rdma",
        "disaggregation_transfer_backend": "mooncake", "dynamic_chunking": False,
        "max_prefill_tokens": 16384, "hybrid_swa": None,
        "checkpoint_fp8_experts": None,
        "kimi_mxfp4_pack": None, "dsa_index_kpool": 1,
        "mamba_head_counts": None, "enable_eplb": False, "ep_num_redundant_experts": 0,
        "init_expert_location": "trivial", "jit_deepgemm": True, "hf_config_quant": None,
        "inkling_conv_state": None,
        "enable_scattered_sconv": False,
        "prefill_max_requests": None, "ep_size": 1, "ep_join_mode": None,
        "ep_dispatch_algorithm": None, "moe_block_experts": None,
        "prefill_attention_backend": None, "disable_lazy_compaction": False,
        "unified_switches": None, "moe_dp_size": 1, "elastic_ep_backend": None,
        "node_rank": 0, "ep_join_rank_offset": 0, "max_ep_size": None,
        "elastic_ep_initial_size": None, "eplb_algorithm": "auto",
        "draft_vocab_size": None, "draft_dtype": None,
        "draft_extend_hidden_size": None,
        "swa_full_tokens_ratio": None,
        "swa_prefix_tails": None, "disaggregation_decode_extra_slots": None,
        "disaggregation_decode_enable_radix_cache": False, "dsv4_pool_shape": None,
        "dsv4_state_dtype": None, "dsv4_env_unmodelled": None,
        "dcp_size": 1, "dcp_comm_backend": None,
        "unified_linear": None, "asymmetric_kv": None,
        "hook_cudagraph_mode": None, "hook_prefill_backend": None,
        "enable_waterfill": False, "dwdp_size": 1, "enable_aiter_allreduce_fusion": False,
        "enable_deterministic_inference": False, "rl_on_policy_target": None,
        "attention_backend_flag": None, "dp_replicas": 1,
        "enable_hisparse": False, "dsv4_attn_backend": None,
        "enable_encoder_swa_bounded_replay": False, "inkling_draft_conv_state": None,
        "nnodes": 1, "draft_quantization": None, "kv_cache_dtype": None,
        "draft_quant_config": None,
        "enable_mixed_chunk": False, "enable_lora": False, "enable_session_radix_cache": False,
        "minimax_sparse_kv": None,
        "dspark_draft_layers": None, "prefill_cp_strategy": None,
        "dspark_early_verify_metadata": False, "draft_moe_class": None,
        "mnnvl_fabric": None,
        "prefill_cp_hook_backend": None,
        "nixl_dispatch_tokens_per_rank": 128, "mooncake_dispatch_tokens_per_rank": 128,
        "nvfp4_moe_layers": None,
        "prefill_cp_family": None, "prefill_cp_given": None, "cp_tp_group_sharing": False,
        "speculative_moe_runner_backend": None,
        "enable_layernorm_sp": False, "enable_megamoe_for_layernorm_sp": False,
        "moe_nvfp4_dispatch": None,
        "lora_backend": None, "lora_paths_given": False, "max_lora_rank": None,
        "lora_target_modules_given": False,
        "max_loras_per_batch": 8, "enable_lora_overlap_loading": False,
        "max_loaded_loras": None, "lora_paths_count": 0, "lora_target_all_mixed": False,
        "lora_drain_wait_threshold": 0.0, "enable_pdmux": False,
        "lora_experimental_opti": False, "overlap_plan_stream": False,
        "lora_paths_invalid": None, "lora_disabled": False,
        "draft_build_failure": None,
        "enable_torch_compile": False, "pp_spec": False, "server_flag_refusals": None,
        "dsa_checkpoint": None,
        "dense_model": False,
        "disable_attn_tp_gather": False, "gpu_rocm": False,
        "moe_dense_tp_size": None,
        "draft_mtp_unquantized": None,
        "target_build_failure": None,
        "model_chunk_off": None,
        "dsa_backends": None,
        "nvfp4_ckpt_fp8_nextn_moe": False,
        "dsa_learnable_sink": None,
        "gelu_moe_target": False,
        "draft_mtp_experts_algo": None,
        "mori_ep_v2": None, "mori_recv_bound": False,
        "context_length_read": False,
        "draft_nextn_unquantized": None, "mori_use_aiter": False, "mori_sdma": False}
    assert not set(config) & set(LEGACY_KEYWORDS)
    assert EngineConfig.from_dict(config).tp_size == 2
