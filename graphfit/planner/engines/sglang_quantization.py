"""SGLang 0.5.23's quantization resolution for every line, restated where it decides whether
the server starts or which MoE runner it resolves.

Three steps, in SGLang's order:

1. `ModelConfig` parses the checkpoint's config.json `quantization_config`
   (`_parse_quant_hf_config`, configs/model_config.py:1727-1741): a ModelOpt config (no
   `quant_method`, or `modelopt`) becomes the method its `quant_algo` names
   (`_parse_modelopt_quant_config`, :1838-1897), written back into that dict in place.
   `checkpoint_method` restates it; graphfit.inputs.model_config reads it into
   SglangOptions.checkpoint_quant_method.
2. On an SM100 GPU, without `--quantization` (and not `--quantization unquant`,
   serving_hook.py:695-703), a model class's override copies that parsed method into
   `--quantization` (Qwen3-MoE family: model_overrides/qwen3_moe.py:38-50; GLM-4 MoE:
   glm4_moe.py:15-33), and so does the DeepSeek family's post-process (arg_groups/
   overrides.py:763-797); Nemotron-H copies a ModelOpt ModelConfig quantization on any GPU
   (nemotron_h.py:31-55); DeepSeek-V2 / V4, Beam, Kimi K3 and Qwen2-MoE keep the flag.
   `resolved_flag` restates it (graphfit.planner.engines.sglang_model_quant); `flag_known`
   is false where SGLang reads the weights or the class is not restated.
3. `ModelConfig._verify_quantization` (model_config.py:2000-2160) refuses a `--quantization`
   that clashes with the checkpoint's method for every backend (`check_clash`):
   first each method's `override_quantization_method` may replace the flag (ModelOpt FP8 /
   FP4: the checkpoint's own method unless the flag is nvfp4_online,
   layers/quantization/base_config.py:223-253; ModelOpt mixed: always, modelopt_quant.py:
   829-835; the loop: model_config.py:2093-2104); then a different flag must be listed as
   compatible (:2042-2055, 2108-2118) or be an online requantization (quark_mxfp4, :545,
   2138-2141), else SGLang refuses (:2142-2148). The resulting method must be one SGLang
   knows (:2150-2155; layers/quantization/__init__.py:63-104).

Then `_moe_runner_backend_quant_constraints` (arg_groups/overrides.py:1449-1526) and
`handle_moe_kernel_config` (moe_hook.py:70-147) check the resolved flag against the MoE runner
for every all-to-all backend (`check_runner`). Last, the model loader refuses a GPU below the
final method's config class's minimum capability (`loader_method`,
graphfit.planner.engines.sglang_quant_capability; model_loader/loader.py:253-262).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_class_picks as picks
from graphfit.planner.engines import sglang_eplb_checks as eplb_checks
from graphfit.planner.engines import sglang_model_quant as smq
from graphfit.planner.engines import sglang_nvfp4_moe as nvfp4_moe
from graphfit.planner.engines import sglang_quant_capability as capability
from graphfit.planner.engines import sglang_quant_dtype as loader_dtype
from graphfit.planner.engines import sglang_quant_overrides as overrides

# the classes whose SM100 override copies the checkpoint's method into --quantization
# (model_overrides/qwen3_moe.py:30-50, glm4_moe.py:15-33, arg_groups/overrides.py:763-797)
# and those with no override that sets it (sglang_model_quant.KEEPS); Nemotron-H's copy
# does not depend on the GPU (sglang_model_quant.NEMOTRON_H)
DERIVING_ARCHS = frozenset(arch for arch, kind in smq.KIND.items()
                           if kind in ("sm100_copy", "deepseek_sm100_copy"))
KEEPING_ARCHS = frozenset(smq.KEEPS)
# CUDA's QUANTIZATION_METHODS (layers/quantization/__init__.py:63-104)
KNOWN_METHODS = frozenset({
    "fp8", "mxfp8", "minimax_m3_nvfp4", "blockwise_int8", "modelopt", "modelopt_fp8",
    "modelopt_fp4", "nvfp4_online", "modelopt_mixed", "w8a8_int8", "w8a8_fp8", "awq",
    "awq_marlin", "bitsandbytes", "gguf", "gptq_marlin", "moe_wna16", "compressed-tensors",
    "w4afp8", "petit_nvfp4", "quark", "quark_mxfp4", "auto-round", "auto-round-int8",
    "modelslim", "quark_int4fp8_moe", "humming", "mxfp_w4a8", "mxfp4",
})
# _verify_quantization's compatible_quantization_methods (model_config.py:2042-2055)
COMPATIBLE: dict[str, tuple[str, ...]] = {
    "modelopt_fp8": ("modelopt",), "modelopt_fp4": ("modelopt", "fp8"),
    "modelopt_mixed": ("modelopt",), "nvfp4_online": ("fp8", "modelopt_fp8"),
    "minimax_m3_nvfp4": ("mxfp8",), "petit_nvfp4": ("modelopt",),
    "w8a8_int8": ("compressed-tensors", "compressed_tensors"),
    "w8a8_fp8": ("compressed-tensors", "compressed_tensors"),
    "auto-round-int8": ("compressed-tensors", "compressed_tensors"),
}
REQUANTIZATION = overrides.REQUANTIZATION  # model_config.py:545
UNQUANT = "unquant"  # the explicit opt-out (serving_hook.py:692-703)
# with only the checkpoint's method known (no config), the flags whose answer on an awq /
# gptq checkpoint hangs on its bits (awq/awq.py:333-350, gptq/gptq.py:414-440,
# moe_wna16.py:164-185), and the methods a generic modelopt flag resolves without its
# quant_algo (base_config.py:241-253, modelopt_quant.py:829-835)
# (an awq checkpoint without a flag starts either way, as awq or awq_marlin)
MARLIN_FLAGS: dict[str, tuple[str | None, ...]] = {
    "awq": ("marlin", "awq_marlin", "moe_wna16"),
    "gptq": (None, "marlin", "gptq_marlin", "moe_wna16")}
MODELOPT_KNOWN = ("modelopt_fp8", "modelopt_fp4", "modelopt_mixed", "w4afp8")
# each FlashInfer runner's resolved --quantization values (moe_hook.py:80-147; None: bf16)
RUNNER_QUANT: dict[str, tuple[str | None, ...]] = {
    "flashinfer_cutlass": ("modelopt_fp4", "modelopt_fp8", "modelopt_mixed", None),
    "flashinfer_cutedsl": ("modelopt_fp4", "modelopt_mixed", "nvfp4_online"),
    "flashinfer_trtllm": ("modelopt_fp4", "nvfp4_online", "fp8", "mxfp8", "modelopt_fp8",
                          "modelopt_mixed", "compressed-tensors", None),
    "flashinfer_trtllm_routed": ("fp8", "mxfp8", "modelopt_fp4", "modelopt_mixed",
                                 "nvfp4_online", "minimax_m3_nvfp4", None),
}


def _modelopt_method(config: Mapping[str, Any]) -> str | None:
    """`_parse_modelopt_quant_config` (model_config.py:1838-1897) on a config.json
    quantization_config (unwrapped as unwrap_modelopt_quantization_config, :116-121)."""
    inner = config.get("quantization", config)
    if not isinstance(inner, Mapping):
        return None
    nested = inner.get("quantization")
    inner = nested if isinstance(nested, Mapping) else inner
    algo = inner.get("quant_algo")
    if not algo:
        return None
    algo = str(algo)
    if algo == "MIXED_PRECISION":
        layers = inner.get("quantized_layers") or {}
        nvfp4 = isinstance(layers, Mapping) and any(
            str(info.get("quant_algo", "")).upper() in ("NVFP4", "W4A16_NVFP4")
            for info in layers.values() if isinstance(info, Mapping))
        return "modelopt_mixed" if nvfp4 else "w4afp8"
    if "FP4" in algo:  # "NVFP4" contains it
        return "modelopt_fp4"
    if algo == "FP8":
        return "modelopt_fp8"
    if algo == "MXFP8":
        return "mxfp8"
    return None


def parsed_quantization_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """config.json's `quantization_config` after `_parse_quant_hf_config` (model_config.py:
    1727-1741): a ModelOpt config (no `quant_method`, or `modelopt`) gets the method and
    quant_algo its `quant_algo` names written over it (:1740-1741)."""
    out = dict(config)
    method = out.get("quant_method")
    if "quant_method" not in out or method == "modelopt":
        parsed = _modelopt_method(out)
        if parsed is not None:
            out.update(quant_method=parsed, quant_algo=_algo(out))
    return out


def _algo(config: Mapping[str, Any]) -> object:
    inner = config.get("quantization", config)
    nested = inner.get("quantization") if isinstance(inner, Mapping) else None
    inner = nested if isinstance(nested, Mapping) else inner
    return inner.get("quant_algo") if isinstance(inner, Mapping) else None


def hf_quant_config_file(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The config `_parse_quant_hf_config` takes from a local `hf_quant_config.json`
    (model_config.py:1814-1822): `_parse_modelopt_quant_config`'s answer, the method and
    quant_algo only (None: an algorithm it does not name, so no quantization). MXFP8's extra
    fields (:1879-1895) are not kept: no rule graphfit restates reads them."""
    method = _modelopt_method(data)
    return None if method is None else {"quant_method": method, "quant_algo": _algo(data)}


def effective_config(quantization_config: Mapping[str, Any] | None,
                     compression_config: Mapping[str, Any] | None = None,
                     hf_quant_config: Mapping[str, Any] | None = None,
                     modelslim: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The one config `_verify_quantization` reads (model_config.py:2060-2071): a ModelSlim
    `quant_model_description.json` (its own keys plus quant_method modelslim, :1824-1836)
    wins; else config.json's `quantization_config` (parsed), else its `compression_config`
    (compressed-tensors' old key, :1743-1745), else a local `hf_quant_config.json`
    (:1746-1822); each later file is read only when the earlier ones are absent."""
    if modelslim is not None:
        return {**modelslim, "quant_method": "modelslim"}
    if quantization_config is not None:
        return parsed_quantization_config(quantization_config)
    if compression_config is not None:
        return dict(compression_config)
    return hf_quant_config_file(hf_quant_config) if hf_quant_config is not None else None


def checkpoint_method(config: Mapping[str, Any]) -> str | None:
    """The `quant_method` of config.json's `quantization_config` after
    `_parse_quant_hf_config` (model_config.py:1727-1741): a ModelOpt config's method from its
    quant_algo, else `quant_method` with its case as written (what `get_quantization_config`
    hands the model overrides' SM100 copy, utils/common.py:3849-3854; `_verify_quantization`
    lower-cases it, :2076-2078). None: no quant_method and no ModelOpt quant_algo."""
    method = parsed_quantization_config(config).get("quant_method")
    return method if isinstance(method, str) else None


def _refuse(why: str) -> ConfigError:
    return ConfigError(f"--quantization: {why}")


def _flag(config: EngineSettings) -> str | None:
    """`--quantization` as the pipeline first resolves it: unquant is none, and opts out of
    the model overrides' copy (serving_hook.py:692-703)."""
    return None if config.quant_method == UNQUANT else config.quant_method


def _verify(config: EngineSettings) -> str | None:
    """check_clash on the line's flag, checkpoint config and GPU."""
    return check_clash(_flag(config), config.checkpoint_quant_method,
                       overrides.quant_config(config.checkpoint_quant_config),
                       config.gpu_capability)


def verified_quant(config: EngineSettings) -> str | None:
    """The ModelConfig's quantization (`check_clash` on the given flag), None where SGLang
    refuses (`check` says so itself)."""
    try:
        return _verify(config)
    except ConfigError:
        return None


def _after_overrides(config: EngineSettings) -> tuple[bool, str | None]:
    """(known, flag) after the class's model override (sglang_model_quant restates each
    class: Qwen3-MoE / GLM-4 MoE and the DeepSeek family copy on SM100, Nemotron-H copies a
    ModelOpt ModelConfig quantization on any GPU, the others keep the flag; MiniMax-M3
    copies config.json's method on any GPU, `_minimax_flag`)."""
    known, flag = smq.flag_after_overrides(
        config.architecture, _flag(config), config.quant_method == UNQUANT,
        verified_quant(config),
        config.checkpoint_quant_method, config.sm100, config.checkpoint_fp8_experts,
        hf_quant=hf_config_quant(config))
    if flag == "minimax_m3_nvfp4":
        return known, flag
    copied = _minimax_flag(config)
    return (known, flag) if copied is None else copied


def _minimax_flag(config: EngineSettings) -> tuple[bool, str | None] | None:
    """MiniMax-M3's hook on an unset flag (no opt-out), on any GPU: it copies the
    `quant_method` of config.json's `quantization_config` as ModelConfig parsed it
    (`_resolve_quant_method`, arg_groups/model_overrides/minimax_m3.py:18-34, 46-53;
    `get_quantization_config`, utils/common.py:3849-3854), nothing without one; None: not
    a MiniMax-M3 line with an unset flag, or config.json's config not known (issue 23
    s64m: the MoE runner rules see the copy)."""
    if config.architecture not in smq.MINIMAX_M3 or _flag(config) is not None \
            or config.quant_method == UNQUANT:
        return None
    hf = hf_config_quant(config)
    if hf == picks.ABSENT:
        return True, None
    if not isinstance(hf, Mapping):
        return None
    return True, checkpoint_method(hf)


def hf_config_quant(config: EngineSettings) -> Mapping[str, Any] | str | None:
    """The dict the model overrides read as hf_config.quantization_config
    (SglangOptions.hf_config_quant; sglang_class_picks): config.json's, "absent", or
    -- not read -- the line's checkpoint config standing in for it."""
    text = config.hf_config_quant
    if text == picks.ABSENT:
        return picks.ABSENT
    return picks.hf_dict(overrides.quant_config(text),
                         overrides.quant_config(config.checkpoint_quant_config))


def _remap(config: EngineSettings) -> bool:
    return picks.expert_remap(config.enable_eplb, config.ep_num_redundant_experts,
                              config.init_expert_location)


def flag_known(config: EngineSettings) -> bool:
    """Whether graphfit knows the `--quantization` SGLang's arguments carry after the model
    overrides (graphfit.planner.engines.sglang_model_quant.flag_after_overrides)."""
    return _after_overrides(config)[0]


def resolved_flag(config: EngineSettings) -> str | None:
    """server_args.quantization after the model overrides (step 2 above); the caller checks
    `flag_known` first."""
    return _after_overrides(config)[1]


def _missing_keys(method: str, flag: str | None) -> tuple[str, str] | None:
    """(the quantization-config keys, where SGLang reads them) an override needs beyond the
    method for this flag; None where the method alone decides. awq under marlin / awq_marlin:
    bits, group_size, zero_point (awq/awq.py:332-355, 402-424); gptq without a flag or under
    marlin / gptq_marlin: bits, group_size, sym, desc_act, checkpoint_format (gptq/gptq.py:
    44-49, 413-481); either under moe_wna16: bits (and desc_act for gptq, moe_wna16.py:
    168-185); a generic modelopt flag: quant_algo, whatever the method
    (base_config.py:238-244)."""
    if flag == "modelopt":  # its quant_algo wins over any method (base_config.py:240-244)
        return "quant_algo", "layers/quantization/base_config.py:238-244"
    if flag not in MARLIN_FLAGS.get(method, ()):
        return None
    if flag == "moe_wna16":
        keys = "bits" if method == "awq" else "bits, desc_act"
        return keys, "layers/quantization/moe_wna16.py:168-185"
    if method == "awq":
        return "bits, group_size, zero_point", "awq/awq.py:332-355, 402-424"
    return "bits, group_size, sym, desc_act, checkpoint_format", "gptq/gptq.py:44-49, 413-481"


def check_clash(flag: str | None, method: str | None,
                cfg: Mapping[str, Any] | None = None, capability: int | None = None
                ) -> str | None:
    """`_verify_quantization` for the target model (step 3 above,
    sglang_quant_overrides.verify): the ModelConfig's quantization, or ConfigError where
    SGLang refuses. `cfg`: the checkpoint's quantization config as SGLang reads it
    (`effective_config`); without it only `method` is known (a `--config` file's
    checkpoint_quant_method), and where an override reads more of it (`_missing_keys`) the
    line is refused asking for those keys. `capability`: the GPU's (80: SM80), None unknown."""
    if cfg is None and method is not None:
        lowered = method.lower()
        missing = _missing_keys(lowered, flag)
        if missing is not None:
            keys, cite = missing
            raise _refuse(f"{flag or 'no flag'} on a {excerpt(method)} checkpoint: SGLang "
                          f"decides on its {keys} ({cite}): give checkpoint_quant_config "
                          f"with them")
        cfg = {"quant_method": method}
    if capability is not None:
        return overrides.verify(flag, cfg, capability, COMPATIBLE, KNOWN_METHODS)
    # an unknown GPU: one answer on each side of the capabilities the overrides compare
    # (SM75 for AWQ under moe_wna16, SM80 for Marlin)
    answers: list[str | ConfigError | None] = []
    for assumed in (70, overrides.AWQ_MIN_CAPABILITY, overrides.MARLIN_MIN_CAPABILITY):
        try:
            answers.append(overrides.verify(flag, cfg, assumed, COMPATIBLE, KNOWN_METHODS))
        except ConfigError as exc:
            answers.append(exc)
    refusals = [a for a in answers if isinstance(a, ConfigError)]
    if len(refusals) == len(answers):
        raise refusals[-1]
    if refusals:
        raise _refuse(f"{flag or 'no flag'} on a {method or 'quantized'} checkpoint starts on "
                      f"some GPUs only (Marlin needs SM80, AWQ SM75: marlin_utils.py:78-79, "
                      f"awq/awq.py:108-116): name the GPU (--gpu-memory-gb A100 / T4)")
    # accepted on every GPU: the answers differ at most as awq / awq_marlin or gptq_marlin /
    # moe_wna16 do, which no later rule graphfit restates reads; the SM80+ one is returned
    return cast("str | None", answers[-1])


def kernel_runner(runner: str, quant: str | None) -> str:
    """The runner SGLang's MoE asserts see: mxfp8 swaps a runner it does not take for
    flashinfer_trtllm (overrides.py:1500-1512, a warning; choices.py:161)."""
    if quant == "mxfp8" and runner not in ("auto", "cutlass", "deep_gemm",
                                           "flashinfer_megamoe", "flashinfer_trtllm",
                                           "flashinfer_trtllm_routed"):
        return "flashinfer_trtllm"
    return runner


def check_runner(runner: str, quant: str | None, sm100: bool | None, *, backend: str = "none",
                 fp4_checkpoint: bool | None = False) -> None:
    """The MoE runner against the resolved flag for any all-to-all backend but
    flashinfer_megamoe, whose module resolves its own runner: nvfp4_online needs SM100 and
    takes only some runners (overrides.py:1452-1483), and each FlashInfer runner takes only
    some flags (moe_hook.py:80-147; an auto runner resolved by mxfp8 / nvfp4_online is a
    flashinfer_trtllm one, which takes both)."""
    if quant == "nvfp4_online":
        if not sm100:
            hint = "" if sm100 is False else " (the GPU is unknown: name it, e.g. B200)"
            raise _refuse(f"nvfp4_online needs an SM100 GPU: SGLang refuses "
                          f"(arg_groups/overrides.py:1457-1461){hint}")
        if runner not in ("auto", "flashinfer_trtllm", "flashinfer_trtllm_routed",
                          "flashinfer_cutedsl"):
            raise _refuse(f"nvfp4_online does not take the {runner} MoE runner: SGLang "
                          f"refuses (arg_groups/overrides.py:1467-1483)")
    runner = kernel_runner(runner, quant)
    allowed = RUNNER_QUANT.get(runner)
    if allowed is not None and quant not in allowed:
        if runner == "flashinfer_cutedsl" and fp4_checkpoint is not False:
            raise _refuse(f"{quant} with the flashinfer_cutedsl MoE runner on an FP4-expert "
                          f"checkpoint: SGLang accepts hybrid NVFP4 metadata only "
                          f"(moe_hook.py:94-102), graphfit does not tell them apart: not "
                          f"modelled")
        raise _refuse(f"{quant} is not one the {runner} MoE runner takes: SGLang asserts "
                      f"(arg_groups/moe_hook.py:80-147)")
    if runner == "flashinfer_cutedsl":
        if backend not in ("none", "deepep", "flashinfer"):
            raise _refuse(f"the flashinfer_cutedsl MoE runner does not take "
                          f"--moe-a2a-backend {backend}: SGLang asserts (moe_hook.py:107-114)")
        if backend == "deepep" and quant == "nvfp4_online":
            raise _refuse("nvfp4_online with the flashinfer_cutedsl runner and deepep: SGLang "
                          "refuses (moe_hook.py:115-121)")


def check_copy(config: EngineSettings) -> None:
    """The flag a model override copied is verified again where the model is loaded: the
    scheduler builds its own ModelConfig from the final arguments (managers/scheduler.py:794;
    its constructor verifies, configs/model_config.py:891, 2000-2160), where a copied `gptq`
    has no Marlin upgrade (the override answers only without a flag, gptq/gptq.py:419-430)
    and is no CUDA method, and a copied config.json method clashes with a ModelSlim /
    hf_quant_config.json config."""
    _check_copied(config, resolved_flag(config))


def _check_copied(config: EngineSettings, copied: str | None) -> None:
    """`check_copy` on the flag a model override copied."""
    if copied is None or copied == _flag(config):
        return
    refused = copy_refusal(config.architecture, copied, config.checkpoint_quant_method,
                           overrides.quant_config(config.checkpoint_quant_config),
                           config.gpu_capability)
    if isinstance(refused, ConfigError):
        raise refused


def copy_refusal(architecture: str | None, copied: str, method: str | None,
                 cfg: Mapping[str, Any] | None, capability: int | None
                 ) -> ConfigError | str | None:
    """The scheduler's ModelConfig on the flag a model override copied (`check_copy`): its
    refusal, worded as graphfit words it wherever it is found first, else the quantization it
    settles on. Shared with the config-file rules (issue 23 s67q), which must give this
    refusal before any layer's: SGLang never builds a layer on a copied `gptq`."""
    try:
        return check_clash(copied, method, cfg, capability)
    except ConfigError as exc:
        why = str(exc).removeprefix("--quantization: ")
        return _refuse(f"{architecture}'s model override copies {copied!r} into it; then {why}")


def _minimax_copy(config: EngineSettings) -> str | None:
    """The method MiniMax-M3's model override copies into an unset `--quantization` on any GPU
    (`_resolve_quant_method`, arg_groups/model_overrides/minimax_m3.py:18-34, 40-53:
    `get_quantization_config`, utils/common.py:3849-3854, on config.json's top-level
    `quantization_config` as ModelConfig parsed it, `checkpoint_method`); None without one.
    Only `check_minimax_copy` reads it: a ModelSlim description then clashes (issue 23
    s63m)."""
    text = config.hf_config_quant
    cfg = None if text in (None, picks.ABSENT) else overrides.quant_config(text)
    return checkpoint_method(cfg) if isinstance(cfg, Mapping) else None


def check_minimax_copy(config: EngineSettings) -> None:
    """`check_copy` on MiniMax-M3's copy (`resolved_flag` where known, else `_minimax_copy`)
    with no flag and no opt-out, on any GPU, before check_copy: a clash in one short line."""
    if config.architecture not in smq.MINIMAX_M3 or _flag(config) is not None \
            or config.quant_method == UNQUANT:
        return
    copied = resolved_flag(config) if flag_known(config) else None
    copied = copied or _minimax_copy(config)
    try:
        _check_copied(config, copied)
    except ConfigError as exc:
        clash = _CLASH.search(str(exc))
        if clash is None:
            raise
        # one short line (the CLI's error line holds 200 characters; issue 23 s64m)
        raise _refuse(f"MiniMax-M3's hook copies config.json's {excerpt(copied, 20)} "
                      f"(minimax_m3.py:46-53), clashing with the {excerpt(clash[1], 20)} "
                      f"config: SGLang refuses (model_config.py:2106-2148)") from None


# check_clash's clash wording (sglang_quant_overrides.verify): the ModelConfig's method
_CLASH = re.compile(r"clashes with the checkpoint's quantization config \((.*)\): SGLang")


def hybrid_nvfp4(config: EngineSettings) -> bool | None:
    """The ModelConfig's `nvfp4_moe_meta` is set (configs/model_config.py:775-784: quant_algo
    MIXED_PRECISION, moe_quant_algo NVFP4, a group_size, names upper-cased) -- read from
    checkpoint_quant_config when that is config.json's (its quant_algo is the one
    quant_algo holds), else from moe_fp4_checkpoint where that says no FP4 at all; None
    where graphfit cannot tell."""
    cfg = overrides.quant_config(config.checkpoint_quant_config)
    if config.moe_fp4_checkpoint is False:
        return False
    if cfg is not None and cfg.get("quant_algo") == config.quant_algo:
        return (str(cfg.get("quant_algo", "")).upper() == "MIXED_PRECISION"
                and str(cfg.get("moe_quant_algo", "")).upper() == "NVFP4"
                and cfg.get("group_size") is not None)
    return None


def class_runner(config: EngineSettings) -> tuple[bool, str]:
    """(known, `--moe-runner-backend` after the class's override under the line's a2a
    backend: sglang_model_quant.class_runner)."""
    return smq.class_runner(
        config.architecture, config.moe_runner_backend, config.moe_a2a_backend or "none",
        config.sm100, config.gpu_capability, verified_quant(config), resolved_flag(config),
        overrides.quant_config(config.checkpoint_quant_config), hybrid_nvfp4(config),
        config.kimi_mxfp4_pack, config.nvfp4_w4a16, hf_quant=hf_config_quant(config),
        remap=_remap(config), enable_eplb=config.enable_eplb,
        deepgemm=picks.jit_deepgemm(config.jit_deepgemm, config.gpu_capability),
        block_experts=config.moe_block_experts)


def loader_method(config: EngineSettings) -> str | None:
    """The quantization the scheduler's ModelConfig ends with, which the model loader builds
    (managers/scheduler.py:794; model_loader/loader.py:214-262): the copied flag verified
    again where a model override copied one (`check_copy`), else `verified_quant`."""
    if flag_known(config):
        copied = resolved_flag(config)
        if copied is not None and copied != _flag(config):
            try:
                return check_clash(copied, config.checkpoint_quant_method,
                                   overrides.quant_config(config.checkpoint_quant_config),
                                   config.gpu_capability)
            except ConfigError:
                return None  # check_copy refuses it first
    return verified_quant(config)


def check(config: EngineSettings) -> None:
    """Steps 2-3, the runner rule, then the model loader's GPU check on the final method
    (sglang_quant_capability, loader.py:253-262) and its dtype check (sglang_quant_dtype,
    loader.py:263-270), then NVFP4's MoE method as the model is built (sglang_nvfp4_moe)."""
    _check_args(config)
    method = loader_method(config)
    capability.check(method, config.gpu_capability, config.sm100)
    loader_dtype.check(method, config.dtype)
    hybrid = method == "fp8" and hybrid_nvfp4(config) is True
    if nvfp4_moe.asked(config, method, hybrid) is not None:  # its MoE method at model build
        nvfp4_moe.check(config, method, class_runner(config), hybrid)  # (issue 23 s54q, s60q)


def _check_args(config: EngineSettings) -> None:
    """Steps 2-3 and the runner rule for one line (flashinfer_megamoe's own rules:
    graphfit.planner.engines.sglang_flashinfer_megamoe)."""
    _verify(config)
    check_minimax_copy(config)
    if smq.kind(config.architecture) == "modelopt_any_gpu":  # nemotron_h.py:38-63
        picks.check_plain_modelopt(config.architecture, verified_quant(config),
                                   hf_config_quant(config))
        picks.check_expert_remap(config.architecture, config.moe_runner_backend,
                                 config.moe_a2a_backend or "none", config.enable_eplb,
                                 _remap(config), config.moe_block_experts)
    if not flag_known(config):
        return
    check_copy(config)
    backend = config.moe_a2a_backend or "none"
    if backend == "flashinfer_megamoe" and config.architecture in (
            *smq.NEMOTRON_H, "DeepseekV4ForCausalLM"):
        return  # their picks there: sglang_flashinfer_megamoe (nemotron_h_megamoe_runner ...)
    known, runner = class_runner(config)
    if not known and backend == "none" and _remap(config) and config.sm100 is None and (
            smq.kind(config.architecture) == "modelopt_any_gpu") and (
            resolved_flag(config) not in RUNNER_QUANT[picks.ROUTED]):
        raise ConfigError(f"{config.architecture}: with EPLB / redundant experts its override "
                          f"makes the auto MoE runner {picks.ROUTED} on SM100 only "
                          f"(nemotron_h.py:87-98), which does not take "
                          f"{resolved_flag(config)} (moe_hook.py:135-146); the GPU is "
                          f"unknown: name it (--gpu-memory-gb B200 / H100 ...)")
    if not known and backend in smq.A2A_RUNNERS:
        raise ConfigError(f"{backend}: {config.architecture}'s override may pick the auto MoE "
                          f"runner from checkpoint fields graphfit did not read "
                          f"(sglang_model_quant.RUNNER_EFFECTS): not modelled; give the model "
                          f"directory or name the runner")
    smq.check_a2a_runner(config.architecture, config.moe_runner_backend, runner, backend)
    if backend == "flashinfer_megamoe":
        return
    try:
        check_runner(runner, resolved_flag(config), config.sm100,
                     backend=backend, fp4_checkpoint=config.moe_fp4_checkpoint)
    except ConfigError as exc:
        if runner == config.moe_runner_backend or "is not one the" not in str(exc):
            raise
        raise ConfigError(f"--quantization: {resolved_flag(config)} is not one the {runner} "
                          f"MoE runner takes, which {config.architecture}'s override picked "
                          f"from auto: SGLang asserts (moe_hook.py:80-147)") from None
    _check_runner_ep(config, runner, backend)


def _check_runner_ep(config: EngineSettings, runner: str, backend: str) -> None:
    """The kernel's expert-parallel asserts (sglang_eplb_checks.check_runner_ep) on the
    runner it sees: where graphfit keeps Nemotron-H's auto (no a2a backend; its pick takes
    the flag), the pick is named here -- flashinfer_trtllm on SM100 (nemotron_h.py:102-106),
    else nemotron_h_pick."""
    known = True
    if backend == "none" and runner == "auto" and smq.kind(
            config.architecture) == "modelopt_any_gpu":
        if config.sm100:
            runner = "flashinfer_trtllm"
        else:
            known, runner = smq.nemotron_h_pick(runner, verified_quant(config),
                                                resolved_flag(config), False,
                                                config.gpu_capability)
            if config.sm100 is None and known:
                known = runner not in eplb_checks.EP_ONE_OR_TP  # or flashinfer_trtllm
    quant = resolved_flag(config)
    if known:
        eplb_checks.check_runner_ep(kernel_runner(runner, quant), quant, config.ep_size,
                                    config.tp_size, backend)
        return
    try:
        eplb_checks.check_runner_ep(kernel_runner("flashinfer_cutlass", quant), quant,
                                    config.ep_size,
                                    config.tp_size, backend)
    except ConfigError:
        raise ConfigError(f"{config.architecture}: its auto MoE runner may be "
                          f"flashinfer_cutlass by GPU (nemotron_h.py:99-121), which takes "
                          f"ep_size 1 or tp_size (moe_hook.py:89-92): not modelled; name the "
                          f"GPU") from None


__all__ = ["COMPATIBLE", "DERIVING_ARCHS", "KEEPING_ARCHS", "KNOWN_METHODS", "REQUANTIZATION",
           "UNQUANT",
           "RUNNER_QUANT", "check", "check_clash", "check_copy", "check_runner", "class_runner",
           "kernel_runner",
           "hf_config_quant", "hybrid_nvfp4",
           "checkpoint_method", "flag_known", "loader_method", "resolved_flag",
           "verified_quant", "copy_refusal"]
