"""The other five per-rank token budgets at 0 or below (issue 23, s63k;
graphfit.planner.engines.sglang_budget_floor) over drawn MoE all-to-all lines: a line of
`sglang_moe_a2a_compare.draw` (any backend), one of the five variables set to a drawn value
(mostly 0 or below, now and then the backend's own), and on some lines chunked prefill off
or a disaggregation mode (where mori / pplx / megamoe skip their start-up checks).

SGLang: its argument pipeline and decode runners on the Qwen3-MoE model
(`sglang_moe_a2a_compare.sglang`). graphfit: its CLI on the pasted line. A line agrees when
every compared aspect agrees (`sglang_moe_a2a_compare.compare`); graphfit's "not modelled"
is counted apart (SGLang's start-up passed and the value reaches its layers).

    python -m tests.oracle.measure_sglang_budget_floor [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure)."""

from __future__ import annotations

import logging
import random
import sys
from collections import Counter
from typing import Any

from tests.oracle.measure_root import count_seed_root, print_counts, tally

VALUES = ("-1", "0", "-7", "-4096", "-1", "0", "64")
BACKENDS = ("megamoe", "mori", "pplx", "deepep_v2", "flashinfer", "deepep", "none", "mooncake")


def variables() -> dict[str, str]:
    """backend -> the variable it reads (the five, sglang_budget_floor.READERS)."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    return {"megamoe": mc.MEGAMOE_ENV, "mori": mc.MORI_ENV, "pplx": mc.PPLX_ENV,
            "deepep_v2": mc.DEEPEP_V2_ENV, "flashinfer": mc.FLASHINFER_ENV}


def draw(rng: Any) -> tuple[str, ...]:
    """One line (module docstring)."""
    from tests.oracle import sglang_moe_a2a_compare as mc

    names = variables()
    backend = rng.choice(BACKENDS)
    argv = list(mc.draw(rng, backend))
    name = names.get(backend) if rng.random() < 0.7 else None
    name = name or rng.choice(sorted(names.values()))
    argv = [w for w in argv if not w.startswith(f"{name}=")]
    if rng.random() < 0.3 and "--chunked-prefill-size" not in argv:
        argv += ["--chunked-prefill-size", "-1"]
    elif rng.random() < 0.2 and "--disaggregation-mode" not in argv:
        argv += ["--disaggregation-mode", rng.choice(("prefill", "decode"))]
    return (f"{name}={rng.choice(VALUES)}", *argv)


def lines(count: int, seed: int) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    return [draw(rng) for _ in range(count)]


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_moe_a2a_compare as mc

    logging.disable(logging.WARNING)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    shown: list[str] = []
    kinds: Counter[str] = Counter()
    for line in lines(count, seed):
        diffs = mc.compare(line)
        sg, gf = mc.sglang(line), mc.graphfit_cli(line)
        kinds["SGLang refuses" if sg.rejected is not None else "SGLang starts"] += 1
        found = [d for ds in diffs.values() for d in ds]
        said = gf.rejected or ""
        if found and "not modelled" in said:  # this rule's, or an earlier one's
            kinds["not modelled past the start-up check" if "past the start-up checks"
                  in said else "not modelled by another rule"] += 1
        tally(counts, shown, not found, said,
              f"{' '.join(w for w in line if not w.startswith('/'))} :: "
              f"{found[0].detail[:200] if found else ''}")
    print_counts(count, seed, counts, shown)
    print(", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
