"""The comparison behind test_sglang_quant_quark_requant_oracle.py and
measure_sglang_quant_quark_requant.py (issue 23, s66q): `--quantization quark_mxfp4` on a
checkpoint whose config.json carries its own quantization config, which SGLang 0.5.23's
QuarkConfig.from_config requantizes only from a ModelOpt MIXED_PRECISION source with NVFP4
layers, an NVFP4 source, or a dynamic FP8 one (layers/quantization/quark/quark.py:537-615).

SGLang's side: its real ModelConfig and loader on the named GPU
(tests.oracle.sglang_quant_capability_oracle.load), which marks the checkpoint's config with
`requantization_method` and builds QuarkConfig from it (model_loader/weight_utils.py:298-311).

Verdicts: "refused" (the loader raised one of the branch's NotImplementedErrors: graphfit
must refuse citing the same quark.py lines), "passed" (the class was built: graphfit must
not cite the branch), "other" (the loader stopped otherwise: graphfit must not cite it);
s68q: "fp8" (an accepted source's Fp8Config raised its ValueError: graphfit must refuse
citing the same fp8.py / base_config.py lines).
It imports no graphfit module this work added, so the measure scores an older graphfit tree
too."""

from __future__ import annotations

import functools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from graphfit.inputs.gpus import GPU_CAPABILITY
from tests.oracle import sglang_dspark_target_head as th
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import planned

FLAG = "quark_mxfp4"
# SGLang's words (quark/quark.py) and the lines graphfit must cite for them
WORDS = {"has inconsistent quant algos": "234-239", "uses unsupported quant algo": "247-252",
         "has no NVFP4 layers to requantize": "552-557",
         "requantization from compressed-tensors NVFP4": "124-129",
         "Requantization into quark_mxfp4 is not supported": "611-615"}
MARK = "quark/quark.py:"
# s68q: Fp8Config's words when an accepted source builds one (quark.py:571 / :602) and the
# lines graphfit must cite for them (fp8.py, base_config.py)
FP8_WORDS = {"Cannot find any of ['activation_scheme']": "base_config.py:257-264",
             "Unsupported activation scheme": "fp8.py:285-286",
             "must have 2 dimensions": "fp8.py:307-310",
             "only supports dynamic activation scheme": "fp8.py:311-314"}
FP8_MARK = "SGLang's Fp8Config for"  # s68q: graphfit's words for it
GPUS = ("H100", "B200")
_NVFP4_QUARK = {"quant_method": "quark", "global_quant_config": {"weight": [
    {"dtype": "fp4", "qscheme": "per_group", "group_size": 16, "is_dynamic": False},
    {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": False}]}}
_DOWN, _O = "model.layers.{}.mlp.down_proj", "model.layers.{}.self_attn.o_proj"


def _mixed(*algos: tuple[str, int, str]) -> dict[str, Any]:
    """A ModelOpt MIXED_PRECISION config: (layer form, index, quant_algo) per layer."""
    return {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
            "kv_cache_quant_algo": None,
            "quantized_layers": {form.format(i): {"quant_algo": a} for form, i, a in algos}}


# (GPU, quantization_config)
FIXED: dict[str, tuple[str, dict[str, Any]]] = {
    "gptq": ("H100", {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True,
                      "desc_act": False}),
    "awq": ("B200", {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}),
    "fp8_static": ("H100", {"quant_method": "fp8", "activation_scheme": "static"}),
    "fp8_dynamic": ("B200", {"quant_method": "fp8", "activation_scheme": "dynamic"}),
    "modelopt_nvfp4": ("B200", {"quant_method": "modelopt", "quant_algo": "NVFP4"}),
    "modelopt_fp8": ("H100", {"quant_method": "modelopt", "quant_algo": "FP8"}),
    "compressed_tensors": ("B200", {"quant_method": "compressed-tensors", "config_groups": {}}),
    "quark_nvfp4": ("B200", _NVFP4_QUARK),
    "quark_other": ("H100", {"quant_method": "quark", "global_quant_config": {"weight": {
        "dtype": "fp8_e4m3", "qscheme": "per_tensor"}}}),
    "mixed_fp8_only": ("H100", _mixed((_DOWN, 0, "FP8"), (_O, 0, "FP8"))),
    "mixed_ok": ("B200", _mixed((_DOWN, 0, "NVFP4"), (_O, 0, "FP8"), (_DOWN, 1, "NVFP4"))),
    "mixed_inconsistent": ("B200", _mixed((_DOWN, 0, "NVFP4"), (_DOWN, 1, "FP8"))),
    "mixed_unsupported": ("H100", _mixed((_DOWN, 0, "NVFP4"), (_O, 0, "W4A8_AWQ"))),
    "mixed_empty": ("B200", {**_mixed(), "quantized_layers": {}}),
}
# s68q: what an accepted source builds next: the dequantizing Fp8Config of a dynamic FP8
# source (quark.py:602), the excluded layers' one of an FP8-based mixed source (:571)
_FP8_MIXED = {**_mixed((_DOWN, 0, "NVFP4"), (_O, 0, "FP8")), "quant_method": "fp8"}
FP8_LINES: dict[str, tuple[str, dict[str, Any]]] = {
    "fp8_dynamic_block3": ("B200", {"quant_method": "fp8", "activation_scheme": "dynamic",
                                    "weight_block_size": [128, 128, 1]}),
    "fp8_dynamic_block2": ("H100", {"quant_method": "fp8", "activation_scheme": "dynamic",
                                    "weight_block_size": [128, 128]}),
    "fp8_mixed_no_scheme": ("B200", _FP8_MIXED),
    "fp8_mixed_static_block": ("B200", {**_FP8_MIXED, "activation_scheme": "static",
                                        "weight_block_size": [128, 128]}),
    "fp8_mixed_bad_scheme": ("H100", {**_FP8_MIXED, "activation_scheme": "per_token"}),
    "fp8_mixed_ok": ("B200", {**_FP8_MIXED, "activation_scheme": "dynamic",
                              "weight_block_size": [128, 128]}),
    "modelopt_mixed_no_scheme": ("B200", _mixed((_DOWN, 0, "NVFP4"), (_O, 0, "FP8"))),
}
FIXED.update(FP8_LINES)


@functools.cache
def _dir(body: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="graphfit-quark-requant-"))
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama",
              "tie_word_embeddings": False, **th._BASE, "quantization_config": json.loads(body)}
    (root / "config.json").write_text(json.dumps(config))
    return str(root)


def sglang(gpu: str, spec: dict[str, Any], folder: str) -> tuple[str, str]:
    """(verdict, SGLang's words) of its loader on the line."""
    theirs = co.load(FLAG, spec, GPU_CAPABILITY[gpu], folder)
    if theirs.stage == "passed" and theirs.method == FLAG:
        return "passed", ""
    if theirs.said.startswith("NotImplementedError: ") and any(w in theirs.said for w in WORDS):
        return "refused", theirs.said
    if theirs.stage == "before" and any(w in theirs.said for w in FP8_WORDS):
        return "fp8", theirs.said  # s68q: Fp8Config.from_config's ValueError
    return "other", f"{theirs.stage} {theirs.method} {theirs.said}"


def compare(gpu: str, spec: dict[str, Any]) -> tuple[str, str | None]:
    """One line: (verdict, a disagreement or None)."""
    body = json.dumps(spec)
    spec = json.loads(body)
    folder = _dir(body)
    verdict, said = sglang(gpu, spec, folder)
    code, ours = planned(folder, ("--quantization", FLAG), gpu)
    where = f"{gpu} {body[:160]}"
    if verdict == "refused":
        lines = next(v for w, v in WORDS.items() if w in said)
        ok = code == 2 and f"{MARK}{lines}" in ours
        return verdict, None if ok else f"{where}: SGLang {said[:110]}; graphfit {code} {ours}"
    if verdict == "fp8":  # s68q: graphfit cites the Fp8Config's refusal, by its lines
        lines = next(v for w, v in FP8_WORDS.items() if w in said)
        ok = code == 2 and FP8_MARK in ours and lines in ours
        return verdict, None if ok else f"{where}: SGLang {said[:110]}; graphfit {code} {ours}"
    if any(f"{MARK}{v}" in ours for v in WORDS.values()) or FP8_MARK in ours:
        return verdict, f"{where}: SGLang {verdict} {said[:80]}; graphfit {ours}"
    return verdict, None


_METHODS = ("gptq", "awq", "fp8", "fp8", "modelopt", "modelopt", "modelopt_fp4", "nvfp4",
            "quark", "compressed-tensors", "bitsandbytes", "mxfp4")
# no empty quant_algo: graphfit's config reader refuses it before any quantization rule
_ALGOS = (None, None, "NVFP4", "FP4", "FP8", "MIXED_PRECISION", "nvfp4", "W4A16_NVFP4")
_LAYER_ALGOS = ("NVFP4", "FP8", "W4A16_NVFP4", "INT8", "fp8", "nvfp4")


def generated_line(rng: random.Random) -> tuple[str, dict[str, Any]]:
    """(GPU, quantization_config): a drawn source method, activation scheme, quant_algo and,
    for a mixed one, a few layers' algos."""
    spec: dict[str, Any] = {"quant_method": rng.choice(_METHODS)}
    if rng.random() < 0.6:
        spec["activation_scheme"] = rng.choice(("dynamic", "static"))
    algo = rng.choice(_ALGOS)
    if algo is not None:
        spec["quant_algo"] = algo
    if algo == "MIXED_PRECISION" or rng.random() < 0.15:
        spec["kv_cache_quant_algo"] = None
        spec["quantized_layers"] = {
            rng.choice((_DOWN, _O)).format(rng.randint(0, 1)): {
                "quant_algo": rng.choice(_LAYER_ALGOS)} for _ in range(rng.randint(0, 3))}
    if spec["quant_method"] == "quark" and rng.random() < 0.6:
        spec["global_quant_config"] = _NVFP4_QUARK["global_quant_config"]
    if spec["quant_method"] in ("gptq", "awq"):
        spec.update(bits=4, group_size=128, sym=True, desc_act=False, zero_point=True)
    if rng.random() < 0.3:  # s68q: the Fp8Config an FP8 source builds reads it
        spec["weight_block_size"] = rng.choice(([128, 128], [128, 128], [128], [1, 32, 4]))
    if algo == "MIXED_PRECISION" and rng.random() < 0.3:  # s68q: an FP8-serialized base
        spec["quant_method"] = "fp8"
    return rng.choice(GPUS), spec


def generated_lines(count: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
