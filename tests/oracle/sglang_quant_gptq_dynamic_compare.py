"""The comparison behind test_sglang_quant_gptq_dynamic_oracle.py and
measure_sglang_quant_gptq_dynamic.py: a GPTQ Marlin checkpoint whose config.json
quantization_config carries GPTQModel's per-module `dynamic` overrides. SGLang 0.5.23 refuses
an override with a (bits, sym) pair Marlin lacks while it builds the linear layers
(layers/quantization/utils.py:222-242, 275-307).

SGLang's side: its real ModelConfig + loader on a B200 (tests.oracle.
sglang_quant_capability_oracle.load) must build GPTQMarlinConfig; then the model's own class
(models/llama.py, qwen2.py, qwen3.py) is built whole on the meta device with that config
(`GPTQMarlinConfig.from_config` on the same dict, as the loader does,
model_loader/weight_utils.py:298-311), under a TP-1 line's published layout (as in
tests.oracle.sglang_dspark_target_head). Glue, not SGLang logic: the config's `quant_type`
(a stubbed sgl_kernel ScalarType that `deepcopy` cannot copy, utils.py:289) is set to None
before the build; `override_config` sets its own per layer (:244).

Verdicts: "layer" (the build raised override_config's ValueError: graphfit must refuse citing
utils.py:222-242), "built" (graphfit must not cite it), "other" (the loader or the build
stopped otherwise: graphfit must not cite it), since s66q "shared" (the refusal rose on a
DeepSeek shared expert, unfused on this default line: graphfit leaves it unjudged, as the
fusion hangs on the line's flags, and must not cite the rule), since s68r "runner" (GPTQ
Marlin's experts asserted the auto MoE runner, gptq_kernels.py:309, the raise site read off the
traceback: graphfit must refuse citing it and name no layer). Since s66q DeepSeek-V2 / V3 are
built too, resolved on the checkpoint itself (their MoE runner reads the method), with
DeepSeek's side stream glued off; a watcher on override_config records the prefix a refusal
rose on (glue: it calls SGLang's own). Since s69g Mixtral (its layers `layers.N`), and
`compare(..., via_file=True)` hands the line's flags to graphfit as its own config file.
It imports no graphfit module this work added,
so the measure scores an older graphfit tree too."""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import json
import random
import tempfile
import traceback
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dspark_target_head as th
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import planned

MARK = "utils.py:222-242"
# s67q: graphfit's wording of a refused copy (graphfit.planner.engines.sglang_quantization.
# copy_refusal); SGLang's side is its own ModelConfig on the copied flag
COPY_MARK = "model override copies"
DTYPE_MARK = "loader.py:263-270"  # s68q: graphfit's cite of the loader's dtype refusal
# s68r: GPTQ Marlin's experts assert the auto MoE runner (hardware_backend/gpu/quantization/
# gptq_kernels.py:309): SGLang's raise site as `built` reports it, and graphfit's cite
RUNNER_RAISED, RUNNER_MARK = "[raised gptq_kernels.py:309]", "gptq_kernels.py:309"
_SAID = "Unsupported quantization config"
# the reasons `_fusion` reports that graphfit judges (s67q: the flag, the gate's config test;
# s68q: SBO / TBO, the EP size, the GPU)
JUDGED_FUSION = tuple(f"[fusion: {name}]" for name in ("flag", "config", "overlap", "ep", "gpu"))
MOE = "Qwen3MoeForCausalLM"
# issue 23 s69g: Mixtral (models/mixtral.py), every layer sparse, 8 local experts
MIXTRAL = "MixtralForCausalLM"
_MIXTRAL_FIELDS = {"num_local_experts": 8, "rope_theta": 10000.0}
# issue 23 s70i: PhiMoE (models/phimoe.py), Mixtral's layout under `model.layers.N`, its
# lm_head built with the quant config whether tied or not
PHIMOE = "PhiMoEForCausalLM"
# s70i: Grok (models/grok.py) as Grok-2's checkpoint writes it (model_type "git"); the alias
# ":residual" adds its residual MoE's dense MLP, ":e0" sets num_local_experts 0 and
# ":noexperts" leaves the key out
GROK = "Grok1ForCausalLM"
GROKS = (GROK, "Grok1ModelForCausalLM")  # the second an alias (grok.py:1014-1017)
# issue 23 s64q: Qwen2-MoE, written with a shared expert of 128 (th._BASE); its aliases
# "Qwen2MoeForCausalLM:0" (shared_expert_intermediate_size 0: no shared expert) and
# "Qwen2MoeForCausalLM:absent" (the key left out: HF's default 5632) are the same class
QWEN2_MOE = "Qwen2MoeForCausalLM"
# issue 23 s66q: DeepSeek-V3 (q_lora_rank set: fused_qkv_a_proj_with_mqa / q_b_proj) and V2
# without a q LoRA (q_proj / kv_a_proj_with_mqa), 3 layers: layer 0 dense, 1-2 sparse with one
# shared expert; aliases ":noshared" (n_shared_experts 0), ":freq2" (4 layers, moe_layer_freq 2,
# first_k_dense_replace 0: layers 0 and 2 sparse)
DSV3, DSV2 = "DeepseekV3ForCausalLM", "DeepseekV2ForCausalLM"
DEEPSEEK = (DSV3, f"{DSV2}:nolora", f"{DSV3}:noshared", f"{DSV3}:freq2")
# issue 23 s67q: a "@sm100" suffix runs the line on a B200, where the Qwen3-MoE hook and
# DeepSeek-V3's post-process copy the checkpoint's method into an unset --quantization
# (arg_groups/model_overrides/qwen3_moe.py:38-50, arg_groups/overrides.py:763-797); the other
# DeepSeek and Qwen3-MoE lines run on an H100 (no copy)
SM100 = "@sm100"
# issue 23 s67q: the DSA classes (an Indexer per layer whose top-k is not reused): DeepSeek-V3.2
# and GLM-5 (transformers' classes default index_topk to 2048; GLM-5's derives indexer_types,
# offset 2), DeepSeek-V3 with index_topk (":dsa"); aliases ":interleave" (an interleaved
# indexer rope: the fused wk_weights_proj replaces wk on CUDA), ":freq2" (index_topk_freq 2),
# ":default" (no index_* keys: the config class's defaults)
DSV32, GLM5 = "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM"
_MLA = (DSV3, DSV2, DSV32, GLM5)  # the classes built as DeepseekV2ForCausalLM
# s67q: shared-experts fusion on the line: "+enforce" / "+disable" add the flag; ":e256" has
# the 256 routed experts the class's gate takes (fused on an H100 without flags)
FUSION = (f"{DSV3}+enforce", f"{DSV3}+disable", f"{DSV3}:e256", f"{DSV3}:e256+disable",
          # s68q: the gate's other clauses on the config it takes: TBO (attention DP, as SGLang
          # starts it), an EP size of 2, TP 2 alone (fused), and a line whose experts' runner
          # stops first (waterfill's forced deepep)
          f"{DSV3}:e256+tbo", f"{DSV3}:e256+ep2", f"{DSV3}:e256+tp2", f"{DSV3}+tp2",
          f"{DSV3}:e256+waterfill+disable",
          # s68r: a named MoE runner, drawn again: flashinfer_trtllm, which SGLang's server
          # arguments refuse beside a found file's gptq_marlin flag (moe_hook.py:123-135), and
          # triton, which they take; either way GPTQ Marlin's experts assert the auto runner
          # (gptq_kernels.py:309) on a config.json checkpoint
          f"{DSV3}+trtllm", f"{DSV3}:e256+trtllm", f"{DSV3}+triton")
# s68q: the flags each "+name" adds (s67q's enforce / disable, then the gate's other clauses)
FLAG_SETS: dict[str, tuple[str, ...]] = {
    "enforce": ("--enforce-shared-experts-fusion",),
    "disable": ("--disable-shared-experts-fusion",),
    "tbo": ("--tp-size", "2", "--enable-dp-attention", "--dp-size", "2",
            "--enable-two-batch-overlap"),
    "ep2": ("--tp-size", "2", "--ep-size", "2"), "tp2": ("--tp-size", "2"),
    "waterfill": ("--enable-waterfill",), "trtllm": ("--moe-runner-backend", "flashinfer_trtllm"),
    "triton": ("--moe-runner-backend", "triton")}  # s68r
DSA = (DSV32, GLM5, f"{DSV3}:dsa", f"{DSV32}:interleave", f"{GLM5}:freq2", f"{DSV32}:freq2",
       f"{GLM5}:default")
_DSA_FIELDS = {"index_topk": 64, "index_head_dim": 128, "index_n_heads": 8}
SM100_ARCHITECTURES = (f"{DSV3}{SM100}", f"{MOE}{SM100}", f"{DSV2}:nolora{SM100}")
_DEEPSEEK_FIELDS: dict[str, Any] = {
    "n_routed_experts": 8, "n_shared_experts": 1, "kv_lora_rank": 64, "q_lora_rank": 96,
    "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32, "topk_method": "noaux_tc",
    "n_group": 1, "topk_group": 1, "scoring_func": "sigmoid", "routed_scaling_factor": 2.5,
    "rope_theta": 10000.0, "num_key_value_heads": 8, "num_hidden_layers": 3,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "rope_scaling": None}
_DEEPSEEK_ALIASES: dict[str, dict[str, Any]] = {
    "nolora": {"q_lora_rank": None}, "noshared": {"n_shared_experts": 0},
    "freq2": {"num_hidden_layers": 4, "moe_layer_freq": 2, "first_k_dense_replace": 0},
    "dsa": _DSA_FIELDS, "interleave": {"indexer_rope_interleave": True},  # s67q
    "e256": {"n_routed_experts": 256}}  # s67q: the routed count the fusion gate takes
ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                 MOE,  # issue 23 s63q
                 QWEN2_MOE, f"{QWEN2_MOE}:0", f"{QWEN2_MOE}:absent",  # s64q
                 *DEEPSEEK,  # s66q
                 *SM100_ARCHITECTURES, *DSA, *FUSION,  # s67q
                 # issue 23 s68g: Qwen3-MoE / Qwen2-MoE under a named MoE runner
                 f"{MOE}+trtllm", f"{MOE}+triton", f"{QWEN2_MOE}+trtllm",
                 f"{QWEN2_MOE}:0+triton",
                 # issue 23 s69g: Mixtral, with no runner and under a named one
                 MIXTRAL, f"{MIXTRAL}+trtllm", f"{MIXTRAL}+triton",
                 # issue 23 s70i: PhiMoE, with no runner and under a named one
                 PHIMOE, f"{PHIMOE}+trtllm", f"{PHIMOE}+triton",
                 GROK, f"{GROK}:residual", f"{GROK}+triton", f"{GROK}:residual+triton")
# s63q: Qwen3-MoE's expert fields on the dense shapes (its layout is resolved on Qwen3's dir)
_MOE_FIELDS = {"num_experts": 8, "moe_intermediate_size": 128, "num_experts_per_tok": 2,
               "decoder_sparse_step": 1, "norm_topk_prob": True, "mlp_only_layers": []}
_LAYOUTS = {MOE: "Qwen3ForCausalLM", QWEN2_MOE: "Qwen2ForCausalLM",  # TP 1 alike
            MIXTRAL: "LlamaForCausalLM",  # s69g: no server-args hook names Mixtral
            # s70i: nor PhiMoE, nor Grok
            PHIMOE: "LlamaForCausalLM", **dict.fromkeys(GROKS, "LlamaForCausalLM")}


def _base(architecture: str) -> str:
    """An ARCHITECTURES entry without its GPU suffix and its flags (s67q)."""
    return architecture.partition("@")[0].partition("+")[0]


def _flags(architecture: str) -> tuple[str, ...]:
    """The line's flags an ARCHITECTURES entry's "+..." suffixes name (s67q): "+disable" /
    "+enforce" shared-experts fusion; s68q: any FLAG_SETS names, in turn."""
    named = architecture.partition("@")[0].partition("+")[2]
    return tuple(flag for name in named.split("+") if name for flag in FLAG_SETS[name])


def _class(architecture: str) -> str:
    """The class an ARCHITECTURES entry names (s64q: without its shared-size alias)."""
    return _base(architecture).split(":")[0]


def _gpu(architecture: str) -> tuple[str, int]:
    """(graphfit's GPU name, SGLang's capability) a line runs on: a B200 unless it is a
    Qwen3-MoE / DeepSeek-family line without the "@sm100" suffix (s66q DeepSeek, s67q Qwen3-MoE
    and the DSA classes:
    an H100, where no override copies the method)."""
    if architecture.endswith(SM100) or _class(architecture) not in (*_MLA, MOE):
        return "B200", 100
    return "H100", 90


def _model_type(architecture: str) -> str:
    if _class(architecture) in (DSV3, DSV2):  # s66q
        return "deepseek_v3" if _class(architecture) == DSV3 else "deepseek_v2"
    if _class(architecture) in (DSV32, GLM5):  # s67q
        return "deepseek_v32" if _class(architecture) == DSV32 else "glm_moe_dsa"
    if _class(architecture) == MIXTRAL:  # s69g
        return "mixtral"
    if _class(architecture) == PHIMOE:  # s70i
        return "phimoe"
    if _class(architecture) in GROKS:  # s70i: Grok-2's config.json
        return "git"
    return "qwen3_moe" if _class(architecture) == MOE else th.MODEL_TYPES[_class(architecture)]


def _module(architecture: str) -> str:
    """The sglang.srt.models module of the class (s66q: DeepSeek-V3's is deepseek_v2)."""
    if _class(architecture) == GLM5:  # s67q: glm4_moe.py:1284
        return "glm4_moe"
    if _class(architecture) in GROKS:  # s70i
        return "grok"
    return "deepseek_v2" if _class(architecture) in (DSV3, DSV2, DSV32) \
        else _model_type(architecture)


def _config(architecture: str, tied: bool) -> dict[str, Any]:
    """config.json's model keys for an ARCHITECTURES entry."""
    name = _class(architecture)
    config = {"architectures": [name], "model_type": _model_type(architecture),
              "tie_word_embeddings": tied, **th._BASE, **(_MOE_FIELDS if name == MOE else {}),
              **(_MIXTRAL_FIELDS if name in (MIXTRAL, PHIMOE, *GROKS) else {})}  # s69g; s70i
    if name in GROKS:  # s70i: Grok's residual MoE (a dense MLP beside the experts); ":e0"
        alias = _base(architecture).partition(":")[2]  # no experts, ":noexperts" no key
        config["residual_moe"] = alias == "residual"
        if alias == "e0":
            config["num_local_experts"] = 0
        elif alias == "noexperts":
            del config["num_local_experts"]
        return config
    shared = _base(architecture).partition(":")[2]  # s64q: Qwen2-MoE's shared expert size
    if name in (DSV3, DSV2, DSV32, GLM5):  # s66q; s67q: the DSA classes
        dsa = _DSA_FIELDS if name in (DSV32, GLM5) and shared != "default" else {}
        freq = {"index_topk_freq": 2} if shared == "freq2" and dsa else \
            _DEEPSEEK_ALIASES.get(shared, {})
        return {**config, **_DEEPSEEK_FIELDS, **dsa, **freq}
    if shared == "absent":
        del config["shared_expert_intermediate_size"]
    elif shared:
        config["shared_expert_intermediate_size"] = int(shared)
    return config
_BASE = {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True, "desc_act": False}

# (architecture, tied embeddings, quantization_config)
FIXED: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "none": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {}}),
    "down_3bit": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {r"+:.*down_proj": {"bits": 3}}}),
    "mlp_8bit": ("Qwen2ForCausalLM", False, {**_BASE, "dynamic": {r".*\.mlp\..*": {"bits": 8}}}),
    "skip_then_bad": ("Qwen3ForCausalLM", False, {**_BASE, "dynamic": {
        r"-:.*": {}, r".*": {"bits": 3}}}),
    "layer1_asym": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {
        r"model\.layers\.1\..*": {"sym": False}}}),
    "no_such_layer": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {
        r"model\.layers\.7\..*": {"bits": 3}}}),
    "head_unquantized": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {"lm_head": {"bits": 2}}}),
    "head_quantized": ("Qwen2ForCausalLM", False, {**_BASE, "lm_head": True,
                                                   "dynamic": {"lm_head": {"bits": 2}}}),
    "head_tied": ("Qwen2ForCausalLM", True, {**_BASE, "lm_head": True,
                                             "dynamic": {"lm_head": {"bits": 2}}}),
    "entry_false": ("LlamaForCausalLM", False, {**_BASE, "dynamic": {r".*": False}}),
}
# s63q: Qwen3-MoE: its experts and router gate read no override; attention and lm_head do
MOE_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "moe_mlp_3bit": (MOE, False, {**_BASE, "dynamic": {r".*\.mlp\..*": {"bits": 3}}}),
    "moe_experts_asym": (MOE, False, {**_BASE, "dynamic": {r".*experts.*": {"sym": False}}}),
    "moe_o_proj_3bit": (MOE, False, {**_BASE, "dynamic": {r"+:.*o_proj": {"bits": 3}}}),
    "moe_head_tied": (MOE, True, {**_BASE, "lm_head": True, "dynamic": {"lm_head": {"bits": 2}}}),
}
FIXED.update(MOE_LINES)
# s64q: Qwen2-MoE: its shared expert reads the map (where it has one), experts and gate do not
QWEN2_MOE_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "q2moe_mlp_3bit": (QWEN2_MOE, False, {**_BASE, "dynamic": {r".*\.mlp\..*": {"bits": 3}}}),
    "q2moe_no_shared_mlp_3bit": (f"{QWEN2_MOE}:0", False, {**_BASE, "dynamic": {
        r".*\.mlp\..*": {"bits": 3}}}),
    "q2moe_default_shared_asym": (f"{QWEN2_MOE}:absent", False, {**_BASE, "dynamic": {
        r".*shared_expert\.down_proj": {"sym": False}}}),
    "q2moe_experts_3bit": (QWEN2_MOE, False, {**_BASE, "dynamic": {
        r".*\.experts.*": {"bits": 3}, r".*\.gate$": {"bits": 3}}}),
    "q2moe_head_tied": (QWEN2_MOE, True, {**_BASE, "lm_head": True,
                                         "dynamic": {"lm_head": {"bits": 2}}}),
}
FIXED.update(QWEN2_MOE_LINES)
# s66q: DeepSeek-V2 / V3: MLA attention linears, dense-layer MLPs and the lm_head read the map;
# the experts and the router gate do not; a shared expert's refusal is SGLang's on this
# default line ("shared"), not judged by graphfit (its fusion hangs on the line)
DEEPSEEK_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "ds_o_proj_3bit": (DSV3, False, {**_BASE, "dynamic": {r"+:.*o_proj": {"bits": 3}}}),
    "ds_q_b_asym": (DSV3, False, {**_BASE, "dynamic": {r".*q_b_proj": {"sym": False}}}),
    "ds_nolora_kv_a_3bit": (f"{DSV2}:nolora", False, {**_BASE, "dynamic": {
        r".*kv_a_proj_with_mqa": {"bits": 3}}}),
    "ds_nolora_q_b_3bit": (f"{DSV2}:nolora", False, {**_BASE, "dynamic": {
        r".*q_b_proj": {"bits": 3}}}),
    "ds_experts_gate_3bit": (DSV3, False, {**_BASE, "dynamic": {
        r".*\.experts.*": {"bits": 3}, r".*\.gate$": {"bits": 3}}}),
    "ds_dense_mlp_3bit": (DSV3, False, {**_BASE, "dynamic": {
        r"model\.layers\.0\.mlp\..*": {"bits": 3}}}),
    "ds_noshared_sparse_mlp_3bit": (f"{DSV3}:noshared", False, {**_BASE, "dynamic": {
        r"model\.layers\.[12]\.mlp\..*": {"bits": 3}}}),
    "ds_freq2_layer1_down_3bit": (f"{DSV3}:freq2", False, {**_BASE, "dynamic": {
        r"model\.layers\.1\.mlp\.down_proj": {"bits": 3}}}),
    "ds_shared_3bit": (DSV3, False, {**_BASE, "dynamic": {r".*shared_experts.*": {"bits": 3}}}),
    "ds_head_quantized": (DSV3, False, {**_BASE, "lm_head": True,
                                        "dynamic": {"lm_head": {"bits": 2}}}),
    "ds_head_tied": (DSV3, True, {**_BASE, "lm_head": True, "dynamic": {"lm_head": {"bits": 2}}}),
    # s67q: layer 0's dense MLP without shared experts anywhere (a layer taken as sparse
    # then reads nothing: the shared expert's override, judged since s67q, cannot stand in)
    "ds_noshared_dense_mlp_3bit": (f"{DSV3}:noshared", False, {**_BASE, "dynamic": {
        r"model\.layers\.0\.mlp\..*": {"bits": 3}}}),
}
FIXED.update(DEEPSEEK_LINES)
# s67q: on SM100, DeepSeek-V3 and Qwen3-MoE copy `gptq` into the unset flag; the scheduler's
# ModelConfig refuses it ("copy") before any layer's override is read; DeepSeek-V2 keeps the
# flag (no override sets it), so its layers are judged as on an H100
SM100_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "sm100_ds_o_proj_3bit": (f"{DSV3}{SM100}", False, {**_BASE, "dynamic": {
        r"+:.*o_proj": {"bits": 3}}}),
    "sm100_ds_none": (f"{DSV3}{SM100}", False, {**_BASE, "dynamic": {}}),
    "sm100_moe_o_proj_3bit": (f"{MOE}{SM100}", False, {**_BASE, "dynamic": {
        r"+:.*o_proj": {"bits": 3}}}),
    "sm100_ds_v2_kv_a_3bit": (f"{DSV2}:nolora{SM100}", False, {**_BASE, "dynamic": {
        r".*kv_a_proj_with_mqa": {"bits": 3}}}),
}
# s68q: an AWQ checkpoint on SM100: the copied `awq` gets no Marlin upgrade either
# (awq/awq.py), passes ModelConfig and meets the loader's bfloat16 refusal ("copy"); on an
# H100 (no copy) the unset flag settles on awq_marlin and SGLang builds no GPTQ class ("other")
_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
        "version": "gemm"}
AWQ_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "sm100_moe_awq": (f"{MOE}{SM100}", False, _AWQ),
    "sm100_ds_awq": (f"{DSV3}{SM100}", False, _AWQ),
    "sm100_ds_v2_awq": (f"{DSV2}:nolora{SM100}", False, _AWQ),
    "h100_moe_awq": (MOE, False, _AWQ),
}
FIXED.update(SM100_LINES)
FIXED.update(AWQ_LINES)
# s67q: the DSA classes' indexers read the map between q_b_proj and kv_b_proj (wq_b, and wk
# unless the fused projection replaces it); layers reusing the top-k build none
DSA_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "dsa_wq_b_3bit": (DSV32, False, {**_BASE, "dynamic": {r".*indexer\.wq_b": {"bits": 3}}}),
    "dsa_wk_asym": (GLM5, False, {**_BASE, "dynamic": {r".*indexer\.wk$": {"sym": False}}}),
    "dsa_v3_indexer_3bit": (f"{DSV3}:dsa", False, {**_BASE, "dynamic": {
        r".*indexer.*": {"bits": 3}}}),
    "dsa_interleave_wk_3bit": (f"{DSV32}:interleave", False, {**_BASE, "dynamic": {
        r".*indexer\.wk$": {"bits": 3}}}),
    "dsa_glm_layer1_indexer": (f"{GLM5}:default", False, {**_BASE, "dynamic": {
        r"model\.layers\.1\.self_attn\.indexer.*": {"bits": 3}}}),
    "dsa_freq2_layer2_indexer": (f"{DSV32}:freq2", False, {**_BASE, "dynamic": {
        r"model\.layers\.2\.self_attn\.indexer.*": {"bits": 3}}}),
    "dsa_glm_freq2_layer2_indexer": (f"{GLM5}:freq2", False, {**_BASE, "dynamic": {
        r"model\.layers\.2\.self_attn\.indexer.*": {"bits": 3}}}),
    "dsa_skip_indexer_then_kv_b": (DSV32, False, {**_BASE, "dynamic": {
        r"-:.*indexer.*": {}, r".*kv_b_proj": {"bits": 3}}}),
}
FIXED.update(DSA_LINES)
# s67q: a shared expert's override, as the line's fusion flags and the class's gate decide
_SHARED_3BIT = {**_BASE, "dynamic": {r".*shared_experts.*": {"bits": 3}}}
FUSION_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "fusion_enforced": (f"{DSV3}+enforce", False, _SHARED_3BIT),
    "fusion_disabled": (f"{DSV3}+disable", False, _SHARED_3BIT),
    "fusion_gate_e256": (f"{DSV3}:e256", False, _SHARED_3BIT),
    "fusion_disabled_e256": (f"{DSV3}:e256+disable", False, _SHARED_3BIT),
}
FIXED.update(FUSION_LINES)
# s68q: the gate's TBO and EP clauses keep them apart on the config it takes; fused (TP 2 on an
# H100, or enforced), the walk goes on past them to a later layer's refusal; under waterfill
# (deepep forced) or the flashinfer_trtllm runner the experts stop first
GATE_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "gate_tbo": (f"{DSV3}:e256+tbo", False, _SHARED_3BIT),
    "gate_ep2": (f"{DSV3}:e256+ep2", False, _SHARED_3BIT),
    "gate_tp2_then_head": (f"{DSV3}:e256+tp2", False, {**_BASE, "lm_head": True, "dynamic": {
        r".*shared_experts.*": {"bits": 3}, "lm_head": {"bits": 2}}}),
    "gate_enforced_then_o_proj": (f"{DSV3}+enforce", False, {**_BASE, "dynamic": {
        r".*shared_experts.*": {"bits": 3}, r"model\.layers\.2\.self_attn\.o_proj": {"bits": 3}}}),
    "gate_waterfill_disabled": (f"{DSV3}:e256+waterfill+disable", False, _SHARED_3BIT),
    "gate_trtllm_runner": (f"{DSV3}:e256+trtllm", False, _SHARED_3BIT),
}
FIXED.update(GATE_LINES)
# s68r: a named MoE runner. On config.json's checkpoint (no flag: the server arguments take any
# runner) a dense layer 0 is refused before any expert, while a layer after the first sparse
# one is never reached: GPTQ Marlin's experts assert the auto runner (gptq_kernels.py:309).
# With a found file's gptq_marlin flag, flashinfer_trtllm is refused by the server arguments
# before any layer (moe_hook.py:123-135); triton passes them and meets the experts' assert.
_O_PROJ_2 = {**_BASE, "dynamic": {r"model\.layers\.2\.self_attn\.o_proj": {"bits": 3}}}
RUNNER_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "runner_layer0_first": (f"{DSV3}+trtllm", False,
                            {**_BASE, "dynamic": {r"model\.layers\.0\..*": {"bits": 3}}}),
    "runner_experts_then_o_proj": (f"{DSV3}+trtllm", False, _O_PROJ_2),
    "triton_experts_then_o_proj": (f"{DSV3}+triton", False, _O_PROJ_2),
}
FIXED.update(RUNNER_LINES)
# issue 23 s68g: Qwen3-MoE / Qwen2-MoE (every layer sparse, 2 layers): layer 0's attention is
# built before its experts, so its override is refused first; layer 1's attention and layer
# 0's shared expert (built after the experts) are never reached under a named runner
_O_PROJ_1 = {**_BASE, "dynamic": {r"model\.layers\.1\.self_attn\.o_proj": {"bits": 3}}}
QWEN_RUNNER_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "moe_runner_o_proj0_first": (f"{MOE}+trtllm", False, {**_BASE, "dynamic": {
        r"model\.layers\.0\.self_attn\.o_proj": {"bits": 3}}}),
    "moe_runner_experts_then_o_proj1": (f"{MOE}+trtllm", False, _O_PROJ_1),
    "moe_triton_experts_then_o_proj1": (f"{MOE}+triton", False, _O_PROJ_1),
    "q2moe_runner_experts_then_shared": (f"{QWEN2_MOE}+trtllm", False, {**_BASE, "dynamic": {
        r".*shared_expert\..*": {"bits": 3}}}),
    "q2moe_triton_no_map": (f"{QWEN2_MOE}:0+triton", False, {**_BASE, "dynamic": {}}),
}
FIXED.update(QWEN_RUNNER_LINES)
# issue 23 s69g: Mixtral (2 layers, every one sparse): its attention reads the map, its experts
# and router gate do not, nor its lm_head (no quant config, mixtral.py:355-357); its layers are
# `layers.N` (mixtral.py:298-303), so a `model\.layers\..*` pattern matches none. Under a named
# runner layer 0's attention is refused first, then the experts assert the auto runner before
# layer 1's attention is built
_MIXTRAL_O_PROJ_1 = {**_BASE, "dynamic": {r"layers\.1\.self_attn\.o_proj": {"bits": 3}}}
MIXTRAL_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "mixtral_o_proj_3bit": (MIXTRAL, False, {**_BASE, "dynamic": {r"+:.*o_proj": {"bits": 3}}}),
    "mixtral_experts_gate_3bit": (MIXTRAL, False, {**_BASE, "dynamic": {
        r".*block_sparse_moe.*": {"bits": 3}}}),
    "mixtral_head_unquantized": (MIXTRAL, False, {**_BASE, "lm_head": True,
                                                  "dynamic": {"lm_head": {"bits": 2}}}),
    "mixtral_layer1_asym": (MIXTRAL, False, {**_BASE, "dynamic": {
        r"layers\.1\.self_attn\.qkv_proj": {"sym": False}}}),
    "mixtral_model_prefix_matches_none": (MIXTRAL, False, {**_BASE, "dynamic": {
        r"model\.layers\.1\..*": {"bits": 3}}}),
    "mixtral_runner_o_proj0_first": (f"{MIXTRAL}+trtllm", False, {**_BASE, "dynamic": {
        r"layers\.0\.self_attn\.o_proj": {"bits": 3}}}),
    "mixtral_runner_experts_then_o_proj1": (f"{MIXTRAL}+trtllm", False, _MIXTRAL_O_PROJ_1),
    "mixtral_triton_experts_then_o_proj1": (f"{MIXTRAL}+triton", False, _MIXTRAL_O_PROJ_1),
    "mixtral_triton_no_map": (f"{MIXTRAL}+triton", False, {**_BASE, "dynamic": {}}),
}
FIXED.update(MIXTRAL_LINES)
# s70i: PhiMoE: Mixtral's parts under `model.layers.N`; its lm_head reads the map where
# `lm_head: true`, tied or not (models/phimoe.py:467-476)
_PHIMOE_O_PROJ_1 = {**_BASE, "dynamic": {r"model\.layers\.1\.self_attn\.o_proj": {"bits": 3}}}
_HEAD_2BIT = {**_BASE, "lm_head": True, "dynamic": {"lm_head": {"bits": 2}}}
PHIMOE_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "phimoe_o_proj_3bit": (PHIMOE, False, {**_BASE, "dynamic": {r"+:.*o_proj": {"bits": 3}}}),
    "phimoe_experts_gate_3bit": (PHIMOE, False, {**_BASE, "dynamic": {
        r".*block_sparse_moe.*": {"bits": 3}}}),
    "phimoe_head_quantized": (PHIMOE, False, _HEAD_2BIT),
    "phimoe_head_tied": (PHIMOE, True, _HEAD_2BIT),
    "phimoe_head_unquantized": (PHIMOE, False, {**_BASE, "dynamic": {"lm_head": {"bits": 2}}}),
    "phimoe_layer1_asym": (PHIMOE, False, {**_BASE, "dynamic": {
        r"model\.layers\.1\.self_attn\.qkv_proj": {"sym": False}}}),
    "phimoe_bare_prefix_matches_none": (PHIMOE, False, {**_BASE, "dynamic": {
        r"layers\.1\..*": {"bits": 3}}}),
    "phimoe_runner_o_proj0_first": (f"{PHIMOE}+trtllm", False, {**_BASE, "dynamic": {
        r"model\.layers\.0\.self_attn\.o_proj": {"bits": 3}}}),
    "phimoe_runner_experts_then_o_proj1": (f"{PHIMOE}+trtllm", False, _PHIMOE_O_PROJ_1),
    "phimoe_triton_experts_then_o_proj1": (f"{PHIMOE}+triton", False, _PHIMOE_O_PROJ_1),
    "phimoe_triton_no_map": (f"{PHIMOE}+triton", False, {**_BASE, "dynamic": {}}),
}
FIXED.update(PHIMOE_LINES)
# s70i: Grok: its layers' linears carry no prefix of their own (`attn.o_proj` in every layer,
# grok.py:655-668), the residual MLP's bare `gate_up_proj` / `down_proj`; no lm_head reads it
GROK_LINES: dict[str, tuple[str, bool, dict[str, Any]]] = {
    "grok_o_proj_3bit": (GROK, False, {**_BASE, "dynamic": {r"+:.*o_proj": {"bits": 3}}}),
    "grok_attn_asym": (GROK, False, {**_BASE, "dynamic": {r"attn\.qkv_proj": {"sym": False}}}),
    "grok_model_prefix_matches_none": (GROK, False, {**_BASE, "dynamic": {
        r"model\.layers\.1\..*": {"bits": 3}}}),
    "grok_head_unquantized": (GROK, False, _HEAD_2BIT),
    "grok_mlp_without_residual": (GROK, False, {**_BASE, "dynamic": {r".*down_proj": {"bits": 3}}}),
    "grok_residual_down_3bit": (f"{GROK}:residual", False, {**_BASE, "dynamic": {
        r".*down_proj": {"bits": 3}}}),
    "grok_residual_skip_then_bad": (f"{GROK}:residual", False, {**_BASE, "dynamic": {
        r"-:.*_proj$": {}, r".*down_proj": {"bits": 3}}}),
    "grok_triton_no_map": (f"{GROK}+triton", False, {**_BASE, "dynamic": {}}),
    "grok_triton_o_proj_first": (f"{GROK}+triton", False, {**_BASE, "dynamic": {
        r".*o_proj": {"bits": 3}}}),
    "grok_triton_residual_after_experts": (f"{GROK}:residual+triton", False, {
        **_BASE, "dynamic": {r".*gate_up_proj": {"bits": 3}}}),
    "grok_alias_o_proj_3bit": (GROKS[1], False, {**_BASE, "dynamic": {
        r".*o_proj": {"bits": 8, "sym": False}}}),
    "grok_e0_o_proj_3bit": (f"{GROK}:e0", False, {**_BASE, "dynamic": {r".*o_proj": {"bits": 3}}}),
    "grok_e0_down_3bit": (f"{GROK}:e0", False, {**_BASE, "dynamic": {r".*down_proj": {"bits": 3}}}),
    "grok_noexperts_o_proj_3bit": (f"{GROK}:noexperts", False, {**_BASE, "dynamic": {
        r".*o_proj": {"bits": 3}}}),
    "grok_e0_triton_no_map": (f"{GROK}:e0+triton", False, {**_BASE, "dynamic": {}}),
}
FIXED.update(GROK_LINES)


@functools.cache
def _dir(architecture: str, tied: bool, body: str, found: bool = False) -> str:
    """The checkpoint: `body` under config.json's quantization_config, or (`found`) in a
    quantize_config.json beside a config.json that declares no quantization."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-gptq-dynamic-"))
    config = _config(architecture, tied)
    if found:
        (root / "quantize_config.json").write_text(body)
    else:
        config["quantization_config"] = json.loads(body)
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


@contextlib.contextmanager
def one_rank_on_meta(module: Any) -> Iterator[None]:
    """The glue a whole-model build on the meta device needs (inside `so.published`): one TP
    rank of every group (rank 0 of the line's widths, s68q), one pipeline stage, no CUDA
    side stream in `module`, the dual-GEMM kernel pick off. Shared with
    tests.oracle.sglang_nvfp4_moe_layers_oracle (s60q)."""
    import sglang.srt.layers.dual_gemm as dual_gemm
    import torch
    from sglang.srt.runtime_context import get_parallel

    def group(size: int) -> Any:
        return types.SimpleNamespace(world_size=size, rank_in_group=0, cpu_group=None,
                                     device_group=None)

    stage = types.SimpleNamespace(world_size=1, rank_in_group=0, is_first_rank=True,
                                  is_last_rank=True)
    widths = get_parallel()  # s68q: rank 0 of the published widths (1 on a TP-1 line)
    with get_parallel().override(tp_rank=0, attn_tp_rank=0, pp_rank=0, moe_ep_rank=0,
                                 moe_tp_rank=0, tp_group=group(widths.tp_size),
                                 attn_tp_group=group(widths.attn_tp_size),
                                 moe_tp_group=group(widths.moe_tp_size),
                                 moe_ep_group=group(widths.moe_ep_size), pp_group=stage), \
            torch.device("meta"), \
            mock.patch.object(dual_gemm, "is_cuda", lambda: False), \
            mock.patch.object(module, "get_stream", lambda name: None, create=True):
        yield


def built(architecture: str, tied: bool, folder: str, spec: dict[str, Any],
          flag: str | None = None) -> str:
    """SGLang's model build with GPTQMarlinConfig on `spec`: "" or the error it raised
    (`flag`: the line's --quantization, s66q: a DeepSeek line resolves with it). A
    ValueError is followed by " [at PREFIX]", the last layer override_config was asked about."""
    deepseek = _class(architecture) in _MLA  # s67q: the DSA classes too
    if deepseek:  # s66q: the checkpoint itself on an H100 (its MoE runner reads the method)
        r = so.resolve([*(["--quantization", flag] if flag else []), *_flags(architecture)],
                       model=folder, capability=divmod(_gpu(architecture)[1], 10))  # s67q
    else:
        layout = _LAYOUTS.get(_class(architecture), architecture)  # s63q: TP 1 alike
        # s68g: a line's flags (a named MoE runner) are resolved with its --quantization on
        # its GPU, so that the experts read the runner; a line without flags as before
        named = (*(("--quantization", flag) if flag else ()), *_flags(architecture)) \
            if _flags(architecture) else ()
        r = so.resolve(["--model-path", th.target_dir(layout, tied), *named],
                       **({"capability": divmod(_gpu(architecture)[1], 10)} if named else {}))
    if isinstance(r, so.Rejected):  # s68q: the line's flags refused with the found file's flag
        return f"{r.kind}: {r.text}"[:160]
    assert isinstance(r, so.Resolved), r
    with so.sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.layers.moe.utils import (
            initialize_moe_config,
            resolve_shared_experts_config,
        )
        from sglang.srt.layers.quantization import utils as quant_utils
        from sglang.srt.layers.quantization.gptq.gptq import GPTQMarlinConfig
        from sglang.srt.runtime_context import get_model
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = copy.deepcopy(get_config(folder, trust_remote_code=False))
        initialize_dp_attention_flags(None)
        initialize_moe_config()
        module = importlib.import_module(f"sglang.srt.models.{_module(architecture)}")
        quant = GPTQMarlinConfig.from_config(copy.deepcopy(spec))
        quant.quant_type = None  # glue: a stub deepcopy cannot copy (see the module text)
        asked: list[str] = []  # s66q glue: the prefixes override_config was asked about
        real = quant_utils.override_config

        def watched(cfg: Any, prefix: str) -> None:
            asked.append(prefix)
            real(cfg, prefix)

        with one_rank_on_meta(module), _deepseek_glue(deepseek or _class(architecture) in GROKS), \
                mock.patch.object(quant_utils, "override_config", watched):
            try:
                model_class = getattr(module, _class(architecture))
                # s67q: as the loader does (model_loader/loader.py:291-310): the shared-expert
                # layout resolved from the class's gate before the class is built
                layout = resolve_shared_experts_config(model_class, config, quant)
                with get_model().override(shared_experts=layout):
                    model_class(config, quant_config=quant)
            except Exception as exc:  # reported, judged by the caller
                at = f" [at {asked[-1]}]" if asked and isinstance(exc, ValueError) else ""
                if isinstance(exc, AssertionError):  # s68r: a bare assert's file:line
                    frame = traceback.extract_tb(exc.__traceback__)[-1]
                    at = f" [raised {Path(frame.filename).name}:{frame.lineno}]"
                fusion = _fusion(getattr(module, _class(architecture)), config, quant) \
                    if deepseek else ""
                return f"{type(exc).__name__}: {exc}"[:160] + at + fusion
    return ""


def _fusion(model_class: Any, config: Any, quant: Any) -> str:
    """s67q: why SGLang's own `resolve_shared_experts_config` (layers/moe/utils.py:601-623)
    left the shared experts apart on this line, in the published context: " [fusion: flag]"
    (disabled by the settled flag), " [fusion: config]" (the class's gate: "Config does not
    support fused shared expert(s).", deepseek_v2.py:3357-3374), " [fusion: other]" (another
    gate reason: DeepEP, ...) or " [fusion: on]"; s68q: " [fusion: overlap]" (SBO / TBO,
    :3353-3354), " [fusion: ep]" (an EP size above 1, :3385-3391), " [fusion: gpu]" (below
    SM80, :3375-3384), by the reason's own words."""
    from sglang.srt.runtime_context import get_exec

    if get_exec().moe.disable_shared_experts_fusion:
        return " [fusion: flag]"
    reason = model_class.shared_experts_fusion_disable_reason(config, quant)
    if reason is None:
        return " [fusion: on]"
    for start, name in (("Config does not support", "config"), ("SBO/TBO", "overlap"),
                        ("Only Deepseek V3/R1 on AMD", "ep"), ("Only Deepseek V3/R1 on NV", "gpu")):
        if reason.startswith(start):
            return f" [fusion: {name}]"
    return " [fusion: other]"


@contextlib.contextmanager
def _deepseek_glue(on: bool) -> Iterator[None]:
    """s66q glue (as tests.oracle.sglang_nvfp4_moe_layers_oracle._build): DeepSeek's model
    makes its side stream with torch.cuda.Stream itself."""
    if not on:
        yield
        return
    from tests.oracle.sglang_nvfp4_moe_layers_oracle import class_glue

    # s67q: and a DSA class's indexer glue (its SM count, no AMD arch name), as s63q's
    with mock.patch("torch.cuda.Stream", lambda *args, **kwargs: None), class_glue():
        yield


def planned_file(folder: str, flags: tuple[str, ...], gpu: str) -> tuple[int, str]:
    """s69g: graphfit's (exit code, last error line) on `graphfit plan --config FILE`, the
    file holding `engine: sglang`, `model_path`, `gpu_memory_gb` and the line's flags as its
    keys (`--moe-runner-backend triton` -> `moe_runner_backend: triton`, a flag without a
    value -> `true`)."""
    body: dict[str, Any] = {"engine": "sglang", "model_path": folder, "gpu_memory_gb": gpu}
    for index, flag in enumerate(flags):
        if flag.startswith("--"):
            value = flags[index + 1] if index + 1 < len(flags) else "--"
            body[flag.removeprefix("--").replace("-", "_")] = \
                True if value.startswith("--") else value
    if body.pop("enable_dp_attention", False):  # graphfit's file spells SGLang's deprecated
        body["attn_dp_size"] = body.pop("dp_size")  # `--dp-size N --enable-dp-attention` so
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(json.dumps(body))  # JSON is YAML
    code, _, output = sc.run_graphfit(["plan", "--config", handle.name])
    Path(handle.name).unlink()
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def compare(architecture: str, tied: bool, spec: dict[str, Any], found: bool = False,
            unquant: bool = False, via_file: bool = False) -> tuple[str, str | None]:
    """One line on a B200 (s66q: DeepSeek on an H100; s67q: Qwen3-MoE too, both on a B200
    with the "@sm100" suffix): (verdict, a disagreement or None). `found`: the dict sits in the
    quantize_config.json SGLang's file search finds (weight_utils.py:342-438) under
    `--quantization gptq_marlin`, config.json declaring none. `unquant` (s67q, "@sm100" lines
    only): the line carries `--quantization unquant`, which stops the copy. `via_file` (s69g):
    graphfit reads the line's flags from its own config file (`planned_file`), not a pasted
    line; SGLang's side is the same."""
    body = json.dumps(spec)  # in order: the first matching pattern decides
    spec = json.loads(body)  # SGLang's side reads the dict as the file holds it
    folder = _dir(architecture, tied, body, found)
    flag = "gptq_marlin" if found else "unquant" if unquant else None
    assert not unquant or architecture.endswith(SM100), architecture
    # s66q: DeepSeek on an H100: on SM100 DeepSeek-V3's server-args override copies the
    # checkpoint's method into the flag first (arg_groups/overrides.py:763-797); s67q: so does
    # Qwen3-MoE's hook: both run on a B200 only with the "@sm100" suffix (`_gpu`)
    gpu, capability = _gpu(architecture)
    code, said = (planned_file if via_file else planned)(
        folder, (*(("--quantization", flag) if flag else ()), *_flags(architecture)), gpu)
    where = f"{architecture} tied={tied} found={found} {body[:150]} ({gpu})" \
        + (" [config file]" if via_file else "")
    settled = _settled_flag(architecture, folder, flag)
    if isinstance(settled, so.Rejected):
        return _judged("other", f"args {settled.text[:60]}", code, said, where)
    theirs = co.load(settled, None if found else spec, capability, folder,
                     architecture=_class(architecture))
    if settled != flag and theirs.stage != "passed":
        # s67q: the scheduler's ModelConfig refuses the copied flag before any layer is
        # built: graphfit must refuse naming the copy, not a layer
        ok = code == 2 and COPY_MARK in said and MARK not in said
        stop = f"{theirs.stage} {settled} {theirs.said[:60]}"
        return "copy", None if ok else f"{where}: SGLang {stop}; graphfit {code} {said}"
    if settled != flag and co.dtype_refused(theirs):
        # s68q: the copied flag (an AWQ checkpoint's `awq`, no Marlin upgrade) passes
        # ModelConfig, then the loader refuses the checkpoint's bfloat16 for it
        # (model_loader/loader.py:263-270): graphfit must give that refusal on that method
        ok = code == 2 and DTYPE_MARK in said and f"--quantization {settled}:" in said
        stop = f"dtype {settled} {theirs.said[:60]}"
        return "copy", None if ok else f"{where}: SGLang {stop}; graphfit {code} {said}"
    if theirs.stage != "passed" or theirs.method != "gptq_marlin":
        verdict, stop = "other", f"{theirs.stage} {theirs.method} {theirs.said[:60]}"
    else:
        stop = built(architecture, tied, folder, spec, flag)
        verdict = "built" if not stop else "layer" if stop.startswith(f"ValueError: {_SAID}") \
            else "runner" if RUNNER_RAISED in stop else "other"  # s68r: "runner"
    if verdict == "layer" and ".mlp.shared_experts." in stop \
            and not stop.endswith(JUDGED_FUSION):
        # s66q: DeepSeek's shared experts, unfused on this line; s67q: where SGLang's own
        # reason is neither the disable flag nor the class's config test, graphfit leaves
        # them unjudged (s68q: TBO / SBO, EP and the GPU are judged; DeepEP-class backends
        # and the other reasons not): it must not name another layer
        verdict = "shared"
    return _judged(verdict, stop, code, said, where)


def _settled_flag(architecture: str, folder: str, flag: str | None) -> Any:
    """The --quantization SGLang's server arguments hold after the model overrides: on an
    "@sm100" line SGLang's own resolution on the checkpoint on a B200 (its resolved view's
    `quantization`, or the Rejected), else the given flag (s67q)."""
    if not architecture.endswith(SM100):
        return flag
    r = so.resolve([*(["--quantization", flag] if flag else []), *_flags(architecture)],
                   model=folder, capability=(10, 0))
    if isinstance(r, so.Rejected):
        return r
    with so.sglang_stubs.imports():  # the module is loaded by resolve already
        from sglang.srt.arg_groups.overrides import resolved_view

        return resolved_view(r.record).quantization  # the passes' decisions on the record


def _judged(verdict: str, stop: str, code: int, said: str, where: str
            ) -> tuple[str, str | None]:
    """(verdict, a disagreement or None): graphfit cites the layer rule where SGLang's build
    refused a layer ("layer"), and nowhere else."""
    if verdict == "layer":
        ok = code == 2 and MARK in said
        return verdict, None if ok else f"{where}: SGLang {stop[:90]}; graphfit {code} {said}"
    if verdict == "runner":  # s68r: the experts' runner assert, and no layer named
        ok = code == 2 and RUNNER_MARK in said and MARK not in said
        return verdict, None if ok else f"{where}: SGLang {stop[:90]}; graphfit {code} {said}"
    if MARK in said or RUNNER_MARK in said:  # s68r: nor the runner assert
        return verdict, f"{where}: SGLang {verdict} {stop[:80]}; graphfit {said}"
    return verdict, None


_PATTERNS = ("-:.*", r"+:.*down_proj", r".*\.mlp\..*", r"model\.layers\.1\..*", "lm_head",
             ".*o_proj", r"model\.layers\.5\..*", ".*", r"+:.*qkv_proj", r"-:.*mlp.*", "[",
             r".*shared_expert\..*",  # s64q
             r".*kv_b_proj", r".*q_b_proj", r"-:.*fused_qkv_a.*", r".*kv_a_proj.*",
             r".*shared_experts\..*", r"model\.layers\.[02]\.mlp\..*",  # s66q
             r".*indexer\.wq_b", r".*indexer\.wk$", r".*indexer.*",
             r"model\.layers\.2\.self_attn\..*",  # s67q
             r".*block_sparse_moe.*", r"layers\.1\..*",  # s69g
             r"attn\..*", r".*gate_up_proj")  # s70i: Grok's bare prefixes
_ENTRIES: tuple[object, ...] = ({"bits": 3}, {"bits": 8}, {"sym": False}, {"bits": 4, "sym": True},
                                {"group_size": 64}, {}, False, {"bits": 0}, {"bits": True},
                                {"bits": 8, "sym": False}, {"bits": 2}, {"bits": 3}, {"sym": False},
                                {"bits": 8}, None)


def generated_line(rng: random.Random) -> tuple[str, bool, dict[str, Any]]:
    """(architecture, tied, quantization_config): a GPTQ dict Marlin takes, with 1-3 drawn
    override patterns and entries (some SGLang stops on with its own error)."""
    spec: dict[str, Any] = {**_BASE, **rng.choice(({}, {}, {"bits": 8}, {"lm_head": True}))}
    spec["dynamic"] = {rng.choice(_PATTERNS): rng.choice(_ENTRIES)
                       for _ in range(rng.randint(1, 3))}
    return rng.choice(ARCHITECTURES), rng.random() < 0.25, spec


def generated_lines(count: int, seed: int) -> list[tuple[str, bool, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
