"""The refusals of SGLang 0.5.23's weight config classes that hang on the GPU.

Two config classes the model loader builds from a found quantization file
(model_loader/weight_utils.py:396-438) read the device's capability in `__init__`, before the
loader's own GPU check (model_loader/loader.py:253-262) runs:

* AWQMarlinConfig calls `verify_marlin_supported` (layers/quantization/awq/awq.py:282-284).
  Below SM80 Marlin lists no type at all (marlin_utils.py:78-79), so every AWQ dict that gets
  past `from_config` and the 4 / 8 bits check (:274-278) is refused with Marlin's
  "Only types = []" sentence (marlin_utils.py:104-126), not with the loader's bar.
* MoeWNA16Config on an awq dict compares the GPU with AWQConfig's bar, 75
  (moe_wna16.py:96-108), after `8 // weight_bits` (:85).

Why a module of its own: graphfit.inputs.sglang_quant_weight_classes restates the classes as
on an SM80+ GPU, where these answers differ. On a named GPU below a bar, graphfit gave the
loader's capability reason or Marlin's SM80 reason; SGLang says these. Pure functions of the
dict and the capability (major * 10 + minor)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt

_Q = "layers/quantization/"
MARLIN_MIN_CAPABILITY = 80  # query_marlin_supported_quant_types (marlin_utils.py:78-79)
AWQ_MIN_CAPABILITY = 75  # AWQConfig.get_min_capability (awq/awq.py:109-116)
# AWQMarlinConfig.TYPE_MAP (awq/awq.py:249-252): the Marlin scalar type of each bit width
_AWQ_TYPES = {4: "uint4", 8: "uint8"}
# the capabilities on each side of both bars, for a check whose GPU is not known yet
SIDES = (70, 100)
METHODS = ("awq_marlin", "moe_wna16")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def problem(method: str, spec: Mapping[str, Any], capability: int | None
            ) -> ConfigError | None:
    """The GPU-dependent refusal of `method`'s class on `spec` on a GPU of `capability`
    (None: unknown, then nothing), or None. A dict that stops earlier (a missing key, bits
    other than 4 / 8) is graphfit.inputs.sglang_quant_weight_classes' to word."""
    if capability is None:
        return None
    if method == "awq_marlin" and capability < MARLIN_MIN_CAPABILITY:
        if not all(key in spec for key in ("bits", "group_size", "zero_point")):
            return None  # from_config refuses first (awq/awq.py:314-320)
        quant = _AWQ_TYPES.get(_int(spec["bits"]) or 0)
        if quant is None:
            return None  # the bits check (:274-278) or `32 // bits` (:266) first
        return ConfigError(
            f"--quantization {method}: Marlin does not support weight_bits = {quant}. Only "
            f"types = [] are supported (group_size {excerpt(spec['group_size'], 8)}, SM"
            f"{capability}): none below SM80 (awq/awq.py:282-284, marlin_utils.py:78-79)")
    if method == "moe_wna16" and capability < AWQ_MIN_CAPABILITY \
            and spec.get("quant_method") == "awq":
        if not all(key in spec for key in ("bits", "group_size", "zero_point")):
            return None  # from_config refuses first (moe_wna16.py:136-151)
        if not _int(spec["bits"]):
            return None  # `8 // weight_bits` (moe_wna16.py:85): left to SGLang
        return ConfigError(
            f"--quantization {method}: The quantization method moe_wna16 + awq is not "
            f"supported for the current GPU. Minimum capability: {AWQ_MIN_CAPABILITY}. "
            f"Current capability: {capability} ({_Q}moe_wna16.py:96-108)")
    return None


def depends_on_gpu(method: str, spec: Mapping[str, Any],
                   agnostic: ConfigError | None) -> bool:
    """Whether the class's answer on `spec` differs across the GPU bars (`agnostic`: its
    answer on an SM80+ GPU), so that a check run before the GPU is known must wait for it."""
    if method not in METHODS:
        return False
    answers = {str(problem(method, spec, cap) or agnostic) for cap in SIDES}
    return len(answers) > 1


__all__ = ["AWQ_MIN_CAPABILITY", "MARLIN_MIN_CAPABILITY", "METHODS", "SIDES",
           "depends_on_gpu", "problem"]
