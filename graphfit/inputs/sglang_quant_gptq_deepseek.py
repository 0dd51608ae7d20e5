"""The linear layers of SGLang 0.5.23's DeepSeek-V2 / V3 classes that read GPTQ Marlin's
per-module `dynamic` overrides, in the order the model builds them (issue 23, s66q).

Why a module of its own: DeepSeek's layers are not the dense classes' four linears. Each
decoder layer (models/deepseek_v2.py:2589-2680) builds its MLA attention first
(DeepseekV2AttentionMLA, :2068-2161): with `q_lora_rank` set, `fused_qkv_a_proj_with_mqa`
then `q_b_proj` (whose config is the layer's unless an NVFP4-only env var swaps in FP8,
:2573-2582); without it, `q_proj` then `kv_a_proj_with_mqa`; then `kv_b_proj` and `o_proj`.
Its RadixAttention modules are no LinearBase, so GPTQ hands them no method
(layers/quantization/utils.py:288-306). Then the MLP: a dense layer's DeepseekV2MLP
(`mlp.gate_up_proj`, `mlp.down_proj`, :305-320, 2662-2674), or, where `_is_layer_sparse`
says so (`n_routed_experts` set, index >= `first_k_dense_replace`, index % `moe_layer_freq`
== 0, :2785-2792), the MoE block: its router gate is a bare parameter (MoEGate, :497-540),
its experts a FusedMoE that takes GPTQMarlinMoEMethod with no override
(gptq/gptq.py:445-446), and its shared experts a DeepseekV2MLP (`mlp.shared_experts.*`,
:855-895) unless they are fused into the experts. The fusion hangs on the line
(`--enforce-shared-experts-fusion` fuses any DeepSeek checkpoint, `--disable-...`, TBO /
DeepEP, the GPU: layers/moe/utils.py:601-623, deepseek_v2.py:3324-3395): a shared-expert
prefix is marked, and a refusal there is judged only where the line's flags and the GPU make
the answer sure (s67q; s68q: graphfit.inputs.sglang_deepseek_shared_fusion); where they are
surely fused, the walk passes them by. The lm_head is the embedding when tied on one stage
(:3286-3296). A `hidden_act` other than silu stops both MLP classes with SGLang's own
ValueError (:330-334, 720-724): nothing after the first layer's attention is walked then.

A config.json that leaves `q_lora_rank`, `n_routed_experts`, `first_k_dense_replace` or
`moe_layer_freq` to a default (the HF config class's, or SGLang's own AttributeError) gives
no walk: `Unknown` is raised.

The DSA classes (issue 23, s67q): DeepSeek-V3.2 and GLM-5 (GlmMoeDsaForCausalLM) are
DeepseekV2ForCausalLM (deepseek_v2.py:3522; glm4_moe.py:1284), and `is_deepseek_dsa`
(configs/model_config.py:191-212) makes them, and a DeepSeek-V3 with `index_topk`, build an
Indexer in each layer whose top-k is not reused (`dsa_layer_skips_topk`, :488-527), between
`q_b_proj` and `kv_b_proj` (deepseek_v2.py:2106-2139). Its `wq_b` reads the quant config; its
`wk` does too unless the fused `wk_weights_proj` (unquantized) replaces it, which happens on
CUDA for an interleaved indexer rope unless SGLANG_DISABLE_DSA_INDEXER_FUSION is set
(layers/attention/dsa/dsa_indexer.py:310-314, 344-373): the environment decides, which this
rule does not see, so a refusal on such a `wk` is not judged. transformers' DeepseekV32 and
GlmMoeDsa config classes default `index_topk` to 2048 (always DSA), and GlmMoeDsa's derives
`indexer_types` from `index_topk_pattern` / `index_topk_freq` / `index_skip_topk_offset`
(default 2) when not given (configuration_glm_moe_dsa.py:131-144), which SGLang reads first.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphfit.inputs import sglang_deepseek_shared_fusion as shared_fusion

# the DeepSeek classes walked: DeepseekV3 is DeepseekV2's class (deepseek_v2.py:3518); s67q: the
# DSA classes (deepseek_v2.py:3522, glm4_moe.py:1284) with their indexers (:2106-2139)
ARCHITECTURES = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",
                 "GlmMoeDsaForCausalLM")
SHARED = ".mlp.shared_experts."
# issue 23 s68r: a sparse layer's routed experts, built before its shared experts
# (deepseek_v2.py:753, 860-895): a FusedMoE whose GPTQMarlinMoEMethod reads no override
# (gptq/gptq.py:445-446) but asserts the MoE runner (gptq_dynamic.runner_given)
EXPERTS = ".mlp.experts"
# s67q: is_deepseek_dsa's classes among them (configs/model_config.py:191-212)
_DSA = ("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM")
# transformers' config classes whose `index_topk` defaults to 2048 (so DSA when absent)
_DSA_DEFAULT_TYPES = ("deepseek_v32", "glm_moe_dsa")
_WK = ".indexer.wk"


class Unknown(Exception):
    """config.json leaves a field the walk needs to a default graphfit does not restate."""


def _count(data: Mapping[str, Any], key: str, least: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise Unknown(key)
    return value


def _attention(data: Mapping[str, Any]) -> tuple[str, ...]:
    """DeepseekV2AttentionMLA's linears in build order (deepseek_v2.py:2068-2161)."""
    if "q_lora_rank" not in data:
        raise Unknown("q_lora_rank")  # HF's default (1536) would apply
    first = ("fused_qkv_a_proj_with_mqa", "q_b_proj") if data["q_lora_rank"] is not None \
        else ("q_proj", "kv_a_proj_with_mqa")
    return (*first, "kv_b_proj", "o_proj")


def _shared(data: Mapping[str, Any]) -> bool:
    """Whether a sparse layer may build shared experts (:855-860): None or 0 builds none; a
    key left to HF's default may."""
    value = data.get("n_shared_experts", 1)
    return value is not None and (not isinstance(value, int) or value > 0)


def _dsa(data: Mapping[str, Any], architecture: str) -> bool:
    """`is_deepseek_dsa` (configs/model_config.py:191-212) on the config transformers builds
    (s67q)."""
    if architecture not in _DSA:
        return False
    if "index_topk" not in data:
        return data.get("model_type") in _DSA_DEFAULT_TYPES
    return data["index_topk"] is not None


def _positive(data: Mapping[str, Any], key: str) -> int:
    """An int field SGLang asserts positive, None read as 1 (model_config.py:499-518)."""
    value = data.get(key, 1)
    value = 1 if value is None else value
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise Unknown(key)
    return value


def _indexer_types(data: Mapping[str, Any], layers: int) -> list[object] | None:
    """`indexer_types` as the config object holds it: config.json's; for GLM-5's class, else
    derived from the pattern or from freq / offset (configuration_glm_moe_dsa.py:131-144)."""
    given = data.get("indexer_types")
    if given is not None or data.get("model_type") != "glm_moe_dsa":
        if given is not None and not isinstance(given, list):
            raise Unknown("indexer_types")
        return given
    pattern = data.get("index_topk_pattern")
    if isinstance(pattern, str):
        if set(pattern) - {"F", "S"}:
            raise Unknown("index_topk_pattern")  # transformers' KeyError
        return [{"F": "full", "S": "shared"}[c] for c in pattern]
    if pattern is not None:
        raise Unknown("index_topk_pattern")
    freq, offset = data.get("index_topk_freq", 1), data.get("index_skip_topk_offset", 2)
    if isinstance(freq, bool) or not isinstance(freq, int) or isinstance(offset, bool) \
            or not isinstance(offset, int):
        raise Unknown("index_topk_freq")
    return ["full" if max(i - offset + 1, 0) % max(freq, 1) == 0 else "shared"
            for i in range(layers)]


def skips_topk(data: Mapping[str, Any], index: int, layers: int) -> bool:
    """`dsa_layer_skips_topk` (configs/model_config.py:488-527): whether layer `index` reuses
    the previous layer's top-k, building no indexer (deepseek_v2.py:2115-2116)."""
    types = _indexer_types(data, layers)
    if types is not None:
        return 0 <= index < len(types) and types[index] == "shared"
    cli_factor = _positive(data, "cli_factor")
    if cli_factor > 1:
        return index % cli_factor != 0
    pattern = data.get("index_topk_pattern")
    if pattern is not None:
        if not isinstance(pattern, (str, list)):
            raise Unknown("index_topk_pattern")
        return index < len(pattern) and pattern[index] == "S"
    freq = _positive(data, "index_topk_freq")
    if data.get("index_skip_topk_offset") is not None:
        return max(index - _positive(data, "index_skip_topk_offset") + 1, 0) % freq != 0
    return max(index - 1, 0) % freq != 0


def _indexer(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The Indexer's linears that read the quant config (dsa_indexer.py:344-373): `wq_b`, then
    `wk` (where fusion may replace it, `unjudged` says so)."""
    if data.get("q_lora_rank") is None:
        raise Unknown("q_lora_rank")  # the indexer's wq_b takes q_lora_rank
    for key in ("index_n_heads", "index_head_dim"):
        if key not in data and data.get("model_type") not in _DSA_DEFAULT_TYPES:
            raise Unknown(key)  # SGLang's own AttributeError (no class default)
    return ("self_attn.indexer.wq_b", "self_attn.indexer.wk")


def shared_unfused(data: Mapping[str, Any], line: Mapping[str, Any] | None,
                   capability: int | None = None) -> bool:
    """Whether SGLang surely builds the shared experts apart from the routed ones on a line
    with flags `line` (None: the flags are not known) on a GPU of `capability` (None: not
    known), as `resolve_shared_experts_config` (layers/moe/utils.py:601-623) and the class's
    gate (deepseek_v2.py:3325-3394) decide for a GPTQ Marlin checkpoint (s67q: the disable
    flag and the gate's config test; s68q: TBO / SBO, the EP size and the GPU, in
    graphfit.inputs.sglang_deepseek_shared_fusion)."""
    return shared_fusion.fusion(data, line, capability) == shared_fusion.APART


def shared_fused(data: Mapping[str, Any], line: Mapping[str, Any] | None,
                 capability: int | None = None) -> bool:
    """Whether SGLang surely fuses the shared experts into the routed ones (s68q): then it
    builds no `mlp.shared_experts.*` linear (deepseek_v2.py:864-869), and the walk goes on to
    the next layer."""
    return shared_fusion.fusion(data, line, capability) == shared_fusion.FUSED


def unjudged(data: Mapping[str, Any], prefix: str,
             line: Mapping[str, Any] | None = None, capability: int | None = None) -> bool:
    """Whether a refusal on `prefix` hangs on what this rule does not see: a shared
    expert's fusion where the line's flags (`line`, None: not known) and the GPU
    (`capability`, s68q) leave it open (s66q; s67q: `shared_unfused`), or an indexer `wk`
    that the fused projection replaces unless SGLANG_DISABLE_DSA_INDEXER_FUSION is set (an
    interleaved indexer rope, dsa_indexer.py:310-314; s67q)."""
    if SHARED in prefix:
        return not shared_unfused(data, line, capability)
    return prefix.endswith(_WK) and bool(data.get("indexer_rope_interleave", False))


def prefixes(data: Mapping[str, Any], layers: int, architecture: str = "") -> Iterator[str]:
    """The prefixes of the decoder layers' linears that ask GPTQ for a method, in build
    order; shared experts' ones contain SHARED (their fusion hangs on the line); s67q: a DSA
    class's indexer linears after `q_b_proj` (see `unjudged`)."""
    names = _attention(data)
    dsa = _dsa(data, architecture)
    indexer = _indexer(data) if dsa else ()
    if "n_routed_experts" not in data:
        raise Unknown("n_routed_experts")
    routed = data["n_routed_experts"] is not None
    for index in range(layers):
        yield from (f"model.layers.{index}.self_attn.{name}" for name in names[:2])
        if dsa and not skips_topk(data, index, layers):
            yield from (f"model.layers.{index}.{part}" for part in indexer)
        yield from (f"model.layers.{index}.self_attn.{name}" for name in names[2:])
        if data.get("hidden_act", "silu") != "silu":
            raise Unknown("hidden_act")  # both MLP classes raise their own ValueError
        sparse = routed and index >= _count(data, "first_k_dense_replace", 0) \
            and index % _count(data, "moe_layer_freq", 1) == 0
        if not sparse:
            yield from (f"model.layers.{index}.mlp.{p}" for p in ("gate_up_proj", "down_proj"))
        else:
            yield f"model.layers.{index}{EXPERTS}"  # s68r: the routed experts first
            if _shared(data):
                yield from (f"model.layers.{index}{SHARED}{p}"
                            for p in ("gate_up_proj", "down_proj"))


__all__ = ["ARCHITECTURES", "EXPERTS", "SHARED", "Unknown", "prefixes", "shared_fused",
           "shared_unfused", "skips_topk", "unjudged"]
