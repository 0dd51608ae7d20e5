"""TensorRT-LLM's context-parallel keys: `context_parallel_size` (trtllm-serve `--cp_size`)
and the LLM API's `cp_config` (issue 23, s44t).

graphfit keeps both as options (`TrtllmOptions.context_parallel_size`, `.cp_type`); the plan
of a context-parallel rank is graphfit.planner.engines.trtllm_cp's. `cp_type` is a `CpType`
name (tensorrt_llm/mapping.py@b35ac1b643:24-32) taken case-insensitively, as a newer stored
copy of the mapping converts a string (by its upper-cased name, raising "Invalid cp_type"
otherwise; the index gives that copy no commit). The other `cp_config` keys tune the
attention kernels and communication of each CP type, not the graphs or their buffers, so
they are noted and ignored.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_int, as_object
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.trtllm_options import CP_TYPES

TR = Engine.TRTLLM


def context_parallel(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`context_parallel_size` (null is 1): the mapping's cp_size."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    size = as_int(origin, value, minimum=1)
    return [*out, Setting("context_parallel_size", size, origin, layer)], []


def cp_config(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`cp_config` (null: none): its `cp_type` kept lower-cased; an unknown name refused with
    TensorRT-LLM's message; the other keys noted as ignored."""
    out = [Setting("engine", TR, origin, layer)]
    if value is None:
        return out, []
    obj = as_object(origin, value)
    notes = []
    others = sorted(key for key in obj if key != "cp_type")
    if others:
        notes.append(f"{origin}: {', '.join(others)}: read, ignored (they tune the CP "
                     f"attention and communication, not the graphs or their buffers)")
    given = obj.get("cp_type")
    if given is None:
        return out, notes
    names = ", ".join(name.upper() for name in CP_TYPES)
    if not isinstance(given, str) or given.strip().lower() not in CP_TYPES:
        raise ConfigError(f"{origin}.cp_type: Invalid cp_type: {excerpt(given)}. Must be one "
                          f"of: {names}")
    return [*out, Setting("cp_type", given.strip().lower(), origin, layer)], notes


__all__ = ["context_parallel", "cp_config"]
