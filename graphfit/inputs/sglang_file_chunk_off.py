"""The model hooks' chunking off (graphfit.inputs.sglang_chunk_off_model) and the Clef / Kev
TP / PP refusal (graphfit.inputs.sglang_decision_heads) read on graphfit's config file together
with the pasted line (issue 23, s70a).

Why: the pasted line's reader sees the line alone, so a file's `enable_multimodal: false` (for
SGLang a caller's `ServerArgs(enable_multimodal=False)`: `is_multimodal` is `enable_multimodal
and ...`, configs/model_config.py:820-828, and the hook at arg_groups/model_hook.py:1024-1032
does not fire) still left LLaVA's chunk off, and a file naming the model or the TP size was
never read for the hooks. The file's keys are merged under the line's (the line's flags win,
utils/server_args_config_parser.py:75-106) and the target is the line's, the file's, else
graphfit's `--model-path`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs import sglang_chunk_off_model, sglang_decision_heads
from graphfit.inputs.config_file import with_target
from graphfit.inputs.settings import Resolved
from graphfit.inputs.values import normalize_key
from graphfit.planner.core.enums import Engine


def settle(data: Mapping[Any, Any], line: Mapping[str, Any] | None, resolved: Resolved,
           model: object = None) -> Resolved:
    """`resolved` with `model_chunk_off` as the hooks read the merged values (module
    docstring); ConfigError where a Clef / Kev head meets a TP or PP size other than 1."""
    engine = resolved.values.get("engine")
    if str(getattr(engine, "value", engine)) != Engine.SGLANG.value:
        return resolved
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    merged = {**with_target(keys, model if line is None else None), **(line or {})}
    sglang_decision_heads.check(merged)
    found = sglang_chunk_off_model.settings(merged)
    if not found:
        return resolved
    setting = found[0]
    return replace(resolved, values={**resolved.values, setting.field: setting.value},
                   origins={**resolved.origins, setting.field: setting.origin})


__all__ = ["settle"]
