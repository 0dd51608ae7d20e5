"""The `from_config` / `__init__` refusals of five more config classes SGLang 0.5.23's
model loader builds from a checkpoint's quantization dict: AWQConfig (awq), AWQMarlinConfig
(awq_marlin), GPTQMarlinConfig (gptq_marlin), ModelOptMixedPrecisionConfig (modelopt_mixed)
and MoeWNA16Config (moe_wna16), per layers/quantization/__init__.py:64-104.

The loader hands them config.json's own config (model_loader/weight_utils.py:298-311) or
the one config file its search found (:436-438); both reach `problem` through graphfit.
inputs.sglang_quant_classes. A dict SGLang stops on with a TypeError / AttributeError /
ZeroDivisionError (a list for bits, a string layer entry, bits 0) is left to it: only
SGLang's own ValueError sentences are restated. Pure functions of the dict.

Why: these checks run at load, before any layer is built, so a checkpoint whose
quantize_config.json lacks `zero_point` or declares 8-bit AWQ does not start; graphfit
planned such lines before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt

_Q = "layers/quantization/"
_KEYS = "base_config.py:257-264"


class _Unjudged(Exception):
    """SGLang stops on a TypeError / AttributeError here: not this rule's to word."""


def _from_keys(method: str, spec: Mapping[str, Any], keys: Sequence[str], cls: str,
               cite: str) -> Any:
    """`QuantizationConfig.get_from_keys` (base_config.py:257-264): the first key present,
    else SGLang's "Cannot find any of [...]"."""
    for key in keys:
        if key in spec:
            return spec[key]
    raise ConfigError(f"--quantization {method}: SGLang's {cls} cannot find any of {list(keys)} "
                      f"in the config ({_Q}{cite}, {_KEYS})")


def awq_check(method: str, spec: Mapping[str, Any]) -> None:
    """`AWQConfig.from_config` (awq/awq.py:126-135): w_bit or bits, q_group_size or
    group_size, and zero_point must be present; `__init__` takes 4-bit weights only
    (:84-88)."""
    cls, cite = "AWQConfig", "awq/awq.py:126-135"
    bits = _from_keys(method, spec, ("w_bit", "bits"), cls, cite)
    _from_keys(method, spec, ("q_group_size", "group_size"), cls, cite)
    _from_keys(method, spec, ("zero_point",), cls, cite)
    if bits != 4:
        raise ConfigError(f"--quantization {method}: SGLang's AWQConfig supports only 4-bit "
                          f"weight quantization, the config has {excerpt(bits, 16)} bits "
                          f"({_Q}awq/awq.py:84-88)")


# AWQMarlinConfig.TYPE_MAP's bits (awq/awq.py:249-252) and Marlin's group sizes
# (marlin_utils.py:44)
AWQ_MARLIN_BITS = (4, 8)
MARLIN_GROUP_SIZES = (-1, 32, 64, 128)


def awq_marlin_check(method: str, spec: Mapping[str, Any]) -> None:
    """`AWQMarlinConfig.from_config` (awq/awq.py:314-320): bits, group_size and zero_point
    must be present; `__init__` takes 4 or 8 bits (:274-278), then
    `verify_marlin_supported` (:282-284, marlin_utils.py:104-158) on an SM80+ GPU (the
    class's bar, below which Marlin supports no type): a zero point (or none given)
    allows uint4 only, no zero point allows no AWQ type; the group size must be -1 / 32 /
    64 / 128."""
    cls, cite = "AWQMarlinConfig", "awq/awq.py:314-320"
    bits = _from_keys(method, spec, ("bits",), cls, cite)
    group = _from_keys(method, spec, ("group_size",), cls, cite)
    zero = _from_keys(method, spec, ("zero_point",), cls, cite)
    if not isinstance(bits, (int, float)) or bits == 0:
        return  # 32 // bits fails first (awq/awq.py:266): a TypeError / ZeroDivisionError
    if bits not in AWQ_MARLIN_BITS:
        raise ConfigError(f"--quantization {method}: SGLang's AWQMarlinConfig supports 4 or 8 "
                          f"bits, the config has {bits} ({_Q}awq/awq.py:274-278)")
    if bits != 4 or (zero is not None and not zero):
        raise ConfigError(f"--quantization {method}: Marlin does not support {bits}-bit AWQ "
                          f"weights with zero_point {excerpt(zero, 12)}, SGLang refuses "
                          f"({_Q}awq/awq.py:282-284, marlin_utils.py:92-137)")
    if group not in MARLIN_GROUP_SIZES:
        raise ConfigError(f"--quantization {method}: Marlin does not support group_size "
                          f"{excerpt(group, 12)} (only -1 / 32 / 64 / 128), SGLang refuses "
                          f"({_Q}awq/awq.py:282-284, marlin_utils.py:131-137)")


# GPTQMarlinConfig.TYPE_MAP's (bits, sym) pairs (gptq/gptq.py:297-301)
GPTQ_MARLIN_TYPES = ((4, True), (8, True))


def gptq_marlin_check(method: str, spec: Mapping[str, Any]) -> None:
    """`GPTQMarlinConfig.from_config` (gptq/gptq.py:393-401): bits, group_size, desc_act
    and sym must be present; `__init__` takes (bits, sym) of (4, True) or (8, True) only
    (:353-356)."""
    cls, cite = "GPTQMarlinConfig", "gptq/gptq.py:393-401"
    bits = _from_keys(method, spec, ("bits",), cls, cite)
    _from_keys(method, spec, ("group_size",), cls, cite)
    _from_keys(method, spec, ("desc_act",), cls, cite)
    sym = _from_keys(method, spec, ("sym",), cls, cite)
    if not isinstance(bits, (int, float)) or bits == 0:
        return  # 32 // weight_bits fails first (gptq/gptq.py:346): left to SGLang
    try:
        known = (bits, sym) in GPTQ_MARLIN_TYPES
    except TypeError:
        return
    if not known:
        raise ConfigError(f"--quantization {method}: SGLang's GPTQMarlinConfig refuses "
                          f"bits={bits}, sym={excerpt(sym, 12)} (only 4 or 8 bits, "
                          f"symmetric: {_Q}gptq/gptq.py:353-356)")


# the layer algorithms whose group_size is a block size (modelopt_quant.py:803)
BLOCK_FP8_ALGOS = ("FP8_PB_WO", "FP8_BLOCK_SCALES")
_MIXED = "modelopt_quant.py"


def _mixed_fields(method: str, spec: Mapping[str, Any]) -> tuple[object, object]:
    """(quant_algo, quantized_layers) as `ModelOptMixedPrecisionConfig.from_config` reads
    them (modelopt_quant.py:855-883): the flat keys when quant_algo is given, else the
    `quantization` section's (which get_from_keys requires)."""
    algo = spec.get("quant_algo")
    if algo is not None:
        exclude = spec.get("ignore", spec.get("exclude_modules"))
        found = algo, spec.get("quantized_layers", {})
    else:
        section = _from_keys(method, spec, ("quantization",), "ModelOptMixedPrecisionConfig",
                             f"{_MIXED}:876")
        if not isinstance(section, Mapping):
            raise _Unjudged  # `.get` on it: an AttributeError
        exclude = section.get("exclude_modules")
        found = section.get("quant_algo"), section.get("quantized_layers", {})
    if exclude and not isinstance(exclude, (str, Sequence, Mapping)):
        raise _Unjudged  # `list(exclude_modules or [])` (:883) raises a TypeError first
    return found


def mixed_check(method: str, spec: Mapping[str, Any]) -> None:
    """`ModelOptMixedPrecisionConfig.from_config` (modelopt_quant.py:849-917): quant_algo
    must be MIXED_PRECISION (:885-888), the quantized_layers map non-empty (:889-892), and
    the block-FP8 layers (FP8_PB_WO / FP8_BLOCK_SCALES) must share one group_size, 128 by
    default (:906-917)."""
    try:
        algo, layers = _mixed_fields(method, spec)
        if algo != "MIXED_PRECISION":
            raise ConfigError(f"--quantization {method}: SGLang's ModelOptMixedPrecisionConfig "
                              f"takes MIXED_PRECISION only, quant_algo is {excerpt(algo, 20)} "
                              f"({_Q}{_MIXED}:885-888)")
        if not layers:
            raise ConfigError(f"--quantization {method}: MIXED_PRECISION quantization needs a "
                              f"non-empty quantized_layers map, SGLang refuses "
                              f"({_Q}{_MIXED}:889-892)")
        sizes = _block_sizes(layers)
    except _Unjudged:
        return
    if len(sizes) > 1:
        raise ConfigError(f"--quantization {method}: SGLang's MIXED_PRECISION needs one "
                          f"group_size for all block-FP8 layers, the config has "
                          f"{sorted(sizes)} ({_Q}{_MIXED}:906-917)")


def _block_sizes(layers: object) -> set[int]:
    """The block-FP8 layers' group sizes (modelopt_quant.py:895-912); _Unjudged where
    SGLang's own reading fails (an AttributeError / ValueError of its own words)."""
    if not isinstance(layers, Mapping):
        raise _Unjudged
    sizes = set()
    for info in layers.values():
        if not isinstance(info, Mapping) or not isinstance(info.get("quant_algo", ""), str):
            raise _Unjudged  # `.get` / `.upper()` on a non-dict / non-string
        if info.get("quant_algo", "").upper() in BLOCK_FP8_ALGOS:
            try:
                sizes.add(int(info.get("group_size", 128)))
            except (TypeError, ValueError) as exc:
                raise _Unjudged from exc
    return sizes


def moe_wna16_check(method: str, spec: Mapping[str, Any]) -> None:
    """`MoeWNA16Config.from_config` (moe_wna16.py:136-160): quant_method, bits and
    group_size must be present, then `sym` for a gptq checkpoint or `zero_point` for an awq
    one; any other quant_method is refused (:149-151). `__init__`'s AWQ capability bar
    (:96-108) hangs on the GPU: left to the capability rules."""
    cls, cite = "MoeWNA16Config", "moe_wna16.py:136-151"
    kind = _from_keys(method, spec, ("quant_method",), cls, cite)
    _from_keys(method, spec, ("bits",), cls, cite)
    _from_keys(method, spec, ("group_size",), cls, cite)
    if kind == "gptq":
        _from_keys(method, spec, ("sym",), cls, cite)
    elif kind == "awq":
        _from_keys(method, spec, ("zero_point",), cls, cite)
    else:
        raise ConfigError(f"--quantization {method}: SGLang's MoeWNA16Config takes gptq and awq "
                          f"checkpoints only, quant_method is {excerpt(kind, 20)} "
                          f"({_Q}moe_wna16.py:149-151)")


CHECKS = {"awq": awq_check, "awq_marlin": awq_marlin_check,
          "gptq_marlin": gptq_marlin_check, "modelopt_mixed": mixed_check,
          "moe_wna16": moe_wna16_check}


def problem(method: str, spec: Mapping[str, Any]) -> ConfigError | None:
    """The refusal of `method`'s config class on `spec`, if it is one of these five."""
    check = CHECKS.get(method)
    if check is None:
        return None
    try:
        check(method, spec)
    except ConfigError as exc:
        return exc
    return None


__all__ = ["AWQ_MARLIN_BITS", "BLOCK_FP8_ALGOS", "CHECKS", "GPTQ_MARLIN_TYPES",
           "MARLIN_GROUP_SIZES", "awq_check", "awq_marlin_check", "gptq_marlin_check",
           "mixed_check", "moe_wna16_check", "problem"]
