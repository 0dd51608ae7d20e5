"""The per-layer quant configs SGLang 0.5.23's AutoRoundConfig (the `auto-round` method)
hands out while a model's layers are built, and the two refusals they meet (issue 23, s64q).

Every VocabParallelEmbedding / ParallelLMHead / linear layer given the config asks
`get_quant_method` (vocab_parallel_embedding.py:303-304; linear layers alike), which takes
the GPTQ path when the packing format or the backend names "gptq", else the AWQ path when
one names "awq" (layers/quantization/auto_round.py:575-579). The layer's (bits, group_size,
sym) come from `get_layer_config` (:190-270): with no `extra_config`, the config's own for a
quantized layer and 16 bits (not quantized) for the lm_head or a layer outside
`block_name_to_quantize` (`startswith`, :240-244); an `extra_config` entry named exactly
as the layer, else the first regex key (one with a regex character) that `re.fullmatch`es
it, overrides each of the three (:195-230). The fused-module step (:264-277) never runs:
AutoRound's `packed_modules_mapping` stays empty (base_config.py:174; the loader's mapping
goes into the dict, which `from_config` does not read, weight_utils.py:299).

A quantized layer (bits < 16, :282-283) on a CUDA GPU (not the CPU / NPU paths) then builds
a config class before it looks at the layer's type:
- AWQ path: AWQMarlinConfig only for 4 bits with Marlin support (:378-392), else AWQConfig,
  which takes 4 bits only (awq/awq.py:84-88): any other width is refused.
- GPTQ path: GPTQMarlinConfig where the backend is "auto" or names "marlin", (bits, sym) is
  (4, True) or (8, True) and Marlin supports the group size (-1 / 32 / 64 / 128) on an SM80+
  GPU (:515-529, marlin_utils.py:68-79, 104-138); else GPTQConfig, whose kwargs first refuse
  desc_act (`check_gptq_support`, auto_round.py:308-315, 317-331, 549-551), then any width
  but 2 / 3 / 4 / 8 (gptq/gptq.py:106-110).

So an `auto_round:auto_awq` checkpoint of 2, 3 or 8 bits, or a GPTQ one with desc_act that
Marlin cannot take (3-bit, asymmetric, group size 256, a pre-SM80 GPU, backend "gptq"),
does not start: its first quantized layer (the embedding when every layer is quantized)
refuses. Where no extra_config or block list applies, every layer but the lm_head is
quantized alike, so the answer is the first layer's, whatever the architecture. Otherwise
the layers are walked for the dense Llama / Qwen2 / Qwen3 classes (their prefixes:
graphfit.inputs.sglang_quant_gptq_dynamic.prefixes, after `model.embed_tokens`), and for
other architectures not judged. Where the answer hangs on the GPU and it is not known yet,
nothing is said (the GPU check asks again). A value SGLang stops on with its own TypeError /
AttributeError (a non-mapping entry, unhashable bits) is left to it.

Since s66q the MoE classes Qwen3-MoE and Qwen2-MoE are walked too (MOE): each layer's
attention, then its FusedMoE experts, then Qwen2-MoE's shared expert; their lm_head is their
own. The experts meet two more things. `get_layer_config` first gathers every extra_config
key that starts with the experts' name (their per-expert sub-layers) and refuses them
unless they agree: "Fused MoE layer ... requires consistent quant config" (:246-262). And
Marlin must take their shape too (`check_moe_marlin_supports_layer`: hidden % 128, the
per-partition intermediate size % max(64, group), :387-390, 524-527, marlin_utils.py:
227-260): a shape it refuses at TP 1 it refuses at every TP, so desc_act there (or a width
GPTQConfig lacks) is refused even where the linear layers are Marlin's, also with no
extra_config (the first layer's experts are then asked after the embedding). Experts that
build without a refusal end the walk: their MoE methods are not restated, and a shape Marlin
takes at TP 1 may not be at the line's TP. The walk also ends (any class) at a linear layer
on GPTQConfig: its build stops with SGLang's own RuntimeError, the non-Marlin kernel being
removed (gptq/schemes/gptq_linear.py:26-35).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from graphfit.inputs import sglang_quant_auto_round as auto_round
from graphfit.inputs import sglang_quant_gptq_dynamic as gptq_dynamic
from graphfit.planner.core.errors import ConfigError

_WHERE = "auto_round.py"
METHOD = "auto-round"
# GPTQ_TYPE_MAP's keys (auto_round.py:517-520) and Marlin's group sizes (marlin_utils.py:44)
MARLIN_GPTQ = ((4, True), (8, True))
MARLIN_GROUPS = (-1, 32, 64, 128)
MARLIN_SM = 80  # query_marlin_supported_quant_types: none below SM80 (marlin_utils.py:78-79)
GPTQ_BITS = (2, 3, 4, 8)  # GPTQConfig (gptq/gptq.py:106-110)
_REGEX = set(r"*+?^$()[]{}|\\")  # get_config's test for a regex key (auto_round.py:211)
DENSE = ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM")
# issue 23 s66q: the MoE classes walked, every decoder layer sparse (models/qwen3_moe.py:872-886,
# qwen2_moe.py:1022-1032): attention, then the FusedMoE experts (qwen3_moe.py:265-274,
# qwen2_moe.py:321-345; the router gate takes no quant config, :285-296 / :347-353), then
# Qwen2-MoE's shared expert MLP; their lm_head is their own, tied or not
MOE = ("Qwen3MoeForCausalLM", "Qwen2MoeForCausalLM")
_EXPERTS = ".mlp.experts"
# check_moe_marlin_supports_layer (marlin_utils.py:227-260): hidden % 128, the experts'
# per-partition intermediate size % max(64, group_size)
MOE_MARLIN_HIDDEN, MOE_MARLIN_INTERMEDIATE = 128, 64


class _Unjudged(Exception):
    """SGLang's own error, or an answer graphfit does not know (the GPU, a MoE layer)."""


def _first(spec: Mapping[str, Any], keys: Sequence[str], default: object) -> object:
    return next((spec[key] for key in keys if key in spec), default)


def _entry(cfg: object, bits: object, group: object, sym: object) -> tuple[object, ...]:
    if not isinstance(cfg, Mapping):
        raise _Unjudged  # `cfg.get`: an AttributeError
    return cfg.get("bits", bits), cfg.get("group_size", group), cfg.get("sym", sym)


class _Inconsistent(Exception):
    """Step 3 of get_layer_config: a FusedMoE layer's sub-layer entries differ (s66q)."""


def layer_config(spec: Mapping[str, Any], name: str, lm_head: bool = False,
                 experts: bool = False) -> tuple[object, ...]:
    """`get_layer_config`'s (bits, group_size, sym) for the layer `name` (auto_round.py:
    190-270; `lm_head`: a ParallelLMHead; `experts`: a FusedMoE, whose extra_config keys
    starting with its name must agree, :246-262, else _Inconsistent, s66q)."""
    bits, group, sym = spec["bits"], spec["group_size"], spec["sym"]
    extra = _first(spec, ("extra_config",), None)
    if extra and isinstance(extra, Mapping) and name in extra:  # step 1
        return _entry(extra[name], bits, group, sym)
    quantized = not lm_head
    blocks = _first(spec, ("block_name_to_quantize", "to_quant_block_names"), None)
    if isinstance(blocks, str):
        blocks = blocks.split(",")
    if blocks:
        if not isinstance(blocks, list) or not all(isinstance(b, str) for b in blocks):
            raise _Unjudged
        quantized = any(name.startswith(block) for block in blocks)
    defaults = (bits, group, sym) if quantized else (16, -1, True)
    if not extra:
        return defaults
    if not isinstance(extra, Mapping):
        raise _Unjudged
    if experts:  # step 3 (s66q): each key under the layer's name, as an exact entry
        subs = [_entry(cfg, *defaults) for key, cfg in extra.items()
                if isinstance(key, str) and key.startswith(name)]
        try:
            distinct = set(subs)
        except TypeError as exc:
            raise _Unjudged from exc  # an unhashable value: SGLang's own TypeError
        if len(distinct) > 1:
            raise _Inconsistent
        if subs:
            return subs[0]
    for pattern, cfg in extra.items():  # step 5's regex keys, in order
        if not isinstance(pattern, str) or not any(c in _REGEX for c in pattern):
            continue
        try:
            if re.fullmatch(pattern, name):
                return _entry(cfg, *defaults)
        except re.error:
            continue
    return defaults


def gptq_marlin(bits: object, group: object, sym: object, spec: Mapping[str, Any],
                capability: int | None, shape_fits: bool = True) -> bool:
    """Whether the GPTQ path builds GPTQMarlinConfig for the layer (auto_round.py:515-529);
    _Unjudged where that hangs on a GPU not known yet."""
    backend = _first(spec, auto_round.CHOICES[3][1], "auto")
    try:
        hash((bits, sym))  # GPTQ_TYPE_MAP's lookup (auto_round.py:521)
    except TypeError as exc:
        raise _Unjudged from exc
    marlin = (backend == "auto" or "marlin" in str(backend)) \
        and (bits, sym) in MARLIN_GPTQ and group in MARLIN_GROUPS and shape_fits
    if marlin and capability is None:
        raise _Unjudged  # Marlin or not hangs on the GPU
    return marlin and capability is not None and capability >= MARLIN_SM


def _refusal(path: str, bits: object, group: object, sym: object, spec: Mapping[str, Any],
             capability: int | None, shape_fits: bool = True,
             what: str = "this layer is not Marlin's") -> str | None:
    """The config class a quantized layer builds refuses it: SGLang's words and lines.
    `shape_fits`: False where Marlin cannot take the layer's shape (s66q: experts)."""
    if path == "awq":
        if bits != 4:
            return (f"Currently, only 4-bit weight quantization is supported for AWQ, but got "
                    f"{bits} bits (awq/awq.py:84-88; {_WHERE}:378-415)")
        return None
    if gptq_marlin(bits, group, sym, spec, capability, shape_fits):
        return None
    if _first(spec, ("desc_act",), False):
        return (f"SGLang's AutoRound GPTQ loader supports desc_act=False only "
                f"({_WHERE}:308-315, 515-551): {what}")
    if bits not in GPTQ_BITS:
        return (f"Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, "
                f"but got {bits} bits (gptq/gptq.py:106-110; {_WHERE}:549-551)")
    return None


def _expert_refusal(path: str, bits: object, group: object, sym: object,
                    spec: Mapping[str, Any], capability: int | None,
                    data: Mapping[str, Any]) -> str | None:
    """The config class a quantized FusedMoE layer builds refuses it (s66q): as a linear
    layer's, but Marlin must also take the experts' shape (auto_round.py:387-390, 520-527;
    check_moe_marlin_supports_layer, marlin_utils.py:227-260). At TP 1 their
    per-partition intermediate size is config.json's moe_intermediate_size; a shape Marlin
    takes there may not be at a higher TP (the line's), so only a shape it refuses at TP 1
    (and so at every TP) is judged. Raises _Unjudged where the experts build without a
    refusal: their MoE methods (Marlin's, MoeWNA16's) are not restated, nor is what follows."""
    if path == "awq":
        said = _refusal(path, bits, group, sym, spec, capability)
        if said is None:
            raise _Unjudged
        return said
    hidden, inner = data.get("hidden_size"), data.get("moe_intermediate_size")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (hidden, inner)) \
            or not isinstance(group, int):
        raise _Unjudged  # an HF default, or SGLang's own error
    assert isinstance(hidden, int) and isinstance(inner, int)
    fits = hidden % MOE_MARLIN_HIDDEN == 0 and inner % max(MOE_MARLIN_INTERMEDIATE, group) == 0
    if not fits:  # not Marlin's at any TP: as a linear layer Marlin cannot take
        said = _refusal(path, bits, group, sym, spec, capability, False,
                        "the experts' shape is not Marlin's (marlin_utils.py:227-260)")
        if said is not None:
            return said
        raise _Unjudged
    said = _refusal(path, bits, group, sym, spec, capability)
    if said is None:
        raise _Unjudged
    return said


def _kernel_removed(path: str, kind: str, bits: object, group: object, sym: object,
                    spec: Mapping[str, Any], capability: int | None) -> bool:
    """A linear layer (or lm_head) on GPTQConfig stops the build with SGLang's own
    RuntimeError, the non-Marlin kernel being removed (gptq/schemes/gptq_linear.py:26-35):
    nothing after it is judged (s66q). The embedding takes no method (auto_round.py:
    567-573); experts are `_expert_refusal`'s."""
    return path == "gptq" and kind in ("linear", "head") \
        and not gptq_marlin(bits, group, sym, spec, capability)


def _layers(spec: Mapping[str, Any], data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(name, kind: "embed", "linear", "head" or "experts") of the layers that ask the
    config, in build order."""
    arch = data.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    if not _first(spec, ("extra_config",), None) and not _first(
            spec, ("block_name_to_quantize", "to_quant_block_names"), None):
        yield "model.embed_tokens", "embed"  # every layer but the lm_head alike: the first
        if first in MOE:  # s66q: then the first layer's experts, whose Marlin test differs
            yield f"model.layers.0{_EXPERTS}", "experts"
        return
    layers = data.get("num_hidden_layers")
    if first not in (*DENSE, *MOE) or not isinstance(layers, int):
        raise _Unjudged
    yield "model.embed_tokens", "embed"
    shared = data.get("shared_expert_intermediate_size", gptq_dynamic.QWEN2_MOE_SHARED)
    if not isinstance(shared, int):
        raise _Unjudged
    for prefix in gptq_dynamic.prefixes(layers, False, str(first), shared > 0):
        if first in MOE and prefix.endswith(".self_attn.o_proj"):  # s66q: then the experts
            yield prefix, "linear"
            yield prefix.removesuffix(".self_attn.o_proj") + _EXPERTS, "experts"
            continue
        yield prefix, "linear"
    # s66q: the MoE classes build their own lm_head, tied or not (gptq_dynamic's walk)
    if first in MOE or not data.get("tie_word_embeddings", False):
        yield "lm_head", "head"


def problem(method: str, spec: Mapping[str, Any], data: Mapping[str, Any],
            capability: int | None = None, source: str = "config.json") -> ConfigError | None:
    """The refusal SGLang's model build gives AutoRound's config `spec` (after its class
    checks, graphfit.inputs.sglang_quant_auto_round) on the model config.json `data`
    describes, on a GPU of `capability` (None: not known), or None."""
    if method != METHOD or not isinstance(spec, Mapping) or auto_round.problem(method, spec) \
            or not all(key in spec for key in auto_round.REQUIRED):
        return None  # the class refuses first (or its own KeyError)
    packing = str(_first(spec, ("packing_format",), "auto_round:auto_gptq"))
    backend = str(_first(spec, auto_round.CHOICES[3][1], "auto"))
    path = "gptq" if "gptq" in packing or "gptq" in backend else \
        "awq" if "awq" in packing or "awq" in backend else None
    if path is None:
        return None
    try:
        for name, kind in _layers(spec, data):
            try:
                bits, group, sym = layer_config(spec, name, kind == "head", kind == "experts")
            except _Inconsistent:  # s66q: SGLang's own words (auto_round.py:246-262)
                return ConfigError(f"--quantization {method}: Fused MoE layer '{name}' "
                                   f"requires consistent quant config for all sub-layers "
                                   f"({_WHERE}:246-262), from {source}'s extra_config"[:200])
            if not isinstance(bits, int) or isinstance(bits, bool):
                raise _Unjudged
            if bits >= 16:
                continue  # not quantized (auto_round.py:282-283)
            said = _expert_refusal(path, bits, group, sym, spec, capability, data) \
                if kind == "experts" else _refusal(path, bits, group, sym, spec, capability)
            if said is not None:
                return ConfigError(f"--quantization {method}: layer {name} of {source}'s "
                                   f"config: {said}"[:200])
            if _kernel_removed(path, kind, bits, group, sym, spec, capability):
                raise _Unjudged
    except _Unjudged:
        return None
    return None


def check(method: object, spec: Mapping[str, Any] | None, data: Mapping[str, Any],
          capability: int | None = None) -> None:
    """Raise `problem`'s refusal, if any."""
    if isinstance(method, str) and spec is not None:
        found = problem(method, spec, data, capability)
        if found is not None:
            raise found


__all__ = ["DENSE", "METHOD", "MOE", "check", "layer_config", "problem"]
