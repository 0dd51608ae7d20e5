"""The refusals of SGLang 0.5.23's online MXFP4 requantization (`--quantization quark_mxfp4`)
on a pre-quantized checkpoint (issue 23, s66q).

Why: quark_mxfp4 is SGLang's one requantization method (REQUANTIZATION_METHODS,
configs/model_config.py:545), so ModelConfig lets it override any checkpoint's own method
(:2090-2093, the override loop skipped). The loader then marks the checkpoint's
quantization config with `requantization_method` (model_loader/weight_utils.py:302-304)
and QuarkConfig.from_config takes its requantization branch
(layers/quantization/quark/quark.py:537-615), which reads the *source* checkpoint and
accepts three kinds only:
- a ModelOpt MIXED_PRECISION source (`quant_algo`, `quantized_layers`: `_mixed_precision_
  layer_map`, :194-210): its layers grouped by the name after `.layers.<i>.` must each share
  one algo, NVFP4 / W4A16_NVFP4 (requantized) or FP8 (kept), and one group must be NVFP4
  (`_build_mixed_precision_layer_quant_config`, :213-253; :548-558);
- an NVFP4 source (`_detect_nvfp4_source`, :80-131): a ModelOpt method (modelopt /
  modelopt_fp4 / nvfp4) whose quant_algo is NVFP4, FP4 or unset, or a Quark export whose
  global weight spec is [fp4 per_group 16, fp8_e4m3 per_tensor]; a compressed-tensors
  source is refused outright (:124-129);
- an FP8 checkpoint with dynamic activations (:595-609).
Anything else (GPTQ, AWQ, static FP8, ModelOpt FP8, ...) is "Requantization into quark_mxfp4
is not supported" (:611-615). graphfit planned such lines before.

The dict is the one the loader hands over: config.json's quantization_config as ModelConfig
left it (its ModelOpt quant_method rewritten, graphfit.inputs.sglang_quant_classes.updated).
A dict SGLang stops on with its own KeyError / AttributeError (no quant_method, a non-string
algo, a non-mapping global_quant_config) is left to it. What follows an accepted source: the
Fp8Config a dynamic FP8 source or an FP8-based mixed one builds (s68q,
graphfit.inputs.sglang_quant_quark_requant_fp8); the excludes are not restated.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_quant_quark_requant_fp8 as requant_fp8
from graphfit.planner.core.errors import ConfigError

METHOD = "quark_mxfp4"
_WHERE = "quark/quark.py"
_NVFP4_METHODS = ("modelopt", "modelopt_fp4", "nvfp4")
_NVFP4_ALGOS = ("", "NVFP4", "FP4")
_MIXED_NVFP4 = ("NVFP4", "W4A16_NVFP4")


class _Unjudged(Exception):
    """SGLang's own KeyError / AttributeError / TypeError: not worded."""


def _upper(value: object) -> str:
    """`(value or "").upper()`, _Unjudged where SGLang's `.upper()` fails."""
    if not value:
        return ""
    if not isinstance(value, str):
        raise _Unjudged
    return value.upper()


def _tail(name: str) -> str:
    """The name after its `.layers.<i>.` (the whole name if unindexed), which the layers of
    one group share (:222-226)."""
    return re.split(r"\.layers\.\d+\.", name, maxsplit=1)[-1]


def _mixed(spec: Mapping[str, Any]) -> tuple[str, str] | None:
    """The MIXED_PRECISION branch's refusal (:548-558, 194-253), or None."""
    layers = spec.get("quantized_layers")
    groups: dict[str, set[str]] = {}
    for name, info in layers.items() if isinstance(layers, Mapping) else ():
        if isinstance(info, Mapping):
            if not isinstance(name, str):
                raise _Unjudged  # re.split on a non-string
            groups.setdefault(_tail(name), set()).add(str(info.get("quant_algo", "")).upper())
    nvfp4 = False
    for tail, algos in groups.items():
        if len(algos) != 1:
            return "234-239", (f"MIXED_PRECISION layer group {tail!r} has inconsistent "
                               f"quant algos across layers: {sorted(algos)}")
        algo = next(iter(algos))
        if algo in _MIXED_NVFP4:
            nvfp4 = True
        elif algo != "FP8":
            return "247-252", (f"MIXED_PRECISION layer group {tail!r} uses unsupported "
                               f"quant algo {algo!r}")
    if not nvfp4:
        return "552-557", "MIXED_PRECISION checkpoint has no NVFP4 layers to requantize"
    return None


def _nvfp4_source(spec: Mapping[str, Any]) -> bool:
    """`_detect_nvfp4_source` found an NVFP4 source (:80-131); a compressed-tensors one is
    refused by the caller."""
    method = spec.get("quant_method", "")
    algo = _upper(spec.get("quant_algo"))
    if method in _NVFP4_METHODS and algo in _NVFP4_ALGOS:
        return True
    if method != "quark":
        return False
    glob = spec.get("global_quant_config", {})
    if not isinstance(glob, Mapping):
        raise _Unjudged  # `gqc.get`: an AttributeError
    weight = glob.get("weight")
    if not (isinstance(weight, list) and len(weight) == 2):
        return False
    first, second = weight
    return isinstance(first, Mapping) and first.get("dtype") == "fp4" \
        and first.get("qscheme") == "per_group" and first.get("group_size") == 16 \
        and not first.get("is_dynamic") \
        and isinstance(second, Mapping) and second.get("dtype") == "fp8_e4m3" \
        and second.get("qscheme") == "per_tensor" and not second.get("is_dynamic")


def _is_mixed(spec: Mapping[str, Any]) -> bool:
    """Whether the branch takes `spec` as a MIXED_PRECISION source (:194-210, 546-547)."""
    return _upper(spec.get("quant_algo")) == "MIXED_PRECISION" \
        and isinstance(spec.get("quantized_layers"), Mapping) and bool(spec["quantized_layers"])


def _said(spec: Mapping[str, Any]) -> tuple[str, str] | None:
    """(quark.py's lines, SGLang's words) of the branch's refusal, or None."""
    if _is_mixed(spec):
        return _mixed(spec)
    if _nvfp4_source(spec):
        return None
    if spec.get("quant_method", "") in ("compressed-tensors", "compressed_tensors"):
        return "124-129", ("Online MXFP4 requantization from compressed-tensors NVFP4 "
                           "checkpoints is not supported")
    if spec.get("quant_method") == "fp8" and spec.get("activation_scheme") == "dynamic":
        return None
    if "quant_method" not in spec:
        raise _Unjudged  # `config['quant_method']`: a KeyError
    return "611-615", (f"Requantization into {METHOD} is not supported, from the original "
                       f"quant_method={spec['quant_method']} and activation_scheme="
                       f"{spec.get('activation_scheme')}")


def problem(method: str, spec: Mapping[str, Any], source: str = "config.json"
            ) -> ConfigError | None:
    """The requantization branch's refusal of the checkpoint's quantization config `spec`
    (as the loader hands it over) under `--quantization method`, or None."""
    if method != METHOD or not isinstance(spec, Mapping):
        return None
    try:
        said = _said(spec)
    except _Unjudged:
        return None
    if said is None:  # an accepted source; s68q: then the Fp8Config it may build
        mixed = _is_mixed(spec)
        if not mixed and _nvfp4_source(spec):
            return None  # an NVFP4 source builds none (:580-592)
        built = requant_fp8.refusal(spec, mixed, method, source)
        return None if built is None else ConfigError(built)
    lines, words = said
    return ConfigError(f"--quantization {method}: {source}'s quantization is no source SGLang "
                       f"requantizes ({_WHERE}:{lines}): {words}"[:200])


def check(method: object, spec: Mapping[str, Any] | None) -> None:
    """Raise `problem`'s refusal, if any."""
    if isinstance(method, str) and spec is not None:
        found = problem(method, spec)
        if found is not None:
            raise found


__all__ = ["METHOD", "check", "problem"]
