"""Figures for `graphfit plan` on pasted DeepSeek-V4 / V4.1 lines: generated
`--gpu-memory-gb` draws (tests/oracle/sglang_dsv4_pool_oracle.generate_gpu) written as model
directories, the seven figures the plan shows (full, SWA, c4, c128, c4 state, c128 state,
request pool) vs SGLang 0.5.23's own pipeline, ModelConfig and configurator
(tests/oracle/sglang_dsv4_plan_oracle); DRAWS plain lines, DRAWS more with a
`--max-total-tokens` (`with_cap`) and DRAWS decode servers with `--dp-size` replicas
(`with_replicas`; some with a negative `--disaggregation-decode-extra-slots`) and DRAWS
DeepSeek-V4 lines on a B200 (`on_b200`) and DRAWS DeepSeek-V4 lines on 2 to 4 pipeline
stages (`with_stages`; every stage's figures compared) and DRAWS DeepSeek-V4.1 lines on a
B200 (`on_b200_v41`). "after": this
tree. "before": the tree named by GRAPHFIT_BEFORE (default /work/main), the same pasted
lines planned there in a child process: what its plan shows, and whether its request pool
equals SGLang's.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_dsv4_plan [DRAWS] [SEED] [v41|replay|dspark]

With `v41` (issue 23, s48k) only the V4.1-on-B200 group is drawn (DRAWS lines, its default
backend among them), and each line's resolved backend and KV dtype are tallied too.
With `replay` (issue 23, s50k) only DeepSeek-V4.1 lines with encoder replay are drawn
(`with_replay`), a third of them with one of the flags replay refuses beside
(`--enable-mixed-chunk`, `--enable-lora`, `--enable-session-radix-cache`,
deepseek_v4_hook.py:323-325).
With `dspark` (issue 23, s51k) only DeepSeek-V4 / V4.1 lines with a DSPARK draft are drawn
(`with_dspark`: drafts of 1 to 40 layers, half of them with encoder replay).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dsv4_plan_oracle as pl
from tests.oracle import sglang_dsv4_pool_oracle as po
from tests.oracle.before_tree import frozen

# the before tree's plan of each line, read through its public API only
CHILD = r'''
import json, re, sys
import graphfit
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.planner.engines.sglang_pool import request_pool
LINE = re.compile(r"full (\d+) tokens, SWA (\d+), c4 (\d+), c128 (\d+), c4 state (\d+), "
                  r"c128 state (\d+); request pool (\d+)")
out = []
for argv, gpu, weights, dtype, partition, layout in json.load(sys.stdin):
    prefix = [] if dtype is None else ["SGLANG_DSV4_COMPRESS_STATE_DTYPE=" + dtype]
    if partition is not None:
        prefix.append("SGLANG_PP_LAYER_PARTITION=" + partition)
    if layout is not None:
        prefix.append("SGLANG_DSV4_KV_LAYOUT=" + layout)
    try:
        config = resolve_values({"gpu_memory_gb": gpu, "weights_gb": weights}, environ={},
                                pasted=commandline.read([*prefix, *argv])).config()
        plan = graphfit.plan(config)
    except ConfigError as exc:
        out.append(["refused", str(exc)[:100]])
        continue
    shown = dict(plan.engine_inputs).get("dsv4_kv_pools")
    found = LINE.search(shown or "")
    out.append(["pools", [int(v) for v in found.groups()]] if found else
               ["pool", request_pool(plan.config)])
print(json.dumps(out))
'''


def before(cases: list[po.Case], tree: str) -> list[list[object]]:
    lines = [[pl.line(c), getattr(c, "gpu_name", None) or c.gpu_gb, c.weights_gb,
              c.state_dtype, getattr(c, "partition", None), getattr(c, "layout", None)]
             for c in cases]
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(lines),
                          capture_output=True, text=True, check=True, cwd=tree,
                          env={**os.environ, "PYTHONPATH": tree})
    return list(json.loads(done.stdout))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 23
    rng = random.Random(seed)
    only_v41 = len(sys.argv) > 3 and sys.argv[3] == "v41"
    if only_v41:
        v41_group(count, rng)
        return
    if len(sys.argv) > 3 and sys.argv[3] == "replay":
        replay_group(count, rng, seed)
        return
    if len(sys.argv) > 3 and sys.argv[3] == "dspark":
        dspark_cases = [pl.with_dspark(po.generate_gpu(rng), rng) for _ in range(count)]
        report(dspark_cases, frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main")), count, seed,
               f"{count} generated DeepSeek-V4 / V4.1 lines with a DSPARK draft (half with "
               f"encoder replay; seed {seed})")
        return
    cases: list[po.Case] = [po.generate_gpu(rng) for _ in range(count)]
    # and as many again with a --max-total-tokens (sglang_dsv4_plan_oracle.with_cap)
    cases += [pl.with_cap(po.generate_gpu(rng), rng) for _ in range(count)]
    # and as many decode servers with --dp-size replicas (with_replicas, issue 23 s44k)
    cases += [pl.with_replicas(po.generate_gpu(rng), rng) for _ in range(count)]
    # and as many DeepSeek-V4 lines on a B200 (on_b200, s44k)
    cases += [pl.on_b200(po.generate_gpu(rng), rng) for _ in range(count)]
    # and as many on pipeline stages (with_stages, s47k)
    cases += [pl.with_stages(po.generate_gpu(rng), rng) for _ in range(count)]
    # and as many DeepSeek-V4.1 lines on a B200 (on_b200_v41, s47k)
    cases += [pl.on_b200_v41(po.generate_gpu(rng), rng) for _ in range(count)]
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    report(cases, tree, count, seed)


def v41_group(count: int, rng: random.Random) -> None:
    """The V4.1-on-B200 group alone: per line, the before / after verdicts of `report` and
    SGLang's resolved backend (the default's answer where the line names none)."""
    cases = [pl.on_b200_v41(po.generate_gpu(rng), rng) for _ in range(count)]
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    old = before(cases, tree)
    tally: Counter[str] = Counter()
    for case, (kind, value) in zip(cases, old, strict=True):
        assert isinstance(case, pl.PlanCase)
        given = case.backend or "default"
        sglang = pl.sglang_side(case)
        verdict = "refused" if isinstance(sglang, str) else "sized"
        if kind == "pools":
            same = dict(zip(po.FIELDS, value, strict=True)) == sglang  # type: ignore[arg-type]
            kind = "sized, " + ("agree" if same else "differ")
        elif kind == "pool":
            kind = "not sized"
        after = "agree" if pl.compare(case) is None else "DISAGREE"
        if after != "agree":
            print(f"  differs: {case}: {pl.compare(case)}")
        tally[f"{given}, SGLang {verdict}: before {kind}, after {after}"] += 1
    print(f"{count} V4.1-on-B200 lines, tree before {tree}:")
    for key, n in sorted(tally.items()):
        print(f"  {n:3d}  {key}")


BLOCKERS = ("--enable-mixed-chunk", "--enable-lora", "--enable-session-radix-cache")


def replay_group(count: int, rng: random.Random, seed: int) -> None:
    """DeepSeek-V4.1 lines with encoder replay (module docstring), tallied as `report` does."""
    cases: list[po.Case] = []
    for _ in range(count):
        case = pl.with_replay(po.generate_gpu(rng), rng)
        if rng.random() < 1 / 3:
            case = dataclasses.replace(case, extra_flags=(rng.choice(BLOCKERS),))
        cases.append(case)
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    report(cases, tree, count, seed,
           f"{count} generated DeepSeek-V4.1 lines with encoder replay (a third with a flag "
           f"it refuses beside; seed {seed})")


def report(cases: list[po.Case], tree: str, count: int, seed: int,
           label: str | None = None) -> None:
    """Before / after tallies over all the groups (module docstring)."""
    old = before(cases, tree)
    tally_before: Counter[str] = Counter()
    tally_after: Counter[str] = Counter()
    for case, (kind, value) in zip(cases, old, strict=True):
        sglang = pl.sglang_side(case)
        refused = isinstance(sglang, str)
        if kind == "refused":
            tally_before["both refuse" if refused else "graphfit refuses, SGLang sizes"] += 1
        elif refused:
            tally_before["SGLang refuses, graphfit plans"] += 1
        elif kind == "pools":
            # the seven figures; a pipeline line's later stages are not shown before s47k
            same = dict(zip(po.FIELDS, value, strict=True)) == sglang  # type: ignore[arg-type]
            tally_before["all seven agree" if same else "pools shown, differ"] += 1
        else:
            assert isinstance(sglang, dict)
            tally_before["no pools shown; request pool " + (
                "agrees" if value == sglang["requests"] else "differs")] += 1
        cap = getattr(case, "max_total_tokens", None)
        if cap is not None and isinstance(sglang, dict) and isinstance(
                free := pl.sglang_side(dataclasses.replace(case, max_total_tokens=None)),
                dict) and free["full"] > cap:
            tally_after["of which --max-total-tokens binds"] += 1
        differ = pl.compare(case)
        said = pl.graphfit_side(case)
        if differ is not None and isinstance(said, str) and said.startswith("not restated"):
            tally_after["said, not restated (SGLang sizes)"] += 1
        elif differ is not None:
            tally_after["disagree"] += 1
            print(f"  differs: {case}: {differ}")
        elif refused:
            tally_after[f"both refuse ({str(sglang).split(':')[0]})"] += 1
        else:
            tally_after["all seven agree"] += 1
    label = label or (
        f"{6 * count} generated DeepSeek-V4 --gpu-memory-gb lines ({count} with "
        f"--max-total-tokens, {count} decode with --dp-size replicas, {count} on a B200, "
        f"{count} on pipeline stages, {count} V4.1 on a B200, seed {seed})")
    print(f"{label}: "
          f"before (graphfit at {tree}): {dict(sorted(tally_before.items()))}; "
          f"after (this tree): {dict(sorted(tally_after.items()))}")


if __name__ == "__main__":
    main()
