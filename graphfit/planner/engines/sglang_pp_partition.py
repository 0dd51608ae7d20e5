"""SGLANG_PP_LAYER_PARTITION as SGLang 0.5.23's `get_pp_indices` reads it
(distributed/utils.py:110-150): the layer count of each pipeline stage, comma-separated. The
mamba state cache's memory solve charges each rank the widest stage's share of the state
layers through the same function (kv_cache_configurator.py:3233-3254), so the partition
decides how many state slots fit (graphfit.planner.engines.sglang_mamba_memory).

SGLang ignores the variable under a single stage (:119-122) and otherwise raises a
ValueError for text that is not comma-separated integers (:124-129), a count other than the
stage count (:130-131) or counts that do not sum to the model's layers (:132-133); those are
graphfit's ConfigErrors. A negative count, which `int()` accepts and SGLang's arithmetic
does not check, is refused too: it names no stage of the model (graphfit models counts >= 0).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError

VARIABLE = "SGLANG_PP_LAYER_PARTITION"


def parse_partition(raw: str | None, pp_size: int,
                    layers: int | None) -> tuple[int, ...] | None:
    """The stages' layer counts, or None when SGLang splits evenly (unset, or one stage).
    `layers`: the model's layer count when known (the sum is checked then)."""
    if raw is None or pp_size <= 1:
        return None
    try:  # Python's int(), as SGLang calls it: surrounding spaces, "+", "_" pass
        counts = tuple(int(part) for part in raw.split(","))
    except ValueError:
        raise ConfigError(f"{VARIABLE}={raw[:60]}: not comma-separated layer counts (SGLang "
                          f"distributed/utils.py:124-129 raises)") from None
    if len(counts) != pp_size:
        raise ConfigError(f"{VARIABLE}={raw[:60]}: {len(counts)} stages, --pp-size is "
                          f"{pp_size} (SGLang distributed/utils.py:130-131 raises)")
    if any(count < 0 for count in counts):
        raise ConfigError(f"{VARIABLE}={raw[:60]}: a negative layer count (graphfit models "
                          f"counts >= 0)")
    if layers is not None and sum(counts) != layers:
        raise ConfigError(f"{VARIABLE}={raw[:60]}: {sum(counts)} layers, the model has "
                          f"{layers} (SGLang distributed/utils.py:132-133 raises)")
    return counts


__all__ = ["VARIABLE", "parse_partition"]
