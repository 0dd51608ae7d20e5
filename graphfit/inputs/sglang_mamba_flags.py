"""SGLang 0.5.23's value checks of two mamba-cache flags graphfit otherwise does not model:
`handle_mamba_backend` (arg_groups/mamba_hook.py:19-28) runs for every model and refuses a
negative `--mamba-cache-philox-rounds` and a `--mamba-max-states-per-path` that is 0 or below
-1. A value SGLang accepts changes no graph buffer graphfit plans (the Philox rounds of
stochastic rounding, the radix tree's per-path state cap): noted and ignored."""

from __future__ import annotations

from typing import Any

from graphfit.inputs.settings import Setting
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt


def _int(origin: str, value: Any) -> int:
    """The value as argparse's `type=int` reads it (int() of the text; a bool is no int)."""
    if isinstance(value, bool):
        raise ConfigError(f"{origin}: expected an integer, got {excerpt(value)}")
    try:
        return int(value.strip()) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{origin}: invalid int value: {excerpt(value)}") from None


def philox_rounds(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--mamba-cache-philox-rounds` (arg_groups/fields/exec_.py:508-511; mamba_hook.py:
    21-22)."""
    if value is not None and _int(origin, value) < 0:
        raise ConfigError(f"{origin}: --mamba-cache-philox-rounds must be non-negative "
                          f"(SGLang arg_groups/mamba_hook.py:21-22)")
    return ([Setting("engine", Engine.SGLANG, origin, layer)],
            [f"{origin}: stochastic rounding's Philox rounds set no graph shape"])


def max_states_per_path(origin: str, value: Any, layer: int
                        ) -> tuple[list[Setting], list[str]]:
    """`--mamba-max-states-per-path` (arg_groups/fields/exec_.py:497-507; mamba_hook.py:
    24-28)."""
    count = None if value is None else _int(origin, value)
    if count is not None and (count == 0 or count < -1):
        raise ConfigError(f"{origin}: --mamba-max-states-per-path must be -1 (unlimited) or a "
                          f"positive integer, got {count} (SGLang mamba_hook.py:24-28)")
    return ([Setting("engine", Engine.SGLANG, origin, layer)],
            [f"{origin}: the radix tree's per-path state cap sets no graph shape"])
