"""A MiniMax M3.1 DSPARK draft on a MiniMax-M3 target served as `minimax_m3_nvfp4`: when the
draft's refusal is SGLang's (issue 23 s54m).

SGLang's NVFP4 override hook (arg_groups/model_overrides/minimax_m3.py:56-122) runs at
argument resolution. Its checks that need the GPU and the environment (Blackwell,
SGLANG_RAGGED_VERIFY_MODE, PP 1, DFLASH colocated, page 128, then the a2a / KV dtype checks on
Blackwell: :68-119) therefore come before any model is built. The scheduler then builds the
target's worker (managers/scheduler.py:1130, `init_tp_model_worker`), and only then the draft
worker (:1133, `maybe_init_draft_worker`), whose MiniMax draft model fails to build on, e.g.,
the per_layer QK norm at attention TP > 1 (models/minimax_m3.py:858-865,
models/minimax_m2.py:291). The argument hook's own read of the draft only warns
(speculative_hook.py:796-805).

graphfit reads a pasted line's DSPARK draft before it knows the GPU
(graphfit.inputs.sglang_dspark.line). On an NVFP4 MiniMax-M3 target that reader leaves the
MiniMax draft's refusal to `settle`, which graphfit.inputs.line_defaults runs after the hook's
GPU-bound checks (sglang_minimax_target.settle_hook), the target's model class
(sglang_minimax_target.settle) and the rest of graphfit's restatement of SGLang's argument
resolution (the megamoe token budget among them): SGLang's order. A live check reads
ServerArgs that SGLang's hook has already resolved, so its draft reader refuses at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import Resolved
from graphfit.inputs.sglang_dspark import deferred_problem
from graphfit.inputs.sglang_minimax_target import nvfp4_target
from graphfit.planner.core.errors import ConfigError


def settle(values: Mapping[str, Any], settled: Resolved) -> None:
    """Raise the MiniMax draft's refusal that graphfit.inputs.sglang_dspark.draft_settings
    deferred for a pasted line's NVFP4 target (module docstring), once the line's settled
    values have been through graphfit's restatement of SGLang's argument resolution
    (`settled.config()`, graphfit.planner.config: e.g. the megamoe token budget the hook's
    megamoe brings, mega_moe_hook.py:78-91 run at pipeline.py:320-324), whose refusal comes
    first."""
    if not nvfp4_target(values):
        return
    said = deferred_problem(values)
    if said is not None:
        settled.config()  # SGLang's argument resolution refuses first, where it does
        raise ConfigError(said)


__all__ = ["settle"]
