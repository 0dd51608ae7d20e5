"""Planner dtype strings -> torch dtypes (the planner stays torch-free, so the map lives here)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import torch

from graphfit.planner import ConfigError, excerpt

TORCH_DTYPES: Mapping[str, torch.dtype] = MappingProxyType({
    "bfloat16": torch.bfloat16,
    "float16": torch.float16,
    "float32": torch.float32,
    "float8_e4m3fn": torch.float8_e4m3fn,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
    "uint8": torch.uint8,
})


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype for a planner dtype string; ConfigError names the unknown one."""
    try:
        return TORCH_DTYPES[name]
    except (KeyError, TypeError):  # TypeError: an unhashable name ({}, [])
        known = ", ".join(TORCH_DTYPES)
        raise ConfigError(f"dtype: {excerpt(name)} has no torch dtype (known: {known})"
                          ) from None
