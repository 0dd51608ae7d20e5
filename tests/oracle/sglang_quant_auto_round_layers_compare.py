"""The comparison behind test_sglang_quant_auto_round_layers_oracle.py and
measure_sglang_quant_auto_round_layers.py (issue 23, s64q): an AutoRound checkpoint
(`quant_method: auto-round`) whose layers SGLang 0.5.23 builds with the per-layer configs
of AutoRoundConfig.get_layer_config (layers/quantization/auto_round.py:190-270, 333-579).

SGLang's side: its real ModelConfig + loader on the named GPU
(tests.oracle.sglang_quant_capability_oracle.load) must build AutoRoundConfig; then the
model's own class (models/llama.py, qwen2.py, qwen3.py) is built whole on the meta device
with `AutoRoundConfig.from_config` on the same dict (as the loader does,
model_loader/weight_utils.py:298-311) under fake CUDA of that GPU's capability (Marlin's
support is asked of the device, marlin_utils.py:68-79), as in
tests.oracle.sglang_quant_gptq_dynamic_compare.

Verdicts: "layer" (the build raised the AWQ / GPTQ config's ValueError: graphfit must refuse
citing auto_round.py), "built" (graphfit must not cite it), "other" (the loader or the build
stopped otherwise: graphfit must not cite it). It imports no graphfit module this work
added, so the measure scores an older graphfit tree too."""

from __future__ import annotations

import copy
import functools
import importlib
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import GPU_CAPABILITY, GPU_MEMORY_GB
from tests.oracle import sglang_dspark_target_head as th
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle import sglang_quant_gptq_dynamic_compare as dc
from tests.oracle.sglang_quant_capability_compare import planned

# where graphfit cites the three refusals (graphfit.inputs.sglang_quant_auto_round_layers)
MARKS = ("awq/awq.py:84-88", "auto_round.py:308-315", "gptq/gptq.py:106-110",
         "auto_round.py:246-262")  # s66q: a FusedMoE layer's inconsistent sub-layers
# the ValueErrors of the config classes a quantized layer builds (awq/awq.py:84-88,
# auto_round.py:308-315, gptq/gptq.py:106-110)
SAID = ("Currently, only 4-bit weight quantization is supported for AWQ",
         "SGLang's AutoRound GPTQ loader supports desc_act=False only",
         "Currently, only 2/3/4/8-bit weight quantization is supported for GPTQ",
         "Fused MoE layer")  # s66q: get_layer_config's step 3 (auto_round.py:246-262)
# issue 23 s66q: the MoE classes (th._BASE's shapes: hidden 256, experts' intermediate 128,
# a shared expert of 128), and aliases ":i96" (moe_intermediate_size 96, a shape Marlin's MoE
# kernel refuses, marlin_utils.py:227-260) and ":h192" (hidden_size 192: the same)
MOE = ("Qwen3MoeForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM:i96",
       "Qwen2MoeForCausalLM:h192")
_SHAPES = {"i96": {"moe_intermediate_size": 96}, "h192": {"hidden_size": 192, "head_dim": 24}}
_LAYOUTS = {"Qwen3MoeForCausalLM": "Qwen3ForCausalLM", "Qwen2MoeForCausalLM": "Qwen2ForCausalLM"}
ARCHITECTURES = ("LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", *MOE)
GPUS = ("T4", "A100", "B200")
_GPTQ = {"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True,
         "packing_format": "auto_round:auto_gptq"}
_AWQ = {**_GPTQ, "packing_format": "auto_round:auto_awq", "sym": False}
_LLAMA = "LlamaForCausalLM"

# (architecture, tied embeddings, GPU, quantization_config)
FIXED: dict[str, tuple[str, bool, str, dict[str, Any]]] = {
    "gptq_plain": (_LLAMA, False, "B200", _GPTQ),
    "awq_plain": (_LLAMA, False, "B200", _AWQ),
    "awq_8bit": (_LLAMA, False, "B200", {**_AWQ, "bits": 8}),
    "awq_3bit_t4": ("Qwen2ForCausalLM", False, "T4", {**_AWQ, "bits": 3}),
    "gptq_desc_act_marlin": (_LLAMA, False, "A100", {**_GPTQ, "desc_act": True}),
    "gptq_desc_act_t4": (_LLAMA, False, "T4", {**_GPTQ, "desc_act": True}),
    "gptq_desc_act_3bit": ("Qwen3ForCausalLM", False, "B200", {**_GPTQ, "bits": 3,
                                                                "desc_act": True}),
    "gptq_desc_act_asym": (_LLAMA, False, "B200", {**_GPTQ, "sym": False, "desc_act": True}),
    "gptq_desc_act_backend": (_LLAMA, False, "B200", {**_GPTQ, "backend": "gptq",
                                                       "desc_act": True}),
    "gptq_desc_act_group256": (_LLAMA, False, "B200", {**_GPTQ, "group_size": 256,
                                                        "desc_act": True}),
    "gptq_3bit_no_desc_act": (_LLAMA, False, "B200", {**_GPTQ, "bits": 3}),
    "awq_8bit_blocks_none": (_LLAMA, False, "B200", {**_AWQ, "bits": 8,
                                                     "block_name_to_quantize": "vision"}),
    "awq_8bit_blocks_layers": (_LLAMA, False, "B200", {
        **_AWQ, "bits": 8, "block_name_to_quantize": "model.layers"}),
    "awq_extra_all_16": (_LLAMA, True, "B200", {**_AWQ, "bits": 8, "extra_config": {
        r".*": {"bits": 16}}}),
    "awq_extra_one_8bit": ("Qwen2ForCausalLM", False, "B200", {**_AWQ, "extra_config": {
        "model.layers.1.mlp.down_proj": {"bits": 8}}}),
    "awq_extra_head_8bit": (_LLAMA, False, "B200", {**_AWQ, "extra_config": {
        "lm_head": {"bits": 8}}}),
    "awq_extra_head_tied": (_LLAMA, True, "B200", {**_AWQ, "extra_config": {
        "lm_head": {"bits": 8}}}),
    "awq_extra_q_proj_unfused": (_LLAMA, False, "B200", {**_AWQ, "extra_config": {
        "model.layers.0.self_attn.q_proj": {"bits": 8}}}),
    "gptq_extra_6bit": ("Qwen3ForCausalLM", False, "B200", {**_GPTQ, "extra_config": {
        r"model\.layers\.0\..*": {"bits": 6}}}),
    "gptq_extra_asym_desc_act": (_LLAMA, False, "B200", {**_GPTQ, "desc_act": True,
                                                          "extra_config": {
        r".*o_proj": {"sym": False}}}),
}
# s66q: the MoE classes: the experts' Marlin test adds their shape; extra_config keys under
# the experts' name must agree; what follows quantized experts is not judged by graphfit
_Q3, _Q2 = "Qwen3MoeForCausalLM", "Qwen2MoeForCausalLM"
_EXPERT0 = "model.layers.0.mlp.experts"
MOE_LINES: dict[str, tuple[str, bool, str, dict[str, Any]]] = {
    "moe_gptq_plain": (_Q3, False, "B200", _GPTQ),
    "moe_desc_act_marlin": (_Q3, False, "B200", {**_GPTQ, "desc_act": True}),
    "moe_desc_act_i96": (f"{_Q3}:i96", False, "B200", {**_GPTQ, "desc_act": True}),
    "moe_desc_act_h192_a100": (f"{_Q2}:h192", False, "A100", {**_GPTQ, "desc_act": True}),
    "moe_plain_i96": (f"{_Q3}:i96", False, "B200", _GPTQ),
    "moe_awq_experts_8bit": (_Q3, False, "B200", {**_AWQ, "extra_config": {
        f"{_EXPERT0}.0.gate_proj": {"bits": 8}}}),
    "moe_inconsistent": (_Q3, False, "B200", {**_GPTQ, "extra_config": {
        f"{_EXPERT0}.0.gate_proj": {"bits": 8}, f"{_EXPERT0}.1.gate_proj": {"bits": 4}}}),
    "moe_experts_regex_3bit": (_Q3, False, "B200", {**_GPTQ, "extra_config": {
        r".*experts": {"bits": 3}}}),
    "moe_experts_regex_6bit_i96": (f"{_Q3}:i96", False, "B200", {**_GPTQ, "extra_config": {
        r".*experts": {"bits": 6}}}),
    "moe_experts_16bit_head_8bit": (_Q2, True, "B200", {**_AWQ, "extra_config": {
        r".*experts": {"bits": 16}, "lm_head": {"bits": 8}}}),
    "moe_t4_inconsistent_after_gptq_linear": (_Q3, False, "T4", {**_GPTQ, "extra_config": {
        f"{_EXPERT0}.0.gate_proj": {"bits": 8}, f"{_EXPERT0}.1.gate_proj": {"bits": 4}}}),
    "moe_attention_16bit_desc_act": (_Q3, False, "B200", {**_GPTQ, "desc_act": True,
                                                           "extra_config": {
        r".*self_attn.*": {"bits": 16}}}),
}
FIXED.update(MOE_LINES)


@functools.cache
def _dir(architecture: str, tied: bool, body: str) -> str:
    name, _, shape = architecture.partition(":")  # s66q: a MoE shape alias
    root = Path(tempfile.mkdtemp(prefix="graphfit-auto-round-layers-"))
    config = {"architectures": [name], "model_type": th.MODEL_TYPES[name],
              "tie_word_embeddings": tied, **th._BASE, **_SHAPES.get(shape, {}),
              "quantization_config": json.loads(body)}
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


def built(architecture: str, tied: bool, gpu: str, folder: str, spec: dict[str, Any]) -> str:
    """SGLang's model build with AutoRoundConfig on `spec`, under fake CUDA of `gpu`'s
    capability: "" or the error it raised."""
    name = architecture.partition(":")[0]  # s66q: a MoE class resolves on its dense layout
    r = so.resolve(["--model-path", th.target_dir(_LAYOUTS.get(name, name), tied)],
                   gpu_mem_gb=GPU_MEMORY_GB[gpu], capability=divmod(GPU_CAPABILITY[gpu], 10))
    assert isinstance(r, so.Resolved), r
    with so.sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
        from sglang.srt.layers.moe.utils import initialize_moe_config
        from sglang.srt.layers.quantization.auto_round import AutoRoundConfig
        from sglang.srt.utils.hf_transformers_utils import get_config

        config = copy.deepcopy(get_config(folder, trust_remote_code=False))
        initialize_dp_attention_flags(None)
        initialize_moe_config()  # s66q: the MoE classes' runner (as the GPTQ compare)
        module = importlib.import_module(f"sglang.srt.models.{th.MODEL_TYPES[name]}")
        quant = AutoRoundConfig.from_config(copy.deepcopy(spec))
        with dc.one_rank_on_meta(module):
            try:
                getattr(module, name)(config, quant_config=quant)
            except Exception as exc:  # reported, judged by the caller
                return f"{type(exc).__name__}: {exc}"[:200]
    return ""


def compare(architecture: str, tied: bool, gpu: str, spec: dict[str, Any]
            ) -> tuple[str, str | None]:
    """One line: (verdict, a disagreement or None)."""
    body = json.dumps(spec)
    spec = json.loads(body)
    folder = _dir(architecture, tied, body)
    code, said = planned(folder, (), gpu)
    where = f"{architecture} tied={tied} {gpu} {body[:150]}"
    theirs = co.load(None, spec, GPU_CAPABILITY[gpu], folder,
                     architecture=architecture.partition(":")[0])
    if theirs.stage != "passed" or theirs.method != "auto-round":
        verdict, stop = "other", f"{theirs.stage} {theirs.method} {theirs.said[:60]}"
    else:
        stop = built(architecture, tied, gpu, folder, spec)
        verdict = "built" if not stop else "layer" if any(
            stop.startswith(f"ValueError: {s}") for s in SAID) else "other"
    cited = any(mark in said for mark in MARKS)
    if verdict == "layer":
        ok = code == 2 and cited
        return verdict, None if ok else f"{where}: SGLang {stop[:90]}; graphfit {code} {said}"
    if cited:
        return verdict, f"{where}: SGLang {verdict} {stop[:80]}; graphfit {said}"
    return verdict, None


_PATTERNS = (r".*", r"model\.layers\.0\..*", "lm_head", r".*down_proj", "model.embed_tokens",
             r"model\.layers\.1\.self_attn\..*", "model.layers.0.self_attn.q_proj", "[",
             r".*experts", f"{_EXPERT0}.0.gate_proj", f"{_EXPERT0}.3.down_proj",
             r".*shared_expert\..*")  # s66q
_ENTRIES: tuple[object, ...] = ({"bits": 16}, {"bits": 8}, {"bits": 3}, {"sym": False},
                                {"group_size": 256}, {"bits": 4, "sym": True}, {}, {"bits": 6})


def generated_line(rng: random.Random) -> tuple[str, bool, str, dict[str, Any]]:
    """(architecture, tied, GPU, quantization_config): an AutoRound dict its class takes, with
    drawn packing, backend, bits, sym, group size, desc_act, block list and extra_config."""
    spec: dict[str, Any] = {**_GPTQ, "packing_format": rng.choice(
        ("auto_round:auto_gptq", "auto_round:auto_awq")),
        "bits": rng.choice((2, 3, 4, 4, 8)), "sym": rng.random() < 0.6,
        "group_size": rng.choice((128, 128, 64, -1, 256))}
    if rng.random() < 0.4:
        spec["desc_act"] = rng.random() < 0.7
    if rng.random() < 0.25:
        spec["backend"] = rng.choice(("auto", "gptq", "marlin", "awq", "gptq:marlin"))
    if rng.random() < 0.2:
        spec["block_name_to_quantize"] = rng.choice(("model.layers", "vision", ""))
    if rng.random() < 0.35:
        spec["extra_config"] = {rng.choice(_PATTERNS): rng.choice(_ENTRIES)
                                for _ in range(rng.randint(1, 2))}
    return rng.choice(ARCHITECTURES), rng.random() < 0.25, rng.choice(GPUS), spec


def generated_lines(count: int, seed: int) -> list[tuple[str, bool, str, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
