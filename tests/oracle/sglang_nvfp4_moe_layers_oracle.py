"""SGLang 0.5.23's own model build for a ModelOpt NVFP4 MoE checkpoint whose FusedMoE layers may
or may not take `ModelOptNvFp4FusedMoEMethod` (not a test; issue 23, s60q): modelopt_fp4 with
exclusions, modelopt_mixed (layers/quantization/modelopt_quant.py:806-1095) and the fp8 +
NVFP4 hybrid (HybridFp8NvFp4Config, :1731-1768). graphfit's restatement:
graphfit.inputs.sglang_nvfp4_moe_layers with graphfit.planner.engines.sglang_nvfp4_moe.

`sglang(line)`: SGLang resolves the line (tests.oracle.sglang_oracle.resolve, the named GPU's
capability), then, with the record published, its own ModelConfig and loader build the
quantization config (model_loader/loader.py:174-281: the model class's packed modules, the
hybrid wrap, the capability and dtype checks), and the model's own class (models/qwen3_moe.py,
qwen2_moe.py; since s62q deepseek_v2.py, glm4_moe.py, mixtral.py; since s63q the DSA classes,
kimi_k25.py and bailing_moe_linear.py) is built whole on the meta
device with it, the MoE runner being the one the line resolved (`initialize_moe_config`).
Glue (not SGLang logic): one TP rank, one stage, no CUDA side stream, the dual-GEMM kernel
pick off (as tests.oracle.sglang_quant_gptq_dynamic_compare).

Verdicts: "refused" (the build raised the NVFP4 MoE method's ValueError, or its
create_moe_runner's NotImplementedError for the cutlass runner), "built", "args"
(the server arguments refused), "other" (the loader or the build stopped otherwise: graphfit
must then not cite the method, unless it says an earlier MoE layer builds another method
first and SGLang's build, not its loader, stopped). It imports
no graphfit module this work added, so the measure scores an older graphfit tree too."""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import json
import random
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from tests.oracle import sglang_oracle as so
from tests.oracle.sglang_quant_gptq_dynamic_compare import one_rank_on_meta

# the method's refusals: its __init__ (modelopt_quant.py:2375, 2383) and create_moe_runner (:3146)
WORDS = ("NVFP4 MoE LoRA requires", "Current platform does not support NVFP4",
         "moe_runner_backend=cutlass is not supported")
MARKS = ("modelopt_quant.py:23", "modelopt_quant.py:3144")  # graphfit's cites of them
LATER = "a later MoE layer (other method first)"  # graphfit's words: another comes first
MODULES = {"Qwen3MoeForCausalLM": "qwen3_moe", "Qwen2MoeForCausalLM": "qwen2_moe",
           # issue 23 s62q
           "MixtralForCausalLM": "mixtral", "DeepseekV3ForCausalLM": "deepseek_v2",
           "DeepseekV2ForCausalLM": "deepseek_v2", "Glm4MoeForCausalLM": "glm4_moe",
           # issue 23 s63q: the DSA classes
           "DeepseekV32ForCausalLM": "deepseek_v2", "GlmMoeDsaForCausalLM": "glm4_moe",
           "KimiK25ForConditionalGeneration": "kimi_k25",
           "BailingMoeV2_5ForCausalLM": "bailing_moe_linear"}
MODEL_TYPES = {**MODULES, "DeepseekV3ForCausalLM": "deepseek_v3",
               "DeepseekV2ForCausalLM": "deepseek_v2", "DeepseekV32ForCausalLM": "deepseek_v32",
               "GlmMoeDsaForCausalLM": "glm_moe_dsa",
               "KimiK25ForConditionalGeneration": "kimi_k25",
               "BailingMoeV2_5ForCausalLM": "bailing_hybrid"}
# s63q: Kimi-K2.5's DeepSeek-V3 text model sits in text_config, beside a small MoonViT
_KIMI_VISION = {"num_hidden_layers": 1, "hidden_size": 64, "vt_hidden_size": 64,
                "intermediate_size": 128, "num_attention_heads": 2, "mm_hidden_size": 64,
                "text_hidden_size": 256}
# s62q: the DeepSeek / GLM-4-MoE fields (the sparse ones set per line by `model_dir`)
_DEEPSEEK: dict[str, Any] = {
    "n_routed_experts": 8, "n_shared_experts": 1, "kv_lora_rank": 64, "q_lora_rank": 96,
    "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32, "topk_method": "noaux_tc",
    "n_group": 1, "topk_group": 1, "scoring_func": "sigmoid", "routed_scaling_factor": 2.5,
    "rope_theta": 10000.0, "num_key_value_heads": 8}
_GLM: dict[str, Any] = {"n_routed_experts": 8, "n_shared_experts": 1, "n_group": 1,
                        "topk_group": 1, "routed_scaling_factor": 2.5, "partial_rotary_factor": 0.5,
                        "use_qk_norm": True, "rope_theta": 10000.0}
# s63q: SGLang's own Bailing hybrid config (configs/bailing_hybrid.py), as sglang_draft_build
_BAILING = {"num_experts": 8, "num_shared_experts": 1, "rope_theta": 600000, "use_bias": False,
            "use_qkv_bias": False, "partial_rotary_factor": 0.5, "n_group": 1, "topk_group": 1,
            "routed_scaling_factor": 1.0, "use_qk_norm": True}
# s63q: a DSA class's indexer fields (configs/model_config.py:191-212)
_DSA = {**_DEEPSEEK, "index_topk": 64, "index_head_dim": 128, "index_n_heads": 8}
_EXTRA = {"DeepseekV3ForCausalLM": _DEEPSEEK, "DeepseekV2ForCausalLM": _DEEPSEEK,
          "Glm4MoeForCausalLM": _GLM, "DeepseekV32ForCausalLM": _DSA,
          "GlmMoeDsaForCausalLM": _DSA, "KimiK25ForConditionalGeneration": _DEEPSEEK,
          "BailingMoeV2_5ForCausalLM": _BAILING}
_SHAPES: dict[str, Any] = {
    "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 128,
    "shared_expert_intermediate_size": 256, "num_experts": 8, "num_experts_per_tok": 2,
    "decoder_sparse_step": 1, "norm_topk_prob": True, "num_attention_heads": 8,
    "num_key_value_heads": 4, "head_dim": 32, "vocab_size": 1024,
    "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "torch_dtype": "bfloat16",
    "hidden_act": "silu", "tie_word_embeddings": False, "mlp_only_layers": [],
}


ABSENT = "<absent>"  # s63q: a `sparse` value leaving the key out of config.json


@functools.cache
def model_dir(architecture: str, layers: int, quant: str, sparse: str = "{}") -> str:
    """A small config.json of `architecture` with `layers` decoder layers,
    `quant` (JSON) as its quantization_config and `sparse` (JSON: first_k_dense_replace /
    moe_layer_freq, s62q) over the class's shapes."""
    root = Path(tempfile.mkdtemp(prefix="graphfit-nvfp4-layers-"))
    config = {"architectures": [architecture], "model_type": MODEL_TYPES[architecture],
              "num_hidden_layers": layers, **_SHAPES, **_EXTRA.get(architecture, {}),
              **json.loads(sparse), "quantization_config": json.loads(quant)}
    if architecture == "KimiK25ForConditionalGeneration":  # s63q
        text = {k: v for k, v in config.items() if k not in ("quantization_config",)}
        config = {"architectures": [architecture], "model_type": "kimi_k25",
                  "torch_dtype": "bfloat16", "vision_config": _KIMI_VISION,
                  "text_config": {**text, "architectures": ["DeepseekV3ForCausalLM"],
                                  "model_type": "deepseek_v3"},
                  "quantization_config": config["quantization_config"]}
        config["text_config"] = {k: v for k, v in config["text_config"].items()
                                 if v != ABSENT}
    config = {k: v for k, v in config.items() if v != ABSENT}  # s63q: a key left out
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


@contextlib.contextmanager
def class_glue() -> Iterator[None]:
    """Glue (s63q), as tests.oracle.sglang_draft_build: a DSA class's indexer reads its SM
    count from deep_gemm (attention/dsa/dsa_indexer.py:335): an H100's, and the fake device
    has no AMD arch name (attention/dsa/gfx950_fused_indexer.py:35-40); Bailing's YaRN rope
    table is built on the default device (rotary_embedding/rope_variant.py:373, 382): the
    CPU here."""
    from sglang.srt.layers.attention.dsa import dsa_indexer
    from sglang.srt.layers.attention.dsa import gfx950_fused_indexer as gfx950
    from sglang.srt.layers.rotary_embedding import rope_variant

    with mock.patch.object(dsa_indexer, "resolve_num_sms", lambda: 132), \
            mock.patch.object(gfx950, "supported_hardware", lambda: False), \
            mock.patch.object(rope_variant, "get_device", lambda: "cpu"):
        yield


def _build(architecture: str, r: so.Resolved) -> str:
    """The loader's quantization config and the model class on the meta device: "" or the
    exception's "Type: message"."""
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.configs.model_config import ModelConfig
    from sglang.srt.layers.dp_attention import initialize_dp_attention_flags
    from sglang.srt.model_loader.loader import _get_quantization_config
    from sglang.srt.model_loader.utils import set_default_torch_dtype

    try:
        model_config = ModelConfig.from_server_args(r.record)
        quant = _get_quantization_config(model_config, LoadConfig())
    except Exception as exc:  # reported, judged by the caller
        return f"{type(exc).__name__}: {exc}"[:300]
    initialize_dp_attention_flags(None)
    # s63q: the scheduler seeds the MoE flags from the text config (a Kimi-K2.5 one's
    # text_config; managers/scheduler.py:991-1008): so.published does so since s64q
    module = importlib.import_module(f"sglang.srt.models.{MODULES[architecture]}")
    # glue (s62q): DeepSeek's model makes its side stream with torch.cuda.Stream itself
    with set_default_torch_dtype(model_config.dtype), one_rank_on_meta(module), \
            mock.patch("torch.cuda.Stream", lambda *args, **kwargs: None), class_glue():
        try:
            getattr(module, architecture)(config=copy.deepcopy(model_config.hf_config),
                                          quant_config=quant)  # Bailing's is keyword-only
        except Exception as exc:  # reported, judged by the caller
            return f"build {type(exc).__name__}: {exc}"[:300]
    return ""


@functools.lru_cache(maxsize=512)
def sglang(architecture: str, folder: str, runner: str, gpu: str) -> tuple[str, str]:
    """(verdict, SGLang's words) for `--model-path folder --moe-runner-backend runner` on the
    named GPU."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    gib, capability = mc._device(gpu)
    r = so.resolve(["--moe-runner-backend", runner], gpu_mem_gb=gib, model=folder,
                   capability=capability)
    if isinstance(r, so.Rejected):
        return "args", str(r)[:200]
    with so.sglang_stubs.stubbed(), so.published(r):
        said = _build(architecture, r)
    if not said:
        return "built", ""
    if said.startswith(("build ValueError: ", "build NotImplementedError: ")) and any(
            w in said for w in WORDS):
        return "refused", said
    return "other", said


def graphfit(folder: str, runner: str, gpu: str) -> tuple[int, str]:
    """graphfit's exit code and last line on the same pasted line."""
    from tests.oracle.sglang_quant_capability_compare import planned

    return planned(folder, ("--moe-runner-backend", runner), gpu)


def judged(verdict: str, said: str, code: int, ours: str, where: str
           ) -> tuple[str, str | None]:
    """SGLang's (verdict, words) against graphfit's (exit code, error line): a refusal must
    be graphfit's in the same words citing the method; no other answer may cite it."""
    if verdict == "refused":
        same = code == 2 and any(m in ours for m in MARKS) and any(
            w in ours and w in said for w in WORDS)
        return verdict, None if same else f"{where}: SGLang {said[:100]}; graphfit {code} {ours}"
    if any(m in ours for m in MARKS):
        return verdict, f"{where}: SGLang {verdict} {said[:80]}; graphfit {ours}"
    return verdict, None


def compare(architecture: str, layers: int, quant: dict[str, Any], runner: str, gpu: str,
            sparse: dict[str, Any] | None = None) -> tuple[str, str | None]:
    """(SGLang's verdict, a disagreement or None): a refusal must be graphfit's too, in the
    same words, citing the method; any other answer must not be refused for that reason.
    `sparse`: the DeepSeek / GLM-4-MoE sparse-layer fields of config.json (s62q)."""
    folder = model_dir(architecture, layers, json.dumps(quant), json.dumps(sparse or {}))
    verdict, said = sglang(architecture, folder, runner, gpu)
    code, ours = graphfit(folder, runner, gpu)
    where = f"{architecture} x{layers} {sparse or ''} {runner} {gpu} {json.dumps(quant)[:160]}"
    if verdict == "other" and said.startswith("build ") and LATER in ours and code == 2:
        return verdict, None  # an earlier layer's other method stopped the build first
    return judged(verdict, said, code, ours, where)


RUNNERS = ("auto", "flashinfer_cutlass", "marlin", "triton", "flashinfer_trtllm", "cutlass")
GPUS = ("H100", "A100", "B200", "L40S")
_KEYS = ("model.layers.{i}.mlp.experts.0.gate_proj", "model.layers.{i}.mlp.experts",
         "model.language_model.layers.{i}.mlp.experts.3.down_proj",
         "model.layers.{i}.self_attn.q_proj", "model.layers.{i}.mlp.gate",
         # s62q: Mixtral's own spelling (no "model."), and the one it does not use
         "layers.{i}.block_sparse_moe.experts.0.w1", "layers.{i}.block_sparse_moe.experts",
         "model.layers.{i}.block_sparse_moe.experts.1.w2",
         # s63q: Kimi-K2.5's HF spelling, which its mapper rewrites
         "language_model.layers.{i}.mlp.experts.0.w1", "language_model.layers.{i}.mlp.experts")
_PATTERNS = ("lm_head", "model.layers.0.mlp.experts", "*experts*", "model.layers.1*",
             "mlp", "model.layers.*.self_attn*", "experts", "*.mlp.*", "model.layers.3.*",
             "block_sparse_moe", "layers.0.*", "model.layers.2.mlp*",
             "language_model.layers.1.mlp.experts", "language_model.*")  # s63q
Line = tuple[str, int, dict[str, Any], str, str, dict[str, Any]]


def _sparse_fields(rng: random.Random, arch: str) -> dict[str, Any]:
    """config.json's first_k_dense_replace (and DeepSeek's moe_layer_freq), s62q."""
    if arch not in _EXTRA:
        return {}
    fields = {"first_k_dense_replace": rng.randint(0, 2)}
    if arch == "BailingMoeV2_5ForCausalLM":  # s63q: a one-expert config is dense
        fields["num_experts"] = rng.choice((8, 8, 1))
    elif arch != "Glm4MoeForCausalLM":  # s63q: every DeepSeek-V2 class reads moe_layer_freq
        fields["moe_layer_freq"] = rng.randint(1, 2)
    return fields


def generated_line(rng: random.Random) -> Line:
    """One (architecture, layers, quantization_config, runner, GPU, sparse fields)."""
    arch = rng.choice(tuple(MODULES))
    layers = rng.randint(1, 4)
    ignore = rng.sample(_PATTERNS, rng.randint(0, 2))
    form = rng.choice(("fp4", "mixed", "mixed", "hybrid"))
    if form == "fp4":
        quant: dict[str, Any] = {"quant_method": "modelopt",
                                 "quant_algo": rng.choice(("NVFP4", "W4A16_NVFP4")),
                                 "group_size": 16, "ignore": ignore}
    elif form == "mixed":
        entries = {}
        for _ in range(rng.randint(1, 4)):
            key = rng.choice(_KEYS).format(i=rng.randrange(layers + 1))
            algo = rng.choice(("NVFP4", "FP8", "W4A16_NVFP4", "nvfp4"))
            entries[key] = {"quant_algo": algo, "group_size": 16}
        entries.setdefault("model.layers.9.mlp.experts.0.up_proj",
                           {"quant_algo": "NVFP4", "group_size": 16})  # keeps it mixed
        quant = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                 "kv_cache_quant_algo": None, "quantized_layers": entries, "ignore": ignore}
    else:
        quant = {"quant_method": "fp8", "activation_scheme": "dynamic",
                 "weight_block_size": [128, 128], "quant_algo": "MIXED_PRECISION",
                 "moe_quant_algo": "NVFP4", "group_size": 16, "ignore": ignore}
    return arch, layers, quant, rng.choice(RUNNERS), rng.choice(GPUS), _sparse_fields(rng, arch)


def generated_lines(count: int, seed: int) -> list[Line]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]


_MIXED = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
          "kv_cache_quant_algo": None}
_NV = {"quant_algo": "NVFP4", "group_size": 16}
_HYBRID = {"quant_method": "fp8", "activation_scheme": "dynamic",
           "weight_block_size": [128, 128], "quant_algo": "MIXED_PRECISION",
           "moe_quant_algo": "NVFP4", "group_size": 16}
# name: (architecture, layers, quantization_config, runner, GPU)
FIXED: dict[str, tuple[Any, ...]] = {
    "mixed_experts_nvfp4_h100": ("Qwen3MoeForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100"),
    "mixed_experts_fp8_h100": ("Qwen3MoeForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts": {"quant_algo": "FP8"},
        "model.layers.1.self_attn.qkv_proj": _NV}}, "flashinfer_cutlass", "H100"),
    "mixed_excluded_h100": ("Qwen2MoeForCausalLM", 2, {**_MIXED, "ignore": ["*experts*"],
        "quantized_layers": {"model.layers.0.mlp.experts.1.up_proj": _NV}},
        "flashinfer_cutlass", "H100"),
    "mixed_language_model_key": ("Qwen2MoeForCausalLM", 1, {**_MIXED, "quantized_layers": {
        "model.language_model.layers.0.mlp.experts.0.down_proj": _NV}}, "triton", "A100"),
    "mixed_b200": ("Qwen3MoeForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.0.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "B200"),
    "fp4_all_excluded": ("Qwen3MoeForCausalLM", 2, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["experts"]}, "flashinfer_cutlass", "H100"),
    "fp4_one_left": ("Qwen3MoeForCausalLM", 2, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["model.layers.0.mlp.experts"]}, "flashinfer_cutlass", "H100"),
    "hybrid_h100": ("Qwen3MoeForCausalLM", 2, {**_HYBRID, "ignore": []},
                    "flashinfer_cutlass", "H100"),
    "cutlass_b200": ("Qwen2MoeForCausalLM", 1, {**_MIXED, "quantized_layers": {
        "model.layers.0.mlp.experts.0.gate_proj": _NV}}, "cutlass", "B200"),
    "hybrid_fp8_layer_first": ("Qwen2MoeForCausalLM", 2, {
        **_HYBRID, "ignore": ["model.layers.0.mlp.experts"]}, "cutlass", "L40S"),
    "hybrid_excluded": ("Qwen3MoeForCausalLM", 2, {**_HYBRID, "ignore": ["mlp"]},
                        "flashinfer_cutlass", "H100"),
}
# s62q: the DeepSeek / GLM-4-MoE / Mixtral walk (a sixth item: config.json's sparse fields)
_K1 = {"first_k_dense_replace": 1, "moe_layer_freq": 1}
CLASSES: dict[str, Line] = {
    "deepseek_dense_first_mixed": ("DeepseekV3ForCausalLM", 3, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100", _K1),
    "deepseek_freq2_dense_key": ("DeepseekV3ForCausalLM", 4, {**_MIXED, "quantized_layers": {
        "model.layers.3.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100",
        {"first_k_dense_replace": 1, "moe_layer_freq": 2}),
    "deepseek_v2_hybrid": ("DeepseekV2ForCausalLM", 2, {**_HYBRID, "ignore": []},
                           "triton", "A100", _K1),
    "glm_first_k_fp4_excluded": ("Glm4MoeForCausalLM", 3, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["model.layers.2.mlp.experts"]}, "flashinfer_cutlass", "H100",
        {"first_k_dense_replace": 2}),
    "glm_mixed_cutlass_b200": ("Glm4MoeForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts": _NV}}, "cutlass", "B200", {"first_k_dense_replace": 1}),
    "mixtral_own_key": ("MixtralForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "layers.1.block_sparse_moe.experts.0.w1": _NV}}, "flashinfer_cutlass", "H100", {}),
    "mixtral_model_key": ("MixtralForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.0.block_sparse_moe.experts.0.w1": _NV}}, "flashinfer_cutlass", "H100",
        {}),
    "mixtral_fp4_all_excluded": ("MixtralForCausalLM", 2, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["block_sparse_moe"]}, "flashinfer_cutlass", "L40S", {}),
}
FIXED.update(CLASSES)
# s63q: the DSA classes (DeepSeek-V2's class and sparse test), and a DeepSeek config.json
# without n_routed_experts (the HF class's default makes the layers sparse)
DSA: dict[str, Line] = {
    "dsv32_mixed_dense_first": ("DeepseekV32ForCausalLM", 3, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100", _K1),
    "glm_dsa_mixed_dense_key": ("GlmMoeDsaForCausalLM", 3, {**_MIXED, "quantized_layers": {
        "model.layers.0.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100", _K1),
    "glm_dsa_freq2_fp4": ("GlmMoeDsaForCausalLM", 3, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["model.layers.0.mlp.experts", "model.layers.2.mlp.experts"]},
        "flashinfer_cutlass", "H100",
        {"first_k_dense_replace": 0, "moe_layer_freq": 2}),
    "dsv3_fp4_default_experts": ("DeepseekV3ForCausalLM", 2, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": []}, "flashinfer_cutlass", "H100", {**_K1, "n_routed_experts": ABSENT}),
}
# s63q: Kimi-K2.5 (text_config; its mapper on exclusions and quantized_layers keys)
KIMI = "KimiK25ForConditionalGeneration"
DSA.update({
    "kimi_fp4_h100": (KIMI, 3, {"quant_method": "modelopt", "quant_algo": "NVFP4",
                                "group_size": 16, "ignore": ["lm_head"]},
                      "flashinfer_cutlass", "H100", _K1),
    "kimi_fp4_hf_excluded": (KIMI, 3, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["language_model.layers.1.mlp.experts", "language_model.layers.2.mlp.experts"]},
        "flashinfer_cutlass", "H100", _K1),
    "kimi_mixed_hf_key": (KIMI, 3, {**_MIXED, "quantized_layers": {
        "language_model.layers.1.mlp.experts.0.w1": _NV}}, "flashinfer_cutlass", "H100", _K1),
    "kimi_mixed_model_key": (KIMI, 3, {**_MIXED, "quantized_layers": {
        "model.layers.2.mlp.experts.0.w1": _NV}}, "flashinfer_cutlass", "H100", _K1),
    "kimi_hybrid_cutlass": (KIMI, 2, {**_HYBRID, "ignore": ["language_model.*"]},
                            "flashinfer_cutlass", "H100", _K1),
    # Bailing-V2.5: dense before first_k_dense_replace, and everywhere with one expert
    "bailing_mixed_dense_first": ("BailingMoeV2_5ForCausalLM", 2, {**_MIXED, "quantized_layers": {
        "model.layers.1.mlp.experts.0.gate_proj": _NV}}, "flashinfer_cutlass", "H100",
        {"first_k_dense_replace": 1}),
    "bailing_fp4_dense_key": ("BailingMoeV2_5ForCausalLM", 2, {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["model.layers.1.mlp.experts"]}, "flashinfer_cutlass", "H100",
        {"first_k_dense_replace": 1}),
    "bailing_one_expert_hybrid": ("BailingMoeV2_5ForCausalLM", 2, {**_HYBRID, "ignore": []},
                                  "flashinfer_cutlass", "H100",
                                  {"first_k_dense_replace": 0, "num_experts": 1}),
})
FIXED.update(DSA)


def file_compare(architecture: str, layers: int, quant: dict[str, Any], runner: str, gpu: str,
                 sparse: dict[str, Any] | None = None) -> tuple[str, str | None]:
    """`compare` with graphfit reading the line as its own config file (`model_path`,
    `moe_runner_backend`: SGLang's spellings) instead of a pasted line (s62q): the file's
    model_path reads the same walk (graphfit.inputs.sglang.model_path)."""
    from tests.oracle.sglang_compare import run_graphfit

    folder = model_dir(architecture, layers, json.dumps(quant), json.dumps(sparse or {}))
    verdict, said = sglang(architecture, folder, runner, gpu)
    path = Path(folder) / "graphfit.yaml"
    path.write_text(f"model_path: {folder}\nmoe_runner_backend: {runner}\n")
    code, _, output = run_graphfit(["plan", "--config", str(path), "--gpu-memory-gb", gpu])
    errors = [t for t in output.splitlines() if t.startswith("error:")]
    ours = errors[-1] if errors else ""
    where = f"file {architecture} x{layers} {sparse or ''} {runner} {gpu}"
    return judged(verdict, said, code, ours, where)
