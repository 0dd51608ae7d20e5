"""Where each buffer of a component sits: one aligned arena, or separate allocations.

One function, used by the planner (the plan's offsets) and the runtime (which re-lays out
audited capacities and checks a plan's offsets against this), so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphfit.planner.core.errors import ConfigError

ARENA_ALIGNMENT = 256
LAYOUTS = ("arena", "separate")


def check_layout(layout: object, alignment: object) -> None:
    """ConfigError for an unknown layout or an alignment that is not a power of two."""
    if layout not in LAYOUTS:
        raise ConfigError(f"layout: {layout!r} is not one of {', '.join(LAYOUTS)}")
    if (isinstance(alignment, bool) or not isinstance(alignment, int) or alignment < 1
            or alignment & (alignment - 1)):
        raise ConfigError(f"alignment: must be a power of two, got {alignment!r}")


def lay_out(nbytes: Sequence[int], layout: str, alignment: int) -> tuple[tuple[int, ...], int]:
    """(offset of each buffer, total bytes): arena offsets aligned up, in order; separate
    allocations have offset 0 and total the plain sum."""
    check_layout(layout, alignment)
    if layout == "separate":
        return (0,) * len(nbytes), sum(nbytes)
    offsets: list[int] = []
    end = 0
    for size in nbytes:
        start = -(-end // alignment) * alignment
        offsets.append(start)
        end = start + size
    return tuple(offsets), end
