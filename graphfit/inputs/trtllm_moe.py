"""TensorRT-LLM's `moe_tensor_parallel_size` and `moe_cluster_parallel_size` (LLM-API keys of
the `--extra_llm_api_options` / `--config` YAML; trtllm-serve has no flag for them) (issue 23,
s47t).

Both are kept as options, as `moe_expert_parallel_size` is, for the mapping's derivation and
checks of the MoE sizes (graphfit.planner.engines.trtllm_moe, restating
tensorrt_llm/mapping.py@b35ac1b643:59-123): the mapping refuses sizes whose product is not the
MoE world and a cluster beside expert parallelism, which graphfit must refuse too. They shard
the MoE weights, which graphfit does not plan, so they change no graph or buffer; a note says so.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.keys import Handler
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_int
from graphfit.planner.core.enums import Engine

TR = Engine.TRTLLM
NOTE = ("{key} {size}: read; checked with the other MoE sizes as TensorRT-LLM's mapping checks "
        "them, and it changes no graph or buffer graphfit plans (it shards the MoE weights)")


def _moe_size(key: str) -> Handler:
    def handler(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
        """`key` (null: not given, which the mapping reads as -1 and derives)."""
        out = [Setting("engine", TR, origin, layer)]
        if value is None:
            return out, []
        size = as_int(origin, value, minimum=1)
        return [*out, Setting(key, size, origin, layer)], [NOTE.format(key=key, size=size)]
    return handler


moe_tensor_parallel = _moe_size("moe_tensor_parallel_size")
moe_cluster_parallel = _moe_size("moe_cluster_parallel_size")

__all__ = ["moe_cluster_parallel", "moe_tensor_parallel"]
