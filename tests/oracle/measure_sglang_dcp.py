"""Measure (not a test): `python -m tests.oracle.measure_sglang_dcp [COUNT] [SEED] [kimi_k3 |
fabric | gb300]`.

COUNT generated `--dcp-size` 2 / 4 / 8 lines of a DeepSeek-V3-shaped MLA model or a
Llama-shaped MHA one (tests/oracle/sglang_dcp_oracle.generate: backends, request pools,
--max-total-tokens, decode max_bs, padding, prefill backends, `--dcp-comm-backend`, drafts,
unified memory, `--nnodes` (s47d); A100 / H100 / B200), each compared (the DCP communication
backend SGLang resolves too, s47d) as tests/oracle/sglang_dcp_oracle.compare does
(SGLang's runner vs graphfit's plan) for this tree ("after"), and, on the lines SGLang serves,
the default mem_fraction_static with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING unset and set to 1
(`fraction`). "Before" is /work/main's graphfit (or the tree named by GRAPHFIT_BEFORE) on the
same lines in a child process (`kimi_k3`: Kimi-K3 lines only, sglang_dcp_oracle.generate's
`models`, s47d; `fabric`: B200 / GB200 lines, --nnodes drawn on half of them, where SGLang's
NVLink-fabric probe decides fi_a2a, s55k, then the lines left not modelled again with
`mnnvl_fabric: false` in graphfit's config file; `gb300`: GB300 lines, --nnodes drawn on half,
s60k): its refusal (a plan it makes is not compared) and its fractions.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle.before_tree import frozen

# the before tree's answer for a pasted line: its refusal, or None where it plans (then the
# plan is compared in this process on this tree's side: a tree that planned DCP lines would
# need its own comparison, which /work/main's never does)
CHILD = """
import json, sys
from graphfit import ConfigError
import graphfit
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline

def answer(line, gpu):
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        graphfit.plan(config)
        return None
    except ConfigError as exc:
        return str(exc)

def fraction(line, gpu):
    try:
        return resolve_values({"gpu_memory_gb": gpu}, environ={},
                              pasted=commandline.read(line)).config().mem_fraction_static
    except ConfigError as exc:
        return str(exc)

print(json.dumps([[answer(line, gpu), fraction(line, gpu), fraction(env_line, gpu)]
                  for line, env_line, gpu in json.load(sys.stdin)]))
"""
ENV_NAME = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"
ENV = "1"  # SGLANG_ENABLE_POST_CAPTURE_KV_SIZING for the second fraction
Before = tuple[str | None, float | str | None, float | str | None]


def before(cases: list[dc.Case]) -> list[Before]:
    """The before tree's refusal (None: it plans) and its default fraction, with the variable
    unset and set to ENV, for each line."""
    from tests.oracle import sglang_post_capture_oracle as pc

    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    payload = [(pc.graphfit_line(argv, model, None), pc.graphfit_line(argv, model, ENV), gpu)
               for argv, gpu, model in cases]
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(payload),
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": tree}, cwd=tree)
    return [tuple(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]  # type: ignore[misc]


def _fraction_outcome(theirs: float | None, ours: float | str | None) -> str:
    if isinstance(ours, str):
        return "not modelled" if dc.NOT_MODELLED in ours else "refused"
    if theirs is not None and theirs <= 0:
        return "agree" if ours is None else "differs"
    return "agree" if ours == theirs else "differs"


def _before_outcome(sg_rejected: bool, old: str | None) -> str:
    if old is None:
        return "planned (not compared)"
    if sg_rejected:
        return "both refuse" + (" (not modelled)" if dc.NOT_MODELLED in old else "")
    return "not modelled" if dc.NOT_MODELLED in old else "differs"


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 42
    models = (dc.KIMI,) if sys.argv[3:] == [dc.KIMI] else dc.MODELS
    fabric = sys.argv[3:] == ["fabric"]
    gb300 = sys.argv[3:] == ["gb300"]  # issue 23 s60k: the GB300 named
    gpus = ("B200", "GB200") if fabric else ("GB300",) if gb300 else dc.DRAWN
    cases = dc.generate(count, seed, models=models, gpus=gpus,
                        nodes=0.5 if fabric or gb300 else 0.1)
    for _, _, model in cases:
        dc.model_path(model)  # the before tree's child reads the same directory
    old = before(cases)
    tally: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
    fractions: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
    served = 0
    shown: list[str] = []
    for case, (was, *was_fraction) in zip(cases, old, strict=True):
        sg = dc.sglang_answer(case)
        served += sg.rejected is None
        outcome, diffs = dc.compare(case)
        if outcome == "both refuse" and dc.NOT_MODELLED in diffs[0]:
            outcome = "both refuse (not modelled)"
        tally["after"][outcome] += 1
        tally["before"][_before_outcome(sg.rejected is not None, was)] += 1
        if outcome == "differs":
            shown.append(f"  {' '.join(case[0])} on {case[1]}: {diffs[:3]}")
        elif outcome == "not modelled":
            shown.append(f"  not modelled: {' '.join(case[0])} on {case[1]}: {diffs[0][:120]}")
        if sg.rejected is not None:
            continue
        for env, past in zip((None, ENV), was_fraction, strict=True):
            theirs, ours, _ = dc.fraction(case, env)
            if theirs is None:  # SGLang's memory hook itself refused; not a fraction
                continue
            fractions["before"][_fraction_outcome(theirs, past)] += 1
            fractions["after"][_fraction_outcome(theirs, ours)] += 1
            if _fraction_outcome(theirs, ours) == "differs":
                shown.append(f"  fraction ({env}): {' '.join(case[0])} on {case[1]} "
                             f"({case[2]}): SGLang {theirs}, graphfit {ours}")
    print(f"{count} DCP lines (seed {seed}); SGLang serves {served}, refuses {count - served}")
    for side in ("before", "after"):
        print(f"{side}: " + ", ".join(f"{k} {v}" for k, v in sorted(tally[side].items())))
    print(f"default mem_fraction_static on the served lines, {ENV_NAME} unset and ={ENV}:")
    for side in ("before", "after"):
        print(f"  {side}: " + ", ".join(f"{k} {v}"
                                       for k, v in sorted(fractions[side].items())))
    print("\n".join(shown))
    if fabric:
        _no_fabric(cases)
    sys.exit(1 if tally["after"]["differs"] or fractions["after"]["differs"] else 0)


def _no_fabric(cases: list[dc.Case]) -> None:
    """The B200 lines this tree leaves not modelled, again with graphfit's config file saying
    `mnnvl_fabric: false` (the oracle's B200 has no fabric, so SGLang's answer is the same)."""
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="graphfit-s55k-")) / "graphfit.yaml"
    path.write_text("mnnvl_fabric: false\n")
    again: Counter[str] = Counter()
    for case in cases:
        if dc.compare(case)[0] == "not modelled":
            outcome, diffs = dc.compare(case, str(path))
            again[outcome] += 1
            if outcome == "differs":
                print(f"  no fabric: {' '.join(case[0])} on {case[1]}: {diffs[:3]}")
    print("the not-modelled lines with mnnvl_fabric: false in graphfit's config file: "
          + ", ".join(f"{k} {v}" for k, v in sorted(again.items())))


if __name__ == "__main__":
    main()
