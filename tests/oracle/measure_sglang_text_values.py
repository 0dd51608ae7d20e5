"""graphfit's text values (width, layers, vocabulary, context length) against SGLang's own
ModelConfig on plain classes whose config.json writes a sub-config SGLang's parser picks
before `text_config` (issue 23, s68e; tests.oracle.sglang_text_values).

    python -m tests.oracle.measure_sglang_text_values [COUNT] [SEED] [BEFORE_ROOT]
"""

from __future__ import annotations

import random
import sys
from typing import Any, Protocol


class Drawn(Protocol):
    """An oracle module drawing configs and judging both sides (its `verdict` starts with
    agree / refused / differ)."""

    def draw(self, rng: random.Random) -> dict[str, Any]: ...
    def verdict(self, data: dict[str, Any]) -> str: ...


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn configs; print and return the counts."""
    from tests.oracle import sglang_text_values as tv

    return score(tv, count, seed)


def score(oracle: Drawn, count: int, seed: int) -> dict[str, int]:
    """`count` configs `oracle` draws from `seed`, judged; print and return the counts (the
    bare-values measure scores its own oracle module with it)."""
    rng = random.Random(seed)
    counts = {"agree": 0, "refused": 0, "differ": 0}
    shown = 0
    for _ in range(count):
        data = oracle.draw(rng)
        said = oracle.verdict(data)
        counts[said.split(":")[0]] += 1
        if said.startswith("differ") and shown < 8:
            shown += 1
            print(f"  {data}: {said}")
    print({**counts, "lines": count})
    return counts


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_text_values", measure, argv, 100, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
