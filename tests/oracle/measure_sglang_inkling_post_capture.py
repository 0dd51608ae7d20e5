"""How graphfit and SGLang 0.5.23 agree on Inkling lines under --enable-unified-memory with
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING 1 / 0 / unset (tests/oracle/sglang_inkling_post_capture:
SGLang's resolution as its launcher runs it, graphfit's pasted line), per verdict: both fail,
agree (prefill backend and static fraction), graphfit refuses as not modelled, or a
disagreement (its first example shown). The three Inkling configs: the full one, its class
defaults, the MTP architecture served as the target.

    python -m tests.oracle.measure_sglang_inkling_post_capture [N] [SEED]   # default 60, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_inkling_post_capture as ipc


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    counts: Counter[str] = Counter()
    first: dict[str, str] = {}
    failing = 0
    for _ in range(n):
        line = ipc.draw(rng)
        verdict, theirs, ours = ipc.outcome(line)
        failing += isinstance(theirs, str) and "configs/inkling.py:234" in theirs
        key = verdict if verdict in ("agree", "both fail", "graphfit: not modelled") else (
            f"differ ({line[1]})")
        counts[key] += 1
        if key.startswith("differ"):
            first.setdefault(key, f"{line}: SGLang {theirs}, graphfit {ours}"[:300])
    print(f"{n} Inkling lines ({failing} failing in SGLang at configs/inkling.py:234)\n")
    print("| verdict | lines |\n|---|---|")
    for key, count in sorted(counts.items()):
        print(f"| {key} | {count} |")
    for key, text in first.items():
        print(f"\nfirst {key}: {text}")


if __name__ == "__main__":
    main()
