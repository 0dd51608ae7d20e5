"""Figures for DeepSeek-V4's default memory reserve: generated DeepSeek-V4 lines
(tests/oracle/sglang_dsv4_reserve_oracle.generate) resolved by SGLang 0.5.23's own pipeline and
by graphfit, this tree ("after", the fraction and the prefill backend) and /work/main's graphfit
in a child process on the same lines ("before", the fraction; or the tree named by
GRAPHFIT_BEFORE).

    PYTHONPATH=. python -m tests.oracle.measure_sglang_dsv4_reserve [LINES] [SEED]
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dsv4_reserve_oracle as dr
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle.before_tree import frozen
from tests.oracle.measure_sglang_post_capture import CHILD


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    cases = [dr.generate(rng) for _ in range(count)]
    sglang = [dr.sglang_side(a, g, dr.DSV4, v) for a, g, v in cases]
    after = Counter("agree" if dr.compare(a, g, v) is None else "disagree"
                    for (a, g, v), s in zip(cases, sglang, strict=True) if s is not None)
    refused = sum(s is None for s in sglang)
    both = sum(s is None and dr.compare(a, g, v) is None
               for (a, g, v), s in zip(cases, sglang, strict=True))
    kept = [(c, s) for c, s in zip(cases, sglang, strict=True) if s is not None]
    lines = [(pc.graphfit_line(a, dr.DSV4, v), g) for (a, g, v), _ in kept]
    before_tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    child = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(lines),
                           capture_output=True, text=True, check=True, cwd=before_tree,
                           env={**os.environ, "PYTHONPATH": before_tree})
    before = Counter(
        "not modelled" if isinstance(got, str) and "not modelled" in got else
        "refused" if isinstance(got, str) else
        "agree" if pc.disagreement(s[0], got) is None else "disagree"
        for (_, s), got in zip(kept, json.loads(child.stdout), strict=True))
    backends = Counter(s[1] for _, s in kept)
    print(f"{count} generated DeepSeek-V4 lines: SGLang plans {len(kept)}, refuses {refused} "
          f"(graphfit refuses {both} of those too)")
    print(f"SGLang's prefill backend: {dict(sorted(backends.items()))}")
    print(f"before (fraction, graphfit at {before_tree}): {dict(sorted(before.items()))}")
    print(f"after (fraction and prefill backend, this tree): {dict(sorted(after.items()))}")


if __name__ == "__main__":
    main()
