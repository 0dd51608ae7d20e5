"""Whether a local checkpoint's safetensors hold FP8 expert weights, read as SGLang 0.5.23's
`has_fp8_weights_in_checkpoint` (utils/common.py:3857-3921) reads them.

SGLang asks this for a DeepseekV3ForCausalLM checkpoint without a `quant_method` on SM100
and no `--quantization` (the post-process `_deepseek_moe_quant_resolution`, arg_groups/
overrides.py:785-807): DeepSeek V3 / R1 ship FP8 experts without declaring them, while
Moonlight shares the class in BF16. The answer becomes `--quantization fp8` or none, which
then picks the MoE runner and is verified again (graphfit.planner.engines.sglang_model_quant).

The read, as SGLang does it (:3892-3921), on the model directory only:

* `model.safetensors.index.json`: its `weight_map`; the shard is the first (sorted) file
  holding a tensor whose name contains both "experts" and "weight", else the first file of
  the map (an empty map: not FP8); else `model.safetensors`; else not FP8;
* the shard's header: an 8-byte little-endian length, then that many bytes of JSON (only the
  header is read, never the tensors);
* the first tensor in the header's order whose name contains "experts" and "weight" decides:
  FP8 exactly when its dtype is "F8_E4M3"; none such: not FP8.

SGLang turns every failure (a missing or unreadable file, bad JSON, a field of the wrong
type) into "not FP8" (:3920-3921), so this reader does the same with the same parser
(`json.loads`). Only what graphfit will not read is an error: a file larger than the bounds
below (safetensors itself caps its header at 100 MB). A hub id is not looked up (SGLang
reads remote headers through HfFileSystem, :3881-3890; graphfit downloads nothing).
"""

from __future__ import annotations

import json
import os
import stat
import struct
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import shown_path
from graphfit.planner.core.errors import ConfigError

INDEX = "model.safetensors.index.json"  # utils/common.py:3892
SINGLE = "model.safetensors"  # :3905
FP8_DTYPE = "F8_E4M3"  # :3918
MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_HEADER_BYTES = 100 * 1000 * 1000  # the safetensors format's own header limit


class _NotFp8(Exception):
    """A read SGLang's `except Exception: return False` would end."""


def _expert_weight(name: object) -> bool:
    # `"experts" in k and "weight" in k` (:3896, 3917); keys are strings in both places
    return isinstance(name, str) and "experts" in name and "weight" in name


def _open_regular(path: Path) -> Any:
    """Open like SGLang's `open(path, "rb")`, refusing only what would hang (a FIFO) or read
    without end (a device); a missing file or a directory fails the read."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        raise _NotFp8 from None
    if stat.S_ISDIR(mode):
        raise _NotFp8
    if not stat.S_ISREG(mode):
        raise ConfigError(f"{shown_path(path)}: not a regular file (a device, pipe or "
                          f"socket): graphfit will not read it")
    try:
        return open(path, "rb")  # closed by the caller's `with`
    except OSError:
        raise _NotFp8 from None


def _bounded(handle: Any, size: int, limit: int, path: Path) -> bytes:
    if size > limit:
        raise ConfigError(f"{shown_path(path)}: {size} bytes to read, more than the "
                          f"{limit} graphfit reads for a safetensors header / index")
    data: bytes = handle.read(size)
    return data


def _shard(folder: Path) -> str:
    """The shard SGLang reads the header of (:3892-3908)."""
    if os.path.exists(folder / INDEX):
        with _open_regular(folder / INDEX) as handle:
            size = os.fstat(handle.fileno()).st_size
            text = _bounded(handle, size, MAX_INDEX_BYTES, folder / INDEX)
        try:
            index = json.loads(text)
            weight_map = index.get("weight_map", {})
            experts = sorted({v for k, v in weight_map.items() if _expert_weight(k)})
            shard = experts[0] if experts else next(iter(sorted(set(weight_map.values()))),
                                                    None)
        except (ValueError, TypeError, AttributeError, RecursionError):
            raise _NotFp8 from None
        if shard is None:
            raise _NotFp8
        return shard  # type: ignore[no-any-return]
    if os.path.exists(folder / SINGLE):
        return SINGLE
    raise _NotFp8


def _header(path: Path) -> Any:
    with _open_regular(path) as handle:
        head = handle.read(8)
        if len(head) != 8:
            raise _NotFp8  # struct.error in SGLang
        length = struct.unpack("<Q", head)[0]
        # read(n) past the end returns what is there: SGLang parses that
        left = max(os.fstat(handle.fileno()).st_size - 8, 0)
        data = _bounded(handle, min(length, left), MAX_HEADER_BYTES, path)
    try:
        return json.loads(data)
    except (ValueError, TypeError, RecursionError):
        raise _NotFp8 from None


def fp8_experts(folder: Path) -> bool:
    """SGLang's answer for the model directory `folder` (see the module docstring)."""
    try:
        shard = _shard(folder)
        try:
            path = Path(os.path.join(folder, shard))
        except TypeError:
            raise _NotFp8 from None  # a shard name that is not a string
        header = _header(path)
        for key, meta in header.items():
            if key == "__metadata__":
                continue
            if _expert_weight(key):
                return bool(meta.get("dtype") == FP8_DTYPE)
        return False
    except (_NotFp8, AttributeError, TypeError):
        return False


__all__ = ["FP8_DTYPE", "INDEX", "MAX_HEADER_BYTES", "MAX_INDEX_BYTES", "SINGLE", "fp8_experts"]
