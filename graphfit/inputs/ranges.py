"""Sweep axes typed on the command line: `1..1024`, `0..15`, `8..64/8`, `1,2,4`, `1..8,16,32`.

Bounds and steps are ASCII-digit integers; how many values a part holds is computed before
any is made, so `1..10**12` is refused at once (more than MAX_SWEEP_POINTS values), never
enumerated.
"""

from __future__ import annotations

from graphfit.inputs.reading import parse_int
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_SWEEP_POINTS


def parse_range(origin: str, text: str) -> tuple[int, ...]:
    """'1..1024', '0..15', '8..64/8', '1,2,4', '1..8,16,32' -> sorted unique integers."""
    parts: list[range] = []
    total = 0
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        body, _, step_text = part.partition("/")
        first, dots, last = body.partition("..")
        try:
            lo = parse_int(origin, first)
            hi = parse_int(origin, last) if dots else lo
            step = parse_int(origin, step_text) if step_text else 1
        except ConfigError:
            raise ConfigError(f"{origin}: {excerpt(text)} is not a range like 1..64, 8..64/8 "
                              "or 1,2,4") from None
        if step < 1 or hi < lo:
            raise ConfigError(f"{origin}: {excerpt(part)} must be a..b with 0 <= a <= b and "
                              "step >= 1")
        values = range(lo, hi + 1, step)
        total += len(values)  # len() of a range is O(1): nothing is enumerated
        if total > MAX_SWEEP_POINTS:
            raise ConfigError(f"{origin}: more than {MAX_SWEEP_POINTS:,} values (graphfit "
                              "sweeps at most that many configs)")
        parts.append(values)
    if not parts:
        raise ConfigError(f"{origin}: the range {excerpt(text)} is empty")
    return tuple(sorted({v for values in parts for v in values}))
