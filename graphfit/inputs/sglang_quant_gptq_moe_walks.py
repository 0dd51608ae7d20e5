"""The linear-layer prefixes, in build order, of the MoE classes that GPTQ Marlin's `dynamic`
map is walked over beyond the Qwen / DeepSeek / Mixtral ones (issue 23, s70i).

Why its own module: graphfit.inputs.sglang_quant_gptq_dynamic judges the walk (the first
override Marlin has no type for, or the experts' runner assert); each class's walk is a fact
read off its SGLang 0.5.23 model file, and those facts differ class by class (Mixtral showed
that the `model.` root is not universal), so they are kept apart, one function per class.

PhiMoE (models/phimoe.py): every layer sparse; per layer the attention's `self_attn.qkv_proj`
/ `o_proj` (:276-298, prefix :354) are built before `block_sparse_moe` (:356-364), whose router
gate takes no quant config (:194-199) and whose experts are a FusedMoE (:208-217), which reads
no override (GPTQMarlinMoEMethod, gptq/gptq.py:445-446) but asserts the auto MoE runner
(hardware_backend/gpu/quantization/gptq_kernels.py:309). Unlike Mixtral its layers sit under
`model.` (`add_prefix("model", prefix)`, :464-466; `make_layers(..., prefix=add_prefix(
"layers", prefix))`, :420-425), and its lm_head is a ParallelLMHead built WITH the quant
config (:467-476) whatever `tie_word_embeddings` says (the tie only shares the weight
afterwards, :477-478), so `lm_head: true` quantizes it even when tied.

Grok (models/grok.py; Grok1ModelForCausalLM is the same class, :1014-1017): its decoder layers
are built with NO prefix (`Grok1DecoderLayer(config, i, quant_config=...)`, :655-668), so
every layer's attention linears are named `attn.qkv_proj` / `attn.o_proj` (:368-386, :504),
with neither `model.` nor a layer index: `.*o_proj` meets layer 0 first and a
`model.layers.N` pattern matches nothing. Each layer then builds `block_sparse_moe`
(:508-526): an unquantized router gate (:140-146) and a FusedMoE (:160-174, no prefix either)
that asserts the auto runner; with `residual_moe` (:480) a dense Grok1MLP follows
(:527-535), prefixed `gate_up_proj` / `down_proj` (no prefix passed, :90-104). Its lm_head
gets no quant config (:746-762): never quantized. `num_local_experts` is read before any
layer (:714-717; missing: SGLang's AttributeError, not walked); at 0 or below layer 0's
attention is built, then NotImplementedError (:537-538).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

PHIMOE = "PhiMoEForCausalLM"
# the routed experts' prefix tail (phimoe.py:216, 363), as Mixtral's
EXPERTS = ".block_sparse_moe.experts"
GROK = ("Grok1ForCausalLM", "Grok1ModelForCausalLM")
ARCHITECTURES = (PHIMOE, *GROK)


def phimoe(layers: int, lm_head: bool) -> Iterator[str]:
    """PhiMoE's prefixes: per layer `model.layers.N.self_attn.qkv_proj`, `o_proj`, then the
    routed experts (the runner assert's site); then `lm_head` where the config quantizes it,
    tied or not."""
    for index in range(layers):
        for part in ("self_attn.qkv_proj", "self_attn.o_proj"):
            yield f"model.layers.{index}.{part}"
        yield f"model.layers.{index}{EXPERTS}"
    if lm_head:
        yield "lm_head"


def grok(layers: int, experts: object, residual: bool) -> Iterator[str]:
    """Grok's prefixes: per layer `attn.qkv_proj`, `attn.o_proj`, the routed experts (SGLang
    names them nothing: here `(layer N).block_sparse_moe.experts`, for the runner refusal's
    text), then the residual MLP's `gate_up_proj`, `down_proj` where `residual`. `experts`:
    config.json's `num_local_experts` (not an int: nothing walked; 0 or below: layer 0's
    attention only)."""
    if not isinstance(experts, int) or isinstance(experts, bool):
        return
    for index in range(layers):
        yield "attn.qkv_proj"
        yield "attn.o_proj"
        if experts <= 0:
            return
        yield f"(layer {index}){EXPERTS}"
        if residual:
            yield "gate_up_proj"
            yield "down_proj"


def walk(architecture: str, data: Mapping[str, Any], layers: int,
         lm_head: bool) -> Iterator[str] | None:
    """The walk of `architecture` (ARCHITECTURES) given its config.json `data`, its layer
    count and whether the GPTQ config quantizes the lm_head (`lm_head: true`), or None for
    another class."""
    if architecture == PHIMOE:
        return phimoe(layers, lm_head)
    if architecture in GROK:
        return grok(layers, data.get("num_local_experts"), bool(data.get("residual_moe")))
    return None


__all__ = ["ARCHITECTURES", "EXPERTS", "GROK", "PHIMOE", "grok", "phimoe", "walk"]
