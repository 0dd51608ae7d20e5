"""Figures for DeepSeek-V4's KV pools sized from a byte budget: generated DeepSeek-V4 / V4.1
shapes and lines (tests/oracle/sglang_dsv4_pool_oracle.generate: a given budget;
`generate_gpu`: a `--gpu-memory-gb` and a weights size, each side's own default
mem_fraction_static and `_profile_available_bytes` making the budget) sized by SGLang 0.5.23's
own `DSV4PoolConfigurator` and by graphfit. "after": this tree. "before": the tree named by
GRAPHFIT_BEFORE (default /work/main), asked in a child process whether it has the
restatement at all (main has none: every draw is "not restated").

    PYTHONPATH=. python -m tests.oracle.measure_sglang_dsv4_pool [DRAWS] [SEED]
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dsv4_pool_oracle as po
from tests.oracle.before_tree import frozen

CHILD = ("import importlib.util as u; "
         "print(u.find_spec('graphfit.planner.engines.sglang_dsv4_pool') is not None)")


def _before(tree: str) -> bool:
    """Whether the before tree restates DeepSeek-V4's pools at all."""
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         check=True, cwd=tree, env={**os.environ, "PYTHONPATH": tree})
    return out.stdout.strip() == "True"


def _tally(cases: list[po.Case]) -> Counter[str]:
    out: Counter[str] = Counter()
    for case in cases:
        sglang = po._sglang_cached(case)
        differ = po.compare(case)
        if differ is not None:
            out["disagree"] += 1
            print(f"  differs: {case}: {differ}")
        elif isinstance(sglang, str):
            out[f"both refuse ({sglang.split(':')[0]})"] += 1
        else:
            out["agree"] += 1
            out["cap mode" if sglang["swa"] != int(sglang["full"] * 0.1) // case.page
                * case.page else "ratio mode"] += 1
    return out


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 23)
    budget = [po.generate(rng) for _ in range(count)]
    gpu = [po.generate_gpu(rng) for _ in range(count // 2)]
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    restated = _before(tree)
    for label, cases in (("given budgets", budget), ("--gpu-memory-gb lines", gpu)):
        after = _tally(cases)
        before = ("restated, run it as this tree" if restated else
                  f"not restated: {len(cases)} of {len(cases)}")
        print(f"{len(cases)} generated DeepSeek-V4 draws, {label}: before (graphfit at "
              f"{tree}): {before}; after (this tree): {dict(sorted(after.items()))}")


if __name__ == "__main__":
    main()
