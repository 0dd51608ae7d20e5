"""What a ladder means for the smallest decodes, said next to the line a user pastes.

An optimised ladder follows the trace: a trace with few small steps gets no small sizes, so a
quiet server's decode of one or two requests pads far (4 tokens to 16 tokens, 1 request to 8).
`small_decode_gaps` names the decodes of 1..8 requests that pad to more than twice their size,
in the engine's unit (a decode of r requests is r*q tokens, or r requests in a batch-size
ladder), and suggests `--include` for them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from graphfit.planner.core.enums import Unit
from graphfit.planner.tuning.trace import Trace

SMALL_DECODES = 8  # decodes of up to this many requests are "small"


def small_decode_gaps(sizes: Sequence[int], unit: Unit, width: int, max_requests: int,
                      trace: Trace | None = None) -> list[str]:
    """One warning when decodes of 1..8 requests pad to more than twice their size (empty
    when none does). `width` is the tokens per request of a decode (q) for token ladders."""
    if not sizes:
        return []
    per = width if unit is Unit.TOKENS else 1
    far: list[tuple[int, int, int]] = []  # (requests, size, padded)
    for r in range(1, min(SMALL_DECODES, max_requests) + 1):
        n = r * per
        if n > sizes[-1]:
            break
        padded = sizes[bisect_left(sizes, n)]
        if padded > 2 * n:
            far.append((r, n, padded))
    if not far:
        return []

    def one(r: int, n: int, padded: int) -> str:
        tokens = f" ({n} token{'s' if n > 1 else ''})" if unit is Unit.TOKENS else ""
        if r == 1 and padded == sizes[0]:  # the ladder's smallest size is above it
            lone = f" ({n} tokens)" if unit is Unit.TOKENS and n > 1 else ""
            return f"no size below {padded}: a 1-request decode{lone} pads to {padded}"
        return f"{r} request{'s' if r > 1 else ''}{tokens} pad{'s' if r == 1 else ''} to {padded}"

    word = "tokens" if unit is Unit.TOKENS else "requests"
    shown = "; ".join(one(*f) for f in far[:3]) + ("; ..." if len(far) > 3 else "")
    share = ""
    if trace is not None:
        top = far[-1][1]
        steps = trace.total_weight - trace.weight_above(top)
        share = f", only {100 * steps / trace.total_weight:.1f}% of this trace's steps"
    # the next power of two of each far request count: with those, no decode of up to 8
    # requests pads past twice its size
    keep = ",".join(str(per * p) for p in sorted({1 << (r - 1).bit_length()
                                                   for r, _, _ in far}))
    return [f"{shown} -- small decodes padded past twice their size ({word}){share} but what "
            f"every quiet moment of a server runs: --include {keep} keeps sizes for them"]
