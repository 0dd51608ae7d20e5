"""Whether graphfit's max length on a Kimi-K3 line is SGLang's context length (issue 23, s70l).

With chunked prefill off, SGLang's scheduler admits a waiting request's whole prompt as one
prefill even above `--max-prefill-tokens` (managers/schedule_policy.py:1627-1633), so the
rows one Kimi-K3 MegaMoE call can get are bounded by the longest prompt the scheduler keeps:
`max_req_len = min(context_len - 1, kv_capacity - 1)` (managers/tp_worker.py:567-572,
managers/utils.py:259-289). graphfit's `max_model_len` is that `context_len` where a local
config.json was read for it (graphfit.inputs.model_config.model_settings, SGLang's
get_context_length), with the line's `--context-length` over it; otherwise (a hub id) it is
graphfit's own default and bounds nothing. The setting is written only for Kimi-K3 lines, the
one rule that reads it (graphfit.planner.engines.sglang_kimi_megamoe), so other lines' plans
do not change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.model_config import config_path, read_model
from graphfit.inputs.settings import COMMAND_LINE, Setting

# models/kimi_k3.py:3876 (EntryClass), as graphfit.planner.engines.sglang_kimi_megamoe.KIMI_K3
KIMI_K3 = frozenset({"KimiK3ForConditionalGeneration", "KimiK3LinearForCausalLM"})


def _local_length(model: object) -> tuple[bool, int | None]:
    """(whether the local config.json names a Kimi-K3 class, SGLang's context length there)."""
    path = config_path(model) if isinstance(model, str) else None
    if path is None:
        return False, None
    info = read_model(path, sglang=True)
    return info.architecture in KIMI_K3, info.sglang_context_length


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`context_length_read` for a local Kimi-K3 model whose config.json gives SGLang's
    context length: `max_model_len` is then that length, or the line's `--context-length`
    over it. A hub id (the class named only by graphfit's --architecture) is left unknown."""
    kimi, length = _local_length(values.get("model_path"))
    if not kimi or not length:
        return []
    return [Setting("context_length_read", True, f"{values.get('model_path')}/config.json",
                    COMMAND_LINE)]


__all__ = ["KIMI_K3", "settings"]
