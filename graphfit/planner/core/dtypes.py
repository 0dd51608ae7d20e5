"""Element sizes of the dtypes graphfit plans for (no torch needed to count bytes)."""

from __future__ import annotations

DTYPE_SIZES: dict[str, int] = {
    "bfloat16": 2,
    "float16": 2,
    "float32": 4,
    "float8_e4m3fn": 1,
    "int32": 4,
    "int64": 8,
    "bool": 1,
    "uint8": 1,  # raw byte workspaces (e.g. SGLang's flashinfer_cudnn ViT workspace)
}


def itemsize(dtype: str) -> int:
    """Bytes per element of `dtype` (a key of DTYPE_SIZES)."""
    return DTYPE_SIZES[dtype]
