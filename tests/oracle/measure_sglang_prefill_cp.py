"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp [COUNT] [SEED]
[family]`.

COUNT generated `--enable-prefill-cp` lines (tests/oracle/sglang_prefill_cp_oracle.generate:
TP, `--cp-strategy`, `--attn-cp-size`, `--dcp-size`, an EAGLE draft; Llama / MLA /
DeepSeek-V4 / MiMo-V2 / HYV4 / DeepSeek-V3.2 / LongCat targets), each compared with SGLang's
own resolution and runners as sglang_prefill_cp_oracle.compare does, for this tree ("after")
and for /work/main's graphfit (or the tree named by GRAPHFIT_BEFORE) in a child process
("before": its refusal, counted as the same refusal only where it carries SGLang's sentence;
a line it plans is counted "plans"). With `family` the lines are
sglang_prefill_cp_dsa_oracle.generate's (DeepSeek DSA / MLA, DeepSeek-V3.2, Glm5Next's CP-TP
sharing and a multimodal MiMo-V2 target; issue 23 s54c)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle.before_tree import frozen

CHILD = """
import json, sys
import graphfit
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline

def answer(line, gpu):
    try:
        graphfit.plan(resolve_values({"gpu_memory_gb": gpu}, environ={},
                                     pasted=commandline.read(line)).config())
        return None
    except ConfigError as exc:
        return str(exc)

print(json.dumps([answer(line, gpu) for line, gpu in json.load(sys.stdin)]))
"""


def before(cases: list[cp.Case]) -> list[str | None]:
    return child_answers(CHILD, cases)


def child_answers(child: str, cases: list[cp.Case]) -> list[Any]:
    """`child` run by /work/main's (or GRAPHFIT_BEFORE's) graphfit on the cases' pasted lines
    (JSON [line, gpu] pairs on stdin): its JSON answer (also measure_sglang_prefill_cp_capture)."""
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    lines = [[pc.graphfit_line(argv, model, None), gpu] for argv, gpu, model in cases]
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run([sys.executable, "-c", child], input=json.dumps(lines), env=env,
                          capture_output=True, text=True, check=True, cwd=tree)
    return list(json.loads(done.stdout))


def _before_outcome(case: cp.Case, refusal: str | None) -> str:
    sg = dc.sglang_answer(case)
    if refusal is None:
        return "plans"
    if sg.rejected is not None:
        return "same refusal" if cp.sglang_reason(sg.rejected) in refusal else "other refusal"
    return "not modelled" if dc.NOT_MODELLED in refusal else "other refusal"


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    # `family` (issue 23 s54c): DeepSeek-family / CP-TP sharing / MiMo-V2 lines instead
    # (sglang_prefill_cp_dsa_oracle.generate)
    family = len(sys.argv) > 3 and sys.argv[3] == "family"
    cases = (dsa.generate if family else cp.generate)(count, seed)
    for model in (dsa.FAMILY if family else cp.MODELS):
        dsa.model_dir(model)
    after: Counter[str] = Counter()
    served = 0
    for case in cases:
        # family: with SGLang's resolved mem_fraction_static compared too (issue 23 s60p)
        outcome, diffs = (dsa.compare if family else cp.compare)(case)
        after[outcome] += 1
        served += dc.sglang_answer(case).rejected is None
        if outcome == "differs":
            print("DIFFERS", case, diffs[:2])
    was = Counter(_before_outcome(c, r) for c, r in zip(cases, before(cases), strict=True))
    print(f"{count} lines (seed {seed}), SGLang serves {served}, refuses {count - served}")
    print("before:", dict(sorted(was.items())))
    print("after: ", dict(sorted(after.items())))


if __name__ == "__main__":
    main()
