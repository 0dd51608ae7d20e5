"""SGLang 0.5.23's `ModelConfig._verify_quantization` (configs/model_config.py:2000-2160) for
the target model on CUDA, restated on the checkpoint's quantization config itself: the loop
over every method's `override_quantization_method` (:2093-2104), whose answers depend on the
config's bits / group size / zero point / symmetry / act order, on its `quant_algo` and on
the GPU's compute capability, then the compatibility rule and the known-method check.

Why a module of its own: these overrides decide whether a `--quantization` flag such as
`modelopt`, `moe_wna16`, `marlin`, `awq_marlin`, `gptq_marlin` or `humming`, or an AWQ / GPTQ
checkpoint, starts at all and which method the ModelConfig ends with (awq -> awq_marlin and
gptq -> gptq_marlin on an SM80+ GPU). `sglang_quantization.check_clash` calls `verify`.

The loop runs in CUDA's QUANTIZATION_METHODS order (layers/quantization/__init__.py:63-104);
the first override that answers wins. Only these classes override it on CUDA:
ModelOptFp8Config / ModelOptFp4Config (base_config.py:223-253), ModelOptMixedPrecisionConfig
(modelopt_quant.py:829-835), AWQMarlinConfig (awq/awq.py:332-355), GPTQMarlinConfig
(gptq/gptq.py:413-440), MoeWNA16Config (moe_wna16.py:163-185) and HummingConfig
(humming.py:502-508); Petit's answers on ROCm only (petit.py:100-115) and MLX's class is
registered on Apple's MPS only (__init__.py:140-146).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt

MARLIN_MIN_CAPABILITY = 80  # marlin_utils.py:78-79 (no Marlin type below SM80)
AWQ_MIN_CAPABILITY = 75  # AWQConfig.get_min_capability, awq/awq.py:108-116 (moe_wna16's bar)
MARLIN_GROUP_SIZES = (-1, 32, 64, 128)  # MARLIN_SUPPORTED_GROUP_SIZES, marlin_utils.py:47
# ModelOpt's quant_algo -> method for a generic `--quantization modelopt`
# (_MODELOPT_QUANT_ALGO_TO_METHOD, layers/modelopt_utils.py:23-30, upper-cased at :43-45)
MODELOPT_ALGOS: dict[str, str] = {
    "FP8": "modelopt_fp8", "MXFP8": "mxfp8", "FP4": "modelopt_fp4", "NVFP4": "modelopt_fp4",
    "NVFP4_AWQ": "modelopt_fp4", "W4A16_NVFP4": "modelopt_fp4"}
REQUANTIZATION = ("quark_mxfp4",)  # REQUANTIZATION_METHODS, model_config.py:545
WHERE = "configs/model_config.py:2093-2104"


def quant_config_text(value: object) -> str | None:
    """SglangOptions.checkpoint_quant_config as canonical JSON text (sorted keys): a mapping,
    or JSON text of one; None stays None."""
    if value is None:
        return None
    data = value
    if isinstance(value, str):
        try:
            data = json.loads(value)
        except ValueError:
            data = None
    if not isinstance(data, Mapping):
        raise ConfigError(f"checkpoint_quant_config: must be a mapping (the checkpoint's "
                          f"quantization config), got {excerpt(value)}")
    try:
        return json.dumps(data, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        raise ConfigError(f"checkpoint_quant_config: must hold JSON values only, got "
                          f"{excerpt(value)}") from None


def quant_config(text: str | None) -> dict[str, Any] | None:
    """The mapping `quant_config_text` stored."""
    return None if text is None else dict(json.loads(text))


def _crash(what: str, value: object, where: str) -> ConfigError:
    return ConfigError(f"--quantization: the checkpoint's quantization config has {what} "
                       f"{value!r}, not a string: SGLang stops with an AttributeError "
                       f"({where})")


def method_of(cfg: Mapping[str, Any], default: str = "") -> str:
    """`quant_cfg.get("quant_method", default).lower()` as SGLang reads it (model_config.py:
    2076-2078; the overrides read it the same way)."""
    value = cfg.get("quant_method", default)
    if not isinstance(value, str):
        raise _crash("quant_method", value, "configs/model_config.py:2076-2078")
    return value.lower()


def capable(capability: int | None, minimum: int, what: str) -> bool:
    """capability >= minimum; an unknown GPU is refused where the answer hangs on it."""
    if capability is None:
        raise ConfigError(f"--quantization: {what} depends on the GPU's compute capability "
                          f"(>= {minimum / 10:.1f}), which is unknown: name the GPU "
                          f"(--gpu-memory-gb A100 / H100 / B200 ...) or set gpu_capability")
    return capability >= minimum


def _hashable(value: object) -> bool:
    return not isinstance(value, (list, dict))


def awq_marlin(cfg: Mapping[str, Any]) -> bool:
    """`AWQMarlinConfig.is_awq_marlin_compatible` on CUDA (awq/awq.py:402-424) but for the
    GPU: awq, bits / group_size / zero_point all given, 4 bits with a zero point (the only
    Marlin type with zero points is uint4, marlin_utils.py:93-94; AWQ's 8 bits is uint8,
    awq.py:249-252) and a Marlin group size. The GPU must be SM80+ too (`capable`)."""
    bits, group, zero = (cfg.get(key) for key in ("bits", "group_size", "zero_point"))
    if method_of(cfg) != "awq" or bits is None or group is None or zero is None:
        return False
    if not _hashable(bits):
        raise ConfigError(f"--quantization: the checkpoint's awq bits {bits!r} is not a "
                          f"number: SGLang stops with a TypeError (awq/awq.py:419)")
    return bits == 4 and bool(zero) and group in MARLIN_GROUP_SIZES


def _marlin_format(cfg: Mapping[str, Any]) -> bool:
    """`check_marlin_format` (gptq/gptq.py:44-49)."""
    return cfg.get("checkpoint_format") == "marlin" or bool(cfg.get("is_marlin_format", False))


def gptq_marlin(cfg: Mapping[str, Any]) -> bool:
    """`GPTQMarlinConfig.is_gptq_marlin_compatible` (gptq/gptq.py:458-481) but for the GPU:
    gptq, bits / group_size / sym / desc_act all given, (4 or 8 bits, symmetric) (TYPE_MAP,
    :298-301) and a Marlin group size. The GPU must be SM80+ too (`capable`)."""
    keys = ("bits", "group_size", "sym", "desc_act")
    bits, group, sym, desc_act = (cfg.get(key) for key in keys)
    if method_of(cfg) != "gptq" or None in (bits, group, sym, desc_act):
        return False
    if not (_hashable(bits) and _hashable(sym)):
        raise ConfigError(f"--quantization: the checkpoint's gptq bits / sym ({bits!r}, "
                          f"{sym!r}) are not plain values: SGLang stops with a TypeError "
                          f"(gptq/gptq.py:473)")
    return (bits, sym) in ((4, True), (8, True)) and group in MARLIN_GROUP_SIZES


def moe_wna16(cfg: Mapping[str, Any], capability: int | None) -> bool:
    """`MoeWNA16Config.is_moe_wna16_compatible` (moe_wna16.py:168-185): gptq without act
    order at 4 / 8 bits, or awq at 4 bits on a GPU AWQ runs on (SM75+)."""
    method, bits = method_of(cfg), cfg.get("bits")
    if method == "gptq":
        return not cfg.get("desc_act") and bits in (4, 8)
    if method == "awq" and bits == 4:
        return capable(capability, AWQ_MIN_CAPABILITY, "awq with moe_wna16")
    return False


def _modelopt(cfg: Mapping[str, Any], flag: str | None, _cap: int | None) -> str | None:
    """`_modelopt_override_quantization_method` (base_config.py:223-253)."""
    if flag == "nvfp4_online" or flag in REQUANTIZATION:
        return None
    algo = cfg.get("quant_algo", "")
    if not isinstance(algo, str):
        raise _crash("quant_algo", algo, "layers/quantization/base_config.py:238")
    if flag == "modelopt" and algo.upper() in MODELOPT_ALGOS:
        return MODELOPT_ALGOS[algo.upper()]
    raw = cfg.get("quant_method", "")
    return raw if raw in ("modelopt_fp8", "modelopt_fp4") else None


def _mixed(cfg: Mapping[str, Any], _flag: str | None, _cap: int | None) -> str | None:
    """modelopt_quant.py:829-835."""
    return "modelopt_mixed" if cfg.get("quant_method", "") == "modelopt_mixed" else None


def _awq_marlin(cfg: Mapping[str, Any], flag: str | None, cap: int | None) -> str | None:
    """awq/awq.py:332-355: the shape is checked for any flag, the answer given only without
    a flag or with marlin / awq_marlin, on SM80+."""
    ok = awq_marlin(cfg) and flag in (None, "marlin", "awq_marlin") and capable(
        cap, MARLIN_MIN_CAPABILITY, "awq -> awq_marlin")
    return "awq_marlin" if ok else None


def _gptq_marlin(cfg: Mapping[str, Any], flag: str | None, cap: int | None) -> str | None:
    """gptq/gptq.py:413-440: not a Marlin-format checkpoint, and only without a flag or with
    marlin / gptq_marlin, on SM80+."""
    shape = gptq_marlin(cfg)
    ok = (shape and not _marlin_format(cfg) and flag in (None, "marlin", "gptq_marlin")
          and capable(cap, MARLIN_MIN_CAPABILITY, "gptq -> gptq_marlin"))
    return "gptq_marlin" if ok else None


def _moe_wna16(cfg: Mapping[str, Any], flag: str | None, cap: int | None) -> str | None:
    """moe_wna16.py:163-166: only when asked for."""
    return "moe_wna16" if flag == "moe_wna16" and moe_wna16(cfg, cap) else None


def _humming(cfg: Mapping[str, Any], flag: str | None, _cap: int | None) -> str | None:
    """humming.py:502-508: asked for, and not an MXFP4 (gpt-oss) checkpoint."""
    if cfg.get("quant_method") == "mxfp4":
        return None
    return "humming" if flag == "humming" else None


Override = Callable[[Mapping[str, Any], "str | None", "int | None"], "str | None"]
# in QUANTIZATION_METHODS order (__init__.py:63-104): modelopt (fp8 / fp4 share the rule),
# modelopt_mixed, awq_marlin, gptq_marlin, moe_wna16, humming
OVERRIDES: tuple[tuple[str, Override], ...] = (
    ("modelopt", _modelopt), ("modelopt_mixed", _mixed), ("awq_marlin", _awq_marlin),
    ("gptq_marlin", _gptq_marlin), ("moe_wna16", _moe_wna16), ("humming", _humming))


def override(cfg: Mapping[str, Any], flag: str | None, capability: int | None) -> str | None:
    """The first override's answer (None: none answers; an online requantization flag skips
    the loop, :2093)."""
    if flag in REQUANTIZATION:
        return None
    for _name, rule in OVERRIDES:
        answer = rule(cfg, flag, capability)
        if answer:
            return answer
    return None


def verify(flag: str | None, cfg: Mapping[str, Any] | None, capability: int | None,
           compatible: Mapping[str, tuple[str, ...]], known: frozenset[str]) -> str | None:
    """`_verify_quantization` for the target model on CUDA (model_config.py:2056-2155): the
    ModelConfig's quantization, or ConfigError where SGLang refuses. `cfg`: the quantization
    config it parsed (sglang_quantization.effective_config), None for none; `compatible` /
    `known`: its compatible-method table and CUDA's method names."""
    quant = flag.lower() if flag is not None else None  # :2057-2058
    if cfg is not None:
        method = method_of(cfg, quant or "")
        answer = override(cfg, quant, capability)
        if answer:
            method = quant = answer
        if quant is None:
            quant = method  # :2106-2107
        elif quant != method and method not in compatible.get(quant, ()) and (
                quant not in REQUANTIZATION):
            raise ConfigError(f"--quantization: {quant} clashes with the checkpoint's "
                              f"quantization config ({method or 'no quant_method'}): SGLang "
                              f"refuses (configs/model_config.py:2106-2148)")
    if quant is not None and quant not in known:
        if quant == flag:
            raise ConfigError(f"--quantization: {flag} is not a quantization method SGLang "
                              f"knows on CUDA: SGLang refuses (configs/model_config.py:"
                              f"2150-2155)")
        raise ConfigError(f"--quantization: the checkpoint's quantization method {quant!r} is "
                          f"not one SGLang knows: SGLang refuses (configs/model_config.py:"
                          f"2150-2155)")
    return quant


__all__ = ["AWQ_MIN_CAPABILITY", "MARLIN_GROUP_SIZES", "MARLIN_MIN_CAPABILITY",
           "MODELOPT_ALGOS", "OVERRIDES", "REQUANTIZATION", "awq_marlin", "gptq_marlin",
           "capable", "method_of", "moe_wna16", "override", "quant_config",
           "quant_config_text", "verify"]
