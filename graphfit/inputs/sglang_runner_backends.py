"""The attention backends a pasted SGLang 0.5.23 line names for the target model runner and
the single-layer EAGLE draft-decode runner: their `get_cuda_graph_seq_len_fill_value()` pads
each runner's seq_lens (graphfit.planner.engines.sglang_seq_len_fill; aiter's fill is
speculative_num_draft_tokens, layers/attention/aiter_backend.py:370, 3416-3417).

* `decode_attention_backend`: `--decode-attention-backend`, else `--attention-backend`
  (`attention_backends_of`, arg_groups/model_override_base.py:138-152);
* `draft_attention_backend`: `--speculative-draft-attention-backend`, which the draft model
  runner takes as its own (`resolve_draft_attention_backend`, model_executor/model_runner.py:
  306-320) and the draft backend factory prefers (speculative/draft_utils.py:45, 55-61).

The draft-extend backend is `mtp_draft_backend` (graphfit.inputs.sglang_mtp_backend). A line
naming none keeps None: SGLang's own default by GPU and model is not restated here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Setting


def line_settings(values: Mapping[str, Any]) -> list[Setting]:
    """The two settings the line's flags give (none for a flag it lacks)."""
    out = []
    decode = values.get("decode_attention_backend") or values.get("attention_backend")
    if isinstance(decode, str) and decode.strip():
        flag = ("--decode-attention-backend" if values.get("decode_attention_backend")
                else "--attention-backend")
        out.append(Setting("decode_attention_backend", decode.strip().lower(),
                           f"{flag} {decode} (model_override_base.py:138-152)", COMMAND_LINE))
    draft = values.get("speculative_draft_attention_backend")
    if isinstance(draft, str) and draft.strip():
        out.append(Setting("draft_attention_backend", draft.strip().lower(),
                           f"--speculative-draft-attention-backend {draft} "
                           f"(draft_utils.py:45, 55-61)", COMMAND_LINE))
    return out
