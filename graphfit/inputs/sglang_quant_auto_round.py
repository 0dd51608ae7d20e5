"""The `from_config` / `__init__` refusals of SGLang 0.5.23's AutoRoundConfig (the
`auto-round` method, layers/quantization/__init__.py:86), which the model loader builds from
config.json's own quantization config (model_loader/weight_utils.py:298-311) or from the one
quantization_config.json its search finds (:436-438, auto_round.py:134-136).

Why: these checks run at load, before any layer is built, so an Intel AutoRound checkpoint
whose config lacks `sym` or declares 5-bit weights does not start; graphfit planned such
lines before. Pure functions of the dict. A value SGLang stops on with a TypeError (an
unhashable bits / data_type / packing_format / backend in the set test, a float bit width
in `Fraction(32, bits)`, auto_round.py:106) is left to it: only its ValueErrors are worded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt, refusal

_WHERE = "layers/quantization/auto_round.py"
METHODS = ("auto-round",)
# the keys `from_config` reads with `get_from_keys` (auto_round.py:156-158), in its order
REQUIRED = ("bits", "group_size", "sym")
# (what, the config keys get_from_keys_or reads, its default, the supported set, the
# `__init__` line that refuses), in `__init__`'s order (auto_round.py:49-52, 73-91)
CHOICES: tuple[tuple[str, Sequence[str], object, frozenset[object], str], ...] = (
    ("weight_bits", ("bits",), None, frozenset({2, 3, 4, 8}), "73-77"),
    ("data_type", ("data_type",), "int", frozenset({"int"}), "78-82"),
    ("packing_format", ("packing_format",), "auto_round:auto_gptq",
     frozenset({"auto_round:auto_gptq", "auto_round:auto_awq"}), "83-87"),
    ("backend", ("backend", "vllm_backend", "sglang_backend"), "auto",
     frozenset({"auto", "gptq", "gptq:marlin", "awq", "awq:marlin", "marlin"}), "88-92"),
)


def _first(spec: Mapping[str, Any], keys: Sequence[str], default: object) -> object:
    """`get_from_keys_or` (base_config.py:267-272): the first key present, else `default`."""
    return next((spec[key] for key in keys if key in spec), default)


def check(method: str, spec: Mapping[str, Any]) -> None:
    """`AutoRoundConfig.from_config` (auto_round.py:139-181): bits, group_size and sym must
    be present (`get_from_keys`, base_config.py:257-264); then `__init__` takes bits 2 / 3 /
    4 / 8, data_type int, the auto_gptq / auto_awq packing formats and six backends
    (:73-92), each read with its default where absent."""
    for key in REQUIRED:
        if key not in spec:
            raise ConfigError(f"--quantization {method}: Cannot find any of ['{key}'] in the "
                              f"model's quantization config: SGLang's AutoRoundConfig needs it "
                              f"({_WHERE}:156-158, base_config.py:257-264)")
    for what, keys, default, allowed, lines in CHOICES:
        value = _first(spec, keys, default)
        try:
            supported = value in allowed
        except TypeError:
            return  # unhashable: SGLang's TypeError, not worded
        if not supported:
            shown = str(value) if len(str(value)) <= 24 else excerpt(value, 24)  # as SGLang
            raise ConfigError(f"--quantization {method}: Unsupported {what}: {shown}, "
                              f"SGLang's AutoRoundConfig takes "
                              f"{' / '.join(sorted(map(str, allowed)))} ({_WHERE}:{lines})")


def problem(method: str, spec: Mapping[str, Any]) -> ConfigError | None:
    """AutoRoundConfig's refusal of `spec`, or None (also for any other method)."""
    return refusal(check, method, spec) if method in METHODS else None


__all__ = ["CHOICES", "METHODS", "REQUIRED", "check", "problem"]
