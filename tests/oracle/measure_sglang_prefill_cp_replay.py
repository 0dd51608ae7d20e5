"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_replay [COUNT] [SEED]`.

COUNT generated `--enable-prefill-cp` lines with `--attn-cp-size` equal to `--tp-size`
(tests/oracle/sglang_prefill_cp_bcg_oracle.generate). On each line where SGLang captures CP's
own breakable prefill graphs, 24 generated extend batches (sglang_prefill_cp_replay_oracle.
batches) get SGLang's replayed bucket (`is_cp_active`, `select_replay_bucket_for_batch`) and
graphfit's: this tree's `PrefillGraphs.replays_cp` ("after") and /work/main's (or
GRAPHFIT_BEFORE's) `PrefillGraphs.replays` of the batch's tokens and requests in a child
process ("before": main's token-keyed dispatch, which its plan's prefill table holds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo
from tests.oracle import sglang_prefill_cp_replay_oracle as ro
from tests.oracle.before_tree import frozen

CHILD = """
import json, sys
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

out = []
for line, gpu, batches in json.load(sys.stdin):
    config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                            pasted=commandline.read(line)).config()
    graphs = prefill_graphs(config)
    out.append([graphs.replays(sum(b), len(b)) for b in batches])
print(json.dumps(out))
"""


def before(items: list[tuple[bo.Case, list[ro.Batch]]]) -> list[list[int | None]]:
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    lines = [[pc.graphfit_line(argv, model, None), gpu, [list(b) for b in batches]]
             for (argv, gpu, model), batches in items]
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(lines), env=env,
                          capture_output=True, text=True, check=True, cwd=tree)
    return list(json.loads(done.stdout))


def main() -> None:
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    items: list[tuple[bo.Case, list[ro.Batch]]] = []
    theirs: list[dict[ro.Batch, int | None]] = []
    after: Counter[str] = Counter()
    for i, case in enumerate(bo.generate(count, seed)):
        gf, _ = dc.graphfit_answer(case)
        if gf.plan is None:
            continue
        graphs = prefill_graphs(gf.plan.config)
        if graphs.cp_bcg is None:
            continue
        batches = ro.batches(graphs.cp_size, graphs.captured[-1], 24, seed * 1000 + i)
        sg = ro.sglang_choices(case, batches)
        if sg is None:
            print("SGLANG CAPTURES NO CP GRAPHS", case)
            continue
        items.append((case, batches))
        theirs.append(sg)
        for b in batches:
            ours = graphs.replays_cp(b)
            after["same bucket" if ours == sg[b] else "differs"] += 1
            if ours != sg[b]:
                print("DIFFERS", case, b, sg[b], ours)
    was: Counter[str] = Counter()
    for (_, batches), sg, old in zip(items, theirs, before(items), strict=True):
        for b, answer in zip(batches, old, strict=True):
            was["same bucket" if answer == sg[b] else "differs"] += 1
    print(f"{count} lines (seed {seed}); {len(items)} capture CP's graphs; "
          f"{sum(after.values())} batches")
    print("before:", dict(sorted(was.items())))
    print("after: ", dict(sorted(after.items())))


if __name__ == "__main__":
    main()
