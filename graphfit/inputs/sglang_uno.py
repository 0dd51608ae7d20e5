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
from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.planner.engines.sglang_uno import UNSET_BACKEND, check_line

ALGORITHM = "UNO"
__all__ = ["ALGORITHM", "UNSET_BACKEND", "line"]


def line(values: Mapping[str, Any], settings: list[Setting]) -> list[Setting]:
    """A UNO line's checks (`check_line`, graphfit.planner.engines.sglang_uno); the settings
    pass through unchanged: SGLang's resolved steps, topk and widths are the planner's."""
    if str(values.get("speculative_algorithm") or "").upper() != ALGORITHM:
        return settings
    check_line(values)
    return settings
