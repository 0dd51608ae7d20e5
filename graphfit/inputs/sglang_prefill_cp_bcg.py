"""A pasted `--enable-prefill-cp` line's `--cp-strategy` handed to the planner (issue 23 s54g).

graphfit.inputs.sglang_prefill_cp settles whether graphfit plans the line (SGLang's refusals,
then graphfit's "not modelled" split); for a line it plans, the strategy becomes the
`prefill_cp_strategy` option, which the planner reads to tell whether SGLang captures CP's own
breakable prefill graphs (`supports_prefill_cp_bcg`, layers/cp/bcg/__init__.py:42-64;
graphfit.planner.engines.sglang_prefill_cp_bcg). Only a pasted line does this yet: the live
check and graphfit's own config file keep refusing `--attn-cp-size` equal to `--tp-size` as
not modelled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import Resolved, Setting

FIELD = "prefill_cp_strategy"
BACKEND = "prefill_attention_backend"


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """The strategy of a prefill-CP line (nothing when prefill CP is off). It runs after
    sglang_prefill_cp.line, which refuses a line without a strategy (parallel_hook.py:
    151-154) and checks the strategy's spelling is one SGLang's parser takes."""
    strategy = values.get("cp_strategy")
    if values.get("enable_prefill_cp") is not True or strategy is None:
        return []
    return [Setting(FIELD, strategy, "--cp-strategy")]


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A prefill-CP line naming no prefill attention backend: SGLang's default base backend
    for the GPU and model (graphfit.inputs.sglang_draft_default.default_target_backend), which
    `supports_prefill_cp_bcg` reads (`attention_backends_of`, model_override_base.py:138-152;
    layers/cp/bcg/__init__.py:53); unchanged where graphfit does not restate the default (the
    planner then refuses CP's graphs as not modelled)."""
    from graphfit.inputs.sglang_draft_default import default_target_backend

    values = resolved.values
    if values.get(FIELD) is None or values.get(BACKEND) or (
            values.get("attn_cp_size", 1) != values.get("tp_size", 1)):
        return resolved  # (only attn_cp == tp may capture them, bcg/__init__.py:47-52)
    name = default_target_backend(line, gpu_given)
    if name is None:
        return resolved
    said = f"SGLang's default attention backend for this GPU and model: {name}"
    return replace(resolved, values=MappingProxyType({**values, BACKEND: name}),
                   origins=MappingProxyType({**resolved.origins, BACKEND: said}))
