"""SGLANG_ENABLE_JIT_DEEPGEMM on a named AMD GPU: SGLang 0.5.23 never reads it there.

Why a module: the planner has no GPU vendor, only a CUDA capability (None for an AMD name,
graphfit.inputs.gpus), so `SGLANG_ENABLE_JIT_DEEPGEMM=0` on a ROCm line read as "JIT DeepGEMM
known off" and fired the DeepEP-class asserts (graphfit.planner.engines.sglang_deepep_class)
where SGLang builds the model. SGLang (paths under sglang/srt/):

* `_compute_enable_deep_gemm` returns False on any platform but CUDA / MUSA before it reads
  the variable (layers/deep_gemm_wrapper/configurer.py:32-36): on ROCm the value changes
  nothing, JIT DeepGEMM is off with or without it.
* Both DeepEP-class asserts skip HIP (`_is_hip`, layers/moe/ep_moe/layer.py:53): the
  unquantized one (:135-147, `not _is_hip` :142) and the low-latency one (:166-178, :172).

So the reader drops the variable's "off" on a named AMD GPU: the line is then read as every
AMD line without it is (JIT DeepGEMM unknown to the planner: `jit_deepgemm(True, None)`,
graphfit.planner.engines.sglang_class_picks), which SGLang treats identically. A figure in
GiB names no platform and the line is read as CUDA, as everywhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.gpus import gpu_name
from graphfit.inputs.settings import Resolved

FIELD = "jit_deepgemm"  # SglangOptions.jit_deepgemm (graphfit.inputs.environment)


def settle(values: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """The line with SGLANG_ENABLE_JIT_DEEPGEMM's "off" dropped on a named AMD GPU."""
    from graphfit.inputs.sglang_draft_default import ROCM

    del values  # the resolved values carry the variable (graphfit.inputs.environment)
    if gpu_name(gpu_given) not in ROCM or resolved.values.get(FIELD) is not False:
        return resolved
    said = ("SGLANG_ENABLE_JIT_DEEPGEMM on ROCm: not read (layers/deep_gemm_wrapper/"
            "configurer.py:32-36); the DeepEP asserts skip HIP (ep_moe/layer.py:142, 172)")
    return replace(resolved, values=MappingProxyType({**resolved.values, FIELD: True}),
                   origins=MappingProxyType({**resolved.origins, FIELD: said}))


__all__ = ["FIELD", "settle"]
