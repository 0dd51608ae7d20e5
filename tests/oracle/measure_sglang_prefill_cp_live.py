"""Measure (not a test): `python -m tests.oracle.measure_sglang_prefill_cp_live [COUNT] [SEED]
[family]`.

COUNT generated `--enable-prefill-cp` lines (sglang_prefill_cp_oracle.generate), each read
three ways and compared with SGLang's own resolution (sglang_prefill_cp_oracle): SGLang's
resolved ServerArgs record through the live check (`live_compare`), the flags as graphfit's
own `--config` file (`file_compare`) and the prefill-CP flags in an SGLang `--config` YAML
on the pasted line (`compare(yaml_case(...))`). "after" is this tree's graphfit, "before"
/work/main's (or GRAPHFIT_BEFORE's) graphfit under this tree's oracle, each in a child
process. `family`: sglang_prefill_cp_dsa_oracle.generate's lines (issue 23 s54c)."""

from __future__ import annotations

import sys

from tests.oracle.measure_root import child_before_after, count_seed

# after measure_root.CHILD_HEAD (`graphfit` from the tree scored, json, sys and Counter)
CHILD = """from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_cp_dsa_oracle as dsa

count, seed = {count}, {seed}
out = {{"live": Counter(), "file": Counter(), "yaml": Counter()}}
for model in (dsa.FAMILY if {family} else ()):
    dsa.model_dir(model)
for case in (dsa.generate if {family} else cp.generate)(count, seed):
    for name, outcome in (("live", cp.live_compare(case)[0]), ("file", cp.file_compare(case)[0]),
                          ("yaml", cp.compare(cp.yaml_case(case))[0])):
        out[name][outcome] += 1
print("RESULT", json.dumps({{k: dict(sorted(v.items())) for k, v in out.items()}}))
"""


def main() -> None:
    count, seed = count_seed(sys.argv[1:], 60, 0)
    family = len(sys.argv) > 3 and sys.argv[3] == "family"  # issue 23 s54c
    was, now = child_before_after(CHILD, count, seed, differs=False, family=family)
    print(f"{count} lines (seed {seed})")
    for name in ("live", "file", "yaml"):
        print(f"{name}: before {was[name]}")
        print(f"{name}: after  {now[name]}")


if __name__ == "__main__":
    main()
