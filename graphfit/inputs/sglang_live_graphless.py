"""A live SGLang 0.5.23 ServerArgs whose attention backend captures no CUDA graph
(`torch_native`, `flex_attention`), planned as the pasted line with the same flags (issue 23
s43l, after s42h's graphfit.inputs.sglang_hook_graphs).

SGLang never writes its resolution into the ServerArgs' fields: `__post_init__` leaves the
record unresolved (server_args.py:241-242), `prepare_server_args` returns it so (:668-720;
the live check's hook runs there), and `resolve_once` (:244-300) keeps the raw inputs
(`_raw_input`, arg_groups/pipeline.py:28-32) while every handler's decision goes to
`_resolved_overrides` (`declare_resolution`, arg_groups/overrides.py:110-131). So the
ServerArgs' fields are the flags' graph settings, raw or resolved. That is what the memory
hook reads (pipeline.py:218), and graphfit's live fraction already agreed with the pasted
line's. What the live path missed is the later rule: `handle_attention_backend_compatibility`
turns both phases' graphs off for these backends (attention_hook.py:122-160, pipeline.py:242),
and the ServerArgs-only reader (`EngineConfig.from_sglang`) planned them. This
module gives the pasted line's answer (graphfit.inputs.sglang._attention_backend): both
phases off, and the flags' graphs as SglangOptions.hook_cudagraph_mode / hook_prefill_backend,
which the default fraction reads (graphfit.planner.engines.sglang_reserve).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import merge
from graphfit.inputs.sglang import GRAPHLESS_ATTENTION
from graphfit.inputs.sglang_live_post_capture import field_value, flag_settings
from graphfit.planner.config import keyword_default
from graphfit.planner.core.enums import CUDAGraphMode

# the flags that set both phases' graphs (cuda_graph_hook.py:54-99)
GRAPH_KEYS = ("disable_cuda_graph", "disable_decode_cuda_graph", "cuda_graph_backend_decode",
              "disable_prefill_cuda_graph", "cuda_graph_backend_prefill", "cuda_graph_config")


def settings(server_args: Any, read: Mapping[str, Any]) -> dict[str, Any]:
    """EngineConfig fields for a graph-less attention backend (empty for any other): `read`
    is what the live path read beside the ServerArgs (the flags' prefill backend among them:
    graphfit.inputs.sglang_live_post_capture)."""
    name = field_value(server_args, "attention_backend")
    if not isinstance(name, str) or name.strip().lower() not in GRAPHLESS_ATTENTION:
        return {}
    # both phases as the pasted line's handlers read the same flags (the JSON phase too)
    flags = merge(flag_settings(server_args, GRAPH_KEYS)).values
    mode = flags.get("cudagraph_mode", keyword_default("cudagraph_mode"))
    prefill = flags.get("cuda_graph_backend_prefill", read.get("cuda_graph_backend_prefill"))
    return {"cudagraph_mode": CUDAGraphMode.NONE, "cuda_graph_backend_prefill": "disabled",
            "hook_cudagraph_mode": str(getattr(mode, "value", mode)),
            "hook_prefill_backend": prefill}


__all__ = ["settings"]
