"""The attention backends a pasted SGLang 0.5.23 line names for the target model runner and
the single-layer EAGLE draft-decode runner: their `get_cuda_graph_seq_len_fill_value()` pads
each runner's seq_lens (graphfit.planner.engines.sglang_seq_len_fill; aiter's fill is
speculative_num_draft_tokens, layers/attention/aiter_backend.py:370, 3416-3417).

* `decode_attention_backend`: `--decode-attention-backend`, else `--attention-backend`
  (`attention_backends_of`, arg_groups/model_override_base.py:138-152);
* `draft_attention_backend`: `--speculative-draft-attention-backend`, which the draft model
  runner takes as its own (`resolve_draft_attention_backend`, model_executor/model_runner.py:
  306-320) and the draft backend factory prefers (speculative/draft_utils.py:45, 55-61).

The draft-extend backend is `mtp_draft_backend` (graphfit.inputs.sglang_mtp_backend). A
speculative line naming no attention backend at all gets SGLang's default base backend by GPU
and model (`settle`, graphfit.inputs.sglang_draft_default.default_target_backend: aiter on
ROCm, attention_hook.py) for the target, the draft-decode and the draft-extend runners;
where graphfit does not restate it the fill stays 1, with a note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import COMMAND_LINE, Resolved, Setting
from graphfit.planner.engines.sglang_mtp_graphs import BACKEND_KEYS


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


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A speculative line naming no attention backend: SGLang's default base backend
    (module docstring) as the target's decode backend and, where nothing set it yet, the
    draft-extend one (`attention_backends_of` falls back to it for every phase,
    model_override_base.py:138-152; draft_utils.py:47-66)."""
    from graphfit.inputs.sglang_draft_default import default_target_backend, multi_layer_line

    values = resolved.values
    if (not line.get("speculative_algorithm") or any(line.get(k) for k in BACKEND_KEYS)
            or "decode_attention_backend" in values):
        return resolved
    name = default_target_backend(line, gpu_given)
    if name is None:
        return resolved
    said = f"SGLang's default attention backend for this GPU and model: {name}"
    new = {"decode_attention_backend": name}
    if "mtp_draft_backend" not in values and not multi_layer_line(values):
        # (multi-layer EAGLE's is sglang_draft_default's, which may keep the per-step bound)
        new["mtp_draft_backend"] = name
    return replace(resolved, values=MappingProxyType({**values, **new}),
                   origins=MappingProxyType({**resolved.origins, **dict.fromkeys(new, said)}))
