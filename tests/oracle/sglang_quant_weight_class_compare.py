"""The comparison behind test_sglang_quant_weight_class_oracle.py and
measure_sglang_quant_weight_class.py: the config classes SGLang 0.5.23's loader builds for
awq / awq_marlin / gptq_marlin / modelopt_mixed (AWQConfig, AWQMarlinConfig,
GPTQMarlinConfig, ModelOptMixedPrecisionConfig) refuse some quantization dicts in
`from_config` / `__init__`. Two ways in:

* config.json's own quantization_config (model_loader/weight_utils.py:298-311), drawn from
  `CONFIG_LAYOUTS` (AWQ / GPTQ / mixed-precision dicts, readable and not);
* the one config file the loader's search finds (:396-438) on a directory whose config.json
  declares none, drawn from `FILE_BODIES` (quantize_config.json, quant_config.json,
  hf_quant_config.json).

SGLang's side is its real ModelConfig + `_get_quantization_config` on a B200
(tests.oracle.sglang_quant_capability_oracle.load); graphfit's is the pasted line. Judged:
where a config class's ValueError stops SGLang's loader ("class"), graphfit refuses citing
one of `MARKS`; where the loader gets past it ("built"), graphfit cites none. Lines SGLang
stops elsewhere (argument checks, ModelConfig, the file search, a TypeError) are "other"
and must not cite them either. It imports no graphfit module this work added, so the
measure scores an older graphfit tree too."""

from __future__ import annotations

import functools
import itertools
import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import llama_dir, past_the_class, planned

# the file:line sites graphfit's class refusals cite (graphfit.inputs.
# sglang_quant_weight_classes; ModelOpt's FP8 / FP4 classes, graphfit.inputs.
# sglang_quant_classes)
MARKS = ("awq/awq.py:126-135", "awq/awq.py:84-88", "awq/awq.py:314-320",
         "awq/awq.py:274-278", "awq/awq.py:282-284", "gptq/gptq.py:393-401",
         "gptq/gptq.py:353-356", "modelopt_quant.py:876", "modelopt_quant.py:885-888",
         "modelopt_quant.py:889-892", "modelopt_quant.py:906-917", "modelopt_quant.py:495",
         "modelopt_quant.py:506", "modelopt_quant.py:510", "modelopt_quant.py:1658",
         "modelopt_quant.py:1673", "modelopt_quant.py:1682", "moe_wna16.py:136-151",
         "moe_wna16.py:149-151")
CLASS_METHODS = ("awq", "awq_marlin", "gptq_marlin", "modelopt_mixed", "moe_wna16")
# SGLang stops that belong to other rules (the file search, the ModelOpt branch)
ELSEWHERE = ("Cannot find the config file", "Found multiple config files",
             "Invalid quant_config")

_AWQ = {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
        "version": "gemm"}
_GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
         "sym": True}
_NVFP4 = {"model.layers.0.mlp.experts.0": {"quant_algo": "NVFP4", "group_size": 16},
          "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}
_BLOCKS = {"model.layers.0.mlp.down_proj": {"quant_algo": "FP8_PB_WO", "group_size": 128},
           "model.layers.0.self_attn.o_proj": {"quant_algo": "FP8_BLOCK_SCALES",
                                               "group_size": 64}}
_BLOCK_ONE = {"model.layers.0.mlp.down_proj": {"quant_algo": "FP8_PB_WO"},
              "model.layers.0.self_attn.o_proj": {"quant_algo": "fp8_block_scales",
                                                  "group_size": 128}}
_MIXED = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
          "kv_cache_quant_algo": "FP8", "quantized_layers": _NVFP4}


def _without(base: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in base.items() if k != key}


CONFIG_LAYOUTS: dict[str, dict[str, Any]] = {
    "awq": _AWQ,
    "awq_wbit": {"quant_method": "awq", "w_bit": 4, "q_group_size": 128, "zero_point": True},
    "awq_no_zp": _without(_AWQ, "zero_point"),
    "awq_no_group": _without(_AWQ, "group_size"),
    "awq_8bit": {**_AWQ, "bits": 8},
    "awq_3bit": {**_AWQ, "bits": 3},
    "awq_zp_false": {**_AWQ, "zero_point": False},
    "awq_zp_null": {**_AWQ, "zero_point": None},
    "awq_group_48": {**_AWQ, "group_size": 48},
    "gptq": _GPTQ,
    "gptq_8bit": {**_GPTQ, "bits": 8},
    "gptq_asym": {**_GPTQ, "sym": False},
    "gptq_3bit": {**_GPTQ, "bits": 3},
    "gptq_no_sym": _without(_GPTQ, "sym"),
    "gptq_no_desc": _without(_GPTQ, "desc_act"),
    "mixed": _MIXED,
    "mixed_empty": {**_MIXED, "quantized_layers": {}},
    "mixed_blocks": {**_MIXED, "quantized_layers": {**_NVFP4, **_BLOCKS}},
    "mixed_block_one": {**_MIXED, "quantized_layers": {**_NVFP4, **_BLOCK_ONE}},
    "mixed_method_empty": {**_MIXED, "quant_method": "modelopt_mixed", "quantized_layers": {}},
    "mixed_method_int4": {**_MIXED, "quant_method": "modelopt_mixed", "quant_algo": "INT4_AWQ"},
    "mixed_method_blocks": {**_MIXED, "quant_method": "modelopt_mixed",
                            "quantized_layers": {**_NVFP4, **_BLOCKS}},
    "mixed_scheme": {**_without(_MIXED, "kv_cache_quant_algo"),
                     "kv_cache_scheme": {"type": "float", "num_bits": 8}},
}
FLAGS = (None, "awq", "awq_marlin", "gptq_marlin", "modelopt_mixed", "moe_wna16")

_MO = {"name": "modelopt", "version": "0.29"}
# (file name, body) of the one quantization file beside a config.json declaring none
FILE_BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "qc_awq": ("quantize_config.json", {"bits": 4, "group_size": 128, "zero_point": True}),
    "qc_awq_no_zp": ("quantize_config.json", {"bits": 4, "group_size": 128}),
    "qc_awq_8bit": ("quantize_config.json", {"bits": 8, "group_size": 128,
                                             "zero_point": True}),
    "qc_awq_zp_false": ("quantize_config.json", {"bits": 4, "group_size": 128,
                                                 "zero_point": False}),
    "qc_awq_group_100": ("quantize_config.json", {"bits": 4, "group_size": 100,
                                                  "zero_point": True}),
    "qc_gptq": ("quantize_config.json", {"bits": 4, "group_size": 128, "desc_act": False,
                                         "sym": True}),
    "qc_gptq_asym": ("quantize_config.json", {"bits": 4, "group_size": 128,
                                              "desc_act": False, "sym": False}),
    "qc_gptq_no_desc": ("quantize_config.json", {"bits": 8, "group_size": 128, "sym": True}),
    "qc_wna16_gptq": ("quantize_config.json", {"quant_method": "gptq", "bits": 4,
                                               "group_size": 128, "sym": True}),
    "qc_wna16_no_sym": ("quantize_config.json", {"quant_method": "gptq", "bits": 4,
                                                 "group_size": 128}),
    "qc_wna16_awq_no_zp": ("quantize_config.json", {"quant_method": "awq", "bits": 4,
                                                    "group_size": 128}),
    "qc_wna16_other": ("quantize_config.json", {"quant_method": "fp8", "bits": 8,
                                                "group_size": 128}),
    "awq_qc": ("quant_config.json", {"w_bit": 4, "q_group_size": 128, "zero_point": True}),
    "awq_qc_8bit": ("quant_config.json", {"w_bit": 8, "q_group_size": 128,
                                          "zero_point": True}),
    "awq_qc_no_group": ("quant_config.json", {"w_bit": 4, "zero_point": True}),
    "hf_mixed": ("hf_quant_config.json", {"producer": _MO, "quantization": {
        "quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8",
        "quantized_layers": _NVFP4}}),
    "hf_mixed_empty": ("hf_quant_config.json", {"producer": _MO, "quantization": {
        "quant_algo": "MIXED_PRECISION", "quantized_layers": {}}}),
    "hf_mixed_blocks": ("hf_quant_config.json", {"producer": _MO, "quantization": {
        "quant_algo": "MIXED_PRECISION", "quantized_layers": {**_NVFP4, **_BLOCKS}}}),
    "hf_int4": ("hf_quant_config.json", {"producer": _MO,
                                         "quantization": {"quant_algo": "INT4_AWQ"}}),
    "hf_flat_other": ("hf_quant_config.json", {"quant_algo": "W8A8", "quantized_layers": {}}),
    "hf_no_section": ("hf_quant_config.json", {"producer": {"name": "other"}}),
}
FILE_FLAGS = ("awq", "awq_marlin", "gptq_marlin", "modelopt_mixed", "moe_wna16")


@functools.cache
def config_dir(layout: str) -> str:
    return llama_dir("graphfit-quant-weight-", CONFIG_LAYOUTS[layout])


@functools.cache
def file_dir(body: str) -> str:
    root = llama_dir("graphfit-quant-weight-file-", None)
    name, content = FILE_BODIES[body]
    (Path(root) / name).write_text(json.dumps(content))
    return root


def _judge(where: str, theirs: co.Answer, code: int, said: str) -> tuple[str, str | None]:
    cited = any(mark in said for mark in MARKS)
    head = theirs.said.split(":")[0]
    if theirs.stage == "before" and theirs.method in CLASS_METHODS \
            and not any(text in theirs.said for text in ELSEWHERE) and "Error" not in head:
        ok = code == 2 and cited
        return "class", None if ok else f"{where}: SGLang {theirs.said[:90]}; graphfit {code} " \
                                        f"{said}"
    return past_the_class(where, theirs, said, cited)


def compare_config(flag: str | None, layout: str) -> tuple[str, str | None]:
    """One config.json line on a B200: (verdict, a disagreement or None)."""
    folder = config_dir(layout)
    theirs = co.load(flag, CONFIG_LAYOUTS[layout], 100, folder)
    code, said = planned(folder, () if flag is None else ("--quantization", flag), "B200")
    return _judge(f"--quantization {flag} on config.json {layout} (B200)", theirs, code, said)


def compare_file(flag: str, body: str) -> tuple[str, str | None]:
    """One found-file line on a B200: (verdict, a disagreement or None)."""
    folder = file_dir(body)
    theirs = co.load(flag, None, 100, folder)
    code, said = planned(folder, ("--quantization", flag), "B200")
    return _judge(f"--quantization {flag} on {body} (B200)", theirs, code, said)


def config_lines(count: int | None = None, seed: int = 0) -> list[tuple[str | None, str]]:
    grid = list(itertools.product(FLAGS, CONFIG_LAYOUTS))
    return grid if count is None else random.Random(seed).sample(grid, min(count, len(grid)))


def file_lines(count: int | None = None, seed: int = 0) -> list[tuple[str, str]]:
    grid = list(itertools.product(FILE_FLAGS, FILE_BODIES))
    return grid if count is None else random.Random(seed).sample(grid, min(count, len(grid)))


# generated found files: each key drawn present (with a value from its pool) or absent
_ABSENT = object()
_POOLS: dict[str, tuple[object, ...]] = {
    "bits": (2, 3, 4, 4, 8, 8, 0, "4", _ABSENT),
    "group_size": (-1, 32, 64, 128, 128, 100, _ABSENT),
    "zero_point": (True, True, False, None, _ABSENT),
    "sym": (True, True, False, _ABSENT),
    "desc_act": (False, True, _ABSENT),
}
_AWQ_ALIASES = {"bits": "w_bit", "group_size": "q_group_size"}
_LAYER_ALGOS = ("NVFP4", "W4A16_NVFP4", "FP8", "FP8_PB_WO", "FP8_BLOCK_SCALES",
                "fp8_pb_wo", "INT4_AWQ")
_LAYER_GROUPS = (_ABSENT, 16, 64, 128, 256)


def _mixed_body(rng: random.Random) -> dict[str, Any]:
    layers: dict[str, Any] = {}
    for index in range(rng.choice((0, 1, 2, 3))):
        info: dict[str, Any] = {"quant_algo": rng.choice(_LAYER_ALGOS)}
        group = rng.choice(_LAYER_GROUPS)
        if group is not _ABSENT:
            info["group_size"] = group
        layers[f"model.layers.{index}.mlp.experts.0"] = info
    inner: dict[str, Any] = {"quantized_layers": layers, "kv_cache_quant_algo": "FP8"}
    algo = rng.choice(("MIXED_PRECISION", "MIXED_PRECISION", "INT4_AWQ", _ABSENT))
    if algo is not _ABSENT:
        inner["quant_algo"] = algo
    producer = {"producer": _MO} if rng.random() < 0.7 else {}
    return {**producer, "quantization": inner} if rng.random() < 0.6 else {**producer, **inner}


def generated_line(rng: random.Random) -> tuple[str, str, dict[str, Any]]:
    """(flag, file name, body) for one directory holding a generated quantization file."""
    flag = rng.choice(FILE_FLAGS)
    if flag == "modelopt_mixed" or rng.random() < 0.1:
        return flag, "hf_quant_config.json", _mixed_body(rng)
    # mostly the file the flag's class searches for (awq: either name), sometimes another
    awq_file = flag == "awq" and rng.random() < 0.4
    name = "quant_config.json" if awq_file or rng.random() < 0.08 else "quantize_config.json"
    body: dict[str, Any] = {}
    if flag == "moe_wna16" or rng.random() < 0.2:
        kind = rng.choice(("gptq", "awq", "awq", "fp8", _ABSENT))
        if kind is not _ABSENT:
            body["quant_method"] = kind
    for key, pool in _POOLS.items():
        value = rng.choice(pool)
        if value is not _ABSENT:
            alias = _AWQ_ALIASES.get(key) if flag == "awq" and rng.random() < 0.3 else None
            body[alias or key] = value
    return flag, name, body


def compare_generated(flag: str, name: str, body: dict[str, Any]) -> tuple[str, str | None]:
    """One generated found-file line on a B200: (verdict, a disagreement or None)."""
    root = llama_dir("graphfit-quant-weight-gen-", None)
    (Path(root) / name).write_text(json.dumps(body))
    theirs = co.load(flag, None, 100, root)
    code, said = planned(root, ("--quantization", flag), "B200")
    return _judge(f"--quantization {flag} on {name} {json.dumps(body)[:120]} (B200)", theirs,
                  code, said)


def generated_lines(count: int, seed: int) -> list[tuple[str, str, dict[str, Any]]]:
    rng = random.Random(seed)
    return [generated_line(rng) for _ in range(count)]
