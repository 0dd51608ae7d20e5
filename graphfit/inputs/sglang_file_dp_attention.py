"""SGLang's deprecated `enable_dp_attention` key in graphfit's config file, read as the record
a Python caller builds from it (issue 23, s70g).

`ServerArgs(dp_size=N, enable_dp_attention=True)` (what `sglang.Engine(**kwargs)` builds,
entrypoints/engine.py:278-297) starts: SGLang's first resolution hook,
`handle_deprecated_dp_attention` (arg_groups/parallel_hook.py:39-62, run first at
arg_groups/pipeline.py:42-45), makes `dp_size` the attention-DP width and the replicas 1 where
`attn_dp_size` is left at 1, then clears the flag. graphfit's file refused the key outright
(graphfit.inputs.sglang._enable_dp_attention, which still speaks for graphfit's own
`--enable-dp-attention` flag, where the width is not in the same source); it now reads the
file's keys together, as a pasted `--dp-size N --enable-dp-attention` is read
(`sglang.deprecated_dp_attention`, `sglang_dsv4.dp_replicas`), so SGLang's later checks on
the width (an attention-DP width that does not divide the TP size, replicas beside an
attention-DP width) meet the file's values.

SGLang's own `--config` YAML refuses the key (a `DeprecatedStoreTrueAction` is among the
merger's unsupported actions, utils/server_args_config_parser.py:43-67, 170-173), as it
refuses `lora_paths`; graphfit's file holds the values a Python caller gives, as it reads
`lora_paths`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang as sglang_args
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.values import as_bool, normalize_key
from graphfit.planner.core.enums import Engine

KEY = "enable_dp_attention"


def key(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """The key alone: a boolean naming SGLang (its width is read with the file's other keys,
    `settings`)."""
    as_bool(origin, value)
    return [Setting("engine", Engine.SGLANG, origin, layer)], []


def settings(data: Mapping[Any, Any], name: str, found: list[Setting]) -> list[Setting]:
    """The file's settings with the deprecated width applied: `attn_dp_size` from the file's
    `dp_size` and no replicas, where `enable_dp_attention` is true and the file leaves
    `attn_dp_size` at 1 (parallel_hook.py:50-59); `found` as it is otherwise."""
    keys = {normalize_key(k): v for k, v in data.items() if isinstance(k, str)}
    if KEY not in keys or not as_bool(f"{name}: {KEY}", keys[KEY]):
        return found
    width = sglang_args.deprecated_dp_attention(keys)
    if not width:  # attn_dp_size given: the flag adds nothing (:47-49, 60-62)
        return found
    origin = f"{name}: dp_size with {KEY}"
    # the width replaces an `attn_dp_size: 1` the file gives, the replicas are 1 (:51-58)
    return ([s for s in found if s.field not in ("dp_replicas", "attn_dp_size")]
            + [Setting(s.field, s.value, origin, FILE) for s in width])


__all__ = ["KEY", "key", "settings"]
