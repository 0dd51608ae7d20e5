"""Agreement counts for `--json-model-override-args` on the TARGET model: graphfit's model
facts (architecture, hidden size, vocabulary, length) and multi-layer EAGLE's
architecture-dependent draft-extend default vs SGLang 0.5.23's own resolve on the
overridden config (tests/oracle/sglang_target_overrides.py), over N generated lines; and N
dict overrides of a class's other sub-configs (merged) or plain dict keys (replaced),
`sub_case`.

    python -m tests.oracle.measure_sglang_target_overrides [N] [SEED]   # default 60, 23
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from tests.oracle import sglang_target_overrides as t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    dirs = t.dirs()
    facts: Counter[str] = Counter()
    defaults: Counter[str] = Counter()
    shown = 0
    for _ in range(n):
        gpu, base, argv = t.case(rng)
        f = t.facts_verdict(argv, dirs[base], gpu)
        d = t.default_verdict(argv, dirs[base], gpu)
        facts[f.split(":", 1)[0]] += 1
        defaults[d.split(":", 1)[0]] += 1
        if (f.startswith("differ") or d.startswith(("differ", "skip"))) and shown < 12:
            shown += 1
            print("DIFFER", gpu, base, argv[-1], "|", f[:160], "|", d[:200])
    subs: Counter[str] = Counter()
    for _ in range(n):  # a dict override on a sub-config or a plain dict key (sub_case)
        config, overrides, key = t.sub_case(rng)
        v = t.sub_verdict(config, overrides, key)
        subs[v.split(":", 1)[0]] += 1
        if v.startswith("differ") and shown < 12:
            shown += 1
            print("DIFFER", config["model_type"], v[:200])
    print(f"{n} lines (seed {sys.argv[2] if len(sys.argv) > 2 else 23})")
    print("model facts:", ", ".join(f"{k} {v}" for k, v in sorted(facts.items())))
    print("multi-layer EAGLE default:",
          ", ".join(f"{k} {v}" for k, v in sorted(defaults.items())))
    print(f"{n} dict overrides of other sub-configs / plain dict keys:",
          ", ".join(f"{k} {v}" for k, v in sorted(subs.items())))


if __name__ == "__main__":
    main()
