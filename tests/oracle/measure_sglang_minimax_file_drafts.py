"""Measure graphfit's own `--config` file on MiniMax-M3 NVFP4 DSPARK / DFLASH lines against
SGLang's own resolution and runners (issue 23 s60m):
`python -m tests.oracle.measure_sglang_minimax_file_drafts [COUNT] [SEED] [BEFORE]` (default
12 draws, seed 23). A draw is a line of tests/oracle/sglang_minimax_nvfp4_runner (the VL
NVFP4 target, the oracle's MiniMax draft at TP 1) with the algorithm, GPU (mostly B200),
`--chunked-prefill-size` (none: B200's 16384, over the megamoe budget; 4096; 8192), a decode
bound and the draft's KV dtype drawn; graphfit reads it from a JSON config file
(`sglang_minimax_nvfp4_runner.file_keys`). "after" counts `compare(..., file=...)`'s outcomes
(runner: both build the draft runner, every aspect equal; rejected: both refuse; differs).
BEFORE (e.g. /work/main) runs that tree's `graphfit plan --config` on the same file (a child
process a line) and counts whether it accepts exactly the lines SGLang starts."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.oracle import sglang_minimax_nvfp4_runner as r
from tests.oracle.before_tree import frozen


def draw(rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """(GPU, flags) of one line."""
    more: tuple[str, ...] = ()
    chunk = rng.choice((None, "4096", "4096", "8192"))
    more += () if chunk is None else ("--chunked-prefill-size", chunk)
    bound = rng.choice((None, None, "8", "24"))
    more += () if bound is None else ("--cuda-graph-max-bs-decode", bound)
    if rng.random() < 0.3:
        more += ("--speculative-draft-kv-cache-dtype", "bf16")
    return rng.choice(("B200",) * 5 + ("H100",)), r.line(rng.choice(("DSPARK", "DFLASH")),
                                                          *more)


def _before(root: str, gpu: str, file: Path) -> int:
    out = subprocess.run([sys.executable, "-m", "graphfit", "plan", "--gpu-memory-gb", gpu,
                          "--config", str(file)], capture_output=True, text=True,
                         check=False, cwd=root, env={**os.environ, "PYTHONPATH": root})
    return out.returncode


def main(count: int = 12, seed: int = 23, root: str | None = None) -> None:
    from graphfit.inputs.gpus import GPU_MEMORY_GB
    from tests.oracle import measure_sglang_minimax_nvfp4_hook as m
    from tests.oracle import sglang_oracle as so

    rng = random.Random(seed)
    after: Counter[str] = Counter()
    before: Counter[str] = Counter()
    folder = Path(tempfile.mkdtemp(prefix="graphfit-file-drafts-"))
    for i in range(count):
        gpu, flags = draw(rng)
        file = folder / f"line{i}.json"
        outcome, diffs = r.compare(gpu, flags, file=str(file))
        after[outcome] += 1
        if outcome == "differs":
            print("differs:", gpu, [f for f in flags if not f.startswith("/")], diffs[:3])
        if root:
            argv = ("--model-path", m.target(True), *flags)
            sg = r._sglang(so.resolve(argv, gpu_mem_gb=GPU_MEMORY_GB[gpu],
                                      model=m.target(True), capability=m.CAPABILITY[gpu]))
            starts = sg.rejected is None
            code = _before(frozen(root), gpu, file)
            before["accepts as SGLang" if (code == 0) == starts else
                   "plans where SGLang refuses" if code == 0 else
                   "refuses where SGLang starts"] += 1
    if root:
        print(f"before ({root}): {dict(sorted(before.items()))}")
    print(f"after (this tree): {dict(sorted(after.items()))}")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 12, int(args[1]) if len(args) > 1 else 23,
         args[2] if len(args) > 2 else None)
