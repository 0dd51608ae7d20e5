"""The attention backend multi-layer EAGLE's draft-extend steps run, from a pasted SGLang
0.5.23 line (`SGLANG_ENABLE_SINGLE_CG_DRAFT` is read by graphfit.inputs.environment): together
they decide
whether SGLang captures one draft-extend graph per size or one per step per size
(graphfit.planner.engines.sglang_mtp_graphs).

`DraftBackendFactory._create_backend` (speculative/draft_utils.py:47-66) takes the draft
runner's backend, `--speculative-draft-attention-backend` (the multi-layer worker names none
of its own, multi_layer_eagle_worker_v2.py:178-186, so `resolve_draft_attention_backend`
gives the flag, model_executor/model_runner.py:306-320), else the prefill backend (the
decode one under `--speculative-attention-mode decode`, draft_utils.py:145-149), the split
flags falling back to `--attention-backend` (arg_groups/model_override_base.py:138-152).
A line naming none gets SGLang's default by GPU and model (graphfit.inputs.sglang_draft_default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.engines.sglang_mtp_graphs import draft_extend_backend


def line_settings(values: Mapping[str, Any]) -> list[Setting]:
    """The `mtp_draft_backend` setting a speculative pasted line gives (the planner reads it
    only where SGLang runs the multi-layer EAGLE worker, graphfit.planner.engines.
    sglang_mtp_graphs)."""
    found = draft_extend_backend(values)
    if found is None or not values.get("speculative_algorithm"):
        return []
    name, flag = found
    return [Setting("mtp_draft_backend", name.strip().lower(),
                    f"{flag} {name} (speculative/draft_utils.py:47-66)", COMMAND_LINE)]

