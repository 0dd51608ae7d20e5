"""A pasted SGLang 0.5.23 UNO line (`--speculative-algorithm UNO`): the start-up checks that
read flags the plan does not carry.

`_handle_uno` (arg_groups/speculative_hook.py:449-611) refuses a line without
`--uno-lora-path`, with a draft model, deterministic inference, strict thinking, multi-LoRA
serving, rejection sampling, tree mode with PDMux or accept thresholds other than 1.0, or an
attention backend other than FA3 for prefill and decode. graphfit.planner.engines.sglang_uno
holds every check in SGLang's order (`resolve_uno`); this module builds its `UnoLine` from the
pasted flags so a refused line is refused here with SGLang's reason, and the planner repeats
the checks on what the plan carries (widths, parallelism, two-batch overlap).

SGLang picks the attention backend itself when the line names none (by GPU and model: FA3 for
a linear line on Hopper, FlashInfer for a tree line, which UNO then refuses); graphfit does
not restate that choice, so a UNO line must name FA3 (`--attention-backend fa3`, or both
`--prefill-attention-backend` and `--decode-attention-backend`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_uno import UnoLine, resolve_uno

ALGORITHM = "UNO"
UNSET_BACKEND = ("--speculative-algorithm: UNO needs FA3 (speculative_hook.py:606-611); "
                 "graphfit does not restate SGLang's choice by GPU and model when no backend "
                 "is named: name --attention-backend fa3")


def _int(values: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    value = values.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{key.replace('_', '-')}: expected an integer, got "
                          f"{str(value)[:40]!r}") from None


def _float(values: Mapping[str, Any], key: str) -> float:
    value = values.get(key)
    if value is None:
        return 1.0  # SGLang's default for both accept thresholds
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"--{key.replace('_', '-')}: expected a number, got "
                          f"{str(value)[:40]!r}") from None


def _backends(values: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """`attention_backends_of` (arg_groups/model_override_base.py:138-152): the split flags
    fall back to --attention-backend."""
    base = values.get("attention_backend")
    prefill = values.get("prefill_attention_backend") or base
    decode = values.get("decode_attention_backend") or base
    return (None if prefill is None else str(prefill).strip().lower(),
            None if decode is None else str(decode).strip().lower())


def uno_line(values: Mapping[str, Any]) -> UnoLine:
    """The pasted flags `_handle_uno` reads."""
    return UnoLine(
        num_draft_tokens=_int(values, "speculative_num_draft_tokens"),
        topk=_int(values, "speculative_eagle_topk"),
        steps=_int(values, "speculative_num_steps"),
        lora_path=None if values.get("uno_lora_path") is None else str(values["uno_lora_path"]),
        draft_model_path=(None if not values.get("speculative_draft_model_path")
                          else str(values["speculative_draft_model_path"])),
        tp_size=_int(values, "tp_size", 1) or 1,
        pp_size=_int(values, "pp_size", 1) or 1,
        two_batch_overlap=bool(values.get("enable_two_batch_overlap")),
        pdmux=bool(values.get("enable_pdmux")),
        enable_lora=bool(values.get("enable_lora") or values.get("lora_paths")),
        rejection_sampling=bool(values.get("speculative_use_rejection_sampling")),
        deterministic=bool(values.get("enable_deterministic_inference")),
        strict_thinking=bool(values.get("enable_strict_thinking")),
        accept_thresholds=(_float(values, "speculative_accept_threshold_single"),
                           _float(values, "speculative_accept_threshold_acc")),
        attention=_backends(values))


def line(values: Mapping[str, Any], settings: list[Setting]) -> list[Setting]:
    """A UNO line's checks (the settings pass through unchanged: SGLang's resolved steps,
    topk and widths are the planner's, graphfit.planner.engines.sglang_uno)."""
    if str(values.get("speculative_algorithm") or "").upper() != ALGORITHM:
        return settings
    device = values.get("device")
    if device is not None and not str(device).startswith("cuda"):
        raise ConfigError(f"--device: SGLang's UNO runs on CUDA only, got {device!r} "
                          f"(speculative_hook.py:452-453)")
    found = uno_line(values)
    if None in found.attention:
        # every check before the backends' first, in SGLang's order
        resolve_uno(replace(found, attention=("fa3", "fa3")))
        raise ConfigError(UNSET_BACKEND)
    resolve_uno(found)
    return settings
