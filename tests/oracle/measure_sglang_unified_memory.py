"""Figures for `--enable-unified-memory` with a speculative draft (issue 23 s37m): every model
of tests/oracle/sglang_unified_memory_oracle.MODELS x its ALGORITHMS (and none) x topk 1 / 2 x
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on / unset, resolved by SGLang 0.5.23's own pipeline and
planned by graphfit: this tree ("after") and /work/main's graphfit in a child process on the
same lines ("before", or the tree named by GRAPHFIT_BEFORE).

    PYTHONPATH=. python -m tests.oracle.measure_sglang_unified_memory
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_memory_oracle as um

CHILD = """
import json, sys
from tests.oracle import sglang_prefill_oracle as po
print(json.dumps([po.pasted_mem_fraction(line, gb) for line, gb in json.load(sys.stdin)]))
"""


def main() -> None:
    cases = [(name, algorithm, topk, value) for name, algorithm, topk, value in itertools.product(
        um.MODELS, (None, *um.ALGORITHMS), (1, 2), ("1", None))
        if not (topk == 2 and algorithm in (None, "DFLASH", "NGRAM"))]
    lines = [pc.graphfit_line(um.line(n, a, k), n, v) for n, a, k, v in cases]
    tree = os.environ.get("GRAPHFIT_BEFORE", "/work/main")
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(
        [(line, 80.0) for line in lines]), capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": tree}, cwd=tree)
    before = json.loads(done.stdout.strip().splitlines()[-1])
    tally: Counter[str] = Counter()
    for (name, algorithm, topk, value), line, old in zip(cases, lines, before, strict=True):
        theirs = pc.sglang_fraction(um.line(name, algorithm, topk), 80.0, name, value)
        tally["SGLang refuses" if theirs is None else "SGLang plans"] += 1
        new = pc.graphfit_fraction(line, 80.0)
        for side, ours in (("before", old), ("after", new)):
            if theirs is None:
                ok = isinstance(ours, str)
            else:
                ok = not isinstance(ours, str) and pc.disagreement(theirs[0], ours) is None
            tally[f"{side}: {'agree' if ok else 'disagree'}"] += 1
            if not ok and side == "after":
                print("DIFFER", name, algorithm, topk, value, theirs, str(ours)[:120])
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")


if __name__ == "__main__":
    main()
