"""NixlEP's dispatcher raise (token_dispatcher/nixl.py:481-482; issue 23, s54e) over drawn
`--moe-a2a-backend nixl` lines on two MoE families: Qwen3-MoE (built through
get_moe_impl_class) and Mixtral (a FusedMoE outside it). SGLang resolves each line and builds
the model's own MoE block without the oracle's shared dispatcher step
(tests.oracle.test_sglang_deepep_class_oracle.sglang, shared_build=False); graphfit plans it
through its CLI. Both must refuse (naming SGLang's build error where the build is what
fails) or both start.

    python -m tests.oracle.measure_sglang_nixl_dispatch [COUNT] [SEED] [GRAPHFIT_ROOT]

GRAPHFIT_ROOT (optional): a checkout whose `graphfit` is scored instead (a before figure).
Prints agree / differ / not modelled, how many lines SGLang refused, then the first
differing lines."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

from tests.oracle.measure_root import count_seed_root, print_counts, tally

MODES = ("auto", "normal", "low_latency", "low_latency")
QUANTS = (None, None, "fp8")
RUNNERS = ("auto", "auto", "triton", "deep_gemm")


def line(rng: random.Random) -> tuple[tuple[str, ...], bool]:
    """One drawn nixl line and whether JIT DeepGEMM is on."""
    tp = rng.choice((2, 4))
    out = ["--tp-size", str(tp), "--ep-size", str(tp), "--moe-a2a-backend", "nixl",
           "--deepep-mode", rng.choice(MODES), "--moe-runner-backend", rng.choice(RUNNERS)]
    quant = rng.choice(QUANTS)
    if quant:
        out += ["--quantization", quant]
    return tuple(out), rng.random() < 0.5


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 40)
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs
    from tests.oracle import test_sglang_deepep_class_oracle as t

    so.oracle()
    root = Path(tempfile.mkdtemp())
    qwen3 = sglang_stubs.write_moe_model_dir(root / "moe")
    mixtral = root / "mixtral"
    mixtral.mkdir()
    (mixtral / "config.json").write_text(json.dumps(t.MIXTRAL))
    rng = random.Random(seed)
    counts = {"agree": 0, "differ": 0, "not modelled": 0}
    lines: list[str] = []
    refused = 0
    for _ in range(count):
        where, block = rng.choice(((qwen3, t._qwen3_block), (mixtral, t._mixtral_block)))
        args, jit = line(rng)
        theirs = t.sglang(where, args, jit, block=block, shared_build=False)
        refused += theirs is not None
        said = t._agree(where, args, jit, theirs)
        tally(counts, lines, said is None, said or "",
              f"{block.__name__} {' '.join(args)} jit={jit}: {(said or '')[:240]}")
    print_counts(count, seed, counts, lines)
    print(f"SGLang refused {refused} of {count} lines")
    return 0 if counts["differ"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
