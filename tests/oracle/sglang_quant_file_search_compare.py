"""The comparison behind test_sglang_quant_file_search_oracle.py and
measure_sglang_quant_file_search.py: SGLang 0.5.23's search for a quantization config file
(model_loader/weight_utils.py:269-394) on two kinds of line s45q's oracle did not draw.

* modelopt_mixed's fall-through (:288-298): config.json declares a ModelOpt mixed-precision
  config without `quantized_layers` or any KV-cache key, so the loader searches the
  directory for hf_quant_config.json as if config.json declared nothing. Drawn: the config's
  shape (flat, with or without quant_method, nested), its keys, its layers (NVFP4 ones make
  it modelopt_mixed, FP8-only ones w4afp8), the directory's files, the flag, the GPU.
* A config file's model: `graphfit plan --config FILE` whose YAML holds `model_path` and
  `quantization` (s45q's directories, each flag), or graphfit's own `--model-path` with a
  file holding only `quantization`.

graphfit reads the line whole (a pasted line, or the config file); SGLang's argument checks,
ModelConfig and loader run with the same directory as model_path (tests.oracle.
sglang_quant_capability_oracle). Judged as s45q's compare: where SGLang cannot find the file
or finds several, graphfit refuses citing the same lines; elsewhere it does not cite them.
It imports no module this rule added, so the measure runs on an older graphfit tree too."""

from __future__ import annotations

import functools
import itertools
import json
import random
import tempfile
from pathlib import Path
from typing import Any

from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_quant_capability_oracle as co
from tests.oracle.sglang_quant_capability_compare import _LLAMA, llama_dir, planned
from tests.oracle.sglang_quant_config_file_compare import FILES as S45Q_FILES
from tests.oracle.sglang_quant_config_file_compare import model_dir as s45q_dir

CANNOT, SEVERAL = "Cannot find the config file", "Found multiple config files"
NVFP4_LAYERS = {"model.layers.0.mlp.experts.0": {"quant_algo": "NVFP4", "group_size": 16},
                "model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}
FP8_LAYERS = {"model.layers.0.self_attn.q_proj": {"quant_algo": "FP8"}}
# the mixed-precision config's keys beside quant_algo (each present or not)
EXTRAS: dict[str, dict[str, Any]] = {
    "bare": {},
    "kv_algo": {"kv_cache_quant_algo": "FP8"},
    "kv_algo_null": {"kv_cache_quant_algo": None},
    "kv_scheme": {"kv_cache_scheme": {"type": "float", "num_bits": 8}},
}
SHAPES = ("flat", "modelopt", "nested")
LAYERS = {"nvfp4": NVFP4_LAYERS, "fp8": FP8_LAYERS, "none": None}
HF_MIXED = {"producer": {"name": "modelopt", "version": "0.29"},
            "quantization": {"quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": "FP8",
                             "quantized_layers": NVFP4_LAYERS}}
DIR_FILES: dict[str, dict[str, Any]] = {
    "none": {},
    "hf_mixed": {"hf_quant_config.json": HF_MIXED},
    "two": {"hf_quant_config.json": HF_MIXED, "x_hf_quant_config.json": HF_MIXED},
}
MIXED_FLAGS = (None, "modelopt", "modelopt_mixed", "modelopt_fp4", "mxfp8", "w4afp8")
MIXED_GPUS = (("H100", 90), ("B200", 100))


def mixed_layout(shape: str, layers: str, extra: str) -> dict[str, Any]:
    """config.json's quantization_config: MIXED_PRECISION with the drawn keys."""
    inner: dict[str, Any] = {"quant_algo": "MIXED_PRECISION", **EXTRAS[extra]}
    if LAYERS[layers] is not None:
        inner["quantized_layers"] = LAYERS[layers]
    if shape == "modelopt":
        return {"quant_method": "modelopt", **inner}
    if shape == "nested":
        return {"quantization": inner}
    return inner


@functools.cache
def mixed_dir(shape: str, layers: str, extra: str, files: str) -> str:
    root = llama_dir("graphfit-quant-mixed-", mixed_layout(shape, layers, extra))
    for name, body in DIR_FILES[files].items():
        (Path(root) / name).write_text(json.dumps(body))
    return root


def _judge(where: str, theirs: co.Answer, code: int, said: str) -> tuple[str, str | None]:
    """(SGLang's verdict on the search, a disagreement or None)."""
    if CANNOT in theirs.said or SEVERAL in theirs.said:
        site = "weight_utils.py:" + ("288-298, 382-389" if CANNOT in theirs.said
                                     and "lacks quantized_layers" in said else
                                     "382-389" if CANNOT in theirs.said else "390-394")
        verdict = "cannot" if CANNOT in theirs.said else "several"
        if code != 2 or site not in said:
            return verdict, f"{where}: SGLang {theirs.said[:80]}; graphfit {code} {said}"
        return verdict, None
    if "weight_utils.py:" in said:
        return "other", f"{where}: SGLang {theirs.stage} {theirs.said[:80]}; graphfit {said}"
    return "other", None


def compare_mixed(flag: str | None, shape: str, layers: str, extra: str, files: str,
                  gpu: str, cap: int) -> tuple[str, str | None]:
    """One fall-through line: the pasted line against SGLang's loader."""
    folder = mixed_dir(shape, layers, extra, files)
    theirs = co.load(flag, mixed_layout(shape, layers, extra), cap, folder)
    code, said = planned(folder, () if flag is None else ("--quantization", flag), gpu)
    return _judge(f"--quantization {flag} on {shape}/{layers}/{extra} + {files} on {gpu}",
                  theirs, code, said)


def mixed_lines(count: int | None = None, seed: int = 0
                ) -> list[tuple[str | None, str, str, str, str, str, int]]:
    """Every (flag, shape, layers, extra, files, gpu, cap) line, or `count` drawn ones."""
    grid = [(f, s, la, e, d, g, c) for f, s, la, e, d, (g, c) in itertools.product(
        MIXED_FLAGS, SHAPES, LAYERS, EXTRAS, DIR_FILES, MIXED_GPUS)]
    return grid if count is None else random.Random(seed).sample(grid, min(count, len(grid)))


def planned_file(model: str, flag: str, *, own_flag: bool) -> tuple[int, str]:
    """graphfit's (exit code, last error line) on `graphfit plan --config FILE`, the file
    holding `engine: sglang`, `quantization` and (unless `own_flag`: graphfit's
    `--model-path` names the model instead) `model_path`."""
    body = {"engine": "sglang", "quantization": flag}
    if not own_flag:
        body["model_path"] = model
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as handle:
        handle.write(json.dumps(body))  # JSON is YAML
    args = ["plan", "--gpu-memory-gb", "H100", "--config", handle.name]
    code, _, output = sc.run_graphfit([*args, "--model-path", model] if own_flag else args)
    Path(handle.name).unlink()
    errors = [ln for ln in output.splitlines() if ln.startswith("error:")]
    return code, (errors[-1] if errors else "")


def compare_file(flag: str, files: str, *, own_flag: bool = False) -> tuple[str, str | None]:
    """s45q's (flag, directory) line, read from a config file instead of a pasted line."""
    folder = s45q_dir(files)
    theirs = co.load(flag, None, 90, folder)
    code, said = planned_file(folder, flag, own_flag=own_flag)
    how = "graphfit's --model-path" if own_flag else "model_path"
    return _judge(f"config file ({how}) quantization {flag} with {files}", theirs, code, said)


FILE_FLAGS = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed", "awq",
              "awq_marlin", "gptq_marlin", "moe_wna16", "auto-round", "fp8", "petit_nvfp4")


def file_lines() -> list[tuple[str, str]]:
    """Every (flag, s45q directory) pair read from a config file."""
    return [(flag, files) for flag in FILE_FLAGS for files in S45Q_FILES]


# config.json quantization configs the restated config classes read (ModelOptFp8Config,
# ModelOptFp4Config, Fp8Config): readable ones and ones their from_config refuses
CLASS_LAYOUTS: dict[str, dict[str, Any]] = {
    "fp8_flat": {"quant_method": "modelopt", "quant_algo": "FP8"},
    "fp8_bare": {"quant_algo": "FP8"},
    "fp8_nested": {"quantization": {"quant_algo": "FP8"}},
    "int4_flat": {"quant_method": "modelopt", "quant_algo": "INT4_AWQ"},
    "int4_nested": {"quantization": {"quant_algo": "INT4_AWQ"}},
    "no_algo_nested": {"quantization": {"kv_cache_quant_algo": "FP8"}},
    "nvfp4_flat": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
    "nvfp4_nested": {"quantization": {"quant_algo": "NVFP4", "group_size": 16}},
    "nvfp4_nested_no_group": {"quantization": {"quant_algo": "NVFP4"}},
    "nvfp4_two_groups": {"quantization": {"quant_algo": "NVFP4", "group_size": 16},
                         "group_size": 32},
    "nvfp4_groups": {"quant_algo": "NVFP4_AWQ", "config_groups": {
        "g0": {"weights": {"group_size": 32}}}},
    "w4a16": {"quant_method": "modelopt", "quant_algo": "W4A16_NVFP4", "group_size": 16},
    "mxfp8_upper": {"quant_method": "modelopt", "quant_algo": "MXFP8"},
    "mxfp8_lower": {"quant_algo": "mxfp8"},
    # modelopt without a flag, mxfp8 once an override copies it: graphfit notes it unchecked
    "mxfp8_lower_modelopt": {"quant_method": "modelopt", "quant_algo": "mxfp8",
                             "activation_scheme": "dynamic"},
    "mxfp8_scheme": {"quant_method": "mxfp8", "activation_scheme": "dynamic"},
    "fp8_native": {"quant_method": "fp8", "activation_scheme": "dynamic"},
    "fp8_no_scheme": {"quant_method": "fp8"},
}
CLASS_FLAGS = (None, "modelopt", "modelopt_fp8", "modelopt_fp4", "fp8", "mxfp8")
CLASS_METHODS = ("modelopt", "modelopt_fp8", "modelopt_fp4", "fp8", "mxfp8")
CLASS_SITES = ("modelopt_quant.py:", "fp8.py:346-350")


@functools.cache
def class_dir(layout: str) -> str:
    return llama_dir("graphfit-quant-class-", CLASS_LAYOUTS[layout])


def compare_class(flag: str | None, layout: str) -> tuple[str, str | None]:
    """(verdict, a disagreement or None) on a B200, where every method's GPU bar is met:
    "class" where the config class SGLang's loader builds refuses the checkpoint's config
    (graphfit must refuse citing it), "built" where the loader gets past it (graphfit must
    not cite it), "other" where SGLang stops earlier (argument checks, ModelConfig: other
    oracles' ground), "unchecked" where graphfit notes that a model override's copy decides
    the method (on this Llama directory SGLang's loader builds ModelConfig's own)."""
    theirs = co.load(flag, CLASS_LAYOUTS[layout], 100, class_dir(layout))
    quant = () if flag is None else ("--quantization", flag)
    code, said, output = sc.pasted_plan(("python", "-m", "sglang.launch_server",
                                         "--model-path", class_dir(layout), *quant), "B200")
    where = f"--quantization {flag} on {layout} (B200)"
    cited = any(site in said for site in CLASS_SITES)
    if code == 0 and "builds is not checked" in output:
        return "unchecked", None  # graphfit says so: the override's copy decides
    if theirs.stage == "before" and theirs.method in CLASS_METHODS:
        if code != 2 or not cited:
            return "class", f"{where}: SGLang {theirs.said[:90]}; graphfit {code} {said}"
        return "class", None
    if theirs.stage in ("passed", "capability", "none"):
        if cited:
            return "built", f"{where}: SGLang builds {theirs.method}; graphfit {said}"
        return "built", None
    return "other", None


def class_lines() -> list[tuple[str | None, str]]:
    return [(flag, layout) for flag in CLASS_FLAGS for layout in CLASS_LAYOUTS]


# hf_quant_config.json bodies for the loader's ModelOpt branch (weight_utils.py:396-438), on
# a directory whose config.json declares no quantization: producer, quant_algo (nested or
# flat, present or not), and the keys the ModelOpt classes read
_MO = {"name": "modelopt", "version": "0.29"}
HF_FILES: dict[str, dict[str, Any]] = {
    "no_algo": {"producer": _MO, "quantization": {"kv_cache_quant_algo": "FP8"}},
    "no_algo_flat": {"producer": _MO, "exclude_modules": []},
    "fp8": {"producer": _MO, "quantization": {"quant_algo": "FP8"}},
    "fp8_flat": {"producer": _MO, "quant_algo": "FP8"},
    "nvfp4": {"producer": _MO, "quantization": {"quant_algo": "NVFP4", "group_size": 16,
                                                "exclude_modules": ["lm_head"]}},
    "nvfp4_no_group": {"producer": _MO, "quantization": {"quant_algo": "NVFP4"}},
    "nvfp4_flat": {"producer": _MO, "quant_algo": "NVFP4", "ignore": ["lm_head"]},
    "int4": {"producer": _MO, "quantization": {"quant_algo": "INT4_AWQ"}},
    "w4a16": {"producer": _MO, "quantization": {"quant_algo": "W4A16_NVFP4", "group_size": 16}},
    "other_producer": {"producer": {"name": "other"}, "quantization": {"quant_algo": "FP8"}},
    "other_no_algo": {"producer": {"name": "other"}, "quantization": {}},
    "no_producer_fp4": {"quantization": {"quant_algo": "NVFP4", "group_size": 16}},
}
HF_FLAGS = (None, "modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")
HF_ARCHS = ("LlamaForCausalLM", "LlamaForCausalLMEagle3")
# the methods whose ModelOpt classes graphfit restates (ModelOptFp8Config, ModelOptFp4Config,
# and since s50q ModelOptMixedPrecisionConfig: graphfit.inputs.sglang_quant_weight_classes)
HF_CLASS_METHODS = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")
HF_SITES = ("weight_utils.py:414-425", "modelopt_quant.py:")


@functools.cache
def hf_dir(body: str, architecture: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="graphfit-quant-hf-"))
    (root / "config.json").write_text(json.dumps({**_LLAMA, "architectures": [architecture]}))
    (root / "hf_quant_config.json").write_text(json.dumps(HF_FILES[body]))
    return str(root)


def compare_hf(flag: str | None, body: str, architecture: str) -> tuple[str, str | None]:
    """(verdict, a disagreement or None) on a B200 for one directory holding a single
    hf_quant_config.json: "invalid" where SGLang's loader refuses the quant_config (graphfit
    must refuse citing weight_utils.py:414-425), "class" where a ModelOpt config class it
    builds from the file refuses it (graphfit must refuse citing modelopt_quant.py), "built"
    where the loader gets past it (graphfit must cite neither), "other" where SGLang stops
    elsewhere (other oracles' ground, or a class graphfit does not restate)."""
    folder = hf_dir(body, architecture)
    theirs = co.load(flag, None, 100, folder, architecture=architecture)
    quant = () if flag is None else ("--quantization", flag)
    code, said = planned(folder, quant, "B200")
    where = f"--quantization {flag} on {body} ({architecture}, B200)"
    cited = [site for site in HF_SITES if site in said]
    if theirs.stage == "before" and "Invalid quant_config" in theirs.said:
        ok = code == 2 and cited == [HF_SITES[0]]
        return "invalid", None if ok else f"{where}: SGLang {theirs.said[:80]}; graphfit {said}"
    if theirs.stage == "before" and theirs.method in HF_CLASS_METHODS \
            and "Error" not in theirs.said.split(":")[0]:
        ok = code == 2 and cited == [HF_SITES[1]]
        return "class", None if ok else f"{where}: SGLang {theirs.said[:80]}; graphfit {said}"
    if theirs.stage in ("passed", "capability", "none"):
        return "built", f"{where}: SGLang builds {theirs.method}; graphfit {said}" if cited \
            else None
    if cited:
        return "other", f"{where}: SGLang {theirs.stage} {theirs.said[:80]}; graphfit {said}"
    return "other", None


def hf_lines() -> list[tuple[str | None, str, str]]:
    """Every (flag, file body, architecture) line."""
    return list(itertools.product(HF_FLAGS, HF_FILES, HF_ARCHS))
