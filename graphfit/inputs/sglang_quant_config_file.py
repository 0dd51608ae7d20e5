"""SGLang 0.5.23's search for a quantization config file when the checkpoint's config.json
declares none: `get_quant_config` (model_loader/weight_utils.py:269-425).

With no quantization_config in config.json (nor in its text_config), and no
compression_config (`resolve_checkpoint_quant_spec`, model_loader/checkpoint_quantization.py:
53-98), the loader looks in the model directory. If the method's config class names files
(`get_config_filenames`), it globs the directory's *.json for names ending in one of them
(weight_utils.py:342-380). It refuses when none match ("Cannot find the config file for X",
:382-389; modelopt_fp4 quantizes online instead, :383-388) and when more than one does
(:390-394). So `--quantization modelopt_fp8` on a local checkpoint without
hf_quant_config.json does not start.

A `modelopt_mixed` checkpoint whose config.json config lacks `quantized_layers`, or both
`kv_cache_quant_algo` and `kv_cache_scheme`, falls through to the same search (:288-298): it
needs a hf_quant_config.json beside it. A complete config.json config is handed to the
method's config class instead (:298-311); ModelOptFp8Config's, ModelOptFp4Config's and
Fp8Config's `from_config` refusals are checked too (graphfit.inputs.sglang_quant_classes).

Why in inputs: the answer hangs on the model directory's file names, which only the reader
sees. The model is a pasted line's `--model-path` (`check_model`), or a config file's
`model_path` / graphfit's own `--model-path` with the file's `quantization` (`check_file`). A
hub id is not looked up (SGLang downloads its *.json, :327-340): `check_model` says so in a
note. Nor is a model named by its config.json file (no directory to search).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs import sglang_quant_auto_round_layers as auto_round_layers
from graphfit.inputs import sglang_quant_class_gpu as class_gpu
from graphfit.inputs import sglang_quant_classes as classes
from graphfit.inputs import sglang_quant_gptq_dynamic as gptq_dynamic
from graphfit.inputs import sglang_quant_quark_requant as quark_requant
from graphfit.inputs import sglang_quant_sm100_copy as sm100_copy
from graphfit.inputs.model_config import looks_local
from graphfit.inputs.sglang_minimax_quant import served_as_nvfp4
from graphfit.inputs.sglang_quant_files import checkpoint_quant
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.errors import ConfigError, brief
from graphfit.planner.engines.sglang_quantization import (
    RUNNER_QUANT,
    UNQUANT,
    check_clash,
    checkpoint_method,
    copy_refusal,
    kernel_runner,
)

_Q = "layers/quantization/"
# each method's config class's get_config_filenames, where it has any (the others: [], no
# file needed; mxfp8 / quark_mxfp4 / gguf / bitsandbytes build without one,
# weight_utils.py:276-278, 326-366)
CONFIG_FILES: dict[str, tuple[tuple[str, ...], str]] = {
    "modelopt": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "modelopt_fp8": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "modelopt_mixed": (("hf_quant_config.json",), _Q + "modelopt_quant.py:358-360"),
    "petit_nvfp4": (("hf_quant_config.json",), _Q + "petit.py:66-68"),
    "awq": (("quant_config.json", "quantize_config.json"), _Q + "awq/awq.py:118-124"),
    "awq_marlin": (("quantize_config.json",), _Q + "awq/awq.py:310-312"),
    "gptq_marlin": (("quantize_config.json",), _Q + "gptq/gptq.py:389-391"),
    "moe_wna16": (("quantize_config.json",), _Q + "moe_wna16.py:129-131"),
    "auto-round": (("quantization_config.json",), _Q + "auto_round.py:134-136"),
    "modelslim": (("quant_model_description.json",), _Q + "modelslim/modelslim.py:250-252"),
}
WHERE = "model_loader/weight_utils.py"
# methods whose config class names no file and cannot be built without a config: with none in
# config.json the loader calls `quant_cls()` (weight_utils.py:346-375), which fails for these
# (a target's since issue 23 s63c, a draft's since s50r: graphfit.inputs.sglang_draft_quant)
ARGLESS_REFUSED: dict[str, tuple[str, str]] = {
    "compressed-tensors": ("CompressedTensorsConfig() lacks 5 required arguments",
                           "compressed_tensors.py:118"),
    "quark": ("QuarkConfig(): Either quant_config or online_scheme must be provided",
              "quark.py:348"),
}
# the architecture SGLang lets through with no quant_algo (weight_utils.py:420)
EAGLE3_LLAMA = "LlamaForCausalLMEagle3"


def declares_quantization(data: Mapping[str, Any]) -> bool:
    """`_select_hf_quant_metadata` (checkpoint_quantization.py:53-74) finds a config:
    quantization_config, text_config.quantization_config or compression_config."""
    text = data.get("text_config")
    return (data.get("quantization_config") is not None
            or (isinstance(text, Mapping) and text.get("quantization_config") is not None)
            or data.get("compression_config") is not None)


def declared_config(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The config `resolve_checkpoint_quant_spec` takes (checkpoint_quantization.py:53-98):
    quantization_config, else text_config.quantization_config, else compression_config;
    None when none is a mapping (SGLang's `_as_config_mapping` fails on anything else,
    earlier, in ModelConfig)."""
    text = data.get("text_config")
    for value in (data.get("quantization_config"),
                  text.get("quantization_config") if isinstance(text, Mapping) else None,
                  data.get("compression_config")):
        if value is not None:
            return value if isinstance(value, Mapping) else None
    return None


def mixed_incomplete(method: str | None, spec: Mapping[str, Any]) -> bool:
    """`modelopt_mixed_config_incomplete` (weight_utils.py:288-298): for modelopt_mixed, the
    checkpoint's own config lacks the per-layer map or any KV-cache key, so the loader
    searches the directory for hf_quant_config.json instead of building from it."""
    return method == "modelopt_mixed" and (
        "quantized_layers" not in spec
        or ("kv_cache_quant_algo" not in spec and "kv_cache_scheme" not in spec))


def _class_check(method: str, cfg: Mapping[str, Any] | None, built: Mapping[str, Any]
                 ) -> list[str]:
    """The class check on ModelConfig's method, and on the method the worker's ModelConfig
    verifies when a model override copies it into the flag (HYV4 / DeepSeek on SM100,
    Nemotron-H...: graphfit.planner.engines.sglang_model_quant). A ModelOpt config naming
    "mxfp8" in lower case is modelopt without a flag and mxfp8 with `--quantization
    modelopt`. Refused where both refuse; where only one does, the answer hangs on the model
    class and the GPU, which the reader does not see: a note says it is not checked."""
    try:
        again = check_clash(method, None if cfg is None else checkpoint_method(cfg), cfg, None)
    except ConfigError:
        again = method
    first = classes.problem(method, built)
    second = first if again in (None, method) else classes.problem(str(again), built)
    if first is not None and second is not None:
        raise first
    if first is None and second is None:
        return []
    return [f"--quantization {method}: the config class SGLang's loader builds is not checked: "
            f"a model override's copy would make it {again} "
            f"({'refused' if second else 'built'} then), else {method} "
            f"({'refused' if first else 'built'}; model_loader/weight_utils.py:298-311)"]


def args_refuse_first(flag: object, line: Mapping[str, Any] | None) -> bool:
    """Whether SGLang's server arguments refuse the line's given `--quantization flag` beside
    its given `--moe-runner-backend` (a FlashInfer runner's assert, arg_groups/moe_hook.py:
    80-147, e.g. flashinfer_trtllm's :123-135; mxfp8's runner swap first, overrides.py:
    1500-1512) -- in `check_server_args`, before any ModelConfig or loader runs (issue 23
    s68r). The loader's rules here then never speak: the planner gives that refusal
    (graphfit.planner.engines.sglang_quantization.check_runner). Before s68r a found
    quantize_config.json's layer refusal was named first."""
    if line is None or not isinstance(flag, str):
        return False
    runner = line.get("moe_runner_backend")
    if not isinstance(runner, str):
        return False
    allowed = RUNNER_QUANT.get(kernel_runner(runner.strip().lower(), flag))
    return allowed is not None and flag not in allowed


def check(flag: object, model: str, data: Mapping[str, Any], capability: int | None = None,
          *, gpu_later: bool = False, unquant: bool = False,
          line: Mapping[str, Any] | None = None) -> list[str]:
    """Refuse `--quantization flag` (None: not given) as SGLang's loader does on a local
    model directory `model` whose config.json (`data`) declares no quantization, or an
    incomplete modelopt_mixed one. The method is the one `_verify_quantization` leaves
    (`check_clash` on the config it reads: config.json's, a local hf_quant_config.json or a
    ModelSlim description, graphfit.inputs.sglang_quant_files); a line it refuses, or whose
    answer hangs on the GPU, is that rule's, not this one's. `capability` / `gpu_later`: the
    GPU, for the found file's class (`file_class_check`). `unquant`: the line's
    `--quantization unquant` (the flag is then None; it stops the SM100 copy, issue 23
    s67q). `line`: the line's SGLang flags where known (s67q: GPTQ `dynamic` on DeepSeek's
    shared experts, whose fusion they decide). Returns notes (`_class_check`)."""
    folder = Path(model).expanduser()
    path = folder / "config.json"
    if not (flag is None or isinstance(flag, str)) or not folder.is_dir() \
            or args_refuse_first(flag, line):
        return []
    spec = declared_config(data)
    if declares_quantization(data) and spec is None:
        return []  # not a mapping: ModelConfig's reader refuses it first
    cfg, _ = checkpoint_quant(path, dict(data), folder)
    try:
        method = check_clash(flag, None if cfg is None else checkpoint_method(cfg), cfg, None)
    except ConfigError:
        _gpu_dependent_class_check(flag, cfg, spec, data, capability, gpu_later=gpu_later,
                                   unquant=unquant, line=line)
        return []
    if method is None:
        return []
    if method == "mxfp8" and flag is None and served_as_nvfp4(data):
        return []  # MiniMaxM3Nvfp4Config instead: graphfit.inputs.sglang_minimax_quant (s48q)
    if spec is not None and not mixed_incomplete(method, spec):
        # the loader builds the class from config.json's config, updated in place by
        # ModelConfig when it is the top-level one (model_config.py:1727-1741)
        top = data.get("quantization_config") is spec
        # issue 23 s66q: quark_mxfp4's requantization branch reads the source checkpoint's
        # config in QuarkConfig.from_config (quark/quark.py:537-615)
        quark_requant.check(method, classes.updated(spec) if top else spec)
        notes = _class_check(method, cfg, classes.updated(spec) if top else spec)
        gptq_dynamic.check(method, spec, data, line, capability)  # then the layers', at build
        auto_round_layers.check(method, spec, data, capability)  # s64q: AutoRound's layers
        return notes
    if spec is None and method in ARGLESS_REFUSED:
        text, cite = ARGLESS_REFUSED[method]
        raise ConfigError(f"--quantization {method}: no quantization config in config.json: "
                          f"{text} ({cite}, {WHERE}:375)")
    if method not in CONFIG_FILES and method != "modelopt_fp4":
        return []
    # modelopt_fp4's class names hf_quant_config.json too, but without one it quantizes
    # online (weight_utils.py:383-388): only the one-file and several-file cases apply
    names, cite = CONFIG_FILES.get(method, CONFIG_FILES["modelopt"])
    why = ("" if spec is None else
           "config.json's modelopt_mixed config lacks quantized_layers or a KV-cache key, ")
    found = sorted(p.name for p in folder.glob("*.json") if p.name.endswith(names))
    if not found and method == "modelopt_fp4":
        return []
    if not found:
        where = f"{WHERE}:288-298, 382-389" if spec is not None else f"{WHERE}:382-389"
        raise ConfigError(f"--quantization {method}: {why}SGLang cannot find the config file, "
                          f"no {' / '.join(names)} in the model directory "
                          f"({where}, {cite.removeprefix(_Q)})")
    if len(found) > 1:
        raise ConfigError(f"--quantization {method}: {why}SGLang finds several config files "
                          f"({', '.join(found)[:60]}) and refuses ({WHERE}:390-394)")
    arch = data.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    file_class_check(method, _read_json(folder / found[0]), first, found[0], capability,
                     gpu_later=gpu_later, data=data, line=line)
    return []


# the GPUs check_clash's answer may differ across (below / at AWQ's SM75, Marlin's SM80)
_CAPABILITIES = (70, 75, 80, 100)


def _gpu_dependent_class_check(flag: object, cfg: Mapping[str, Any] | None,
                               spec: Mapping[str, Any] | None,
                               data: Mapping[str, Any], capability: int | None = None, *,
                               gpu_later: bool = False, unquant: bool = False,
                               line: Mapping[str, Any] | None = None) -> None:
    """A line whose method hangs on the GPU (awq / gptq checkpoints under moe_wna16, Marlin,
    ...: check_clash refuses it for the unknown GPU): refused with the config class's
    reason when, on every GPU, ModelConfig refuses or the class built from config.json's
    own config does (sglang_quant_classes.problem); else left to the planner, which knows
    the GPU. With the GPU's `capability` known, that GPU's answer only: ModelConfig's
    refusal (the method SGLang would not pick there) comes before the class's. `gpu_later`:
    the GPU is known later (`check_gpu`), so a line whose reason differs across GPUs
    waits for it. On SM100 a class whose model override copies the checkpoint's method into
    an unset flag (issue 23 s67q, graphfit.inputs.sglang_quant_sm100_copy) is judged on the
    copied flag: SGLang's ModelConfig refuses a copied `gptq` before any layer is built."""
    if spec is not data.get("quantization_config") or not isinstance(spec, Mapping) or \
            not (flag is None or isinstance(flag, str)):
        return
    built = classes.updated(spec)
    found: list[ConfigError] = []
    reasons: set[str] = set()
    arch = data.get("architectures")
    first = arch[0] if isinstance(arch, list) and arch else None
    checkpoint = None if cfg is None else checkpoint_method(cfg)
    for assumed in _CAPABILITIES if capability is None else (capability,):
        try:
            copied = sm100_copy.flag_on(first, flag, unquant, checkpoint, assumed)
            settled = check_clash(flag, checkpoint, cfg, assumed) if copied is None \
                else copy_refusal(str(first), copied, checkpoint, cfg, assumed)
            if isinstance(settled, ConfigError):
                raise settled
            method = settled
        except ConfigError as exc:
            if capability is not None:
                raise
            reasons.add(str(exc))
            continue
        problem = None if method is None or mixed_incomplete(method, spec) \
            else quark_requant.problem(str(method), built) \
            or classes.problem(str(method), built) \
            or gptq_dynamic.problem(str(method), spec, data, line=line, capability=assumed) \
            or auto_round_layers.problem(str(method), spec, data, assumed)  # at model build
        if problem is None:
            return
        found.append(problem)
        reasons.add(str(problem))
    if found and not (gpu_later and len(reasons) > 1):
        raise found[-1]


def _read_json(path: Path) -> object:
    """The found file's JSON, or None where it is unreadable (SGLang's json.load fails:
    not this rule's to word)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def file_class_check(method: str, config: object, architecture: object, name: str,
                     capability: int | None = None, *, gpu_later: bool = False,
                     data: Mapping[str, Any] | None = None,
                     line: Mapping[str, Any] | None = None) -> None:
    """The class SGLang's loader builds from the one config file it found
    (weight_utils.py:396-438). A ModelOpt method on a file whose producer is ModelOpt
    (:414-416): a quant_algo (the nested `quantization` section's, else the top level's,
    `_modelopt_quant_section` :251-265) of None is "Invalid quant_config" unless the model
    is nvidia's Eagle3 Llama (:417-425, which then builds no class); "FP8", or any algo
    under modelopt_fp8, builds ModelOptFp8Config (:426-429); one containing "FP4" builds
    ModelOptFp4Config (:430-435). Anything else builds the method's own class (:436-438).
    The restated classes' refusals (graphfit.inputs.sglang_quant_classes) are checked on
    the file's dict; a file SGLang stops on with a TypeError / AttributeError is left to it.
    On a GPU of `capability` below a class's bar, its GPU-dependent refusal comes in their
    place (graphfit.inputs.sglang_quant_class_gpu); `gpu_later`: the GPU is not known yet
    (a pasted line read before graphfit's --gpu-memory-gb), so such a refusal waits for
    `check_gpu`. `data`: the model's config.json; with it, a class built without a refusal
    then meets GPTQ's per-layer `dynamic` overrides as the found file gives them
    (graphfit.inputs.sglang_quant_gptq_dynamic: the loader builds GPTQMarlinConfig from
    that file, weight_utils.py:396-438, and the model build asks it per layer)."""
    if not isinstance(config, dict):
        return
    cls_method = method
    producer = config.get("producer", {})
    name_of = producer.get("name", "") if isinstance(producer, dict) else None
    if method.startswith("modelopt") and isinstance(name_of, str) \
            and name_of.startswith("modelopt"):
        nested = config.get("quantization")
        algo = (nested if isinstance(nested, dict) else config).get("quant_algo")
        if algo is None:
            if architecture == EAGLE3_LLAMA:
                return
            raise ConfigError(f"--quantization {method}: {name} has no quant_algo: an invalid "
                              f"quant_config to SGLang's loader but on {EAGLE3_LLAMA} "
                              f"({WHERE}:414-425)")
        if algo == "FP8" or method == "modelopt_fp8":
            cls_method = "modelopt_fp8"
        elif isinstance(algo, str) and "FP4" in algo:
            cls_method = "modelopt_fp4"
        elif not isinstance(algo, str):
            return  # `"FP4" in algo` raises a TypeError in SGLang: left to it
    problem = classes.problem(cls_method, config)
    if gpu_later and class_gpu.depends_on_gpu(cls_method, config, problem):
        return
    problem = class_gpu.problem(cls_method, config, capability) or problem
    if problem is not None:
        raise ConfigError(str(problem).replace("config.json's", f"{name}'s")
                          .replace(f"--quantization {cls_method}:", f"--quantization {method}:")
                          [:200])
    if data is not None:  # then the layers' overrides, at model build
        layer = gptq_dynamic.problem(cls_method, config, data, name, line, capability) \
            or auto_round_layers.problem(cls_method, config, data, capability, name)
        if layer is not None:
            raise layer


def unchecked_note(flag: object, model: str, origin: str = "--quantization",
                   whose: str = "") -> list[str]:
    """The note for a hub-id model whose `--quantization` (`origin`: the flag's name, `whose`:
    said after the model, e.g. for a draft) names a config class that reads a file: SGLang
    downloads the repository's *.json (weight_utils.py:327-340) and searches them unless
    config.json declares a quantization; graphfit downloads nothing."""
    if not isinstance(flag, str) or flag not in CONFIG_FILES or looks_local(model):
        return []
    names, _ = CONFIG_FILES[flag]
    return [f"{origin} {flag}: the config file search on {brief(model)}{whose} is not checked "
            f"(a hub id, nothing downloaded): unless its config.json declares a quantization, "
            f"SGLang needs exactly one *.json ending {' / '.join(names)} "
            f"({WHERE}:342-394)"]


def check_model(flag: object, model: str, capability: int | None = None, *,
                gpu_later: bool = False, line: Mapping[str, Any] | None = None) -> list[str]:
    """`check` on a pasted line's `--model-path`: a local directory's config.json is read
    (graphfit.inputs.model_config.load_config); a hub id gets `unchecked_note`; anything
    else is left alone."""
    folder = Path(model).expanduser()
    path = model_config.config_path(model)
    if path is None or not folder.is_dir():
        return unchecked_note(flag, model) if path is None and not folder.exists() else []
    # `--quantization unquant` is resolved to none before any ModelConfig is built
    # (arg_groups/serving_hook.py:692-703): the checkpoint's own method then loads
    # (configs/model_config.py:2106-2107); only the overrides' copy is stopped (issue 23 s63c)
    unquant = isinstance(flag, str) and flag.lower() == UNQUANT
    return check(None if unquant else flag, model, model_config.load_config(path), capability,
                 gpu_later=gpu_later, unquant=unquant, line=line)


def check_gpu(flag: object, model: str | None, capability: object,
              line: Mapping[str, Any] | None = None) -> None:
    """The found file's class check again once a pasted line's GPU is known (`check_model`
    read the line with `gpu_later`): the refusals that hang on the GPU
    (graphfit.inputs.sglang_quant_class_gpu), or the SM80+ ones where the GPU is a figure
    in GiB. The notes were given the first time."""
    if model is None:
        return
    cap = capability if isinstance(capability, int) and not isinstance(capability, bool) \
        else None
    check_model(flag, model, cap, line=line)


def check_file(values: Mapping[str, Any], model_flag: object,
               file: Mapping[str, Any] | None) -> list[str]:
    """`check_model` for a plan without a pasted line: the model is graphfit's own
    `--model-path`, else the config file's `model_path`; the flag is the resolved
    `quantization` (SglangOptions.quant_method, from the file), None where the file names
    none (issue 23 s69g: the checkpoint's own method is then checked, as on a pasted line
    without the flag; before, such a file's checkpoint was not read here). The file's
    json_model_override_args apply to that model, as on a pasted line; its SGLang keys are
    the line these rules read (s69g: `moe_runner_backend` and the flags beside it, as a
    pasted line's flags, `check_model`'s `line`)."""
    engine = values.get("engine")
    if str(getattr(engine, "value", engine)) != "sglang":
        return []
    keys = {normalize_key(k): v for k, v in (file or {}).items() if isinstance(k, str)}
    model = model_flag if model_flag is not None else keys.get("model_path")
    if not isinstance(model, str):
        return []
    with target_overrides.applied(model_config.config_path(model),
                                  keys.get("json_model_override_args")):
        capability = values.get("gpu_capability")
        return check_model(values.get("quant_method"), model,
                           capability if isinstance(capability, int) else None, line=keys)


__all__ = ["CONFIG_FILES", "args_refuse_first", "check", "check_file", "check_gpu", "check_model",
           "declared_config", "declares_quantization", "file_class_check", "mixed_incomplete",
           "unchecked_note"]
