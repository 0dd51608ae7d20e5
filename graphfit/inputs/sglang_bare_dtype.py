"""A written sub-config dict's dtype string that SGLang 0.5.23's bare PretrainedConfig fails
to convert (issue 23, s70e).

`get_hf_text_config` builds `PretrainedConfig(**sub)` from each written sub-config dict
(utils/hf_transformers/common.py:566-571; graphfit.inputs.sglang_text_pick). transformers
5.25's `__post_init__` keeps a non-null `dtype`, else takes `torch_dtype`, and turns a string
into `getattr(torch, value)` (configuration_utils.py:440-447), before the RoPE dict is looked
at (:475): a string that names no torch attribute ("fp16", "bf16", "torch.float16") fails,
AttributeError. A value that is not a string is kept as written.

graphfit imports no torch, so the names that convert are torch 2.13's dtype attributes
(`TORCH_DTYPES`, every `torch.<name>` that is a `torch.dtype`). A string naming a torch
attribute that is not a dtype ("nn") converts there and is refused here (beside the pick,
SGLang refuses it later too, probed; Left in docs/engines/sglang-coverage.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# every torch 2.13 attribute that is a torch.dtype
TORCH_DTYPES = frozenset({
    "bfloat16", "bit", "bits16", "bits1x8", "bits2x4", "bits4x2", "bits8", "bool", "cdouble",
    "cfloat", "chalf", "complex128", "complex32", "complex64", "double", "float", "float16",
    "float32", "float4_e2m1fn_x2", "float64", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
    "float8_e5m2fnuz", "float8_e8m0fnu", "half", "int", "int1", "int16", "int2", "int3", "int32",
    "int4", "int5", "int6", "int64", "int7", "int8", "long", "qint32", "qint8", "quint2x4",
    "quint4x2", "quint8", "short", "uint1", "uint16", "uint2", "uint3", "uint32", "uint4",
    "uint5", "uint6", "uint64", "uint7", "uint8"})


def failure(sub: Mapping[str, Any]) -> str | None:
    """Why the bare config fails converting the sub-config dict's dtype (module docstring),
    naming the key read; None: it converts."""
    key = "dtype" if sub.get("dtype") is not None else "torch_dtype"
    value = sub.get(key)
    if isinstance(value, str) and value not in TORCH_DTYPES:
        return f"{key} {value[:30]!r} is no torch dtype (AttributeError)"
    return None


__all__ = ["TORCH_DTYPES", "failure"]
