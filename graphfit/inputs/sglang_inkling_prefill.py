"""Inkling's default prefill backend on a pasted SGLang line, settled once the model is read.

SGLang declares `--cuda-graph-backend-prefill full` for an Inkling target before any
cuda-graph resolution, unless the line gives that flag, `--disable-prefill-cuda-graph` or an
`instance://` model path (`apply_inkling_prefill_cuda_graph_default`, arg_groups/
cuda_graph_hook.py:349-372, run at arg_groups/pipeline.py:185). The deprecated
`--disable-cuda-graph` is not among the hook's exits, and the per-phase flag outranks it
(`parse_cuda_graph_config`, cuda_graph_hook.py:54-71): such a line keeps FULL prefill graphs
while its decode graphs are off. graphfit reads that flag as prefill "disabled" at the lowest
rank, so the architecture (known only after the model's config is read) settles it here.

With no prefill backend at all the planner applies the same default itself
(graphfit.planner.engines.sglang_prefill.full_prefill_by_default, on the same INKLING_ARCHS),
for configs that come from no pasted line; this module sets it on the line's values too, so
the shown origin says where "full" came from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.settings import Resolved
from graphfit.inputs.sglang_instance import INSTANCE, connector
from graphfit.planner.engines.sglang_mamba_inkling import INKLING_ARCHS

FIELD = "cuda_graph_backend_prefill"
FULL = "full"
LEGACY_ORIGIN = "--disable-cuda-graph"  # the deprecated switch's rank (graphfit.inputs.sglang)
ORIGIN = "Inkling's default full prefill graphs (cuda_graph_hook.py:349-372)"


def _hook_exits(line: Mapping[str, Any]) -> bool:
    """The hook's own exits (cuda_graph_hook.py:357-362): a prefill backend or the prefill
    off-switch on the line, or a model path of the `instance` connector (`parse_connector_
    type`, utils/common.py:3742-3752)."""
    return (line.get(FIELD) is not None or line.get("disable_prefill_cuda_graph") is True
            or connector(line.get("model_path")) == INSTANCE)


def settle(line: Mapping[str, Any], resolved: Resolved,
           legacy_origin: str = LEGACY_ORIGIN) -> Resolved:
    """`resolved` with Inkling's FULL prefill backend where SGLang's hook declares it: the
    prefill backend unset, or set only by `--disable-cuda-graph` (whose origin is
    `legacy_origin`: the live check names it after the ServerArgs' field)."""
    values = resolved.values
    if values.get("architecture") not in INKLING_ARCHS or _hook_exits(line):
        return resolved
    given = values.get(FIELD)
    if given is not None and resolved.origins.get(FIELD) != legacy_origin:
        return resolved  # a higher rank (the JSON config, an attention backend) decides
    settled, origins = dict(values), dict(resolved.origins)
    settled[FIELD], origins[FIELD] = FULL, ORIGIN
    return replace(resolved, values=MappingProxyType(settled),
                   origins=MappingProxyType(origins))
