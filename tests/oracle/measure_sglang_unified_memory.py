"""Figures for `--enable-unified-memory` with a speculative draft (issue 23 s37m): every model
of tests/oracle/sglang_unified_memory_oracle.MODELS x its ALGORITHMS (and none) x topk 1 / 2 x
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on / unset, resolved by SGLang 0.5.23's own pipeline and
planned by graphfit: this tree ("after") and /work/main's graphfit in a child process on the
same lines ("before", or the tree named by GRAPHFIT_BEFORE). Then (issue 23 s39u) `count`
generated lines (tests/oracle/sglang_unified_backends_oracle.generate, seed `seed`) with
attention-backend flags, PD roles and FULL prefill graphs, compared on SGLang's refusal, final
prefill-graph backend and fraction, before and after the same way. Then (issue 23 s41u)
`count` lines of tests/oracle/sglang_unified_switches_oracle.generate (same seed): the cache
and parallelism switches, DCP and the fa3 fp8_e5m2 fallback, compared the same way. Then
(issue 23 s42u) `count` lines of tests/oracle/sglang_unified_page_major_oracle.generate (same
seed): linear-attention / mamba kernels, unequal K / V rows, a mamba hybrid, an MLA hybrid-SWA
model and the decode host-receive threshold, compared the same way.

    PYTHONPATH=. python -m tests.oracle.measure_sglang_unified_memory [count [seed]]
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_unified_backends_oracle as ub
from tests.oracle import sglang_unified_memory_oracle as um
from tests.oracle import sglang_unified_page_major_oracle as pm
from tests.oracle import sglang_unified_switches_oracle as us
from tests.oracle.before_tree import frozen

CHILD = """
import json, sys
from tests.oracle import sglang_prefill_oracle as po
print(json.dumps([po.pasted_mem_fraction(line, gb) for line, gb in json.load(sys.stdin)]))
"""


# graphfit's prefill backend and fraction (or refusal) in the "before" tree, by GPU name
CHILD_BACKENDS = """
import json, sys
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

def plan(line, gpu):
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        return [prefill_graphs(config).backend, config.mem_fraction_static]
    except ConfigError as exc:
        return str(exc)

print(json.dumps([plan(line, gpu) for line, gpu in json.load(sys.stdin)]))
"""


def _before(child: str, payload: list[object]) -> list[object]:
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    done = subprocess.run([sys.executable, "-c", child], input=json.dumps(payload),
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": tree}, cwd=tree)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def backends(count: int, seed: int) -> None:
    """The generated s39u lines (module docstring)."""
    cases = ub.generate(count, seed)
    lines = [pc.graphfit_line(argv, name, value) for name, argv, _, value in cases]
    before = _before(CHILD_BACKENDS, [(line, gpu) for line, (_, _, gpu, _) in
                                      zip(lines, cases, strict=True)])
    tally: Counter[str] = Counter()
    for (name, argv, gpu, value), old in zip(cases, before, strict=True):
        theirs = ub.sglang_side(argv, name, gpu, value)
        tally["SGLang refuses" if theirs is None else f"SGLang plans ({theirs[0]})"] += 1
        old_plan = old if isinstance(old, str) else (str(old[0]), old[1])
        for side, ours in (("before", old_plan), ("after", ub.graphfit_side(
                argv, name, gpu, value))):
            differ = ub.verdict(theirs, ours)
            unmodelled = theirs is not None and isinstance(ours, str)
            tally[f"{side}: " + ("refuses as not modelled" if unmodelled else
                                 "agree" if differ is None else "disagree")] += 1
            if differ and side == "after":
                print("DIFFER", name, gpu, value, " ".join(argv[:14]), "|", differ[:140])
    print(f"-- {count} generated lines, seed {seed}")
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")


def switches(count: int, seed: int) -> None:
    """The generated s41u lines (module docstring)."""
    cases = us.generate(count, seed)
    before = _before(CHILD_BACKENDS, [(pc.graphfit_line(argv, name, value, extra), gpu)
                                      for name, argv, gpu, value, extra in cases])
    tally: Counter[str] = Counter()
    for case, old in zip(cases, before, strict=True):
        theirs, new, _ = us.compare(case)
        tally["SGLang refuses" if theirs is None else f"SGLang plans ({theirs[0]})"] += 1
        old_plan = old if isinstance(old, str) else (str(old[0]), old[1])
        for side, ours in (("before", old_plan), ("after", new)):
            differ = ub.verdict(theirs, ours)
            unmodelled = theirs is not None and isinstance(ours, str)
            tally[f"{side}: " + ("refuses as not modelled" if unmodelled else
                                 "agree" if differ is None else "disagree")] += 1
            if theirs is None and isinstance(ours, str) and "not modelled" in ours:
                tally[f"{side}: both refuse, graphfit as not modelled"] += 1
            if differ and side == "after":
                print("DIFFER", case[0], case[2], case[4], " ".join(case[1][5:]), "|",
                      differ[:140])
    print(f"-- {count} generated switch lines (s41u), seed {seed}")
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")


def page_major(count: int, seed: int) -> None:
    """The generated s42u lines (module docstring)."""
    cases = pm.generate(count, seed)
    before = _before(CHILD_BACKENDS, [(pc.graphfit_line(argv, name, None), gpu)
                                      for name, argv, gpu in cases])
    tally: Counter[str] = Counter()
    for case, old in zip(cases, before, strict=True):
        theirs, new, _ = pm.compare(case)
        tally["SGLang refuses" if theirs is None else f"SGLang plans ({theirs[0]})"] += 1
        tally[f"model {case[0]}"] += 1
        old_plan = old if isinstance(old, str) else (str(old[0]), old[1])
        for side, ours in (("before", old_plan), ("after", new)):
            differ = ub.verdict(theirs, ours)
            unmodelled = theirs is not None and isinstance(ours, str)
            tally[f"{side}: " + ("refuses as not modelled" if unmodelled else
                                 "agree" if differ is None else "disagree")] += 1
            if differ and side == "after":
                print("DIFFER", case[0], case[2], " ".join(case[1][5:]), "|", differ[:140])
            if unmodelled and side == "after":
                print("NOT MODELLED", case[0], case[2], " ".join(case[1][5:]), "|",
                      str(ours)[:100])
    print(f"-- {count} generated page-major / mamba / MLA hybrid-SWA lines (s42u), seed {seed}")
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")


def main() -> None:
    cases = [(name, algorithm, topk, value) for name, algorithm, topk, value in itertools.product(
        um.MODELS, (None, *um.ALGORITHMS), (1, 2), ("1", None))
        if not (topk == 2 and algorithm in (None, "DFLASH", "NGRAM"))]
    lines = [pc.graphfit_line(um.line(n, a, k), n, v) for n, a, k, v in cases]
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(
        [(line, 80.0) for line in lines]), capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": tree}, cwd=tree)
    before = json.loads(done.stdout.strip().splitlines()[-1])
    tally: Counter[str] = Counter()
    for (name, algorithm, topk, value), line, old in zip(cases, lines, before, strict=True):
        theirs = pc.sglang_fraction(um.line(name, algorithm, topk), 80.0, name, value)
        tally["SGLang refuses" if theirs is None else "SGLang plans"] += 1
        new = pc.graphfit_fraction(line, 80.0)
        for side, ours in (("before", old), ("after", new)):
            if theirs is None:
                ok = isinstance(ours, str)
            else:
                ok = not isinstance(ours, str) and pc.disagreement(theirs[0], ours) is None
            tally[f"{side}: {'agree' if ok else 'disagree'}"] += 1
            if not ok and side == "after":
                print("DIFFER", name, algorithm, topk, value, theirs, str(ours)[:120])
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")
    args = sys.argv[1:]
    count, seed = (int(args[0]) if args else 200), (int(args[1]) if len(args) > 1 else 39)
    backends(count, seed)
    switches(count, seed)
    page_major(count, seed)


if __name__ == "__main__":
    main()
