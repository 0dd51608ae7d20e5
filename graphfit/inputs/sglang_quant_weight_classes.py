"""The `from_config` / `__init__` refusals of seven more config classes SGLang 0.5.23's
model loader builds from a checkpoint's quantization dict: AWQConfig (awq), AWQMarlinConfig
(awq_marlin), GPTQMarlinConfig (gptq_marlin), ModelOptMixedPrecisionConfig (modelopt_mixed),
MoeWNA16Config (moe_wna16), CompressedTensorsConfig (compressed-tensors) and W4AFp8Config
(w4afp8), per layers/quantization/__init__.py:64-104.

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

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt, refusal

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


# Fp8Config's activation schemes (fp8.py:188)
FP8_ACTIVATION_SCHEMES = ("static", "dynamic")
_CT = "compressed_tensors/compressed_tensors.py"


def _ct_groups_readable(spec: Mapping[str, Any]) -> bool:
    """Whether `_quantization_scheme_map_from_config` (compressed_tensors.py:342-402) gets
    through config_groups without a TypeError / AttributeError of its own (:362-365): a
    mapping of mappings whose `targets` are iterable."""
    groups = spec.get("config_groups", {})
    if not isinstance(groups, Mapping):
        return False  # `.items()` on it
    for group in groups.values():
        if not isinstance(group, Mapping):
            return False  # `.get("targets")` on it
        if not isinstance(group.get("targets"), Iterable):
            return False  # `for target in targets`: a TypeError
    return True


def compressed_tensors_check(method: str, spec: Mapping[str, Any]) -> None:
    """`CompressedTensorsConfig.from_config` (compressed_tensors.py:281-319): after the
    config groups, a `linear_fp8_config` section (mixed checkpoints: FP8 linears beside
    compressed-tensors experts) is built into an Fp8Config (:295-306), whose `__init__`
    refuses an activation scheme other than static / dynamic (fp8.py:285-286) and, with a
    weight_block_size, a section whose quant_method is not fp8 (:302-306), a block that is
    not 2-D (:307-310) or a static scheme (:311-314). The config groups' and sparsity
    section's own validation is compressed-tensors' pydantic models, not SGLang's: not
    restated (the oracle runs without that library)."""
    if "linear_fp8_config" not in spec or not _ct_groups_readable(spec):
        return
    fp8 = spec["linear_fp8_config"]
    if not isinstance(fp8, Mapping):
        return  # `fp8_cfg.get` (:300): an AttributeError
    scheme = fp8.get("activation_scheme", "dynamic")
    where = f"linear_fp8_config built as an Fp8Config ({_Q}{_CT}:295-306"
    if scheme not in FP8_ACTIVATION_SCHEMES:
        raise ConfigError(f"--quantization {method}: Unsupported activation scheme "
                          f"{excerpt(scheme, 16)}, SGLang refuses the {where}, fp8.py:285-286)")
    block = fp8.get("weight_block_size")
    if block is None:
        return
    if fp8.get("quant_method") != "fp8":
        raise ConfigError(f"--quantization {method}: The block-wise quantization only supports "
                          f"fp8-serialized checkpoint for now, SGLang refuses the {where}, "
                          f"fp8.py:302-306)")
    try:
        dims = len(block)
    except TypeError:
        return  # `len(weight_block_size)`: left to SGLang
    if dims != 2:
        raise ConfigError(f"--quantization {method}: The quantization block size of weight "
                          f"must have 2 dimensions, but got {dims} dimensions, SGLang refuses "
                          f"the {where}, fp8.py:307-310)")
    if scheme != "dynamic":
        raise ConfigError(f"--quantization {method}: The block-wise quantization only supports "
                          f"dynamic activation scheme for now, but got {scheme} activation "
                          f"scheme, SGLang refuses the {where}, fp8.py:311-314)")


def w4afp8_check(method: str, spec: Mapping[str, Any]) -> None:
    """`W4AFp8Config.from_config` (w4afp8.py:78-91): the config must carry a quant_method
    (`get_from_keys`, base_config.py:257-264); the rest is fixed (static MoE activations,
    128x128 blocks), so `__init__`'s scheme check (:53-54) never refuses."""
    _from_keys(method, spec, ("quant_method",), "W4AFp8Config", "w4afp8.py:78-79")


CHECKS = {"awq": awq_check, "awq_marlin": awq_marlin_check,
          "gptq_marlin": gptq_marlin_check, "modelopt_mixed": mixed_check,
          "moe_wna16": moe_wna16_check, "compressed-tensors": compressed_tensors_check,
          "w4afp8": w4afp8_check}


def problem(method: str, spec: Mapping[str, Any]) -> ConfigError | None:
    """The refusal of `method`'s config class on `spec`, if it is one of these seven."""
    check = CHECKS.get(method)
    return None if check is None else refusal(check, method, spec)


__all__ = ["AWQ_MARLIN_BITS", "BLOCK_FP8_ALGOS", "CHECKS", "FP8_ACTIVATION_SCHEMES",
           "GPTQ_MARLIN_TYPES", "MARLIN_GROUP_SIZES", "awq_check", "awq_marlin_check",
           "compressed_tensors_check", "gptq_marlin_check", "mixed_check", "moe_wna16_check",
           "problem", "w4afp8_check"]
