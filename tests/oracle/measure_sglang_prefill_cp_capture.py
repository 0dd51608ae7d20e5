"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_capture [COUNT] [SEED]`.

COUNT generated zigzag prefill-CP lines with a `--context-length` near the buckets
(sglang_prefill_cp_capture_oracle.generate). Each gets SGLang's answer (the first bucket whose
capture fails its `is_cp_active` assert, none, or no CP graphs) and graphfit's in the same
terms: this tree's ("after") and /work/main's (or GRAPHFIT_BEFORE's) in a child process
("before")."""

from __future__ import annotations

import sys
from collections import Counter

from tests.oracle import sglang_prefill_cp_capture_oracle as co
from tests.oracle.measure_sglang_prefill_cp import child_answers

CHILD = """
import json, re, sys
import graphfit
from graphfit import ConfigError
from graphfit.cli.options import resolve_values
from graphfit.inputs import commandline
from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

fails = re.compile(r"capture fails .* bucket (\\d+) at context length")
out = []
for line, gpu in json.load(sys.stdin):
    try:
        config = resolve_values({"gpu_memory_gb": gpu}, environ={},
                                pasted=commandline.read(line)).config()
        graphs = prefill_graphs(graphfit.plan(config).config)
        out.append(None if graphs.cp_bcg is not None else "no CP graphs")
    except ConfigError as exc:
        hit = fails.search(str(exc))
        out.append(int(hit.group(1)) if hit else "no CP graphs")
print(json.dumps(out))
"""


def before(cases: list[co.bo.Case]) -> list[int | str | None]:
    return child_answers(CHILD, cases)


def _kind(answer: int | str | None) -> str:
    return ("capture fails" if isinstance(answer, int) else
            "captures" if answer is None else str(answer))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    cases = co.generate(count, seed)
    theirs = [co.sglang_failing_bucket(case) for case in cases]
    print(f"lines: {len(cases)}; SGLang: "
          + ", ".join(f"{k} {n}" for k, n in sorted(Counter(map(_kind, theirs)).items())))
    after = [co.graphfit_failing_bucket(c) for c in cases]  # writes the lines' model dirs
    for name, ours in (("before", before(cases)), ("after", after)):
        same = Counter("same" if a == b else "differs" for a, b in zip(theirs, ours, strict=True))
        print(f"{name}: same answer {same['same']}, differs {same['differs']}")
        if name == "after":
            for case, a, b in zip(cases, theirs, ours, strict=True):
                if a != b:
                    print("DIFFERS", case, "SGLang", a, "graphfit", b)


if __name__ == "__main__":
    main()
