"""Measure the live check on quantized checkpoints against SGLang 0.5.23 (issue 23, s63c).

    python -m tests.oracle.measure_sglang_live_quant N SEED [/work/main]

Draws N (config.json quantization_config layout, `--quantization`, GPU) cases
(tests.oracle.sglang_live_quant.cases), answers each with SGLang's own ModelConfig and loader
checks (`sglang_live_quant.sglang`), and with graphfit's live check
(`graphfit.integrations.sglang.from_sglang` on a ServerArgs-like record, then planned): this
tree's ("after") and, with a checkout path, that checkout's ("before", run in a child process
whose graphfit comes from there, on the same model directories). Prints the agreement counts
and the first disagreements of each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tests.oracle.before_tree import frozen

# the graphfit side, run in this process or in the other checkout's: imports graphfit only
_EMIT = """
import json, sys, types
from graphfit.integrations.sglang import from_sglang
from graphfit.planner.plan import plan
out = []
for folder, flag, gpu in json.loads(sys.stdin.read()):
    record = types.SimpleNamespace(model_path=folder, quantization=flag,
                                   max_running_requests=16)
    try:
        plan(from_sglang(record, environ={}, gpu_memory_gb=gpu))
        out.append("passed")
    except Exception as exc:
        if type(exc).__name__ not in ("ConfigError", "GraphfitError"):
            raise
        out.append(f"refused: {exc}"[:200])
print(json.dumps(out))
"""


def emit(items: list[list[Any]], tree: str | None = None) -> list[str]:
    """graphfit's live answers to `items` ([folder, flag, GPU]) from `tree`'s graphfit (None:
    this one)."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = tree
    done = subprocess.run([sys.executable, "-c", _EMIT], input=json.dumps(items),
                          capture_output=True, text=True, env=env, check=True,
                          cwd=tree or os.getcwd())
    answers: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return answers


def main(args: list[str]) -> int:
    from tests.oracle import sglang_live_quant as lq

    count = int(args[0]) if args else 100
    seed = int(args[1]) if len(args) > 1 else 1
    cases = lq.cases(count, seed)
    theirs = [lq.sglang(case) for case in cases]
    items = [[lq.folder(layout), flag, gpu] for layout, flag, gpu in cases]
    runs = [("after (this tree)", emit(items))]
    if len(args) > 2:
        runs.insert(0, (f"before ({args[2]})", emit(items, frozen(args[2]))))
    print(f"cases: {len(cases)} (seed {seed})")
    for title, ours in runs:
        found = list(zip(cases, theirs, ours, strict=True))
        print(f"{title}: {lq.tally(found)}")
        for case, sg, gf in [f for f in found
                             if f[1].startswith("refused") != f[2].startswith("refused")][:4]:
            print(f"  {case}: SGLang {sg}; graphfit {gf[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
