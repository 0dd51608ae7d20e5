"""The GPU generation the live path reads inside SGLang's own process (issue 23 s50l).

A `gpu_memory_gb` figure in GiB tells no generation, and the ServerArgs carry no device facts,
so the live path runs its GPU-generation rules only on a named GPU or a capability the caller
gives (graphfit.integrations.sglang.live_overrides). The plugin and the launcher run inside
the server's process, after SGLang parsed the line, so they can ask SGLang itself: its
`PlatformContext` (`get_platform()`, runtime_context.py:1824-1904) answers the machine facts
every server-args hook reads -- `is_cuda`, `device_sm` (`get_device_sm`, utils/common.py:
756-766: NVML while torch.cuda is uninitialized, so no CUDA context before SGLang forks its
workers; SGLang's own hooks call it in the same process, e.g. `get_platform().is_sm90` at
arg_groups/attention_hook.py:201) and `is_sm100` (major 10 and CUDA >= 12.8, utils/
common.py:309-313) -- including any scoped `override_platform` (:1908-1952). Off CUDA, or
where SGLang cannot tell (a device_sm of 0), nothing is read, and the plan's check line says
which rules were not run (`UNRUN`).
"""

from __future__ import annotations

from typing import Any

# the rules the live path runs only with a GPU's generation (live_overrides)
UNRUN = ("GPU-generation rules not run (no GPU name or capability): the SM100+ "
         "linear-attention checks (attention_hook.py:334-377), Qwen3.5 / Qwen4-Exp's SM100 "
         "page, sm90 / sm100 for the MegaMoE rules")


def server_generation() -> dict[str, Any]:
    """`gpu_capability` (major * 10 + minor) and `sm100` as SGLang's platform answers them in
    this process (module docstring); {} outside SGLang, off CUDA, or when it cannot tell."""
    try:
        from sglang.srt.runtime_context import get_platform
    except ImportError:  # not inside an SGLang server
        return {}
    platform = get_platform()
    if not platform.is_cuda:
        return {}
    sm = platform.device_sm
    if not isinstance(sm, int) or isinstance(sm, bool) or sm <= 0:
        return {}
    return {"gpu_capability": sm, "sm100": bool(platform.is_sm100)}


__all__ = ["UNRUN", "server_generation"]
