"""The loop the quantization oracles' tests share (issue 23, s55x): run a compare over lines,
fail on any disagreement, hand back the verdicts for the test's own not-vacuous counts.

A compare returns (verdict, a disagreement or None) for one line; what a verdict means and
how many of each a test expects stays in each test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any


def agreed(lines: Iterable[Sequence[Any]], compare: Callable[..., tuple[str, str | None]],
           shown: int = 8) -> list[str]:
    """Each line's verdict from `compare(*line)`, after asserting that no line disagreed
    (the first `shown` disagreements are the failure's message)."""
    verdicts, wrong = [], []
    for line in lines:
        verdict, bad = compare(*line)
        verdicts.append(verdict)
        if bad:
            wrong.append(bad)
    assert not wrong, "\n".join(wrong[:shown])
    return verdicts
