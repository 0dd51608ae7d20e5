"""SGLang 0.5.23's DSPARK flags on a pasted launch_server line.

`--speculative-dspark-block-size G` is DSPARK's gamma: SGLang sets
`speculative_num_draft_tokens` to G + 1 and refuses a --speculative-num-draft-tokens that
differs (arg_groups/speculative_hook.py:807-840), so here it is a second spelling of
speculative_num_draft_tokens (a differing value is a conflicting setting). SGLang reads it for
DSPARK only (:807), so another algorithm's line drops it. The planner's rules:
graphfit.planner.engines.sglang_dspark.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_int
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError

BLOCK_FLAG = "dspark-block-size"


def block_size(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--speculative-dspark-block-size G`: speculative_num_draft_tokens G + 1 (SGLang
    refuses G <= 0, speculative_hook.py:807-812)."""
    if value is None:
        return [], []
    if isinstance(value, (int, str)) and str(value).strip().lstrip("-").isdigit() \
            and int(value) <= 0:
        raise ConfigError(f"{origin}: SGLang's DSPARK needs a positive block size, got "
                          f"{value} (speculative_hook.py:807-812)")
    gamma = as_int(origin, value)
    return [Setting("speculative_num_draft_tokens", gamma + 1, origin, layer),
            Setting("engine", Engine.SGLANG, origin, layer)], []


def line(values: Mapping[str, Any], settings: list[Setting]) -> list[Setting]:
    """A pasted line's DSPARK rules that need two keys: without
    --speculative-draft-model-path SGLang looks for a draft bundled in the target checkpoint
    (speculative_hook.py:720-755), which graphfit does not read; the block size flag is
    dropped for other algorithms."""
    name = str(values.get("speculative_algorithm") or "").upper()
    if name != "DSPARK":
        return [s for s in settings if BLOCK_FLAG not in s.origin]
    if not values.get("speculative_draft_model_path"):
        raise ConfigError("--speculative-algorithm: give --speculative-draft-model-path; "
                          "graphfit does not look for a DSPARK draft bundled in the target "
                          "checkpoint (speculative_hook.py:720-755)")
    return settings
