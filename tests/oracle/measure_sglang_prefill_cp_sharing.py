"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_sharing [COUNT]
[SEED]`.

COUNT generated prefill-CP lines on the CP-TP group sharing targets (Glm5Next in two KDA
forms, Qwen4-Exp: tests/oracle/sglang_prefill_cp_sharing_oracle.generate), compared with
SGLang 0.5.23 by sglang_prefill_cp_sharing_oracle.compare ("after": this tree: its runners
and resolution, then its state-cache solve with the weights given). "before": /work/main's
graphfit (or GRAPHFIT_BEFORE's) in a child process on the same pasted lines: its refusal
("same refusal" only where it carries SGLang's sentence, "not modelled"), or, where it plans
the line, its state slots and fraction against SGLang's ("same state" / "differs"; the
runners are not compared for it)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from tests.oracle import measure_sglang_prefill_cp as base
from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_sharing_oracle as sh

CHILD = f"""
import json, shlex, sys
import graphfit
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline

def answer(line, gpu):
    try:
        config = resolve_values({{"gpu_memory_gb": gpu, "weights_gb": {sh.WEIGHTS_GB}}},
                                environ={{}}, pasted=commandline.read([shlex.join(line)])
                                ).config()
        planned = graphfit.plan(config).config
        return [planned.mamba_memory_slots, planned.mem_fraction_static]
    except ConfigError as exc:
        return str(exc)

print(json.dumps([answer(line, gpu) for line, gpu in json.load(sys.stdin)]))
"""


def _before_outcome(case: sh.Case, answer: Any) -> str:
    sg = dc.sglang_answer(case)
    if isinstance(answer, str):
        if sg.rejected is not None:
            return "same refusal" if cp.sglang_reason(sg.rejected) in answer else "other refusal"
        return "not modelled" if dc.NOT_MODELLED in answer else "other refusal"
    if sg.rejected is not None:
        return "differs"
    theirs = sh.sglang_state(case)
    if isinstance(theirs, str):
        return "differs"
    return "differs" if sh.state_diffs(theirs, *answer) else "same state"


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    cases = sh.generate(count, seed)
    for model in sh.SHAPES:
        sh.model_dir(model)
    after: Counter[str] = Counter()
    served = 0
    for case in cases:
        outcome, diffs = sh.compare(case)
        after[outcome] += 1
        served += dc.sglang_answer(case).rejected is None
        if outcome == "differs":
            print("DIFFERS", case, diffs[:2])
    answers = base.child_answers(CHILD, cases)
    was = Counter(_before_outcome(c, a) for c, a in zip(cases, answers, strict=True))
    print(f"{count} lines (seed {seed}), SGLang serves {served}, refuses {count - served}")
    print("before:", dict(sorted(was.items())))
    print("after: ", dict(sorted(after.items())))


if __name__ == "__main__":
    main()
