"""The `from_config` refusals of SGLang 0.5.23's QuarkConfig for a pre-quantized AMD Quark
checkpoint (the `quark` method, layers/quantization/__init__.py:84), built by the model loader
from config.json's own quantization config (model_loader/weight_utils.py:298-311; QuarkConfig
names no config file, quark/quark.py:694-695).

Why: QuarkConfig checks its `export` section and the KV-cache groups at load, before any
layer is built, so a Quark export without `export`, or whose kv_cache_group names a layer
pattern layer_quant_config lacks, does not start; graphfit planned such lines before.

Not restated: `quark_mxfp4`, whose loader sets `requantization_method` (weight_utils.py:
303-304, model_config.py:545) and sends QuarkConfig down its requantization branch
(quark/quark.py:539-615, NVFP4 / FP8 source detection). A dict SGLang stops on with a
KeyError / AttributeError / TypeError (no quant_method, an export that is not a mapping, a
kv_cache_group of None, unhashable names) is left to it: only its ValueErrors are worded.
Pure functions of the dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt, refusal

_WHERE = "layers/quantization/quark/quark.py"
METHODS = ("quark",)


class _Unjudged(Exception):
    """SGLang stops on a KeyError / AttributeError / TypeError here: not worded."""


def same(first: object, second: object) -> bool:
    """`deep_compare` (quark/utils.py:33-43): the same type; mappings key by key; lists as
    sets (an unhashable item: SGLang's TypeError, `_Unjudged`)."""
    if type(first) is not type(second):
        return False
    if isinstance(first, dict) and isinstance(second, dict):
        return first.keys() == second.keys() and all(same(first[k], second[k]) for k in first)
    if isinstance(first, list) and isinstance(second, list):
        try:
            return set(first) == set(second)
        except TypeError as exc:
            raise _Unjudged from exc
    return bool(first == second)


def _kv_cache_check(method: str, spec: Mapping[str, Any], group: Any) -> None:
    """The KV-cache group's checks (quark/quark.py:638-667): every name a key of
    layer_quant_config, every such entry equal (`deep_compare`), and the first one's
    output_tensors set."""
    try:
        if len(group) == 0:
            return
        names = set(group)
        layers = spec.get("layer_quant_config")
        if not isinstance(layers, Mapping):
            raise _Unjudged  # `.keys()` on it
        if not names.issubset(set(layers.keys())):
            raise ConfigError(f"--quantization {method}: The Quark quantized model has the "
                              f"kv_cache_group parameter setting, but no kv_cache quantization "
                              f"settings were found in the quantization configuration "
                              f"({_WHERE}:641-653)")
        entries = [layers.get(name) for name in group]
    except TypeError as exc:
        raise _Unjudged from exc
    if not all(same(entry, entries[0]) for entry in entries):
        raise ConfigError(f"--quantization {method}: The quantization method used for kv_cache "
                          f"should be the same, but the quantization method for the kv_cache "
                          f"layer in the config is different ({_WHERE}:655-664)")
    if not isinstance(entries[0], Mapping):
        raise _Unjudged  # `.get("output_tensors")` on it
    if entries[0].get("output_tensors") is None:
        raise ConfigError(f"--quantization {method}: The kv_cache quantization configuration "
                          f"is empty: layer_quant_config[{excerpt(next(iter(group)), 24)}] "
                          f"has no output_tensors ({_WHERE}:665-667)")


def check(method: str, spec: Mapping[str, Any]) -> None:
    """`QuarkConfig.from_config`'s pre-quantized path (quark/quark.py:617-681): quant_method
    must be "quark" (:617-621), an `export` section present (:623-628), and its
    kv_cache_group consistent with layer_quant_config (`_kv_cache_check`)."""
    if "quant_method" not in spec:
        return  # `config["quant_method"]`: a KeyError
    if spec["quant_method"] != "quark":
        raise ConfigError(f"--quantization {method}: QuarkConfig.from_config invoked with "
                          f"non-quark quant_method {excerpt(spec['quant_method'], 24)} but no "
                          f"requantization_method set ({_WHERE}:617-621)")
    export = spec.get("export")
    if export is None:
        raise ConfigError(f"--quantization {method}: The export key should be included in the "
                          f"configurations of Quark quantized model ({_WHERE}:623-628)")
    if not isinstance(export, Mapping):
        return  # `export_config.get`: an AttributeError
    try:
        _kv_cache_check(method, spec, export.get("kv_cache_group"))
    except _Unjudged:
        return


def problem(method: str, spec: Mapping[str, Any]) -> ConfigError | None:
    """QuarkConfig's refusal of `spec`, or None (also for any other method)."""
    return refusal(check, method, spec) if method in METHODS else None


__all__ = ["METHODS", "check", "problem", "same"]
