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
DeepEP, the GPU: layers/moe/utils.py:601-623, deepseek_v2.py:3324-3395), which this
config-only rule does not see: a shared-expert prefix is marked, and a refusal there is not
judged. The lm_head is the embedding when tied on one stage (:3286-3296). A `hidden_act`
other than silu stops both MLP classes with SGLang's own ValueError (:330-334, 720-724):
nothing after the first layer's attention is walked then.

A config.json that leaves `q_lora_rank`, `n_routed_experts`, `first_k_dense_replace` or
`moe_layer_freq` to a default (the HF config class's, or SGLang's own AttributeError) gives
no walk: `Unknown` is raised.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

# the DeepSeek classes walked: DeepseekV3 is DeepseekV2's class (deepseek_v2.py:3518); the DSA
# classes also build an indexer with the config (:2105-2139), not restated
ARCHITECTURES = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM")
SHARED = ".mlp.shared_experts."


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


def prefixes(data: Mapping[str, Any], layers: int) -> Iterator[str]:
    """The prefixes of the decoder layers' linears that ask GPTQ for a method, in build
    order; shared experts' ones contain SHARED (their fusion hangs on the line)."""
    attention = tuple(f"self_attn.{name}" for name in _attention(data))
    if "n_routed_experts" not in data:
        raise Unknown("n_routed_experts")
    routed = data["n_routed_experts"] is not None
    for index in range(layers):
        yield from (f"model.layers.{index}.{part}" for part in attention)
        if data.get("hidden_act", "silu") != "silu":
            raise Unknown("hidden_act")  # both MLP classes raise their own ValueError
        sparse = routed and index >= _count(data, "first_k_dense_replace", 0) \
            and index % _count(data, "moe_layer_freq", 1) == 0
        if not sparse:
            yield from (f"model.layers.{index}.mlp.{p}" for p in ("gate_up_proj", "down_proj"))
        elif _shared(data):
            yield from (f"model.layers.{index}{SHARED}{p}" for p in ("gate_up_proj", "down_proj"))


__all__ = ["ARCHITECTURES", "SHARED", "Unknown", "prefixes"]
