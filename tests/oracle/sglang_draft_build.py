"""The draft model's build step the resolution-only oracles need under
`--speculative-moe-a2a-backend mooncake` / `nixl` (issue 23, s54e).

Why: the EAGLE draft worker builds its draft model inside
`speculative_moe_a2a_backend_context` (layers/moe/utils.py:957-975; EagleDraftWorker,
speculative/eagle_worker_v2.py:178-231), so a MoE draft's FusedMoE layers make the draft
backend's dispatcher, which raises NotImplementedError in auto / normal mode
(token_dispatcher/mooncake.py:343-344, nixl.py:481-482). An oracle that stopped at
resolution counted those lines as started. `failure(r)` builds SGLang's own draft model for
the resolved line and returns what the dispatcher raises.

SGLang decides each step: the worker (`SpeculativeAlgorithm.create_worker`,
speculative/spec_info.py:311-374, whose module enters the context or not), the draft's class
(the draft ModelConfig's rename, configs/model_config.py:1010-1211, and
`get_model_architecture`, model_loader/utils.py:198-232), its layers (built on the meta
device under the published layout). Glue: Mooncake's and NixlEP's packages reported
installed (tests.oracle.sglang_mooncake_build), deep_ep reported installed and JIT DeepGEMM
on unless the caller says off (tests.oracle.sglang_minimax_target_oracle._deepep_glue; on,
DeepEPMoE's body takes no assert; the dispatcher is made before it; off: the draft's own
DeepEPMoE asserts, tests.oracle.sglang_draft_deepep_oracle, s61e), one pipeline stage, no
CUDA side stream, a dense MLP's dual-GEMM kernel pick off (it imports CUDA Python). The
draft is built unquantized: FusedMoE makes its dispatcher whatever the quantization.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import types
from pathlib import Path
from typing import Any

from tests.oracle import sglang_mooncake_build as mb
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_stubs

BACKENDS = ("mooncake", "nixl")


def enters_context(record: Any) -> bool:
    """Whether the draft worker SGLang picks for the record builds its draft inside
    `speculative_moe_a2a_backend_context`: read from that worker's own module (EAGLE's does,
    eagle_worker_v2.py:178-231; multi_layer_eagle_worker_v2.py never enters it, only the
    runner context, :174-175)."""
    with sglang_stubs.imports():
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        algorithm = SpeculativeAlgorithm.from_string(record.speculative_algorithm)
        if algorithm.is_none():
            return False
        worker = algorithm.create_worker(record)
    if worker is None:
        return False
    source = inspect.getsource(inspect.getmodule(worker))  # type: ignore[arg-type]
    return "speculative_moe_a2a_backend_context()" in source


def build_draft(record: Any, draft: str, context: bool, ep: int, jit: bool = True,
                quantized: bool = False, as_target: bool = False) -> None:
    """`_build_draft` with DeepSeek-V4's NextN class in SGLang's registry (s68n,
    `_deepseek_v4_registered`)."""
    with _deepseek_v4_registered():
        _build_draft(record, draft, context, ep, jit, quantized, as_target)


def _build_draft(record: Any, draft: str, context: bool, ep: int, jit: bool,
                 quantized: bool, as_target: bool) -> None:
    """SGLang's draft model for the checkpoint `draft`, built on the meta device (inside the
    speculative a2a context where `context`), under the layout already published. Its
    ModelConfig is made as the draft worker makes it: from the server arguments, with the
    target's context length (eagle_worker_v2.py:223-230; the draft's own refusals, e.g. a
    shorter derived context, configs/model_config.py:1296-1316, raise here). Where `context`,
    the worker's runner context too (`speculative_moe_backend_context`, eagle_worker_v2.py:218;
    layers/moe/utils.py:941-954; s61e: the draft's DeepEPMoE reads its runner). `jit`: JIT
    DeepGEMM as the line sets it, which the draft's DeepEPMoE asserts read
    (layers/moe/ep_moe/layer.py:135-147, 168-178; s61e). `quantized`: the draft gets the
    quantization config its loader makes from the draft ModelConfig (model_loader/loader.py:
    174-281), else none (s61e). `as_target` (s68d): the target's model from the line's own
    ModelConfig instead (`draft` unread), in the same harness."""
    import torch
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.layers import dual_gemm
    from sglang.srt.layers.attention.dsa import dsa_indexer
    from sglang.srt.layers.attention.dsa import gfx950_fused_indexer as gfx950
    from sglang.srt.layers.moe.utils import (
        speculative_moe_a2a_backend_context,
        speculative_moe_backend_context,
    )
    from sglang.srt.layers.rotary_embedding import rope_variant
    from sglang.srt.model_loader.utils import get_model_architecture, set_default_torch_dtype
    from sglang.srt.models import (
        deepseek_nextn,
        hunyuan_v4_nextn,
        qwen2_moe,
        qwen3_5,
        qwen3_moe,
        qwen3_next,
    )
    from sglang.srt.runtime_context import get_parallel

    from tests.oracle import sglang_minimax_target_oracle as mt

    target = ModelConfig.from_server_args(record)
    model_config = target if as_target else ModelConfig.from_server_args(
        record, model_path=draft, is_draft_model=True, context_length=target.context_len)
    cls, _ = get_model_architecture(model_config)
    tp = get_parallel().tp_size
    group = types.SimpleNamespace(world_size=tp, rank_in_group=0, cpu_group=None,
                                  device_group=None)
    moe_tp = get_parallel().moe_tp_size
    ep_group = group if ep == tp else types.SimpleNamespace(
        world_size=ep, rank_in_group=0, cpu_group=None)
    moe_tp_group = group if moe_tp == tp else types.SimpleNamespace(
        world_size=moe_tp, rank_in_group=0, cpu_group=None)
    # one pipeline stage (the draft worker's draft_pp_context, eagle_worker_v2.py:219)
    pp = types.SimpleNamespace(world_size=1, rank_in_group=0, is_first_rank=True,
                               is_last_rank=True)
    # no CUDA side stream on CPU (qwen3_moe.py:978, qwen2_moe.py:1231; s62d:
    # qwen3_next.py:920; s63d: qwen3_5.py:1788); a dense MLP's dual-GEMM kernel pick
    # (layers/dual_gemm.py:32-45) imports CUDA Python: off
    saved: list[tuple[object, str, object]] = [
        (mod, "get_stream", mod.get_stream)
        for mod in (qwen2_moe, qwen3_moe, qwen3_next, qwen3_5)]
    saved.append((dual_gemm, "is_cuda", dual_gemm.is_cuda))
    # s60d: DeepSeek's NextN makes its side stream where CUDA (deepseek_nextn.py:113-117)
    saved.append((deepseek_nextn, "_is_cuda", deepseek_nextn._is_cuda))
    # and Bailing's hybrid NextN builds a YaRN rope table on the default device
    # (layers/rotary_embedding/rope_variant.py:373, 382): the CPU here
    saved.append((rope_variant, "get_device", rope_variant.get_device))
    # a DSA NextN's indexer reads the SM count from deep_gemm (attention/dsa/utils.py:
    # 366-370; dsa_indexer.py:335): an H100's
    saved.append((dsa_indexer, "resolve_num_sms", dsa_indexer.resolve_num_sms))
    # and asks the fake device for its AMD arch name (gfx950_fused_indexer.py:35-40): none
    saved.append((gfx950, "supported_hardware", gfx950.supported_hardware))
    # s63d: HY-V4's NextN makes its side stream where CUDA (hunyuan_v4_nextn.py:126)
    saved.append((hunyuan_v4_nextn, "is_cuda", hunyuan_v4_nextn.is_cuda))
    # and GigaChat-3.5's MTP model one where torch reports CUDA (gigachat35_mtp.py:66)
    saved.append((torch.cuda, "Stream", torch.cuda.Stream))
    stood_in = len(saved)
    saved += mt._deepep_glue(jit)
    for mod, name, _ in saved[:stood_in]:
        setattr(mod, name, (lambda *a: None) if name in ("get_stream", "Stream")
                else False if name == "_is_cuda"
                else (lambda: "cpu") if name == "get_device"
                else (lambda: 132) if name == "resolve_num_sms" else (lambda: False))
    try:
        with mb.glue(), mb.nixl_glue(ep), get_parallel().override(
                tp_rank=0, attn_tp_rank=0, moe_ep_rank=0, moe_tp_rank=0, tp_group=group,
                moe_tp_group=moe_tp_group, moe_ep_group=ep_group, pp_group=pp, pp_rank=0), \
                set_default_torch_dtype(model_config.dtype), torch.device("meta"), \
                speculative_moe_backend_context() if context else contextlib.nullcontext(), \
                speculative_moe_a2a_backend_context() if context else contextlib.nullcontext():
            quant = None
            if quantized:
                from sglang.srt.configs.load_config import LoadConfig
                from sglang.srt.model_loader.loader import _get_quantization_config

                quant = _get_quantization_config(model_config, LoadConfig())
            cls(model_config.hf_config, quant_config=quant)
    finally:
        for mod, name, value in saved:
            setattr(mod, name, value)


@contextlib.contextmanager
def _deepseek_v4_registered() -> Any:
    """s68n: SGLang's registry imports every model module once, skipping those whose import
    fails (models/registry.py:117-133); DeepSeek-V4's import `deep_gemm` (models/
    deepseek_v4_mhc.py:32 via kernels/ops/layernorm/mhc_mega.py:12), absent on the CPU
    oracle, so its NextN class is missing. Import its module as the registry does,
    `deep_gemm` reported installed for the import only, and register its `EntryClass` for the
    build (the class lookup and the loader's quantization config read it; restored after)."""
    import sys

    from sglang.srt.models.registry import ModelRegistry

    name = "DeepseekV4ForCausalLMNextN"
    if name in ModelRegistry.models:
        yield
        return
    saved = sys.modules.get("deep_gemm")
    sys.modules["deep_gemm"] = _AnyModule("deep_gemm")
    try:
        import importlib

        module = importlib.import_module("sglang.srt.models.deepseek_v4_nextn")
    finally:
        if saved is None:
            sys.modules.pop("deep_gemm", None)
        else:
            sys.modules["deep_gemm"] = saved
    ModelRegistry.models[name] = module.EntryClass[0]
    try:
        yield
    finally:
        ModelRegistry.models.pop(name, None)


class _AnyModule(types.ModuleType):
    """A stand-in package whose every public name is a no-op callable (import-time names
    only: nothing here runs a kernel)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None


# s60d: NextN drafts (configs/model_config.py:1032-1065, 1115-1121), small shapes of their
# config classes; the context length of the oracle's Qwen3-MoE target (40960), so the draft
# ModelConfig's length check passes (configs/model_config.py:1296-1316)
_MLA = {"hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
        "num_attention_heads": 16, "num_key_value_heads": 16, "num_hidden_layers": 4,
        "vocab_size": 129280, "max_position_embeddings": 40960, "kv_lora_rank": 512,
        "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
        "v_head_dim": 128, "n_routed_experts": 8, "num_experts_per_tok": 2,
        "n_shared_experts": 1, "first_k_dense_replace": 1, "moe_layer_freq": 1,
        "rms_norm_eps": 1e-6, "rope_theta": 10000, "torch_dtype": "bfloat16",
        "hidden_act": "silu", "tie_word_embeddings": False, "n_group": 1, "topk_group": 1,
        "routed_scaling_factor": 1.0, "norm_topk_prob": True, "scoring_func": "sigmoid",
        "topk_method": "noaux_tc", "index_topk": 64, "index_head_dim": 128,
        "index_n_heads": 8}
_GQA = {"hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
        "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
        "num_hidden_layers": 4, "max_position_embeddings": 40960, "num_experts_per_tok": 2,
        "first_k_dense_replace": 1, "partial_rotary_factor": 0.5, "rms_norm_eps": 1e-6,
        "torch_dtype": "bfloat16", "hidden_act": "silu", "n_group": 1, "topk_group": 1,
        "routed_scaling_factor": 1.0, "norm_topk_prob": True, "use_qk_norm": True,
        "tie_word_embeddings": False}
NEXTN_DRAFTS = {  # name -> config.json
    "deepseek_v3": {**_MLA, "architectures": ["DeepseekV3ForCausalLM"],
                    "model_type": "deepseek_v3"},
    "deepseek_v32": {**_MLA, "architectures": ["DeepseekV32ForCausalLM"],
                     "model_type": "deepseek_v32"},
    "glm_moe_dsa": {**_MLA, "architectures": ["GlmMoeDsaForCausalLM"],
                    "model_type": "glm_moe_dsa"},
    "glm4_moe_lite": {**_MLA, "architectures": ["Glm4MoeLiteForCausalLM"],
                      "model_type": "glm4_moe_lite"},
    "glm4_moe": {**_GQA, "architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe",
                 "vocab_size": 151552, "n_routed_experts": 8, "n_shared_experts": 1,
                 "rope_theta": 1000000, "attention_bias": True},
    # SGLang's own hybrid config class (configs/bailing_hybrid.py:48-49); the plain Bailing
    # classes' model types load only with the checkpoint's remote code
    "bailing_hybrid": {**_GQA, "architectures": ["BailingMoeV2_5ForCausalLM"],
                       "model_type": "bailing_hybrid", "vocab_size": 157184,
                       "num_experts": 8, "num_shared_experts": 1, "rope_theta": 600000,
                       "num_nextn_predict_layers": 1, "use_bias": False,
                       "use_qkv_bias": False},
    # s62d: ERNIE-4.5-MoE's MTP block is built dense (ernie4.py:190-200, `is_mtp`)
    "ernie4_5_moe": {**_GQA, "architectures": ["Ernie4_5_MoeForCausalLM"],
                     "model_type": "ernie4_5_moe", "vocab_size": 103424, "moe_num_experts": 8,
                     "moe_k": 2, "moe_layer_start_index": 1, "moe_layer_interval": 1,
                     "moe_num_shared_experts": 1, "use_bias": False, "rope_theta": 500000,
                     "num_nextn_predict_layers": 1},
    # s62d: Qwen3-Next's MTP layer is always sparse (qwen3_next.py:702-706)
    "qwen3_next": {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
                   "hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 2,
                   "head_dim": 64, "num_hidden_layers": 4, "full_attention_interval": 4,
                   "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 256,
                   "shared_expert_intermediate_size": 256, "intermediate_size": 2048,
                   "max_position_embeddings": 40960, "torch_dtype": "bfloat16",
                   "vocab_size": 151936, "linear_num_key_heads": 4,
                   "linear_num_value_heads": 8, "tie_word_embeddings": False},
}
# s63d: Qwen3.5 drafts (configs/model_config.py:1159-1181), the text config Qwen3-Next's;
# MoE by the config's model type (models/qwen3_5.py:257-260): the composite MoE class, its
# causal-LM text form, InternS2-Preview (a Qwen3.5-MoE text config), and the dense composite
_QWEN3_5_TEXT = {key: value for key, value in NEXTN_DRAFTS["qwen3_next"].items()
                 if key not in ("architectures", "model_type")}
NEXTN_DRAFTS.update({
    "qwen3_5_moe": {"architectures": ["Qwen3_5MoeForConditionalGeneration"],
                    "model_type": "qwen3_5_moe", "text_config": _QWEN3_5_TEXT,
                    "tie_word_embeddings": False},
    "qwen3_5_moe_text": {**_QWEN3_5_TEXT, "architectures": ["Qwen3_5MoeForCausalLM"],
                         "model_type": "qwen3_5_moe_text"},
    "intern_s2_preview": {"architectures": ["InternS2PreviewForConditionalGeneration"],
                          "model_type": "intern_s2_preview", "text_config": _QWEN3_5_TEXT,
                          "tie_word_embeddings": False},
    "qwen3_5": {"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
                "text_config": _QWEN3_5_TEXT, "tie_word_embeddings": False},
    # HY-V4 (SGLang's own config class, configs/hy_v4.py): its NextN layer is a DeepseekV2MoE
    "hy_v4": {"architectures": ["HYV4ForCausalLM"], "model_type": "hy_v4", "hidden_size": 1024,
              "n_routed_experts": 8, "num_experts_per_tok": 2, "num_hidden_layers": 4,
              "num_attention_heads": 16, "num_key_value_heads": 16,
              "max_position_embeddings": 40960, "moe_intermediate_size": 256,
              "intermediate_size": 2048, "torch_dtype": "bfloat16"},
    # GigaChat-3.5 (SGLang's own config class, configs/gigachat35.py): its NextN layer is
    # sparse only with `nextn_is_sparse` (models/gigachat35.py:474-484)
    "gigachat3_5": {"architectures": ["GigaChat35ForCausalLM"], "model_type": "gigachat3_5",
                    "n_routed_experts": 8, "num_experts_per_tok": 2, "num_hidden_layers": 4,
                    "max_position_embeddings": 40960, "torch_dtype": "bfloat16",
                    "nextn_is_sparse": True},
    "gigachat3_5_dense": {"architectures": ["GigaChat35ForCausalLM"],
                          "model_type": "gigachat3_5", "n_routed_experts": 8,
                          "num_experts_per_tok": 2, "num_hidden_layers": 4,
                          "max_position_embeddings": 40960, "torch_dtype": "bfloat16"},
})
# s66d: Step-3.5 (SGLang's own config class, configs/step3p5.py): its MTP block is layer 45
# (models/step3p5_mtp.py:77), sparse where `moe_layers_enum` names 45 (models/step3p5.py:
# 543-545); the per-layer lists are read at 45, so they run past it, as the released
# checkpoint's 48 do (configs/step3p5.py:99-106)
_STEP = {"hidden_size": 1024, "intermediate_size": 2048, "num_attention_heads": 16,
         "num_attention_groups": 4, "head_dim": 64, "num_hidden_layers": 45,
         "max_seq_len": 40960, "max_position_embeddings": 40960, "vocab_size": 128815,
         "moe_intermediate_size": 256, "moe_num_experts": 8, "moe_top_k": 2,
         "share_expert_dims": 256, "layer_types": ["full_attention"] * 48,
         "rope_theta": [10000.0] * 48, "partial_rotary_factors": [0.5] * 48,
         "swiglu_limits": [0.0] * 48, "swiglu_limits_shared": [0.0] * 48,
         "moe_layers_enum": ",".join(str(i) for i in range(3, 48)), "need_fp32_gate": True,
         "moe_router_scaling_factor": 1.0, "use_moe_router_bias": True,
         "use_head_wise_attn_gate": True, "num_nextn_predict_layers": 3,
         "torch_dtype": "bfloat16", "tie_word_embeddings": False}
# Exaone-MoE (transformers' config class): the MTP layer is layer 0, sparse where
# `is_moe_layer[0]` (models/exaone_moe.py:502), a key the checkpoint writes
_EXAONE = {"architectures": ["ExaoneMoEForCausalLM"], "model_type": "exaone_moe",
           "hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
           "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64,
           "num_hidden_layers": 4, "vocab_size": 102400, "max_position_embeddings": 40960,
           "num_experts": 8, "num_experts_per_tok": 2, "num_shared_experts": 1,
           "is_moe_layer": [True] * 4, "layer_types": ["full_attention"] * 4,
           "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1}
NEXTN_DRAFTS.update({
    "step3p5": {**_STEP, "architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5"},
    "step3p5_dense": {**_STEP, "architectures": ["Step3p5ForCausalLM"], "model_type": "step3p5",
                      "moe_layers_enum": ",".join(str(i) for i in range(3, 45))},
    # Step-3.7: the draft is its Step-3.5 text config (configs/model_config.py:1115-1120)
    "step3p7": {"architectures": ["Step3p7ForConditionalGeneration"], "model_type": "step3p7",
                "text_config": {**_STEP, "model_type": "step3p5"}, "torch_dtype": "bfloat16",
                "tie_word_embeddings": False},
    "exaone_moe": _EXAONE,
    "exaone_moe_dense": {**_EXAONE, "architectures": ["ExaoneMoeForCausalLM"],
                         "is_moe_layer": [False] + [True] * 3},
    # InternS2-Mobius (SGLang's own config class, configs/interns2_mobius.py): the rename
    # makes its text config a Qwen3.5-MoE one with `mtp_num_experts` (model_config.py:1167-1178)
    "interns2_mobius": {"architectures": ["InternS2MobiusForConditionalGeneration"],
                        "model_type": "interns2_mobius",
                        "text_config": {**_QWEN3_5_TEXT, "num_experts": 64,
                                        "mtp_num_experts": 8, "mtp_num_experts_per_tok": 2},
                        "tie_word_embeddings": False},
    # GLM-5-Next (transformers' config class): DeepSeek's NextN over its text config, whose
    # DSA layers take no RoPE dims (qk_rope_head_dim 0, as its config class defaults)
    "glm5_next": {"architectures": ["Glm5NextForConditionalGeneration"],
                  "model_type": "glm5_next", "tie_word_embeddings": False,
                  "torch_dtype": "bfloat16",
                  "text_config": {**_MLA, "model_type": "glm5_next_text", "vocab_size": 154880,
                                  "qk_rope_head_dim": 0, "qk_nope_head_dim": 256,
                                  "v_head_dim": 256, "head_dim": 0}},
})

# s67d: Qwen4-Exp (SGLang's own config class, configs/qwen4_exp.py): its draft is a Qwen3.5
# MTP over a `qwen4_exp_text` config, always a MoE layer (models/qwen3_5.py:165, 257-260); two
# mHC streams, a small low-rank mixer
NEXTN_DRAFTS["qwen4_exp"] = {
    "architectures": ["Qwen4ExpForConditionalGeneration"], "model_type": "qwen4_exp",
    "text_config": {**_QWEN3_5_TEXT, "model_type": "qwen4_exp_text", "hc_count": 2,
                    "hc_lowrank": 32},
    "tie_word_embeddings": False}
# s67d: LongCat-Flash (SGLang's own config class, configs/longcat_flash.py): its NextN layer
# is a dense decoder layer (models/longcat_flash_nextn.py:116-160, 228). Its attention reads
# `config.rope_parameters` with `in` (:140-144); transformers 5.25's `rope_scaling` setter
# fills it (configuration_utils.py:730-737), so a config with a null rope_scaling fails there
# (TypeError): this one writes a default-type rope_scaling, as LongCat's checkpoints with
# YaRN do
NEXTN_DRAFTS["longcat_flash"] = {
    **{k: v for k, v in _MLA.items() if k != "num_hidden_layers"},
    "architectures": ["LongcatFlashForCausalLM"], "model_type": "longcat_flash",
    "num_layers": 4, "num_nextn_predict_layers": 1, "ffn_hidden_size": 2048,
    "expert_ffn_hidden_size": 256, "moe_topk": 2, "zero_expert_num": 2,
    "rope_scaling": {"rope_type": "default", "rope_theta": 10000000.0}}
# s68d: MiMo-V2-Flash (transformers' MiMoV2FlashConfig): its draft is MiMoV2MTP
# (configs/model_config.py:1094-1096), one dense layer (models/mimo_v2_nextn.py:103-107). Its
# attention passes `config.rope_scaling` on unless its type is "default" (:73-78, 97), and the
# config class's default `rope_parameters` when none is written is a per-layer-type dict of
# dicts (configuration_mimo_v2_flash.py:119-123), which the RoPE cache cannot key on
# (layers/rotary_embedding/factory.py:107: TypeError, unhashable type): this one writes a flat
# default-type `rope_parameters`, as for LongCat-Flash above; the SWA keys are SGLang's reads
NEXTN_DRAFTS["mimo_v2_flash"] = {
    "architectures": ["MiMoV2FlashForCausalLM"], "model_type": "mimo_v2_flash",
    "hidden_size": 1024, "intermediate_size": 2048, "moe_intermediate_size": 256,
    "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64, "v_head_dim": 64,
    "swa_num_attention_heads": 16, "swa_num_key_value_heads": 4, "swa_head_dim": 64,
    "swa_v_head_dim": 64, "sliding_window": 128, "sliding_window_size": 128,
    "num_hidden_layers": 4, "vocab_size": 151936, "max_position_embeddings": 40960,
    "n_routed_experts": 8, "num_experts_per_tok": 2, "layernorm_epsilon": 1e-5,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False, "attention_bias": False,
    "num_nextn_predict_layers": 1,
    "rope_parameters": {"rope_type": "default", "rope_theta": 5000000.0}}


def _write_deepseek_v4(directory: Path) -> None:
    """s68n: DeepSeek-V4 (SGLang's own DeepSeekV4Config): the draft is
    DeepseekV4ForCausalLMNextN (configs/model_config.py:1041-1061; no DSpark keys written), its
    one layer a DeepseekV2MoE block (models/deepseek_v4.py:3155-3166); the config.json is the
    MTP oracle's, the config class's own defaults read off its source."""
    from tests.oracle.sglang_mtp_oracle import write_deepseek_v4_dir

    write_deepseek_v4_dir(directory)


def _write_deepseek_v41(directory: Path, nested: bool = False) -> None:
    """s69d: a DeepSeek-V4.1 checkpoint as written, `DeepseekV41ForCausalLM` with model type
    deepseek_v41 (the V4 config.json's values; `nested`: under `text_config`, a
    deepseek_v41_text one). SGLang's DeepseekV41Config flattens it and renames the
    architecture to DeepseekV4ForCausalLM (configs/deepseek_v41.py:23-40, 63-66), so the draft
    is DeepSeek-V4's NextN class (configs/model_config.py:1041-1061)."""
    from tests.oracle.sglang_mtp_oracle import write_deepseek_v4_dir

    write_deepseek_v4_dir(directory)
    path = directory / "config.json"
    values = json.loads(path.read_text())
    head = {"architectures": ["DeepseekV41ForCausalLM"], "model_type": "deepseek_v41"}
    data = ({**head, "text_config": {**values, "model_type": "deepseek_v41_text"}} if nested
            else {**values, **head})
    path.write_text(json.dumps(data))


# drafts whose config.json is written from SGLang's source when asked (not at import)
WRITTEN_DRAFTS = {"deepseek_v4": _write_deepseek_v4,
                  "deepseek_v41": _write_deepseek_v41,  # s69d
                  "deepseek_v41_text": lambda directory: _write_deepseek_v41(directory, True)}
DRAFT_NAMES = (*NEXTN_DRAFTS, *WRITTEN_DRAFTS)


def write_nextn_drafts(root: Path, names: tuple[str, ...] = DRAFT_NAMES) -> dict[str, Path]:
    """A directory with a config.json for each named NextN draft (`NEXTN_DRAFTS`, s68n:
    `WRITTEN_DRAFTS`)."""
    out = {}
    for name in names:
        directory = root / name
        directory.mkdir(parents=True, exist_ok=True)
        if name in WRITTEN_DRAFTS:
            WRITTEN_DRAFTS[name](directory)
        else:
            (directory / "config.json").write_text(json.dumps(NEXTN_DRAFTS[name]))
        out[name] = directory
    return out


def failure(r: so.Resolved) -> str | None:
    """What the draft's dispatcher raises for the resolved line, None where the draft builds
    or makes no Mooncake / NixlEP dispatcher (another draft backend, a dense target, whose
    draft backend stays none: scheduler.py:995-1008, or a draft checkpoint with no local
    config.json). The draft ModelConfig's ValueError and the dispatcher's NotImplementedError
    are this step's; the draft's own DeepEPMoE asserts are not compared (JIT DeepGEMM
    reported on)."""
    record = r.record
    draft = getattr(record, "speculative_draft_model_path", None)
    if (getattr(record, "speculative_moe_a2a_backend", None) not in BACKENDS
            or not so._moe_model(record) or not isinstance(draft, str)
            or not (Path(draft) / "config.json").is_file()):
        return None
    if not enters_context(record):
        return None
    with sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.runtime_context import get_parallel

        initialize_dp_attention_flags(None)
        try:
            build_draft(record, draft, True, get_parallel().moe_ep_size)
        except (NotImplementedError, ValueError) as exc:
            return (f"{type(exc).__name__}: {exc} @ {mb._site(exc)} (at draft model build)")
        except AssertionError as exc:  # s55e: the dispatcher's budget assert only
            if not mb.budget_assert(exc):
                raise
            return f"AssertionError: @ {mb._site(exc)} (at draft model build)"
    return None


__all__ = ["BACKENDS", "DRAFT_NAMES", "NEXTN_DRAFTS", "WRITTEN_DRAFTS", "build_draft",
           "enters_context", "failure", "write_nextn_drafts"]
