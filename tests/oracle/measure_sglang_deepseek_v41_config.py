"""`python -m tests.oracle.measure_sglang_deepseek_v41_config N SEED`: N generated DeepSeek-V4.1
configs and override objects (tests/oracle/test_sglang_deepseek_v41_config_oracle._draw) read
by SGLang's get_config and by graphfit, with the flattening (after) and with
graphfit.inputs.deepseek_v41.normalize made a copy (before, main's reading), same lines."""

from __future__ import annotations

import random
import sys
from typing import Any

from graphfit.inputs import deepseek_v41
from tests.oracle import test_sglang_deepseek_v41_config_oracle as t


def main(n: int, seed: int) -> None:
    rng = random.Random(seed)
    cases = [t._draw(rng) for _ in range(n)]
    real = deepseek_v41.normalize

    def copy(values: Any, origin: str) -> dict[str, Any]:
        return dict(values)

    for label, fn in (("before", copy), ("after", real)):
        deepseek_v41.normalize = fn  # type: ignore[assignment]
        agree = sum(not t._compare(c, o) for c, o in cases)
        print(f"{label}: {agree} agree, {n - agree} differ of {n}")
    deepseek_v41.normalize = real  # type: ignore[assignment]


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
