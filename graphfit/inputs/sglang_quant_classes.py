"""The config classes SGLang 0.5.23's model loader builds from a checkpoint's own
config.json quantization config (`quant_cls.from_config`, model_loader/weight_utils.py:
298-311), and the refusals graphfit restates: ModelOptFp8Config (modelopt, modelopt_fp8),
ModelOptFp4Config (modelopt_fp4) and Fp8Config (fp8, mxfp8), per layers/quantization/
__init__.py:64-70.

The dict they read is config.json's after ModelConfig's in-place ModelOpt update (`updated`).
Which method's class is built is the caller's question (graphfit.inputs.
sglang_quant_config_file: ModelConfig's method, or an override's copy). Pure functions of
the dict: no file is read here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_quant_auto_round as auto_round
from graphfit.inputs import sglang_quant_quark as quark
from graphfit.inputs import sglang_quant_weight_classes as weight_classes
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_quantization import parsed_quantization_config

# `--quantization` values whose config class is ModelOptFp8Config (layers/quantization/
# __init__.py:68-69)
FP8_CLASS_METHODS = ("modelopt", "modelopt_fp8")
_FP8_FROM = "layers/quantization/modelopt_quant.py"


def fp8_class_check(method: str, spec: Mapping[str, Any]) -> None:
    """`ModelOptFp8Config.from_config` (modelopt_quant.py:466-515) on the checkpoint's own
    config (weight_utils.py:298-311): a flat quant_algo, else the nested `quantization`
    section's, must be present and "FP8". A nested section that is not a mapping stops
    SGLang with an AttributeError: left to it (not judged here)."""
    algo = spec.get("quant_algo")
    if algo is None:
        if "quantization" not in spec:
            raise ConfigError(f"--quantization {method}: config.json's quantization config has "
                              f"no quant_algo, flat or nested, which SGLang's ModelOptFp8Config "
                              f"needs ({_FP8_FROM}:495-505)")
        section = spec["quantization"]
        if not isinstance(section, Mapping):
            return
        algo = section.get("quant_algo")
        if algo is None:
            raise ConfigError(f"--quantization {method}: config.json's quantization section "
                              f"has no quant_algo ({_FP8_FROM}:506-509)")
    if algo != "FP8":
        raise ConfigError(f"--quantization {method}: SGLang's ModelOptFp8Config takes "
                          f"quant_algo FP8 only, config.json's is {excerpt(algo, 24)} "
                          f"({_FP8_FROM}:510-515)")


# `--quantization` values whose config class is Fp8Config (layers/quantization/__init__.py:
# 64-65)
FP8_CONFIG_METHODS = ("fp8", "mxfp8")


def fp8_config_check(method: str, spec: Mapping[str, Any]) -> None:
    """`Fp8Config.from_config` (fp8.py:346-350) on the checkpoint's own config: it reads
    quant_method and activation_scheme with `get_from_keys`, which refuses a missing key
    (base_config.py:257-264). An mxfp8 checkpoint config often lacks activation_scheme."""
    for key in ("quant_method", "activation_scheme"):
        if key not in spec:
            raise ConfigError(f"--quantization {method}: config.json's quantization config has "
                              f"no {key}, which SGLang's Fp8Config reads (layers/quantization/"
                              f"fp8.py:346-350, base_config.py:257-264)")


FP4_ALGOS = ("FP8", "NVFP4", "NVFP4_AWQ", "W4A16_NVFP4")


class _Unjudged(Exception):
    """SGLang stops on a TypeError / AttributeError here: not this rule's to word."""


def _mapping(value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _Unjudged
    return value


def _group_sizes(spec: Mapping[str, Any]) -> set[int]:
    """`ModelOptFp4Config.common_group_size`'s integer group sizes (modelopt_quant.py:
    1562-1592): top level, the `quantization` block, each config group and its sub-dicts."""
    found = [spec.get("group_size")]
    block = spec.get("quantization")
    if isinstance(block, Mapping):
        found.append(block.get("group_size"))
    for group in (spec.get("config_groups") or {}).values():
        if isinstance(group, Mapping):
            found += [group.get("group_size"), *(sub.get("group_size") for sub in
                                                 group.values() if isinstance(sub, Mapping))]
    return {v for v in found if isinstance(v, int)}


def _fp4_fields(spec: Mapping[str, Any]) -> tuple[object, object, object]:
    """(quant_algo, group_size, exclude_modules) as `ModelOptFp4Config.from_config` reads
    them (modelopt_quant.py:1615-1671); ConfigError where its nested read fails."""
    algo = spec.get("quant_algo")
    if algo is not None:  # flat (config.json)
        group = spec.get("group_size")
        if group is None and spec.get("config_groups", {}):
            first = _mapping(next(iter(_mapping(spec["config_groups"]).values()), {}))
            group = _mapping(first.get("weights", {})).get("group_size")
        if group is None and isinstance(algo, str) and "NVFP4" in algo:
            group = 16
        exclude = spec.get("ignore", spec.get("modules_to_not_convert",
                                              spec.get("exclude_modules", [])))
        return algo, group, exclude
    section = spec.get("quantization")
    sizes = _group_sizes(spec)
    if section is None or "quant_algo" not in _mapping(section) or len(sizes) != 1:
        why = ("no quant_algo, flat or nested" if section is None or "quant_algo" not in section
               else "no group_size" if not sizes else f"group sizes {sorted(sizes)}")
        raise ConfigError(f"--quantization modelopt_fp4: config.json's quantization config has "
                          f"{why}, which SGLang's ModelOptFp4Config refuses "
                          f"({_FP8_FROM}:1658-1671, 1562-1592)")
    return section["quant_algo"], sizes.pop(), section.get("exclude_modules", [])


def fp4_class_check(method: str, spec: Mapping[str, Any]) -> None:
    """`ModelOptFp4Config.from_config` (modelopt_quant.py:1595-1692) on the checkpoint's own
    config: a quant_method of fp8 goes online (nvfp4_online: not judged here); else
    quant_algo (flat, or nested with a single group_size) must be one of FP8 / NVFP4 /
    NVFP4_AWQ / W4A16_NVFP4, with a group_size (NVFP4 ones default to 16) and exclude list."""
    if str(spec.get("quant_method", "")).lower() == "fp8":
        return
    try:
        algo, group, exclude = _fp4_fields(spec)
    except _Unjudged:
        return
    if not isinstance(algo, str) or algo not in FP4_ALGOS:
        raise ConfigError(f"--quantization {method}: SGLang's ModelOptFp4Config takes quant_algo "
                          f"{' / '.join(FP4_ALGOS)}, config.json's is {excerpt(algo, 24)} "
                          f"({_FP8_FROM}:1673-1679)")
    if group is None or exclude is None:
        raise ConfigError(f"--quantization {method}: config.json's {algo} config needs a "
                          f"group_size and an exclude list for SGLang's ModelOptFp4Config "
                          f"({_FP8_FROM}:1682-1692)")


def updated(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """config.json's top-level config after ModelConfig's in-place ModelOpt update
    (`_parse_quant_hf_config`, model_config.py:1733-1741): the method and quant_algo
    (graphfit.planner.engines.sglang_quantization.parsed_quantization_config), and for
    MXFP8 the dynamic activation scheme Fp8Config then reads (:1870-1895)."""
    out = parsed_quantization_config(spec)
    if out.get("quant_method") == "mxfp8" and spec.get("quant_method") in (None, "modelopt"):
        out["activation_scheme"] = "dynamic"
    return out


def problem(method: str, built: Mapping[str, Any]) -> ConfigError | None:
    """The refusal of the config class the loader builds for `method` from `built`, if any
    (AWQ / AWQ Marlin / GPTQ Marlin / ModelOpt mixed: graphfit.inputs.
    sglang_quant_weight_classes; auto-round / quark: sglang_quant_auto_round /
    sglang_quant_quark)."""
    try:
        if method in FP8_CLASS_METHODS:
            fp8_class_check(method, built)
        if method in FP8_CONFIG_METHODS:
            fp8_config_check(method, built)
        if method == "modelopt_fp4":
            fp4_class_check(method, built)
    except ConfigError as exc:
        return exc
    return (weight_classes.problem(method, built) or auto_round.problem(method, built)
            or quark.problem(method, built))


__all__ = ["FP4_ALGOS", "FP8_CLASS_METHODS", "FP8_CONFIG_METHODS", "fp4_class_check",
           "fp8_class_check", "fp8_config_check", "problem", "updated"]
