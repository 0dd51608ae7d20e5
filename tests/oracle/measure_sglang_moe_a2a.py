"""Agreement of graphfit with SGLang 0.5.23 on N generated MoE all-to-all lines.

    PYTHONPATH=. python tests/oracle/measure_sglang_moe_a2a.py [N] [SEED] [BACKEND]
    # default 200 lines, seed 0, every backend; BACKEND draws only that one (megamoe,
    # deepep_v2: their GPUs, checkpoints and environment budgets); "quant" draws the
    # quantization lines (quantized checkpoints, a --quantization that may clash with them,
    # MoE runners, SM100 or not) over none / deepep / mooncake / flashinfer_megamoe

Prints, per aspect, how many lines agree, and the first reproducer of each difference;
"refused (not modelled)" counts the lines SGLang starts with a backend graphfit refuses
(graphfit.planner.engines.sglang_moe_a2a.REFUSED).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.oracle import sglang_moe_a2a_compare as mc


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    backend = sys.argv[3] if len(sys.argv) > 3 else None
    start = time.perf_counter()
    agree: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    first: dict[str, str] = {}
    refused = started = deepep_breakable = 0
    by_backend: Counter[str] = Counter()  # lines compared beyond acceptance, per backend
    rules: Counter[str] = Counter()  # the rule both refuse a megamoe / deepep_v2 line by
    for argv in mc.lines(n, seed, backend):
        diffs = mc.compare(argv)
        sg = mc.sglang(argv)
        if sg.rejected is None:
            started += 1
        gf = mc.graphfit_cli(argv)
        if sg.rejected is not None and gf.rejected is not None and (
                "megamoe" in argv or "deepep_v2" in argv):
            rules[mc.megamoe_rule(str(sg.rejected)) if "megamoe" in argv
                  else str(sg.rejected).split(":", 1)[1][:40].strip()] += 1
        if diffs["acceptance"] and gf.rejected and "not modelled" in gf.rejected:
            refused += 1
            continue
        if "target_ladder" in diffs:
            by_backend[argv[argv.index("--moe-a2a-backend") + 1]] += 1
        if "prefill" in diffs and mc.deepep_breakable(sg):
            deepep_breakable += 1
        for aspect, found in diffs.items():
            seen[aspect] += 1
            agree[aspect] += not found
            if found and aspect not in first:
                first[aspect] = f"{' '.join(argv)} :: {found[0].detail}"
    print(f"{n} lines (seed {seed}), SGLang starts {started}; graphfit refuses {refused} of "
          f"them as not modelled; {time.perf_counter() - start:.0f} s")
    print(f"prefill compared on {seen['prefill']} lines, {deepep_breakable} of them DeepEP "
          f"with breakable prefill graphs (8-aligned buckets)")
    print("lines both start, per backend: " + ", ".join(f"{k} {v}" for k, v in
                                                          sorted(by_backend.items())))
    if rules:
        print("megamoe / deepep_v2 lines both refuse, by SGLang's rule: " + ", ".join(
            f"{k} {v}" for k, v in rules.most_common()))
    print("| aspect | agree | compared |")
    print("|---|---|---|")
    for aspect in mc.ASPECTS:
        print(f"| {aspect} | {agree[aspect]} | {seen[aspect]} |")
    for aspect, text in first.items():
        print(f"first {aspect} difference: {text}")


if __name__ == "__main__":
    main()
