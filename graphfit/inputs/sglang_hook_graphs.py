"""The CUDA graphs SGLang's memory hook sees on a line whose attention backend turns them off.

`--attention-backend torch_native` / `flex_attention` disable both phases' graphs in
`handle_attention_backend_compatibility` (attention_hook.py:122-160), which runs at
pipeline.py:242, after `handle_gpu_memory_settings` (pipeline.py:218). So the default
`mem_fraction_static` still reserves the decode graphs' 2 MiB per max_bs and the prefill
graphs' 8 MiB per size (memory_hook.py:313, 357-399) although no graph is captured.
graphfit's reader (graphfit.inputs.sglang._attention_backend) turns the graphs off with a
setting that outranks every spelling; this module merges the graph settings without it, and
hands that view to the planner as SglangOptions.hook_cudagraph_mode / hook_prefill_backend
(read by graphfit.planner.engines.sglang_reserve).
"""

from __future__ import annotations

from collections.abc import Sequence

from graphfit.inputs.settings import Setting, merge
from graphfit.planner.config import keyword_default
from graphfit.planner.core.errors import ConfigError

GRAPH_FIELDS = ("cudagraph_mode", "cuda_graph_backend_prefill")


def hook_graphs(settings: Sequence[Setting], after_all: int) -> list[Setting]:
    """The memory hook's view of the graph fields, as settings of the hook_* options; none
    where no graph-less attention backend outranked the flags (`after_all`: that rule's
    priority) or where the flags alone conflict (the full merge reports what it reports)."""
    graph = [s for s in settings if s.field in GRAPH_FIELDS]
    off = [s for s in graph if s.priority == after_all]
    if not off:
        return []
    try:
        values = merge([s for s in graph if s.priority != after_all]).values
    except ConfigError:
        return []
    mode = values.get("cudagraph_mode", keyword_default("cudagraph_mode"))
    name = str(getattr(mode, "value", mode))
    origin, layer = off[0].origin, max(s.layer for s in off)
    return [Setting("hook_cudagraph_mode", name, origin, layer),
            Setting("hook_prefill_backend", values.get("cuda_graph_backend_prefill"), origin,
                    layer)]
