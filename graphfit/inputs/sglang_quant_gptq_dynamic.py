"""GPTQ's per-module `dynamic` overrides (GPTQModel's config key) as SGLang 0.5.23 applies
them while it builds a GPTQ Marlin model's linear layers.

GPTQMarlinConfig keeps config.json's `dynamic` map (gptq/gptq.py:395-396). Each linear layer
(and a quantized lm_head, `lm_head: true`, :402) asks `get_linear_quant_method`
(layers/quantization/utils.py:275-307): the first pattern that `re.match`es the layer's prefix
decides (`get_dynamic_override`, :254-272); a "-:" pattern leaves the layer unquantized, any
other one (a "+:" prefix dropped) overrides bits / group_size / desc_act / sym, and
`override_config` then refuses a (bits, sym) pair Marlin has no type for: "Unsupported
quantization config: bits=3, sym=True" (:222-242; GPTQMarlinConfig.TYPE_MAP, gptq/gptq.py:
298-301). So a checkpoint whose base config is fine does not start when one override names
3-bit or asymmetric weights for a layer the model has.

Why: this refusal comes at model build, after the config class's own checks
(graphfit.inputs.sglang_quant_weight_classes), and hangs on the model's layer names, which
graphfit knows for the dense Llama / Qwen2 / Qwen3 classes and (issue 23, s63q) Qwen3-MoE,
whose every layer is sparse: its experts take GPTQMarlinMoEMethod with no override
(gptq/gptq.py:445-446) and its router gate no quant config (models/qwen3_moe.py:285-296), so
only the attention layers and a quantized lm_head read the map (their prefixes, in build
order, are `prefixes`). Qwen2-MoE (s64q) is sparse in every layer too
(models/qwen2_moe.py:1053-1066), but its shared expert is a quantized MLP
(`mlp.shared_expert.gate_up_proj` / `down_proj`, :358-370) wherever
`shared_expert_intermediate_size` (HF's default 5632) is > 0: the class never fuses it into
the experts (no support flag, :254-264, 1024-1032). Its lm_head is its own (:1238-1244).
DeepSeek-V2 / V3 (s66q) build MLA attention linears and dense or sparse MLPs from config.json's
fields (graphfit.inputs.sglang_quant_gptq_deepseek); a refusal on a shared expert is judged
only where the line's flags and the GPU settle their fusion into the experts (s67q, s68q).
Issue 23 s68r: DeepSeek's routed experts, built first in each sparse layer, assert the auto
MoE runner (gptq_kernels.py:309): under a named runner the walk ends there, refused (with or
without a `dynamic` map) where the experts are a plain FusedMoE, unjudged elsewhere.
Issue 23 s68g: the same for Qwen3-MoE / Qwen2-MoE, whose routed experts are built after each
layer's attention, before its router gate and shared expert (`_qwen_moe_walk`).
Issue 23 s69g: Mixtral too (`_mixtral_walk`, models/mixtral.py): every layer sparse, its
attention (`self_attn.qkv_proj` / `o_proj`, :157-173) built before `block_sparse_moe`
(:217-235), whose router gate takes no quant config (:85-92) and whose experts (:100-109)
assert the auto runner. Its layers are named `layers.N`, without the `model.` the other
classes have (`make_pp_layers(..., prefix="layers")`, :298-303), so a `model.layers.N` pattern
matches none of them; its lm_head is a ParallelLMHead without a quant config (:355-357), so
`lm_head: true` quantizes nothing.
Issue 23 s70i: PhiMoE (graphfit.inputs.sglang_quant_gptq_moe_walks, where the walks of the
further MoE classes live): Mixtral's parts under `model.layers.N`, and an lm_head that
`lm_head: true` quantizes even when tied; Grok, whose layers' linears carry no layer index
(`attn.o_proj`), its residual MLP bare `gate_up_proj` / `down_proj`.
Other architectures: not checked. A map SGLang stops on with its own
TypeError / AttributeError / ZeroDivisionError / re.error (a non-mapping map or entry, bits
0, a bad pattern) is left to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from graphfit.inputs import sglang_quant_gptq_deepseek as deepseek
from graphfit.inputs import sglang_quant_gptq_moe_walks as moe_walks
from graphfit.inputs.sglang_spec_dp import size_or_one
from graphfit.planner.core.errors import ConfigError, excerpt

_WHERE = "layers/quantization/utils.py"
# GPTQMarlinConfig.TYPE_MAP's keys (gptq/gptq.py:298-301): (bits, sym)
MARLIN_TYPES = ((4, True), (8, True))
MIXTRAL = "MixtralForCausalLM"  # issue 23 s69g
# the dense classes whose linear prefixes `prefixes` spells (models/llama.py:103-111, 214-222,
# 354-363, 455, 567-577; models/qwen2.py:90-98, 196-204, 293-300, 402, 531-543; models/qwen3.py:
# 204-213, 400-408, 574-587, its MLP being Qwen2's)
ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM",
                 # issue 23 s63q: every Qwen3-MoE layer is sparse (models/qwen3_moe.py:872-886):
                 # its experts take GPTQMarlinMoEMethod, no override (gptq/gptq.py:445-446), its
                 # router gate no quant config (qwen3_moe.py:285-296): attention only
                 "Qwen3MoeForCausalLM",
                 # issue 23 s64q: every Qwen2-MoE layer is sparse (models/qwen2_moe.py:1053-1066),
                 # its shared expert a quantized MLP after the experts and the unquantized gate
                 # (:312-370; fusion stays off: no support flag is passed, :254-264, 1024-1032)
                 "Qwen2MoeForCausalLM",
                 # issue 23 s66q: DeepSeek's MLA and dense / shared-expert MLP linears
                 # (models/deepseek_v2.py:2068-2161, 2589-2680, 2785-2792)
                 *deepseek.ARCHITECTURES,
                 # issue 23 s69g: Mixtral's attention linears; experts and gate read no override
                 # (models/mixtral.py:85-109, 157-173)
                 MIXTRAL,
                 # issue 23 s70i: the walks of graphfit.inputs.sglang_quant_gptq_moe_walks
                 *moe_walks.ARCHITECTURES)
_ATTENTION = ("self_attn.qkv_proj", "self_attn.o_proj")
# s69g: Mixtral's routed experts, after its attention in each layer (models/mixtral.py:227-235)
MIXTRAL_EXPERTS = ".block_sparse_moe.experts"
# the parts of each decoder layer whose linear layers read the overrides, in build order
_PARTS = {"Qwen3MoeForCausalLM": _ATTENTION,
          "Qwen2MoeForCausalLM": (*_ATTENTION, "mlp.shared_expert.gate_up_proj",
                                  "mlp.shared_expert.down_proj")}
_DENSE = ("self_attn.qkv_proj", "self_attn.o_proj", "mlp.gate_up_proj", "mlp.down_proj")
# s64q: HF Qwen2MoeConfig's default shared_expert_intermediate_size (configuration_qwen2_moe)
QWEN2_MOE_SHARED = 5632


class _Unjudged(Exception):
    """SGLang stops on an error of its own here: not this rule's to word."""


def prefixes(layers: int, lm_head: bool, architecture: str = "",
             shared: bool = True) -> Iterator[str]:
    """The quantizable linear layers' prefixes in the order the model builds them: each
    decoder layer's attention (qkv_proj, o_proj) then MLP (gate_up_proj, down_proj; none for
    Qwen3-MoE's sparse layers, s63q; Qwen2-MoE's shared expert's where `shared`, s64q), then
    the lm_head when it is quantized and not tied to the embedding."""
    for index in range(layers):
        for part in _PARTS.get(architecture, _DENSE):
            if shared or ".shared_expert." not in part:
                yield f"model.layers.{index}.{part}"
    if lm_head:
        yield "lm_head"


def _first_match(dynamic: Mapping[str, Any], prefix: str) -> tuple[str, object] | None:
    """`get_dynamic_override`'s first matching pattern and its entry (utils.py:254-272)."""
    for pattern, entry in dynamic.items():
        if not isinstance(pattern, str):
            raise _Unjudged
        try:
            if pattern.startswith("-:"):
                if re.match(pattern.removeprefix("-:"), prefix):
                    return pattern, False
            elif re.match(pattern.removeprefix("+:"), prefix):
                return pattern, entry
        except re.error as exc:
            raise _Unjudged from exc
    return None


def _override(entry: object, key: str, default: object) -> object:
    if not isinstance(entry, Mapping):
        raise _Unjudged  # `pattern_dict.get`: an AttributeError
    return entry.get(key, default)


def problem(method: str, spec: Mapping[str, Any], data: Mapping[str, Any],
            source: str = "config.json", line: Mapping[str, Any] | None = None,
            capability: int | None = None) -> ConfigError | None:
    """The refusal SGLang's model build gives `spec`'s dynamic overrides under `method`
    (only gptq_marlin reads them this way) on the model config.json `data` describes, or
    None (also for an architecture outside ARCHITECTURES). `source`: the file `spec` came
    from (config.json, or the quantize_config.json the loader's search found), named in
    the message after the cite so that the cite survives the 200-character cut. `line`: the
    line's SGLang flags where known (s67q: they decide DeepSeek's shared-expert fusion);
    `capability`: the GPU's, where known (s68q: so does it)."""
    dynamic = spec.get("dynamic", {})
    if method != "gptq_marlin" or not isinstance(dynamic, Mapping) \
            or not (dynamic or runner_given(line)):  # s68r: the experts' runner assert
        return None
    arch = data.get("architectures")
    layers = data.get("num_hidden_layers")
    if not (isinstance(arch, list) and arch and arch[0] in ARCHITECTURES) \
            or not isinstance(layers, int):
        return None
    bits, sym = spec.get("bits"), spec.get("sym")
    # Qwen3-MoE builds its own lm_head, tied or not (models/qwen3_moe.py:1017-1023; s63q), as
    # does Qwen2-MoE (models/qwen2_moe.py:1238-1244; s64q)
    tied = data.get("tie_word_embeddings", False) and arch[0] not in _PARTS
    quant_head = bool(spec.get("lm_head", False)) and not tied
    # s64q: Qwen2-MoE's shared expert exists where its size is > 0 (qwen2_moe.py:358-361)
    shared_size = data.get("shared_expert_intermediate_size", QWEN2_MOE_SHARED)
    if not isinstance(shared_size, int):
        return None
    # s70i: PhiMoE's lm_head reads `lm_head` whether tied or not (its own module)
    walk = moe_walks.walk(str(arch[0]), data, layers, bool(spec.get("lm_head", False)))
    if walk is None:
        walk = _mixtral_walk(layers) if arch[0] == MIXTRAL \
            else _deepseek_walk(data, layers, quant_head) if arch[0] in deepseek.ARCHITECTURES \
            else _qwen_moe_walk(prefixes(layers, quant_head, str(arch[0]), shared_size > 0)) \
            if arch[0] in _PARTS else prefixes(layers, quant_head, str(arch[0]), shared_size > 0)
    try:
        for prefix in walk:
            if prefix.endswith((deepseek.EXPERTS, MIXTRAL_EXPERTS, moe_walks.EXPERTS)):  # s69g
                if runner_given(line):
                    return _runner_refusal(method, line, prefix)  # s68r
                continue
            if deepseek.SHARED in prefix and deepseek.shared_fused(data, line, capability):
                continue  # s68q: fused into the routed experts, no linear of its own
            found = _first_match(dynamic, prefix)
            if found is None or found[1] is False:
                continue
            pattern, entry = found
            over_bits = _override(entry, "bits", bits)
            layer_bits = over_bits if isinstance(over_bits, int) else bits
            if not isinstance(layer_bits, int) or layer_bits == 0:
                raise _Unjudged  # `32 // weight_bits` (:233)
            over_sym = _override(entry, "sym", sym)
            layer_sym = over_sym if isinstance(over_sym, bool) else sym
            if (layer_bits, layer_sym) not in MARLIN_TYPES:
                if deepseek.unjudged(data, prefix, line, capability):
                    return None  # s66q: fused into the experts or not, as the line says;
                    # s67q: or an indexer's wk the environment may fuse away
                return ConfigError((
                    f"--quantization {method}: Unsupported quantization config: bits="
                    f"{layer_bits}, sym={layer_sym} ({_WHERE}:222-242, 254-272), from "
                    f"{source}'s dynamic override {excerpt(pattern, 32)} on {prefix}")[:200])
    except (_Unjudged, deepseek.Unknown):
        return None
    return None


RUNNER_CITE = "hardware_backend/gpu/quantization/gptq_kernels.py:309"
# flags under which the experts are another class or the runner / a2a backend is moved by a
# hook (waterfill forces deepep, overrides.py:1595-1607; the shared-fusion module's resetting
# flags): the experts' first error is not judged there
_MOVED = ("enable_waterfill", "enable_prefill_cp", "elastic_ep_backend", "max_ep_size")


def runner_given(line: Mapping[str, Any] | None) -> bool:
    """Whether the line names a MoE runner other than auto (issue 23 s68r). GPTQ Marlin's
    experts then stop the build at the first sparse layer: `create_moe_runner` asserts the
    runner is auto (RUNNER_CITE, a bare AssertionError), before that layer's shared experts
    or any later layer asks for an override. (Measured with SGLang's build on CPU under
    flashinfer_trtllm and triton: tests.oracle.sglang_quant_gptq_dynamic_compare.)"""
    value = None if line is None else line.get("moe_runner_backend")
    return isinstance(value, str) and value.strip().lower() not in ("", "auto")


def _runner_refusal(method: str, line: Mapping[str, Any] | None, prefix: str) -> ConfigError:
    """The experts' runner assert as graphfit's refusal where the line leaves the experts a
    plain FusedMoE on the named runner (no all-to-all backend, none of `_MOVED`); elsewhere
    the walk stops unjudged (raises _Unjudged): another class's check may come first."""
    flags = line or {}
    a2a = flags.get("moe_a2a_backend")
    if (isinstance(a2a, str) and a2a.strip().lower() not in ("", "none")) \
            or any(flags.get(key) for key in _MOVED) or size_or_one(flags.get("dwdp_size")) > 1:
        raise _Unjudged
    runner = str(flags.get("moe_runner_backend")).strip().lower()
    return ConfigError((f"--quantization {method}: GPTQ Marlin's MoE experts take only the "
                        f"auto MoE runner, not {runner}: SGLang asserts ({RUNNER_CITE}) on "
                        f"{prefix}")[:200])


def _qwen_moe_walk(walk: Iterator[str]) -> Iterator[str]:
    """Qwen3-MoE's / Qwen2-MoE's prefixes with each sparse layer's routed experts (issue 23
    s68g), built after the attention and before the router gate and Qwen2-MoE's shared expert
    (models/qwen3_moe.py:822, 847, 265, 290; models/qwen2_moe.py:1006, 1026, 318, 348, 362):
    the experts read no override, but assert the auto runner (RUNNER_CITE). Kept out of
    `prefixes`, which AutoRound's layer walk shares."""
    for prefix in walk:
        yield prefix
        if prefix.endswith(".self_attn.o_proj"):
            yield prefix.removesuffix(".self_attn.o_proj") + deepseek.EXPERTS


def _mixtral_walk(layers: int) -> Iterator[str]:
    """Mixtral's prefixes (issue 23 s69g): each layer's attention, then its routed experts
    (models/mixtral.py:217-235), which read no override but assert the auto runner
    (RUNNER_CITE); the layers named `layers.N` (:298-303), no lm_head (no quant config,
    :355-357)."""
    for index in range(layers):
        for part in _ATTENTION:
            yield f"layers.{index}.{part}"
        yield f"layers.{index}{MIXTRAL_EXPERTS}"


def _deepseek_walk(data: Mapping[str, Any], layers: int, lm_head: bool) -> Iterator[str]:
    """DeepSeek's decoder-layer prefixes (s66q), then a quantized, untied lm_head
    (deepseek_v2.py:3286-3296)."""
    yield from deepseek.prefixes(data, layers, str(data["architectures"][0]))
    if lm_head:
        yield "lm_head"


def check(method: object, spec: Mapping[str, Any] | None, data: Mapping[str, Any],
          line: Mapping[str, Any] | None = None, capability: int | None = None) -> None:
    """Raise `problem`'s refusal, if any (`spec`: the config the loader built the class from;
    `line`: the line's flags where known; `capability`: the GPU's, where known, s68q)."""
    if isinstance(method, str) and spec is not None:
        found = problem(method, spec, data, line=line, capability=capability)
        if found is not None:
            raise found


__all__ = ["ARCHITECTURES", "MARLIN_TYPES", "RUNNER_CITE", "check", "prefixes", "problem",
           "runner_given"]
