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
nothing is said (the GPU check asks again). A GPTQ layer Marlin takes is not judged further
for MoE experts (their Marlin support hangs on the layer's shape, marlin_utils.py:227-260):
only a refusal before them is given. A value SGLang stops on with its own TypeError /
AttributeError (a non-mapping entry, unhashable bits) is left to it.
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


class _Unjudged(Exception):
    """SGLang's own error, or an answer graphfit does not know (the GPU, a MoE layer)."""


def _first(spec: Mapping[str, Any], keys: Sequence[str], default: object) -> object:
    return next((spec[key] for key in keys if key in spec), default)


def _entry(cfg: object, bits: object, group: object, sym: object) -> tuple[object, ...]:
    if not isinstance(cfg, Mapping):
        raise _Unjudged  # `cfg.get`: an AttributeError
    return cfg.get("bits", bits), cfg.get("group_size", group), cfg.get("sym", sym)


def layer_config(spec: Mapping[str, Any], name: str, lm_head: bool = False
                 ) -> tuple[object, ...]:
    """`get_layer_config`'s (bits, group_size, sym) for the layer `name` (auto_round.py:
    190-270; `lm_head`: a ParallelLMHead)."""
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
    for pattern, cfg in extra.items():  # step 5's regex keys, in order
        if not isinstance(pattern, str) or not any(c in _REGEX for c in pattern):
            continue
        try:
            if re.fullmatch(pattern, name):
                return _entry(cfg, *defaults)
        except re.error:
            continue
    return defaults


def _refusal(path: str, bits: object, group: object, sym: object, spec: Mapping[str, Any],
             capability: int | None) -> str | None:
    """The config class a quantized layer builds refuses it: SGLang's words and lines."""
    if path == "awq":
        if bits != 4:
            return (f"Currently, only 4-bit weight quantization is supported for AWQ, but got "
                    f"{bits} bits (awq/awq.py:84-88; {_WHERE}:378-415)")
        return None
    backend = _first(spec, auto_round.CHOICES[3][1], "auto")
    try:
        hash((bits, sym))  # GPTQ_TYPE_MAP's lookup (auto_round.py:521)
    except TypeError as exc:
        raise _Unjudged from exc
    marlin = (backend == "auto" or "marlin" in str(backend)) \
        and (bits, sym) in MARLIN_GPTQ and group in MARLIN_GROUPS
    if marlin and capability is None:
        raise _Unjudged  # Marlin or not hangs on the GPU
    if marlin and capability is not None and capability >= MARLIN_SM:
        return None
    if _first(spec, ("desc_act",), False):
        return (f"SGLang's AutoRound GPTQ loader supports desc_act=False only: this layer "
                f"is not Marlin's ({_WHERE}:308-315, 515-551)")
    if bits not in GPTQ_BITS:
        return (f"Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ, "
                f"but got {bits} bits (gptq/gptq.py:106-110; {_WHERE}:549-551)")
    return None


def _layers(spec: Mapping[str, Any], data: Mapping[str, Any]) -> Iterator[tuple[str, bool]]:
    """(name, is the lm_head) of the layers that ask the config, in build order."""
    if not _first(spec, ("extra_config",), None) and not _first(
            spec, ("block_name_to_quantize", "to_quant_block_names"), None):
        yield "model.embed_tokens", False  # every layer but the lm_head alike: the first
        return
    arch = data.get("architectures")
    layers = data.get("num_hidden_layers")
    if not (isinstance(arch, list) and arch and arch[0] in DENSE) or not isinstance(layers, int):
        raise _Unjudged
    yield "model.embed_tokens", False
    for prefix in gptq_dynamic.prefixes(layers, False, str(arch[0])):
        yield prefix, False
    if not data.get("tie_word_embeddings", False):
        yield "lm_head", True


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
        for name, head in _layers(spec, data):
            bits, group, sym = layer_config(spec, name, head)
            if not isinstance(bits, int) or isinstance(bits, bool):
                raise _Unjudged
            if bits >= 16:
                continue  # not quantized (auto_round.py:282-283)
            said = _refusal(path, bits, group, sym, spec, capability)
            if said is not None:
                return ConfigError(f"--quantization {method}: layer {name} of {source}'s "
                                   f"config: {said}"[:200])
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


__all__ = ["DENSE", "METHOD", "check", "layer_config", "problem"]
