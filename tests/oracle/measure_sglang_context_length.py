"""Agreement counts for SGLang's context length (ModelConfig.context_len vs graphfit's
max_model_len) over N generated config.json files and lines
(tests/oracle/sglang_context_length_oracle.py), and the request pool SGLang sizes from it on
lines with --max-total-tokens, and N/3 STANDALONE lines with a local draft (the draft
worker's context length or SGLang's refusal of it).

    python -m tests.oracle.measure_sglang_context_length [N] [SEED]   # default 80, 35
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.oracle import sglang_context_length_oracle as t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 35
    rng = random.Random(seed)
    root = tempfile.mkdtemp(prefix="graphfit-context-length-")
    counts: Counter[str] = Counter()
    pools: Counter[str] = Counter()
    shown = 0
    for _ in range(n):
        model, argv, env = t.case(rng, root)
        v = t.verdict(model, argv, env)
        counts[v.split(":", 1)[0]] += 1
        p = t.pool_verdict(model, argv, env)
        pools[p.split(":", 1)[0]] += 1
        if (v.startswith("differ") or p.startswith("differ")) and shown < 10:
            shown += 1
            written = json.loads((Path(model) / "config.json").read_text())
            keys = {k: written[k] for k in (*t.LENGTH_KEYS, "n_positions", "model_type",
                                            "rope_scaling", "rope_parameters")
                    if k in written}
            print("DIFFER", keys, argv, env, "|", v[:220], "|", p[:120])
    drafts: Counter[str] = Counter()
    for _ in range(n // 3):  # STANDALONE lines with a local draft (draft_case)
        model, draft, argv, env = t.draft_case(rng, root)
        v = t.draft_verdict(model, draft, argv, env)
        drafts[v.split(":", 1)[0]] += 1
        if v.startswith("differ") and shown < 10:
            shown += 1
            print("DIFFER draft", argv, env, "|", v[:220])
    print(f"{n} lines (seed {seed})")
    print("context length:", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print("request pool (--max-total-tokens lines):",
          ", ".join(f"{k} {v}" for k, v in sorted(pools.items())))
    print(f"{n // 3} lines with a local draft (its context length):",
          ", ".join(f"{k} {v}" for k, v in sorted(drafts.items())))


if __name__ == "__main__":
    main()
