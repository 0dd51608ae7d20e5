"""SGLang's LoRA flags read for the LoRA MoE runners' start-up checks (issue 23, s65d):
`--lora-backend`, `--lora-paths`, `--max-lora-rank` and `--lora-target-modules` (arg_groups/
fields/lora.py), which `check_lora_server_args` reads (arg_groups/lora_hook.py:33-180) before
`check_lora_moe_runner_args` (:183-237; graphfit.planner.engines.sglang_lora_runner)."""

from __future__ import annotations

from typing import Any

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.values import as_int, as_str
from graphfit.planner.core.enums import Engine

SG = Engine.SGLANG


def _given(origin: str, value: Any) -> bool:
    """Whether a list / dict / string flag holds anything (SGLang tests it for truth)."""
    del origin
    return bool(value)


def _rank(origin: str, value: Any) -> int:
    return as_int(origin, value, minimum=0)


def _backend(origin: str, value: Any) -> str:
    return as_str(origin, value).lower()


KEYS: dict[str, Handler] = {
    "lora_backend": field_key("lora_backend", _backend, SG),
    "lora_paths": field_key("lora_paths_given", _given, SG),
    "max_lora_rank": field_key("max_lora_rank", _rank, SG),
    "lora_target_modules": field_key("lora_target_modules_given", _given, SG),
}

__all__ = ["KEYS"]
