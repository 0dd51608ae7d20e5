"""Figures for the capped FULL-prefill PD prefill server's mamba slack (issue 23 s37m):
generated pasted lines on the hybrid mamba models -- a PD prefill server (mostly), FULL or
breakable prefill graphs with or without `full_prefill_max_req`, with or without
--prefill-max-requests, the state cache fixed by --max-mamba-cache-size (mostly),
SGLANG_ENABLE_POST_CAPTURE_KV_SIZING on / unset -- sized by SGLang 0.5.23's own configurator
(`_profile_available_bytes`, kv_cache_configurator.py:2990-3060) and by graphfit: this tree
("after") and /work/main's graphfit in a child process on the same lines ("before", or the
tree named by GRAPHFIT_BEFORE).

    PYTHONPATH=. python -m tests.oracle.measure_sglang_pd_prefill_slack [LINES] [SEED]
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from types import SimpleNamespace
from typing import Any

from graphfit.planner.core.errors import ConfigError
from tests.oracle import sglang_mamba_memory_oracle as mm
from tests.oracle.before_tree import frozen
from tests.oracle.test_sglang_post_capture_mamba_oracle import (
    _line,
    full_prefill,
    graphfit_side,
    sglang_side,
    verdict,
)

CHILD = """
import json, sys
from graphfit.planner.core.errors import ConfigError
from tests.oracle.test_sglang_post_capture_mamba_oracle import graphfit_side
out = []
for p in json.load(sys.stdin):
    p = {k: tuple(v) if isinstance(v, list) else v for k, v in p.items()}
    try:
        c = graphfit_side(p)
        out.append([c.mamba_memory_slots, c.mem_fraction_static])
    except ConfigError as exc:
        out.append(str(exc))
print(json.dumps(out))
"""


def generate(rng: random.Random) -> dict[str, Any]:
    """One line (module docstring)."""
    slots = rng.choice((None, 1, 2, 4, 8, 16))
    cap = rng.choice((None, 1, 2, 3, 4, 6, 8, 12, 16))
    backend = rng.choice(("full", "full", "full", "breakable"))
    return _line(shape=rng.randrange(mm.ALL_SHAPES), gb=rng.choice((40.0, 80.0, 141.0)),
                 weights=round(rng.uniform(0.6, 0.97), 3),
                 tp=rng.choice(((1, 1), (2, 1), (4, 1))),
                 S=rng.choice((None, 64, 3000)),
                 M=rng.choice((None, rng.randint(50, 3000), rng.randint(50, 3000))),
                 pd=rng.choice(("prefill", "prefill", "prefill", None)),
                 post=rng.choice(("1", "1", None)), extra=full_prefill(slots, cap, backend))


def before_side(lines: list[dict[str, Any]]) -> list[Any]:
    tree = frozen(os.environ.get("GRAPHFIT_BEFORE", "/work/main"))
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(lines),
                          capture_output=True, text=True, env=env, cwd=tree, check=True)
    return [r if isinstance(r, str) else SimpleNamespace(mamba_memory_slots=r[0],
                                                         mem_fraction_static=r[1])
            for r in json.loads(done.stdout.strip().splitlines()[-1])]


def main(count: int, seed: int) -> None:
    rng = random.Random(seed)
    lines = [generate(rng) for _ in range(count)]
    before = before_side(lines)
    tally: Counter[str] = Counter()
    for p, old in zip(lines, before, strict=True):
        theirs, active = sglang_side(p)
        try:
            ours: Any = graphfit_side(p)
        except ConfigError as exc:
            ours = str(exc)
        exempt = "--prefill-max-requests" in p["extra"] and p["pd"] == "prefill"
        kind = "SGLang refuses" if isinstance(theirs, str) else "SGLang serves"
        tally[f"{kind}{' (capped)' if exempt else ''}"] += 1
        for name, side in (("before", old), ("after", ours)):
            why, _ = verdict(p, theirs, active, side)
            tally[f"{name}: {'agree' if why is None else 'disagree'}"] += 1
            if why is not None and name == "after":
                print("DIFFER", p["extra"], p["M"], p["weights"], why[:160])
    for key in sorted(tally):
        print(f"{key}: {tally[key]}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    main(*(args + [200, 37][len(args):]))
