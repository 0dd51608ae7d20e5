"""The NixlEP / Mooncake dispatchers' token budget assert (token_dispatcher/nixl.py:228-233,
mooncake.py:156-162; graphfit.planner.engines.sglang_dispatch_budget; issue 23, s55e) over
drawn lines on a Qwen3-MoE target: the target's --moe-a2a-backend, --deepep-mode, one of the
two variables (or none) with a drawn value (some over 1024, some unparsable), and on a third
of the lines an EAGLE draft (Qwen3-MoE) under a drawn --speculative-moe-a2a-backend.
SGLang: its resolution with the oracle's shared build steps (the target's dispatcher,
tests.oracle.sglang_mooncake_build; the draft model, tests.oracle.sglang_draft_build), the
variable set in os.environ; graphfit: its CLI on the pasted line with the VAR=value word.
Both must refuse, graphfit naming the variable exactly where SGLang's answer is the budget
assert, or both start.

    python -m tests.oracle.measure_sglang_dispatch_budget [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure)."""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally

VALUES = ("128", "1024", "1025", "2048", "8192", "abc")


Start = tuple[Path, Path, random.Random, dict[str, int], list[str]]


def start(seed: int) -> Start:
    """SGLang loaded; a Qwen3-MoE target's and draft's directories, the line generator, the
    counts and the noted lines (shared with measure_sglang_first_dispatch, s60k)."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    so.oracle()
    root = Path(tempfile.mkdtemp())
    return (sglang_stubs.write_moe_model_dir(root / "target"),
            sglang_stubs.write_moe_model_dir(root / "qwen3-draft"), random.Random(seed),
            {"agree": 0, "differ": 0, "not modelled": 0}, [])


def draw(rng: random.Random, draft: Path,
         modes: tuple[str, ...] = ("auto", "normal", "low_latency", "low_latency")) -> list[str]:
    """One line's flags: TP = EP 2 / 4, the target's --moe-a2a-backend and a --deepep-mode of
    `modes`, and on a third of the lines an EAGLE draft under a drawn
    --speculative-moe-a2a-backend."""
    tp = rng.choice(("2", "4"))
    args = ["--tp-size", tp, "--ep-size", tp, "--moe-a2a-backend",
            rng.choice(("mooncake", "nixl", "nixl", "mooncake", "none", "deepep")),
            "--deepep-mode", rng.choice(modes)]
    if rng.random() < 1 / 3:
        args += ["--speculative-algorithm", "EAGLE", "--speculative-num-steps", "2",
                 "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
                 "--speculative-draft-model-path", str(draft),
                 "--speculative-moe-a2a-backend", rng.choice(("mooncake", "nixl", "none"))]
    return args


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_oracle as so
    from tests.oracle import test_sglang_dispatch_budget_oracle as t
    from tests.oracle.environ_patch import patched_environ

    target, draft, rng, counts, lines = start(seed)
    refused = asserted = 0
    for _ in range(count):
        args = draw(rng, draft)
        name = rng.choice((t.NIXL, t.MOONCAKE, t.NIXL, t.MOONCAKE, "SGLANG_UNRELATED"))
        value = rng.choice(VALUES)
        with patched_environ({name: value}):
            r = so.resolve(tuple(args), model=str(target))
        theirs = r.text if isinstance(r, so.Rejected) else None
        refused += theirs is not None
        asserted += theirs is not None and "AssertionError" in theirs
        ours = t.graphfit(target, f"{name}={value}", tuple(args))
        said = t._differs(theirs, ours, name)
        shown = " ".join(a for a in args if not a.startswith("/"))
        tally(counts, lines, said is None, ours[1], f"{name}={value} {shown}: {said}")
    print_counts(count, seed, counts, lines)
    print(f"SGLang refused {refused} of {count} lines, {asserted} on the budget assert")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
