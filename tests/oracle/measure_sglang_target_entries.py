"""Step-3.5 / 3.7 and Exaone-MoE TARGETS whose layer entry SGLang cannot read (issue 23, s68d)
over drawn plain lines: the target's config.json drawn by tests.oracle.
test_sglang_target_layer_entries_oracle.draw (`moe_layers_enum` / `is_moe_layer` written,
mangled, short or absent; 1 to 4 Exaone-MoE layers). SGLang: its resolution and its own target
model built on meta; graphfit: its CLI. Both refuse or both start.

    python -m tests.oracle.measure_sglang_target_entries [COUNT] [SEED] [BEFORE_ROOT]

Prints this checkout's counts, then the same lines scored by BEFORE_ROOT's graphfit (default
/work/main) in a child process ("before").
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path


def measure(count: int, seed: int) -> dict[str, int]:
    """Score `count` drawn lines; print and return the counts."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_longcat_rope_oracle as lr
    from tests.oracle import test_sglang_target_layer_entries_oracle as te
    from tests.oracle.measure_root import tally_refusals

    so.oracle()
    root = Path(tempfile.mkdtemp())
    rng = random.Random(seed)

    def rows() -> Iterator[tuple[str, str | None, int, str, bool]]:
        for index in range(count):
            model = root / str(index)
            model.mkdir()
            (model / "config.json").write_text(json.dumps(te.draw(rng)))
            theirs = te._sglang(model)
            code, said = lr.graphfit(model, ("--tp-size", "2"))
            yield str(index), theirs, code, said, te.agree(theirs, code, said)

    return tally_refusals(count, rows())


def main(argv: list[str]) -> int:
    from tests.oracle.measure_root import main_with_before

    return main_with_before("measure_sglang_target_entries", measure, argv, 60, "lines")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
