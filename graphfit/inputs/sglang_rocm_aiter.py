"""ROCm's own AITER all-reduce fusion for GLM-MoE-DSA in SGLang 0.5.23, restated so the
context-parallel checks that read the flag see it on.

`handle_model_specific_adjustments` (arg_groups/model_hook.py:438-457, at pipeline.py:225)
declares `enable_aiter_allreduce_fusion=True` (and its prefill switch-off) on a HIP platform
for GlmMoeDsaForCausalLM when attention DP is off (`attn_dp_enabled_of`: attention DP above 1
or a scale joiner, runtime_context.py:191-199; DWDP's declared attention DP counts, it runs
first at pipeline.py:189) and `--nnodes` is 1. Deterministic inference clears it afterwards
(attention_hook.py:599-607, at pipeline.py:240), and with it on, attention CP or
`--moe-dp-size` above 1 is refused (parallel_hook.py:166-168, 185-187): both are
graphfit.planner.engines.sglang_ep_rules.check_aiter's, which reads the flag this sets.
The platform is the named GPU's (graphfit.inputs.gpus: an AMD Instinct name is ROCm); a
figure in GiB names no platform, and the line is read as CUDA, as everywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.gpus import gpu_name
from graphfit.inputs.settings import Resolved

ARCHITECTURE = "GlmMoeDsaForCausalLM"  # model_hook.py:447
FIELD = "enable_aiter_allreduce_fusion"


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def fusion_on(line: Mapping[str, Any], values: Mapping[str, Any], gpu_given: object) -> bool:
    """Whether SGLang's model hook turns the fusion on for this line (module docstring)."""
    from graphfit.inputs.sglang_draft_default import ROCM

    if gpu_name(gpu_given) not in ROCM or values.get("architecture") != ARCHITECTURE:
        return False
    attn_dp = max(_int(values.get("attn_dp_size"), 1), _int(values.get("dwdp_size"), 1))
    joiner = line.get("ep_join_mode") == "scale"
    return attn_dp <= 1 and not joiner and _int(line.get("nnodes"), 1) == 1


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """The line with the fusion on where SGLang's ROCm model hook declares it."""
    values = resolved.values
    if values.get(FIELD) is True or not fusion_on(line, values, gpu_given):
        return resolved
    said = (f"{ARCHITECTURE} on ROCm without attention DP, one node: SGLang turns AITER "
            f"all-reduce fusion on (arg_groups/model_hook.py:438-457)")
    return replace(resolved, values=MappingProxyType({**values, FIELD: True}),
                   origins=MappingProxyType({**resolved.origins, FIELD: said}))


__all__ = ["ARCHITECTURE", "FIELD", "fusion_on", "settle"]
